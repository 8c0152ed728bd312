"""Feature matrices over a player's sequences (or information sets) for regret regressors,
from a registry of feature providers.

Built in (any game unless said otherwise):

* ``onehot``: one column per sequence, so a regressor can be tabular.
* ``hashing:K``: D'Orazio et al. 2019, sec. 5: tug-of-war hashing of the information state
  into ``K`` partitions of 10 buckets (information-set features, one linear model per action);
  per sequence it is followed by a one-hot of the action.
* ``thesis`` (leduc, nl_one_card: registered for those games, and their default): Morrill
  2016, sec. 4.1, as written: expected hand strength, board rank (0 before the flop), and for
  every betting action in the sequence, most recent first and zero-padded: "player 1 is next
  to act" and "player 2 is next to act" (the player acting at that information set), pot
  after the action, the actor's remaining stack, fold / call / non-all-in wager / all-in
  indicators, and the wager in chips, as a fraction of the pot after matching the opponent's
  current contribution and as a fraction of the actor's remaining stack.
* ``thesis-relative`` (the same games): the earlier reading: actor-is-me /
  actor-is-the-opponent indicators and the wager as a fraction of the pot before the action.
* ``waugh`` (the same games): limit-poker betting features for recursive partitioning (thesis
  footnote 2, after Waugh et al. 2015): the card features, whether the board pairs the
  private card, and a fixed set of counts over the betting (:func:`_waugh_features`).

A game (or a user) adds its own with :func:`register_features` (a name usable as
``--features NAME``) and :func:`register_default_features`; ``features=`` also takes a
callable ``f(tree, player) -> matrix`` directly.  :class:`FeatureRows` builds rows lazily, only
for the sequences asked for (those a sampled pass touched), so a model can train on
minibatches of a game too large for a dense matrix.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .core.budget import check_matrix
from .core.errors import RcfrError
from .forms.base import Form
from .forms.compile import is_compiled
from .games.leduc import LeducPoker
from .games.nl_one_card import NLOneCardPoker
from .games.protocol import CHANCE

_PER_ACTION = 11  # columns per betting action in the thesis features
_LEDUC_STACK = 13  # the most a player can put in at Leduc (1 + 2 + 2 + 4 + 4)
ONEHOT_LIMIT = 8192  # one-hot matrices are dense: 8192 rows are 0.5 GB
HASH_BUCKETS = 10  # buckets per tug-of-war partition (D'Orazio et al. 2019)

# (tree, player, param, seed) -> one row per sequence / information set of the player
MatrixFn = Callable[[Form, int, int, int], np.ndarray]
# (what prepare returned, local sequence indices) -> those sequences' rows
RowsFn = Callable[[Any, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class FeatureProvider:
    """A named feature set: ``sequences`` builds a player's whole sequence matrix; ``prepare``
    and ``rows`` (optional) build the rows of some sequences only (``prepare(tree, player,
    param, seed)`` once, then ``rows(prepared, indices)``); ``infosets`` (optional) builds
    information-set features; ``games`` (optional) are the game classes it is defined for,
    described as ``games_text`` in errors; ``param`` says whether it is spelt ``name:K``;
    ``history_only``: it reads the history form's nodes (not defined on the public form)."""

    name: str
    sequences: MatrixFn
    prepare: MatrixFn | None = None
    rows: RowsFn | None = None
    infosets: MatrixFn | None = None
    games: tuple[type, ...] | None = None
    games_text: str = ""
    param: bool = False
    history_only: bool = False

    def check_game(self, tree: Form) -> None:
        if self.games is not None and not isinstance(tree.game, self.games):
            raise RcfrError(f"the {self.name} features are defined for {self.games_text}, not "
                            f"{tree.game}; use onehot or hashing:K")
        if self.history_only and not tree.history_nodes:
            raise RcfrError(f"the {self.name} features read the history form's nodes; on the "
                            "public form use --features onehot or hashing:K, or --form history")


_PROVIDERS: dict[str, FeatureProvider] = {}
_DEFAULTS: dict[type, str] = {}


def register_features(name: str, sequences: MatrixFn, *, prepare: MatrixFn | None = None,
                      rows: RowsFn | None = None, infosets: MatrixFn | None = None,
                      games: tuple[type, ...] | None = None, games_text: str = "",
                      param: bool = False, history_only: bool = False) -> FeatureProvider:
    """Register (or replace) the feature set ``name``; returns its provider.  ``sequences(tree,
    player, param, seed)`` must return one row per sequence of ``player`` in the tree's order
    (``param`` is ``K`` of ``name:K``, else 0)."""
    key = str(name).strip().lower()
    if not key or ":" in key or not callable(sequences):
        raise RcfrError(f"a feature set needs a plain name and a function, got {name!r}")
    if (prepare is None) != (rows is None):
        raise RcfrError("give both prepare and rows, or neither")
    provider = FeatureProvider(key, sequences, prepare, rows, infosets, games,
                               games_text or ", ".join(g.__name__ for g in games or ()), param,
                               history_only)
    _PROVIDERS[key] = provider
    return provider


