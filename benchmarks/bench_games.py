#!/usr/bin/env python
"""The seed papers' games: compile time and memory of each, and CFR+ / exploitability speed on
liar's dice Bluff(1,1) against OpenSpiel's C++ solvers, measured in the same run.

    .venv/bin/python benchmarks/bench_games.py            # about a minute with OpenSpiel
    .venv/bin/python benchmarks/bench_games.py --quick
    .venv/bin/python benchmarks/bench_games.py --json

Figures are medians over repeats after an untimed warm-up.  Compile time is the whole walk of
the rules into arrays (``rcfr.forms.history.tree`` without its in-memory cache); memory is
``GameTree.nbytes``
(every array and string table the compiled tree holds) divided by the number of histories.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

try:
    import rcfr
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import rcfr
from timing import median_time

from rcfr.forms.history.tree import _compile
from rcfr.games.registry import load_game

COMPILE_GAMES = ["kuhn", "leduc", "leduc(canonical=true)", "nl_one_card", "goofspiel",
                 "liars_dice"]
BLUFF, BLUFF_OS = "liars_dice", "liars_dice"


def bench_compile(repeats: int) -> dict[str, Any]:
    out = {}
    for spec in COMPILE_GAMES:
        game = load_game(spec)
        seconds = median_time(lambda g=game: _compile(g), repeats)
        tree = _compile(game)
        out[spec] = {**tree.sizes(), "compile_s": seconds,
                     "bytes_per_history": tree.nbytes / tree.num_nodes}
    return out


def bench_rcfr_bluff(iters: int, evals: int, repeats: int) -> dict[str, Any]:
    tree = rcfr.compile_game(BLUFF)
    solver = rcfr.CFRSolver(tree, "cfr+")
    solver.run(2)  # warm-up
    per = median_time(lambda: solver.run(iters), repeats) / iters
    policy = solver.average_policy()
    rcfr.exploitability(tree, policy)
    ms = median_time(lambda: rcfr.exploitability(tree, policy), evals) * 1e3
    return {"cfr+_iters_per_s": 1.0 / per, "exploitability_ms": ms}


def bench_openspiel_bluff(iters: int, repeats: int) -> dict[str, Any]:
    try:
        import pyspiel
    except ImportError as exc:
        return {"available": False, "reason": f"not installed (import pyspiel: {exc})"}
    game = pyspiel.load_game(BLUFF_OS)
    solver = pyspiel.CFRPlusSolver(game)
    solver.evaluate_and_update_policy()  # warm-up

    def step():
        for _ in range(iters):
            solver.evaluate_and_update_policy()

    per = median_time(step, repeats) / iters
    total = 1 + iters * repeats
    policy = solver.average_policy()
    ms = median_time(lambda: pyspiel.exploitability(game, policy), repeats) * 1e3
    theirs = float(pyspiel.exploitability(game, policy))
    tree = rcfr.compile_game(BLUFF)
    ours = rcfr.exploitability(tree, rcfr.CFRSolver(tree, "cfr+").run(total).average_policy())
    return {"available": True, "cfr+_iters_per_s": 1.0 / per, "exploitability_ms": ms,
            "iterations": total, "exploitability": theirs, "rcfr_exploitability": ours}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    ap.add_argument("--no-openspiel", action="store_true", help="skip OpenSpiel")
    args = ap.parse_args(argv)
    repeats = 3 if args.quick else 5
    res: dict[str, Any] = {"compile": bench_compile(repeats),
                           "rcfr": bench_rcfr_bluff(50 if args.quick else 200, 20, repeats)}
    res["openspiel"] = ({"available": False, "reason": "skipped (--no-openspiel)"}
                        if args.no_openspiel else bench_openspiel_bluff(2, 3 if args.quick else 5))
    if args.json:
        print(json.dumps(res, indent=2))
        return 0
    print(f"{'game':24s} {'histories':>10s} {'infosets':>9s} {'sequences':>10s} "
          f"{'compile':>9s} {'bytes/history':>14s}")
    for spec, c in res["compile"].items():
        print(f"{spec:24s} {c['histories']:>10,d} {c['infosets']:>9,d} {c['sequences']:>10,d} "
              f"{c['compile_s']:>8.3f}s {c['bytes_per_history']:>14.1f}")
    r, o = res["rcfr"], res["openspiel"]
    print(f"\nBluff(1,1) = {BLUFF}:")
    print(f"  CFR+ iterations/s     rcfr {r['cfr+_iters_per_s']:10,.1f}", end="")
    if o.get("available"):
        print(f"   OpenSpiel {o['cfr+_iters_per_s']:8,.2f}   "
              f"{r['cfr+_iters_per_s'] / o['cfr+_iters_per_s']:,.0f}x")
        print(f"  one exploitability    rcfr {r['exploitability_ms']:9.2f} ms   OpenSpiel "
              f"{o['exploitability_ms']:8,.0f} ms   "
              f"{o['exploitability_ms'] / r['exploitability_ms']:,.0f}x")
        print(f"  after {o['iterations']} CFR+ iterations: exploitability OpenSpiel "
              f"{o['exploitability']:.12f}, rcfr {o['rcfr_exploitability']:.12f}")
    else:
        print(f"\n  one exploitability    rcfr {r['exploitability_ms']:9.2f} ms")
        print(f"  OpenSpiel: {o['reason']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
