"""Seeded random two-player zero-sum extensive-form games with perfect recall, for testing.

A game has ``depth`` levels.  Each level may open with a chance node (probability ``chance``;
2 to ``chance_branching`` outcomes with random rational probabilities) and then has one decision
node, whose player is drawn from the history.  After a level the game stops early with probability
``stop``; after ``depth`` levels it ends.  Terminals pay player 0 a random integer in
``[-payoff, payoff]`` (player 1 gets its negative).

Information: a player's information state is its sequence of observations, one or two tokens a
level: its own action (always remembered), the opponent's action, or a chance outcome, the
latter two replaced by an "unobserved" marker with probability ``info``.  Equal observation
sequences form one information set, which gives perfect recall by construction; the number of
legal actions (2 to ``branching``) is drawn from the acting player's information state, so it
is the same throughout an information set.

Every random draw comes from ``numpy.random.default_rng`` seeded with a BLAKE2 hash of
``(seed, purpose, history)``, so a seed always gives the same game, on any machine.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from ..core.errors import RcfrError
from .protocol import CHANCE, TERMINAL, Game, State

_DEFAULTS: dict[str, Any] = {
    "depth": 4,
    "branching": 3,
    "chance": 0.5,
    "chance_branching": 3,
    "info": 0.5,
    "stop": 0.1,
    "payoff": 10,
}


def _rng(seed: int, *parts: object) -> np.random.Generator:
    """A generator determined by ``seed`` and ``parts`` (a stable hash, not Python's hash())."""
    text = "|".join(str(p) for p in parts).encode()
    digest = int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")
    return np.random.default_rng([seed, digest])


class RandomGameState(State):
    """A history: ``hist`` spells every event; ``obs[p]`` is what player ``p`` has seen."""

    __slots__ = ("game", "hist", "obs", "level", "player", "actions", "outcomes")

    def __init__(self, game: RandomGame) -> None:
        self.game = game
        self.hist = ""
        self.obs: tuple[str, str] = ("", "")
        self.level = 0
        self._enter_level()

    # -- rules -----------------------------------------------------------------------------
    def _enter_level(self) -> None:
        """Decide what happens at the start of a level: stop, chance, or a player's turn."""
        g = self.game
        draws = _rng(g.seed, "level", self.hist).random(3)  # stop, chance, actor: fixed order
        if self.level >= g.depth or (self.level > 0 and draws[0] < g.stop):
            self.player, self.actions, self.outcomes = TERMINAL, [], []
        elif draws[1] < g.chance:
            self.player, self.actions = CHANCE, []
            rng = _rng(g.seed, "chance", self.hist)
            n = int(rng.integers(2, g.chance_branching + 1))
            weights = rng.integers(1, 10, size=n)
            total = int(weights.sum())
            self.outcomes = [(k, int(w) / total) for k, w in enumerate(weights)]
        else:
            self._decide(int(draws[2] * 2))

    def _decide(self, player: int) -> None:
        g = self.game
        self.player, self.outcomes = player, []
        key = self.information_state_string(player)
        n = int(_rng(g.seed, "actions", player, key).integers(2, g.branching + 1))
        self.actions = list(range(n))

    def _observed(self) -> np.ndarray:
        """Whether each player sees the event just appended to ``hist``."""
        return _rng(self.game.seed, "observe", self.hist).random(2) >= self.game.info

    # -- protocol --------------------------------------------------------------------------
    def current_player(self) -> int:
        return self.player

    def legal_actions(self) -> list[int]:
        if self.player == CHANCE:
            return [o for o, _ in self.outcomes]
        return list(self.actions)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self.outcomes)

    def apply_action(self, action: int) -> None:
        if self.player == CHANCE:
            if action not in (o for o, _ in self.outcomes):
                raise RcfrError(f"chance outcome {action} is not possible here")
            self.hist += f"({action})"
            seen = self._observed()
            o0, o1 = (f"c{action if s else '?'}." for s in seen)
            self.obs = (self.obs[0] + o0, self.obs[1] + o1)
            self._decide(int(_rng(self.game.seed, "actor", self.hist).integers(2)))
            return
        if action not in self.actions:
            raise RcfrError(f"action {action} is not legal here")
        p = self.player
        self.hist += f"{p}{action}."
        seen = self._observed()
        mine = f"{self.obs[p]}a{action}."
        theirs = f"{self.obs[1 - p]}o{action if seen[1 - p] else '?'}."
        self.obs = (mine, theirs) if p == 0 else (theirs, mine)
        self.level += 1
        self._enter_level()

    def returns(self) -> list[float]:
        if self.player != TERMINAL:
            return [0.0, 0.0]
        g = self.game
        u = float(_rng(g.seed, "payoff", self.hist).integers(-g.payoff, g.payoff + 1))
        return [u, -u] if u else [0.0, 0.0]

    def information_state_string(self, player: int | None = None) -> str:
        p = self.player if player is None else player
        if p not in (0, 1):
            raise RcfrError(f"no information state for player {p}")
        return f"p{p}:{self.obs[p]}"

    def action_to_string(self, player: int, action: int) -> str:
        return f"c{action}" if player == CHANCE else f"a{action}"

    def clone(self) -> RandomGameState:
        s = RandomGameState.__new__(RandomGameState)
        s.game, s.hist, s.obs, s.level = self.game, self.hist, self.obs, self.level
        s.player, s.actions, s.outcomes = self.player, self.actions, self.outcomes
        return s


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise RcfrError(f"random_game's {name} must be a whole number >= {low}, got {value!r}")
    return int(value)


