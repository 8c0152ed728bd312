"""Leduc hold'em with the thesis's rules (Morrill 2016, sec. 2.6; Southey et al. 2005).

Six cards J,J,Q,Q,K,K; a 1-chip ante each; two betting rounds with wagers of 2 then 4 and at
most one bet and one raise per round; the first player acts first in both rounds; one public
card is dealt between the rounds.  A pair with the board wins, else the higher card; ties split.

``canonical=True`` deals ranks instead of cards (suits are strategically irrelevant), which
gives 288 information sets and 672 sequences instead of 936 and 2184.
"""

from __future__ import annotations

import numpy as np

from ..core.budget import SizeEstimate
from ..core.errors import RcfrError
from .protocol import CHANCE, TERMINAL, Game, State
from .public import FOLD_RULE, SHOWDOWN_RULE, PublicStructure, StandInState

FOLD, CALL, RAISE = 0, 1, 2
_RANKS = "JQK"
_SUITS = "sh"
_RAISE_SIZE = (2, 4)


class LeducState(State):
    __slots__ = ("canonical", "cards", "hist", "spent")

    def __init__(self, canonical: bool) -> None:
        self.canonical = canonical
        self.cards: tuple[int, ...] = ()  # private card of player 0, of player 1, board
        self.hist: list[str] = [""]  # actions per round: f(old), c(all), r(aise)
        self.spent = [1, 1]

    # -- helpers -----------------------------------------------------------------------
    def _rank(self, card: int) -> int:
        return card if self.canonical else card // 2

    def _card_name(self, card: int) -> str:
        if self.canonical:
            return _RANKS[card]
        return _RANKS[card // 2] + _SUITS[card % 2]

    def _round_over(self) -> bool:
        h = self.hist[-1]
        return len(h) >= 2 and h[-1] == "c"

    def _dealing(self) -> bool:
        if len(self.cards) < 2:
            return True
        return len(self.cards) == 2 and self._round_over()

    # -- protocol ----------------------------------------------------------------------
    def current_player(self) -> int:
        if self.hist[-1].endswith("f"):
            return TERMINAL
        if self._dealing():
            return CHANCE
        if len(self.hist) == 2 and self._round_over():
            return TERMINAL
        return len(self.hist[-1]) % 2

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.canonical:
            left = [2 - sum(1 for c in self.cards if c == r) for r in range(3)]
            total = sum(left)
            return [(r, n / total) for r, n in enumerate(left) if n > 0]
        left = [c for c in range(6) if c not in self.cards]
        return [(c, 1.0 / len(left)) for c in left]

    def player_actions(self, player: int) -> list[int]:
        actions = [FOLD] if self.spent[0] != self.spent[1] else []
        actions.append(CALL)
        if self.hist[-1].count("r") < 2:
            actions.append(RAISE)
        return actions

    def apply_action(self, action: int) -> None:
        if self._dealing():
            self.cards = self.cards + (action,)
            if len(self.cards) == 3:
                self.hist.append("")
            return
        player = len(self.hist[-1]) % 2
        if action == FOLD:
            self.hist[-1] += "f"
        elif action == CALL:
            self.spent[player] = self.spent[1 - player]
            self.hist[-1] += "c"
        else:
            self.spent[player] = self.spent[1 - player] + _RAISE_SIZE[len(self.hist) - 1]
            self.hist[-1] += "r"

    def returns(self) -> list[float]:
        if self.hist[-1].endswith("f"):
            loser = (len(self.hist[-1]) - 1) % 2
        else:
            board = self._rank(self.cards[2])
            r0, r1 = self._rank(self.cards[0]), self._rank(self.cards[1])
            s0 = (r0 == board, r0)
            s1 = (r1 == board, r1)
            if s0 == s1:
                return [0.0, 0.0]
            loser = 1 if s0 > s1 else 0
        won = float(self.spent[loser])
        return [-won, won] if loser == 0 else [won, -won]

    def information_state_string(self, player: int | None = None) -> str:
        p = self.current_player() if player is None else player
        own = self._card_name(self.cards[p]) if len(self.cards) > p else "?"
        board = self._card_name(self.cards[2]) if len(self.cards) > 2 else "-"
        return f"{own}|{board}|{'/'.join(self.hist)}"

    def action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE:
            return self._card_name(action)
        return ("fold", "call", "raise")[action]

    def clone(self) -> LeducState:
        s = LeducState.__new__(LeducState)
        s.canonical = self.canonical
        s.cards = self.cards
        s.hist = list(self.hist)
        s.spent = list(self.spent)
        return s


class LeducPoker(Game):
    """Leduc hold'em; value to the first player -0.085606 in both forms."""

    short_name = "leduc"
    big_blind = 1.0

    def __init__(self, canonical: bool = False) -> None:
        if not isinstance(canonical, bool):
            raise RcfrError(f"leduc's canonical must be true or false, got {canonical!r}")
        super().__init__(canonical=canonical)
        self.canonical = canonical

    def defaults(self) -> dict:
        return {"canonical": False}

    def new_initial_state(self) -> LeducState:
        return LeducState(self.canonical)

    def num_distinct_actions(self) -> int:
        return 3

    def public_structure(self) -> PublicStructure:
        """The public form (:mod:`rcfr.forms.public.tree`): one card each (exclusive), or one rank
        each with card removal as a dense 3 x 3 deal when ``canonical``."""
        stand_in = LeducState(self.canonical)
        stand_in.cards = (0, 1)  # betting ignores the private cards
        root = LeducPublicState(stand_in)
        if not self.canonical:
            return PublicStructure(root=root, labels=(root.labels, root.labels),
                                   pairing="exclusive", weights=(np.full(6, 1 / 30), np.ones(6)),
                                   deal_histories=np.ones((6, 6), dtype=np.int64),
                                   prefix_histories=7)
        deal = (2.0 - np.eye(3)) / 15.0  # P(r0) = 1/3, then 2 (or 1) of the 5 cards left
        return PublicStructure(root=root, labels=(root.labels, root.labels), pairing="dense",
                               deal=deal, deal_histories=np.ones((3, 3), dtype=np.int64),
                               prefix_histories=4)

    def size_estimate(self) -> SizeEstimate | None:
        """Histories and sequences in closed form (:mod:`rcfr.core.budget`'s memory guard)."""
        if set(self.params) != {"canonical"}:
            return None
        canonical = self.params["canonical"]
        return SizeEstimate(1939.0 if canonical else 9457.0, 672.0 if canonical else 2184.0)



class LeducPublicState(StandInState):
    """The betting so far and the board card (the public form's node)."""

    def __init__(self, state: LeducState) -> None:
        super().__init__(state)
        self.labels = [state._card_name(c) for c in range(3 if state.canonical else 6)]

    def legal_actions(self) -> list[int]:
        if self._state.current_player() == CHANCE:  # any board card: the deal reweighs
            return list(range(len(self.labels)))
        return self._state.legal_actions()

    def chance_factor(self, outcome: int):
        if not self._state.canonical:  # the board is neither private card; 4 cards left
            other = (np.arange(6) != outcome).astype(np.float64)
            return other / 4.0, other
        same = (np.arange(3) == outcome).astype(np.float64)
        return (2.0 - same[:, None] - same[None, :]) / 4.0

    def terminal(self) -> tuple[int, float, int, int]:
        s = self._state
        if s.hist[-1].endswith("f"):
            return FOLD_RULE, s.returns()[0], 0, 0
        return SHOWDOWN_RULE, float(s.spent[0]), 0, 0

    def ranks(self, player: int) -> np.ndarray:
        s = self._state
        r = np.array([s._rank(c) for c in range(len(self.labels))])
        return r + 3 * (r == s._rank(s.cards[2]))  # a pair with the board beats any card
