#!/usr/bin/env python
"""Peak resident memory of 2-NL Hold'em(k)'s public form (five E[HS²] buckets) while compiling,
evaluating and solving, each run in a fresh process (issue 23: k = 38 and 40 on a 24 GB machine).

    .venv/bin/python benchmarks/bench_memory.py --stacks 30                  # every run, k = 30
    .venv/bin/python benchmarks/bench_memory.py --stacks 38 --runs uniform es fw-int16
    flock /work/bigmem.lock .venv/bin/python benchmarks/bench_memory.py --stacks 40 ...

Runs (``--runs``; each after the kernels it calls are loaded on 2-NL Hold'em(12)):

* ``compile``: the public tree alone;
* ``uniform``: the tree and the uniform profile's exact evaluation (float64 profile), with
  its exploitability in mbb/g; ``uniform32``: the same profile in float32 (read without a copy);
* ``cs``, ``es``, ``os``, ``as``: ``--nodes`` nodes of that sampling scheme with float32
  tables (``--dtype``), no evaluation (``--evaluate``: and the average's exact evaluation);
* ``fw-int16``: ``--iters`` full-width CFR+ iterations with ``storage="int16"`` (regrets int16,
  averages uint16, a float32 scale per information set) and a float32 current strategy; with
  ``--evaluate`` the average's evaluation too; ``cfr+``, ``dcfr``: ``--iters`` full-width
  iterations with float tables (``--dtype``).  ``--evaluate release``: the average evaluated
  after the solver releases its tables (``RegretSolver.release_average``, as a sweep's
  ``release = true`` run ends).

Each prints one JSON line: ``peak`` (``VmHWM``, the process's high-water mark, bytes), ``base``
(resident before the compile), ``per_seq`` ((peak - base) / sequences), ``compile_s`` and
``run_s`` (CPU seconds, ``time.process_time``) and the run's result.  ``--threads`` sets the
kernels' threads (1 by default: a threaded evaluation also keeps the tree's levels); ``--src``
another checkout's ``src`` (e.g. main's, for the same runs before a change).  Runs above a few
GB belong under the machine's big-memory lock.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from timing import proc_status

SRC = Path(__file__).resolve().parents[1] / "src"
RUNS = ("compile", "uniform", "uniform32", "cs", "es", "os", "as", "fw-int16", "cfr+", "dcfr")
FULL_WIDTH = ("fw-int16", "cfr+", "dcfr")


def _uniform(tree, dtype):
    """The uniform profile in ``dtype`` (no float64 copy for float32)."""
    import numpy as np

    n = tree.infoset_num_actions[tree.seq_infoset]
    out = np.divide(np.float32(1.0) if dtype == "float32" else 1.0, n,
                    dtype=np.float32 if dtype == "float32" else np.float64)
    del n
    return out


def _solver(tree, run: str, dtype: str, seed: int = 0):
    from rcfr.solvers.run import make_solver

    if run == "fw-int16":
        return make_solver(tree, "cfr+", storage="int16", dtype=dtype)
    if run in FULL_WIDTH:
        return make_solver(tree, run, dtype=dtype)
    return make_solver(tree, run, dtype=dtype, seed=seed)


def worker(k: int, run: str, nodes: float, iters: int, dtype: str, evaluate: str,
           threads: int) -> dict:
    """One run in this process (the caller gives it a fresh one)."""
    from rcfr.core import budget
    from rcfr.forms.public.tree import compile_public
    from rcfr.forms.threads import kernel_threads
    from rcfr.games.nl_holdem2 import NLHoldem2

    budget.set_memory_limit("1T")  # (the guard's models are what this measures)
    release = evaluate == "release"
    with kernel_threads(threads):
        small = compile_public(NLHoldem2(stack=12))  # the kernels loaded on a small game
        if run.startswith("uniform"):
            small.evaluate(_uniform(small, "float32" if run == "uniform32" else "float64"))
        elif run != "compile":
            s = _solver(small, run, dtype)
            s.run(2)
            if evaluate:
                small.evaluate(s.average_policy().probs)
        del small
        game = NLHoldem2(stack=k)
        game.abstraction  # noqa: B018 (loaded before the baseline)
        base = proc_status("VmRSS")
        c0 = time.process_time()
        tree = compile_public(game)
        out = {"k": k, "run": run, "threads": threads, "sequences": tree.num_sequences,
               "arrays": tree.nbytes, "base": base, "compile_s": time.process_time() - c0}
        c0 = time.process_time()
        if run.startswith("uniform"):
            probs = _uniform(tree, "float32" if run == "uniform32" else "float64")
            value, br0, br1 = tree.evaluate(probs)
            out["mbb_g"] = 1000.0 * (br0 + br1) / 2.0 / game.big_blind
        elif run != "compile":
            s = _solver(tree, run, dtype)
            if run in FULL_WIDTH:
                s.run(iters)
                out["iterations"] = s.iteration
            else:
                while s.nodes_visited < nodes:
                    s.run(1)
            out["nodes"] = s.nodes_visited
            out["run_s"] = time.process_time() - c0
            if evaluate:
                c0 = time.process_time()
                ev = tree.evaluate(s.release_average() if release else s.average_policy().probs)
                out["mbb_g"] = 1000.0 * (ev[1] + ev[2]) / 2.0 / game.big_blind
                out["evaluate_s"] = time.process_time() - c0
        out.setdefault("run_s", time.process_time() - c0)
    out["peak"] = proc_status("VmHWM")
    out["per_seq"] = (out["peak"] - base) / out["sequences"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stacks", type=int, nargs="+", default=[30])
    ap.add_argument("--runs", nargs="+", choices=RUNS, default=list(RUNS))
    ap.add_argument("--nodes", type=float, default=5000, help="sampled nodes per scheme")
    ap.add_argument("--iters", type=int, default=2, help="full-width iterations")
    ap.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    ap.add_argument("--evaluate", nargs="?", const="policy", choices=["policy", "release"],
                    help="evaluate the solvers' averages (release: after releasing the tables)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--src", default=str(SRC),
                    help="the checkout's src the workers import (e.g. main's, to compare)")
    ap.add_argument("--worker", nargs=7, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        k, run, nodes, iters, dtype, ev, threads = args.worker
        print(json.dumps(worker(int(k), run, float(nodes), int(iters), dtype,
                                "" if ev == "0" else ev, int(threads))))
        return
    gib = 2.0**30
    print(f"{'k':>3} {'run':>9} {'sequences':>12} {'arrays':>9} {'peak':>9} {'B/seq':>6} "
          f"{'compile s':>9} {'run s':>8}  result")
    for k in args.stacks:
        for run in args.runs:
            cmd = [sys.executable, __file__, "--worker", str(k), run, str(args.nodes),
                   str(args.iters), args.dtype, args.evaluate or "0",
                   str(args.threads)]
            done = subprocess.run(cmd, capture_output=True, text=True,
                                  env={**os.environ, "PYTHONPATH": args.src})
            if done.returncode != 0:
                print(f"{k:>3} {run:>9} failed: {done.stderr.strip().splitlines()[-1:]}")
                continue
            r = json.loads(done.stdout.strip().splitlines()[-1])
            result = " ".join(f"{key} {r[key]:,.1f}" if isinstance(r[key], float) else
                              f"{key} {r[key]:,}" for key in ("mbb_g", "nodes", "iterations",
                                                               "evaluate_s") if key in r)
            print(f"{k:>3} {run:>9} {r['sequences']:>12,} {r['arrays'] / gib:>7.2f}Gi "
                  f"{r['peak'] / gib:>7.2f}Gi {r['per_seq']:>6.1f} {r['compile_s']:>9.1f} "
                  f"{r['run_s']:>8.1f}  {result}", flush=True)
            print(json.dumps(r), file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