def register_default_features(game_class: type, name: str) -> None:
    """Make ``name`` the default feature set of ``game_class`` (and its subclasses)."""
    _DEFAULTS[game_class] = str(name).strip().lower()


def feature_sets() -> tuple[str, ...]:
    """The registered feature sets, as they are spelt (``hashing:K``)."""
    return tuple(f"{k}:K" if p.param else k for k, p in _PROVIDERS.items())


def default_features(game: Any) -> str:
    """The feature set registered as ``game``'s default (the thesis's for poker), else
    ``onehot``."""
    game = game.game if is_compiled(game) else game
    for cls in type(game).__mro__:
        if cls in _DEFAULTS:
            return _DEFAULTS[cls]
    return "onehot"


def parse_features(spec: str) -> tuple[str, int]:
    """``"onehot"``, ``"thesis"``, ``"hashing:K"`` or another registered name -> (name, K)."""
    text = str(spec).strip().lower()
    name, colon, arg = text.partition(":")
    provider = _PROVIDERS.get(name)
    if provider is None:
        raise RcfrError(f"unknown features {spec!r}; use one of {', '.join(feature_sets())}")
    if not provider.param:
        if colon:
            raise RcfrError(f"the {name} features take no parameter, got {spec!r}")
        return name, 0
    try:
        k = int(arg)
    except ValueError:
        raise RcfrError(f"{name} features need a number of partitions, e.g. {name}:5; "
                        f"got {spec!r}") from None
    if k < 1:
        raise RcfrError(f"{name} needs at least 1 partition, got {k}")
    return name, k


def _provider(tree: Form, spec: str) -> tuple[FeatureProvider, int]:
    name, k = parse_features(spec)
    provider = _PROVIDERS[name]
    provider.check_game(tree)
    return provider, k


def _checked(M: Any, rows: int, what: str) -> np.ndarray:
    try:
        A = np.asarray(M, dtype=np.float64)
    except (TypeError, ValueError):
        raise RcfrError(f"{what} must return a numeric matrix") from None
    if A.ndim != 2 or A.shape[0] != rows or A.shape[1] == 0:
        raise RcfrError(f"{what} must return a matrix of {rows} rows (one per sequence) and at "
                        f"least one column, got shape {A.shape}")
    if not np.isfinite(A).all():
        raise RcfrError(f"{what} returned NaN or infinite values")
    return np.ascontiguousarray(A)


def sequence_features(tree: Form, player: int, spec: Any = "onehot",
                      seed: int = 0) -> np.ndarray:
    """Features of ``player``'s sequences, one row per sequence in the tree's order.
    ``spec`` is a registered name or a callable ``f(tree, player) -> matrix``."""
    n = len(tree.player_sequences(player))
    if callable(spec):
        return _checked(spec(tree, player), n, f"feature function {spec!r}")
    provider, k = _provider(tree, spec)
    return _checked(provider.sequences(tree, player, k, seed), n,
                    f"the {provider.name} feature set")


def infoset_features(tree: Form, player: int, spec: str = "onehot",
                     seed: int = 0) -> np.ndarray:
    """Features of ``player``'s information sets (for one linear model per action)."""
    provider, k = _provider(tree, spec)
    if provider.infosets is None:
        raise RcfrError(f"the {provider.name} features describe sequences; use onehot or "
                        "hashing:K for information-set features")
    return provider.infosets(tree, player, k, seed)


class FeatureRows:
    """The feature rows of ``player``'s sequences, built when asked for: ``rows(seqs)`` (local
    sequence indices, ``0 ..`` the player's sequence count) returns those rows only, for the
    providers that can build rows one by one (``onehot``, ``hashing:K``; the others build
    their whole matrix once, on the first call)."""

    def __init__(self, tree: Form, player: int, spec: Any = "onehot",
                 seed: int = 0) -> None:
        self.tree, self.player, self.spec, self.seed = tree, player, spec, seed
        self.num_sequences = len(tree.player_sequences(player))
        self._provider = None if callable(spec) else _provider(tree, spec)[0]
        self._prepared: Any = None
        if self._provider is not None and self._provider.rows is not None:
            self._prepared = self._provider.prepare(tree, player, parse_features(spec)[1], seed)
        self._matrix: np.ndarray | None = None

    @property
    def lazy(self) -> bool:
        """Whether rows are built one by one (else the whole matrix, on the first call)."""
        return self._prepared is not None

    def rows(self, seqs: Any) -> np.ndarray:
        idx = np.asarray(seqs, dtype=np.int64).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= self.num_sequences):
            raise RcfrError(f"sequence indices must lie in [0, {self.num_sequences})")
        if self._prepared is not None:
            return self._provider.rows(self._prepared, idx)
        if self._matrix is None:
            self._matrix = sequence_features(self.tree, self.player, self.spec, self.seed)
        return self._matrix[idx]


