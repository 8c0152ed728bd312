"""The four Libratus endgames and PokerRL's betting abstraction over them.

The data (:func:`load_endgame`) are Libratus's four HUNL endgames (Brown & Sandholm 2017; the
files of Sandholm-Lab/LibratusEndgames, shipped in ``data/libratus/`` with their README): the
round, the board, the pot and the two players' 1,326 blueprint reach probabilities. The DCFR
(Brown & Sandholm 2019) and DDCFR (Xu et al. 2024) papers' "HUNL Subgame" curves were computed
with PokerRL's ``DiscretizedNLHoldemSubGame`` and ``run_cfr.py`` (the copy in
github.com/rpSebastian/DDCFR, commit 0e4de9b; file and line below are in that copy).
:func:`pokerrl_action_tree` is the betting of that game, written from these rules:

- **Stacks and blinds.** 20,000 chips a player at the start of the hand, blinds 50/100
  (``games.py:256-259``, ``DiscretizedNLHoldem``); at the endgame each has ``20,000 - pot // 2``
  behind (``games.py:415, 426``).
- **Who acts.** Seat 1 acts first at the root (``games.py:406``) and on every later round
  (``PokerEnv.py:1051``; ``BTN_IS_FIRST_POSTFLOP = False``, ``game_rules.py:172``): the
  out-of-position player: rcfr's player 0 (player 1 with ``pokerrl=True``).
- **Bet sizes.** Fractions of the pot after the call: a bet or raise to
  ``current + int(to_call + (pot + both bets + to_call) * f)`` chips, truncated
  (``PokerEnv.py:1671-1700``). ``run_cfr.py:47-48`` passes ``agent_bet_set=B_3`` =
  (0.5, 1, 100000) and ``other_agent_bet_set=B_2`` = (1, 100000) (``bet_sets.py:18-20``;
  100000 pots is all-in): the first set while no bet has been made on the round, the second
  for every raise after it, whichever player makes it (``DiscretizedPokerEnv.py:68-80,
  148-154``: ``n_raises_this_round == 0``).
- **Minimum raise and all-in.** A size is raised to the minimum, the largest bet plus the
  last raise and at least one big blind (``PokerEnv.py:993-1004``,
  ``DiscretizedPokerEnv.py:50``), then capped at all-in (``PokerEnv.py:1151-1158``). Sizes are
  tried from the smallest: one raised to the minimum is kept only if a later size is not
  (``DiscretizedPokerEnv.py:159-175``), and the first size capped at all-in is the last
  (``DiscretizedPokerEnv.py:177-180``). No raise cap: raises go on until someone is all-in. A
  player whose call puts him all-in cannot raise (``PokerEnv.py:1130-1134``).
- **Fold, check, call.** Fold only facing a bet (``DiscretizedPokerEnv.py:140-143``). A round
  ends when the bets are equal and both players have acted (``PokerEnv.py:1160-1181``); the
  river then ends in a showdown (``PokerEnv.py:930``), an earlier round deals the next card,
  and a called all-in runs the board out (``PokerEnv.py:955``).
- **Payoffs.** Unmatched chips go back (``PokerEnv.py:678-692``); the winner of a fold or
  showdown wins half the pot then on the table, a tie splits it (``ValueFiller.py:465``): the
  folder loses ``pot / 2 + amount``.

How PokerRL plays and measures these games, and what rcfr's :func:`libratus_endgame` does:

- **Seats and ranges.** PokerRL's seat 0 acts second and is updated first in each alternating
  iteration (``_CFRBase.py:164-173``); it gets the file's first reach vector
  (``games.py:436-439``), which Libratus's README gives to the out-of-position player.
  ``libratus_endgame(n)`` follows the README (player 0 out of position, first to act, first
  vector); ``pokerrl=True`` numbers the players as PokerRL's seats, so that rcfr's
  alternation (player 0 first) is PokerRL's too.
- **The deal and the unit.** Each reach vector is normalised alone (``games.py:439``) and the
  pairs of hands that share a card are dropped without renormalising (``ValueFiller.py:
  521-542``); the exploitability is the mean of the two players' best-response gains
  (``_CFRBase.py:318-324``) in big blinds (``EV_NORMALIZER`` = 10 per chip, ``games.py:241``,
  divided by 1,000 in ``run_cfr.py:65``). rcfr normalises the deal over the pairs that meet
  and reports chips; :func:`pokerrl_scale` converts.
- **Hand ranks.** PokerRL's card-to-string table is filled with both ``(rank, suit)`` and
  ``(suit, rank)`` as keys (``games.py:331-332``), so the later write wins for the six cards of
  rank 3 to 5 whose suit index is below the rank index (suits h, d, s, c = 0 to 3,
  ``game_rules.py:211``): the showdown evaluator (``ValueFiller.py:248-258``) reads 3h, 4h,
  4d, 5h, 5d and 5s as 2d, 2s, 3s, 2c, 3c and 4c. rcfr ranks hands correctly.
- **Turn endgames.** An all-in called on the turn is averaged over all 48 river cards with the
  ones either hand holds counted as ties (``ValueFiller.py:307-322``); rcfr deals the 44 cards
  left. The papers publish no curves for endgames 1 and 2.
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import NamedTuple

import numpy as np

from ...core.errors import RcfrError
from .action_tree import (
    ALL_IN,
    BET,
    CALL,
    CHANCE,
    CHECK,
    DEAL,
    DECISION,
    FOLD,
    FOLDED,
    IP,
    OOP,
    RAISE,
    RIVER,
    SHOWDOWN,
    TURN,
    Action,
    Node,
)
from .cards import RANK_CHARS, card_from_str
from .combos import NUM_COMBOS, combo_index, disjoint_mass, live_combos
from .spot_game import SpotGame

ENDGAMES = (1, 2, 3, 4)
STACK = 20_000  # chips a player at the start of the hand
BIG_BLIND = 100
ALL_IN_POTS = 100_000.0  # PokerRL's all-in "fraction of the pot"
B_3 = (0.5, 1.0, ALL_IN_POTS)  # agent_bet_set: the first bet of a round
B_2 = (1.0, ALL_IN_POTS)  # other_agent_bet_set: every raise after it
ROUNDS = {3: TURN, 4: RIVER}  # the files' round -> rcfr's street
_LIBRATUS_SUITS = "shdc"  # the files' suit order


class Endgame(NamedTuple):
    """One endgame: its ``round`` (3 = the turn, 4 = the river, as in the files), ``board``
    (card ids), ``pot`` (chips), and each player's 1,326 reach probabilities in
    :mod:`~rcfr.games.holdem.combos` order (``reach0``: out of position, first to act)."""

    round: int
    board: tuple[int, ...]
    pot: int
    reach0: np.ndarray
    reach1: np.ndarray


@functools.lru_cache(maxsize=1)
def libratus_order() -> np.ndarray:
    """``order[i]``: the combo index of the files' ``i``-th hand (2s2h, 2s2d, 2s2c, 2s3s, ...,
    AdAc: ranks 2..A, suits s h d c, each pair once with the lower card first)."""
    cards = [card_from_str(r + s) for r in RANK_CHARS for s in _LIBRATUS_SUITS]
    order = np.array([combo_index(cards[i], cards[j])
                      for i in range(52) for j in range(i + 1, 52)], dtype=np.int64)
    order.flags.writeable = False
    return order


def _endgame_text(n: int) -> str:
    if n not in ENDGAMES:
        raise RcfrError(f"there are four Libratus endgames (1 to 4), not {n!r}")
    path = resources.files("rcfr.games.holdem").joinpath(f"data/libratus/subgame{n}.txt")
    return path.read_text(encoding="utf-8")


@functools.lru_cache(maxsize=4)
def load_endgame(n: int) -> Endgame:
    """Endgame ``n`` (1 to 4) from the shipped file, the hands in rcfr's combo order."""
    fields = {}
    for line in _endgame_text(n).splitlines():
        key, _, value = line.strip().partition(" ")
        fields[key.lstrip("-")] = value.split()
    reach = np.array([float(x) for x in fields["reach"]])
    if reach.shape != (2 * NUM_COMBOS,):  # pragma: no cover (shipped data)
        raise RcfrError(f"endgame {n}: {reach.size} reach values, not {2 * NUM_COMBOS}")
    text = fields["board"][0]
    board = tuple(card_from_str(text[i:i + 2]) for i in range(0, len(text), 2))
    out = []
    for half in (reach[:NUM_COMBOS], reach[NUM_COMBOS:]):
        r = np.zeros(NUM_COMBOS)
        r[libratus_order()] = half
        r.flags.writeable = False
        out.append(r)
    return Endgame(int(fields["round"][0]), board, int(fields["pot"][0]), out[0], out[1])


