"""Seven-card hand strength, and the strength of every combo on a river board.

Strength is the best five-card strength of the seven cards, from :func:`.cards.rank_table`
(phevaluator's 7,462 classes turned round: 1 = 7-5-4-3-2 offsuit, 7,462 = a royal flush;
larger is stronger, equal is a tie). :func:`river_strength` gives it for every combo on a
five-card board, 0 for the combos the board blocks, with the live combos sorted weakest first
(the one sort a board's showdown sweeps need); it is cached per board.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

from ...core.errors import RcfrError
from .cards import BINOM, hand_index, rank_table
from .combos import COMBO_CARDS, NUM_COMBOS, as_board, live_combos


@njit(cache=True)
def _best5(cards7, table, binom):
    """Best five-card strength of seven distinct card ids (any order)."""
    c = np.sort(cards7)
    h = np.empty(5, dtype=np.int64)
    best = 0
    for i in range(7):
        for j in range(i + 1, 7):
            k = 0
            for m in range(7):
                if m != i and m != j:
                    h[k] = c[m]
                    k += 1
            v = table[hand_index(h[0], h[1], h[2], h[3], h[4], binom)]
            if v > best:
                best = v
    return best


@njit(cache=True)
def _strength7(hands, table, binom, out):
    for n in range(hands.shape[0]):
        out[n] = _best5(hands[n], table, binom)


@njit(cache=True)
def _board_strength(board, combo_cards, live, table, binom, out):
    cards7 = np.empty(7, dtype=np.int64)
    cards7[:5] = board
    for k in range(combo_cards.shape[0]):
        if live[k]:
            cards7[5] = combo_cards[k, 0]
            cards7[6] = combo_cards[k, 1]
            out[k] = _best5(cards7, table, binom)


def strength7(hands) -> np.ndarray:
    """Strengths (int64) of an ``(m, 7)`` array of card ids, seven distinct cards a row."""
    hands = np.asarray(hands, dtype=np.int64)
    if hands.ndim != 2 or hands.shape[1] != 7 or hands.size and (
            hands.min() < 0 or hands.max() > 51):
        raise RcfrError(f"want an (m, 7) array of card ids 0..51, not shape {hands.shape}")
    if any(len(set(row)) != 7 for row in hands.tolist()):
        raise RcfrError("a seven-card hand repeats a card")
    out = np.zeros(hands.shape[0], dtype=np.int64)
    _strength7(hands, rank_table(), BINOM, out)
    return out


@functools.lru_cache(maxsize=2048)
def _river(board: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    live = live_combos(board)
    strength = np.zeros(NUM_COMBOS, dtype=np.uint16)
    _board_strength(np.array(board, dtype=np.int64), COMBO_CARDS, live, rank_table(), BINOM,
                    strength)
    order = np.flatnonzero(live).astype(np.int32)
    order = order[np.argsort(strength[order], kind="stable")]
    strength.flags.writeable = False
    order.flags.writeable = False
    return strength, order


def river_strength(board) -> tuple[np.ndarray, np.ndarray]:
    """``(strength, order)`` on a five-card board (text or card ids): ``strength[k]``
    (uint16) of every combo, 0 where the board blocks it, and the live combos (int32) sorted
    by strength, weakest first, ties by combo index. Cached per board (2,048 boards, 7 kB
    each), read-only."""
    return _river(tuple(sorted(as_board(board, sizes=(5,)))))
