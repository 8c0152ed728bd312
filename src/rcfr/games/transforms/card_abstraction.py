"""State-space (card) abstractions: information sets merged through a bucket map.

A card abstraction is a many-to-one map from a player's information state to an abstract one
(Morrill 2016, sec. 2.3, "State-space Abstraction"); information sets with the same abstract
key must have the same legal actions and the same abstract history, which compiling the abstract
game checks.  :class:`CardAbstraction` takes the map as a function ``(state, player) -> key`` or
as a table ``{information state: key}``; :class:`LeducCardAbstraction` is the family of Waugh
et al. 2009 ("Abstraction pathologies in extensive games") used by the thesis (sec. 4.3):
``JQK``, ``J.QK``, ``JQ.K``, ``J.Q.K``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ...core.errors import RcfrError
from ..leduc import LeducPoker
from ..protocol import Game, State
from .abstract_game import Abstraction

LEDUC_ABSTRACTIONS = ("JQK", "J.QK", "JQ.K", "J.Q.K")


class CardAbstraction(Abstraction):
    """Merge information sets by a bucket map: ``buckets(state, player)`` returns the abstract
    information state (a string), or ``buckets`` is a table from full information-state
    strings to abstract ones (states it does not list stay apart)."""

    def __init__(self, buckets: Callable[[State, int], str] | Mapping[str, str],
                 name: str = "buckets") -> None:
        if not callable(buckets) and not isinstance(buckets, Mapping):
            raise RcfrError("a card abstraction needs a function (state, player) -> bucket or "
                            "a table {information state: bucket}")
        self.buckets = buckets
        self.name = name

    def key(self, state: State, player: int) -> str:
        if callable(self.buckets):
            return str(self.buckets(state, player))
        full = state.information_state_string(player)
        return str(self.buckets.get(full, full))


class LeducCardAbstraction(CardAbstraction):
    """Waugh et al. 2009's Leduc abstractions: the ranks in one group (``J.QK``: J apart, Q and
    K together) are told apart before the flop; on the flop the player knows only the preflop
    group and whether the board card pairs the private card."""

    def __init__(self, spec: str) -> None:
        groups = [g for g in spec.upper().split(".")]
        ranks = "".join(groups)
        if any(not g for g in groups) or sorted(ranks) != sorted("JQK"):
            raise RcfrError(f"a Leduc card abstraction groups the ranks J, Q, K, each once, "
                            f"e.g. J.QK; got {spec!r}")
        self.group_of = {r: i for i, g in enumerate(groups) for r in g}
        super().__init__(self._bucket, ".".join(groups))

    def check(self, game: Game) -> None:
        if not isinstance(game, LeducPoker):
            raise RcfrError(f"the card abstraction {self.name} is for leduc, not {game}")

    def _bucket(self, state: State, player: int) -> str:
        own, board, history = state.information_state_string(player).split("|")
        if own == "?":
            return f"?|{board}|{history}"
        group = self.group_of[own[0]]
        if board == "-":
            return f"{group}|-|{history}"
        return f"{group}|{'pair' if board[0] == own[0] else 'nopair'}|{history}"
