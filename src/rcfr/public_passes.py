"""Passes over the public tree (:mod:`rcfr.public_tree`): terminal values by structured rules,
and full-width vector-form CFR.

Only the terminal sweep differs from the history form: it runs per *public* terminal over
vectors of private states instead of per history.  Realization plans, the backward sweep
(counterfactual regrets or a best response), links and averaging are the history form's
sequence-form arithmetic, since the public form keeps the sequence contract; the fused loop
(:func:`run_public`) recomputes a player's plan only after its strategy changed, adds the
average-strategy increments while computing the plan and, for CFR and CFR+ with regret
matching, absorbs each information set's regrets in the backward sweep.  Vector-form CFR is
Zinkevich et al.'s (2007) CFR computed as in Johanson et al. (2012, "Efficient Nash equilibrium
approximation through Monte Carlo counterfactual regret minimization", sec. 3: public chance
sampling without the sampling): one walk of the public tree per player and iteration.

For CFR and CFR+ with regret matching, and for exploitability, the kernels run in the
actions-major layout of :mod:`rcfr.public_layout` (:func:`run_fused_layout`,
:func:`evaluate_layout`): the same arithmetic in the same order, over unit-stride vectors of
private rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, uint64

from . import kernels as K
from .errors import RcfrError
from .links import POLYNOMIAL, link_slice
from .public_layout import state_from_layout, state_to_layout, uses_layout
from .public_tree import (
    COUNT_RULE,
    FOLD_RULE,
    MATRIX_RULE,
    SHOWDOWN_RULE,
    PublicTree,
    compile_public,
)
from .solvers.loop import (
    ALGORITHMS,
    CFRSolver,
    FullWork,
    absorb,
    accumulate_average,
)
from .solvers.rules import CLIPPED, PLAIN


@njit(cache=True, inline="always")
def _payoff(rule, value, miss, q, face, x0, x1, c, rank, counts, matrix):
    """Player 0's payoff at a terminal of ``rule`` with private states ``x0``, ``x1``."""
    if rule == FOLD_RULE:
        return value
    if rule == SHOWDOWN_RULE:
        r0 = rank[0, c, x0]
        r1 = rank[1, c, x1]
        return value if r0 > r1 else (-value if r0 < r1 else 0.0)
    if rule == MATRIX_RULE:
        return value * matrix[c, x0, x1]
    return value if counts[0, face, x0] + counts[1, face, x1] >= q else miss


@njit(cache=True, inline="always")
def _dense_values(player, c, rule, value, miss, q, face, ro, joint, rank, counts, matrix, v):
    """``v[x] = sum_x' W[x, x'] u(x, x') ro[x']``: the n0 x n1 reference evaluation."""
    sign = 1.0 if player == 0 else -1.0
    for x in range(v.shape[0]):
        total = 0.0
        for y in range(ro.shape[0]):
            if ro[y] != 0.0:
                x0, x1 = (x, y) if player == 0 else (y, x)
                u = _payoff(rule, value, miss, q, face, x0, x1, c, rank, counts, matrix)
                total += joint[c, x0, x1] * u * ro[y]
        v[x] = sign * total


@njit(cache=True)
def terminal_values(player, plan, T, dense, s_lo, s_hi, acc):
    """``acc[s]``: sum over the terminals whose last ``player`` sequence is ``s`` of the
    player's payoff times chance and opponent reach (``acc`` padded, as
    :func:`rcfr.kernels.terminal_values` fills it)."""
    _terminal_values(player, plan, T, T.term_seq_base, T.term_stride, dense, s_lo, s_hi, acc)


@njit(cache=True)
def _terminal_values(player, plan, T, tsb, tst, dense, s_lo, s_hi, acc):
    """:func:`terminal_values` with the players' sequence at terminal ``z`` holding row ``k``
    at ``tsb[p, z] + k * tst[p, z]`` (the contract's, or :mod:`rcfr.public_layout`'s)."""
    _sweep(player, plan, dense, s_lo, s_hi, T.num_private, T.exclusive, T.dense_deal, T.term_ctx,
           T.term_rule, T.term_value, T.term_miss, T.term_q, T.term_face, tsb, tst,
           T.term_row_ctx, T.weight, T.valid, T.row_of, T.full, T.rank,
           T.rank_order, T.rank_lt, T.rank_le, T.num_valid, T.joint, T.counts, T.max_count,
           T.matrix, T.pay, acc)


