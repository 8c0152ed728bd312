"""Reservoir memories of Deep CFR (Brown et al. 2019, sec. 4; Vitter 1985, Algorithm R): after
``n`` rows have been offered, each one is in the memory with probability ``capacity / n``, so
a memory of bounded size stays a uniform sample of every iteration's samples.

A row is an information set (its index among its player's), the iteration that produced it,
a target vector (advantages or strategy probabilities, padded to the widest information set)
and a weight (how many visits it stands for, or a reach).  Feature vectors are gathered from
the information-set index when a minibatch is drawn, so rows stay small."""

from __future__ import annotations

import numpy as np

from ..memory import ReservoirBuffer


class Reservoir(ReservoirBuffer):
    """A reservoir of rows (module docstring) whose target vectors are ``width`` long."""

    def __init__(self, capacity: int, width: int) -> None:
        super().__init__(capacity, {"info": np.int32, "iteration": np.int64,
                                    "target": (np.float64, int(width)), "weight": np.float64})
        self.width = int(width)

    info = property(lambda self: self.data["info"])
    iteration = property(lambda self: self.data["iteration"])
    target = property(lambda self: self.data["target"])
    weight = property(lambda self: self.data["weight"])

    def add(self, info: np.ndarray, iteration: int, target: np.ndarray,  # type: ignore[override]
            weight: np.ndarray, rng: np.random.Generator) -> None:
        """Offer ``len(info)`` rows, all from ``iteration``."""
        n = int(len(info))
        super().add({"info": np.asarray(info, dtype=np.int32),
                     "iteration": np.full(n, iteration, dtype=np.int64),
                     "target": np.asarray(target, dtype=np.float64),
                     "weight": np.asarray(weight, dtype=np.float64)}, rng)

    def rows(self) -> slice:
        return slice(0, len(self))
