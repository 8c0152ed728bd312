"""Solving a game through an abstraction: :class:`AbstractedSolver` runs any solver on the
abstract game and plays its strategy in the full game (lifted or translated,
:mod:`rcfr.abstraction.lift`), so the run engine measures it there as any solver's.
Complexity is the abstract game's number of sequences, as the thesis measures a static
abstraction's size (Morrill 2016, sec. 4.3, "Results")."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from ..core.errors import RcfrError
from ..evaluate import Evaluation, evaluate
from ..forms import GameTree
from ..forms.base import Form
from ..forms.compile import compile_game, is_compiled
from ..games.protocol import Game
from ..games.transforms.abstract_game import AbstractGame, Abstraction
from ..games.transforms.parse import (  # noqa: F401 (ABSTRACTIONS: re-exported)
    ABSTRACTIONS,
    parse_abstraction,
    standard_abstractions_of,
)
from ..policy import TabularPolicy
from .actions import lift_actions
from .lift import lift
from .spot import (
    bucketed_spot,
    is_sized,
    is_spot_abstraction,
    lift_classes,
    spot_abstraction_name,
    unabstracted,
)


def abstract_game(game: Game | GameTree | str, abstraction: str | Abstraction) -> Form:
    """The compiled abstract game of ``game`` under ``abstraction`` (a spec or an object; a
    real-card spot's ``buckets:K`` and ``actions:BETS[/RAISES]``: :mod:`rcfr.abstraction.spot`,
    :mod:`rcfr.abstraction.actions`)."""
    tree = compile_game(game)
    spot = bucketed_spot(tree.game, abstraction)
    if spot is not None:
        return compile_game(spot)
    return compile_game(AbstractGame(tree.game, parse_abstraction(abstraction, tree)))


def abstraction_name(abstract: Form) -> str:
    """The name of the abstraction that the compiled ``abstract`` game applies."""
    game = abstract.game
    return spot_abstraction_name(game) if is_spot_abstraction(game) else game.abstraction.name


def lift_policy(full: GameTree | Game | str, abstract: GameTree,
                policy: TabularPolicy | Any) -> TabularPolicy:
    """The full-game strategy of an abstract strategy (``abstract`` is the compiled abstract
    game from :func:`abstract_game`)."""
    full = compile_game(full)
    game = abstract.game
    if is_sized(game):
        return lift_actions(full, abstract, policy)
    if is_spot_abstraction(game):
        return lift_classes(full, abstract, policy)
    if not isinstance(game, AbstractGame):
        raise RcfrError(f"{game} is not an abstract game")
    probs = policy.probs if isinstance(policy, TabularPolicy) else policy
    meta = dict(getattr(policy, "metadata", {}) or {})
    meta["abstraction"] = game.abstraction.name
    return lift(full, abstract, probs, game.abstraction, meta)


@dataclass
class AbstractionInfo:
    """What a run through an abstraction adds to its result: the abstraction's name, its
    complexity (the abstract game's sequences, or the regressors' size) and its share of the
    full game's sequences, the abstract game's average strategy and its evaluation there."""

    name: str
    complexity: int
    complexity_share: float
    abstract_policy: TabularPolicy
    abstract_evaluation: Evaluation


def abstract_form(full: Form, abstraction: str | Abstraction | GameTree) -> GameTree:
    """The compiled abstract game of the compiled ``full`` game: ``abstraction`` a name or an
    object, or an abstract game compiled already (checked to abstract ``full``)."""
    if is_compiled(abstraction):
        if not isinstance(abstraction.game, AbstractGame) \
                and not is_spot_abstraction(abstraction.game):
            raise RcfrError(f"{abstraction.game} is not an abstract game")
        abstract = abstraction
    else:
        abstract = abstract_game(full, abstraction)
    base = (unabstracted(abstract.game) if is_spot_abstraction(abstract.game)
            else abstract.game.base)
    if str(base) != str(full.game):
        raise RcfrError(f"the abstract game {abstract.game} is not an abstraction of "
                        f"{full.game}")
    return abstract


class AbstractedSolver:
    """A solver of the abstract game seen from the full game: it runs ``solver`` (on
    ``abstract``, the compiled abstract game of ``full``) and gives its policies lifted to the
    full game, so the run engine runs, evaluates and checkpoints it as any solver
    (:class:`rcfr.run.protocol.Solver`).  Its complexity is the abstract game's sequences, or
    the regressors' size (Morrill 2016, sec. 4.3); what the solver offers beyond the protocol
    (``run_nodes``, ``check_run``) is the solver's own."""

    releasable = False  # its average is lifted, never the tables' own

    def __init__(self, solver: Any, full: Form, abstract: GameTree) -> None:
        game = getattr(solver, "game", abstract)
        if compile_game(game).fingerprint() != abstract.fingerprint():
            raise RcfrError(f"the solver is for {compile_game(game).game}, not for the "
                            f"abstract game {abstract.game}")
        self.inner, self.full, self.abstract = solver, full, abstract
        self.name = solver.name
        self.tree = full

    def __getattr__(self, name: str) -> Any:  # (called for names not found on the adaptor)
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    @property
    def iteration(self) -> int:
        return self.inner.iteration

    @property
    def nodes_visited(self) -> int:
        return self.inner.nodes_visited

    def setup(self) -> None:
        self.inner.setup()

    def run(self, iterations: int) -> AbstractedSolver:
        self.inner.run(iterations)
        return self

    def average_policy(self) -> TabularPolicy:
        return lift_policy(self.full, self.abstract, self.inner.average_policy())

    def current_policy(self) -> TabularPolicy:
        return lift_policy(self.full, self.abstract, self.inner.current_policy())

    def save_checkpoint(self, path: str | os.PathLike) -> None:
        self.inner.save_checkpoint(path)

    def load_checkpoint(self, path: str | os.PathLike) -> AbstractedSolver:
        self.inner.load_checkpoint(path)
        return self

    @property
    def complexity(self) -> int:
        own = getattr(self.inner, "complexity", None)
        return int(self.abstract.num_sequences if own is None else own)

    @property
    def complexity_share(self) -> float:
        return self.complexity / self.full.num_sequences

    def info(self, policy: TabularPolicy | None = None) -> AbstractionInfo:
        """The abstraction's part of a run's result: the abstract average strategy
        (``policy``, if given) and its evaluation in the abstract game."""
        policy = self.inner.average_policy() if policy is None else policy
        return AbstractionInfo(abstraction_name(self.abstract), self.complexity,
                               self.complexity_share, policy, evaluate(self.abstract, policy))


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
