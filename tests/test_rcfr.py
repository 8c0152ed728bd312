"""Regression CFR (Morrill 2016, ch. 3-4; D'Orazio et al. 2019): tabular equivalence, the
thesis's central claim on canonical Leduc, linear estimators, and bad input."""

import numpy as np
import pytest

import rcfr
from rcfr.features import infoset_features, sequence_features
from rcfr.solvers.rcfr import RCFRSolver, split_leaves

EQUIV_GAMES = ["kuhn", "leduc(canonical=true)", "random_game(seed=4)"]


@pytest.mark.parametrize("game", EQUIV_GAMES)
@pytest.mark.parametrize("bootstrap", [False, True])
@pytest.mark.parametrize("link", [None, "poly:3", "exp:0.5"])
def test_tabular_rcfr_is_cfr(game, bootstrap, link):
    tree = rcfr.compile_game(game)
    for rcfr_name, cfr_name, averaging in (("rcfr", "cfr", "uniform"),
                                           ("rcfr+", "cfr+", "linear")):
        ref = rcfr.CFRSolver(tree, cfr_name, averaging=averaging, link=link).run(300)
        ours = RCFRSolver(tree, rcfr_name, regressor="tabular", bootstrap=bootstrap,
                          averaging=averaging, link=link).run(300)
        np.testing.assert_allclose(ours.strategy_, ref.strategy_, rtol=0, atol=1e-12)
        np.testing.assert_allclose(ours.avg_weights_, ref.avg_weights_, rtol=1e-12, atol=0)
        assert rcfr.exploitability(tree, ours.average_policy()) == pytest.approx(
            rcfr.exploitability(tree, ref.average_policy()), abs=1e-12)
        assert ours.complexity == tree.num_sequences


@pytest.fixture(scope="module")
def leduc_runs():
    """Canonical Leduc, thesis features, 1000 iterations, uniform averaging (the thesis's)."""
    tree = rcfr.compile_game("leduc(canonical=true)")
    n = 1000
    out = {"cfr+": rcfr.exploitability(
        tree, rcfr.CFRSolver(tree, "cfr+", averaging="uniform").run(n).average_policy())}
    for share in (0.8, 0.3):
        for alg in ("rcfr", "rcfr+"):
            solver = RCFRSolver(tree, alg, leaves=round(share * 672)).run(n)
            out[alg, share] = rcfr.exploitability(tree, solver.average_policy())
            assert solver.complexity <= round(share * 672)
    return out


def test_rcfr_plus_at_80_percent_matches_cfr_plus(leduc_runs):
    assert leduc_runs["rcfr+", 0.8] <= 1.10 * leduc_runs["cfr+"]


def test_rcfr_plus_beats_rcfr_at_30_percent(leduc_runs):
    # the thesis's central claim: Q-regret targets use the regressor's capacity better
    assert leduc_runs["rcfr+", 0.3] < leduc_runs["rcfr", 0.3]
    assert leduc_runs["rcfr+", 0.3] > leduc_runs["rcfr+", 0.8]  # less capacity, worse


def test_bootstrapped_rcfr_plus_converges():
    tree = rcfr.compile_game("leduc(canonical=true)")
    solver = RCFRSolver(tree, "rcfr+", leaves=538, bootstrap=True)
    first = rcfr.exploitability(tree, solver.run(100).average_policy())
    later = rcfr.exploitability(tree, solver.run(400).average_policy())
    assert later < 0.5 * first


def test_leaf_budget_is_split_by_sequences():
    tree = rcfr.compile_game("nl_one_card")
    assert split_leaves(tree, 960) == [480, 480]
    kuhn = rcfr.compile_game("kuhn")
    assert sum(split_leaves(kuhn, 7)) == 7


