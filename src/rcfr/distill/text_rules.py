"""A fitted regression tree as readable text rules: one line per leaf, its conditions (each
feature's bounds merged), its action probabilities and its weighted share of play."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np


def _condition(name: str, lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f"{lo:.3g} < {name} <= {hi:.3g}"
    if lo is not None:
        return f"{name} > {lo:.3g}"
    return f"{name} <= {hi:.3g}"


def merged_conditions(bounds: dict[int, list], names: list[str]) -> list[str]:
    """``{feature: [low, high]}`` (either ``None``) as conditions, in feature order."""
    return [_condition(names[f], *b) for f, b in sorted(bounds.items())]


SHOWN = 6  # actions a leaf's text names (more: the five largest and the rest summed)


def action_mix(values: np.ndarray, actions: list[str], shown: int = SHOWN) -> list[str]:
    """``["raise 0.71", "call 0.25", "fold 0.04"]``: the values normalised, largest first,
    those below 0.005 left out, and past ``shown`` actions the ``shown - 1`` largest named and
    the rest summed (``"3 more 0.04"``)."""
    p = np.clip(np.asarray(values, dtype=np.float64).reshape(-1), 0.0, None)
    p = p / p.sum() if p.sum() > 0 else np.full(p.size, 1.0 / p.size)
    order = [a for a in np.argsort(-p, kind="stable") if p[a] >= 0.005]
    named = order if len(order) <= shown else order[:shown - 1]
    out = [f"{actions[a]} {p[a]:.2f}" for a in named]
    if len(named) < len(order):  # (no-limit raise sizes: the rest summed)
        out.append(f"{len(order) - len(named)} more {p[order[len(named):]].sum():.2f}")
    return out


def leaf_text(conditions: list[str], values: np.ndarray, actions: list[str],
              share: float) -> str:
    """``if C1 and C2: raise 0.71, call 0.25, fold 0.04  (share 12.3%)``: the values
    normalised, the actions below 0.005 left out, and past :data:`SHOWN` actions the five
    largest named and the rest summed (``3 more 0.04``)."""
    act = ", ".join(action_mix(values, actions))
    cond = " and ".join(conditions)
    return f"{'if ' + cond if cond else 'always'}: {act}  (share {100 * share:.1f}%)"


class TreeWalk(NamedTuple):
    """A fitted binary tree, readable by :func:`walk_rules` and drawable: ``split(node)`` is
    ``None`` at a leaf, else ``(feature, threshold, left, right)`` ("feature <= threshold"
    goes left); ``leaf(node)`` is ``(values, share)``, or ``None`` for a leaf to leave out."""

    root: Any
    split: Callable[[Any], tuple | None]
    leaf: Callable[[Any], tuple | None]


def walk_rules(walk: TreeWalk, names: list[str], actions: list[str]) -> list[str]:
    """The text rules of any binary tree, leaves in order of their share, largest first."""
    out: list[tuple[float, str]] = []
    stack: list[tuple[Any, dict[int, list]]] = [(walk.root, {})]
    while stack:
        node, bounds = stack.pop()
        branch = walk.split(node)
        if branch is None:
            found = walk.leaf(node)
            if found is not None:
                values, share = found
                out.append((share, leaf_text(merged_conditions(bounds, names), values,
                                             actions, share)))
            continue
        f, t, left, right = branch
        lo, hi = bounds.get(f, [None, None])
        stack.append((right, {**bounds, f: [t if lo is None else max(lo, t), hi]}))
        stack.append((left, {**bounds, f: [lo, t if hi is None else min(hi, t)]}))
    out.sort(key=lambda r: -r[0])
    return [text for _, text in out]


def sklearn_walk(tree) -> TreeWalk:
    """The walk of a scikit-learn ``tree_`` (multi-output regression): each leaf's values and
    its share of the weighted samples."""
    left, right = tree.children_left, tree.children_right
    total = float(tree.weighted_n_node_samples[0]) or 1.0
    return TreeWalk(
        0, lambda n: None if left[n] == -1 else (int(tree.feature[n]), float(tree.threshold[n]),
                                                 int(left[n]), int(right[n])),
        lambda n: (tree.value[n], float(tree.weighted_n_node_samples[n]) / total))


def tree_rules(tree, names: list[str], actions: list[str]) -> list[str]:
    """``tree``: a scikit-learn ``tree_`` (multi-output regression over ``actions``).  Leaves in
    order of their share, largest first: ``if C1 and C2: raise 0.71, call 0.25, fold 0.04
    (share 12.3%)``, the probabilities normalised and the zero ones left out."""
    return walk_rules(sklearn_walk(tree), names, actions)
