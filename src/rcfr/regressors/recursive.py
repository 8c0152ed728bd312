"""Recursive-partitioning regression tree with an error threshold (Morrill 2016, ch. 2,
"Recursive Partitioning"; Breiman et al. 1984; Waugh et al. 2015)."""

from __future__ import annotations

from ._checks import check_float, check_int
from .tree_base import RegressionTree


class RecursivePartitioningTree(RegressionTree):
    """Regression tree that splits every node whose mean error exceeds ``threshold``.

    The mean error of a node is its (weighted) mean squared deviation from the mean for
    ``criterion="squared_error"``, or mean absolute deviation from the median for
    ``"absolute_error"`` -- the stopping rule the thesis reports was actually used (a threshold
    on the average error within the node, its footnote 3).  Each node is split at its best split
    (the one that most reduces its error).  Without ``max_leaves`` the order of the splits does
    not matter; with it, nodes are expanded best-first (largest error reduction first) until the
    budget is spent.  Without a budget, a larger threshold gives a subtree of the tree a
    smaller one gives (so never more leaves), and ``threshold=0`` (the default) splits until
    every leaf is pure or its samples cannot be told apart.

    In the RCFR loop the threshold applies to average regrets (thesis Algorithms 1-2), so the
    loop fits this tree on ``target / t`` (``target_scale = "average"``).
    """

    target_scale = "average"

    def __init__(self, threshold: float = 0.0, max_leaves: int | None = None,
                 criterion: str = "squared_error", min_samples_leaf: int = 1) -> None:
        self.threshold = threshold
        self.max_leaves = max_leaves
        self.criterion = criterion
        self.min_samples_leaf = min_samples_leaf

    def _growth(self) -> tuple[int | None, float]:
        threshold = check_float("threshold", self.threshold, 0.0)
        if self.max_leaves is None:
            return None, threshold
        return check_int("max_leaves", self.max_leaves, 1), threshold
