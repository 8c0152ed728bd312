"""The postflop action tree of a hold'em spot, built as postflop-solver builds it.

From the spot's street to the river, the out-of-position player (OOP, player 0) first. Amounts
are chips put in during the current street ("bet to" amounts). At each decision:

- facing no bet: check, the street's bet sizes (OOP's donk sizes instead, when they are given
  and OOP called the last street's final bet), and all-in when the all-in is at most
  ``add_allin`` times the pot;
- facing a bet: fold, call and, unless the bet was all-in, the raise sizes (a raise's % is of
  the pot after the call, added to the bet faced) and all-in when it is at most the bet faced
  plus ``add_allin`` times that pot;
- every bet is clamped between the minimum (one chip, or the bet faced plus the last raise)
  and all-in, and becomes all-in when the all-in is at most the bet plus ``force_allin`` times
  the pot after the bet and its call; equal actions are kept once, and close sizes merged as
  PioSOLVER does (keep the largest, drop each size whose ``(1 + ratio)`` is within a factor
  ``1 + merging`` of the last kept, then go on below it).

A call (or check behind) ends the street: a chance node deals the next card (one marker
child; the deal itself is not part of this tree), or the river ends in a showdown. After an
all-in is called the remaining streets are chance nodes down to the showdown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NamedTuple

from .bet_sizes import ALLIN, CHIPS, GEOMETRIC, POT, PREV, BetSize

OOP, IP = 0, 1
FLOP, TURN, RIVER = 0, 1, 2
STREETS = ("flop", "turn", "river")
# action kinds, in postflop-solver's order (actions at a node are sorted by kind, then amount)
FOLD, CHECK, CALL, BET, RAISE, ALL_IN, DEAL = range(1, 8)
_NAMES = {FOLD: "fold", CHECK: "check", CALL: "call", BET: "bet", RAISE: "raise",
          ALL_IN: "allin", DEAL: "deal"}
# node kinds
DECISION, CHANCE, FOLDED, SHOWDOWN = "decision", "chance", "fold", "showdown"


class Action(NamedTuple):
    """An action: its kind and, for bets, raises and all-ins, the chips put in this street."""

    kind: int
    amount: int = 0

    def __str__(self) -> str:
        name = _NAMES[self.kind]
        return f"{name} {self.amount}" if self.kind in (BET, RAISE, ALL_IN) else name


@dataclass(frozen=True)
class TreeConfig:
    """What the tree depends on: the first street, the pot and effective stack (chips), each
    street's (bet, raise) sizes per player, the turn and river donk sizes (``None``: OOP uses
    its bet sizes) and the three thresholds (0 turns one off)."""

    street: int
    pot: int
    stack: int
    bets: tuple  # bets[street][player] = (bet sizes, raise sizes)
    donks: tuple = (None, None, None)  # donks[street]: sizes or None
    add_allin: float = 0.0
    force_allin: float = 0.0
    merging: float = 0.0


@dataclass
class Node:
    """A node: ``kind`` (decision, chance, fold or showdown), the ``player`` to act (at a fold,
    the one who folded), its ``street``, ``amount`` (chips each player has matched beyond the
    starting pot), and its ``actions`` with their ``children``."""

    kind: str
    player: int
    street: int
    amount: int
    actions: list = field(default_factory=list)
    children: list = field(default_factory=list)


class _Info(NamedTuple):
    prev: Action  # the last action (kind 0 at the root)
    num_bets: int  # bets and raises in this street
    allin: bool  # the last bet was all-in
    oop_called: bool  # OOP called the last street's final bet (a donk may follow)
    stack: tuple  # chips behind, per player
    prev_amount: int  # the bet faced (this street)

    def next(self, player: int, a: Action) -> _Info:
        num_bets, allin, oop_called = self.num_bets, self.allin, self.oop_called
        stack, prev_amount = list(self.stack), self.prev_amount
        if a.kind == CHECK:
            oop_called = False
        elif a.kind == CALL:
            num_bets, oop_called, prev_amount = 0, player == OOP, 0
            stack[player] = stack[player ^ 1]
        elif a.kind in (BET, RAISE, ALL_IN):
            to_call = stack[player] - stack[player ^ 1]
            num_bets += 1
            allin = a.kind == ALL_IN
            stack[player] -= a.amount - prev_amount + to_call
            prev_amount = a.amount
        return _Info(a, num_bets, allin, oop_called, tuple(stack), prev_amount)


def _round(x: float) -> int:
    """Rust's f64::round (halves away from zero), as postflop-solver rounds amounts."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def build_action_tree(config: TreeConfig) -> Node:
    """The whole tree of ``config``, depth first."""
    root = Node(DECISION, OOP, config.street, 0)
    info = _Info(Action(0), 0, False, False, (config.stack, config.stack), 0)
    stack = [(root, info)]
    while stack:
        node, info = stack.pop()
        if node.kind == CHANCE:
            street = node.street + 1
            if not info.allin:
                kind, player = DECISION, OOP
            else:
                kind, player = (CHANCE if street < RIVER else SHOWDOWN), -1
            child = Node(kind, player, street, node.amount)
            node.actions.append(Action(DEAL))
            node.children.append(child)
            stack.append((child, info.next(-1, Action(DEAL))))
        elif node.kind == DECISION:
            _push_actions(config, node, info)
            for a, child in zip(node.actions, node.children, strict=True):
                stack.append((child, info.next(node.player, a)))
    return root