@njit(cache=True, inline="always")
def _one_die_everywhere(term_rule, max_count, full):
    """Whether every terminal is a liar's dice call with one die each and every private state
    is its own row (:func:`_sweep_one_die` applies)."""
    if max_count[0] != 1 or max_count[1] != 1:
        return False
    for c in range(full.shape[1]):
        if not (full[0, c] and full[1, c]):
            return False
    for z in range(term_rule.shape[0]):
        if term_rule[z] != COUNT_RULE:
            return False
    return True


@njit(cache=True)
def _sweep_one_die(player, plan, term_ctx, term_value, term_miss, term_q, term_face, tsb, tst,
                   w_opp, w_own, cnt_opp, cnt_own, nmax, n_opp, n_own, acc):
    """:func:`_sweep` for liar's dice with one die each and every private state its own row
    (Bluff(1,1)): the same arithmetic, without the other rules' branches.  ``held``: the
    opponent's reach with at least 0, 1 and 2 matching dice."""
    opp = 1 - player
    empty = uint64(acc.shape[0] - 2 + player)
    empty_reach = plan[plan.shape[0] - 2 + opp]
    sign = 1.0 if player == 0 else -1.0
    ro = np.empty(n_opp)
    base_opp, stride_opp = tsb[opp], tst[opp]
    base_own, stride_own = tsb[player], tst[player]
    for z in range(term_ctx.shape[0]):
        cw = uint64(term_ctx[z]) * nmax
        fc = uint64(term_face[z]) * nmax
        base = base_opp[z]
        total = 0.0
        h = 0.0
        if base < 0:
            for x in range(n_opp):
                ro[x] = w_opp[cw + x] * empty_reach
                total += ro[x]
            for x in range(n_opp):
                h += ro[x] * cnt_opp[fc + x]
        else:
            ub, stride = uint64(base), uint64(stride_opp[z])
            for x in range(n_opp):
                r = w_opp[cw + x] * plan[ub + x * stride]
                total += r
                h += r * cnt_opp[fc + x]
        q = term_q[z]
        hit = sign * term_value[z]
        miss = sign * term_miss[z]
        ob = base_own[z]
        d, ost = (uint64(ob), uint64(stride_own[z])) if ob >= 0 else (empty, uint64(0))
        for x in range(n_own):
            need = q - cnt_own[fc + x]  # held: total (need <= 0), h (1), 0 (2 or more)
            hv = total if need <= 0 else (h if need == 1 else 0.0)
            acc[d + x * ost] += w_own[cw + x] * (hit * hv + miss * (total - hv))


