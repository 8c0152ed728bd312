"""The E[HS²] card abstraction of 2-NL Hold'em(k), computed exactly (Gibson et al. 2012, sec. 5).

Each player's cards are reduced to a *bucket sequence* ``i = preflop_bucket * B + flop_bucket``:
``B`` preflop buckets of equal mass by E[HS²] over the 2-card hands, and, with perfect recall,
``B`` flop buckets of equal mass by HS² (= E[HS²] on the last round) *within* each preflop
bucket (:func:`rcfr.games.holdem.ehs.equal_mass_buckets`; Zinkevich et al. 2007 partition by E[HS²]
into equally likely buckets, the "percentile bucketing" of Johanson 2007, sec. 2.5.3). The
abstract game is then a chance node over pairs of bucket sequences:

* ``joint[i, j]`` = P(player 0 has sequence i and player 1 has j), card removal included
  (sums to 1, symmetric);
* ``showdown[i, j]`` = E[+1 if player 0's five-card hand wins, -1 if it loses, 0 on a tie | i, j]
  (antisymmetric; 0 where ``joint`` is 0).

Both come from an exact enumeration over canonical flops (weighted by orbit size) and all pairs
of disjoint holes, done per flop in O(holes x B²): holes are swept in order of strength while
per-card, per-sequence counters remove the opponent holes that share a card.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from ...core.errors import RcfrError
from .cache import cached_arrays
from .cards import BINOM, Deck, cards_from_str, rank_table
from .ehs import (
    canonical_flops,
    equal_mass_buckets,
    flop_strengths,
    hand_strength,
    opponent_count,
    preflop_ehs2,
    preflop_hs2_sums,
    suit_symmetry,
    tie_groups,
)

ALGORITHM_VERSION = 2  # bump when what is stored changes (invalidates cached files)
MAX_BUCKETS = 32


@dataclass(frozen=True, eq=False)
class HoldemAbstraction:
    """The abstract card game: ``joint`` and ``showdown`` over pairs of bucket sequences
    (``B * B`` per player, ``i = preflop_bucket * B + flop_bucket``), ``preflop_joint[p, q]``
    = P(preflop buckets p and q). Per hole of ``Deck(ranks, suits).holes``: ``hole_ehs2`` and
    ``hole_bucket`` (preflop). ``preflop_bounds[p]`` = (min, max) E[HS²] in preflop bucket
    ``p``; ``flop_bounds[p, k]`` = (min, max) HS² in flop bucket ``k`` of preflop bucket ``p``
    (NaN if empty)."""

    buckets: int
    ranks: int
    suits: int
    joint: np.ndarray
    showdown: np.ndarray
    preflop_joint: np.ndarray
    hole_ehs2: np.ndarray
    hole_bucket: np.ndarray
    preflop_bounds: np.ndarray
    flop_bounds: np.ndarray

    @property
    def deck(self) -> Deck:
        return Deck(self.ranks, self.suits)

    @property
    def num_sequences(self) -> int:
        """Bucket sequences per player on the flop: ``B * B``."""
        return self.buckets * self.buckets

    def sequence(self, hole: str | list[int], flop: str | list[int] | None = None) -> int:
        """Bucket of a hole (``"AsAd"`` or global card ids) before the flop, or its bucket
        sequence ``preflop * B + flop_bucket`` once a ``flop`` (three cards) is given."""
        deck = self.deck
        h = deck.hole_index(hole)
        pre = int(self.hole_bucket[h])
        if flop is None:
            return pre
        ids = cards_from_str(flop) if isinstance(flop, str) else [int(c) for c in flop]
        local = {int(g): i for i, g in enumerate(deck.cards)}
        if len(ids) != 3 or any(c not in local for c in ids):
            raise RcfrError(f"{flop!r} is not three cards of the {deck} deck")
        hs = hand_strength(deck, tuple(deck.holes[h]), tuple(local[c] for c in ids))
        hs2 = hs * hs
        # the bounds are the least and greatest values met, computed by the same arithmetic
        inside = (self.flop_bounds[pre, :, 0] <= hs2) & (hs2 <= self.flop_bounds[pre, :, 1])
        return pre * self.buckets + int(np.flatnonzero(inside)[0])

    def flop_given_preflop(self) -> np.ndarray:
        """``[p, q, k, l]`` = P(flop buckets k and l | preflop buckets p and q): the chance node
        between the two betting rounds (zero where ``preflop_joint[p, q]`` is 0)."""
        b = self.buckets
        cells = self.joint.reshape(b, b, b, b).transpose(0, 2, 1, 3)
        pre = self.preflop_joint[:, :, None, None]
        return np.divide(cells, pre, out=np.zeros_like(cells), where=pre > 0)

    def __repr__(self) -> str:
        return (f"HoldemAbstraction(buckets={self.buckets}, ranks={self.ranks}, "
                f"suits={self.suits})")


@njit(cache=True)
def joint_showdown_counts(holes, weights, strength, seq, num_cards, joint, show):
    """Add, for every flop ``f`` (weight ``weights[f]``) and every ordered pair of disjoint
    holes ``(h, o)`` disjoint from it, ``weights[f]`` to ``joint[seq[f, h], seq[f, o]]`` and
    ``weights[f] * sign(strength[f, h] - strength[f, o])`` to ``show[...]`` (``seq`` is -1
    where a hole meets the flop). Per flop O(holes x sequences): holes are swept by strength;
    ``card_*[c, j]`` count the sequence-``j`` holes holding card ``c`` that are weaker / equal /
    all, and inclusion-exclusion over the hole's two cards removes the opponents it blocks."""
    num_holes = holes.shape[0]
    nseq = joint.shape[0]
    valid = np.empty(num_holes, dtype=np.int64)
    vals = np.empty(num_holes, dtype=np.int64)
    card_all = np.zeros((num_cards, nseq), dtype=np.int64)
    card_less = np.zeros((num_cards, nseq), dtype=np.int64)
    card_eq = np.zeros((num_cards, nseq), dtype=np.int64)
    all_tot = np.zeros(nseq, dtype=np.int64)
    less_tot = np.zeros(nseq, dtype=np.int64)
    eq_tot = np.zeros(nseq, dtype=np.int64)
    starts = np.empty(num_holes + 1, dtype=np.int64)
    for f in range(weights.shape[0]):
        w = weights[f]
        card_all[:, :] = 0
        card_less[:, :] = 0
        all_tot[:] = 0
        less_tot[:] = 0
        cnt = 0
        for h in range(num_holes):
            i = seq[f, h]
            if i < 0:
                continue
            valid[cnt] = h
            vals[cnt] = strength[f, h]
            cnt += 1
            all_tot[i] += 1
            card_all[holes[h, 0], i] += 1
            card_all[holes[h, 1], i] += 1
        order, groups = tie_groups(vals, cnt, starts)
        for g in range(groups):
            lo, hi = starts[g], starts[g + 1]
            for k in range(lo, hi):
                h = valid[order[k]]
                i = seq[f, h]
                eq_tot[i] += 1
                card_eq[holes[h, 0], i] += 1
                card_eq[holes[h, 1], i] += 1
            for k in range(lo, hi):
                h = valid[order[k]]
                x, y = holes[h, 0], holes[h, 1]
                i = seq[f, h]
                for j in range(nseq):
                    same = 1 if j == i else 0
                    opp = all_tot[j] - card_all[x, j] - card_all[y, j] + same
                    less = less_tot[j] - card_less[x, j] - card_less[y, j]
                    eq = eq_tot[j] - card_eq[x, j] - card_eq[y, j] + same
                    joint[i, j] += w * opp
                    show[i, j] += w * (2 * less + eq - opp)  # wins - losses
            for k in range(lo, hi):
                h = valid[order[k]]
                x, y = holes[h, 0], holes[h, 1]
                i = seq[f, h]
                eq_tot[i] = 0
                card_eq[x, i] = 0
                card_eq[y, i] = 0
                less_tot[i] += 1
                card_less[x, i] += 1
                card_less[y, i] += 1


