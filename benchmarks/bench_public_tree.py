#!/usr/bin/env python
"""The public tree against the history tree (and OpenSpiel's C++ CFR+ in the same run): CFR+
iterations per second on Leduc and Bluff(1,1), one exploitability, and Bluff(2,1) at the
paper's scale (compile time, memory, one exploitability, one CFR+ iteration).

    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_public_tree.py    # about a minute
    .venv/bin/python benchmarks/bench_public_tree.py --quick --no-openspiel
    .venv/bin/python benchmarks/bench_public_tree.py --rounds   # + multi-round Bluff(2,1)
    .venv/bin/python benchmarks/bench_public_tree.py --json
    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_public_tree.py --sampling  # MCCFR only
    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_public_tree.py --parts  # per part
    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_public_tree.py --curves 600  # Fig. 3b
    NUMBA_NUM_THREADS=1 .venv/bin/python benchmarks/bench_public_tree.py --dtype 3e8  # float32

Figures are medians over repeats after an untimed warm-up (which also loads the numba
kernels).  Memory is the compiled tree's arrays (``nbytes``) and the process's peak resident
memory after compiling and running Bluff(2,1).
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
    import rcfr
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import rcfr
from timing import median_times

from rcfr.forms.compile import compile_game
from rcfr.forms.public.tree import compile_public
from rcfr.games.registry import load_game
from rcfr.policy import TabularPolicy
from rcfr.solvers.loop import CFRSolver

OPENSPIEL_NAMES = {"leduc": "leduc_poker", "liars_dice": "liars_dice"}


def bench_cfr(spec: str, iters: int, repeats: int) -> dict[str, Any]:
    """CFR+ iterations/s and one exploitability in both forms (wall clock and CPU time)."""
    out: dict[str, Any] = {}
    game = load_game(spec)
    for form, tree, solver_cls in (("history", compile_game(game, form="history"), CFRSolver),
                                   ("public", compile_public(game), CFRSolver)):
        solver = solver_cls(tree, "cfr+")
        solver.run(2)  # warm-up
        wall, cpu = median_times(lambda s=solver: s.run(iters), repeats)
        policy = solver.average_policy()
        rcfr.exploitability(tree, policy)
        ew, ec = median_times(lambda t=tree, p=policy: rcfr.exploitability(t, p), 5 * repeats)
        out[form] = {"cfr+_iters_per_s": iters / wall, "cfr+_iters_per_cpu_s": iters / cpu,
                     "exploitability_ms": ew * 1e3, "exploitability_cpu_ms": ec * 1e3,
                     "exploitability": rcfr.exploitability(tree, policy),
                     "iterations": solver.iteration}
    for clock in ("", "cpu_"):
        out[f"{clock}speedup"] = (out["public"][f"cfr+_iters_per_{clock}s"]
                                  / out["history"][f"cfr+_iters_per_{clock}s"])
    return out


def bench_openspiel(spec: str, iters: int, repeats: int) -> dict[str, Any]:
    try:
        import pyspiel
    except ImportError as exc:
        return {"available": False, "reason": f"not installed (import pyspiel: {exc})"}
    game = pyspiel.load_game(OPENSPIEL_NAMES[spec])
    solver = pyspiel.CFRPlusSolver(game)
    solver.evaluate_and_update_policy()

    def step():
        for _ in range(iters):
            solver.evaluate_and_update_policy()

    wall, cpu = median_times(step, repeats)
    policy = solver.average_policy()
    ew, ec = median_times(lambda: pyspiel.exploitability(game, policy), 1)
    return {"available": True, "cfr+_iters_per_s": iters / wall, "cfr+_iters_per_cpu_s":
            iters / cpu, "exploitability_ms": ew * 1e3, "exploitability_cpu_ms": ec * 1e3}


def bench_bluff21(repeats: int) -> dict[str, Any]:
    game = load_game("liars_dice(dice=2,dice2=1)")
    t0, c0 = time.perf_counter(), time.process_time()
    tree = compile_public(game)
    compile_s, compile_cpu_s = time.perf_counter() - t0, time.process_time() - c0
    uniform = TabularPolicy.uniform(tree)
    rcfr.exploitability(tree, uniform)
    expl_s, expl_cpu_s = median_times(lambda: rcfr.exploitability(tree, uniform), repeats)
    solver = CFRSolver(tree, "cfr+")
    solver.run(1)
    iter_s, iter_cpu_s = median_times(lambda: solver.run(1), repeats)
    return {**tree.sizes(), "compile_s": compile_s, "compile_cpu_s": compile_cpu_s,
            "tree_mb": tree.nbytes / 2**20,
            "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "uniform_exploitability": rcfr.exploitability(tree, uniform),
            "exploitability_s": expl_s, "exploitability_cpu_s": expl_cpu_s,
            "cfr+_iteration_s": iter_s, "cfr+_iteration_cpu_s": iter_cpu_s}


def bench_parts(spec: str, calls: int) -> dict[str, Any]:
    """CPU microseconds per part of one alternating CFR+ iteration in the layout of
    rcfr.forms.public.layout (each part repeated ``calls`` times inside one numba call, after 30
    iterations): both realization plans, each player's terminal sweep, both backward sweeps
    with regret matching, and one transpose of a sequence vector (a fused run does six per
    call).  Also one exploitability's best-response sweeps."""
    import numpy as np
    from numba import njit

    from rcfr.forms.public.evaluate import _best_response_layout
    from rcfr.forms.public.full_width import _absorb_layout, _plan_layout
    from rcfr.forms.public.layout import to_layout
    from rcfr.forms.public.terminals import _terminal_values

    @njit
    def plans(n, strategy, L, plan, avg):
        for _ in range(n):
            _plan_layout(strategy, 0, L.seq_parent.shape[0], L.seq_parent, plan, 1.0, avg,
                         True)

    @njit
    def sweep(n, p, plan, T, L, sb, acc):
        for _ in range(n):
            _terminal_values(p, plan, T, L.term_base, L.term_stride, False, sb[p], sb[p + 1],
                             acc)

    @njit
    def backward(n, L, strategy, acc, regrets, v):
        for _ in range(n):
            _absorb_layout(L.node_lo[0], L.node_lo[2], True, L, strategy, acc, regrets, v)

    @njit
    def best(n, L, acc, v):
        for _ in range(n):
            _best_response_layout(0, L.node_lo[0], L.node_lo[2], L, acc, v)

    @njit
    def transpose(n, src, dst, L):
        for _ in range(n):
            to_layout(src, dst, L.seq_contract)

    @njit
    def stream(n, a, b, c, d, e):  # the memory floor: one unit-stride pass over five vectors
        for _ in range(n):
            for i in range(a.shape[0]):
                x = a[i] * b[i]
                c[i] = x
                d[i] += 0.5 * x
                e[i] = e[i] + x

    tree = compile_public(spec)
    solver = CFRSolver(tree, "cfr+").run(30)
    L, T, sb = tree._layout, tree.arrays, solver.pass_.arrays.seq_bounds
    S = tree.num_sequences
    strategy = np.empty(S)
    to_layout(solver.strategy_, strategy, L.seq_contract)
    plan, acc, avg = solver.pass_.work.plan.copy(), np.zeros(S + 2), np.zeros(S)
    regrets, v = np.zeros(S), np.zeros(max(L.max_rows, 1))
    parts = {"plans (both players)": (plans, strategy, L, plan, avg),
             "terminal sweep, player 0": (sweep, 0, plan, T, L, sb, acc),
             "terminal sweep, player 1": (sweep, 1, plan, T, L, sb, acc),
             "backward sweeps with regret matching (both)": (backward, L, strategy.copy(), acc,
                                                             regrets, v),
             "best-response sweeps (both)": (best, L, acc, v),
             "transpose of one sequence vector": (transpose, solver.strategy_, strategy.copy(),
                                                  L),
             "one pass over five sequence vectors": (stream, *(np.random.rand(S)
                                                               for _ in range(5)))}
    out: dict[str, Any] = {"sequences": S, "public_terminals": int(T.term_ctx.shape[0])}
    for name, (fn, *args) in parts.items():
        fn(1, *args)
        _, cpu = median_times(lambda f=fn, a=args: f(calls, *a), 3)
        out[name] = cpu / calls * 1e6
    return out


