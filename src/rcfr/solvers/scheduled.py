"""The tabular loop with a parameter schedule: before each iteration a schedule sets the update
rule's parameters and the averaging power, and the form's fused full-width kernel runs that one
iteration (:mod:`rcfr.core.schedules`: HS-DCFR and HS-PCFR+, Zhang, McAleer & Sandholm 2024;
:mod:`rcfr.solvers.ddcfr`: the learned DDCFR policy, Xu et al. 2024).

The average strategy follows DCFR's recurrence with the iteration's power,
``C^t = C^{t-1} ((t-1)/t)^{gamma_t} + x^t``: the solver scales the sums, the kernel adds the
iteration's realization plans with weight 1.
"""

from __future__ import annotations

from typing import Any

from ..core.errors import RcfrError
from ..core.rules import RuleParams, UpdateRule, parse_rule
from ..core.schedules import average_factor, hs_parameters
from ..forms.base import Form
from .loop import UNLIMITED, CFRSolver


class ScheduledSolver(CFRSolver):
    """A scheduled rule (``hs-dcfr``, ``hs-pcfr+``; ``ddcfr`` is :class:`~rcfr.solvers.ddcfr.
    DDCFRSolver`) on the full-width pass, one fused iteration at a time.  The averaging is the
    schedule's (``averaging`` is refused); the tables are float (no ``storage="int16"``)."""

    schedules = True

    def __init__(self, game: Form | Any, algorithm: str | UpdateRule = "hs-dcfr", *,
                 alternating: bool = True, averaging: str | float | None = None,
                 link: str | Any = None, seed: int | None = None,
                 dtype: str = "float64", storage: str = "float",
                 prune: str | None = None) -> None:
        name = parse_rule(algorithm).name
        if averaging is not None:
            raise RcfrError(f"{name}'s schedule sets the averaging; leave out --averaging")
        if str(storage).strip().lower() != "float":
            raise RcfrError(f"{name} runs on float tables, not storage {storage}")
        super().__init__(game, algorithm, alternating=alternating, link=link, seed=seed,
                         dtype=dtype, prune=prune)
        if not self.estimator.rule.scheduled:
            raise RcfrError(f"{algorithm} is not a scheduled rule")

    def _default_averaging(self) -> str | float:
        return 0.0  # the kernels add weight 1; the schedule scales the sums

    def _info(self) -> dict[str, Any]:
        return {**super()._info(), "averaging": "scheduled"}

    def parameters(self, t: int) -> tuple[float, float, float]:
        """``(alpha, beta, gamma)`` of iteration ``t``."""
        return hs_parameters(self.rule_, t)

    def _run_fused(self, max_iters: int, node_budget: int) -> None:
        """Whole iterations, one fused kernel call each with the iteration's parameters, until
        ``max_iters`` iterations or ``node_budget`` histories."""
        if max_iters == 0:  # (setup: compile the kernel, run nothing)
            self.pass_.run_fused(self._loop_state(), 0, UNLIMITED)
            return
        done, start = 0, self.nodes_visited
        while done < max_iters and self.nodes_visited - start < node_budget:
            t = self.iteration + 1
            alpha, beta, gamma = self.parameters(t)
            self.avg_weights_ *= average_factor(t, gamma)
            state = self._loop_state()._replace(
                rule=RuleParams(self.rule_.kind, alpha, beta), avg_power=0.0)
            self.iteration, self.nodes_visited = self.pass_.run_fused(state, 1, UNLIMITED)
            done += 1
