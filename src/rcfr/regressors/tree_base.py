"""What the regression trees share: the per-feature-matrix cache, ``fit``, ``predict`` and
``apply``."""

from __future__ import annotations

import numpy as np

from ..errors import RcfrError
from . import tree_grow as G
from ._checks import check_choice, check_int, check_matrix, check_targets, check_weights
from .tree_layout import Layout

CRITERIA = {"squared_error": G.SQUARED_ERROR, "absolute_error": G.ABSOLUTE_ERROR}
EPSILON = float(np.finfo(np.float64).eps)  # a node whose mean error is <= this is pure
SMALL_NODE = 3  # squared error: nodes of at most this many samples are sorted on the spot


class RegressionTree:
    """A piecewise-constant regressor grown by :func:`tree_grow.grow_tree`.

    The work that depends only on ``X`` (sorting and ranking each feature, laying out
    histograms) is done once per feature matrix: :meth:`prepare` does it, and :meth:`fit`
    reuses it as long as it is given the *same* ``X`` object (identity and shape), so that
    refitting new targets on a fixed ``X`` -- the solver loop's case -- costs one numba kernel
    call.  Do not modify ``X`` in place between fits; call :meth:`prepare` again if you do.

    Weights multiply each sample's error; ``min_samples_leaf`` counts samples, as in
    scikit-learn.  A node whose mean error is at most 2.2e-16 (float64 epsilon, scikit-learn's
    purity tolerance) is never split.

    Fitted attributes: ``feature_``, ``threshold_``, ``children_left_``, ``children_right_``
    (``-1`` at leaves; the right child is always the left child + 1), ``value_`` (node
    predictions), ``fitted_`` (the predictions for the rows just fit), ``n_leaves_``,
    ``n_features_in_``.  A sample goes left at a node when
    ``x[feature] <= threshold``.
    """

    def __init__(self, criterion: str = "squared_error", min_samples_leaf: int = 1) -> None:
        self.criterion = criterion
        self.min_samples_leaf = min_samples_leaf
        self._source: object = None
        self._layout: Layout | None = None
        self.n_leaves_ = 0

    def _growth(self) -> tuple[int | None, float]:
        """``(max_leaves or None, min_impurity)``: how far to grow (subclasses)."""
        raise NotImplementedError

    def prepare(self, X: np.ndarray) -> RegressionTree:
        """Validate ``X`` and sort each of its features once, for the fits that follow."""
        self._layout = Layout(check_matrix(X))
        self._source = X
        return self

    def fit(self, X: np.ndarray, y: np.ndarray,
            sample_weight: np.ndarray | None = None) -> RegressionTree:
        """Grow the tree on targets ``y`` (optionally weighted); returns ``self``."""
        code = CRITERIA[check_choice("criterion", self.criterion, tuple(CRITERIA))]
        min_leaf = check_int("min_samples_leaf", self.min_samples_leaf, 1)
        max_leaves, min_impurity = self._growth()
        layout = self._layout
        if layout is None or self._source is not X or np.shape(X) != layout.shape:
            layout = self.prepare(X)._layout
        n = layout.shape[0]
        targets = check_targets(y, n)
        w = check_weights(sample_weight, n)
        leaves = n if max_leaves is None else min(max_leaves, n)
        feature, threshold, left, right, value, fitted = G.grow_tree(
            layout.Xt, *layout.plan(code), targets, layout.ones if w is None else w, w is None,
            code, leaves, min_leaf, max(min_impurity, EPSILON), SMALL_NODE)
        self.feature_ = feature
        self.threshold_ = threshold
        self.children_left_ = left
        self.children_right_ = right
        self.value_ = value
        self.fitted_ = fitted  # predictions for the rows of the X just fit
        self.n_leaves_ = (value.shape[0] + 1) // 2
        self.n_features_in_ = layout.shape[1]
        return self

    def _rows(self, X: np.ndarray) -> np.ndarray:
        """``X`` checked (the checked copy of the fitted matrix when ``X`` is that one)."""
        if not hasattr(self, "value_"):
            raise RcfrError(f"this {type(self).__name__} is not fitted yet; call fit first")
        layout = self._layout
        if (layout is not None and X is self._source and np.shape(X) == layout.shape
                and layout.shape[1] == self.n_features_in_):
            return layout.X
        return check_matrix(X, self.n_features_in_)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The leaf value for every row of ``X``."""
        A = self._rows(X)
        out = np.empty(A.shape[0])
        G.predict_tree(A, self.feature_, self.threshold_, self.children_left_, self.value_, out)
        return out

    def apply(self, X: np.ndarray) -> np.ndarray:
        """The id (index into the node arrays) of the leaf every row of ``X`` falls into."""
        A = self._rows(X)
        out = np.empty(A.shape[0], dtype=np.int64)
        G.apply_tree(A, self.feature_, self.threshold_, self.children_left_, out)
        return out

    @property
    def complexity(self) -> int:
        """The number of leaves (0 before the first fit)."""
        return self.n_leaves_