SAMPLING_ITERS = {"cs": 1, "es": 100, "os": 100, "as": 100}  # per call, times the scale


def bench_sampling(spec: str, scale: int, repeats: int) -> dict[str, Any]:
    """Histories visited per second (wall clock and CPU time, medians) by CS, ES, OS and AS on
    the public form (one numba kernel per call) and on the history form where it fits."""
    from rcfr.solvers.mccfr import MCCFRSolver

    game = load_game(spec)
    out: dict[str, Any] = {}
    forms = [("public", MCCFRSolver, compile_public(game))]
    if not hasattr(game, "num_histories") or game.num_histories() < 2_000_000:
        forms.append(("history", MCCFRSolver, compile_game(game, form="history")))
    for scheme, per in SAMPLING_ITERS.items():
        for form, cls, tree in forms:
            solver = cls(tree, scheme, seed=0)
            solver.run(2)
            walls, cpus, nodes = [], [], []
            for _ in range(repeats):
                n0, w0, c0 = solver.nodes_visited, time.perf_counter(), time.process_time()
                solver.run(per * scale)
                walls.append(time.perf_counter() - w0)
                cpus.append(time.process_time() - c0)
                nodes.append(solver.nodes_visited - n0)
            rate = [n / t for n, t in zip(nodes, walls, strict=True)]
            cpu_rate = [n / t for n, t in zip(nodes, cpus, strict=True)]
            out[f"{scheme}_{form}_nodes_per_s"] = statistics.median(rate)
            out[f"{scheme}_{form}_nodes_per_cpu_s"] = statistics.median(cpu_rate)
    return out


