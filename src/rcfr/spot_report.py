"""Reading a solved hold'em spot at one decision node: per combo, hand class and category,
each player's reach, the acting player's strategy, EV, equity and equity realisation.

For player ``q`` holding combo ``x`` at decision node ``u`` (``rcfr.forms.node_values``):

- **reach**: ``q``'s range weight on ``x`` times the product of ``q``'s own action
  probabilities down to ``u`` (0 where the board or a dealt card blocks ``x``);
- **EV**: the counterfactual value ``v_q(u, x)`` divided by the opponent reach mass ``x``
  meets there (the deal's weights, chance and the opponent's strategy to ``u``, with card
  removal): the expected payoff of holding ``x`` at ``u`` against the opponent's range there,
  in chips and net as the game's payoffs are (each player starts with half the pot in; what a
  player has put in so far is already lost in it);
- **equity**: the share of the pot ``x`` wins at showdown against the opponent's range at
  ``u`` (``range weight * reach``) with card removal, ties half, if the hand were checked down:
  exact on the river (:func:`rcfr.forms.public.card_sweeps.showdown_values`), averaged over
  every turn and river card left on the flop and turn (each pair of hands sees the same number
  of runouts, so the average is the sum of the runouts' showdown values over that number);
- **EQR** (equity realisation, in postflop-solver's sense): ``(EV + in_q) / (equity * pot)``,
  where ``in_q`` is what ``q`` has put in at ``u`` (half the starting pot plus its bets so
  far) and ``pot`` the pot at ``u`` (the starting pot plus both players' bets so far): ``EV +
  in_q`` is postflop-solver's EV, the chips ``q`` expects to take from the pot less what it
  puts in from ``u`` on.

Aggregates (per hand class, per category: :mod:`rcfr.games.holdem.hand_classes`) are means
weighted by reach, and their EQR is that of their mean EV and mean equity; a class's or
category's ``share`` is its part of the range's reach at ``u``
(the range's composition) and ``combos`` its reach summed (a whole combo counts 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .core.errors import RcfrError
from .forms.base import Form
from .forms.node_values import node_values
from .forms.public.card_sweeps import showdown_values
from .forms.view import public_nodes
from .games.holdem.action_tree import CHANCE, DECISION
from .games.holdem.cards import card_str
from .games.holdem.combos import COMBO_CARDS, NUM_CARDS, NUM_COMBOS, combo_str, disjoint_mass
from .games.holdem.hand_classes import (
    CLASS_NAMES,
    HAND_CATEGORIES,
    category_sums,
    class_sums,
    combo_categories,
)
from .games.holdem.spot_game import SpotGame

BY = ("class", "category", "combo")


@dataclass
class RangeAtNode:
    """One player's range at the node, per combo (vectors over the 1,326 combos)."""

    player: int
    reach: np.ndarray
    ev: np.ndarray  # NaN where the combo does not reach or meets no opponent hand
    equity: np.ndarray
    eqr: np.ndarray
    chips_in: float
    strategy: np.ndarray | None = None  # [actions, 1326]: the acting player's
    pairs: np.ndarray | None = None  # the chance of the node's pairs of hands, per own combo


