#!/usr/bin/env python
"""Deep CFR benchmark (issue 25): rcfr's Deep CFR, SD-CFR and DREAM against OpenSpiel's PyTorch
Deep CFR (``open_spiel.python.pytorch.deep_cfr``) on Kuhn and Leduc, exploitability against
CPU seconds, in the same run.

    .venv/bin/python benchmarks/bench_deep_cfr.py                        # kuhn and leduc
    .venv/bin/python benchmarks/bench_deep_cfr.py --games leduc --iterations 32 \\
        --os-iterations 32 --json

Both sides use the settings of OpenSpiel's ``deep_cfr_pytorch`` example: one hidden layer of
64 units, 375 external-sampling traversals per player and iteration, the advantage network
re-initialised every iteration and trained by 375 Adam steps of minibatch 256, memories of
100,000 rows, the average-strategy network by 2,500 steps.  rcfr's learning rate is its
default, 1e-2 (OpenSpiel's example: 1e-3); both read OpenSpiel's information-state tensor.
PyTorch runs on one thread on both sides.

CPU seconds are the process's (``time.process_time``), so the load of a shared machine falls
on neither; they count the iterations up to a point plus, for Deep CFR and DREAM, fitting the
average-strategy network at that point (what producing the average costs; SD-CFR's exact
average costs nothing extra).  Exact evaluation is excluded (rcfr's evaluator for rcfr,
OpenSpiel's ``exploitability`` for OpenSpiel, both the mean of the best-response values).  The
summary gives, per game, OpenSpiel's final exploitability, the CPU seconds it took, the CPU
seconds each rcfr solver took to first reach it, and the ratio; and tabular external sampling
(``-a es``) run to each rcfr solver's final number of histories visited, beside it; and
SD-CFR and Deep CFR with ``--param-hidden`` units (default 16) beside RCFR+ with best-first
trees of as many leaves as their advantage networks have weights, at equal histories visited.
rcfr's DREAM runs with its default baseline, the Q-network.  ``--networks mlp,embed`` runs
rcfr's solvers with both networks (``--network embed``: the paper's card and bet network).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from rcfr.evaluate import evaluate
from rcfr.forms.compile import compile_game
from rcfr.solvers.run import make_solver

OS_GAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker"}
SETTINGS = {"traversals": 375, "train_steps": 375, "batch_size": 256, "memory": 100_000,
            "hidden": "64"}


def eval_points(n: int, count: int) -> list[int]:
    pts = sorted({max(1, int(round(x))) for x in np.geomspace(1, n, count)} | {n})
    return pts


def run_rcfr(game: str, key: str, iterations: int, points: list[int], seed: int,
             network: str = "mlp") -> list[dict]:
    tree = compile_game(game)
    options = dict(SETTINGS, network=network)
    if key != "sd-cfr":
        options["policy_steps"] = 2500
    solver = make_solver(tree, key, seed=seed, **options)
    if network != "mlp":
        key = f"{key} ({network})"
    solver.setup()
    rows, cpu = [], 0.0
    for it in range(1, iterations + 1):
        t0 = time.process_time()
        solver.run(1)
        cpu += time.process_time() - t0
        if it in points:
            t0 = time.process_time()
            policy = solver.average_policy()
            fit = time.process_time() - t0
            expl = evaluate(tree, policy).exploitability
            rows.append({"solver": f"rcfr {key}", "iteration": it, "cpu_s": cpu + fit,
                         "exploitability": expl, "nodes": solver.nodes_visited})
            print(f"  rcfr {key:9s} it {it:4d}  cpu {cpu + fit:8.2f} s  expl {expl:.4f}",
                  flush=True)
    return rows


def run_openspiel(game: str, iterations: int, points: list[int], seed: int) -> list[dict]:
    import pyspiel
    import torch
    from open_spiel.python import policy as os_policy
    from open_spiel.python.algorithms import exploitability
    from open_spiel.python.pytorch import deep_cfr

    os_game = pyspiel.load_game(OS_GAMES[game])
    np.random.seed(seed)
    torch.manual_seed(seed)
    solver = deep_cfr.DeepCFRSolver(
        os_game, policy_network_layers=(64,), advantage_network_layers=(64,),
        num_iterations=iterations, num_traversals=375, reinitialize_advantage_networks=True,
        learning_rate=1e-3, batch_size_advantage=256, batch_size_strategy=256,
        memory_capacity=100_000, policy_network_train_steps=2500,
        advantage_network_train_steps=375)
    rows, cpu = [], 0.0
    # the loop of DeepCFRSolver.solve, an iteration at a time so the curve can be read
    for it in range(1, iterations + 1):
        t0 = time.process_time()
        for p in range(2):
            for _ in range(375):
                solver._traverse_game_tree(solver._root_node, p)
            solver._reinitialize_advantage_network(p)
            solver._learn_advantage_network(p)
        solver._iteration += 1
        cpu += time.process_time() - t0
        if it in points:
            t0 = time.process_time()
            solver._reinitialize_policy_network()
            solver._learn_strategy_network()
            fit = time.process_time() - t0
            avg = os_policy.tabular_policy_from_callable(os_game, solver.action_probabilities)
            expl = exploitability.exploitability(os_game, avg)
            rows.append({"solver": "openspiel deep-cfr", "iteration": it, "cpu_s": cpu + fit,
                         "exploitability": expl, "nodes": None})
            print(f"  openspiel deep-cfr it {it:4d}  cpu {cpu + fit:8.2f} s  expl {expl:.4f}",
                  flush=True)
    return rows


def equal_nodes(game: str, rows: list[dict], seed: int) -> list[dict]:
    """Tabular external sampling (``-a es``, the CFR rule) at each rcfr solver's final node
    count: what the networks cost against a table at equal histories visited."""
    out = []
    tree = compile_game(game)
    for name in sorted({r["solver"] for r in rows if r["nodes"]}):
        last = [r for r in rows if r["solver"] == name][-1]
        es = make_solver(tree, "es", seed=seed)
        t0 = time.process_time()
        es.run_nodes(last["nodes"])
        cpu = time.process_time() - t0
        expl = evaluate(tree, es.average_policy()).exploitability
        out.append({"solver": "rcfr es (tabular)", "beside": name, "nodes": es.nodes_visited,
                    "cpu_s": cpu, "exploitability": expl})
        print(f"  tabular es at {name}'s {last['nodes']:,} nodes: expl {expl:.4f} "
              f"({cpu:.2f} s CPU; {name}: {last['exploitability']:.4f})", flush=True)
    return out


def equal_params(game: str, hidden: str, iterations: int, seed: int) -> list[dict]:
    """SD-CFR and Deep CFR with ``hidden`` units (the other settings as :data:`SETTINGS`)
    beside RCFR+ with best-first regression trees of as many leaves as the two advantage
    networks have weights (a tree's parameters are its leaves' values; both players
    together, as ``--leaves``), run to the network solver's histories visited."""
    out = []
    tree = compile_game(game)
    for key in ("sd-cfr", "deep-cfr"):
        options = {**SETTINGS, "hidden": hidden}
        if key != "sd-cfr":
            options["policy_steps"] = 2500
        solver = make_solver(tree, key, seed=seed, **options)
        t0 = time.process_time()
        solver.run(iterations)
        policy = solver.average_policy()
        cpu = time.process_time() - t0
        params = sum(int(m.mlp.theta.size) for m in solver.adv_model_)
        expl = evaluate(tree, policy).exploitability
        out.append({"solver": f"rcfr {key}", "hidden": hidden, "parameters": params,
                    "iteration": iterations, "nodes": solver.nodes_visited, "cpu_s": cpu,
                    "exploitability": expl})
        print(f"  {key} hidden {hidden} ({params:,} weights): it {iterations}  "
              f"{solver.nodes_visited:,} nodes  cpu {cpu:.2f} s  expl {expl:.4f}", flush=True)
        rp = make_solver(tree, "rcfr+", regressor="best-first", leaves=params)
        t0 = time.process_time()
        rp.run_nodes(solver.nodes_visited)
        cpu = time.process_time() - t0
        expl = evaluate(tree, rp.average_policy()).exploitability
        out.append({"solver": "rcfr rcfr+ best-first", "beside": key, "parameters": params,
                    "iteration": rp.iteration, "nodes": rp.nodes_visited, "cpu_s": cpu,
                    "exploitability": expl})
        print(f"  rcfr+ best-first, {params:,} leaves, at {key}'s nodes: it {rp.iteration}  "
              f"{rp.nodes_visited:,} nodes  cpu {cpu:.2f} s  expl {expl:.4f}", flush=True)
    return out


