#!/usr/bin/env python
"""Thread scaling of the public-tree kernels on 2-NL Hold'em(k) with five E[HS²] buckets: one
full-width DCFR (and CFR+) iteration, one exact evaluation (both best responses), and the node
throughput of external and average strategy sampling, at 1, 2, ... threads (parallel Monte
Carlo CFR, ``MCCFRSolver(threads=n)``: n passes per player and iteration, one per thread).

    .venv/bin/python benchmarks/bench_scale.py                     # k = 20, 1 and 2 threads
    .venv/bin/python benchmarks/bench_scale.py --stacks 20 30 --threads 1 2 4 8 16 --json

The thread counts are interleaved (1, 2, 1, 2, ... within one process, ``numba.set_num_threads``
between calls) so that the machine's other load hits every count alike; each figure is the
median over ``--repeats`` rounds of wall seconds and of CPU seconds (``time.process_time``: all
threads together, so a perfect 2-thread run keeps the 1-thread CPU time and halves the wall
time), and ``ratio`` is the same-run median wall time at 1 thread over that at N threads (above
1 is faster).  Every thread count must give the same numbers: the script checks that the
DCFR strategies and the exploitability agree bit for bit (the sampled runs are repeatable for a
seed and a thread count, but each count is its own sample path; their figures are seconds per
node visited, ``es_per_node`` / ``as_per_node``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np

try:
    import rcfr  # noqa: F401
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rcfr.forms.public.tree import compile_public
from rcfr.games.nl_holdem2 import NLHoldem2
from rcfr.solvers.mccfr import MCCFRSolver
from rcfr.solvers.run import make_solver


def _time(fn) -> tuple[float, float]:
    w0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w0, time.process_time() - c0


def scale(k: int, threads: list[int], repeats: int, iters: int, nodes: float,
          max_memory: str | None, schemes: tuple[str, ...] = ("es", "as")) -> dict[str, Any]:
    t0 = time.perf_counter()
    tree = compile_public(NLHoldem2(stack=k), max_memory=max_memory)
    out: dict[str, Any] = {"stack": k, "sequences": tree.num_sequences,
                           "compile_s": time.perf_counter() - t0, "figures": {}}
    solvers = {}
    for n in threads:  # one solver per thread count, each warmed up (kernels loaded)
        numba.set_num_threads(n)
        for alg in ("dcfr", "cfr+"):
            solvers[alg, n] = make_solver(tree, alg)
            solvers[alg, n].run(1)
        for alg in schemes:  # parallel MCCFR: n passes per player and iteration
            solvers[alg, n] = MCCFRSolver(tree, alg, seed=0, threads=n)
            solvers[alg, n].run(1)
    policy = solvers["dcfr", threads[0]].average_policy().probs
    samples: dict[str, dict[int, list[tuple[float, float]]]] = {}
    for _ in range(repeats):
        for n in threads:
            numba.set_num_threads(n)
            for alg in ("dcfr", "cfr+"):
                w, c = _time(lambda s=solvers[alg, n]: s.run(iters))
                samples.setdefault(f"{alg}_iteration", {}).setdefault(n, []).append(
                    (w / iters, c / iters))
            samples.setdefault("evaluate", {}).setdefault(n, []).append(
                _time(lambda: tree.evaluate(policy)))
            for alg in schemes:
                s = solvers[alg, n]
                n0 = s.nodes_visited
                w0, c0 = time.perf_counter(), time.process_time()
                while s.nodes_visited - n0 < nodes:
                    s.run(max(1, s.iteration // 4))
                w, c = time.perf_counter() - w0, time.process_time() - c0
                done = s.nodes_visited - n0
                samples.setdefault(f"{alg}_per_node", {}).setdefault(n, []).append(
                    (w / done, c / done))
    for name, by_n in samples.items():
        base = statistics.median(x[0] for x in by_n[threads[0]])
        out["figures"][name] = {
            str(n): {"wall_s": statistics.median(x[0] for x in v),
                     "cpu_s": statistics.median(x[1] for x in v),
                     "ratio": base / statistics.median(x[0] for x in v)}
            for n, v in by_n.items()}
    # the thread count changes no number
    ref = solvers["dcfr", threads[0]]
    values = []
    for n in threads:
        numba.set_num_threads(n)
        values.append(tree.evaluate(policy))
        s = solvers["dcfr", n]
        assert s.iteration == ref.iteration
        assert np.array_equal(s.strategy_, ref.strategy_), f"threads={n} changed DCFR"
    assert all(v == values[0] for v in values), "the thread count changed the evaluation"
    out["identical"] = True
    out["exploitability_chips"] = (values[0][1] + values[0][2]) / 2  # (both best responses)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stacks", type=int, nargs="+", default=[20])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--iters", type=int, default=4, help="full-width iterations per timing")
    ap.add_argument("--nodes", type=float, default=2e6, help="sampled nodes per timing")
    ap.add_argument("--max-memory", default=None)
    ap.add_argument("--schemes", nargs="*", default=["es", "as"],
                    help="parallel MCCFR schemes to time (none: full width only)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    report = {"numba_threading_layer": None, "results": []}
    for k in args.stacks:
        report["results"].append(scale(k, args.threads, args.repeats, args.iters, args.nodes,
                                       args.max_memory, tuple(args.schemes)))
        report["numba_threading_layer"] = numba.threading_layer()
    if args.json:
        print(json.dumps(report))
        return
    print(f"threading layer: {report['numba_threading_layer']}")
    for r in report["results"]:
        print(f"\n2-NL Hold'em({r['stack']}): {r['sequences']:,} sequences, compiled in "
              f"{r['compile_s']:.1f} s; identical across thread counts: {r['identical']}")
        for name, by_n in r["figures"].items():
            for n, f in by_n.items():
                unit = "s/node" if "per_node" in name else "s"
                print(f"  {name:16s} threads={n:>2s}  wall {f['wall_s']:.4g} {unit}  "
                      f"cpu {f['cpu_s']:.4g} {unit}  ratio {f['ratio']:.2f}")


if __name__ == "__main__":
    main()
