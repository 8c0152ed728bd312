"""A thin adapter that lets any scikit-learn regressor serve as a regret estimator."""

from __future__ import annotations

import importlib
import json
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


def _encode(value: Any, key: str, arrays: dict[str, np.ndarray]) -> Any:
    """A JSON description of ``value`` (a number, string, ``None``, a numeric array, or a
    list/tuple of those), its arrays put in ``arrays``; ``None`` if it is none of these."""
    if value is None or isinstance(value, (bool, str)):
        return {"v": value}
    if isinstance(value, (int, float, np.integer, np.floating)):
        arrays[key] = np.asarray(value).copy()
        return {"a": key}
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return None
        arrays[key] = value.copy()
        return {"a": key}
    if isinstance(value, (list, tuple)):
        items = [_encode(v, f"{key}_{i}", arrays) for i, v in enumerate(value)]
        if any(item is None for item in items):
            return None
        return {"l" if isinstance(value, list) else "t": items}
    return None


def _decode(spec: Any, arrays: dict[str, np.ndarray]) -> Any:
    """The value :func:`_encode` described."""
    if not isinstance(spec, dict) or len(spec) != 1:
        raise ValueError("layout")
    ((kind, value),) = spec.items()
    if kind == "v":
        return value
    if kind == "a":
        array = np.array(arrays[f"a{value}"])
        return array[()] if array.ndim == 0 else array
    if kind in ("l", "t"):
        items = [_decode(v, arrays) for v in value]
        return items if kind == "l" else tuple(items)
    raise ValueError("layout")


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
        self.__dict__.pop("_complexity", None)
        return self

    # -- checkpoints (plain arrays, no pickle) ---------------------------------------------
    def state(self) -> dict[str, np.ndarray]:
        """The wrapped estimator's fitted attributes that are numbers, strings or arrays (or
        lists of them) as plain arrays, so a warm-started estimator (linear models, MLPs)
        resumes where it stopped; an estimator refit from scratch each time needs none (its
        other attributes -- a tree's ``tree_`` -- are rebuilt by its next fit)."""
        check_fitted(self, "estimator_")
        est, arrays, layout = self.estimator_, {}, {}
        params = set(est.get_params(deep=False)) if callable(
            getattr(est, "get_params", None)) else set()
        for name, value in sorted(vars(est).items()):
            if name in params or name.startswith("__"):
                continue
            encoded = _encode(value, f"{len(arrays)}", arrays)
            if encoded is not None:
                layout[name] = encoded
        out = {f"a{k}": v for k, v in arrays.items()}
        out["layout"] = np.array(json.dumps(layout, sort_keys=True))
        out["complexity"] = np.array(self.complexity, dtype=np.int64)
        return out

    def load_state(self, arrays: dict[str, np.ndarray]) -> SklearnRegressor:
        """Restore :meth:`state`'s attributes on the wrapped estimator (``ValueError`` if they
        are not such a state)."""
        try:
            layout = json.loads(str(np.asarray(arrays["layout"])[()]))
            complexity = int(np.asarray(arrays["complexity"]).reshape(()))
            if not isinstance(layout, dict):
                raise ValueError("layout")
            est = self._resolve()  # the instance fit() continues from, as it does in place
            for name, spec in layout.items():
                setattr(est, str(name), _decode(spec, arrays))
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            raise ValueError("not the state of a scikit-learn regressor") from None
        self.estimator_ = est
        self._complexity = complexity
        return self

    @property
    def n_features_in_(self) -> int:
        """The wrapped estimator's number of features (after a fit)."""
        check_fitted(self, "estimator_")
        return int(getattr(self.estimator_, "n_features_in_", 0))

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
        if "_complexity" in vars(self):  # restored from a checkpoint, not refit since
            return self._complexity
        if callable(getattr(est, "get_n_leaves", None)):
            return int(est.get_n_leaves())
        if hasattr(est, "coefs_"):
            return int(sum(np.size(c) for c in est.coefs_)
                       + sum(np.size(b) for b in getattr(est, "intercepts_", [])))
        coef = getattr(est, "coef_", None)
        return 0 if coef is None else int(np.size(coef))
