"""The public-form protocol (:mod:`rcfr.forms.public.tree`): what a game describes so that it can be
compiled to its public tree: public states, each player's private states and the deal."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import namedtuple
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

FOLD_RULE, SHOWDOWN_RULE, COUNT_RULE, MATRIX_RULE = 0, 1, 2, 3
# the compiled trees' node kinds besides the players 0 and 1 (rcfr.forms.base re-exports them)
KIND_CHANCE, KIND_TERMINAL = 2, 3
PAIRINGS = ("independent", "exclusive", "dense", "cards")

# The public tree's nodes in breadth-first order (children in the order of
# :meth:`PublicState.legal_actions`), as a game may give them directly (``PublicStructure.nodes``)
# instead of the compiler walking its public states: what the compiler's walk records.
PublicNodes = namedtuple("PublicNodes", [
    "kind",  # int8 [N]: 0/1 player to act, 2 chance, 3 terminal
    "parent",  # int32 [N] (-1 at the root)
    "action",  # int32 [N]: the action or chance outcome on the edge in (-1 at the root)
    "child_start",  # int32 [N + 1]: node u's children are child_start[u]:child_start[u + 1]
    "num_actions",  # int32 [N]: actions of a decision node (0 elsewhere)
    "ctx",  # int32 [N]: chance context, numbered by first appearance (0 at the root): nodes
    # below public chance outcomes that reweigh and observe alike share one
    "term_rule", "term_value", "term_q", "term_face",  # per terminal (int8, float64, int64,
    # int64): :meth:`PublicState.terminal`, terminals in node order
])


class PublicState(ABC):
    """A public state of a game that offers the public form: what everybody sees."""

    @abstractmethod
    def current_player(self) -> int:
        """0 or 1 for a player to act, ``CHANCE`` for a public chance event, or ``TERMINAL``."""

    @abstractmethod
    def legal_actions(self) -> list[int]:
        """The acting player's actions, or the public chance outcomes, ascending."""

    @abstractmethod
    def child(self, action: int) -> PublicState:
        """The public state after ``action`` (or chance outcome)."""

    def chance_factor(self, outcome: int):
        """How public chance ``outcome`` reweighs the deal: ``(f0, f1)`` (the new weight is
        ``W * outer(f0, f1)``) or an n0 x n1 matrix ``F`` (``W * F``)."""
        raise NotImplementedError

    def terminal(self) -> tuple[int, float, int, int]:
        """``(rule, value, quantity, face)``: ``FOLD_RULE`` with player 0's payoff,
        ``SHOWDOWN_RULE`` with the stake, ``COUNT_RULE`` with +1 (-1) if player 0 (1) made
        the bid ``quantity`` dice showing ``face``, or ``MATRIX_RULE`` with the stake (player
        0 gets ``stake * M[x0, x1]``, :meth:`payoff_matrix`)."""
        raise NotImplementedError

    def ranks(self, player: int) -> np.ndarray:
        """Showdown ranks of ``player``'s private states here (higher wins)."""
        raise NotImplementedError

    def payoff_matrix(self) -> np.ndarray:
        """``MATRIX_RULE``: the n0 x n1 matrix ``M[x0, x1]`` of player 0's payoff per unit of
        stake (e.g. the expected +1 / -1 / 0 of a showdown between two card buckets), one per
        chance context (asked once, at the context's first ``MATRIX_RULE`` terminal)."""
        raise NotImplementedError

    def observation(self, player: int) -> np.ndarray | None:
        """What ``player`` observes of its private state in this state's chance context (asked
        at the root and at each public chance outcome): ``obs[x]``, an integer class per
        private state, so that the information sets here are (public node, class); ``None``
        (the default) observes the private state itself.  A context's classes must refine
        those of the context above it (perfect recall)."""
        return None

    @abstractmethod
    def information_state_string(self, player: int, private: int) -> str:
        """The history form's information-state string of ``player`` holding ``private``."""

    @abstractmethod
    def action_to_string(self, player: int, action: int) -> str:
        """The action's name (as the history form names it)."""


@dataclass
class PublicStructure:
    """What a game tells the public form: its root public state, each player's private states,
    the deal, and how many histories the history form spends on dealing.

    ``weights=(w0, w1)`` with ``pairing`` ``"independent"`` or ``"exclusive"`` (one card each
    from one deck: private state ``x`` of both players is the same card) gives the deal
    ``outer(w0, w1)`` (times ``[x0 != x1]``); ``pairing="dense"`` gives it as ``deal``;
    ``pairing="cards"`` (hold'em's 1,326 hole-card pairs, the same for both players) gives it
    as ``outer(w0, w1)`` times ``[x0 and x1 share no card]``, each private state's two cards in
    ``cards`` (int [n, 2]), ``deal_histories`` a single count for every pair and no
    observations (its terminal sweeps: :mod:`rcfr.forms.public.card_sweeps`).
    ``deal_histories[x0, x1]``: how many history-form deals (orders of dealing) give the pair
    (where a player observes classes of private states, :meth:`PublicState.observation`, a
    pair of observed classes counts as the most of its members: the history form deals what
    the players observe);
    ``prefix_histories``: the history form's chance nodes before the deal is complete.
    ``counts[p][x, f]`` (liar's dice): dice of private state ``x`` that count for face ``f``."""

    root: PublicState
    labels: tuple[list[str], list[str]]
    pairing: str
    deal_histories: np.ndarray
    prefix_histories: int
    weights: tuple[np.ndarray, np.ndarray] | None = None
    deal: np.ndarray | None = None
    counts: tuple[np.ndarray, np.ndarray] | None = None
    deal_depth: int = 2  # the history form's chance nodes on one deal's path (cards, dice)
    cards: np.ndarray | None = None  # pairing "cards": each private state's two cards
    # the public tree's nodes in closed form (:data:`PublicNodes`), where the game gives them
    # without a walk over its public states (2-NL Hold'em(k): millions of nodes)
    nodes: Callable[[], PublicNodes] | None = None


class StandInState(PublicState):
    """A public state kept as the history form's state with stand-in private cards
    (``state.cards``, which the betting ignores): a poker game's public form in a few lines.
    Keys put the private card in the player's place."""

    def __init__(self, state) -> None:
        self._state = state

    def current_player(self) -> int:
        return self._state.current_player()

    def legal_actions(self) -> list[int]:
        return self._state.legal_actions()

    def child(self, action: int) -> PublicState:
        return type(self)(self._state.child(action))

    def information_state_string(self, player: int, private: int) -> str:
        state = self._state.clone()
        cards = list(state.cards)
        cards[player] = private
        state.cards = tuple(cards)
        return state.information_state_string(player)

    def action_to_string(self, player: int, action: int) -> str:
        return self._state.action_to_string(player, action)
