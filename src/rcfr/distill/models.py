"""The models a strategy is distilled into, behind one small interface: ``fit(X, Y, w)``,
``predict(X)`` (one row of action weights per row of ``X``), ``size`` (leaves or parameters)
and ``rules(names, actions)`` (readable text, or ``None`` where the model has none)."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ..core.errors import RcfrError
from .rules import tree_rules

MODELS = ("cart",)


class Model(Protocol):
    size: int

    def fit(self, X: np.ndarray, Y: np.ndarray, w: np.ndarray) -> None: ...

    def predict(self, X: np.ndarray) -> np.ndarray: ...

    def rules(self, names: list[str], actions: list[str]) -> list[str] | None: ...


class CartModel:
    """scikit-learn's CART (``DecisionTreeRegressor``, multi-output, squared error with sample
    weights): each leaf predicts the weighted mean of its rows' probability vectors
    (Breiman et al. 1984; the CART model of Bertsimas & Paskov 2021)."""

    def __init__(self, max_depth: int | None, seed: int = 0) -> None:
        from sklearn.tree import DecisionTreeRegressor

        self.tree = DecisionTreeRegressor(max_depth=max_depth, random_state=seed)
        self.size = 0

    def fit(self, X: np.ndarray, Y: np.ndarray, w: np.ndarray) -> None:
        self.tree.fit(X, Y, sample_weight=w)
        self.size = int(self.tree.get_n_leaves())

    def predict(self, X: np.ndarray) -> np.ndarray:
        out = np.asarray(self.tree.predict(X), dtype=np.float64)
        return out.reshape(X.shape[0], -1)

    def rules(self, names: list[str], actions: list[str]) -> list[str]:
        return tree_rules(self.tree.tree_, names, actions)


def make_model(name: str, max_depth: int | None, seed: int = 0) -> Model:
    """The model called ``name`` (one of :data:`MODELS`), at most ``max_depth`` levels deep
    (``None``: unbounded)."""
    if max_depth is not None and (isinstance(max_depth, bool) or int(max_depth) < 1):
        raise RcfrError(f"the depth must be at least 1, got {max_depth}")
    key = str(name).strip().lower()
    if key == "cart":
        return CartModel(max_depth, seed)
    raise RcfrError(f"unknown model {name!r}; use one of {', '.join(MODELS)}")
