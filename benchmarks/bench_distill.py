#!/usr/bin/env python
"""Distillation (Bertsimas & Paskov 2021): a CFR+ strategy of each game learned by CART, the
optimal tree (STreeD), XGBoost and a small MLP, one model per player and betting round, at a
range of depths; each distilled policy's exact exploitability against its size (leaves or
parameters), beside the original's, and the fit's wall time.

    .venv/bin/python benchmarks/bench_distill.py                        # leduc, nl_one_card
    .venv/bin/python benchmarks/bench_distill.py --games leduc --iterations 500 --json out.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

try:
    import rcfr
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import rcfr
from rcfr.distill import distill


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="leduc,nl_one_card")
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--models", default="cart,optimal,xgboost,mlp")
    ap.add_argument("--depths", default="1,2,3,4,6,8")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = []
    for game in args.games.split(","):
        policy = rcfr.solve(game, "cfr+", args.iterations).policy
        for model in args.models.split(","):
            for depth in (int(d) for d in args.depths.split(",")):
                if model == "optimal" and depth > 4:
                    continue  # the exact search grows quickly with depth
                t = time.perf_counter()
                d = distill(policy, model, depth, per_round=True)
                row = {"game": game, "model": model, "max_depth": depth, "size": d.size,
                       "unit": d.unit, "exploitability": d.evaluation.exploitability,
                       "original": d.original.exploitability,
                       "seconds": time.perf_counter() - t}
                rows.append(row)
                print(f"{game:12} {model:8} depth {depth}  {d.size:6,} {d.unit:10}  "
                      f"{d.evaluation.exploitability:.4f}  (original "
                      f"{d.original.exploitability:.4f}, {row['seconds']:.1f} s)", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
