"""Card removal between hold'em combos in linear time: the walks under every real-card sweep.

Two combos that share a card never meet. After one sort of the live combos by strength, a walk
with prefix sums gives each combo the mass below, level with and above it; the mass that
shares one of its cards is removed by inclusion-exclusion: the per-card sums of both its cards
are subtracted and the combo itself, counted in both, added back once (Johanson et al. 2011,
"Accelerating best response calculation in large extensive games", as vector-form poker
solvers do it). Each walk is O(n + 52) for n live combos instead of the O(n^2) pairs. The
kernels take plain arrays (combos in :mod:`.combos` order); the public form's terminal sweeps
(:mod:`rcfr.forms.public.card_sweeps`) and the spots' hand strengths (:mod:`.spot_buckets`)
run on them.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True)
def card_fold(cards, live, reach, total, per_card, out):
    """``out[i]``: the ``reach`` (whose sum over ``live`` is ``total``) on the combos of
    ``live`` that share no card with combo ``i``, for every ``i`` in ``live``: the per-card
    sums of ``i``'s two cards taken away and ``i`` itself, counted in both, added back
    (``per_card``: 52 scratch floats)."""
    per_card[:] = 0.0
    for t in range(live.shape[0]):
        j = live[t]
        r = reach[j]
        per_card[cards[j, 0]] += r
        per_card[cards[j, 1]] += r
    for t in range(live.shape[0]):
        i = live[t]
        out[i] = total - per_card[cards[i, 0]] - per_card[cards[i, 1]] + reach[i]


@njit(cache=True)
def _walk(cards, seq, strength, reach, ahead, level, passed, group, out):
    """One pass over the strength groups of ``seq``, adding to ``out[i]`` ``ahead`` times the
    disjoint mass in the groups before ``i``'s and, unless ``level`` is 0, ``level`` times the
    disjoint mass in its own group (``passed``, ``group``: 52 scratch floats each)."""
    n = seq.shape[0]
    passed[:] = 0.0  # per card: the mass of the groups walked so far
    group[:] = 0.0  # per card: the mass of the current group
    before = 0.0
    g = 0
    while g < n:
        e = g + 1
        while e < n and strength[seq[e]] == strength[seq[g]]:
            e += 1
        gsum = 0.0
        if level != 0.0:
            for t in range(g, e):
                j = seq[t]
                gsum += reach[j]
                group[cards[j, 0]] += reach[j]
                group[cards[j, 1]] += reach[j]
        for t in range(g, e):
            i = seq[t]
            a = cards[i, 0]
            b = cards[i, 1]
            v = ahead * (before - passed[a] - passed[b])
            if level != 0.0:
                v += level * (gsum - group[a] - group[b] + reach[i])
            out[i] += v
        for t in range(g, e):
            j = seq[t]
            a = cards[j, 0]
            b = cards[j, 1]
            before += reach[j]
            passed[a] += reach[j]
            passed[b] += reach[j]
            if level != 0.0:
                group[a] = 0.0
                group[b] = 0.0
        g = e


@njit(cache=True)
def showdown_kernel(cards, order, strength, reach, win, tie, lose, passed, group, out):
    """``out[i] = win * W + tie * T + lose * L`` for every ``i`` in ``order``, where W, T and
    L are the ``reach`` on the combos of ``order`` weaker than, as strong as and stronger than
    ``i`` that share no card with it; ``order`` lists combos sorted by ``strength``, weakest
    first; ``out`` is left alone outside ``order``."""
    for t in range(order.shape[0]):
        out[order[t]] = 0.0
    _walk(cards, order, strength, reach, win, tie, passed, group, out)
    _walk(cards, order[::-1], strength, reach, lose, 0.0, passed, group, out)


@njit(cache=True)
def card_showdown(cards, strength, order, reach, passed, group, out):
    """``out[i]``: the disjoint ``reach`` weaker than combo ``i`` less the disjoint reach
    stronger (a showdown's win minus loss per unit of stake), for ``i`` in ``order``."""
    showdown_kernel(cards, order, strength, reach, 1.0, 0.0, -1.0, passed, group, out)
