"""Input checks shared by the regressors; every failure is a one-line :class:`RcfrError`."""

from __future__ import annotations

import numbers

import numpy as np

from ..errors import RcfrError


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


def check_matrix(X: object, n_features: int | None = None) -> np.ndarray:
    """``X`` as a finite, C-ordered float64 matrix with at least one row (and ``n_features``
    columns when given)."""
    try:
        A = np.ascontiguousarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise RcfrError("X must be a numeric matrix") from None
    if A.ndim != 2 or A.shape[0] == 0 or A.shape[1] == 0:
        raise RcfrError(f"X must be a non-empty 2-D matrix, got shape {A.shape}")
    if n_features is not None and A.shape[1] != n_features:
        raise RcfrError(f"X has {A.shape[1]} features, the regressor was fit on {n_features}")
    if not np.isfinite(A).all():
        raise RcfrError("X contains NaN or infinite values")
    return A


def check_targets(y: object, n: int) -> np.ndarray:
    """``y`` as a finite, contiguous float64 vector of length ``n``."""
    try:
        v = np.ascontiguousarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise RcfrError("y must be a numeric vector") from None
    if v.ndim == 2 and v.shape[1] == 1:
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
        v = np.ascontiguousarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise RcfrError("sample_weight must be a numeric vector") from None
    if v.ndim == 0:
        v = np.full(n, float(v))
    if v.shape != (n,):
        raise RcfrError(f"sample_weight must have shape ({n},) to match X, got {v.shape}")
    if not np.isfinite(v).all() or (v < 0).any():
        raise RcfrError("sample_weight must be finite and >= 0")
    if not v.sum() > 0:
        raise RcfrError("sample_weight must have a positive sum")
    return v
