#!/usr/bin/env python
"""The distributed solver (issue 27) against the single-process solver in the same run:
bytes moved per iteration, the driver's share of the time, time per iteration, memory.

    nice -n 10 .venv/bin/python benchmarks/bench_distributed.py                 # 2-NL Hold'em(20)
    nice -n 10 .venv/bin/python benchmarks/bench_distributed.py --game leduc --iters 50
    .venv/bin/python benchmarks/bench_distributed.py --actors 2 --iters 10 --json
    # a game one process cannot hold: the distributed solver alone, its exploitability
    flock /work/bigmem.lock .venv/bin/python benchmarks/bench_distributed.py \\
        --game "nl_holdem2(stack=36)" --no-single --iters 6 --evaluate-at 1,2,4,7 --json

Times are medians per iteration after one untimed warm-up iteration (which loads the numba
kernels); CPU seconds of the driver process (``time.process_time``) and wall seconds for both
solvers.  The single-process solver runs on ``--threads`` kernel threads.  On a machine with
fewer cores than actors + 1, the distributed wall time includes the actors waiting for a core;
the CPU figures do not.  The final tables are compared bit for bit.  With ``--no-single`` the
driver gets the game's name, so it builds only the trunk and each actor only its part (the
whole tree is never compiled); ``--evaluate-at`` gives the exact exploitability through the
distributed evaluator after those iterations (the warm-up counts as iteration 1).  Peak
resident memory (Linux's VmHWM) of the driver and of each actor is reported.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np


def _iterate(solver, iters: int, at: list[int], exploitability):
    """``iters + 1`` single iterations of ``solver`` (the first untimed: it loads the kernels):
    wall and CPU seconds of the others, and ``(iteration, exploitability, evaluation seconds)``
    after the iterations in ``at``."""
    wall, cpu, curve = [], [], []
    for it in range(1, iters + 2):
        w, c = time.perf_counter(), time.process_time()
        solver.run(1)
        if it > 1:
            wall.append(time.perf_counter() - w)
            cpu.append(time.process_time() - c)
        if it in at:
            t0 = time.perf_counter()
            curve.append((it, exploitability(), time.perf_counter() - t0))
    return wall, cpu, curve


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--game", default="nl_holdem2(stack=20)")
    ap.add_argument("--algorithm", default="cfr+")
    ap.add_argument("--actors", type=int, default=2)
    ap.add_argument("--cut", default=None)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1, help="the single-process solver's")
    ap.add_argument("--dtype", default="float64", help="the tables of both solvers")
    ap.add_argument("--no-single", action="store_true",
                    help="the distributed solver alone (the whole tree is never compiled)")
    ap.add_argument("--evaluate-at", default="",
                    help="iterations after which to evaluate (comma-separated)")
    ap.add_argument("--max-memory", default=None,
                    help="the memory guard's limit for the driver and each actor (e.g. 12G)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    at = sorted({int(x) for x in a.evaluate_at.split(",") if x.strip()})

    import ray

    from rcfr.core.budget import peak_rss
    from rcfr.distributed import DistributedSolver
    from rcfr.evaluate import evaluate
    from rcfr.forms.compile import compile_game
    from rcfr.forms.threads import kernel_threads
    from rcfr.solvers.loop import CFRSolver

    out: dict = {"game": a.game, "algorithm": a.algorithm, "actors": a.actors,
                 "dtype": a.dtype}
    tree = None
    curve_single = []
    if not a.no_single:
        t0 = time.perf_counter()
        tree = compile_game(a.game, form="public")
        out["compile_seconds"] = time.perf_counter() - t0
    ray.init(num_cpus=max(2, a.actors), include_dashboard=False,
             object_store_memory=200 * 1024**2, log_to_driver=False)
    try:
        if tree is not None:
            with kernel_threads(a.threads):
                local = CFRSolver(tree, a.algorithm, dtype=a.dtype)
                wall, cpu, curve_single = _iterate(
                    local, a.iters, at,
                    lambda: evaluate(tree, local.average_policy()).exploitability)
            out.update(single_threads=a.threads, single_wall=statistics.median(wall),
                       single_cpu=statistics.median(cpu))
            local_arrays = (local.avg_weights_, local.strategy_)
            del local
        t0 = time.perf_counter()
        d = DistributedSolver(tree if tree is not None else a.game, a.algorithm,
                              actors=a.actors, cut=a.cut, dtype=a.dtype,
                              max_memory=a.max_memory)
        out["start_seconds"] = time.perf_counter() - t0  # (the actors build their parts)
        dwall, dcpu, curve = _iterate(d, a.iters, at, lambda: d.evaluate()["exploitability"])
        if tree is not None:
            g = d.global_arrays()
            out["bit_identical"] = bool(np.array_equal(g["avg_weights"], local_arrays[0])
                                        and np.array_equal(g["strategy"], local_arrays[1]))
        st = d.stats()
        d.close()
    finally:
        ray.shutdown()
    out.update({
        "cut": d.cut, "subgames": d.split.num_subgames, "sequences": d.tree.num_sequences,
        "iterations_timed": a.iters,
        "distributed_wall": statistics.median(dwall), "driver_cpu": statistics.median(dcpu),
        "bytes_per_iteration": st["bytes_per_iteration"], "driver_share": st["driver_share"],
        "driver_tables_bytes": st["driver_tables"],
        "driver_peak_rss_bytes": peak_rss(),
        "actor_tables_bytes": [m["tables"] for m in st["actor_memory"]],
        "actor_rss_bytes": [m["rss"] for m in st["actor_memory"]],
        "actor_peak_rss_bytes": [m["peak_rss"] for m in st["actor_memory"]],
        "trunk_sequences": d.split.trunk.num_sequences,
        "part_sequences": [p.num_sequences for p in d.split.parts],
        "exploitability": [[i, e] for i, e, _ in curve],
        "evaluate_wall": [s for _, _, s in curve],
    })
    if "single_wall" in out:
        out["ratio_wall"] = out["distributed_wall"] / out["single_wall"]
    if curve_single:
        out["exploitability_single"] = [[i, e] for i, e, _ in curve_single]
    if a.json:
        print(json.dumps(out, indent=1))
        return
    for k, v in out.items():
        print(f"{k:22s} {v}")


if __name__ == "__main__":
    main()
