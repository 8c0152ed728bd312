#!/usr/bin/env python
"""What pruning skips and what it saves in the full-width passes: per game and rule, the same
run unpruned (``prune="none"``), with partial pruning (``"partial"``: the terminals the
opponent cannot reach) and, for CFR on the history form, with regret-based pruning
(``"regret"``); the fraction of the terminal sweeps' terminals each skipped (public terminals
in the public form; over the whole run and over its last chunk), the CPU time per iteration
and, for regret-based pruning, the exploitability against the unpruned run's.

    .venv/bin/python benchmarks/bench_pruning.py                     # the convergence suite
    .venv/bin/python benchmarks/bench_pruning.py --games leduc liars_dice4 --form public
    .venv/bin/python benchmarks/bench_pruning.py --games "nl_holdem2(stack=20)" -n 200 --json

Games are suite short names (:mod:`rcfr.games.suite`) or game strings, on the form
``compile_game`` picks (or ``--form``).  The runs go in the same process on one thread, their
chunks of iterations interleaved (so a busy machine slows them alike); CPU time
(``time.process_time``) is taken per chunk and the figure is the median chunk over its
iterations.  The unpruned and partially pruned runs' tables are compared at the end: partial
pruning must not change a bit (the script stops if it does).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

try:
    import rcfr  # noqa: F401
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rcfr.evaluate import exploitability
from rcfr.forms.base import Capability
from rcfr.forms.compile import compile_game
from rcfr.forms.threads import kernel_threads
from rcfr.games.suite import BY_NAME
from rcfr.solvers.loop import CFRSolver

SUITE = ["kuhn", "leduc", "small_matrix", "goofspiel3", "goofspiel4", "liars_dice3",
         "liars_dice4", "battleship2x2", "battleship2x3", "big_leduc", "libratus_endgame3",
         "libratus_endgame4"]


def _skipped(s: CFRSolver) -> tuple[int, int, int]:
    st = s.pass_.stats
    return int(st[:, 0].sum()), int(st[:, 1].sum()), int(st[:, 2].sum())


def measure(game: str, rules: list[str], iterations: int, chunks: int,
            form: str = "auto") -> list[dict[str, Any]]:
    spec = BY_NAME[game].game_string if game in BY_NAME else game
    tree = compile_game(spec, form=form)
    form = type(tree).__name__
    rows = []
    for rule in rules:
        names = ["none", "partial"]
        if rule == "cfr" and tree.supports(Capability.REGRET_PRUNING):
            names.append("regret")
        runs = {name: CFRSolver(tree, rule, prune=name) for name in names}
        for s in runs.values():
            s.setup()  # (compiles the kernels outside the timing)
        times: dict[str, list[float]] = {name: [] for name in runs}
        last: dict[str, tuple[int, int, int]] = {}
        per = max(1, iterations // chunks)
        while runs["none"].iteration < iterations:
            n = min(per, iterations - runs["none"].iteration)
            for name, s in runs.items():
                last[name] = _skipped(s)
                c0 = time.process_time()
                s.run(n)
                times[name].append((time.process_time() - c0) / n)
        a, b = runs["none"], runs["partial"]
        for x, y in ((a.estimator_.regrets, b.estimator_.regrets), (a.strategy_, b.strategy_),
                     (a.avg_weights_, b.avg_weights_)):
            if x.tobytes() != y.tobytes():
                raise SystemExit(f"{game} {rule}: partial pruning changed the tables")
        t_none = statistics.median(times["none"])
        for name in names[1:]:
            s = runs[name]
            now = _skipped(s)
            column = 0 if name == "partial" else 1
            t = statistics.median(times[name])
            row = {"game": game, "form": form, "rule": rule, "prune": name,
                   "iterations": s.iteration, "skipped": now[column] / max(1, now[2]),
                   "skipped_last_chunk": (now[column] - last[name][column]) / max(
                       1, now[2] - last[name][2]),
                   "cpu_per_iter_none": t_none, "cpu_per_iter": t,
                   "speedup": t_none / t if t else None}
            if name == "regret":
                row["skipped_partial"] = now[0] / max(1, now[2])
                row["exploitability_none"] = exploitability(a.average_policy())
                row["exploitability"] = exploitability(s.average_policy())
            rows.append(row)
            extra = (f"  expl {row['exploitability']:.4e} (none {row['exploitability_none']:.4e})"
                     if name == "regret" else "")
            print(f"{game:20} {form:10} {rule:6} {name:8} skipped {100 * row['skipped']:5.1f}% "
                  f"(last chunk {100 * row['skipped_last_chunk']:5.1f}%)  none "
                  f"{1e3 * t_none:9.3f} ms/it  {name} {1e3 * t:9.3f} ms/it  "
                  f"x{row['speedup']:.2f}{extra}", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=SUITE)
    ap.add_argument("--rules", nargs="+", default=["cfr", "cfr+", "dcfr"])
    ap.add_argument("-n", "--iterations", type=int, default=300)
    ap.add_argument("--chunks", type=int, default=10)
    ap.add_argument("--form", default="auto", choices=("auto", "history", "public"))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    with kernel_threads(1):
        for game in args.games:
            rows += measure(game, args.rules, args.iterations, args.chunks, args.form)
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
