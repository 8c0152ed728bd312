"""The optimal-tree model (the OCT role of Bertsimas & Paskov 2021): STreeD's optimal
classification tree (van der Linden et al. 2023, ``pystreed``), at most ``max_depth`` levels,
with instance costs ``w_i (1 - p_i(a))``: the tree whose leaves' actions carry the most
reach-weighted probability, found exactly by dynamic programming over binary splits.  Each
leaf then plays the weighted mean of its rows' probability vectors (as a CART leaf does)."""

from __future__ import annotations

import numpy as np

from ..core.errors import RcfrError, install_hint

MAX_THRESHOLDS = 8  # binary splits per feature: midpoints between quantiles of its values


def _thresholds(x: np.ndarray) -> np.ndarray:
    values = np.unique(x)
    if values.size > MAX_THRESHOLDS + 1:
        values = np.unique(np.quantile(values, np.linspace(0, 1, MAX_THRESHOLDS + 1)))
    return (values[:-1] + values[1:]) / 2


class OptimalTreeModel:
    """:mod:`pystreed`'s instance-cost-sensitive optimal tree (default depth 3) over the
    features binarised at up to :data:`MAX_THRESHOLDS` thresholds each; needs the ``optimal``
    extra."""

    def __init__(self, max_depth: int | None, seed: int = 0) -> None:
        try:
            import pystreed
        except ImportError:
            raise RcfrError(f"--model optimal needs the pystreed package: "
                            f"{install_hint('optimal')}") from None
        self.depth = max_depth or 3
        self.solver = pystreed.STreeDInstanceCostSensitiveClassifier(
            max_depth=self.depth, time_limit=600, random_seed=seed)
        self.size, self.unit = 0, "leaves"

    def _binary(self, X: np.ndarray) -> np.ndarray:
        return np.stack([X[:, j] > t for j, t in self.splits], axis=1).astype(np.int32) \
            if self.splits else np.zeros((X.shape[0], 1), dtype=np.int32)

    def _leaves(self, B: np.ndarray) -> np.ndarray:
        out = np.empty(B.shape[0], dtype=np.int64)
        for i, row in enumerate(B):
            node, path = self.tree, 0
            while node.is_branching_node():
                bit = int(row[node.feature])
                path = 2 * path + 1 + bit
                node = node.right_child if bit else node.left_child
            out[i] = path
        return out

    def fit(self, X: np.ndarray, Y: np.ndarray, w: np.ndarray) -> None:
        self.splits = [(j, float(t)) for j in range(X.shape[1]) for t in _thresholds(X[:, j])]
        B = self._binary(X)
        self.solver.fit(B, w[:, None] * (1.0 - Y))
        self.tree = self.solver.get_tree()
        leaf = self._leaves(B)
        ids = np.unique(leaf)
        self.values, self.shares = {}, {}
        for k in ids:
            rows = leaf == k
            total = w[rows].sum()
            self.values[int(k)] = (w[rows] @ Y[rows] / total if total > 0
                                   else Y[rows].mean(axis=0))
            self.shares[int(k)] = float(total / max(w.sum(), 1e-300))
        self.width = Y.shape[1]
        self.size = int(ids.size)

    def predict(self, X: np.ndarray) -> np.ndarray:
        leaf = self._leaves(self._binary(X))
        uniform = np.full(self.width, 1.0 / self.width)
        return np.stack([self.values.get(int(k), uniform) for k in leaf])

    def walk(self):
        from .text_rules import TreeWalk

        def split(at):  # a node and its path number (the key of its leaf's values)
            node, path = at
            if not node.is_branching_node():
                return None
            j, t = self.splits[node.feature]
            return j, t, (node.left_child, 2 * path + 1), (node.right_child, 2 * path + 2)

        def leaf(at):
            path = at[1]
            return (self.values[path], self.shares[path]) if path in self.values else None

        return TreeWalk((self.tree, 0), split, leaf)

    def rules(self, names: list[str], actions: list[str]) -> list[str]:
        from .text_rules import walk_rules

        return walk_rules(self.walk(), names, actions)
