#!/usr/bin/env python
"""Libratus's blueprint and fine-grained re-solving on a real-card spot, measured exactly.

For each number of buckets and each bucketing (E[HS²] percentiles, EMD clusters of equity
histograms) a blueprint is solved on the abstract spot and lifted to the real one; its
full-game exploitability (% of the pot) and CPU seconds (the buckets, the solve and the lift)
are reported.  From each EMD blueprint every river subgame (``chance:3``) is then re-solved
with real hands for both players by unsafe, Resolve, Maxmargin and Reach-Maxmargin
re-solving (the public form's gadgets, DCFR), and the assembled strategy is evaluated
exactly; the seconds of the whole re-solve and of one river subgame (median, largest) are
given.  Beside them, DCFR on the real spot: its exploitability at the CPU time that the
blueprint plus re-solving took (the papers' comparison at the same total time).  Last, a
head-to-head match (``rcfr.match``): blueprint + Reach-Maxmargin re-solving against the
blueprint alone, each deal in both seats, valued exactly per deal.

    .venv/bin/python benchmarks/bench_libratus.py                   # basic_turn, 5 20 100
    .venv/bin/python benchmarks/bench_libratus.py --spot turn_small --buckets 2 3 --quick

Results go to benchmarks/results/bench_libratus.json (CPU seconds: time.process_time, one
run each; numba's threads as the machine gives them unless --threads).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from rcfr import compile_game
from rcfr.abstraction.spot import lift_classes
from rcfr.evaluate import evaluate
from rcfr.forms.threads import kernel_threads
from rcfr.match import match
from rcfr.solvers.run import make_solver
from rcfr.subgame import resolve_everywhere_at

METHODS = ("unsafe", "resolve", "maxmargin", "reach-maxmargin")


def pot_share(ev) -> float:
    return float(ev.exploitability_pot)


def blueprint(spot: str, k: int, kind: str, iterations: int, real):
    t0 = time.process_time()
    abstract = compile_game(f"holdem_spot(spot={spot},buckets={k},kind={kind})", form="public")
    solver = make_solver(abstract, "dcfr")
    solver.setup()
    solver.run(iterations)
    lifted = lift_classes(real, abstract, solver.average_policy())
    seconds = time.process_time() - t0
    return lifted, seconds, abstract.num_sequences


def full_curve(real, iterations: int, every: int):
    """DCFR on the real spot: (CPU seconds of the iterations, % of the pot) every ``every``."""
    solver = make_solver(real, "dcfr")
    solver.setup()
    spent, out = 0.0, []
    while solver.iteration < iterations:
        t0 = time.process_time()
        solver.run(every)
        spent += time.process_time() - t0
        out.append((solver.iteration, spent, pot_share(evaluate(real, solver.average_policy()))))
    return out


def at_time(curve, seconds: float) -> float | None:
    """The full solve's exploitability at the last evaluation within ``seconds``."""
    within = [e for _, s, e in curve if s <= seconds]
    return within[-1] if within else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spot", default="basic_turn")
    ap.add_argument("--buckets", type=int, nargs="+", default=[5, 20, 100])
    ap.add_argument("--blueprint-iterations", type=int, default=100)
    ap.add_argument("--resolve-iterations", type=int, default=200)
    ap.add_argument("--full-iterations", type=int, default=600)
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--quick", action="store_true", help="E[HS²] blueprints left out")
    ap.add_argument("--out", default="benchmarks/results/bench_libratus.json")
    args = ap.parse_args()
    with kernel_threads(args.threads):
        run(args)


def run(args) -> None:
    game = f"holdem_spot(spot={args.spot})"
    real = compile_game(game, form="public")
    rows: dict = {"spot": game, "args": vars(args), "blueprints": [], "full": None}
    curve = full_curve(real, args.full_iterations, max(1, args.full_iterations // 20))
    rows["full"] = curve
    print(f"DCFR on the real spot: {curve[-1][2]:.3f}% of the pot after {curve[-1][0]} "
          f"iterations, {curve[-1][1]:.1f} CPU s", flush=True)
    for k in args.buckets:
        for kind in ("ehs2", "emd")[1 if args.quick else 0:]:
            lifted, seconds, seqs = blueprint(args.spot, k, kind, args.blueprint_iterations,
                                              real)
            ev = evaluate(real, lifted)
            row = {"buckets": k, "kind": kind, "sequences": seqs, "seconds": seconds,
                   "pot_pct": pot_share(ev), "resolved": {}}
            print(f"{k} {kind} buckets: blueprint {row['pot_pct']:.3f}% of the pot, "
                  f"{seconds:.1f} CPU s, {seqs:,} sequences", flush=True)
            rows["blueprints"].append(row)
            if kind != "emd":
                continue
            best = None
            resolve_everywhere_at(lifted, "chance:3", "resolve", algorithm="dcfr",
                                  iterations=1)  # (numba compiles the gadget kernels once)
            for method in METHODS:
                t0 = time.process_time()
                out = resolve_everywhere_at(lifted, "chance:3", method, algorithm="dcfr",
                                            iterations=args.resolve_iterations)
                spent = time.process_time() - t0
                each = [r.seconds for r in out.results]
                total = seconds + spent
                res = {"pot_pct": pot_share(out.evaluation), "seconds": spent,
                       "subgames": len(each), "one_median": float(np.median(each)),
                       "one_max": float(np.max(each)), "min_margin": out.min_margin,
                       "total_seconds": total, "full_at_same_time": at_time(curve, total)}
                row["resolved"][method] = res
                print(f"  {method}: {res['pot_pct']:.3f}% ({spent:.1f} CPU s; one subgame "
                      f"median {res['one_median']:.3f} s, max {res['one_max']:.3f} s); full "
                      f"DCFR at {total:.1f} s: {res['full_at_same_time']}", flush=True)
                if method == "reach-maxmargin":
                    best = out.policy
            if best is not None:
                m = match(best, lifted, args.hands, seed=0)
                row["match"] = m.to_dict()
                print(f"  match, re-solved against blueprint: {m.estimate:+.3f} "
                      f"± {m.half_width:.3f} chips/hand (exact {m.exact:+.3f})", flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
