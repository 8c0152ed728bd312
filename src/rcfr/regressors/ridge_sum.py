"""Summed ridge fits on a fixed, sparse feature matrix: D'Orazio et al. 2019's f-RCFR
estimator (sec. 4.1) refits every iteration's regrets on the same features and sums the
weights.  Ridge is linear in its targets, so each fit is a fixed operator applied to them; this
module applies it through the features' sparsity (tug-of-war hashing: one nonzero a
partition) instead of a dense ``d x n`` solution operator:

* primal (``d <= n``): ``w += (X'X + alpha I)^-1 (X' y)``, a ``d x d`` core;
* dual (``d > n``): ``w += X' (XX' + alpha I)^-1 y``, an ``n x n`` core;
* ``alpha = 0``: the pseudo-inverse, dense (``d x n``).

The estimates ``X w`` are a sparse product too.  The core is factored once (LAPACK); every
iteration's products then run in one numba kernel, in axpy form over the core's rows (each
output independent, so the loops vectorize without reordering a sum), in a fixed order."""

from __future__ import annotations

import numpy as np
import scipy.linalg
from numba import njit

from ._checks import check_float

PRIMAL, DUAL, DENSE = 0, 1, 2


class RidgeSum:
    """The running sum of ridge fits of targets on ``X`` (rows: samples), without intercept:
    :meth:`add` adds the fit of one target vector to ``weights`` and writes ``X @ weights``."""

    def __init__(self, X: np.ndarray, alpha: float) -> None:
        alpha = check_float("the ridge penalty", alpha, 0.0)
        X = np.ascontiguousarray(X, dtype=np.float64)
        n, d = X.shape
        nonzero = X != 0
        self.indptr = np.concatenate([[0], np.cumsum(nonzero.sum(axis=1))]).astype(np.int64)
        self.indices = np.nonzero(nonzero)[1].astype(np.int64)
        self.data = np.ascontiguousarray(X[nonzero])
        if alpha == 0.0:
            self.mode, core = DENSE, np.linalg.pinv(X)  # d x n
        elif d <= n:
            factor = scipy.linalg.cho_factor(X.T @ X + alpha * np.eye(d))
            self.mode, core = PRIMAL, scipy.linalg.cho_solve(factor, np.eye(d))
        else:
            factor = scipy.linalg.cho_factor(X @ X.T + alpha * np.eye(n))
            self.mode, core = DUAL, scipy.linalg.cho_solve(factor, np.eye(n))
        self.core_t = np.ascontiguousarray(core.T)  # row b: the core's column b
        self.num_features = d
        self._buffers = (np.empty(max(n, d)), np.empty(d))

    def add(self, rows: np.ndarray, targets: np.ndarray, weights: np.ndarray,
            estimates: np.ndarray) -> None:
        """``weights += fit(X, targets[rows])``; ``estimates[rows] = X @ weights``."""
        g, out = self._buffers
        ridge_sum_add(self.mode, rows, self.indptr, self.indices, self.data, self.core_t,
                      targets, weights, g, out, estimates)


@njit(cache=True)
def ridge_sum_add(mode, rows, indptr, indices, data, core_t, targets, weights, g, out,
                  estimates):
    """:meth:`RidgeSum.add`: ``out`` is the fit's weights, added to ``weights`` at the end."""
    n = rows.shape[0]
    d = weights.shape[0]
    out[:] = 0.0
    if mode == 0:  # g = X' y; out = core g
        g[:d] = 0.0
        for i in range(n):
            y = targets[rows[i]]
            if y != 0.0:
                for k in range(indptr[i], indptr[i + 1]):
                    g[indices[k]] += data[k] * y
        for b in range(d):
            gb = g[b]
            if gb != 0.0:
                for a in range(d):
                    out[a] += core_t[b, a] * gb
    elif mode == 1:  # g = core y; out = X' g
        g[:n] = 0.0
        for b in range(n):
            y = targets[rows[b]]
            if y != 0.0:
                for a in range(n):
                    g[a] += core_t[b, a] * y
        for i in range(n):
            h = g[i]
            for k in range(indptr[i], indptr[i + 1]):
                out[indices[k]] += data[k] * h
    else:  # out = pinv(X) y
        for i in range(n):
            y = targets[rows[i]]
            if y != 0.0:
                for a in range(d):
                    out[a] += core_t[i, a] * y
    for a in range(d):
        weights[a] += out[a]
    for i in range(n):
        acc = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            acc += data[k] * weights[indices[k]]
        estimates[rows[i]] = acc
