"""Liar's dice / Bluff (Gibson et al. 2012, sec. 5; Lanctot et al. 2012).

Each player rolls ``dice`` dice with ``faces`` faces in secret.  Player 0 opens with a bid
``(quantity, face)``: "at least ``quantity`` dice show ``face``".  Each later bid must be
higher, ordered by quantity then face; instead of bidding, a player may call "bluff", which
ends the game: the highest face is wild (it counts for every face), and if the dice show at
least the bid the bidder wins (+1), else the caller wins.

Action ids follow OpenSpiel's ``liars_dice``: bid ``(q, f)`` is ``(q - 1) * faces + (f - 1)``
and "bluff" is ``2 * dice * faces``.  Bluff(1,1) has 24,576 information sets and 294,883
histories.
"""

from __future__ import annotations

from ..errors import RcfrError
from .protocol import CHANCE, TERMINAL, Game, State


class LiarsDiceState(State):
    __slots__ = ("game", "rolls", "bids", "called")

    def __init__(self, game: LiarsDice) -> None:
        self.game = game
        self.rolls: tuple[int, ...] = ()  # player 0's dice, then player 1's (faces 0-based)
        self.bids: tuple[int, ...] = ()
        self.called = False

    def current_player(self) -> int:
        if len(self.rolls) < 2 * self.game.dice:
            return CHANCE
        return TERMINAL if self.called else len(self.bids) % 2

    def chance_outcomes(self) -> list[tuple[int, float]]:
        faces = self.game.faces
        return [(f, 1.0 / faces) for f in range(faces)]

    def player_actions(self, player: int) -> list[int]:
        bluff = self.game.bluff_action
        first = self.bids[-1] + 1 if self.bids else 0
        actions = list(range(first, bluff))
        if self.bids:
            actions.append(bluff)
        return actions

    def apply_action(self, action: int) -> None:
        if len(self.rolls) < 2 * self.game.dice:
            self.rolls = self.rolls + (action,)
        elif action == self.game.bluff_action:
            self.called = True
        else:
            self.bids = self.bids + (action,)

    def returns(self) -> list[float]:
        faces = self.game.faces
        quantity, face = divmod(self.bids[-1], faces)
        wild = faces - 1
        count = sum(1 for d in self.rolls if d == face or d == wild)
        bidder = (len(self.bids) - 1) % 2
        winner = bidder if count >= quantity + 1 else 1 - bidder
        return [1.0, -1.0] if winner == 0 else [-1.0, 1.0]

    def _own_dice(self, player: int) -> str:
        d = self.game.dice
        own = sorted(self.rolls[player * d : (player + 1) * d])
        return "".join(str(f + 1) for f in own) if len(own) == d else "?"

    def information_state_string(self, player: int | None = None) -> str:
        p = self.current_player() if player is None else player
        return f"{self._own_dice(p)}|{' '.join(self._bid_name(b) for b in self.bids)}"

    def _bid_name(self, action: int) -> str:
        q, f = divmod(action, self.game.faces)
        return f"{q + 1}-{f + 1}"

    def action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE:
            return f"roll {action + 1}"
        return "bluff" if action == self.game.bluff_action else self._bid_name(action)

    def clone(self) -> LiarsDiceState:
        s = LiarsDiceState.__new__(LiarsDiceState)
        s.game, s.rolls, s.bids, s.called = self.game, self.rolls, self.bids, self.called
        return s


class LiarsDice(Game):
    """Liar's dice with ``dice`` dice per player (Bluff(d, d) in Gibson et al. 2012)."""

    short_name = "liars_dice"

    def __init__(self, dice: int = 1, faces: int = 6) -> None:
        for name, value in (("dice", dice), ("faces", faces)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise RcfrError(f"liars_dice's {name} must be a whole number, got {value!r}")
        if dice < 1:
            raise RcfrError(f"liars_dice needs at least 1 die per player, got {dice}")
        if faces < 2:
            raise RcfrError(f"liars_dice's dice need at least 2 faces, got {faces}")
        super().__init__(dice=dice, faces=faces)
        self.dice, self.faces = dice, faces
        self.bluff_action = 2 * dice * faces

    def defaults(self) -> dict:
        return {"dice": 1, "faces": 6}

    def new_initial_state(self) -> LiarsDiceState:
        return LiarsDiceState(self)

    def num_distinct_actions(self) -> int:
        return self.bluff_action + 1
