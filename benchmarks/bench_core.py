#!/usr/bin/env python
"""Core speed benchmark: rcfr against OpenSpiel's C++ CFR solvers (and LiteEFG) on Leduc poker.

Everything is measured in one run, on one machine, with ``time.perf_counter``; each figure is
the median over repeats, after a warm-up that is not timed (for rcfr the warm-up also compiles
or loads the numba kernels).

    .venv/bin/python benchmarks/bench_core.py            # full run (well under 2 minutes)
    .venv/bin/python benchmarks/bench_core.py --quick    # a few seconds of timing
    .venv/bin/python benchmarks/bench_core.py --json     # one JSON object on stdout

Games: ``leduc`` is the suits-distinct Leduc that OpenSpiel's ``leduc_poker`` is;
``leduc(canonical=true)`` merges the two suits, as OpenSpiel's
``leduc_poker(suit_isomorphism=true)`` does.  Both libraries are run on both forms.

What one "iteration" is:

* rcfr ``CFRSolver(tree, "cfr")`` / ``"cfr+"``: alternating updates (player 0, then player 1
  against player 0's new strategy), as OpenSpiel's ``CFRSolver`` / ``CFRPlusSolver`` do.  After
  the OpenSpiel timing the script runs a fresh rcfr solver for the same number of iterations and
  reports the difference of the two average policies' exploitabilities (it should be ~1e-15:
  the two do the same arithmetic).
* LiteEFG's ``baselines.CFR`` updates both players simultaneously, so it is compared with rcfr
  ``CFRSolver(tree, "cfr", alternating=False)``; its ``baselines.CFRplus`` alternates, like rcfr
  CFR+.  One LiteEFG iteration is ``graph.update_graph(env)`` + ``env.update_strategy(...)``,
  the loop of ``LiteEFG.baselines.utils.train``.

Exploitability timing: one evaluation of the average policy (both best responses), i.e.
``rcfr.exploitability(tree, policy)``, ``pyspiel.exploitability(game, policy)`` and LiteEFG's
``env.exploitability(strategy, averaging)``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
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

# (rcfr game string, OpenSpiel game string)
GAMES = [
    ("leduc", "leduc_poker"),
    ("leduc(canonical=true)", "leduc_poker(suit_isomorphism=true)"),
]

FULL = {
    "repeats": 5,
    "rcfr_iters": 3000,
    "openspiel_iters": 20,
    "liteefg_iters": 400,
    "rcfr_evals": 20,
    "openspiel_evals": 5,
    "liteefg_evals": 20,
}
QUICK = {
    "repeats": 3,
    "rcfr_iters": 1000,
    "openspiel_iters": 5,
    "liteefg_iters": 100,
    "rcfr_evals": 5,
    "openspiel_evals": 3,
    "liteefg_evals": 5,
}


VERBOSE = False


def log(msg: str) -> None:
    """Progress on stderr, with ``--verbose``."""
    if VERBOSE:
        print(msg, file=sys.stderr, flush=True)


def rate(iters: int, times: list[float]) -> float:
    return iters / statistics.median(times)


# -- rcfr ---------------------------------------------------------------------------------------
def bench_rcfr(cfg: dict) -> dict:
    out: dict[str, Any] = {"version": rcfr.__version__}
    n, reps = cfg["rcfr_iters"], cfg["repeats"]
    for game_str, _ in GAMES:
        tree = rcfr.compile_game(rcfr.load_game(game_str))
        res: dict[str, Any] = {
            "infosets": int(tree.num_infosets),
            "sequences": int(tree.num_sequences),
        }
        variants = [
            ("cfr", "cfr", True),
            ("cfr+", "cfr+", True),
            ("cfr-simultaneous", "cfr", False),
        ]
        policy = None
        for key, algorithm, alternating in variants:
            solver = rcfr.CFRSolver(tree, algorithm=algorithm, alternating=alternating)
            solver.run(max(10, n // 10))  # warm-up: numba compilation / cache load
            times = timed(lambda s=solver: s.run(n), reps)
            pol = solver.average_policy()
            res[key] = {
                "iters_per_s": rate(n, times),
                "iterations_per_repeat": n,
                "repeats": reps,
                "iterations_total": solver.iteration,
                "exploitability": float(rcfr.exploitability(tree, pol)),
            }
            if key == "cfr":
                policy = pol
            log(f"  rcfr    {game_str:22s} {key:17s} {res[key]['iters_per_s']:12,.0f} it/s")
        rcfr.exploitability(tree, policy)  # warm-up
        times = timed(lambda t=tree, p=policy: rcfr.exploitability(t, p), cfg["rcfr_evals"])
        res["exploitability_ms"] = statistics.median(times) * 1e3
        log(f"  rcfr    {game_str:22s} exploitability    {res['exploitability_ms']:12.3f} ms")
        out[game_str] = res
    return out


# -- OpenSpiel ----------------------------------------------------------------------------------
def bench_openspiel(cfg: dict) -> dict:
    try:
        import pyspiel
    except ImportError as exc:
        return {"available": False, "reason": f"not installed (import pyspiel: {exc})"}
    out: dict[str, Any] = {"available": True, "version": version_of("open_spiel")}
    n, reps = cfg["openspiel_iters"], cfg["repeats"]
    for game_str, os_str in GAMES:
        game = pyspiel.load_game(os_str)
        tree = rcfr.compile_game(rcfr.load_game(game_str))
        res: dict[str, Any] = {"game": os_str}
        policy = None
        # pyspiel's average_policy() refers into its solver: keep the solvers alive.
        solvers = []
        for key, cls in (("cfr", pyspiel.CFRSolver), ("cfr+", pyspiel.CFRPlusSolver)):
            solver = cls(game)
            solvers.append(solver)
            solver.evaluate_and_update_policy()  # warm-up

            def step(s=solver):
                for _ in range(n):
                    s.evaluate_and_update_policy()

            times = timed(step, reps)
            total = 1 + n * reps
            pol = solver.average_policy()
            expl = float(pyspiel.exploitability(game, pol))
            ours = rcfr.CFRSolver(tree, algorithm=key).run(total)
            ours_expl = float(rcfr.exploitability(tree, ours.average_policy()))
            res[key] = {
                "iters_per_s": rate(n, times),
                "iterations_per_repeat": n,
                "repeats": reps,
                "iterations_total": total,
                "exploitability": expl,
                "rcfr_exploitability_same_iterations": ours_expl,
                "abs_diff_vs_rcfr": abs(expl - ours_expl),
            }
            if key == "cfr":
                policy = pol
            log(f"  OpenSpiel {os_str:34s} {key:5s} {res[key]['iters_per_s']:10,.1f} it/s")
        pyspiel.exploitability(game, policy)  # warm-up
        times = timed(lambda g=game, p=policy: pyspiel.exploitability(g, p), cfg["openspiel_evals"])
        res["exploitability_ms"] = statistics.median(times) * 1e3
        log(f"  OpenSpiel {os_str:34s} exploitability {res['exploitability_ms']:10.3f} ms")
        out[game_str] = res
    return out


# -- LiteEFG ------------------------------------------------------------------------------------
def bench_liteefg(cfg: dict) -> dict:
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            import LiteEFG as leg
            import pyspiel
            from LiteEFG.baselines import CFR, CFRplus
    except ImportError as exc:
        return {"available": False, "reason": f"not installed (import LiteEFG: {exc})"}
    out: dict[str, Any] = {"available": True, "version": version_of("LiteEFG")}
    n, reps = cfg["liteefg_iters"], cfg["repeats"]
    # (our key, LiteEFG baseline module, its averaging, the rcfr variant it matches)
    algos = [
        ("cfr", CFR, "avg-iterate", "cfr-simultaneous"),
        ("cfr+", CFRplus, "linear-avg-iterate", "cfr+"),
    ]
    for game_str, os_str in GAMES:
        game = pyspiel.load_game(os_str)
        res: dict[str, Any] = {"game": os_str}
        for key, module, averaging, matches in algos:
            # The graph and environment constructors print banners; LiteEFG also caches the
            # game as a file under ~/game_instances the first time.
            with contextlib.redirect_stdout(io.StringIO()):
                graph = module.graph()
                env = leg.OpenSpielEnv(game, traverse_type="Enumerate", regenerate=False)
                env.set_graph(graph)

            def step(k, g=graph, e=env):
                for _ in range(k):
                    g.update_graph(e)
                    e.update_strategy(g.current_strategy(), update_best=False)

            step(max(5, n // 10))  # warm-up
            times = timed(lambda s=step: s(n), reps)
            strategy = graph.current_strategy()
            env.exploitability(strategy, averaging)  # warm-up
            etimes = timed(
                lambda e=env, s=strategy, a=averaging: e.exploitability(s, a), cfg["liteefg_evals"]
            )
            nash_conv = sum(env.exploitability(strategy, averaging))
            res[key] = {
                "iters_per_s": rate(n, times),
                "iterations_per_repeat": n,
                "repeats": reps,
                "exploitability": nash_conv / 2.0,
                "exploitability_ms": statistics.median(etimes) * 1e3,
                "compared_with_rcfr": matches,
                "updates": "simultaneous" if key == "cfr" else "alternating",
            }
            log(f"  LiteEFG {os_str:34s} {key:5s} {res[key]['iters_per_s']:10,.1f} it/s")
        res["exploitability_ms"] = res["cfr"]["exploitability_ms"]
        out[game_str] = res
    return out


# -- report -------------------------------------------------------------------------------------
def ratios(results: dict) -> dict:
    r, os_, le = results["rcfr"], results["openspiel"], results["liteefg"]
    out: dict[str, Any] = {}
    for game_str, _ in GAMES:
        g: dict[str, Any] = {}
        if os_.get("available"):
            o = os_[game_str]
            g["openspiel"] = {
                "cfr": r[game_str]["cfr"]["iters_per_s"] / o["cfr"]["iters_per_s"],
                "cfr+": r[game_str]["cfr+"]["iters_per_s"] / o["cfr+"]["iters_per_s"],
                "exploitability_speedup": o["exploitability_ms"] / r[game_str]["exploitability_ms"],
            }
        if le.get("available"):
            lg = le[game_str]
            g["liteefg"] = {
                k: r[game_str][lg[k]["compared_with_rcfr"]]["iters_per_s"] / lg[k]["iters_per_s"]
                for k in ("cfr", "cfr+")
            }
            g["liteefg"]["exploitability_speedup"] = (
                lg["exploitability_ms"] / r[game_str]["exploitability_ms"]
            )
        out[game_str] = g
    return out


def fmt_rate(x: float | None) -> str:
    return "-" if x is None else f"{x:,.0f}" if x >= 100 else f"{x:,.1f}"


def fmt_ratio(x: float | None) -> str:
    return "-" if x is None else f"{x:,.0f}x" if x >= 10 else f"{x:.2f}x"


def fmt_ms(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f} ms"


def print_table(results: dict) -> None:
    r, os_, le, ra = (results["rcfr"], results["openspiel"], results["liteefg"], results["ratios"])
    m = results["machine"]
    print(
        f"rcfr {r['version']} | Python {m['python']} | {m['platform']} | "
        f"{m['cpu_count']} CPUs | numba {m['numba']}"
    )
    for label, dist, res in (("OpenSpiel", "open_spiel", os_), ("LiteEFG", "LiteEFG", le)):
        found = f"{dist} {res['version']}" if res.get("available") else res["reason"]
        print(f"{label + ':':10s} {found}")
    s = results["settings"]
    print(
        f"medians over {s['repeats']} repeats of {s['rcfr_iters']} (rcfr) / "
        f"{s['openspiel_iters']} (OpenSpiel) / {s['liteefg_iters']} (LiteEFG) iterations, "
        "after an untimed warm-up"
    )
    print()
    head = (
        f"{'game':22s} {'algorithm':18s} {'rcfr it/s':>11s} {'OpenSpiel':>10s} "
        f"{'rcfr/OS':>8s} {'LiteEFG':>9s} {'rcfr/LE':>8s}"
    )
    print(head)
    print("-" * len(head))
    for game_str, _ in GAMES:
        rows = [
            ("cfr", "cfr (alternating)"),
            ("cfr-simultaneous", "cfr (simultaneous)"),
            ("cfr+", "cfr+"),
        ]
        for key, label in rows:
            rr = r[game_str][key]["iters_per_s"]
            o = ro = lv = lr = None
            if os_.get("available") and key in ("cfr", "cfr+"):
                o = os_[game_str][key]["iters_per_s"]
                ro = ra[game_str]["openspiel"][key]
            lkey = {"cfr-simultaneous": "cfr", "cfr+": "cfr+"}.get(key)
            if le.get("available") and lkey:
                lv = le[game_str][lkey]["iters_per_s"]
                lr = ra[game_str]["liteefg"][lkey]
            print(
                f"{game_str:22s} {label:18s} {fmt_rate(rr):>11s} {fmt_rate(o):>10s} "
                f"{fmt_ratio(ro):>8s} {fmt_rate(lv):>9s} {fmt_ratio(lr):>8s}"
            )
        re_ms = r[game_str]["exploitability_ms"]
        o_ms = os_[game_str]["exploitability_ms"] if os_.get("available") else None
        l_ms = le[game_str]["exploitability_ms"] if le.get("available") else None
        o_x = ra[game_str].get("openspiel", {}).get("exploitability_speedup")
        l_x = ra[game_str].get("liteefg", {}).get("exploitability_speedup")
        print(
            f"{game_str:22s} {'exploitability':18s} {fmt_ms(re_ms):>11s} {fmt_ms(o_ms):>10s} "
            f"{fmt_ratio(o_x):>8s} {fmt_ms(l_ms):>9s} {fmt_ratio(l_x):>8s}"
        )
        print()
    print("ratios are rcfr speed / other speed (for exploitability: other time / rcfr time);")
    print("LiteEFG's CFR baseline updates both players simultaneously, so it is set against")
    print("rcfr cfr(alternating=False); OpenSpiel's solvers and rcfr's defaults alternate.")
    if os_.get("available"):
        print()
        print("cross-check, exploitability of the average policy after the same iterations:")
        for game_str, _ in GAMES:
            for key in ("cfr", "cfr+"):
                o = os_[game_str][key]
                print(
                    f"  {game_str:22s} {key:5s} after {o['iterations_total']:4d} it: "
                    f"OpenSpiel {o['exploitability']:.12f}  rcfr "
                    f"{o['rcfr_exploitability_same_iterations']:.12f}  "
                    f"|diff| {o['abs_diff_vs_rcfr']:.1e}"
                )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    ap.add_argument("-v", "--verbose", action="store_true", help="progress on stderr")
    ap.add_argument("--no-openspiel", action="store_true", help="skip OpenSpiel")
    ap.add_argument("--no-liteefg", action="store_true", help="skip LiteEFG")
    args = ap.parse_args(argv)
    cfg = dict(QUICK if args.quick else FULL)
    global VERBOSE
    VERBOSE = args.verbose

    import numba

    t_start = time.perf_counter()
    results: dict[str, Any] = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(),
            "numba": numba.__version__,
        },
        "settings": {"quick": args.quick, **cfg},
    }
    log("rcfr ...")
    results["rcfr"] = bench_rcfr(cfg)
    if args.no_openspiel:
        results["openspiel"] = {"available": False, "reason": "skipped (--no-openspiel)"}
    else:
        log("OpenSpiel ...")
        results["openspiel"] = bench_openspiel(cfg)
    if args.no_liteefg:
        results["liteefg"] = {"available": False, "reason": "skipped (--no-liteefg)"}
    else:
        log("LiteEFG ...")
        results["liteefg"] = bench_liteefg(cfg)
    results["ratios"] = ratios(results)
    results["wall_s"] = time.perf_counter() - t_start

    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_table(results)
        print(f"\n(total wall time {results['wall_s']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
