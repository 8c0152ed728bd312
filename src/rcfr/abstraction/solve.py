"""Solving a game through an abstraction: solve the abstract game with any solver, play its
strategy in the full game (lifted or translated, :mod:`rcfr.abstraction.lift`), and measure it
there.  Complexity is the abstract game's number of sequences, as the thesis measures a static
abstraction's size (Morrill 2016, sec. 4.3, "Results")."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..core.errors import RcfrError
from ..evaluate import Evaluation, evaluate
from ..forms import GameTree
from ..forms.compile import compile_game, is_compiled
from ..games.protocol import Game
from ..games.transforms.base import AbstractGame, Abstraction
from ..games.transforms.parse import (  # noqa: F401 (ABSTRACTIONS: re-exported)
    ABSTRACTIONS,
    parse_abstraction,
    standard_abstractions_of,
)
from ..policy import TabularPolicy
from ..solvers.run import SolveResult, make_solver, solve
from .lift import lift


def abstract_game(game: Game | GameTree | str, abstraction: str | Abstraction) -> GameTree:
    """The compiled abstract game of ``game`` under ``abstraction`` (a spec or an object)."""
    tree = compile_game(game)
    return compile_game(AbstractGame(tree.game, parse_abstraction(abstraction, tree)))


def lift_policy(full: GameTree | Game | str, abstract: GameTree,
                policy: TabularPolicy | Any) -> TabularPolicy:
    """The full-game strategy of an abstract strategy (``abstract`` is the compiled abstract
    game from :func:`abstract_game`)."""
    full = compile_game(full)
    game = abstract.game
    if not isinstance(game, AbstractGame):
        raise RcfrError(f"{game} is not an abstract game")
    probs = policy.probs if isinstance(policy, TabularPolicy) else policy
    meta = dict(getattr(policy, "metadata", {}) or {})
    meta["abstraction"] = game.abstraction.name
    return lift(full, abstract, probs, game.abstraction, meta)


@dataclass
class AbstractionInfo:
    """What an abstract solve adds to a :class:`~rcfr.solvers.run.SolveResult`."""

    name: str
    complexity: int
    complexity_share: float
    abstract_policy: TabularPolicy
    abstract_evaluation: Evaluation
    lift_seconds: float


def solve_with_abstraction(game: GameTree | Game | str, algorithm: str = "cfr+",
                           iterations: int = 1000, eval_every: int = 0, *,
                           abstraction: str | Abstraction | GameTree,
                           callback: Callable[[int, float | None], None] | None = None,
                           **options):
    """:func:`rcfr.solve` through an abstraction: the result's policy, evaluation and curve
    are the full game's; ``complexity`` is the abstract game's sequences and
    ``complexity_share`` divides it by the full game's; ``result.abstraction`` holds the
    abstract strategy."""
    full = compile_game(game)
    if is_compiled(abstraction):
        if not isinstance(abstraction.game, AbstractGame):
            raise RcfrError(f"{abstraction.game} is not an abstract game")
        abstract = abstraction
    else:
        abstract = abstract_game(full, abstraction)
    if str(abstract.game.base) != str(full.game):
        raise RcfrError(f"the abstract game {abstract.game} is not an abstraction of "
                        f"{full.game}")
    run = {k: options.pop(k) for k in ("nodes", "episodes", "eval_nodes", "checkpoint",
                                        "checkpoint_every", "should_stop") if k in options}
    refuse_targets(options.pop("target_exploitability", None), options.pop("target_mbb", None))
    on_evaluation = options.pop("on_evaluation", None)  # the full game's evaluations
    solver = options.pop("solver", None)
    if solver is None:
        solver = make_solver(abstract, algorithm, **options)
    elif compile_game(solver.game).fingerprint() != abstract.fingerprint():
        raise RcfrError(f"the solver is for {compile_game(solver.game).game}, not for the "
                        f"abstract game {abstract.game}")
    curve: list[tuple[int, float]] = []
    lift_seconds = [0.0]

    def tick(done: int, expl: float | None) -> None:
        if expl is not None:  # an evaluation point: measure the lifted strategy instead
            t0 = time.perf_counter()
            lifted = lift_policy(full, abstract, solver.average_policy())
            evaluation = evaluate(full, lifted)
            expl = evaluation.exploitability
            if on_evaluation is not None:
                on_evaluation(evaluation)
            curve.append((solver.iteration, expl))
            lift_seconds[0] += time.perf_counter() - t0
        if callback is not None:
            callback(done, expl)

    result = solve(abstract, algorithm, iterations, eval_every, solver=solver, callback=tick,
                   **run)
    t0 = time.perf_counter()
    policy = lift_policy(full, abstract, result.policy)
    evaluation = evaluate(full, policy)
    lift_seconds[0] += time.perf_counter() - t0
    # a regressor's complexity is its size; a tabular solver's, and the fictitious-play and
    # deep drivers' (which give none), the abstract game's sequences
    complexity = getattr(result.solver, "complexity", None)
    complexity = int(abstract.num_sequences if complexity is None else complexity)
    info = AbstractionInfo(abstract.game.abstraction.name, complexity,
                           complexity / full.num_sequences, result.policy,
                           result.evaluation, lift_seconds[0])
    return AbstractSolveResult(str(full.game), result.algorithm, result.iterations,
                               result.seconds, policy, evaluation, curve, result.solver,
                               result.curve_nodes, result.iterations_run, result.interrupted,
                               result.checkpoint_error, result.target_reached,
                               abstraction=info)


@dataclass
class AbstractSolveResult(SolveResult):
    """A :class:`~rcfr.solvers.run.SolveResult` of a solve through an abstraction: full-game
    policy, evaluation and curve; the abstract game's complexity."""

    abstraction: AbstractionInfo | None = None

    def to_dict(self) -> dict:
        out = super().to_dict()
        info = self.abstraction
        if info is not None:
            out["abstraction"] = info.name
            out["complexity"] = info.complexity
            out["complexity_share"] = info.complexity_share
            out["abstract_exploitability"] = info.abstract_evaluation.exploitability
        return out


