"""2-NL Hold'em(k) card abstraction: hand ranks, E[HS²] buckets, the exact abstract chance node."""

import collections
import itertools
import math

import numpy as np
import pytest

from rcfr.core.errors import RcfrError
from rcfr.games.holdem import abstraction as abs_mod
from rcfr.games.holdem import cards as cards_mod
from rcfr.games.holdem.abstraction import holdem_abstraction
from rcfr.games.holdem.cards import (
    BINOM,
    CATEGORIES,
    NUM_HANDS5,
    Deck,
    card_str,
    hand_category,
    hand_index,
    hand_strength5,
    rank_table,
)
from rcfr.games.holdem.ehs import canonical_flops, hole_number, suit_symmetry

EVAL7_NAMES = {"Straight Flush": "straight flush", "Quads": "four of a kind",
               "Full House": "full house", "Flush": "flush", "Straight": "straight",
               "Trips": "three of a kind", "Two Pair": "two pair", "Pair": "pair",
               "High Card": "high card"}


@pytest.fixture(scope="module", autouse=True)
def cache(tmp_path_factory):
    """Every table is built from an empty cache folder of this module's own."""
    folder = tmp_path_factory.mktemp("rcfr_cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RCFR_CACHE_DIR", str(folder))
        rank_table.cache_clear()
        holdem_abstraction.cache_clear()
        yield folder
    rank_table.cache_clear()
    holdem_abstraction.cache_clear()


def eval7_strength(cards):
    """The second evaluator (the test extra); tests that use it skip without it."""
    eval7 = pytest.importorskip("eval7")
    return eval7.evaluate([eval7.Card(card_str(int(c))) for c in cards])


def test_hand_class_counts_over_all_five_card_hands():
    table = rank_table()
    assert table.shape == (NUM_HANDS5,) and table.min() == 1 and table.max() == 7462
    assert len(np.unique(table)) == 7462
    counts = collections.Counter(hand_category(table).tolist())
    assert counts == {"straight flush": 40, "four of a kind": 624, "full house": 3744,
                      "flush": 5108, "straight": 10200, "three of a kind": 54912,
                      "two pair": 123552, "pair": 1098240, "high card": 1302540}
    assert hand_strength5("AsKsQsJsTs") == 7462 and hand_strength5("7c5d4h3s2c") == 1
    assert hand_strength5("5h4h3h2hAh") > hand_strength5("KdKcKhKsAc")  # steel wheel
    assert hand_strength5("5d4h3h2hAh") < hand_strength5("6c5d4h3h2h")  # wheel is lowest


def test_evaluator_agrees_with_eval7_on_random_hands():
    rng = np.random.default_rng(7)
    hands = np.array([rng.choice(52, 5, replace=False) for _ in range(3000)])
    table = rank_table()
    ours = np.array([table[hand_index(*sorted(h), BINOM)] for h in hands], dtype=np.int64)
    theirs = np.array([eval7_strength(h) for h in hands], dtype=np.int64)
    # the same order on every pair of hands, ties included
    assert np.array_equal(np.sign(ours[:, None] - ours[None, :]),
                          np.sign(theirs[:, None] - theirs[None, :]))
    eval7 = pytest.importorskip("eval7")
    names = [EVAL7_NAMES[eval7.handtype(int(v))] for v in theirs]
    assert list(hand_category(ours)) == names
    assert set(names) >= set(CATEGORIES) - {"straight flush", "four of a kind"}


def test_rank_table_rebuilds_when_missing_or_corrupt(cache):
    table = rank_table().copy()
    path = cache / "holdem_rank5.npz"
    assert path.is_file()
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])  # truncated
    rank_table.cache_clear()
    assert np.array_equal(rank_table(), table)
    # a readable file whose array no longer matches its checksum
    import json

    with np.load(path, allow_pickle=False) as data:
        meta = str(data["meta"][()])
        bad = data["strength"].copy()
    bad[12345] += 1
    np.savez_compressed(path, strength=bad, meta=np.array(meta))
    assert json.loads(meta)["sha256"]
    rank_table.cache_clear()
    assert np.array_equal(rank_table(), table)
    path.unlink()
    rank_table.cache_clear()
    assert np.array_equal(rank_table(), table) and path.is_file()


def test_decks_and_canonical_flops():
    full = Deck()
    assert full.size == 52 and len(full.holes) == 1326
    canon = canonical_flops(full)
    assert len(canon.flops) == 1755 and canon.weights.sum() == math.comb(52, 3)
    small = Deck(6, 3)
    assert [card_str(c) for c in small.cards[:4]] == ["9c", "9d", "9h", "Tc"]
    assert small.hole_index("AhAd") == hole_number(16, 17, 18)
    sym = suit_symmetry(small)
    assert sym.cards.shape == (6, 18) and sym.holes.shape == (6, 153)
    assert canonical_flops(small, sym).weights.sum() == math.comb(18, 3)
    for bad in [(14, 4), (6, 0), (1, 4), (3, 2)]:
        with pytest.raises(RcfrError):
            Deck(*bad)
    for kwargs in [{"buckets": 0}, {"buckets": 33}, {"buckets": 2.5}, {"ranks": 14}]:
        with pytest.raises(RcfrError):
            holdem_abstraction(**kwargs)