@njit(cache=True)
def _sweep(player, plan, dense, s_lo, s_hi, num_private, exclusive, dense_deal, term_ctx, term_rule,
           term_value, term_miss, term_q, term_face, tsb, tst, trc, weight, valid, row_of, full,
           rank, rank_order, rank_lt, rank_le, num_valid, joint, counts, max_count, matrix,
           pay, acc):
    """:func:`terminal_values` on plain arrays (numba handles them far faster than fields
    of a large named tuple inside the loop).  Per terminal: one loop gathers the opponent's
    reach (chance weight times realization weight), one finds the player's sequences, one
    computes the player's values and adds them there.  The per-state tables are read as flat
    rows at unsigned offsets (no wraparound of negative indices in the loops)."""
    for s in range(s_lo, s_hi):
        acc[s] = 0.0
    empty = acc.shape[0] - 2 + player
    acc[empty] = 0.0
    opp = 1 - player
    n_opp = uint64(num_private[opp])
    n_own = uint64(num_private[player])
    nmax = uint64(weight.shape[2])
    ro = np.empty(n_opp)
    v = np.zeros(n_own)
    dst = np.empty(n_own, dtype=np.uint64)
    prefix = np.empty(n_opp + 1)
    top = max_count[opp]
    held = np.empty(top + 2)
    w_opp = (valid[opp] if dense or dense_deal else weight[opp]).ravel()
    w_own = weight[player].ravel()
    rows_opp, rows_own = row_of[opp].ravel(), row_of[player].ravel()
    full_opp, full_own = full[opp], full[player]
    cnt_opp, cnt_own = counts[opp].ravel(), counts[player].ravel()
    order_opp = rank_order[opp].ravel()
    lt_own, le_own = rank_lt[player].ravel(), rank_le[player].ravel()
    base_opp, stride_opp, ctx_opp = tsb[opp], tst[opp], trc[opp]
    base_own, stride_own, ctx_own = tsb[player], tst[player], trc[player]
    sign = 1.0 if player == 0 else -1.0
    empty_reach = plan[plan.shape[0] - 2 + opp]
    if not dense and not dense_deal and _one_die_everywhere(term_rule, max_count, full):
        _sweep_one_die(player, plan, term_ctx, term_value, term_miss, term_q, term_face, tsb,
                       tst, w_opp, w_own, cnt_opp, cnt_own, nmax, n_opp, n_own, acc)
        return
    for z in range(term_ctx.shape[0]):
        c = term_ctx[z]
        cw = uint64(c) * nmax  # the context's row of the per-state tables
        rule = term_rule[z]
        base = base_opp[z]
        stride = uint64(stride_opp[z])
        total = 0.0
        h = 0.0  # liar's dice, one die: the opponent's reach with a matching die
        f = term_face[z]
        fc = uint64(f) * nmax
        one_die = rule == COUNT_RULE and top == 1
        rc = uint64(ctx_opp[z])
        if base < 0:
            for x in range(n_opp):
                ro[x] = w_opp[cw + x] * empty_reach
                total += ro[x]
        elif full_opp[rc]:  # every private state possible, each its own row
            ub = uint64(base)
            if one_die:
                for x in range(n_opp):
                    r = w_opp[cw + x] * plan[ub + x * stride]
                    ro[x] = r
                    total += r
                    h += r * cnt_opp[fc + x]  # (+0 where the die does not match)
            else:
                for x in range(n_opp):
                    ro[x] = w_opp[cw + x] * plan[ub + x * stride]
                    total += ro[x]
        else:  # an impossible state (row -1) has weight 0: read row 0 instead of branching
            ub = uint64(base)
            rr = rc * nmax
            for x in range(n_opp):
                ro[x] = w_opp[cw + x] * plan[ub + uint64(max(rows_opp[rr + x], 0)) * stride]
                total += ro[x]
        if one_die and not (base >= 0 and full_opp[rc]):
            for x in range(n_opp):
                h += ro[x] * cnt_opp[fc + x]
        # where the player's values go: the empty sequence, the state's row, or through
        # row_of (an impossible state's value is +-0 (weight 0): row 0 takes it unchanged)
        ob = base_own[z]
        ost = uint64(stride_own[z])
        orc = uint64(ctx_own[z])
        if ob < 0:
            for x in range(n_own):
                dst[x] = empty
        elif full_own[orc]:
            for x in range(n_own):
                dst[x] = uint64(ob) + x * ost
        else:
            rr = orc * nmax
            for x in range(n_own):
                dst[x] = uint64(ob) + uint64(max(rows_own[rr + x], 0)) * ost
        if dense or (dense_deal and (rule == SHOWDOWN_RULE or rule == COUNT_RULE)):
            _dense_values(player, c, rule, term_value[z], term_miss[z], term_q[z], f, ro,
                          joint, rank, counts, matrix, v)
            for x in range(n_own):
                acc[dst[x]] += v[x]
        elif rule == FOLD_RULE:  # a scalar times the opponent's reach (less the one card
            # it cannot hold when both were dealt from one deck; a dense deal: times the joint
            # weights, a matrix-vector product)
            scale = sign * term_value[z]
            if dense_deal:
                for x in range(n_own):
                    t = 0.0
                    for y in range(n_opp):
                        t += (joint[c, x, y] if player == 0 else joint[c, y, x]) * ro[y]
                    acc[dst[x]] += scale * t
            elif exclusive:
                for x in range(n_own):
                    acc[dst[x]] += w_own[cw + x] * scale * (total - ro[x])
            else:
                for x in range(n_own):
                    acc[dst[x]] += w_own[cw + x] * scale * total
        elif rule == SHOWDOWN_RULE:  # the higher rank wins the stake: running sums of the
            # opponent's reach sorted by rank, O(n0 + n1); rank_lt / rank_le: how many of the
            # opponent's possible states rank below (not above) each state, fixed per context
            # (a card the opponent cannot hold ties with itself, so it drops out)
            stake = term_value[z]
            prefix[0] = 0.0
            for i in range(uint64(num_valid[opp, c])):
                prefix[i + 1] = prefix[i] + ro[uint64(order_opp[cw + i])]
            for x in range(n_own):  # (+-0 where impossible: weight 0)
                acc[dst[x]] += w_own[cw + x] * stake * (prefix[uint64(lt_own[cw + x])] - (
                    total - prefix[uint64(le_own[cw + x])]))
        elif rule == MATRIX_RULE:  # the stake times the payoff matrix (times the joint
            # weights of a dense deal, less the pairs one deck cannot deal): a matrix-vector
            # product with the opponent's reach
            stake = sign * term_value[z]
            for x in range(n_own):
                t = 0.0
                for y in range(n_opp):
                    t += (pay[c, x, y] if player == 0 else pay[c, y, x]) * ro[y]
                acc[dst[x]] += stake * t * (1.0 if dense_deal else w_own[cw + x])
        else:  # liar's dice: the bid holds (player 0 gets ``hit``, else ``miss``) if both
            # players' dice for ``face`` reach ``q``; held[k]: the opponent's reach with at
            # least k such dice, from its reach bucketed by count (O(n0 + n1 + max count))
            q = term_q[z]
            hit = sign * term_value[z]
            miss = sign * term_miss[z]
            if one_die:
                held[1] = h
            else:
                for k in range(top + 2):
                    held[k] = 0.0
                for y in range(n_opp):
                    held[uint64(cnt_opp[fc + y])] += ro[y]
                for k in range(top - 1, 0, -1):
                    held[k] += held[k + 1]
            held[top + 1] = 0.0
            held[0] = total
            for x in range(n_own):
                need = uint64(min(max(q - cnt_own[fc + x], 0), top + 1))
                acc[dst[x]] += w_own[cw + x] * (hit * held[need] + miss * (total - held[need]))


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
def public_pass(p_lo, p_hi, weight, tree, T, dense, strategy, avg, work):
    """Players ``[p_lo, p_hi)`` at the same strategy: their counterfactual regrets into
    ``work.inst`` and ``weight`` times their realization plans into the average-strategy sums
    (:func:`rcfr.solvers.loop.full_width_pass` with the public terminal sweep)."""
    K.realization_plan(strategy, 0, tree.bounds[2], tree.seq_start, tree.num_actions,
                       tree.parent_seq, work.plan)
    for p in range(p_lo, p_hi):
        terminal_values(p, work.plan, T, dense, tree.seq_bounds[p], tree.seq_bounds[p + 1],
                        work.acc)
        K.counterfactual_regrets(p, strategy, tree.bounds[p], tree.bounds[p + 1],
                                 tree.seq_start, tree.num_actions, tree.parent_seq, work.acc,
                                 work.inst)
    for p in range(p_lo, p_hi):
        accumulate_average(work.plan, weight, tree.seq_bounds[p], tree.seq_bounds[p + 1], avg)


