"""What the regression trees share: the per-feature-matrix cache, ``fit``, ``predict``,
``apply`` and ``state`` / ``load_state``."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin

from . import tree_grow as G
from ._checks import (
    check_choice,
    check_fitted,
    check_int,
    check_plain_X,
    check_targets,
    check_weights,
    check_X,
)
from .tree_layout import Layout

CRITERIA = {"squared_error": G.SQUARED_ERROR, "absolute_error": G.ABSOLUTE_ERROR}
EPSILON = float(np.finfo(np.float64).eps)  # a node whose mean error is <= this is pure
SMALL_NODE = 3  # squared error: nodes of at most this many samples are sorted on the spot
STATE_KEYS = ("feature", "threshold", "children_left", "children_right", "value")


class RegressionTree(RegressorMixin, BaseEstimator):
    """A piecewise-constant regressor grown by :func:`tree_grow.grow_tree` (a scikit-learn
    estimator: subclasses set their parameters in ``__init__``).

    The work that depends only on ``X`` (sorting and ranking each feature, laying out
    histograms) is done once per feature matrix: :meth:`prepare` does it, and :meth:`fit`
    reuses it as long as it is given the *same* ``X`` object (identity and shape), so that
    refitting new targets on a fixed ``X`` -- the solver loop's case -- costs one numba kernel
    call and no validation of ``X``.  Do not modify ``X`` in place between fits; call
    :meth:`prepare` again if you do.

    Weights multiply each sample's error; ``min_samples_leaf`` counts samples, as in
    scikit-learn.  A node whose mean error is at most 2.2e-16 (float64 epsilon, scikit-learn's
    purity tolerance) is never split.  The tree is deterministic (ties between equally good
    splits go to the lower feature), so it takes no ``random_state``.

    Fitted attributes: ``feature_``, ``threshold_``, ``children_left_``, ``children_right_``
    (``-1`` at leaves; the right child is always the left child + 1), ``value_`` (node
    predictions), ``fitted_`` (the predictions for the rows just fit), ``n_leaves_``,
    ``n_features_in_``.  A sample goes left at a node when ``x[feature] <= threshold``.
    """

    criterion: str
    min_samples_leaf: int

    def _growth(self) -> tuple[int | None, float]:
        """``(max_leaves or None, min_impurity)``: how far to grow (subclasses)."""
        raise NotImplementedError

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags

    def prepare(self, X: np.ndarray) -> RegressionTree:
        """Validate ``X`` and sort each of its features once, for the fits that follow."""
        self._layout = Layout(check_plain_X(X))
        self._source = X
        return self

    def _cached(self, X: object) -> Layout | None:
        """The layout of ``X`` if it is the float64 array last prepared (an array of another
        dtype is converted, and so checked, afresh)."""
        layout = getattr(self, "_layout", None)
        if (layout is not None and getattr(self, "_source", None) is X
                and isinstance(X, np.ndarray) and X.dtype == np.float64
                and X.shape == layout.shape):
            return layout
        return None

    def fit(self, X: np.ndarray, y: np.ndarray,
            sample_weight: np.ndarray | None = None) -> RegressionTree:
        """Grow the tree on targets ``y`` (optionally weighted); returns ``self``."""
        code = CRITERIA[check_choice("criterion", self.criterion, tuple(CRITERIA))]
        min_leaf = check_int("min_samples_leaf", self.min_samples_leaf, 1)
        max_leaves, min_impurity = self._growth()
        layout = self._cached(X)
        if layout is None:
            layout = self._layout = Layout(check_X(self, X, reset=True))
            self._source = X
        n = layout.shape[0]
        targets = check_targets(y, n)
        w = check_weights(sample_weight, n)
        grow_on = layout
        if w is not None and not w.all():  # zero-weight samples take no part (as in sklearn)
            keep = np.flatnonzero(w)
            grow_on, targets, w = Layout(layout.X[keep]), targets[keep], w[keep]
        m = grow_on.shape[0]
        leaves = m if max_leaves is None else min(max_leaves, m)
        feature, threshold, left, right, value, fitted = G.grow_tree(
            grow_on.Xt, *grow_on.plan(code), targets, grow_on.ones if w is None else w,
            w is None, code, leaves, min_leaf, max(min_impurity, EPSILON), SMALL_NODE)
        if grow_on is not layout:
            fitted = np.empty(n)
            G.predict_tree(layout.X, feature, threshold, left, value, fitted)
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
        check_fitted(self, "value_")
        layout = self._cached(X)
        if layout is not None and layout.shape[1] == self.n_features_in_:
            return layout.X
        return check_X(self, X, reset=False)

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
        return int(getattr(self, "n_leaves_", 0))

    # -- checkpoints (plain arrays, no pickle) ---------------------------------------------
    def state(self) -> dict[str, np.ndarray]:
        """The fitted tree as plain arrays (for an ``.npz`` checkpoint)."""
        check_fitted(self, "value_")
        out = {k: getattr(self, k + "_") for k in STATE_KEYS}
        out["n_features_in"] = np.array(self.n_features_in_, dtype=np.int64)
        return out

    def load_state(self, arrays: dict[str, np.ndarray]) -> RegressionTree:
        """Take a fitted tree back from :meth:`state`'s arrays (``ValueError`` when they do
        not describe a tree: integer indices, float thresholds and values, of :meth:`state`'s
        shapes)."""
        kinds = {"n_features_in": "iu", "feature": "iu", "children_left": "iu",
                 "children_right": "iu", "threshold": "f", "value": "f"}
        for key, kind in kinds.items():
            got = np.asarray(arrays.get(key, ""))
            if got.dtype.kind not in kind or got.ndim != (0 if key == "n_features_in" else 1):
                raise ValueError("not the state of a regression tree")
        try:
            d = int(np.asarray(arrays["n_features_in"]).reshape(()))
            feature = np.array(arrays["feature"], dtype=np.int64)
            threshold = np.array(arrays["threshold"], dtype=np.float64)
            left = np.array(arrays["children_left"], dtype=np.int64)
            right = np.array(arrays["children_right"], dtype=np.int64)
            value = np.array(arrays["value"], dtype=np.float64)
        except (KeyError, TypeError, ValueError, OverflowError):
            raise ValueError("not the state of a regression tree") from None
        m = value.shape[0]
        inner = left >= 0
        if (value.ndim != 1 or m % 2 == 0 or d < 1
                or any(a.shape != (m,) for a in (feature, threshold, left, right))
                or not np.array_equal(right[inner], left[inner] + 1)
                or (right[~inner] != -1).any() or (left[inner] <= np.flatnonzero(inner)).any()
                or (left >= m - 1).any() or (feature[inner] < 0).any() or (feature >= d).any()):
            raise ValueError("not the state of a regression tree")
        self.feature_, self.threshold_, self.value_ = feature, threshold, value
        self.children_left_, self.children_right_ = left, right
        self.n_leaves_ = (m + 1) // 2
        self.n_features_in_ = d
        self.__dict__.pop("fitted_", None)  # training predictions of a fit this is not
        return self