def check_abstraction(ab):
    b = ab.buckets
    assert ab.joint.shape == (b * b, b * b) and ab.showdown.shape == (b * b, b * b)
    assert ab.joint.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.array_equal(ab.joint, ab.joint.T)  # exact: the same integer counts
    assert np.array_equal(ab.showdown, -ab.showdown.T)
    equity = (1 + ab.showdown) / 2
    mirror = equity + equity.T
    assert np.allclose(mirror[ab.joint > 0], 1.0, atol=1e-15)
    assert np.all(ab.showdown[ab.joint == 0] == 0) and np.all(np.abs(ab.showdown) <= 1)
    assert np.allclose(ab.preflop_joint,
                       ab.joint.reshape(b, b, b, b).sum(axis=(1, 3)), atol=1e-15)
    assert np.array_equal(ab.preflop_joint, ab.preflop_joint.T)
    cond = ab.flop_given_preflop()
    assert np.allclose(cond.sum(axis=(2, 3)), (ab.preflop_joint > 0).astype(float), atol=1e-12)
    p, q, k, m = b - 1, 0, 1, b - 1
    assert cond[p, q, k, m] * ab.preflop_joint[p, q] == pytest.approx(
        ab.joint[p * b + k, q * b + m], abs=1e-15)
    # preflop buckets hold whole hands: P(bucket p) = holes in p / holes
    holes = len(ab.deck.holes)
    assert np.allclose(ab.preflop_joint.sum(axis=1), np.bincount(ab.hole_bucket, minlength=b)
                       / holes, atol=1e-14)
    # buckets are ordered by E[HS²] and do not overlap
    lo, hi = ab.preflop_bounds[:, 0], ab.preflop_bounds[:, 1]
    assert np.all(lo <= hi) and np.all(hi[:-1] < lo[1:])
    for p in range(b):
        fb = ab.flop_bounds[p]
        fb = fb[~np.isnan(fb[:, 0])]
        assert np.all(fb[:-1, 1] < fb[1:, 0])


def test_full_deck_abstraction():
    ab = holdem_abstraction(buckets=5, ranks=13, suits=4)
    assert (ab.buckets, ab.ranks, ab.suits) == (5, 13, 4)
    check_abstraction(ab)
    deck = ab.deck
    aa, seven_two = deck.hole_index("AsAd"), deck.hole_index("7h2c")
    assert ab.hole_ehs2[aa] > ab.hole_ehs2[seven_two]
    assert ab.hole_ehs2[aa] == ab.hole_ehs2.max()
    assert ab.hole_bucket[aa] == 4 and ab.hole_bucket[seven_two] == 0
    # suit isomorphism: 169 starting-hand classes, hence at most 169 distinct values
    assert len(np.unique(ab.hole_ehs2)) == 169
    # equal mass: every preflop bucket within one hand class (at most 12 hands) of 1326 / 5
    sizes = np.bincount(ab.hole_bucket)
    assert sizes.sum() == 1326 and np.all(np.abs(sizes - 1326 / 5) <= 12)
    # the top preflop bucket wins at showdown against each other one, the bottom one loses
    b = ab.buckets
    eq = (ab.showdown * ab.joint).reshape(b, b, b, b).sum(axis=(1, 3)) / ab.preflop_joint
    assert np.all(eq[-1, :-1] > 0) and np.all(eq[0, 1:] < 0)
    # loaded back from the cache: the same arrays
    holdem_abstraction.cache_clear()
    again = holdem_abstraction(5, 13, 4)
    assert again is not ab and np.array_equal(again.joint, ab.joint)
    assert np.array_equal(again.showdown, ab.showdown)


