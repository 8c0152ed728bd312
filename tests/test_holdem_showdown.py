"""Real-card hold'em: seven-card strengths (against pokerkit) and the linear terminal sweeps
with card removal (against a brute-force n x n evaluation)."""

import numpy as np
import pytest

from rcfr.core.errors import RcfrError
from rcfr.forms.public.card_sweeps import fold_values, showdown_values
from rcfr.games.holdem.cards import card_str, cards_from_str, hand_category
from rcfr.games.holdem.combos import (
    COMBO_CARDS,
    COMBO_MASKS,
    NUM_COMBOS,
    combo_from_str,
    live_combos,
    parse_board,
)
from rcfr.games.holdem.ranges import parse_range
from rcfr.games.holdem.strength import river_strength, strength7

# random boards, and boards where most showdowns tie: a royal flush, quads and a straight on
# the board, a paired board
BOARDS = ["Td9d6hQc2s", "AsKsQsJsTs", "2c2d2h2s3c", "5c6d7h8s9c", "KhKd7c7s2h"]


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(45)


def test_seven_card_strength_equals_pokerkit(rng):
    """10,000 random seven-card hands: pokerkit's hand class (its ``entry.index``, 0 = 7-high,
    7,461 = a royal flush) is our strength minus one, and the categories agree."""
    pokerkit = pytest.importorskip("pokerkit")
    hands = np.array([rng.choice(52, 7, replace=False) for _ in range(10_000)])
    cards = [next(iter(pokerkit.Card.parse(card_str(c)))) for c in range(52)]
    entries = [pokerkit.StandardHighHand.from_game([cards[c] for c in h[:2]],
                                                   [cards[c] for c in h[2:]]).entry
               for h in hands.tolist()]
    ours = strength7(hands)
    assert np.array_equal(ours - 1, [e.index for e in entries])
    names = {"Straight flush": "straight flush", "Four of a kind": "four of a kind",
             "Full house": "full house", "Flush": "flush", "Straight": "straight",
             "Three of a kind": "three of a kind", "Two pair": "two pair",
             "One pair": "pair", "High card": "high card"}
    assert list(hand_category(ours)) == [names[e.label.value] for e in entries]
    assert len(np.unique(ours)) > 2000


def test_strength_known_hands():
    rows = np.array([cards_from_str(t) for t in (
        "AsKsQsJsTs2c3d", "AhAdAcAs2c3d4h", "7c5d4h3s2c9hJd", "As2d3c4h5sKhKd", "6s5s4s3s2s7s8s")])
    s = strength7(rows)
    assert s[0] == 7462 and s[1] > s[3] and s[2] < s[3]
    assert s[4] == 7462 - 6  # an eight-high straight flush
    with pytest.raises(RcfrError):
        strength7(np.array([[0, 0, 1, 2, 3, 4, 5]]))
    with pytest.raises(RcfrError):
        strength7(np.zeros((2, 6), dtype=int))


def test_river_strength_per_board():
    strength, order = river_strength("Td9d6hQc2s")
    assert river_strength(parse_board("2sQc6h9dTd")) == (strength, order)  # one cache entry
    live = live_combos("Td9d6hQc2s")
    assert np.array_equal(np.flatnonzero(strength), np.flatnonzero(live))
    assert sorted(order.tolist()) == np.flatnonzero(live).tolist()
    assert np.all(np.diff(strength[order]) >= 0)
    board = cards_from_str("Td9d6hQc2s")
    rows = np.array([[*board, a, b] for a, b in COMBO_CARDS[live]])
    assert np.array_equal(strength[live], strength7(rows))
    # KJ makes the nut straight; 87 the lower one; a pair of aces beats a pair of kings
    assert strength[combo_from_str("KhJh")] == strength.max()
    assert strength[combo_from_str("8c7c")] < strength[combo_from_str("KhJh")]
    assert strength[combo_from_str("AcAh")] > strength[combo_from_str("KcKh")]
    assert not strength.flags.writeable and not order.flags.writeable
    with pytest.raises(RcfrError):
        river_strength("Td9d6hQc")


def brute_force_showdown(board, reach, win, tie, lose):
    """n x n: every pair of live combos that share no card, payoff by strength."""
    strength, _ = river_strength(board)
    live = live_combos(board)
    meet = ((COMBO_MASKS[:, None] & COMBO_MASKS[None, :]) == 0) & live[:, None] & live[None, :]
    s = strength.astype(np.int64)
    u = np.where(s[:, None] > s[None, :], win, np.where(s[:, None] < s[None, :], lose, tie))
    return (meet * u) @ reach


