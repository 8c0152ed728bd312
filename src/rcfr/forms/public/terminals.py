"""The public form's terminal sweep (Johanson et al. 2011, "Accelerating best response
calculation in large extensive games", sec. 4): per *public* terminal, the counterfactual values
of a player's private states against the opponent's reach vector, by the terminal's structured
rule (fold, showdown by sorted ranks, liar's dice counts, payoff matrix) in O(n0 + n1) where the
rule allows it.

Partial pruning (``prune``): a public terminal where the opponent's reach is zero for every
private state adds exact zeros, so the sweep skips it once its reach is gathered (the sum of
non-negative weights is 0 only when each is); the other terminals keep their order and
arithmetic, so the values are the unpruned sweep's bit for bit.  The sweeps return how many
terminals they skipped."""

from __future__ import annotations

import numpy as np
from numba import njit, prange, uint64

from ...games.public import COUNT_RULE, FOLD_RULE, MATRIX_RULE, SHOWDOWN_RULE
from .. import threads as _threads  # noqa: F401 (numba's threading layer, set before any call)
from .card_sweeps import card_terminals

# Terminal sweeps with less work than this (public terminals times private states) stay on one
# thread: a parallel region costs more than they do (Leduc, Bluff(1,1)).
PARALLEL_MIN_WORK = 50_000


def terminal_groups(term_seq_base: np.ndarray, num_private, min_work: int = PARALLEL_MIN_WORK):
    """Per player, the public terminals grouped by the sequence vector the player's values go
    to (``term_seq_base``; -1: the empty sequence): ``order[p]`` lists the terminals group by
    group, each group in increasing order, group ``g`` is ``order[p, start[p, g]:start[p, g +
    1]]``, and ``groups[p]`` counts them (0 where the sweep has less than ``min_work`` work: it
    stays on one thread).  Groups write disjoint elements, so they can run on any threads."""
    Z = term_seq_base.shape[1]
    index = np.int32 if Z < 2**31 else np.int64
    order = np.empty((2, Z), dtype=index)
    start = np.zeros((2, Z + 1), dtype=index)
    groups = np.zeros(2, dtype=np.int64)
    threaded = Z * (int(num_private[0]) + int(num_private[1])) >= min_work
    for p in range(2):
        key = term_seq_base[p]
        order[p] = np.argsort(key, kind="stable")
        first = np.flatnonzero(np.diff(key[order[p]]) != 0) + 1
        g = first.size + 1 if Z else 0
        start[p, 1:g] = first
        start[p, g] = Z
        groups[p] = g if threaded else 0
    return order, start, groups


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
def _card_pairs(player, rule, cards, strength, ro, v):
    """``v[x] = sum_y ro[y] u(x, y)`` over the ``y`` whose cards miss ``x``'s, ``u`` being 1
    at a fold and +1 / 0 / -1 by strength at a showdown: the n x n reference of the card
    sweeps."""
    for x in range(v.shape[0]):
        a, b = cards[x, 0], cards[x, 1]
        total = 0.0
        for y in range(ro.shape[0]):
            if cards[y, 0] == a or cards[y, 0] == b or cards[y, 1] == a or cards[y, 1] == b:
                continue
            if rule == FOLD_RULE:
                total += ro[y]
            elif strength[x] > strength[y]:
                total += ro[y]
            elif strength[x] < strength[y]:
                total -= ro[y]
        v[x] = total


@njit(cache=True)
def terminal_values(player, plan, T, dense, s_lo, s_hi, acc, threads=1, prune=False):
    """``acc[s]``: sum over the terminals whose last ``player`` sequence is ``s`` of the
    player's payoff times chance and opponent reach (``acc`` padded, as
    :func:`rcfr.core.kernels.terminal_values` fills it).  ``prune``: partial pruning; returns
    the terminals skipped."""
    return _terminal_values(player, plan, T, T.term_seq_base, T.term_stride, dense, s_lo, s_hi,
                            acc, threads, prune)