def _check_prob(name: str, value: Any, high_open: bool = False) -> float:
    ok = isinstance(value, (int, float, np.number)) and not isinstance(value, bool)
    if not ok or not (0.0 <= value < 1.0 if high_open else 0.0 <= value <= 1.0):
        bound = "[0, 1)" if high_open else "[0, 1]"
        raise RcfrError(f"random_game's {name} must be a probability in {bound}, got {value!r}")
    return float(value)


class RandomGame(Game):
    """A seeded random perfect-recall game: ``random_game(seed=N, depth=..., ...)``.

    ``seed`` (required, >= 0) picks the game; ``depth`` (>= 1) is the number of decision
    levels; ``branching`` (>= 2) the most actions at a decision node (each has 2 to
    ``branching``); ``chance`` the probability that a level opens with a chance node, which
    has 2 to ``chance_branching`` (>= 2) outcomes; ``info`` the probability that a player misses
    an opponent action or a chance outcome (0 gives perfect information); ``stop`` the
    probability of ending after a level before ``depth``; ``payoff`` (>= 1) the largest
    absolute payoff.
    """

    short_name = "random_game"

    def __init__(self, seed: int, depth: int = 4, branching: int = 3, chance: float = 0.5,
                 chance_branching: int = 3, info: float = 0.5, stop: float = 0.1,
                 payoff: int = 10) -> None:
        self.seed = _check_int("seed", seed, 0)
        self.depth = _check_int("depth", depth, 1)
        self.branching = _check_int("branching", branching, 2)
        self.chance = _check_prob("chance", chance)
        self.chance_branching = _check_int("chance_branching", chance_branching, 2)
        self.info = _check_prob("info", info)
        self.stop = _check_prob("stop", stop, high_open=True)
        self.payoff = _check_int("payoff", payoff, 1)
        super().__init__(seed=self.seed, depth=self.depth, branching=self.branching,
                         chance=self.chance, chance_branching=self.chance_branching,
                         info=self.info, stop=self.stop, payoff=self.payoff)

    def defaults(self) -> dict[str, Any]:
        return dict(_DEFAULTS)

    def new_initial_state(self) -> RandomGameState:
        return RandomGameState(self)

    def num_distinct_actions(self) -> int:
        return self.branching
