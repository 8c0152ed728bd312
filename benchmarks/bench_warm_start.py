"""What a warm start saves on 2-NL Hold'em(k) (Brown & Sandholm 2016): solve a smaller stack,
warm-start the target stack from its strategy (raises read scaled by the ratio of the stacks,
:meth:`rcfr.games.nl_holdem2.NLHoldem2.translate_infoset`), and compare the iterations and CPU
seconds to each target exploitability with a cold start of the same rule.  The warm run's
cost counts the source's solve and the warm start's one walk; evaluation is not counted.

    python benchmarks/bench_warm_start.py --source 12 --target 20 --rule dcfr \\
        --source-iterations 1000 --iterations 1000 --out warm.json

``--buckets 3`` and small stacks make a quick run (``--source 8 --target 12 --buckets 3``:
seconds); the target stack's form is rcfr's default (the public form from 2-NL Hold'em(20)
up).  Writes one JSON object (``--out``, else standard output).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import rcfr
from rcfr.evaluate import exploitability
from rcfr.solvers.loop import CFRSolver
from rcfr.solvers.warm import warm_start

MBB = 1000.0 / 2.0  # chips to mbb/g (a big blind of 2 chips)


def curve(solver: CFRSolver, tree, iterations: int, every: int, offset: int = 0,
          cpu0: float = 0.0) -> list[dict]:
    """Run ``iterations`` iterations, evaluating every ``every``: points of iterations run,
    CPU seconds spent iterating (plus ``cpu0``) and exploitability in mbb/g."""
    points, cpu = [], cpu0
    while solver.iteration - offset < iterations:
        step = min(every, iterations - (solver.iteration - offset))
        c0 = time.process_time()
        solver.run(step)
        cpu += time.process_time() - c0
        points.append({"iterations": solver.iteration - offset, "cpu_seconds": cpu,
                       "mbb": MBB * exploitability(tree, solver.average_policy())})
    return points


def first_below(points: list[dict], target: float) -> dict | None:
    return next(({"iterations": p["iterations"], "cpu_seconds": p["cpu_seconds"]}
                 for p in points if p["mbb"] <= target), None)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", type=int, default=12, help="the source's stack")
    ap.add_argument("--target", type=int, default=20, help="the target's stack")
    ap.add_argument("--buckets", type=int, default=5)
    ap.add_argument("--rule", default="dcfr")
    ap.add_argument("--source-iterations", type=int, default=1000)
    ap.add_argument("--iterations", type=int, default=1000, help="of the target, each run")
    ap.add_argument("--every", type=int, default=50, help="iterations between evaluations")
    ap.add_argument("--warm-iterations", type=int, default=None,
                    help="the iterations the warm strategy stands for (default: rcfr's)")
    ap.add_argument("--targets", default="1000,300,100,30,10,3,1", help="mbb/g")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    targets = [float(x) for x in args.targets.split(",")]
    game = f"nl_holdem2(stack={{}},buckets={args.buckets})"
    src = rcfr.compile_game(game.format(args.source))
    dst = rcfr.compile_game(game.format(args.target))

    source = CFRSolver(src, args.rule)
    source.setup()
    c0 = time.process_time()
    source.run(args.source_iterations)
    source_cpu = time.process_time() - c0
    policy = source.average_policy()
    print(f"source {src.game}: {args.source_iterations} iterations, {source_cpu:.1f} CPU s, "
          f"{MBB * exploitability(src, policy):.3g} mbb/g", file=sys.stderr)

    cold = CFRSolver(dst, args.rule)
    cold.setup()
    cold_points = curve(cold, dst, args.iterations, args.every)
    print(f"cold {dst.game}: {cold_points[-1]}", file=sys.stderr)

    warm = CFRSolver(dst, args.rule)
    warm.setup()
    c0 = time.process_time()
    info = warm_start(warm, policy, args.warm_iterations)
    start_cpu = time.process_time() - c0  # (with the two exploitabilities T' is read from)
    warm_points = curve(warm, dst, args.iterations, args.every, info.iterations,
                        source_cpu + start_cpu)
    print(f"warm {dst.game}: T' {info.iterations}, {warm_points[-1]}", file=sys.stderr)
    result = {
        "source": str(src.game), "target": str(dst.game), "rule": args.rule,
        "source_iterations": args.source_iterations, "source_cpu_seconds": source_cpu,
        "warm_start": {**info.info(), "mbb": MBB * info.exploitability,
                       "cpu_seconds": start_cpu},
        "cold": cold_points, "warm": warm_points,
        "to_target": {str(t): {"cold": first_below(cold_points, t),
                               "warm": first_below(warm_points, t)} for t in targets},
        "versions": {"rcfr": rcfr.__version__},
    }
    text = json.dumps(result, indent=1)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    else:
        print(text)
    return result


if __name__ == "__main__":
    main()
