"""Full-width extensive-form fictitious play (XFP; Heinrich, Lanctot & Silver 2015, Alg. 1).

Each iteration computes every player's exact best response ``beta_{t+1}`` to the current
average profile ``pi_t`` and moves the average toward it in *realization* (sequence form):
``x_{t+1} = (1 - alpha_{t+1}) x_t + alpha_{t+1} x(beta_{t+1})`` (Heinrich et al. 2015,
Theorem 7), which in behavioural form at an information set with own-reach ``x_t(I)`` under
the average and ``x_beta(I)`` under the best response is::

    pi_{t+1}(I, a) = pi_t(I, a) + alpha x_beta(I) (beta(I, a) - pi_t(I, a))
                                  / ((1 - alpha) x_t(I) + alpha x_beta(I))

written in that order, as OpenSpiel's ``fictitious_play.XFPSolver`` writes it, so the two agree
to rounding.  ``alpha_t = 1/(t+1)`` by default (:func:`~rcfr.solvers.fp.stepped.parse_step`).
Best responses break ties as OpenSpiel's do: on the history form they are computed in
OpenSpiel's arithmetic order (:mod:`rcfr.solvers.fp.history_br`), so even ties that floating
point decides go the same way; on the public form (the sequence-form best response) the first
maximal action wins.

With ``alternating=True`` (rcfr's default for every solver) player 1's best response is
computed against player 0's *updated* average (Brown's original alternating fictitious play);
``alternating=False`` (``--simultaneous``) is the paper's Algorithm 1 and OpenSpiel's solver.
Everything goes through the :class:`~rcfr.forms.base.Form` contract, so it runs on both
compiled forms.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ...core import kernels as K
from ...forms.base import Capability, Form
from ...policy import TabularPolicy
from .history_br import HistoryBestResponse
from .stepped import SteppedSolver, checked, parse_step, step_size


@njit(cache=True)
def xfp_update(alpha, i_lo, i_hi, seq_start, num_actions, parent_seq, avg, br, plan_avg,
               plan_br, out):
    """The realization-weighted move of the average ``avg`` toward the pure best response
    ``br`` at information sets ``[i_lo, i_hi)`` (Heinrich et al. 2015, Theorem 7), into
    ``out`` (``plan_*``: padded realization plans of ``avg`` and ``br``)."""
    for i in range(i_lo, i_hi):
        xa = plan_avg[parent_seq[i]]
        xb = plan_br[parent_seq[i]]
        den = (1.0 - alpha) * xa + alpha * xb
        start = seq_start[i]
        for s in range(start, start + num_actions[i]):
            if den > 0.0:
                out[s] = avg[s] + (alpha * xb * (br[s] - avg[s])) / den
            else:  # reached by neither: nothing moves
                out[s] = avg[s]


def best_response_into(tree: Form, player: int, probs: np.ndarray, br: np.ndarray,
                       plan: np.ndarray | None = None) -> float:
    """Write ``player``'s pure best response to ``probs`` into ``br`` (its sequences; ties go
    to the first action) and return its value."""
    if plan is None:
        plan = K.padded(tree.num_sequences)
        K.realization_plan(probs, 0, tree.num_infosets, tree.infoset_seq_start,
                           tree.infoset_num_actions, tree.infoset_parent_seq, plan)
    acc = np.empty(tree.num_sequences + 2)
    tree.terminal_values(player, plan, acc)
    infos = tree.player_infosets(player)
    return float(K.best_response(player, infos.start, infos.stop, tree.infoset_seq_start,
                                 tree.infoset_num_actions, tree.infoset_parent_seq, acc, br))


class XFPSolver(SteppedSolver):
    """XFP on any compiled form (Heinrich, Lanctot & Silver 2015, Alg. 1 with the
    realization-weighted update of their Theorem 7).  ``step``: the step-size schedule
    (``harmonic`` = ``1/(t+1)``, ``power:P``, ``const:A``); ``alternating``: see the module."""

    name = "xfp"

    def _init_state(self) -> None:
        self.schedule_ = parse_step(self.step)
        t = self.tree
        self.avg_ = TabularPolicy.uniform(t).probs.copy()
        self.br_ = self.avg_.copy()  # the last best responses (uniform before the first)
        self._plan_avg = K.padded(t.num_sequences)
        self._plan_br = K.padded(t.num_sequences)
        # OpenSpiel's arithmetic order where there is one node per history (its ties)
        self._history_br = HistoryBestResponse(t) if t.supports(Capability.HISTORY_NODES) else None
        self._best_response(0)  # compile the kernels now, outside the timed runs
        xfp_update(0.5, 0, 0, t.infoset_seq_start, t.infoset_num_actions,
                   t.infoset_parent_seq, self.avg_, self.br_, self._plan_avg, self._plan_br,
                   self.avg_.copy())
        self.br_ = self.avg_.copy()

    def _config(self) -> dict[str, Any]:
        return {"step": "harmonic" if self.step is None else str(self.step),
                "alternating": bool(self.alternating)}

    def _plan(self, probs: np.ndarray, plan: np.ndarray, player: int | None = None) -> None:
        t = self.tree
        infos = range(0, t.num_infosets) if player is None else t.player_infosets(player)
        K.realization_plan(probs, infos.start, infos.stop, t.infoset_seq_start,
                           t.infoset_num_actions, t.infoset_parent_seq, plan)

    def _best_response(self, player: int) -> None:
        if self._history_br is not None:
            self._history_br(player, self.avg_, self.br_)
        else:
            best_response_into(self.tree, player, self.avg_, self.br_, self._plan_avg)

    def _move(self, player: int, alpha: float) -> None:
        t = self.tree
        infos = t.player_infosets(player)
        self._plan(self.avg_, self._plan_avg, player)
        self._plan(self.br_, self._plan_br, player)
        new = self.avg_.copy()
        xfp_update(alpha, infos.start, infos.stop, t.infoset_seq_start, t.infoset_num_actions,
                   t.infoset_parent_seq, self.avg_, self.br_, self._plan_avg, self._plan_br,
                   new)
        self.avg_ = new

    def _iterate(self) -> None:
        self.iteration += 1
        alpha = step_size(self.schedule_, self.iteration)
        if self.alternating:
            for p in (0, 1):
                self._plan(self.avg_, self._plan_avg)
                self._best_response(p)
                self._move(p, alpha)
        else:
            self._plan(self.avg_, self._plan_avg)
            for p in (0, 1):
                self._best_response(p)
            for p in (0, 1):
                self._move(p, alpha)
        self.nodes_visited += 2 * int(self.tree.num_nodes)  # one best-response pass a player

    def _average(self) -> np.ndarray:
        return self.avg_

    def _current(self) -> np.ndarray:
        return self.br_

    def _state(self) -> dict[str, np.ndarray]:
        return {"average": self.avg_, "best_response": self.br_}

    def _load_state(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        S = self.tree.num_sequences
        avg, br = checked(arrays["average"], (S,)), checked(arrays["best_response"], (S,))
        TabularPolicy(self.tree, avg)  # a profile (raises on corruption)
        self.avg_, self.br_ = avg, br
