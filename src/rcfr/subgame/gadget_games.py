"""Subgames and their gadgets as games (the State API), so that any rcfr solver solves them.

A gadget game starts with a chance node that deals the subgame's root histories with the
blueprint's beliefs, then plays the original game from there:

* ``unsafe``: chance deals root ``h`` with probability proportional to ``pi(h)`` (both players'
  and chance's reach), then the subgame (Ganzfried & Sandholm 2015's unsafe re-solving);
* ``resolve``: chance deals ``h`` proportional to ``w(h)`` (chance and re-solver), then the
  opponent, at its root information set ``J``, terminates for the alternative value ``t(J)``
  or enters (Burch, Johanson & Bowling 2014, fig. 2: CFR-D's re-solving gadget);
* ``maxmargin``: the opponent first picks one of its root sets ``J``, then chance deals
  ``h in J`` proportional to ``w(h)``, and every payoff to the opponent is shifted by
  ``-t(J)``, so the re-solver maximises the smallest margin ``t(J) - v(J)`` (Moravčík et al.
  2016, sec. 3).

``t(J)`` is per unit of ``w(J)`` (the counterfactual value divided by the set's weight).
Information-state strings inside the subgame are the original game's, so the re-solved
strategy is copied back by string; the gadget's own decision is ``"gadget|..."``."""

from __future__ import annotations

import numpy as np

from ..games.protocol import CHANCE, TERMINAL, Game, State

GADGETS = ("unsafe", "resolve", "maxmargin")
ENTER, TERMINATE = 0, 1


class GadgetState(State):
    """A history of the gadget: ``stage`` 0 (the opening chance or choice), 1 (the second
    gadget step), 2 (inside the subgame, ``inner`` is the original game's state)."""

    __slots__ = ("game", "stage", "choice", "root", "inner", "stopped")

    def __init__(self, game: GadgetGame) -> None:
        self.game = game
        self.stage, self.choice, self.root = 0, -1, -1
        self.inner: State | None = None
        self.stopped = False

    def current_player(self) -> int:
        g = self.game
        if self.stage == 2:
            return self.inner.current_player()
        if self.stopped:
            return TERMINAL
        if self.stage == 0:
            return g.opponent if g.kind == "maxmargin" else CHANCE
        return CHANCE if g.kind == "maxmargin" else g.opponent

    def legal_actions(self) -> list[int]:
        if self.stage == 2:
            return self.inner.legal_actions()
        if self.stopped:
            return []
        if self.current_player() == CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        if self.game.kind == "maxmargin":
            return list(range(len(self.game.set_keys)))
        return [ENTER, TERMINATE]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.stage == 2:
            return self.inner.chance_outcomes()
        g = self.game
        if g.kind == "maxmargin":
            return g.deal_within[self.choice]
        return g.deal

    def apply_action(self, action: int) -> None:
        g = self.game
        if self.stage == 2:
            self.inner.apply_action(action)
            return
        if self.current_player() == CHANCE:
            self.root = action
            self.inner = g.roots[action].clone()
            if g.kind == "resolve":
                self.stage = 1
                return
            self.stage = 2
            return
        if g.kind == "maxmargin":
            self.choice, self.stage = action, 1
            return
        if action == TERMINATE:
            self.stopped = True
        else:
            self.stage = 2

    def returns(self) -> list[float]:
        g = self.game
        o = g.opponent
        if self.stopped:
            t = float(g.alternative[g.set_of_root[self.root]])
        else:
            u = self.inner.returns()
            if g.kind != "maxmargin":
                return [float(u[0]), float(u[1])]
            t = float(u[o]) - float(g.alternative[self.choice])
        out = [0.0, 0.0]
        out[o], out[1 - o] = t, -t
        return out

    def information_state_string(self, player: int | None = None) -> str:
        p = self.current_player() if player is None else player
        if self.stage == 2:
            return self.inner.information_state_string(p)
        if self.game.kind == "maxmargin":
            return "gadget|choose"
        return f"gadget|{self.game.set_keys[self.game.set_of_root[self.root]]}"

    def action_to_string(self, player: int, action: int) -> str:
        if self.stage == 2:
            return self.inner.action_to_string(player, action)
        if player == CHANCE:
            return f"root{action}"
        if self.game.kind == "maxmargin":
            return f"J{action}"
        return "enter" if action == ENTER else "terminate"

    def clone(self) -> GadgetState:
        s = GadgetState.__new__(GadgetState)
        s.game, s.stage, s.choice, s.root = self.game, self.stage, self.choice, self.root
        s.inner = None if self.inner is None else self.inner.clone()
        s.stopped = self.stopped
        return s


class GadgetGame(Game):
    """The gadget of one subgame for the re-solver ``player`` (see the module).

    ``roots``: the root states; ``weights``: the chance weight of each (both reaches for
    ``unsafe``, chance and re-solver for the others; roots of weight 0 are left out);
    ``set_of_root``/``set_keys``: the opponent's root set of each root and its string;
    ``alternative``: ``t(J)`` per set (per unit of weight)."""

    short_name = "subgame_gadget"

    def __init__(self, base: Game, kind: str, player: int, roots: list[State],
                 weights: np.ndarray, set_of_root: np.ndarray, set_keys: list[str],
                 alternative: np.ndarray | None = None) -> None:
        super().__init__(base=str(base), kind=kind, player=player)
        self.base, self.kind, self.player, self.opponent = base, kind, player, 1 - player
        keep = np.flatnonzero(np.asarray(weights) > 0)
        self.roots = [roots[i] for i in keep]
        self.kept = keep
        w = np.asarray(weights, dtype=np.float64)[keep]
        used = np.asarray(set_of_root)[keep]
        sets = np.unique(used)  # the sets the re-solver reaches
        renumber = {int(j): k for k, j in enumerate(sets)}
        self.set_index = sets  # gadget set k is the caller's set sets[k]
        self.set_of_root = np.array([renumber[int(j)] for j in used], dtype=np.int64)
        self.set_keys = [set_keys[int(j)] for j in sets]
        self.alternative = (np.zeros(len(sets)) if alternative is None
                            else np.asarray(alternative, dtype=np.float64)[sets])
        self.big_blind = base.big_blind
        total = float(w.sum())
        self.deal = [(i, float(x) / total) for i, x in enumerate(w)] if total > 0 else []
        self.deal_within = []
        for k in range(len(sets)):
            mine = np.flatnonzero(self.set_of_root == k)
            tot = float(w[mine].sum())
            self.deal_within.append([(int(i), float(w[i]) / tot) for i in mine])

    def __str__(self) -> str:
        return f"gadget({self.kind},player={self.player},{self.base})"

    def new_initial_state(self) -> GadgetState:
        return GadgetState(self)

    def num_distinct_actions(self) -> int:
        return max(self.base.num_distinct_actions(), len(self.set_keys), 2)
