"""Regret estimators for Regression CFR (Morrill 2016, ch. 3; D'Orazio et al. 2019).

:class:`RegressionRegrets` fits one regressor per player to regression targets over the
player's sequences, on a fixed feature matrix:

* stored targets (thesis Algorithm 1): a table of cumulative regrets ``R`` (RCFR) or Q-regrets
  ``Q = max(Q + r, 0)`` (RCFR+, sec. 3.1) is kept and the regressor is refit to it;
* bootstrapped targets (Algorithm 2): the target is the regressor's last estimate plus the new
  regrets, ``R~ + r`` (clipped at zero for RCFR+), so no table of the game's size is needed.

The thesis states both on the scale of average regrets, ``R / t``; the regressors here are fit
on the cumulative scale (its footnote 2), which leaves best-first trees unchanged and makes a
tabular regressor reproduce CFR / CFR+ bit for bit.  A regressor that sets
``target_scale = "average"`` (a threshold on the error, as in recursive partitioning) is fit on
``target / t`` and its estimates are multiplied back by ``t``.

:class:`LinearRegrets` is D'Orazio et al.'s estimator: one ridge model per player and action
on information-set features, fit to each iteration's exact regrets, with the weights summed
over iterations.

Update rules (:mod:`rcfr.core.rules`) set the targets: the rule absorbs the new regrets
into the stored table (or, bootstrapped, into a copy of the last estimates), and the result is
the target: ``R + r`` (cfr), ``max(Q + r, 0)`` (cfr+, pcfr+), ``(R + r)`` times DCFR's
discount by sign at iteration ``t`` (lcfr, dcfr).  For the predictive rules the link reads the
regressor's estimate plus the prediction, the player's last instantaneous regrets (not a
regression output).
"""

from __future__ import annotations

import copy
import time
from typing import Any

import numpy as np

from ..core.errors import RcfrError
from ..core.rules import UpdateRule, link_input, parse_rule, rule_update
from ..features import FeatureRows, infoset_features, sequence_features, tree_equivalent_columns
from ..regressors import SklearnRegressor
from ..regressors.ridge_sum import RidgeSum
from ..regressors.sklearn_adapter import _warm_startable
from ..regressors.tree_base import RegressionTree

DENSE_MEMORY = 1 << 30  # bytes a dense feature matrix (and a prediction chunk) may take


class TabularRegressor:
    """The identity regressor over sequences: it predicts its training targets (so RCFR with
    it is CFR).  Its complexity is one parameter per sequence."""

    def fit(self, X: np.ndarray, y: np.ndarray, sample_weight: Any = None) -> TabularRegressor:
        self.values_ = np.array(y, dtype=np.float64)
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.values_

    @property
    def complexity(self) -> int:
        return int(getattr(self, "values_", np.zeros(0)).shape[0])


