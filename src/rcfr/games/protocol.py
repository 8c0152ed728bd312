"""The game protocol: OpenSpiel's method names for two-player zero-sum games with chance.

A game is given by its rules (a :class:`State` that knows its legal moves and how to apply them);
:func:`rcfr.forms.compile.compile_game` walks it once into flat arrays.  Players are numbered 0 and
1
(the papers' "player 1" is player 0 here), as in OpenSpiel.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

CHANCE = -1
TERMINAL = -4


class State(ABC):
    """A history of a game: who acts, what they may do, and what it pays at the end."""

    @abstractmethod
    def current_player(self) -> int:
        """0 or 1 for a player to act, :data:`CHANCE` or :data:`TERMINAL`."""

    def legal_actions(self) -> list[int]:
        """Actions of the player to act (the chance outcomes at a chance node), ascending.

        By default: the chance outcomes at a chance node, nothing at a terminal, else
        :meth:`player_actions`; a game overrides either this or that."""
        player = self.current_player()
        if player == CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        if player == TERMINAL:
            return []
        return self.player_actions(player)

    def player_actions(self, player: int) -> list[int]:
        """The legal actions of ``player``, who is to act (see :meth:`legal_actions`)."""
        raise NotImplementedError(f"{type(self).__name__} defines neither legal_actions nor "
                                  "player_actions")

    @abstractmethod
    def chance_outcomes(self) -> list[tuple[int, float]]:
        """``(outcome, probability)`` pairs at a chance node."""

    @abstractmethod
    def apply_action(self, action: int) -> None:
        """Play ``action`` in place."""

    @abstractmethod
    def returns(self) -> list[float]:
        """Payoffs of both players at a terminal history (they sum to zero)."""

    @abstractmethod
    def information_state_string(self, player: int | None = None) -> str:
        """What ``player`` (default: the player to act) knows here; equal strings = one info set."""

    @abstractmethod
    def action_to_string(self, player: int, action: int) -> str:
        """A readable name for ``action`` taken by ``player`` (or chance, ``player == CHANCE``)."""

    @abstractmethod
    def clone(self) -> State:
        """An independent copy."""

    def child(self, action: int) -> State:
        """The history after ``action``, leaving this one unchanged."""
        nxt = self.clone()
        nxt.apply_action(action)
        return nxt

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def __str__(self) -> str:  # pragma: no cover - cosmetic
        if self.is_terminal():
            return f"terminal {self.returns()}"
        if self.is_chance_node():
            return "chance"
        return self.information_state_string()


class Game(ABC):
    """Rules of a game plus the parameters it was built with.

    ``big_blind`` is the chip unit that mbb/g figures divide by (``None`` for non-poker games);
    ``starting_pot`` the pot a hold'em spot starts with, which exploitability is also quoted
    as a share of (``None`` elsewhere).
    """

    short_name: str = ""
    big_blind: float | None = None
    starting_pot: float | None = None

    def __init__(self, **params: Any) -> None:
        self.params: dict[str, Any] = dict(params)

    @abstractmethod
    def new_initial_state(self) -> State:
        """The empty history."""

    def num_players(self) -> int:
        return 2

    @abstractmethod
    def num_distinct_actions(self) -> int:
        """Number of player action ids (actions are integers below this)."""

    def defaults(self) -> dict[str, Any]:
        """Parameters that may be omitted from the game's string."""
        return {}

    def translate_infoset(self, key: str, actions: Sequence[int],
                          source: Game) -> tuple[str, list[int | None]] | None:
        """How a warm start (:mod:`rcfr.solvers.warm`) reads ``source``'s strategy (another
        game's) at this game's information set ``key`` with ``actions``: the information-state
        string of ``source`` to read and, per action, the action of ``source`` it is read as
        (``None``: none).  ``None`` (the default): read the same key and the same actions."""
        return None

    def __str__(self) -> str:
        """The canonical, OpenSpiel-style string that :func:`rcfr.load_game` reads back."""
        shown = {k: v for k, v in self.params.items() if self.defaults().get(k, object()) != v}
        if not shown:
            return self.short_name
        return f"{self.short_name}({','.join(f'{k}={_fmt(v)}' for k, v in sorted(shown.items()))})"

    def __repr__(self) -> str:
        return f"load_game({str(self)!r})"


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Sequence) and not isinstance(value, str):
        return "[" + ",".join(_fmt(v) for v in value) + "]"
    return str(value)