def reference_abstraction(ranks, suits, buckets):
    """All deals of a reduced deck one by one (no suit isomorphism, no sorting), ranked by
    eval7, bucketed by the midpoint-quantile rule written out plainly."""
    deck = Deck(ranks, suits)
    n = deck.size
    holes = [tuple(h) for h in deck.holes]
    hole_sets = [set(h) for h in holes]
    flops = list(itertools.combinations(range(n), 3))
    strength = {}
    for five in itertools.combinations(range(n), 5):
        strength[five] = eval7_strength(deck.cards[list(five)])

    def rank(h, f):
        return strength[tuple(sorted(h + f))]

    def buckets_of(keys_masses):
        total = sum(m for _, m in keys_masses)
        mass = collections.Counter()
        for k, m in keys_masses:
            mass[k] += m
        out, before = {}, 0
        for k in sorted(mass):
            out[k] = min(buckets - 1, math.floor(buckets * (before + mass[k] / 2) / total))
            before += mass[k]
        return out

    disjoint = np.array([[not (a & b) for b in hole_sets] for a in hole_sets])
    per_flop = []  # (live holes, their strengths, disjointness among them)
    num = {}  # (flop, hole) -> 2 wins + ties
    for f in flops:
        live = np.array([i for i, h in enumerate(holes) if not hole_sets[i] & set(f)])
        s = np.array([rank(holes[i], f) for i in live])
        d = disjoint[np.ix_(live, live)]
        wins = (2 * (s[:, None] > s[None, :]) + (s[:, None] == s[None, :])) * d
        for i, v in zip(live, wins.sum(axis=1), strict=True):
            num[f, i] = int(v)
        per_flop.append((f, live, s, d))
    sq = collections.Counter()
    for (_, i), v in num.items():
        sq[i] += v * v
    pre_of = buckets_of([(sq[i], 1) for i in range(len(holes))])
    pre = [pre_of[sq[i]] for i in range(len(holes))]
    flop_bucket = {}
    for p in range(buckets):
        items = [(key, v) for key, v in num.items() if pre[key[1]] == p]
        of = buckets_of([(v, 1) for _, v in items])
        for key, v in items:
            flop_bucket[key] = of[v]
    nseq = buckets * buckets
    joint = np.zeros((nseq, nseq))
    show = np.zeros((nseq, nseq))
    for f, live, s, d in per_flop:
        seq = np.array([pre[i] * buckets + flop_bucket[f, i] for i in live])
        rows, cols = np.broadcast_arrays(seq[:, None], seq[None, :])
        np.add.at(joint, (rows, cols), d)
        np.add.at(show, (rows, cols), np.sign(s[:, None] - s[None, :]) * d)
    opp = 2 * math.comb(n - 5, 2)
    ehs2 = np.array([sq[i] / (opp * opp * math.comb(n - 2, 3)) for i in range(len(holes))])
    showdown = np.divide(show, joint, out=np.zeros_like(show), where=joint > 0)
    return joint / joint.sum(), showdown, ehs2, np.array(pre), flop_bucket


@pytest.mark.parametrize("ranks,suits,buckets", [(6, 3, 5), (5, 2, 3)])
def test_reduced_deck_equals_brute_force(ranks, suits, buckets):
    ab = holdem_abstraction(buckets=buckets, ranks=ranks, suits=suits)
    check_abstraction(ab)
    joint, showdown, ehs2, pre, flop_bucket = reference_abstraction(ranks, suits, buckets)
    assert np.array_equal(ab.hole_bucket, pre)
    assert np.allclose(ab.hole_ehs2, ehs2, rtol=0, atol=1e-12)
    assert np.allclose(ab.joint, joint, rtol=0, atol=1e-12)
    assert np.allclose(ab.showdown, showdown, rtol=0, atol=1e-12)
    assert ab.preflop_joint.shape == (buckets, buckets)
    # the bucket sequence of a dealt hand, looked up from its cards
    deck = ab.deck
    rng = np.random.default_rng(3)
    for _ in range(40):
        cards = rng.choice(deck.size, 5, replace=False)
        hole, flop = sorted(cards[:2]), tuple(sorted(cards[2:]))
        i = hole_number(hole[0], hole[1], deck.size)
        assert ab.sequence(deck.cards[hole]) == pre[i]
        assert ab.sequence(deck.cards[hole], deck.cards[list(flop)]) == \
            pre[i] * buckets + flop_bucket[flop, i]


def test_abstraction_cache_is_rebuilt_when_corrupt(cache):
    ab = holdem_abstraction(buckets=3, ranks=6, suits=2)
    path = cache / "holdem_abstraction_b3_r6_s2.npz"
    path.write_bytes(b"not an npz")
    holdem_abstraction.cache_clear()
    again = holdem_abstraction(buckets=3, ranks=6, suits=2)
    assert np.array_equal(again.joint, ab.joint) and path.stat().st_size > 100
    # the build writes only through the atomic writer: no temporary files are left behind
    assert not [p for p in cache.iterdir() if p.name.startswith(".")]
    assert abs_mod.ALGORITHM_VERSION >= 1 and cards_mod.NUM_CLASSES == 7462


def test_unwritable_cache_folder_costs_a_warning_only(tmp_path, monkeypatch):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("RCFR_CACHE_DIR", str(blocker / "rcfr"))
    holdem_abstraction.cache_clear()
    try:
        with pytest.warns(RuntimeWarning, match="not cached"):
            ab = holdem_abstraction(2, 5, 2)
        assert ab is holdem_abstraction(buckets=np.int64(2), ranks=5, suits=2)
        check_abstraction(ab)
    finally:
        holdem_abstraction.cache_clear()
