"""The public tree's information sets and sequences, written straight into their final arrays
(:func:`rcfr.forms.public.tree.compile_public`'s streaming stage).

The compiler numbers the information sets of player 0's public decision nodes first, in
breadth-first order of their nodes, then player 1's; at node ``u`` with ``K`` private rows and
``A`` actions, row ``k``'s information set is ``info_base[u] + k`` and its sequences
``seq_base[u] + k * A + a`` (:mod:`rcfr.forms.public.tree`).  Every per-information-set and
per-sequence array is therefore known from per-node counts alone: these kernels size the
arrays from the counts, allocate each once at its final dtype and fill it node by node, so the
compile's peak is the arrays it keeps plus a few per-node arrays (2-NL Hold'em(40): 571 million
sequences, 23 million public nodes), where a vectorized build held several int64 temporaries
per sequence at once (about 3.7 times the kept arrays)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def last_decisions(kind, parent, child_start):
    """Per player ``p`` and node ``i``: the player's last public decision node above ``i``
    (``last[p, i]``, -1 where none) and the index of the action taken there (``last_act``),
    in one pass over the nodes in breadth-first order (a parent comes before its children)."""
    N = kind.shape[0]
    last = np.empty((2, N), dtype=np.int32)
    last_act = np.empty((2, N), dtype=np.int32)
    if N:
        last[:, 0] = -1
        last_act[:, 0] = -1
    for i in range(1, N):
        u = parent[i]
        for p in range(2):
            if kind[u] == p:
                last[p, i] = u
                last_act[p, i] = i - child_start[u]
            else:
                last[p, i] = last[p, u]
                last_act[p, i] = last_act[p, u]
    return last, last_act


@njit(cache=True)
def node_bases(kind, ctx, num_actions, num_rows):
    """Each public decision node's first information set and first sequence (-1 elsewhere),
    player 0's nodes first, and each player's counts ``[n_info0, n_info1]``, ``[n_seq0,
    n_seq1]``."""
    N = kind.shape[0]
    info_base = np.full(N, -1, dtype=np.int64)
    seq_base = np.full(N, -1, dtype=np.int64)
    n_info = np.zeros(2, dtype=np.int64)
    n_seq = np.zeros(2, dtype=np.int64)
    info = seq = 0
    for p in range(2):
        for u in range(N):
            if kind[u] == p:
                rows = num_rows[p, ctx[u]]
                info_base[u] = info
                seq_base[u] = seq
                info += rows
                seq += rows * num_actions[u]
                n_info[p] += rows
                n_seq[p] += rows * num_actions[u]
    return info_base, seq_base, n_info, n_seq


@njit(cache=True)
def fill_infosets(kind, ctx, num_actions, action, child_start, info_base, seq_base, last,
                  last_act, num_rows, rep, row_of, S, infoset_player, infoset_seq_start,
                  infoset_num_actions, infoset_parent_seq, infoset_public_node, infoset_private,
                  seq_infoset, seq_action):
    """Fill the information-set and sequence arrays (allocated by the caller at their final
    sizes and dtypes) node by node: row ``k`` at node ``u`` of player ``p`` is the information
    set of the row's first private state ``rep[p, ctx[u], k]``; its parent sequence is that
    state's row at the player's last decision node above, after the action taken there
    (``S + p``: the empty sequence); its sequences hold the node's actions."""
    for u in range(kind.shape[0]):
        p = kind[u]
        if p > 1:
            continue
        c = ctx[u]
        A = num_actions[u]
        up = last[p, u]
        for k in range(num_rows[p, c]):
            i = info_base[u] + k
            x = rep[p, c, k]
            s0 = seq_base[u] + k * A
            infoset_player[i] = p
            infoset_seq_start[i] = s0
            infoset_num_actions[i] = A
            infoset_public_node[i] = u
            infoset_private[i] = x
            if up < 0:
                infoset_parent_seq[i] = S + p
            else:
                infoset_parent_seq[i] = (seq_base[up] + row_of[p, ctx[up], x] * num_actions[up]
                                         + last_act[p, u])
            for a in range(A):
                seq_infoset[s0 + a] = i
                seq_action[s0 + a] = action[child_start[u] + a]


@njit(cache=True)
def first_of_each(values, C):
    """``first[c]``: the first index ``i`` with ``values[i] == c`` (-1 where none), for ``c``
    in ``range(C)``."""
    first = np.full(C, -1, dtype=np.int64)
    for i in range(values.shape[0]):
        v = values[i]
        if first[v] < 0:
            first[v] = i
    return first
