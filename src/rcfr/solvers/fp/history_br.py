"""A best response over the history form in OpenSpiel's arithmetic order
(``open_spiel.python.algorithms.best_response.BestResponsePolicy``), so that fictitious play
breaks the *exact* ties of its best responses as OpenSpiel's ``XFPSolver`` does.

Fictitious play's best responses tie often (against the uniform first average, for
example), and which of two mathematically equal action values is larger in floating point
depends on the order of the sums; one different tie sends the trajectory elsewhere.  So on a
form with one node per history (``tree.supports(Capability.HISTORY_NODES)``) the best response
is computed as OpenSpiel computes it: a state's value is the left-to-right sum
``p_1 q_1 + p_2 q_2 + ...`` over its transitions with positive probability; an action's value
at an information set is ``sum_s cf(s) q(s, a)`` over the information set's states in
depth-first order, where ``cf(s)`` is the product of the opponent's and chance's probabilities
on the path to ``s`` multiplied from ``s`` up to the root; the first of the maximal actions is
chosen.  Elsewhere
(the public form) :func:`rcfr.solvers.fp.xfp.best_response_into` (sequence form; the same
values up to rounding) is used.
"""

from __future__ import annotations

import numpy as np
from numba import njit

KIND_TERMINAL = 3
KIND_CHANCE = 2


def history_order(tree) -> tuple[np.ndarray, np.ndarray]:
    """Each information set's decision nodes in depth-first preorder, as CSR
    ``(start[num_infosets + 1], nodes)``."""
    kind, start, infoset = tree.node_kind, tree.node_child_start, tree.node_infoset
    order: list[int] = []
    stack = [0]
    while stack:
        n = stack.pop()
        if kind[n] < KIND_CHANCE:
            order.append(n)
        stack.extend(range(int(start[n + 1]) - 1, int(start[n]) - 1, -1))
    nodes = np.array(order, dtype=np.int64)
    members = infoset[nodes]
    by = np.argsort(members, kind="stable")
    counts = np.bincount(members, minlength=tree.num_infosets)
    csr = np.zeros(tree.num_infosets + 1, dtype=np.int64)
    np.cumsum(counts, out=csr[1:])
    return csr, nodes[by]


@njit(cache=True)
def _subtree_value(root, player, kind, child_start, node_infoset, chance_prob, seq_start,
                   probs, utility, decision, val, done, stack):
    top = 0
    stack[0] = root
    while top >= 0:
        x = stack[top]
        if done[x]:
            top -= 1
            continue
        k = kind[x]
        if k == KIND_TERMINAL:
            val[x] = utility[x] if player == 0 else -utility[x]
            done[x] = True
            top -= 1
        elif k == player:
            c = child_start[x] + decision[node_infoset[x]]
            if done[c]:
                val[x] = val[c]
                done[x] = True
                top -= 1
            else:
                top += 1
                stack[top] = c
        else:
            ready = True
            lo = child_start[x]
            hi = child_start[x + 1]
            for c in range(lo, hi):
                p = chance_prob[c] if k == KIND_CHANCE else \
                    probs[seq_start[node_infoset[x]] + c - lo]
                if p > 0.0 and not done[c]:
                    ready = False
                    top += 1
                    stack[top] = c
            if ready:
                v = 0.0
                for c in range(lo, hi):
                    p = chance_prob[c] if k == KIND_CHANCE else \
                        probs[seq_start[node_infoset[x]] + c - lo]
                    if p > 0.0:
                        v += p * val[c]
                val[x] = v
                done[x] = True
                top -= 1


@njit(cache=True)
def history_best_response(player, i_lo, i_hi, member_start, members, kind, child_start,
                          node_parent, node_infoset, chance_prob, seq_start, num_actions,
                          probs, utility, br):
    """``player``'s pure best response to ``probs`` in OpenSpiel's order (module doc) into
    ``br`` (its sequences); returns the root's value to ``player``."""
    n = kind.shape[0]
    val = np.zeros(n)
    done = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n + 1, dtype=np.int64)
    decision = np.zeros(seq_start.shape[0], dtype=np.int64)
    for i in range(i_hi - 1, i_lo - 1, -1):  # children information sets first
        m_lo = member_start[i]
        m_hi = member_start[i + 1]
        cf = np.empty(m_hi - m_lo)
        for j in range(m_lo, m_hi):  # counterfactual reach, multiplied from the node up
            x = members[j]
            p = 1.0
            while x > 0:
                parent = node_parent[x]
                k = kind[parent]
                if k == KIND_CHANCE:
                    p = p * chance_prob[x]
                elif k != player:
                    p = p * probs[seq_start[node_infoset[parent]] + x - child_start[parent]]
                else:
                    p = p * 1.0
                x = parent
            cf[j - m_lo] = p
        best = 0
        best_value = 0.0
        for a in range(num_actions[i]):
            total = 0.0
            for j in range(m_lo, m_hi):
                c = child_start[members[j]] + a
                _subtree_value(c, player, kind, child_start, node_infoset, chance_prob,
                               seq_start, probs, utility, decision, val, done, stack)
                total += cf[j - m_lo] * val[c]
            if a == 0 or total > best_value:
                best, best_value = a, total
        decision[i] = best
        s0 = seq_start[i]
        for a in range(num_actions[i]):
            br[s0 + a] = 0.0
        br[s0 + best] = 1.0
    _subtree_value(0, player, kind, child_start, node_infoset, chance_prob, seq_start, probs,
                   utility, decision, val, done, stack)
    return val[0]


class HistoryBestResponse:
    """:func:`history_best_response` bound to one history-form tree."""

    def __init__(self, tree) -> None:
        self.tree = tree
        self.member_start, self.members = history_order(tree)
        utility = np.zeros(tree.num_nodes)
        utility[tree.terminal_nodes] = tree.terminal_utility
        self.utility = utility
        self.kind = tree.node_kind.astype(np.int64)

    def __call__(self, player: int, probs: np.ndarray, br: np.ndarray) -> float:
        t = self.tree
        infos = t.player_infosets(player)
        return float(history_best_response(
            player, infos.start, infos.stop, self.member_start, self.members, self.kind,
            t.node_child_start, t.node_parent, t.node_infoset, t.node_chance_prob,
            t.infoset_seq_start, t.infoset_num_actions, probs, self.utility, br))
