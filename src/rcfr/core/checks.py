"""Validation of the solvers' numeric arguments (one line of error each)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .errors import RcfrError

MAX_COUNT = 2**62  # counts reach numba as 64-bit integers


def whole_number(value: Any, name: str, low: int = 1) -> int:
    """``value`` as an int from ``low`` to :data:`MAX_COUNT`; bools, floats and numbers out of
    range are refused."""
    if (isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer))
            or not low <= value <= MAX_COUNT):
        raise RcfrError(f"{name} must be a whole number from {low} to {MAX_COUNT:,}, got "
                        f"{value!r}")
    return int(value)


def parse_hidden(hidden: object) -> tuple[int, ...]:
    """Hidden-layer widths from ``(64, 64)``, ``64`` or ``"64,64"`` (``()``/``""``: none); the
    one reading of ``--hidden`` for every network (torch-mlp, NFSP, the Deep CFR family)."""
    if isinstance(hidden, str):
        parts = [p.strip() for p in hidden.split(",")] if hidden.strip() else []
        if not all(p.isascii() and p.isdigit() for p in parts):  # "64,,64", "6.5", "-3"
            raise RcfrError(f"hidden layers must be widths like 64,64 (positive whole "
                            f"numbers), got {hidden!r}")
        hidden = tuple(int(p) for p in parts)
    elif isinstance(hidden, (numbers.Integral, np.integer)) and not isinstance(hidden, bool):
        hidden = (int(hidden),)
    try:
        widths = tuple(hidden)  # type: ignore[arg-type]
    except TypeError:
        raise RcfrError(f"hidden layers must be widths like (64, 64), got {hidden!r}") from None
    for w in widths:
        if isinstance(w, bool) or not isinstance(w, (numbers.Integral, np.integer)):
            raise RcfrError(f"a hidden layer's width must be a whole number, got {w!r}")
        if w < 1:
            raise RcfrError(f"a hidden layer's width must be >= 1, got {w}")
    return tuple(int(w) for w in widths)
