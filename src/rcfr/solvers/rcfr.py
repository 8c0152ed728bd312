"""Regression CFR as instances of the one solver loop: RCFR and RCFR+ (Morrill 2016, ch. 3)
with any link function (f-RCFR, D'Orazio et al. 2019)."""

from __future__ import annotations

from typing import Any

from ..errors import RcfrError
from ..features import default_features, parse_features
from ..links import Link
from ..tree import GameTree, compile_game
from .loop import RegretSolver
from .regression import LinearRegrets, RegressionRegrets, TabularRegressor

REGRESSORS = ("tabular", "best-first", "recursive", "ridge", "torch-mlp", "sklearn:<module.Class>")
RCFR_ALGORITHMS = {"rcfr": False, "rcfr+": True}


def split_leaves(tree: GameTree, leaves: int) -> list[int]:
    """A total leaf budget shared between the players in proportion to their sequences."""
    s0, s1 = tree.num_sequences_per_player
    first = max(1, round(leaves * s0 / (s0 + s1)))
    return [first, max(1, leaves - first)]


def _check_leaves(leaves: Any) -> int:
    if isinstance(leaves, bool) or not isinstance(leaves, int) or leaves < 1:
        raise RcfrError(f"the leaf budget must be a whole number >= 1, got {leaves!r}")
    return leaves


def make_estimator(tree: GameTree, regressor: Any = "best-first", *, leaves: int | None = None,
                   features: str | None = None, bootstrap: bool = False, plus: bool = False,
                   threshold: float = 0.0, criterion: str = "squared_error",
                   alpha: float = 1e-3, hidden: Any = None, seed: int = 0):
    """The regret estimator for a regressor name (or a regressor object)."""
    features = features if features is not None else (
        "hashing:5" if regressor == "ridge" else default_features(tree.game))
    if not callable(features) and not isinstance(features, (list, tuple)):
        parse_features(features)
    if not isinstance(regressor, str):
        return RegressionRegrets(regressor, features, bootstrap=bootstrap, plus=plus, seed=seed)
    name = regressor.strip().lower()
    if name == "ridge":
        if plus or bootstrap:
            raise RcfrError("the ridge estimator sums its weights over iterations (D'Orazio et "
                            "al.); use it with --algorithm rcfr and without --bootstrap")
        return LinearRegrets(features, alpha, seed=seed)
    if name == "tabular":
        regs: Any = TabularRegressor()
    elif name in ("best-first", "recursive"):
        from ..regressors.best_first import BestFirstTree
        from ..regressors.recursive import RecursivePartitioningTree

        budget = tree.num_sequences if leaves is None else _check_leaves(leaves)
        per = split_leaves(tree, budget)
        if name == "best-first":
            regs = [BestFirstTree(max_leaves=k, criterion=criterion) for k in per]
        else:
            regs = [RecursivePartitioningTree(threshold, max_leaves=k, criterion=criterion)
                    for k in per]
    elif name == "torch-mlp":
        from ..regressors.torch_mlp import rcfr_mlp

        regs = rcfr_mlp(hidden, seed)
    elif name.startswith("sklearn:"):
        from ..regressors import SklearnRegressor

        regs = SklearnRegressor(regressor.split(":", 1)[1])
    else:
        raise RcfrError(f"unknown regressor {regressor!r}; use one of {', '.join(REGRESSORS)}")
    return RegressionRegrets(regs, features, bootstrap=bootstrap, plus=plus, seed=seed)


class RCFRSolver(RegretSolver):
    """RCFR (``algorithm="rcfr"``) or RCFR+ (``"rcfr+"``): regrets (Q-regrets) estimated by a
    regressor per player on sequence features; stored targets (thesis Algorithm 1) or
    bootstrapped ones (Algorithm 2); uniform averaging by default, as in the thesis.

    With ``regressor="tabular"`` RCFR is CFR and RCFR+ is CFR+ (same averaging), bit for bit.
    """

    def __init__(self, game: GameTree | Any, algorithm: str = "rcfr+", *,
                 regressor: Any = "best-first", leaves: int | None = None,
                 features: str | None = None, bootstrap: bool = False,
                 threshold: float = 0.0, criterion: str = "squared_error", alpha: float = 1e-3,
                 hidden: Any = None, link: str | Link | None = None, alternating: bool = True,
                 averaging: str | float = "uniform", seed: int | None = None) -> None:
        key = str(algorithm).lower()
        if key not in RCFR_ALGORITHMS:
            raise RcfrError(f"unknown algorithm {algorithm!r}; use rcfr or rcfr+")
        self.algorithm = key
        self.regressor = regressor
        self.leaves = leaves
        self.features = features
        self.bootstrap = bootstrap
        self.threshold = threshold
        self.criterion = criterion
        self.alpha = alpha
        self.hidden = hidden
        super().__init__(game, estimator=None, link=link, alternating=alternating,
                         averaging=averaging, seed=seed, name=key)

    def _setup(self) -> None:
        if not self._ready and self.estimator is None:
            tree = compile_game(self.game)
            self.game = tree
            self.estimator = make_estimator(
                tree, self.regressor, leaves=self.leaves, features=self.features,
                bootstrap=self.bootstrap, plus=RCFR_ALGORITHMS[self.algorithm],
                threshold=self.threshold, criterion=self.criterion, alpha=self.alpha,
                hidden=self.hidden, seed=0 if self.seed is None else int(self.seed))
        super()._setup()

    _config_keys = RegretSolver._config_keys + ("regressor", "leaves", "features", "bootstrap")

    def _info(self) -> dict[str, Any]:
        info = super()._info()
        info.update({"regressor": str(self.regressor), "leaves": self.leaves,
                     "features": self.features, "bootstrap": self.bootstrap})
        return info
