"""Regressors for RCFR: best-first and recursive-partitioning trees against scikit-learn, ridge
regression, tug-of-war features and the scikit-learn adapter."""

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.tree import DecisionTreeRegressor

from rcfr.core.errors import RcfrError
from rcfr.regressors import (
    BestFirstTree,
    RecursivePartitioningTree,
    RidgeRegression,
    SklearnRegressor,
    tug_of_war_features,
)

LEAVES = [2, 3, 5, 10, 25, 60, 200]


def continuous(seed, n=200, d=6):
    """Random features exactly representable in float32 (scikit-learn's trees cast X to
    float32), so that both libraries see the same values and thresholds."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32).astype(np.float64)
    return X, rng.normal(size=n)


def tied(seed, n=300):
    """Features with many ties: binary, small integers and a one-hot block."""
    rng = np.random.default_rng(seed)
    X = np.hstack([(rng.random((n, 6)) < 0.3), rng.integers(0, 5, size=(n, 3)),
                   np.eye(5)[rng.integers(0, 5, size=n)]]).astype(np.float64)
    return X, rng.normal(size=n)


def sk_tree(k, X, y, **kw):
    return DecisionTreeRegressor(max_leaf_nodes=k, random_state=0, **kw).fit(X, y)


def mse(model, X, y):
    return float(np.mean((model.predict(X) - y) ** 2))


# -- best-first tree ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_best_first_matches_sklearn_on_continuous_features(seed):
    X, y = continuous(seed)
    tree = BestFirstTree(2)
    for k in LEAVES:
        tree.max_leaves = k
        tree.fit(X, y)  # the same X object each time: the sorted features are reused
        sk = sk_tree(k, X, y)
        assert tree.complexity == sk.get_n_leaves() == min(k, len(y))
        np.testing.assert_allclose(tree.predict(X), sk.predict(X), rtol=0, atol=1e-10)


def test_best_first_matches_sklearn_off_the_training_set_with_one_feature():
    # with one feature no two splits tie, so the trees are identical everywhere
    rng = np.random.default_rng(3)
    X = rng.normal(size=(150, 1)).astype(np.float32).astype(np.float64)
    y = np.sin(3 * X[:, 0]) + 0.3 * rng.normal(size=150)
    Q = rng.normal(size=(1000, 1)).astype(np.float32).astype(np.float64)
    for k in LEAVES:
        tree, sk = BestFirstTree(k).fit(X, y), sk_tree(k, X, y)
        np.testing.assert_allclose(tree.predict(Q), sk.predict(Q), rtol=0, atol=1e-10)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_best_first_training_error_matches_sklearn_on_tied_features(seed):
    # splits on different features may tie exactly (sklearn breaks such ties at random);
    # the training error does not depend on which tied split is taken
    X, y = tied(seed)
    for k in LEAVES:
        tree, sk = BestFirstTree(k).fit(X, y), sk_tree(k, X, y)
        assert tree.complexity == sk.get_n_leaves()
        assert abs(mse(tree, X, y) - mse(sk, X, y)) < 1e-10


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("min_leaf", [1, 3])
def test_best_first_training_error_matches_sklearn_on_mixed_features(weighted, min_leaf):
    # continuous features (sorted sweeps) next to few-valued ones (histograms), in one tree
    Xc, y = continuous(20, n=250, d=4)
    Xt, _ = tied(20, n=250)
    X = np.hstack([Xt[:, :7], Xc, Xt[:, 7:]])
    w = np.random.default_rng(20).uniform(0.2, 3.0, size=len(y)) if weighted else None
    for k in [2, 7, 30, 120]:
        tree = BestFirstTree(k, min_samples_leaf=min_leaf).fit(X, y, sample_weight=w)
        sk = sk_tree(k, X, y, min_samples_leaf=min_leaf) if w is None else DecisionTreeRegressor(
            max_leaf_nodes=k, min_samples_leaf=min_leaf).fit(X, y, sample_weight=w)
        assert tree.complexity == sk.get_n_leaves()
        ours = np.average((tree.predict(X) - y) ** 2, weights=w)
        theirs = np.average((sk.predict(X) - y) ** 2, weights=w)
        assert abs(ours - theirs) < 1e-10


def test_best_first_matches_sklearn_with_weights_and_min_samples_leaf():
    X, y = continuous(4)
    w = np.random.default_rng(4).uniform(0.2, 3.0, size=len(y))
    for k in [3, 10, 40]:
        tree = BestFirstTree(k).fit(X, y, sample_weight=w)
        sk = DecisionTreeRegressor(max_leaf_nodes=k).fit(X, y, sample_weight=w)
        np.testing.assert_allclose(tree.predict(X), sk.predict(X), rtol=0, atol=1e-10)
        for leaf in [2, 5]:
            tree = BestFirstTree(k, min_samples_leaf=leaf).fit(X, y)
            sk = sk_tree(k, X, y, min_samples_leaf=leaf)
            np.testing.assert_allclose(tree.predict(X), sk.predict(X), rtol=0, atol=1e-10)
            assert np.unique(tree.apply(X), return_counts=True)[1].min() >= leaf


def node_samples(tree, X):
    """For every node of ``tree``, the indices of the rows of ``X`` that reach it."""
    rows = {0: np.arange(len(X))}
    for q in range(len(tree.value_)):
        if tree.children_left_[q] >= 0:
            go = X[rows[q], tree.feature_[q]] <= tree.threshold_[q]
            rows[tree.children_left_[q]] = rows[q][go]
            rows[tree.children_right_[q]] = rows[q][~go]
    return rows


@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error"])
def test_every_split_is_the_best_one_and_leaves_are_means_or_medians(criterion):
    # brute force over all features and thresholds, independent of scikit-learn
    X, y = tied(21, n=150)
    X[:, 0] = np.random.default_rng(21).normal(size=150)
    tree = BestFirstTree(25, criterion=criterion).fit(X, y)
    center = np.mean if criterion == "squared_error" else np.median

    def error(v):
        return np.sum((v - v.mean()) ** 2) if criterion == "squared_error" else \
            np.sum(np.abs(v - np.median(v)))

    for q, rows in node_samples(tree, X).items():
        assert abs(tree.value_[q] - center(y[rows])) < 1e-12
        if tree.children_left_[q] < 0:
            continue
        best = min(error(y[rows[X[rows, f] <= t]]) + error(y[rows[X[rows, f] > t]])
                   for f in range(X.shape[1]) for t in np.unique(X[rows, f])[:-1])
        go = X[rows, tree.feature_[q]] <= tree.threshold_[q]
        assert abs(error(y[rows[go]]) + error(y[rows[~go]]) - best) < 1e-9


@pytest.mark.parametrize("seed", range(5))
def test_best_first_absolute_error_matches_sklearn(seed):
    # absolute-error splits tie often (the error is flat between some thresholds), and the two
    # libraries break such ties by rounding differently: compare the first split's error
    X, y = continuous(seed, n=120, d=4)
    tree = BestFirstTree(2, criterion="absolute_error").fit(X, y)
    sk = sk_tree(2, X, y, criterion="absolute_error")
    assert abs(np.abs(tree.predict(X) - y).sum() - np.abs(sk.predict(X) - y).sum()) < 1e-9
    one = BestFirstTree(1, criterion="absolute_error").fit(X, y)
    np.testing.assert_allclose(one.predict(X[:3]), np.median(y))


def test_best_first_budget_and_stopping():
    X, y = continuous(6, n=40)
    assert BestFirstTree(1).fit(X, y).complexity == 1
    assert np.allclose(BestFirstTree(1).fit(X, y).predict(X), y.mean())
    full = BestFirstTree(1000).fit(X, y)
    assert full.complexity == 40  # every sample alone: no split is left
    np.testing.assert_allclose(full.predict(X), y, atol=1e-12)
    assert BestFirstTree(10).fit(X, np.full(40, 2.5)).complexity == 1  # nothing to reduce


def test_best_first_takes_zero_gain_splits_like_sklearn():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = np.array([0.0, 1.0, 1.0, 0.0])  # XOR: the first split gains nothing
    tree = BestFirstTree(4).fit(X, y)
    np.testing.assert_allclose(tree.predict(X), y)
    assert tree.complexity == 4


def test_best_first_refits_reuse_the_sorted_features():
    X, y = tied(7)
    tree = BestFirstTree(30).prepare(X)
    layout = tree._layout
    for seed in range(5):
        target = np.random.default_rng(seed).normal(size=len(y))
        tree.fit(X, target)
        assert tree._layout is layout
        np.testing.assert_array_equal(tree.predict(X), BestFirstTree(30).fit(X, target).predict(X))
    X2 = X.copy()
    X2[:, 0] = 1.0 - X2[:, 0]  # a different matrix object is sorted afresh
    tree.fit(X2, y)
    assert tree._layout is not layout
    np.testing.assert_array_equal(tree.predict(X2), BestFirstTree(30).fit(X2, y).predict(X2))


@pytest.mark.parametrize("make, message", [
    (lambda: BestFirstTree(0), "max_leaves must be >= 1"),
    (lambda: BestFirstTree(2.5), "max_leaves must be a whole number"),
    (lambda: BestFirstTree(4, criterion="gini"), "unknown criterion 'gini'"),
    (lambda: BestFirstTree(4, min_samples_leaf=0), "min_samples_leaf must be >= 1"),
    (lambda: RecursivePartitioningTree(-1.0), "threshold must be a finite number >= 0"),
    (lambda: RecursivePartitioningTree(0.1, max_leaves=0), "max_leaves must be >= 1"),
])
def test_tree_parameters_are_checked_in_fit(make, message):
    model = make()  # configuring never fails
    X, y = continuous(0, n=20)
    with pytest.raises(RcfrError, match=message) as info:
        model.fit(X, y)
    assert "\n" not in str(info.value)


def test_tree_inputs_are_checked():
    X, y = continuous(0, n=20)
    tree = BestFirstTree(4)
    with pytest.raises(RcfrError, match="not fitted"):
        tree.predict(X)
    with pytest.raises(RcfrError, match=r"y must have shape \(20,\)"):
        tree.fit(X, y[:-1])
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(RcfrError, match="NaN"):
        tree.fit(bad, y)
    with pytest.raises(RcfrError, match="sample_weight"):
        tree.fit(X, y, sample_weight=-np.ones(20))
    tree.fit(X, y)
    with pytest.raises(RcfrError, match="X has 5 features"):
        tree.predict(X[:, :5])


# -- recursive partitioning ---------------------------------------------------------------------

@pytest.mark.parametrize("criterion", ["squared_error", "absolute_error"])
def test_recursive_threshold_zero_fits_distinct_targets_exactly(criterion):
    X, y = continuous(8, n=80)
    tree = RecursivePartitioningTree(0.0, criterion=criterion).fit(X, y)
    np.testing.assert_allclose(tree.predict(X), y, atol=1e-12)
    assert tree.complexity == 80


def test_recursive_larger_threshold_gives_fewer_leaves():
    X, y = continuous(9, n=300)
    thresholds = [0.0, 0.05, 0.1, 0.2, 0.4, 0.7, 1.0, 10.0]
    leaves = [RecursivePartitioningTree(t).fit(X, y).complexity for t in thresholds]
    assert leaves == sorted(leaves, reverse=True)
    assert leaves[0] == 300 and leaves[-1] == 1 and len(set(leaves)) >= 5
    # every leaf it stops at has a mean squared error within the threshold
    tree = RecursivePartitioningTree(0.2).fit(X, y)
    ids = tree.apply(X)
    for leaf in np.unique(ids):
        assert y[ids == leaf].var() <= 0.2 + 1e-12


def test_recursive_max_leaves_caps_the_tree():
    X, y = continuous(10, n=200)
    assert RecursivePartitioningTree(0.0, max_leaves=17).fit(X, y).complexity == 17
    # with a budget and no threshold it is the best-first tree
    np.testing.assert_allclose(RecursivePartitioningTree(0.0, max_leaves=17).fit(X, y).predict(X),
                               BestFirstTree(17).fit(X, y).predict(X))


# -- ridge regression ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(60, 12), (15, 40)])
@pytest.mark.parametrize("fit_intercept", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_ridge_matches_sklearn(shape, fit_intercept, weighted):
    rng = np.random.default_rng(11)
    X, y = rng.normal(size=shape), rng.normal(size=shape[0]) + 2.0
    w = rng.uniform(0.1, 2.0, size=shape[0]) if weighted else None
    for alpha in [0.1, 1.0, 7.5]:
        ours = RidgeRegression(alpha, fit_intercept=fit_intercept).fit(X, y, sample_weight=w)
        sk = Ridge(alpha=alpha, fit_intercept=fit_intercept).fit(X, y, sample_weight=w)
        np.testing.assert_allclose(ours.coef_, sk.coef_, rtol=0, atol=1e-8)
        assert abs(ours.intercept_ - sk.intercept_) < 1e-8
        np.testing.assert_allclose(ours.predict(X), sk.predict(X), rtol=0, atol=1e-8)
        assert ours.complexity == shape[1]


@pytest.mark.parametrize("fit_intercept", [False, True])
def test_ridge_weights_are_linear_in_the_targets(fit_intercept):
    # what lets f-RCFR sum the weights of each iteration instead of refitting summed regrets
    rng = np.random.default_rng(12)
    X = rng.normal(size=(50, 8))
    model = RidgeRegression(0.5, fit_intercept=fit_intercept)
    ys = rng.normal(size=(4, 50))
    coefs = [model.fit(X, y).coef_.copy() for y in ys]
    intercepts = [model.fit(X, y).intercept_ for y in ys]
    total = RidgeRegression(0.5, fit_intercept=fit_intercept).fit(X, ys.sum(0))
    np.testing.assert_allclose(np.sum(coefs, axis=0), total.coef_, atol=1e-10)
    assert abs(sum(intercepts) - total.intercept_) < 1e-10


def test_ridge_alpha_zero_is_least_squares_and_negative_alpha_fails():
    rng = np.random.default_rng(13)
    X, y = rng.normal(size=(30, 5)), rng.normal(size=30)
    np.testing.assert_allclose(RidgeRegression(0.0).fit(X, y).coef_,
                               np.linalg.lstsq(X, y, rcond=None)[0], atol=1e-10)
    with pytest.raises(RcfrError, match="alpha must be a finite number >= 0"):
        RidgeRegression(-1.0).fit(X, y)
    with pytest.raises(RcfrError, match="not fitted"):
        RidgeRegression().predict(X)


# -- tug-of-war features -------------------------------------------------------------------------

KEYS = [f"P{i % 2}:{i // 7}:{'crb'[i % 3]}" + "c" * (i % 5) + str(i) for i in range(157)]


@pytest.mark.parametrize("k, buckets", [(1, 10), (3, 10), (8, 7), (2, 200)])
def test_tug_of_war_shape_signs_and_bucket_sizes(k, buckets):
    F = tug_of_war_features(KEYS, k, buckets, seed=5)
    assert F.shape == (len(KEYS), k * buckets)
    assert set(np.unique(F)) <= {-1.0, 0.0, 1.0}
    np.testing.assert_array_equal((F != 0).sum(axis=1), k)
    for j in range(k):
        block = F[:, j * buckets:(j + 1) * buckets]
        np.testing.assert_array_equal((block != 0).sum(axis=1), 1)
        sizes = (block != 0).sum(axis=0)
        assert sizes.max() - sizes.min() <= 1
    signs = F[F != 0]
    assert 0.3 < np.mean(signs > 0) < 0.7


def test_tug_of_war_is_deterministic_in_the_seed_and_the_set_of_keys():
    F = tug_of_war_features(KEYS, 4, seed=1)
    np.testing.assert_array_equal(F, tug_of_war_features(KEYS, 4, seed=1))
    assert not np.array_equal(F, tug_of_war_features(KEYS, 4, seed=2))
    perm = np.random.default_rng(0).permutation(len(KEYS))
    shuffled = tug_of_war_features([KEYS[i] for i in perm], 4, seed=1)
    np.testing.assert_array_equal(shuffled, F[perm])
    # stable hashing (BLAKE2b, not Python's salted hash): the same features in every run
    assert tug_of_war_features(list("abcde"), 2, 2, seed=0).tolist() == [
        [-1, 0, -1, 0], [0, 1, 0, -1], [-1, 0, 0, 1], [0, 1, -1, 0], [-1, 0, -1, 0]]


def test_more_partitions_fit_random_targets_better():
    errors = []
    for k in [1, 2, 4, 8, 16]:
        err = []
        for seed in range(5):
            F = tug_of_war_features(KEYS, k, buckets=5, seed=seed)
            y = np.random.default_rng(100 + seed).normal(size=len(KEYS))
            coef = np.linalg.lstsq(F, y, rcond=None)[0]
            err.append(np.mean((F @ coef - y) ** 2))
        errors.append(np.mean(err))
    assert all(a > b for a, b in zip(errors, errors[1:], strict=False))


@pytest.mark.parametrize("args, message", [
    ((["a", "a"], 2), "distinct"),
    ((["a", 3], 2), "must be strings"),
    ((["a"], 0), "num_partitions must be >= 1"),
    ((["a"], 1, 0), "buckets must be >= 1"),
])
def test_tug_of_war_checks_its_arguments(args, message):
    with pytest.raises(RcfrError, match=message):
        tug_of_war_features(*args)


# -- scikit-learn adapter ------------------------------------------------------------------------

def test_sklearn_adapter_from_a_dotted_path_and_an_instance():
    X, y = continuous(14, n=100)
    tree = SklearnRegressor("sklearn.tree.DecisionTreeRegressor").fit(X, y)
    assert tree.complexity == tree.estimator_.get_n_leaves() == 100
    np.testing.assert_allclose(tree.predict(X), y)
    ridge = SklearnRegressor(Ridge(alpha=2.0)).fit(X, y, sample_weight=np.ones(100))
    assert ridge.complexity == X.shape[1]
    np.testing.assert_allclose(ridge.predict(X), Ridge(alpha=2.0).fit(X, y).predict(X))
    knn = SklearnRegressor("sklearn.neighbors.KNeighborsRegressor").fit(X, y)
    assert knn.complexity == 0 and knn.predict(X).shape == (100,)


@pytest.mark.parametrize("path, message", [
    ("sklearn.tree.NoSuchRegressor", "cannot import estimator"),
    ("no_such_package.Model", "cannot import estimator"),
    ("Ridge", "must look like 'package.module.Class'"),
    ("collections.OrderedDict", "not a regressor"),
])
def test_sklearn_adapter_rejects_bad_estimators(path, message):
    X, y = continuous(0, n=10)
    with pytest.raises(RcfrError, match=message) as info:
        SklearnRegressor(path).fit(X, y)
    assert "\n" not in str(info.value)


def test_fitted_equals_predict_on_training_rows():
    """``fitted_`` (the kernel's own training predictions, which the solver loop uses) equals
    ``predict`` on the rows just fit."""
    from rcfr.regressors import BestFirstTree, RecursivePartitioningTree

    rng = np.random.default_rng(11)
    X = np.hstack([rng.normal(size=(300, 5)), rng.integers(0, 3, size=(300, 6))])
    for _ in range(5):
        y = rng.normal(size=300)
        for tree in (BestFirstTree(max_leaves=40), RecursivePartitioningTree(0.2)):
            tree.fit(X, y)
            np.testing.assert_array_equal(tree.fitted_, tree.predict(X))


@pytest.mark.parametrize("n, partitions, alpha", [(200, 4, 1e-3),   # primal: 40 features
                                                  (30, 8, 1e-3),    # dual: 80 > 30 rows
                                                  (60, 3, 0.0)])    # pseudo-inverse
def test_ridge_sum_is_the_sum_of_ridge_fits(n, partitions, alpha):
    """f-RCFR's summed ridge fits through the features' sparsity (primal, dual or
    pseudo-inverse core) equal the dense fits summed (and the fit of the summed targets), and
    the estimates are ``X @ weights``; zero targets are skipped without changing a number."""
    from rcfr.regressors import tug_of_war_features
    from rcfr.regressors.ridge_sum import DENSE, DUAL, PRIMAL, RidgeSum

    rng = np.random.default_rng(n)
    X = tug_of_war_features([f"k{i}" for i in range(n)], partitions, seed=3)
    ridge = RidgeSum(X, alpha)
    assert ridge.mode == {(200, 4): PRIMAL, (30, 8): DUAL, (60, 3): DENSE}[(n, partitions)]
    total = np.zeros(n + 5)
    rows = np.arange(5, n + 5)[rng.permutation(n)]  # the model's rows in a longer vector
    weights, estimates = np.zeros(X.shape[1]), np.full(n + 5, np.nan)
    dense = np.zeros(X.shape[1])
    for _ in range(4):
        targets = rng.normal(size=n + 5) * (rng.random(n + 5) < 0.7)
        ridge.add(rows, targets, weights, estimates)
        dense += RidgeRegression(alpha).fit(X, targets[rows]).coef_
        total += targets
    np.testing.assert_allclose(weights, dense, rtol=1e-9, atol=1e-10)
    summed = RidgeRegression(alpha).fit(X, total[rows]).coef_
    np.testing.assert_allclose(weights, summed, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(estimates[rows], X @ weights, rtol=1e-12, atol=1e-12)
    assert np.isnan(estimates[:5]).all()  # rows outside the model untouched
