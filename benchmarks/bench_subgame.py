#!/usr/bin/env python
"""Safe and nested subgame solving (rcfr.subgame; Brown & Sandholm 2017, Tables 1 and 2) on the
games rcfr has, every number exact in the full game.

Table 1: a blueprint (CFR+ on a card or wager abstraction, lifted to the full game) and the
same blueprint with every subgame at the cut re-solved for both players by unsafe re-solving,
Resolve, Maxmargin and Reach-Maxmargin (CFR+ on each gadget, ``--resolve-iterations``):
full-game exploitability in mbb/g and the seconds spent re-solving (medians over
``--repeats``).  The paper's ordering to look for: Reach-Maxmargin <= Maxmargin <= Resolve <
blueprint, unsafe sometimes worse.

Table 2: no-limit one-card poker and 2-NL Hold'em(k) with a wager abstraction
(``--table2-games``); for every opening wager the abstraction lacks, how much more than its
best abstract opening player 0 wins by it (its restricted best-response value, in mbb/g)
against the abstraction's translation (soft
geometric) and against nested re-solving of the subgame that the actual wager starts, and the
full-game exploitability with every off-tree opening translated or re-solved (CPU seconds for
all of them).

2-NL Hold'em(k) (``--holdem-stacks``): a blueprint by external-sampling MCCFR on the bucketed
game, every flop subgame re-solved on the history form; the seconds to re-solve its largest
flop subgame.  ``--public-stacks``: the same comparison on the public form (subgames are
public subtrees, gadgets solved in vector form), which reaches Hold'em(20).
``--one-subgame-stacks``: the largest flop subgame compiled alone on the public form (no
blueprint, no full tree), timed to compile, to re-solve and per CFR+ iteration; k = 36's
included (76 million histories in the history form).

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
TABLE2_GAMES = ("nl_one_card", "nl_holdem2(stack=8)", "nl_holdem2(stack=10)",
               "nl_holdem2(stack=12)")
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


def table2(iterations: int, resolve_iterations: int,
           games: tuple[str, ...] = TABLE2_GAMES) -> list[dict]:
    rows = []
    for game in games:
        base = rcfr.load_game(game)
        for spec in TABLE2:
            t0 = time.process_time()
            blueprint = rcfr.solve(game, "cfr+", iterations, abstraction=spec).policy
            blueprint_seconds = time.process_time() - t0
            ab = parse_abstraction(spec, base)
            per: dict[str, dict] = {}
            full = {"game": game, "abstraction": spec, "wager": "full game",
                    "translation": evaluate(blueprint).exploitability_mbb,
                    "blueprint_seconds": blueprint_seconds}
            for m in METHODS:
                t0 = time.process_time()
                out = nested_resolve(blueprint, ab, "actions:1", m,
                                     iterations=resolve_iterations)
                full[m + "_seconds"] = time.process_time() - t0
                full[m] = evaluate(out.policy).exploitability_mbb
                floor = out.in_tree_value[0]
                for r in out.rows:
                    d = per.setdefault(r.name, {"game": game, "abstraction": spec,
                                                "wager": r.name})
                    d["translation"] = _mbb(game, r.translation_value - floor)
                    d[m] = _mbb(game, r.nested_value - floor)
                    d[m + "_seconds"] = r.resolved.seconds
            rows.extend(per.values())
            rows.append(full)
            print(f"{game}@{spec}: full-game exploitability (mbb/g) translation "
                  f"{full['translation']:.1f}, nested " + ", ".join(
                      f"{m} {full[m]:.1f} ({full[m + '_seconds']:.1f} s)" for m in METHODS),
                  flush=True)
            for d in per.values():
                print(f"  {d['wager']:>12}: gain over the abstract openings (mbb/g) "
                      f"translation {d['translation']:7.1f}  " + "  ".join(
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


def one_flop_subgame(stacks: list[int], iterations: int, repeats: int) -> list[dict]:
    """The largest flop subgame of 2-NL Hold'em(k) (after a limp and a check) on the public
    form, compiled alone from the game (:func:`rcfr.forms.public.subtree.compile_subtree`: the
    rest of the tree is never built), re-solved by the Resolve gadget in vector form (the
    root rows' reach 1, alternative values 0: the timing does not depend on them).  CPU
    seconds (medians over ``repeats``) to compile it, to set the gadget up and per CFR+
    iteration; ``resolve_seconds``: set-up plus ``iterations`` iterations."""
    import resource

    import numpy as np

    from rcfr.forms.public.subtree import compile_subtree
    from rcfr.subgame.public_resolving import solve_gadget

    rows = []
    for k in stacks:
        game = f"nl_holdem2(stack={k})"
        rcfr.load_game(game).public_structure()  # (the card abstraction, loaded once)
        comp, sub = [], None
        for _ in range(repeats):
            t0 = time.process_time()
            sub = compile_subtree(game, [1, 1, 0, 0])  # limp, check, both flop buckets
            comp.append(time.process_time() - t0)
        reach, w, alt = [np.ones(25), np.ones(25)], np.ones(25), np.zeros(25)
        solve_gadget(sub, "resolve", 1, reach, 1, alt, w)  # (kernels loaded)
        total, per = [], []
        for _ in range(repeats):
            t0 = time.process_time()
            sol = solve_gadget(sub, "resolve", 1, reach, iterations, alt, w)
            total.append(time.process_time() - t0)
            one = solve_gadget(sub, "resolve", 1, reach, 2 * iterations, alt, w)
            per.append((one.seconds - sol.seconds) / iterations)
        row = {"game": game, **sub.sizes(), "histories": sub.tree.num_nodes,
               "compile_seconds": statistics.median(comp), "iterations": iterations,
               "resolve_seconds": statistics.median(total),
               "iteration_seconds": statistics.median(per),
               "max_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6}
        rows.append(row)
        print(f"{game} largest flop subgame: {row['public_nodes']:,} public nodes, "
              f"{row['histories']:,} histories; compiled alone in {row['compile_seconds']:.2f} s; "
              f"Resolve gadget set-up + {iterations} CFR+ iterations "
              f"{row['resolve_seconds']:.2f} s; one iteration {row['iteration_seconds']:.4f} s "
              f"(CPU; peak RSS {row['max_rss_gb']:.2f} GB)", flush=True)
    return rows


def holdem_public(stacks: list[int], blueprint_iterations: int, resolve_iterations: int
                  ) -> list[dict]:
    """2-NL Hold'em(k) on the public form (Brown & Sandholm 2017, Table 1's layout): a coarse
    blueprint (external-sampling MCCFR on the public tree), then every flop subgame re-solved
    for both players by each method (``resolve_iterations`` of CFR+ per gadget, vector form);
    full-game exploitability in mbb/g and CPU seconds for all the re-solves."""
    from rcfr.forms.public.subtree import chance_cut
    from rcfr.policy import TabularPolicy
    from rcfr.subgame.public_resolving import resolve_everywhere_public

    rows = []
    for k in stacks:
        game = f"nl_holdem2(stack={k})"
        t0 = time.process_time()
        pub = rcfr.compile_game(game, form="public")
        compile_s = time.process_time() - t0
        t0 = time.process_time()
        blueprint = rcfr.solve(pub, "es", blueprint_iterations, seed=0).policy
        bp_s = time.process_time() - t0
        cut = chance_cut(pub, 1)
        row = {"game": game, "histories": pub.num_nodes, "compile_seconds": compile_s,
               "blueprint_seconds": bp_s, "blueprint_iterations": blueprint_iterations,
               "subgames": int(cut.size), "blueprint": evaluate(blueprint).exploitability_mbb}
        for m in METHODS:
            t0 = time.process_time()
            probs, _ = resolve_everywhere_public(pub, blueprint.probs, m,
                                                 iterations=resolve_iterations)
            row[m + "_seconds"] = time.process_time() - t0
            row[m] = evaluate(TabularPolicy(pub, probs)).exploitability_mbb
            print(f"  {game} {m}: {row[m]:.1f} mbb/g ({row[m + '_seconds']:.1f} s)", flush=True)
        rows.append(row)
        print(f"{game}: {pub.num_nodes:,} histories, {cut.size} flop subgames; blueprint "
              f"(ES MCCFR, {blueprint_iterations:,} iterations) {row['blueprint']:.1f} mbb/g  " +
              "  ".join(f"{m} {row[m]:.1f} ({row[m + '_seconds']:.1f} s)" for m in METHODS),
              flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=2000, help="CFR+ on abstract games")
    ap.add_argument("--resolve-iterations", type=int, default=1000, help="CFR+ per gadget")
    ap.add_argument("--repeats", type=int, default=3, help="timing repeats (median)")
    ap.add_argument("--table2-games", default=";".join(TABLE2_GAMES),
                    help="games of Table 2, ';'-separated")
    ap.add_argument("--holdem-stacks", default="8,12", help="2-NL Hold'em stacks, e.g. 8,12 "
                    "('' skips it)")
    ap.add_argument("--mccfr-iterations", type=int, default=20_000)
    ap.add_argument("--one-subgame-stacks", default="20,30,36", help="2-NL Hold'em stacks "
                    "whose largest flop subgame is timed alone on the public form ('' skips it)")
    ap.add_argument("--one-subgame-iterations", type=int, default=10)
    ap.add_argument("--public-stacks", default="20", help="2-NL Hold'em stacks for the "
                    "public-form Table 1 ('' skips it)")
    ap.add_argument("--public-blueprint-iterations", type=int, default=200_000,
                    help="external-sampling MCCFR iterations for the public-form blueprint")
    ap.add_argument("--only", default="", help="comma list of parts to run: table1, table2, "
                    "holdem, one, public (default: all)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    only = {x.strip() for x in args.only.split(",") if x.strip()}
    run = (lambda part: not only or part in only)  # noqa: E731
    out: dict = {}
    if run("table1"):
        print("Table 1: full-game exploitability (mbb/g) after re-solving every subgame")
        out["table1"] = table1(args.iterations, args.resolve_iterations, args.repeats)
    if run("table2"):
        print("\nTable 2: nested re-solving vs translation of off-tree openings")
        games = tuple(g.strip() for g in args.table2_games.split(";") if g.strip())
        out["table2"] = table2(args.iterations, args.resolve_iterations, games)
    stacks = [int(s) for s in args.holdem_stacks.split(",") if s.strip()]
    if stacks and run("holdem"):
        print("\n2-NL Hold'em(k), flop subgames")
        out["holdem"] = holdem(stacks, args.mccfr_iterations, args.resolve_iterations)
    one = [int(s) for s in args.one_subgame_stacks.split(",") if s.strip()]
    if one and run("one"):
        print("\n2-NL Hold'em(k), the largest flop subgame alone (public form)")
        out["one_subgame"] = one_flop_subgame(one, args.one_subgame_iterations, args.repeats)
    public = [int(s) for s in args.public_stacks.split(",") if s.strip()]
    if public and run("public"):
        print("\n2-NL Hold'em(k) on the public form, every flop subgame re-solved")
        out["holdem_public"] = holdem_public(public, args.public_blueprint_iterations,
                                             args.resolve_iterations)
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
