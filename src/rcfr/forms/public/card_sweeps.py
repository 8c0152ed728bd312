"""Terminal sweeps over the 1,326 hold'em combos with card removal, in linear time.

The counterfactual value of each of a player's combos at a river showdown or a fold, against
the opponent's reach vector over the same combos, where two combos that share a card never
meet. After one sort of the board's live combos by strength (:func:`river_strength`), a walk
with prefix sums gives each combo the opponent mass below, level with and above it; the mass
that shares one of its cards is removed by inclusion-exclusion: the per-card sums of both its
cards are subtracted and the combo itself, counted in both, added back once (Johanson et al.
2011, "Accelerating best response calculation in large extensive games", as vector-form poker
solvers do it). Each sweep is O(n + 52) for n live combos instead of the O(n^2) pairs.

The kernels take plain arrays (combos in :mod:`rcfr.games.holdem.combos` order); the two
functions below them read a board.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...core.errors import RcfrError
from ...games.holdem.combos import COMBO_CARDS, NUM_COMBOS, as_board, live_combos
from ...games.holdem.strength import river_strength


@njit(cache=True)
def card_fold(cards, reach, total, per_card, out):
    """``out[i]``: the ``reach`` (whose sum is ``total``) on the combos that share no card with
    combo ``i``, for every ``i``: the per-card sums of ``i``'s two cards taken away and ``i``
    itself, counted in both, added back (``per_card``: 52 scratch floats)."""
    per_card[:] = 0.0
    for j in range(reach.shape[0]):
        r = reach[j]
        if r != 0.0:
            per_card[cards[j, 0]] += r
            per_card[cards[j, 1]] += r
    for i in range(out.shape[0]):
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
    first. 0 outside ``order``."""
    out[:] = 0.0
    _walk(cards, order, strength, reach, win, tie, passed, group, out)
    _walk(cards, order[::-1], strength, reach, lose, 0.0, passed, group, out)


@njit(cache=True)
def card_showdown(cards, strength, order, reach, passed, group, out):
    """``out[i]``: the disjoint ``reach`` weaker than combo ``i`` less the disjoint reach
    stronger (a showdown's win minus loss per unit of stake); 0 outside ``order``."""
    showdown_kernel(cards, order, strength, reach, 1.0, 0.0, -1.0, passed, group, out)


def _reach(reach) -> np.ndarray:
    reach = np.ascontiguousarray(reach, dtype=np.float64)
    if reach.shape != (NUM_COMBOS,):
        raise RcfrError(f"a reach vector has {NUM_COMBOS} weights, not shape {reach.shape}")
    return reach


def showdown_values(board, reach, win: float, tie: float, lose: float) -> np.ndarray:
    """Counterfactual values of every combo at a showdown on the five-card ``board`` (text or
    card ids): ``win``, ``tie`` and ``lose`` are the player's payoffs, ``reach`` the
    opponent's weights over the combos (blocked ones are ignored); 0 for blocked combos."""
    strength, order = river_strength(board)
    out = np.empty(NUM_COMBOS)
    showdown_kernel(COMBO_CARDS, order, strength, _reach(reach), float(win), float(tie),
                    float(lose), np.empty(52), np.empty(52), out)
    return out


def fold_values(board, reach, amount: float) -> np.ndarray:
    """Counterfactual values of every combo at a fold on ``board`` (3 to 5 cards, text or card
    ids), ``amount`` being the player's payoff; 0 for blocked combos."""
    live = live_combos(as_board(board))
    reach = np.where(live, _reach(reach), 0.0)
    out = np.empty(NUM_COMBOS)
    card_fold(COMBO_CARDS, reach, reach.sum(), np.empty(52), out)
    return np.where(live, float(amount) * out, 0.0)
