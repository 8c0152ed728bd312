"""Which rule reaches an exploitability of 1e-3 and 1e-6 first on each game of the convergence
suite, in iterations and in seconds, from the runs of the packaged ``convergence_suite`` spec in
a results store (``rcfr figure convergence_suite --db results.db`` fills it).  Prints the
markdown table of docs/algorithms.md ("Which rule first"), or JSON with ``--json``.

    python benchmarks/suite_targets.py results.db [more.db ...]

The iteration (and the run's wall-clock second) where a curve crosses a target is interpolated
log-log between the two evaluation points around it; a run that never gets there within its
1,000 iterations has none.  With ``--cpu N`` the seconds are CPU seconds of the iterations
alone instead: the iterations times each rule's CPU seconds per iteration on the game, the
median of 3 runs of N iterations measured here (wall clock on a shared machine measures the
load as much as the rule).  Exploitability is in the game's unit (the Libratus endgames in the
papers' unit), as the figure draws it.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from pathlib import Path

from rcfr.experiments.figures import collect, named_spec
from rcfr.experiments.store import Store

TARGETS = (1e-3, 1e-6)


def crossing(xs: list[float], ys: list[float], target: float) -> float | None:
    """The x where the curve ``ys`` (by ``xs``) first falls to ``target``, log-log
    interpolated between its points; None where it never does."""
    for k, (x, y) in enumerate(zip(xs, ys, strict=True)):
        if y <= target:
            if k == 0 or x <= 0 or xs[k - 1] <= 0 or ys[k - 1] <= 0 or y <= 0:
                return float(x)
            x0, y0 = xs[k - 1], ys[k - 1]
            share = (math.log(y0) - math.log(target)) / (math.log(y0) - math.log(y))
            return math.exp(math.log(x0) + share * (math.log(x) - math.log(x0)))
    return None


def cpu_per_iteration(game: str, rule: str, iterations: int) -> float:
    """CPU seconds one iteration of ``rule`` takes on suite game ``game`` (median of 3)."""
    from rcfr.forms.compile import compile_game
    from rcfr.games.suite import BY_NAME
    from rcfr.solvers.run import make_solver

    solver = make_solver(compile_game(BY_NAME[game].game_string), rule)
    solver.setup()
    times = []
    for _ in range(3):
        c0 = time.process_time()
        solver.run(iterations)
        times.append((time.process_time() - c0) / iterations)
    return statistics.median(times)


def table(games: dict, cpu: int = 0) -> dict:
    """Per game and target: every rule's iterations and seconds to it, and the first rule
    by each (``cpu``: seconds from the CPU time per iteration, measured on ``cpu``
    iterations)."""
    out = {}
    for game, panel in games.items():
        rows = {}
        per = {rule: cpu_per_iteration(game, rule, cpu) for rule in panel["rules"]} if cpu \
            else {}
        for target in TARGETS:
            reach = {}
            for rule, row in panel["rules"].items():
                it = crossing(row["x"], row["exploitability"], target)
                sec = (crossing(row["seconds"], row["exploitability"], target) if not cpu
                       else None if it is None else it * per[rule])
                reach[rule] = {"iterations": it, "seconds": sec}
            done = {r: v for r, v in reach.items() if v["iterations"] is not None}
            rows[f"{target:g}"] = {
                "rules": reach,
                "by_iterations": min(done, key=lambda r: done[r]["iterations"]) if done else None,
                "by_seconds": min(done, key=lambda r: done[r]["seconds"]) if done else None}
        last = {rule: row["exploitability"][-1] for rule, row in panel["rules"].items()
                if row["exploitability"]}
        rows["lowest"] = {"rule": min(last, key=last.get), "exploitability": min(last.values())
                          } if last else None
        out[game] = rows
    return out


def markdown(result: dict) -> str:
    head = ("| game | 1e-3: first in iterations | 1e-3: first in seconds | 1e-6: first in "
            "iterations | 1e-6: first in seconds | lowest after the run |\n"
            "|---|---|---|---|---|---|")
    lines = [head]
    for game, rows in result.items():
        cells = []
        for target in TARGETS:
            row = rows[f"{target:g}"]
            for key, unit in (("by_iterations", "iterations"), ("by_seconds", "seconds")):
                rule = row[key]
                if rule is None:
                    cells.append("-")
                    continue
                value = row["rules"][rule][unit]
                cells.append(f"{rule} ({value:,.0f})" if unit == "iterations"
                             else f"{rule} ({value:.2g} s)")
        low = rows["lowest"]
        cells.append("-" if low is None else f"{low['rule']} ({low['exploitability']:.3g})")
        lines.append(f"| `{game}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db", nargs="+", type=Path, help="results stores (SQLite)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--cpu", type=int, default=0, metavar="N",
                    help="seconds as CPU seconds per iteration (measured on N iterations) "
                         "times the iterations")
    args = ap.parse_args(argv)
    spec = named_spec("convergence_suite")
    games: dict = {}
    for db in args.db:
        with Store(db, readonly=True) as store:
            for game, panel in collect(spec, store)["games"].items():
                games.setdefault(game, {"rules": {}})["rules"].update(panel["rules"])
    order = [g for g in dict.fromkeys(r.game for r in spec.runs) if g in games]
    result = table({g: games[g] for g in order}, args.cpu)
    print(json.dumps(result, indent=1) if args.json else markdown(result))
    return result


if __name__ == "__main__":
    main()
