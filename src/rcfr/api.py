"""The front door (ARCHITECTURE.md): :func:`solve` runs any algorithm on any game, through an
abstraction where one is named; :func:`compile_game` and :func:`evaluate` are re-exported by
the package."""

from __future__ import annotations

from typing import Any

from .abstraction import solve_with_abstraction
from .forms.threads import kernel_threads
from .solvers.options import OPTION
from .solvers.run import SolveResult
from .solvers.run import solve as _solve


def solve(game: Any, algorithm: str = "cfr+", iterations: int = 1000, eval_every: int = 0, *,
          abstraction: Any = None, **options: Any) -> SolveResult:
    """Run ``iterations`` iterations of ``algorithm`` on ``game`` and evaluate the average
    strategy (:func:`rcfr.solvers.run.solve`: node budgets, evaluation schedules, checkpoints,
    callbacks).  With ``abstraction`` (a name such as ``"J.QK"`` or ``"HP"``, or a compiled
    abstract game; see :mod:`rcfr.abstraction`) the abstract game is solved and the result is
    the full game's (:func:`rcfr.abstraction.solve_with_abstraction`).  ``threads``: the
    kernels' threads (default: numba's count, the machine's cores unless a sweep's worker set
    1; :func:`rcfr.forms.threads.kernel_threads`: the same numbers on any count)."""
    threads = options.pop("threads", None)
    if threads is not None:
        OPTION["threads"].check(threads, "threads")
    with kernel_threads(threads):
        if abstraction is not None:
            return solve_with_abstraction(game, algorithm, iterations, eval_every,
                                          abstraction=abstraction, **options)
        return _solve(game, algorithm, iterations, eval_every, **options)
