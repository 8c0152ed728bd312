"""Exact evaluation on the history form (Koller, Megiddo & von Stengel 1994): realization plans,
one sweep over the terminals per player, one backward sweep over the best responder's
information sets, all in O(terminals + sequences)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...core import kernels as K

if TYPE_CHECKING:
    from .tree import GameTree


def terminal_values(tree: GameTree, player: int, plan: np.ndarray, acc: np.ndarray) -> None:
    """``acc[s]``: the counterfactual value to ``player`` of the terminals whose last ``player``
    sequence is ``s`` (:func:`rcfr.core.kernels.terminal_values`)."""
    seqs = tree.player_sequences(player)
    K.terminal_values(player, plan, tree.terminal_seq, tree.terminal_coef, seqs.start,
                      seqs.stop, acc)


def expected_value(tree: GameTree, plan: np.ndarray) -> float:
    """Player 0's expected payoff under the padded realization plans."""
    return float(K.expected_value(plan, tree.terminal_seq, tree.terminal_coef))


def best_response_value(tree: GameTree, plan: np.ndarray, player: int) -> float:
    """``player``'s best-response value against the opponent's part of ``plan``."""
    acc = np.empty(tree.num_sequences + 2)
    terminal_values(tree, player, plan, acc)
    infos = tree.player_infosets(player)
    return float(K.best_response(player, infos.start, infos.stop, tree.infoset_seq_start,
                                 tree.infoset_num_actions, tree.infoset_parent_seq, acc,
                                 np.zeros(tree.num_sequences)))


def evaluate(tree: GameTree, probs: np.ndarray) -> tuple[float, float, float]:
    """Player 0's value and both best-response values of the behavioural profile ``probs``."""
    plan = K.padded(tree.num_sequences)
    K.realization_plan(probs, 0, tree.num_infosets, tree.infoset_seq_start,
                       tree.infoset_num_actions, tree.infoset_parent_seq, plan)
    return (expected_value(tree, plan), best_response_value(tree, plan, 0),
            best_response_value(tree, plan, 1))
