"""The distilled decision trees drawn (as Bertsimas & Paskov 2021 show theirs): one panel per
fitted tree (player, and betting round with ``--per-round``), each split as its question and
each leaf as the actions it plays and its reach-weighted share of the player's play.  CART's
trees are laid out by scikit-learn's ``plot_tree``; other trees (the optimal tree) by
:func:`_draw_walk` over the same :class:`~rcfr.distill.text_rules.TreeWalk` the text rules read."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..core.errors import RcfrError
from ..core.fileio import write_atomic
from ..distill import Distilled, Part
from ..distill.text_rules import TreeWalk, action_mix

DRAW_SUFFIXES = (".png", ".pdf", ".svg")
DRAWN_MODELS = ("cart", "optimal")  # the models that are trees
MAX_DRAWN_LEAVES = 64  # a tree with more leaves is unreadable as one image


def check_draw(path: str | Path, model: str) -> None:
    """Refuse a drawing of ``model`` into ``path`` before any work: the suffix, and a model
    that is not a single tree."""
    suffix = Path(path).suffix.lower()
    if suffix not in DRAW_SUFFIXES:
        raise RcfrError(f"--draw writes .png, .pdf or .svg, got {Path(path).name!r}")
    if str(model).strip().lower() not in DRAWN_MODELS:
        raise RcfrError(f"--draw draws decision trees: use --model cart or optimal, not {model}")


def _split_label(branch: tuple, names: list[str]) -> str:
    feature, threshold = branch[0], branch[1]
    return f"{names[feature]} <= {threshold:.3g}"


def _leaf_label(found: tuple | None, actions: list[str]) -> str:
    if found is None:
        return "(no information sets)"
    values, share = found
    return "\n".join([*action_mix(values, actions, shown=4), f"share {100 * share:.1f}%"])


def _title(part: Part) -> str:
    where = "" if part.round is None else f", round {part.round + 1}"
    return (f"player {part.player + 1}{where} ({part.infosets:,} information sets, "
            f"{part.size} leaves)")


def _draw_sklearn(ax, part: Part, walk: TreeWalk, fontsize: int) -> None:
    """scikit-learn's layout, each node's text replaced by the split's question or the
    leaf's actions and share."""
    from sklearn.tree import plot_tree

    texts = plot_tree(part.model.tree, ax=ax, node_ids=True, impurity=False,
                      fontsize=fontsize, rounded=True)
    for text in texts:
        found = re.search(r"node #(\d+)", text.get_text())
        if found is None:  # pragma: no cover (every box names its node)
            continue
        node = int(found.group(1))
        branch = walk.split(node)
        text.set_text(_split_label(branch, part.names) if branch is not None
                      else _leaf_label(walk.leaf(node), part.actions))


def _draw_walk(ax, part: Part, walk: TreeWalk, fontsize: int) -> None:
    """A tree laid out by its leaves in order (a split centred over its children), one level
    per depth; the left branch is the split's "yes"."""
    places: list[tuple[float, int, str, bool]] = []  # x, depth, label, leaf
    edges: list[tuple[int, int, str]] = []
    count = [0]

    def place(node: Any, depth: int) -> int:
        branch = walk.split(node)
        k = len(places)
        places.append((0.0, depth, "", branch is None))
        if branch is None:
            places[k] = (float(count[0]), depth, _leaf_label(walk.leaf(node), part.actions),
                         True)
            count[0] += 1
            return k
        left, right = place(branch[2], depth + 1), place(branch[3], depth + 1)
        places[k] = ((places[left][0] + places[right][0]) / 2, depth,
                     _split_label(branch, part.names), False)
        edges.extend([(k, left, "yes"), (k, right, "no")])
        return k

    place(walk.root, 0)
    for parent, child, word in edges:
        (x0, y0), (x1, y1) = places[parent][:2], places[child][:2]
        ax.plot([x0, x1], [-y0, -y1], color="0.6", lw=0.8, zorder=1)
        ax.text((x0 + x1) / 2, -(y0 + y1) / 2, word, ha="center", va="center",
                fontsize=fontsize * 0.8, color="0.4", zorder=3)
    for x, depth, label, leaf in places:
        ax.text(x, -depth, label, ha="center", va="center", fontsize=fontsize, zorder=2,
                bbox={"boxstyle": "round", "fc": "#e8f1fa" if leaf else "white", "ec": "0.5"})
    ax.set_xlim(-0.6, max(count[0] - 0.4, 0.6))
    ax.set_ylim(-max(p[1] for p in places) - 0.6, 0.6)
    ax.set_axis_off()


def draw_trees(result: Distilled, path: str | Path) -> Path:
    """Draw every fitted tree of ``result`` into ``path`` (``.png``, ``.pdf`` or ``.svg``),
    one panel per tree; written atomically."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    check = [(part, part.model.walk() if part.model is not None else None)
             for part in result.parts]
    if not check or any(walk is None for _, walk in check):
        raise RcfrError("--draw draws decision trees: use --model cart or optimal")
    widest = max(part.size for part, _ in check)
    if widest > MAX_DRAWN_LEAVES:
        raise RcfrError(f"--draw draws trees of at most {MAX_DRAWN_LEAVES} leaves, and one "
                        f"has {widest}; give a smaller --max-depth")
    depth = [_depth(walk) for _, walk in check]
    heights = [1.2 * (d + 1) + 0.6 for d in depth]
    fig = Figure(figsize=(max(6.0, 2.1 * widest), sum(heights)), layout="constrained")
    FigureCanvasAgg(fig)  # (plot_tree measures its text on the canvas's renderer)
    axes = fig.subplots(len(check), 1, squeeze=False, height_ratios=heights)[:, 0]
    fontsize = 7
    for ax, (part, walk) in zip(axes, check, strict=True):
        if hasattr(getattr(part.model, "tree", None), "tree_"):
            _draw_sklearn(ax, part, walk, fontsize)
        else:
            _draw_walk(ax, part, walk, fontsize)
        ax.set_title(_title(part), fontsize=fontsize + 2, loc="left")
    fmt = Path(path).suffix.lstrip(".").lower()
    return write_atomic(path, lambda handle: fig.savefig(handle, format=fmt))


def _depth(walk: TreeWalk) -> int:
    deepest, stack = 0, [(walk.root, 0)]
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        branch = walk.split(node)
        if branch is not None:
            stack.extend([(branch[2], d + 1), (branch[3], d + 1)])
    return deepest