def summary(rows: list[dict]) -> list[dict]:
    os_rows = [r for r in rows if r["solver"].startswith("openspiel")]
    if not os_rows:
        return []
    target, os_cpu = os_rows[-1]["exploitability"], os_rows[-1]["cpu_s"]
    out = []
    for name in sorted({r["solver"] for r in rows} - {"openspiel deep-cfr"}):
        hit = next((r for r in rows if r["solver"] == name and r["exploitability"] <= target),
                   None)
        out.append({"solver": name, "target": target, "openspiel_cpu_s": os_cpu,
                    "cpu_s": hit["cpu_s"] if hit else None,
                    "iteration": hit["iteration"] if hit else None,
                    "ratio": os_cpu / hit["cpu_s"] if hit else None})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", default="kuhn,leduc")
    ap.add_argument("--iterations", type=int, default=32, help="rcfr iterations")
    ap.add_argument("--os-iterations", type=int, default=10,
                    help="OpenSpiel iterations (0: rcfr only)")
    ap.add_argument("--algorithms", default="sd-cfr,deep-cfr,dream")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--networks", default="mlp",
                    help="rcfr's networks, comma-separated: mlp, embed (the Deep CFR paper's "
                         "card and bet network, --hidden's width)")
    ap.add_argument("--param-hidden", default="16",
                    help="hidden width of the equal-parameter comparison with RCFR+ ('' : "
                         "skip it)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    import torch

    torch.set_num_threads(1)
    result = {}
    for game in args.games.split(","):
        print(f"{game}:", flush=True)
        rows = []
        if args.os_iterations:  # 0: rcfr only
            os_points = eval_points(args.os_iterations, 4)
            rows += run_openspiel(game, args.os_iterations, os_points, args.seed)
        for network in args.networks.split(","):
            for key in args.algorithms.split(","):
                rows += run_rcfr(game, key, args.iterations, eval_points(args.iterations, 7),
                                 args.seed, network)
        result[game] = {"rows": rows, "summary": summary(rows),
                        "equal_nodes": equal_nodes(game, rows, args.seed)}
        if args.param_hidden:
            result[game]["equal_parameters"] = equal_params(game, args.param_hidden,
                                                            args.iterations, args.seed)
        for s in result[game]["summary"]:
            if s["cpu_s"] is None:
                print(f"  {s['solver']}: never reached {s['target']:.4f}")
            else:
                print(f"  {s['solver']}: reached OpenSpiel's {s['target']:.4f} "
                      f"({s['openspiel_cpu_s']:.1f} s CPU) at iteration {s['iteration']} in "
                      f"{s['cpu_s']:.2f} s CPU: {s['ratio']:.1f}x less", flush=True)
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
