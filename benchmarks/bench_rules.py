#!/usr/bin/env python
"""Update-rule benchmark on Leduc poker (suits distinct, 936 information sets, and canonical,
288): for each rule (cfr, cfr+, lcfr, dcfr, pcfr+, pdcfr+) the iteration speed and the
iterations and solver time to reach exploitability 1e-3, 1e-4 and 1e-6; external sampling's
passes per second with each rule it takes (lcfr and dcfr discount lazily); in the same run
OpenSpiel's Python ``discounted_cfr.DCFRSolver`` and LiteEFG's DCFR and PCFR+ baselines where
installed.

    .venv/bin/python benchmarks/bench_rules.py                  # full run (a few minutes)
    .venv/bin/python benchmarks/bench_rules.py --quick          # a few seconds
    .venv/bin/python benchmarks/bench_rules.py --simultaneous   # simultaneous updates too
    .venv/bin/python benchmarks/bench_rules.py --json           # one JSON object on stdout

Speed: medians of ``repeats`` timed ``solver.run(k)`` calls after an untimed warm-up (which also
loads the numba kernels), the rules' calls interleaved, CPU time (``time.process_time``) and
wall time; the machine may be shared, and CPU time is what the process itself used.
Convergence: a fresh solver advances one iteration at a time and its average strategy is
evaluated after every iteration (outside any timing), so "iterations" is the first iteration at
or below each target; "seconds" is then the CPU and wall time of one uninterrupted ``run(n)`` of
a fresh solver to that iteration (median of 3).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import platform
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
from timing import timed, version_of

RULES = ("cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "pdcfr+")
ES_RULES = ("cfr", "cfr+", "lcfr", "dcfr")
GAMES = ("leduc", "leduc(canonical=true)")
TARGETS = (1e-3, 1e-4, 1e-6)
FULL = {"speed_iters": 4000, "repeats": 7, "max_iters": 40_000, "es_iters": 20_000,
        "openspiel_iters": 20, "liteefg_iters": 2_000}
QUICK = {"speed_iters": 500, "repeats": 3, "max_iters": 3_000, "es_iters": 2_000,
         "openspiel_iters": 5, "liteefg_iters": 300}
VERBOSE = False


def log(text: str) -> None:
    if VERBOSE:
        print(text, file=sys.stderr, flush=True)


def chunks(max_iters: int):
    done, step = 0, 100
    while done < max_iters:
        step = min(step, max_iters - done)
        yield step
        done += step
        step = max(100, int(step * 1.1))


def reach(curve: list[tuple[int, float, float]]) -> dict[str, Any]:
    """First (iterations, seconds) of ``curve`` at or below each target."""
    out = {}
    for target in TARGETS:
        hit = next(((it, sec) for it, sec, e in curve if e <= target), None)
        out[f"{target:g}"] = None if hit is None else {"iterations": hit[0], "seconds": hit[1]}
    return out


def speeds(makers: dict[str, Any], n: int, repeats: int) -> dict[str, dict[str, float]]:
    """Iterations per second of ``make().run(n)`` for each maker after a warm-up: CPU and wall
    medians, the makers' runs interleaved so that a shared machine's load hits them alike."""
    solvers = {key: make().run(10) for key, make in makers.items()}
    cpu: dict[str, list[float]] = {key: [] for key in makers}
    wall: dict[str, list[float]] = {key: [] for key in makers}
    for _ in range(repeats):
        for key, solver in solvers.items():
            c0, w0 = time.process_time(), time.perf_counter()
            solver.run(n)
            cpu[key].append(time.process_time() - c0)
            wall[key].append(time.perf_counter() - w0)
    return {key: {"cpu": n / statistics.median(cpu[key]),
                  "wall": n / statistics.median(wall[key])} for key in makers}


def time_to(make, n: int, repeats: int = 3) -> dict[str, float]:
    """CPU and wall seconds of one uninterrupted ``run(n)`` of a fresh solver (medians)."""
    cpu, wall = [], []
    for _ in range(repeats):
        solver = make()
        solver.setup()  # validation and kernel loading outside the timing
        c0, w0 = time.process_time(), time.perf_counter()
        solver.run(n)
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return {"cpu": statistics.median(cpu), "wall": statistics.median(wall)}


def first_hits(tree, make, max_iters: int) -> tuple[dict[int, int], int, float]:
    """The first iteration at or below each target (evaluated after every iteration)."""
    solver, hits, expl = make(), {}, float("inf")
    while solver.iteration < max_iters and len(hits) < len(TARGETS):
        solver.run(1)
        expl = rcfr.exploitability(tree, solver.average_policy())
        for target in TARGETS:
            if target not in hits and expl <= target:
                hits[target] = solver.iteration
    return hits, solver.iteration, expl


def bench_rcfr(tree, cfg: dict, alternating: bool = True) -> dict:
    makers = {rule: (lambda r=rule: rcfr.CFRSolver(tree, r, alternating=alternating))
              for rule in RULES}
    fast = speeds(makers, cfg["speed_iters"], cfg["repeats"])
    out = {}
    for rule, make in makers.items():
        hits, last, expl = first_hits(tree, make, cfg["max_iters"])
        reached = {}
        for target in TARGETS:
            n = hits.get(target)
            reached[f"{target:g}"] = None if n is None else {"iterations": n, **time_to(make, n)}
        out[rule] = {"iters_per_s": fast[rule]["cpu"], "iters_per_s_wall": fast[rule]["wall"],
                     "reach": reached, "final": {"iterations": last, "exploitability": expl}}
        log(f"  rcfr {rule:7s} {fast[rule]['cpu']:10,.0f} it/s CPU  "
            f"{fast[rule]['wall']:10,.0f} wall  final {expl:.3g} after {last} iterations")
    return out


def bench_es(tree, cfg: dict) -> dict:
    """External sampling with each rule it takes: iterations (two passes) per second."""
    makers = {rule: (lambda r=rule: rcfr.MCCFRSolver(tree, "es", rule=r, seed=1))
              for rule in ES_RULES}
    fast = speeds(makers, cfg["es_iters"], cfg["repeats"])
    for rule, res in fast.items():
        log(f"  es {rule:5s} {res['cpu']:10,.0f} it/s CPU  {res['wall']:10,.0f} wall")
    return {rule: {"iters_per_s": res["cpu"], "iters_per_s_wall": res["wall"]}
            for rule, res in fast.items()}


def bench_openspiel(cfg: dict) -> dict:
    try:
        import pyspiel
        from open_spiel.python.algorithms import discounted_cfr, exploitability
    except ImportError as exc:
        return {"available": False, "reason": f"not installed ({exc})"}
    game = pyspiel.load_game("leduc_poker")
    solver = discounted_cfr.DCFRSolver(game)
    solver.evaluate_and_update_policy()  # warm-up
    n = cfg["openspiel_iters"]
    times = timed(solver.evaluate_and_update_policy, n)
    expl = exploitability.exploitability(game, solver.average_policy())
    log(f"  OpenSpiel DCFR (Python) {1 / statistics.median(times):,.1f} it/s")
    return {"available": True, "version": version_of("open_spiel"),
            "dcfr": {"iters_per_s": 1 / statistics.median(times), "iterations": n + 1,
                     "exploitability": expl}}


def bench_liteefg(tree, cfg: dict) -> dict:
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            import LiteEFG as leg
            import pyspiel
            from LiteEFG import baselines
    except ImportError as exc:
        return {"available": False, "reason": f"not installed (import LiteEFG: {exc})"}
    out: dict[str, Any] = {"available": True, "version": version_of("LiteEFG")}
    game = pyspiel.load_game("leduc_poker")
    # (our key, LiteEFG baseline, the graph's strategy to follow, the environment's averaging):
    # DCFR keeps its own discounted average; PCFR+ is averaged linearly by the environment, as
    # LiteEFG's own training script does (rcfr's pcfr+ averages quadratically)
    for key, name, which, averaging in (("dcfr", "DCFR", "average-iterate", "last-iterate"),
                                        ("pcfr+", "PCFR", None, "linear-avg-iterate")):
        module = getattr(baselines, name)

        def fresh(m=module):
            with contextlib.redirect_stdout(io.StringIO()):
                g = m.graph()
                e = leg.OpenSpielEnv(game, traverse_type="Enumerate", regenerate=False)
                e.set_graph(g)
            return g, e

        def strategy(g, w=which):
            return g.current_strategy() if w is None else g.current_strategy(w)

        def step(k, g, e):
            for _ in range(k):
                g.update_graph(e)
                e.update_strategy(strategy(g), update_best=False)

        step(10, *fresh())  # warm-up
        graph, env = fresh()
        curve, seconds, done = [], 0.0, 0
        for k in chunks(cfg["liteefg_iters"]):
            t0 = time.perf_counter()
            step(k, graph, env)
            seconds += time.perf_counter() - t0
            done += k
            expl = sum(env.exploitability(strategy(graph), averaging)) / 2.0
            curve.append((done, seconds, expl))
            if expl <= TARGETS[-1]:
                break
        out[key] = {"iters_per_s": done / seconds, "reach": reach(curve),
                    "final": {"iterations": done, "exploitability": curve[-1][2]}}
        log(f"  LiteEFG {name:9s} {done / seconds:10,.0f} it/s  final {curve[-1][2]:.3g}")
    return out


def cell(hit) -> str:
    if hit is None:
        return f"{'-':>28s}"
    return f"{hit['iterations']:>7,d} it {hit['cpu']:6.3f} s ({hit['wall']:.3f})"


def cell_baseline(hit) -> str:
    return f"{'-':>28s}" if hit is None else \
        f"{hit['iterations']:>7,d} it {hit['seconds']:6.3f} s{'':8s}"


def report(results: dict) -> None:
    print(f"rcfr {results['versions']['rcfr']} on {results['machine']} "
          f"(Python {results['versions']['python']}); it/s and seconds: CPU (wall)")
    head = "".join(f"{f'to {t:g}':>28s}" for t in TARGETS)
    for key, runs in results["rcfr"].items():
        base = runs["cfr+"]["iters_per_s"]
        print(f"\n{key}")
        print(f"{'':14s}{'it/s CPU':>10s}{'(wall)':>9s}{'vs cfr+':>8s}{head}")
        for rule, res in runs.items():
            cells = "".join(cell(res["reach"][f"{t:g}"]) for t in TARGETS)
            print(f"{rule:14s}{res['iters_per_s']:10,.0f}{res['iters_per_s_wall']:9,.0f}"
                  f"{res['iters_per_s'] / base:8.2f}{cells}")
        if key.startswith("leduc alternating"):
            le = results["liteefg"]
            if le.get("available"):
                for k in ("dcfr", "pcfr+"):
                    res = le.get(k, {})
                    if "iters_per_s" in res:
                        cells = "".join(cell_baseline(res["reach"][f"{t:g}"]) for t in TARGETS)
                        print(f"LiteEFG {k:6s}{res['iters_per_s']:10,.0f}{'':9s}"
                              f"{res['iters_per_s'] / base:8.3f}{cells}")
            else:
                print(f"LiteEFG: {le['reason']}")
            os_ = results["openspiel"]
            if os_.get("available"):
                d = os_["dcfr"]
                print(f"OpenSpiel dcfr{d['iters_per_s']:10,.1f}{'':9s}"
                      f"{d['iters_per_s'] / base:8.5f}  (Python; exploitability "
                      f"{d['exploitability']:.3g} after {d['iterations']} iterations)")
            else:
                print(f"OpenSpiel: {os_['reason']}")
    print("\n'-': not reached within the iteration cap; iterations: the first at or below the "
          "target (evaluated after every iteration); seconds: one uninterrupted run to it.")
    for game, runs in results["es"].items():
        base = runs["cfr"]["iters_per_s"]
        print(f"\nexternal sampling on {game}: iterations (two passes) / s, CPU (wall), "
              "vs es with cfr")
        for rule, res in runs.items():
            print(f"es {rule:11s}{res['iters_per_s']:10,.0f}{res['iters_per_s_wall']:9,.0f}"
                  f"{res['iters_per_s'] / base:8.2f}")


def main() -> None:
    global VERBOSE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--simultaneous", action="store_true",
                        help="also run every rule with simultaneous updates")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    VERBOSE = args.verbose
    cfg = QUICK if args.quick else FULL
    trees = {game: rcfr.compile_game(game) for game in GAMES}
    runs, es = {}, {}
    for game, tree in trees.items():
        for alternating in (True, False) if args.simultaneous else (True,):
            key = f"{game} {'alternating' if alternating else 'simultaneous'}"
            log(key)
            runs[key] = bench_rcfr(tree, cfg, alternating)
        es[game] = bench_es(tree, cfg)
    results = {
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}",
        "versions": {"rcfr": version_of("rcfr"), "python": platform.python_version(),
                     "numba": version_of("numba")},
        "settings": cfg,
        "rcfr": runs,
        "es": es,
        "openspiel": bench_openspiel(cfg),
        "liteefg": bench_liteefg(trees["leduc"], cfg),
    }
    if args.json:
        print(json.dumps(results))
    else:
        report(results)


if __name__ == "__main__":
    main()
