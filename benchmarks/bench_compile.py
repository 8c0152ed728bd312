#!/usr/bin/env python
"""The public-tree compile of 2-NL Hold'em(k) (five E[HS²] buckets): peak resident memory
against the compiled arrays, and CPU seconds, each ``k`` in a fresh process.

    .venv/bin/python benchmarks/bench_compile.py                        # k = 12, 20, 30
    .venv/bin/python benchmarks/bench_compile.py --stacks 12 20 --against /work/main/src

Each measurement runs ``compile_public`` in a new Python process (``--worker``), after the
package, its kernels and the card abstraction are loaded, and reports:

* ``base``: resident bytes before the compile (the interpreter, numpy, numba, the kernels);
* ``peak``: the process's high-water mark (``VmHWM``) after it;
* ``arrays``: the compiled tree's arrays (``PublicTree.nbytes``);
* ``ratio``: (peak - base) / arrays, what the compile adds at its peak per byte it keeps;
* ``guard``: the memory guard's compile estimate (``rcfr.core.budget.public_compile_bytes``)
  where the checkout has one;
* ``cpu_s``: CPU seconds of the compile (``time.process_time``), and the tree's fingerprint.

``--against SRC`` runs every ``k`` with another checkout's ``src`` too (e.g. today's main), in
the same run, alternating, so both see the same machine load; the fingerprints must agree.

The compile alone peaks at about 20.5 bytes a sequence (k = 36: 4.3 GB, k = 38: 7.1 GB, k = 40:
about 12 GB projected); the worker passes the guard a budget large enough for it, since the
guard counts solving too.  Mind the machine's free memory before ``--stacks 40``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from timing import proc_status

SRC = Path(__file__).resolve().parents[1] / "src"


def worker(k: int, warm: bool) -> dict:
    """One compile in this process (the caller gives it a fresh one)."""
    import numpy as np  # noqa: F401

    from rcfr.core import budget
    from rcfr.forms.public.tree import compile_public
    from rcfr.games.nl_holdem2 import NLHoldem2

    if warm:  # load the kernels the compile calls (numba's cache) on a small game first
        compile_public(NLHoldem2(stack=6), max_memory="20G")
    game = NLHoldem2(stack=k)
    game.abstraction  # noqa: B018 (loaded from the cache before the baseline)
    base = proc_status("VmRSS")
    c0, w0 = time.process_time(), time.perf_counter()
    tree = compile_public(game, max_memory="1T")  # (the guard counts solving too: not here)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    peak = proc_status("VmHWM")
    guard = getattr(budget, "public_compile_bytes", None)
    return {"stack": k, "sequences": tree.num_sequences, "base": base, "peak": peak,
            "arrays": tree.nbytes, "ratio": (peak - base) / tree.nbytes,
            "guard": guard(game) if guard else None, "cpu_s": cpu, "wall_s": wall,
            "fingerprint": tree.fingerprint()}


def run(src: str, k: int) -> dict:
    env = dict(os.environ, PYTHONPATH=src)
    out = subprocess.run([sys.executable, __file__, "--worker", str(k)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stacks", type=int, nargs="+", default=[12, 20, 30])
    ap.add_argument("--against", default=None, help="another checkout's src, run beside")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker is not None:
        print(json.dumps(worker(args.worker, warm=True)))
        return
    rows = []
    for k in args.stacks:
        for name, src in (("this", str(SRC)), ("against", args.against)):
            if src is None:
                continue
            r = run(src, k)
            r["checkout"] = name
            rows.append(r)
            if args.json:
                print(json.dumps(r), flush=True)
            else:
                g = "" if r["guard"] is None else f"  guard {r['guard'] / 2**20:9.1f} MiB"
                print(f"k={k:3d} {name:8s} S={r['sequences']:>12,}  base "
                      f"{r['base'] / 2**20:7.1f} MiB  peak {r['peak'] / 2**20:9.1f} MiB  arrays "
                      f"{r['arrays'] / 2**20:9.1f} MiB  (peak-base)/arrays {r['ratio']:5.2f}"
                      f"{g}  cpu {r['cpu_s']:7.2f} s  {r['fingerprint']}", flush=True)
        pair = [r for r in rows if r["stack"] == k]
        if len(pair) == 2 and pair[0]["fingerprint"] != pair[1]["fingerprint"]:
            raise SystemExit(f"k={k}: the fingerprints differ")


if __name__ == "__main__":
    main()
