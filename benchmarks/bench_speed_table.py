#!/usr/bin/env python
"""The README's "Speed against OpenSpiel" table in one run: rcfr and OpenSpiel's C++ solvers
(through pyspiel) alternating round by round, medians of CPU time (``time.process_time``), the
load average printed before and after.

    .venv/bin/python benchmarks/bench_speed_table.py              # 5 rounds, a few minutes
    .venv/bin/python benchmarks/bench_speed_table.py --rounds 3 --json

Rows: Leduc (``leduc`` = ``leduc_poker``, history form) CFR and CFR+ iterations per second
(alternating updates on both sides), one exploitability evaluation of the CFR+ average policy;
Bluff(1,1) (``liars_dice``, public form) CFR+ iterations per second and one exploitability
evaluation; Leduc external and outcome sampling (epsilon 0.6, OpenSpiel's default) histories
visited per second.  OpenSpiel counts no histories, so its iterations per second are converted
with the histories per iteration of rcfr's equivalent pass from a fresh start (one walk or
episode per player per iteration on both sides; see ``bench_sampling.py``).  CPU time is what
a process spent itself, so on a loaded machine it compares where wall time does not.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

try:
    import rcfr
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import rcfr

EPSILON = 0.6  # OpenSpiel's outcome-sampling default


def cpu(fn) -> float:
    c0 = time.process_time()
    fn()
    return time.process_time() - c0


def _loop(fn, k: int):
    def run():
        for _ in range(k):
            fn()
    return run


def _runs(solver, k: int):
    return lambda: solver.run(k)


def cases(scale: float) -> dict:
    """Per row: (rcfr's timed call, its units), (OpenSpiel's timed call, its units)."""
    import pyspiel

    from rcfr.solvers.mccfr import MCCFRSolver

    n = lambda x: max(1, int(x * scale))  # noqa: E731
    leduc, bluff = rcfr.compile_game("leduc"), rcfr.compile_game("liars_dice", form="public")
    g_leduc, g_bluff = pyspiel.load_game("leduc_poker"), pyspiel.load_game("liars_dice")
    out = {}
    for algo, os_cls in (("cfr", pyspiel.CFRSolver), ("cfr+", pyspiel.CFRPlusSolver)):
        ours, theirs = rcfr.CFRSolver(leduc, algo), os_cls(g_leduc)
        ours.run(10)
        out[f"Leduc {algo.upper()} iterations / s"] = (
            (_runs(ours, n(4000)), n(4000)),
            (_loop(theirs.evaluate_and_update_policy, n(20)), n(20)))
    ours.run(1000)
    pol, os_pol = ours.average_policy(), theirs.average_policy()
    out["Leduc, one exploitability evaluation (ms)"] = (
        (_loop(lambda p=pol: rcfr.exploitability(leduc, p), 200), 200),
        (lambda p=os_pol: pyspiel.exploitability(g_leduc, p), 1))
    ours, theirs = rcfr.CFRSolver(bluff, "cfr+"), pyspiel.CFRPlusSolver(g_bluff)
    ours.run(10)
    theirs.evaluate_and_update_policy()
    out["Bluff(1,1) CFR+ iterations / s"] = (
        (_runs(ours, n(400)), n(400)),
        (_loop(theirs.evaluate_and_update_policy, n(2)), n(2)))
    pol, os_pol = ours.average_policy(), theirs.average_policy()
    out["Bluff(1,1), one exploitability evaluation (ms)"] = (
        (_loop(lambda p=pol: rcfr.exploitability(bluff, p), 20), 20),
        (lambda p=os_pol: pyspiel.exploitability(g_bluff, p), 1))
    for scheme, its, make in (
            ("es", 2000, lambda: pyspiel.ExternalSamplingMCCFRSolver(g_leduc, 0)),
            ("os", 20000, lambda: pyspiel.OutcomeSamplingMCCFRSolver(g_leduc, EPSILON, 0))):
        opts = {"epsilon": EPSILON} if scheme == "os" else {}
        k = n(its)
        probe = MCCFRSolver(leduc, scheme, seed=0, **opts)
        probe.run(k)
        per_iteration = probe.nodes_visited / k  # rcfr's equivalent pass, from a fresh start
        ours, theirs = MCCFRSolver(leduc, scheme, seed=1, **opts), make()
        ours.run(10)
        budget = int(per_iteration * k * 10)
        out[f"Leduc {scheme.upper()} histories / s"] = (
            (lambda s=ours, b=budget: s.run_nodes(b), budget),
            (_loop(theirs.run_iteration, k), k * per_iteration))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--scale", type=float, default=1.0, help="work per timed call, scaled")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    try:
        import pyspiel
    except ImportError as exc:
        raise SystemExit(f"error: needs OpenSpiel ({exc})") from None
    load0 = os.getloadavg()[0]
    rows = cases(args.scale)
    times: dict = {name: ([], []) for name in rows}
    for _ in range(args.rounds):
        for name, sides in rows.items():  # rcfr, then OpenSpiel, row by row
            for (fn, units), acc in zip(sides, times[name], strict=True):
                acc.append(cpu(fn) / units)
    result = {"rounds": args.rounds, "load_before": load0, "load_after": os.getloadavg()[0],
              "openspiel": getattr(pyspiel, "__version__", None), "rows": {}}
    for name, (ours, theirs) in times.items():
        a, b = statistics.median(ours), statistics.median(theirs)
        if name.endswith("(ms)"):
            row = {"rcfr": a * 1e3, "openspiel": b * 1e3, "rcfr_faster": b / a}
        else:
            row = {"rcfr": 1 / a, "openspiel": 1 / b, "rcfr_faster": b / a}
        result["rows"][name] = row
    if args.json:
        print(json.dumps(result))
        return
    print(f"CPU-time medians of {args.rounds} alternating rounds, load {load0:.1f} -> "
          f"{result['load_after']:.1f}")
    for name, r in result["rows"].items():
        print(f"  {name:48s} rcfr {r['rcfr']:14,.4g}  OpenSpiel {r['openspiel']:12,.4g}  "
              f"rcfr faster {r['rcfr_faster']:8,.1f}x")


if __name__ == "__main__":
    main()
