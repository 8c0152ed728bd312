"""Hand strength, E[HS²] and equal-mass buckets for 2-NL Hold'em(k) (Gibson et al. 2012, sec. 5).

The game has one post-flop round and no turn or river, so a hand's strength on the flop is
exact: HS(hole, flop) is the probability that the five-card hand of ``hole`` and the flop beats
a uniformly random opponent hand from the remaining cards, ties counting half. On the flop no
cards are to come, so E[HS²] there is HS²; before the flop E[HS²](hole) is the mean of HS² over
all flops (Zinkevich et al. 2007, sec. 4; Johanson 2007, sec. 2.5.3).

Values are kept as exact integers: ``num = 2 * wins + ties`` out of ``2 * C(n - 5, 2)``
opponent hands, and preflop sums of ``num²``, so that hands of equal strength (suit isomorphs
above all) compare equal and fall into the same bucket.

Suit isomorphism: a suit permutation maps deals to deals of equal probability and strength, so
every quantity is a sum over *canonical* flops (the least image of a flop under the suit
permutations) weighted by the size of their orbit (1,755 canonical flops of the 22,100 for the
full deck). For a per-hand sum over flops the canonical-flop sum ``S`` is averaged over the
group: ``sum over all flops F of f(h, F) = (1/|G|) sum over pi of S(pi h)``.
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ...core.errors import RcfrError
from .cards import BINOM, Deck, rank_table


class SuitSymmetry(NamedTuple):
    """The suit permutations of a deck: ``cards[p, c]`` is the image of local card ``c`` and
    ``holes[p, h]`` that of hole ``h`` under permutation ``p``."""

    cards: np.ndarray
    holes: np.ndarray


class CanonicalFlops(NamedTuple):
    """Canonical flops (local ids, sorted) and their orbit sizes (summing to C(n, 3))."""

    flops: np.ndarray
    weights: np.ndarray


def hole_number(a: np.ndarray | int, b: np.ndarray | int, n: int):
    """Index in ``Deck.holes`` of the hole ``(a, b)``, ``a < b`` (local ids)."""
    return a * n - a * (a + 1) // 2 + (b - a - 1)


def suit_symmetry(deck: Deck) -> SuitSymmetry:
    n, s = deck.size, deck.suits
    local = np.arange(n)
    rank, suit = local // s, local % s
    perms = np.array(list(itertools.permutations(range(s))), dtype=np.int64)
    cards = rank[None, :] * s + perms[:, suit]
    a, b = cards[:, deck.holes[:, 0]], cards[:, deck.holes[:, 1]]
    holes = hole_number(np.minimum(a, b), np.maximum(a, b), n)
    return SuitSymmetry(cards, holes)


def canonical_flops(deck: Deck, symmetry: SuitSymmetry | None = None) -> CanonicalFlops:
    n = deck.size
    sym = symmetry or suit_symmetry(deck)
    flops = np.array(list(itertools.combinations(range(n), 3)), dtype=np.int64)
    best = np.full(len(flops), np.iinfo(np.int64).max)
    for perm in sym.cards:
        image = np.sort(perm[flops], axis=1)
        best = np.minimum(best, (image[:, 0] * n + image[:, 1]) * n + image[:, 2])
    codes, weights = np.unique(best, return_counts=True)
    canon = np.stack([codes // (n * n), codes // n % n, codes % n], axis=1)
    return CanonicalFlops(canon, weights.astype(np.int64))


@njit(cache=True)
def five_card_strength(gids, x, y, a, b, c, binom, table):
    """Strength of the local cards ``x < y`` and ``a < b < c`` (``gids``, increasing, maps them
    to global ids): the colexicographic index is summed from each card's place among the five,
    found by comparisons, so nothing is sorted or allocated."""
    px = (a < x) + (b < x) + (c < x)
    py = 1 + (a < y) + (b < y) + (c < y)
    pa = (x < a) + (y < a)
    pb = 1 + (x < b) + (y < b)
    pc = 2 + (x < c) + (y < c)
    idx = (binom[px + 1, gids[x]] + binom[py + 1, gids[y]] + binom[pa + 1, gids[a]]
           + binom[pb + 1, gids[b]] + binom[pc + 1, gids[c]])
    return np.int64(table[idx])


@njit(cache=True)
def tie_groups(vals, cnt, starts):
    """Sort ``vals[:cnt]``: returns the order and the number of runs of equal values, run ``g``
    being positions ``starts[g]:starts[g + 1]`` of the order."""
    order = np.argsort(vals[:cnt], kind="mergesort")
    groups = 0
    for k in range(cnt):
        if k == 0 or vals[order[k]] != vals[order[k - 1]]:
            starts[groups] = k
            groups += 1
    starts[groups] = cnt
    return order, groups


@njit(cache=True)
def flop_strengths(gids, holes, flops, binom, table, strength, num):
    """For every flop ``f`` and hole ``h`` disjoint from it: ``strength[f, h]`` (five-card
    strength) and ``num[f, h] = 2 * wins + ties`` against the opponent holes disjoint from
    both; -1 where ``h`` meets the flop. Sorting holes by strength and counting, per card, the
    holes already passed makes each flop O(holes log holes) (card removal by inclusion-exclusion:
    the holes sharing a card with ``h = (x, y)`` are those with ``x`` plus those with ``y``
    less ``h`` itself)."""
    n = gids.shape[0]
    num_holes = holes.shape[0]
    valid = np.empty(num_holes, dtype=np.int64)
    vals = np.empty(num_holes, dtype=np.int64)
    card_less = np.zeros(n, dtype=np.int64)
    card_eq = np.zeros(n, dtype=np.int64)
    starts = np.empty(num_holes + 1, dtype=np.int64)
    for f in range(flops.shape[0]):
        a, b, c = flops[f, 0], flops[f, 1], flops[f, 2]
        cnt = 0
        for h in range(num_holes):
            x, y = holes[h, 0], holes[h, 1]
            if x == a or x == b or x == c or y == a or y == b or y == c:
                strength[f, h] = -1
                num[f, h] = -1
                continue
            s = five_card_strength(gids, x, y, a, b, c, binom, table)
            strength[f, h] = s
            valid[cnt] = h
            vals[cnt] = s
            cnt += 1
        order, groups = tie_groups(vals, cnt, starts)
        card_less[:] = 0
        less_total = 0
        for g in range(groups):
            i, j = starts[g], starts[g + 1]
            for k in range(i, j):
                h = valid[order[k]]
                card_eq[holes[h, 0]] += 1
                card_eq[holes[h, 1]] += 1
            group = j - i
            for k in range(i, j):
                h = valid[order[k]]
                x, y = holes[h, 0], holes[h, 1]
                less = less_total - card_less[x] - card_less[y]
                eq = group - card_eq[x] - card_eq[y] + 1
                num[f, h] = 2 * less + eq
            for k in range(i, j):
                h = valid[order[k]]
                x, y = holes[h, 0], holes[h, 1]
                card_eq[x] = 0
                card_eq[y] = 0
                card_less[x] += 1
                card_less[y] += 1
            less_total += group


def opponent_count(deck: Deck) -> int:
    """Opponent holes once a hole and the flop are known: C(n - 5, 2)."""
    return math.comb(deck.size - 5, 2)


def preflop_hs2_sums(deck: Deck, symmetry: SuitSymmetry, canon: CanonicalFlops,
                     num: np.ndarray) -> np.ndarray:
    """``|G| * sum over all flops F of num(h, F)²`` per hole ``h``, exact (int64)."""
    sq = np.where(num >= 0, num.astype(np.int64) ** 2, 0)
    per_hole = canon.weights @ sq  # S(h): canonical flops weighted by their orbit size
    return per_hole[symmetry.holes].sum(axis=0)


def preflop_ehs2(deck: Deck, sums: np.ndarray, group_size: int) -> np.ndarray:
    """E[HS²] per hole from :func:`preflop_hs2_sums`."""
    den = 2 * opponent_count(deck)
    return sums / (group_size * math.comb(deck.size - 2, 3) * den * den)


def equal_mass_buckets(keys: np.ndarray, masses: np.ndarray, buckets: int) -> np.ndarray:
    """Bucket ``0..buckets-1`` of each item by equal mass: items are sorted by ``key`` (equal
    keys stay together) and an item whose key's mass spans the cumulative interval
    ``[c, c + m)`` of the total ``M`` goes to bucket ``floor(buckets * (c + m/2) / M)`` -- the
    quantile of its midpoint. Exact in integers (``masses`` must be integers)."""
    uniq, inverse = np.unique(keys, return_inverse=True)
    mass = np.zeros(len(uniq), dtype=np.int64)
    np.add.at(mass, inverse, np.asarray(masses, dtype=np.int64))
    before = np.cumsum(mass) - mass
    total = int(mass.sum())
    per_key = np.minimum((buckets * (2 * before + mass)) // (2 * total), buckets - 1)
    return per_key[inverse]


def hand_strength(deck: Deck, hole: tuple[int, int], flop: tuple[int, int, int]) -> float:
    """HS(hole, flop): the probability of beating a uniformly random opponent hand from the
    other cards of ``deck``, ties counting half (local ids; the five must be distinct)."""
    x, y = sorted(int(c) for c in hole)
    a, b, c = sorted(int(c) for c in flop)
    if len({x, y, a, b, c}) != 5 or not all(0 <= v < deck.size for v in (x, y, a, b, c)):
        raise RcfrError(f"hole {hole} and flop {flop} are not five distinct cards of the "
                        f"{deck} deck")
    score = _score(deck.cards, x, y, a, b, c, BINOM, rank_table())
    return score / (2.0 * opponent_count(deck))


@njit(cache=True)
def _score(gids, x, y, a, b, c, binom, table):
    """``2 * wins + ties`` of hole ``x < y`` on flop ``a < b < c`` against every opponent."""
    n = gids.shape[0]
    mine = five_card_strength(gids, x, y, a, b, c, binom, table)
    score = 0
    for u in range(n):
        for v in range(u + 1, n):
            if (u == a or u == b or u == c or u == x or u == y or v == a
                    or v == b or v == c or v == x or v == y):
                continue
            theirs = five_card_strength(gids, u, v, a, b, c, binom, table)
            score += 2 if mine > theirs else (1 if mine == theirs else 0)
    return score