# -- onehot ---------------------------------------------------------------------------------
def _onehot(n: int, what: str) -> np.ndarray:
    if n > ONEHOT_LIMIT:
        raise RcfrError(f"one-hot features for {n:,} {what} would be a dense {n:,} x {n:,} "
                        f"matrix; use hashing:K (or a tabular regressor) for a game this size")
    return np.eye(n)


def _onehot_rows(n: int, idx: np.ndarray) -> np.ndarray:
    out = np.zeros((idx.size, n))
    out[np.arange(idx.size), idx] = 1.0
    return out


# -- hashing:K ------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Hashed:
    """A player's tug-of-war codes per information set, and its sequences' information sets
    and actions."""

    bucket: np.ndarray
    sign: np.ndarray
    info: np.ndarray  # local information set of each sequence
    action: np.ndarray  # index of each sequence's action among the player's action ids
    num_actions: int


def _hashing_prepare(tree: Form, player: int, k: int, seed: int) -> _Hashed:
    from .regressors.tug_of_war import tug_of_war_codes

    keys = [tree.infoset_keys[i] for i in tree.player_infosets(player)]
    # sized as the dense matrix the codes stand for (building the codes is itself O(keys x k))
    check_matrix(len(keys), HASH_BUCKETS * k, f"hashing:{k} features for {tree.game}")
    bucket, sign = tug_of_war_codes(keys, k, buckets=HASH_BUCKETS, seed=seed + 7919 * player)
    seqs = tree.player_sequences(player)
    info = tree.seq_infoset[seqs.start:seqs.stop] - tree.player_infosets(player).start
    ids, action = np.unique(tree.seq_action[seqs.start:seqs.stop], return_inverse=True)
    return _Hashed(bucket, sign, info, action, ids.size)


def _hashing_rows(h: _Hashed, idx: np.ndarray) -> np.ndarray:
    from .regressors.tug_of_war import tug_of_war_rows

    info = h.info[idx]
    onehot = np.zeros((idx.size, h.num_actions))
    onehot[np.arange(idx.size), h.action[idx]] = 1.0
    return np.hstack([tug_of_war_rows(h.bucket[info], h.sign[info], HASH_BUCKETS), onehot])


def _hashing_sequences(tree: Form, player: int, k: int, seed: int) -> np.ndarray:
    n = len(tree.player_sequences(player))
    check_matrix(n, HASH_BUCKETS * k, f"hashing:{k} features for {tree.game}")
    return _hashing_rows(_hashing_prepare(tree, player, k, seed), np.arange(n))


def _hashing_infosets(tree: Form, player: int, k: int, seed: int) -> np.ndarray:
    from .regressors.tug_of_war import tug_of_war_rows

    check_matrix(len(tree.player_infosets(player)), HASH_BUCKETS * k,
                 f"hashing:{k} features for {tree.game}")
    h = _hashing_prepare(tree, player, k, seed)
    return tug_of_war_rows(h.bucket, h.sign, HASH_BUCKETS)


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


register_features("onehot", lambda tree, player, k, seed: _onehot(
    len(tree.player_sequences(player)), "sequences"),
    prepare=lambda tree, player, k, seed: len(tree.player_sequences(player)), rows=_onehot_rows,
    infosets=lambda tree, player, k, seed: _onehot(len(tree.player_infosets(player)),
                                                   "information sets"))
POKER = (LeducPoker, NLOneCardPoker)
register_features("thesis", lambda tree, player, k, seed: _thesis_features(tree, player),
                  games=POKER, games_text="leduc and nl_one_card", history_only=True)
register_features("thesis-relative",
                  lambda tree, player, k, seed: _thesis_features(tree, player, relative=True),
                  games=POKER, games_text="leduc and nl_one_card", history_only=True)
register_features("waugh", lambda tree, player, k, seed: _waugh_features(tree, player),
                  games=POKER, games_text="leduc and nl_one_card", history_only=True)
register_features("hashing", _hashing_sequences, prepare=_hashing_prepare, rows=_hashing_rows,
                  infosets=_hashing_infosets, param=True)
register_default_features(LeducPoker, "thesis")
register_default_features(NLOneCardPoker, "thesis")
