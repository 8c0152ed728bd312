"""Feature sets for regret regressors: the thesis's poker features (Morrill 2016, sec. 4.1),
one-hot, tug-of-war hashing, and the column reduction the trees use."""

import numpy as np
import pytest

import rcfr
from rcfr.features import (
    infoset_features,
    parse_features,
    sequence_features,
    tree_equivalent_columns,
)
from rcfr.solvers.rcfr import RCFRSolver


def row_index(tree, player, key, action):
    i = tree.infoset_index(key, player)
    start = tree.infoset_seq_start[i]
    names = [tree.seq_action_names[s] for s in range(start, start + tree.infoset_num_actions[i])]
    return start + names.index(action) - tree.player_sequences(player).start


def row(tree, player, key, action, spec="thesis"):
    return sequence_features(tree, player, spec)[row_index(tree, player, key, action)]


def test_waugh_betting_features_by_hand():
    tree = rcfr.compile_game("leduc(canonical=true)")
    # K in hand, K on board: player 1 re-raises after check-raise preflop and a flop bet
    r = row(tree, 1, "K|K|crrc/r", "raise", "waugh")
    assert r[0] == 1.0 and r[1] == 3.0 and r[2] == 1.0  # pair of kings: always wins
    # round 2; player 2 acts; a raise; raises by (round, player): 1 and 1 preflop, 1 by
    # player 1 on the flop; first raisers: player 2 preflop, player 1 on the flop; 1 raise in
    # this round before; pot 10 + 4 before, 10 + 4 + 8 after
    np.testing.assert_allclose(r[3:], [1, 0, 1, 0, 0, 1, 1, 1, 1, 0, 2, 1, 1, 14, 22])
    for p in (0, 1):  # every sequence of canonical Leduc has its own features
        X = sequence_features(tree, p, "waugh")
        assert len(np.unique(X, axis=0)) == X.shape[0] == 336


def test_leduc_thesis_features_by_hand():
    tree = rcfr.compile_game("leduc(canonical=true)")
    # Q in hand, board J: wins against nothing, ties the other Q, loses to K, K and J (pair)
    r = row(tree, 0, "Q|J|rc/", "raise")
    assert r[0] == pytest.approx(0.5 / 4)  # expected hand strength
    assert r[1] == 1.0  # board rank: J + 1
    # the newest action first: player 0 raises 4 into a pot of 6 (3 each), stack 13 - 3
    np.testing.assert_allclose(r[2:13], [1, 0, 10, 6, 0, 0, 1, 0, 4, 4 / 6, 4 / 10])
    # then player 1's call of the first-round raise (2 chips; pot 6 after, and 6 once it has
    # matched player 0's 3 chips)
    np.testing.assert_allclose(r[13:24], [0, 1, 6, 10, 0, 1, 0, 0, 2, 2 / 6, 2 / 12])
    assert row(tree, 1, "K|-|c", "call")[1] == 0.0  # no board yet


def test_preflop_hand_strength_is_ordered():
    tree = rcfr.compile_game("leduc(canonical=true)")
    strengths = [row(tree, 0, f"{c}|-|", "call")[0] for c in "JQK"]
    assert strengths[0] < strengths[1] < strengths[2]
    # K before the flop, over the 20 (opponent card, board) deals: lose the 4 where the
    # opponent pairs a J or Q board, tie the 4 where it holds the other K: (12 + 2) / 20
    assert strengths[2] == pytest.approx(0.7)


def test_suits_do_not_change_features():
    plain = rcfr.compile_game("leduc")
    canon = rcfr.compile_game("leduc(canonical=true)")
    for p in (0, 1):
        assert {tuple(r) for r in sequence_features(plain, p, "thesis")} == {
            tuple(r) for r in sequence_features(canon, p, "thesis")}


def test_one_card_features():
    tree = rcfr.compile_game("nl_one_card")
    r = row(tree, 1, "3|r4", "raise to 10")  # the best card, re-raising all-in
    assert r[0] == 1.0 and r[1] == 0.0
    # all-in by player 2 (index 1): 9 more chips, the pot being 8 once it matches the 4, its
    # stack of 9 all used
    np.testing.assert_allclose(r[2:13], [0, 1, 14, 0, 0, 0, 0, 1, 9, 9 / 8, 1.0])
    # player 1's raise to 4: 3 chips into a matched pot of 2
    np.testing.assert_allclose(r[13:24], [1, 0, 5, 6, 0, 0, 1, 0, 3, 3 / 2, 3 / 9])
    # the earlier reading: actor-is-me indicators, fractions of the pot before the action
    old = sequence_features(tree, 1, "thesis-relative")[row_index(tree, 1, "3|r4", "raise to 10")]
    np.testing.assert_allclose(old[2:13], [1, 0, 14, 0, 0, 0, 0, 1, 9, 9 / 5, 1.0])
    solver = RCFRSolver(tree, "rcfr+", leaves=1600).run(100)
    assert rcfr.exploitability(tree, solver.average_policy()) < 0.2


def test_onehot_and_hashing_shapes():
    tree = rcfr.compile_game("kuhn")
    assert sequence_features(tree, 0, "onehot").shape == (12, 12)
    assert infoset_features(tree, 1, "onehot").shape == (6, 6)
    H = infoset_features(tree, 0, "hashing:3")
    assert H.shape == (6, 30) and np.all(np.count_nonzero(H, axis=1) == 3)
    assert sequence_features(tree, 0, "hashing:3").shape == (12, 32)  # + one-hot of 2 actions
    assert parse_features("HASHING:7") == ("hashing", 7)


def test_tree_equivalent_columns():
    X = np.array([[0, 1, 5, 2, 7], [1, 0, 5, 4, 7], [1, 0, 5, 9, 8]], dtype=float)
    # column 1 = 1 - column 0, column 2 and 4... 2 is constant; 3 orders rows as 0 does not
    assert list(tree_equivalent_columns(X)) == [0, 3, 4]


@pytest.mark.parametrize("spec, message", [
    ("hashing", "number of partitions"), ("hashing:x", "number of partitions"),
    ("hashing:0", "at least 1"), ("colour", "unknown features")])
def test_bad_feature_specs(spec, message):
    with pytest.raises(rcfr.RcfrError, match=message):
        parse_features(spec)


def test_thesis_features_only_for_poker():
    with pytest.raises(rcfr.RcfrError, match="leduc and nl_one_card"):
        sequence_features(rcfr.compile_game("kuhn"), 0, "thesis")


def test_onehot_refuses_large_games():
    tree = rcfr.compile_game("liars_dice")
    with pytest.raises(rcfr.RcfrError, match="hashing:K"):
        sequence_features(tree, 0, "onehot")
    assert sequence_features(tree, 0, "hashing:2").shape == (24570, 20 + 13)
