#!/usr/bin/env python
"""Monte Carlo CFR benchmark: histories visited per second for rcfr's sampled passes (CS, ES,
OS, AS) against OpenSpiel's C++ external and outcome sampling, and an equal-cost comparison of
the four schemes (Gibson, Burch, Lanctot & Szafron 2012, sec. 5).

    .venv/bin/python benchmarks/bench_sampling.py               # throughput (about a minute)
    .venv/bin/python benchmarks/bench_sampling.py --quick       # a few seconds of timing
    .venv/bin/python benchmarks/bench_sampling.py --experiment  # also exploitability at equal
                                                                # nodes visited, 5 seeds
    .venv/bin/python benchmarks/bench_sampling.py --experiment-only --budget 1e8 --jobs 8
    .venv/bin/python benchmarks/bench_sampling.py --json        # one JSON object on stdout

Throughput.  Each figure is the median over repeats of ``time.perf_counter`` wall-clock time,
after an untimed warm-up (which also loads or compiles rcfr's numba kernels).  rcfr is timed
with ``solver.run_nodes(N)``; "nodes" are histories visited, every history a pass touches
counted once (chance, decision and terminal nodes alike), the measure of the paper's plots.

OpenSpiel's solvers report no node counts, so their iterations per second are converted to
nodes per second with the nodes per iteration of rcfr's *equivalent pass*, counted by running
rcfr for the same number of iterations from a fresh start:

* ``pyspiel.ExternalSamplingMCCFRSolver`` (simple averaging): one ``run_iteration()`` is one
  external-sampling walk per player, as one rcfr ES iteration.
* ``pyspiel.OutcomeSamplingMCCFRSolver`` (epsilon 0.6, its default): one ``run_iteration()`` is
  one sampled episode per player (OpenSpiel 2.0.2 updates both players' regrets in one call), as
  one rcfr OS iteration; the ratio is taken against rcfr OS with epsilon 0.6 (the
  "os (eps 0.6)" row).  (Older OpenSpiel releases ran one episode per call, for the players in
  turn; earlier versions of this script counted 2.0.2's call so, which halved OpenSpiel's OS
  nodes per second.)

Games: rcfr ``leduc`` = OpenSpiel ``leduc_poker``; rcfr ``liars_dice`` = OpenSpiel
``liars_dice`` (Bluff(1,1), 294,883 histories).  Everything runs single-threaded.

Experiment (``--experiment``): for each game, scheme and seed, a fresh solver runs to each node
budget and its average strategy's exploitability is measured there (``rcfr.solvers.mccfr.
nodes_curve``); the table gives the mean over seeds and a 95% interval half-width
(1.96 standard errors).  Defaults: nl_one_card and liars_dice, 5 seeds, AS with the paper's
epsilon 0.05, beta 1e6, tau 1000 and OS with epsilon 0.5.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

try:
    import rcfr
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import rcfr
from timing import timed, version_of

from rcfr.solvers.mccfr import MCCFRSolver, nodes_curve

# (rcfr game string, OpenSpiel game string, OpenSpiel ES iterations, OS iterations per repeat)
GAMES = [
    ("leduc", "leduc_poker", 5000, 20000),
    ("liars_dice", "liars_dice", 1500, 20000),
]
SCHEMES = ["cs", "es", "os", "as"]
FULL = {"repeats": 5, "nodes": 10_000_000, "os_scale": 1.0}
QUICK = {"repeats": 3, "nodes": 2_000_000, "os_scale": 0.25}
OPENSPIEL_OS_EPSILON = 0.6
VERBOSE = False


def log(msg: str) -> None:
    if VERBOSE:
        print(msg, file=sys.stderr, flush=True)


# -- rcfr throughput ------------------------------------------------------------------------
def bench_rcfr_scheme(tree, scheme: str, nodes: int, repeats: int, **options) -> dict:
    solver = MCCFRSolver(tree, scheme, seed=0, **options)
    solver.run_nodes(max(nodes // 5, 1))  # warm-up: kernel load, first iterations
    rates, per_iter = [], []
    for _ in range(repeats):
        n0, i0 = solver.nodes_visited, solver.iteration
        t0 = time.perf_counter()
        solver.run_nodes(nodes)
        dt = time.perf_counter() - t0
        rates.append((solver.nodes_visited - n0) / dt)
        per_iter.append((solver.nodes_visited - n0) / (solver.iteration - i0))
    return {"nodes_per_s": statistics.median(rates),
            "iterations_per_s": statistics.median(rates) / statistics.mean(per_iter),
            "nodes_per_iteration": statistics.mean(per_iter),
            "nodes_per_repeat": nodes, "repeats": repeats}


def nodes_per_iteration(tree, scheme: str, skip: int, count: int, **options) -> float:
    """rcfr's mean histories per iteration over iterations ``skip + 1 .. skip + count`` of a
    fresh solver (the same stretch of training that OpenSpiel was timed on)."""
    solver = MCCFRSolver(tree, scheme, seed=0, **options)
    if skip:
        solver.run(skip)
    n0 = solver.nodes_visited
    solver.run(count)
    return (solver.nodes_visited - n0) / count


def bench_rcfr(cfg: dict) -> dict:
    out: dict[str, Any] = {"version": rcfr.__version__}
    for game_str, *_ in GAMES:
        tree = rcfr.compile_game(game_str)
        res: dict[str, Any] = {"histories": tree.num_nodes}
        rows = [(s, s, {}) for s in SCHEMES] + [
            ("os (eps 0.6)", "os", {"epsilon": OPENSPIEL_OS_EPSILON})]
        for key, scheme, options in rows:
            nodes = int(cfg["nodes"] * (cfg["os_scale"] if scheme == "os" else 1.0))
            res[key] = bench_rcfr_scheme(tree, scheme, nodes, cfg["repeats"], **options)
            log(f"  rcfr      {game_str:11s} {key:13s} {res[key]['nodes_per_s']:14,.0f} nodes/s")
        out[game_str] = res
    return out


# -- OpenSpiel throughput -------------------------------------------------------------------
def bench_openspiel(cfg: dict) -> dict:
    try:
        import pyspiel
    except ImportError as exc:
        return {"available": False, "reason": f"pyspiel not importable ({exc})"}
    out: dict[str, Any] = {"available": True, "version": version_of("open_spiel")}
    reps = cfg["repeats"]
    scale = 0.25 if cfg.get("quick") else 1.0
    for game_str, os_str, es_iters, os_iters in GAMES:
        game = pyspiel.load_game(os_str)
        tree = rcfr.compile_game(game_str)
        res: dict[str, Any] = {"openspiel_game": os_str}
        for key, make, n, scheme, options, episodes in (
            ("es", lambda g=game: pyspiel.ExternalSamplingMCCFRSolver(g, 0), es_iters, "es", {},
             1),
            ("os", lambda g=game: pyspiel.OutcomeSamplingMCCFRSolver(
                g, OPENSPIEL_OS_EPSILON, 0), os_iters, "os",
             {"epsilon": OPENSPIEL_OS_EPSILON}, 1),
        ):
            n = max(100, int(n * scale))
            solver = make()

            def step(s=solver, k=n):
                for _ in range(k):
                    s.run_iteration()

            step()  # warm-up
            times = timed(step, reps)
            its = n / statistics.median(times)
            # rcfr iterations covering the same stretch of training (one episode per player)
            per_iter = nodes_per_iteration(tree, scheme, n // episodes, reps * n // episodes,
                                           **options) / episodes
            res[key] = {"iterations_per_s": its, "iterations_per_repeat": n, "repeats": reps,
                        "nodes_per_iteration_rcfr_equivalent": per_iter,
                        "nodes_per_s": its * per_iter}
            log(f"  openspiel {game_str:11s} {key:13s} {its * per_iter:14,.0f} nodes/s "
                f"({its:,.0f} it/s x {per_iter:.1f} nodes/it)")
        out[game_str] = res
    return out


def ratios(results: dict) -> dict:
    out: dict[str, Any] = {}
    if not results["openspiel"].get("available"):
        return out
    for game_str, *_ in GAMES:
        ours, theirs = results["rcfr"][game_str], results["openspiel"][game_str]
        out[game_str] = {
            "es": ours["es"]["nodes_per_s"] / theirs["es"]["nodes_per_s"],
            "os": ours["os (eps 0.6)"]["nodes_per_s"] / theirs["os"]["nodes_per_s"],
        }
    return out


# -- experiment: exploitability at equal nodes visited ----------------------------------------
def _curve(job: tuple) -> tuple:
    game_str, scheme, seed, budgets = job
    t0 = time.perf_counter()
    curve = nodes_curve(game_str, scheme, budgets, seed=seed)
    return game_str, scheme, seed, curve, time.perf_counter() - t0


def experiment(games: list[str], schemes: list[str], seeds: int, budgets: list[int],
               jobs: int = 1) -> dict:
    """Exploitability of each scheme's average strategy at equal histories visited (mean and
    95% half-width over ``seeds`` runs), Gibson et al. 2012, Figures 2-3."""
    work = [(g, s, seed, budgets) for g in games for s in schemes for seed in range(seeds)]
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            done = list(pool.map(_curve, work))
    else:
        done = [_curve(w) for w in work]
    out: dict[str, Any] = {"budgets": budgets, "seeds": seeds, "games": {}}
    for g in games:
        tree = rcfr.compile_game(g)
        res: dict[str, Any] = {
            "uniform_exploitability": rcfr.exploitability(rcfr.TabularPolicy.uniform(tree))}
        for s in schemes:
            curves = [c for gg, ss, _, c, _ in done if gg == g and ss == s]
            secs = [t for gg, ss, _, _, t in done if gg == g and ss == s]
            rows = []
            for k, budget in enumerate(budgets):
                vals = [c[k][1] for c in curves]
                mean = statistics.fmean(vals)
                half = (1.96 * statistics.stdev(vals) / math.sqrt(len(vals))
                        if len(vals) > 1 else float("nan"))
                rows.append({"nodes": budget, "mean": mean, "ci95": half, "runs": vals})
            res[s] = {"curve": rows, "seconds_per_run": statistics.fmean(secs)}
            log(f"  {g:12s} {s}: " + ", ".join(f"{r['mean']:.4g}" for r in rows))
        out["games"][g] = res
    return out


# -- output -----------------------------------------------------------------------------------
def _fmt(x: float | None, spec: str = "14,.0f") -> str:
    return f"{x:{spec}}" if x is not None else f"{'-':>14s}"


def print_tables(results: dict) -> None:
    m = results["machine"]
    print(f"rcfr {rcfr.__version__} | Python {m['python']} | numba {m['numba']} | {m['processor']} "
          f"({m['cpu_count']} CPUs)")
    if "rcfr" in results:
        ops = results["openspiel"]
        print("\nHistories visited per second (median of repeats, after warm-up)")
        print(f"{'game':12s} {'scheme':14s} {'rcfr nodes/s':>14s} {'nodes/iter':>11s} "
              f"{'OpenSpiel':>14s} {'ratio':>7s}")
        for game_str, *_ in GAMES:
            ours = results["rcfr"][game_str]
            for key in [*SCHEMES, "os (eps 0.6)"]:
                theirs = None
                if ops.get("available") and key in ("es", "os (eps 0.6)"):
                    theirs = ops[game_str]["es" if key == "es" else "os"]["nodes_per_s"]
                ratio = f"{ours[key]['nodes_per_s'] / theirs:6.1f}x" if theirs else ""
                print(f"{game_str:12s} {key:14s} {_fmt(ours[key]['nodes_per_s'])} "
                      f"{ours[key]['nodes_per_iteration']:11.1f} {_fmt(theirs)} {ratio:>7s}")
        if ops.get("available"):
            print(f"\nOpenSpiel {ops['version']} (C++ via pyspiel): iterations/s, converted with "
                  "rcfr's nodes per iteration of the equivalent pass")
            for game_str, *_ in GAMES:
                for key in ("es", "os"):
                    r = ops[game_str][key]
                    print(f"  {game_str:12s} {key}: {r['iterations_per_s']:12,.0f} it/s x "
                          f"{r['nodes_per_iteration_rcfr_equivalent']:8.1f} nodes/it")
        else:
            print(f"\nOpenSpiel: {ops.get('reason')}")
    if "experiment" in results:
        ex = results["experiment"]
        print(f"\nExploitability at equal histories visited (mean over {ex['seeds']} seeds "
              "+- 95% half-width)")
        for g, res in ex["games"].items():
            print(f"{g} (uniform strategy: {res['uniform_exploitability']:.4f})")
            schemes = [s for s in res if s != "uniform_exploitability"]
            print(f"  {'nodes':>10s} " + " ".join(f"{s:>20s}" for s in schemes))
            for k, budget in enumerate(ex["budgets"]):
                cells = [f"{res[s]['curve'][k]['mean']:.5f} +- {res[s]['curve'][k]['ci95']:.5f}"
                         for s in schemes]
                print(f"  {budget:10.2e} " + " ".join(f"{c:>20s}" for c in cells))
            last = {s: res[s]["curve"][-1]["mean"] for s in schemes}
            order = " < ".join(sorted(last, key=last.get))
            print(f"  at {ex['budgets'][-1]:.2e} nodes: {order}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("-v", "--verbose", action="store_true", help="progress on stderr")
    ap.add_argument("--no-openspiel", action="store_true", help="skip OpenSpiel")
    ap.add_argument("--experiment", action="store_true",
                    help="also compare the schemes' exploitability at equal nodes visited")
    ap.add_argument("--experiment-only", action="store_true", help="only the experiment")
    ap.add_argument("--games", default="nl_one_card,liars_dice", help="experiment games")
    ap.add_argument("--seeds", type=int, default=5, help="experiment seeds (default 5)")
    ap.add_argument("--budget", type=float, default=None,
                    help="experiment's largest node budget (default 3e7; --quick 3e6)")
    ap.add_argument("--jobs", type=int, default=1, help="experiment processes (default 1)")
    args = ap.parse_args(argv)
    cfg = dict(QUICK if args.quick else FULL, quick=args.quick)
    global VERBOSE
    VERBOSE = args.verbose

    import numba

    t_start = time.perf_counter()
    results: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "platform": platform.platform(),
                    "processor": platform.processor() or platform.machine(),
                    "cpu_count": os.cpu_count(), "numba": numba.__version__},
        "settings": cfg,
    }
    if not args.experiment_only:
        log("rcfr ...")
        results["rcfr"] = bench_rcfr(cfg)
        if args.no_openspiel:
            results["openspiel"] = {"available": False, "reason": "skipped (--no-openspiel)"}
        else:
            log("OpenSpiel ...")
            results["openspiel"] = bench_openspiel(cfg)
        results["ratios"] = ratios(results)
    if args.experiment or args.experiment_only:
        top = args.budget or (3e6 if args.quick else 3e7)
        budgets = sorted({int(top / 10 ** (k / 2)) for k in range(5)})
        log(f"experiment, budgets {budgets} ...")
        results["experiment"] = experiment(args.games.split(","), SCHEMES, args.seeds, budgets,
                                           args.jobs)
    results["wall_s"] = time.perf_counter() - t_start
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_tables(results)
        print(f"\n(total wall time {results['wall_s']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