def _bounds(values: np.ndarray, labels: np.ndarray, count: int) -> np.ndarray:
    out = np.full((count, 2), np.nan)
    for k in range(count):
        sel = values[labels == k]
        if sel.size:
            out[k] = sel.min(), sel.max()
    return out


def build_abstraction_arrays(buckets: int, ranks: int, suits: int) -> dict[str, np.ndarray]:
    """Compute the abstraction from scratch (see the module docstring)."""
    deck = Deck(ranks, suits)
    n, holes = deck.size, deck.holes
    sym = suit_symmetry(deck)
    canon = canonical_flops(deck, sym)
    shape = (len(canon.flops), len(holes))
    strength = np.empty(shape, dtype=np.int32)
    num = np.empty(shape, dtype=np.int32)
    flop_strengths(deck.cards, holes, canon.flops, BINOM, rank_table(), strength, num)

    sums = preflop_hs2_sums(deck, sym, canon, num)
    ehs2 = preflop_ehs2(deck, sums, len(sym.cards))
    pre = equal_mass_buckets(sums, np.ones(len(holes), dtype=np.int64), buckets)

    valid = num >= 0
    flop = np.full(shape, -1, dtype=np.int64)
    mass = np.broadcast_to(canon.weights[:, None], shape)
    den = 2.0 * opponent_count(deck)
    flop_bounds = np.full((buckets, buckets, 2), np.nan)
    for p in range(buckets):
        sel = valid & (pre[None, :] == p)
        if not sel.any():
            continue
        flop[sel] = equal_mass_buckets(num[sel], mass[sel], buckets)
        hs = num[sel] / den
        flop_bounds[p] = _bounds(hs * hs, flop[sel], buckets)
    seq = np.where(valid, pre[None, :] * buckets + flop, -1)

    nseq = buckets * buckets
    joint = np.zeros((nseq, nseq), dtype=np.int64)
    show = np.zeros((nseq, nseq), dtype=np.int64)
    joint_showdown_counts(holes, canon.weights, strength, seq, n, joint, show)
    total = math.comb(n, 3) * math.comb(n - 3, 2) * math.comb(n - 5, 2)
    if int(joint.sum()) != total:
        raise RcfrError(f"internal error: {int(joint.sum())} deals counted, not {total}")
    showdown = np.divide(show, joint, out=np.zeros((nseq, nseq)), where=joint > 0)
    probs = joint / total
    # from the integer counts, so that it is exactly symmetric too
    preflop_joint = joint.reshape(buckets, buckets, buckets, buckets).sum(axis=(1, 3)) / total
    return {"joint": probs, "showdown": showdown, "preflop_joint": preflop_joint,
            "hole_ehs2": ehs2, "hole_bucket": pre.astype(np.int64),
            "preflop_bounds": _bounds(ehs2, pre, buckets), "flop_bounds": flop_bounds}


