"""Exact evaluation on the public form: player 0's value and both best-response values of a
behavioural profile in one numba call (realization plans, one terminal sweep per player, the
best responders' backward sweeps), in the contract's order or the actions-major layout."""

from __future__ import annotations

from numba import njit, uint64

from ...core import kernels as K
from .full_width import _back_up
from .terminals import _terminal_values, terminal_values


@njit(cache=True)
def evaluate_public(probs, tree, T, dense, plan, acc, br):
    """Player 0's value and both best-response values of the profile ``probs`` in one call:
    the realization plans, one terminal sweep per player (player 0's gives the value and its
    best response) and the best responders' backward sweeps (:mod:`rcfr.evaluate`)."""
    b, sb = tree.bounds, tree.seq_bounds
    K.realization_plan(probs, 0, b[2], tree.seq_start, tree.num_actions, tree.parent_seq, plan)
    S = sb[2]
    terminal_values(0, plan, T, dense, sb[0], sb[1], acc)
    value = 0.0
    for s in range(sb[0], sb[1]):
        value += acc[s] * plan[s]
    value += acc[S] * plan[S]
    br0 = K.best_response(0, b[0], b[1], tree.seq_start, tree.num_actions, tree.parent_seq,
                          acc, br)
    terminal_values(1, plan, T, dense, sb[1], sb[2], acc)
    br1 = K.best_response(1, b[1], b[2], tree.seq_start, tree.num_actions, tree.parent_seq,
                          acc, br)
    return value, br0, br1


@njit(cache=True)
def _best_response_layout(player, j_lo, j_hi, L, acc, v):
    """:func:`rcfr.core.kernels.best_response`'s value, node by node in the layout (rows in pairs,
    as in :func:`_absorb_layout`)."""
    base, rows, actions, parent = L.base, L.rows, L.actions, L.parent
    parent_map, row_map = L.parent_map, L.row_map
    one = uint64(1)
    for j in range(j_hi - 1, j_lo - 1, -1):
        b, K, A, p = uint64(base[j]), uint64(rows[j]), uint64(actions[j]), uint64(parent[j])
        k = uint64(0)
        while k + one < K:
            v0, v1 = acc[b + k], acc[b + k + one]
            for a in range(one, A):
                o = b + a * K + k
                x0, x1 = acc[o], acc[o + one]
                v0 = x0 if x0 > v0 else v0
                v1 = x1 if x1 > v1 else v1
            v[k] = v0
            v[k + one] = v1
            k += uint64(2)
        if k < K:
            v0 = acc[b + k]
            for a in range(one, A):
                x0 = acc[b + a * K + k]
                v0 = x0 if x0 > v0 else v0
            v[k] = v0
        _back_up(acc, p, parent_map[j], row_map, K, v)
    return acc[acc.shape[0] - 2 + player]


@njit(cache=True)
def evaluate_layout(probs, tree, T, L, plan, acc, v):
    """:func:`evaluate_public` in the layout of :mod:`rcfr.forms.public.layout` (``probs`` in the
    contract's order)."""
    sb = tree.seq_bounds
    S = sb[2]
    seq_parent, seq_contract = L.seq_parent, L.seq_contract
    for s in range(S):  # both plans, reading ``probs`` through the layout's index
        plan[s] = plan[seq_parent[s]] * probs[seq_contract[s]]
    _terminal_values(0, plan, T, L.term_base, L.term_stride, False, sb[0], sb[1], acc)
    value = 0.0
    for s in range(sb[0], sb[1]):
        value += acc[s] * plan[s]
    value += acc[S] * plan[S]
    br0 = _best_response_layout(0, L.node_lo[0], L.node_lo[1], L, acc, v)
    _terminal_values(1, plan, T, L.term_base, L.term_stride, False, sb[1], sb[2], acc)
    br1 = _best_response_layout(1, L.node_lo[1], L.node_lo[2], L, acc, v)
    return value, br0, br1
