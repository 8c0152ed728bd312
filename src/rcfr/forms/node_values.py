"""One public node of a hold'em spot's public form, per private state: each player's deal
weight there, own reach, the opponent's reach it meets and its counterfactual value.

For player ``q`` holding ``x`` at public node ``u`` (Zinkevich et al. 2007, eq. 7): the
counterfactual value ``v_q(u, x)`` sums, over the terminals below ``u``, the payoff times the
chance and opponent reach (deal weights included) and ``q``'s own strategy from ``u`` on. It is
computed with the form's own terminal sweep and backward pass on a copy of the tree whose
terminals outside ``u``'s subtree pay nothing, read at ``q``'s sequence into ``u`` (the
parent sequence of its information sets there, or the action it last took above ``u``).
The opponent mass ``m_q(u, x)`` is the same sum with every payoff 1 and ``q``'s own strategy
left out: ``W_q(x) * sum_y W_o(y) pi_o(u, y)`` over the opponent's combos ``y`` that share no
card with ``x``, ``W`` the deal-and-chance weights of ``u``'s context.  ``v / m`` is then the
expected payoff of holding ``x`` at ``u``, given the opponent's range there.

This is the one place a node report reads the public tree's arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import kernels as K
from ..core.errors import RcfrError
from .base import KIND_TERMINAL, Form
from .public.tree import PublicTree


@dataclass(frozen=True)
class NodeValues:
    """Per player ``q`` (index 0, 1), vectors over its private states: ``weight[q]`` (deal and
    chance weight at the node, 0 where the state is impossible there), ``reach[q]`` (its own
    strategy's product down to the node), ``opp_mass[q]``, ``cfv[q]`` (module docstring);
    ``strategy``: the acting player's probabilities, ``[actions, states]``."""

    node: int
    player: int
    weight: tuple[np.ndarray, np.ndarray]
    reach: tuple[np.ndarray, np.ndarray]
    opp_mass: tuple[np.ndarray, np.ndarray]
    cfv: tuple[np.ndarray, np.ndarray]
    strategy: np.ndarray


def _subtree(tree: PublicTree, u: int) -> np.ndarray:
    """True for ``u`` and every public node below it (breadth-first order: parents first)."""
    inside = np.zeros(tree.num_public_nodes, dtype=np.bool_)
    inside[u] = True
    parent = np.maximum(tree.node_parent, 0)
    while True:
        grown = inside | (inside[parent] & (tree.node_parent >= 0))
        if np.array_equal(grown, inside):
            return inside
        inside = grown


def _own_sequences(tree: PublicTree, u: int, q: int) -> np.ndarray:
    """``seq[x]``: player ``q``'s sequence into node ``u`` holding ``x`` (its empty sequence
    before its first action; -1 where ``x`` has no information set on the way)."""
    n = int(tree.arrays.num_private[q])
    S = tree.num_sequences
    a, child = u, -1
    if tree.node_kind[u] != q:
        a, child = int(tree.node_parent[u]), u
        while a >= 0 and tree.node_kind[a] != q:
            a, child = int(tree.node_parent[a]), a
    if a < 0:
        return np.full(n, S + q, dtype=np.int64)
    rows = tree.arrays.row_of[q, tree.node_ctx[a], :n].astype(np.int64)
    infos = tree.node_info_base[a] + np.maximum(rows, 0)
    if a == u:
        seq = tree.infoset_parent_seq[infos].astype(np.int64)
    else:
        seq = tree.infoset_seq_start[infos].astype(np.int64) + int(tree.node_action[child])
    return np.where(rows >= 0, seq, -1)


def _values_at(tree: PublicTree, probs, acc, u: int, q: int, seq: np.ndarray) -> np.ndarray:
    """``q``'s counterfactual value at ``u`` holding each ``x``, from ``acc`` backed up: at its
    own node, its strategy times its actions' values; below an action of its own, that
    sequence's value; above its first action (its empty sequence, shared by every ``x``), the
    sum over ``u``'s children."""
    n = int(tree.arrays.num_private[q])
    S = tree.num_sequences
    if tree.node_kind[u] == q:
        rows = tree.arrays.row_of[q, tree.node_ctx[u], :n].astype(np.int64)
        starts = tree.infoset_seq_start[tree.node_info_base[u] + np.maximum(rows, 0)]
        seqs = starts[None, :] + np.arange(int(tree.node_num_actions[u]))[:, None]
        return np.where(rows >= 0, (probs[seqs] * acc[seqs]).sum(axis=0), 0.0)
    if np.all((seq < 0) | (seq != S + q)):
        return np.where(seq >= 0, acc[np.maximum(seq, 0)], 0.0)
    if tree.node_kind[u] == KIND_TERMINAL:
        raise RcfrError(f"a terminal at public node {u} before player {q}'s first action: "
                        f"its values per private state are not kept")
    total = np.zeros(n)
    for v in range(int(tree.node_child_start[u]), int(tree.node_child_start[u + 1])):
        total += _values_at(tree, probs, acc, v, q, _own_sequences(tree, v, q))
    return total


def node_values(tree: Form, probs: np.ndarray, u: int) -> NodeValues:
    """The values of decision node ``u`` of a hold'em spot's public form under the behavioural
    profile ``probs`` (module docstring)."""
    if not isinstance(tree, PublicTree) or not tree.arrays.card_deal:
        raise RcfrError("a node report reads a hold'em spot's public form")
    if not 0 <= u < tree.num_public_nodes or tree.node_kind[u] > 1:
        raise RcfrError(f"public node {u} is not a decision node")
    T = tree.arrays
    plan = tree.realization_plans(probs)
    inside = _subtree(tree, u)[tree.terminal_nodes]
    sub = tree.with_terminal_payoffs(np.where(inside, T.term_value, 0.0),
                                     np.where(inside, T.term_miss, 0.0))
    c = int(tree.node_ctx[u])
    weight, reach, cfv = [], [], []
    for q in (0, 1):
        n = int(T.num_private[q])
        w = T.weight[q, c, :n].copy()
        seq = _own_sequences(tree, u, q)
        w[seq < 0] = 0.0
        reach.append(np.where(seq >= 0, plan[np.maximum(seq, 0)], 0.0))
        acc = np.zeros(tree.num_sequences + 2)
        sub.terminal_values(q, plan, acc)
        infos = tree.player_infosets(q)
        K.counterfactual_regrets(q, probs, infos.start, infos.stop, tree.infoset_seq_start,
                                 tree.infoset_num_actions, tree.infoset_parent_seq, acc,
                                 np.empty(tree.num_sequences))
        cfv.append(_values_at(tree, probs, acc, u, q, seq))
        weight.append(w)
    masses = []
    for q in (0, 1):
        o = 1 - q
        r = weight[o] * reach[o]
        per_card = np.bincount(T.cards.ravel(), np.repeat(r, 2), minlength=52)
        met = r.sum() - per_card[T.cards[:, 0]] - per_card[T.cards[:, 1]] + r
        masses.append(weight[q] * met)
    p = int(tree.node_kind[u])
    n = int(T.num_private[p])
    rows = T.row_of[p, c, :n].astype(np.int64)
    A = int(tree.node_num_actions[u])
    starts = tree.infoset_seq_start[tree.node_info_base[u] + np.maximum(rows, 0)]
    strategy = np.where(rows[None, :] >= 0, probs[starts[None, :] + np.arange(A)[:, None]],
                        0.0)
    return NodeValues(u, p, tuple(weight), tuple(reach), tuple(masses), tuple(cfv), strategy)