class _Round(NamedTuple):
    """The betting state PokerRL's environment keeps within a round (rcfr's player order)."""

    street: int
    pot: int  # chips in the pot at the start of the round
    base: int  # chips each player had matched beyond the endgame's pot at its start
    bets: tuple[int, int]  # chips put in this round
    behind: tuple[int, int]  # chips behind
    acted: tuple[bool, bool]
    raises: int  # bets and raises this round


def _raise_amounts(state: _Round, player: int, bets: tuple, raises: tuple) -> list[int]:
    """PokerRL's legal bet/raise amounts ("to" amounts this round), in its order."""
    mine, most = state.bets[player], max(state.bets)
    if state.behind[player] + mine <= most:  # a call puts him all-in
        return []
    to_call = most - mine
    min_to = most + max(most - min(state.bets), BIG_BLIND)
    all_in = state.behind[player] + mine
    out, too_small = [], None
    for f in sorted(bets if state.raises == 0 else raises):
        want = mine + int(to_call + (state.pot + sum(state.bets) + to_call) * f)
        got = min(max(min_to, want), all_in)
        if want < got:
            too_small = got
        else:
            if too_small is not None:
                out.append(too_small)
                too_small = None
            out.append(got)
        if want > got:
            break
    return out


def pokerrl_action_tree(round: int, pot: int, stack: int | None = None,
                        bets: tuple = B_3, raises: tuple = B_2, oop: int = OOP) -> Node:
    """The betting tree of PokerRL's ``DiscretizedNLHoldemSubGame`` (the rules in the module
    docstring) from ``round`` (3 = the turn, 4 = the river, as in the endgame files) with
    ``pot`` chips in the pot and ``stack`` behind each player (default ``20,000 - pot // 2``);
    ``bets`` are the pot fractions of a round's first bet, ``raises`` those of every raise
    after it. Nodes and amounts as :mod:`~rcfr.games.holdem.action_tree`'s: player ``oop``
    (0, or 1 to number the players as PokerRL's seats) is out of position and acts first,
    ``amount`` is the chips each player has matched beyond ``pot``; a called all-in before
    the river runs out through chance nodes to the showdown."""
    if round not in ROUNDS:
        raise RcfrError(f"an endgame starts on round 3 (the turn) or 4 (the river), not {round!r}")
    stack = STACK - pot // 2 if stack is None else int(stack)
    if pot <= 0 or stack <= 0:
        raise RcfrError(f"an endgame needs a positive pot and stack, not {pot} and {stack}")
    if oop not in (0, 1):
        raise RcfrError(f"the out-of-position player is 0 or 1, not {oop!r}")
    start = _Round(ROUNDS[round], int(pot), 0, (0, 0), (stack, stack), (False, False), 0)
    root = Node(DECISION, oop, start.street, 0)
    todo = [(root, start)]
    while todo:
        node, state = todo.pop()
        for action, child, child_state in _children(node, state, bets, raises, oop):
            node.actions.append(action)
            node.children.append(child)
            if child_state is not None:
                todo.append((child, child_state))
    return root


