"""Regression CFR as instances of the one solver loop: RCFR and RCFR+ (Morrill 2016, ch. 3)
with any link function (f-RCFR, D'Orazio et al. 2019)."""

from __future__ import annotations

from typing import Any

from ..errors import RcfrError
from ..features import parse_features
from ..games.leduc import LeducPoker
from ..games.nl_one_card import NLOneCardPoker
from ..links import Link
from ..tree import GameTree, compile_game
from .checks import whole_number
from .loop import RegretSolver
from .regression import LinearRegrets, RegressionRegrets, TabularRegressor
from .rules import UpdateRule, parse_rule

REGRESSORS = ("tabular", "best-first", "recursive", "ridge", "sklearn:<module.Class>")
RCFR_ALGORITHMS = {"rcfr": "cfr", "rcfr+": "cfr+"}


def default_features(game) -> str:
    """The thesis's poker features where they are defined, else one-hot."""
    return "thesis" if isinstance(game, (LeducPoker, NLOneCardPoker)) else "onehot"


def split_leaves(tree: GameTree, leaves: int) -> list[int]:
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


def make_estimator(tree: GameTree, regressor: Any = "best-first", *, leaves: int | None = None,
                   features: str | None = None, bootstrap: bool = False, plus: bool = False,
                   rule: str | UpdateRule | None = None, threshold: float | None = None,
                   criterion: str = "squared_error", alpha: float | None = None,
                   seed: int = 0):
    """The regret estimator for a regressor name (or a regressor object) and update rule
    (``plus=True`` is ``rule="cfr+"``).  Options that the regressor would ignore are refused:
    ``threshold`` applies to ``recursive``, ``alpha`` to ``ridge``, ``leaves`` to the trees."""
    rule = parse_rule(rule if rule is not None else ("cfr+" if plus else "cfr"))
    features = features if features is not None else (
        "hashing:5" if regressor == "ridge" else default_features(tree.game))
    parse_features(features)
    if not isinstance(regressor, str):
        return RegressionRegrets(regressor, features, bootstrap=bootstrap, rule=rule, seed=seed)
    name = regressor.strip().lower()
    if threshold is not None and name != "recursive":
        raise RcfrError(f"the threshold applies to the recursive regressor, not {name}")
    if alpha is not None and name != "ridge":
        raise RcfrError(f"the ridge penalty applies to the ridge regressor, not {name}")
    if leaves is not None and name not in ("best-first", "recursive"):
        raise RcfrError(f"the leaf budget applies to the best-first and recursive trees, "
                        f"not {name}")
    if name == "ridge":
        if rule.name != "cfr" or bootstrap:
            raise RcfrError("the ridge estimator sums its weights over iterations (D'Orazio et "
                            "al.); use it with the cfr rule (--algorithm rcfr) and without "
                            "--bootstrap")
        return LinearRegrets(features, 1e-3 if alpha is None else alpha, seed=seed)
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
    elif name.startswith("sklearn:"):
        regs = seeded_sklearn(regressor.split(":", 1)[1], seed)
    else:
        raise RcfrError(f"unknown regressor {regressor!r}; use one of {', '.join(REGRESSORS)}")
    return RegressionRegrets(regs, features, bootstrap=bootstrap, rule=rule, seed=seed)


class RCFRSolver(RegretSolver):
    """RCFR (``algorithm="rcfr"``) or RCFR+ (``"rcfr+"``): regrets (Q-regrets) estimated by a
    regressor per player on sequence features; stored targets (thesis Algorithm 1) or
    bootstrapped ones (Algorithm 2); uniform averaging by default, as in the thesis.

    ``rule`` (with ``algorithm="rcfr"``) forms discounted or predictive targets instead
    (:class:`~rcfr.solvers.regression.RegressionRegrets`); the averaging is then the rule's
    unless given.  With ``regressor="tabular"`` RCFR with any rule is that tabular rule (same
    averaging), bit for bit.
    """

    def __init__(self, game: GameTree | Any, algorithm: str = "rcfr+", *,
                 regressor: Any = "best-first", leaves: int | None = None,
                 features: str | None = None, bootstrap: bool = False,
                 threshold: float | None = None, criterion: str = "squared_error",
                 alpha: float | None = None, rule: str | UpdateRule | None = None,
                 link: str | Link | None = None, alternating: bool = True,
                 averaging: str | float | None = None, seed: int | None = None) -> None:
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
        super().__init__(game, estimator=None, rule=rule, link=link, alternating=alternating,
                         averaging=averaging, seed=seed, name=key)

    def _setup(self) -> None:
        if not self._ready and self.estimator is None:
            tree = compile_game(self.game)
            self.game = tree
            self.estimator = make_estimator(
                tree, self.regressor, leaves=self.leaves, features=self.features,
                bootstrap=self.bootstrap,
                rule=self.rule if self.rule is not None else RCFR_ALGORITHMS[self.algorithm],
                threshold=self.threshold, criterion=self.criterion, alpha=self.alpha,
                seed=0 if self.seed is None else int(self.seed))
        super()._setup()

    _config_keys = RegretSolver._config_keys + ("regressor", "leaves", "features", "bootstrap")

    def _info(self) -> dict[str, Any]:
        info = super()._info()
        info.update({"regressor": str(self.regressor), "leaves": self.leaves,
                     "features": self.features, "bootstrap": self.bootstrap})
        return info
