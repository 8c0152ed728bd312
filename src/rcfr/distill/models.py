"""The models a strategy is distilled into, behind one small interface: ``fit(X, Y, w)``,
``predict(X)`` (one row of action weights per row of ``X``), ``size`` (leaves or parameters)
``rules(names, actions)`` (readable text, or ``None`` where the model has none) and ``walk()``
(the fitted tree as a :class:`~rcfr.distill.text_rules.TreeWalk` to draw, or ``None``)."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ..core.errors import RcfrError, install_hint
from .text_rules import TreeWalk, sklearn_walk, tree_rules

MODELS = ("cart", "optimal", "xgboost", "mlp")


class Model(Protocol):
    size: int
    unit: str  # what size counts: "leaves" or "parameters"

    def fit(self, X: np.ndarray, Y: np.ndarray, w: np.ndarray) -> None: ...

    def predict(self, X: np.ndarray) -> np.ndarray: ...

    def rules(self, names: list[str], actions: list[str]) -> list[str] | None: ...

    def walk(self) -> TreeWalk | None: ...


class CartModel:
    """scikit-learn's CART (``DecisionTreeRegressor``, multi-output, squared error with sample
    weights): each leaf predicts the weighted mean of its rows' probability vectors
    (Breiman et al. 1984; the CART model of Bertsimas & Paskov 2021)."""

    def __init__(self, max_depth: int | None, seed: int = 0) -> None:
        from sklearn.tree import DecisionTreeRegressor

        self.tree = DecisionTreeRegressor(max_depth=max_depth, random_state=seed)
        self.size, self.unit = 0, "leaves"

    def fit(self, X: np.ndarray, Y: np.ndarray, w: np.ndarray) -> None:
        self.tree.fit(X, Y, sample_weight=w)
        self.size = int(self.tree.get_n_leaves())

    def predict(self, X: np.ndarray) -> np.ndarray:
        out = np.asarray(self.tree.predict(X), dtype=np.float64)
        return out.reshape(X.shape[0], -1)

    def rules(self, names: list[str], actions: list[str]) -> list[str]:
        return tree_rules(self.tree.tree_, names, actions)

    def walk(self) -> TreeWalk:
        return sklearn_walk(self.tree.tree_)


class XGBoostModel:
    """XGBoost's gradient-boosted regression trees (Chen & Guestrin 2016), one output per
    action, squared error with sample weights: 50 rounds of trees at most ``max_depth`` deep
    (default 6); its size is the leaves over all its trees.  Needs the ``xgboost`` extra."""

    def __init__(self, max_depth: int | None, seed: int = 0) -> None:
        try:
            from xgboost import XGBRegressor
        except ImportError:
            raise RcfrError(f"--model xgboost needs the xgboost package: "
                            f"{install_hint('xgboost')}") from None
        self.model = XGBRegressor(n_estimators=50, max_depth=max_depth or 6, learning_rate=0.3,
                                  tree_method="hist", random_state=seed, n_jobs=1)
        self.size, self.unit = 0, "leaves"

    def fit(self, X: np.ndarray, Y: np.ndarray, w: np.ndarray) -> None:
        self.model.fit(X, Y, sample_weight=w)
        dumps = self.model.get_booster().get_dump()
        self.size = sum(d.count("leaf=") for d in dumps)

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(self.model.predict(X), dtype=np.float64).reshape(X.shape[0], -1)

    def rules(self, names: list[str], actions: list[str]) -> None:
        return None

    def walk(self) -> None:
        return None


class MLPModel:
    """A small perceptron (scikit-learn's ``MLPRegressor``, sample weights): one hidden layer
    of ``2**max_depth`` ReLU units (default 16; as many as a full tree of that depth has
    leaves), Adam, one output per action; its size is its number of parameters."""

    def __init__(self, max_depth: int | None, seed: int = 0) -> None:
        from sklearn.neural_network import MLPRegressor

        self.model = MLPRegressor(hidden_layer_sizes=(2 ** (max_depth or 4),), max_iter=2000,
                                  tol=1e-6, random_state=seed)
        self.size, self.unit = 0, "parameters"

    def fit(self, X: np.ndarray, Y: np.ndarray, w: np.ndarray) -> None:
        import warnings

        from sklearn.exceptions import ConvergenceWarning

        self.scale = np.maximum(np.abs(X).max(axis=0), 1e-12)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            self.model.fit(X / self.scale, Y, sample_weight=w / w.mean())
        self.size = int(sum(c.size for c in self.model.coefs_)
                        + sum(b.size for b in self.model.intercepts_))

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.asarray(self.model.predict(X / self.scale),
                          dtype=np.float64).reshape(X.shape[0], -1)

    def rules(self, names: list[str], actions: list[str]) -> None:
        return None

    def walk(self) -> None:
        return None


def make_model(name: str, max_depth: int | None, seed: int = 0) -> Model:
    """The model called ``name`` (one of :data:`MODELS`), at most ``max_depth`` levels deep
    (``None``: unbounded)."""
    if max_depth is not None and (isinstance(max_depth, bool) or int(max_depth) < 1):
        raise RcfrError(f"the depth must be at least 1, got {max_depth}")
    key = str(name).strip().lower()
    if key == "cart":
        return CartModel(max_depth, seed)
    if key == "optimal":
        from .optimal import OptimalTreeModel

        return OptimalTreeModel(max_depth, seed)
    if key == "xgboost":
        return XGBoostModel(max_depth, seed)
    if key == "mlp":
        return MLPModel(max_depth, seed)
    raise RcfrError(f"unknown model {name!r}; use one of {', '.join(MODELS)}")
