"""Feature providers: the registry, user feature functions reaching the regressor, and rows
built lazily for the sequences asked for."""

import numpy as np
import pytest

import rcfr
from rcfr.features import (
    FeatureRows,
    default_features,
    parse_features,
    register_default_features,
    register_features,
    sequence_features,
)
from rcfr.features import registry as F
from rcfr.games.leduc import LeducPoker
from rcfr.regressors import RidgeRegression
from rcfr.solvers.rcfr import RCFRSolver


@pytest.fixture(autouse=True)
def registry(monkeypatch):
    """Registrations made by a test are undone after it."""
    monkeypatch.setattr(F, "_PROVIDERS", dict(F._PROVIDERS))
    monkeypatch.setattr(F, "_DEFAULTS", dict(F._DEFAULTS))


class Recorder(RidgeRegression):
    """A ridge regression that keeps every matrix it was fit on."""

    def fit(self, X, y, sample_weight=None):
        self.__dict__.setdefault("seen_", []).append(np.array(X))
        return super().fit(X, y, sample_weight)


def depth_and_action(tree, player):
    """A user feature function: each sequence's depth in the tree and its action id."""
    seqs = tree.player_sequences(player)
    nodes = tree.infoset_node[tree.seq_infoset[seqs.start:seqs.stop]]
    depth = np.zeros(len(seqs))
    for i, node in enumerate(nodes):
        while node > 0:
            node = tree.node_parent[node]
            depth[i] += 1
    return np.column_stack([depth, tree.seq_action[seqs.start:seqs.stop], np.ones(len(seqs))])


@pytest.mark.parametrize("how", ["registered", "callable"])
def test_a_user_feature_function_reaches_the_regressor(kuhn, how):
    calls = []

    def fn(tree, player):
        calls.append(player)
        return depth_and_action(tree, player)

    if how == "registered":
        register_features("mine", lambda tree, player, k, seed: fn(tree, player))
        spec = "mine"
        assert "mine" in F.feature_sets() and parse_features("MINE") == ("mine", 0)
    else:
        spec = fn
    solver = RCFRSolver(kuhn, "rcfr", regressor=Recorder(alpha=1e-6), features=spec).run(3)
    assert sorted(calls) == [0, 1]
    for p, reg in enumerate(solver.estimator_.regressors_):
        assert len(reg.seen_) == 3  # one fit per iteration, on the user's columns
        for X in reg.seen_:
            np.testing.assert_array_equal(X, depth_and_action(kuhn, p))
    assert solver.complexity == 2 * 3  # three weights per player


def test_user_features_are_checked(kuhn):
    register_features("short", lambda tree, player, k, seed: np.ones((2, 3)))
    with pytest.raises(rcfr.RcfrError, match="must return a matrix of 12 rows"):
        sequence_features(kuhn, 0, "short")
    with pytest.raises(rcfr.RcfrError, match="NaN"):
        sequence_features(kuhn, 0, lambda tree, player: np.full((12, 2), np.nan))
    with pytest.raises(rcfr.RcfrError, match="plain name"):
        register_features("bad:name", lambda *a: None)
    with pytest.raises(rcfr.RcfrError, match="take no parameter"):
        parse_features("onehot:3")


def test_games_register_their_default_features(kuhn, leduc):
    assert default_features(leduc) == "thesis" and default_features(kuhn) == "onehot"
    assert default_features(kuhn.game) == "onehot"

    class Variant(LeducPoker):
        pass

    assert default_features(Variant()) == "thesis"  # inherited
    register_features("flat", lambda tree, player, k, seed: np.ones(
        (len(tree.player_sequences(player)), 1)), games=(Variant,), games_text="the variant")
    register_default_features(Variant, "flat")
    assert default_features(Variant()) == "flat" and default_features(leduc) == "thesis"
    with pytest.raises(rcfr.RcfrError, match="defined for the variant, not"):
        sequence_features(leduc, 0, "flat")


@pytest.mark.parametrize("game, spec", [("kuhn", "onehot"), ("leduc", "hashing:3"),
                                        ("leduc", "thesis"), ("kuhn", "hashing:1")])
def test_lazy_rows_equal_the_dense_matrix(game, spec):
    tree = rcfr.compile_game(game)
    for p in (0, 1):
        dense = sequence_features(tree, p, spec, seed=4)
        rows = FeatureRows(tree, p, spec, seed=4)
        idx = np.random.default_rng(p).choice(len(dense), size=7, replace=False)
        np.testing.assert_array_equal(rows.rows(idx), dense[idx])
        np.testing.assert_array_equal(rows.rows([]), dense[:0])


def test_lazy_rows_of_a_game_too_large_for_a_dense_matrix():
    tree = rcfr.compile_game("liars_dice")
    n = len(tree.player_sequences(0))  # 24,570: a dense one-hot matrix is refused
    with pytest.raises(rcfr.RcfrError, match="hashing:K"):
        sequence_features(tree, 0, "onehot")
    rows = FeatureRows(tree, 0, "onehot")
    batch = rows.rows([5, 24569, 5])
    assert batch.shape == (3, n) and batch.sum() == 3 and batch[1, 24569] == 1.0
    H = FeatureRows(tree, 0, "hashing:2").rows(np.arange(0, n, 1000))
    np.testing.assert_array_equal(H, sequence_features(tree, 0, "hashing:2")[::1000])
    with pytest.raises(rcfr.RcfrError, match="must lie in"):
        rows.rows([n])
