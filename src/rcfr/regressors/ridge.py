"""Closed-form ridge regression, the linear regret estimator of D'Orazio et al. 2019 (f-RCFR,
sec. 4.1: least-squares ridge regression on exact counterfactual-regret targets)."""

from __future__ import annotations

import numpy as np
import scipy.linalg

from ..errors import RcfrError
from ._checks import check_float, check_matrix, check_targets, check_weights
from .tug_of_war import tug_of_war_features

__all__ = ["RidgeRegression", "tug_of_war_features"]  # the features it is meant for


class RidgeRegression:
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
    minimum-norm least-squares solution.
    """

    def __init__(self, alpha: float = 1.0, fit_intercept: bool = False) -> None:
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self._cache: tuple | None = None

    def _operator(self, X: object, w: np.ndarray | None, alpha: float) -> tuple:
        """``(M, x_mean, sqrt_w)``: ``coef = M @ (sqrt_w * (y - y_mean))``."""
        key = (np.shape(X), alpha, bool(self.fit_intercept))
        c = self._cache
        if (c is not None and c[0] is X and c[1] == key and (w is None) == (c[2] is None)
                and (w is None or np.array_equal(w, c[2]))):
            return c[3]
        A = check_matrix(X)
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
        op = (M, x_mean, sw)
        self._cache = (X, key, None if w is None else w.copy(), op)
        return op

    def fit(self, X: np.ndarray, y: np.ndarray,
            sample_weight: np.ndarray | None = None) -> RidgeRegression:
        """Fit the weights to targets ``y`` (optionally weighted); returns ``self``."""
        alpha = check_float("alpha", self.alpha, 0.0)
        if self._cache is None or self._cache[0] is not X:
            check_matrix(X)
        n = np.shape(X)[0]
        M, x_mean, sw = self._operator(X, check_weights(sample_weight, n), alpha)
        t = check_targets(y, n)
        y_mean = float((sw * sw) @ t / np.sum(sw * sw)) if self.fit_intercept else 0.0
        self.coef_ = M @ (sw * (t - y_mean))
        self.intercept_ = y_mean - float(x_mean @ self.coef_)
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        """``X @ coef_ + intercept_``."""
        if not hasattr(self, "coef_"):
            raise RcfrError("this RidgeRegression is not fitted yet; call fit first")
        return check_matrix(X, self.coef_.shape[0]) @ self.coef_ + self.intercept_

    @property
    def complexity(self) -> int:
        """The number of weights, ``coef_.size`` (0 before the first fit)."""
        return 0 if not hasattr(self, "coef_") else int(self.coef_.size)
