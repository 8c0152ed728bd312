"""Levels of the public tree's information sets, for the threaded plan and backward sweeps of
the full-width kernels (:mod:`rcfr.forms.public.full_width`, :mod:`rcfr.forms.public.evaluate`).

An information set's parent sequence lies at a shallower public node, so the information sets
of one public depth (a contiguous range: they are numbered breadth-first, player by player)
are independent in the realization plan: their sequences can be computed on any threads.  In
the backward sweep a level's information sets add their values into their parent sequences;
those that share a parent sequence form a group, run on one thread in decreasing order (the
one-thread sweep's order), so every sum is the one-thread sum bit for bit."""

from __future__ import annotations

from collections import namedtuple

import numpy as np

# Levels with fewer information sets than this run on one thread (a parallel region costs
# more than they do).
LEVEL_MIN_INFOSETS = 2048

PublicLevels = namedtuple("PublicLevels", [
    "player_lo",  # int64 [3]: player p's levels are [player_lo[p], player_lo[p + 1])
    "level_lo",  # int64 [L + 1]: level l holds information sets [level_lo[l], level_lo[l + 1])
    "group_lo",  # int64 [L + 1]: level l's groups are [group_lo[l], group_lo[l + 1])
    "group_start",  # int32 [G + 1]: group g is back_order[group_start[g]:group_start[g + 1]]
    "back_order",  # int32 [I]: information sets by level, parent sequence, decreasing index
    "min_infosets",  # int64: levels smaller than this stay on one thread
])


def build_levels(tree, min_infosets: int = LEVEL_MIN_INFOSETS) -> PublicLevels:
    """The levels of ``tree`` (a :class:`rcfr.forms.public.tree.PublicTree`)."""
    N = tree.num_public_nodes
    depth = np.zeros(N, dtype=np.int64)
    lo, hi, d = 0, 1, 0
    cs = tree.node_child_start.astype(np.int64)
    while lo < hi:  # breadth-first: the children of a depth's nodes are the next depth's
        depth[lo:hi] = d
        lo, hi, d = int(cs[lo]), int(cs[hi]), d + 1
    I = tree.num_infosets  # noqa: E741 (the papers' I)
    i0 = tree.num_infosets_per_player[0]
    # (one int64 vector over the information sets at a time: k = 40 has 192 million)
    key = depth[tree.infoset_public_node]
    key[i0:] += int(depth.max(initial=0)) + 1  # player 1's after player 0's
    step = np.diff(key)
    if I and (step < 0).any():  # pragma: no cover (compile_public numbers them so)
        raise ValueError("information sets are not numbered by depth")
    cut = np.flatnonzero(step != 0) + 1 if I else np.zeros(0, np.int64)
    del step, key
    level_lo = np.concatenate([[0], cut, [I]]).astype(np.int64) if I else np.zeros(1, np.int64)
    L = level_lo.size - 1
    level_player = (level_lo[:-1] >= i0).astype(np.int64)
    player_lo = np.array([0, int(np.count_nonzero(level_player == 0)), L], dtype=np.int64)
    # by (level, parent sequence), ties in decreasing order: a stable sort of the keys in
    # reverse (one int64 key and one index per information set at a time, and the sort's buffer)
    rev = np.repeat(np.arange(L - 1, -1, -1, dtype=np.int64), np.diff(level_lo)[::-1])
    rev *= tree.num_sequences + 2
    rev += tree.infoset_parent_seq[::-1]
    back = np.argsort(rev, kind="stable")
    new = np.ones(I, dtype=bool)
    ordered = rev[back]
    del rev
    new[1:] = ordered[1:] != ordered[:-1]
    del ordered
    index = np.int32 if I < 2**31 else np.int64
    back -= I - 1
    np.negative(back, out=back)  # I - 1 - back: the information sets, not the reversed ones
    back_order = back.astype(index)
    del back
    starts = np.flatnonzero(new).astype(index)
    group_start = np.concatenate([starts, np.array([I], dtype=index)])
    group_lo = np.searchsorted(starts, level_lo).astype(np.int64)
    return PublicLevels(player_lo, level_lo, group_lo, group_start, back_order,
                        np.int64(min_infosets))
