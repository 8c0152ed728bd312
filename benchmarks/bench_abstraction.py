#!/usr/bin/env python
"""The thesis's comparison of RCFR with static abstractions (Morrill 2016, figs. 4.1 and 4.3):
each abstraction's complexity share and full-game exploitability after CFR+ on its abstract
game, beside the RCFR variants (BF, BF_BS, BF+, BF+_BS; RP in Leduc) with a leaf budget equal
to the abstraction's size, and the wall time of each run.  Checks the thesis's claims.

    .venv/bin/python benchmarks/bench_abstraction.py                       # 100,000 iterations
    .venv/bin/python benchmarks/bench_abstraction.py --iterations 20000 --rcfr-iterations 20000
    .venv/bin/python benchmarks/bench_abstraction.py --games leduc --jobs 2 --json out.json

Claims (sec. 4.3): every BF variant at the complexity of each Leduc abstraction is less
exploitable than it; BF+ and BF+_BS at the complexity of P, HP, PD and HPD are less exploitable
than each.  Runs are independent: ``--jobs`` spreads them over processes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
try:
    import rcfr
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import rcfr

from rcfr.experiments.thesis import abstraction_baselines, run_variant

GAMES = {"leduc": ("leduc(canonical=true)", ("BF", "BF_BS", "BF+", "BF+_BS", "RP")),
         "nl_one_card": ("nl_one_card", ("BF", "BF_BS", "BF+", "BF+_BS"))}
CLAIMED = {"leduc": ("BF", "BF_BS", "BF+", "BF+_BS"), "nl_one_card": ("BF+", "BF+_BS")}


def _baseline(args):
    game, name, iterations = args
    return abstraction_baselines(game, iterations, abstractions=(name,))[0]


def _variant(args):
    game, variant, share, iterations = args
    return run_variant(game, variant, share, iterations)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="leduc,nl_one_card")
    ap.add_argument("--iterations", type=int, default=100_000, help="CFR+ on abstract games")
    ap.add_argument("--rcfr-iterations", type=int, default=None,
                    help="RCFR iterations (default: --iterations)")
    ap.add_argument("--variants", default=None, help="e.g. BF+,BF+_BS (default: all)")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    rcfr_its = args.rcfr_iterations or args.iterations
    out = {}
    status = 0
    for key in args.games.split(","):
        game, variants = GAMES[key]
        if args.variants:
            variants = tuple(v for v in args.variants.split(",") if v in variants)
        tree = rcfr.compile_game(game)
        names = rcfr.abstraction.standard_abstractions(tree)
        with ProcessPoolExecutor(args.jobs) as pool:
            base = list(pool.map(_baseline, [(game, n, args.iterations) for n in names]))
            shares = sorted({b["complexity_share"] for b in base if b["abstraction"] != "null"}
                            | ({0.03} if key == "nl_one_card" else set()))
            jobs = [(game, v, s, rcfr_its) for s in shares for v in variants]
            runs = []
            for r in pool.map(_variant, jobs):  # in order; printed as they finish
                runs.append(r)
                print(f"  {r['variant']} at {100 * r['complexity_share']:.1f}%: "
                      f"{r['exploitability_mbb']:.2f} mbb/g in {r['seconds']:.0f} s", flush=True)
        out[key] = {"game": game, "sequences": tree.num_sequences, "abstractions": base,
                    "rcfr": runs}
        print(f"\n{game} ({tree.num_sequences} sequences): abstractions after "
              f"{args.iterations:,} CFR+ iterations, RCFR after {rcfr_its:,}")
        print(f"{'abstraction':>11} {'share':>6} {'mbb/g':>9} {'s':>6} | "
              + " | ".join(f"{v:>15}" for v in variants))
        for b in base:
            near = [min((r for r in runs if r["variant"] == v),
                        key=lambda r: abs(r["complexity_share"] - b["complexity_share"]))
                    for v in variants]
            cells = " | ".join(
                f"{r['exploitability_mbb']:7.2f} @{100 * r['complexity_share']:4.1f}%"
                for r in near)
            print(f"{b['abstraction']:>11} {100 * b['complexity_share']:5.1f}% "
                  f"{b['exploitability_mbb']:9.2f} {b['seconds']:6.1f} | {cells}")
        print("RCFR seconds: " + ", ".join(
            f"{r['variant']}@{100 * r['complexity_share']:.1f}% {r['seconds']:.0f}" for r in runs))
        for b in base:
            if b["abstraction"] == "null":
                continue
            for v in CLAIMED[key]:
                if v not in variants:
                    continue
                r = min((r for r in runs if r["variant"] == v),
                        key=lambda r: abs(r["complexity_share"] - b["complexity_share"]))
                ok = (abs(r["complexity_share"] - b["complexity_share"]) <= 0.05
                      and r["exploitability"] < b["exploitability"])
                status |= 0 if ok else 1
                print(f"claim {v} below {b['abstraction']}: {'holds' if ok else 'FAILS'} "
                      f"({r['exploitability_mbb']:.2f} vs {b['exploitability_mbb']:.2f} mbb/g)")
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=1))
    return status


if __name__ == "__main__":
    sys.exit(main())
