#!/usr/bin/env python
"""Distillation (Bertsimas & Paskov 2021): a CFR+ strategy of each game learned by CART, the
optimal tree (STreeD), XGBoost and a small MLP, one model per player and betting round, at a
range of depths; each distilled policy's exact exploitability against its size (leaves or
parameters), beside the original's, and beside RCFR+ (best-first regression trees learning the
regrets while solving; Morrill 2016) at the number of leaves CART reached at each depth.

Resumable: every finished row is appended to the CSV at once, rows already there are skipped,
and the CFR+ strategies are kept beside it (``<game>.cfr+<iterations>.npz``).  Run it at low
priority, the small games first:

    nice -n 19 .venv/bin/python benchmarks/bench_distill.py                # leduc, nl_one_card
    nice -n 19 .venv/bin/python benchmarks/bench_distill.py \\
        --games 'nl_holdem2(stack=20)' --depths 1,2,3,4,6 --rcfr-iterations 100
    .venv/bin/python benchmarks/bench_distill.py --table      # the rows as Markdown tables
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
import time
from pathlib import Path

try:
    import rcfr
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import rcfr
from rcfr.distill import distill

FIELDS = ["game", "method", "max_depth", "size", "unit", "exploitability", "original",
          "iterations", "seconds"]
RESULTS = Path(__file__).resolve().parent / "results"


def _done(path: Path) -> dict[tuple[str, str, str], dict]:
    if not path.exists():
        return {}
    with path.open(newline="") as handle:
        return {(r["game"], r["method"], r["max_depth"]): r for r in csv.DictReader(handle)}


def _append(path: Path, row: dict) -> None:
    new = not path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, FIELDS)
        if new:
            writer.writeheader()
        writer.writerow(row)


def _strategy(game: str, iterations: int, folder: Path) -> rcfr.TabularPolicy:
    """The CFR+ strategy of ``game``, solved once and kept in ``folder``."""
    path = folder / f"{re.sub(r'[^A-Za-z0-9_=.-]+', '_', game)}.cfr+{iterations}.npz"
    if path.exists():
        return rcfr.TabularPolicy.load(path, game)
    t = time.perf_counter()
    policy = rcfr.solve(game, "cfr+", iterations).policy
    print(f"{game}: CFR+ {iterations} iterations in {time.perf_counter() - t:.0f} s", flush=True)
    folder.mkdir(parents=True, exist_ok=True)
    policy.save(path)
    return policy


def tables(path: Path) -> str:
    """The CSV as one Markdown table per game: depth by method, each cell ``size /
    exploitability`` (RCFR+ at CART's leaves: its exploitability)."""
    rows = _done(path)
    out = []
    for game in dict.fromkeys(g for g, _, _ in rows):
        depths = sorted({int(d) for g, _, d in rows if g == game})
        methods = [m for m in ("cart", "optimal", "xgboost", "mlp", "rcfr+")
                   if any(g == game and k == m for g, k, _ in rows)]
        original = next(r["original"] for (g, _, _), r in rows.items() if g == game)
        out += [f"{game} (the original: {float(original):.2g})", "",
                "| depth | " + " | ".join(f"`{m}`" for m in methods) + " |",
                "|---" * (len(methods) + 1) + "|"]
        for d in depths:
            cells = []
            for m in methods:
                r = rows.get((game, m, str(d)))
                cells.append("--" if r is None else f"{float(r['exploitability']):.3f}"
                             if m == "rcfr+" else
                             f"{int(r['size']):,} / {float(r['exploitability']):.3f}")
            out.append(f"| {d} | " + " | ".join(cells) + " |")
        out.append("")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="leduc,nl_one_card")
    ap.add_argument("--iterations", type=int, default=2000, help="CFR+ iterations")
    ap.add_argument("--models", default="cart,optimal,xgboost,mlp")
    ap.add_argument("--depths", default="1,2,3,4,6,8")
    ap.add_argument("--rcfr-iterations", type=int, default=2000,
                    help="RCFR+ iterations (0: no RCFR+ rows)")
    ap.add_argument("--csv", type=Path, default=RESULTS / "distill.csv")
    ap.add_argument("--table", action="store_true",
                    help="print the CSV's rows as Markdown tables and stop")
    args = ap.parse_args()
    if args.table:
        print(tables(args.csv))
        return
    done = _done(args.csv)
    depths = [int(d) for d in args.depths.split(",")]
    for game in args.games.split(","):
        policy = None
        for model in args.models.split(","):
            for depth in depths:
                if model == "optimal" and depth > 4:
                    continue  # the exact search grows quickly with depth
                if (game, model, str(depth)) in done:
                    continue
                policy = policy or _strategy(game, args.iterations, args.csv.parent)
                t = time.perf_counter()
                d = distill(policy, model, depth, per_round=True)
                row = {"game": game, "method": model, "max_depth": depth, "size": d.size,
                       "unit": d.unit, "exploitability": d.evaluation.exploitability,
                       "original": d.original.exploitability, "iterations": args.iterations,
                       "seconds": round(time.perf_counter() - t, 2)}
                _append(args.csv, row)
                done[(game, model, str(depth))] = {k: str(v) for k, v in row.items()}
                print(f"{game:12} {model:8} depth {depth}  {d.size:6,} {d.unit:10}  "
                      f"{d.evaluation.exploitability:.4f}  (original "
                      f"{d.original.exploitability:.4f}, {row['seconds']:.1f} s)", flush=True)
        if not args.rcfr_iterations:
            continue
        features = "holdem" if game.startswith("nl_holdem2") else None  # else the thesis's
        for depth in depths:  # RCFR+ at the leaves CART reached at this depth
            cart = done.get((game, "cart", str(depth)))
            if cart is None or (game, "rcfr+", str(depth)) in done:
                continue
            leaves = int(cart["size"])
            t = time.perf_counter()
            options = {"leaves": leaves} | ({"features": features} if features else {})
            result = rcfr.solve(game, "rcfr+", args.rcfr_iterations, **options)
            row = {"game": game, "method": "rcfr+", "max_depth": depth, "size": leaves,
                   "unit": "leaves", "exploitability": result.evaluation.exploitability,
                   "original": cart["original"], "iterations": args.rcfr_iterations,
                   "seconds": round(time.perf_counter() - t, 2)}
            _append(args.csv, row)
            done[(game, "rcfr+", str(depth))] = {k: str(v) for k, v in row.items()}
            print(f"{game:12} rcfr+    {leaves:6,} leaves  {row['exploitability']:.4f}  "
                  f"({row['seconds']:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