def test_best_first_tree_on_regret_targets_equals_sklearn():
    from sklearn.tree import DecisionTreeRegressor

    from rcfr.regressors.best_first import BestFirstTree

    tree = rcfr.compile_game("leduc(canonical=true)")
    solver = rcfr.CFRSolver(tree, "cfr").run(50)
    for p in (0, 1):
        X = sequence_features(tree, p, "thesis")
        seqs = tree.player_sequences(p)
        y = solver.estimator_.regrets[seqs.start:seqs.stop]
        for k in (10, 60, 150):
            ours = BestFirstTree(max_leaves=k).fit(X, y).predict(X)
            theirs = DecisionTreeRegressor(max_leaf_nodes=k).fit(X, y).predict(X)
            assert np.mean((ours - y) ** 2) == pytest.approx(np.mean((theirs - y) ** 2),
                                                             rel=1e-9, abs=1e-12)


def test_ridge_on_onehot_recovers_cfr():
    tree = rcfr.compile_game("kuhn")
    ref = rcfr.CFRSolver(tree, "cfr").run(40)
    ours = RCFRSolver(tree, "rcfr", regressor="ridge", features="onehot", alpha=1e-10).run(40)
    np.testing.assert_allclose(ours.estimator_.estimates, ref.estimator_.regrets,
                               rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ours.strategy_, ref.strategy_, atol=1e-6)


def test_more_hashing_partitions_fit_regrets_better():
    """D'Orazio et al.: the number of partitions K sets how coarse the approximation is."""
    tree = rcfr.compile_game("leduc(canonical=true)")
    regrets = rcfr.CFRSolver(tree, "cfr").run(100).estimator_.regrets
    errors = {}
    for k in (1, 4, 16):
        total = 0.0
        for seed in range(3):
            for p in (0, 1):
                F = infoset_features(tree, p, f"hashing:{k}", seed)
                first = tree.player_infosets(p).start
                seqs = np.array(tree.player_sequences(p))
                for a in np.unique(tree.seq_action[seqs]):
                    rows = seqs[tree.seq_action[seqs] == a]
                    X = F[tree.seq_infoset[rows] - first]
                    w = np.linalg.lstsq(X.T @ X + 1e-6 * np.eye(X.shape[1]), X.T @ regrets[rows],
                                        rcond=None)[0]
                    total += np.sum((X @ w - regrets[rows]) ** 2)
        errors[k] = total
    assert errors[16] < errors[4] < errors[1]


def test_ridge_hashing_solver_runs():
    tree = rcfr.compile_game("leduc(canonical=true)")
    few = RCFRSolver(tree, "rcfr", regressor="ridge", features="hashing:2").run(300)
    many = RCFRSolver(tree, "rcfr", regressor="ridge", features="hashing:30").run(300)
    assert few.complexity < many.complexity
    assert rcfr.exploitability(tree, many.average_policy()) < rcfr.exploitability(
        tree, few.average_policy())


def test_f_rcfr_tracks_its_cumulative_regression_error(tmp_path):
    """D'Orazio et al.'s estimator keeps the exact cumulative regrets beside its estimates
    (the ridge fit of them, since ridge is linear in its targets) and sums the squared error
    between the two after every update; with one-hot features the fit is exact (error ~0),
    with coarse hashing it is not; the error is part of the checkpoint (resume bit for
    bit)."""
    tree = rcfr.compile_game("leduc(canonical=true)")
    solver = RCFRSolver(tree, "rcfr", regressor="ridge", features="hashing:3", link="exp:1")
    est = solver.run(1).estimator_
    total = est.error_
    for _ in range(6):
        solver.run(1)
        for p in (0, 1):
            F = infoset_features(tree, p, "hashing:3", 0)
            first = tree.player_infosets(p).start
            seqs = np.array(tree.player_sequences(p))
            for a in np.unique(tree.seq_action[seqs]):
                rows = seqs[tree.seq_action[seqs] == a]
                X = F[tree.seq_infoset[rows] - first]
                w = np.linalg.solve(X.T @ X + 1e-3 * np.eye(X.shape[1]),
                                    X.T @ est.cumulative_[rows])
                np.testing.assert_allclose(est.estimates[rows], X @ w, rtol=1e-8, atol=1e-8)
        miss = est.estimates - est.cumulative_
        total += miss @ miss  # (both players update once an iteration, alternating)
        assert est.error_ == pytest.approx(total, rel=1e-12) and total > 1.0
    exact = RCFRSolver(tree, "rcfr", regressor="ridge", features="onehot", alpha=1e-12).run(7)
    assert exact.estimator_.error_ < 1e-12 * total
    half = RCFRSolver(tree, "rcfr", regressor="ridge", features="hashing:3", link="exp:1").run(3)
    half.save_checkpoint(tmp_path / "c.npz")
    resumed = RCFRSolver(tree, "rcfr", regressor="ridge", features="hashing:3", link="exp:1")
    resumed.load_checkpoint(tmp_path / "c.npz").run(4)
    assert resumed.estimator_.error_ == est.error_
    np.testing.assert_array_equal(resumed.estimator_.cumulative_, est.cumulative_)


