#!/usr/bin/env python
"""The 2-NL Hold'em(k) card abstraction (Gibson et al. 2012, sec. 5): time to build it from an
empty cache folder and to load it back, each in fresh one-core processes (medians), then its
bucket boundaries and preflop joint distribution.

    .venv/bin/python benchmarks/bench_holdem_cards.py                  # full deck, 5 buckets
    .venv/bin/python benchmarks/bench_holdem_cards.py --ranks 6 --suits 3 --repeats 5
    .venv/bin/python benchmarks/bench_holdem_cards.py --cold-numba     # compile time included

Targets (issue 14): build under 5 minutes on one core, load under 2 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

SRC = Path(__file__).resolve().parents[1] / "src"

CHILD = """
import json, sys, time
t0 = time.perf_counter()
from rcfr.games.holdem.abstraction import holdem_abstraction
t1 = time.perf_counter()
ab = holdem_abstraction(buckets={buckets}, ranks={ranks}, suits={suits})
t2 = time.perf_counter()
print(json.dumps({{"import": t1 - t0, "call": t2 - t1}}))
"""


def run_child(code: str, cache: str, numba_cache: str | None) -> dict:
    env = dict(os.environ, RCFR_CACHE_DIR=cache, NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1",
               PYTHONPATH=str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if numba_cache:
        env["NUMBA_CACHE_DIR"] = numba_cache
    cmd = ["taskset", "-c", "0"] if sys.platform.startswith("linux") else []
    out = subprocess.run(cmd + [sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--buckets", type=int, default=5)
    ap.add_argument("--ranks", type=int, default=13)
    ap.add_argument("--suits", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cold-numba", action="store_true",
                    help="compile the numba kernels in every build (an empty NUMBA_CACHE_DIR)")
    args = ap.parse_args(argv)
    code = CHILD.format(buckets=args.buckets, ranks=args.ranks, suits=args.suits)

    with tempfile.TemporaryDirectory() as warm_numba:
        # compile (or load) the kernels once so that warm builds time the work only
        with tempfile.TemporaryDirectory() as cache:
            run_child(code, cache, None if not args.cold_numba else warm_numba)
        builds = []
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as cold:
                numba_cache = cold if args.cold_numba else None
                builds.append(run_child(code, cache, numba_cache))
        with tempfile.TemporaryDirectory() as cache:
            run_child(code, cache, None)
            loads = [run_child(code, cache, None) for _ in range(args.repeats)]

    what = f"B={args.buckets}, {args.ranks} ranks x {args.suits} suits"
    numba = "numba kernels compiled in each run" if args.cold_numba else "numba kernels cached"
    build = statistics.median(b["call"] for b in builds)
    load = statistics.median(b["call"] for b in loads)
    imp = statistics.median(b["import"] for b in loads)
    print(f"abstraction {what}, one core, medians of {args.repeats} fresh processes")
    print(f"  build from an empty cache folder ({numba}): {build:8.2f} s   (target < 300 s)")
    print(f"  load from the cache:                              {load:8.3f} s   (target < 2 s)")
    print(f"  load including 'import rcfr.games.holdem.abstraction':  {load + imp:8.3f} s")

    sys.path.insert(0, str(SRC))
    with tempfile.TemporaryDirectory() as cache:
        os.environ["RCFR_CACHE_DIR"] = cache
        from rcfr.games.holdem.abstraction import holdem_abstraction
        ab = holdem_abstraction(args.buckets, args.ranks, args.suits)
    b = ab.buckets
    np.set_printoptions(precision=4, suppress=True, linewidth=120)
    sizes = np.bincount(ab.hole_bucket, minlength=b)
    print(f"\npreflop buckets: E[HS²] range, holes (of {len(ab.hole_bucket)})")
    for p in range(b):
        lo, hi = ab.preflop_bounds[p]
        print(f"  {p}: {lo:.4f} .. {hi:.4f}   {sizes[p]}")
    print("flop buckets: HS² range within each preflop bucket")
    for p in range(b):
        cells = "  ".join(f"{lo:.3f}..{hi:.3f}" for lo, hi in ab.flop_bounds[p])
        print(f"  {p}: {cells}")
    mass = ab.joint.sum(axis=1).reshape(b, b)
    print("P(flop bucket | preflop bucket) (rows: preflop)")
    print(mass / mass.sum(axis=1, keepdims=True))
    print("preflop joint P(p0 bucket, p1 bucket):")
    print(ab.preflop_joint)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
