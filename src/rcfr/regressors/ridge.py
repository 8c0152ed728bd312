"""Closed-form ridge regression, the linear regret estimator of D'Orazio et al. 2019 (f-RCFR,
sec. 4.1: least-squares ridge regression on exact counterfactual-regret targets)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator, RegressorMixin

from ._checks import check_fitted, check_float, check_targets, check_weights, check_X
from .tug_of_war import tug_of_war_features

__all__ = ["RidgeRegression", "tug_of_war_features"]  # the features it is meant for


@dataclass
class _Cache:
    """What a refit on the same ``X`` object reuses: the checked matrix and the solution
    operator for the last weights."""

    source: object
    key: tuple
    A: np.ndarray
    weights: np.ndarray | None = None
    op: tuple | None = None


class RidgeRegression(RegressorMixin, BaseEstimator):
    """Ridge regression: ``coef_`` minimises ``sum_i w_i (y_i - x_i.coef - b)^2 + alpha
    |coef|^2`` with the intercept ``b`` not penalised, as scikit-learn's ``Ridge``.

    ``fit_intercept=False`` (the default) fits ``b = 0``: tug-of-war features
    (:func:`tug_of_war_features`) have no constant column and f-RCFR's estimators no bias.
    With ``fit_intercept=True`` features and targets are centred on their weighted means.

    Either way the fitted weights are a *linear* function of ``y``, so the weights fit to each
    iteration's regrets sum to the weights fit to the summed regrets (D'Orazio et al.): the
    solver loop may sum ``coef_`` (and ``intercept_``) across iterations.  Given the same ``X``
    object (and weights and ``alpha``) again, the solution operator is reused and a refit is
    one matrix-vector product; do not modify ``X`` in place between fits.  ``alpha=0`` gives the
    minimum-norm least-squares solution.  A scikit-learn estimator (``clone``,
    ``check_estimator``); deterministic, so no ``random_state``.
    """

    def __init__(self, alpha: float = 1.0, fit_intercept: bool = False) -> None:
        self.alpha = alpha
        self.fit_intercept = fit_intercept

    def _operator(self, A: np.ndarray, w: np.ndarray | None, alpha: float) -> tuple:
        """``(M, x_mean, sqrt_w)``: ``coef = M @ (sqrt_w * (y - y_mean))`` for the checked
        matrix ``A``."""
        n, p = A.shape
        sw = np.ones(n) if w is None else np.sqrt(w)
        x_mean = np.zeros(p)
        if self.fit_intercept:
            x_mean = (sw * sw) @ A / np.sum(sw * sw)
            A = A - x_mean
        A = A * sw[:, None]
        if alpha == 0.0:
            M = np.linalg.pinv(A)
        elif p <= n:
            M = scipy.linalg.cho_solve(scipy.linalg.cho_factor(A.T @ A + alpha * np.eye(p)), A.T)
        else:  # fewer samples than features: the dual form
            G = scipy.linalg.cho_factor(A @ A.T + alpha * np.eye(n))
            M = scipy.linalg.cho_solve(G, A).T
        return M, x_mean, sw

    def fit(self, X: np.ndarray, y: np.ndarray,
            sample_weight: np.ndarray | None = None) -> RidgeRegression:
        """Fit the weights to targets ``y`` (optionally weighted); returns ``self``."""
        alpha = check_float("alpha", self.alpha, 0.0)
        key = (alpha, bool(self.fit_intercept))
        c = getattr(self, "_cache", None)
        if (c is None or c.source is not X or c.key != key or X.dtype != np.float64
                or X.shape != c.A.shape):  # not the float64 array last fit: check it
            c = self._cache = _Cache(X, key, check_X(self, X, reset=True))
        n = c.A.shape[0]
        w = check_weights(sample_weight, n)
        if c.op is None or (w is None) != (c.weights is None) or (
                w is not None and not np.array_equal(w, c.weights)):
            c.op = self._operator(c.A, w, alpha)
            c.weights = None if w is None else w.copy()
        M, x_mean, sw = c.op
        t = check_targets(y, n)
        y_mean = float((sw * sw) @ t / np.sum(sw * sw)) if self.fit_intercept else 0.0
        self.coef_ = M @ (sw * (t - y_mean))
        self.intercept_ = y_mean - float(x_mean @ self.coef_)
        self.n_features_in_ = self.coef_.shape[0]
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        """``X @ coef_ + intercept_``."""
        check_fitted(self, "coef_")
        return check_X(self, X, reset=False) @ self.coef_ + self.intercept_

    @property
    def complexity(self) -> int:
        """The number of weights, ``coef_.size`` (0 before the first fit)."""
        return 0 if not hasattr(self, "coef_") else int(self.coef_.size)

    # -- checkpoints (plain arrays, no pickle) ---------------------------------------------
    def state(self) -> dict[str, np.ndarray]:
        """The fitted weights as plain arrays."""
        check_fitted(self, "coef_")
        return {"coef": self.coef_, "intercept": np.array(self.intercept_)}

    def load_state(self, arrays: dict[str, np.ndarray]) -> RidgeRegression:
        """Take fitted weights back from :meth:`state`'s arrays."""
        try:
            coef = np.array(arrays["coef"], dtype=np.float64)
            intercept = float(np.asarray(arrays["intercept"], dtype=np.float64).reshape(()))
        except (KeyError, TypeError, ValueError):
            raise ValueError("not the state of a ridge regression") from None
        if coef.ndim != 1 or coef.size == 0 or not np.isfinite(coef).all():
            raise ValueError("not the state of a ridge regression")
        self.coef_, self.intercept_, self.n_features_in_ = coef, intercept, coef.shape[0]
        return self
