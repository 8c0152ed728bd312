"""Exact evaluation on the history form (Koller, Megiddo & von Stengel 1994): realization plans,
one sweep over the terminals per player, one backward sweep over the best responder's
information sets, all in O(terminals + sequences)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ...core import kernels as K
from ..base import Form
from .full_width import full_tree


def terminal_values(tree: Form, player: int, plan: np.ndarray, acc: np.ndarray) -> None:
    """``acc[s]``: the counterfactual value to ``player`` of the terminals whose last ``player``
    sequence is ``s`` (:func:`rcfr.core.kernels.terminal_values`)."""
    seqs = tree.player_sequences(player)
    K.terminal_values(player, plan, tree.terminal_seq, tree.terminal_coef, seqs.start,
                      seqs.stop, acc)


def expected_value(tree: Form, plan: np.ndarray) -> float:
    """Player 0's expected payoff under the padded realization plans."""
    return float(K.expected_value(plan, tree.terminal_seq, tree.terminal_coef))


@njit(cache=True)
def _evaluate(probs, T, plan, acc, br):
    """:func:`evaluate` in one numba call over the full-width pass's arrays ``T``."""
    b, sb = T.bounds, T.seq_bounds
    K.realization_plan(probs, 0, b[2], T.seq_start, T.num_actions, T.parent_seq, plan)
    value = K.expected_value(plan, T.term_seq, T.term_coef)
    out = np.zeros(2)
    for p in range(2):
        K.terminal_values(p, plan, T.term_seq, T.term_coef, sb[p], sb[p + 1], acc)
        out[p] = K.best_response(p, b[p], b[p + 1], T.seq_start, T.num_actions, T.parent_seq,
                                 acc, br)
    return value, out[0], out[1]


def evaluate(tree: Form, probs: np.ndarray) -> tuple[float, float, float]:
    """Player 0's value and both best-response values of the behavioural profile ``probs``
    (the arithmetic of :func:`expected_value`, then each player's terminal sweep and
    best response)."""
    S = tree.num_sequences
    T = tree.__dict__.get("_full_tree")
    if T is None:
        T = tree.__dict__["_full_tree"] = full_tree(tree)
    value, br0, br1 = _evaluate(probs, T, K.padded(S), np.empty(S + 2), np.zeros(S))
    return float(value), float(br0), float(br1)