class RegressionRegrets:
    """Per-player regressors over sequence features (RCFR / RCFR+ estimator).

    ``regressors`` is one regressor (copied for each player) or a pair, one per player.  With
    ``warm_start`` (the default) a regressor that can continue from its last fit does
    (``warm_start=True`` where it has that parameter: the PyTorch MLP, scikit-learn's MLPs and
    linear models through :class:`SklearnRegressor`), so each iteration's fit starts from the
    last iteration's model.  Regret targets are unweighted: thesis Algorithms 1-2 fit every
    sequence alike (and Theorem 3.0.7 bounds every information set's error alike).
    ``features`` names a feature set of :mod:`rcfr.features`, is a callable ``f(tree, player)
    -> matrix``, or is a pair of matrices; ``rule`` is the update rule that forms the targets
    (default ``cfr``).

    ``minibatch=True`` (for a sampled pass, :mod:`rcfr.solvers.mccfr`) never builds a dense
    feature matrix: after each pass the regressor is trained incrementally (``partial_fit``,
    else ``fit`` with ``warm_start``) on the rows of the sequences the pass touched only --
    every sequence of an information set where the sampled regrets are not all zero -- built
    by :class:`~rcfr.features.FeatureRows`.  The targets of those rows are the rule's, as in the
    dense fit: the stored table after absorbing the sampled regrets (``R + r``, or
    ``max(Q + r, 0)`` for cfr+), or bootstrapped, the last estimate plus the sampled regrets.
    The untouched rows' dense targets are unchanged by the pass (plain and clipped rules leave
    a zero regret's entry alone), so the minibatch drops only rows the model was already fit
    to; the discounted rules, which rescale every entry, are refused.  The estimates of all the
    player's sequences (the strategy the next pass reads) are then predicted in chunks of at
    most ``max_memory`` bytes of features.  ``max_memory`` also bounds the dense matrix: a
    larger one is refused, with a pointer to ``minibatch``.  (A regressor fit on average
    regrets, ``target_scale = "average"``, sees the untouched rows' targets ``R / t`` shrink
    between passes; the minibatch leaves them at their last value, an approximation.)
    """

    def __init__(self, regressors: Any, features: str | tuple = "onehot", *,
                 bootstrap: bool = False, rule: str | UpdateRule | None = None,
                 seed: int = 0, warm_start: bool = True,
                 minibatch: bool = False, max_memory: int = DENSE_MEMORY) -> None:
        self.regressors = regressors
        self.features = features
        self.bootstrap = bootstrap
        self.rule = parse_rule("cfr" if rule is None else rule)
        self.seed = seed
        self.warm_start = warm_start
        self.minibatch = minibatch
        self.max_memory = max_memory

    def initialize(self, tree) -> None:
        if isinstance(self.regressors, (list, tuple)):
            if len(self.regressors) != 2:
                raise RcfrError("give one regressor, or two (one per player)")
            self.regressors_ = list(self.regressors)
        else:
            self.regressors_ = [copy.deepcopy(self.regressors) for _ in range(2)]
        for p, r in enumerate(self.regressors_):
            if not (hasattr(r, "fit") and hasattr(r, "predict")):
                raise RcfrError(f"{r!r} is not a regressor (it needs fit and predict)")
            if not hasattr(r, "complexity"):  # a foreign (e.g. scikit-learn) regressor
                self.regressors_[p] = r = SklearnRegressor(r)
            params = r.get_params(deep=False) if callable(getattr(r, "get_params", None)) else {}
            if self.warm_start and "warm_start" in params:
                r.set_params(warm_start=True)
        self.bounds_ = [(r.start, r.stop) for r in (tree.player_sequences(0),
                                                   tree.player_sequences(1))]
        S = tree.num_sequences
        self.estimates = np.zeros(S)
        self.table = None if self.bootstrap else np.zeros(S)
        self.prediction = np.zeros(S)  # the last instantaneous regrets (predictive rules)
        self._values = np.zeros(S)
        self.fit_seconds = 0.0  # time spent fitting and predicting, for benchmarks
        if self.minibatch:
            self._init_minibatch(tree)
            return
        if isinstance(self.features, str) or callable(self.features):
            for p in (0, 1):
                self._check_dense(tree, p)
            self.X_ = [sequence_features(tree, p, self.features, self.seed) for p in (0, 1)]
        else:
            self.X_ = [np.asarray(x, dtype=np.float64) for x in self.features]
        for p in (0, 1):
            lo, hi = self.bounds_[p]
            if self.X_[p].ndim != 2 or self.X_[p].shape[0] != hi - lo:
                raise RcfrError(f"player {p}'s features need {hi - lo} rows (one per sequence)")
            if isinstance(self.regressors_[p], RegressionTree):  # same splits, fewer columns
                self.X_[p] = np.ascontiguousarray(
                    self.X_[p][:, tree_equivalent_columns(self.X_[p])])
            prepare = getattr(self.regressors_[p], "prepare", None)
            if prepare is not None:
                prepare(self.X_[p])

    def _check_dense(self, tree, player: int) -> None:
        """Refuse a dense feature matrix larger than ``max_memory`` before building it, where
        the feature set builds rows one by one (its width from one row)."""
        n = len(tree.player_sequences(player))
        rows = None if callable(self.features) else FeatureRows(tree, player, self.features,
                                                                 self.seed)
        if n and rows is not None and rows.lazy:
            width = rows.rows([0]).shape[1]
            if 8 * n * width > self.max_memory:
                raise RcfrError(f"player {player}'s dense feature matrix ({n:,} x {width:,}) "
                                f"would exceed {self.max_memory:,} bytes; fit minibatches of "
                                f"the sampled sequences instead (a sampling scheme with "
                                f"--minibatch)")

    def _init_minibatch(self, tree) -> None:
        if self.rule.discounted or self.rule.predictive:
            raise RcfrError(f"minibatch fits drop the untouched sequences, whose targets the "
                            f"{self.rule.name} rule changes too; use cfr or cfr+")
        for r in self.regressors_:
            inner = r.estimator if isinstance(r, SklearnRegressor) else r
            if not (callable(getattr(inner, "partial_fit", None))
                    or (getattr(r, "warm_start", False) and _warm_startable(inner))):
                r = inner
                raise RcfrError(f"minibatch fits need a regressor that trains incrementally "
                                f"(partial_fit or warm_start), not {type(r).__name__}")
        if isinstance(self.features, str) or callable(self.features):
            self.rows_ = [FeatureRows(tree, p, self.features, self.seed) for p in (0, 1)]
        else:
            self.rows_ = [_MatrixRows(np.asarray(x, dtype=np.float64)) for x in self.features]
        self.seq_infoset_ = tree.seq_infoset
        self.fitted_rows_: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * 2

    def _touched(self, player: int, inst: np.ndarray) -> np.ndarray:
        """Local indices of the player's sequences whose information set got a nonzero
        sampled regret."""
        lo, hi = self.bounds_[player]
        info = self.seq_infoset_[lo:hi]
        hit = np.unique(info[inst[lo:hi] != 0])
        return np.flatnonzero(np.isin(info, hit))

    def _update_minibatch(self, player: int, inst: np.ndarray, iteration: int) -> None:
        lo, hi = self.bounds_[player]
        idx = self._touched(player, inst)
        target = self.targets(player, inst, iteration)
        self.fitted_rows_[player] = lo + idx
        if idx.size == 0:
            return
        reg = self.regressors_[player]
        average = getattr(reg, "target_scale", "cumulative") == "average"
        start = time.perf_counter()
        y = target[idx] / iteration if average else target[idx]
        rows = self.rows_[player].rows(idx)
        if callable(getattr(reg, "partial_fit", None)):
            reg.partial_fit(rows, y)
        else:
            reg.fit(rows, y)
        n = hi - lo
        chunk = max(1, self.max_memory // (8 * rows.shape[1]))
        for a in range(0, n, chunk):
            b = min(n, a + chunk)
            pred = np.asarray(reg.predict(self.rows_[player].rows(np.arange(a, b))),
                              dtype=np.float64)
            self.estimates[lo + a:lo + b] = pred * iteration if average else pred
        self.fit_seconds += time.perf_counter() - start

    def targets(self, player: int, inst: np.ndarray, iteration: int) -> np.ndarray:
        """The player's regression targets after absorbing the new regrets ``inst`` by the
        rule (stored in the table unless bootstrapped)."""
        lo, hi = self.bounds_[player]
        if self.table is None:  # bootstrapped: the rule applied to the last estimates
            base = self._values
            base[lo:hi] = self.estimates[lo:hi]
        else:
            base = self.table
        rule_update(self.rule.params, iteration, inst, lo, hi, base, self.prediction)
        return base[lo:hi].copy()

    def update(self, player: int, inst: np.ndarray, iteration: int) -> None:
        """Form the player's targets from the new regrets ``inst`` and refit its regressor."""
        if self.minibatch:
            self._update_minibatch(player, inst, iteration)
            return
        self.refit(player, self.targets(player, inst, iteration), iteration)

    def refit(self, player: int, target: np.ndarray, iteration: int) -> None:
        """Refit the player's regressor to ``target`` and store its estimates."""
        lo, hi = self.bounds_[player]
        reg = self.regressors_[player]
        average = getattr(reg, "target_scale", "cumulative") == "average"
        start = time.perf_counter()
        reg.fit(self.X_[player], target / iteration if average else target)
        fitted = getattr(reg, "fitted_", None)  # a tree's training predictions, if it keeps them
        pred = np.asarray(reg.predict(self.X_[player]) if fitted is None else fitted,
                          dtype=np.float64)
        self.fit_seconds += time.perf_counter() - start
        self.estimates[lo:hi] = pred * iteration if average else pred

    def predict(self, player: int) -> np.ndarray:
        lo, hi = self.bounds_[player]
        return link_input(self.rule.params, self.estimates, self.prediction, lo, hi,
                          self._values)

    @property
    def complexity(self) -> int:
        """Leaves (or weights) of both players' regressors."""
        return sum(int(r.complexity) for r in getattr(self, "regressors_", []))

    def state(self) -> dict[str, np.ndarray]:
        """Estimates, the stored table, and each fitted regressor's own ``state()`` (plain
        arrays, so a warm-started model resumes exactly)."""
        out = {"estimates": self.estimates}
        if self.table is not None:
            out["table"] = self.table
        if self.rule.predictive:
            out["prediction"] = self.prediction
        for p, reg in enumerate(self.regressors_):
            if callable(getattr(reg, "state", None)) and hasattr(reg, "n_features_in_"):
                out.update({f"reg{p}_{k}": v for k, v in reg.state().items()})
        return out

    @property
    def opaque_state(self) -> tuple[str, ...]:
        """The key prefixes of the regressors whose state only they can check (a scikit-learn
        estimator's attributes, a regressor of the user's): the checkpoint checks leave them
        to the regressor's ``load_state``."""
        return tuple(f"reg{p}_" for p, r in enumerate(getattr(self, "regressors_", []))
                     if isinstance(r, SklearnRegressor)
                     or not type(r).__module__.startswith("rcfr."))

    def load_state(self, arrays: dict[str, np.ndarray]) -> None:
        estimates = np.array(arrays["estimates"], dtype=np.float64)
        if estimates.shape != self.estimates.shape:
            raise ValueError("estimates of the wrong size")
        if self.rule.predictive:
            prediction = np.array(arrays["prediction"], dtype=np.float64)
            if prediction.shape != estimates.shape:
                raise ValueError("predictions of the wrong size")
            self.prediction = prediction
        for p, reg in enumerate(self.regressors_):
            mine = {k[len(f"reg{p}_"):]: v for k, v in arrays.items() if k.startswith(f"reg{p}_")}
            if mine and callable(getattr(reg, "load_state", None)):
                reg.load_state(mine)
        self.estimates = estimates
        if self.table is not None:
            table = np.array(arrays["table"], dtype=np.float64)
            if table.shape != self.table.shape:
                raise ValueError("regret table of the wrong size")
            self.table = table


class _MatrixRows:
    """Rows of a given feature matrix, as :class:`~rcfr.features.FeatureRows` gives them."""

    def __init__(self, X: np.ndarray) -> None:
        self.X = X

    def rows(self, seqs: Any) -> np.ndarray:
        return self.X[np.asarray(seqs, dtype=np.int64)]


class LinearRegrets:
    """One ridge model per player and action on information-set features, fit to each
    iteration's exact counterfactual regrets with the weights summed over iterations
    (D'Orazio et al. 2019, sec. 5).  Ridge is linear in its targets, so the summed weights are
    the ridge fit of the cumulative regrets; each model factors its solve once and applies it
    through the features' sparsity (:class:`rcfr.regressors.ridge_sum.RidgeSum`).  Summing
    weights is the ``cfr`` rule; no other rule is defined for it.

    ``error_``: the cumulative regression error, the sum over iterations and players of the
    squared Euclidean distance between the estimates and the exact cumulative regrets after
    each update (the approximation error in D'Orazio et al.'s bounds, sec. 2.3; their Fig. 1
    plots it by the number of partitions)."""

    rule = "cfr"

    def __init__(self, features: str = "hashing:5", alpha: float = 1e-3, *,
                 seed: int = 0) -> None:
        self.features = features
        self.alpha = alpha
        self.seed = seed

    def initialize(self, tree) -> None:
        self.models_: list[list[tuple[np.ndarray, RidgeSum]]] = []
        self.bounds_ = []
        for p in (0, 1):
            F = infoset_features(tree, p, self.features, self.seed)
            seqs = tree.player_sequences(p)
            self.bounds_.append((seqs.start, seqs.stop))
            first = tree.player_infosets(p).start
            rows = tree.seq_infoset[seqs.start:seqs.stop] - first
            actions = tree.seq_action[seqs.start:seqs.stop]
            models = []
            for a in np.unique(actions):
                where = np.flatnonzero(actions == a)
                models.append((seqs.start + where, RidgeSum(F[rows[where]], self.alpha)))
            self.models_.append(models)
        self.weights_ = [[np.zeros(r.num_features) for _, r in models] for models in self.models_]
        self.estimates = np.zeros(tree.num_sequences)
        self.cumulative_ = np.zeros(tree.num_sequences)  # the exact cumulative regrets
        self.error_ = 0.0

    def shortfall(self) -> tuple[int, int] | None:
        """``(features, information sets)`` of the model that fits the most information sets
        where it has fewer features than those, else None: such a linear model cannot fit
        every regret, and its strategy stops improving above equilibrium (D'Orazio et al.
        2019, Fig. 2)."""
        short = [(ridge.num_features, len(seqs)) for models in self.models_
                 for seqs, ridge in models if ridge.num_features < len(seqs)]
        return max(short, key=lambda s: s[1]) if short else None

    def update(self, player: int, inst: np.ndarray, iteration: int) -> None:
        for k, (seqs, ridge) in enumerate(self.models_[player]):
            ridge.add(seqs, inst, self.weights_[player][k], self.estimates)
        lo, hi = self.bounds_[player]
        self.cumulative_[lo:hi] += inst[lo:hi]
        miss = self.estimates[lo:hi] - self.cumulative_[lo:hi]
        self.error_ += float(miss @ miss)

    def predict(self, player: int) -> np.ndarray:
        return self.estimates

    @property
    def complexity(self) -> int:
        return sum(w.shape[0] for ws in getattr(self, "weights_", []) for w in ws)

    def state(self) -> dict[str, np.ndarray]:
        out = {"estimates": self.estimates, "cumulative": self.cumulative_,
               "error": np.array(self.error_)}
        for p, ws in enumerate(self.weights_):
            for k, w in enumerate(ws):
                out[f"w{p}_{k}"] = w
        return out

    def load_state(self, arrays: dict[str, np.ndarray]) -> None:
        for p, ws in enumerate(self.weights_):
            for k, w in enumerate(ws):
                new = np.array(arrays[f"w{p}_{k}"], dtype=np.float64)
                if new.shape != w.shape:
                    raise ValueError("weights of the wrong size")
                ws[k] = new
        estimates = np.array(arrays["estimates"], dtype=np.float64)
        if estimates.shape != self.estimates.shape:
            raise ValueError("estimates of the wrong size")
        if "cumulative" not in arrays:
            raise ValueError("no exact cumulative regrets (a checkpoint of an older rcfr)")
        cumulative = np.array(arrays["cumulative"], dtype=np.float64)
        error = np.array(arrays["error"], dtype=np.float64)
        if cumulative.shape != estimates.shape or error.shape != ():
            raise ValueError("cumulative regrets or regression error of the wrong size")
        self.estimates, self.cumulative_, self.error_ = estimates, cumulative, float(error)
