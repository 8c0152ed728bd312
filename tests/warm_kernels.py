"""Compile rcfr's numba kernels once, before pytest starts its workers.

A cold checkout has no numba cache: every pytest-xdist worker would compile the same kernels
for itself, and compiling is most of a cold run's CPU.  This script runs small solves that
reach the kernels the suite uses (every algorithm, both forms, the table dtypes, threads,
evaluation, the LP, re-solving), so their ``cache=True`` machine code lands in numba's cache and
the workers load it.  Two processes share the list (the machine's cores).  Run by ``make test``
before pytest; it changes no result, only when the compiling happens.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

# each a `rcfr` command line; {tmp} is a scratch folder
COMMANDS = [
    "solve kuhn -a cfr -n 20", "solve leduc -a cfr+ -n 20 -o {tmp}/leduc.npz",
    "solve leduc -a lcfr -n 20", "solve leduc -a dcfr -n 20", "solve leduc -a pcfr+ -n 20",
    "solve leduc -a pdcfr+ -n 20", "solve leduc -a cfr+ -n 20 --simultaneous",
    "solve leduc -a cfr+ -n 20 --form public", "solve leduc -a cfr -n 20 --form public",
    "solve leduc -a dcfr -n 20 --form public", "solve leduc -a pcfr+ -n 20 --form public",
    "solve leduc -a cfr+ -n 20 --dtype float32", "solve leduc -a cfr+ -n 20 --storage int16",
    "solve leduc -a cfr+ -n 20 --form public --dtype float32",
    "solve leduc -a cfr+ -n 20 --form public --threads 2",
    "solve leduc -a cs -n 50", "solve leduc -a es -n 50", "solve leduc -a os -n 50",
    "solve leduc -a as -n 50", "solve leduc -a es -n 50 --form public",
    "solve leduc -a os -n 50 --form public", "solve leduc -a cs -n 50 --form public",
    "solve leduc -a as -n 50 --form public",
    "solve 'leduc(canonical=true)' -a rcfr+ --leaves 100 -n 10",
    "solve 'leduc(canonical=true)' -a rcfr -n 10",
    "solve leduc -a rcfr --regressor ridge --features hashing:8 -n 10",
    "solve leduc -a rcfr+ --features onehot -n 10 --form public",
    "solve leduc -a xfp -n 5", "solve leduc -a fsp -n 5", "solve kuhn -a nfsp --episodes 200",
    "solve kuhn -a sd-cfr -n 2", "solve kuhn -a deep-cfr -n 2", "solve kuhn -a dream -n 2",
    "solve rps -a fp -n 20", "solve goofspiel -a cfr+ -n 2", "solve liars_dice -a cfr+ -n 2",
    "solve liars_dice -a as --nodes 200000 --form public", "solve nl_one_card -a cfr+ -n 5",
    "solve 'nl_holdem2(stack=4)' -a cfr+ -n 2",
    "solve 'leduc(canonical=true)' -a cfr+ -n 20 --abstraction J.QK",
    "evaluate leduc {tmp}/leduc.npz", "lp kuhn",
    "resolve leduc {tmp}/leduc.npz --method reach-maxmargin",
    "resolve leduc {tmp}/leduc.npz --method resolve --form public",
]


def _run(command: str) -> tuple[str, int, float, str]:
    import shlex

    from rcfr.cli import main

    start = time.process_time()
    with tempfile.TemporaryDirectory() as tmp:
        if "{tmp}/leduc.npz" in command and not command.startswith("solve leduc -a cfr+ -n 20 -o"):
            with contextlib.redirect_stdout(io.StringIO()):
                main(["solve", "leduc", "-a", "cfr+", "-n", "20", "-o", f"{tmp}/leduc.npz"])
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer):
            code = main(shlex.split(command.format(tmp=tmp)))
    return command, code, time.process_time() - start, buffer.getvalue()[-2000:]


def main() -> int:
    workers = max(1, min(2, len(os.sched_getaffinity(0))))
    start = time.perf_counter()
    failed, cpu = [], []
    with ProcessPoolExecutor(workers) as pool:
        for command, code, seconds, text in pool.map(_run, COMMANDS):
            cpu.append((seconds, command))
            if code != 0:
                failed.append(f"rcfr {command} -> exit {code}\n{text}")
    slowest = ", ".join(f"{c} ({s:.0f} s)" for s, c in sorted(cpu, reverse=True)[:3])
    print(f"numba kernels warmed: {len(COMMANDS)} commands on {workers} processes in "
          f"{time.perf_counter() - start:.0f} s ({sum(s for s, _ in cpu):.0f} CPU s; slowest: "
          f"{slowest})", flush=True)
    for text in failed:
        print(text, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