def refuse_targets(target_exploitability: float | None, target_mbb: float | None) -> None:
    """Refuse a stopping target with an abstraction: the abstract game's curve is not the full
    game's."""
    for name, value in (("target-exploitability", target_exploitability),
                        ("target-mbb", target_mbb)):
        if value is not None:
            raise RcfrError(f"--{name} stops a solve of the full game; leave it out with "
                            f"--abstraction")


def standard_abstractions(game: Game | GameTree | str) -> tuple[str, ...]:
    """The thesis's baseline abstractions for ``game`` (sec. 4.3): Leduc's four card
    abstractions or the five wager abstractions."""
    return standard_abstractions_of(compile_game(game).game)


def abstraction_baselines(game: Game | GameTree | str, iterations: int = 100_000,
                          algorithm: str = "cfr+", abstractions: tuple[str, ...] | None = None,
                          **options) -> list[dict]:
    """The thesis's abstraction baseline points for ``game``: one row per abstraction with its
    name, complexity (abstract sequences), complexity share, full-game exploitability (and in
    mbb/g), abstract-game exploitability and seconds (Morrill 2016, figs. 4.1 and 4.3)."""
    full = compile_game(game)
    rows = []
    for name in abstractions or standard_abstractions(full):
        t0 = time.perf_counter()
        result = solve_with_abstraction(full, algorithm, iterations, abstraction=name, **options)
        d = result.to_dict()
        rows.append({"abstraction": name, "complexity": d["complexity"],
                     "complexity_share": d["complexity_share"],
                     "exploitability": d["exploitability"],
                     "exploitability_mbb": d.get("exploitability_mbb"),
                     "abstract_exploitability": d["abstract_exploitability"],
                     "iterations": iterations, "seconds": time.perf_counter() - t0})
    return rows