def _next_round(state: _Round, amount: int) -> _Round:
    return _Round(state.street + 1, state.pot + 2 * max(state.bets), amount, (0, 0),
                  state.behind, (False, False), 0)


def _children(node: Node, state: _Round, bets: tuple, raises: tuple, oop: int):
    """``(action, child node, child's state or None)`` for each action at ``node``."""
    if node.kind == CHANCE:
        nxt = _next_round(state, node.amount)
        if 0 in nxt.behind:  # an all-in was called: run the board out
            kind = CHANCE if nxt.street < RIVER else SHOWDOWN
            child = Node(kind, -1, nxt.street, node.amount)
        else:
            child = Node(DECISION, oop, nxt.street, node.amount)
        yield Action(DEAL), child, (nxt if child.kind != SHOWDOWN else None)
        return
    player, street = node.player, node.street
    mine, most = state.bets[player], max(state.bets)
    to_call = most - mine
    if to_call > 0:
        yield Action(FOLD), Node(FOLDED, player, street, node.amount), None
    # check or call
    paid = min(to_call, state.behind[player])
    new_bets = _set(state.bets, player, mine + paid)
    behind = _set(state.behind, player, state.behind[player] - paid)
    acted = _set(state.acted, player, True)
    called = state._replace(bets=new_bets, behind=behind, acted=acted)
    amount = state.base + min(new_bets)
    if new_bets[0] == new_bets[1] and all(acted):  # the round is over
        if street == RIVER:
            after = Node(SHOWDOWN, -1, street, amount), None
        else:
            after = Node(CHANCE, -1, street, amount), called
    else:
        after = Node(DECISION, player ^ 1, street, amount), called
    yield Action(CHECK if to_call == 0 else CALL), *after
    # bets and raises
    for to in _raise_amounts(state, player, bets, raises):
        behind = _set(state.behind, player, state.behind[player] - (to - mine))
        kind = ALL_IN if behind[player] == 0 else (BET if most == 0 else RAISE)
        new_bets = _set(state.bets, player, to)
        raised = state._replace(bets=new_bets, behind=behind, acted=acted,
                                raises=state.raises + 1)
        yield (Action(kind, to), Node(DECISION, player ^ 1, street, state.base + min(new_bets)),
               raised)


