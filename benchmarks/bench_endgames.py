#!/usr/bin/env python
"""The four Libratus endgames: exploitability against CPU seconds for CFR+, DCFR and PCFR+.

Each endgame (``libratus_endgame(n=N)``; ``--pokerrl``: PokerRL's seats, the game of the DCFR
and DDCFR papers' curves) is compiled to the public form once; each rule then runs on one
kernel thread (``--threads``) in chunks that double (1, 2, 4, ... iterations) until its CPU
budget (``--seconds``) is spent, and the average strategy is evaluated after every chunk,
outside the timing. One CSV row a point: game, rule, iterations, the solver's CPU and wall
seconds so far, exploitability in chips, in mbb/g and in the papers' unit (big blinds times
PokerRL's deal mass, :func:`rcfr.games.holdem.libratus.pokerrl_scale`).

    .venv/bin/python benchmarks/bench_endgames.py                    # endgames 1-4, 20 s a run
    .venv/bin/python benchmarks/bench_endgames.py --games 3,4 --seconds 5 --csv endgames.csv

CPU time (``time.process_time``) is what the process itself used, so a shared machine slows the
wall clock, not the figures; the first run of each rule also loads (or compiles) its numba
kernels, which a warm-up of one iteration on endgame 4 takes out of the timing.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

try:
    import rcfr
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import rcfr
from rcfr.forms.threads import kernel_threads
from rcfr.games.holdem.libratus import libratus_endgame, pokerrl_scale
from rcfr.solvers.run import make_solver

RULES = ("cfr+", "dcfr", "pcfr+")
FIELDS = ("game", "algorithm", "threads", "iterations", "cpu_seconds", "wall_seconds",
          "exploitability", "mbb", "papers_unit")


def run_rule(tree, algorithm: str, seconds: float, threads: int, scale: float):
    """Rows of (iterations, CPU s, wall s, exploitability) for one rule on one tree."""
    solver = make_solver(tree, algorithm)
    rows, done, step, cpu, wall = [], 0, 1, 0.0, 0.0
    while cpu < seconds:
        with kernel_threads(threads):
            c0, w0 = time.process_time(), time.perf_counter()
            solver.run(step)
            cpu += time.process_time() - c0
            wall += time.perf_counter() - w0
        done += step
        ev = rcfr.evaluate(tree, solver.average_policy())
        rows.append({"game": str(tree.game), "algorithm": algorithm, "threads": threads,
                     "iterations": done, "cpu_seconds": round(cpu, 4),
                     "wall_seconds": round(wall, 4), "exploitability": ev.exploitability,
                     "mbb": ev.exploitability_mbb, "papers_unit": ev.exploitability * scale})
        step = done  # double
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="1,2,3,4", help="endgames to run (default: 1,2,3,4)")
    ap.add_argument("--seconds", type=float, default=20.0, help="CPU budget a run")
    ap.add_argument("--threads", type=int, default=1, help="kernel threads (default 1)")
    ap.add_argument("--pokerrl", action="store_true", help="PokerRL's seats (pokerrl=true)")
    ap.add_argument("--csv", default="endgames.csv", help="output CSV (default endgames.csv)")
    args = ap.parse_args(argv)
    games = [int(g) for g in args.games.split(",")]

    warm = rcfr.compile_game(libratus_endgame(4))
    for algorithm in RULES:  # load the kernels outside the timing
        with kernel_threads(args.threads):
            solver = make_solver(warm, algorithm).run(2)
        rcfr.evaluate(warm, solver.average_policy())
    rows = []
    for n in games:
        c0 = time.process_time()
        tree = rcfr.compile_game(libratus_endgame(n, pokerrl=args.pokerrl))
        print(f"{tree.game}: {tree.num_public_nodes:,} public nodes, {tree.num_sequences:,} "
              f"sequences, {tree.nbytes / 2**20:,.1f} MiB, compiled in "
              f"{time.process_time() - c0:.1f} s CPU", flush=True)
        for algorithm in RULES:
            part = run_rule(tree, algorithm, args.seconds, args.threads, pokerrl_scale(n))
            last = part[-1]
            print(f"  {algorithm:6} {last['iterations']:6,} iterations  "
                  f"{last['cpu_seconds']:7.2f} s CPU  exploitability "
                  f"{last['exploitability']:.4g} chips ({last['mbb']:.4g} mbb/g, "
                  f"{last['papers_unit']:.4g} papers' unit)", flush=True)
            rows += part
    with open(args.csv, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {len(rows)} rows to {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
