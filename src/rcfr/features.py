"""Feature matrices over a player's sequences (or information sets) for regret regressors.

* ``onehot``: one column per sequence, so a regressor can be tabular (any game).
* ``thesis``: Morrill 2016, sec. 4.1: expected hand strength, board rank (0 before the flop),
  and for every betting action in the sequence, most recent first and zero-padded: acting
  player indicators, pot after the action, the actor's remaining stack, fold / call /
  non-all-in wager / all-in indicators, and the wager in chips, as a pot fraction and as a
  stack fraction (Leduc hold'em in both forms and no-limit one-card poker).
* ``hashing:K``: D'Orazio et al. 2019, sec. 5: tug-of-war hashing of the information state
  into ``K`` partitions of 10 buckets (information-set features, one linear model per action);
  per sequence it is followed by a one-hot of the action.
"""

from __future__ import annotations

import numpy as np

from .budget import check_matrix
from .errors import RcfrError
from .games.leduc import LeducPoker
from .games.nl_one_card import NLOneCardPoker
from .games.protocol import CHANCE
from .tree import GameTree

FEATURE_SETS = ("onehot", "thesis", "hashing:K")
_PER_ACTION = 11  # columns per betting action in the thesis features
_LEDUC_STACK = 13  # the most a player can put in at Leduc (1 + 2 + 2 + 4 + 4)
ONEHOT_LIMIT = 8192  # one-hot matrices are dense: 8192 rows are 0.5 GB


def _onehot(n: int, what: str) -> np.ndarray:
    if n > ONEHOT_LIMIT:
        raise RcfrError(f"one-hot features for {n:,} {what} would be a dense {n:,} x {n:,} "
                        f"matrix; use hashing:K (or a tabular regressor) for a game this size")
    return np.eye(n)


def parse_features(spec: str) -> tuple[str, int]:
    """``"onehot"``, ``"thesis"`` or ``"hashing:K"`` -> (kind, K)."""
    text = str(spec).strip().lower()
    if text in ("onehot", "thesis"):
        return text, 0
    if text.startswith("hashing"):
        try:
            k = int(text.split(":", 1)[1])
        except (IndexError, ValueError):
            raise RcfrError(f"hashing features need a number of partitions, e.g. hashing:5; "
                            f"got {spec!r}") from None
        if k < 1:
            raise RcfrError(f"hashing needs at least 1 partition, got {k}")
        return "hashing", k
    raise RcfrError(f"unknown features {spec!r}; use one of {', '.join(FEATURE_SETS)}")


def sequence_features(tree: GameTree, player: int, spec: str = "onehot",
                      seed: int = 0) -> np.ndarray:
    """Features of ``player``'s sequences, one row per sequence in the tree's order."""
    kind, k = parse_features(spec)
    seqs = tree.player_sequences(player)
    if kind == "onehot":
        return _onehot(len(seqs), "sequences")
    if kind == "hashing":
        info = infoset_features(tree, player, spec, seed)
        lo = tree.player_infosets(player).start
        rows = info[tree.seq_infoset[seqs.start:seqs.stop] - lo]
        actions = tree.seq_action[seqs.start:seqs.stop]
        ids = np.unique(actions)
        return np.hstack([rows, (actions[:, None] == ids[None, :]).astype(float)])
    return _thesis_features(tree, player)


def infoset_features(tree: GameTree, player: int, spec: str = "onehot",
                     seed: int = 0) -> np.ndarray:
    """Features of ``player``'s information sets (for one linear model per action)."""
    kind, k = parse_features(spec)
    infosets = tree.player_infosets(player)
    if kind == "onehot":
        return _onehot(len(infosets), "information sets")
    if kind == "hashing":
        from .regressors import tug_of_war_features

        check_matrix(len(infosets), 10.0 * k, f"hashing:{k} features for {tree.game}")
        keys = [tree.infoset_keys[i] for i in infosets]
        return tug_of_war_features(keys, k, buckets=10, seed=seed + 7919 * player)
    raise RcfrError("the thesis features describe sequences; use onehot or hashing:K for "
                    "information-set features")


def tree_equivalent_columns(X: np.ndarray) -> np.ndarray:
    """Indices of the columns of ``X`` a regression tree needs: constant columns and columns
    that order the rows exactly as an earlier one does (or exactly reversed, like an indicator
    and its complement) offer the same splits, so dropping them leaves every tree's candidate
    partitions, and so its fit, unchanged (up to ties between equal splits)."""
    seen: set[bytes] = set()
    keep = []
    for j in range(X.shape[1]):
        codes = np.unique(X[:, j], return_inverse=True)[1].astype(np.int32)
        top = int(codes.max(initial=0))
        if top == 0:
            continue
        forward, backward = codes.tobytes(), (top - codes).tobytes()
        if forward in seen or backward in seen:
            continue
        seen.add(forward)
        keep.append(j)
    return np.asarray(keep, dtype=np.int64)


# -- the thesis's poker features ------------------------------------------------------------
def _history(tree: GameTree, node: int) -> list[int]:
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


def _thesis_features(tree: GameTree, player: int) -> np.ndarray:
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
            events.append([
                float(actor == player), float(actor != player), pot,
                float(stack - after[actor]), float(a == 0), float(a == 1),
                float(is_raise and not all_in), float(all_in), wager,
                wager / (before[0] + before[1]), wager / (stack - before[actor]),
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
