"""Plain fictitious play on a matrix game (Brown 1951; Robinson 1951 proved it converges in
two-player zero-sum games): each player best-responds to the opponent's empirical mixture of
past plays, and the empirical mixtures converge to the equilibrium set (the payoff gap at the
rate ``O(t**-1/(m+n-2))`` at worst).

The game is any compiled form whose players have one information set each (a normal-form
game: ``rps``, ``matrix(payoffs=...)``); its payoff matrix ``A[i, j]`` is read through the
:class:`~rcfr.forms.base.Form` contract (the expected value of each pure profile).  The
empirical mixture starts as the uniform strategy counted once, so ``x_{t+1} = x_t +
(e_{br} - x_t)/(t+1)``: on such a game it is XFP with the harmonic step
(:class:`~rcfr.solvers.fp.xfp.XFPSolver`).  ``alternating=True`` (the default, Brown's
original): the column player responds to the row player's updated mixture;
``alternating=False``: both respond to the same mixtures.  Ties go to the first action.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core import kernels as K
from ...core.errors import RcfrError
from ...forms.base import Form
from .stepped import SteppedSolver, checked, parse_step, step_size


def payoff_matrix(tree: Form) -> np.ndarray:
    """Player 0's payoff ``A[i, j]`` for the pure actions of a game in which each player has
    one information set (an :class:`RcfrError` otherwise)."""
    if tuple(tree.num_infosets_per_player) != (1, 1):
        raise RcfrError(f"-a fp is normal-form fictitious play: it needs a matrix game (one "
                        f"information set a player); {tree.game} has "
                        f"{tree.num_infosets_per_player[0]} and "
                        f"{tree.num_infosets_per_player[1]}; use -a xfp")
    m, n = tree.num_sequences_per_player
    out = np.empty((m, n))
    for i in range(m):
        for j in range(n):
            plan = K.padded(tree.num_sequences)
            plan[:m + n] = 0.0
            plan[i] = plan[m + j] = 1.0
            out[i, j] = tree.expected_value(plan)
    return out


class FictitiousPlay(SteppedSolver):
    """Normal-form fictitious play (Brown 1951) on a matrix game; ``step`` as XFP's."""

    name = "fp"

    def _init_state(self) -> None:
        self.schedule_ = parse_step(self.step)
        self.payoffs_ = payoff_matrix(self.tree)
        m, n = self.payoffs_.shape
        self.x_, self.y_ = np.full(m, 1.0 / m), np.full(n, 1.0 / n)
        self.br_ = (np.full(m, 1.0 / m), np.full(n, 1.0 / n))

    def _config(self) -> dict[str, Any]:
        return {"step": "harmonic" if self.step is None else str(self.step),
                "alternating": bool(self.alternating)}

    def _iterate(self) -> None:
        self.iteration += 1
        alpha = step_size(self.schedule_, self.iteration)
        A = self.payoffs_
        i = int(np.argmax(A @ self.y_))
        if self.alternating:
            self.x_ = self.x_ + alpha * (np.eye(len(self.x_))[i] - self.x_)
        j = int(np.argmax(-(self.x_ @ A)))
        if not self.alternating:
            self.x_ = self.x_ + alpha * (np.eye(len(self.x_))[i] - self.x_)
        self.y_ = self.y_ + alpha * (np.eye(len(self.y_))[j] - self.y_)
        self.br_ = (np.eye(len(self.x_))[i], np.eye(len(self.y_))[j])
        self.nodes_visited += 2 * int(self.tree.num_nodes)

    def _average(self) -> np.ndarray:
        return np.concatenate([self.x_, self.y_]) / np.repeat(
            [self.x_.sum(), self.y_.sum()], [len(self.x_), len(self.y_)])

    def _current(self) -> np.ndarray:
        return np.concatenate(self.br_)

    def _state(self) -> dict[str, np.ndarray]:
        return {"x": self.x_, "y": self.y_, "br_x": self.br_[0], "br_y": self.br_[1]}

    def _load_state(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        m, n = self.payoffs_.shape
        self.x_, self.y_ = checked(arrays["x"], (m,)), checked(arrays["y"], (n,))
        self.br_ = (checked(arrays["br_x"], (m,)), checked(arrays["br_y"], (n,)))
