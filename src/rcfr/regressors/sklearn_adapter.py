"""A thin adapter that lets any scikit-learn regressor serve as a regret estimator."""

from __future__ import annotations

import importlib
import warnings
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning

from ..core.errors import RcfrError
from ._checks import check_fitted


def _load(path: str) -> Any:
    """Import ``"package.module.Class"`` and instantiate it with no arguments -- only once it
    is known to be a class deriving from scikit-learn's ``RegressorMixin``: nothing else the
    path names is ever called (``os.abort``, ``sys.exit``, a classifier, a transformer)."""
    module, _, name = path.rpartition(".")
    if not module or not name:
        raise RcfrError(f"estimator path {path!r} must look like 'package.module.Class' (a "
                        f"scikit-learn regressor class)")
    try:
        cls = getattr(importlib.import_module(module), name)
    except Exception:  # ImportError, AttributeError, or a module failing as it loads
        raise RcfrError(f"cannot import estimator {path!r} (a scikit-learn regressor class "
                        f"such as sklearn.tree.DecisionTreeRegressor)") from None
    if not (isinstance(cls, type) and issubclass(cls, RegressorMixin)):
        kind = "a class" if isinstance(cls, type) else f"a {type(cls).__name__}"
        raise RcfrError(f"{path!r} is {kind}, not a regressor: sklearn: takes a scikit-learn "
                        f"regressor class (deriving from sklearn.base.RegressorMixin, e.g. "
                        f"sklearn.tree.DecisionTreeRegressor)")
    try:
        return cls()
    except Exception as exc:  # any failure of a foreign constructor
        raise RcfrError(f"cannot instantiate {path!r}: {exc}") from None


def _warm_startable(est: Any) -> bool:
    """Whether ``est.warm_start`` means "continue from the last solution" (it adds members to
    scikit-learn's ensembles instead)."""
    get = getattr(est, "get_params", None)
    return (callable(get) and "warm_start" in get(deep=False)
            and not type(est).__module__.startswith("sklearn.ensemble"))


class SklearnRegressor(RegressorMixin, BaseEstimator):
    """Wraps a scikit-learn regressor -- an instance, or a ``"module.Class"`` path that is
    imported and instantiated with no arguments at the first fit.  ``fit`` fits the wrapped
    estimator in place (``estimator_``); ``complexity`` is its number of leaves if it has
    ``get_n_leaves`` (trees), the entries of its weight matrices and biases (``coefs_``,
    ``intercepts_``: scikit-learn's MLPs), else the entries of ``coef_`` (linear models), else
    0.  Convergence warnings of the wrapped estimator are silenced: RCFR refits it every
    iteration, warm-started where it can be, and needs no convergence within one fit.

    With ``warm_start=True`` (RCFR sets it) a refit continues from the last solution: the
    wrapped estimator's own ``warm_start`` is switched on where it means that (linear models,
    MLPs; not ensembles, where it adds members), else ``partial_fit`` is used after the first
    fit where the estimator has it, else it is refit from scratch.
    """

    def __init__(self, estimator: Any, warm_start: bool = False) -> None:
        self.estimator = estimator
        self.warm_start = warm_start

    def _resolve(self) -> Any:
        est = self.estimator
        if isinstance(est, str):
            if getattr(self, "_loaded", None) is None or self._loaded[0] != est:
                self._loaded = (est, _load(est))
            est = self._loaded[1]
        if not (callable(getattr(est, "fit", None)) and callable(getattr(est, "predict", None))):
            raise RcfrError(f"{type(est).__name__} is not a regressor: it needs fit and predict")
        return est

    def fit(self, X: np.ndarray, y: np.ndarray,
            sample_weight: np.ndarray | None = None) -> SklearnRegressor:
        """Fit the wrapped estimator; returns ``self``."""
        est = self._resolve()
        method = est.fit
        if self.warm_start:
            if _warm_startable(est):
                est.set_params(warm_start=True)
            elif hasattr(self, "estimator_") and callable(getattr(est, "partial_fit", None)):
                method = est.partial_fit
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            if sample_weight is None:
                method(X, y)
            else:
                method(X, y, sample_weight=sample_weight)
        self.estimator_ = est
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The wrapped estimator's predictions as a float vector."""
        check_fitted(self, "estimator_")
        return np.asarray(self.estimator_.predict(X), dtype=np.float64).reshape(-1)

    @property
    def complexity(self) -> int:
        """Leaves of a tree, entries of ``coef_`` of a linear model, else 0."""
        est = getattr(self, "estimator_", None)
        if est is None:
            return 0
        if callable(getattr(est, "get_n_leaves", None)):
            return int(est.get_n_leaves())
        if hasattr(est, "coefs_"):
            return int(sum(np.size(c) for c in est.coefs_)
                       + sum(np.size(b) for b in getattr(est, "intercepts_", [])))
        coef = getattr(est, "coef_", None)
        return 0 if coef is None else int(np.size(coef))
