"""A fitted regression tree as readable text rules: one line per leaf, its conditions (each
feature's bounds merged), its action probabilities and its weighted share of play."""

from __future__ import annotations

from typing import Any

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


def leaf_text(conditions: list[str], values: np.ndarray, actions: list[str],
              share: float) -> str:
    """``if C1 and C2: raise 0.71, call 0.25, fold 0.04  (share 12.3%)``: the values
    normalised, the actions below 0.005 left out."""
    p = np.clip(np.asarray(values, dtype=np.float64).reshape(-1), 0.0, None)
    p = p / p.sum() if p.sum() > 0 else np.full(p.size, 1.0 / p.size)
    order = np.argsort(-p, kind="stable")
    act = ", ".join(f"{actions[a]} {p[a]:.2f}" for a in order if p[a] >= 0.005)
    cond = " and ".join(conditions)
    return f"{'if ' + cond if cond else 'always'}: {act}  (share {100 * share:.1f}%)"


def walk_rules(root, split, leaf, names: list[str], actions: list[str]) -> list[str]:
    """The text rules of any binary tree ("feature <= threshold" goes left), leaves in order of
    their share, largest first: ``split(node)`` is ``None`` at a leaf, else ``(feature,
    threshold, left, right)``; ``leaf(node)`` is ``(values, share)``, or ``None`` for a leaf
    to leave out."""
    out: list[tuple[float, str]] = []
    stack: list[tuple[Any, dict[int, list]]] = [(root, {})]
    while stack:
        node, bounds = stack.pop()
        branch = split(node)
        if branch is None:
            found = leaf(node)
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


def tree_rules(tree, names: list[str], actions: list[str]) -> list[str]:
    """``tree``: a scikit-learn ``tree_`` (multi-output regression over ``actions``).  Leaves in
    order of their share, largest first: ``if C1 and C2: raise 0.71, call 0.25, fold 0.04
    (share 12.3%)``, the probabilities normalised and the zero ones left out."""
    left, right = tree.children_left, tree.children_right
    total = float(tree.weighted_n_node_samples[0]) or 1.0
    return walk_rules(
        0, lambda n: None if left[n] == -1 else (int(tree.feature[n]), float(tree.threshold[n]),
                                                 int(left[n]), int(right[n])),
        lambda n: (tree.value[n], float(tree.weighted_n_node_samples[n]) / total),
        names, actions)
