"""Liar's dice / Bluff (Gibson et al. 2012, sec. 5; Lanctot et al. 2012).

Each player rolls ``dice`` dice with ``faces`` faces in secret (player 1 rolls ``dice2``
dice when given: ``liars_dice(dice=2,dice2=1)`` is Bluff(2,1)).  Player 0 opens with a bid
``(quantity, face)``: "at least ``quantity`` dice show ``face``".  Each later bid must be
higher, ordered by quantity then face; instead of bidding, a player may call "bluff", which
ends the game: the highest face is wild (it counts for every face), and if the dice show at
least the bid the bidder wins (+1), else the caller wins.

Action ids follow OpenSpiel's ``liars_dice``: bid ``(q, f)`` is ``(q - 1) * faces + (f - 1)``
and "bluff" is ``(dice + dice2) * faces``.  Bluff(1,1) has 24,576 information sets and 294,883
histories.
"""

from __future__ import annotations

import math
from itertools import combinations_with_replacement
from math import factorial

import numpy as np

from ..core.budget import HUGE_EXPONENT, SizeEstimate
from ..core.errors import RcfrError
from .protocol import CHANCE, TERMINAL, Game, State
from .public import COUNT_RULE, PublicState, PublicStructure

HUGE_BIDS = 1000  # beyond 2**HUGE_BIDS bid sequences, sizes are reported as infinite


