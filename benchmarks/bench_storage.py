#!/usr/bin/env python
"""What compressed tables cost (issue 23): full-width CFR+ and DCFR with float64, float32 and
int16 storage (``storage="int16"``: int16 regrets and uint16 average sums, one float32 scale
per information set, stochastic rounding; :mod:`rcfr.core.compact`) at equal iterations on the
public form: exploitability, CPU seconds per iteration and the solver's table bytes.

    .venv/bin/python benchmarks/bench_storage.py                        # Leduc and Bluff(1,1)
    .venv/bin/python benchmarks/bench_storage.py --games "nl_holdem2(stack=20)" -n 200 --json

Each variant runs in the same process, one thread; CPU time (``time.process_time``) is taken per
chunk of iterations and the figure is the median chunk over its iterations; ``time x`` and
``expl x`` are same-run ratios against float64 (``expl x`` above 1: int16 is further from an
equilibrium).  Table bytes count what the solver keeps between iterations: current strategy,
average sums and regrets (the float tables also allocate the predictive rules' two spare
vectors, counted) or the compressed tables and their scales.  The pass's own work vectors
(plan, values, instantaneous regrets) and the tree are the same for all and not counted.
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

from rcfr.evaluate import evaluate
from rcfr.forms.public.tree import compile_public
from rcfr.forms.threads import kernel_threads
from rcfr.solvers.loop import CFRSolver

VARIANTS = {"float64": {}, "float32": {"dtype": "float32"}, "int16": {"storage": "int16"},
            "int16+f32": {"storage": "int16", "dtype": "float32"}}


def table_bytes(s: CFRSolver) -> int:
    est = s.estimator_
    total = s.strategy_.nbytes + s.avg_weights_.nbytes
    compact = getattr(est, "compact", None)
    if compact is not None:
        return total + sum(a.nbytes for a in compact)
    return total + est.regrets.nbytes + est.prediction.nbytes + est.values_.nbytes


def measure(game: str, rules: list[str], iterations: int, chunks: int) -> list[dict[str, Any]]:
    tree = compile_public(game)
    rows = []
    for rule in rules:
        base: dict[str, Any] = {}
        for name, kw in VARIANTS.items():
            s = CFRSolver(tree, rule, seed=0, **kw)
            s.setup()  # compile the kernels outside the timing
            per = max(1, iterations // chunks)
            times = []
            while s.iteration < iterations:
                n = min(per, iterations - s.iteration)
                c0 = time.process_time()
                s.run(n)
                times.append((time.process_time() - c0) / n)
            ev = evaluate(s.average_policy())
            row = {"game": game, "rule": rule, "storage": name, "iterations": s.iteration,
                   "exploitability": ev.exploitability, "mbb": ev.exploitability_mbb,
                   "cpu_per_iter": statistics.median(times), "table_bytes": table_bytes(s),
                   "sequences": tree.num_sequences, "infosets": tree.num_infosets}
            if name == "float64":
                base = row
            row["time_x"] = row["cpu_per_iter"] / base["cpu_per_iter"]
            row["expl_x"] = row["exploitability"] / base["exploitability"]
            row["bytes_x"] = row["table_bytes"] / base["table_bytes"]
            rows.append(row)
            print(f"{game:22} {rule:5} {name:10} expl {row['exploitability']:.4e}"
                  + (f" ({row['mbb']:.2f} mbb/g)" if row["mbb"] is not None else "")
                  + f"  x{row['expl_x']:.3f}  {1e3 * row['cpu_per_iter']:.3f} ms/it"
                  f"  x{row['time_x']:.2f}  {row['table_bytes'] / 2**20:.2f} MiB"
                  f"  x{row['bytes_x']:.3f}", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", nargs="+", default=["leduc", "liars_dice"])
    ap.add_argument("--rules", nargs="+", default=["cfr+", "dcfr"])
    ap.add_argument("-n", "--iterations", type=int, default=3000)
    ap.add_argument("--chunks", type=int, default=10)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    with kernel_threads(1):
        for game in args.games:
            rows += measure(game, args.rules, args.iterations, args.chunks)
    if args.json:
        print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
