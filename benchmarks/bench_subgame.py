#!/usr/bin/env python
"""Safe and nested subgame solving (rcfr.subgame; Brown & Sandholm 2017, Tables 1 and 2) on the
games rcfr has, every number exact in the full game.

Table 1: a blueprint (CFR+ on a card or wager abstraction, lifted to the full game) and the
same blueprint with every subgame at the cut re-solved for both players by unsafe re-solving,
Resolve, Maxmargin and Reach-Maxmargin (CFR+ on each gadget, ``--resolve-iterations``):
full-game exploitability in mbb/g and the seconds spent re-solving (medians over
``--repeats``).  The paper's ordering to look for: Reach-Maxmargin <= Maxmargin <= Resolve <
blueprint, unsafe sometimes worse.

Table 2: no-limit one-card poker with a wager abstraction; for every opening wager the
abstraction lacks, how much more than its best abstract opening player 0 wins by it (its
restricted best-response value, in mbb/g) against the abstraction's translation (soft
geometric) and against nested re-solving of the subgame that the actual wager starts.

2-NL Hold'em(k) (``--holdem-stacks``): a blueprint by external-sampling MCCFR on the bucketed
game, every flop subgame re-solved; the seconds to re-solve its largest flop subgame.  The
subgames are cut from the history form, so only small stacks fit (see docs/subgame.md).
``--one-subgame-stacks``: the largest flop subgame built alone from its root states (no
blueprint), timed to compile and for 100 CFR+ iterations.

    nice .venv/bin/python benchmarks/bench_subgame.py
    nice .venv/bin/python benchmarks/bench_subgame.py --iterations 10000 --json out.json

OpenSpiel has no subgame solving, so there is no same-run ratio to report.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
try:
    import rcfr
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import rcfr
from rcfr.evaluate import evaluate
from rcfr.games.transforms.parse import parse_abstraction
from rcfr.subgame import METHODS, Blueprint, find_subgames, method_function, nested_resolve
from rcfr.subgame.everywhere import resolve_everywhere

TABLE1 = (("leduc", "J.QK", "chance:3"), ("leduc", "JQ.K", "chance:3"),
          ("leduc", "JQK", "chance:3"), ("nl_one_card", "P", "actions:1"),
          ("nl_one_card", "HP", "actions:1"), ("nl_one_card", "PD", "actions:1"))
TABLE2 = ("null", "P", "HP", "PD")
# Table 1's columns: each method with the blueprint's counterfactual best-response values, and
# the estimated variants (the blueprint's own values as alternatives; Brown & Sandholm 2017,
# "Estimated-Maxmargin")
COLUMNS = tuple((m, m, "best-response") for m in METHODS) + (
    ("est-maxmargin", "maxmargin", "blueprint"),
    ("reach-est-maxmargin", "reach-maxmargin", "blueprint"))


def _mbb(game: str, x: float) -> float:
    return 1000.0 * x / (rcfr.load_game(game).big_blind or 1.0)


def table1(iterations: int, resolve_iterations: int, repeats: int) -> list[dict]:
    rows = []
    for game, spec, cut in TABLE1:
        blueprint = rcfr.solve(game, "cfr+", iterations, abstraction=spec).policy
        row = {"game": game, "abstraction": spec, "cut": cut,
               "subgames": len(find_subgames(game, cut)),
               "blueprint": evaluate(blueprint).exploitability_mbb}
        for m, method, values in COLUMNS:
            kw = {} if method == "unsafe" else {"values": values}
            times, expl = [], None
            for _ in range(repeats):
                r = resolve_everywhere(blueprint, cut, method, iterations=resolve_iterations,
                                       **kw)
                times.append(r.seconds)
                expl = r.evaluation.exploitability_mbb
            row[m] = expl
            row[m + "_seconds"] = statistics.median(times)
        rows.append(row)
        print(f"{game}@{spec} at {cut} ({row['subgames']} subgames): blueprint "
              f"{row['blueprint']:.1f}  " + "  ".join(
                  f"{m} {row[m]:.1f} ({row[m + '_seconds']:.2f} s)" for m, _, _ in COLUMNS),
              flush=True)
    return rows


def table2(iterations: int, resolve_iterations: int) -> list[dict]:
    game = "nl_one_card"
    base = rcfr.load_game(game)
    rows = []
    for spec in TABLE2:
        blueprint = rcfr.solve(game, "cfr+", iterations, abstraction=spec).policy
        ab = parse_abstraction(spec, base)
        per: dict[str, dict] = {}
        full = {"translation": evaluate(blueprint).exploitability_mbb}
        for m in METHODS:
            out = nested_resolve(blueprint, ab, "actions:1", m, iterations=resolve_iterations)
            full[m] = evaluate(out.policy).exploitability_mbb
            floor = out.in_tree_value[0]
            for r in out.rows:
                d = per.setdefault(r.name, {"abstraction": spec, "wager": r.name})
                d["translation"] = _mbb(game, r.translation_value - floor)
                d[m] = _mbb(game, r.nested_value - floor)
                d[m + "_seconds"] = r.resolved.seconds
        rows.extend(per.values())
        print(f"{game}@{spec}: full-game exploitability (mbb/g) translation "
              f"{full['translation']:.1f}, nested " + ", ".join(
                  f"{m} {full[m]:.1f}" for m in METHODS), flush=True)
        rows.append({"abstraction": spec, "wager": "full game", **full})
        for d in per.values():
            print(f"  {d['wager']:>12}: gain over the abstract openings (mbb/g) translation "
                  f"{d['translation']:7.1f}  " + "  ".join(
                      f"{m} {d[m]:7.1f}" for m in METHODS), flush=True)
    return rows


def holdem(stacks: list[int], mccfr_iterations: int, resolve_iterations: int) -> list[dict]:
    rows = []
    for k in stacks:
        game = f"nl_holdem2(stack={k})"
        t0 = time.perf_counter()
        tree = rcfr.compile_game(game, form="history")
        compile_s = time.perf_counter() - t0
        blueprint = rcfr.solve(tree, "es", mccfr_iterations).policy
        subgames = find_subgames(tree, "chance:4")
        bp = Blueprint(blueprint)
        big = max(subgames, key=lambda s: len(s.nodes))
        row = {"game": game, "histories": tree.num_nodes, "compile_seconds": compile_s,
               "subgames": len(subgames), "largest_subgame_nodes": int(len(big.nodes)),
               "blueprint": evaluate(blueprint).exploitability_mbb}
        for m in METHODS:
            fn = method_function(m)
            t0 = time.perf_counter()
            kw = {"subgames": subgames} if m == "reach-maxmargin" else {}
            fn(bp, big, 1, iterations=resolve_iterations, **kw)
            row[m + "_one_subgame_seconds"] = time.perf_counter() - t0
            r = resolve_everywhere(blueprint, "chance:4", m, iterations=resolve_iterations)
            row[m] = r.evaluation.exploitability_mbb
            row[m + "_seconds"] = r.seconds
        rows.append(row)
        print(f"{game}: {tree.num_nodes:,} histories, {len(subgames)} flop subgames "
              f"(largest {len(big.nodes):,} nodes); blueprint {row['blueprint']:.1f}  " +
              "  ".join(f"{m} {row[m]:.1f} ({row[m + '_seconds']:.1f} s; one "
                        f"{row[m + '_one_subgame_seconds']:.2f} s)" for m in METHODS),
              flush=True)
    return rows


def one_flop_subgame(stacks: list[int], iterations: int) -> list[dict]:
    """The largest flop subgame of 2-NL Hold'em(k) (after a limp and a check) as a gadget
    built straight from its 625 root states (both bucket pairs), without the full game: the
    beliefs are the deal's (a blueprint that limps and checks with every hand), the
    alternative values 0.  Seconds to compile it and for ``iterations`` CFR+ iterations."""
    import numpy as np

    from rcfr.solvers.run import make_solver
    from rcfr.subgame.gadget import GadgetGame

    rows = []
    for k in stacks:
        game = rcfr.load_game(f"nl_holdem2(stack={k})")
        roots, weights = [], []
        s0 = game.new_initial_state()
        for a, pa in s0.chance_outcomes():
            s1 = s0.child(a)
            for b, pb in s1.chance_outcomes():
                s2 = s1.child(b).child(1).child(1)  # limp, check
                for c, pc in s2.chance_outcomes():
                    s3 = s2.child(c)
                    for d, pd in s3.chance_outcomes():
                        roots.append(s3.child(d))
                        weights.append(pa * pb * pc * pd)
        keys = sorted({r.information_state_string(0) for r in roots})
        where = {key: j for j, key in enumerate(keys)}
        of = np.array([where[r.information_state_string(0)] for r in roots])
        for kind in ("unsafe", "resolve"):
            g = GadgetGame(game, kind, 1, roots, np.array(weights), of, keys,
                           np.zeros(len(keys)))
            t0 = time.perf_counter()
            tree = rcfr.compile_game(g, form="history")
            compile_s = time.perf_counter() - t0
            solver = make_solver(tree, "cfr+")
            solver.run(1)  # kernels loaded
            t0 = time.perf_counter()
            solver.run(iterations)
            rows.append({"game": str(game), "gadget": kind, "histories": tree.num_nodes,
                         "compile_seconds": compile_s, "iterations": iterations,
                         "solve_seconds": time.perf_counter() - t0})
            print(f"{game} largest flop subgame ({kind}): {tree.num_nodes:,} histories, "
                  f"compiled in {compile_s:.1f} s, {iterations} CFR+ iterations in "
                  f"{rows[-1]['solve_seconds']:.2f} s", flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=2000, help="CFR+ on abstract games")
    ap.add_argument("--resolve-iterations", type=int, default=1000, help="CFR+ per gadget")
    ap.add_argument("--repeats", type=int, default=3, help="timing repeats (median)")
    ap.add_argument("--holdem-stacks", default="8,12", help="2-NL Hold'em stacks, e.g. 8,12 "
                    "('' skips it)")
    ap.add_argument("--mccfr-iterations", type=int, default=20_000)
    ap.add_argument("--one-subgame-stacks", default="12,20", help="2-NL Hold'em stacks whose "
                    "largest flop subgame is timed alone ('' skips it; 36 does not fit)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    print("Table 1: full-game exploitability (mbb/g) after re-solving every subgame")
    out = {"table1": table1(args.iterations, args.resolve_iterations, args.repeats)}
    print("\nTable 2: nested re-solving vs translation of off-tree openings")
    out["table2"] = table2(args.iterations, args.resolve_iterations)
    stacks = [int(s) for s in args.holdem_stacks.split(",") if s.strip()]
    if stacks:
        print("\n2-NL Hold'em(k), flop subgames")
        out["holdem"] = holdem(stacks, args.mccfr_iterations, args.resolve_iterations)
    one = [int(s) for s in args.one_subgame_stacks.split(",") if s.strip()]
    if one:
        print("\n2-NL Hold'em(k), the largest flop subgame alone")
        out["one_subgame"] = one_flop_subgame(one, 100)
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