@njit(cache=True)
def _terminal_values(player, plan, T, tsb, tst, dense, s_lo, s_hi, acc, threads=1,
                     prune=False):
    """:func:`terminal_values` with the players' sequence at terminal ``z`` holding row ``k``
    at ``tsb[p, z] + k * tst[p, z]`` (the contract's, or :mod:`rcfr.forms.public.layout`'s:
    both map a terminal to the same sequences, so :func:`terminal_groups` serves both).  On
    several numba threads where the tree has groups (bit for bit the one-thread sums)."""
    ngroups = T.term_groups[player] if threads > 1 else 0
    return _sweep(player, plan, dense, s_lo, s_hi, T.num_private, T.exclusive, T.dense_deal,
           T.card_deal, T.cards, T.term_ctx,
           T.term_rule, T.term_value, T.term_miss, T.term_q, T.term_face, tsb, tst,
           T.term_row_ctx, T.weight, T.valid, T.row_of, T.full, T.rank,
           T.rank_order, T.rank_lt, T.rank_le, T.num_valid, T.joint, T.counts, T.max_count,
           T.matrix, T.pay, T.term_order[player], T.term_group[player], ngroups, threads, acc,
           prune)


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
def _one_die_range(player, plan, term_ctx, term_value, term_miss, term_q, term_face, tsb, tst,
                   w_opp, w_own, cnt_opp, cnt_own, nmax, n_opp, n_own, order, ordered, i_lo,
                   i_hi, acc, prune):
    """:func:`_sweep` for liar's dice with one die each and every private state its own row
    (Bluff(1,1)): the same arithmetic, without the other rules' branches, over the terminals
    ``order[i_lo:i_hi]`` (``ordered``; else ``i_lo`` to ``i_hi``).  ``held``: the opponent's
    reach with at least 0, 1 and 2 matching dice."""
    opp = 1 - player
    empty = uint64(acc.shape[0] - 2 + player)
    empty_reach = plan[plan.shape[0] - 2 + opp]
    sign = 1.0 if player == 0 else -1.0
    ro = np.empty(n_opp)
    base_opp, stride_opp = tsb[opp], tst[opp]
    base_own, stride_own = tsb[player], tst[player]
    skipped = 0
    for i in range(i_lo, i_hi):
        z = order[i] if ordered else i
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
        if prune and total == 0.0:  # the opponent cannot be here: exact zeros
            skipped += 1
            continue
        q = term_q[z]
        hit = sign * term_value[z]
        miss = sign * term_miss[z]
        ob = base_own[z]
        d, ost = (uint64(ob), uint64(stride_own[z])) if ob >= 0 else (empty, uint64(0))
        for x in range(n_own):
            need = q - cnt_own[fc + x]  # held: total (need <= 0), h (1), 0 (2 or more)
            hv = total if need <= 0 else (h if need == 1 else 0.0)
            acc[d + x * ost] += w_own[cw + x] * (hit * hv + miss * (total - hv))
    return skipped


@njit(cache=True, inline="always")
def _chunk_start(gstart, ngroups, c, nchunks):
    """The first group of chunk ``c`` of ``nchunks`` (chunks of about equal terminal counts;
    a group is never split)."""
    if c >= nchunks:
        return ngroups
    target = (gstart[ngroups] * c) // nchunks
    return np.searchsorted(gstart[:ngroups], target)


@njit(cache=True, parallel=True)
def _one_die_par(player, plan, term_ctx, term_value, term_miss, term_q, term_face, tsb, tst,
                 w_opp, w_own, cnt_opp, cnt_own, nmax, n_opp, n_own, order, gstart, ngroups,
                 threads, acc, prune):
    """:func:`_one_die_range` on ``threads`` threads: the terminals whose player's values go to
    the same sequences (a group of ``order``) run on one thread in increasing order, so every
    element of ``acc`` gets the same sums in the same order as on one thread.  A thread's
    groups are one range of ``order``."""
    nchunks = min(ngroups, threads)  # (numba gives each thread one chunk)
    skipped = 0
    for c in prange(nchunks):
        skipped += _one_die_range(
            player, plan, term_ctx, term_value, term_miss, term_q, term_face, tsb, tst, w_opp,
            w_own, cnt_opp, cnt_own, nmax, n_opp, n_own, order, True,
            gstart[_chunk_start(gstart, ngroups, c, nchunks)],
            gstart[_chunk_start(gstart, ngroups, c + 1, nchunks)], acc, prune)
    return skipped