@njit(cache=True)
def _plan(strategy, i_lo, i_hi, seq_start, num_actions, parent_seq, plan, weight, avg,
          average):
    """:func:`rcfr.kernels.realization_plan` for infosets ``[i_lo, i_hi)``, adding ``weight``
    times the plan to ``avg`` on the way where ``average`` (:func:`accumulate_average`'s
    arithmetic)."""
    for i in range(i_lo, i_hi):
        base = plan[parent_seq[i]]
        start = seq_start[i]
        end = start + num_actions[i]
        if average:
            for s in range(start, end):
                x = base * strategy[s]
                plan[s] = x
                avg[s] += weight * x
        else:
            for s in range(start, end):
                plan[s] = base * strategy[s]


@njit(cache=True)
def _regrets_absorbed(p, t, rule, link_kind, link_param, strategy, tree, acc, inst, regrets,
                      prediction, values):
    """Player ``p``'s counterfactual regrets (:func:`rcfr.kernels.counterfactual_regrets`)
    absorbed by ``rule`` and re-linked (:func:`absorb`).  For CFR and CFR+ with regret
    matching each information set is absorbed as soon as its value is backed up (the backward
    sweep reads no strategy below it again): the same arithmetic in one sweep."""
    lo, hi = tree.bounds[p], tree.bounds[p + 1]
    seq_start, num_actions, parent_seq = tree.seq_start, tree.num_actions, tree.parent_seq
    if (rule.kind != PLAIN and rule.kind != CLIPPED) or link_kind != POLYNOMIAL:
        K.counterfactual_regrets(p, strategy, lo, hi, seq_start, num_actions, parent_seq, acc,
                                 inst)
        absorb(p, t, rule, link_kind, link_param, tree, inst, regrets, prediction, values,
               strategy)
        return
    clipped = rule.kind == CLIPPED
    matching = link_param == 2.0  # regret matching, written out (link_slice's arithmetic)
    for i in range(hi - 1, lo - 1, -1):
        start = seq_start[i]
        end = start + num_actions[i]
        v = K.back_up(strategy, acc, start, end, parent_seq[i])
        if not matching:
            for s in range(start, end):
                r = regrets[s] + (acc[s] - v)
                regrets[s] = (r if r > 0.0 else 0.0) if clipped else r
            link_slice(POLYNOMIAL, link_param, regrets, start, end, strategy)
            continue
        total = 0.0
        for s in range(start, end):
            r = regrets[s] + (acc[s] - v)
            if clipped:
                r = r if r > 0.0 else 0.0
            regrets[s] = r
            total += r if r > 0.0 else 0.0
        if total > 0.0:
            for s in range(start, end):
                r = regrets[s]
                strategy[s] = (r if r > 0.0 else 0.0) / total
        else:
            u = 1.0 / (end - start)
            for s in range(start, end):
                strategy[s] = u


