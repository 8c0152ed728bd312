"""The two memories of NFSP (Heinrich & Silver 2016, Alg. 1): a circular buffer M_RL of the
agent's transitions for Q-learning and a reservoir M_SL of its own best-response behaviour for
the average policy (reservoir sampling, Vitter 1985: after ``n`` additions each one is kept
with probability ``capacity / n``).  Rows are small integer/float records (information-set
indices, actions, rewards), never observations, so large capacities stay cheap."""

from __future__ import annotations

import numpy as np


class CircularBuffer:
    """The last ``capacity`` rows of named columns."""

    def __init__(self, capacity: int, columns: dict[str, np.dtype]) -> None:
        self.capacity = int(capacity)
        self.data = {k: np.zeros(self.capacity, dtype=d) for k, d in columns.items()}
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
        added = int(arrays[f"{prefix}added"][0])
        n = min(added, self.capacity)
        for k, v in self.data.items():
            src = np.asarray(arrays[f"{prefix}{k}"], dtype=v.dtype)
            if src.shape != (n,):
                raise ValueError("shape")
            v[:n] = src
        self.added = added


class ReservoirBuffer(CircularBuffer):
    """A uniform sample of ``capacity`` of all rows ever added (reservoir sampling)."""

    def add(self, rows: dict[str, np.ndarray], rng: np.random.Generator) -> None:  # type: ignore[override]
        n = len(next(iter(rows.values())))
        seen = self.added + np.arange(n)  # rows added before each new one
        slot = np.where(seen < self.capacity, seen,
                        (rng.random(n) * (seen + 1)).astype(np.int64))
        keep = slot < self.capacity
        for k, v in rows.items():  # in order, so a later row overwrites an earlier one
            self.data[k][slot[keep]] = np.asarray(v)[keep]
        self.added += n
