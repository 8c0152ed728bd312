"""Monte Carlo CFR on the public tree: sample the private states from the joint deal, then walk
the public nodes (ARCHITECTURE.md, "Two compiled forms").

Given a deal ``(x0, x1)``, the histories that follow it are the public tree itself: a decision
node ``u`` of player ``p`` lies in information set ``(u, x_p)``, a public chance outcome has
the probability ``W_child[x0, x1] / W_parent[x0, x1]`` (card removal), and a terminal pays its
rule's payoff for the pair.  A pass draws the deal on-policy and runs the history form's sampled
pass (:mod:`rcfr.solvers.mccfr`: CS, ES, OS or AS, Gibson et al. 2012) over the public
nodes, reading the deal's information set, chance probability or payoff at each node it visits,
so estimates, averaging and their unbiasedness are the history form's and a pass costs what it
visits (no sweep of the public tree, no write outside the touched information sets).  With the
tabular estimator every iteration runs in one numba kernel (:func:`run_public_sampled`; a
discounted rule is absorbed lazily, as in the history form, :class:`LazyDiscounting`); any
other estimator gets the same pass through the loop's Python step.  Nodes visited are counted
in histories: each public node the walk visits is one history of the sampled deal, plus the
chance nodes that dealt it.

:meth:`PublicSampledPass.deal_arrays` writes a deal's history-form node arrays (a sweep of the
public nodes): the reference the fused pass is tested against, bit for bit.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ...core.errors import RcfrError
from ...core.links import link_slice
from ...core.prefetch import prefetch
from ...core.rules import (
    CLIPPED,
    PLAIN,
    absorbed,
    absorbed_by,
    catch_up,
    discount,
    parse_rule,
    stamp,
    tick,
)
from ...games.public import FOLD_RULE, MATRIX_RULE, SHOWDOWN_RULE
from ..base import KIND_CHANCE, KIND_TERMINAL, Form
from ..history.sampled import SampledTree, SampleWork, sampled_pass
from ..loop_state import Counters, LoopState
from ..sampling import (
    AS,
    CS,
    ES,
    NO_LAZY,
    OS,
    LazyDiscounting,
    absorb_lazily,
    absorb_touched,
    add_average,
    as_probability,
    as_total,
    clear_merged,
    draw,
    explore,
    os_probability,
    sampled_regret,
    seed_state,
    start_pass,
    thread_states,
    uniform,
)
from ..threads import kernel_threads


class PublicSampled(NamedTuple):
    """The public tree's arrays that the fused sampled pass reads (per public node, per
    terminal, per chance context)."""

    kind: np.ndarray  # int8, per public node
    child_start: np.ndarray  # int32 [n + 1]
    ctx: np.ndarray  # int32, chance context
    # int64 [n, 8], one row per public node (one cache line where six arrays would take
    # six): first child, end of the children, chance context, first information set (decision
    # nodes) or terminal index (terminals), first sequence, kind
    record: np.ndarray
    row_of: np.ndarray  # int32 [2, C, nmax]: row of a private state in its context
    joint: np.ndarray  # float64 [C, n0, n1]
    deal_cum: np.ndarray  # float64 [n0 * n1]: running sums of the root context's weights
    deal_last: int  # the last deal of positive weight (where rounding runs past the end)
    # float64 [Z, 8], one row per terminal: rule, value (player 0's payoff; COUNT_RULE: if
    # the bid holds), payoff if the bid fails, quantity, face, chance context
    term: np.ndarray
    rank: np.ndarray  # int64 [2, C, nmax]
    counts: np.ndarray  # int64 [2, faces, nmax]
    matrix: np.ndarray  # float64 [C, n0, n1]: MATRIX_RULE's payoff per unit of stake
    seq_start: np.ndarray  # per information set (what absorb_touched reads)
    num_actions: np.ndarray


class PublicWork(NamedTuple):
    """Scratch arrays of the fused pass, indexed by position in the visited list (parents
    before children), so that a pass reads and writes them in order: the public node, its
    kind, the updating player's sampling probability ``q`` (CS: the opponent's reach) and own
    reach ``ri`` (CS), the sampled value, the information set and first sequence of a decision
    node, and ``link``: the position of the one sampled child, or where the child positions of
    a node whose ``width`` actions are all considered start in ``slots`` (-1: not
    sampled)."""

    node: np.ndarray
    kind: np.ndarray
    q: np.ndarray
    ri: np.ndarray
    val: np.ndarray
    info: np.ndarray
    seq: np.ndarray
    width: np.ndarray
    link: np.ndarray
    slots: np.ndarray
    touched: np.ndarray


# How far ahead in the visited list the expanding sweep prefetches: record rows at twice this
# distance, then the strategy and average-strategy lines of the nodes at this distance (the
# tables of Bluff(2,1) are 56 MB each, so almost every read of them is a miss; measured: 1.7x
# to 1.8x the histories per second of the pass without prefetching, flat from 4 to 12).
AHEAD = 6


@njit(cache=True)
def _draw_deal(tree, u):
    """:func:`draw` over the root context's joint weights, by bisection of their running sums
    (the same sums, so the same deal)."""
    cum = tree.deal_cum
    lo, hi = 0, cum.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if u < cum[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo if lo < cum.shape[0] else tree.deal_last


@njit(cache=True)
def _draw_chance(tree, h, x0, x1, u):
    """The child of public chance node ``h`` drawn with probabilities ``W_child[x0, x1] /
    W_h[x0, x1]`` (:func:`draw`'s rule, the same arithmetic as the deal's node arrays)."""
    joint, ctx = tree.joint, tree.ctx
    parent_w = joint[ctx[h], x0, x1]
    c0, c1 = tree.child_start[h], tree.child_start[h + 1]
    acc = 0.0
    last = c0
    for c in range(c0, c1):
        p = joint[ctx[c], x0, x1] / parent_w if parent_w > 0.0 else 0.0
        if p > 0.0:
            acc += p
            last = c
            if u < acc:
                return c
    return last


@njit(cache=True)
def _terminal_utility(tree, h, x0, x1):
    """Player 0's payoff at public terminal ``h`` for the deal ``(x0, x1)`` (its rule)."""
    z = tree.record[h, 3]
    rule = int(tree.term[z, 0])
    value = tree.term[z, 1]
    if rule == FOLD_RULE:
        return value
    if rule == SHOWDOWN_RULE:
        c = int(tree.term[z, 5])
        r0, r1 = tree.rank[0, c, x0], tree.rank[1, c, x1]
        return value if r0 > r1 else (-value if r0 < r1 else 0.0 * value)
    if rule == MATRIX_RULE:
        return value * tree.matrix[int(tree.term[z, 5]), x0, x1]
    f = int(tree.term[z, 4])
    if tree.counts[0, f, x0] + tree.counts[1, f, x1] >= tree.term[z, 3]:
        return value
    return tree.term[z, 2]


