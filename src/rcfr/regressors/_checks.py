"""Input checks shared by the regressors; every failure is a one-line :class:`RcfrError`
(a ``ValueError``, as scikit-learn's checks expect)."""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
import sklearn.exceptions
from sklearn.utils.validation import check_array, validate_data

from ..core.errors import RcfrError


class NotFittedError(RcfrError, sklearn.exceptions.NotFittedError):
    """``predict`` (or ``state``) before ``fit``: both an :class:`RcfrError` (one line for the
    CLI) and scikit-learn's ``NotFittedError``."""


def check_fitted(estimator: Any, attribute: str) -> None:
    """Raise :class:`NotFittedError` unless ``estimator`` has ``attribute`` (set by fit)."""
    if not hasattr(estimator, attribute):
        raise NotFittedError(f"this {type(estimator).__name__} is not fitted yet; call fit first")


def _one_line(exc: ValueError) -> RcfrError:
    return RcfrError(" ".join(str(exc).split()))


def check_X(estimator: Any, X: object, *, reset: bool) -> np.ndarray:
    """``X`` as a finite, C-ordered float64 matrix, by scikit-learn's ``validate_data``: with
    ``reset`` it records ``n_features_in_`` (and feature names), else it checks them.  Sparse
    input raises scikit-learn's ``TypeError``; every other failure a one-line ``RcfrError``."""
    try:
        return validate_data(estimator, X, reset=reset, dtype=np.float64, order="C")
    except ValueError as exc:
        raise _one_line(exc) from None


def check_plain_X(X: object) -> np.ndarray:
    """``X`` checked as :func:`check_X` does, without recording anything on an estimator."""
    try:
        return check_array(X, dtype=np.float64, order="C")
    except ValueError as exc:
        raise _one_line(exc) from None


def check_int(name: str, value: object, low: int) -> int:
    """``value`` as an int ``>= low`` (bools are refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise RcfrError(f"{name} must be a whole number, got {value!r}")
    if value < low:
        raise RcfrError(f"{name} must be >= {low}, got {value}")
    return int(value)


def check_float(name: str, value: object, low: float = 0.0) -> float:
    """``value`` as a finite float ``>= low``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise RcfrError(f"{name} must be a number, got {value!r}")
    v = float(value)
    if not np.isfinite(v) or v < low:
        raise RcfrError(f"{name} must be a finite number >= {low:g}, got {value!r}")
    return v


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise RcfrError(f"unknown {name} {value!r}; use {' or '.join(map(repr, choices))}")
    return str(value)


def check_targets(y: object, n: int) -> np.ndarray:
    """``y`` as a finite, contiguous float64 vector of length ``n`` (a column vector is
    flattened with scikit-learn's ``DataConversionWarning``)."""
    if y is None:
        raise RcfrError("this regressor requires y to be passed, but the target y is None")
    try:
        v = np.ascontiguousarray(np.asarray(y, dtype=np.float64))
    except (TypeError, ValueError):
        raise RcfrError("y must be a numeric vector") from None
    if v.ndim == 2 and v.shape[1] == 1:
        warnings.warn("A column-vector y was passed when a 1d array was expected; it is "
                      "flattened", sklearn.exceptions.DataConversionWarning, stacklevel=3)
        v = np.ascontiguousarray(v[:, 0])
    if v.shape != (n,):
        raise RcfrError(f"y must have shape ({n},) to match X, got {v.shape}")
    if not np.isfinite(v).all():
        raise RcfrError("y contains NaN or infinite values")
    return v


def check_weights(sample_weight: object, n: int) -> np.ndarray | None:
    """``sample_weight`` as a float64 vector of ``n`` finite weights ``>= 0`` with a positive
    sum, or ``None`` (all weights 1)."""
    if sample_weight is None:
        return None
    try:
        v = np.ascontiguousarray(np.asarray(sample_weight, dtype=np.float64))
    except (TypeError, ValueError):
        raise RcfrError("sample_weight must be a numeric vector") from None
    if v.ndim == 0:
        v = np.full(n, float(v))
    if v.shape != (n,):
        raise RcfrError(f"sample_weight must have shape ({n},) to match X, got {v.shape}")
    if not np.isfinite(v).all() or (v < 0).any():
        raise RcfrError("sample_weight must be finite and >= 0")
    if not v.sum() > 0:
        raise RcfrError("sample_weight must not be all zero (its sum must be positive)")
    return v
