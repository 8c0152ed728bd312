"""Cards, (reduced) decks and the five-card hand-rank table.

A card is ``rank * 4 + suit`` with ranks ``0..12`` for ``2..A`` and suits ``0..3`` for
``c d h s`` -- the numbering of the evaluator package ``phevaluator`` (Henry Lee's perfect-hash
evaluator), which ranks hands. phevaluator is the core dependency because it ships compiled
wheels for CPython 3.11 with no dependencies of its own (Apache-2.0), takes these integer card
ids directly and returns the standard 7,462 hand classes (Cactus Kev's), so a class number alone
gives the hand category. A ``Deck(ranks, suits)`` keeps the ``ranks`` highest ranks and the
first ``suits`` suits (e.g. 6 x 3: nines to aces in three suits); hands are ranked as in the
full game (a flush beats a straight whatever the deck).

The numba kernels need the strength of every five-card hand: :func:`rank_table` holds it for all
C(52, 5) = 2,598,960 hands, indexed by the colexicographic rank of the sorted card ids
(:func:`hand_index`), strength ``7463 - class`` so that larger is stronger (1: 7-5-4-3-2
offsuit, 7462: royal flush). It is filled by a kernel from phevaluator's values on one hand of
each rank pattern (1,287 flush rank sets and 6,175 non-flush multisets of ranks) and cached on
disk (:mod:`rcfr.games.holdem.cache`).
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from ...core.errors import RcfrError
from .cache import cached_arrays

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
NUM_HANDS5 = 2_598_960
NUM_CLASSES = 7462

# phevaluator's classes (1 = royal flush ... 7462 = 7-5-4-3-2): the last class of each category
CATEGORIES = ("straight flush", "four of a kind", "full house", "flush", "straight",
              "three of a kind", "two pair", "pair", "high card")
_CATEGORY_LAST_CLASS = np.array([10, 166, 322, 1599, 1609, 2467, 3325, 6185, 7462])

# BINOM[k, x] = C(x, k) for k <= 5, x <= 52
BINOM = np.array([[math.comb(x, k) for x in range(53)] for k in range(6)], dtype=np.int64)


def card_from_str(text: str) -> int:
    """``"As"`` -> 51; raises :class:`RcfrError` on anything else."""
    if len(text) != 2 or text[0].upper() not in RANK_CHARS or text[1].lower() not in SUIT_CHARS:
        raise RcfrError(f"not a card: {text!r} (write rank then suit, e.g. 'As', 'Td', '7c')")
    return RANK_CHARS.index(text[0].upper()) * 4 + SUIT_CHARS.index(text[1].lower())


def card_str(card: int) -> str:
    return RANK_CHARS[card // 4] + SUIT_CHARS[card % 4]


def cards_from_str(text: str) -> list[int]:
    """``"AsKd"`` or ``"As Kd"`` -> ``[51, 45]``."""
    text = text.replace(" ", "")
    if len(text) % 2:
        raise RcfrError(f"not a list of cards: {text!r}")
    return [card_from_str(text[i:i + 2]) for i in range(0, len(text), 2)]


@dataclass(frozen=True)
class Deck:
    """The ``ranks`` highest ranks of the first ``suits`` suits; ``cards`` are their global ids
    in increasing order (a card's position there is its local id)."""

    ranks: int = 13
    suits: int = 4

    def __post_init__(self) -> None:
        if not (isinstance(self.ranks, int | np.integer) and 2 <= self.ranks <= 13):
            raise RcfrError(f"ranks must be an integer from 2 to 13, not {self.ranks!r}")
        if not (isinstance(self.suits, int | np.integer) and 1 <= self.suits <= 4):
            raise RcfrError(f"suits must be an integer from 1 to 4, not {self.suits!r}")
        if self.ranks * self.suits < 7:
            raise RcfrError(f"a {self.ranks} x {self.suits} deck has {self.ranks * self.suits} "
                            f"cards; a deal needs 7 (two hands and a flop)")

    @property
    def size(self) -> int:
        return self.ranks * self.suits

    @functools.cached_property
    def cards(self) -> np.ndarray:
        lo = 13 - self.ranks
        return np.array([r * 4 + s for r in range(lo, 13) for s in range(self.suits)],
                        dtype=np.int64)

    @functools.cached_property
    def holes(self) -> np.ndarray:
        """All two-card hands as local ids ``(a, b)``, ``a < b``, in lexicographic order."""
        return np.array(list(itertools.combinations(range(self.size), 2)), dtype=np.int64)

    def hole_index(self, cards: str | list[int]) -> int:
        """Index in :attr:`holes` of a two-card hand given as text (``"AsAd"``) or global ids."""
        ids = cards_from_str(cards) if isinstance(cards, str) else [int(c) for c in cards]
        local = {int(g): i for i, g in enumerate(self.cards)}
        if len(ids) != 2 or len(set(ids)) != 2 or any(c not in local for c in ids):
            raise RcfrError(f"{cards!r} is not two distinct cards of the {self} deck")
        a, b = sorted(local[c] for c in ids)
        n = self.size
        return a * n - a * (a + 1) // 2 + (b - a - 1)

    def __str__(self) -> str:
        return f"{self.ranks}x{self.suits}"


@njit(cache=True)
def hand_index(c0, c1, c2, c3, c4, binom):
    """Colexicographic index of five distinct card ids given in increasing order."""
    return binom[1, c0] + binom[2, c1] + binom[3, c2] + binom[4, c3] + binom[5, c4]


@njit(cache=True)
def _fill_table(flush_lut, plain_lut, binom, table):
    for c4 in range(4, 52):
        for c3 in range(3, c4):
            for c2 in range(2, c3):
                for c1 in range(1, c2):
                    for c0 in range(0, c1):
                        s = c0 & 3
                        if (c1 & 3) == s and (c2 & 3) == s and (c3 & 3) == s and (c4 & 3) == s:
                            mask = ((1 << (c0 >> 2)) | (1 << (c1 >> 2)) | (1 << (c2 >> 2))
                                    | (1 << (c3 >> 2)) | (1 << (c4 >> 2)))
                            v = flush_lut[mask]
                        else:
                            key = ((((c4 >> 2) * 13 + (c3 >> 2)) * 13 + (c2 >> 2)) * 13
                                   + (c1 >> 2)) * 13 + (c0 >> 2)
                            v = plain_lut[key]
                        table[hand_index(c0, c1, c2, c3, c4, binom)] = v


def _build_rank_table() -> dict[str, np.ndarray]:
    from phevaluator import evaluate_5cards

    flush_lut = np.zeros(1 << 13, dtype=np.uint16)
    for ranks in itertools.combinations(range(13), 5):
        cls = evaluate_5cards(*[r * 4 for r in ranks])
        flush_lut[sum(1 << r for r in ranks)] = NUM_CLASSES + 1 - cls
    plain_lut = np.zeros(13 ** 5, dtype=np.uint16)
    for ranks in itertools.combinations_with_replacement(range(13), 5):
        if max(ranks.count(r) for r in ranks) > 4:
            continue
        # equal ranks are adjacent, so suits i % 4 are distinct among them, and 0,1,2,3,0 is
        # never a flush
        cls = evaluate_5cards(*[r * 4 + i % 4 for i, r in enumerate(ranks)])
        key = 0
        for r in reversed(ranks):
            key = key * 13 + r
        plain_lut[key] = NUM_CLASSES + 1 - cls
    table = np.zeros(NUM_HANDS5, dtype=np.uint16)
    _fill_table(flush_lut, plain_lut, BINOM, table)
    if table.min() < 1:
        raise RcfrError("internal error: the five-card rank table has holes")
    return {"strength": table}


@functools.cache
def rank_table() -> np.ndarray:
    """Strength (1..7462, larger is stronger) of every five-card hand by :func:`hand_index`;
    loaded from the cache, built (about a second) when missing or corrupt."""
    arrays = cached_arrays("holdem_rank5.npz", "rcfr-holdem-rank5",
                           {"hands": NUM_HANDS5, "evaluator": "phevaluator"}, _build_rank_table)
    table = arrays["strength"]
    if table.shape != (NUM_HANDS5,) or table.dtype != np.uint16:
        raise RcfrError("the cached five-card rank table has the wrong shape; delete it")
    table.flags.writeable = False
    return table


def hand_strength5(cards: list[int] | str) -> int:
    """Strength (1..7462, larger is stronger) of a five-card hand (global ids or text)."""
    ids = cards_from_str(cards) if isinstance(cards, str) else [int(c) for c in cards]
    if len(ids) != 5 or len(set(ids)) != 5 or not all(0 <= c < 52 for c in ids):
        raise RcfrError(f"{cards!r} is not five distinct cards")
    c = sorted(ids)
    return int(rank_table()[hand_index(c[0], c[1], c[2], c[3], c[4], BINOM)])


def hand_category(strength: int | np.ndarray) -> np.ndarray | str:
    """Category name(s) (``"flush"``, ...) of strength value(s) from :func:`rank_table`."""
    cls = NUM_CLASSES + 1 - np.asarray(strength, dtype=np.int64)
    idx = np.searchsorted(_CATEGORY_LAST_CLASS, cls)
    names = np.array(CATEGORIES)[idx]
    return str(names) if names.ndim == 0 else names