@njit(cache=True)
def _prefetch_tables(scheme, tree, h, player, x0, x1, strategy, avg):
    """Prefetch the first and last cache lines of the strategy (and, where the expanding
    sweep will read it, the average strategy) of the deal's information set at public node
    ``h``, whose record row was prefetched earlier (a hint: no effect on results)."""
    kd = tree.record[h, 5]
    if kd == 0 or kd == 1:
        na = tree.record[h, 1] - tree.record[h, 0]
        s0 = tree.record[h, 4] + tree.row_of[kd, tree.record[h, 2], x0 if kd == 0 else x1] * na
        prefetch(strategy, s0)
        prefetch(strategy, s0 + na - 1)
        if kd != player or scheme == AS:
            prefetch(avg, s0)
            prefetch(avg, s0 + na - 1)


@njit(cache=True)
def _visit(work, n, c, q, ri):
    """Append public node ``c`` to the visited list at position ``n``."""
    work.node[n] = c
    work.q[n] = q
    work.ri[n] = ri
    return n + 1


@njit(cache=True)
def _public_expand(scheme, player, weight, epsilon, beta, tau, x0, x1, tree, strategy, avg,
                   rng, work, regrets):
    """The breadth-first sweep of :func:`rcfr.forms.history.sampled.sampled_pass` over the deal's
    public nodes (``_expand_cs`` for CS, ``_expand_sampled`` for ES / OS / AS: the same
    samples, probabilities and average-strategy increments).  Prefetches what the next nodes
    and the backup will read (:data:`AHEAD`).  Returns the nodes visited."""
    record = tree.record
    node, q, ri, link, slots = work.node, work.q, work.ri, work.link, work.slots
    cs = scheme == CS
    node[0] = 0
    q[0] = 1.0
    ri[0] = 1.0
    n = 1
    m = 0  # slots used
    k = 0
    while k < n:
        if k + 2 * AHEAD < n and not cs:  # (CS walks the whole tree in order)
            prefetch(record, node[k + 2 * AHEAD] * record.shape[1])
        if k + AHEAD < n and not cs:
            _prefetch_tables(scheme, tree, node[k + AHEAD], player, x0, x1, strategy, avg)
        h = node[k]
        kd = record[h, 5]
        work.kind[k] = kd
        if kd == KIND_TERMINAL:
            if not cs:
                prefetch(tree.term, record[h, 3] * tree.term.shape[1])  # for the backup
            k += 1
            continue
        if kd == KIND_CHANCE:
            link[k] = n
            n = _visit(work, n, _draw_chance(tree, h, x0, x1, uniform(rng)), q[k], ri[k])
            k += 1
            continue
        c0 = record[h, 0]
        na = record[h, 1] - c0
        row = tree.row_of[kd, record[h, 2], x0 if kd == 0 else x1]
        s0 = record[h, 4] + row * na
        work.info[k] = record[h, 3] + row
        work.seq[k] = s0
        work.width[k] = na
        if kd == player and not cs:  # for the backup
            prefetch(regrets, s0)
            prefetch(regrets, s0 + na - 1)
        if kd != player and not cs:
            add_average(avg, strategy, s0, na, weight / q[k])
            link[k] = n
            n = _visit(work, n, c0 + draw(strategy, s0, s0 + na, uniform(rng)), q[k], 1.0)
            k += 1
            continue
        link[k] = m
        if cs:
            r = ri[k]
            for j in range(na):
                p = strategy[s0 + j]
                slots[m + j] = n
                if kd == player:
                    avg[s0 + j] += weight * r * p
                    n = _visit(work, n, c0 + j, q[k], r * p)
                else:
                    n = _visit(work, n, c0 + j, q[k] * p, r)
        elif scheme == ES:
            for j in range(na):
                slots[m + j] = n
                n = _visit(work, n, c0 + j, q[k], 1.0)
        elif scheme == OS:
            a = explore(strategy, s0, na, epsilon, uniform(rng))
            for j in range(na):
                slots[m + j] = -1
            slots[m + a] = n
            n = _visit(work, n, c0 + a, q[k] * os_probability(strategy, s0, na, a, epsilon), 1.0)
        else:
            total = as_total(avg, s0, s0 + na, beta)
            for j in range(na):
                rho = as_probability(total, avg[s0 + j], epsilon, beta, tau)
                if rho >= 1.0 or uniform(rng) < rho:
                    slots[m + j] = n
                    n = _visit(work, n, c0 + j, q[k] * rho, 1.0)
                else:
                    slots[m + j] = -1
        m += na
        k += 1
    return n


@njit(cache=True)
def _public_backup(player, cs, n, x0, x1, tree, strategy, inst, work, absorb, rule, link_kind,
                   link_param, regrets):
    """The backward sweep of :func:`rcfr.forms.history.sampled.sampled_pass` over the visited list
    (the same values and regrets), into ``inst``, or, with ``absorb`` (plain and clipped
    rules, the tabular estimator), straight into ``regrets`` with the link re-applied: a pass
    meets an information set ``(u, x_p)`` at most once (one deal, each public node once) and
    reads its strategy there last, so this is :func:`absorb_touched`'s arithmetic without
    the round trip through ``inst``.  Returns the information sets touched."""
    node, q, val, link, slots = work.node, work.q, work.val, work.link, work.slots
    clipped = rule.kind == CLIPPED
    sign = 1.0 if player == 0 else -1.0
    nt = 0
    for k in range(n - 1, -1, -1):
        kd = work.kind[k]
        if kd == KIND_TERMINAL:
            u = _terminal_utility(tree, node[k], x0, x1)
            val[k] = sign * u if cs else sign * u / q[k]
        elif kd == KIND_CHANCE or (kd != player and not cs):
            val[k] = val[link[k]]
        else:
            s0 = work.seq[k]
            na = work.width[k]
            m = link[k]
            v = 0.0
            for j in range(na):
                c = slots[m + j]
                v += strategy[s0 + j] * (val[c] if c >= 0 else 0.0)
            val[k] = v
            if kd == player:
                work.touched[nt] = work.info[k]
                nt += 1
                w = q[k] if cs else 1.0
                if absorb:
                    for j in range(na):
                        c = slots[m + j]
                        x = val[c] if c >= 0 else 0.0
                        regrets[s0 + j] = absorbed(regrets[s0 + j],
                                                   0.0 + sampled_regret(w, x, v), clipped)
                    link_slice(link_kind, link_param, regrets, s0, s0 + na, strategy)
                else:
                    for j in range(na):
                        c = slots[m + j]
                        inst[s0 + j] = 0.0
                        inst[s0 + j] += sampled_regret(w, val[c] if c >= 0 else 0.0, v)
    return nt


