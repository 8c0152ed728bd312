"""Exact equilibria by the sequence-form linear program.

Koller, Megiddo & von Stengel 1994; von Stengel 1996.  With ``A`` the sequence-form payoff
matrix (payoff to player 0, chance folded in) and ``E x = e``, ``F y = f`` the two players'
realization-plan constraints, player 0 solves

    max_{x, q}  f^T q   s.t.  F^T q - A^T x <= 0,  E x = e,  x >= 0,

the dual of player 1's best response ``min_y x^T A y`` folded into one LP, and player 1
solves the mirror image.  Both LPs are handed to HiGHS through :func:`scipy.optimize.linprog`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from .core.budget import check_lp
from .core.errors import RcfrError
from .forms import GameTree
from .forms.compile import compile_history_form
from .games.protocol import Game

__all__ = ["LPSolution", "solve_lp", "payoff_matrix", "sequence_constraints"]

_UNREACHED = 1e-12  # an information set whose parent weight is below this gets uniform play


@dataclass(frozen=True)
class LPSolution:
    """An exact equilibrium of a two-player zero-sum game (sequence-form LP)."""

    value: float  # game value to player 0
    strategy: np.ndarray  # behavioural probability of each sequence (uniform where unreached)
    realization: np.ndarray  # realization-plan weight of each player's sequences


def _local_index(tree: GameTree, player: int, seqs: np.ndarray) -> np.ndarray:
    """Map global (padded) sequence indices of ``player`` to ``0..S_p``, the empty one last."""
    S = tree.num_sequences
    S0, S1 = tree.num_sequences_per_player
    offset = 0 if player == 0 else S0
    size = S0 if player == 0 else S1
    seqs = np.asarray(seqs, dtype=np.int64)
    return np.where(seqs == S + player, size, seqs - offset)


def payoff_matrix(tree: GameTree) -> sp.csr_matrix:
    """Sequence-form payoff matrix ``A[s0, s1]`` (Koller, Megiddo & von Stengel 1994).

    Rows are player 0's sequences followed by its empty sequence, columns likewise for
    player 1; each entry sums ``terminal_coef`` over the terminals reached by that pair.
    """
    S0, S1 = tree.num_sequences_per_player
    rows = _local_index(tree, 0, tree.terminal_seq[0])
    cols = _local_index(tree, 1, tree.terminal_seq[1])
    coo = sp.coo_matrix((tree.terminal_coef, (rows, cols)), shape=(S0 + 1, S1 + 1))
    return coo.tocsr()  # duplicate entries are summed


def sequence_constraints(tree: GameTree, player: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """Realization-plan constraints ``E x = e`` of ``player`` (von Stengel 1996).

    Row 0 fixes the empty sequence to 1; row ``1 + i`` says the weights of the ``i``-th
    information set's actions sum to the weight of its parent sequence.
    """
    size = tree.num_sequences_per_player[player]
    infosets = np.asarray(tree.player_infosets(player), dtype=np.int64)
    first_infoset = infosets[0] if infosets.size else 0
    seqs = np.arange(size, dtype=np.int64)
    global_seqs = seqs + (0 if player == 0 else tree.num_sequences_per_player[0])
    seq_rows = 1 + (tree.seq_infoset[global_seqs].astype(np.int64) - first_infoset)
    parent_cols = _local_index(tree, player, tree.infoset_parent_seq[infosets])
    rows = np.concatenate(([0], seq_rows, 1 + np.arange(infosets.size)))
    cols = np.concatenate(([size], seqs, parent_cols))
    vals = np.concatenate(([1.0], np.ones(size), -np.ones(infosets.size)))
    E = sp.coo_matrix((vals, (rows, cols)), shape=(1 + infosets.size, size + 1)).tocsr()
    rhs = np.zeros(1 + infosets.size)
    rhs[0] = 1.0
    return E, rhs


def _solve_player(
    player: int, A: sp.csr_matrix, E: sp.csr_matrix, e: np.ndarray, F: sp.csr_matrix
) -> tuple[float, np.ndarray]:
    """One player's LP: maximise the guaranteed payoff over own plans ``E x = e, x >= 0``.

    ``A`` is the payoff matrix from this player's point of view (own sequences as rows) and
    ``F`` the opponent's constraints; ``q`` (free) are duals of the opponent's best response.
    Returns the guaranteed value and the realization plan.
    """
    n_x = E.shape[1]
    n_q = F.shape[0]
    # variables [x, q]; minimise -q_0
    c = np.zeros(n_x + n_q)
    c[n_x] = -1.0
    A_ub = sp.hstack([-A.T, F.T], format="csr")
    b_ub = np.zeros(A_ub.shape[0])
    A_eq = sp.hstack([E, sp.csr_matrix((E.shape[0], n_q))], format="csr")
    bounds = [(0.0, None)] * n_x + [(None, None)] * n_q
    res = linprog(
        c,
        A_ub=A_ub,
        b_ub=b_ub,
        A_eq=A_eq,
        b_eq=e,
        bounds=bounds,
        method="highs",
    )
    if res.status != 0 or res.x is None:
        message = " ".join(str(res.message).split())
        raise RcfrError(f"sequence-form LP for player {player} failed: {message}")
    return float(-res.fun), np.asarray(res.x[:n_x], dtype=np.float64)


def _behavioural(tree: GameTree, realization: np.ndarray) -> np.ndarray:
    """Behavioural strategy from realization plans: each action's share of its infoset's mass."""
    n_act = tree.infoset_num_actions.astype(np.int64)
    mass = np.add.reduceat(realization, tree.infoset_seq_start) if realization.size else realization
    seq_mass = np.repeat(mass, n_act)
    uniform = np.repeat(1.0 / np.maximum(n_act, 1), n_act)
    reached = seq_mass > _UNREACHED
    return np.where(reached, realization / np.where(reached, seq_mass, 1.0), uniform)


def solve_lp(game: GameTree | Game | str,
             max_memory: str | float | int | None = None) -> LPSolution:
    """Solve ``game`` exactly with the sequence-form LP (Koller, Megiddo & von Stengel 1994;
    von Stengel 1996): one LP per player, each solved by HiGHS.

    The LP is built on the history form (a public tree's game is compiled as histories); a
    history form or LP larger than ``max_memory`` (default: :mod:`rcfr.core.budget`) is
    refused with one line.  Returns the value to player 0, both players' equilibrium
    realization plans (indexed by global sequence of the history form) and the behavioural
    strategy they induce (uniform where unreachable).
    """
    tree = compile_history_form(game, max_memory)
    check_lp(str(tree.game), len(tree.terminal_coef), max_memory)
    S0, S1 = tree.num_sequences_per_player
    A = payoff_matrix(tree)
    E, e = sequence_constraints(tree, 0)
    F, f = sequence_constraints(tree, 1)
    value0, x = _solve_player(0, A, E, e, F)
    _, y = _solve_player(1, (-A.T).tocsr(), F, f, E)

    realization = np.empty(tree.num_sequences, dtype=np.float64)
    realization[:S0] = x[:S0]
    realization[S0:] = y[:S1]
    np.clip(realization, 0.0, None, out=realization)
    strategy = _behavioural(tree, realization)
    return LPSolution(value=value0 + 0.0, strategy=strategy, realization=realization)
