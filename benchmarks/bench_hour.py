#!/usr/bin/env python
"""Issue 23's headline: full-width CFR on 2-NL Hold'em(k) (five E[HS²] buckets) against a
wall-clock budget, from the uniform profile, with the exploitability curve, a per-part profile
of one iteration and the memory-bandwidth bound that explains the time.

    .venv/bin/python benchmarks/bench_hour.py --stack 36 --budget 3600           # the target
    .venv/bin/python benchmarks/bench_hour.py --stack 20 --budget 60 --threads 2 --json out.json

* **Curve**: iterations run in doubling chunks; after each chunk the average profile is
  evaluated exactly (``rcfr.evaluate.evaluate``). Solve seconds (wall and CPU) exclude the
  evaluations, whose seconds are reported beside them. It stops at ``--target-mbb`` or when
  the budget is spent (the chunk that crosses it is finished).
* **Profile**: one iteration cut into the kernels of
  :func:`rcfr.forms.public.full_width.run_public`, timed one by one on the solver's current
  arrays: both realization plans (without the averaging), both terminal sweeps, both backward
  sweeps (instantaneous regrets); the rest of a fused iteration (``full - parts``) is the
  update rule's pass over the tables and the averaging.
* **Bandwidth**: a STREAM-style triad ``a = b + s c`` over three float64 arrays of
  ``--stream-mib`` each on the same threads (numba ``prange``), in bytes moved per second; and
  the bytes an iteration must stream at least (each table read or written once per pass that
  touches it: the model is in :func:`bytes_per_iteration`), so that ``bytes / bandwidth`` is
  the iteration's memory-bound floor.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np
from numba import njit, prange

try:
    import rcfr  # noqa: F401
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rcfr.core import kernels as K
from rcfr.evaluate import evaluate
from rcfr.forms.public.full_width import REGRETS, _back_levels, plan_threaded
from rcfr.forms.public.terminals import terminal_values
from rcfr.forms.public.tree import compile_public
from rcfr.games.nl_holdem2 import NLHoldem2
from rcfr.solvers.run import make_solver


def _peak_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


@njit(parallel=True, cache=True)
def _triad(a, b, c, s, threads):
    n = a.shape[0]
    for t in prange(threads):
        for i in range(n * t // threads, n * (t + 1) // threads):
            a[i] = b[i] + s * c[i]


def stream_bandwidth(mib: int, threads: int, repeats: int = 5) -> float:
    """Bytes per second of the triad (24 bytes per element: two reads and one write), best of
    ``repeats``."""
    n = mib * 2**20 // 8
    a, b, c = np.zeros(n), np.ones(n), np.full(n, 2.0)
    _triad(a, b, c, 3.0, threads)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        _triad(a, b, c, 3.0, threads)
        best = min(best, time.perf_counter() - t0)
    return 24 * n / best


def bytes_per_iteration(tree, itemsize: int) -> int:
    """The least bytes one alternating iteration of :func:`run_public` streams, each player's
    sequence tables once per pass (``itemsize``: the solver's table precision; the plan and the
    value vectors are float64): the plan pass reads the strategy, the parent plans and writes the
    plan and the average sums (read and write); the terminal sweep reads the opponent's plan and
    writes the values; the backward sweep reads the strategy and the values and writes the
    instantaneous regrets; the rule's pass reads those and the regrets and writes the regrets
    and the strategy; per information set the four int32 fields each pass walks."""
    S = tree.num_sequences
    infosets = int(tree._full_arrays.bounds[-1])
    per_seq = (itemsize + 8 + 2 * itemsize) + (8 + 8) + (itemsize + 8 + 8) \
        + (8 + 2 * itemsize + itemsize)
    return int(S * per_seq + 3 * infosets * 16)


def profile(solver, tree, threads: int, repeats: int = 3) -> dict[str, float]:
    """Median wall seconds of each part of one iteration (module docstring)."""
    arrays, T = tree._full_arrays, tree.arrays
    S = tree.num_sequences
    plan, acc, inst = K.padded(S), np.zeros(S + 2), np.zeros(S)
    strategy = np.ascontiguousarray(solver.strategy_, dtype=np.float64)
    LV = tree._levels if threads > 1 else None
    sb, b = arrays.seq_bounds, arrays.bounds
    scratch = np.zeros(1)

    def plans():
        plan_threaded(strategy, LV, 0, 2, arrays, plan, 1.0, scratch, False, threads)

    def sweeps():
        for p in range(2):
            terminal_values(p, plan, T, False, sb[p], sb[p + 1], acc, threads)

    def backward():
        for p in range(2):
            if LV is None:
                K.counterfactual_regrets(p, strategy, b[p], b[p + 1], arrays.seq_start,
                                         arrays.num_actions, arrays.parent_seq, acc, inst)
            else:
                _back_levels(REGRETS, p, False, False, 2.0, strategy, arrays.seq_start,
                             arrays.num_actions, arrays.parent_seq, LV, acc, inst, threads)

    out = {}
    for name, fn in (("plans", plans), ("terminal_sweeps", sweeps), ("backward", backward)):
        fn()
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        out[name] = float(np.median(times))
    return out


def solve(k: int, algorithm: str, budget: float, threads: int, dtype: str | None,
          target_mbb: float, stream_mib: int, do_profile: bool, log,
          eval_at: list[int] | None = None) -> dict[str, Any]:
    numba.set_num_threads(threads)
    out: dict[str, Any] = {"stack": k, "algorithm": algorithm, "threads": threads,
                           "dtype": dtype or "float64", "budget_s": budget}
    if stream_mib:
        out["stream_bytes_per_s"] = stream_bandwidth(stream_mib, threads)
        log(f"triad bandwidth on {threads} threads: {out['stream_bytes_per_s'] / 1e9:.1f} GB/s")
    t0 = time.perf_counter()
    tree = compile_public(NLHoldem2(stack=k), max_memory="1000G")
    out["compile_s"] = time.perf_counter() - t0
    out["sequences"] = tree.num_sequences
    log(f"2-NL Hold'em({k}): {tree.num_sequences:,} sequences, compiled in "
        f"{out['compile_s']:.1f} s, peak {_peak_gib():.2f} GiB")
    solver = make_solver(tree, algorithm, **({"dtype": dtype} if dtype else {}))
    curve = []
    solve_wall = solve_cpu = 0.0
    chunk = eval_at[0] if eval_at else 1
    while True:
        w0, c0 = time.perf_counter(), time.process_time()
        solver.run(chunk)
        solve_wall += time.perf_counter() - w0
        solve_cpu += time.process_time() - c0
        e0 = time.perf_counter()
        ev = evaluate(tree, solver.average_policy())
        eval_s = time.perf_counter() - e0
        curve.append({"iterations": solver.iteration, "solve_wall_s": solve_wall,
                      "solve_cpu_s": solve_cpu, "mbb": ev.exploitability_mbb,
                      "eval_wall_s": eval_s})
        log(f"  it {solver.iteration:6d}  {solve_wall:8.1f} s  {ev.exploitability_mbb:10.3f} "
            f"mbb/g  (eval {eval_s:.1f} s, peak {_peak_gib():.2f} GiB)")
        if eval_at:  # evaluate at these iterations instead (no budget)
            later = [t for t in eval_at if t > solver.iteration]
            if not later:
                break
            chunk = later[0] - solver.iteration
            continue
        if ev.exploitability_mbb <= target_mbb or solve_wall >= budget:
            break
        per_it = solve_wall / solver.iteration
        chunk = max(1, min(solver.iteration, int((budget - solve_wall) / per_it) + 1))
    out["curve"] = curve
    itemsize = np.dtype(solver.strategy_.dtype).itemsize
    out["bytes_per_iteration"] = bytes_per_iteration(tree, itemsize)
    out["seconds_per_iteration"] = solve_wall / solver.iteration
    out["bound_s_per_iteration"] = (out["bytes_per_iteration"] / out["stream_bytes_per_s"]
                                    if stream_mib else None)
    if do_profile:
        out["profile"] = profile(solver, tree, threads)
        log("  profile (s): " + ", ".join(f"{n} {v:.3f}" for n, v in out["profile"].items())
            + f"; full iteration {out['seconds_per_iteration']:.3f}")
    out["peak_gib"] = _peak_gib()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stack", type=int, default=36)
    ap.add_argument("--algorithm", default="dcfr")
    ap.add_argument("--budget", type=float, default=3600.0, help="solve seconds (wall)")
    ap.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    ap.add_argument("--dtype", default=None, choices=[None, "float32", "float64"])
    ap.add_argument("--target-mbb", type=float, default=1.0)
    ap.add_argument("--stream-mib", type=int, default=512,
                    help="triad array size (0: skip the bandwidth measurement)")
    ap.add_argument("--no-profile", action="store_true")
    ap.add_argument("--eval-at", type=int, nargs="+", default=None,
                    help="evaluate after these iterations and stop at the last (no budget)")
    ap.add_argument("--json", default=None, help="write the report here")
    args = ap.parse_args()
    report = solve(args.stack, args.algorithm, args.budget, args.threads, args.dtype,
                   args.target_mbb, args.stream_mib, not args.no_profile,
                   lambda s: print(s, flush=True), args.eval_at)
    bound = report["bound_s_per_iteration"]
    print(f"{report['seconds_per_iteration']:.3f} s an iteration; "
          f"{report['bytes_per_iteration'] / 1e9:.2f} GB streamed at least"
          + (f", memory-bound floor {bound:.3f} s" if bound else ""))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