@njit(cache=True)
def public_sampled_pass(scheme, player, weight, epsilon, beta, tau, tree, strategy, avg, rng,
                        inst, work, absorb, rule, link_kind, link_param, regrets):
    """One sampled pass on the public tree: draw the deal ``(x0, x1)`` from the joint
    distribution, then :func:`rcfr.forms.history.sampled.sampled_pass`'s scheme over the public
    nodes with the deal's information sets, chance probabilities and payoffs read on the way.
    ``absorb``: see :func:`_public_backup`.  Returns ``(public nodes visited, information sets
    touched)``."""
    k = _draw_deal(tree, uniform(rng))
    n1 = tree.joint.shape[2]
    x0, x1 = k // n1, k % n1
    n = _public_expand(scheme, player, weight, epsilon, beta, tau, x0, x1, tree, strategy, avg,
                       rng, work, regrets)
    nt = _public_backup(player, scheme == CS, n, x0, x1, tree, strategy, inst, work, absorb,
                        rule, link_kind, link_param, regrets)
    return n, nt


@njit(cache=True)
def run_public_sampled(scheme, max_iters, node_budget, t0, avg_power, deal_depth, rule,
                       link_kind, link_param, epsilon, beta, tau, tree, bounds, seq_bounds,
                       regrets, prediction, values, strategy, avg, rng, inst, work, lazy,
                       lazily):
    """:func:`rcfr.forms.history.sampled.run_sampled` with the public pass: iterations entirely in
    numba, each pass counting ``deal_depth`` dealing chance nodes plus the public nodes it
    visits; with ``lazily`` a discounted rule updates ``lazy`` (:func:`absorb_lazily`).
    Returns ``(iterations, histories visited)``."""
    discounted = rule.kind != PLAIN and rule.kind != CLIPPED
    dense = discounted and not lazily
    it = 0
    nodes = 0
    while it < max_iters and nodes < node_budget:
        for p in range(2):
            t, weight = start_pass(t0, it, p, avg_power, dense, seq_bounds, inst)
            n, nt = public_sampled_pass(scheme, p, weight, epsilon, beta, tau, tree, strategy,
                                        avg, rng, inst, work, not discounted, rule, link_kind,
                                        link_param, regrets)
            nodes += n + deal_depth
            if lazily:
                absorb_lazily(p, t, nt, work.touched, inst, rule, link_kind, link_param,
                              tree.seq_start, tree.num_actions, lazy, strategy)
            elif dense:
                absorb_touched(p, t, nt, work.touched, inst, rule, link_kind, link_param, tree,
                               bounds, seq_bounds, regrets, prediction, values, strategy)
        it += 1
    return it, nodes


# -- parallel Monte Carlo CFR: a batch of passes per thread at a fixed strategy, each thread's
# deltas in compact per-thread accumulators, merged over ranges of information sets in thread
# order (so every sum has one order, whatever the number of threads that merge)
RANGES = 4  # merge ranges of information sets per thread (any count gives the same numbers)
MERGE_AHEAD = 16  # how many sets ahead the merge prefetches (a set's work is short)


class ThreadBuffers(NamedTuple):
    """What a parallel batch of sampled passes needs per thread ``j`` (row ``j``): its
    :class:`PublicWork` arrays (as 2-D arrays) and random state, and a compact accumulator:
    ``slot[j, info]`` is 1 + the slot of an information set the thread's passes changed (0:
    none), slot ``k`` holds set ``sinfo[j, k]`` whose deltas are ``vals[j, soff[j, k]:]``
    (its regrets summed over the passes, or its average-strategy increments; chance sampling:
    both, the regrets first), in first-touch order; ``order[j]`` lists the slots by merge
    range, range ``r``'s from ``rstart[j, r]``.  Then the merge's flags, per range lists
    (range ``r``'s at ``merged[r * chunk:]``, ``rcount[r]`` long) and the range width
    ``chunk``."""

    node: np.ndarray
    kind: np.ndarray
    q: np.ndarray
    ri: np.ndarray
    val: np.ndarray
    info: np.ndarray
    seq: np.ndarray
    width: np.ndarray
    link: np.ndarray
    slots: np.ndarray
    touched: np.ndarray
    states: np.ndarray  # uint64 [T, 1]
    slot: np.ndarray  # int32 [T, num_infosets]
    sinfo: np.ndarray  # int64 [T, slots]
    soff: np.ndarray  # int64 [T, slots]
    sseq: np.ndarray  # int64 [T, slots]: the set's first sequence
    sna: np.ndarray  # int64 [T, slots]: its actions
    order: np.ndarray  # int64 [T, slots]
    vals: np.ndarray  # float64 [T, values]
    rstart: np.ndarray  # int64 [T, ranges + 1]
    counts: np.ndarray  # int64 [T, 3]: public nodes visited, slots used, values used
    mark: np.ndarray  # bool [num_infosets]
    merged: np.ndarray  # int64 [num_infosets]
    mseq: np.ndarray  # int64 [num_infosets]: a merged set's first sequence
    mna: np.ndarray  # int64 [num_infosets]: its actions
    rcount: np.ndarray  # int64 [ranges]
    chunk: int  # information sets per merge range


class ThreadAcc(NamedTuple):
    """One thread's rows of :class:`ThreadBuffers`' accumulator."""

    slot: np.ndarray
    sinfo: np.ndarray
    soff: np.ndarray
    sseq: np.ndarray
    sna: np.ndarray
    vals: np.ndarray
    count: np.ndarray


