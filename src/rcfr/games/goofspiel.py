"""Goofspiel (D'Orazio et al. 2019; Lanctot 2013): each round a point card is shown, both
players bid one of their cards at once, the higher bid wins the point card, ties discard it.
After ``num_cards`` rounds the player with more points gets +1 (the other -1; 0 on a draw).

The simultaneous bids are played as sequential moves, player 0 then player 1, and player 1's
information set does not show player 0's bid (OpenSpiel's turn-based conversion).  With
``imp_info=True`` (the default) bids stay hidden afterwards too: only who won each round is
revealed.  With ``imp_info=False`` all past bids are shown, in order (OpenSpiel shows only the
remaining hands there, which forgets the order of a player's own bids).

Actions are card indices ``0 .. num_cards-1`` (card values 1..n), as in OpenSpiel.
``points_order`` is ``descending`` (default), ``ascending`` or ``random`` (a chance node draws
each point card).  The last round, with one card left in each hand, plays itself (as in
OpenSpiel).  With 5 cards, hidden bids and descending points: 2124 information sets.
"""

from __future__ import annotations

from ..core.budget import HUGE_EXPONENT, SizeEstimate
from ..core.errors import RcfrError
from .protocol import CHANCE, TERMINAL, Game, State

ORDERS = ("descending", "ascending", "random")


class GoofspielState(State):
    __slots__ = ("game", "points", "bids", "pending")

    def __init__(self, game: Goofspiel) -> None:
        self.game = game
        n = game.num_cards
        if game.points_order == "descending":
            self.points: tuple[int, ...] = tuple(range(n - 1, -1, -1))
        elif game.points_order == "ascending":
            self.points = tuple(range(n))
        else:
            self.points = ()  # drawn by chance, one per round
        self.bids: tuple[tuple[int, int], ...] = ()  # completed rounds
        self.pending: int | None = None  # player 0's bid in the current round

    def _round(self) -> int:
        return len(self.bids)

    def current_player(self) -> int:
        r = self._round()
        if r == self.game.num_cards:
            return TERMINAL
        if self.game.points_order == "random" and len(self.points) == r:
            return CHANCE
        return 0 if self.pending is None else 1

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = [c for c in range(self.game.num_cards) if c not in self.points]
        return [(c, 1.0 / len(left)) for c in left]

    def _hand(self, player: int) -> list[int]:
        used = {b[player] for b in self.bids}
        return [c for c in range(self.game.num_cards) if c not in used]

    def player_actions(self, player: int) -> list[int]:
        return self._hand(player)

    def apply_action(self, action: int) -> None:
        player = self.current_player()
        if player == CHANCE:
            self.points = self.points + (action,)
        elif player == 0:
            self.pending = action
        else:
            self.bids = self.bids + ((self.pending, action),)
            self.pending = None
            self._play_last_round()

    def _play_last_round(self) -> None:
        """With one card left in each hand the last round is forced; play it (as OpenSpiel)."""
        n = self.game.num_cards
        if len(self.bids) != n - 1:
            return
        if len(self.points) < n:
            self.points = self.points + tuple(c for c in range(n) if c not in self.points)
        self.bids = self.bids + ((self._hand(0)[0], self._hand(1)[0]),)

    def _scores(self) -> tuple[int, int]:
        s = [0, 0]
        for (b0, b1), point in zip(self.bids, self.points, strict=False):
            if b0 != b1:
                s[0 if b0 > b1 else 1] += point + 1
        return s[0], s[1]

    def returns(self) -> list[float]:
        s0, s1 = self._scores()
        if s0 == s1:
            return [0.0, 0.0]
        return [1.0, -1.0] if s0 > s1 else [-1.0, 1.0]

    def information_state_string(self, player: int | None = None) -> str:
        p = self.current_player() if player is None else player
        shown = self.points[: self._round() + 1]
        parts = [f"p{p}", "points " + " ".join(str(c + 1) for c in shown)]
        if self.game.imp_info:
            own = " ".join(str(b[p] + 1) for b in self.bids)
            won = "".join("=" if b0 == b1 else ("w" if (b0 > b1) == (p == 0) else "l")
                          for b0, b1 in self.bids)
            parts += [f"bids {own}", f"won {won}"]
        else:
            parts.append("bids " + " ".join(f"{b0 + 1}:{b1 + 1}" for b0, b1 in self.bids))
        return "|".join(parts)

    def action_to_string(self, player: int, action: int) -> str:
        return f"point {action + 1}" if player == CHANCE else f"bid {action + 1}"

    def clone(self) -> GoofspielState:
        s = GoofspielState.__new__(GoofspielState)
        s.game, s.points, s.bids, s.pending = self.game, self.points, self.bids, self.pending
        return s


class Goofspiel(Game):
    """Goofspiel with simultaneous bids modelled as sequential moves; symmetric, value 0."""

    short_name = "goofspiel"

    def __init__(self, num_cards: int = 5, points_order: str = "descending",
                 imp_info: bool = True) -> None:
        if isinstance(num_cards, bool) or not isinstance(num_cards, int) or num_cards < 2:
            raise RcfrError(f"goofspiel's num_cards must be a whole number >= 2, got {num_cards!r}")
        if points_order not in ORDERS:
            raise RcfrError(f"goofspiel's points_order must be one of {', '.join(ORDERS)}, "
                            f"got {points_order!r}")
        if not isinstance(imp_info, bool):
            raise RcfrError(f"goofspiel's imp_info must be true or false, got {imp_info!r}")
        super().__init__(num_cards=num_cards, points_order=points_order, imp_info=imp_info)
        self.num_cards, self.points_order, self.imp_info = num_cards, points_order, imp_info

    def defaults(self) -> dict:
        return {"num_cards": 5, "points_order": "descending", "imp_info": True}

    def new_initial_state(self) -> GoofspielState:
        return GoofspielState(self)

    def num_distinct_actions(self) -> int:
        return self.num_cards

    def size_estimate(self) -> SizeEstimate | None:
        """Histories in closed form (:mod:`rcfr.core.budget`'s memory guard).  Per round with
        ``k`` cards in each hand: (a chance node drawing the point card when the order is
        random, then) player 0's node, ``k`` nodes of player 1 and ``k^2`` rounds with
        ``k - 1`` cards; with one card left the round plays itself (a terminal)."""
        p = self.params
        if set(p) != {"num_cards", "points_order", "imp_info"}:
            return None
        num_cards = p["num_cards"]
        chance = p["points_order"] == "random"
        nodes = 1.0  # a finished game
        for k in range(2, num_cards + 1):
            nodes = 1.0 + k + k * k * nodes
            if chance:
                nodes = 1.0 + k * nodes
            if nodes > 2.0**HUGE_EXPONENT:  # beyond any memory: stop counting
                return SizeEstimate(nodes, None, at_least=True)
        return SizeEstimate(nodes)