def brute_force_fold(board, reach, amount):
    live = live_combos(board)
    meet = ((COMBO_MASKS[:, None] & COMBO_MASKS[None, :]) == 0) & live[:, None] & live[None, :]
    return amount * (meet @ reach)


def random_reach(rng, board):
    """Weights with zeros, ones, fractions and mass on board-blocked combos (ignored)."""
    r = rng.random(NUM_COMBOS) * (rng.random(NUM_COMBOS) < 0.7)
    r[rng.random(NUM_COMBOS) < 0.1] = 1.0
    return r


@pytest.mark.parametrize("board", BOARDS)
def test_showdown_sweep_equals_brute_force_for_both_players(board, rng):
    pot = 150.0
    r0, r1 = random_reach(rng, board), parse_range("QQ-22,AQs-A2s,ATo+,K5s+:0.5,KJo+,Q8s+")
    r1 = r1 * rng.random(NUM_COMBOS)
    for r in (r1, random_reach(rng, board)):
        # player 0 against player 1's reach, and player 1 (payoffs negated) against player 0's
        v0 = showdown_values(board, r, pot, 0.0, -pot)
        v1 = showdown_values(board, r0, pot, 0.0, -pot)
        np.testing.assert_allclose(v0, brute_force_showdown(board, r, pot, 0.0, -pot),
                                   rtol=0, atol=1e-12 * pot * r.sum())
        np.testing.assert_allclose(v1, brute_force_showdown(board, r0, pot, 0.0, -pot),
                                   rtol=0, atol=1e-12 * pot * r0.sum())
        # zero-sum: player 0's expected payoff is minus player 1's
        assert abs(r0 @ v0 + r @ v1) < 1e-9 * pot * r0.sum() * r.sum()
        assert np.all(v0[~live_combos(board)] == 0.0)
    # unequal win, tie and lose payoffs (a tie that is not worth nothing)
    v = showdown_values(board, r0, 3.5, 0.25, -1.75)
    np.testing.assert_allclose(v, brute_force_showdown(board, r0, 3.5, 0.25, -1.75),
                               rtol=0, atol=1e-12 * 3.5 * r0.sum())


def test_card_removal_by_hand():
    """Values worked out by hand on Td9d6hQc2s (AcKc and AhKh tie with ace-king high)."""
    board = "Td9d6hQc2s"
    reach = np.zeros(NUM_COMBOS)
    for t, w in (("AcAd", 0.5), ("KcKd", 0.25), ("AcKc", 1.0), ("AhKh", 2.0)):
        reach[combo_from_str(t)] = w
    v = showdown_values(board, reach, 1.0, 0.5, -1.0)
    # AsAd: AcAd shares the Ad; KcKd, AcKc and AhKh (wins)
    assert v[combo_from_str("AsAd")] == 0.25 + 2.0 + 1.0
    # AsAh: AcAd (tie), KcKd (win), AcKc (win); AhKh shares the Ah
    assert v[combo_from_str("AsAh")] == 0.5 * 0.5 + 0.25 + 1.0
    # KhKs: AcAd (lose), KcKd (tie), AcKc (win: kings beat ace high); AhKh shares the Kh
    assert v[combo_from_str("KhKs")] == -0.5 + 0.5 * 0.25 + 1.0
    assert v[combo_from_str("TdTs")] == 0.0  # blocked by the board
    f = fold_values(board, reach, -2.0)
    assert f[combo_from_str("AcKd")] == -2.0 * 2.0  # only AhKh shares neither Ac nor Kd
    assert f[combo_from_str("7h7s")] == -2.0 * 3.75


@pytest.mark.parametrize("board", ["Td9d6h", "Td9d6hQc", "Td9d6hQc2s"])
def test_fold_sweep_equals_brute_force(board, rng):
    r = random_reach(rng, board)
    for amount in (100.0, -37.5):
        np.testing.assert_allclose(fold_values(board, r, amount),
                                   brute_force_fold(board, r, amount),
                                   rtol=0, atol=1e-12 * abs(amount) * r.sum())


def test_sweeps_refuse_bad_input():
    with pytest.raises(RcfrError):
        showdown_values("Td9d6hQc2s", np.ones(10), 1.0, 0.0, -1.0)
    with pytest.raises(RcfrError):
        fold_values("Td9d", np.ones(NUM_COMBOS), 1.0)
