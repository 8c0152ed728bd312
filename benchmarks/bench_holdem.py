#!/usr/bin/env python
"""2-NL Hold'em(k) with five E[HS²] buckets (Gibson et al. 2012, sec. 5): sizes and memory for
k = 20 ... 40, compile time, the uniform profile's exploitability and the time of one exact
best response by public-tree passes, and the node throughput of the sampled solvers.

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_holdem.py              # k = 20, 24
    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_holdem.py --stacks 30 36 --max-memory 30G
    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_holdem.py --sizes-only --json
    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_holdem.py --stacks 36 --sampling 1e8 \
        --dtype float32 --max-memory 20G
    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_holdem.py --sampling 1e8 --stacks 20

Sizes come from the betting tree's closed form (every stack from 20 to 40); the public form's
memory is measured where it is compiled (``--stacks``) and otherwise extrapolated from the
largest compiled stack per sequence (``~``).  Times are medians of ``--repeats`` calls after a
warm-up; the sampled solvers' throughput is nodes visited per second of wall and of CPU time
(on a loaded machine the CPU figure is the one to compare).  The paper: 2-NL Hold'em(36) has
about 68 million information sets and 5 billion histories, and its uniform profile is
exploitable for 6793 mbb/g.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

try:
    import rcfr  # noqa: F401
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from timing import timed

from rcfr.evaluate import _best_response, evaluate, realization_plans
from rcfr.forms.public.tree import compile_public
from rcfr.forms.sizes import BYTES_PER_HISTORY
from rcfr.games.nl_holdem2 import NLHoldem2
from rcfr.policy import TabularPolicy
from rcfr.solvers.run import make_solver

PAPER_UNIFORM_MBB = 6793.0  # 2-NL Hold'em(36), Gibson et al. 2012, Figure 2a


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def sizes(stacks: list[int]) -> list[dict[str, Any]]:
    rows = []
    for k in stacks:
        s = NLHoldem2(stack=k).closed_form_sizes()
        rows.append({"stack": k, **{key: s[key] for key in ("histories", "infosets",
                                                             "sequences", "public_nodes")},
                     "history_mib": BYTES_PER_HISTORY * s["histories"] / 2**20})
    return rows


def exact(tree, repeats: int) -> dict[str, Any]:
    """Evaluate the uniform profile, time one best response (each player's)."""
    policy = TabularPolicy.uniform(tree)
    t0 = time.perf_counter()
    ev = evaluate(tree, policy)
    evaluate_s = time.perf_counter() - t0
    plan = realization_plans(tree, policy.probs)
    br = {p: statistics.median(timed(lambda p=p: _best_response(tree, plan, p), repeats))
          for p in (0, 1)}
    return {"stack": tree.game.stack, "public_mib": tree.nbytes / 2**20,
            "sequences": tree.num_sequences, "uniform_mbb": ev.exploitability_mbb,
            "uniform_value": ev.value, "evaluate_s": evaluate_s,
            "best_response_s": [br[0], br[1]], "peak_mib": peak_mib()}


def sampling(tree, nodes: float, algorithms: list[str],
             dtype: str = "float64") -> list[dict[str, Any]]:
    """Nodes visited per second by the public form's fused MCCFR kernels (``dtype`` tables)."""
    k = tree.game.stack
    out = []
    for alg in algorithms:
        solver = make_solver(tree, alg, seed=0, dtype=dtype)
        solver.run(1)  # loads the kernels
        n0 = solver.nodes_visited
        wall, cpu = time.perf_counter(), time.process_time()
        while solver.nodes_visited - n0 < nodes:
            solver.run(max(1, solver.iteration))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        done = solver.nodes_visited - n0
        solver_iterations = solver.iteration
        del solver  # (its tables are freed before the next scheme's)
        out.append({"stack": k, "algorithm": alg, "dtype": dtype, "nodes": done,
                    "iterations": solver_iterations,
                    "nodes_per_s_wall": done / wall, "nodes_per_s_cpu": done / cpu})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stacks", type=int, nargs="+", default=[20, 24],
                    help="stacks to compile and evaluate (36 needs about 21 GB: --max-memory)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sizes-only", action="store_true")
    ap.add_argument("--sampling", type=float, default=0.0,
                    help="also measure CS/ES/OS/AS throughput over this many nodes each")
    ap.add_argument("--max-memory", default=None,
                    help="memory budget of the public form's guard (e.g. 30G; default: half "
                         "of the memory available)")
    ap.add_argument("--dtype", default="float64", choices=["float64", "float32"],
                    help="the sampled solvers' tables (float32: 2-NL Hold'em(36) in 20G)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    report: dict[str, Any] = {"sizes": sizes(list(range(20, 41, 2)))}
    if not args.sizes_only:
        report["exact"], report["sampling"] = [], []
        for k in args.stacks:  # one stack at a time: a tree is freed before the next
            t0 = time.perf_counter()
            tree = compile_public(NLHoldem2(stack=k), max_memory=args.max_memory,
                                  dtype=args.dtype)
            row = {"compile_s": time.perf_counter() - t0, **exact(tree, args.repeats)}
            report["exact"].append(row)
            if args.sampling:
                report["sampling"].extend(sampling(tree, args.sampling,
                                                   ["cs", "es", "os", "as"], args.dtype))
            del tree
            print(json.dumps(row), file=sys.stderr, flush=True)  # progress
    if args.json:
        print(json.dumps(report, indent=1))
        return
    measured = {r["stack"]: r for r in report.get("exact", [])}
    per_seq = None
    if measured:
        top = measured[max(measured)]
        per_seq = top["public_mib"] / top["sequences"]
    print(f"{'k':>3} {'infosets':>13} {'histories':>15} {'sequences':>13} {'public nodes':>12}"
          f" {'history MiB':>12} {'public MiB':>11}")
    for r in report["sizes"]:
        k = r["stack"]
        pub = (f"{measured[k]['public_mib']:,.0f}" if k in measured else
               f"~{per_seq * r['sequences']:,.0f}" if per_seq else "-")
        print(f"{k:>3} {r['infosets']:>13,} {r['histories']:>15,} {r['sequences']:>13,} "
              f"{r['public_nodes']:>12,} {'~' + format(r['history_mib'], ',.0f'):>12} "
              f"{pub:>11}")
    for r in report.get("exact", []):
        print(f"k={r['stack']}: compile {r['compile_s']:.1f} s, uniform profile "
              f"{r['uniform_mbb']:.1f} mbb/g (value {r['uniform_value']:+.4f} chips), "
              f"evaluation {r['evaluate_s']:.1f} s, one best response "
              f"{r['best_response_s'][0]:.2f} / {r['best_response_s'][1]:.2f} s (player 0 / 1), "
              f"peak memory {r['peak_mib']:,.0f} MiB")
    if 36 in measured:
        print(f"paper: uniform profile in 2-NL Hold'em(36) {PAPER_UNIFORM_MBB:.0f} mbb/g")
    for r in report.get("sampling", []):
        print(f"k={r['stack']} {r['algorithm'].upper()}: {r['nodes_per_s_wall'] / 1e6:.2f} M "
              f"nodes/s wall, {r['nodes_per_s_cpu'] / 1e6:.2f} M nodes/s CPU "
              f"({r['nodes']:.3g} nodes, {r['iterations']} iterations)")


if __name__ == "__main__":
    main()
