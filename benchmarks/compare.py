#!/usr/bin/env python
"""Before/after in one run: a benchmark of this checkout against the same benchmark of a
baseline checkout, interleaved on the same machine.

    git worktree add /tmp/base <rev>            # the baseline, e.g. main before a change
    .venv/bin/python benchmarks/compare.py --base /tmp/base --runs 3 \\
        "bench_core.py --quick --no-openspiel --no-liteefg" \\
        "bench_public_tree.py --quick --no-openspiel"

Each benchmark runs from its own tree's ``benchmarks/`` folder with that tree's ``src`` first on
``PYTHONPATH`` (so each side imports its own rcfr), with ``--json``; the runs alternate base,
head, base, head, ... so that a change in the machine's load hits both sides alike.  Every
numeric figure whose key names a speed (``per_second``, ``it_s``, ``nodes_s``) or a time
(``seconds``, ``ms``, ``_s``) is printed as the median over the runs for each side, with the ratio
head / base (above 1 is faster for speeds, slower for times).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

HEAD = Path(__file__).resolve().parents[1]
SPEED = re.compile(r"per_second|per_(cpu_)?s$|it_s$|its$|nodes_s$|throughput", re.I)
TIME = re.compile(r"seconds|_ms$|\.ms$|^ms$|_s$|ns_per|time", re.I)


def _leaves(obj, prefix=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, f"{prefix}.{k}" if prefix else str(k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _leaves(v, f"{prefix}[{i}]")
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield prefix, float(obj)


def _run(tree: Path, command: str) -> dict:
    script, *args = shlex.split(command)
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    out = subprocess.run([sys.executable, str(tree / "benchmarks" / script), *args, "--json"],
                         cwd=tree / "benchmarks", env=env, capture_output=True, text=True)
    if out.returncode != 0 or "{" not in out.stdout:
        raise SystemExit(f"error: {script} failed in {tree}:\n{out.stderr[-2000:]}")
    text = out.stdout[out.stdout.index("{"):]
    return json.loads(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, type=Path, help="the baseline checkout")
    ap.add_argument("--runs", type=int, default=3, help="runs of each side (default 3)")
    ap.add_argument("--stat", choices=("median", "min", "max"), default="median",
                    help="how runs combine (min for times / max for speeds is the least "
                         "disturbed run on a loaded machine; default median)")
    ap.add_argument("commands", nargs="+", help="benchmark script and its options")
    args = ap.parse_args()
    for command in args.commands:
        sides: dict[str, dict[str, list[float]]] = {"base": {}, "head": {}}
        for _ in range(args.runs):
            for side, tree in (("base", args.base.resolve()), ("head", HEAD)):
                for key, value in _leaves(_run(tree, command)):
                    sides[side].setdefault(key, []).append(value)
        print(f"\n== {command}  ({args.stat} of {args.runs} interleaved runs; ratio = head / base)")
        for key in sides["head"]:
            if key not in sides["base"] or not (SPEED.search(key) or TIME.search(key)):
                continue
            kind = "speed" if SPEED.search(key) else "time"
            stat = statistics.median
            if args.stat != "median":  # the best run: least time, most speed
                stat = min if (args.stat == "min") == (kind == "time") else max
            b = stat(sides["base"][key])
            h = stat(sides["head"][key])
            ratio = h / b if b else float("nan")
            worse = (ratio < 0.97) if kind == "speed" else (ratio > 1.03)
            print(f"  {key:60s} {kind:5s} base {b:12.6g}  head {h:12.6g}  ratio {ratio:6.3f}"
                  + ("  <-- more than 3% worse" if worse else ""))


if __name__ == "__main__":
    main()
