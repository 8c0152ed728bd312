"""The memories of the sampled neural solvers: a circular buffer (NFSP's M_RL of transitions,
Heinrich & Silver 2016, Alg. 1) and a reservoir (NFSP's M_SL; Deep CFR's advantage and strategy
memories, Brown et al. 2019, sec. 4): reservoir sampling (Vitter 1985, Algorithm R) keeps each of
the ``n`` rows offered so far with probability ``capacity / n``, so a bounded memory stays a
uniform sample of everything offered.  Rows are small records of named columns (information-set
indices, actions, rewards, iterations, target vectors), never observations: features are
gathered from the information-set index when a minibatch is drawn, so large capacities stay
cheap."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ..core.statecheck import typed


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


class CircularBuffer:
    """The last ``capacity`` rows of named ``columns``: a dtype each, or ``(dtype, width)`` for
    a vector column."""

    def __init__(self, capacity: int, columns: dict[str, Any]) -> None:
        self.capacity = int(capacity)
        self.data: dict[str, np.ndarray] = {}
        for k, d in columns.items():
            dtype, width = d if isinstance(d, tuple) else (d, None)
            shape = (self.capacity,) if width is None else (self.capacity, int(width))
            self.data[k] = np.zeros(shape, dtype=dtype)
        self.added = 0  # rows ever added

    def __len__(self) -> int:
        return min(self.added, self.capacity)

    def add(self, rows: dict[str, np.ndarray]) -> None:
        n = len(next(iter(rows.values())))
        idx = (self.added + np.arange(n)) % self.capacity
        for k, v in rows.items():
            self.data[k][idx] = v
        self.added += n

    def sample(self, size: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        idx = rng.integers(0, len(self), size)
        return {k: v[idx] for k, v in self.data.items()}

    def state(self, prefix: str) -> dict[str, np.ndarray]:
        n = len(self)
        out = {f"{prefix}{k}": v[:n] for k, v in self.data.items()}
        out[f"{prefix}added"] = np.array([self.added], dtype=np.int64)
        return out

    def load_state(self, prefix: str, arrays: dict[str, np.ndarray]) -> None:
        added = int(typed(arrays[f"{prefix}added"], "iu", (1,), f"{prefix}added")[0])
        if added < 0:
            raise ValueError("added")
        n = min(added, self.capacity)
        for k, v in self.data.items():
            src = np.asarray(arrays[f"{prefix}{k}"], dtype=v.dtype)
            if src.shape != (n, *v.shape[1:]):
                raise ValueError("shape")
            v[:n] = src
        self.added = added


class ReservoirBuffer(CircularBuffer):
    """A uniform sample of at most ``capacity`` of all rows ever offered (Algorithm R,
    :func:`reservoir_slots`)."""

    def _slots(self, n: int, rng: np.random.Generator) -> np.ndarray:
        slots = np.empty(n, dtype=np.int64)
        reservoir_slots(self.added, self.capacity, rng.random(n), slots)
        return slots

    def add(self, rows: dict[str, np.ndarray], rng: np.random.Generator) -> None:  # type: ignore[override]
        n = len(next(iter(rows.values())))
        if n == 0:
            return
        slots = self._slots(n, rng)
        for k, v in rows.items():
            dest = self.data[k]
            _write_rows(dest, slots, np.ascontiguousarray(v, dtype=dest.dtype))
        self.added += n
