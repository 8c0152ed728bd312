"""OpenSpiel's ``rl_environment`` on rcfr games, and rcfr's on OpenSpiel's.

:class:`RLEnvironment` is :class:`rcfr.games.rl_environment.Environment` returning OpenSpiel's
own ``TimeStep`` and ``StepType`` objects, so an OpenSpiel RL agent (``open_spiel.python``'s
DQN, NFSP, policy gradients...) runs on any rcfr game unchanged.  :func:`openspiel_environment`
is OpenSpiel's ``Environment`` on the OpenSpiel counterpart of an rcfr game, with the same
chance sampling: with one seed both environments deal the same episodes.  The other way, an
OpenSpiel game is an rcfr game as ``openspiel:<game string>`` (its information-state tensor is
the observation), so rcfr's environment -- and rcfr's NFSP, which plays over the compiled tree
-- run on it.
"""

from __future__ import annotations

from typing import Any

from ..games.openspiel_game import import_pyspiel
from ..games.protocol import Game
from ..games.rl_environment import Environment, TimeStep

__all__ = ["RLEnvironment", "openspiel_environment", "to_openspiel_time_step"]


def _rl() -> Any:
    import_pyspiel()  # the one-line install hint if OpenSpiel is missing
    from open_spiel.python import rl_environment

    return rl_environment


def to_openspiel_time_step(step: TimeStep) -> Any:
    """``step`` as OpenSpiel's ``rl_environment.TimeStep`` (its ``StepType`` included)."""
    rl = _rl()
    return rl.TimeStep(observations=step.observations, rewards=step.rewards,
                       discounts=step.discounts, step_type=rl.StepType(step.step_type.value))


class RLEnvironment(Environment):
    """An rcfr game in OpenSpiel's RL convention, with OpenSpiel's time-step types."""

    def __init__(self, game: Game | str, **kwargs: Any) -> None:
        _rl()
        super().__init__(game, **kwargs)

    def reset(self) -> Any:
        return to_openspiel_time_step(super().reset())

    def get_time_step(self) -> Any:
        return to_openspiel_time_step(super().get_time_step())

    def step(self, actions: list[int]) -> Any:
        out = super().step(actions)
        return out if not isinstance(out, TimeStep) else to_openspiel_time_step(out)


def openspiel_environment(game: Game | str, *, seed: int | None = None) -> Any:
    """OpenSpiel's ``rl_environment.Environment`` on ``game``'s OpenSpiel counterpart (e.g.
    ``kuhn`` -> ``kuhn_poker``), its chance events seeded by ``seed``."""
    from .openspiel import openspiel_counterpart

    rl = _rl()
    env = rl.Environment(import_pyspiel().load_game(openspiel_counterpart(game)))
    env.seed(seed)
    return env
