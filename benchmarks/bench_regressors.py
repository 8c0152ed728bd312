#!/usr/bin/env python
"""Regressor speed benchmark: one refit of rcfr's regressors against scikit-learn's.

In the solver loop the feature matrix stays fixed while the targets change every iteration, so
each figure is the median time of one ``fit(X, y)`` over a sequence of *different* targets on
the *same* ``X`` object, after an untimed warm-up fit (which also compiles or loads the numba
kernels and sorts the features once).  Everything is measured in one run with
``time.perf_counter``.

    .venv/bin/python benchmarks/bench_regressors.py            # ~340 x 40, 150 leaves
    .venv/bin/python benchmarks/bench_regressors.py --quick    # fewer repeats
    .venv/bin/python benchmarks/bench_regressors.py --json     # one JSON object on stdout

Feature matrices (340 samples x 40 features):

* ``continuous`` -- standard normal values, all distinct (the worst case: sorted sweeps);
* ``binary``     -- independent 0/1 features, P(1) = 0.3;
* ``one-hot``    -- 8 categorical variables with 5 values each, one-hot encoded;
* ``rcfr-like``  -- what RCFR's poker features look like (Morrill 2016, sec. 4.1): 24
  indicators, 10 small counts (2-6 values), 4 features with 13 values, 2 with 40 values;
* ``leduc-thesis`` -- when ``rcfr.features`` provides them: the thesis features of player 0's
  sequences in ``leduc(canonical=true)`` (336 x 79), the matrix the solver loop fits on.

``BestFirstTree(150)`` is compared with ``DecisionTreeRegressor(max_leaf_nodes=150)``, which
grows the same tree; ``max |mse diff|`` is the largest difference of their training errors.
``RidgeRegression(1.0)`` is compared with ``Ridge(1.0, fit_intercept=False)`` on tug-of-war
features (10 partitions x 10 buckets).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

try:
    from rcfr.regressors import BestFirstTree, RidgeRegression, tug_of_war_features
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from rcfr.regressors import BestFirstTree, RidgeRegression, tug_of_war_features

N, D, LEAVES = 340, 40, 150


def feature_matrices(rng: np.random.Generator) -> dict[str, np.ndarray]:
    def ints(cols: int, low: int, high: int) -> np.ndarray:
        k = rng.integers(low, high + 1, size=cols)
        return np.column_stack([rng.integers(0, v, size=N) for v in k])

    onehot = np.eye(5)[rng.integers(0, 5, size=(N, 8))].reshape(N, 40)
    rcfr_like = np.hstack([rng.random((N, 24)) < 0.25, ints(10, 2, 6), ints(4, 13, 13),
                           rng.integers(0, 40, size=(N, 2)) / 39.0])
    mats = {
        "continuous": rng.normal(size=(N, D)),
        "binary": (rng.random((N, D)) < 0.3).astype(np.float64),
        "one-hot": onehot,
        "rcfr-like": rcfr_like.astype(np.float64),
    }
    try:  # the loop's own features, if this checkout has them
        import rcfr
        from rcfr.features import sequence_features

        tree = rcfr.compile_game("leduc(canonical=true)")
        mats["leduc-thesis"] = np.ascontiguousarray(sequence_features(tree, 0, "thesis", 0),
                                                    dtype=np.float64)
    except Exception:  # optional: skipped when the features module is absent or changed
        pass
    return mats


def median_fit_us(model, X: np.ndarray, targets: np.ndarray) -> float:
    model.fit(X, targets[0])  # warm-up: compile or load kernels, sort features
    times = []
    for y in targets:
        start = time.perf_counter()
        model.fit(X, y)
        times.append(time.perf_counter() - start)
    return 1e6 * statistics.median(times)


def bench_trees(repeats: int, rng: np.random.Generator) -> list[dict]:
    from sklearn.tree import DecisionTreeRegressor

    rows = []
    for name, X in feature_matrices(rng).items():
        targets = rng.normal(size=(repeats, X.shape[0]))
        ours = BestFirstTree(LEAVES)
        theirs = DecisionTreeRegressor(max_leaf_nodes=LEAVES)
        t_ours = median_fit_us(ours, X, targets)
        t_sk = median_fit_us(theirs, X, targets[: max(5, repeats // 10)])
        diff = 0.0
        for y in targets[:5]:
            e1 = np.mean((ours.fit(X, y).predict(X) - y) ** 2)
            e2 = np.mean((theirs.fit(X, y).predict(X) - y) ** 2)
            diff = max(diff, abs(e1 - e2))
        rows.append({"features": name, "shape": list(X.shape), "rcfr_us": t_ours,
                     "sklearn_us": t_sk, "speedup": t_sk / t_ours, "max_mse_diff": diff,
                     "leaves": ours.complexity})
    return rows


def bench_ridge(repeats: int, rng: np.random.Generator) -> dict:
    from sklearn.linear_model import Ridge

    X = tug_of_war_features([f"infoset{i}" for i in range(N)], 10, 10, seed=0)
    targets = rng.normal(size=(repeats, N))
    t_ours = median_fit_us(RidgeRegression(1.0), X, targets)
    t_sk = median_fit_us(Ridge(alpha=1.0, fit_intercept=False), X, targets[: max(5, repeats // 10)])
    return {"features": "tug-of-war 10x10", "rcfr_us": t_ours, "sklearn_us": t_sk,
            "speedup": t_sk / t_ours}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    repeats = 60 if args.quick else 400
    rng = np.random.default_rng(args.seed)
    trees = bench_trees(repeats, rng)
    ridge = bench_ridge(repeats, rng)
    if args.json:
        print(json.dumps({"samples": N, "features": D, "leaves": LEAVES, "repeats": repeats,
                          "best_first_tree": trees, "ridge": ridge}, indent=2))
        return
    print(f"one refit, {N} samples x {D} features (leduc-thesis: 336 x 79), median of "
          f"{repeats} (scikit-learn: of {max(5, repeats // 10)})")
    print(f"\nBestFirstTree({LEAVES}) vs DecisionTreeRegressor(max_leaf_nodes={LEAVES})")
    print(f"{'features':<14}{'rcfr us':>10}{'sklearn us':>12}{'speedup':>9}{'max |mse diff|':>16}")
    for r in trees:
        print(f"{r['features']:<14}{r['rcfr_us']:>10.0f}{r['sklearn_us']:>12.0f}"
              f"{r['speedup']:>8.1f}x{r['max_mse_diff']:>16.1e}")
    print("\nRidgeRegression(1.0) vs Ridge(alpha=1.0, fit_intercept=False)")
    print(f"{ridge['features']:<18}{ridge['rcfr_us']:>8.1f} us {ridge['sklearn_us']:>9.1f} us"
          f"{ridge['speedup']:>8.1f}x")


if __name__ == "__main__":
    main()
