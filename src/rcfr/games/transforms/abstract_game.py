"""Abstract games as transforms of a game's rules (ARCHITECTURE.md, "Abstraction").

An :class:`Abstraction` changes two things about a game and nothing else:

* what a player knows -- :meth:`Abstraction.key` maps a player's information state to an
  abstract one, so information sets with equal keys merge (a state-space or card abstraction,
  Morrill 2016 sec. 2.3: a many-to-one map ``f: I_full -> I_abstract``);
* what a player may do -- :meth:`Abstraction.actions` restricts the legal actions (an action
  abstraction).

Chance, payoffs and the order of play are the game's own, so the abstract game compiles with
:func:`rcfr.forms.compile.compile_game` like any other and any solver solves it.  Playing the
abstract
strategy in the full game needs the two translation maps (:meth:`Abstraction.translate` for the
opponent's real actions, :meth:`Abstraction.back` for the player's own abstract actions); see
:mod:`rcfr.abstraction.lift`.
"""

from __future__ import annotations

from ..protocol import CHANCE, TERMINAL, Game, State


class Abstraction:
    """The identity abstraction; subclasses override :meth:`key`, :meth:`actions`,
    :meth:`translate` and :meth:`back`.  ``name`` is the spec string it was built from."""

    name = "identity"

    def check(self, game: Game) -> None:
        """Raise :class:`RcfrError` if this abstraction does not apply to ``game``."""

    def key(self, state: State, player: int) -> str:
        """The abstract information state of ``player`` at ``state`` (a full-game history)."""
        return state.information_state_string(player)

    def actions(self, state: State) -> list[int]:
        """The abstract game's legal actions at a decision history ``state`` (a subset of the
        full game's, ascending)."""
        return state.legal_actions()

    def translate(self, real: State, abstract: State, action: int) -> list[tuple[int, float]]:
        """The opponent's real ``action`` (taken at ``real``) as a distribution over abstract
        actions at the abstract history ``abstract`` (the same player acts at both)."""
        return [(action, 1.0)]

    def back(self, real: State, abstract: State, action: int) -> int:
        """The real action that plays the abstract ``action`` chosen at ``abstract``, at the
        real history ``real``."""
        return action

    def is_identity(self) -> bool:
        return type(self).key is Abstraction.key and type(self).actions is Abstraction.actions

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class AbstractState(State):
    """A history of the full game seen through an abstraction."""

    __slots__ = ("base", "abstraction")

    def __init__(self, base: State, abstraction: Abstraction) -> None:
        self.base = base
        self.abstraction = abstraction

    def current_player(self) -> int:
        return self.base.current_player()

    def legal_actions(self) -> list[int]:
        player = self.base.current_player()
        if player in (CHANCE, TERMINAL):
            return self.base.legal_actions()
        return self.abstraction.actions(self.base)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.base.chance_outcomes()

    def apply_action(self, action: int) -> None:
        self.base.apply_action(action)

    def returns(self) -> list[float]:
        return self.base.returns()

    def information_state_string(self, player: int | None = None) -> str:
        p = self.base.current_player() if player is None else player
        return self.abstraction.key(self.base, p)

    def action_to_string(self, player: int, action: int) -> str:
        return self.base.action_to_string(player, action)

    def clone(self) -> AbstractState:
        return AbstractState(self.base.clone(), self.abstraction)


class AbstractGame(Game):
    """The game ``base`` under ``abstraction``; its string is ``BASE@SPEC``."""

    def __init__(self, base: Game, abstraction: Abstraction) -> None:
        abstraction.check(base)
        super().__init__(**base.params)
        self.base = base
        self.abstraction = abstraction
        self.short_name = base.short_name
        self.big_blind = base.big_blind

    def new_initial_state(self) -> AbstractState:
        return AbstractState(self.base.new_initial_state(), self.abstraction)

    def num_distinct_actions(self) -> int:
        return self.base.num_distinct_actions()

    def defaults(self) -> dict:
        return self.base.defaults()

    def __str__(self) -> str:
        return f"{self.base}@{self.abstraction.name}"

    def __repr__(self) -> str:
        return f"AbstractGame({str(self.base)!r}, {self.abstraction!r})"