@njit(cache=True, inline="always")
def _slot_of(acc, info, s0, na, width):
    """The first value of information set ``info`` (first sequence ``s0``, ``na`` actions) in
    a thread's accumulator, its ``width`` values zeroed on first touch."""
    k = acc.slot[info]
    if k > 0:
        return acc.soff[k - 1]
    k = acc.count[1]
    off = acc.count[2]
    acc.count[1] = k + 1
    acc.count[2] = off + width
    acc.slot[info] = k + 1
    acc.sinfo[k] = info
    acc.soff[k] = off
    acc.sseq[k] = s0
    acc.sna[k] = na
    vals = acc.vals
    for i in range(off, off + width):
        vals[i] = 0.0
    return off


@njit(cache=True)
def _prefetch_thread(scheme, tree, h, player, x0, x1, strategy, avg, slot):
    """Prefetch what the thread's sweep will read of the deal's information set at public
    node ``h`` (whose record row was prefetched earlier): its strategy's first and last
    lines, its accumulator slot, and AS's average strategy (hints: no effect on results)."""
    kd = tree.record[h, 5]
    if kd == 0 or kd == 1:
        na = tree.record[h, 1] - tree.record[h, 0]
        row = tree.row_of[kd, tree.record[h, 2], x0 if kd == 0 else x1]
        s0 = tree.record[h, 4] + row * na
        prefetch(strategy, s0)
        prefetch(strategy, s0 + na - 1)
        prefetch(slot, tree.record[h, 3] + row)
        if kd == player and scheme == AS:
            prefetch(avg, s0)
            prefetch(avg, s0 + na - 1)


@njit(cache=True)
def _expand_thread(scheme, player, weight, epsilon, beta, tau, x0, x1, tree, strategy, avg,
                   rng, work, acc):
    """:func:`_public_expand` for a thread of a batch: the same samples, probabilities and
    average-strategy increments, the increments added to the set's values in the thread's
    accumulator (chance sampling: after its regrets).  Returns the nodes visited."""
    record = tree.record
    node, q, ri, link, slots = work.node, work.q, work.ri, work.link, work.slots
    vals = acc.vals
    cs = scheme == CS
    node[0] = 0
    q[0] = 1.0
    ri[0] = 1.0
    n = 1
    m = 0  # slots used
    k = 0
    while k < n:
        if k + 2 * AHEAD < n and not cs:  # (CS walks the whole tree in order)
            prefetch(record, node[k + 2 * AHEAD] * record.shape[1])
        if k + AHEAD < n and not cs:
            _prefetch_thread(scheme, tree, node[k + AHEAD], player, x0, x1, strategy, avg,
                             acc.slot)
        h = node[k]
        kd = record[h, 5]
        work.kind[k] = kd
        if kd == KIND_TERMINAL:
            if not cs:
                prefetch(tree.term, record[h, 3] * tree.term.shape[1])  # for the backup
            k += 1
            continue
        if kd == KIND_CHANCE:
            link[k] = n
            n = _visit(work, n, _draw_chance(tree, h, x0, x1, uniform(rng)), q[k], ri[k])
            k += 1
            continue
        c0 = record[h, 0]
        na = record[h, 1] - c0
        row = tree.row_of[kd, record[h, 2], x0 if kd == 0 else x1]
        s0 = record[h, 4] + row * na
        info = record[h, 3] + row
        work.info[k] = info
        work.seq[k] = s0
        work.width[k] = na
        if kd != player and not cs:
            off = _slot_of(acc, info, s0, na, na)
            inc = weight / q[k]
            for j in range(na):
                vals[off + j] += inc * strategy[s0 + j]
            link[k] = n
            n = _visit(work, n, c0 + draw(strategy, s0, s0 + na, uniform(rng)), q[k], 1.0)
            k += 1
            continue
        link[k] = m
        if cs:
            r = ri[k]
            if kd == player:
                off = _slot_of(acc, info, s0, na, 2 * na) + na
            for j in range(na):
                p = strategy[s0 + j]
                slots[m + j] = n
                if kd == player:
                    vals[off + j] += weight * r * p
                    n = _visit(work, n, c0 + j, q[k], r * p)
                else:
                    n = _visit(work, n, c0 + j, q[k] * p, r)
        elif scheme == ES:
            for j in range(na):
                slots[m + j] = n
                n = _visit(work, n, c0 + j, q[k], 1.0)
        elif scheme == OS:
            a = explore(strategy, s0, na, epsilon, uniform(rng))
            for j in range(na):
                slots[m + j] = -1
            slots[m + a] = n
            n = _visit(work, n, c0 + a, q[k] * os_probability(strategy, s0, na, a, epsilon), 1.0)
        else:
            total = as_total(avg, s0, s0 + na, beta)
            for j in range(na):
                rho = as_probability(total, avg[s0 + j], epsilon, beta, tau)
                if rho >= 1.0 or uniform(rng) < rho:
                    slots[m + j] = n
                    n = _visit(work, n, c0 + j, q[k] * rho, 1.0)
                else:
                    slots[m + j] = -1
        m += na
        k += 1
    return n


@njit(cache=True)
def _backup_thread(player, cs, n, x0, x1, tree, strategy, work, acc):
    """:func:`_public_backup` for a thread of a batch: the same values and regrets, the
    regrets added to the set's values in the thread's accumulator."""
    node, q, val, link, slots = work.node, work.q, work.val, work.link, work.slots
    vals = acc.vals
    sign = 1.0 if player == 0 else -1.0
    for k in range(n - 1, -1, -1):
        kd = work.kind[k]
        if kd == KIND_TERMINAL:
            u = _terminal_utility(tree, node[k], x0, x1)
            val[k] = sign * u if cs else sign * u / q[k]
        elif kd == KIND_CHANCE or (kd != player and not cs):
            val[k] = val[link[k]]
        else:
            s0 = work.seq[k]
            na = work.width[k]
            m = link[k]
            v = 0.0
            for j in range(na):
                c = slots[m + j]
                v += strategy[s0 + j] * (val[c] if c >= 0 else 0.0)
            val[k] = v
            if kd == player:
                off = _slot_of(acc, work.info[k], s0, na, 2 * na if cs else na)
                w = q[k] if cs else 1.0
                for j in range(na):
                    c = slots[m + j]
                    vals[off + j] += sampled_regret(w, val[c] if c >= 0 else 0.0, v)


