"""How closely rcfr's CFR+ follows OpenSpiel's C++ CFR+ on Leduc hold'em, iteration by iteration.

Prints, at log-spaced iterations, both average strategies' exploitabilities and their absolute
difference.  The two agree to rounding for the first iterations; then regrets that exact
arithmetic makes 0 are kept by OpenSpiel as +-1e-19 residuals (regret matching+ then sees a
positive regret where rcfr sees none), and the trajectories drift apart slowly.

    python benchmarks/openspiel_drift.py [ITERATIONS]
"""

from __future__ import annotations

import sys

import rcfr
from rcfr.solvers.loop import CFRSolver


def main(iterations: int = 2000) -> None:
    try:
        import pyspiel
    except ImportError:
        print("needs OpenSpiel: pip install -e '.[openspiel]'")
        return
    game = pyspiel.load_game("leduc_poker")
    theirs = pyspiel.CFRPlusSolver(game)
    tree = rcfr.compile_game("leduc")
    ours = CFRSolver(tree, "cfr+")
    marks = sorted({int(round(10 ** (k / 4))) for k in range(0, 40)} | {iterations})
    marks = [m for m in marks if m <= iterations]
    done, worst = 0, 0.0
    print(f"{'iteration':>9} {'OpenSpiel':>22} {'rcfr':>22} {'difference':>10}")
    for m in marks:
        for _ in range(m - done):
            theirs.evaluate_and_update_policy()
        ours.run(m - done)
        done = m
        a = float(pyspiel.exploitability(game, theirs.average_policy()))
        b = float(rcfr.exploitability(tree, ours.average_policy()))
        worst = max(worst, abs(a - b))
        print(f"{m:9d} {a:22.17g} {b:22.17g} {abs(a - b):10.2g}  (largest so far {worst:.2g})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
