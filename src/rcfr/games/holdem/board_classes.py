"""Boards up to suit isomorphism: the permutations of the four suits that leave a spot's ranges
unchanged, each board's canonical member of its class under them, and every class of boards of
a size with the number of boards it holds.

Renaming the suits by a permutation ``s`` maps a spot on board ``B`` to the spot on ``s(B)``
with ranges ``r o s``; where both ranges are invariant under ``s`` (a range of the 169 hand
classes is, under all 24), the two spots are the same game with the combos renamed, so they
have the same values and ``s``-renamed strategies (Waugh 2013, "A fast and optimal hand
isomorphism algorithm", counts the classes). Under all 24 permutations the 22,100 flops fall
into 1,755 classes, the 270,725 four-card boards into 16,432 and the 2,598,960 five-card ones
into 134,459; under a smaller group (ranges that tell some suits apart) into more, and under
the identity alone each board is its own class.

A board is a card mask here (bit ``4 * rank + suit``, :mod:`.combos`), so a suit permutation
acts on each rank's four bits alone: a 16-entry table per permutation maps every rank's nibble,
and a class's canonical mask is the smallest of its members' masks.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .combos import COMBO_CARDS, NUM_CARDS, NUM_COMBOS, combo_index

NUM_RANKS = 13
#: the 24 permutations of the suits ``c d h s`` (``perm[s]``: the new suit of suit ``s``)
SUIT_PERMS: tuple[tuple[int, ...], ...] = tuple(itertools.permutations(range(4)))


def permute_cards(cards, perm) -> tuple[int, ...]:
    """The card ids ``cards`` with each suit ``s`` renamed ``perm[s]``."""
    return tuple(int(c) - int(c) % 4 + perm[int(c) % 4] for c in cards)


def combo_permutation(perm) -> np.ndarray:
    """``p[k]``: the combo that combo ``k`` becomes when the suits are renamed by ``perm``."""
    return np.array([combo_index(*permute_cards(COMBO_CARDS[k], perm))
                     for k in range(NUM_COMBOS)], dtype=np.int64)


def range_symmetries(*ranges: np.ndarray) -> tuple[tuple[int, ...], ...]:
    """The suit permutations under which every one of ``ranges`` (1,326-weight vectors, before
    any board removal) is unchanged, exactly: a group, the identity always in it (all 24 for
    ranges of whole hand classes)."""
    out = []
    for perm in SUIT_PERMS:
        p = combo_permutation(perm)
        if all(np.array_equal(np.asarray(r)[p], np.asarray(r)) for r in ranges):
            out.append(perm)
    return tuple(out)


def _nibble_tables(perms) -> np.ndarray:
    """``t[i, n]``: a rank's suit nibble ``n`` with its suits renamed by ``perms[i]``."""
    t = np.zeros((len(perms), 16), dtype=np.uint64)
    for i, perm in enumerate(perms):
        for n in range(16):
            t[i, n] = sum(1 << perm[s] for s in range(4) if n >> s & 1)
    return t


def canonical_masks(masks: np.ndarray, perms=SUIT_PERMS) -> np.ndarray:
    """Each board mask's canonical mask under ``perms`` (a group): the smallest mask of its
    class."""
    masks = np.asarray(masks, dtype=np.uint64)
    tables = _nibble_tables(perms)
    best = np.full(masks.shape, np.iinfo(np.uint64).max, dtype=np.uint64)
    nibbles = [(masks >> np.uint64(4 * r)) & np.uint64(15) for r in range(NUM_RANKS)]
    for t in tables:
        image = np.zeros_like(masks)
        for r, n in enumerate(nibbles):
            image |= t[n.astype(np.int64)] << np.uint64(4 * r)
        np.minimum(best, image, out=best)
    return best


def board_mask(board) -> int:
    """The card mask of ``board`` (card ids)."""
    return sum(1 << int(c) for c in board)


def mask_board(mask: int) -> tuple[int, ...]:
    """The cards of a mask, highest first (``AsKd7c`` order)."""
    return tuple(c for c in range(NUM_CARDS - 1, -1, -1) if int(mask) >> c & 1)


def canonical_board(board, perms=SUIT_PERMS) -> tuple[int, ...]:
    """``board``'s class representative under ``perms`` (its cards highest first)."""
    return mask_board(int(canonical_masks(np.array([board_mask(board)], dtype=np.uint64),
                                          perms)[0]))


def _all_masks(size: int) -> np.ndarray:
    """The masks of every ``size``-card board (C(52, size) of them)."""
    bits = np.uint64(1) << np.arange(NUM_CARDS, dtype=np.uint64)
    masks = np.zeros(math.comb(NUM_CARDS, size), dtype=np.uint64)
    idx = np.array(list(itertools.combinations(range(NUM_CARDS), size)), dtype=np.int64)
    for j in range(size):
        masks |= bits[idx[:, j]]
    return masks


def board_classes(size: int, perms=SUIT_PERMS) -> list[tuple[tuple[int, ...], int]]:
    """Every class of ``size``-card boards under ``perms``: ``(representative, boards in the
    class)``, in the order of the canonical masks (the counts sum to C(52, size))."""
    canon = canonical_masks(_all_masks(size), perms)
    masks, counts = np.unique(canon, return_counts=True)
    return [(mask_board(int(m)), int(n)) for m, n in zip(masks, counts, strict=True)]


def merge_boards(boards, perms=SUIT_PERMS,
                 weights=None) -> list[tuple[tuple[int, ...], float, list[tuple[int, ...]]]]:
    """``boards`` merged into their classes under ``perms``, in the order of each class's first
    board: ``(representative, total weight, the boards given in it)`` (``weights``: each
    board's, default 1)."""
    weights = [1.0] * len(boards) if weights is None else list(weights)
    canon = canonical_masks(np.array([board_mask(b) for b in boards], dtype=np.uint64), perms)
    out: dict[int, list] = {}
    for board, weight, mask in zip(boards, weights, canon.tolist(), strict=True):
        entry = out.setdefault(mask, [mask_board(mask), 0.0, []])
        entry[1] += float(weight)
        entry[2].append(tuple(board))
    return [tuple(e) for e in out.values()]
