"""What the fictitious-play solvers share beyond the driver interface
(:class:`rcfr.solvers.policy_driver.PolicyDriver`): step-size schedules, the stepped solvers'
options and the checks of their checkpoint arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.errors import RcfrError
from ...forms.base import Form
from ..policy_driver import PolicyDriver


def parse_step(step: Any) -> tuple[str, float]:
    """A step-size schedule ``alpha_t`` (the weight iteration ``t``'s best response gets in the
    average): ``"harmonic"`` (default, ``1/(t+1)``: the plain average of the best responses,
    Brown 1951; Heinrich et al. 2015, Alg. 1), ``"power:P"`` (``(t+1)**-P``, ``0 < P <= 1``)
    or ``"const:A"`` (``A``, ``0 < A <= 1``)."""
    text = "harmonic" if step is None else str(step).strip().lower()
    kind, _, arg = text.partition(":")
    if kind == "harmonic" and not arg:
        return "harmonic", 1.0
    if kind in ("power", "const") and arg:
        try:
            value = float(arg)
        except ValueError:
            value = float("nan")
        if 0 < value <= 1:
            return kind, value
    raise RcfrError(f"--step must be harmonic, power:P or const:A (0 < P, A <= 1), got {step!r}")


def step_size(schedule: tuple[str, float], t: int) -> float:
    """``alpha_t`` of a parsed schedule at iteration ``t >= 1``."""
    kind, value = schedule
    if kind == "harmonic":
        return 1 / (t + 1)  # as OpenSpiel's XFPSolver writes it (bit for bit)
    if kind == "power":
        return float((t + 1) ** -value)
    return value


class SteppedSolver(PolicyDriver):
    """A fictitious-play solver whose average moves toward best responses by a step-size
    schedule (``step``: ``harmonic`` = ``1/(t+1)``, ``power:P``, ``const:A``; see
    :func:`parse_step`), with alternating or simultaneous updates."""

    def __init__(self, game: Form | Any, *, step: str | None = None, alternating: bool = True,
                 seed: int | None = None) -> None:
        super().__init__(game, seed=seed)
        self.step = step
        self.alternating = alternating


def checked(array: np.ndarray, shape: tuple[int, ...], dtype=np.float64) -> np.ndarray:
    """``array`` as ``dtype`` if it has ``shape`` (else ``ValueError``)."""
    out = np.array(array, dtype=dtype)
    if out.shape != shape:
        raise ValueError("shape")
    return out
