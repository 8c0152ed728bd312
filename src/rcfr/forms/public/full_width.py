"""Passes over the public tree (:mod:`rcfr.forms.public.tree`): terminal values by structured rules,
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
actions-major layout of :mod:`rcfr.forms.public.layout` (:func:`run_fused_layout`,
:func:`evaluate_layout`): the same arithmetic in the same order, over unit-stride vectors of
private rows.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange, uint64

from ...core import kernels as K
from ...core.compact import absorb_threaded, average_threaded
from ...core.links import POLYNOMIAL, link_slice, matched, positive
from ...core.rules import CLIPPED, PLAIN, absorbed
from ..base import Form
from ..history.full_width import FullWork, absorb, absorb_sets, accumulate_average
from ..lock import NO_LOCK, apply_lock
from ..loop_state import NONE, Counters, LoopState
from ..threads import thread_args
from .layout import state_from_layout, state_to_layout, uses_layout
from .terminals import _terminal_values, terminal_values


@njit(cache=True)
def public_pass(p_lo, p_hi, weight, tree, T, dense, strategy, avg, work, threads=1):
    """Players ``[p_lo, p_hi)`` at the same strategy: their counterfactual regrets into
    ``work.inst`` and ``weight`` times their realization plans into the average-strategy sums
    (:func:`rcfr.forms.history.full_width.full_width_pass` with the public terminal sweep)."""
    K.realization_plan(strategy, 0, tree.bounds[2], tree.seq_start, tree.num_actions,
                       tree.parent_seq, work.plan)
    for p in range(p_lo, p_hi):
        terminal_values(p, work.plan, T, dense, tree.seq_bounds[p], tree.seq_bounds[p + 1],
                        work.acc, threads)
        K.counterfactual_regrets(p, strategy, tree.bounds[p], tree.bounds[p + 1],
                                 tree.seq_start, tree.num_actions, tree.parent_seq, work.acc,
                                 work.inst)
    for p in range(p_lo, p_hi):
        accumulate_average(work.plan, weight, tree.seq_bounds[p], tree.seq_bounds[p + 1], avg)


@njit(cache=True)
def public_pass_serial(p_lo, p_hi, weight, tree, T, dense, strategy, avg, work):
    """:func:`public_pass` on one thread, compiled without its threaded branches: called from
    Python without the omitted ``threads`` (numba dispatches a call that omits defaults about
    ten times slower, 150 us against 15)."""
    public_pass(p_lo, p_hi, weight, tree, T, dense, strategy, avg, work)


@njit(cache=True)
def _plan(strategy, i_lo, i_hi, seq_start, num_actions, parent_seq, plan, weight, avg,
          average):
    """:func:`rcfr.core.kernels.realization_plan` for infosets ``[i_lo, i_hi)``, adding ``weight``
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
    """Player ``p``'s counterfactual regrets (:func:`rcfr.core.kernels.counterfactual_regrets`)
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
        _absorb_one(i, clipped, matching, link_param, strategy, seq_start, num_actions,
                    parent_seq, acc, regrets)


@njit(cache=True, inline="always")
def _absorb_one(i, clipped, matching, link_param, strategy, seq_start, num_actions, parent_seq,
                acc, regrets):
    """:func:`_regrets_absorbed` at information set ``i``."""
    start = seq_start[i]
    end = start + num_actions[i]
    v = K.back_up(strategy, acc, start, end, parent_seq[i])
    if not matching:
        for s in range(start, end):
            regrets[s] = absorbed(regrets[s], acc[s] - v, clipped)
        link_slice(POLYNOMIAL, link_param, regrets, start, end, strategy)
        return
    total = 0.0
    for s in range(start, end):
        r = absorbed(regrets[s], acc[s] - v, clipped)
        regrets[s] = r
        total += positive(r)
    u = 1.0 / (end - start)
    for s in range(start, end):
        strategy[s] = matched(regrets[s], total, u)


ABSORB, REGRETS, BEST_RESPONSE = 0, 1, 2  # what :func:`_back_levels` computes


@njit(cache=True, inline="always")
def _back_one(kind, i, clipped, matching, link_param, strategy, seq_start, num_actions,
              parent_seq, acc, out):
    """Information set ``i`` of the backward sweep: absorbed regrets (``out``: the regrets,
    :func:`_absorb_one`), instantaneous regrets (``out``, as
    :func:`rcfr.core.kernels.counterfactual_regrets`) or the best response's value (as
    :func:`rcfr.core.kernels.best_value`; ``out`` unused)."""
    if kind == ABSORB:
        _absorb_one(i, clipped, matching, link_param, strategy, seq_start, num_actions,
                    parent_seq, acc, out)
    elif kind == REGRETS:
        K.regrets_at(i, strategy, seq_start, num_actions, parent_seq, acc, out)
    else:
        K.best_value_at(i, seq_start, num_actions, parent_seq, acc)


@njit(cache=True, parallel=True)
def _back_levels(kind, p, clipped, matching, link_param, strategy, seq_start, num_actions,
                 parent_seq, LV, acc, out, threads):
    """Player ``p``'s backward sweep level by level, deepest first
    (:mod:`rcfr.forms.public.levels`): a level's groups of information sets that share a parent
    sequence split over ``threads`` threads, each group in decreasing order, so each sum is the
    one-thread sweep's bit for bit."""
    for lv in range(LV.player_lo[p + 1] - 1, LV.player_lo[p] - 1, -1):
        a, b = LV.level_lo[lv], LV.level_lo[lv + 1]
        if b - a < LV.min_infosets:
            for i in range(b - 1, a - 1, -1):
                _back_one(kind, i, clipped, matching, link_param, strategy, seq_start,
                          num_actions, parent_seq, acc, out)
            continue
        g0 = LV.group_lo[lv]
        ng = LV.group_lo[lv + 1] - g0
        nch = min(threads, ng)
        for c in prange(nch):
            for g in range(g0 + ng * c // nch, g0 + ng * (c + 1) // nch):
                for k in range(LV.group_start[g], LV.group_start[g + 1]):
                    _back_one(kind, LV.back_order[k], clipped, matching, link_param, strategy,
                              seq_start, num_actions, parent_seq, acc, out)


@njit(cache=True, parallel=True)
def _plan_levels(strategy, LV, p_lo, p_hi, seq_start, num_actions, parent_seq, plan, weight,
                 avg, average, threads):
    """:func:`_plan` for players ``[p_lo, p_hi)`` level by level, each level's information sets
    split over ``threads`` threads (each sequence's arithmetic unchanged)."""
    for lv in range(LV.player_lo[p_lo], LV.player_lo[p_hi]):
        a, b = LV.level_lo[lv], LV.level_lo[lv + 1]
        n = b - a
        if n < LV.min_infosets:
            _plan(strategy, a, b, seq_start, num_actions, parent_seq, plan, weight, avg, average)
            continue
        for c in prange(threads):
            _plan(strategy, a + n * c // threads, a + n * (c + 1) // threads, seq_start,
                  num_actions, parent_seq, plan, weight, avg, average)


@njit(cache=True)
def plan_threaded(strategy, LV, p_lo, p_hi, tree, plan, weight, avg, average, threads):
    """:func:`_plan` for players ``[p_lo, p_hi)``, on ``threads`` threads where ``LV`` (the
    tree's levels) is given (:func:`_plan_levels`)."""
    b = tree.bounds
    if LV is None:
        _plan(strategy, b[p_lo], b[p_hi], tree.seq_start, tree.num_actions, tree.parent_seq,
              plan, weight, avg, average)
    elif threads > 1:
        _plan_levels(strategy, LV, p_lo, p_hi, tree.seq_start, tree.num_actions,
                     tree.parent_seq, plan, weight, avg, average, threads)
    else:
        _plan(strategy, b[p_lo], b[p_hi], tree.seq_start, tree.num_actions, tree.parent_seq,
              plan, weight, avg, average)


@njit(cache=True, parallel=True)
def _absorb_chunks(p, t, rule, link_kind, link_param, tree, inst, regrets, prediction, values,
                   strategy, threads):
    """:func:`rcfr.forms.history.full_width.absorb` with player ``p``'s information sets cut
    into ``threads`` contiguous chunks, one per thread (:func:`absorb_sets` on each: the numbers
    are one thread's)."""
    i_lo, i_hi = tree.bounds[p], tree.bounds[p + 1]
    n = i_hi - i_lo
    for c in prange(threads):
        a = i_lo + n * c // threads
        b = i_lo + n * (c + 1) // threads
        s_lo = tree.seq_bounds[p] if c == 0 else tree.seq_start[a]
        s_hi = tree.seq_bounds[p + 1] if c == threads - 1 else tree.seq_start[b]
        absorb_sets(t, rule, link_kind, link_param, a, b, s_lo, s_hi, tree.seq_start,
                    tree.num_actions, inst, regrets, prediction, values, strategy)


@njit(cache=True)
def _regrets_threaded(p, t, rule, link_kind, link_param, strategy, tree, acc, inst, regrets,
                      prediction, values, LV, threads):
    """:func:`_regrets_absorbed` on ``threads`` threads where ``LV`` is given (the backward
    sweep by :func:`_back_levels`, the rule's update by :func:`_absorb_chunks`)."""
    if LV is None:
        _regrets_absorbed(p, t, rule, link_kind, link_param, strategy, tree, acc, inst,
                          regrets, prediction, values)
    elif threads > 1:
        fused = (rule.kind == PLAIN or rule.kind == CLIPPED) and link_kind == POLYNOMIAL
        if fused:
            _back_levels(ABSORB, p, rule.kind == CLIPPED, link_param == 2.0, link_param,
                         strategy, tree.seq_start, tree.num_actions, tree.parent_seq, LV, acc,
                         regrets, threads)
        else:
            _back_levels(REGRETS, p, False, False, link_param, strategy, tree.seq_start,
                         tree.num_actions, tree.parent_seq, LV, acc, inst, threads)
            if tree.bounds[p + 1] - tree.bounds[p] >= max(LV.min_infosets, threads):
                _absorb_chunks(p, t, rule, link_kind, link_param, tree, inst, regrets,
                               prediction, values, strategy, threads)
            else:
                absorb(p, t, rule, link_kind, link_param, tree, inst, regrets, prediction,
                       values, strategy)
    else:
        _regrets_absorbed(p, t, rule, link_kind, link_param, strategy, tree, acc, inst,
                          regrets, prediction, values)


@njit(cache=True)
def _terminals(p, plan, T, dense, s_lo, s_hi, acc, threads, prune, stats):
    """:func:`terminal_values` for player ``p``, its skipped and swept public terminals added
    to ``stats[p]`` where ``prune`` (partial pruning)."""
    skipped = terminal_values(p, plan, T, dense, s_lo, s_hi, acc, threads, prune)
    if prune:
        stats[p, 0] += skipped
        stats[p, 2] += T.term_ctx.shape[0]


@njit(cache=True)
def _terminals_layout(p, plan, T, tb, ts, s_lo, s_hi, acc, threads, prune, stats):
    """:func:`_terminals` in the layout of :mod:`rcfr.forms.public.layout` (``tb``, ``ts``:
    its terminals' sequence bases and strides)."""
    skipped = _terminal_values(p, plan, T, tb, ts, np.bool_(False), s_lo, s_hi, acc, threads,
                               prune)
    if prune:
        stats[p, 0] += skipped
        stats[p, 2] += T.term_ctx.shape[0]


@njit(cache=True)
def run_public(n_iters, t0, alternating, avg_power, rule, link_kind, link_param, tree, T, dense,
               regrets, prediction, values, strategy, avg, work, lock, prune, stats,
               threads=1, LV=None):
    """``n_iters`` iterations of vector-form CFR with any update ``rule``, in the order of
    :func:`rcfr.forms.history.full_width.run_tabular` (so both forms give the same strategies),
    fused: a
    player's realization plan is recomputed only after its strategy changed, averaging rides
    on the plan and absorbing on the backward sweep.  On ``threads`` threads: the terminal
    sweeps, and with the levels ``LV`` the plans and backward sweeps (the same numbers).  Each
    player's new strategy is held to ``lock`` (:mod:`rcfr.forms.lock`).  ``prune``: partial
    pruning in the terminal sweeps, counted in ``stats`` (:func:`_terminals`)."""
    plan, acc, inst = work.plan, work.acc, work.inst
    P0, P1 = np.int64(0), np.int64(1)  # plain values, not literals: one sweep compiled
    for it in range(n_iters):
        t = t0 + it + 1
        weight = float(t) ** avg_power
        if alternating:
            # player 0's plan is current from its update in the previous iteration on
            if it == 0:
                plan_threaded(strategy, LV, 0, 1, tree, plan, weight, avg, True, threads)
            plan_threaded(strategy, LV, 1, 2, tree, plan, weight, avg, True, threads)
            _terminals(P0, plan, T, dense, tree.seq_bounds[0], tree.seq_bounds[1], acc,
                       threads, prune, stats)
            _regrets_threaded(0, t, rule, link_kind, link_param, strategy, tree, acc, inst,
                              regrets, prediction, values, LV, threads)
            apply_lock(lock, P0, strategy)
            nxt = float(t + 1) ** avg_power
            plan_threaded(strategy, LV, 0, 1, tree, plan, nxt, avg, it + 1 < n_iters, threads)
            _terminals(P1, plan, T, dense, tree.seq_bounds[1], tree.seq_bounds[2], acc,
                       threads, prune, stats)
            _regrets_threaded(1, t, rule, link_kind, link_param, strategy, tree, acc, inst,
                              regrets, prediction, values, LV, threads)
            apply_lock(lock, P1, strategy)
        else:
            plan_threaded(strategy, LV, 0, 2, tree, plan, weight, avg, True, threads)
            for p in range(2):
                _terminals(p, plan, T, dense, tree.seq_bounds[p], tree.seq_bounds[p + 1], acc,
                           threads, prune, stats)
            for p in range(2):  # (both sweeps read the plan at the same strategies)
                _regrets_threaded(p, t, rule, link_kind, link_param, strategy, tree, acc, inst,
                                  regrets, prediction, values, LV, threads)
                apply_lock(lock, p, strategy)


@njit(cache=True)
def _regrets_compact(p, t, rule, link_kind, link_param, strategy, tree, acc, inst, C, key, LV,
                     threads):
    """Player ``p``'s counterfactual regrets (the backward sweep, on ``threads`` threads with
    the levels ``LV``) absorbed into the compressed tables (:mod:`rcfr.core.compact`)."""
    lo, hi = tree.bounds[p], tree.bounds[p + 1]
    if LV is None:
        K.counterfactual_regrets(p, strategy, lo, hi, tree.seq_start, tree.num_actions,
                                 tree.parent_seq, acc, inst)
    elif threads > 1:
        _back_levels(REGRETS, p, False, False, link_param, strategy, tree.seq_start,
                     tree.num_actions, tree.parent_seq, LV, acc, inst, threads)
    else:
        K.counterfactual_regrets(p, strategy, lo, hi, tree.seq_start, tree.num_actions,
                                 tree.parent_seq, acc, inst)
    absorb_threaded(t, rule, link_kind, link_param, lo, hi, tree.seq_start, tree.num_actions,
                    inst, strategy, C, key, LV, threads)


@njit(cache=True)
def _plan_compact(p_lo, p_hi, t, weight, strategy, tree, plan, C, key, LV, threads, average):
    """Players ``[p_lo, p_hi)``'s realization plans and, where ``average``, ``weight`` times
    them into the compressed average-strategy sums (iteration ``t``'s rounding stream)."""
    plan_threaded(strategy, LV, p_lo, p_hi, tree, plan, weight, plan, False, threads)
    if average:
        average_threaded(t, weight, tree.bounds[p_lo], tree.bounds[p_hi], tree.seq_start,
                         tree.num_actions, plan, C, key, LV, threads)


@njit(cache=True)
def run_public_compact(n_iters, t0, alternating, avg_power, rule, link_kind, link_param, tree,
                       T, dense, C, key, strategy, work, lock, prune, stats, threads=1,
                       LV=None):
    """:func:`run_public` on compressed tables (``storage="int16"``, :mod:`rcfr.core.compact`;
    non-predictive rules): the same passes in the same order, the regrets absorbed and the
    average-strategy sums added one information set at a time with stochastic rounding.  An
    average increment of the weight of iteration ``t`` draws from ``t``'s stream, so a run cut
    into calls rounds as one call does.  Alternating, ``work`` may give one vector as the plan,
    the values and the regrets (:meth:`PublicFullWidthPass.lean_work`): player ``p``'s
    terminal sweep reads only the opponent's plan and writes ``p``'s part, its regrets
    overwrite its values set by set, and ``p``'s plan is recomputed after its update (the
    empty sequence's slot set back to 1)."""
    plan, acc, inst = work.plan, work.acc, work.inst
    S = tree.seq_bounds[2]
    P0, P1 = np.int64(0), np.int64(1)  # plain values, not literals: one sweep compiled
    for it in range(n_iters):
        t = t0 + it + 1
        weight = float(t) ** avg_power
        if alternating:
            if it == 0:
                _plan_compact(0, 1, t, weight, strategy, tree, plan, C, key, LV, threads,
                              True)
            _plan_compact(1, 2, t, weight, strategy, tree, plan, C, key, LV, threads,
                          True)
            _terminals(P0, plan, T, dense, tree.seq_bounds[0], tree.seq_bounds[1], acc,
                       threads, prune, stats)
            _regrets_compact(0, t, rule, link_kind, link_param, strategy, tree, acc, inst, C,
                             key, LV, threads)
            apply_lock(lock, P0, strategy)
            plan[S] = 1.0
            nxt = float(t + 1) ** avg_power
            _plan_compact(0, 1, t + 1, nxt, strategy, tree, plan, C, key, LV, threads,
                          it + 1 < n_iters)
            _terminals(P1, plan, T, dense, tree.seq_bounds[1], tree.seq_bounds[2], acc,
                       threads, prune, stats)
            _regrets_compact(1, t, rule, link_kind, link_param, strategy, tree, acc, inst, C,
                             key, LV, threads)
            apply_lock(lock, P1, strategy)
            plan[S + 1] = 1.0
        else:
            _plan_compact(0, 2, t, weight, strategy, tree, plan, C, key, LV, threads,
                          True)
            for p in range(2):
                _terminals(p, plan, T, dense, tree.seq_bounds[p], tree.seq_bounds[p + 1], acc,
                           threads, prune, stats)
            for p in range(2):
                _regrets_compact(p, t, rule, link_kind, link_param, strategy, tree, acc, inst,
                                 C, key, LV, threads)
                apply_lock(lock, p, strategy)


@njit(cache=True)
def _plan_layout(strategy, s_lo, s_hi, seq_parent, plan, weight, avg, average):
    """:func:`_plan` for the sequences ``[s_lo, s_hi)`` in the layout of
    :mod:`rcfr.forms.public.layout`: one flat loop, each sequence's parent from ``seq_parent``
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
    layout of :mod:`rcfr.forms.public.layout` (each row's arithmetic and order of sums unchanged).
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
                r = absorbed(regrets[b + k], acc[b + k] - x, clipped)
                regrets[b + k] = r
                strategy[b + k] = matched(r, 0.0 + positive(r), u)
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
                r0 = absorbed(regrets[o], acc[o] - v0, clipped)
                r1 = absorbed(regrets[o + one], acc[o + one] - v1, clipped)
                regrets[o] = r0
                regrets[o + one] = r1
                t0 += positive(r0)
                t1 += positive(r1)
            for a in range(A):
                o = b + a * K + k
                strategy[o] = matched(regrets[o], t0, u)
                strategy[o + one] = matched(regrets[o + one], t1, u)
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
                r0 = absorbed(regrets[o], acc[o] - v0, clipped)
                regrets[o] = r0
                t0 += positive(r0)
            for a in range(A):
                o = b + a * K + k
                strategy[o] = matched(regrets[o], t0, u)
        _back_up(acc, p, parent_map[j], row_map, K, v)


@njit(cache=True)
def run_public_layout(n_iters, t0, alternating, avg_power, clipped, tree, T, L, regrets,
                      strategy, avg, work, v, lock, prune, stats, threads=1):
    """:func:`run_public` for CFR and CFR+ with regret matching on sequence vectors in the
    layout of :mod:`rcfr.forms.public.layout` (the same arithmetic in the same order; ``lock``
    in the layout's order)."""
    lo, sb = L.node_lo, tree.seq_bounds
    tb, ts = L.term_base, L.term_stride
    plan, acc = work.plan, work.acc
    P0, P1 = np.int64(0), np.int64(1)  # (not literals)
    for it in range(n_iters):
        t = t0 + it + 1
        weight = float(t) ** avg_power
        if alternating:
            if it == 0:
                _plan_layout(strategy, sb[0], sb[1], L.seq_parent, plan, weight, avg, True)
            _plan_layout(strategy, sb[1], sb[2], L.seq_parent, plan, weight, avg, True)
            _terminals_layout(P0, plan, T, tb, ts, sb[0], sb[1], acc, threads, prune, stats)
            _absorb_layout(lo[0], lo[1], clipped, L, strategy, acc, regrets, v)
            apply_lock(lock, P0, strategy)
            nxt = float(t + 1) ** avg_power
            _plan_layout(strategy, sb[0], sb[1], L.seq_parent, plan, nxt, avg, it + 1 < n_iters)
            _terminals_layout(P1, plan, T, tb, ts, sb[1], sb[2], acc, threads, prune, stats)
            _absorb_layout(lo[1], lo[2], clipped, L, strategy, acc, regrets, v)
            apply_lock(lock, P1, strategy)
        else:
            _plan_layout(strategy, sb[0], sb[2], L.seq_parent, plan, weight, avg, True)
            for p in range(2):
                _terminals_layout(p, plan, T, tb, ts, sb[p], sb[p + 1], acc, threads, prune,
                                  stats)
            for p in range(2):
                _absorb_layout(lo[p], lo[p + 1], clipped, L, strategy, acc, regrets, v)
                apply_lock(lock, p, strategy)


@njit(cache=True)
def run_fused_layout(n_iters, t0, alternating, avg_power, clipped, tree, T, L, regrets,
                     strategy, avg, work, scratch, v, lock, prune, stats, threads=1):
    """:func:`run_public_layout` on the contract's arrays: they are transposed into the
    layout (``scratch``: three sequence vectors) at entry and back at exit."""
    state_to_layout(regrets, strategy, avg, scratch, L.seq_contract)
    run_public_layout(n_iters, t0, alternating, avg_power, clipped, tree, T, L, scratch[0],
                      scratch[1], scratch[2], work, v, lock, prune, stats, threads)
    state_from_layout(scratch, regrets, strategy, avg, L.seq_contract)


class PublicFullWidthPass:
    """The exact pass over the public tree (a :class:`rcfr.forms.base.TreePass`)."""

    def __init__(self, tree: Form) -> None:
        self.tree = tree
        self.dense = False  # (True: the n0 x n1 reference evaluation)
        self.arrays = tree._full_arrays  # (no history terminals)
        S = tree.num_sequences
        self.work = FullWork(K.padded(S), np.zeros(S + 2), np.zeros(S))
        # per player: public terminals skipped for the opponent's reach, by regret (never
        # here: no regret-based pruning on this form), and swept
        self.stats = np.zeros((2, 3), dtype=np.int64)
        self._scratch = self._row_values = None
        self._lock_for = self._lock_layout = None

    def run(self, players, strategy, weight, avg, inst) -> int:
        extra = thread_args(always=self.tree.arrays.card_deal)
        (public_pass if extra else public_pass_serial)(
            players[0], players[-1] + 1, weight, self.arrays, self.tree.arrays, self.dense,
            strategy, avg, self.work._replace(inst=inst), *extra)
        return len(players) * self.tree.num_nodes

    def fuses(self, rule) -> bool:
        return True

    def lean_work(self) -> FullWork:
        """The plan as the values and the regrets too (:func:`run_public_compact`,
        alternating): one vector over the sequences where the pass keeps three (the other two
        are never written, so their zero pages take no memory)."""
        return FullWork(self.work.plan, self.work.plan, self.work.plan)

    def _thread_args(self) -> tuple:
        """:func:`run_public`'s threaded arguments: the thread count and the tree's levels (built
        on the first threaded call), or none on one thread."""
        extra = thread_args(always=self.tree.arrays.card_deal)
        return (*extra, self.tree._levels) if extra else ()

    def layout_fuses(self, state: LoopState) -> bool:
        """Whether :func:`run_fused_layout` runs the state's rule: CFR or CFR+ (cumulative
        or clipped regrets) with regret matching, on the exact terminal sweep, for a tree
        small enough (:func:`rcfr.forms.public.layout.uses_layout`)."""
        return (not self.dense and uses_layout(self.tree) and state.rule.kind in (PLAIN, CLIPPED)
                and state.link_kind == POLYNOMIAL and state.link_param == 2.0)

    def _layout_lock(self, lock):
        """``lock`` in the order of the tree's layout (kept for the lock last asked)."""
        if not lock.size:
            return NO_LOCK
        if self._lock_for is not lock:
            self._lock_for, self._lock_layout = lock, lock.in_order(self.tree._layout.seq_contract)
        return self._lock_layout

    def run_fused(self, state: LoopState, max_iters: int, node_budget: int) -> Counters:
        per = 2 * self.tree.num_nodes  # one full pass per player, counted in histories
        iterations = min(max_iters, max(1, -(-node_budget // per)))
        partial = state.prune != NONE  # (by default too: it pays here)
        if state.compact is not None:  # storage="int16"
            extra = self._thread_args()
            work = self.lean_work() if state.alternating else self.work
            run_public_compact(iterations, state.iteration, state.alternating,
                               state.avg_power, state.rule, state.link_kind, state.link_param,
                               self.arrays, self.tree.arrays, self.dense, state.compact,
                               state.key, state.strategy, work, state.lock, partial,
                               self.stats, *extra)
        elif self.layout_fuses(state):
            L = self.tree._layout
            dtype = state.strategy.dtype
            if self._scratch is None or self._scratch.dtype != dtype:
                self._scratch = np.zeros((3, self.tree.num_sequences), dtype=dtype)
                self._row_values = np.zeros(max(L.max_rows, 1))
            run_fused_layout(iterations, state.iteration, state.alternating, state.avg_power,
                             state.rule.kind == CLIPPED, self.arrays, self.tree.arrays, L,
                             state.regrets, state.strategy, state.avg_weights, self.work,
                             self._scratch, self._row_values, self._layout_lock(state.lock),
                             partial, self.stats,
                             *thread_args(always=self.tree.arrays.card_deal))
        else:
            run_public(iterations, state.iteration, state.alternating, state.avg_power,
                       state.rule, state.link_kind, state.link_param, self.arrays,
                       self.tree.arrays, self.dense, state.regrets, state.prediction,
                       state.values, state.strategy, state.avg_weights, self.work,
                       state.lock, partial, self.stats, *self._thread_args())
        return state.advanced(iterations, iterations * per)
