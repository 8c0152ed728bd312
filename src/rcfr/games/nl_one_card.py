"""No-limit one-card poker (Morrill 2016, ch. 2): one private card each from a one-suit deck,
an ante from both players, one betting round with ACPC no-limit wagering, no public card.

A wager is a "raise to" amount; the smallest raise is the larger of 1 chip and the previous
raise; going all-in is always allowed; folding is allowed only when facing a wager.  The round
ends when a player calls a wager or both players check.  The higher card wins the pot.

Actions: ``0`` fold, ``1`` check/call, ``k >= 2`` raise to ``k`` chips in all.  With the
defaults (4 cards, 10-chip stacks, 1-chip ante) the game has 1072 information sets and 3200
sequences, as in the thesis.
"""

from __future__ import annotations

import numpy as np

from ..core.budget import HUGE_EXPONENT, NL_EXACT_STACK, SizeEstimate
from ..core.errors import RcfrError
from .protocol import CHANCE, TERMINAL, Game, State
from .public import FOLD_RULE, SHOWDOWN_RULE, PublicStructure, StandInState

FOLD, CALL = 0, 1


class NLOneCardState(State):
    __slots__ = ("game", "cards", "actions", "spent", "last_raise", "folded")

    def __init__(self, game: NLOneCardPoker) -> None:
        self.game = game
        self.cards: tuple[int, ...] = ()
        self.actions: tuple[int, ...] = ()
        self.spent = (game.ante, game.ante)
        self.last_raise = 0
        self.folded = False

    def _to_act(self) -> int:
        return len(self.actions) % 2

    def _round_over(self) -> bool:
        if self.folded:
            return True
        a = self.actions
        return len(a) >= 2 and a[-1] == CALL

    def current_player(self) -> int:
        if len(self.cards) < 2:
            return CHANCE
        return TERMINAL if self._round_over() else self._to_act()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = [c for c in range(self.game.cards) if c not in self.cards]
        return [(c, 1.0 / len(left)) for c in left]

    def player_actions(self, player: int) -> list[int]:
        mine, other = self.spent[player], self.spent[1 - player]
        actions = [FOLD, CALL] if other > mine else [CALL]
        stack = self.game.stack
        if other < stack:
            lowest = min(other + max(1, self.last_raise), stack)
            actions.extend(range(lowest, stack + 1))
        return actions

    def apply_action(self, action: int) -> None:
        if len(self.cards) < 2:
            self.cards = self.cards + (action,)
            return
        player = self._to_act()
        spent = list(self.spent)
        if action == FOLD:
            self.folded = True
        elif action == CALL:
            spent[player] = spent[1 - player]
        else:
            self.last_raise = action - spent[1 - player]
            spent[player] = action
        self.spent = (spent[0], spent[1])
        self.actions = self.actions + (action,)

    def returns(self) -> list[float]:
        if self.folded:
            loser = (len(self.actions) - 1) % 2
        else:
            loser = 1 if self.cards[0] > self.cards[1] else 0
        won = float(self.spent[loser])
        return [-won, won] if loser == 0 else [won, -won]

    def information_state_string(self, player: int | None = None) -> str:
        p = self.current_player() if player is None else player
        own = str(self.cards[p]) if len(self.cards) > p else "?"
        return f"{own}|{''.join(_token(a) for a in self.actions)}"

    def action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE:
            return f"card {action}"
        if action == FOLD:
            return "fold"
        return "call" if action == CALL else f"raise to {action}"

    def clone(self) -> NLOneCardState:
        s = NLOneCardState.__new__(NLOneCardState)
        s.game, s.cards, s.actions = self.game, self.cards, self.actions
        s.spent, s.last_raise, s.folded = self.spent, self.last_raise, self.folded
        return s


def _token(action: int) -> str:
    return "f" if action == FOLD else "c" if action == CALL else f"r{action}"


