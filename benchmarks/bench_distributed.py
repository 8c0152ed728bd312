#!/usr/bin/env python
"""The distributed solver (issue 27) against the single-process solver in the same run:
bytes moved per iteration, the driver's share of the time, time per iteration, actor memory.

    nice -n 10 .venv/bin/python benchmarks/bench_distributed.py                 # 2-NL Hold'em(20)
    nice -n 10 .venv/bin/python benchmarks/bench_distributed.py --game leduc --iters 50
    .venv/bin/python benchmarks/bench_distributed.py --actors 2 --iters 10 --json

Times are medians per iteration after one untimed warm-up iteration (which loads the numba
kernels); CPU seconds of the driver process (``time.process_time``) and wall seconds for both
solvers.  On a machine with fewer cores than actors + 1, the distributed wall time includes the
actors waiting for a core; the CPU figures do not.  The final tables are compared bit for bit.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--game", default="nl_holdem2(stack=20)")
    ap.add_argument("--algorithm", default="cfr+")
    ap.add_argument("--actors", type=int, default=2)
    ap.add_argument("--cut", default=None)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()

    import ray

    from rcfr.distributed import DistributedSolver
    from rcfr.forms.compile import compile_game
    from rcfr.forms.threads import kernel_threads
    from rcfr.solvers.loop import CFRSolver

    t0 = time.perf_counter()
    tree = compile_game(a.game, form="public")
    compile_s = time.perf_counter() - t0
    ray.init(num_cpus=max(2, a.actors), include_dashboard=False,
             object_store_memory=200 * 1024**2, log_to_driver=False)
    try:
        with kernel_threads(1):
            local = CFRSolver(tree, a.algorithm)
            local.run(1)
            wall, cpu = [], []
            for _ in range(a.iters):
                w, c = time.perf_counter(), time.process_time()
                local.run(1)
                wall.append(time.perf_counter() - w)
                cpu.append(time.process_time() - c)
        d = DistributedSolver(tree, a.algorithm, actors=a.actors, cut=a.cut)
        d.run(1)
        dwall, dcpu = [], []
        for _ in range(a.iters):
            w, c = time.perf_counter(), time.process_time()
            d.run(1)
            dwall.append(time.perf_counter() - w)
            dcpu.append(time.process_time() - c)
        g = d.global_arrays()
        same = bool(np.array_equal(g["avg_weights"], local.avg_weights_)
                    and np.array_equal(g["strategy"], local.strategy_))
        st = d.stats()
        d.close()
    finally:
        ray.shutdown()
    out = {
        "game": a.game, "algorithm": a.algorithm, "actors": a.actors, "cut": d.cut,
        "subgames": d.split.num_subgames, "sequences": tree.num_sequences,
        "compile_seconds": compile_s, "iterations_timed": a.iters,
        "single_wall": statistics.median(wall), "single_cpu": statistics.median(cpu),
        "distributed_wall": statistics.median(dwall),
        "driver_cpu": statistics.median(dcpu),
        "ratio_wall": statistics.median(dwall) / statistics.median(wall),
        "bytes_per_iteration": st["bytes_per_iteration"], "driver_share": st["driver_share"],
        "driver_tables_bytes": st["driver_tables"],
        "actor_tables_bytes": [m["tables"] for m in st["actor_memory"]],
        "actor_rss_bytes": [m["rss"] for m in st["actor_memory"]],
        "trunk_sequences": d.split.trunk.num_sequences,
        "part_sequences": [p.num_sequences for p in d.split.parts],
        "bit_identical": same,
    }
    if a.json:
        print(json.dumps(out, indent=1))
        return
    for k, v in out.items():
        print(f"{k:22s} {v}")


if __name__ == "__main__":
    main()
