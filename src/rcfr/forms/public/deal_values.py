"""Exact values of single deals on a hold'em spot's public tree: draw pairs of hands from the
deal and give, for each pair, player 0's expected payoff under a profile with every action
and every later board card enumerated, so that only the luck of the hands remains (the
"exact expected value per hand" of variance-reduced head-to-head play; cf. the control
variates of AIVAT, Burch et al. 2018, which this makes exact where the tree can be walked).

For the pair ``(x0, x1)`` (two combos that share no card) and a terminal ``z`` in chance
context ``c``, the probability of ``z`` is ``pi_0(z, x0) pi_1(z, x1)`` times the chance of
``c``'s board cards given the two hands, ``W_0[c, x0] W_1[c, x1] / (W_0[0, x0] W_1[0, x1])``
(the public tree's factored deal weights carry card removal and the ``1 / cards left`` of each
card dealt); the payoff is the fold value, or the stake signed by the two hands' ranks.
"""

from __future__ import annotations

import numpy as np

from ...core.errors import RcfrError
from ...games.holdem.combos import disjoint_mass
from ...games.public import FOLD_RULE, SHOWDOWN_RULE

CHUNK = 2048  # deals per vectorised block (memory: terminals x CHUNK floats)


def sample_deals(tree, n: int, rng: np.random.Generator) -> np.ndarray:
    """``[n, 2]``: ``n`` pairs of hands drawn independently from the spot's deal (each pair's
    probability proportional to ``w0[x0] w1[x1]``, the two sharing no card)."""
    A = tree.arrays
    w0, w1 = A.weight[0, 0], A.weight[1, 0]
    cards = A.cards
    out = np.empty((int(n), 2), dtype=np.int64)
    hold = np.zeros((w0.size, 52), dtype=np.bool_)  # hold[x, c]: combo x holds card c
    hold[np.arange(w0.size), cards[:, 0]] = True
    hold[np.arange(w0.size), cards[:, 1]] = True
    meets = disjoint_mass(w1, cards)
    p0 = w0 * meets
    if not p0.sum() > 0:
        raise RcfrError(f"the deal of {tree.game} has no pair of hands")
    x0 = rng.choice(w0.size, size=int(n), p=p0 / p0.sum())
    for i, x in enumerate(x0):
        w = np.where(hold[:, cards[x, 0]] | hold[:, cards[x, 1]], 0.0, w1)
        out[i] = x, rng.choice(w1.size, p=w / w.sum())
    return out


def deal_values(tree, plan0: np.ndarray, plan1: np.ndarray, deals: np.ndarray) -> np.ndarray:
    """Player 0's exact expected payoff of each deal ``(x0, x1)`` of ``deals``, player 0
    playing the padded realization plan ``plan0`` and player 1 ``plan1`` (module docstring)."""
    A = tree.arrays
    deals = np.asarray(deals, dtype=np.int64)
    S = tree.num_sequences
    z_ctx = A.term_ctx.astype(np.int64)
    rules = A.term_rule
    if np.any((rules != FOLD_RULE) & (rules != SHOWDOWN_RULE)):
        raise RcfrError(f"exact deal values need fold and showdown terminals, as {tree.game} "
                        f"lacks")
    out = np.empty(deals.shape[0])
    plans = (plan0, plan1)
    for lo in range(0, deals.shape[0], CHUNK):
        d = deals[lo:lo + CHUNK]
        reach = np.ones((z_ctx.size, d.shape[0]))
        for p in (0, 1):
            x = d[:, p]
            base = A.term_seq_base[p].astype(np.int64)[:, None]
            row = A.row_of[p][A.term_row_ctx[p].astype(np.int64)[:, None], x[None, :]]
            seq = np.where(base < 0, S + p, base + row * A.term_stride[p][:, None])
            seq = np.where((base >= 0) & (row < 0), -1, seq)
            r = np.where(seq >= 0, plans[p][np.maximum(seq, 0)], 0.0)
            chance = A.weight[p][z_ctx[:, None], x[None, :]] / A.weight[p, 0, x][None, :]
            reach *= r * chance
        pay = np.broadcast_to(A.term_value[:, None], reach.shape).copy()
        show = rules == SHOWDOWN_RULE
        if np.any(show):
            c = z_ctx[show][:, None]
            r0 = A.rank[0][c, d[None, :, 0]]
            r1 = A.rank[1][c, d[None, :, 1]]
            pay[show] *= np.sign(r0 - r1)
        out[lo:lo + d.shape[0]] = (reach * pay).sum(axis=0)
    return out