def _check(buckets: int, ranks: int, suits: int) -> Deck:
    if isinstance(buckets, bool) or not isinstance(buckets, int | np.integer) \
            or not 1 <= buckets <= MAX_BUCKETS:
        raise RcfrError(f"buckets must be an integer from 1 to {MAX_BUCKETS}, not {buckets!r}")
    return Deck(ranks, suits)


def holdem_abstraction(buckets: int = 5, ranks: int = 13, suits: int = 4) -> HoldemAbstraction:
    """The E[HS²] abstraction with ``buckets`` buckets per round on the deck of the ``ranks``
    highest ranks in ``suits`` suits; loaded from the cache folder
    (:func:`rcfr.games.holdem.cache.cache_dir`), computed and stored there when missing or corrupt,
    and kept in memory (one object per deck and bucket count)."""
    deck = _check(buckets, ranks, suits)
    return _holdem_abstraction(int(buckets), int(deck.ranks), int(deck.suits))


@functools.cache
def _holdem_abstraction(buckets: int, ranks: int, suits: int) -> HoldemAbstraction:
    deck = Deck(ranks, suits)
    key = {"buckets": buckets, "ranks": ranks, "suits": suits, "version": ALGORITHM_VERSION}
    arrays = cached_arrays(f"holdem_abstraction_b{buckets}_r{ranks}_s{suits}.npz",
                           "rcfr-holdem-abstraction", key,
                           lambda: build_abstraction_arrays(buckets, ranks, suits))
    nseq = buckets * buckets
    expect = {"joint": (nseq, nseq), "showdown": (nseq, nseq), "preflop_joint": (buckets,) * 2,
              "hole_ehs2": (len(deck.holes),), "hole_bucket": (len(deck.holes),),
              "preflop_bounds": (buckets, 2), "flop_bounds": (buckets, buckets, 2)}
    for name, shape in expect.items():
        if name not in arrays or arrays[name].shape != shape:
            raise RcfrError(f"the cached abstraction lacks {name} of shape {shape}; delete "
                            f"{key} from the cache folder")
        arrays[name].flags.writeable = False
    return HoldemAbstraction(buckets=buckets, ranks=ranks, suits=suits,
                             **{name: arrays[name] for name in expect})


holdem_abstraction.cache_clear = _holdem_abstraction.cache_clear  # type: ignore[attr-defined]
