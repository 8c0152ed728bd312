#!/usr/bin/env python
"""Outcome sampling per episode: rcfr against OpenSpiel's C++ outcome sampling at equal
episodes, over seeds (medians, a Mann-Whitney rank test).

    .venv/bin/python benchmarks/bench_os_parity.py                        # Leduc, 20,000 episodes
    .venv/bin/python benchmarks/bench_os_parity.py --game kuhn --seeds 30 --json

An episode is one sampled trajectory for one updating player.  rcfr's OS iteration is one
episode per player, and so is OpenSpiel 2.0.2's ``OutcomeSamplingMCCFRSolver.run_iteration()``
(it updates both players' regrets), so both run ``episodes / 2`` iterations; the
``--openspiel-iterations-as-episodes`` column also runs OpenSpiel for ``episodes`` iterations,
twice the episodes, which is how a per-iteration count reads if a call is taken for one
episode.  Both use exploration epsilon 0.6 (OpenSpiel's default).  Exploitability is
OpenSpiel's ``exploitability`` of each average policy.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

try:
    import rcfr
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import rcfr

GAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker"}
EPSILON = 0.6


def one_seed(game: str, episodes: int, seed: int, doubled: bool) -> dict:
    import pyspiel
    from open_spiel.python.algorithms.exploitability import exploitability

    from rcfr.interop.openspiel import to_openspiel_policy

    os_game = pyspiel.load_game(GAMES[game])
    solver = rcfr.MCCFRSolver(rcfr.compile_game(game), "os", seed=seed, epsilon=EPSILON)
    solver.run(episodes // 2)
    row = {"rcfr": exploitability(os_game, to_openspiel_policy(solver.average_policy(),
                                                               os_game))}
    counts = {"openspiel": episodes // 2}
    if doubled:
        counts["openspiel_iterations_as_episodes"] = episodes
    for key, iterations in counts.items():
        theirs = pyspiel.OutcomeSamplingMCCFRSolver(os_game, EPSILON, seed + 1)
        for _ in range(iterations):
            theirs.run_iteration()
        row[key] = pyspiel.exploitability(os_game, theirs.average_policy())
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", choices=sorted(GAMES), default="leduc")
    ap.add_argument("--episodes", type=int, default=20000)
    ap.add_argument("--seeds", type=int, default=60)
    ap.add_argument("--openspiel-iterations-as-episodes", action="store_true",
                    help="also OpenSpiel with one iteration per episode (twice the episodes)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    try:
        import pyspiel  # noqa: F401
        from scipy.stats import mannwhitneyu
    except ImportError as exc:
        raise SystemExit(f"error: needs OpenSpiel and scipy ({exc})") from None
    rows = [one_seed(args.game, args.episodes, s, args.openspiel_iterations_as_episodes)
            for s in range(args.seeds)]
    keys = list(rows[0])
    out = {"game": args.game, "episodes": args.episodes, "seeds": args.seeds,
           "epsilon": EPSILON,
           "median": {k: statistics.median(r[k] for r in rows) for k in keys},
           "p_rcfr_vs": {k: mannwhitneyu([r["rcfr"] for r in rows],
                                         [r[k] for r in rows]).pvalue for k in keys[1:]}}
    if args.json:
        print(json.dumps(out))
        return
    print(f"{args.game}, {args.episodes:,} episodes, {args.seeds} seeds, epsilon {EPSILON}: "
          "median exploitability")
    for k in keys:
        p = f"  (rcfr against it: P = {out['p_rcfr_vs'][k]:.3f})" if k != "rcfr" else ""
        print(f"  {k:34s} {out['median'][k]:.4f}{p}")


if __name__ == "__main__":
    main()
