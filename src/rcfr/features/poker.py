"""The thesis's poker features (Morrill 2016, sec. 4.1; footnote 2 after Waugh et al. 2015) for
Leduc hold'em and no-limit one-card poker: ``thesis``, ``thesis-relative`` and ``waugh``,
registered for those games (``thesis`` is their default)."""

from __future__ import annotations

import numpy as np

from ..core.errors import RcfrError
from ..forms.base import Form
from ..games.leduc import LeducPoker
from ..games.nl_one_card import NLOneCardPoker
from ..games.protocol import CHANCE
from .registry import register_default_features, register_features

_PER_ACTION = 11  # columns per betting action in the thesis features


_LEDUC_STACK = 13  # the most a player can put in at Leduc (1 + 2 + 2 + 4 + 4)


# -- the thesis's poker features ------------------------------------------------------------
def _history(tree: Form, node: int) -> list[int]:
    """Actions from the root to ``node``."""
    path = []
    while node > 0:
        path.append(int(tree.node_action[node]))
        node = int(tree.node_parent[node])
    return path[::-1]


def _poker_spec(game) -> tuple[int, bool]:
    if isinstance(game, LeducPoker):
        return _LEDUC_STACK, True
    if isinstance(game, NLOneCardPoker):
        return game.stack, False
    raise RcfrError(f"the thesis features are defined for leduc and nl_one_card, not {game}; "
                    "use onehot or hashing:K")


def _hand_strength(game, own: int, board: int | None) -> float:
    """Probability of winning plus half of tying against a uniformly random opponent card
    (and board card, before the flop), given the cards the player sees."""
    if isinstance(game, NLOneCardPoker):
        return own / (game.cards - 1)
    canonical = game.canonical
    deck = [0, 0, 1, 1, 2, 2] if canonical else list(range(6))
    rank = (lambda c: c) if canonical else (lambda c: c // 2)
    left = list(deck)
    left.remove(own)
    if board is not None:
        left.remove(board)
    total = score = 0.0
    boards = [board] if board is not None else None
    for i, opp in enumerate(left):
        rest = left[:i] + left[i + 1:]
        for b in (boards if boards is not None else rest):
            mine = (rank(own) == rank(b), rank(own))
            theirs = (rank(opp) == rank(b), rank(opp))
            score += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
            total += 1.0
    return score / total


def _thesis_features(tree: Form, player: int, relative: bool = False) -> np.ndarray:
    game = tree.game
    stack, limit = _poker_spec(game)
    seqs = tree.player_sequences(player)
    rows: list[list[float]] = []
    depth = 0
    for s in seqs:
        info = int(tree.seq_infoset[s])
        state = game.new_initial_state()
        events: list[list[float]] = []
        history = _history(tree, int(tree.infoset_node[info])) + [int(tree.seq_action[s])]
        for a in history:
            actor = state.current_player()
            if actor == CHANCE:
                state.apply_action(a)
                continue
            before = list(state.spent)
            state.apply_action(a)
            after = state.spent
            pot = float(after[0] + after[1])
            wager = float(after[actor] - before[actor])
            is_raise = a >= 2
            all_in = is_raise and after[actor] >= stack and not limit
            if relative:  # actor is me / the opponent; the pot before the action
                who = [float(actor == player), float(actor != player)]
                pot_before = before[0] + before[1]
            else:  # player 1 / player 2 acts; the pot once the actor has matched
                who = [float(actor == 0), float(actor == 1)]
                pot_before = 2 * max(before)
            events.append([
                *who, pot, float(stack - after[actor]), float(a == 0), float(a == 1),
                float(is_raise and not all_in), float(all_in), wager,
                wager / pot_before, wager / (stack - before[actor]),
            ])
        cards = state.cards
        own = cards[player]
        board = cards[2] if len(cards) > 2 else None
        rank = 0.0
        if board is not None:
            rank = 1.0 + (board if game.canonical else board // 2)
        events.reverse()  # most recent first
        depth = max(depth, len(events))
        rows.append([_hand_strength(game, own, board), rank] + [x for e in events for x in e])
    width = 2 + _PER_ACTION * depth
    out = np.zeros((len(rows), width))
    for r, row in enumerate(rows):
        out[r, : len(row)] = row
    return out


_WAUGH_WIDTH = 18


def _waugh_features(tree: Form, player: int) -> np.ndarray:
    """Betting features for recursive partitioning in limit poker (thesis footnote 2; after
    Waugh et al. 2015, whose exact list is not in the thesis): expected hand strength, board
    rank, board pairs the private card; the round; player 1 / player 2 acts; fold / call /
    raise; raises so far by each player in each round (two rounds) and who raised first in each
    (0: nobody, 1 or 2: that player); raises in the current round before the action; the pot
    before and after the action.  Counts of raises describe limit
    betting only (every raise has one size), which is why the thesis used the ``thesis``
    features for no-limit one-card poker."""
    game = tree.game
    _poker_spec(game)
    seqs = tree.player_sequences(player)
    out = np.zeros((len(seqs), _WAUGH_WIDTH))
    for r, s in enumerate(seqs):
        info = int(tree.seq_infoset[s])
        state = game.new_initial_state()
        history = _history(tree, int(tree.infoset_node[info]))
        raises = np.zeros((2, 2))  # [round, player]
        first = [0.0, 0.0]  # who raised first in each round (0: nobody)
        round_ = 0
        dealt = 0
        for a in history:
            actor = state.current_player()
            if actor == CHANCE:
                dealt += 1
                round_ = max(0, dealt - 2)
                state.apply_action(a)
                continue
            if a >= 2:
                if not raises[min(round_, 1)].any():
                    first[min(round_, 1)] = 1.0 + actor
                raises[min(round_, 1), actor] += 1
            state.apply_action(a)
        actor = state.current_player()
        pot_before = float(sum(state.spent))
        a = int(tree.seq_action[s])
        in_round = raises[min(round_, 1)].sum()
        cards = state.cards
        own = cards[player]
        board = cards[2] if len(cards) > 2 else None
        rank = lambda c: c if getattr(game, "canonical", True) else c // 2  # noqa: E731
        after = state.child(a)
        out[r] = [
            _hand_strength(game, own, board),
            0.0 if board is None else 1.0 + rank(board),
            float(board is not None and rank(board) == rank(own)),
            float(round_), float(actor == 0), float(actor == 1),
            float(a == 0), float(a == 1), float(a >= 2),
            *raises.ravel(), *first, in_round, pot_before, float(sum(after.spent)),
        ]
    return out


POKER = (LeducPoker, NLOneCardPoker)


register_features("thesis", lambda tree, player, k, seed: _thesis_features(tree, player),
                  games=POKER, games_text="leduc and nl_one_card", history_only=True)
register_features("thesis-relative",
                  lambda tree, player, k, seed: _thesis_features(tree, player, relative=True),
                  games=POKER, games_text="leduc and nl_one_card", history_only=True)
register_features("waugh", lambda tree, player, k, seed: _waugh_features(tree, player),
                  games=POKER, games_text="leduc and nl_one_card", history_only=True)
register_default_features(LeducPoker, "thesis")
register_default_features(NLOneCardPoker, "thesis")
