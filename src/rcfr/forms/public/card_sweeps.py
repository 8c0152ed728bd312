"""Terminal sweeps over the 1,326 hold'em combos with card removal, in linear time.

The counterfactual value of each of a player's combos at a river showdown or a fold, against
the opponent's reach vector over the same combos, where two combos that share a card never
meet: the walks of :mod:`rcfr.games.holdem.card_walks` over the board's live combos sorted by
strength (:func:`river_strength`), O(n + 52) for n live combos. :func:`card_terminals` runs
them over a public tree's terminals; the two functions below it read a board.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

from ...core.errors import RcfrError
from ...games.holdem.card_walks import card_fold, card_showdown, showdown_kernel
from ...games.holdem.combos import COMBO_CARDS, NUM_COMBOS, as_board, live_combos
from ...games.holdem.strength import river_strength
from ...games.public import FOLD_RULE


@njit(cache=True)
def card_terminals(player, plan, term_ctx, term_rule, term_value, tsb, tst, trc, w_opp, w_own,
                   rows_opp, rows_own, nmax, strength, live_order, num_live, cards, order,
                   ordered, i_lo, i_hi, acc, prune=False):
    """The public form's terminal sweep for hold'em combos (pairing ``"cards"``) over the
    terminals ``order[i_lo:i_hi]`` (``ordered``; else ``i_lo`` to ``i_hi``): per terminal, the
    opponent's reach on the context's live combos (``live_order[c]``: the combos either player
    may hold there, by strength; every other combo has weight 0), then :func:`card_fold` or
    :func:`card_showdown`, and the player's values added to its sequences, all in
    O(live + 52).  Arguments as :func:`rcfr.forms.public.terminals._sweep` unpacks them
    (flat per-context rows at unsigned offsets).  ``prune``: a terminal where the opponent's
    reach is zero on every live combo is skipped after the gather (its values are exact
    zeros); returns how many were."""
    opp = 1 - player
    empty = uint64(acc.shape[0] - 2 + player)
    empty_reach = plan[plan.shape[0] - 2 + opp]
    sign = 1.0 if player == 0 else -1.0
    ro = np.zeros(nmax)
    v = np.zeros(nmax)
    per_card = np.empty(52)
    group = np.empty(52)
    base_opp, stride_opp, ctx_opp = tsb[opp], tst[opp], trc[opp]
    base_own, stride_own, ctx_own = tsb[player], tst[player], trc[player]
    skipped = 0
    for i in range(i_lo, i_hi):
        z = order[i] if ordered else i
        c = term_ctx[z]
        cw = uint64(c) * nmax
        live = live_order[cw:cw + uint64(num_live[c])]
        total = 0.0
        base = base_opp[z]
        if base < 0:
            for t in range(live.shape[0]):
                x = live[t]
                ro[x] = w_opp[cw + x] * empty_reach
                total += ro[x]
        else:
            ub, stride = uint64(base), uint64(stride_opp[z])
            rr = uint64(ctx_opp[z]) * nmax
            for t in range(live.shape[0]):  # (a state the opponent cannot hold: weight 0)
                x = live[t]
                ro[x] = w_opp[cw + x] * plan[ub + uint64(max(rows_opp[rr + x], 0)) * stride]
                total += ro[x]
        if prune and total == 0.0:
            skipped += 1
            continue
        if term_rule[z] == FOLD_RULE:
            card_fold(cards, live, ro, total, per_card, v)
            scale = sign * term_value[z]
        else:
            card_showdown(cards, strength[cw:cw + nmax], live, ro, per_card, group, v)
            scale = term_value[z]
        ob = base_own[z]
        ost = uint64(stride_own[z])
        orr = uint64(ctx_own[z]) * nmax
        for t in range(live.shape[0]):
            x = live[t]
            w = w_own[cw + x]
            if w != 0.0:
                d = empty if ob < 0 else uint64(ob) + uint64(max(rows_own[orr + x], 0)) * ost
                acc[d] += w * scale * v[x]
    return skipped


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
    out = np.zeros(NUM_COMBOS)
    showdown_kernel(COMBO_CARDS, order, strength, _reach(reach), float(win), float(tie),
                    float(lose), np.empty(52), np.empty(52), out)
    return out


def fold_values(board, reach, amount: float) -> np.ndarray:
    """Counterfactual values of every combo at a fold on ``board`` (3 to 5 cards, text or card
    ids), ``amount`` being the player's payoff; 0 for blocked combos."""
    live = live_combos(as_board(board))
    reach = np.where(live, _reach(reach), 0.0)
    out = np.zeros(NUM_COMBOS)
    card_fold(COMBO_CARDS, np.flatnonzero(live), reach, reach.sum(), np.empty(52), out)
    return float(amount) * out
