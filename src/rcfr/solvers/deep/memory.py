"""Reservoir memories of Deep CFR (Brown et al. 2019, sec. 4; Vitter 1985, Algorithm R): after
``n`` rows have been offered, each one is in the memory with probability ``capacity / n``, so
a memory of bounded size stays a uniform sample of every iteration's samples.

A row is an information set (its index among its player's), the iteration that produced it,
a target vector (advantages or strategy probabilities, padded to the widest information set)
and a weight (how many visits it stands for, or a reach).  Feature vectors are gathered from
the information-set index when a minibatch is drawn, so rows stay small."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def reservoir_slots(added, capacity, u, slots):
    """Algorithm R for ``len(u)`` rows offered after ``added`` others: ``slots[k]`` is where
    row ``k`` goes (``-1``: not kept); ``u`` holds uniforms in ``[0, 1)``."""
    for k in range(u.shape[0]):
        seen = added + k
        if seen < capacity:
            slots[k] = seen
        else:
            j = np.int64(u[k] * (seen + 1))
            slots[k] = j if j < capacity else -1


@njit(cache=True)
def _write_rows(dest, slots, rows):
    for k in range(slots.shape[0]):  # in order: a later row replaces an earlier one
        if slots[k] >= 0:
            dest[slots[k]] = rows[k]


class Reservoir:
    """A uniform sample of at most ``capacity`` rows (module docstring); ``width`` is the
    length of the target vectors."""

    def __init__(self, capacity: int, width: int) -> None:
        self.capacity = int(capacity)
        self.width = int(width)
        self.info = np.zeros(self.capacity, dtype=np.int32)
        self.iteration = np.zeros(self.capacity, dtype=np.int64)
        self.target = np.zeros((self.capacity, self.width))
        self.weight = np.zeros(self.capacity)
        self.added = 0  # rows ever offered

    def __len__(self) -> int:
        return min(self.added, self.capacity)

    def _slots(self, n: int, rng: np.random.Generator) -> np.ndarray:
        slots = np.empty(n, dtype=np.int64)
        reservoir_slots(self.added, self.capacity, rng.random(n), slots)
        return slots

    def add(self, info: np.ndarray, iteration: int, target: np.ndarray, weight: np.ndarray,
            rng: np.random.Generator) -> None:
        """Offer ``len(info)`` rows, all from ``iteration``."""
        n = int(len(info))
        if n == 0:
            return
        slots = self._slots(n, rng)
        _write_rows(self.info, slots, np.asarray(info, dtype=np.int32))
        _write_rows(self.iteration, slots, np.full(n, iteration, dtype=np.int64))
        _write_rows(self.target, slots, np.ascontiguousarray(target, dtype=np.float64))
        _write_rows(self.weight, slots, np.ascontiguousarray(weight, dtype=np.float64))
        self.added += n

    def rows(self) -> slice:
        return slice(0, len(self))

    # -- checkpoints ---------------------------------------------------------------------
    def state(self, prefix: str) -> dict[str, np.ndarray]:
        n = len(self)
        return {f"{prefix}info": self.info[:n], f"{prefix}iteration": self.iteration[:n],
                f"{prefix}target": self.target[:n], f"{prefix}weight": self.weight[:n],
                f"{prefix}added": np.array([self.added], dtype=np.int64)}

    def load_state(self, prefix: str, arrays: dict[str, np.ndarray]) -> None:
        added = int(np.asarray(arrays[f"{prefix}added"]).reshape(-1)[0])
        if added < 0:
            raise ValueError("added")
        n = min(added, self.capacity)
        for name, shape in (("info", (n,)), ("iteration", (n,)), ("target", (n, self.width)),
                            ("weight", (n,))):
            dest = getattr(self, name)
            src = np.asarray(arrays[f"{prefix}{name}"], dtype=dest.dtype)
            if src.shape != shape:
                raise ValueError("shape")
            dest[:n] = src
        self.added = added
