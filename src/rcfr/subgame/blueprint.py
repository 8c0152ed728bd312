"""What subgame solving reads from a blueprint: the beliefs at a subgame's roots (each
player's and chance's reach of every root history) and the opponent's counterfactual values at
its root information sets.

For the re-solver ``P`` and its opponent ``O``, a root history ``h`` weighs
``w(h) = pi_c(h) pi_P(h)`` (the reach without the opponent's own probabilities), and an opponent
root information set ``J`` (the histories ``O`` cannot tell apart at the root, from its
information-state string there) has the counterfactual best-response value
``CBV(J) = sum_{h in J} w(h) v_O^{BR}(h)`` (Burch, Johanson & Bowling 2014, sec. 3; Brown &
Sandholm 2017, sec. 2), with ``O`` best-responding below the root; the *estimated* value
replaces the best response by the blueprint itself (Brown & Sandholm 2017, sec. 4:
"Estimated-Maxmargin").  Values are kept in counterfactual units and normalised per unit of
``w(J) = sum_{h in J} w(h)`` where the gadgets pay them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import RcfrError
from ..evaluate import best_response
from ..policy import TabularPolicy
from . import node_sweeps as K
from .cut import Subgame, history_tree, root_states

VALUES = ("best-response", "blueprint")


@dataclass(frozen=True)
class RootInfosets:
    """The opponent's root information sets of one subgame, for one re-solver."""

    player: int  # the re-solver
    keys: list[str]  # the opponent's information-state string at each root set
    of_root: np.ndarray  # root set of each root history
    weight: np.ndarray  # w(h) per root history: chance and re-solver reach
    set_weight: np.ndarray  # w(J)
    cbv: np.ndarray  # counterfactual best-response value of each set (blueprint)
    estimated: np.ndarray  # counterfactual value with both playing the blueprint

    def normalised(self, values: np.ndarray) -> np.ndarray:
        """Counterfactual values per unit of the set's weight (0 where it is unreached)."""
        w = self.set_weight
        return np.divide(values, w, out=np.zeros_like(values), where=w > 0)


