#!/usr/bin/env python
"""Speed guard of the history form's kernels: CFR+, external and outcome sampling on Leduc,
this checkout against a pinned older commit, in the same run.

    .venv/bin/python benchmarks/bench_guard.py                 # against 34eef68, 7 rounds
    .venv/bin/python benchmarks/bench_guard.py --base <rev> --rounds 11 --json

The pinned commit is checked out with ``git worktree add --detach`` into a temporary folder
(removed afterwards).  Each round runs one fresh process per side, alternating base and head,
each importing its own ``src``; a process warms up (compiles or loads the numba kernels), then
times ``run(n)`` of each solver in CPU time (``time.process_time``).  Figures are medians over
the rounds, with the ratio head / base (above 1: this checkout is faster).  Both sides run the
same seeds, so their strategies must be bit-identical; the guard checks it (a digest of the
average strategy) and says so.  Each side compiles its kernels once, into a numba cache folder of
its own, in a first process that is not timed (numba's cache does not notice a change in a
kernel that another file's kernel calls, so a checkout's own cache can be stale).

Instruction counts (valgrind's callgrind) would be load-independent, but valgrind runs no
AVX-512, so the kernels would be compiled for another processor than the one timed here.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAD = Path(__file__).resolve().parents[1]
PINNED = "34eef68"  # the commit the README's first speed figures came from (November 2026)
# solver, game, iterations per timed call, constructor keywords
CASES = {
    "cfr+": ("leduc", 2000, {}),
    "es": ("leduc", 20000, {"seed": 7}),
    "os": ("leduc", 100000, {"seed": 7, "epsilon": 0.6}),
}


def _solver(name: str, tree):
    import rcfr

    _, _, kwargs = CASES[name]
    if name.startswith("cfr"):
        return rcfr.CFRSolver(tree, name)
    return rcfr.MCCFRSolver(tree, name, **kwargs)


def probe(names: list[str], scale: float, repeats: int) -> dict:
    """In a fresh process: per solver, its speed (CPU iterations / s, median of ``repeats``)
    and the digest of its average strategy after one run of its count."""
    import rcfr

    out: dict = {}
    for name in names:
        game, n, _ = CASES[name]
        n = max(1, int(n * scale))
        tree = rcfr.compile_game(game)
        _solver(name, tree).run(10)  # warm-up: compile or load the kernels
        cpus = []
        for _ in range(repeats):
            s = _solver(name, tree)
            c0 = time.process_time()
            s.run(n)
            cpus.append(time.process_time() - c0)
        digest = hashlib.sha256(s.avg_weights_.tobytes()).hexdigest()[:16]
        out[name] = {"it_s": n / statistics.median(cpus), "digest": digest}
    return out


def _side(tree: Path, cache: Path, args: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), PYTHONHASHSEED="0",
               NUMBA_NUM_THREADS="1", NUMBA_CACHE_DIR=str(cache))
    cmd = [sys.executable, str(Path(__file__).resolve()), "--probe", *args]
    out = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"error: the probe failed in {tree}:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout)


def _worktree(rev: str) -> tuple[Path, Path]:
    tmp = Path(tempfile.mkdtemp(prefix="rcfr-guard-"))
    path = tmp / "base"
    out = subprocess.run(["git", "-C", str(HEAD), "worktree", "add", "--detach", str(path), rev],
                         capture_output=True, text=True)
    if out.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise SystemExit(f"error: cannot check out {rev!r}: {out.stderr.strip()}")
    return tmp, path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default=PINNED, help=f"the pinned commit (default {PINNED})")
    ap.add_argument("--rounds", type=int, default=7, help="processes per side (default 7)")
    ap.add_argument("--repeats", type=int, default=3, help="timed calls per process")
    ap.add_argument("--scale", type=float, default=1.0, help="iterations per call, scaled")
    ap.add_argument("--only", default=",".join(CASES), help="solvers (default cfr+,es,os)")
    ap.add_argument("--json", action="store_true", help="one JSON object")
    ap.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    names = [n for n in args.only.split(",") if n]
    if any(n not in CASES for n in names):
        raise SystemExit(f"error: --only takes some of {', '.join(CASES)}")
    if args.probe:
        print(json.dumps(probe(names, args.scale, args.repeats)))
        return
    tmp, base = _worktree(args.base)
    try:
        sides = {"base": base, "head": HEAD}
        common = ["--only", ",".join(names), "--repeats", str(args.repeats), "--scale",
                  str(args.scale)]
        for side, tree in sides.items():  # compile each side's kernels, untimed
            _side(tree, tmp / f"cache-{side}", ["--only", ",".join(names), "--repeats", "1",
                                                "--scale", "0.01"])
        result: dict = {"base": args.base, "load": os.getloadavg()[0]}
        runs: dict = {side: [] for side in sides}
        for _ in range(args.rounds):
            for side, tree in sides.items():
                runs[side].append(_side(tree, tmp / f"cache-{side}", common))
        for name in names:
            b = statistics.median(r[name]["it_s"] for r in runs["base"])
            h = statistics.median(r[name]["it_s"] for r in runs["head"])
            same = {r[name]["digest"] for r in runs["base"] + runs["head"]}
            result[name] = {"base_it_s": b, "head_it_s": h, "ratio": h / b,
                            "identical": len(same) == 1}
        result["load_after"] = os.getloadavg()[0]
    finally:
        subprocess.run(["git", "-C", str(HEAD), "worktree", "remove", "--force", str(base)],
                       capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        print(json.dumps(result))
        return
    print(f"history-form kernels on Leduc, head against {args.base} "
          f"(load {result['load']:.1f} -> {result['load_after']:.1f})")
    for name in names:
        r = result[name]
        note = "bit-identical" if r["identical"] else "STRATEGIES DIFFER"
        print(f"  {name:5s} CPU iterations / s: base {r['base_it_s']:10,.0f}  "
              f"head {r['head_it_s']:10,.0f}  head faster {r['ratio']:.3f}x  ({note})")

if __name__ == "__main__":
    main()
