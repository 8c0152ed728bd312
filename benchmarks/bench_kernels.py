#!/usr/bin/env python
"""CPU time of the kernels every solver runs, one figure per (form, game, kernel): full-width
CFR / CFR+ / DCFR per iteration, one exact evaluation, and the four sampling schemes per node
visited, on Leduc (history and public form) and Bluff(1,1) (history and public form).

Each figure is ``time.process_time`` over repeated calls until 0.4 s of CPU, after a warm-up;
it is meant for before/after comparisons of a change on a shared machine, interleaved and
taking the minimum over runs (the run least disturbed by the machine's other load):

    .venv/bin/python benchmarks/compare.py --base /tmp/base --runs 8 --stat min "bench_kernels.py"
"""

from __future__ import annotations

import argparse
import json
import time

import rcfr
from rcfr.forms.compile import compile_game
from rcfr.solvers.loop import CFRSolver
from rcfr.solvers.mccfr import MCCFRSolver


def cpu_seconds(step, budget: float = 0.4) -> float:
    """CPU seconds per call of ``step`` (after one warm-up call)."""
    step()
    n, t0 = 0, time.process_time()
    while True:
        step()
        n += 1
        spent = time.process_time() - t0
        if spent >= budget:
            return spent / n


def measure(budget: float) -> dict[str, float]:
    out: dict[str, float] = {}
    trees = {"leduc_history": compile_game("leduc", form="history"),
             "leduc_public": compile_game("leduc", form="public"),
             "bluff11_history": compile_game("liars_dice", form="history"),
             "bluff11_public": compile_game("liars_dice", form="public")}
    for name in ("leduc_history", "leduc_public", "bluff11_public"):
        tree = trees[name]
        for algorithm in ("cfr", "cfr+", "dcfr"):
            solver = CFRSolver(tree, algorithm).run(2)
            out[f"{name}.{algorithm}.ms"] = 1e3 * cpu_seconds(lambda s=solver: s.run(20),
                                                              budget) / 20
        policy = CFRSolver(tree, "cfr+").run(10).average_policy()
        out[f"{name}.evaluate.ms"] = 1e3 * cpu_seconds(
            lambda t=tree, p=policy: rcfr.exploitability(t, p), budget)
    for name in ("leduc_history", "bluff11_history", "bluff11_public"):
        for scheme in ("cs", "es", "os", "as"):
            solver = MCCFRSolver(trees[name], scheme, seed=1).run_nodes(10_000)
            out[f"{name}.{scheme}.ns_per_node"] = 1e9 * cpu_seconds(
                lambda s=solver: s.run_nodes(200_000), budget) / 200_000
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true", help="one JSON object")
    ap.add_argument("--budget", type=float, default=0.4, help="CPU seconds per figure")
    args = ap.parse_args()
    out = measure(args.budget)
    if args.json:
        print(json.dumps(out))
        return
    for key, value in out.items():
        print(f"{key:36s} {value:10.4g}")


if __name__ == "__main__":
    main()
