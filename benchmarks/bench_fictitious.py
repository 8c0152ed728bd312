#!/usr/bin/env python
"""Fictitious-play benchmark (issue 24): rcfr's XFP and NFSP against OpenSpiel's, in one run.

    nice .venv/bin/python benchmarks/bench_fictitious.py --quick          # a few CPU minutes
    nice .venv/bin/python benchmarks/bench_fictitious.py --part xfp --json

Part ``xfp`` (Kuhn and Leduc): OpenSpiel's ``fictitious_play.XFPSolver`` and rcfr's
``XFPSolver(alternating=False)`` (Heinrich et al. 2015, Alg. 1: the same iterates; equal to
1e-10, ``tests/test_fictitious.py``).  Per-iteration CPU time is the median over OpenSpiel's
iterations and over chunks of rcfr's (rcfr's iterations take microseconds: a chunk is timed
whole and divided); the ratio is OpenSpiel's over rcfr's.  "Equal time": rcfr runs for the CPU
seconds OpenSpiel's iterations took, and both exploitabilities are reported.

Part ``nfsp`` (Kuhn and Leduc): OpenSpiel's PyTorch NFSP (``open_spiel.python.pytorch.nfsp``,
its ``rl_environment``, one game at a time; needs ``dm-tree``) and rcfr's NFSP (batched over
the compiled tree) with the NFSP paper's Leduc hyperparameters on both: one hidden layer of 64
(``--hidden``), plain SGD, learning rates 0.1 (RL) and 0.005 (SL), eta 0.1, minibatches of 128
every 64 of an agent's steps, M_RL 200,000, M_SL 2,000,000, exploration from 0.06, the target
network refitted every 300 updates (OpenSpiel counts agent steps: 300 x 64, and its copy is
soft: 0.999 of the network, the most it allows), and
the information-state tensor as the observation.  Differences: OpenSpiel's exploration decays
linearly to 0 over the run's steps, rcfr's as ``0.06 / sqrt(1 + episodes / 1000)``; both start
learning once a memory holds a minibatch (OpenSpiel's ``min_buffer_size_to_learn``); rcfr plays
``--envs`` games at once with networks that change between its batched steps.  CPU seconds
exclude evaluation.  rcfr runs ``--rcfr-factor`` times OpenSpiel's episodes; "time to
OpenSpiel's final exploitability" is rcfr's CPU time at its first evaluation at or below it.

OpenSpiel runs on one PyTorch thread, rcfr's numpy networks on one BLAS thread.  Timings depend
on the machine and its load: compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

try:
    import rcfr  # noqa: F401
except ImportError:  # running from a checkout without an installed package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from rcfr.evaluate import evaluate
from rcfr.solvers.fp.xfp import XFPSolver
from rcfr.solvers.run import make_solver

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import version_of  # noqa: E402

GAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker"}
PAPER = {"hidden": "64", "rl_lr": 0.1, "sl_lr": 0.005, "eta": 0.1, "batch_size": 128,
         "learn_every": 64, "rl_memory": 200_000, "sl_memory": 2_000_000, "eps_start": 0.06,
         "target_every": 300}


def _cpu() -> float:
    return time.process_time()


# -- XFP ----------------------------------------------------------------------------------
def bench_xfp(game: str, iterations: int) -> dict:
    import pyspiel
    from open_spiel.python.algorithms import exploitability, fictitious_play

    os_game = pyspiel.load_game(GAMES[game])
    theirs = fictitious_play.XFPSolver(os_game)
    their_times = []
    for _ in range(iterations):
        c = _cpu()
        theirs.iteration()
        their_times.append(_cpu() - c)
    their_total = sum(their_times)
    their_expl = exploitability.exploitability(os_game, theirs.average_policy())

    ours = XFPSolver(game, alternating=False)
    ours.run(1)  # compile and warm up (numba)
    chunk, chunk_times, spent = 100, [], 0.0
    while spent < min(their_total, 2.0) or len(chunk_times) < 5:
        c = _cpu()
        ours.run(chunk)
        spent += _cpu() - c
        chunk_times.append((_cpu() - c) / chunk)
    per_iter = statistics.median(chunk_times)
    equal = XFPSolver(game, alternating=False)
    equal.run(1)
    spent = 0.0
    while spent < their_total:  # rcfr for OpenSpiel's CPU seconds
        c = _cpu()
        equal.run(chunk)
        spent += _cpu() - c
    same = XFPSolver(game, alternating=False).run(iterations)
    return {
        "game": game, "openspiel_iterations": iterations,
        "openspiel_s_per_iteration": statistics.median(their_times),
        "rcfr_s_per_iteration": per_iter,
        "speedup_per_iteration": statistics.median(their_times) / per_iter,
        "openspiel_cpu_s": their_total, "openspiel_exploitability": their_expl,
        "rcfr_exploitability_same_iterations": evaluate(same.tree,
                                                        same.average_policy()).exploitability,
        "rcfr_iterations_equal_time": equal.iteration,
        "rcfr_exploitability_equal_time": evaluate(equal.tree,
                                                   equal.average_policy()).exploitability,
    }


# -- NFSP ---------------------------------------------------------------------------------
def openspiel_nfsp(game: str, episodes: int, evals: list[int], hidden: int, seed: int) -> list:
    import pyspiel
    import torch
    from open_spiel.python import policy as os_policy
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import exploitability
    from open_spiel.python.pytorch import nfsp

    os_game = pyspiel.load_game(GAMES[game])
    env = rl_environment.Environment(os_game)
    env.seed(seed)
    size, n_actions = env.observation_spec()["info_state"][0], env.action_spec()["num_actions"]
    steps = episodes * (2 if game == "kuhn" else 4)  # about an agent's steps in the run
    agents = [nfsp.NFSP(p, size, n_actions, [hidden], PAPER["sl_memory"], PAPER["eta"],
                        batch_size=PAPER["batch_size"], rl_learning_rate=PAPER["rl_lr"],
                        sl_learning_rate=PAPER["sl_lr"], learn_every=PAPER["learn_every"],
                        replay_buffer_capacity=PAPER["rl_memory"],
                        min_buffer_size_to_learn=PAPER["batch_size"],
                        update_target_network_every=PAPER["target_every"] * 64,
                        weight_update_coeff=0.999, epsilon_start=PAPER["eps_start"],
                        epsilon_end=0.0, epsilon_decay_duration=steps,
                        epsilon_decay_schedule_str="linear", seed=seed + 10 * p)
              for p in (0, 1)]

    class Average(os_policy.Policy):
        def action_probabilities(self, state, player_id=None):
            p = state.current_player()
            legal = state.legal_actions(p)
            mask = np.zeros(n_actions, dtype=bool)
            mask[legal] = True
            with torch.no_grad():
                _, _, probs = agents[p]._act(state.information_state_tensor(p), mask)
            return {a: float(probs[a]) for a in legal}

    curve, cpu, done = [], 0.0, 0
    for target in evals:
        c = _cpu()
        for _ in range(target - done):
            step = env.reset()
            while not step.last():
                p = step.observations["current_player"]
                step = env.step([agents[p].step(step).action])
            for agent in agents:
                agent.step(step)
        cpu += _cpu() - c
        done = target
        state = np.random.get_state()  # evaluation must not move the agents' sampling
        expl = exploitability.exploitability(os_game, Average(os_game, [0, 1]))
        np.random.set_state(state)
        curve.append((target, cpu, expl))
    return curve


def rcfr_nfsp(game: str, evals: list[int], options: dict, seed: int) -> list:
    solver = make_solver(game, "nfsp", seed=seed, **options)
    solver.setup()
    curve, cpu = [], 0.0
    for target in evals:
        c = _cpu()
        solver.run(max(target - solver.iteration, 0))
        cpu += _cpu() - c
        curve.append((solver.iteration, cpu,
                      evaluate(solver.tree, solver.average_policy()).exploitability))
    return curve


def bench_nfsp(game: str, episodes: int, points: int, factor: int, envs: int, hidden: int,
               seed: int, with_openspiel: bool) -> dict:
    import torch

    torch.set_num_threads(1)
    evals = [round(episodes * (k + 1) / points) for k in range(points)]
    out: dict = {"game": game, "episodes": episodes, "hyperparameters": {**PAPER,
                 "hidden": str(hidden)}, "envs": envs}
    if with_openspiel:
        out["openspiel"] = openspiel_nfsp(game, episodes, evals, hidden, seed)
    more = [round(episodes * factor * (k + 1) / (points * factor))
            for k in range(points * factor)]
    ours = rcfr_nfsp(game, more, {**PAPER, "hidden": str(hidden), "envs": envs}, seed)
    out["rcfr"] = ours
    if with_openspiel:
        their_episodes, their_cpu, their_expl = out["openspiel"][-1]
        reached = [(e, c, x) for e, c, x in ours if x <= their_expl]
        same = [x for e, c, x in ours if e >= their_episodes][0]
        out["summary"] = {
            "openspiel_final": {"episodes": their_episodes, "cpu_s": their_cpu,
                                "exploitability": their_expl},
            "rcfr_at_openspiel_episodes": same,
            "rcfr_to_openspiel_final": (None if not reached else
                                        {"episodes": reached[0][0], "cpu_s": reached[0][1],
                                         "exploitability": reached[0][2]}),
            "cpu_ratio": None if not reached else their_cpu / reached[0][1],
        }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--part", choices=("xfp", "nfsp", "all"), default="all")
    ap.add_argument("--quick", action="store_true", help="a few CPU minutes in all")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--xfp-iterations", default=None,
                    help="OpenSpiel XFP iterations, kuhn,leduc (default 300,10; quick 30,3)")
    ap.add_argument("--episodes", default=None,
                    help="OpenSpiel NFSP episodes, kuhn,leduc (default 50000,20000; quick "
                         "10000,4000)")
    ap.add_argument("--points", type=int, default=4, help="evaluations along the run")
    ap.add_argument("--rcfr-factor", type=int, default=10,
                    help="rcfr's NFSP runs this many times OpenSpiel's episodes")
    ap.add_argument("--envs", type=int, default=128)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-openspiel-nfsp", action="store_true")
    args = ap.parse_args()
    xfp_n = [int(x) for x in (args.xfp_iterations or ("30,3" if args.quick else "300,10"))
             .split(",")]
    nfsp_n = [int(x) for x in (args.episodes or ("10000,4000" if args.quick else "50000,20000"))
              .split(",")]
    result: dict = {"versions": {"open_spiel": version_of("open_spiel"),
                                 "torch": version_of("torch"), "numpy": np.__version__},
                    "xfp": [], "nfsp": []}
    if args.part in ("xfp", "all"):
        for game, n in zip(GAMES, xfp_n, strict=True):
            row = bench_xfp(game, n)
            result["xfp"].append(row)
            if not args.json:
                print(f"XFP {game}: OpenSpiel {row['openspiel_s_per_iteration'] * 1e3:.2f} "
                      f"ms/it, rcfr {row['rcfr_s_per_iteration'] * 1e6:.1f} us/it "
                      f"({row['speedup_per_iteration']:.0f}x); after {row['openspiel_cpu_s']:.2f}"
                      f" CPU s: OpenSpiel {row['openspiel_exploitability']:.5f} "
                      f"({n} it), rcfr {row['rcfr_exploitability_equal_time']:.6f} "
                      f"({row['rcfr_iterations_equal_time']} it)", flush=True)
    if args.part in ("nfsp", "all"):
        for game, n in zip(GAMES, nfsp_n, strict=True):
            if n <= 0:  # (--episodes 10000,0: Kuhn only)
                continue
            row = bench_nfsp(game, n, args.points, args.rcfr_factor, args.envs, args.hidden,
                             args.seed, not args.no_openspiel_nfsp)
            result["nfsp"].append(row)
            if not args.json:
                for side in ("openspiel", "rcfr"):
                    for e, c, x in row.get(side, []):
                        print(f"NFSP {game} {side:9s} {e:8d} episodes {c:8.2f} CPU s "
                              f"exploitability {x:.4f}", flush=True)
                if "summary" in row:
                    print(f"NFSP {game} summary: {json.dumps(row['summary'])}", flush=True)
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
