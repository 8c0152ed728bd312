#!/usr/bin/env python
"""The DCFR/DDCFR convergence suite at 1,000 iterations: for each game and each full-width
update rule, the exploitability of the average strategy (in the papers' unit,
:func:`rcfr.games.suite.papers_unit`) and the CPU seconds of the iterations; beside them the
DDCFR authors' published CFR, CFR+, DCFR and DDCFR values at 1,000 iterations
(:mod:`rcfr.experiments.published`), rcfr's best rule, the best published value and whether
the first is at or below the second (the target of the convergence work).

    .venv/bin/python benchmarks/bench_convergence.py                          # every game
    .venv/bin/python benchmarks/bench_convergence.py --games kuhn,leduc --rules cfr+,dcfr
    .venv/bin/python benchmarks/bench_convergence.py --iterations 100 --json

CPU seconds: ``time.process_time`` around the solver's iterations (one thread; the game
compiled and the kernels loaded by an untimed one-iteration solve first; the exact evaluation
of the average after them is not counted, but DDCFR's own evaluations, which its policy reads,
are): the iterations' own cost on a shared machine.
Games that need OpenSpiel (Big Leduc, Battleship) are skipped where it is not installed.
Results go to ``benchmarks/results/bench_convergence.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

try:
    import rcfr
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import rcfr
from rcfr.core.errors import RcfrError
from rcfr.core.names import ALGORITHMS as ALGORITHMS_ALL
from rcfr.evaluate import exploitability
from rcfr.experiments.published import ALGORITHMS, published_value
from rcfr.forms.threads import kernel_threads
from rcfr.games.suite import SUITE, papers_unit
from rcfr.solvers.run import make_solver

HERE = Path(__file__).resolve().parent
RULES = ALGORITHMS_ALL  # every tabular rule: the fixed ones, then the scheduled ones


def _run(tree, rule: str, iterations: int) -> dict:
    solver = make_solver(tree, rule)
    with kernel_threads(1):
        c0, w0 = time.process_time(), time.perf_counter()
        solver.run(iterations)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        value = exploitability(tree, solver.average_policy())
    return {"exploitability": value, "cpu_seconds": cpu, "wall_seconds": wall}


def bench_game(name: str, spec: str, rules: list[str], iterations: int) -> dict | None:
    try:
        tree = rcfr.compile_game(spec)
        make_solver(tree, "cfr").run(1)  # load the kernels
    except (RcfrError, ImportError) as exc:
        print(f"{name}: skipped ({exc})", file=sys.stderr)
        return None
    unit = papers_unit(name)
    rows = {}
    for rule in rules:
        row = _run(tree, rule, iterations)
        row["papers_unit"] = row["exploitability"] * unit
        rows[rule] = row
        print(f"{name:18s} {rule:10s} {row['papers_unit']:10.3e} "
              f"{row['cpu_seconds']:8.3f} CPU s {row['wall_seconds']:8.3f} s", file=sys.stderr)
    published = {}
    for algorithm in ALGORITHMS:
        try:
            published[algorithm] = published_value(name, algorithm, iterations)
        except RcfrError:
            pass
    best_rule = min(rows, key=lambda r: rows[r]["papers_unit"])
    best_pub = min(published, key=published.get) if published else None
    out = {"game": name, "spec": spec, "rules": rows, "published": published,
           "best_rule": best_rule, "best": rows[best_rule]["papers_unit"],
           "best_published": best_pub,
           "best_published_value": published.get(best_pub) if best_pub else None}
    if best_pub is not None:
        # the DDCFR code floors exploitability at 1e-12: at or below the floor counts as equal
        floor = max(published[best_pub], 1e-12)
        out["at_or_below"] = bool(out["best"] <= floor * (1 + 1e-9))
    return out


def table(results: list[dict], rules: list[str]) -> str:
    head = ["game", *rules, "best rule", "best published", "at or below"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        cells = [f"`{r['game']}`"]
        cells += [f"{r['rules'][rule]['papers_unit']:.3g}" for rule in rules]
        cells.append(r["best_rule"])
        pub = r.get("best_published")
        cells.append(f"{r['best_published_value']:.3g} ({pub})" if pub else "–")
        cells.append({True: "yes", False: "no", None: "–"}[r.get("at_or_below")])
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default=",".join(g.name for g in SUITE),
                    help="suite names, comma-separated")
    ap.add_argument("--rules", default=",".join(RULES), help="algorithms, comma-separated")
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "bench_convergence.json")
    ap.add_argument("--json", action="store_true", help="print the results as one JSON object")
    args = ap.parse_args(argv)
    by_name = {g.name: g for g in SUITE}
    names = [n for n in args.games.split(",") if n]
    unknown = [n for n in names if n not in by_name]
    if unknown:
        print(f"error: unknown suite games {', '.join(unknown)}", file=sys.stderr)
        return 2
    rules = [r for r in args.rules.split(",") if r]
    results = []
    for name in names:
        r = bench_game(name, name, rules, args.iterations)
        if r is not None:
            results.append(r)
    report = {"iterations": args.iterations, "rules": rules, "games": results,
              "missed": [r["game"] for r in results if r.get("at_or_below") is False],
              "created": time.strftime("%Y-%m-%d %H:%M:%S")}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1, allow_nan=False, default=float))
    if args.json:
        print(json.dumps(report, allow_nan=False))
    else:
        print(table(results, rules))
        print(f"\nat or below the best published value on {len(results) - len(report['missed'])}"
              f" of {len(results)} games; written to {args.out}")
    return 0 if all(math.isfinite(r["best"]) for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
