"""numba kernels over the history tree's node arrays (nodes are breadth-first, so a parent
always comes before its children): reach probabilities forward, values backward."""

from __future__ import annotations

import numpy as np
from numba import njit

KIND_CHANCE = 2
KIND_TERMINAL = 3


@njit(cache=True)
def node_reach(kind, parent, node_seq, chance_prob, probs, out):
    """``out[k, n]``: the reach of node ``n`` by chance (``k = 2``) and by each player's own
    probabilities (``k = 0, 1``) under the behavioural profile ``probs``."""
    out[:, 0] = 1.0
    for n in range(1, kind.shape[0]):
        p = parent[n]
        for k in range(3):
            out[k, n] = out[k, p]
        who = kind[p]
        if who == KIND_CHANCE:
            out[2, n] *= chance_prob[n]
        else:
            out[who, n] *= probs[node_seq[who, n]]


@njit(cache=True)
def node_values(kind, parent, node_seq, chance_prob, probs, terminal_nodes, utility, out):
    """``out[n]``: player 0's expected payoff below node ``n`` under ``probs``."""
    n_nodes = kind.shape[0]
    out[:] = 0.0
    for z in range(terminal_nodes.shape[0]):
        out[terminal_nodes[z]] = utility[z]
    for n in range(n_nodes - 1, 0, -1):
        p = parent[n]
        who = kind[p]
        w = chance_prob[n] if who == KIND_CHANCE else probs[node_seq[who, n]]
        out[p] += w * out[n]


@njit(cache=True)
def node_owner(parent, is_root, out):
    """``out[n]``: the root (``is_root``) at or above node ``n``, or -1."""
    for n in range(parent.shape[0]):
        if is_root[n]:
            out[n] = n
        elif n > 0:
            out[n] = out[parent[n]]
        else:
            out[n] = -1


@njit(cache=True)
def edge_counts(kind, parent, out):
    """``out[0, n]``: chance events and ``out[1, n]``: player actions on the path to ``n``."""
    out[:, 0] = 0
    for n in range(1, kind.shape[0]):
        p = parent[n]
        out[0, n] = out[0, p]
        out[1, n] = out[1, p]
        if kind[p] == KIND_CHANCE:
            out[0, n] += 1
        else:
            out[1, n] += 1


def reach(tree, probs: np.ndarray) -> np.ndarray:
    """Rows 0, 1: each player's own reach of every node; row 2: chance's."""
    out = np.empty((3, tree.num_nodes))
    node_reach(tree.node_kind, tree.node_parent, tree.node_seq, tree.node_chance_prob,
               probs, out)
    return out


def values(tree, probs: np.ndarray) -> np.ndarray:
    """Player 0's expected payoff below every node under ``probs``."""
    out = np.empty(tree.num_nodes)
    node_values(tree.node_kind, tree.node_parent, tree.node_seq, tree.node_chance_prob,
                probs, tree.terminal_nodes, tree.terminal_utility, out)
    return out