@njit(cache=True)
def run_public(n_iters, t0, alternating, avg_power, rule, link_kind, link_param, tree, T, dense,
               regrets, prediction, values, strategy, avg, work):
    """``n_iters`` iterations of vector-form CFR with any update ``rule``, in the order of
    :func:`rcfr.solvers.loop.run_tabular` (so both forms give the same strategies), fused: a
    player's realization plan is recomputed only after its strategy changed, averaging rides
    on the plan and absorbing on the backward sweep."""
    b, sb = tree.bounds, tree.seq_bounds
    seq_start, num_actions, parent = tree.seq_start, tree.num_actions, tree.parent_seq
    plan, acc, inst = work.plan, work.acc, work.inst
    for it in range(n_iters):
        t = t0 + it + 1
        weight = float(t) ** avg_power
        if alternating:
            # player 0's plan is current from its update in the previous iteration on
            if it == 0:
                _plan(strategy, b[0], b[1], seq_start, num_actions, parent, plan, weight, avg,
                      True)
            _plan(strategy, b[1], b[2], seq_start, num_actions, parent, plan, weight, avg, True)
            terminal_values(0, plan, T, dense, sb[0], sb[1], acc)
            _regrets_absorbed(0, t, rule, link_kind, link_param, strategy, tree, acc, inst,
                              regrets, prediction, values)
            nxt = float(t + 1) ** avg_power
            _plan(strategy, b[0], b[1], seq_start, num_actions, parent, plan, nxt, avg,
                  it + 1 < n_iters)
            terminal_values(1, plan, T, dense, sb[1], sb[2], acc)
            _regrets_absorbed(1, t, rule, link_kind, link_param, strategy, tree, acc, inst,
                              regrets, prediction, values)
        else:
            _plan(strategy, b[0], b[2], seq_start, num_actions, parent, plan, weight, avg, True)
            for p in range(2):
                terminal_values(p, plan, T, dense, sb[p], sb[p + 1], acc)
            for p in range(2):  # (both sweeps read the plan at the same strategies)
                _regrets_absorbed(p, t, rule, link_kind, link_param, strategy, tree, acc, inst,
                                  regrets, prediction, values)