def _push_actions(config: TreeConfig, node: Node, info: _Info) -> None:
    player = node.player
    player_stack, opp_stack = info.stack[player], info.stack[player ^ 1]
    prev_amount = info.prev_amount
    to_call = player_stack - opp_stack
    pot = config.pot + 2 * (node.amount + to_call)
    max_amount = opp_stack + prev_amount
    min_amount = min(max(prev_amount + to_call, 1), max_amount)
    spr_after_call = opp_stack / pot
    streets_left = 3 - node.street

    def geometric(streets: int, most: float) -> int:
        ratio = ((2 * spr_after_call + 1) ** (1 / streets) - 1) / 2
        return _round(pot * min(ratio, most))

    def first_bet(size: BetSize) -> Action:
        if size.kind == POT:
            return Action(BET, _round(pot * size.value))
        if size.kind == CHIPS:
            return Action(BET, int(size.value))
        if size.kind == GEOMETRIC:
            return Action(BET, geometric(int(size.value) or streets_left, size.cap))
        assert size.kind == ALLIN  # the parser keeps x out of bets
        return Action(ALL_IN, max_amount)

    actions: list[Action] = []
    donks = config.donks[node.street]
    if info.prev.kind in (0, CHECK, DEAL):
        use_donk = donks is not None and info.prev.kind == DEAL and info.oop_called
        sizes = donks if use_donk else config.bets[node.street][player][0]
        actions.append(Action(CHECK))
        actions += [first_bet(s) for s in sizes]
        if max_amount <= _round(pot * config.add_allin):
            actions.append(Action(ALL_IN, max_amount))
    else:
        actions += [Action(FOLD), Action(CALL)]
        if not info.allin:
            for s in config.bets[node.street][player][1]:
                if s.kind == POT:
                    actions.append(Action(RAISE, prev_amount + _round(pot * s.value)))
                elif s.kind == PREV:
                    actions.append(Action(RAISE, _round(prev_amount * s.value)))
                elif s.kind == CHIPS:
                    if s.cap == 0 or info.num_bets <= s.cap:
                        actions.append(Action(RAISE, prev_amount + int(s.value)))
                elif s.kind == GEOMETRIC:
                    streets = max((int(s.value) or streets_left) - info.num_bets + 1, 1)
                    actions.append(Action(RAISE, prev_amount + geometric(streets, s.cap)))
                else:
                    actions.append(Action(ALL_IN, max_amount))
            if max_amount <= prev_amount + _round(pot * config.add_allin):
                actions.append(Action(ALL_IN, max_amount))

    def forced_allin(amount: int) -> bool:
        new_pot = pot + 2 * (amount - prev_amount)
        return max_amount <= amount + _round(new_pot * config.force_allin)

    for i, a in enumerate(actions):
        if a.kind in (BET, RAISE):
            clamped = min(max(a.amount, min_amount), max_amount)
            actions[i] = Action(ALL_IN, max_amount) if forced_allin(clamped) else a._replace(
                amount=clamped)
    actions = _merge(sorted(set(actions)), pot, prev_amount, config.merging)

    after_call = SHOWDOWN if node.street == RIVER else CHANCE
    for a in actions:
        amount = node.amount
        if a.kind == FOLD:
            child = Node(FOLDED, player, node.street, amount)
        elif a.kind == CHECK:
            child = (Node(DECISION, IP, node.street, amount) if player == OOP
                     else Node(after_call, -1, node.street, amount))
        elif a.kind == CALL:
            child = Node(after_call, -1, node.street, amount + to_call)
        else:
            child = Node(DECISION, player ^ 1, node.street, amount + to_call)
        node.actions.append(a)
        node.children.append(child)


def _merge(actions: list[Action], pot: int, offset: int, merging: float) -> list[Action]:
    """PioSOLVER's merging of close sizes, from the largest down (postflop-solver's rule)."""
    eps = 1e-12
    kept, current = [], 2**31 - 1
    for a in reversed(actions):
        if a.kind in (BET, RAISE, ALL_IN) and a.amount > 0:
            ratio = (a.amount - offset) / pot
            limit = ((current - offset) / pot - merging) / (1 + merging)
            if ratio < limit * (1 - eps):
                kept.append(a)
                current = a.amount
        else:
            kept.append(a)
    return kept[::-1]


def count_nodes(root: Node) -> dict[str, int]:
    """Nodes by kind and street: ``decision``, ``chance``, ``fold``, ``showdown``, ``total``,
    and ``flop``, ``turn``, ``river`` (a chance node counts in the street it ends)."""
    counts = dict.fromkeys((DECISION, CHANCE, FOLDED, SHOWDOWN, "total", *STREETS), 0)
    stack = [root]
    while stack:
        node = stack.pop()
        counts[node.kind] += 1
        counts[STREETS[node.street]] += 1
        counts["total"] += 1
        stack += node.children
    return counts


def lines(root: Node) -> list[tuple[str, ...]]:
    """Every root-to-leaf action sequence, as strings (``"bet 100"``, ``"deal"``, ...)."""
    out, stack = [], [(root, ())]
    while stack:
        node, line = stack.pop()
        if not node.children:
            out.append(line)
        for a, child in zip(node.actions, node.children, strict=True):
            stack.append((child, (*line, str(a))))
    return sorted(out)