@njit(cache=True, parallel=True)
def _card_par(player, plan, term_ctx, term_rule, term_value, tsb, tst, trc, w_opp, w_own,
              rows_opp, rows_own, nmax, strength, live_order, num_live, cards, order, gstart,
              ngroups, threads, acc, prune):
    """:func:`~rcfr.forms.public.card_sweeps.card_terminals` on ``threads`` threads (as
    :func:`_one_die_par`: each group of terminals that add into the same sequences on one
    thread, in increasing order)."""
    nchunks = min(ngroups, threads)  # (numba gives each thread one chunk)
    skipped = 0
    for c in prange(nchunks):
        skipped += card_terminals(
            player, plan, term_ctx, term_rule, term_value, tsb, tst, trc, w_opp, w_own,
            rows_opp, rows_own, nmax, strength, live_order, num_live, cards, order, True,
            gstart[_chunk_start(gstart, ngroups, c, nchunks)],
            gstart[_chunk_start(gstart, ngroups, c + 1, nchunks)], acc, prune)
    return skipped


@njit(cache=True)
def _sweep_range(player, plan, flags, terms, opp_rows, own_rows, tables, order, ordered, i_lo,
                 i_hi, acc, prune):
    """:func:`_sweep`'s loop over the terminals ``order[i_lo:i_hi]`` (``ordered``; else ``i_lo``
    to ``i_hi``), its arguments in tuples (unpacked once: a call takes 30 at most)."""
    dense, exclusive, dense_deal, card_deal, empty, sign, empty_reach, n_opp, n_own, nmax, top = (
        flags)
    term_ctx, term_rule, term_value, term_miss, term_q, term_face = terms
    base_opp, stride_opp, ctx_opp, w_opp, rows_opp, full_opp, cnt_opp, order_opp, nvalid_opp = (
        opp_rows)
    base_own, stride_own, ctx_own, w_own, rows_own, full_own, cnt_own, lt_own, le_own = own_rows
    joint, rank, counts, matrix, pay, cards = tables
    ro = np.empty(n_opp)
    v = np.zeros(n_own)
    dst = np.empty(n_own, dtype=np.uint64)
    prefix = np.empty(n_opp + 1)
    held = np.empty(top + 2)
    skipped = 0
    for i in range(i_lo, i_hi):
        z = order[i] if ordered else i
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
        if prune and total == 0.0:  # the opponent cannot be here: exact zeros
            skipped += 1
            continue
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
        if card_deal:  # hold'em combos, the n x n reference (card_terminals: the sweeps)
            _card_pairs(player, rule, cards, rank[0, c], ro, v)
            scale = sign * term_value[z] if rule == FOLD_RULE else term_value[z]
            for x in range(n_own):
                acc[dst[x]] += w_own[cw + x] * scale * v[x]
        elif dense or (dense_deal and (rule == SHOWDOWN_RULE or rule == COUNT_RULE)):
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
            for i in range(uint64(nvalid_opp[c])):
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
    return skipped


@njit(cache=True, parallel=True)
def _sweep_par(player, plan, flags, terms, opp_rows, own_rows, tables, order, gstart, ngroups,
               threads, acc, prune):
    """:func:`_sweep_range` on ``threads`` threads (as :func:`_one_die_par`: each group of
    terminals that add into the same sequences on one thread, in increasing order)."""
    nchunks = min(ngroups, threads)  # (numba gives each thread one chunk)
    skipped = 0
    for c in prange(nchunks):
        skipped += _sweep_range(
            player, plan, flags, terms, opp_rows, own_rows, tables, order, True,
            gstart[_chunk_start(gstart, ngroups, c, nchunks)],
            gstart[_chunk_start(gstart, ngroups, c + 1, nchunks)], acc, prune)
    return skipped


