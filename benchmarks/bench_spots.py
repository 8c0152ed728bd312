#!/usr/bin/env python
"""Real-card hold'em spots: rcfr's DCFR against postflop-solver on the same spots, in the same
run: iterations, CPU and wall seconds and peak memory to each exploitability target (a % of
the pot), on 1 and 2 threads, with float32 and 16-bit tables, and the root's equity, EV and
action frequencies from both.

    benchmarks/postflop_solver/build.sh                   # postflop-solver, offline (once)
    .venv/bin/python benchmarks/bench_spots.py            # everything (long; a quiet machine)
    .venv/bin/python benchmarks/bench_spots.py --quick    # the turn spot, 1 thread, float32, 0.5%
    .venv/bin/python benchmarks/bench_spots.py --spots turn,river --threads 2 --no-rcfr

Spots: postflop-solver's examples/basic.rs turn spot (Td9d6h Qc, pot 200, stack 900, bets
"60%, e, a", raises "2.5x", river donk "50%", add-all-in 1.5, force-all-in 0.15, merging
0.1), the same with the river 2s dealt, and the same from the flop (Td9d6h; by default only
0.5% of the pot on 2 threads). Each configuration runs in a fresh process: postflop-solver's
benchmarks/postflop_solver/solve_spot.rs (its solve_step and compute_exploitability every 10
iterations, as its own solve does; rayon's threads from RAYON_NUM_THREADS), rcfr's
``rcfr.api.solve(holdem_spot(file=...), "dcfr", eval_every=10, target_exploitability=...)``
on the public form with --threads (numba's). Seconds are each program's own clock from the
first iteration to the evaluation that reached the target, evaluations included (the game's
construction, and for rcfr one warm-up iteration that loads the numba kernels, are reported
apart); CPU seconds are the process's over the same span; peak
memory is the process's VmHWM (for rcfr that of the solve, reset after the warm-up: it
includes the Python interpreter, numpy and the numba runtime, reported apart as its resident
set before the game is built) beside the bytes of the game's tables. Both measure
exploitability as the mean of the two best-response gains, in chips.

postflop-solver's DCFR is alpha 1.5, beta 0 (negative regrets halved) with the average
restarted at powers of 4 (weights (t/(t+1))^3 since the restart); rcfr's dcfr is the DCFR
paper's (1.5, 0, 2). Results are written to benchmarks/results/bench_spots.json.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "postflop_solver"))

from tree_lines import arguments, pfs_dir  # noqa: E402  (benchmarks/postflop_solver/tree_lines.py)

# postflop-solver's examples/basic.rs spot, as rcfr ships it, on any board
SPOT = (resources.files("rcfr.games.holdem").joinpath("spots/basic_turn.toml").read_text()
        .replace('board = "Td9d6hQc"', 'board = "{board}"'))
BOARDS = {"turn": "Td9d6hQc", "river": "Td9d6hQc2s", "flop": "Td9d6h"}
POT = 200
TARGETS = (0.005, 0.003, 0.001)
STORAGES = ("float32", "int16")


def rcfr_child(spot: str, threads: int, storage: str, targets: list, max_it: int) -> dict:
    """The rcfr side of one configuration, in a fresh process (``--child``)."""
    from timing import proc_status

    from rcfr.api import solve
    from rcfr.forms.compile import compile_game
    from rcfr.solvers.run import tables

    options = {"dtype": "float32"}
    if storage == "int16":
        options["storage"] = "int16"
    baseline = proc_status("VmRSS")  # the interpreter, numpy, numba: before the game
    t0 = time.perf_counter()
    tree = compile_game(f"holdem_spot(file={spot})", form="public",
                        dtype=tables("dcfr", options))
    build = time.perf_counter() - t0
    reached = []
    w0 = c0 = 0.0

    def callback(done: int, expl: float | None) -> None:
        while expl is not None and len(reached) < len(targets) \
                and expl <= targets[len(reached)] * POT:
            reached.append({"target": targets[len(reached)], "iterations": done,
                            "seconds": time.perf_counter() - w0,
                            "cpu_seconds": time.process_time() - c0, "exploitability": expl})

    t0 = time.perf_counter()  # one iteration loads (or compiles) the kernels: not timed
    solve(tree, "dcfr", 1, threads=threads, **options)
    gc.collect()
    warmup = time.perf_counter() - t0
    compiled_peak = proc_status("VmHWM")
    _reset_peak()  # so the peak is the solve's, not the kernels' compilation's
    w0, c0 = time.perf_counter(), time.process_time()
    result = solve(tree, "dcfr", max_it, 10, threads=threads, callback=callback,
                   target_exploitability=min(targets) * POT, **options)
    seconds, cpu = time.perf_counter() - w0, time.process_time() - c0
    return {"threads": threads, "storage": storage, "tree_bytes": int(tree.nbytes),
            "build_seconds": build, "warmup_seconds": warmup, "iterations": result.iterations,
            "seconds": seconds,
            "iteration_seconds": result.seconds, "cpu_seconds": cpu,
            "exploitability": result.evaluation.exploitability, "reached": reached,
            "peak_rss": proc_status("VmHWM"), "baseline_rss": baseline,
            "peak_rss_before_solve": compiled_peak, **root_summary(tree, result)}


def _reset_peak() -> None:
    """Reset this process's peak resident set (Linux: 5 to /proc/self/clear_refs)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
    except OSError:  # (not Linux, or not allowed: the peak then includes the warm-up)
        pass