def _set(pair: tuple, i: int, value) -> tuple:
    return (value, pair[1]) if i == 0 else (pair[0], value)


class LibratusEndgame(SpotGame):
    """A Libratus endgame: a spot game whose string is ``libratus_endgame(n=N)``."""

    def defaults(self) -> dict:
        return {"pokerrl": False}


def libratus_endgame(n: int = 3, pokerrl: bool = False) -> LibratusEndgame:
    """Libratus endgame ``n`` (1 to 4) as a game: its board, pot and 20,000-chip stacks, the
    reach vectors as the two ranges and PokerRL's betting (:func:`pokerrl_action_tree`).
    The out-of-position player is player 0, acts first and holds the file's first vector,
    as Libratus's README says. ``pokerrl=True`` numbers the players as PokerRL's seats, the
    game the DCFR and DDCFR papers' curves were computed on: player 0 is seat 0, who acts
    second (and is updated first by alternating updates), and holds the file's first
    vector; player 1, out of position, the second one (``games.py:406, 436-439``). Payoffs
    are chips; :func:`pokerrl_scale` converts an exploitability to the papers' unit."""
    e = load_endgame(n)
    root = pokerrl_action_tree(e.round, e.pot, oop=1 if pokerrl else 0)
    ranges = (e.reach0, e.reach1)
    return LibratusEndgame(e.board, ranges, e.pot, STACK - e.pot // 2, root,
                           short_name="libratus_endgame", big_blind=BIG_BLIND, n=n,
                           pokerrl=bool(pokerrl))


def pokerrl_scale(n: int) -> float:
    """The factor from rcfr's exploitability of endgame ``n`` (chips; the deal normalised
    over the pairs of hands that share no card) to the DCFR/DDCFR papers' unit: big blinds of
    100 chips, times the mass PokerRL's deal keeps, ``sum r0[x] r1[y]`` over the pairs of
    hands ``x``, ``y`` that share no card with each other or the board, each vector
    normalised to 1 alone (``games.py:439``, ``ValueFiller.py:521-542``)."""
    e = load_endgame(n)
    live = live_combos(e.board)
    r0, r1 = (np.where(live, r, 0.0) for r in (e.reach0, e.reach1))
    return float(r0 @ disjoint_mass(r1)) / (e.reach0.sum() * e.reach1.sum()) / BIG_BLIND


__all__ = ["B_2", "B_3", "BIG_BLIND", "ENDGAMES", "IP", "OOP", "STACK", "Endgame",
           "LibratusEndgame", "libratus_endgame", "libratus_order", "load_endgame",
           "pokerrl_action_tree", "pokerrl_scale"]