@dataclass
class SpotReport:
    """A decision node of a solved spot: where it is and both players' ranges there."""

    node: int
    path: list[str]
    player: int
    actions: list[str]
    board: tuple[int, ...]
    pot: float
    ranges: list[RangeAtNode] = field(default_factory=list)

    def rows(self, player: int, by: str = "class") -> list[dict]:
        """The table of ``player``'s range: one row per class, category or combo with any
        reach, in the grid's, the categories' or the combos' order."""
        if by not in BY:
            raise RcfrError(f"--by is class, category or combo, not {by!r}")
        r = self.ranges[player]
        values = [r.ev, r.equity] + ([] if r.strategy is None else list(r.strategy))
        stack = np.stack([np.nan_to_num(v) for v in values])
        total = r.reach.sum()
        if by == "combo":
            names = [combo_str(k) for k in range(NUM_COMBOS)]
            weights, means = r.reach, stack
            known = np.stack([~np.isnan(v) for v in values[:2]])
        else:
            sums = class_sums if by == "class" else (
                lambda v, w: category_sums(self.board, v, w))
            names = list(CLASS_NAMES if by == "class" else HAND_CATEGORIES)
            weights, means = sums(stack, r.reach)
            known = np.stack([sums(~np.isnan(v) * 1.0, r.reach)[1] > 0 for v in values[:2]])
        out = []
        for j in np.flatnonzero(weights > 0).tolist():
            row = {"hand": names[j], "combos": float(weights[j]),
                   "share": float(weights[j] / total)}
            for i, key in enumerate(("ev", "equity")):
                row[key] = float(means[i, j]) if known[i, j] else None
            row["eqr"] = self._eqr(player, row["ev"], row["equity"])
            if r.strategy is not None:
                row["strategy"] = [float(x) for x in means[2:, j]]
            out.append(row)
        return out

    def _eqr(self, player: int, ev: float | None, equity: float | None) -> float | None:
        """A group's equity realisation: of its mean EV and mean equity (module docstring)."""
        if ev is None or not equity:
            return None
        return (ev + self.ranges[player].chips_in) / (equity * self.pot)

    def summary(self, player: int) -> dict:
        """The whole range: its reach and its reach-weighted EV, equity and EQR."""
        r = self.ranges[player]
        w = np.where(np.isnan(r.ev), 0.0, r.reach)
        total = w.sum()

        def mean(v):
            return float(np.nansum(w * np.nan_to_num(v)) / total) if total > 0 else None

        out = {"player": player, "combos": float(r.reach.sum()), "chips_in": r.chips_in,
               "ev": mean(r.ev), "equity": mean(r.equity)}
        out["eqr"] = self._eqr(player, out["ev"], out["equity"])
        if r.strategy is not None:
            out["strategy"] = [mean(s) for s in r.strategy]
        return out

    def totals(self, player: int) -> dict:
        """The whole range with each combo weighted by its reach times the opponent mass it
        meets (the chance of each pair of hands at the node, card removal included, as
        postflop-solver averages a range): ``ev`` (postflop-solver's, ``EV + in``: the two
        players' sum to the pot at the root), ``equity`` (the two sum to 1) and, for the
        player to act, the ``strategy``'s action frequencies."""
        r = self.ranges[player]
        w = np.where(np.isnan(r.ev), 0.0, r.pairs)
        total = w.sum()
        if not total > 0:
            return {"ev": None, "equity": None, "strategy": None}

        def mean(v):
            return float(np.sum(w * np.nan_to_num(v)) / total)

        return {"ev": mean(r.ev) + r.chips_in, "equity": mean(r.equity),
                "strategy": None if r.strategy is None else [mean(s) for s in r.strategy]}

    def to_dict(self, by: str = "class") -> dict:
        return {"node": self.node, "path": ",".join(self.path), "player": self.player,
                "actions": self.actions, "board": "".join(card_str(c) for c in self.board),
                "pot": self.pot, "by": by,
                "ranges": [{**self.summary(p), "rows": self.rows(p, by)} for p in (0, 1)]}


def find_node(tree: Form, where: str | int | None, option: str = "--node") -> int:
    """The public node named by ``where``: its index, or its action path from the root
    (``"check,bet 100"``, dealt cards as ``"check,check,2c,bet 75"``; ``|`` also separates);
    ``None`` or ``""``: the root.  ``option`` names it in errors."""
    view = public_nodes(tree)
    if view is None:
        raise RcfrError("a node report reads a hold'em spot's public form")
    if where is None or str(where).strip() == "":
        return 0
    text = str(where).strip()
    if text.isdigit():
        u = int(text)
        if u >= view.num_nodes:
            raise RcfrError(f"{option} {u}: the tree has {view.num_nodes:,} public nodes")
        return u
    u = 0
    tokens = [t.strip() for t in text.replace("|", ",").split(",") if t.strip()]
    for i, token in enumerate(tokens):
        kids = range(int(view.child_start[u]), int(view.child_start[u + 1]))
        match = [v for v in kids if " ".join(view.edge_names[v].split()).lower()
                 == " ".join(token.split()).lower()]
        if not match:
            here = ",".join(tokens[:i]) or "the root"
            names = [view.edge_names[v] for v in kids]
            shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
            raise RcfrError(f"{option} {text}: no {token!r} at {here}"
                            + (f" (there: {shown})" if names else " (a terminal)"))
        u = match[0]
    return u


