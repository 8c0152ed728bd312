"""What a run gives back: :class:`RunResult`, the one result of :func:`rcfr.solve`,
``rcfr solve`` and a sweep's runs (through an abstraction too)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..abstraction.solve import AbstractionInfo
from ..core.names import EPISODIC
from ..evaluate import Evaluation, evaluate
from ..policy import TabularPolicy


@dataclass
class RunResult:
    """A finished (or stopped) run: the average strategy after ``iterations`` iterations and
    its evaluation (the full game's, through an abstraction too), the exploitability
    ``curve`` ``[(iteration, exploitability), ...]`` and the nodes visited at each point.

    ``seconds`` counts the solver's iterations alone (the speed is measured on
    ``iterations_run`` of them: fewer than ``iterations`` after a resume); ``wall_seconds``
    the whole run with its evaluations and the time before a resume.  ``points`` are the
    curve's points as the store keeps them (with the ones measured before a resume),
    ``resumed_from`` the iteration a checkpoint gave.  ``interrupted``: a stop ended the run
    before its budget; ``checkpoint_error``: why the last checkpoint write failed (the run
    went on; the previous file is kept); ``target_reached``: None without a target, else
    whether the run stopped at it.  ``spec`` and ``tree``: the run's spec (where it ran one)
    and the full game's compiled form; ``solver`` the driver that ran (the abstract game's
    with an abstraction)."""

    game: str
    algorithm: str
    iterations: int
    seconds: float
    policy: TabularPolicy | None  # None where ``release`` spent the solver's average
    evaluation: Evaluation
    curve: list[tuple[int, float]] = field(default_factory=list)
    solver: Any = None
    curve_nodes: list[int] = field(default_factory=list)
    iterations_run: int | None = None
    interrupted: bool = False
    checkpoint_error: str | None = None
    target_reached: bool | None = None
    abstraction: AbstractionInfo | None = None
    spec: Any = None  # rcfr.run.spec.RunSpec
    tree: Any = None
    points: list[dict[str, Any]] = field(default_factory=list)
    wall_seconds: float = 0.0
    resumed_from: int | None = None

    @property
    def complexity(self) -> int | None:
        """The abstract game's sequences (or the regressors' size) through an abstraction,
        else the solver's complexity (None for a solver that has none)."""
        if self.abstraction is not None:
            return self.abstraction.complexity
        return getattr(self.solver, "complexity", None)

    @property
    def complexity_share(self) -> float | None:
        if self.abstraction is not None:
            return self.abstraction.complexity_share
        return getattr(self.solver, "complexity_share", None)

    def to_dict(self) -> dict:
        out = {"game": self.game, "algorithm": self.algorithm, "iterations": self.iterations,
               "seconds": self.seconds,
               "iterations_per_second": None}
        run = self.iterations if self.iterations_run is None else self.iterations_run
        if self.seconds:
            out["iterations_per_second"] = run / self.seconds
        out.update(self.evaluation.to_dict())
        if getattr(self.solver, "average_model_", None) is not None:  # the table, beside it
            out["tabular_exploitability"] = evaluate(
                self.solver.tree, self.solver.tabular_average_policy()).exploitability
        if self.complexity is not None:
            out["complexity"] = self.complexity
            out["complexity_share"] = self.complexity_share
        out["curve"] = [list(p) for p in self.curve]
        out["nodes_visited"] = getattr(self.solver, "nodes_visited", None)
        if self.algorithm in EPISODIC:  # an iteration is an episode; no tree is walked
            out["episodes"], out["nodes_visited"] = self.iterations, None
            out["episodes_per_second"] = out["iterations_per_second"]
        out["curve_nodes"] = list(self.curve_nodes)
        out["interrupted"] = self.interrupted
        if self.target_reached is not None:
            out["target_reached"] = self.target_reached
            out["target_iteration"] = self.iterations if self.target_reached else None
        warm = getattr(self.solver, "warm_start_", None)
        if warm is not None:
            out["warm_start"] = warm.info()
        info = self.abstraction
        if info is not None:
            out["abstraction"] = info.name
            out["abstract_exploitability"] = info.abstract_evaluation.exploitability
        return out


SolveResult = RunResult  # the name rcfr.solve's result had
