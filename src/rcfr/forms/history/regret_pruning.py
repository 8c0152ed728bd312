"""Regret-based pruning in the history form's full-width pass (Brown & Sandholm 2015,
"Regret-based pruning in extensive-form games", NIPS), for CFR (cumulative regrets).

An action ``a`` of the updating player at information set ``I`` that it plays with
probability 0 and whose regret ``R(I, a)`` is negative cannot reach a positive regret for
``k = floor(-R / D)`` more iterations, ``D`` bounding one iteration's instantaneous regret
``v(I, a) - v(I)`` (:func:`regret_bounds`: the most ``a``'s subtree can pay against any
strategies, less the least ``I`` can).  For those ``k`` iterations (a *window*) the pass
skips the player's side of the subtree below ``a``: the terminals there, the backward sweep
over its information sets and the update of their regrets, whose strategies stay frozen.
``I``'s value needs nothing from below ``a`` (``a`` has probability 0), so every other regret
is CFR's; ``R(I, a)`` gets ``-v(I)`` of each skipped iteration kept apart (``pend``).

The catch-up when the window ends (Brown & Sandholm 2015, sec. 3): counterfactual values are
linear in the opponent's realization plan and the subtree's strategy did not move, so the
values the skipped iterations would have given are one sweep of the subtree against the sum
of the opponent's plans over the window (a running sum ``cum`` less its value at the
window's start, kept per terminal in ``snap``).  The subtree's regrets get those summed
regrets at once and ``R(I, a)`` its summed value plus ``pend``: the run is CFR with the
subtree's information sets updated once per window (its regret bound holds; the numbers are
not the unpruned run's).  A window also ends early when ``a`` would be played again (every
other action's regret fell to 0), and windows open and close only every :data:`GRID`
iterations so that the extra sweeps they cost are shared.

Only the updating player's own skipped work is counted here; the opponent's unreachable part
is partial pruning (:mod:`rcfr.forms.history.full_width`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...core import kernels as K
from ...core.links import apply_link

GRID = 8  # windows open and close at iterations that are multiples of GRID
MAX_WINDOW = 1 << 40  # an action whose subtree pays nothing waits this long at most


@njit(cache=True)
def regret_bounds(tree, out):
    """``out[s]``: a bound on one iteration's instantaneous regret of sequence ``s`` (its
    player's): the most its subtree can pay, every opponent weight 1 and the best action
    below, less the least its information set can (the worst action's least)."""
    S = tree.seq_bounds[2]
    hi = np.zeros(S + 2)
    lo = np.zeros(S + 2)
    own_all, coef = tree.term_seq, tree.term_coef
    for p in range(2):
        sign = 1.0 if p == 0 else -1.0
        own = own_all[p]
        for z in range(coef.shape[0]):
            c = sign * coef[z]
            if c > 0.0:
                hi[own[z]] += c
            else:
                lo[own[z]] += c
        for i in range(tree.bounds[p + 1] - 1, tree.bounds[p] - 1, -1):
            start = tree.seq_start[i]
            end = start + tree.num_actions[i]
            top = hi[start]
            low = lo[start]
            for s in range(start + 1, end):
                top = max(top, hi[s])
                low = min(low, lo[s])
            hi[tree.parent_seq[i]] += top
            lo[tree.parent_seq[i]] += low
            for s in range(start, end):
                out[s] = hi[s] - low


@njit(cache=True)
def marks(p, tree, roots, mark):
    """``mark[s] = 1`` where sequence ``s`` of player ``p`` or one above it has ``roots[s]``
    (top-down over ``p``'s information sets); 0 elsewhere (the empty sequences too)."""
    S = tree.seq_bounds[2]
    mark[S] = 0
    mark[S + 1] = 0
    for i in range(tree.bounds[p], tree.bounds[p + 1]):
        inside = mark[tree.parent_seq[i]]
        start = tree.seq_start[i]
        for s in range(start, start + tree.num_actions[i]):
            mark[s] = 1 if inside or roots[s] else 0


@njit(cache=True)
def pruned_sweep(player, plan, tree, acc, mark, stats):
    """The terminal sweep of :func:`rcfr.forms.history.full_width.pruned_terminal_values`
    without the terminals below a window of ``player`` (``mark``); ``stats[player]`` counts
    the terminals skipped for the opponent, skipped by regret, and swept."""
    for s in range(tree.seq_bounds[player], tree.seq_bounds[player + 1]):
        acc[s] = 0.0
    acc[acc.shape[0] - 2 + player] = 0.0
    own = tree.term_seq[player]
    opp = tree.term_seq[1 - player]
    coef = tree.term_coef
    sign = 1.0 if player == 0 else -1.0
    by_regret = 0
    by_reach = 0
    for z in range(coef.shape[0]):
        if mark[own[z]]:
            by_regret += 1
            continue
        w = plan[opp[z]]
        if w == 0.0:
            by_reach += 1
        else:
            acc[own[z]] += sign * coef[z] * w
    stats[player, 0] += by_reach
    stats[player, 1] += by_regret
    stats[player, 2] += coef.shape[0]


@njit(cache=True)
def pruned_regrets(player, strategy, tree, acc, inst, mark, rp):
    """The backward sweep of :func:`rcfr.core.kernels.counterfactual_regrets` without the
    information sets below a window (their instantaneous regrets 0: their regrets wait for
    the catch-up); a window's own sequence keeps its ``-v(I)`` in ``rp.pend``."""
    for i in range(tree.bounds[player + 1] - 1, tree.bounds[player] - 1, -1):
        start = tree.seq_start[i]
        end = start + tree.num_actions[i]
        if mark[tree.parent_seq[i]]:
            for s in range(start, end):
                inst[s] = 0.0
            continue
        K.regrets_at(i, strategy, tree.seq_start, tree.num_actions, tree.parent_seq, acc, inst)
        for s in range(start, end):
            if rp.until[s] > 0:
                rp.pend[s] += inst[s]
                inst[s] = 0.0


@njit(cache=True)
def add_plan(p, plan, tree, cum):
    """The running sum of player ``p``'s realization weights (what the opponent's pass read;
    its empty sequence's too)."""
    for s in range(tree.seq_bounds[p], tree.seq_bounds[p + 1]):
        cum[s] += plan[s]
    cum[tree.seq_bounds[2] + p] += plan[tree.seq_bounds[2] + p]


@njit(cache=True)
def window_marks(p, tree, until, mark):
    """:func:`marks` of the open windows of player ``p`` (``until > 0``)."""
    S = tree.seq_bounds[2]
    mark[S] = 0
    mark[S + 1] = 0
    for i in range(tree.bounds[p], tree.bounds[p + 1]):
        inside = mark[tree.parent_seq[i]]
        start = tree.seq_start[i]
        for s in range(start, start + tree.num_actions[i]):
            mark[s] = 1 if inside or until[s] > 0 else 0


@njit(cache=True)
def pruned_pass(p, strategy, tree, plan, acc, inst, rp, mark, stats):
    """Player ``p``'s full-width pass with its open windows skipped (and partial pruning):
    its instantaneous regrets into ``inst``, 0 below the windows."""
    window_marks(p, tree, rp.until, mark)
    add_plan(1 - p, plan, tree, rp.cum)
    pruned_sweep(p, plan, tree, acc, mark, stats)
    pruned_regrets(p, strategy, tree, acc, inst, mark, rp)


@njit(cache=True)
def catch_up(p, tree, em, strategy, regrets, rp, acc, link_kind, link_param):
    """Close the windows of player ``p`` marked in ``em`` (their subtrees marked below
    them): one sweep of the subtrees against the opponent's plans summed over each window,
    the summed regrets absorbed (cumulative regrets) and the information sets re-linked;
    each window's own regret gets its summed value and ``pend``."""
    S = tree.seq_bounds[2]
    for s in range(tree.seq_bounds[p], tree.seq_bounds[p + 1]):
        if em[s]:
            acc[s] = 0.0
    acc[S + p] = 0.0
    own = tree.term_seq[p]
    opp = tree.term_seq[1 - p]
    coef = tree.term_coef
    sign = 1.0 if p == 0 else -1.0
    snap = rp.snap[p]
    for z in range(coef.shape[0]):
        if em[own[z]]:
            acc[own[z]] += sign * coef[z] * (rp.cum[opp[z]] - snap[z])
    for i in range(tree.bounds[p + 1] - 1, tree.bounds[p] - 1, -1):
        start = tree.seq_start[i]
        end = start + tree.num_actions[i]
        if em[tree.parent_seq[i]]:  # inside: the frozen strategy's summed regrets
            v = K.back_up(strategy, acc, start, end, tree.parent_seq[i])
            for s in range(start, end):
                regrets[s] += acc[s] - v
            apply_link(link_kind, link_param, regrets, i, i + 1, tree.seq_start,
                       tree.num_actions, strategy)
            continue
        changed = False
        for s in range(start, end):
            if em[s]:
                regrets[s] += acc[s] + rp.pend[s]
                rp.pend[s] = 0.0
                rp.until[s] = 0
                changed = True
        if changed:
            apply_link(link_kind, link_param, regrets, i, i + 1, tree.seq_start,
                       tree.num_actions, strategy)


@njit(cache=True)
def update_windows(p, t, tree, strategy, regrets, delta, rp, acc, roots, mark, link_kind,
                   link_param):
    """After player ``p``'s update at iteration ``t``: close the windows that end (their last
    iteration passed, or their action is played again: at once, whatever ``t``), and at
    iterations on the :data:`GRID` open a window at each sequence that is played with
    probability 0, has a negative regret and lies in no window, for as many iterations as
    its regret bound allows (at least :data:`GRID`).  Returns whether any window is open."""
    lo, hi = tree.seq_bounds[p], tree.seq_bounds[p + 1]
    on_grid = t % GRID == 0
    ending = True
    while ending:  # (a catch-up re-links its information set: another window's action there
        # may be played again, and closes too)
        ending = False
        for s in range(lo, hi):
            e = rp.until[s] > 0 and ((on_grid and rp.until[s] <= t) or strategy[s] != 0.0)
            roots[s] = e
            ending |= e
        if ending:
            marks(p, tree, roots, mark)
            catch_up(p, tree, mark, strategy, regrets, rp, acc, link_kind, link_param)
    if not on_grid:
        return _any_open(rp, lo, hi)
    for s in range(lo, hi):  # the windows still open
        roots[s] = rp.until[s] > 0
    marks(p, tree, roots, mark)
    opened = False
    for s in range(lo, hi):
        k = _window(s, strategy, regrets, delta, mark)
        roots[s] = k > 0
        opened |= k > 0
    if not opened:
        return _any_open(rp, lo, hi)
    marks(p, tree, roots, mark)  # the new windows (the top ones) and their subtrees
    inner = False
    for s in range(lo, hi):  # a new window first closes the open ones below it
        roots[s] = rp.until[s] > 0 and mark[s] == 1
        inner |= roots[s]
    if inner:
        inner_mark = np.zeros_like(mark)
        marks(p, tree, roots, inner_mark)
        catch_up(p, tree, inner_mark, strategy, regrets, rp, acc, link_kind, link_param)
    for i in range(tree.bounds[p], tree.bounds[p + 1]):
        if mark[tree.parent_seq[i]]:
            continue
        start = tree.seq_start[i]
        for s in range(start, start + tree.num_actions[i]):
            if mark[s]:  # a new window's action (the catch-up below it moved no regret of
                # its information set)
                rp.until[s] = t + _length(s, regrets, delta)
                rp.pend[s] = 0.0
    own = tree.term_seq[p]
    opp = tree.term_seq[1 - p]
    snap = rp.snap[p]
    for z in range(own.shape[0]):
        if mark[own[z]]:
            snap[z] = rp.cum[opp[z]]
    return True


@njit(cache=True, inline="always")
def _length(s, regrets, delta):
    """How many iterations sequence ``s``'s regret stays negative by its bound, down to the
    :data:`GRID` (0 where it is not negative)."""
    if not regrets[s] < 0.0:
        return 0
    k = MAX_WINDOW if delta[s] <= 0.0 else min(float(MAX_WINDOW), -regrets[s] / delta[s])
    return (int(k) // GRID) * GRID


@njit(cache=True, inline="always")
def _window(s, strategy, regrets, delta, mark):
    """The window sequence ``s`` may open now (0: none): it lies in no open window, is played
    with probability 0 and its regret stays negative for at least :data:`GRID` iterations."""
    if mark[s] or strategy[s] != 0.0:
        return 0
    return _length(s, regrets, delta)


@njit(cache=True)
def _any_open(rp, lo, hi):
    for s in range(lo, hi):
        if rp.until[s] > 0:
            return True
    return False
