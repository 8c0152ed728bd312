"""Node locking as the solver loop sees it: a set of information sets whose behavioural
probabilities are fixed, as plain arrays over sequences (:class:`NodeLock`), and the kernels
that hold the current strategy to them (:func:`apply_lock`, called right after the link in
every full-width pass's fused loop and in the loop's Python step) and back a locked
information set's value up by its fixed strategy in a best response (:func:`locked_best_value`:
the best response in the locked game, where a player may deviate only at its free information
sets).

A lock restricts the game: the regrets of a locked information set are still updated but never
read, so its current strategy, and hence its average strategy wherever it is reached, is the
lock's, and the rest of the game is solved against it (an equilibrium of the locked game; with
one player locked everywhere, the other's best response to it)."""

from __future__ import annotations

import hashlib
from typing import NamedTuple

import numpy as np
from numba import njit

from ..core.errors import RcfrError
from ..core.kernels import back_up, best_value_at


class NodeLock(NamedTuple):
    """Locked sequences and their fixed probabilities, player 0's first: ``seq[k]`` (sorted)
    has probability ``prob[k]``; player ``p``'s are ``[bounds[p], bounds[p + 1])``.  Every
    sequence of a locked information set is listed (each set's probabilities sum to one);
    ``infoset_mask[i]`` marks the locked information sets, player ``p``'s being
    ``[set_bounds[p], set_bounds[p + 1])``."""

    seq: np.ndarray  # int64
    prob: np.ndarray  # float64
    bounds: np.ndarray  # int64 [3]
    infoset_mask: np.ndarray  # bool [num infosets] (empty: no lock)
    set_bounds: np.ndarray  # int64 [3]

    @property
    def size(self) -> int:
        """The number of locked sequences."""
        return int(self.seq.shape[0])

    def infosets(self, player: int | None = None) -> int:
        """The number of locked information sets (of ``player``, where given)."""
        if player is None:
            return int(np.count_nonzero(self.infoset_mask))
        lo, hi = int(self.set_bounds[player]), int(self.set_bounds[player + 1])
        return int(np.count_nonzero(self.infoset_mask[lo:hi]))

    def digest(self) -> str:
        """A short hash of the locked sequences and their probabilities (what a checkpoint
        records, so a run resumes only under the same lock)."""
        h = hashlib.sha256(np.ascontiguousarray(self.seq, dtype=np.int64).tobytes())
        h.update(np.ascontiguousarray(self.prob, dtype=np.float64).tobytes())
        return h.hexdigest()[:16]

    def force(self, probs: np.ndarray) -> np.ndarray:
        """``probs`` (a behavioural profile over sequences) with the locked sequences set to
        the lock, in place; returned."""
        if self.size:
            probs[self.seq] = self.prob
        return probs

    def in_order(self, order: np.ndarray) -> NodeLock:
        """The lock over a permutation of the sequences: ``order[i]`` is the sequence at
        position ``i`` (a public tree's actions-major layout), each player's positions
        staying in its own range."""
        where = np.empty(order.shape[0], dtype=np.int64)
        where[order.astype(np.int64)] = np.arange(order.shape[0], dtype=np.int64)
        return self._replace(seq=where[self.seq])


def make_lock(tree, probs: dict[int, np.ndarray]) -> NodeLock:
    """The :class:`NodeLock` of ``tree`` (a :class:`~rcfr.forms.base.Form`) that fixes
    information set ``i`` to ``probs[i]`` (one probability per action, summing to one)."""
    seqs, vals = [], []
    mask = np.zeros(tree.num_infosets, dtype=np.bool_)
    for i in sorted(probs):
        p = np.asarray(probs[i], dtype=np.float64)
        n = int(tree.infoset_num_actions[i])
        if p.shape != (n,) or not np.all(np.isfinite(p)) or np.any(p < 0) \
                or abs(p.sum() - 1.0) > 1e-6:  # (a strategy file's tolerance)
            raise RcfrError(f"a lock at {tree.infoset_keys[i]!r} needs {n} probabilities "
                            f">= 0 summing to 1, got {p.tolist()}")
        start = int(tree.infoset_seq_start[i])
        seqs.append(np.arange(start, start + n, dtype=np.int64))
        vals.append(p)
        mask[i] = True
    seq = np.concatenate(seqs) if seqs else np.zeros(0, dtype=np.int64)
    prob = np.concatenate(vals) if vals else np.zeros(0)
    order = np.argsort(seq, kind="stable")
    seq, prob = seq[order], prob[order]
    split = int(np.searchsorted(seq, tree.num_sequences_per_player[0]))
    sets = np.array([0, tree.num_infosets_per_player[0], tree.num_infosets], dtype=np.int64)
    return NodeLock(seq, prob, np.array([0, split, seq.shape[0]], dtype=np.int64), mask, sets)


NO_LOCK = NodeLock(np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(3, dtype=np.int64),
                   np.zeros(0, dtype=np.bool_), np.zeros(3, dtype=np.int64))


@njit(cache=True)
def apply_lock(lock, p, strategy):
    """Hold player ``p``'s locked sequences of the current ``strategy`` to the lock (after the
    link has written the player's new strategy)."""
    for k in range(lock.bounds[p], lock.bounds[p + 1]):
        strategy[lock.seq[k]] = lock.prob[k]


@njit(cache=True)
def locked_best_value(player, i_lo, i_hi, seq_start, num_actions, parent_seq, acc, locked,
                      probs):
    """:func:`rcfr.core.kernels.best_value` in the locked game: at an information set marked
    in ``locked`` the player keeps ``probs`` (the lock), elsewhere it takes its best action.
    Returns the player's best-response value."""
    for i in range(i_hi - 1, i_lo - 1, -1):
        if locked[i]:
            start = seq_start[i]
            back_up(probs, acc, start, start + num_actions[i], parent_seq[i])
        else:
            best_value_at(i, seq_start, num_actions, parent_seq, acc)
    return acc[acc.shape[0] - 2 + player]
