#!/usr/bin/env python
"""Many flops at once: ``rcfr spots`` on postflop-solver's example ranges (its
examples/basic.rs: pot 200, stack 900) from the flop with one bet size and one raise (bet
``60%``, raise ``2.5x`` on every street; add-all-in 1.5, force-all-in 0.15, merging 0.1, as
the example), each flop solved by DCFR to a target % of the pot, on ``--workers`` local
processes; the time and memory per board and the estimate for all 1,755 flop classes.

    .venv/bin/python benchmarks/bench_spots_batch.py --flops Td9d6h --workers 1   # one flop
    .venv/bin/python benchmarks/bench_spots_batch.py --flops 16 --workers 16      # 16 cores
    .venv/bin/python benchmarks/bench_spots_batch.py --flops all --workers 16     # the lot

``--flops`` is what ``rcfr spots`` takes (``all``, a number of flops sampled by texture, a file
of flops) or flops written out, comma-separated. Figures: the batch's wall seconds (solving and
the report apart), the workers' CPU seconds, each board's iterations, run seconds (the game's
compilation included) and exploitability, the peak resident set of the largest worker (the
children's ``ru_maxrss``) and the estimate for the 1,755 classes on this many workers (the
mean run seconds a board times 1,755 over the workers; and from the CPU seconds, the
workers' and the driver's, a board). Written to ``--json`` (default
benchmarks/results/bench_spots_batch.json).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPOT = """\
# postflop-solver's examples/basic.rs ranges from the flop, one bet size and one raise
board = "Td9d6h"
pot = 200
stack = 900
[ranges]
oop = "66+,A8s+,A5s-A4s,AJo+,K9s+,KQo,QTs+,JTs,96s+,85s+,75s+,65s,54s"
ip = "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+"
[bets]
bet = "60%"
raise = "2.5x"
[thresholds]
add_allin = 1.5
force_allin = 0.15
merging = 0.1
"""
ALL_FLOPS = 1755


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flops", default="Td9d6h",
                        help="all, N (a sample by texture), a file, or flops a,b,c")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--target", type=float, default=0.5, help="% of the pot")
    parser.add_argument("--iterations", type=int, default=1000, help="at most, a board")
    parser.add_argument("--storage", default=None, help="int16: 16-bit tables")
    parser.add_argument("--checkpoint-every", type=float, default=3600.0,
                        help="seconds between a board's checkpoints (a flop's is ~430 MB, "
                             "compressed)")
    parser.add_argument("--dir", default=None, help="the batch folder (default: a temporary "
                                                    "one; give one to resume)")
    parser.add_argument("--json", default=str(HERE / "results" / "bench_spots_batch.json"))
    args = parser.parse_args()

    from rcfr.cli import main as rcfr

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.dir or Path(tmp) / "batch")
        folder.mkdir(parents=True, exist_ok=True)
        spot = folder.parent / "flop_one_size.toml"
        spot.write_text(SPOT)
        flops = args.flops
        if "," in flops or (len(flops) == 6 and not Path(flops).exists()
                            and not flops.isdigit() and flops != "all"):
            listed = folder.parent / "flops.txt"
            listed.write_text("\n".join(flops.split(",")) + "\n")
            flops = str(listed)
        common = ["spots", str(spot), "--flops", flops, "--out", str(folder), "-a", "dcfr",
                  "-n", str(args.iterations), "--target", str(args.target),
                  "--workers", str(args.workers), "--checkpoint-every",
                  str(args.checkpoint_every)]
        if args.storage:
            common += ["--storage", args.storage]
        t0, c0, d0 = time.perf_counter(), children_cpu(), time.process_time()
        code = rcfr([*common, "--rows", "0"])
        total = time.perf_counter() - t0
        cpu = children_cpu() - c0
        driver_cpu = time.process_time() - d0  # (the report's figures where --workers 1)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        with sqlite3.connect(folder / "runs.db") as db:
            runs = [dict(zip(("status", "iterations", "seconds", "exploitability"), r,
                             strict=True))
                    for r in db.execute("SELECT status, iterations, seconds, exploitability "
                                        "FROM runs")]
        done = [r for r in runs if r["status"] == "done"]
        aggregate = json.loads((folder / "aggregate.json").read_text())["all"]
    solve_seconds = [r["seconds"] for r in done]
    mean = statistics.fmean(solve_seconds) if solve_seconds else None
    result = {
        "host": platform.node(), "cpus": os.cpu_count(), "workers": args.workers,
        "flops": args.flops, "target_pot_pct": args.target, "storage": args.storage or "float",
        "exit_code": code, "boards": len(runs), "done": len(done),
        "wall_seconds": total, "children_cpu_seconds": cpu,
        "driver_cpu_seconds": driver_cpu, "peak_worker_bytes": peak,
        "board_iterations": [r["iterations"] for r in done],
        "board_seconds": solve_seconds,
        "board_exploitability_pot_pct": [100 * r["exploitability"] / 200 for r in done],
        "mean_board_seconds": mean,
        "estimate_all_hours": (mean * ALL_FLOPS / args.workers / 3600) if mean else None,
        "estimate_all_hours_cpu": ((cpu + driver_cpu) / len(done) * ALL_FLOPS / args.workers
                                   / 3600) if done else None,
        "aggregate": aggregate,
    }
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(result, indent=1))
    print(json.dumps({k: v for k, v in result.items() if k != "aggregate"}, indent=1))


if __name__ == "__main__":
    sys.exit(main())