def root_summary(tree, result) -> dict:
    """The root's EVs (net of what each player put in), both players' equity and OOP's
    action frequencies (each combo's weighted by its range weight times the opponent's mass
    it can meet, as postflop-solver normalises its weights)."""
    from rcfr.games.holdem.spot_game import disjoint_mass

    game = tree.game
    value = float(result.evaluation.value)
    w0, w1 = game.ranges
    weights = w0 * disjoint_mass(w1)
    freqs = np.zeros(len(game.root.actions))
    for combo in np.flatnonzero(weights):
        i = tree.infoset_index(game.info_key(int(combo), ()), 0)
        freqs += weights[combo] * result.policy.infoset_probabilities(i)
    names = [str(a) for a in game.root.actions]
    equity = root_equity(game.board, w0, w1)
    return {"ev_net": [value, -value], "equity": [equity, 1 - equity],
            "root_frequencies": [[n, float(f)] for n, f in zip(names, freqs / weights.sum(),
                                                               strict=True)]}


def root_equity(board, w0, w1) -> float:
    """OOP's showdown equity against IP's range (ties half), over every runout: each pair of
    hands that can meet has as many runouts as any other, so summing over runouts is exact."""
    from rcfr.forms.public.card_sweeps import showdown_values
    from rcfr.games.holdem.combos import live_combos
    from rcfr.games.holdem.spot_game import disjoint_mass

    board = list(board)
    left = [c for c in range(52) if c not in board]
    won = met = 0.0
    for runout in itertools.combinations(left, 5 - len(board)):
        cards = board + list(runout)
        live = live_combos(cards)
        a0, a1 = np.where(live, w0, 0.0), np.where(live, w1, 0.0)
        won += float(a0 @ showdown_values(cards, a1, win=1.0, tie=0.5, lose=0.0))
        met += float(a0 @ disjoint_mass(a1))
    return won / met


def pfs_program(pfs_dir: Path) -> Path:
    return pfs_dir / "postflop-solver" / "target" / "release" / "examples" / "solve_spot"


def spot_dict(name: str) -> dict:
    import tomllib
    return tomllib.loads(SPOT.format(board=BOARDS[name]))


def run_pfs(program: Path, name: str, threads: int, storage: str, targets, max_it: int) -> dict:
    spot = spot_dict(name)
    args = [*arguments(spot), spot["board"], spot["ranges"]["oop"], spot["ranges"]["ip"],
            "1" if storage == "int16" else "0", ",".join(str(t) for t in targets), str(max_it)]
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    out = subprocess.run([str(program), *args], env=env, check=True, capture_output=True,
                         text=True)
    result = json.loads(out.stdout)
    result["storage"] = storage
    # postflop-solver's EVs include the pot (each player's share of it); rcfr's are net of
    # what each player put in: EV - pot / 2
    result["ev_net"] = [ev - POT / 2 for ev in result.pop("ev")]
    return result


