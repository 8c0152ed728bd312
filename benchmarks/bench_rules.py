#!/usr/bin/env python
"""Update-rule benchmark on Leduc poker: for each rule (cfr, cfr+, lcfr, dcfr, pcfr+, pdcfr+)
the iteration speed and the solver time and iterations to reach exploitability 1e-3, 1e-4 and
1e-6; in the same run OpenSpiel's Python ``discounted_cfr.DCFRSolver`` and LiteEFG's DCFR and
PCFR+ baselines where installed.

    .venv/bin/python benchmarks/bench_rules.py            # full run (a few minutes)
    .venv/bin/python benchmarks/bench_rules.py --quick    # a few seconds
    .venv/bin/python benchmarks/bench_rules.py --json     # one JSON object on stdout

Speed: median of ``repeats`` timed ``solver.run(k)`` calls after an untimed warm-up (which also
loads the numba kernels); all rules use alternating updates.  Convergence: a fresh solver runs
in chunks (100 iterations, then growing by 10%); the average strategy is evaluated after each
chunk, outside the timed part, so "iterations" is the first evaluated point at or below the
target (a slight overestimate) and "seconds" the solver time up to it.
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
TARGETS = (1e-3, 1e-4, 1e-6)
FULL = {"speed_iters": 2000, "repeats": 5, "max_iters": 30_000, "openspiel_iters": 20,
        "liteefg_iters": 2_000}
QUICK = {"speed_iters": 500, "repeats": 3, "max_iters": 3_000, "openspiel_iters": 5,
         "liteefg_iters": 300}
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


def bench_rcfr(tree, cfg: dict) -> dict:
    out = {}
    for rule in RULES:
        solver = rcfr.CFRSolver(tree, rule).run(10)  # warm-up: the kernel is loaded
        n = cfg["speed_iters"]
        speed = n / statistics.median(timed(lambda s=solver, k=n: s.run(k), cfg["repeats"]))
        solver = rcfr.CFRSolver(tree, rule)
        curve, seconds = [], 0.0
        for k in chunks(cfg["max_iters"]):
            t0 = time.perf_counter()
            solver.run(k)
            seconds += time.perf_counter() - t0
            expl = rcfr.exploitability(tree, solver.average_policy())
            curve.append((solver.iteration, seconds, expl))
            if expl <= TARGETS[-1]:
                break
        out[rule] = {"iters_per_s": speed, "reach": reach(curve),
                     "final": {"iterations": curve[-1][0], "exploitability": curve[-1][2]}}
        log(f"  rcfr {rule:7s} {speed:10,.0f} it/s  final {curve[-1][2]:.3g} "
            f"after {curve[-1][0]} iterations")
    return out


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


def report(results: dict) -> None:
    r = results["rcfr"]
    base = r["cfr+"]["iters_per_s"]
    print(f"rcfr {results['versions']['rcfr']} on {results['machine']} "
          f"(Python {results['versions']['python']}), game leduc")
    head = "".join(f"{f'to {t:g}':>22s}" for t in TARGETS)
    print(f"{'':18s}{'it/s':>10s}{'vs cfr+':>9s}{head}")

    def cell(hit):
        return f"{'-':>22s}" if hit is None else \
            f"{hit['iterations']:>10,d} it {hit['seconds']:7.3f} s"

    for rule, res in r.items():
        cells = "".join(cell(res["reach"][f"{t:g}"]) for t in TARGETS)
        print(f"rcfr {rule:13s}{res['iters_per_s']:10,.0f}{res['iters_per_s'] / base:9.2f}{cells}")
    le = results["liteefg"]
    if le.get("available"):
        for key in ("dcfr", "pcfr+"):
            res = le.get(key, {})
            if "iters_per_s" in res:
                cells = "".join(cell(res["reach"][f"{t:g}"]) for t in TARGETS)
                print(f"LiteEFG {key:10s}{res['iters_per_s']:10,.0f}"
                      f"{res['iters_per_s'] / base:9.2f}{cells}")
    else:
        print(f"LiteEFG: {le['reason']}")
    os_ = results["openspiel"]
    if os_.get("available"):
        d = os_["dcfr"]
        print(f"OpenSpiel dcfr    {d['iters_per_s']:10,.1f}{d['iters_per_s'] / base:9.5f}  "
              f"(Python; exploitability {d['exploitability']:.3g} after {d['iterations']} "
              "iterations)")
    else:
        print(f"OpenSpiel: {os_['reason']}")
    print("'-': not reached within the iteration cap; seconds are solver time, evaluation "
          "excluded.")


def main() -> None:
    global VERBOSE
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    VERBOSE = args.verbose
    cfg = QUICK if args.quick else FULL
    tree = rcfr.compile_game("leduc")
    results = {
        "machine": f"{platform.machine()}, {platform.processor() or 'cpu'}",
        "versions": {"rcfr": version_of("rcfr"), "python": platform.python_version(),
                     "numba": version_of("numba")},
        "settings": cfg,
        "rcfr": bench_rcfr(tree, cfg),
        "openspiel": bench_openspiel(cfg),
        "liteefg": bench_liteefg(tree, cfg),
    }
    if args.json:
        print(json.dumps(results))
    else:
        report(results)


if __name__ == "__main__":
    main()