class Blueprint:
    """A full-game strategy profile (any solver's, or an abstraction's lifted to the full
    game) on the game's history tree, with its reach of every history."""

    def __init__(self, policy: TabularPolicy) -> None:
        self.tree = history_tree(policy.tree)
        self.policy = policy.convert(self.tree)
        self.probs = self.policy.probs
        self.reach = K.reach(self.tree, self.probs)
        self._values: dict[tuple[int, str], np.ndarray] = {}
        self._states: dict[tuple[int, int], list] = {}
        self._gifts: dict[tuple, dict[int, np.ndarray]] = {}

    def opponent_values(self, opponent: int, kind: str = "best-response") -> np.ndarray:
        """The opponent's expected payoff below every node, best-responding
        (``"best-response"``) or playing the blueprint (``"blueprint"``)."""
        if kind not in VALUES:
            raise RcfrError(f"values are {' or '.join(VALUES)}, got {kind!r}")
        key = (opponent, kind)
        if key not in self._values:
            probs = self.probs
            if kind == "best-response":
                probs = best_response(self.tree, self.policy, opponent)[1].probs
            v0 = K.values(self.tree, probs)
            self._values[key] = v0 if opponent == 0 else -v0
        return self._values[key]

    def beliefs(self, subgame: Subgame) -> np.ndarray:
        """Rows 0, 1: each player's reach of the subgame's root histories; row 2: chance's."""
        return self.reach[:, subgame.roots]

    def states(self, subgame: Subgame) -> list:
        """The game states at the subgame's roots."""
        key = (int(subgame.roots[0]), len(subgame.roots))
        if key not in self._states:
            self._states[key] = root_states(self.tree, subgame.roots)
        return self._states[key]

    def root_infosets(self, subgame: Subgame, player: int) -> RootInfosets:
        """The opponent's root information sets of ``subgame`` when ``player`` re-solves."""
        opp = 1 - player
        strings = [s.information_state_string(opp) for s in self.states(subgame)]
        keys = sorted(set(strings))
        where = {k: j for j, k in enumerate(keys)}
        of_root = np.array([where[s] for s in strings], dtype=np.int64)
        r = self.reach[:, subgame.roots]
        weight = r[2] * r[player]
        set_weight = np.bincount(of_root, weight, minlength=len(keys))
        vbr = self.opponent_values(opp)[subgame.roots]
        vbp = self.opponent_values(opp, "blueprint")[subgame.roots]
        cbv = np.bincount(of_root, weight * vbr, minlength=len(keys))
        est = np.bincount(of_root, weight * vbp, minlength=len(keys))
        return RootInfosets(player, keys, of_root, weight, set_weight, cbv, est)

    def opponent_action_values(self, player: int, above: np.ndarray) -> np.ndarray:
        """``cf[s]``: the opponent's counterfactual best-response value of each of its
        sequences ``s`` at its decision nodes marked in ``above`` (0 elsewhere)."""
        tree, opp = self.tree, 1 - player
        v = self.opponent_values(opp)
        child = np.arange(1, tree.num_nodes)
        par = tree.node_parent[child]
        pick = child[(tree.node_kind[par] == opp) & above[par]]
        cf = np.zeros(tree.num_sequences)
        np.add.at(cf, tree.node_seq[opp, pick],
                  self.reach[2, pick] * self.reach[player, pick] * v[pick])
        return cf

    def gifts_for(self, subgames: list[Subgame], player: int,
                  skip_entry: bool = False) -> dict[int, np.ndarray]:
        """:meth:`gifts` by subgame index (cached)."""
        key = (player, skip_entry, tuple(int(s.roots[0]) for s in subgames))
        if key not in self._gifts:
            sets = [self.root_infosets(s, player) for s in subgames]
            gifts = self.gifts(subgames, player, sets, skip_entry)
            self._gifts[key] = {s.index: g for s, g in zip(subgames, gifts, strict=True)}
        return self._gifts[key]

    def gifts(self, subgames: list[Subgame], player: int, sets: list[RootInfosets],
              skip_entry: bool = False) -> list[np.ndarray]:
        """What the opponent gave up earlier on the path to each root set (Brown & Sandholm
        2017, sec. 5, "Reach subgame solving"): at each of its earlier sequences ``s =
        (I', a')`` the gift ``g(s) = max_a CBV(I', a) - CBV(I', a')``, shared among every root
        set below ``s`` in all ``subgames`` in proportion to their weights ``w(J)``, summed
        along the path (counterfactual units).  Sharing keeps the sum of what the root sets
        below ``s`` may gain within ``g(s)``, so re-solving every subgame stays safe.
        ``skip_entry``: leave out the sequence that enters the subgame (nested solving, where
        the alternative value already compares the entering action with the others)."""
        tree, opp = self.tree, 1 - player
        inside = np.zeros(tree.num_nodes, dtype=np.bool_)
        for sg in subgames:
            inside[sg.nodes] = True
        cf = self.opponent_action_values(player, ~inside)
        gift = np.zeros(tree.num_sequences)
        lo, hi = tree.player_infosets(opp).start, tree.player_infosets(opp).stop
        for i in range(lo, hi):
            a, k = int(tree.infoset_seq_start[i]), int(tree.infoset_num_actions[i])
            gift[a:a + k] = cf[a:a + k].max() - cf[a:a + k]
        S = tree.num_sequences
        paths: list[list[list[int]]] = []
        total = np.zeros(S)
        for sg, rs in zip(subgames, sets, strict=True):
            first = np.zeros(len(rs.keys), dtype=np.int64)
            first[rs.of_root[::-1]] = sg.roots[::-1]  # one root history per set
            per = []
            for j, node in enumerate(first):
                path, s = [], int(tree.node_seq[opp, node])
                if skip_entry and s < S:
                    s = int(tree.infoset_parent_seq[tree.seq_infoset[s]])
                while s < S:
                    path.append(s)
                    s = int(tree.infoset_parent_seq[tree.seq_infoset[s]])
                per.append(path)
                total[path] += rs.set_weight[j]
            paths.append(per)
        out = []
        for per, rs in zip(paths, sets, strict=True):
            share = np.zeros(len(rs.keys))
            for j, path in enumerate(per):
                if rs.set_weight[j] > 0 and path:
                    share[j] = rs.set_weight[j] * float(np.sum(gift[path] / total[path]))
            out.append(share)
        return out