@njit(cache=True)
def _plan_layout(strategy, s_lo, s_hi, seq_parent, plan, weight, avg, average):
    """:func:`_plan` for the sequences ``[s_lo, s_hi)`` in the layout of
    :mod:`rcfr.public_layout`: one flat loop, each sequence's parent from ``seq_parent``
    (parents come first, in breadth-first order)."""
    if average:
        for s in range(s_lo, s_hi):
            x = plan[seq_parent[s]] * strategy[s]
            plan[s] = x
            avg[s] += weight * x
    else:
        for s in range(s_lo, s_hi):
            plan[s] = plan[seq_parent[s]] * strategy[s]


@njit(cache=True, inline="always")
def _back_up(acc, p, m, row_map, K, v):
    """Add the node's row values ``v`` to its parent sequences (in the contract's order where
    rows share a parent sequence, so that sums match it exactly)."""
    if m < 0:
        for k in range(K):
            acc[p + k] += v[k]
    else:
        mu = uint64(m)
        for k in range(K):
            kk = K - uint64(1) - k
            acc[p + uint64(row_map[mu + kk])] += v[kk]


@njit(cache=True)
def _absorb_layout(j_lo, j_hi, clipped, L, strategy, acc, regrets, v):
    """:func:`_regrets_absorbed`'s CFR / CFR+ sweep with regret matching, node by node in the
    layout of :mod:`rcfr.public_layout` (each row's arithmetic and order of sums unchanged).
    Rows go in adjacent pairs whose values and sums stay in registers (written out: LLVM pairs
    the adjacent loads and stores), then an odd last row."""
    base, rows, actions, parent = L.base, L.rows, L.actions, L.parent
    parent_map, row_map = L.parent_map, L.row_map
    one = uint64(1)
    for j in range(j_hi - 1, j_lo - 1, -1):
        b, K, A, p = uint64(base[j]), uint64(rows[j]), uint64(actions[j]), uint64(parent[j])
        u = 1.0 / actions[j]
        k = uint64(0)
        if A == one:  # one action (liar's dice: a call): each row on its own, one loop
            for k in range(K):
                x = 0.0 + strategy[b + k] * acc[b + k]
                v[k] = x
                r = regrets[b + k] + (acc[b + k] - x)
                if clipped:
                    r = r if r > 0.0 else 0.0
                regrets[b + k] = r
                t = 0.0 + (r if r > 0.0 else 0.0)
                strategy[b + k] = (r if r > 0.0 else 0.0) / t if t > 0.0 else u
            k = K
        while k + one < K:
            v0 = v1 = 0.0
            for a in range(A):
                o = b + a * K + k
                v0 += strategy[o] * acc[o]
                v1 += strategy[o + one] * acc[o + one]
            v[k] = v0
            v[k + one] = v1
            t0 = t1 = 0.0
            for a in range(A):
                o = b + a * K + k
                r0 = regrets[o] + (acc[o] - v0)
                r1 = regrets[o + one] + (acc[o + one] - v1)
                if clipped:
                    r0 = r0 if r0 > 0.0 else 0.0
                    r1 = r1 if r1 > 0.0 else 0.0
                regrets[o] = r0
                regrets[o + one] = r1
                t0 += r0 if r0 > 0.0 else 0.0
                t1 += r1 if r1 > 0.0 else 0.0
            for a in range(A):
                o = b + a * K + k
                r0 = regrets[o]
                r1 = regrets[o + one]
                strategy[o] = (r0 if r0 > 0.0 else 0.0) / t0 if t0 > 0.0 else u
                strategy[o + one] = (r1 if r1 > 0.0 else 0.0) / t1 if t1 > 0.0 else u
            k += uint64(2)
        if k < K:
            v0 = 0.0
            for a in range(A):
                o = b + a * K + k
                v0 += strategy[o] * acc[o]
            v[k] = v0
            t0 = 0.0
            for a in range(A):
                o = b + a * K + k
                r0 = regrets[o] + (acc[o] - v0)
                if clipped:
                    r0 = r0 if r0 > 0.0 else 0.0
                regrets[o] = r0
                t0 += r0 if r0 > 0.0 else 0.0
            for a in range(A):
                o = b + a * K + k
                r0 = regrets[o]
                strategy[o] = (r0 if r0 > 0.0 else 0.0) / t0 if t0 > 0.0 else u
        _back_up(acc, p, parent_map[j], row_map, K, v)


