"""Best-first regression tree with a leaf budget (Morrill 2016, ch. 2, "Best-first
Partitioning"; Shi 2007)."""

from __future__ import annotations

from ._checks import check_int
from .tree_base import RegressionTree


class BestFirstTree(RegressionTree):
    """Regression tree grown best-first: repeatedly split the frontier node whose best split
    most reduces the tree's total error, until ``max_leaves`` leaves or no node can be split.

    ``criterion="squared_error"`` (leaf value = weighted mean) or ``"absolute_error"`` (leaf
    value = weighted median); every leaf keeps at least ``min_samples_leaf`` samples.  With
    squared error it grows the tree scikit-learn's ``DecisionTreeRegressor(max_leaf_nodes=k)``
    grows (same split rule and order), up to ties between equally good splits.  Without a
    budget (``max_leaves=None``, the default) it grows until no node can be split.
    """

    def __init__(self, max_leaves: int | None = None, criterion: str = "squared_error",
                 min_samples_leaf: int = 1) -> None:
        self.max_leaves = max_leaves
        self.criterion = criterion
        self.min_samples_leaf = min_samples_leaf

    def _growth(self) -> tuple[int | None, float]:
        if self.max_leaves is None:
            return None, 0.0
        return check_int("max_leaves", self.max_leaves, 1), 0.0