def sampling_results(repeats: int) -> dict[str, Any]:
    return {"liars_dice": bench_sampling("liars_dice", 200, 3 * repeats),
            "bluff21": bench_sampling("liars_dice(dice=2,dice2=1)", 10, 3 * repeats)}


def print_sampling(res: dict[str, Any]) -> int:
    print("Monte Carlo CFR, histories visited per second (median; per CPU second):")
    for spec, r in res.items():
        for key in (k for k in r if k.endswith("_nodes_per_s")):
            cpu = r[key.replace("_per_s", "_per_cpu_s")]
            print(f"  {spec:11s} {key.replace('_nodes_per_s', '').replace('_', ' '):11s} "
                  f"{r[key] / 1e6:6.2f}M  ({cpu / 1e6:6.2f}M)")
    return 0


def bench_curves(seconds: float, schemes: tuple[str, ...] = ("es", "as")) -> dict[str, Any]:
    """ES and AS on Bluff(2,1) (seed 0) for about ``seconds`` each: exploitability of the
    average strategy at node counts 1e7, 2e7, 5e7, 1e8, ... (Gibson et al. 2012, Figure 3b).
    Evaluation time is not counted in the budget."""
    from rcfr.solvers.mccfr import MCCFRSolver

    tree = compile_public("liars_dice(dice=2,dice2=1)")
    marks = [m * 10**e for e in range(7, 12) for m in (1, 2, 5)]
    out: dict[str, Any] = {}
    for scheme in schemes:
        solver = MCCFRSolver(compile_public(tree), scheme, seed=0)
        solver.run(1)
        curve, spent = [], 0.0
        for mark in marks:
            t0 = time.perf_counter()
            solver.run_nodes(mark - solver.nodes_visited)
            spent += time.perf_counter() - t0
            curve.append((solver.nodes_visited, spent,
                          rcfr.exploitability(tree, solver.average_policy())))
            print(f"  {scheme} {curve[-1][0]:.3g} histories  {spent:.0f} s  exploitability "
                  f"{curve[-1][2]:.4f}", file=sys.stderr, flush=True)
            if spent * 2.2 > seconds:  # the next mark would take past the budget
                break
        out[scheme] = curve
    return out


