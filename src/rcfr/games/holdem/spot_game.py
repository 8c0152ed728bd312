"""Heads-up no-limit hold'em from the flop, turn or river with real cards: a spot as a game.

Each player's private state is one of the 1,326 hole-card pairs (:mod:`.combos`), dealt from
the two ranges: the pair ``(x0, x1)`` has probability proportional to ``r0[x0] * r1[x1]`` when
the two combos and the board share no card (0 otherwise). The betting follows an action tree of
:class:`.action_tree.Node` objects (postflop-solver's for a spot file; the Libratus endgames
build PokerRL's); the turn and river cards are dealt uniformly from the cards that neither the
board nor the two hands hold. Payoffs are chips, zero-sum, net of what each player has put in:
each starts with half of ``pot`` in, a fold loses what the folder has put in, a showdown wins
``pot / 2 + amount`` (the chips each has matched beyond the starting pot).

The public form (:mod:`rcfr.forms.public.tree`, pairing ``"cards"``) keeps the deal factored,
``w0[x0] * w1[x1] * [x0, x1 share no card]``, and deals each board card ``c`` as a public
outcome that reweighs both players' combos by ``[c not in x]`` and the deal by
``1 / (cards left)``; its terminal sweeps handle card removal in linear time
(:mod:`rcfr.forms.public.card_sweeps`).  The history form (every pair of hands dealt by chance)
exists for narrow ranges, to check the public form against the LP.
"""

from __future__ import annotations

import functools
from importlib import resources

import numpy as np

from ...core.errors import RcfrError
from ..protocol import CHANCE, TERMINAL, Game, State
from ..public import FOLD_RULE, SHOWDOWN_RULE, PublicState, PublicStructure
from .action_tree import CHANCE as CHANCE_NODE
from .action_tree import DECISION, FOLDED, SHOWDOWN, Node, count_nodes
from .cards import card_str
from .combos import (
    COMBO_CARDS,
    COMBO_MASKS,
    NUM_CARDS,
    NUM_COMBOS,
    combo_str,
    disjoint_mass,
    live_combos,
)
from .emd_buckets import emd_classes
from .spot import load_spot, with_sizes
from .spot_buckets import bucket_classes
from .strength import river_strength

_LABELS = [combo_str(k) for k in range(NUM_COMBOS)]
BUCKET_KINDS = ("ehs2", "emd")  # E[HS²] percentiles, EMD clusters of equity histograms


@functools.cache
def _card_free() -> np.ndarray:
    """``free[c, k]``: 1.0 where combo ``k`` does not hold card ``c`` (float64 [52, 1326])."""
    bits = np.uint64(1) << np.arange(NUM_CARDS, dtype=np.uint64)
    free = (COMBO_MASKS[None, :] & bits[:, None]) == 0
    out = free.astype(np.float64)
    out.flags.writeable = False
    return out