class NLOneCardPoker(Game):
    """No-limit one-card poker; the thesis's game (the defaults) is worth about -0.0833 to the
    first player."""

    short_name = "nl_one_card"
    big_blind = 1.0

    def __init__(self, cards: int = 4, stack: int = 10, ante: int = 1) -> None:
        for name, value in (("cards", cards), ("stack", stack), ("ante", ante)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise RcfrError(f"nl_one_card's {name} must be a whole number, got {value!r}")
        if cards < 2:
            raise RcfrError(f"nl_one_card needs a deck of at least 2 cards, got {cards}")
        if ante < 1:
            raise RcfrError(f"nl_one_card's ante must be at least 1 chip, got {ante}")
        if stack < ante:
            raise RcfrError(f"nl_one_card's stack ({stack}) is below the ante ({ante})")
        super().__init__(cards=cards, stack=stack, ante=ante)
        self.cards, self.stack, self.ante = cards, stack, ante
        self.big_blind = float(ante)

    def defaults(self) -> dict:
        return {"cards": 4, "stack": 10, "ante": 1}

    def new_initial_state(self) -> NLOneCardState:
        return NLOneCardState(self)

    def num_distinct_actions(self) -> int:
        return self.stack + 1

    def public_structure(self) -> PublicStructure:
        """The public form (:mod:`rcfr.forms.public.tree`): one card each from one deck."""
        n = self.cards
        stand_in = NLOneCardState(self)
        stand_in.cards = (0, 1)  # betting ignores the private cards
        labels = [str(c) for c in range(n)]
        return PublicStructure(root=NLOneCardPublicState(stand_in), labels=(labels, labels),
                               pairing="exclusive",
                               weights=(np.full(n, 1.0 / (n * (n - 1))), np.ones(n)),
                               deal_histories=np.ones((n, n), dtype=np.int64),
                               prefix_histories=1 + n)

    def size_estimate(self) -> SizeEstimate | None:
        """Histories in closed form (:mod:`rcfr.core.budget`'s memory guard): nodes of the
        betting tree by dynamic programming over ``T(m, o)``: the subtree where the player to act
        has put in ``m`` chips and faces a raise to ``o`` (the last raise is then ``o - m``):
        fold and call end the hand, raises go to ``T(o, k)`` for every ``k`` from
        ``min(2o - m, stack)`` to the stack."""
        p = self.params
        if set(p) != {"cards", "stack", "ante"}:
            return None
        cards, stack, ante = p["cards"], p["stack"], p["ante"]
        at_least = stack > NL_EXACT_STACK
        s = min(stack, NL_EXACT_STACK)
        a = min(ante, s)
        # suffix[o][k] = sum of T(o, k') for k' >= k (rows filled from the largest o down)
        suffix = np.zeros((s + 2, s + 2))
        for m in range(s - 1, a - 1, -1):
            o = np.arange(m + 1, s + 1)
            lo = np.minimum(2 * o - m, s)
            t = 3.0 + np.where(o < s, suffix[o, lo], 0.0)
            row = np.zeros(s + 2)
            row[m + 1 : s + 1] = t
            suffix[m] = np.cumsum(row[::-1])[::-1]
        raises = suffix[a, a + 1] if a < s else 0.0  # the first raise, to any k > ante
        check = 2.0 + raises  # after a check: call (showdown) or raise
        betting = 1.0 + check + raises
        c = float(min(cards, 2**HUGE_EXPONENT))
        return SizeEstimate(float(1.0 + c + c * (c - 1.0) * betting), None, at_least)



class NLOneCardPublicState(StandInState):
    """The betting so far (the public form's node)."""

    def terminal(self) -> tuple[int, float, int, int]:
        s = self._state
        if s.folded:
            return FOLD_RULE, s.returns()[0], 0, 0
        return SHOWDOWN_RULE, float(s.spent[0]), 0, 0

    def ranks(self, player: int) -> np.ndarray:
        return np.arange(self._state.game.cards)
