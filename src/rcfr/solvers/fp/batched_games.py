"""Many games stepped at once over a compiled history form, in numpy: the batched self-play
that sampled fictitious play (FSP) and NFSP generate their experience with.

:class:`BatchedGames` keeps one node index per game; chance acts by itself (sampled from the
tree's chance probabilities), so after every call each game is at a decision node or at a
terminal.  Actions are given as indices into the acting information set's actions (the
sequence ``infoset_seq_start[I] + k``)."""

from __future__ import annotations

import numpy as np

from ...core.errors import RcfrError
from ...forms.base import Capability

KIND_CHANCE = 2
KIND_TERMINAL = 3


def sample_index(probs: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per row of ``probs`` (rows sum to one; padded columns hold 0)."""
    u = rng.random(probs.shape[0])[:, None]
    cum = np.cumsum(probs, axis=1)
    k = (cum < u * cum[:, -1:]).sum(axis=1)
    return np.minimum(k, probs.shape[1] - 1)


class BatchedGames:
    """``n`` games of ``tree`` (a form with one node per history) stepped at once."""

    def __init__(self, tree, n: int, rng: np.random.Generator) -> None:
        if not tree.supports(Capability.HISTORY_NODES):
            raise RcfrError("the fictitious self-play agents play games on the history form; "
                            "use --form history")
        self.tree, self.n, self.rng = tree, int(n), rng
        self.kind = tree.node_kind.astype(np.int64)
        self.start = tree.node_child_start.astype(np.int64)
        self.infoset = tree.node_infoset.astype(np.int64)
        self.width = int(np.max(np.diff(self.start))) if tree.num_nodes > 1 else 1
        utility = np.zeros(tree.num_nodes)
        utility[tree.terminal_nodes] = tree.terminal_utility
        self.utility = utility
        self.num_actions = tree.infoset_num_actions.astype(np.int64)
        self.seq_start = tree.infoset_seq_start.astype(np.int64)
        self.node = np.zeros(self.n, dtype=np.int64)
        self._advance()

    def reset(self, mask: np.ndarray | None = None) -> None:
        """Start new games where ``mask`` (all games by default)."""
        if mask is None:
            self.node[:] = 0
        else:
            self.node[mask] = 0
        self._advance()

    def _advance(self) -> None:
        while True:
            at = np.flatnonzero(self.kind[self.node] == KIND_CHANCE)
            if at.size == 0:
                return
            nodes = self.node[at]
            lo, count = self.start[nodes], self.start[nodes + 1] - self.start[nodes]
            cols = np.arange(self.width)
            idx = np.minimum(lo[:, None] + cols, self.tree.num_nodes - 1)
            probs = np.where(cols < count[:, None], self.tree.node_chance_prob[idx], 0.0)
            self.node[at] = lo + sample_index(probs, self.rng)

    @property
    def player(self) -> np.ndarray:
        """The player to act in each game (3 at a terminal)."""
        return self.kind[self.node]

    def terminal(self) -> np.ndarray:
        return self.kind[self.node] == KIND_TERMINAL

    def returns(self, games: np.ndarray) -> np.ndarray:
        """Player 0's payoff in the (terminal) ``games``."""
        return self.utility[self.node[games]]

    def infosets(self, games: np.ndarray) -> np.ndarray:
        return self.infoset[self.node[games]]

    def step(self, games: np.ndarray, actions: np.ndarray) -> None:
        """Apply action index ``actions[k]`` in game ``games[k]`` (then chance acts)."""
        self.node[games] = self.start[self.node[games]] + actions
        self._advance()

    def policy_rows(self, probs: np.ndarray, infosets: np.ndarray) -> np.ndarray:
        """The rows ``probs`` gives at ``infosets``, padded with zeros to the widest."""
        cols = np.arange(int(self.num_actions.max()))
        n = self.num_actions[infosets]
        idx = np.minimum(self.seq_start[infosets][:, None] + cols, probs.shape[0] - 1)
        return np.where(cols < n[:, None], probs[idx], 0.0)