@njit(cache=True)
def _thread_passes(scheme, player, weight, epsilon, beta, tau, tree, strategy, avg, passes,
                   rng, work, acc, order, rstart, chunk):
    """One thread's ``passes`` passes of ``player`` at the fixed ``strategy`` and ``avg``
    (each draws its deal, then :func:`_expand_thread` and :func:`_backup_thread`), then its
    slots sorted by merge range (``order``, ``rstart``); ``count`` gets the public nodes
    visited, the slots and the values used."""
    count, sinfo = acc.count, acc.sinfo
    count[0], count[1], count[2] = 0, 0, 0
    n1 = tree.joint.shape[2]
    for _ in range(passes):
        d = _draw_deal(tree, uniform(rng))
        x0, x1 = d // n1, d % n1
        n = _expand_thread(scheme, player, weight, epsilon, beta, tau, x0, x1, tree, strategy,
                           avg, rng, work, acc)
        _backup_thread(player, scheme == CS, n, x0, x1, tree, strategy, work, acc)
        count[0] += n
    ns = count[1]
    rstart[:] = 0
    for k in range(ns):
        rstart[sinfo[k] // chunk + 1] += 1
    for r in range(rstart.shape[0] - 1):
        rstart[r + 1] += rstart[r]
    for k in range(ns):  # (a stable counting sort: first-touch order within a range)
        r = sinfo[k] // chunk
        order[rstart[r]] = k
        rstart[r] += 1
    for r in range(rstart.shape[0] - 1, 0, -1):
        rstart[r] = rstart[r - 1]
    rstart[0] = 0


@njit(cache=True)
def _run_thread(j, scheme, player, weight, epsilon, beta, tau, tree, strategy, avg, passes, b,
                states, slot, sinfo, soff, sseq, sna, vals, order, rstart, counts):
    """Thread ``j``'s part of a batch (:func:`_thread_passes` on its rows)."""
    work = PublicWork(b.node[j], b.kind[j], b.q[j], b.ri[j], b.val[j], b.info[j], b.seq[j],
                      b.width[j], b.link[j], b.slots[j], b.touched[j])
    _thread_passes(scheme, player, weight, epsilon, beta, tau, tree, strategy, avg, passes,
                   states[j], work, ThreadAcc(slot[j], sinfo[j], soff[j], sseq[j], sna[j],
                                              vals[j], counts[j]),
                   order[j], rstart[j], b.chunk)


@njit(cache=True, parallel=True)
def _batch(scheme, player, weight, epsilon, beta, tau, tree, strategy, avg, passes, b, states,
           slot, sinfo, soff, sseq, sna, vals, order, rstart, counts):
    """``passes`` passes of ``player`` per thread, all at the same ``strategy`` and ``avg``
    (read only), into each thread's accumulator (:func:`_run_thread`; the arrays it
    writes passed on their own: numba's parallel loop lost the writes to arrays read from the
    tuple inside it)."""
    for j in prange(states.shape[0]):
        _run_thread(j, scheme, player, weight, epsilon, beta, tau, tree, strategy, avg, passes,
                    b, states, slot, sinfo, soff, sseq, sna, vals, order, rstart, counts)


@njit(cache=True)
def _batch_one(scheme, player, weight, epsilon, beta, tau, tree, strategy, avg, passes, b,
               states, slot, sinfo, soff, sseq, sna, vals, order, rstart, counts):
    """:func:`_batch` without a parallel region (one thread: starting one on numba's
    workqueue layer costs about 0.1 ms of CPU here, a tenth of a batch of 64 passes)."""
    for j in range(states.shape[0]):
        _run_thread(j, scheme, player, weight, epsilon, beta, tau, tree, strategy, avg, passes,
                    b, states, slot, sinfo, soff, sseq, sna, vals, order, rstart, counts)


@njit(cache=True)
def _merge_range(r, player, cs, lazily, absorb, kind, pos, neg, link_kind, link_param,
                 bounds, inst, avg, regrets, strategy, lazy, slot, sinfo, soff, sseq, sna, vals,
                 order, rstart, mark, merged, mseq, mna, chunk):
    """Merge range ``r`` of the information sets: list the sets the threads changed there
    (threads ``0, 1, ...`` in turn, each set once), then per set sum the threads' values in
    thread order -- the player's regrets from ``0.0``, into ``inst`` or, with ``absorb``,
    straight into the table by the plain, clipped or (``lazily``) lazily discounted rule
    with the link re-applied (:func:`absorb_touched` / :func:`absorb_lazily`'s arithmetic per
    set); average-strategy increments added to ``avg`` one thread after the other -- and free
    its slots.  The sets whose regrets changed end up at ``merged[r * chunk:]``; returns how
    many."""
    lo = r * chunk
    T = slot.shape[0]
    nm = 0
    for j in range(T):
        for i in range(rstart[j, r], rstart[j, r + 1]):
            k = order[j, i]
            info = sinfo[j, k]
            if not mark[info]:
                mark[info] = True
                merged[lo + nm] = info
                mseq[lo + nm] = sseq[j, k]
                mna[lo + nm] = sna[j, k]
                nm += 1
    p_lo, p_hi = bounds[player], bounds[player + 1]
    offs = np.empty(T, dtype=np.int64)
    width = slot.shape[1]
    own_sets = 0
    for i in range(lo, lo + nm):
        if i + MERGE_AHEAD < lo + nm:
            s2, i2 = mseq[i + MERGE_AHEAD], merged[i + MERGE_AHEAD]
            for j in range(T):
                prefetch(slot, j * width + i2)
            if not p_lo <= i2 < p_hi:
                prefetch(avg, s2)
            elif not absorb:
                prefetch(inst, s2)
            elif lazily:
                prefetch(lazy.raw, s2)
                prefetch(strategy, s2)
            else:
                prefetch(regrets, s2)
                prefetch(strategy, s2)
            if cs:
                prefetch(avg, s2)
        info, s0, na = merged[i], mseq[i], mna[i]
        for j in range(T):
            k = slot[j, info]
            offs[j] = soff[j, k - 1] if k > 0 else -1
            slot[j, info] = 0
        mark[info] = False
        own = p_lo <= info < p_hi
        if own:
            if absorb and lazily:
                catch_up(lazy, player, info, s0, s0 + na, lazy.raw)
            for s in range(na):
                x = 0.0
                for j in range(T):
                    if offs[j] >= 0:
                        x += vals[j, offs[j] + s]
                if not absorb:
                    inst[s0 + s] = x
                elif lazily:
                    lazy.raw[s0 + s] = absorbed_by(kind, lazy.raw[s0 + s], x, pos, neg)
                else:
                    regrets[s0 + s] = absorbed_by(kind, regrets[s0 + s], x, pos, neg)
            if absorb and lazily:
                link_slice(link_kind, link_param, lazy.raw, s0, s0 + na, strategy)
            elif absorb:
                link_slice(link_kind, link_param, regrets, s0, s0 + na, strategy)
            merged[lo + own_sets] = info
            own_sets += 1
            for j in range(T):
                if offs[j] >= 0:
                    offs[j] += na
        if cs or not own:
            for s in range(na):
                v = avg[s0 + s]
                for j in range(T):
                    if offs[j] >= 0:
                        v += vals[j, offs[j] + s]
                avg[s0 + s] = v
    return own_sets


@njit(cache=True, parallel=True)
def _merge(player, cs, lazily, absorb, t, bounds, inst, avg, rule, link_kind, link_param,
           regrets, strategy, lazy, slot, sinfo, soff, sseq, sna, vals, order, rstart, mark,
           merged, mseq, mna, rcount, chunk):
    """The threads' accumulators merged range by range in parallel (:func:`_merge_range`:
    every sum in thread order, so the same on any number of merging threads)."""
    pos = discount(t, rule.alpha) if lazily else 1.0
    neg = discount(t, rule.beta) if lazily else 1.0
    for r in prange(rcount.shape[0]):
        rcount[r] = _merge_range(r, player, cs, lazily, absorb, rule.kind, pos, neg, link_kind,
                                 link_param, bounds, inst, avg, regrets, strategy, lazy, slot,
                                 sinfo, soff, sseq, sna, vals, order, rstart, mark, merged,
                                 mseq, mna, chunk)


@njit(cache=True)
def _merge_one(player, cs, lazily, absorb, t, bounds, inst, avg, rule, link_kind, link_param,
               regrets, strategy, lazy, slot, sinfo, soff, sseq, sna, vals, order, rstart, mark,
               merged, mseq, mna, rcount, chunk):
    """:func:`_merge` without a parallel region (one thread)."""
    pos = discount(t, rule.alpha) if lazily else 1.0
    neg = discount(t, rule.beta) if lazily else 1.0
    for r in range(rcount.shape[0]):
        rcount[r] = _merge_range(r, player, cs, lazily, absorb, rule.kind, pos, neg, link_kind,
                                 link_param, bounds, inst, avg, regrets, strategy, lazy, slot,
                                 sinfo, soff, sseq, sna, vals, order, rstart, mark, merged,
                                 mseq, mna, chunk)


@njit(cache=True)
def _stamp(player, lazy, merged, rcount, chunk):
    """The lazily absorbed sets are up to date with the player's products (after its tick;
    cheap: one thread)."""
    for r in range(rcount.shape[0]):
        for k in range(r * chunk, r * chunk + rcount[r]):
            stamp(lazy, player, merged[k])


@njit(cache=True)
def _gather(b):
    """The ranges' merged lists one after the other at the start of ``b.merged``; returns
    how many."""
    nt = 0
    for r in range(b.rcount.shape[0]):
        lo = r * b.chunk
        for k in range(lo, lo + b.rcount[r]):
            b.merged[nt] = b.merged[k]
            nt += 1
    return nt


@njit(cache=True)
def _batch_and_merge(scheme, p, t, weight, epsilon, beta, tau, tree, bounds, strategy, avg,
                     inst, rule, link_kind, link_param, regrets, lazy, lazily, absorb, passes,
                     b):
    """One batch of ``player`` ``p`` (:func:`_batch`) merged into ``inst`` and ``avg``
    (:func:`_merge`, absorbing where ``absorb``); returns the public nodes visited."""
    if b.states.shape[0] > 1:
        _batch(scheme, p, weight, epsilon, beta, tau, tree, strategy, avg, passes, b, b.states,
               b.slot, b.sinfo, b.soff, b.sseq, b.sna, b.vals, b.order, b.rstart, b.counts)
        _merge(p, scheme == CS, lazily, absorb, t, bounds, inst, avg, rule, link_kind,
               link_param, regrets, strategy, lazy, b.slot, b.sinfo, b.soff, b.sseq, b.sna,
               b.vals, b.order, b.rstart, b.mark, b.merged, b.mseq, b.mna, b.rcount, b.chunk)
    else:
        _batch_one(scheme, p, weight, epsilon, beta, tau, tree, strategy, avg, passes, b,
                   b.states, b.slot, b.sinfo, b.soff, b.sseq, b.sna, b.vals, b.order, b.rstart,
                   b.counts)
        _merge_one(p, scheme == CS, lazily, absorb, t, bounds, inst, avg, rule, link_kind,
                   link_param, regrets, strategy, lazy, b.slot, b.sinfo, b.soff, b.sseq, b.sna,
                   b.vals, b.order, b.rstart, b.mark, b.merged, b.mseq, b.mna, b.rcount,
                   b.chunk)
    return b.counts[:, 0].sum()


@njit(cache=True)
def sample_batch(scheme, player, epsilon, beta, tau, tree, bounds, strategy, avg, rng, rule,
                 lazy, passes, b, inst):
    """One parallel batch at a fixed ``strategy``: the threads' sampled regrets summed into
    ``inst`` (zero on entry), their average-strategy increments added to ``avg``.  Returns
    the public nodes visited."""
    thread_states(rng, b.states)
    nodes = _batch_and_merge(scheme, player, 0, 1.0, epsilon, beta, tau, tree, bounds,
                             strategy, avg, inst, rule, 0, 2.0, inst, lazy, False, False,
                             passes, b)
    return nodes


@njit(cache=True)
def run_public_threaded(scheme, max_iters, node_budget, t0, avg_power, deal_depth, rule,
                        link_kind, link_param, epsilon, beta, tau, tree, bounds, seq_bounds,
                        regrets, prediction, values, strategy, avg, rng, inst, b, passes, lazy,
                        lazily):
    """:func:`run_public_sampled` with a parallel batch per player and iteration: each of the
    ``T`` threads runs ``passes`` passes of the player against the strategy fixed at the
    batch's start (its own random stream, :func:`thread_states`) into its own accumulator;
    their sampled regrets are summed into ``inst`` and their average-strategy increments into
    ``avg`` in thread order (:func:`_merge`), and the sum is absorbed as the iteration's
    regrets (an unbiased estimate of ``T * passes`` times them; regret matching's strategies
    are those of the mean): per set within the merge for the plain, clipped and lazily
    discounted rules, over the player's table otherwise.  Nodes: every pass's, as in the
    serial kernel.  Returns ``(iterations, histories visited)``."""
    discounted = rule.kind != PLAIN and rule.kind != CLIPPED
    dense = discounted and not lazily
    T = b.states.shape[0]
    it = 0
    nodes = 0
    while it < max_iters and nodes < node_budget:
        for p in range(2):
            t, weight = start_pass(t0, it, p, avg_power, dense, seq_bounds, inst)
            thread_states(rng, b.states)
            nodes += _batch_and_merge(scheme, p, t, weight, epsilon, beta, tau, tree, bounds,
                                      strategy, avg, inst, rule, link_kind, link_param,
                                      regrets, lazy, lazily, not dense, passes, b)
            nodes += T * passes * deal_depth
            if lazily:
                tick(lazy, p, t, rule)
                _stamp(p, lazy, b.merged, b.rcount, b.chunk)
            elif dense:
                nt = _gather(b)
                absorb_touched(p, t, nt, b.merged, inst, rule, link_kind, link_param, tree,
                               bounds, seq_bounds, regrets, prediction, values, strategy)
                clear_merged(nt, b.merged, tree.seq_start, tree.num_actions, inst, b.mark)
        it += 1
    return it, nodes


_NO_RULE = parse_rule("cfr").params  # what the pass gets when it does not absorb


def public_arrays(tree: Form) -> PublicSampled:
    """The arrays :func:`public_sampled_pass` reads, from the compiled public tree."""
    T = tree.arrays
    index = tree.node_info_base.copy()
    index[tree.terminal_nodes] = np.arange(tree.terminal_nodes.size)
    term = np.zeros((tree.terminal_nodes.size, 8))
    for j, column in enumerate((T.term_rule, T.term_value, T.term_miss, T.term_q, T.term_face,
                                T.term_ctx)):
        term[:, j] = column
    deal = T.joint[0].ravel()
    cs = tree.node_child_start.astype(np.int64)
    record = np.zeros((tree.num_public_nodes, 8), dtype=np.int64)
    for j, column in enumerate((cs[:-1], cs[1:], tree.node_ctx, index, tree.node_seq_base,
                                tree.node_kind)):
        record[:, j] = column
    return PublicSampled(
        tree.node_kind, tree.node_child_start, tree.node_ctx, record, T.row_of, T.joint,
        np.cumsum(deal), int(np.flatnonzero(deal > 0)[-1]),
        term,
        T.rank, T.counts, T.matrix, tree.infoset_seq_start, tree.infoset_num_actions)


class PublicSampledPass(LazyDiscounting):
    """A sampled pass over the public tree (a :class:`rcfr.forms.base.TreePass`); one
    player per pass, the deal drawn from the pass's SplitMix64 state; fused with the tabular
    estimator (:func:`run_public_sampled`, or with :attr:`threads` or :attr:`passes` > 1 a
    parallel batch of ``threads * passes`` passes per player and iteration,
    :func:`run_public_threaded`)."""

    threads = 1  # threads of a batch (1 with passes 1: the serial kernel)
    passes = 1  # passes per thread, player and iteration
    _buffers: ThreadBuffers | None = None

    def __init__(self, tree: Form, scheme: int, epsilon: float, beta: float, tau: float,
                 seed: int | None) -> None:
        self.tree = tree
        self.scheme = scheme
        self.epsilon, self.beta, self.tau = epsilon, beta, tau
        self.rng = seed_state(seed)
        self.deal_depth = int(tree.structure.deal_depth)
        self.arrays = public_arrays(tree)
        n = tree.num_public_nodes
        index = [np.zeros(n, dtype=np.int64) for _ in range(7)]
        self.work = PublicWork(index[0], np.zeros(n, dtype=np.int8), np.ones(n), np.ones(n),
                               np.zeros(n), *index[1:])
        S = tree.num_sequences
        self.bounds = np.array([0, tree.num_infosets_per_player[0], tree.num_infosets],
                               dtype=np.int64)
        self.seq_bounds = np.array([0, tree.num_sequences_per_player[0], S], dtype=np.int64)

    def set_threads(self, threads: int, passes: int = 1) -> None:
        """Run ``passes`` passes per thread on ``threads`` threads per player and iteration
        (``1, 1``: the serial kernel, bit for bit as before); the numbers depend on the two
        counts, not on the cores."""
        self.threads, self.passes = int(threads), int(passes)
        self._buffers = None

    def buffers(self) -> ThreadBuffers:
        """The per-thread buffers (allocated on first use): the pass's scratch, a slot per
        information set (int32) and the accumulator, reserved for the most a batch can touch
        (``passes`` times the public decision nodes and their actions, at most the tables;
        chance sampling twice the values) but written only as far as the batch touches."""
        T = self.threads
        if self._buffers is None or self._buffers.states.shape[0] != T:
            t = self.tree
            n, S, info = t.num_public_nodes, t.num_sequences, t.num_infosets
            decision = t.node_kind < 2
            edges = int(np.diff(t.node_child_start)[decision].sum())
            slots = min(self.passes * int(decision.sum()), info)
            R = RANGES * T
            width = min(self.passes * edges, S) * (2 if self.scheme == CS else 1)
            ints = [np.zeros((T, n), dtype=np.int64) for _ in range(7)]
            self._buffers = ThreadBuffers(
                ints[0], np.zeros((T, n), dtype=np.int8), np.ones((T, n)), np.ones((T, n)),
                np.zeros((T, n)), *ints[1:], np.zeros((T, 1), dtype=np.uint64),
                np.zeros((T, info), dtype=np.int32),
                *(np.zeros((T, slots), dtype=np.int64) for _ in range(5)),
                np.zeros((T, width)), np.zeros((T, R + 1), dtype=np.int64),
                np.zeros((T, 3), dtype=np.int64), np.zeros(info, dtype=np.bool_),
                *(np.zeros(info, dtype=np.int64) for _ in range(3)),
                np.zeros(R, dtype=np.int64), -(-info // R))
        return self._buffers

    def run(self, players, strategy, weight, avg, inst) -> int:
        (player,) = players
        inst[:] = 0.0
        n, _ = public_sampled_pass(self.scheme, player, weight, self.epsilon, self.beta,
                                   self.tau, self.arrays, strategy, avg, self.rng, inst,
                                   self.work, False, _NO_RULE, 0, 2.0, inst)
        return int(n) + self.deal_depth

    def fuses(self, rule) -> bool:
        return True

    def run_fused(self, state: LoopState, max_iters: int, node_budget: int) -> Counters:
        if self.threads > 1 or self.passes > 1:
            state.inst[:] = 0.0
            with kernel_threads(self.threads):
                its, nodes = run_public_threaded(
                    self.scheme, max_iters, node_budget, state.iteration, state.avg_power,
                    self.deal_depth, state.rule, state.link_kind, state.link_param,
                    self.epsilon, self.beta, self.tau, self.arrays, self.bounds,
                    self.seq_bounds, state.regrets, state.prediction, state.values,
                    state.strategy, state.avg_weights, state.rng, state.inst, self.buffers(),
                    self.passes, state.lazy, state.lazily)
        else:
            its, nodes = run_public_sampled(
                self.scheme, max_iters, node_budget, state.iteration, state.avg_power,
                self.deal_depth, state.rule, state.link_kind, state.link_param, self.epsilon,
                self.beta, self.tau, self.arrays, self.bounds, self.seq_bounds, state.regrets,
                state.prediction, state.values, state.strategy, state.avg_weights, state.rng,
                state.inst, self.work, state.lazy, state.lazily)
        if state.lazily:
            self.show_true_regrets(state.lazy, state.regrets)
        return state.advanced(its, nodes)

    # -- the reference: the deal's history-form node arrays --------------------------------
    def deal_arrays(self, x0: int, x1: int) -> SampledTree:
        """The history form's node arrays of the histories that follow the deal ``(x0, x1)``
        (a sweep of the public nodes): :func:`rcfr.forms.history.sampled.sampled_pass` over them
        is the pass that :func:`public_sampled_pass` computes without them."""
        t, T = self.tree, self.tree.arrays
        n = t.num_public_nodes
        kind, ctx, parent = t.node_kind, t.node_ctx, t.node_parent
        infoset = np.full(n, -1, dtype=np.int32)
        for p, x in ((0, x0), (1, x1)):
            u = np.flatnonzero(kind == p)
            infoset[u] = t.node_info_base[u] + T.row_of[p, ctx[u], x]
        prob = np.ones(n)
        v = np.flatnonzero((parent >= 0) & (kind[np.maximum(parent, 0)] == KIND_CHANCE))
        if v.size:
            parent_w = T.joint[ctx[parent[v]], x0, x1]
            prob[v] = np.divide(T.joint[ctx[v], x0, x1], parent_w, out=np.zeros(v.size),
                                where=parent_w > 0)
        z = t.terminal_nodes
        c = T.term_ctx
        rule, value = T.term_rule, T.term_value
        showdown = value * np.sign(T.rank[0, c, x0] - T.rank[1, c, x1])
        held = T.counts[0, T.term_face, x0] + T.counts[1, T.term_face, x1] >= T.term_q
        util = np.zeros(n)
        matrix = value * T.matrix[c, x0, x1] if np.any(rule == MATRIX_RULE) else value
        util[z] = np.where(rule == FOLD_RULE, value,
                           np.where(rule == SHOWDOWN_RULE, showdown,
                                    np.where(rule == MATRIX_RULE, matrix,
                                             np.where(held, value, T.term_miss))))
        return SampledTree(kind, t.node_child_start, infoset, prob, t.infoset_seq_start,
                           t.infoset_num_actions, util)

    def sample_regrets(self, player: int, strategy: np.ndarray, avg: np.ndarray, samples: int,
                       rng: np.ndarray | None = None) -> np.ndarray:
        """``(samples, num_sequences)`` sampled regrets of ``player`` at the fixed ``strategy``,
        one row per pass, drawn from ``rng`` (default: a copy of this pass's generator, which
        is left as it was); the average-strategy increments go to a copy of ``avg``."""
        own = self.rng
        self.rng = own.copy() if rng is None else rng
        avg = avg.copy()
        rows = np.zeros((samples, self.tree.num_sequences))
        try:
            for k in range(samples):
                if self.threads > 1 or self.passes > 1:  # a batch a row: its passes' mean
                    with kernel_threads(self.threads):
                        sample_batch(self.scheme, player, self.epsilon, self.beta, self.tau,
                                     self.arrays, self.bounds, strategy, avg, self.rng,
                                     _NO_RULE, NO_LAZY, self.passes, self.buffers(), rows[k])
                    rows[k] /= self.threads * self.passes
                    continue
                self.run((player,), strategy, 1.0, avg, rows[k])
        finally:
            if rng is None:
                self.rng = own
        return rows

    def visit_counts(self, player: int, strategy: np.ndarray, avg: np.ndarray,
                     samples: int) -> np.ndarray:
        """Visit counts are per history, which the public form does not keep."""
        raise RcfrError("visit counts are per history; compile the game's history form "
                        "(form='history')")

    def reference_run(self, player: int, strategy, weight, avg, inst) -> int:
        """:meth:`run` through the deal's node arrays and the history form's pass (slow: a
        sweep of the public nodes per pass; for tests)."""
        inst[:] = 0.0
        deal = self.tree.arrays.joint[0].ravel()
        k = int(draw(deal, 0, deal.size, uniform(self.rng)))
        arrays = self.deal_arrays(*divmod(k, self.arrays.joint.shape[2]))
        n = self.tree.num_public_nodes
        work = SampleWork(np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                          np.ones(n), np.ones(n), np.zeros(n),
                          np.zeros(self.tree.num_infosets, dtype=np.int64),
                          np.zeros(self.tree.num_infosets, dtype=np.int64))
        visited, _ = sampled_pass(self.scheme, player, weight, self.epsilon, self.beta,
                                  self.tau, arrays, strategy, avg, self.rng, inst, work, 1)
        return int(visited) + self.deal_depth
