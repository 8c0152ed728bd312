"""Sweep runner benchmark: the runner's and the store's overhead per run, and the speed-up of
2 local workers over 1 on a grid of 1-second runs.

    python benchmarks/bench_sweep.py [--repeats 3] [--runs 24]

Overhead per run: in a sweep of 60 trivial runs (Kuhn poker, one CFR iteration) on one local
worker, the wall time between the first and the last result divided by 59 (the worker's
start-up excluded), less the time of the same run done in this process: the result's trip
back, the strategy file, the store's transactions and the scheduling.  Target: under 50 ms.

Speed-up: a grid of ``--runs`` CFR runs on canonical Leduc sized to about one second each,
on 1 and then 2 local workers (wall time of the whole sweep, start-up included).  Target:
at least 1.8x.  Medians of ``--repeats``; on a shared machine the figures are noisy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from timing import median_time, version_of  # noqa: E402

from rcfr.experiments import RunSpec, Store, SweepSpec, execute, run_sweep
from rcfr.run.engine import solve  # noqa: E402


def sweep_seconds(runs: list[RunSpec], workers: int, stamps: list | None = None) -> float:
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.db") as store:
        t0 = time.perf_counter()

        def tick(counts, label) -> None:
            if stamps is not None and label:
                stamps.append(time.perf_counter())

        summary = run_sweep(SweepSpec("bench", tuple(runs)), store, workers=workers,
                            progress=tick)
        seconds = time.perf_counter() - t0
        assert summary.done == len(runs), summary.errors
        return seconds


def trivial(n: int, offset: int) -> list[RunSpec]:
    return [RunSpec(game="kuhn", algorithm="cfr", iterations=1, seed=offset + k)
            for k in range(n)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--runs", type=int, default=24)
    args = parser.parse_args()
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    print(f"rcfr {version_of('rcfr')}, python {sys.version.split()[0]}, "
          f"{os.cpu_count()} CPUs")

    overheads = []
    with tempfile.TemporaryDirectory() as tmp:
        execute(trivial(1, 0)[0], tmp)  # warm up
        itself = median_time(lambda: execute(trivial(1, 0)[0], tmp), 20)
    for r in range(args.repeats):
        stamps: list[float] = []
        sweep_seconds(trivial(60, 1000 * r), 1, stamps)
        overheads.append((stamps[-1] - stamps[0]) / (len(stamps) - 1) - itself)
    print(f"overhead per run (1 local worker, marginal): "
          f"{1000 * statistics.median(overheads):.1f} ms  (the run itself: "
          f"{1000 * itself:.1f} ms in-process; target < 50 ms; "
          f"{', '.join(f'{1000 * o:.1f}' for o in overheads)})")

    game = "leduc(canonical=true)"
    probe = solve(game, "cfr", 2000)
    iterations = max(1, round(2000 / probe.seconds))  # about one second a run
    grid = [RunSpec(game=game, algorithm="cfr", iterations=iterations + k)
            for k in range(args.runs)]
    speedups, ones, twos = [], [], []
    for r in range(args.repeats):
        runs = [g.replace(seed=r) for g in grid]
        one = sweep_seconds(runs, 1)
        two = sweep_seconds([g.replace(seed=100 + r) for g in grid], 2)
        ones.append(one)
        twos.append(two)
        speedups.append(one / two)
    print(f"{args.runs} runs of about 1 s ({iterations:,} CFR iterations on {game}): "
          f"1 worker {statistics.median(ones):.2f} s, 2 workers {statistics.median(twos):.2f} s, "
          f"speed-up {statistics.median(speedups):.2f}x  (target >= 1.8x; "
          f"{', '.join(f'{s:.2f}' for s in speedups)})")


if __name__ == "__main__":
    main()
