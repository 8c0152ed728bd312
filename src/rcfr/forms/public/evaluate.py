"""Exact evaluation on the public form: player 0's value and both best-response values of a
behavioural profile in one numba call (realization plans, one terminal sweep per player, the
best responders' backward sweeps), in the contract's order or the actions-major layout."""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from ...core import kernels as K
from .full_width import BEST_RESPONSE, _back_levels, _back_up, plan_threaded
from .terminals import _terminal_values, terminal_values


@njit(cache=True)
def evaluate_public(probs, tree, T, dense, plan, pp, threads=1, LV=None):
    """Player 0's value and both best-response values of the profile ``probs`` (float64, or
    float32 read as it is) in one call, holding one padded sequence vector ``plan`` and
    ``pp`` (player 0's information sets: their parent sequences' reach).  Each player's values
    overwrite its own part of ``plan`` in place: the terminal sweep for player ``p`` reads only
    the opponent's plan, the best responder's backward sweep only ``p``'s values
    (:mod:`rcfr.evaluate`).  Player 0's value sums ``acc[s] * (pp[i] * probs[s])``, each plan
    entry the realization plan's own product, so every number is bit for bit that of separate
    plan, value and work vectors; on ``threads`` threads (the plans and backward sweeps with the
    levels ``LV``), bit for bit the one-thread numbers."""
    sb, b = tree.seq_bounds, tree.bounds
    S = sb[2]
    plan[S] = 1.0
    plan[S + 1] = 1.0
    plan_threaded(probs, LV, 0, 2, tree, plan, 0.0, plan, False, threads)
    seq_start, num_actions, parent_seq = tree.seq_start, tree.num_actions, tree.parent_seq
    for i in range(b[0], b[1]):
        pp[i] = plan[parent_seq[i]]
    terminal_values(0, plan, T, dense, sb[0], sb[1], plan, threads)  # over player 0's plan
    value = 0.0
    for i in range(b[0], b[1]):  # (the sequences in order: each set's are contiguous)
        base = pp[i]
        for s in range(seq_start[i], seq_start[i] + num_actions[i]):
            value += plan[s] * (base * probs[s])
    value += plan[S] * 1.0
    br0 = _best_value(0, tree, plan, LV, threads)
    plan[S] = 1.0
    plan_threaded(probs, LV, 0, 1, tree, plan, 0.0, plan, False, threads)  # player 0's again
    terminal_values(1, plan, T, dense, sb[1], sb[2], plan, threads)  # over player 1's plan
    br1 = _best_value(1, tree, plan, LV, threads)
    plan[S + 1] = 1.0
    return value, br0, br1


@njit(cache=True)
def _best_value(p, tree, acc, LV, threads):
    """:func:`rcfr.core.kernels.best_value` for player ``p``, by levels on ``threads``
    threads where ``LV`` is given (:func:`rcfr.forms.public.full_width._back_levels`)."""
    b = tree.bounds
    if LV is None or threads < 2:
        return K.best_value(p, b[p], b[p + 1], tree.seq_start, tree.num_actions,
                            tree.parent_seq, acc)
    _back_levels(BEST_RESPONSE, p, False, False, 0.0, acc, tree.seq_start, tree.num_actions,
                 tree.parent_seq, LV, acc, acc, threads)
    return acc[acc.shape[0] - 2 + p]


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
def evaluate_layout(probs, tree, T, L, plan, acc, v, threads=1):
    """:func:`evaluate_public` in the layout of :mod:`rcfr.forms.public.layout` (``probs`` in the
    contract's order)."""
    sb = tree.seq_bounds
    S = sb[2]
    seq_parent, seq_contract = L.seq_parent, L.seq_contract
    for s in range(S):  # both plans, reading ``probs`` through the layout's index
        plan[s] = plan[seq_parent[s]] * probs[seq_contract[s]]
    # (plain values, not literals: numba compiles a callee once per literal argument, and the
    # terminal sweep is the costliest kernel to compile; so it is compiled once for all calls)
    p0, p1, dense = np.int64(0), np.int64(1), np.bool_(False)
    _terminal_values(p0, plan, T, L.term_base, L.term_stride, dense, sb[0], sb[1], acc, threads)
    value = 0.0
    for s in range(sb[0], sb[1]):
        value += acc[s] * plan[s]
    value += acc[S] * plan[S]
    br0 = _best_response_layout(0, L.node_lo[0], L.node_lo[1], L, acc, v)
    _terminal_values(p1, plan, T, L.term_base, L.term_stride, dense, sb[1], sb[2], acc, threads)
    br1 = _best_response_layout(1, L.node_lo[1], L.node_lo[2], L, acc, v)
    return value, br0, br1
