"""What the strategy viewer (:mod:`rcfr.view`) needs to know about a compiled form, in form-neutral
terms: which form to view a game on, and -- where the form has public nodes -- the public tree's
nodes, the names on their edges and the private states (rows) at each decision node.

This is the one place the viewer's form-specific walking lives (ARCHITECTURE.md: nothing outside
``rcfr/forms`` asks which form a tree has); a form without public nodes (the history form) gives
``None``, and the viewer shows its information sets as a table instead.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..games.protocol import CHANCE
from ..games.registry import load_game
from .base import Form
from .compile import compile_game
from .public.tree import PublicTree, offers_public_form


@dataclass(frozen=True)
class PublicNodes:
    """A public tree, form-neutrally: public nodes in breadth-first order (a node's children are
    contiguous), each decision node's information sets (one per private row, contiguous:
    ``info_start[u] + k`` is row ``k``), and the private rows' labels.

    ``rowsets[r]``: the labels of a set of rows (one per information set of a decision node, in
    row order; a row a player observes only as a class of private states is labelled by the
    class); ``node_rowset[u]``: the rowset of decision node ``u`` (-1 elsewhere)."""

    kind: np.ndarray  # int8: 0/1 player to act, 2 chance, 3 terminal
    parent: np.ndarray  # int32, -1 at the root
    child_start: np.ndarray  # int64 [n + 1]
    edge_names: list[str]  # the action or chance outcome on the edge into the node ('' at root)
    info_start: np.ndarray  # int64: the first information set of a decision node (-1)
    info_count: np.ndarray  # int64: information sets (private rows) of a decision node
    rowsets: list[list[str]]
    node_rowset: np.ndarray  # int32

    @property
    def num_nodes(self) -> int:
        return int(self.kind.shape[0])


def view_form(game, form: str = "auto", max_memory=None) -> Form:
    """The compiled form to view ``game`` on: ``"auto"`` is the public form where the game offers
    one (its public nodes are what the viewer walks), else the history form."""
    if form == "auto":
        game = load_game(game)
        form = "public" if offers_public_form(game) else "history"
    return compile_game(game, form, max_memory)


def _class_label(labels: list[str]) -> str:
    """A label for a class of private states: the label itself for one state, else the
    members' common prefix up to a separator ('3.' -> '3') or the labels joined by '/'."""
    if len(labels) == 1:
        return labels[0]
    prefix = labels[0]
    for lab in labels[1:]:
        while not lab.startswith(prefix):
            prefix = prefix[:-1]
    cut = max(prefix.rfind(c) for c in ".:|-_ ")
    if cut > 0:
        return prefix[:cut]
    shown = labels if len(labels) <= 4 else [*labels[:3], "..."]
    return "/".join(shown)


def public_nodes(tree: Form) -> PublicNodes | None:
    """The public nodes of ``tree`` for the viewer, or ``None`` where the form has none."""
    if not isinstance(tree, PublicTree):
        return None
    n = tree.num_public_nodes
    states = tree._states
    kind = tree.node_kind
    parent = tree.node_parent
    names = [""] * n
    for v in range(1, n):
        u = int(parent[v])
        who = int(kind[u]) if kind[u] < 2 else CHANCE
        names[v] = states[u].action_to_string(who, int(tree.node_action[v]))
    counts = np.bincount(tree.infoset_public_node, minlength=n).astype(np.int64)
    decision = kind < 2
    info_start = np.where(decision, tree.node_info_base, -1).astype(np.int64)
    info_count = np.where(decision, counts, 0)
    # the rows of each (player, chance context): labels of the private states or classes
    row_of = tree.arrays.row_of
    labels = tree.structure.labels
    rowsets: list[list[str]] = []
    index: dict[tuple[str, ...], int] = {}
    of_pc: dict[tuple[int, int], int] = {}
    node_rowset = np.full(n, -1, dtype=np.int32)
    for u in np.flatnonzero(decision):
        key = (int(kind[u]), int(tree.node_ctx[u]))
        r = of_pc.get(key)
        if r is None:
            p, c = key
            rows = row_of[p, c, : len(labels[p])]
            members: dict[int, list[str]] = {}
            for x, k in enumerate(rows):
                if k >= 0:
                    members.setdefault(int(k), []).append(labels[p][x])
            names_k = tuple(_class_label(members[k]) for k in sorted(members))
            r = index.setdefault(names_k, len(rowsets))
            if r == len(rowsets):
                rowsets.append(list(names_k))
            of_pc[key] = r
        node_rowset[u] = r
    return PublicNodes(kind=kind.astype(np.int8), parent=parent.astype(np.int32),
                       child_start=tree.node_child_start.astype(np.int64), edge_names=names,
                       info_start=info_start, info_count=info_count, rowsets=rowsets,
                       node_rowset=node_rowset)
