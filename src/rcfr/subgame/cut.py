"""Subgames: the public subtrees below a cut of the game tree.

A cut names the histories where subgames start: ``chance:K`` (just after the K-th chance event,
e.g. ``chance:3`` is Leduc's second round, after the public card) or ``actions:N`` (just after
the N-th player action, e.g. ``actions:1`` is no-limit one-card poker after the first wager).
The histories at the cut are grouped into the finest subgames that no information set crosses
(two roots share a subgame when some information set has histories below both): in a poker game
each subgame is one public node, the public state after one public line."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import RcfrError
from ..forms.compile import compile_game
from ..games.protocol import State
from . import node_sweeps as K

CUT_KINDS = ("chance", "actions")
# where each poker game's subgames usually start: Leduc's second round, one-card poker after
# the first wager, 2-NL Hold'em(k)'s flop (after both players' flop buckets), a hold'em
# spot's next street (after both hands and its first card; a river spot, which deals no card,
# after the first action)
DEFAULT_CUTS = {"leduc": "chance:3", "nl_one_card": "actions:1", "nl_holdem2": "chance:4",
                "holdem_spot": lambda spot: "actions:1" if len(spot.board) == 5 else "chance:3"}


@dataclass(frozen=True)
class Subgame:
    """One subgame: its root histories (nodes of the full game's history tree), every node
    below them, and a readable name (the actions to its first root, private cards hidden as
    ``?`` where they are dealt before the first player acts)."""

    index: int
    roots: np.ndarray  # int64, nodes of the full history tree, ascending
    nodes: np.ndarray  # int64, every node of the subgame (roots included)
    name: str

    def infosets(self, tree, player: int) -> np.ndarray:
        """``player``'s information sets inside the subgame (full-tree indices)."""
        info = tree.node_infoset[self.nodes]
        mine = info[(info >= 0) & (tree.node_kind[self.nodes] == player)]
        return np.unique(mine)


def parse_cut(cut: str) -> tuple[str, int]:
    """``"chance:3"`` -> ``("chance", 3)``."""
    kind, _, count = str(cut).strip().lower().partition(":")
    if kind not in CUT_KINDS or not count.strip().isdigit() or int(count) < 1:
        raise RcfrError(f"a cut is chance:K or actions:N (K, N >= 1), got {cut!r}")
    return kind, int(count)


def default_cut(game) -> str:
    """The usual cut of a poker game (:data:`DEFAULT_CUTS`); other games must name one."""
    base = compile_game(game).game
    cut = DEFAULT_CUTS.get(getattr(base, "short_name", ""))
    if cut is None:
        raise RcfrError(f"no default cut for {base}; give one (chance:K or actions:N)")
    return cut(base) if callable(cut) else cut


def history_tree(game):
    """The history form of ``game`` (a game, a game string or a compiled tree of either
    form): subgames are cut out of its node arrays."""
    return compile_game(compile_game(game).game, form="history")  # cached on the game


def cut_roots(tree, cut: str) -> np.ndarray:
    """The non-terminal histories just after the cut's event."""
    kind, count = parse_cut(cut)
    counts = np.empty((2, tree.num_nodes), dtype=np.int64)
    K.edge_counts(tree.node_kind, tree.node_parent, counts)
    row = 0 if kind == "chance" else 1
    parent = np.maximum(tree.node_parent, 0)
    at = (counts[row] == count) & (counts[row][parent] == count - 1)
    at &= tree.node_kind != K.KIND_TERMINAL
    at[0] = False
    roots = np.flatnonzero(at)
    if roots.size == 0:
        raise RcfrError(f"no history of {tree.game} is at the cut {cut}")
    return roots


def find_subgames(game, cut: str) -> list[Subgame]:
    """The subgames at ``cut`` (see the module): the roots grouped so that no information set
    has histories in two subgames or above the cut; refused where the cut splits one."""
    tree = history_tree(game)
    roots = cut_roots(tree, cut)
    is_root = np.zeros(tree.num_nodes, dtype=np.bool_)
    is_root[roots] = True
    owner = np.empty(tree.num_nodes, dtype=np.int64)
    K.node_owner(tree.node_parent, is_root, owner)
    decision = np.flatnonzero(tree.node_infoset >= 0)
    info, own = tree.node_infoset[decision], owner[decision]
    inside = np.zeros(tree.num_infosets, dtype=np.int64)
    np.add.at(inside, info, own >= 0)
    total = np.bincount(info, minlength=tree.num_infosets)
    split = np.flatnonzero((inside > 0) & (inside < total))
    if split.size:
        raise RcfrError(f"the cut {cut} splits the information set "
                        f"{tree.infoset_keys[int(split[0])]!r} of {tree.game}")
    # union-find over the roots: an information set below two roots joins them
    parent = {int(r): int(r) for r in roots}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    keep = own >= 0
    order = np.lexsort((own[keep], info[keep]))
    info_k, own_k = info[keep][order], own[keep][order]
    for j in range(1, info_k.shape[0]):
        if info_k[j] == info_k[j - 1] and own_k[j] != own_k[j - 1]:
            a, b = find(int(own_k[j])), find(int(own_k[j - 1]))
            if a != b:
                parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for r in roots:
        groups.setdefault(find(int(r)), []).append(int(r))
    comp = {r: k for k, rep in enumerate(sorted(groups)) for r in groups[rep]}
    label = np.full(tree.num_nodes, -1, dtype=np.int64)
    below = owner >= 0
    label[below] = [comp[int(o)] for o in owner[below]]
    order_nodes = np.argsort(label, kind="stable")
    bounds = np.searchsorted(label[order_nodes], np.arange(len(groups) + 1))
    out = []
    for k, rep in enumerate(sorted(groups)):
        members = np.array(sorted(groups[rep]), dtype=np.int64)
        nodes = np.sort(order_nodes[bounds[k]:bounds[k + 1]]).astype(np.int64)
        out.append(Subgame(k, members, nodes, _name(tree, int(members[0]))))
    return out


def _path(tree, node: int) -> list[int]:
    path = []
    while node > 0:
        path.append(node)
        node = int(tree.node_parent[node])
    return path[::-1]


def _name(tree, root: int) -> str:
    """The actions to ``root``: chance outcomes before the first player action shown as
    ``?`` (private deals), the others by name."""
    state = tree.game.new_initial_state()
    parts, acted = [], False
    for n in _path(tree, root):
        a = int(tree.node_action[n])
        who = state.current_player()
        if who < 0 and not acted:
            parts.append("?")
        else:
            acted = acted or who >= 0
            parts.append(state.action_to_string(who, a))
        state.apply_action(a)
    return " ".join(parts)


def root_states(tree, roots: np.ndarray) -> list[State]:
    """The game states of the history-tree nodes ``roots`` (replayed from the start)."""
    out = []
    for r in roots:
        state = tree.game.new_initial_state()
        for n in _path(tree, int(r)):
            state.apply_action(int(tree.node_action[n]))
        out.append(state)
    return out
