#!/usr/bin/env python
"""RCFR+ speed: a best-first regression tree at 45% of canonical Leduc (302 of 672 sequences),
thesis features, stored Q-regret targets, alternating updates, on one core.

    .venv/bin/python benchmarks/bench_rcfr.py                 # 100,000 iterations (issue 4)
    .venv/bin/python benchmarks/bench_rcfr.py --iterations 5000 --repeats 3
    .venv/bin/python benchmarks/bench_rcfr.py --frcfr --iterations 3000 --repeats 3 --json

``--frcfr``: instead, f-RCFR as D'Orazio et al.'s sweeps run it (``dorazio_leduc``,
``dorazio_goofspiel``: ridge regression on ``hashing:30`` features, the ``exp:1`` link, history
form), the median CPU time per iteration on Leduc and goofspiel (``compare.py`` runs it against
another checkout in the same run).

Prints the wall time, the time per iteration split into the tree pass (everything but the
regressor) and the regressor's fit + predict, and the exploitability reached.  OpenSpiel's RCFR
needs PyTorch, which is not a dependency here, so it is not run; REFERENCE_FACTS.md quotes about
350 ms per iteration for it on this kind of machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

try:
    import rcfr
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import rcfr
from rcfr.solvers.rcfr import RCFRSolver

GAME = "leduc(canonical=true)"


def one_run(tree, iterations: int, leaves: int, bootstrap: bool) -> dict:
    solver = RCFRSolver(tree, "rcfr+", leaves=leaves, bootstrap=bootstrap)
    solver.run(1)  # warm-up: kernels, features, sorting
    fit0 = solver.estimator_.fit_seconds
    t0 = time.perf_counter()
    solver.run(iterations)
    wall = time.perf_counter() - t0
    fit = solver.estimator_.fit_seconds - fit0
    return {"wall_s": wall, "fit_s": fit, "pass_s": wall - fit,
            "exploitability": rcfr.exploitability(tree, solver.average_policy()),
            "complexity": solver.complexity}


def frcfr(iterations: int, repeats: int) -> dict:
    """Median CPU seconds per f-RCFR iteration (ridge, hashing:30, exp:1) on Leduc and
    goofspiel, and the exploitability reached (the same on any checkout of the same maths)."""
    out = {}
    for game in ("leduc", "goofspiel"):
        tree = rcfr.compile_game(game)
        options = {"regressor": "ridge", "features": "hashing:30", "link": "exp:1", "seed": 0}
        rcfr.solve(tree, "rcfr", 5, **options)  # kernels and features loaded
        times = []
        for _ in range(repeats):
            c0 = time.process_time()
            result = rcfr.solve(tree, "rcfr", iterations, **options)
            times.append((time.process_time() - c0) / iterations)
        out[game] = {"iteration_ms": 1e3 * statistics.median(times),
                     "exploitability": result.evaluation.exploitability}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--share", type=float, default=0.45, help="leaves / sequences")
    ap.add_argument("--bootstrap", action="store_true")
    ap.add_argument("--frcfr", action="store_true", help="time f-RCFR with ridge instead")
    ap.add_argument("--json", action="store_true", help="(--frcfr) print JSON")
    args = ap.parse_args(argv)
    if args.frcfr:
        out = frcfr(args.iterations, args.repeats)
        if args.json:
            print(json.dumps(out))
        else:
            for game, r in out.items():
                print(f"f-RCFR ridge hashing:30 exp:1 on {game}: {r['iteration_ms']:.3f} ms "
                      f"of CPU an iteration (median of {args.repeats}), exploitability "
                      f"{r['exploitability']:.6f} after {args.iterations:,}")
        return 0
    tree = rcfr.compile_game(GAME)
    leaves = round(args.share * tree.num_sequences)
    runs = [one_run(tree, args.iterations, leaves, args.bootstrap) for _ in range(args.repeats)]
    med = {k: statistics.median(r[k] for r in runs) for k in ("wall_s", "fit_s", "pass_s")}
    n = args.iterations
    print(f"RCFR+ on {GAME}: best-first trees, {leaves} leaves ({100 * args.share:.0f}% of "
          f"{tree.num_sequences} sequences), thesis features, "
          f"{'bootstrapped' if args.bootstrap else 'stored'} targets")
    print(f"  {n:,} iterations: {med['wall_s']:.1f} s (median of {args.repeats}), "
          f"{n / med['wall_s']:,.0f} it/s")
    print(f"  per iteration: {1e6 * med['wall_s'] / n:.0f} us = tree pass and loop "
          f"{1e6 * med['pass_s'] / n:.0f} us + regressor fit/predict "
          f"{1e6 * med['fit_s'] / n:.0f} us")
    print(f"  exploitability {runs[-1]['exploitability']:.6f}, complexity "
          f"{runs[-1]['complexity']} leaves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