def _walk(root: Node):
    """Every node of an action tree (depth first)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack += node.children


class SpotGame(Game):
    """A real-card hold'em spot: ``board`` (card ids), ``ranges`` (two 1,326-weight vectors,
    the out-of-position player's first; any scale), ``pot`` and ``stack`` in chips, the betting
    as an action tree ``root``.  ``short_name`` and ``params`` give its game string;
    ``big_blind`` (chips) makes mbb/g figures, where the spot has one.

    With ``buckets = k`` the spot is its own card abstraction: on every street a player
    observes only the E[HS²] bucket of its combo (:mod:`.spot_buckets`: ``k`` percentile
    buckets per board of the live combos of either range, each counting once), and remembers
    the buckets of the streets before, so an information set is a (public node, bucket
    sequence) pair; the deal, the betting and the payoffs are the real spot's, so a strategy
    of the abstract spot is one of the real spot (:func:`rcfr.abstraction.lift_classes`).
    ``kind = "emd"`` buckets the flop and turn by earth mover's distance between equity
    histograms instead (:mod:`.emd_buckets`)."""

    def __init__(self, board, ranges, pot: int, stack: int, root: Node, *,
                 short_name: str = "holdem_spot", big_blind: float | None = None,
                 buckets: int | None = None, kind: str | None = None, **params) -> None:
        if buckets is not None:
            if isinstance(buckets, bool) or not isinstance(buckets, int | np.integer) \
                    or buckets < 1:
                raise RcfrError(f"buckets must be a whole number of buckets per street, 1 or "
                                f"more, not {buckets!r}")
            params["buckets"] = int(buckets)
        if kind is not None:
            if buckets is None or str(kind) not in BUCKET_KINDS:
                raise RcfrError(f"kind goes with buckets=K and is one of "
                                f"{', '.join(BUCKET_KINDS)}, not {kind!r}")
            if str(kind) != "ehs2":
                params["kind"] = str(kind)
        super().__init__(**params)
        self.buckets = None if buckets is None else int(buckets)
        self.bucket_kind = "ehs2" if kind is None else str(kind)
        self.short_name = short_name
        self.big_blind = big_blind
        self.board = tuple(int(c) for c in board)
        if len(self.board) not in (3, 4, 5) or len(set(self.board)) != len(self.board):
            raise RcfrError(f"a spot's board has 3, 4 or 5 distinct cards, not {self.board}")
        self.pot, self.stack, self.root = int(pot), int(stack), root
        self.starting_pot = float(self.pot)  # (exploitability as a share of it)
        live = live_combos(self.board)
        r = [np.where(live, np.asarray(w, dtype=np.float64), 0.0) for w in ranges]
        if any(w.shape != (NUM_COMBOS,) or np.any(w < 0) or not np.all(np.isfinite(w))
               for w in r):
            raise RcfrError(f"a spot's ranges are {NUM_COMBOS} weights, 0 or more")
        z = float(r[0] @ disjoint_mass(r[1]))
        if z <= 0:
            raise RcfrError("the two ranges never meet: every pair of their hands shares a card "
                            "(with each other or the board)")
        self.ranges = (r[0], r[1])
        self.deal_weights = (r[0] / z, r[1])  # sum_x0 w0 * disjoint_mass(w1) = 1
        self._num_actions = max((len(n.actions) for n in _walk(root) if n.kind == DECISION),
                                default=1)

    # -- the game protocol (the history form: every pair of hands dealt by chance) ---------
    def new_initial_state(self) -> SpotState:
        return SpotState(self, (), self.board, self.root, ())

    def num_distinct_actions(self) -> int:
        return self._num_actions

    def _counts(self) -> tuple[int, int]:
        """Public nodes and histories in closed form: an action-tree node below ``k`` deals
        stands for the product of the cards each deal could give (the board's live cards in
        the public form, less the two hands' four in the history form) times, in the history
        form, the pairs of hands that meet."""
        cached = self.__dict__.get("_count_cache")
        if cached is None:
            w0, w1 = self.deal_weights
            v0 = (w0 > 0) & (disjoint_mass(w1) > 0)
            v1 = (w1 > 0) & (disjoint_mass(w0) > 0)
            pairs = int(round(float(v0 @ disjoint_mass(v1.astype(np.float64)))))
            public = per_pair = 0
            stack = [(self.root, len(self.board), 1, 1)]
            while stack:
                node, cards, pub, hist = stack.pop()
                public += pub
                per_pair += hist
                if node.kind == CHANCE_NODE:
                    left = NUM_CARDS - cards
                    stack.append((node.children[0], cards + 1, pub * left, hist * (left - 4)))
                else:
                    stack += [(c, cards, pub, hist) for c in node.children]
            cached = self.__dict__["_count_cache"] = (public, 1 + int(v0.sum()) + pairs * per_pair)
        return cached

    def num_public_nodes(self) -> int:
        """Public nodes of the public form (exact)."""
        return self._counts()[0]

    def num_histories(self) -> int:
        """Histories of the history form (exact): the deal's chance nodes plus every node of
        the action tree for every pair of hands and every runout."""
        return self._counts()[1]

    def tree_sizes(self) -> dict[str, int]:
        """The action tree's nodes by kind and street (:func:`.action_tree.count_nodes`)."""
        return count_nodes(self.root)

    def observe(self, board: tuple) -> np.ndarray | None:
        """Each combo's observed class on ``board`` (the spot's board, then the cards dealt):
        its bucket sequence with ``buckets``, else ``None`` (the combo itself)."""
        if self.buckets is None:
            return None
        among = self.__dict__.get("_among")
        if among is None:
            among = self._among = (self.ranges[0] > 0) | (self.ranges[1] > 0)
        classes = emd_classes if self.bucket_kind == "emd" else bucket_classes
        return classes(tuple(board), len(self.board), self.buckets, among)

    def hand_label(self, combo: int, board: tuple) -> str:
        """What a player holding ``combo`` knows of it on ``board``: the combo, or its bucket
        sequence (``b3.0``: bucket 3 of ``buckets`` on the first street, 0 on the next)."""
        return self.hand_labels(tuple(board))[combo]

    def hand_labels(self, board: tuple) -> list[str]:
        """:meth:`hand_label` of every combo on ``board`` (kept per board)."""
        if self.buckets is None:
            return _LABELS
        memo = self.__dict__.setdefault("_labels", {})
        labels = memo.get(board)
        if labels is None:
            classes = self.observe(board)
            uniq, inverse = np.unique(classes, return_inverse=True)
            k, streets = self.buckets, len(board) - len(self.board) + 1
            names = []
            for code in uniq.tolist():
                digits = []
                for _ in range(streets):
                    code, b = divmod(code, k)
                    digits.append(str(b))
                names.append("b" + ".".join(reversed(digits)))
            labels = memo[board] = [names[i] for i in inverse.tolist()]
        return labels

    def info_key(self, combo: int, line: tuple) -> str:
        """A player's information-state string, as both forms write it: the hand (or its
        bucket sequence), the spot's board, then each street's actions, a dealt card between
        streets (``AhAd|Td9d6hQc|check,check|2c|bet 75``)."""
        board = self.board + tuple(t for t in line if isinstance(t, int))
        text = f"{self.hand_label(combo, board)}|{''.join(card_str(c) for c in self.board)}|"
        for i, token in enumerate(line):
            if isinstance(token, int):  # a dealt card
                text += f"|{card_str(token)}|"
            else:
                text += token if i == 0 or isinstance(line[i - 1], int) else "," + token
        return text

    # -- the public form -------------------------------------------------------------------
    def public_structure(self) -> PublicStructure:
        """The public form (:mod:`rcfr.forms.public.tree`, pairing ``"cards"``)."""
        valid0 = np.count_nonzero(self.deal_weights[0])
        return PublicStructure(
            root=SpotPublicState(self, self.root, self.board, ()),
            labels=(_LABELS, _LABELS), pairing="cards", weights=self.deal_weights,
            deal_histories=np.ones((1, 1), dtype=np.int64), prefix_histories=1 + int(valid0),
            cards=COMBO_CARDS)

    def chips(self, node: Node) -> float:
        """What each player has put in at ``node``: half the pot plus the matched amount."""
        return self.pot / 2 + node.amount


class SpotState(State):
    """A history of a spot: the hands dealt so far, the board, the action-tree node and the
    betting line (action names, and dealt cards as card ids)."""

    __slots__ = ("game", "hands", "board", "node", "line")

    def __init__(self, game: SpotGame, hands: tuple, board: tuple, node: Node,
                 line: tuple) -> None:
        self.game, self.hands, self.board, self.node, self.line = game, hands, board, node, line

    def current_player(self) -> int:
        if len(self.hands) < 2:
            return CHANCE
        kind = self.node.kind
        if kind == DECISION:
            return self.node.player
        return CHANCE if kind == CHANCE_NODE else TERMINAL

    def legal_actions(self) -> list[int]:
        player = self.current_player()
        if player == CHANCE:
            return [a for a, _ in self.chance_outcomes()]
        return [] if player == TERMINAL else list(range(len(self.node.actions)))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        w0, w1 = self.game.deal_weights
        if not self.hands:
            p = w0 * disjoint_mass(w1)
            return [(int(x), float(p[x])) for x in np.flatnonzero(p)]
        if len(self.hands) == 1:
            w = w1 * _card_free()[COMBO_CARDS[self.hands[0]]].prod(axis=0)
            return [(int(x), float(w[x] / w.sum())) for x in np.flatnonzero(w)]
        used = set(self.board) | {int(c) for h in self.hands for c in COMBO_CARDS[h]}
        left = [c for c in range(NUM_CARDS) if c not in used]
        return [(c, 1.0 / len(left)) for c in left]

    def apply_action(self, action: int) -> None:
        if len(self.hands) < 2:
            self.hands = (*self.hands, int(action))
        elif self.node.kind == CHANCE_NODE:
            self.board = (*self.board, int(action))
            self.line = (*self.line, int(action))
            self.node = self.node.children[0]
        else:
            self.line = (*self.line, str(self.node.actions[action]))
            self.node = self.node.children[action]

    def returns(self) -> list[float]:
        stake = self.game.chips(self.node)
        if self.node.kind == FOLDED:
            u = -stake if self.node.player == 0 else stake
        else:
            strength = river_strength(self.board)[0]
            s0, s1 = int(strength[self.hands[0]]), int(strength[self.hands[1]])
            u = stake if s0 > s1 else (-stake if s0 < s1 else 0.0)
        return [u, -u]

    def information_state_string(self, player: int | None = None) -> str:
        p = self.current_player() if player is None else player
        if len(self.hands) <= p:
            return f"?|{self.line}"
        return self.game.info_key(self.hands[p], self.line)

    def action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE:
            return _LABELS[action] if len(self.hands) < 2 else card_str(action)
        return str(self.node.actions[action])

    def clone(self) -> SpotState:
        return SpotState(self.game, self.hands, self.board, self.node, self.line)


class SpotPublicState(PublicState):
    """A public state of a spot: the action-tree node, the board and the betting line."""

    __slots__ = ("game", "node", "board", "line")

    def __init__(self, game: SpotGame, node: Node, board: tuple, line: tuple) -> None:
        self.game, self.node, self.board, self.line = game, node, board, line

    def current_player(self) -> int:
        kind = self.node.kind
        if kind == DECISION:
            return self.node.player
        return CHANCE if kind == CHANCE_NODE else TERMINAL

    def legal_actions(self) -> list[int]:
        kind = self.node.kind
        if kind == DECISION:
            return list(range(len(self.node.actions)))
        if kind == CHANCE_NODE:
            return [c for c in range(NUM_CARDS) if c not in self.board]
        return []

    def child(self, action: int) -> SpotPublicState:
        if self.node.kind == CHANCE_NODE:
            return SpotPublicState(self.game, self.node.children[0], (*self.board, int(action)),
                                   (*self.line, int(action)))
        return SpotPublicState(self.game, self.node.children[action], self.board,
                               (*self.line, str(self.node.actions[action])))

    def chance_factor(self, outcome: int):
        """Card ``outcome`` reweighs both players' combos by whether they hold it, and the
        deal by one over the cards left besides the board and the two hands."""
        free = _card_free()[outcome]
        return free / (NUM_CARDS - len(self.board) - 4), free

    def terminal(self) -> tuple[int, float, int, int]:
        stake = self.game.chips(self.node)
        if self.node.kind == FOLDED:
            return FOLD_RULE, (-stake if self.node.player == 0 else stake), 0, 0
        assert self.node.kind == SHOWDOWN
        return SHOWDOWN_RULE, stake, 0, 0

    def ranks(self, player: int) -> np.ndarray:
        return river_strength(self.board)[0].astype(np.int64)

    def observation(self, player: int) -> np.ndarray | None:
        return self.game.observe(self.board)

    def information_state_string(self, player: int, private: int) -> str:
        return self.game.info_key(private, self.line)

    def action_to_string(self, player: int, action: int) -> str:
        if self.node.kind == CHANCE_NODE:
            return card_str(action)
        return str(self.node.actions[action])


def packaged_spots() -> list[str]:
    """The names of the spots shipped with rcfr (``holdem_spot(spot=NAME)``)."""
    return sorted(p.name[:-5] for p in resources.files(__package__).joinpath("spots").iterdir()
                  if p.name.endswith(".toml"))


def holdem_spot(file: str | None = None, spot: str | None = None,
                buckets: int | None = None, kind: str | None = None, bets: str | None = None,
                raises: str | None = None, board: str | None = None) -> SpotGame:
    """The game of a spot file (:mod:`.spot`): ``holdem_spot(file=PATH)``, or of a spot
    shipped with rcfr, ``holdem_spot(spot=basic_turn)`` (:func:`packaged_spots`);
    ``buckets=K``: its card abstraction, ``K`` E[HS²] buckets per street (:class:`SpotGame`);
    ``kind=emd``: EMD clusters of equity histograms on the flop and turn instead;
    ``bets`` / ``raises``: its action abstraction, the bet (and donk) / raise sizes of every
    street and player replaced by these (sizes separated by spaces, as ``60% a``:
    :func:`.spot.with_sizes`); ``board=Ks7d2c``: the spot on this board instead of its
    file's (3 to 5 cards)."""
    if (file is None) == (spot is None):
        raise RcfrError("holdem_spot takes file=PATH (a spot file) or spot=NAME (one of "
                        f"{', '.join(packaged_spots())})")
    if spot is not None:
        if str(spot) not in packaged_spots():
            raise RcfrError(f"no spot named {spot!r} ships with rcfr; the spots are "
                            f"{', '.join(packaged_spots())}")
        with resources.as_file(resources.files(__package__) / "spots" / f"{spot}.toml") as path:
            loaded = load_spot(path, board)
        params = {"spot": str(spot)}
    else:
        loaded, params = load_spot(file, board), {"file": str(file)}
    if bets is not None or raises is not None:
        loaded = with_sizes(loaded, bets, raises)
        params.update({k: str(v) for k, v in (("bets", bets), ("raises", raises))
                       if v is not None})
    game = SpotGame(loaded.board, loaded.ranges, loaded.pot, loaded.stack,
                    loaded.action_tree(), big_blind=loaded.big_blind, buckets=buckets, kind=kind,
                    **params)
    if board is not None:  # (its game string's; the constructor's board is the card ids)
        game.params["board"] = str(board)
    return game
