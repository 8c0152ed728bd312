"""The 169 hand classes and the made-hand and draw categories of the 1,326 combos on a board.

**Hand classes.** ``AA``, ``AKs``, ``AKo``, ...: the 13 pairs, 78 suited and 78 offsuit rank
pairs, numbered in the strategy viewer's 13 x 13 grid order, row by row: ranks ``A`` to ``2``
down and across, pairs on the diagonal, suited hands above it (row: the higher rank) and
offsuit ones below (column: the higher rank). ``AA`` is 0, ``AKs`` 1, ``AKo`` 13, ``22`` 168.
Each combo belongs to exactly one class (6 combos a pair, 4 a suited, 12 an offsuit class).

**Categories.** Each combo's category on a board of 3, 4 or 5 cards, the first that holds:

- a *made hand*: the category of the best five of the two hole cards and the board
  (:func:`rcfr.games.holdem.cards.hand_category`), where the hole cards improve on the board
  alone (the board's own category by its ranks: pair, two pair, trips, quads, full house,
  and on five cards also straight and flush): ``straight flush``, ``four of a kind``,
  ``full house``, ``flush``, ``straight``, ``set`` (three of a kind with a pocket pair),
  ``trips`` (three of a kind with one hole card), ``two pair``, ``pair``;
- on the flop and turn only, a *draw*: ``flush draw`` (four cards of one suit, at least one of
  them a hole card), ``open-ended straight draw`` (two or more ranks that would give a
  straight the board and that rank alone do not: open-enders and double gutshots),
  ``gutshot`` (exactly one such rank);
- ``overcards``: on the flop and turn, both hole cards above every board card;
- ``air``: everything else (on the river, every hand that does not improve on the board).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from .cards import BINOM, CATEGORIES, hand_category, rank_table
from .combos import COMBO_CARDS, NUM_COMBOS, as_board, live_combos

GRID_RANKS = "AKQJT98765432"
#: the category names, strongest first (the order the report lists them in)
HAND_CATEGORIES = ("straight flush", "four of a kind", "full house", "flush", "straight",
                   "set", "trips", "two pair", "pair", "flush draw",
                   "open-ended straight draw", "gutshot", "overcards", "air")


def _class_names() -> tuple[str, ...]:
    names = []
    for r in range(13):
        for c in range(13):
            hi, lo = GRID_RANKS[min(r, c)], GRID_RANKS[max(r, c)]
            names.append(hi + lo if r == c else hi + lo + ("s" if r < c else "o"))
    return tuple(names)


#: the 169 class names in the viewer's grid order (``CLASS_NAMES[13 * row + col]``)
CLASS_NAMES = _class_names()


def _combo_classes() -> np.ndarray:
    hi = 12 - COMBO_CARDS[:, 1] // 4  # grid index of the higher card's rank (card b > a)
    lo = 12 - COMBO_CARDS[:, 0] // 4
    suited = COMBO_CARDS[:, 0] % 4 == COMBO_CARDS[:, 1] % 4
    row = np.where(suited | (hi == lo), hi, lo)
    col = np.where(suited | (hi == lo), lo, hi)
    out = (13 * row + col).astype(np.int64)
    out.flags.writeable = False
    return out


#: ``COMBO_CLASS[k]``: the class of combo ``k`` (an index into :data:`CLASS_NAMES`)
COMBO_CLASS = _combo_classes()


def class_sums(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per class: the total of ``weights`` and the ``weights``-weighted mean of ``values``
    (NaN where a class has no weight); ``values`` may have a leading axis (e.g. actions)."""
    w = np.bincount(COMBO_CLASS, weights, minlength=169)
    return w, _means(COMBO_CLASS, 169, values, weights, w)


def _means(groups, n, values, weights, totals):
    values = np.asarray(values, dtype=np.float64)
    flat = values.reshape(-1, NUM_COMBOS)
    sums = np.stack([np.bincount(groups, np.where(weights > 0, v, 0.0) * weights, minlength=n)
                     for v in flat])
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(totals > 0, sums / np.where(totals > 0, totals, 1.0), np.nan)
    return means.reshape(values.shape[:-1] + (n,))