@njit(cache=True)
def _sweep(player, plan, dense, s_lo, s_hi, num_private, exclusive, dense_deal, card_deal, cards,
           term_ctx, term_rule, term_value, term_miss, term_q, term_face, tsb, tst, trc, weight,
           valid, row_of, full, rank, rank_order, rank_lt, rank_le, num_valid, joint, counts,
           max_count, matrix, pay, order, gstart, ngroups, threads, acc, prune):
    """:func:`terminal_values` on plain arrays (numba handles them far faster than fields
    of a large named tuple inside the loop).  Per terminal: one loop gathers the opponent's
    reach (chance weight times realization weight), one finds the player's sequences, one
    computes the player's values and adds them there.  The per-state tables are read as flat
    rows at unsigned offsets (no wraparound of negative indices in the loops).  With
    ``ngroups`` > 0 the terminals run on ``threads`` threads (:func:`_sweep_par`).  Returns
    the terminals skipped by ``prune`` (partial pruning)."""
    for s in range(s_lo, s_hi):
        acc[s] = 0.0
    empty = acc.shape[0] - 2 + player
    acc[empty] = 0.0
    opp = 1 - player
    n_opp = uint64(num_private[opp])
    n_own = uint64(num_private[player])
    nmax = uint64(weight.shape[2])
    top = max_count[opp]
    w_opp = (valid[opp] if (dense and not card_deal) or dense_deal else weight[opp]).ravel()
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
    if card_deal and not dense:
        strength = rank[0].ravel()
        if ngroups > 0:
            return _card_par(player, plan, term_ctx, term_rule, term_value, tsb, tst, trc,
                             w_opp, w_own, rows_opp, rows_own, nmax, strength, order_opp,
                             num_valid[opp], cards, order, gstart, ngroups, threads, acc, prune)
        return card_terminals(player, plan, term_ctx, term_rule, term_value, tsb, tst, trc,
                              w_opp, w_own, rows_opp, rows_own, nmax, strength, order_opp,
                              num_valid[opp], cards, order, False, 0, term_ctx.shape[0], acc,
                              prune)
    if not dense and not dense_deal and _one_die_everywhere(term_rule, max_count, full):
        if ngroups > 0:
            return _one_die_par(player, plan, term_ctx, term_value, term_miss, term_q,
                                term_face, tsb, tst, w_opp, w_own, cnt_opp, cnt_own, nmax,
                                n_opp, n_own, order, gstart, ngroups, threads, acc, prune)
        return _one_die_range(player, plan, term_ctx, term_value, term_miss, term_q, term_face,
                              tsb, tst, w_opp, w_own, cnt_opp, cnt_own, nmax, n_opp, n_own,
                              order, False, 0, term_ctx.shape[0], acc, prune)
    flags = (dense, exclusive, dense_deal, card_deal, uint64(empty), sign, empty_reach, n_opp,
             n_own, nmax, top)
    terms = (term_ctx, term_rule, term_value, term_miss, term_q, term_face)
    opp_rows = (base_opp, stride_opp, ctx_opp, w_opp, rows_opp, full_opp, cnt_opp, order_opp,
                num_valid[opp])
    own_rows = (base_own, stride_own, ctx_own, w_own, rows_own, full_own, cnt_own, lt_own, le_own)
    tables = (joint, rank, counts, matrix, pay, cards)
    if ngroups > 0:
        return _sweep_par(player, plan, flags, terms, opp_rows, own_rows, tables, order,
                          gstart, ngroups, threads, acc, prune)
    return _sweep_range(player, plan, flags, terms, opp_rows, own_rows, tables, order, False, 0,
                        term_ctx.shape[0], acc, prune)
