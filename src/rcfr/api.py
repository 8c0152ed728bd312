"""The front door (ARCHITECTURE.md): :func:`solve` runs any algorithm on any game, through an
abstraction where one is named; :func:`compile_game` and :func:`evaluate` are re-exported by
the package."""

from __future__ import annotations

from typing import Any

from .forms.threads import kernel_threads
from .run import engine
from .run.result import RunResult
from .solvers.options import OPTION


def solve(game: Any, algorithm: str = "cfr+", iterations: int = 1000, eval_every: int = 0, *,
          abstraction: Any = None, **options: Any) -> RunResult:
    """Run ``iterations`` iterations of ``algorithm`` on ``game`` and evaluate the average
    strategy through the run engine (:func:`rcfr.run.engine.solve`: node budgets, evaluation
    schedules, stopping targets, checkpoints, callbacks).  With ``abstraction`` (a name such
    as ``"J.QK"`` or ``"HP"``, or a compiled abstract game; see :mod:`rcfr.abstraction`) the
    abstract game is solved and the result is the full game's.  ``threads``: the kernels'
    threads (default: numba's count, the machine's cores unless a sweep's worker set 1;
    :func:`rcfr.forms.threads.kernel_threads`: the same numbers on any count)."""
    threads = options.pop("threads", None)
    if threads is not None:
        OPTION["threads"].check(threads, "threads")
    with kernel_threads(threads):
        return engine.solve(game, algorithm, iterations, eval_every, abstraction=abstraction,
                            **options)
