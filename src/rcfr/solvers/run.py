"""Run a solver by name with a convergence curve: the work behind ``rcfr solve``."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import RcfrError
from ..evaluate import Evaluation, evaluate
from ..policy import TabularPolicy
from ..tree import GameTree, compile_game
from .loop import ALGORITHMS, CFRSolver, RegretSolver
from .rcfr import RCFR_ALGORITHMS, RCFRSolver

# options that only regression CFR takes
RCFR_OPTIONS = ("regressor", "leaves", "features", "bootstrap", "threshold", "criterion",
                "alpha")


@dataclass
class SolveResult:
    """The average strategy after ``iterations`` iterations, its evaluation, and the
    exploitability curve ``[(iteration, exploitability), ...]`` sampled every ``eval_every``."""

    game: str
    algorithm: str
    iterations: int
    seconds: float
    policy: TabularPolicy
    evaluation: Evaluation
    curve: list[tuple[int, float]] = field(default_factory=list)
    solver: RegretSolver | None = None

    def to_dict(self) -> dict:
        out = {"game": self.game, "algorithm": self.algorithm, "iterations": self.iterations,
               "seconds": self.seconds,
               "iterations_per_second": self.iterations / self.seconds if self.seconds else None}
        out.update(self.evaluation.to_dict())
        complexity = getattr(self.solver, "complexity", None)
        if complexity is not None:
            out["complexity"] = complexity
            out["complexity_share"] = self.solver.complexity_share
        out["curve"] = [list(p) for p in self.curve]
        return out


def make_solver(game: GameTree | str, algorithm: str, **options) -> RegretSolver:
    """A solver for ``algorithm``: ``cfr``, ``cfr+`` (tabular) or ``rcfr``, ``rcfr+``
    (regression CFR, which alone takes the regressor options)."""
    key = str(algorithm).lower()
    if key in RCFR_ALGORITHMS:
        return RCFRSolver(game, key, **options)
    given = [k for k in RCFR_OPTIONS
             if options.get(k) is not None and options.get(k) is not False]
    if given and key in ALGORITHMS:
        raise RcfrError(f"--{given[0]} applies to rcfr and rcfr+, not {key}")
    options = {k: v for k, v in options.items() if k not in RCFR_OPTIONS}
    return CFRSolver(game, algorithm, **options)


def solve(game: GameTree | str, algorithm: str = "cfr+", iterations: int = 1000,
          eval_every: int = 0, *, solver: RegretSolver | None = None,
          callback: Callable[[int, float | None], None] | None = None,
          **options) -> SolveResult:
    """Run ``iterations`` iterations of ``algorithm`` on ``game``; evaluate the average strategy
    every ``eval_every`` iterations (0: only at the end).  ``callback(done, exploitability)``
    is called after every chunk (``exploitability`` is ``None`` when none was measured)."""
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations <= 0:
        raise RcfrError(f"iterations must be a positive whole number, got {iterations!r}")
    if isinstance(eval_every, bool) or not isinstance(eval_every, int) or eval_every < 0:
        raise RcfrError(f"eval-every must be a whole number >= 0, got {eval_every!r}")
    tree = compile_game(game)
    solver = solver if solver is not None else make_solver(tree, algorithm, **options)
    solver._setup()  # validation and kernel loading happen outside the timed runs
    start_iter = solver.iteration
    target = start_iter + iterations
    chunk = eval_every if eval_every else max(1, min(1000, iterations // 100))
    curve: list[tuple[int, float]] = []
    seconds = 0.0
    while solver.iteration < target:
        n = min(chunk - (solver.iteration % chunk), target - solver.iteration)
        t0 = time.perf_counter()
        solver.run(n)
        seconds += time.perf_counter() - t0
        expl = None
        if eval_every and (solver.iteration % eval_every == 0 or solver.iteration == target):
            expl = evaluate(tree, solver.average_policy()).exploitability
            curve.append((solver.iteration, expl))
        if callback is not None:
            callback(solver.iteration - start_iter, expl)
    policy = solver.average_policy()
    return SolveResult(str(tree.game), solver.name, solver.iteration, seconds, policy,
                       evaluate(tree, policy), curve, solver)
