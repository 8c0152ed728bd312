"""Kuhn poker: three cards J, Q, K, one card each, 1-chip ante, one bet of 1 (Kuhn 1950)."""

from __future__ import annotations

import numpy as np

from ..core.budget import SizeEstimate
from .protocol import CHANCE, TERMINAL, Game, State
from .public import FOLD_RULE, SHOWDOWN_RULE, PublicStructure, StandInState

_CARDS = "JQK"
PASS, BET = 0, 1


class KuhnState(State):
    __slots__ = ("cards", "history")

    def __init__(self, cards: tuple[int, ...] = (), history: str = "") -> None:
        self.cards = cards
        self.history = history

    def current_player(self) -> int:
        if len(self.cards) < 2:
            return CHANCE
        if self._is_over():
            return TERMINAL
        return len(self.history) % 2

    def _is_over(self) -> bool:
        h = self.history
        return h in ("pp", "bp", "bb", "pbp", "pbb")

    def legal_actions(self) -> list[int]:
        if self.is_chance_node():
            return [c for c in range(3) if c not in self.cards]
        return [] if self.is_terminal() else [PASS, BET]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = [c for c in range(3) if c not in self.cards]
        return [(c, 1.0 / len(left)) for c in left]

    def apply_action(self, action: int) -> None:
        if self.is_chance_node():
            self.cards = self.cards + (action,)
        else:
            self.history += "pb"[action]

    def returns(self) -> list[float]:
        h = self.history
        if h in ("bp", "pbp"):  # the last player folded
            winner = 0 if h == "bp" else 1
            stake = 1.0
        else:
            winner = 0 if self.cards[0] > self.cards[1] else 1
            stake = 2.0 if "b" in h else 1.0
        return [stake, -stake] if winner == 0 else [-stake, stake]

    def information_state_string(self, player: int | None = None) -> str:
        p = self.current_player() if player is None else player
        return f"{_CARDS[self.cards[p]] if len(self.cards) > p else '?'}{self.history}"

    def action_to_string(self, player: int, action: int) -> str:
        return _CARDS[action] if player == CHANCE else ("pass", "bet")[action]

    def clone(self) -> KuhnState:
        return KuhnState(self.cards, self.history)


class KuhnPoker(Game):
    """Kuhn poker; value to the first player is -1/18."""

    short_name = "kuhn"
    big_blind = 1.0

    def new_initial_state(self) -> KuhnState:
        return KuhnState()

    def num_distinct_actions(self) -> int:
        return 2

    def public_structure(self) -> PublicStructure:
        """The public form (:mod:`rcfr.forms.public.tree`): one card each from J, Q, K."""
        root = KuhnPublicState(KuhnState((0, 1)))  # stand-in cards: betting ignores them
        return PublicStructure(root=root, labels=(list(_CARDS), list(_CARDS)),
                               pairing="exclusive", weights=(np.full(3, 1 / 6), np.ones(3)),
                               deal_histories=np.ones((3, 3), dtype=np.int64),
                               prefix_histories=4)

    def size_estimate(self) -> SizeEstimate | None:
        """Histories and sequences in closed form (:mod:`rcfr.core.budget`'s memory guard)."""
        return None if self.params else SizeEstimate(58.0, 24.0)



class KuhnPublicState(StandInState):
    """A betting history of Kuhn poker (the public form's node)."""

    def terminal(self) -> tuple[int, float, int, int]:
        history = self._state.history
        if history in ("bp", "pbp"):
            return FOLD_RULE, self._state.returns()[0], 0, 0
        return SHOWDOWN_RULE, 2.0 if "b" in history else 1.0, 0, 0

    def ranks(self, player: int) -> np.ndarray:
        return np.arange(3)
