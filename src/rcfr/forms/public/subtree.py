"""A public subtree as a game of its own, and its root rows' values in vector form.

A subgame of a public tree (:mod:`rcfr.forms.public.tree`) is the public subtree below one
public node ``u``.  :func:`extract_subtree` copies it out numerically: its public terminals, its
information sets and sequences renumbered, and, per player, one *root sequence* per private row
at ``u`` that stands for everything the player did above ``u`` (its realization weight is the
player's reach of that row).  The chance tables (weights, ranks, matrices) are shared with the
full tree, not copied.

The re-solving gadgets above the opponent's root rows (unsafe, Resolve, Maxmargin) are
compiled games of their own in :mod:`rcfr.forms.public.gadget`, solved by the solver loop.

The re-solver's root rows keep their blueprint reach (chance's and its own: the papers'
``w(h)``).  All values are counterfactual values in the full game's units: a root row's value
is the sum over its histories of chance and re-solver reach times the payoff.
:func:`root_values` gives the opponent's counterfactual (best-response) values and weights at
the root rows under any re-solver strategy in the subtree."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ...core import kernels as K
from ...core.errors import RcfrError
from ...games.holdem.combos import disjoint_mass
from ...games.protocol import CHANCE
from ...games.public import FOLD_RULE
from ..base import KIND_CHANCE, KIND_TERMINAL
from ..history.full_width import FullTree
from ..threads import thread_args
from .terminals import terminal_values


@dataclass(eq=False)
class PublicSubtree:
    """The public subtree below ``node`` (see the module).  Per player ``p``: ``num_rows[p]``
    root rows (the private rows of ``p`` at ``node``'s chance context), ``root_seq[p]`` the
    full tree's sequence each row's reach is read from (-1: the empty sequence),
    ``infosets[p]`` the full tree's information sets inside (ascending), ``seq_full[p]`` the
    full tree's sequence of each subtree sequence, and per information set its parent:
    ``parent_local[p]`` (a subtree sequence, or -1) and ``parent_row[p]`` (the root row, where
    the parent is above the root).  ``T``: the terminal arrays, with the players' sequences
    local: ``term_seq_base[p, z] + row * term_stride[p, z]`` counts from the player's first
    subtree sequence, or (``term_root[p, z]``) is the player's root row."""

    tree: object
    node: int
    num_rows: np.ndarray
    root_seq: list
    row_rep: list  # per player: one private state of each root row
    infosets: list
    seq_full: list
    parent_local: list
    parent_row: list
    seq_start_local: list
    num_actions: list
    T: object
    term_root: np.ndarray  # bool [2, Z]
    num_public_nodes: int
    mass: float = 1.0  # the root's chance probability where compiled alone (values / mass)

    @property
    def num_infosets(self) -> int:
        return int(sum(len(i) for i in self.infosets))

    @property
    def num_sequences(self) -> int:
        return int(sum(len(s) for s in self.seq_full))

    def sizes(self) -> dict:
        """Public nodes, public terminals, information sets and sequences of the subtree."""
        return {"public_nodes": self.num_public_nodes,
                "public_terminals": int(self.T.term_ctx.shape[0]),
                "infosets": self.num_infosets, "sequences": self.num_sequences,
                "root_rows": [int(r) for r in self.num_rows]}

    def root_reach(self, plan: np.ndarray, player: int) -> np.ndarray:
        """``player``'s reach of each root row from a (padded) realization plan of the full
        tree."""
        seq = self.root_seq[player]
        return np.where(seq >= 0, plan[np.maximum(seq, 0)], 1.0)

    def infoset_keys(self, player: int) -> list[str]:
        """The information-state strings of ``player``'s subtree information sets."""
        keys = self.tree.infoset_keys
        return [keys[int(i)] for i in self.infosets[player]]


def chance_cut(tree, level: int = 1) -> np.ndarray:
    """The public decision nodes just after the ``level``-th run of public chance nodes on
    their path (Leduc's second round, 2-NL Hold'em(k)'s flop: ``level=1``), ascending."""
    if int(level) < 1:
        raise RcfrError(f"a chance level is at least 1, got {level!r}")
    kind, parent = tree.node_kind, tree.node_parent
    runs = np.zeros(kind.shape[0], dtype=np.int64)
    for u in range(1, kind.shape[0]):  # (breadth-first: parents first)
        p = parent[u]
        runs[u] = runs[p] + (kind[p] == KIND_CHANCE and kind[u] != KIND_CHANCE)
    par = np.maximum(parent, 0)
    cut = (kind < 2) & (parent >= 0) & (kind[par] == KIND_CHANCE) & (runs == int(level))
    return np.flatnonzero(cut)


def compile_subtree(game, actions) -> PublicSubtree:
    """The public subtree at the public state that ``actions`` (public actions and chance
    outcomes) reach from the root of ``game``'s public form, compiled alone: the rest of the
    tree is never built (2-NL Hold'em(36)'s flop subgame without the 16-20 GB tree).  Its
    chance weights are the root's, normalised: its values are the full tree's divided by
    ``mass``, the root's chance probability; its root rows' reach is 1 (give the blueprint's
    to :func:`rcfr.forms.public.gadget.gadget_form`)."""
    from ...games.registry import load_game
    from .tree import _compile

    game = load_game(game)
    # the game's closed-form node table (spec.nodes) is the whole tree's: the subtree is walked
    spec = game.public_structure()
    state = spec.root
    factors = None if spec.weights is None else tuple(np.asarray(w, dtype=np.float64)
                                                      for w in spec.weights)
    joint = None if spec.deal is None else np.asarray(spec.deal, dtype=np.float64)
    for i, a in enumerate(actions):
        if state.current_player() == CHANCE:
            f = state.chance_factor(int(a))
            if isinstance(f, tuple):
                factors = (factors[0] * np.asarray(f[0]), factors[1] * np.asarray(f[1]))
            else:
                joint = (joint if joint is not None else np.outer(*factors)) * np.asarray(f)
                factors = None
        elif int(a) not in state.legal_actions():
            raise RcfrError(f"action {a} is not legal in the public state after {actions[:i]}")
        state = state.child(int(a))
    if factors is not None:
        if spec.pairing == "cards":  # (hold'em combos: the pairs that share no card)
            mass = float(factors[0] @ disjoint_mass(factors[1], np.asarray(spec.cards)))
        else:
            W = np.outer(*factors)
            if spec.pairing == "exclusive":
                np.fill_diagonal(W, 0.0)
            mass = float(W.sum())
        k = np.sqrt(max(mass, 0.0))
        spec = dataclasses.replace(spec, root=state, weights=(factors[0] / k, factors[1] / k),
                                   nodes=None)
    else:
        mass = float(joint.sum())
        spec = dataclasses.replace(spec, root=state, deal=joint / mass, pairing="dense",
                                   nodes=None)
    if mass <= 0:
        raise RcfrError("the public state has chance probability 0")
    sub = extract_subtree(_compile(game, spec, None), 0)
    sub.mass = mass
    return sub


def _descendants(tree, node: int) -> np.ndarray:
    """The public nodes below ``node`` (itself included), ascending (breadth-first order)."""
    out, frontier = [np.array([node], dtype=np.int64)], np.array([node], dtype=np.int64)
    cs = tree.node_child_start
    while frontier.size:
        lo, hi = cs[frontier], cs[frontier + 1]
        n = hi - lo
        if not n.sum():
            break
        frontier = np.repeat(lo - np.cumsum(n) + n, n) + np.arange(n.sum())
        out.append(frontier)
    return np.sort(np.concatenate(out))


def extract_subtree(tree, node: int) -> PublicSubtree:
    """The public subtree of ``tree`` below public node ``node`` (see the module)."""
    node = int(node)
    if not 0 <= node < tree.num_public_nodes:
        raise RcfrError(f"public node {node} is not in the tree (0..{tree.num_public_nodes - 1})")
    nodes = _descendants(tree, node)
    inside = np.zeros(tree.num_public_nodes, dtype=np.bool_)
    inside[nodes] = True
    A = tree.arrays
    cu = int(tree.node_ctx[node])
    num_rows = np.zeros(2, dtype=np.int64)
    root_seq, row_rep, infosets, seq_full = [], [], [], []
    parent_local, parent_row, seq_start_local, num_actions = [], [], [], []
    new_base = np.full(tree.num_public_nodes, -1, dtype=np.int64)
    for p in (0, 1):
        n = int(A.num_private[p])
        rows = A.row_of[p, cu, :n]
        R = int(rows.max()) + 1 if n else 0
        num_rows[p] = R
        rep = np.full(R, -1, dtype=np.int64)
        for x in range(n - 1, -1, -1):
            if rows[x] >= 0:
                rep[rows[x]] = x
        row_rep.append(rep)
        # the player's last decision above the root: its sequence for each root row
        v, child = int(tree.node_parent[node]), node
        while v >= 0 and int(tree.node_kind[v]) != p:
            v, child = int(tree.node_parent[v]), v
        if v < 0:
            root_seq.append(np.full(R, -1, dtype=np.int64))
        else:
            act = child - int(tree.node_child_start[v])
            k = A.row_of[p, int(tree.node_ctx[v]), rep]
            root_seq.append(tree.node_seq_base[v] + k.astype(np.int64)
                            * int(tree.node_num_actions[v]) + act)
        lo, hi = (0, tree.num_infosets_per_player[0]) if p == 0 else (
            tree.num_infosets_per_player[0], tree.num_infosets)
        mine = lo + np.flatnonzero(inside[tree.infoset_public_node[lo:hi]])
        infosets.append(mine)
        na = tree.infoset_num_actions[mine].astype(np.int64)
        starts = (np.cumsum(na) - na).astype(np.int64)  # (none where the player never acts)
        full_start = tree.infoset_seq_start[mine].astype(np.int64)
        seq_full.append(np.repeat(full_start - starts, na) + np.arange(int(na.sum())))
        seq_start_local.append(starts)
        num_actions.append(na)
        # each decision node's sequences are one block: its local base
        pub = tree.infoset_public_node[mine]
        first = np.ones(mine.size, dtype=np.bool_)
        first[1:] = pub[1:] != pub[:-1]
        new_base[pub[first]] = starts[first] - (full_start[first]
                                                - tree.node_seq_base[pub[first]])
        ps = tree.infoset_parent_seq[mine].astype(np.int64)
        S = tree.num_sequences
        real = ps < S  # (S, S + 1: the empty sequences)
        ps_node = np.full(mine.size, -1, dtype=np.int64)
        ps_node[real] = tree.infoset_public_node[tree.seq_infoset[ps[real]]]
        within = real & (ps_node >= 0) & inside[np.maximum(ps_node, 0)]
        loc = np.full(mine.size, -1, dtype=np.int64)
        loc[within] = new_base[ps_node[within]] + ps[within] - tree.node_seq_base[
            ps_node[within]]
        parent_local.append(loc)
        if np.any(new_base[pub] + full_start - tree.node_seq_base[pub] != starts):
            raise RcfrError("a public node's sequences are not one block")
        prow = np.full(mine.size, -1, dtype=np.int64)
        prow[~within] = A.row_of[p, cu, tree.infoset_private[mine[~within]]]
        if np.any(prow[~within] < 0):
            raise RcfrError("a root information set's private state is impossible at the root")
        parent_row.append(prow)
    # the public terminals inside, their players' sequences made local
    tn = tree.terminal_nodes
    zs = np.flatnonzero(inside[tn])
    tsb = np.empty((2, zs.size), dtype=A.term_seq_base.dtype)
    tst = np.empty((2, zs.size), dtype=A.term_stride.dtype)
    trc = np.empty((2, zs.size), dtype=A.term_row_ctx.dtype)
    term_root = np.zeros((2, zs.size), dtype=np.bool_)
    for p in (0, 1):
        last = A.term_last[p, zs].astype(np.int64)
        ok = (last >= 0) & inside[np.maximum(last, 0)]
        term_root[p] = ~ok
        lastn = np.maximum(last, 0)
        tsb[p] = np.where(ok, new_base[lastn] + A.term_seq_base[p, zs] - tree.node_seq_base[
            lastn], 0)
        tst[p] = np.where(ok, A.term_stride[p, zs], 1)
        trc[p] = np.where(ok, A.term_row_ctx[p, zs], cu)
    if np.any(tsb < 0):
        raise RcfrError("a terminal's sequence is outside the subtree")
    Z = zs.size
    T = A._replace(
        term_ctx=np.ascontiguousarray(A.term_ctx[zs]), term_rule=np.ascontiguousarray(
            A.term_rule[zs]), term_value=np.ascontiguousarray(A.term_value[zs]),
        term_q=np.ascontiguousarray(A.term_q[zs]), term_face=np.ascontiguousarray(
            A.term_face[zs]), term_miss=np.ascontiguousarray(A.term_miss[zs]),
        term_last=np.ascontiguousarray(A.term_last[:, zs]),
        term_last_act=np.ascontiguousarray(A.term_last_act[:, zs]),
        term_seq_base=tsb, term_stride=tst, term_row_ctx=trc,
        term_order=np.zeros((2, Z), dtype=A.term_order.dtype),
        term_group=np.zeros((2, Z + 1), dtype=A.term_group.dtype),
        term_groups=np.zeros(2, dtype=A.term_groups.dtype))
    if int(np.count_nonzero(tree.node_kind[nodes] == KIND_TERMINAL)) != Z:
        raise RcfrError("the subtree's terminals do not match the tree's")
    return PublicSubtree(tree, node, num_rows, root_seq, row_rep, infosets, seq_full,
                         parent_local, parent_row, seq_start_local, num_actions, T, term_root,
                         int(nodes.size))


@dataclass(eq=False)
class _Game:
    """The subtree laid out for the kernels: per player ``[root rows | gadget sequences |
    subtree sequences]``, player 0's block first; the opponent's gadget information sets come
    before its subtree ones."""

    arrays: FullTree
    T: object
    root: np.ndarray  # int64 [2]: first root sequence of each player
    gadget: int  # first gadget sequence (the opponent's)
    sub: np.ndarray  # int64 [2]: first subtree sequence of each player
    num_gadget_sets: int


def _layout(sub: PublicSubtree, opponent: int, gadget_actions: list[int]) -> _Game:
    """The kernels' arrays of ``sub`` with gadget information sets for ``opponent`` of
    ``gadget_actions`` actions each (parents: the empty sequence)."""
    G = int(sum(gadget_actions))
    sizes = [int(sub.num_rows[p]) + (G if p == opponent else 0) + len(sub.seq_full[p])
             for p in (0, 1)]
    S = sizes[0] + sizes[1]
    root = np.array([0, sizes[0]], dtype=np.int64)
    seq_start, num_actions, parent = [], [], []
    subbase = np.zeros(2, dtype=np.int64)
    gadget = 0
    for p in (0, 1):
        b = int(root[p]) + int(sub.num_rows[p])
        if p == opponent:
            gadget = b
            ga = np.asarray(gadget_actions, dtype=np.int64)
            seq_start.append(b + (np.cumsum(ga) - ga).astype(np.int64))
            num_actions.append(ga)
            parent.append(np.full(ga.size, S + p, dtype=np.int64))
            b += G
        subbase[p] = b
        seq_start.append(b + sub.seq_start_local[p])
        num_actions.append(sub.num_actions[p])
        parent.append(np.where(sub.parent_local[p] >= 0, b + sub.parent_local[p],
                               root[p] + sub.parent_row[p]))
    n0 = len(sub.infosets[0]) + (len(gadget_actions) if opponent == 0 else 0)
    ni = n0 + len(sub.infosets[1]) + (len(gadget_actions) if opponent == 1 else 0)
    arrays = FullTree(np.array([0, n0, ni], dtype=np.int64),
                      np.array([0, sizes[0], S], dtype=np.int64),
                      np.concatenate(seq_start), np.concatenate(num_actions).astype(np.int64),
                      np.concatenate(parent), np.zeros((2, 0), dtype=np.int32), np.zeros(0))
    T = sub.T
    tsb = np.where(sub.term_root, root[:, None], subbase[:, None] + T.term_seq_base)
    T = T._replace(term_seq_base=np.ascontiguousarray(tsb.astype(T.term_seq_base.dtype)))
    return _Game(arrays, T, root, gadget, subbase, len(gadget_actions))


def root_values(sub: PublicSubtree, player: int, reach: np.ndarray, probs: np.ndarray,
                opponent_probs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The opponent's counterfactual values at its root rows and their weights ``w(r)``
    (chance and re-solver reach), with the re-solver ``player`` playing ``probs`` (behavioural,
    indexed by the full tree's sequences) from root-row reach ``reach``.  The opponent best
    responds in the subtree, or plays ``opponent_probs`` (the full tree's sequences)."""
    opp = 1 - player
    g = _layout(sub, opp, [])
    S = int(g.arrays.seq_bounds[2])
    strategy = np.zeros(S)
    for p in (0, 1):
        src = probs if p == player else opponent_probs
        if src is None:
            continue
        b = int(g.sub[p])
        strategy[b: b + len(sub.seq_full[p])] = np.asarray(src)[sub.seq_full[p]]
    values = []
    for ones in (False, True):
        plan = K.padded(S)
        r0 = int(g.root[player])
        plan[r0: r0 + sub.num_rows[player]] = reach
        A = g.arrays
        K.realization_plan(strategy, A.bounds[player], A.bounds[player + 1], A.seq_start,
                           A.num_actions, A.parent_seq, plan)
        T = g.T
        if ones:  # every payoff 1 to the opponent: the values are the weights
            T = T._replace(term_rule=np.full_like(T.term_rule, FOLD_RULE),
                           term_value=np.full_like(T.term_value, 1.0 if opp == 0 else -1.0))
        acc = np.zeros(S + 2)
        terminal_values(opp, plan, T, False, A.seq_bounds[opp], A.seq_bounds[opp + 1], acc,
                        *thread_args(always=T.card_deal))  # (the full tree's argument types)
        br = np.zeros(S)
        if opponent_probs is None or ones:
            K.best_response(opp, A.bounds[opp], A.bounds[opp + 1], A.seq_start, A.num_actions,
                            A.parent_seq, acc, br)
        else:
            K.counterfactual_regrets(opp, strategy, A.bounds[opp], A.bounds[opp + 1],
                                     A.seq_start, A.num_actions, A.parent_seq, acc, br)
        r = int(g.root[opp])
        values.append(acc[r: r + sub.num_rows[opp]].copy())
    return values[0], values[1]
