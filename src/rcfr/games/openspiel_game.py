"""Any two-player zero-sum OpenSpiel game behind our :class:`Game` protocol.

``load_game("openspiel:<game string>")`` lands here.  The protocol already uses OpenSpiel's
method names, so a :class:`OpenSpielState` only forwards to the wrapped ``pyspiel.State``;
simultaneous-move games are made sequential with ``pyspiel.convert_to_turn_based``.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

from ..core.errors import RcfrError, install_hint
from .protocol import Game, State

INSTALL_HINT = f"install the openspiel extra: {install_hint('openspiel')}"
_POKER = ("kuhn_poker", "leduc_poker")


def import_pyspiel() -> Any:
    """The ``pyspiel`` module, or a one-line :class:`RcfrError` saying how to install it."""
    try:
        import pyspiel
    except ImportError:
        raise RcfrError(f"OpenSpiel is not installed; {INSTALL_HINT}") from None
    return pyspiel


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence what OpenSpiel's C++ side prints before raising (its errors become ours)."""
    sys.stderr.flush()
    try:
        saved = os.dup(2)
    except OSError:  # pragma: no cover - no file descriptor 2
        yield
        return
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class OpenSpielState(State):
    """A ``pyspiel.State`` seen through our protocol."""

    __slots__ = ("state",)

    def __init__(self, state: Any) -> None:
        self.state = state

    def current_player(self) -> int:
        return self.state.current_player()

    def legal_actions(self) -> list[int]:
        return self.state.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.state.chance_outcomes()

    def apply_action(self, action: int) -> None:
        self.state.apply_action(action)

    def returns(self) -> list[float]:
        return self.state.returns()

    def information_state_string(self, player: int | None = None) -> str:
        p = self.state.current_player() if player is None else player
        return self.state.information_state_string(p)

    def action_to_string(self, player: int, action: int) -> str:
        return self.state.action_to_string(player, action)

    def clone(self) -> OpenSpielState:
        return OpenSpielState(self.state.clone())

    def child(self, action: int) -> OpenSpielState:
        return OpenSpielState(self.state.child(action))  # clone + apply, in C++


class OpenSpielGame(Game):
    """A two-player zero-sum pyspiel game; ``str()`` gives ``openspiel:<pyspiel string>``.

    ``os_game`` is the sequential game we walk (the turn-based conversion for simultaneous-move
    games); ``spec`` is the string of the game as loaded, before any conversion.
    """

    def __init__(self, os_game: Any) -> None:
        pyspiel = import_pyspiel()
        gtype = os_game.get_type()
        name = _game_string(os_game)
        super().__init__(**os_game.get_parameters())
        if gtype.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
            os_game = pyspiel.convert_to_turn_based(os_game)
        _check_supported(pyspiel, os_game, name)
        self.spec = name
        self.os_game = os_game
        self.short_name = f"openspiel:{gtype.short_name}"
        self.big_blind = 1.0 if gtype.short_name in _POKER else None

    def new_initial_state(self) -> OpenSpielState:
        return OpenSpielState(self.os_game.new_initial_state())

    def num_distinct_actions(self) -> int:
        return self.os_game.num_distinct_actions()

    def __str__(self) -> str:
        return f"openspiel:{self.spec}"


def _game_string(os_game: Any) -> str:
    """pyspiel's canonical string, without the ``()`` of a game with no parameters shown."""
    text = str(os_game)
    return text[:-2] if text.endswith("()") else text


def _check_supported(pyspiel: Any, os_game: Any, name: str) -> None:
    gtype = os_game.get_type()
    utility = gtype.utility
    if os_game.num_players() != 2:
        raise RcfrError(f"OpenSpiel game {name!r} has {os_game.num_players()} players; "
                        "only two-player games are supported")
    zero_sum = utility == pyspiel.GameType.Utility.ZERO_SUM or (
        utility == pyspiel.GameType.Utility.CONSTANT_SUM and os_game.utility_sum() == 0
    )
    if not zero_sum:
        raise RcfrError(f"OpenSpiel game {name!r} is not zero-sum ({utility.name.lower()}); "
                        "only zero-sum games are supported")
    if gtype.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise RcfrError(f"OpenSpiel game {name!r} is not a sequential game "
                        f"({gtype.dynamics.name.lower()})")
    if gtype.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        raise RcfrError(f"OpenSpiel game {name!r} only samples chance; explicit chance "
                        "probabilities are needed")
    if not gtype.provides_information_state_string:
        raise RcfrError(f"OpenSpiel game {name!r} has no information_state_string")


def load_openspiel_game(spec: str) -> Game:
    """The OpenSpiel game named by ``spec`` (a pyspiel game string such as ``kuhn_poker`` or
    ``goofspiel(num_cards=4,imp_info=True)``), wrapped as a :class:`Game`."""
    pyspiel = import_pyspiel()
    spec = spec.strip()
    name = spec.split("(", 1)[0].strip()
    if not name:
        raise RcfrError("no OpenSpiel game named; write e.g. openspiel:kuhn_poker")
    if name not in pyspiel.registered_names():
        raise RcfrError(f"unknown OpenSpiel game {name!r}; see pyspiel.registered_names()")
    try:
        with _quiet_stderr():
            os_game = pyspiel.load_game(spec)
    except (pyspiel.SpielError, RuntimeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "error"
        raise RcfrError(f"cannot load OpenSpiel game {spec!r}: {first}") from None
    return OpenSpielGame(os_game)


__all__ = ["OpenSpielGame", "OpenSpielState", "import_pyspiel", "load_openspiel_game"]