@njit(cache=True)
def _best_response_layout(player, j_lo, j_hi, L, acc, v):
    """:func:`rcfr.kernels.best_response`'s value, node by node in the layout (rows in pairs,
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
def run_public_layout(n_iters, t0, alternating, avg_power, clipped, tree, T, L, regrets,
                      strategy, avg, work, v):
    """:func:`run_public` for CFR and CFR+ with regret matching on sequence vectors in the
    layout of :mod:`rcfr.public_layout` (the same arithmetic in the same order)."""
    lo, sb = L.node_lo, tree.seq_bounds
    tb, ts = L.term_base, L.term_stride
    plan, acc = work.plan, work.acc
    for it in range(n_iters):
        t = t0 + it + 1
        weight = float(t) ** avg_power
        if alternating:
            if it == 0:
                _plan_layout(strategy, sb[0], sb[1], L.seq_parent, plan, weight, avg, True)
            _plan_layout(strategy, sb[1], sb[2], L.seq_parent, plan, weight, avg, True)
            _terminal_values(0, plan, T, tb, ts, False, sb[0], sb[1], acc)
            _absorb_layout(lo[0], lo[1], clipped, L, strategy, acc, regrets, v)
            nxt = float(t + 1) ** avg_power
            _plan_layout(strategy, sb[0], sb[1], L.seq_parent, plan, nxt, avg, it + 1 < n_iters)
            _terminal_values(1, plan, T, tb, ts, False, sb[1], sb[2], acc)
            _absorb_layout(lo[1], lo[2], clipped, L, strategy, acc, regrets, v)
        else:
            _plan_layout(strategy, sb[0], sb[2], L.seq_parent, plan, weight, avg, True)
            for p in range(2):
                _terminal_values(p, plan, T, tb, ts, False, sb[p], sb[p + 1], acc)
            for p in range(2):
                _absorb_layout(lo[p], lo[p + 1], clipped, L, strategy, acc, regrets, v)


@njit(cache=True)
def run_fused_layout(n_iters, t0, alternating, avg_power, clipped, tree, T, L, regrets,
                     strategy, avg, work, scratch, v):
    """:func:`run_public_layout` on the contract's arrays: they are transposed into the
    layout (``scratch``: three sequence vectors) at entry and back at exit."""
    state_to_layout(regrets, strategy, avg, scratch, L.seq_contract)
    run_public_layout(n_iters, t0, alternating, avg_power, clipped, tree, T, L, scratch[0],
                      scratch[1], scratch[2], work, v)
    state_from_layout(scratch, regrets, strategy, avg, L.seq_contract)


@njit(cache=True)
def evaluate_layout(probs, tree, T, L, plan, acc, v):
    """:func:`evaluate_public` in the layout of :mod:`rcfr.public_layout` (``probs`` in the
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


class PublicFullWidthPass:
    """The exact pass over the public tree (a :class:`rcfr.solvers.loop.TreePass`)."""

    def __init__(self, tree: PublicTree) -> None:
        self.tree = tree
        self.dense = False  # (True: the n0 x n1 reference evaluation)
        self.arrays = tree._full_arrays  # (no history terminals)
        S = tree.num_sequences
        self.work = FullWork(K.padded(S), np.zeros(S + 2), np.zeros(S))
        self._scratch = self._row_values = None

    def run(self, players, strategy, weight, avg, inst) -> int:
        public_pass(players[0], players[-1] + 1, weight, self.arrays, self.tree.arrays,
                    self.dense, strategy, avg, self.work._replace(inst=inst))
        return len(players) * self.tree.num_nodes

    def fuses(self, rule) -> bool:
        return True

    def layout_fuses(self, solver) -> bool:
        """Whether :func:`run_fused_layout` runs the solver's rule: CFR or CFR+ (cumulative
        or clipped regrets) with regret matching, on the exact terminal sweep, for a tree
        small enough (:func:`rcfr.public_layout.uses_layout`)."""
        rule = solver.rule_.params
        return (not self.dense and uses_layout(self.tree) and rule.kind in (PLAIN, CLIPPED)
                and solver.link_.kind == POLYNOMIAL and solver.link_.param == 2.0)

    def run_fused(self, solver, max_iters: int, node_budget: int) -> None:
        per = 2 * self.tree.num_nodes  # one full pass per player, counted in histories
        iterations = min(max_iters, max(1, -(-node_budget // per)))
        est = solver.estimator_
        if self.layout_fuses(solver):
            L = self.tree._layout
            dtype = solver.strategy_.dtype
            if self._scratch is None or self._scratch.dtype != dtype:
                self._scratch = np.zeros((3, self.tree.num_sequences), dtype=dtype)
                self._row_values = np.zeros(max(L.max_rows, 1))
            run_fused_layout(iterations, solver.iteration, solver.alternating,
                             solver.avg_power_, solver.rule_.params.kind == CLIPPED,
                             self.arrays, self.tree.arrays, L, est.regrets, solver.strategy_,
                             solver.avg_weights_, self.work, self._scratch, self._row_values)
        else:
            run_public(iterations, solver.iteration, solver.alternating, solver.avg_power_,
                       solver.rule_.params, solver.link_.kind, solver.link_.param, self.arrays,
                       self.tree.arrays, self.dense, est.regrets, est.prediction, est.values_,
                       solver.strategy_, solver.avg_weights_, self.work)
        solver.iteration += iterations
        solver.nodes_visited += iterations * per


class PublicCFRSolver(CFRSolver):
    """CFR, CFR+ or any other update rule (``algorithm`` as for
    :class:`rcfr.solvers.loop.CFRSolver`) on the public tree: the shared loop, which takes the
    vector-form pass on a public tree."""

    def __init__(self, game: PublicTree | Any, algorithm: str = "cfr", **options) -> None:
        if not isinstance(game, PublicTree):
            game = compile_public(game)
        super().__init__(game, algorithm, **options)


def make_public_solver(tree: PublicTree, algorithm: str, **options):
    """A solver on the public form: a tabular update rule (``cfr``, ``cfr+``, ``lcfr``,
    ``dcfr``, ``pcfr+``, ``pdcfr+``), RCFR (``rcfr``, ``rcfr+``, regressors on the public
    tree's sequences) or Monte Carlo CFR (``cs``, ``es``, ``os``, ``as``, with or without a
    regressor), with the options and checks of :func:`rcfr.solvers.run.make_solver`."""
    from .public_sampling import PublicMCCFRSolver
    from .solvers.rcfr import RCFR_ALGORITHMS
    from .solvers.run import make_solver
    from .solvers.sampling import SCHEMES

    key = str(algorithm).strip().lower()
    known = [*ALGORITHMS, *RCFR_ALGORITHMS, *SCHEMES]
    if key.partition(":")[0] not in known:
        raise RcfrError(f"the public form runs {', '.join(known)}, not {algorithm!r}; use "
                        "--form history")
    s = make_solver(tree, key, **options)  # validates the options, resolves the rule
    if key in RCFR_ALGORITHMS:
        return s  # the shared loop takes the public tree's full-width pass
    if key in SCHEMES:
        return PublicMCCFRSolver(tree, key, epsilon=s.epsilon, beta=s.beta, tau=s.tau,
                                 seed=s.seed, rule=s.rule, link=s.link, averaging=s.averaging,
                                 plus=s.plus, alternating=s.alternating, dtype=s.dtype,
                                 estimator=s.estimator)
    return PublicCFRSolver(tree, s.rule, alternating=s.alternating, averaging=s.averaging,
                           link=s.link, seed=s.seed)
