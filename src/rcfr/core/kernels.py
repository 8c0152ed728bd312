"""numba kernels over the compiled tree's sequence arrays, shared by evaluation and solvers.

All of them work in sequence form (Koller, Megiddo & von Stengel 1994): a strategy is a vector
of behavioural probabilities over sequences, a realization plan is the product of a player's own
probabilities along each sequence, and a terminal's weight is chance reach times payoff.  Arrays
over sequences that the kernels fill are *padded*: slots ``S`` and ``S + 1`` are the two players'
empty sequences (see :mod:`rcfr.forms.history.tree`).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def realization_plan(strategy, i_lo, i_hi, seq_start, num_actions, parent_seq, plan):
    """Fill ``plan[s] = plan[parent] * strategy[s]`` for the sequences of infosets
    ``[i_lo, i_hi)`` (topologically ordered).  ``plan`` is padded; empty slots must hold 1."""
    for i in range(i_lo, i_hi):
        base = plan[parent_seq[i]]
        start = seq_start[i]
        for s in range(start, start + num_actions[i]):
            plan[s] = base * strategy[s]


@njit(cache=True)
def terminal_values(player, plan, term_seq, term_coef, s_lo, s_hi, acc):
    """``acc[s]`` = sum over terminals whose last ``player`` sequence is ``s`` of the player's
    payoff times chance reach times the opponent's realization weight (``acc`` padded)."""
    for s in range(s_lo, s_hi):
        acc[s] = 0.0
    empty = acc.shape[0] - 2 + player
    acc[empty] = 0.0
    own = term_seq[player]
    opp = term_seq[1 - player]
    sign = 1.0 if player == 0 else -1.0
    for z in range(term_coef.shape[0]):
        acc[own[z]] += sign * term_coef[z] * plan[opp[z]]


@njit(cache=True, inline="always")
def back_up(strategy, acc, start, end, parent):
    """An information set's value: ``sum_s strategy[s] acc[s]`` over its sequences ``[start,
    end)``, added to its parent sequence's ``acc[parent]``; returns it."""
    v = 0.0
    for s in range(start, end):
        v += strategy[s] * acc[s]
    acc[parent] += v
    return v


@njit(cache=True, inline="always")
def regrets_at(i, strategy, seq_start, num_actions, parent_seq, acc, regret):
    """Information set ``i`` of :func:`counterfactual_regrets`: its value backed up to its
    parent sequence and its actions' instantaneous regrets."""
    start = seq_start[i]
    end = start + num_actions[i]
    v = back_up(strategy, acc, start, end, parent_seq[i])
    for s in range(start, end):
        regret[s] = acc[s] - v


@njit(cache=True)
def counterfactual_regrets(player, strategy, i_lo, i_hi, seq_start, num_actions, parent_seq,
                           acc, regret):
    """Back ``acc`` up the player's infosets ``[i_lo, i_hi)`` (in reverse topological order):
    afterwards ``acc[s]`` is the counterfactual value of sequence ``s`` and ``regret[s]`` its
    instantaneous counterfactual regret (Zinkevich et al. 2007, eq. 7).  Returns the player's
    expected value."""
    for i in range(i_hi - 1, i_lo - 1, -1):
        regrets_at(i, strategy, seq_start, num_actions, parent_seq, acc, regret)
    return acc[acc.shape[0] - 2 + player]


@njit(cache=True)
def best_response(player, i_lo, i_hi, seq_start, num_actions, parent_seq, acc, br):
    """Back ``acc`` (from :func:`terminal_values`) up the infosets ``[i_lo, i_hi)`` taking the
    best action at each; ``br`` gets the pure best response.  Returns its value."""
    for i in range(i_hi - 1, i_lo - 1, -1):
        best_response_at(i, seq_start, num_actions, parent_seq, acc, br)
    return acc[acc.shape[0] - 2 + player]


@njit(cache=True, inline="always")
def best_action(i, seq_start, num_actions, acc):
    """Information set ``i``'s best sequence by ``acc`` (the first of equals)."""
    start = seq_start[i]
    best = start
    for s in range(start + 1, start + num_actions[i]):
        if acc[s] > acc[best]:
            best = s
    return best


@njit(cache=True, inline="always")
def best_response_at(i, seq_start, num_actions, parent_seq, acc, br):
    """Information set ``i`` of :func:`best_response`: its best action (the first of equals)
    into ``br`` and its value added to its parent sequence."""
    best = best_action(i, seq_start, num_actions, acc)
    for s in range(seq_start[i], seq_start[i] + num_actions[i]):
        br[s] = 0.0
    br[best] = 1.0
    acc[parent_seq[i]] += acc[best]


@njit(cache=True, inline="always")
def best_value_at(i, seq_start, num_actions, parent_seq, acc):
    """:func:`best_response_at` without the pure strategy: only the value backed up."""
    acc[parent_seq[i]] += acc[best_action(i, seq_start, num_actions, acc)]


@njit(cache=True)
def best_value(player, i_lo, i_hi, seq_start, num_actions, parent_seq, acc):
    """:func:`best_response`'s value alone (no ``br`` vector: exact evaluation keeps none)."""
    for i in range(i_hi - 1, i_lo - 1, -1):
        best_value_at(i, seq_start, num_actions, parent_seq, acc)
    return acc[acc.shape[0] - 2 + player]


@njit(cache=True)
def expected_value(plan, term_seq, term_coef):
    """Player 0's expected payoff under the (padded) realization plans of both players."""
    total = 0.0
    s0 = term_seq[0]
    s1 = term_seq[1]
    for z in range(term_coef.shape[0]):
        total += term_coef[z] * plan[s0[z]] * plan[s1[z]]
    return total


@njit(cache=True)
def normalize(weights, i_lo, i_hi, seq_start, num_actions, out):
    """Per infoset, ``out = weights / sum`` (uniform where the weights sum to zero)."""
    for i in range(i_lo, i_hi):
        start = seq_start[i]
        n = num_actions[i]
        total = 0.0
        for s in range(start, start + n):
            total += weights[s]
        if total > 0.0:
            for s in range(start, start + n):
                out[s] = weights[s] / total
        else:
            for s in range(start, start + n):
                out[s] = 1.0 / n


def padded(num_sequences: int) -> np.ndarray:
    """A padded sequence vector with both empty-sequence slots set to 1."""
    v = np.zeros(num_sequences + 2)
    v[num_sequences:] = 1.0
    return v
