"""The tabular regret estimator: exact cumulative regrets (CFR, Zinkevich et al. 2007) or
Q-regrets clipped at zero (CFR+, Tammelin 2014; Morrill 2016, eq. 2.6)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def tabular_update(inst, s_lo, s_hi, plus, regrets):
    """``R += r`` for sequences ``[s_lo, s_hi)``; with ``plus``, ``Q = max(Q + r, 0)``."""
    for s in range(s_lo, s_hi):
        v = regrets[s] + inst[s]
        regrets[s] = v if (v > 0.0 or not plus) else 0.0


class TabularRegrets:
    """One table of (Q-)regrets over all sequences."""

    fused = True  # the solver loop runs it inside one numba kernel

    def __init__(self, plus: bool = False) -> None:
        self.plus = bool(plus)
        self.regrets: np.ndarray | None = None

    def initialize(self, tree) -> None:
        self.regrets = np.zeros(tree.num_sequences)

    def update(self, inst: np.ndarray, s_lo: int, s_hi: int, iteration: int) -> None:
        tabular_update(inst, s_lo, s_hi, self.plus, self.regrets)

    def predict(self) -> np.ndarray:
        return self.regrets

    @property
    def complexity(self) -> int:
        return 0 if self.regrets is None else int(self.regrets.shape[0])

    def state(self) -> dict[str, np.ndarray]:
        return {"regrets": self.regrets}

    def load_state(self, arrays: dict[str, np.ndarray]) -> None:
        """Take regrets from a checkpoint; their shape must match the table (the kernels do
        not check bounds)."""
        regrets = np.array(arrays["regrets"], dtype=np.float64)
        if self.regrets is not None and regrets.shape != self.regrets.shape:
            raise ValueError(f"regrets of shape {regrets.shape}, expected {self.regrets.shape}")
        self.regrets = regrets