def test_rcfr_checkpoint_resume(tmp_path):
    tree = rcfr.compile_game("leduc(canonical=true)")
    straight = RCFRSolver(tree, "rcfr+", leaves=200, bootstrap=True).run(40)
    half = RCFRSolver(tree, "rcfr+", leaves=200, bootstrap=True).run(20)
    half.save_checkpoint(tmp_path / "c.npz")
    resumed = RCFRSolver(tree, "rcfr+", leaves=200, bootstrap=True)
    resumed.load_checkpoint(tmp_path / "c.npz").run(20)
    np.testing.assert_array_equal(resumed.strategy_, straight.strategy_)
    np.testing.assert_array_equal(resumed.avg_weights_, straight.avg_weights_)
    other = RCFRSolver(tree, "rcfr+", leaves=200)
    with pytest.raises(rcfr.RcfrError, match="bootstrap"):
        other.load_checkpoint(tmp_path / "c.npz")


@pytest.mark.parametrize("options, message", [
    ({"leaves": 0}, "leaf budget"),
    ({"leaves": 2.5}, "leaf budget"),
    ({"regressor": "forest"}, "unknown regressor"),
    ({"link": "poly:1"}, "p > 1"),
    ({"link": "exp:-1"}, "temperature > 0"),
    ({"link": "cubic"}, "link"),
    ({"features": "hashing:0"}, "at least 1 partition"),
    ({"features": "pixels"}, "unknown features"),
    ({"regressor": "sklearn:no.such.Model"}, "no.such.Model"),
])
def test_bad_options(options, message):
    with pytest.raises(rcfr.RcfrError, match=message):
        RCFRSolver("leduc(canonical=true)", "rcfr+", **options).run(1)


@pytest.mark.parametrize("alpha", [-1.0, float("inf"), "0.1"])
def test_the_ridge_penalty_is_a_number_at_least_zero(alpha):
    with pytest.raises(rcfr.RcfrError, match="ridge penalty must be a (finite )?number"):
        RCFRSolver("kuhn", "rcfr", regressor="ridge", features="hashing:1", alpha=alpha).run(1)


def test_unknown_rcfr_algorithm():
    with pytest.raises(rcfr.RcfrError, match="rcfr or rcfr"):
        RCFRSolver("kuhn", "rcfr++")


def test_recursive_partitioning_threshold_on_average_regrets():
    """The recursive tree's threshold is on average regrets (the loop fits it on R / t): a
    larger threshold gives a smaller tree, and threshold 0 on one-hot features is tabular."""
    tree = rcfr.compile_game("leduc(canonical=true)")
    sizes = [RCFRSolver(tree, "rcfr+", regressor="recursive", threshold=th).run(50).complexity
             for th in (0.0, 1e-4, 1e-2)]
    assert sizes[0] >= sizes[1] >= sizes[2] and sizes[0] > sizes[2]
    exact = RCFRSolver(tree, "rcfr", regressor="recursive", threshold=0.0, features="onehot")
    ref = rcfr.CFRSolver(tree, "cfr").run(30)
    np.testing.assert_allclose(exact.run(30).estimator_.estimates, ref.estimator_.regrets,
                               rtol=1e-9, atol=1e-9)