def _has_straight(mask: int) -> bool:
    """``mask``: bit ``r`` for each rank present (0 = deuce ... 12 = ace)."""
    m = (mask << 1) | ((mask >> 12) & 1)  # bit r + 1 for rank r; bit 0: the ace played low
    return any((m >> low) & 0x1F == 0x1F for low in range(10))


def _best_strength(cards: np.ndarray) -> np.ndarray:
    """Best five-card strength of each row of ``cards`` (``(m, n)``, ``n`` from 5 to 7)."""
    table = rank_table()
    best = np.zeros(cards.shape[0], dtype=np.int64)
    for pick in itertools.combinations(range(cards.shape[1]), 5):
        h = np.sort(cards[:, list(pick)], axis=1)
        v = table[sum(BINOM[i + 1, h[:, i]] for i in range(5))]  # (cards.hand_index)
        best = np.maximum(best, v)
    return best


def _board_category(board: tuple[int, ...]) -> str:
    """The board's own category: by its rank counts, and on five cards its hand category."""
    if len(board) == 5:
        return str(hand_category(_best_strength(np.array([board]))[0]))
    counts = sorted((list(c // 4 for c in board).count(r) for r in {c // 4 for c in board}),
                    reverse=True)
    if counts[0] == 4:
        return "four of a kind"
    if counts[0] == 3:
        return "three of a kind"
    if counts[0] == 2:
        return "two pair" if len(counts) > 1 and counts[1] == 2 else "pair"
    return "high card"


@functools.lru_cache(maxsize=256)
def _categories(board: tuple[int, ...]) -> np.ndarray:
    live = live_combos(board)
    cards = np.concatenate([COMBO_CARDS, np.tile(np.array(board), (NUM_COMBOS, 1))], axis=1)
    made = np.asarray(hand_category(_best_strength(cards)))
    plain = CATEGORIES.index(_board_category(board))
    board_ranks = [c // 4 for c in board]
    board_mask = functools.reduce(lambda m, r: m | 1 << r, board_ranks, 0)
    board_suits = [c % 4 for c in board]
    out = np.full(NUM_COMBOS, HAND_CATEGORIES.index("air"), dtype=np.int64)
    for k in np.flatnonzero(live).tolist():
        a, b = (int(c) for c in COMBO_CARDS[k])
        name = str(made[k])
        if CATEGORIES.index(name) < plain:  # the hole cards improve on the board
            if name == "three of a kind":
                name = "set" if a // 4 == b // 4 else "trips"
            out[k] = HAND_CATEGORIES.index(name)
            continue
        if len(board) == 5:
            continue
        suits = board_suits + [a % 4, b % 4]
        if any(suits.count(s) >= 4 for s in (a % 4, b % 4)):
            out[k] = HAND_CATEGORIES.index("flush draw")
            continue
        mask = board_mask | 1 << (a // 4) | 1 << (b // 4)
        outs = sum(1 for r in range(13) if _has_straight(mask | 1 << r)
                   and not _has_straight(board_mask | 1 << r))
        if outs:
            out[k] = HAND_CATEGORIES.index("open-ended straight draw" if outs >= 2
                                           else "gutshot")
        elif min(a // 4, b // 4) > max(board_ranks):
            out[k] = HAND_CATEGORIES.index("overcards")
    out.flags.writeable = False
    return out


def combo_categories(board) -> np.ndarray:
    """``cat[k]``: combo ``k``'s category on ``board`` (3 to 5 cards, text or card ids), an
    index into :data:`HAND_CATEGORIES` (module docstring); ``air`` for blocked combos.
    Cached per board."""
    return _categories(tuple(sorted(as_board(board))))


def category_sums(board, values: np.ndarray, weights: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Per category: the total of ``weights`` and the weighted mean of ``values``."""
    cat = combo_categories(board)
    n = len(HAND_CATEGORIES)
    w = np.bincount(cat, weights, minlength=n)
    return w, _means(cat, n, values, weights, w)
