"""Validation of the solvers' numeric arguments (one line of error each)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .errors import RcfrError


def whole_number(value: Any, name: str, low: int = 1) -> int:
    """``value`` as an int ``>= low``; bools, floats and smaller numbers are refused."""
    if (isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer))
            or value < low):
        raise RcfrError(f"{name} must be a whole number >= {low}, got {value!r}")
    return int(value)
