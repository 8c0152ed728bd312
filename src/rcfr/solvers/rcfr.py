"""Regression CFR as instances of the one solver loop: RCFR and RCFR+ (Morrill 2016, ch. 3)
with any link function (f-RCFR, D'Orazio et al. 2019)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core.checks import whole_number
from ..core.errors import RcfrError
from ..core.links import Link
from ..core.names import RCFR_ALGORITHMS, REGRESSORS  # noqa: F401 (re-exported)
from ..core.rules import UpdateRule, parse_rule
from ..features import default_features, parse_features, sequence_features
from ..forms.base import Form
from ..forms.compile import compile_game
from ..policy import TabularPolicy
from .average import AverageStrategyModel
from .locking import LockSource
from .loop import RegretSolver
from .regression import LinearRegrets, RegressionRegrets, TabularRegressor

AVERAGE_TARGETS = ("strategy", "weights", "bootstrap")


def split_leaves(tree: Form, leaves: int) -> list[int]:
    """A total leaf budget shared between the players in proportion to their sequences."""
    s0, s1 = tree.num_sequences_per_player
    first = max(1, round(leaves * s0 / (s0 + s1)))
    return [first, max(1, leaves - first)]


def seeded_sklearn(path: str, seed: int) -> Any:
    """A scikit-learn regressor from ``"module.Class"``, with ``random_state=seed`` when the
    class takes one (so ``--seed`` reaches it)."""
    from ..regressors import SklearnRegressor

    est = SklearnRegressor(path)._resolve()
    params = est.get_params() if callable(getattr(est, "get_params", None)) else {}
    if "random_state" in params:
        est.set_params(random_state=seed)
    return SklearnRegressor(est)


def make_regressors(tree: Form, regressor: str, *, leaves: int | None = None,
                    threshold: float | None = None, criterion: str = "squared_error",
                    hidden: Any = None, seed: int = 0) -> Any:
    """The regressor (or per-player pair) a regressor name stands for (``tabular``,
    ``best-first``, ``recursive``, ``torch-mlp``, ``sklearn:module.Class``); ``leaves`` is a
    budget for both players together."""
    name = regressor.strip().lower()
    if name == "tabular":
        regs: Any = TabularRegressor()
    elif name in ("best-first", "recursive"):
        from ..regressors.best_first import BestFirstTree
        from ..regressors.recursive import RecursivePartitioningTree

        budget = tree.num_sequences if leaves is None else whole_number(leaves, "the leaf budget")
        per = split_leaves(tree, budget)
        if name == "best-first":
            regs = [BestFirstTree(max_leaves=k, criterion=criterion) for k in per]
        else:
            regs = [RecursivePartitioningTree(threshold or 0.0, max_leaves=k,
                                              criterion=criterion) for k in per]
    elif name == "torch-mlp":
        from ..regressors.torch_mlp import rcfr_mlp

        regs = rcfr_mlp(hidden, seed)
    elif name.startswith("sklearn:"):
        regs = seeded_sklearn(regressor.split(":", 1)[1], seed)
    else:
        raise RcfrError(f"unknown regressor {regressor!r}; use one of {', '.join(REGRESSORS)}")
    return regs


def make_estimator(tree: Form, regressor: Any = "best-first", *, leaves: int | None = None,
                   features: str | None = None, bootstrap: bool = False,
                   rule: str | UpdateRule | None = None, threshold: float | None = None,
                   criterion: str = "squared_error", alpha: float | None = None,
                   hidden: Any = None, seed: int = 0, minibatch: bool = False):
    """The regret estimator for a regressor name (or a regressor object) and update rule
    (default ``cfr``).  Options that the regressor would ignore are refused:
    ``threshold`` applies to ``recursive``, ``alpha`` to ``ridge``, ``leaves`` to the trees,
    ``hidden`` to ``torch-mlp``.  ``minibatch`` (sampling schemes) fits the sequences each
    sampled pass touched instead of a dense feature matrix (:class:`RegressionRegrets`)."""
    rule = parse_rule(rule if rule is not None else "cfr")
    features = features if features is not None else (
        "hashing:5" if regressor == "ridge" else default_features(tree.game))
    if not callable(features) and not isinstance(features, (list, tuple)):
        parse_features(features)
    if not isinstance(regressor, str):
        return RegressionRegrets(regressor, features, bootstrap=bootstrap, rule=rule, seed=seed,
                                 minibatch=minibatch)
    name = regressor.strip().lower()
    if threshold is not None and name != "recursive":
        raise RcfrError(f"the threshold applies to the recursive regressor, not {name}")
    if alpha is not None and name != "ridge":
        raise RcfrError(f"the ridge penalty applies to the ridge regressor, not {name}")
    if leaves is not None and name not in ("best-first", "recursive"):
        raise RcfrError(f"the leaf budget applies to the best-first and recursive trees, "
                        f"not {name}")
    if hidden is not None and name != "torch-mlp":
        raise RcfrError(f"the hidden layers apply to the torch-mlp regressor, not {name}")
    if name == "ridge":
        if rule.name != "cfr" or bootstrap:
            raise RcfrError("the ridge estimator sums its weights over iterations (D'Orazio et "
                            "al.); use it with the cfr rule (--algorithm rcfr) and without "
                            "--bootstrap")
        if minibatch:
            raise RcfrError("the ridge estimator fits every iteration's exact regrets; "
                            "minibatch fits need another regressor")
        return LinearRegrets(features, 1e-3 if alpha is None else alpha, seed=seed)
    regs = make_regressors(tree, regressor, leaves=leaves, threshold=threshold,
                           criterion=criterion, hidden=hidden, seed=seed)
    return RegressionRegrets(regs, features, bootstrap=bootstrap, rule=rule, seed=seed,
                             minibatch=minibatch)


class RCFRSolver(RegretSolver):
    """RCFR (``algorithm="rcfr"``) or RCFR+ (``"rcfr+"``): regrets (Q-regrets) estimated by a
    regressor per player on sequence features; stored targets (thesis Algorithm 1) or
    bootstrapped ones (Algorithm 2); uniform averaging by default, as in the thesis.

    ``rule`` (with ``algorithm="rcfr"``) forms discounted or predictive targets instead
    (:class:`~rcfr.solvers.regression.RegressionRegrets`); the averaging is then the rule's
    unless given.  With ``regressor="tabular"`` RCFR with any rule is that tabular rule (same
    averaging), bit for bit.

    ``average_regressor`` (a regressor name or object; ``average_leaves`` for trees) adds a
    second model per player for the average strategy (:mod:`rcfr.solvers.average`):
    ``average_target`` ``"strategy"`` (the behavioural average, reach-weighted), ``"weights"``
    (the cumulative strategy weights) or ``"bootstrap"`` (those, bootstrapped from the model
    itself: no table is needed).  Then :meth:`average_policy` is the model's strategy,
    :meth:`tabular_average_policy` the exact average, and ``complexity`` counts both models.
    """

    def __init__(self, game: Form | Any, algorithm: str = "rcfr+", *,
                 regressor: Any = "best-first", leaves: int | None = None,
                 features: str | None = None, bootstrap: bool = False,
                 threshold: float | None = None, criterion: str = "squared_error",
                 alpha: float | None = None, rule: str | UpdateRule | None = None,
                 hidden: Any = None, average_regressor: Any = None,
                 average_leaves: int | None = None, average_target: str = "strategy",
                 link: str | Link | None = None, alternating: bool = True,
                 averaging: str | float | None = None, seed: int | None = None,
                 lock: LockSource = None) -> None:
        key = str(algorithm).lower()
        if key not in RCFR_ALGORITHMS:
            raise RcfrError(f"unknown algorithm {algorithm!r}; use rcfr or rcfr+")
        if rule is not None and key == "rcfr+" and parse_rule(rule).name != "cfr+":
            raise RcfrError(f"rcfr+ is rcfr with the cfr+ rule; use rcfr with the rule {rule}")
        if averaging is None and rule is None:
            averaging = "uniform"  # the thesis's choice for RCFR and RCFR+
        self.algorithm = key
        self.regressor = regressor
        self.leaves = leaves
        self.features = features
        self.bootstrap = bootstrap
        self.threshold = threshold
        self.criterion = criterion
        self.alpha = alpha
        self.hidden = hidden
        self.average_regressor = average_regressor
        self.average_leaves = average_leaves
        self.average_target = average_target
        super().__init__(game, estimator=None, rule=rule, link=link, alternating=alternating,
                         averaging=averaging, seed=seed, name=key, lock=lock)

    def setup(self) -> None:
        if not self._ready and self.estimator is None:
            tree = compile_game(self.game)
            self.game = tree
            self.estimator = make_estimator(
                tree, self.regressor, leaves=self.leaves, features=self.features,
                bootstrap=self.bootstrap,
                rule=self.rule if self.rule is not None else RCFR_ALGORITHMS[self.algorithm],
                threshold=self.threshold, criterion=self.criterion, alpha=self.alpha,
                hidden=self.hidden, seed=0 if self.seed is None else int(self.seed))
        if not self._ready:
            super().setup()
            self._setup_average()

    def _setup_average(self) -> None:
        """The average-strategy model, on the regret regressor's features."""
        self.average_model_ = None
        if self.average_regressor is None:
            return
        tree = self.tree
        regs = self.average_regressor
        if isinstance(regs, str):
            regs = make_regressors(tree, regs, leaves=self.average_leaves,
                                   threshold=self.threshold, criterion=self.criterion,
                                   hidden=self.hidden, seed=0 if self.seed is None else self.seed)
        X = getattr(self.estimator_, "X_", None)
        if X is None:
            spec = self.features if self.features is not None else default_features(tree.game)
            X = [sequence_features(tree, p, spec) for p in (0, 1)]
        target = str(self.average_target).strip().lower()
        if target not in AVERAGE_TARGETS:
            raise RcfrError(f"unknown average target {self.average_target!r}; use "
                            f"{', '.join(AVERAGE_TARGETS)}")
        model = AverageStrategyModel(regs, target="weights" if target == "bootstrap" else target,
                                     bootstrap=target == "bootstrap")
        model.initialize(tree, X)
        self.average_model_ = model
        if model.bootstrap:
            self.average_hook_ = model.update

    def average_policy(self) -> TabularPolicy:
        """The average strategy: the one the average-strategy model represents when there is
        one (``average_regressor``), else the tabular average."""
        self.setup()
        if self.average_model_ is None:
            return super().average_policy()
        self.average_model_.refit(self.avg_weights_, self.iteration)
        policy = self.average_model_.policy(self._info())
        self.lock_.force(policy.probs)  # (the model's strategy, held to a node lock)
        return policy

    @property
    def releasable(self) -> bool:
        """Whether :meth:`release_average` gives this solver's average: not where an
        average-strategy model represents it."""
        return self.average_model_ is None

    def tabular_average_policy(self) -> TabularPolicy:
        """The exact (tabular) average strategy, for comparison with the model's."""
        return super().average_policy()

    @property
    def complexity(self) -> int:
        """Leaves or weights of the regret regressors, plus the average-strategy model's."""
        total = super().complexity
        if self.average_model_ is not None:
            self.average_model_.refit(self.avg_weights_, self.iteration)
            total += self.average_model_.complexity
        return total

    def _extra_state(self) -> dict[str, np.ndarray]:
        if self.average_model_ is None:
            return {}
        return {f"average_{k}": v for k, v in self.average_model_.state().items()}

    def _load_extra_state(self, arrays: dict[str, np.ndarray]) -> None:
        if self.average_model_ is not None:
            self.average_model_.load_state({k[len("average_"):]: v for k, v in arrays.items()
                                            if k.startswith("average_")})

    _config_keys = RegretSolver._config_keys + ("regressor", "leaves", "features", "bootstrap",
                                                "average_regressor", "average_leaves",
                                                "average_target")

    def _info(self) -> dict[str, Any]:
        info = super()._info()
        info.update({"regressor": str(self.regressor), "leaves": self.leaves,
                     "features": self.features, "bootstrap": self.bootstrap,
                     "average_regressor": None if self.average_regressor is None
                     else str(self.average_regressor), "average_leaves": self.average_leaves,
                     "average_target": self.average_target})
        return info
