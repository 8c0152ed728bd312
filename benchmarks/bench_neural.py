#!/usr/bin/env python
"""Neural RCFR benchmark (issue 15): rcfr's RCFR+ with its PyTorch MLP regressor against
OpenSpiel's PyTorch RCFR on Leduc, and best-first trees against networks of equal parameter
counts on canonical Leduc.

    .venv/bin/python benchmarks/bench_neural.py                       # both parts
    .venv/bin/python benchmarks/bench_neural.py --part openspiel --iterations 100,1000,10000
    .venv/bin/python benchmarks/bench_neural.py --part params --param-iterations 1000
    .venv/bin/python benchmarks/bench_neural.py --json                # one JSON object

Part ``openspiel``: both run RCFR+ (regrets clipped at zero, uniform averaging) on Leduc
(OpenSpiel's ``leduc_poker``) with the same network -- two hidden layers of 64 ReLU units
(OpenSpiel: ``DeepRcfrModel(num_hidden_units=64, num_hidden_layers=1)``) -- trained by Adam
(learning rate 0.01) for 10 full-batch steps per player and iteration, warm-started from the
last iteration.  rcfr fits cumulative regrets on the thesis's features (full-batch steps run
on the distinct feature rows, weighted by count: the same gradient); OpenSpiel fits cumulative
regrets on its own sequence features (information-state tensor + action).  The two run in the
same process, interleaved an iteration at a time (who goes first alternates), so the load of a
shared machine falls on both alike; each iteration's wall and CPU (process) time is recorded,
and the figures are medians over the iterations after the first (set-up and evaluation
excluded).  Exploitability is each library's own (OpenSpiel's
``exploitability.exploitability``; rcfr's evaluator), both the mean of the two best-response
values.  The ratio is OpenSpiel's median over rcfr's.

Part ``params``: on ``leduc(canonical=true)`` (672 sequences, thesis features, 79 columns)
RCFR+ with MLPs of one hidden layer of ``h`` units (``--widths``) and the default (64, 64)
network against best-first trees with as many leaves as the network has weights (at most a
leaf per sequence, 672).

OpenSpiel's PyTorch RCFR also needs ``dm-tree`` (``pip install dm-tree``: its ``deep_cfr``
module imports it); without it, or without OpenSpiel, that side is skipped.  Torch runs on one
thread (``--threads``); timings are machine-dependent: compare ratios from the same run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

try:
    import rcfr
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import rcfr
import rcfr.regressors.torch_mlp
from rcfr.regressors.torch_mlp import RCFR_DEFAULTS, TorchMLPRegressor
from rcfr.solvers.rcfr import RCFRSolver

STEPS, LR, WIDTH = RCFR_DEFAULTS["steps"], RCFR_DEFAULTS["learning_rate"], 64
OS_STEPS, OS_LR = 10, 1e-2  # OpenSpiel's training: Adam, full batch, warm
OUT = sys.stdout  # the tables (stderr with --json)


def say(*args) -> None:
    print(*args, file=OUT, flush=True)


class Side:
    """One library's RCFR+ run, advanced an iteration at a time: ``step()`` returns its wall
    and CPU seconds; ``exploitability()`` evaluates the average strategy (not timed)."""

    def __init__(self, name: str, step, exploitability, complexity) -> None:
        self.name, self._step, self.exploitability = name, step, exploitability
        self.complexity = complexity
        self.iterations, self.wall, self.cpu, self.curve = 0, [], [], []

    def step(self) -> None:
        w0, c0 = time.perf_counter(), time.process_time()
        self._step()
        self.wall.append(time.perf_counter() - w0)
        self.cpu.append(time.process_time() - c0)
        self.iterations += 1

    def record(self) -> None:
        self.curve.append({"iterations": self.iterations,
                           "exploitability": self.exploitability(),
                           "seconds": float(np.sum(self.wall[1:])),
                           "median_ms": 1e3 * float(np.median(self.wall[1:])),
                           "median_cpu_ms": 1e3 * float(np.median(self.cpu[1:]))})

    def summary(self) -> dict:
        """Median wall and CPU seconds per iteration (the first, with set-up, left out)."""
        return {"seconds_per_iteration": float(np.median(self.wall[1:])),
                "cpu_seconds_per_iteration": float(np.median(self.cpu[1:])),
                "mean_seconds_per_iteration": float(np.mean(self.wall[1:])),
                "complexity": self.complexity(), "curve": self.curve}


def run_rcfr(tree, regressor, checkpoints: list[int], leaves: int | None = None) -> dict:
    """RCFR+ to each checkpoint, alone: its :meth:`Side.summary`."""
    side = rcfr_side(tree, regressor, leaves)
    for n in checkpoints:
        while side.iterations < n:
            side.step()
        side.record()
    return side.summary()


def rcfr_side(tree, regressor, leaves: int | None = None) -> Side:
    solver = RCFRSolver(tree, "rcfr+", regressor=regressor, leaves=leaves, seed=0)
    return Side("rcfr", lambda: solver.run(1),
                lambda: rcfr.exploitability(tree, solver.average_policy()),
                lambda: solver.complexity)


def openspiel_side() -> Side | None:
    """OpenSpiel's PyTorch RCFR+ with the same network and training as ``bench``'s reference
    (Adam 0.01, 10 full-batch steps, warm), or ``None`` when it does not import."""
    try:
        import pyspiel
        import torch
        from open_spiel.python import policy as os_policy
        from open_spiel.python.algorithms import exploitability as os_expl
        from open_spiel.python.pytorch import rcfr as os_rcfr
    except ImportError:
        return None
    game = pyspiel.load_game("leduc_poker")
    torch.manual_seed(0)
    models = [os_rcfr.DeepRcfrModel(game, num_hidden_units=WIDTH, num_hidden_layers=1)
              for _ in range(2)]
    optimizers = {id(m): torch.optim.Adam(m.parameters(), lr=OS_LR) for m in models}

    def train(model, data):  # OS_STEPS full-batch Adam steps, warm-started
        x, y = data.tensors
        opt = optimizers[id(model)]
        for _ in range(OS_STEPS):
            loss = torch.mean((model(x) - y) ** 2)
            opt.zero_grad()
            loss.backward()
            opt.step()

    solver = os_rcfr.RcfrSolver(game, models, truncate_negative=True)

    def expl() -> float:
        table = os_policy.TabularPolicy(game)
        for key, pairs in solver.average_policy().items():
            row = table.policy_for_key(key)
            row[:] = 0.0
            for a, p in pairs:
                row[a] = p
        return float(os_expl.exploitability(game, table))

    return Side("openspiel", lambda: solver.evaluate_and_update_policy(train), expl,
                lambda: sum(p.numel() for m in models for p in m.parameters()))


def mlp(hidden: tuple[int, ...], steps: int = STEPS) -> TorchMLPRegressor:
    return TorchMLPRegressor(hidden=hidden, learning_rate=LR, steps=steps, warm_start=True)


def part_openspiel(args) -> dict:
    """Both sides in one run, interleaved an iteration at a time (who goes first alternates),
    so the shared machine's load falls on both alike; OpenSpiel stops at its last checkpoint."""
    tree = rcfr.compile_game("leduc")
    ours = rcfr_side(tree, rcfr.regressors.torch_mlp.rcfr_mlp())
    theirs = openspiel_side()
    os_last = max(args.openspiel_iterations) if theirs is not None else 0
    last = max(max(args.iterations), os_last)
    while ours.iterations < last:
        sides = [s for s in (ours, theirs) if s is not None and
                 s.iterations < (last if s is ours else os_last)]
        for s in sides if ours.iterations % 2 else sides[::-1]:
            s.step()
            if s.iterations in (args.iterations if s is ours else args.openspiel_iterations):
                s.record()
    mine = ours.summary()
    other = theirs.summary() if theirs is not None else None
    out = {"game": "leduc", "rcfr": mine, "openspiel": other}
    say(f"RCFR+ on Leduc, MLP ({WIDTH}, {WIDTH}); rcfr: {STEPS} full-batch Adam steps (lr "
        f"{LR}) per fit, float32, warm-started ({mine['complexity']:,} weights); OpenSpiel: "
        f"{OS_STEPS} steps, lr {OS_LR}")
    say(f"{'iterations':>10}  {'rcfr expl':>10}  {'ms/it':>7}  {'cpu ms':>7}  "
        f"{'openspiel expl':>14}  {'ms/it':>7}  {'cpu ms':>7}")
    os_curve = {c["iterations"]: c for c in (other or {}).get("curve", [])}
    for c in mine["curve"]:
        o = os_curve.get(c["iterations"])
        tail = (f"{o['exploitability']:14.4f}  {o['median_ms']:7.1f}  {o['median_cpu_ms']:7.1f}"
                if o else f"{'-':>14}  {'-':>7}  {'-':>7}")
        say(f"{c['iterations']:>10,}  {c['exploitability']:10.4f}  {c['median_ms']:7.1f}  "
            f"{c['median_cpu_ms']:7.1f}  {tail}")
    line = (f"median per iteration: rcfr {1e3 * mine['seconds_per_iteration']:.1f} ms wall, "
            f"{1e3 * mine['cpu_seconds_per_iteration']:.1f} ms CPU")
    if other is not None:  # the ratio over the iterations both ran, side by side
        ratio = other["seconds_per_iteration"] / float(np.median(ours.wall[1:os_last]))
        cpu = other["cpu_seconds_per_iteration"] / float(np.median(ours.cpu[1:os_last]))
        line += (f"; OpenSpiel {1e3 * other['seconds_per_iteration']:.1f} ms wall, "
                 f"{1e3 * other['cpu_seconds_per_iteration']:.1f} ms CPU "
                 f"({other['complexity']:,} weights): {ratio:.1f}x wall, {cpu:.1f}x CPU over "
                 f"the first {os_last:,} iterations")
        out["speedup"], out["cpu_speedup"] = ratio, cpu
    else:
        line += " (OpenSpiel's PyTorch RCFR does not import here)"
    say(line)
    return out


