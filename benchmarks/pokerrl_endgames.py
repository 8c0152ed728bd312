#!/usr/bin/env python
"""PokerRL's river endgames re-derived in numpy, to measure what its rules do to the curves.

The DCFR and DDCFR papers' curves on Libratus endgames 3 and 4 come from PokerRL
(``DiscretizedNLHoldemSubGame``; ``rcfr.games.holdem.libratus`` lists its rules with their
source lines). This script plays that game the way PokerRL evaluates it, with dense
1,326 x 1,326 matrices and none of rcfr's solvers: PokerRL's seats (seat 0 acts second, holds
the file's first vector and is updated first), each reach vector normalised alone, the pairs
of hands that share a card dropped without renormalising, exploitability as the mean
best-response gain in big blinds; CFR, CFR+ and DCFR as PokerRL's ``VanillaCFR``, ``CFRPlus``
and ``DCFR`` update (alternating, uniform first strategies). With ``--misread`` hands are
ranked as PokerRL's evaluator ranks them, 3h 4h 4d 5h 5d 5s read as 2d 2s 3s 2c 3c 4c (a hand
that then holds a card twice ranks below every real hand); without it, correctly -- the game
``libratus_endgame(n, pokerrl=true)`` is, and rcfr's curves on it equal these to rounding.

    .venv/bin/python benchmarks/pokerrl_endgames.py                  # iterations 1, 2, 10
    .venv/bin/python benchmarks/pokerrl_endgames.py --iterations 100 --misread

It prints each value beside the published one (about 0.3 s an iteration).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

try:
    import rcfr  # noqa: F401
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from rcfr.experiments.published import published_value
from rcfr.games.holdem.action_tree import DECISION, FOLDED, SHOWDOWN
from rcfr.games.holdem.cards import card_from_str
from rcfr.games.holdem.combos import COMBO_CARDS, COMBO_MASKS, live_combos
from rcfr.games.holdem.libratus import load_endgame, pokerrl_action_tree
from rcfr.games.holdem.strength import river_strength, strength7

MISREAD = {card_from_str(a): card_from_str(b) for a, b in
           (("3h", "2d"), ("4h", "2s"), ("4d", "3s"), ("5h", "2c"), ("5d", "3c"), ("5s", "4c"))}
RULES = ("cfr", "cfr+", "dcfr")


def misread_strength(board) -> np.ndarray:
    """Every combo's strength as PokerRL's evaluator sees it (0 where the board blocks it)."""
    live = live_combos(board)
    out = np.zeros(len(live), dtype=np.int64)
    rows, index = [], []
    for k in np.flatnonzero(live):
        cards = [MISREAD.get(int(c), int(c)) for c in (*board, *COMBO_CARDS[k])]
        if len(set(cards)) == 7:
            rows.append(cards)
            index.append(k)
        else:
            out[k] = -1  # a card twice: below every real hand
    out[index] = strength7(np.array(rows))
    return out


class Endgame:
    """A river endgame as PokerRL evaluates it (players = PokerRL's seats)."""

    def __init__(self, n: int, misread: bool) -> None:
        e = load_endgame(n)
        self.root = pokerrl_action_tree(e.round, e.pot, oop=1)
        self.pot = e.pot
        live = live_combos(e.board)
        free = (COMBO_MASKS[:, None] & COMBO_MASKS[None, :]) == 0
        self.meet = (free & live[:, None] & live[None, :]).astype(float)
        s = (misread_strength(e.board) if misread else
             river_strength(e.board)[0].astype(np.int64))
        self.win = np.sign(s[:, None] - s[None, :]) * self.meet
        self.reach = np.array([e.reach0 / e.reach0.sum(), e.reach1 / e.reach1.sum()])
        self.nodes = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            if node.kind == DECISION:
                self.nodes.append(node)
                k = len(node.children)
                node.strategy = np.full((len(s), k), 1 / k)
                node.regret = node.total = None
            stack += node.children

    def values(self, node, reach, strategy="strategy"):
        """(values, best-response values) per player and hand, PokerRL's recursion."""
        if node.kind in (FOLDED, SHOWDOWN):
            u = self.win if node.kind == SHOWDOWN else self.meet * (1 - 2 * (node.player == 0))
            stake = self.pot / 2 + node.amount
            v = np.array([stake * (u @ reach[1]), -stake * (u.T @ reach[0])])
            return v, v
        q, sigma = node.player, getattr(node, strategy)
        kids = []
        for a, child in enumerate(node.children):
            r = reach.copy()
            r[q] = reach[q] * sigma[:, a]
            kids.append(self.values(child, r, strategy))
        v = np.array([k[0] for k in kids])
        b = np.array([k[1] for k in kids])
        if strategy == "strategy":
            node.action_values = v[:, q].T  # (hands, actions)
            node.value = (sigma * node.action_values).sum(axis=1)
            node.own_reach = reach[q]
        value, best = v.sum(axis=0), b.sum(axis=0)
        value[q] = node.value if strategy == "strategy" else (sigma.T * v[:, q]).sum(axis=0)
        best[q] = b[:, q].max(axis=0)
        return value, best

    def exploitability(self) -> float:
        for node in self.nodes:
            s = node.total.sum(axis=1, keepdims=True)
            with np.errstate(invalid="ignore", divide="ignore"):
                node.average = np.where(s > 0, node.total / s, 1 / node.total.shape[1])
        v, b = self.values(self.root, self.reach, "average")
        return float(((b - v) * self.reach).sum(axis=1).mean()) / 100

    def iterate(self, rule: str, t: int) -> None:
        """Iteration ``t`` (1, 2, ...): seat 0, then seat 1, as ``_CFRBase.iteration``."""
        for p in (0, 1):
            self.values(self.root, self.reach)
            for node in self.nodes:
                if node.player != p:
                    continue
                r = node.action_values - node.value[:, None]
                if node.regret is not None:
                    if rule == "dcfr":
                        g = (t - 1) ** 1.5 / ((t - 1) ** 1.5 + 1)
                        r = r + np.where(node.regret > 0, node.regret * g, node.regret / 2)
                    else:
                        r = r + node.regret
                node.regret = np.maximum(r, 0) if rule == "cfr+" else r
                weight = t if rule == "cfr+" else 1
                add = node.strategy * node.own_reach[:, None] * weight
                if node.total is None:
                    node.total = add
                elif rule == "dcfr":
                    node.total = node.total * ((t - 1) / t) ** 2 + add
                else:
                    node.total = node.total + add
                pos = np.maximum(node.regret, 0)
                s = pos.sum(axis=1, keepdims=True)
                with np.errstate(invalid="ignore", divide="ignore"):
                    node.strategy = np.where(s > 0, pos / s, 1 / pos.shape[1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--misread", action="store_true", help="rank hands as PokerRL does")
    ap.add_argument("--games", default="3,4")
    ap.add_argument("--rules", default=",".join(RULES))
    args = ap.parse_args(argv)
    keep = sorted({1, 2, 10, 100, 1000} & set(range(1, args.iterations + 1)))
    print(f"{'game':<18} {'rule':<5} {'iteration':>9} {'this script':>14} {'published':>14}")
    for n in (int(g) for g in args.games.split(",")):
        for rule in args.rules.split(","):
            game = Endgame(n, args.misread)
            for t in range(1, args.iterations + 1):
                game.iterate(rule, t)
                if t in keep:
                    ours = game.exploitability()
                    theirs = published_value(f"libratus_endgame{n}", rule, t)
                    print(f"libratus_endgame{n:<2} {rule:<5} {t:>9} {ours:>14.6g} "
                          f"{theirs:>14.6g}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
