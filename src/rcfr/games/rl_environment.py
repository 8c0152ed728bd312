"""The reinforcement-learning environment convention of OpenSpiel's ``rl_environment`` on any
rcfr game (its State API), without importing OpenSpiel.

:class:`Environment` steps one game: ``reset()`` and ``step([action])`` return a
:class:`TimeStep` ``(observations, rewards, discounts, step_type)`` with
``observations = {"info_state": [one vector per player], "legal_actions": [one list per
player], "current_player": p}``, rewards per player (zero until the end, the returns at the
terminal), discounts (``discount``, 0 at the end) and :class:`StepType` ``FIRST`` / ``MID`` /
``LAST``: the fields, methods and chance sampling of OpenSpiel's ``Environment`` (chance events
drawn by ``numpy.random.RandomState(seed).choice(outcomes, p=probs)``, as its
``ChanceEventSampler``), so an OpenSpiel RL agent runs on rcfr games, and the same seed gives
the same episodes as OpenSpiel's environment on the OpenSpiel counterpart.  A step after the
last time step starts a new episode (as OpenSpiel's).

Observations are OpenSpiel's information-state tensors (:mod:`rcfr.games.infostate`: Kuhn,
Leduc, ``openspiel:`` games) unless ``observer(history, chance, player) -> vector`` and
``observation_size`` are given.  :mod:`rcfr.interop.rl_environment` returns OpenSpiel's own
``TimeStep`` objects instead.  NFSP does not step this environment one game at a time: it
plays many games at once over the compiled tree (:mod:`rcfr.solvers.fp.batched_games`).
"""

from __future__ import annotations

import enum
from collections import namedtuple
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.errors import RcfrError
from .infostate import has_infostate, infostate_size, infostate_tensor
from .protocol import Game
from .registry import load_game


class StepType(enum.Enum):
    """Where a :class:`TimeStep` lies in its episode (OpenSpiel's values)."""

    FIRST = 0
    MID = 1
    LAST = 2

    def first(self) -> bool:
        return self is StepType.FIRST

    def mid(self) -> bool:
        return self is StepType.MID

    def last(self) -> bool:
        return self is StepType.LAST


class TimeStep(namedtuple("TimeStep", ["observations", "rewards", "discounts", "step_type"])):
    """What :meth:`Environment.reset` and :meth:`Environment.step` return (OpenSpiel's fields
    and methods)."""

    __slots__ = ()

    def first(self) -> bool:
        return self.step_type == StepType.FIRST

    def mid(self) -> bool:
        return self.step_type == StepType.MID

    def last(self) -> bool:
        return self.step_type == StepType.LAST

    def is_simultaneous_move(self) -> bool:
        return False  # rcfr's games are sequential

    def current_player(self) -> int:
        return self.observations["current_player"]


Observer = Callable[[list[int], list[bool], int], Any]


class Environment:
    """One game of ``game`` (an rcfr game or game string) in OpenSpiel's RL convention."""

    def __init__(self, game: Game | str, *, seed: int | None = None, discount: float = 1.0,
                 observer: Observer | None = None, observation_size: int | None = None) -> None:
        self.game = load_game(game) if isinstance(game, str) else game
        if self.game.num_players() != 2:
            raise RcfrError(f"{self.game} is not a two-player game")
        if not 0.0 <= float(discount) <= 1.0:
            raise RcfrError(f"discount must lie in [0, 1], got {discount!r}")
        if observer is None:
            if not has_infostate(self.game):
                raise RcfrError(f"{self.game} has no information-state tensor here; give an "
                                "observer and its observation_size")
            size = infostate_size(self.game)
            game_ = self.game
            observer = lambda h, c, p: infostate_tensor(game_, h, c, p)  # noqa: E731
            observation_size = size
        elif observation_size is None:
            raise RcfrError("an observer needs its observation_size")
        self.observer, self.observation_size = observer, int(observation_size)
        self.discount = float(discount)
        self.num_players = 2
        self.is_turn_based = True
        self.num_actions_per_step = 1
        self.seed(seed)
        self._state: Any = None
        self._history: list[int] = []
        self._chance: list[bool] = []
        self._should_reset = True

    def seed(self, seed: int | None = None) -> None:
        self._rng = np.random.RandomState(seed)

    @property
    def history(self) -> list[int]:
        """Every action from the root of the current episode (chance outcomes included)."""
        return list(self._history)

    def get_state(self) -> Any:
        return self._state

    def _sample_chance(self) -> None:
        while self._state.is_chance_node():
            actions, probs = zip(*self._state.chance_outcomes(), strict=True)
            action = int(self._rng.choice(actions, p=probs))
            self._state.apply_action(action)
            self._history.append(action)
            self._chance.append(True)

    def _observations(self) -> dict[str, Any]:
        s, terminal = self._state, self._state.is_terminal()
        player = -4 if terminal else s.current_player()  # OpenSpiel's kTerminalPlayerId
        legal = [[] if terminal or p != player else list(s.legal_actions()) for p in (0, 1)]
        info = [list(np.asarray(self.observer(self._history, self._chance, p), dtype=float))
                for p in (0, 1)]
        return {"info_state": info, "legal_actions": legal, "current_player": player,
                "serialized_state": []}

    def reset(self) -> TimeStep:
        """Start an episode (chance acts until a player does)."""
        self._should_reset = False
        self._state = self.game.new_initial_state()
        self._history, self._chance = [], []
        self._sample_chance()
        return TimeStep(self._observations(), None, None, StepType.FIRST)

    def get_time_step(self) -> TimeStep:
        terminal = self._state.is_terminal()
        self._should_reset = terminal
        rewards = list(self._state.returns()) if terminal else [0.0, 0.0]
        discounts = [0.0, 0.0] if terminal else [self.discount] * 2
        return TimeStep(self._observations(), rewards, discounts,
                        StepType.LAST if terminal else StepType.MID)

    def step(self, actions: list[int]) -> TimeStep:
        """Apply ``actions[0]`` for the player to act (then chance acts); after the last time
        step, start a new episode instead (as OpenSpiel's environment)."""
        if len(actions) != 1:
            raise RcfrError(f"a turn-based game takes one action per step, got {len(actions)}")
        if self._should_reset:
            return self.reset()
        action = int(actions[0])
        if action not in self._state.legal_actions():
            raise RcfrError(f"illegal action {action}; legal: {self._state.legal_actions()}")
        self._state.apply_action(action)
        self._history.append(action)
        self._chance.append(False)
        self._sample_chance()
        return self.get_time_step()

    def observation_spec(self) -> dict[str, Any]:
        return {"info_state": (self.observation_size,), "legal_actions": (self.num_actions,),
                "current_player": (), "serialized_state": ()}

    @property
    def num_actions(self) -> int:
        return int(self.game.num_distinct_actions())

    def action_spec(self) -> dict[str, Any]:
        return {"num_actions": self.num_actions, "min": 0, "max": self.num_actions - 1,
                "dtype": int}
