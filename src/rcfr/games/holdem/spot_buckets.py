"""E[HS²] buckets of the 1,326 hold'em combos on a real board, for card abstractions of spots.

HS(x, river board) is the probability that combo ``x`` beats a uniformly random opponent hand
of the cards left (neither the board's nor ``x``'s: 990 hands), ties counting half; E[HS²] on
a flop or turn board is the mean of HS² over every runout to the river (Zinkevich et al. 2007;
Johanson 2007, sec. 2.5.3; Gibson et al. 2012, sec. 5).  Values are kept as exact integers,
``num = 2 * wins + ties`` per river board and the sum of ``num²`` over the runouts (every live
combo has the same number of runouts), so that combos of equal E[HS²] (suit isomorphs above
all) compare equal and share a bucket.

The buckets of a board are percentiles of E[HS²] over its live combos (those the board does not
block), each combo counting once (unweighted), :func:`equal_mass_buckets`; a spot's buckets
take the live combos of either range (:class:`rcfr.games.holdem.spot_game.SpotGame`), so that
a narrow range spreads over all of them.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from ...core.errors import RcfrError
from .card_walks import showdown_kernel
from .combos import COMBO_CARDS, NUM_CARDS, NUM_COMBOS, live_combos
from .ehs import equal_mass_buckets
from .strength import river_strength


def river_hs_num(board: tuple[int, ...]) -> np.ndarray:
    """``2 * wins + ties`` of every combo on the five-card ``board`` (0 where blocked)."""
    strength, order = river_strength(board)
    out = np.zeros(NUM_COMBOS)  # (whole numbers below 2**53: exact)
    showdown_kernel(COMBO_CARDS, order, strength, np.ones(NUM_COMBOS), 2.0, 1.0, 0.0,
                    np.empty(NUM_CARDS), np.empty(NUM_CARDS), out)
    return out.astype(np.int64)


@functools.lru_cache(maxsize=256)
def ehs2_keys(board: tuple[int, ...]) -> np.ndarray:
    """An integer per combo ordered as its E[HS²] on ``board`` (3 to 5 card ids): the sum of
    ``num²`` over the runouts to the river (0 where the board blocks the combo)."""
    board = tuple(sorted(board))
    if len(board) not in (3, 4, 5):
        raise RcfrError(f"E[HS²] needs a board of 3, 4 or 5 cards, not {len(board)}")
    left = [c for c in range(NUM_CARDS) if c not in board]
    keys = np.zeros(NUM_COMBOS, dtype=np.int64)
    for runout in itertools.combinations(left, 5 - len(board)):
        num = river_hs_num(tuple(sorted(board + runout)))
        keys += num * num  # (0 on the combos the runout blocks)
    keys.flags.writeable = False
    return keys


def ehs2_buckets(board: tuple[int, ...], buckets: int,
                 among: np.ndarray | None = None) -> np.ndarray:
    """The bucket, 0 to ``buckets - 1``, of every combo on ``board``: percentiles of E[HS²]
    over the live combos (of ``among``, a boolean vector over the combos, where given), each
    counting once (0 where the board blocks the combo or ``among`` leaves it out)."""
    return _buckets(tuple(sorted(board)), int(buckets), among_key(among))


def among_key(among: np.ndarray | None) -> bytes | None:
    """``among`` (a boolean vector over the combos, or None) as a hashable cache key."""
    return None if among is None else np.packbits(np.asarray(among, dtype=bool)).tobytes()


def live_among(board: tuple[int, ...], among: bytes | None) -> np.ndarray:
    """The combos the board leaves live, of those ``among`` (an :func:`among_key`) keeps."""
    live = live_combos(board)
    if among is not None:
        live &= np.unpackbits(np.frombuffer(among, dtype=np.uint8))[:NUM_COMBOS].astype(bool)
    return np.flatnonzero(live)


@functools.lru_cache(maxsize=4096)
def _buckets(board: tuple[int, ...], buckets: int, among: bytes | None) -> np.ndarray:
    live = live_among(board, among)
    out = np.zeros(NUM_COMBOS, dtype=np.int64)
    if live.size:
        out[live] = equal_mass_buckets(ehs2_keys(board)[live],
                                       np.ones(live.size, dtype=np.int64), buckets)
    out.flags.writeable = False
    return out


def bucket_classes(board: tuple[int, ...], first: int, buckets: int,
                   among: np.ndarray | None = None) -> np.ndarray:
    """Each combo's class on ``board`` (the spot's ``first`` cards, then the cards dealt in
    order): its bucket sequence over the streets so far (:func:`ehs2_buckets` over
    ``among``), ``sum_s b_s * buckets^(S - 1 - s)``, so that a street's classes refine the
    street's before (perfect recall)."""
    out = np.zeros(NUM_COMBOS, dtype=np.int64)
    for n in range(first, len(board) + 1):
        out = out * buckets + ehs2_buckets(tuple(board[:n]), buckets, among)
    return out