def run_rcfr(path: Path, threads: int, storage: str, targets, max_it: int) -> dict:
    env = dict(os.environ, NUMBA_NUM_THREADS=str(threads))
    payload = json.dumps([str(path), threads, storage, list(targets), max_it])
    out = subprocess.run([sys.executable, __file__, "--child", payload], env=env,
                         capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"error: the rcfr run failed:\n{out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def configurations(args) -> list[tuple[str, int, str, tuple]]:
    out = []
    for name in args.spots:
        for threads in args.threads:
            for storage in args.storage:
                if name == "flop" and not args.flop_everything:
                    if threads != max(args.threads):
                        continue
                    out.append((name, threads, storage, (TARGETS[0],)))
                else:
                    out.append((name, threads, storage, tuple(args.targets)))
    return out


def _line(label: str, r: dict, target: float) -> str:
    hit = next((x for x in r["reached"] if x["target"] == target), None)
    if hit is None:
        return f"  {label:<15} not reached in {r['iterations']} iterations"
    return (f"  {label:<15} {hit['iterations']:>6} it {hit['seconds']:>9.3f} s "
            f"{hit['cpu_seconds']:>9.3f} CPU s {r['peak_rss'] / 2**20:>8.1f} MB peak")


def report(rows: list[dict]) -> None:
    for row in rows:
        print(f"{row['spot']}, {row['threads']} thread(s), {row['storage']}:")
        for target in row["targets"]:
            print(f" {100 * target:.1f}% of the pot ({target * POT:g} chips):")
            for side in ("postflop-solver", "rcfr"):
                if side in row:
                    print(_line(side, row[side], target))
        for side in ("postflop-solver", "rcfr"):
            r = row.get(side)
            if r is None:
                continue
            freqs = ", ".join(f"{a} {f:.3f}" for a, f in r.get("root_frequencies", []))
            ev = r.get("ev_net")
            ev_text = "-" if ev is None else f"{ev[0]:+.3f} / {ev[1]:+.3f}"
            eq = r.get("equity")
            eq_text = "-" if eq is None else f"{100 * eq[0]:.2f}%"
            print(f"  {side}: OOP/IP EV {ev_text} chips (net), OOP equity {eq_text}, "
                  f"root {freqs}")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:  # the rcfr side of one configuration
        print(json.dumps(rcfr_child(*json.loads(argv[1]))))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spots", default="turn,river,flop",
                    type=lambda s: [x.strip() for x in s.split(",")])
    ap.add_argument("--threads", default="1,2", type=lambda s: [int(x) for x in s.split(",")])
    ap.add_argument("--storage", default="float32,int16", type=lambda s: s.split(","))
    ap.add_argument("--targets", default=",".join(map(str, TARGETS)),
                    type=lambda s: sorted((float(x) for x in s.split(",")), reverse=True),
                    help="fractions of the pot (default 0.005,0.003,0.001)")
    ap.add_argument("--flop-everything", action="store_true",
                    help="the flop spot on every thread count and target too")
    ap.add_argument("--max-iterations", type=int, default=2000)
    ap.add_argument("--quick", action="store_true",
                    help="the turn spot, 1 thread, float32, 0.5%% of the pot")
    ap.add_argument("--no-rcfr", action="store_true")
    ap.add_argument("--no-pfs", action="store_true", help="skip postflop-solver")
    ap.add_argument("--pfs-dir", default=pfs_dir(), type=Path,
                    help="benchmarks/postflop_solver/build.sh's BUILD_DIR")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "bench_spots.json")
    ap.add_argument("--json", action="store_true", help="print the results as one JSON object")
    args = ap.parse_args(argv)
    if args.quick:
        args.spots, args.threads, args.storage, args.targets = ["turn"], [1], ["float32"], [0.005]
    for name in args.spots:
        if name not in BOARDS:
            ap.error(f"unknown spot {name!r} (known: {', '.join(BOARDS)})")
    for storage in args.storage:
        if storage not in STORAGES:
            ap.error(f"unknown storage {storage!r} (known: {', '.join(STORAGES)})")
    program = pfs_program(args.pfs_dir)
    if not args.no_pfs and not program.exists():
        ap.error(f"{program} is missing: run benchmarks/postflop_solver/build.sh (or --no-pfs)")

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, threads, storage, targets in configurations(args):
            path = Path(tmp) / f"{name}.toml"
            path.write_text(SPOT.format(board=BOARDS[name]))
            row = {"spot": name, "board": BOARDS[name], "threads": threads, "storage": storage,
                   "targets": list(targets)}
            print(f"running {name}, {threads} thread(s), {storage} ...", file=sys.stderr)
            if not args.no_pfs:
                row["postflop-solver"] = run_pfs(program, name, threads, storage, targets,
                                                 args.max_iterations)
            if not args.no_rcfr:
                row["rcfr"] = run_rcfr(path, threads, storage, targets, args.max_iterations)
            rows.append(row)
    commit_file = args.pfs_dir / "postflop-solver" / "COMMIT"
    result = {"date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
              "cpus": os.cpu_count(), "pot": POT,
              "postflop_solver_commit": commit_file.read_text().strip()
              if commit_file.exists() else None, "rows": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    if args.json:
        print(json.dumps(result))
    else:
        report(rows)
        print(f"written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