def bench_dtype(budgets: dict[str, int], schemes: tuple[str, ...] = ("es", "as"),
                seed: int = 0) -> dict[str, Any]:
    """float32 against float64 tables (issue 14): exploitability of the average strategy after
    the same node budget (same seed) and histories per CPU second, ES and AS on the public
    form; the tables' bytes per sequence."""
    from rcfr.solvers.mccfr import MCCFRSolver

    out: dict[str, Any] = {}
    for spec, budget in budgets.items():
        tree = compile_public(spec)
        for scheme in schemes:
            for dtype in ("float64", "float32"):
                solver = MCCFRSolver(compile_public(tree), scheme, seed=seed, dtype=dtype)
                solver.run(1)
                w0, c0 = time.perf_counter(), time.process_time()
                solver.run_nodes(budget)
                wall, cpu = time.perf_counter() - w0, time.process_time() - c0
                est = solver.estimator_
                tables = (solver.strategy_, solver.avg_weights_, solver._inst, est.regrets,
                          est.prediction, est.values_)
                row = {"nodes": solver.nodes_visited,
                       "exploitability": rcfr.exploitability(tree, solver.average_policy()),
                       "nodes_per_s": budget / wall, "nodes_per_cpu_s": budget / cpu,
                       "table_bytes_per_sequence": sum(a.nbytes for a in tables)
                       / tree.num_sequences}
                out[f"{spec} {scheme} {dtype}"] = row
                print(f"  {spec:27s} {scheme} {dtype}  {row['nodes']:.3g} histories  "
                      f"exploitability {row['exploitability']:.6f}  "
                      f"{row['nodes_per_s'] / 1e6:.2f}M/s ({row['nodes_per_cpu_s'] / 1e6:.2f}M "
                      f"per CPU s)", file=sys.stderr, flush=True)
    return out


