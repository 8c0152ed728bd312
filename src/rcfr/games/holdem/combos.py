"""The 1,326 hole-card pairs of a 52-card deck, their card masks, boards and board blocking.

A card is ``rank * 4 + suit`` (:mod:`rcfr.games.holdem.cards`: ``2c`` = 0, ``2d`` = 1, ...,
``As`` = 51). Combo ``k`` is the ``k``-th pair ``(a, b)``, ``a < b``, in lexicographic order:
0 = ``2d2c``, 1 = ``2h2c``, 2 = ``2s2c``, 3 = ``3c2c``, ..., 1,325 = ``AsAh`` (written higher
card first) -- the order of ``Deck().holes`` and of postflop-solver's raw range data. A
card mask is a ``uint64`` with bit ``c`` set for each card ``c``.
"""

from __future__ import annotations

import numpy as np

from ...core.errors import RcfrError
from .cards import Deck, card_str, cards_from_str
from .ehs import hole_number

NUM_CARDS = 52
NUM_COMBOS = 1326

#: ``COMBO_CARDS[k] = (a, b)``, ``a < b``: the cards of combo ``k``
COMBO_CARDS = Deck().holes  # (the full deck's local ids are the global ones)
COMBO_CARDS.flags.writeable = False

#: ``COMBO_MASKS[k]``: the card mask of combo ``k``
COMBO_MASKS = (np.uint64(1) << COMBO_CARDS[:, 0].astype(np.uint64)) | (
    np.uint64(1) << COMBO_CARDS[:, 1].astype(np.uint64))
COMBO_MASKS.flags.writeable = False


def combo_index(a: int, b: int) -> int:
    """Index of the combo of cards ``a`` and ``b`` (either order)."""
    a, b = int(a), int(b)
    if not (0 <= a < NUM_CARDS and 0 <= b < NUM_CARDS) or a == b:
        raise RcfrError(f"({a}, {b}) is not two distinct cards (ids 0..51)")
    if a > b:
        a, b = b, a
    return int(hole_number(a, b, NUM_CARDS))


def combo_from_str(text: str) -> int:
    """``"AhKh"`` -> its combo index (the two cards in either order)."""
    cards = cards_from_str(text)
    if len(cards) != 2 or cards[0] == cards[1]:
        raise RcfrError(f"not two distinct cards: {text!r}")
    return combo_index(*cards)


def combo_str(k: int) -> str:
    """Combo ``k`` as text, the higher card first (``"AsAh"``, ``"Kh7c"``)."""
    a, b = COMBO_CARDS[int(k)]
    return card_str(int(b)) + card_str(int(a))


def card_mask(cards) -> np.uint64:
    """The card mask of a collection of card ids."""
    mask = 0
    for c in cards:
        mask |= 1 << int(c)
    return np.uint64(mask)


def parse_board(text: str, sizes: tuple[int, ...] = (3, 4, 5)) -> tuple[int, ...]:
    """``"Td9d6hQc"`` (spaces allowed) -> the card ids in the order written; the number of
    cards must be one of ``sizes`` and no card may repeat."""
    cards = cards_from_str(text)
    if len(cards) not in sizes:
        want = " or ".join(str(s) for s in sizes)
        raise RcfrError(f"a board has {want} cards, not {len(cards)}: {text!r}")
    if len(set(cards)) != len(cards):
        raise RcfrError(f"a card repeats in the board {text!r}")
    return tuple(cards)


def as_board(board, sizes: tuple[int, ...] = (3, 4, 5)) -> tuple[int, ...]:
    """A board given as text (:func:`parse_board`) or as card ids -> a tuple of card ids,
    checked: ``len`` one of ``sizes``, distinct ids in 0..51."""
    if isinstance(board, str):
        return parse_board(board, sizes)
    try:
        cards = tuple(int(c) for c in board)
    except (TypeError, ValueError):
        raise RcfrError(f"a board is text or card ids, not {board!r}") from None
    if len(cards) not in sizes or len(set(cards)) != len(cards) or not all(
            0 <= c < NUM_CARDS for c in cards):
        want = " or ".join(str(s) for s in sizes)
        raise RcfrError(f"a board is {want} distinct card ids 0..51, not {board!r}")
    return cards


def live_combos(board) -> np.ndarray:
    """Boolean vector over the combos: true where the combo shares no card with ``board``
    (0 to 5 cards, text or card ids)."""
    return (COMBO_MASKS & card_mask(as_board(board, tuple(range(6))))) == 0


def remove_blocked(weights: np.ndarray, board) -> np.ndarray:
    """A copy of a 1,326-weight vector with the board-blocked combos set to zero."""
    weights = np.asarray(weights, dtype=np.float64)
    if weights.shape != (NUM_COMBOS,):
        raise RcfrError(f"a range has {NUM_COMBOS} weights, not shape {weights.shape}")
    return np.where(live_combos(board), weights, 0.0)


def disjoint_mass(weights: np.ndarray, cards: np.ndarray = COMBO_CARDS) -> np.ndarray:
    """``m[k]``: the total of ``weights`` over the combos that share no card with combo ``k``
    (``cards[k]``: its two cards), by inclusion-exclusion over its two cards."""
    per_card = np.bincount(cards.ravel(), np.repeat(weights, 2), minlength=int(cards.max()) + 1)
    return weights.sum() - per_card[cards[:, 0]] - per_card[cards[:, 1]] + weights