def _walk_line(game: SpotGame, path: list[str]):
    """The action-tree node, board and chips each player has put in after ``path``."""
    node, board = game.root, list(game.board)
    street = [0, 0]
    before = game.pot / 2
    for token in path:
        if node.kind == CHANCE:
            board.append(next(c for c in range(NUM_CARDS) if card_str(c) == token))
            before += street[0]
            street = [0, 0]
            node = node.children[0]
            continue
        a = [str(x) for x in node.actions].index(token)
        action = node.actions[a]
        if str(action) == "call":
            street[node.player] = street[1 - node.player]
        elif action.amount:
            street[node.player] = action.amount
        node = node.children[a]
    return node, tuple(board), [before + street[0], before + street[1]]


def _equity(board: tuple[int, ...], opp: np.ndarray) -> np.ndarray:
    """Every combo's showdown equity against the opponent weights ``opp`` (module docstring);
    NaN where it meets none."""
    left = [c for c in range(NUM_CARDS) if c not in board]
    runouts = [()] if len(board) == 5 else (
        [(c,) for c in left] if len(board) == 4 else
        [(c, d) for i, c in enumerate(left) for d in left[i + 1:]])
    won = np.zeros(NUM_COMBOS)
    for extra in runouts:
        won += showdown_values(board + extra, opp, 1.0, 0.5, 0.0)
    per_pair = {5: 1, 4: NUM_CARDS - 8, 3: (NUM_CARDS - 7) * (NUM_CARDS - 8) // 2}[len(board)]
    met = disjoint_mass(opp) * per_pair
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(met > 1e-300, won / np.where(met > 1e-300, met, 1.0), np.nan)


def spot_report(tree: Form, probs: np.ndarray, where: str | int | None = None) -> SpotReport:
    """The report of a decision node (:func:`find_node`) of a spot's public form under the
    behavioural profile ``probs`` (module docstring)."""
    game = tree.game
    if not isinstance(game, SpotGame):
        raise RcfrError(f"a node report reads a hold'em spot, not {game}")
    u = find_node(tree, where)
    view = public_nodes(tree)
    path = []
    v = u
    while v > 0:
        path.append(view.edge_names[v])
        v = int(view.parent[v])
    path.reverse()
    if view.kind[u] > 1:
        raise RcfrError(f"--node {','.join(path) or u}: not a decision node (a "
                        f"{'chance node' if view.kind[u] == 2 else 'terminal'})")
    node, board, chips = _walk_line(game, path)
    assert node.kind == DECISION and node.player == int(view.kind[u])
    nv = node_values(tree, np.asarray(probs, dtype=np.float64), u)
    live = np.ones(NUM_COMBOS, dtype=np.bool_)
    for c in board:
        live &= (COMBO_CARDS[:, 0] != c) & (COMBO_CARDS[:, 1] != c)
    pot = float(chips[0] + chips[1])
    report = SpotReport(u, path, nv.player, [str(a) for a in node.actions], board, pot)
    for q in (0, 1):
        o = 1 - q
        reach = np.where(nv.weight[q] > 0, game.ranges[q] * nv.reach[q], 0.0)
        reach = np.where(live, reach, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            ev = np.where((reach > 0) & (nv.opp_mass[q] > 0),
                          nv.cfv[q] / np.where(nv.opp_mass[q] > 0, nv.opp_mass[q], 1.0), np.nan)
        equity = _equity(board, np.where(nv.weight[o] > 0, game.ranges[o] * nv.reach[o], 0.0))
        equity = np.where(reach > 0, equity, np.nan)
        with np.errstate(invalid="ignore", divide="ignore"):
            eqr = np.where(equity > 0, (ev + chips[q]) / (equity * pot), np.nan)
        report.ranges.append(RangeAtNode(q, reach, ev, equity, eqr, float(chips[q]),
                                         nv.strategy if q == nv.player else None,
                                         np.where(live, nv.reach[q] * nv.opp_mass[q], 0.0)))
    return report


__all__ = ["BY", "RangeAtNode", "SpotReport", "combo_categories", "find_node", "spot_report"]
