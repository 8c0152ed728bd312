"""``holdem``: readable poker features of 2-NL Hold'em(k) (Gibson et al. 2012) for one
information set -- the bucket's hand strength, the betting's pot, price and raises -- the
features Bertsimas & Paskov (2021) split on, read off the information-state string alone, so
they are the same on the history and the public form.

Per information set (:data:`HOLDEM_NAMES`): the E[HS²] of the player's bucket in the current
round (the middle of the bucket's range in the card abstraction: E[HS²] before the flop, HS²
on it), the preflop bucket and the flop bucket (1 to B; 0 before the flop), the round (0
preflop, 1 flop), the pot, the chips to call, the pot odds (to call over the pot after
calling), the chips behind (the stack less the larger contribution), the raises this round,
in each round and by each player, and the size of the last raise of the round.  Per sequence
the row is followed by the action: fold, call, raise, and the chips a raise goes to.
"""

from __future__ import annotations

import re

import numpy as np

from ..forms.base import Form
from ..games.holdem.betting_rules import CALL, FOLD
from ..games.nl_holdem2 import Betting, NLHoldem2
from .registry import register_features

HOLDEM_NAMES = ["E[HS²]", "preflop bucket", "flop bucket", "round", "pot", "to call",
                "pot odds", "chips behind", "raises this round", "raises round 1",
                "raises round 2", "raises by player 1", "raises by player 2", "last raise"]
HOLDEM_ACTION_NAMES = ["fold", "call", "raise", "raise to"]
_TOKENS = re.compile(r"r\d+|[cf]")  # a betting line's actions (the rounds close by a call)


def _strength(game: NLHoldem2) -> tuple[np.ndarray, np.ndarray]:
    """The middle of each bucket's E[HS²] range: ``[B]`` preflop and ``[B, B]`` flop (an
    empty bucket: the middle of its equal share of [0, 1])."""
    a = game.abstraction
    B = game.buckets
    pre = np.asarray(a.preflop_bounds, dtype=np.float64).mean(axis=-1)
    flop = np.asarray(a.flop_bounds, dtype=np.float64).mean(axis=-1)
    even = (np.arange(B) + 0.5) / B
    return (np.where(np.isnan(pre), even, pre),
            np.where(np.isnan(flop), even[None, :], flop))


def _betting_row(stack: int, line: str) -> list[float]:
    """The betting columns (pot .. last raise) after the actions ``line`` (the information
    state's betting: ``c``, ``f``, ``rN``, rounds separated by ``/``)."""
    b = Betting(stack)
    raises = np.zeros((2, 2))  # [round, player]
    for token in _TOKENS.findall(line):
        action = CALL if token == "c" else FOLD if token == "f" else int(token[1:])
        if action > CALL:
            raises[b.round, b.player] += 1
        b = b.child(action)
    mine, other = b.spent[b.player], b.spent[1 - b.player]
    pot = float(mine + other)
    to_call = float(other - mine)
    return [pot, to_call, to_call / (pot + to_call), float(stack - max(mine, other)),
            float(raises[min(b.round, 1)].sum()), *raises.sum(axis=1), *raises.sum(axis=0),
            float(b.inc)]


def holdem_infoset_features(tree: Form, player: int) -> np.ndarray:
    """``player``'s information sets, one row each (:data:`HOLDEM_NAMES`), from their
    information-state strings (``p:pre|line`` before the flop, ``p:pre.flop|line`` on it); the
    betting columns are computed once per betting line."""
    game = tree.game
    pre_hs, flop_hs = _strength(game)
    infos = tree.player_infosets(player)
    keys = tree.infoset_keys
    out = np.empty((len(infos), len(HOLDEM_NAMES)))
    lines: dict[str, list[float]] = {}
    for r, i in enumerate(infos):
        key = keys[i]
        own, _, line = key.partition(":")[2].partition("|")
        pre_text, dot, flop_text = own.partition(".")
        pre = int(pre_text)
        flop = int(flop_text) if dot else -1
        betting = lines.get(line)
        if betting is None:
            betting = lines[line] = _betting_row(game.stack, line)
        out[r, :4] = (flop_hs[pre, flop] if dot else pre_hs[pre], pre + 1, flop + 1,
                      float(bool(dot)))
        out[r, 4:] = betting
    return out


def holdem_sequence_features(tree: Form, player: int) -> np.ndarray:
    """Each of ``player``'s sequences: its information set's row, then fold, call, raise and
    the chips raised to (0 unless a raise)."""
    rows = holdem_infoset_features(tree, player)
    infos, seqs = tree.player_infosets(player), tree.player_sequences(player)
    info = np.asarray(tree.seq_infoset[seqs.start:seqs.stop]) - infos.start
    action = np.asarray(tree.seq_action[seqs.start:seqs.stop])
    acts = np.stack([action == FOLD, action == CALL, action > CALL,
                     np.where(action > CALL, action, 0)], axis=1).astype(np.float64)
    return np.hstack([rows[info], acts])


register_features("holdem",
                  lambda tree, player, k, seed: holdem_sequence_features(tree, player),
                  infosets=lambda tree, player, k, seed: holdem_infoset_features(tree, player),
                  games=(NLHoldem2,), games_text="nl_holdem2")