def part_params(args) -> dict:
    tree = rcfr.compile_game("leduc(canonical=true)")
    n = args.param_iterations
    rows = []
    for hidden in [(h,) for h in args.widths] + [(WIDTH, WIDTH)]:
        net = run_rcfr(tree, mlp(hidden), [n])
        leaves = min(net["complexity"], tree.num_sequences)  # a leaf per weight, at most one
        trees = run_rcfr(tree, "best-first", [n], leaves=leaves)  # per sequence
        for name, r in (("mlp " + ",".join(map(str, hidden)), net),
                        (f"best-first {leaves}", trees)):
            e, s = r["curve"][-1]["exploitability"], r["curve"][-1]["seconds"]
            rows.append({"model": name, "parameters": r["complexity"], "exploitability": e,
                         "seconds": s})
    say(f"\nRCFR+ on leduc(canonical=true), {n:,} iterations: trees vs networks")
    say(f"{'model':>18}  {'parameters':>10}  {'exploitability':>14}  {'seconds':>8}")
    for r in rows:
        say(f"{r['model']:>18}  {r['parameters']:>10,}  {r['exploitability']:14.4f}  "
            f"{r['seconds']:8.1f}")
    return {"game": "leduc(canonical=true)", "iterations": n, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ints = lambda s: sorted(int(x) for x in s.split(","))  # noqa: E731
    ap.add_argument("--part", choices=("all", "openspiel", "params"), default="all")
    ap.add_argument("--iterations", type=ints, default=[100, 1000, 10000])
    ap.add_argument("--openspiel-iterations", type=ints, default=[100])
    ap.add_argument("--param-iterations", type=int, default=1000)
    ap.add_argument("--widths", type=ints, default=[1, 2, 4])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print one JSON object instead")
    args = ap.parse_args(argv)
    global OUT
    OUT = sys.stderr if args.json else sys.stdout
    import torch

    torch.set_num_threads(args.threads)
    result = {"torch": torch.__version__, "threads": args.threads}
    if args.part in ("all", "openspiel"):
        result["openspiel"] = part_openspiel(args)
    if args.part in ("all", "params"):
        result["params"] = part_params(args)
    if args.json:
        print(json.dumps(result, default=lambda x: float(x) if np.isscalar(x) else str(x)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