def bench_rounds() -> dict[str, Any]:
    from rcfr.abstraction.rounds import OPENERS, multi_round_best_responses

    out = {}
    for opener in OPENERS:
        t0 = time.perf_counter()
        br = multi_round_best_responses(2, 1, opener)
        out[opener] = {"best_responses": list(br), "exploitability": sum(br) / 2,
                       "seconds": time.perf_counter() - t0}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer iterations and repeats")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    ap.add_argument("--no-openspiel", action="store_true", help="skip OpenSpiel")
    ap.add_argument("--rounds", action="store_true",
                    help="also multi-round Bluff(2,1)'s uniform exploitability per opener rule")
    ap.add_argument("--sampling", action="store_true",
                    help="only the Monte Carlo CFR throughput")
    ap.add_argument("--parts", action="store_true",
                    help="only the CPU time of each part of a full-width iteration")
    ap.add_argument("--curves", type=float, metavar="SECONDS",
                    help="only ES and AS on Bluff(2,1) for about SECONDS each, exploitability "
                         "at node counts 1e7, 2e7, 5e7, ... (JSON)")
    ap.add_argument("--dtype", type=float, metavar="NODES",
                    help="only float32 against float64 tables: ES and AS on Bluff(1,1) and "
                         "Bluff(2,1) for NODES histories each, exploitability and speed (JSON)")
    args = ap.parse_args(argv)
    repeats = 3 if args.quick else 5
    if args.sampling:
        return print_sampling(sampling_results(repeats))
    if args.parts:
        for spec, calls in (("leduc", 2000), ("liars_dice", 100)):
            r = bench_parts(spec, calls)
            print(f"{spec}: {r.pop('sequences'):,} sequences, {r.pop('public_terminals'):,} "
                  "public terminals; CPU us per call (median)")
            for name, us in r.items():
                print(f"  {name:45s} {us:8.1f}")
        return 0
    if args.dtype:
        budgets = {"liars_dice": int(args.dtype), "liars_dice(dice=2,dice2=1)": int(args.dtype)}
        print(json.dumps(bench_dtype(budgets)))
        return 0
    if args.curves:
        print(json.dumps(bench_curves(args.curves)))
        return 0
    res: dict[str, Any] = {
        "leduc": bench_cfr("leduc", 500 if args.quick else 2000, repeats),
        "liars_dice": bench_cfr("liars_dice", 20 if args.quick else 100, repeats),
    }
    for spec, iters in (("leduc", 200), ("liars_dice", 1)):
        res[spec]["openspiel"] = ({"available": False, "reason": "skipped (--no-openspiel)"}
                                  if args.no_openspiel else bench_openspiel(spec, iters, 3))
    res["bluff21"] = bench_bluff21(3 if args.quick else 5)
    res["sampling"] = sampling_results(repeats)
    if args.rounds:
        res["bluff21_rounds"] = bench_rounds()
    if args.json:
        print(json.dumps(res, indent=2))
        return 0
    print("medians, wall clock (CPU time in parentheses)")
    for spec, name in (("leduc", "Leduc"), ("liars_dice", "Bluff(1,1)")):
        r = res[spec]
        h, p, o = r["history"], r["public"], r["openspiel"]
        print(f"{name}: CFR+ iterations/s  public {p['cfr+_iters_per_s']:,.0f} "
              f"({p['cfr+_iters_per_cpu_s']:,.0f})  history {h['cfr+_iters_per_s']:,.0f} "
              f"({h['cfr+_iters_per_cpu_s']:,.0f})  public/history {r['speedup']:.2f}x "
              f"({r['cpu_speedup']:.2f}x)", end="")
        print(f"  OpenSpiel {o['cfr+_iters_per_s']:,.1f} ({o['cfr+_iters_per_cpu_s']:,.1f})"
              if o.get("available") else "")
        print(f"  one exploitability  public {p['exploitability_ms']:.3f} ms "
              f"({p['exploitability_cpu_ms']:.3f})  history {h['exploitability_ms']:.3f} ms "
              f"({h['exploitability_cpu_ms']:.3f})", end="")
        print(f"  OpenSpiel {o['exploitability_ms']:,.0f} ms ({o['exploitability_cpu_ms']:,.0f})"
              if o.get("available") else "")
    b = res["bluff21"]
    print(f"Bluff(2,1): {b['public_nodes']:,} public nodes, {b['infosets']:,} information sets, "
          f"{b['sequences']:,} sequences, {b['joint_histories']:,} (public node, joint roll) "
          f"pairs, {b['histories']:,} histories")
    print(f"  compile {b['compile_s']:.2f} s ({b['compile_cpu_s']:.2f} s CPU)  tree "
          f"{b['tree_mb']:.0f} MiB  peak RSS "
          f"{b['peak_rss_mb']:.0f} MiB  one exploitability {b['exploitability_s']:.3f} s "
          f"({b['exploitability_cpu_s']:.3f})  one CFR+ iteration {b['cfr+_iteration_s']:.3f} s "
          f"({b['cfr+_iteration_cpu_s']:.3f})")
    print(f"  uniform profile exploitability (one round) {b['uniform_exploitability']:.6f}")
    print_sampling(res["sampling"])
    for opener, r in res.get("bluff21_rounds", {}).items():
        print(f"  multi-round, next round opened by {opener:6s}: {r['exploitability']:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
