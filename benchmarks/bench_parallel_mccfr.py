#!/usr/bin/env python
"""Parallel Monte Carlo CFR (issue 23) against the serial kernel: CPU seconds per node visited
of ``MCCFRSolver(threads=T, batch=B)`` at each ``T`` beside the serial kernel's (``threads=1``,
no batch), on 2-NL Hold'em(k) with five E[HS²] buckets, and the memory of the per-thread
buffers.

    .venv/bin/python benchmarks/bench_parallel_mccfr.py           # k = 20, ES and AS, T = 1, 2
    .venv/bin/python benchmarks/bench_parallel_mccfr.py --stacks 30 --threads 1 2 4 --json

Every timing starts from one profile (the regrets, strategy and average of a serial run of
``--train`` nodes, copied in), because a pass's cost per node depends on the strategy it
samples (a batched run at equal nodes has made ``T * B`` times fewer updates, and a less
trained strategy spreads its passes over more information sets).  The configurations are
interleaved within one process (serial, T = 1, T = 2, serial, ...), so that the machine's
other load hits them alike; each figure is the median over ``--repeats`` rounds of
``time.process_time`` per node visited (all threads together: on idle cores, T
threads are ``T / cpu_ratio`` times as fast as the serial kernel) and of wall time per node.
``cpu_ratio`` is the same-run median CPU per node over the serial kernel's (1 is the serial
cost; the parallel runs are repeatable per thread count but each count is its own sample
path, so only per-node costs compare).  ``buffer_mb``: the buffers of one thread (its pass
scratch, slot array and accumulator) as reserved, and ``touched_mb`` as written by the last
batch (the slot array, one int32 per information set, and the slots and values used) --
what stays resident beside the pass's scratch.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

try:
    import rcfr  # noqa: F401
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rcfr.forms.public.tree import compile_public
from rcfr.games.nl_holdem2 import NLHoldem2
from rcfr.solvers.mccfr import MCCFRSolver


def _buffers(solver: MCCFRSolver) -> dict[str, float]:
    """One thread's buffer memory, reserved and as written by the last batch (MB)."""
    b = solver.pass_.buffers()
    T = b.states.shape[0]
    reserved = sum(x.nbytes for x in b if hasattr(x, "nbytes") and x.ndim == 2) / T
    out = {"buffer_mb": reserved / 1e6}
    if hasattr(b, "soff"):  # the compact accumulator
        c = b.counts
        written = b.slot[0].nbytes + (c[:, 1].max() * 5 + c[:, 2].max()) * 8
        out["touched_mb"] = float(written) / 1e6
    return out


def measure(k: int, schemes: list[str], threads: list[int], batch: int, repeats: int,
            nodes: float, train: float) -> dict[str, Any]:
    tree = compile_public(NLHoldem2(stack=k))
    out: dict[str, Any] = {"stack": k, "sequences": tree.num_sequences,
                           "infosets": tree.num_infosets, "batch": batch, "figures": {}}
    for scheme in schemes:
        ref = MCCFRSolver(tree, scheme, seed=0)
        ref.run_nodes(int(train))  # the profile every timing starts from
        solvers = {"serial": MCCFRSolver(tree, scheme, seed=1)}
        for n in threads:
            solvers[f"T={n}"] = MCCFRSolver(tree, scheme, seed=1, threads=n, batch=batch)
        for s in solvers.values():  # warm-up: kernels loaded, buffers allocated
            s.run_nodes(int(nodes) // 4)
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in solvers}
        for _ in range(repeats):
            for name, s in solvers.items():
                for mine, theirs in ((s.strategy_, ref.strategy_),
                                     (s.avg_weights_, ref.avg_weights_),
                                     (s.estimator_.regrets, ref.estimator_.regrets)):
                    mine[:] = theirs
                s.iteration = ref.iteration
                n0 = s.nodes_visited
                w0, c0 = time.perf_counter(), time.process_time()
                s.run_nodes(int(nodes))
                w, c = time.perf_counter() - w0, time.process_time() - c0
                done = s.nodes_visited - n0
                samples[name].append((w / done, c / done))
        base = statistics.median(c for _, c in samples["serial"])
        fig = {}
        for name, v in samples.items():
            cpu = statistics.median(c for _, c in v)
            fig[name] = {"cpu_s_per_node": cpu, "wall_s_per_node":
                         statistics.median(w for w, _ in v), "cpu_ratio": cpu / base}
            if name != "serial":
                fig[name].update(_buffers(solvers[name]))
        out["figures"][scheme] = fig
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stacks", type=int, nargs="+", default=[20])
    ap.add_argument("--schemes", nargs="+", default=["es", "as"])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--nodes", type=float, default=1e6, help="nodes per timing")
    ap.add_argument("--train", type=float, default=3e7,
                    help="serial nodes that train the profile every timing starts from")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    results = [measure(k, args.schemes, args.threads, args.batch, args.repeats, args.nodes,
                       args.train)
               for k in args.stacks]
    if args.json:
        print(json.dumps(results))
        return
    for r in results:
        print(f"\n2-NL Hold'em({r['stack']}): {r['sequences']:,} sequences, "
              f"{r['infosets']:,} information sets, batch {r['batch']}")
        for scheme, fig in r["figures"].items():
            for name, f in fig.items():
                mem = "".join(f"  {key} {f[key]:.1f}" for key in ("buffer_mb", "touched_mb")
                              if key in f)
                print(f"  {scheme} {name:7s} cpu {f['cpu_s_per_node'] * 1e9:7.1f} ns/node  "
                      f"wall {f['wall_s_per_node'] * 1e9:7.1f} ns/node  "
                      f"cpu ratio {f['cpu_ratio']:.2f}{mem}")


if __name__ == "__main__":
    main()