class LiarsDiceState(State):
    __slots__ = ("game", "rolls", "bids", "called")

    def __init__(self, game: LiarsDice) -> None:
        self.game = game
        self.rolls: tuple[int, ...] = ()  # player 0's dice, then player 1's (faces 0-based)
        self.bids: tuple[int, ...] = ()
        self.called = False

    def current_player(self) -> int:
        if len(self.rolls) < self.game.total_dice:
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
        if len(self.rolls) < self.game.total_dice:
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
        lo, hi = (0, d) if player == 0 else (d, self.game.total_dice)
        own = sorted(self.rolls[lo:hi])
        return "".join(str(f + 1) for f in own) if len(own) == hi - lo else "?"

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
    """Liar's dice with ``dice`` dice for player 0 and ``dice2`` (default: ``dice``) for player
    1: Bluff(dice, dice2) in Gibson et al. 2012."""

    short_name = "liars_dice"

    def __init__(self, dice: int = 1, faces: int = 6, dice2: int | None = None) -> None:
        for name, value in (("dice", dice), ("faces", faces)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise RcfrError(f"liars_dice's {name} must be a whole number, got {value!r}")
        if dice < 1:
            raise RcfrError(f"liars_dice needs at least 1 die per player, got {dice}")
        if faces < 2:
            raise RcfrError(f"liars_dice's dice need at least 2 faces, got {faces}")
        if dice2 is not None and (isinstance(dice2, bool) or not isinstance(dice2, int)
                                  or dice2 < 1):
            raise RcfrError(f"liars_dice's dice2 must be a whole number >= 1, got {dice2!r}")
        dice2 = None if dice2 == dice else dice2  # one spelling per game
        super().__init__(dice=dice, faces=faces, dice2=dice2)
        self.dice, self.faces = dice, faces
        self.dice2 = dice if dice2 is None else dice2
        self.total_dice = self.dice + self.dice2
        self.bluff_action = self.total_dice * faces

    def defaults(self) -> dict:
        return {"dice": 1, "faces": 6, "dice2": None}

    def new_initial_state(self) -> LiarsDiceState:
        return LiarsDiceState(self)

    def num_distinct_actions(self) -> int:
        return self.bluff_action + 1

    def num_histories(self) -> int | float:
        """Histories of the history form: the rolls, then every bid sequence (with or without
        a call) under each ordered roll (``inf`` beyond ``2**HUGE_BIDS``)."""
        if self.bluff_action > HUGE_BIDS:  # the exact count would take forever to compute
            return math.inf
        rolls = sum(self.faces**k for k in range(self.total_dice))
        return rolls + self.faces**self.total_dice * (2 ** (self.bluff_action + 1) - 1)

    def num_public_nodes(self) -> int | float:
        """Public nodes: every bid sequence, with or without a call (the root has none)."""
        if self.bluff_action > HUGE_BIDS:
            return math.inf
        return 2 ** (self.bluff_action + 1) - 1

    def closed_form_sizes(self, support: bool = True) -> dict:
        """Both forms' sizes without building either (every roll is possible, so ``support``
        changes nothing).  The bids form a tree of ``2^B`` increasing bid sequences (``B =
        (dice + dice2) faces``), each a decision node and, when not empty, also followed by a
        call: ``2^B - 1`` terminals.  Player 0 acts after an even number of bids, so each player
        has ``2^(B-1)`` public decision nodes times its unordered rolls as information sets
        (Bluff(2,1): 27 x 131,072, Gibson et al. 2012, sec. 5).  After ``k`` bids ending
        with bid ``b`` (``C(b, k-1)`` such nodes) there are ``B - b`` actions: the higher bids
        and the call.  The history form deals ordered rolls one die at a time."""
        if self.bluff_action > HUGE_BIDS:
            raise RcfrError(f"{self} has more than 2^{HUGE_BIDS} bid sequences")
        B, faces = self.bluff_action, self.faces
        own = [math.comb(faces + d - 1, d) for d in (self.dice, self.dice2)]
        sequences = [own[0] * B, 0]  # the opening bids
        for b in range(B):  # nodes whose last bid is b, by who acts there: k bids -> k % 2
            for p in (0, 1):
                nodes = sum(math.comb(b, k - 1) for k in range(1 + (p == 0), b + 2, 2))
                sequences[p] += own[p] * nodes * (B - b)
        rolls = faces**self.total_dice
        chance = sum(faces**k for k in range(self.total_dice))
        infosets = [own[p] * 2 ** (B - 1) for p in (0, 1)]
        return {"histories": chance + rolls * (2 ** (B + 1) - 1), "terminals": rolls * (2**B - 1),
                "chance_nodes": chance, "decision_nodes": rolls * 2**B,
                "infosets": sum(infosets), "sequences": sum(sequences),
                "infosets_per_player": infosets, "sequences_per_player": sequences,
                "public_nodes": 2 ** (B + 1) - 1}

    def public_structure(self) -> PublicStructure:
        """The public form (:mod:`rcfr.forms.public.tree`): each player's unordered roll is a
        private
        state, rolled independently; a call is settled by counting dice (``COUNT_RULE``)."""
        labels, weights, orders, counts = [], [], [], []
        wild = self.faces - 1
        for d in (self.dice, self.dice2):
            rolls = list(combinations_with_replacement(range(self.faces), d))
            labels.append(["".join(str(f + 1) for f in r) for r in rolls])
            order = np.array([factorial(d) / np.prod([factorial(r.count(f)) for f in set(r)])
                              for r in rolls])
            orders.append(order)
            weights.append(order / self.faces**d)
            counts.append(np.array([[sum(1 for x in r if x in (f, wild))
                                     for f in range(self.faces)] for r in rolls]))
        return PublicStructure(
            root=LiarsDicePublicState(self), labels=(labels[0], labels[1]),
            pairing="independent", weights=(weights[0], weights[1]),
            deal_histories=np.outer(orders[0], orders[1]).astype(np.int64),
            prefix_histories=sum(self.faces**k for k in range(self.total_dice)),
            counts=(counts[0], counts[1]), deal_depth=self.total_dice)

    def size_estimate(self) -> SizeEstimate | None:
        """Histories and sequences from the bidding tree's closed form (:mod:`rcfr.core.budget`'s
        memory guard)."""
        if not set(self.params) <= {"dice", "faces", "dice2"}:
            return None
        if self.bluff_action > HUGE_EXPONENT:  # beyond any memory: skip the exact count
            return SizeEstimate(2.0**HUGE_EXPONENT, None, at_least=True)
        sizes = self.closed_form_sizes()
        return SizeEstimate(float(sizes["histories"]), float(sizes["sequences"]))



class LiarsDicePublicState(PublicState):
    """The bids so far and whether bluff was called (the public form's node)."""

    __slots__ = ("game", "bids", "called")

    def __init__(self, game: LiarsDice, bids: tuple[int, ...] = (), called: bool = False):
        self.game, self.bids, self.called = game, bids, called

    def current_player(self) -> int:
        return TERMINAL if self.called else len(self.bids) % 2

    def legal_actions(self) -> list[int]:
        bluff = self.game.bluff_action
        actions = list(range(self.bids[-1] + 1 if self.bids else 0, bluff))
        if self.bids:
            actions.append(bluff)
        return actions

    def child(self, action: int) -> LiarsDicePublicState:
        if action == self.game.bluff_action:
            return LiarsDicePublicState(self.game, self.bids, True)
        return LiarsDicePublicState(self.game, self.bids + (action,))

    def terminal(self) -> tuple[int, float, int, int]:
        quantity, face = divmod(self.bids[-1], self.game.faces)
        bidder = (len(self.bids) - 1) % 2
        return COUNT_RULE, 1.0 if bidder == 0 else -1.0, quantity + 1, face

    def information_state_string(self, player: int, private: int) -> str:
        g = self.game
        rolls = list(combinations_with_replacement(range(g.faces), (g.dice, g.dice2)[player]))
        state = LiarsDiceState(g)
        own = rolls[private]
        state.rolls = (tuple(own) + (0,) * g.dice2 if player == 0
                       else (0,) * g.dice + tuple(own))
        state.bids = self.bids
        return state.information_state_string(player)

    def action_to_string(self, player: int, action: int) -> str:
        return LiarsDiceState(self.game).action_to_string(player, action)
