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
    player = (np.arange(I) >= i0).astype(np.int64)
    idepth = depth[tree.infoset_public_node.astype(np.int64)]
    key = player * (int(depth.max(initial=0)) + 1) + idepth
    if I and (np.diff(key) < 0).any():  # pragma: no cover (compile_public numbers them so)
        raise ValueError("information sets are not numbered by depth")
    cut = np.flatnonzero(np.diff(key) != 0) + 1 if I else np.zeros(0, np.int64)
    level_lo = np.concatenate([[0], cut, [I]]).astype(np.int64) if I else np.zeros(1, np.int64)
    L = level_lo.size - 1
    level_player = player[level_lo[:-1]] if L else np.zeros(0, np.int64)
    player_lo = np.array([0, int(np.count_nonzero(level_player == 0)), L], dtype=np.int64)
    # by (level, parent sequence), ties in decreasing order: a stable sort of the reversed keys
    # (one int64 key and one index per information set: 2-NL Hold'em(36) has 68 million)
    key = np.repeat(np.arange(L, dtype=np.int64), np.diff(level_lo))
    key *= tree.num_sequences + 2
    key += tree.infoset_parent_seq
    back = np.argsort(key[::-1], kind="stable")
    index = np.int32 if I < 2**31 else np.int64
    back_order = (I - 1 - back).astype(index)
    del back
    new = np.ones(I, dtype=bool)
    new[1:] = np.diff(key[back_order]) != 0
    del key
    starts = np.flatnonzero(new).astype(index)
    group_start = np.concatenate([starts, np.array([I], dtype=index)])
    group_lo = np.searchsorted(starts, level_lo).astype(np.int64)
    return PublicLevels(player_lo, level_lo, group_lo, group_start, back_order,
                        np.int64(min_infosets))
