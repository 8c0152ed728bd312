"""The history form's sampled passes (ARCHITECTURE.md; Gibson et al. 2012, sec. 2 and
Algorithm 1): chance, external, outcome and average strategy sampling over the compiled node
arrays, two sweeps over a node list per pass (no recursion), and the fused tabular loop
(:func:`run_sampled`).  See :mod:`rcfr.solvers.mccfr` for the schemes and their estimates."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from ..base import KIND_CHANCE, KIND_TERMINAL, Form
from ..loop_state import Counters, LoopState
from ..sampling import (
    CLIPPED,
    CS,
    ES,
    OS,
    PLAIN,
    LazyDiscounting,
    absorb_lazily,
    absorb_touched,
    as_probability,
    as_total,
    draw,
    explore,
    seed_state,
    start_pass,
    uniform,
)
from .full_width import full_tree


class SampledTree(NamedTuple):
    """The compiled tree's node arrays that a sampled pass reads."""

    kind: np.ndarray
    child_start: np.ndarray
    node_infoset: np.ndarray
    chance_prob: np.ndarray
    seq_start: np.ndarray
    num_actions: np.ndarray
    util: np.ndarray  # player 0's payoff at terminals, 0 elsewhere


class SampleWork(NamedTuple):
    """Scratch arrays of a sampled pass: the visited list, the sampled child of each node,
    sampling probabilities, reaches, values, and the touched information sets."""

    order: np.ndarray
    pick: np.ndarray
    q: np.ndarray
    ri: np.ndarray
    val: np.ndarray
    stamp: np.ndarray
    touched: np.ndarray


# -- one pass ----------------------------------------------------------------------------
@njit(cache=True)
def _expand_cs(player, weight, tree, strategy, avg, rng, work):
    """Chance sampling, breadth-first sweep: ``q`` holds the opponent's reach and ``ri`` the
    updating player's; the player's average strategy gets ``weight * pi_i(h) * sigma``."""
    kind, child_start, node_infoset, chance_prob, seq_start, num_actions, util = tree
    order, pick, q, ri, val, stamp, touched = work
    order[0] = 0
    q[0] = 1.0
    ri[0] = 1.0
    n = 1
    k = 0
    while k < n:
        h = order[k]
        k += 1
        kd = kind[h]
        if kd == KIND_TERMINAL:
            continue
        c0 = child_start[h]
        if kd == KIND_CHANCE:
            c = c0 + draw(chance_prob, c0, child_start[h + 1], uniform(rng))
            pick[h] = c
            q[c] = q[h]
            ri[c] = ri[h]
            order[n] = c
            n += 1
            continue
        s0 = seq_start[node_infoset[h]]
        na = child_start[h + 1] - c0
        if kd == player:
            r = ri[h]
            for j in range(na):
                p = strategy[s0 + j]
                avg[s0 + j] += weight * r * p
                c = c0 + j
                q[c] = q[h]
                ri[c] = r * p
                order[n] = c
                n += 1
        else:
            pick[h] = -1
            for j in range(na):
                c = c0 + j
                q[c] = q[h] * strategy[s0 + j]
                ri[c] = ri[h]
                order[n] = c
                n += 1
    return n


@njit(cache=True)
def _expand_sampled(scheme, player, weight, epsilon, beta, tau, tree, strategy, avg, rng, work):
    """ES / OS / AS, breadth-first sweep: chance and opponent sampled on-policy, the updating
    player's actions all (ES), one epsilon-greedy (OS) or each with probability ``rho`` (AS);
    ``q`` holds the updating player's sampling probability, unsampled children get value 0 and
    the opponent's average strategy gets ``weight * sigma / q`` (Algorithm 1, line 9)."""
    kind, child_start, node_infoset, chance_prob, seq_start, num_actions, util = tree
    order, pick, q, ri, val, stamp, touched = work
    order[0] = 0
    q[0] = 1.0
    n = 1
    k = 0
    while k < n:
        h = order[k]
        k += 1
        kd = kind[h]
        if kd == KIND_TERMINAL:
            continue
        c0 = child_start[h]
        if kd == KIND_CHANCE:
            c = c0 + draw(chance_prob, c0, child_start[h + 1], uniform(rng))
            pick[h] = c
            q[c] = q[h]
            order[n] = c
            n += 1
            continue
        s0 = seq_start[node_infoset[h]]
        na = child_start[h + 1] - c0
        if kd != player:
            inc = weight / q[h]
            for j in range(na):
                avg[s0 + j] += inc * strategy[s0 + j]
            c = c0 + draw(strategy, s0, s0 + na, uniform(rng))
            pick[h] = c
            q[c] = q[h]
            order[n] = c
            n += 1
        elif scheme == ES:
            for j in range(na):
                c = c0 + j
                q[c] = q[h]
                order[n] = c
                n += 1
        elif scheme == OS:
            a = explore(strategy, s0, na, epsilon, uniform(rng))
            for j in range(na):
                val[c0 + j] = 0.0
            c = c0 + a
            q[c] = q[h] * (epsilon / na + (1.0 - epsilon) * strategy[s0 + a])
            order[n] = c
            n += 1
        else:
            total = as_total(avg, s0, s0 + na, beta)
            for j in range(na):
                c = c0 + j
                rho = as_probability(total, avg[s0 + j], epsilon, beta, tau)
                if rho >= 1.0 or uniform(rng) < rho:
                    q[c] = q[h] * rho
                    order[n] = c
                    n += 1
                else:
                    val[c] = 0.0
    return n


@njit(cache=True)
def _backup(player, cs, n, tree, strategy, inst, work, pass_id):
    """Backward sweep over the visited list: sampled values bottom-up, and the updating
    player's sampled regrets ``w * (v(a) - v)`` into ``inst`` (``w`` = opponent reach for CS,
    1 otherwise).  Returns the number of information sets touched (listed in ``touched``)."""
    kind, child_start, node_infoset, chance_prob, seq_start, num_actions, util = tree
    order, pick, q, ri, val, stamp, touched = work
    sign = 1.0 if player == 0 else -1.0
    nt = 0
    for k in range(n - 1, -1, -1):
        h = order[k]
        kd = kind[h]
        if kd == KIND_TERMINAL:
            val[h] = sign * util[h] if cs else sign * util[h] / q[h]
        elif kd == KIND_CHANCE or (kd != player and pick[h] >= 0):
            val[h] = val[pick[h]]
        else:
            info = node_infoset[h]
            s0 = seq_start[info]
            c0 = child_start[h]
            na = child_start[h + 1] - c0
            v = 0.0
            for j in range(na):
                v += strategy[s0 + j] * val[c0 + j]
            val[h] = v
            if kd == player:
                if stamp[info] != pass_id:
                    stamp[info] = pass_id
                    touched[nt] = info
                    nt += 1
                    for j in range(na):
                        inst[s0 + j] = 0.0
                w = q[h] if cs else 1.0
                for j in range(na):
                    inst[s0 + j] += w * (val[c0 + j] - v)
    return nt


@njit(cache=True)
def sampled_pass(scheme, player, weight, epsilon, beta, tau, tree, strategy, avg, rng, inst,
                 work, pass_id):
    """One sampled pass for ``player`` (Gibson et al. 2012, sec. 2; Algorithm 1 for AS):
    updates the average strategy (see the module docstring), writes the sampled counterfactual
    regrets of the touched information sets into ``inst`` (others are left as they were) and
    returns ``(histories visited, information sets touched)``.  ``pass_id`` must differ from
    every earlier pass's on the same ``work`` arrays."""
    if scheme == CS:
        n = _expand_cs(player, weight, tree, strategy, avg, rng, work)
    else:
        n = _expand_sampled(scheme, player, weight, epsilon, beta, tau, tree, strategy, avg,
                            rng, work)
    nt = _backup(player, scheme == CS, n, tree, strategy, inst, work, pass_id)
    return n, nt


@njit(cache=True)
def run_sampled(scheme, max_iters, node_budget, t0, avg_power, rule, link_kind, link_param,
                epsilon, beta, tau, tree, bounds, seq_bounds, regrets, prediction, values,
                strategy, avg, rng, counter, inst, work, lazy, lazily):
    """Iterations of Monte Carlo CFR with the tabular estimator, entirely in numba: a pass for
    player 0, its update, then a pass for player 1.  Stops after ``max_iters`` iterations or
    once ``node_budget`` histories have been visited (whole iterations).  With ``lazily`` a
    discounted rule updates ``lazy`` (:func:`absorb_lazily`) instead of ``regrets``.  Returns
    ``(iterations, histories visited)``."""
    dense = rule.kind != PLAIN and rule.kind != CLIPPED and not lazily
    it = 0
    nodes = 0
    while it < max_iters and nodes < node_budget:
        for p in range(2):
            counter[0] += 1
            t, weight = start_pass(t0, it, p, avg_power, dense, seq_bounds, inst)
            n, nt = sampled_pass(scheme, p, weight, epsilon, beta, tau, tree, strategy, avg,
                                 rng, inst, work, counter[0])
            nodes += n
            if lazily:
                absorb_lazily(p, t, nt, work.touched, inst, rule, link_kind, link_param,
                              tree.seq_start, tree.num_actions, lazy, strategy)
            else:
                absorb_touched(p, t, nt, work.touched, inst, rule, link_kind, link_param, tree,
                               bounds, seq_bounds, regrets, prediction, values, strategy)
        it += 1
    return it, nodes


@njit(cache=True)
def _sample_many(samples, scheme, player, epsilon, beta, tau, tree, strategy, avg, rng, inst,
                 work, rows, visits):
    """``samples`` passes at a fixed strategy: each pass's dense regrets into ``rows[k]`` (when
    ``rows`` has rows) and visit counts per history into ``visits``.  Returns all histories
    visited."""
    total = 0
    for k in range(samples):
        n, nt = sampled_pass(scheme, player, 0.0, epsilon, beta, tau, tree, strategy, avg, rng,
                             inst, work, k + 1)
        total += n
        for j in range(n):
            visits[work.order[j]] += 1
        if rows.shape[0] > 0:
            for m in range(nt):
                info = work.touched[m]
                s0 = tree.seq_start[info]
                for s in range(s0, s0 + tree.num_actions[info]):
                    rows[k, s] = inst[s]
    return total


def _tree_arrays(tree: Form) -> SampledTree:
    util = np.zeros(tree.num_nodes)
    util[tree.terminal_nodes] = tree.terminal_utility
    return SampledTree(tree.node_kind, tree.node_child_start, tree.node_infoset,
                       tree.node_chance_prob, tree.infoset_seq_start, tree.infoset_num_actions,
                       util)


def _work_arrays(tree: Form) -> SampleWork:
    n = tree.num_nodes
    return SampleWork(np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.ones(n),
                      np.ones(n), np.zeros(n), np.zeros(tree.num_infosets, dtype=np.int64),
                      np.zeros(tree.num_infosets, dtype=np.int64))


class SampledPass(LazyDiscounting):
    """A sampled tree pass (:func:`sampled_pass`) with its generator state (SplitMix64, one
    word) and scratch arrays; one player per pass."""

    def __init__(self, tree: Form, scheme: int, epsilon: float, beta: float, tau: float,
                 seed: int | None) -> None:
        self.tree = tree
        self.scheme = scheme
        self.epsilon, self.beta, self.tau = epsilon, beta, tau
        self.arrays = _tree_arrays(tree)
        self.work = _work_arrays(tree)
        self.rng = seed_state(seed)
        self.counter = np.zeros(1, dtype=np.int64)
        ft = full_tree(tree)
        self.bounds, self.seq_bounds = ft.bounds, ft.seq_bounds

    def run(self, players, strategy, weight, avg, inst) -> int:
        (player,) = players
        inst[:] = 0.0
        self.counter[0] += 1
        n, _ = sampled_pass(self.scheme, player, weight, self.epsilon, self.beta, self.tau,
                            self.arrays, strategy, avg, self.rng, inst, self.work,
                            self.counter[0])
        return int(n)

    def fuses(self, rule: Any) -> bool:
        return True

    def run_fused(self, state: LoopState, max_iters: int, node_budget: int) -> Counters:
        its, nodes = run_sampled(
            self.scheme, max_iters, node_budget, state.iteration, state.avg_power, state.rule,
            state.link_kind, state.link_param, self.epsilon, self.beta, self.tau, self.arrays,
            self.bounds, self.seq_bounds, state.regrets, state.prediction, state.values,
            state.strategy, state.avg_weights, state.rng, self.counter, state.inst, self.work,
            state.lazy, state.lazily)
        if state.lazily:
            self.show_true_regrets(state.lazy, state.regrets)
        return state.advanced(its, nodes)

    def sample_regrets(self, player: int, strategy: np.ndarray, avg: np.ndarray, samples: int,
                       rng: np.ndarray | None = None) -> np.ndarray:
        """``(samples, num_sequences)`` sampled regrets of ``player`` at the fixed ``strategy``,
        one row per pass, drawn from ``rng`` (default: a generator seeded from this pass's, which
        is left as it was); nothing is updated."""
        tree = self.tree
        if rng is None:
            rng = seed_state(int(self.rng[0] >> np.uint64(1)))
        strategy = np.ascontiguousarray(strategy, dtype=np.float64)
        avg = np.array(avg, dtype=np.float64)
        rows = np.zeros((samples, tree.num_sequences))
        _sample_many(samples, self.scheme, player, self.epsilon, self.beta, self.tau,
                     self.arrays, strategy, avg, rng, np.zeros(tree.num_sequences),
                     _work_arrays(tree), rows, np.zeros(tree.num_nodes, dtype=np.int64))
        return rows

    def visit_counts(self, player: int, strategy: np.ndarray, avg: np.ndarray,
                     samples: int) -> np.ndarray:
        """How often each history is visited over ``samples`` passes for ``player`` at the
        fixed ``strategy`` (drawn from this pass's generator)."""
        tree = self.tree
        visits = np.zeros(tree.num_nodes, dtype=np.int64)
        _sample_many(samples, self.scheme, player, self.epsilon, self.beta, self.tau,
                     self.arrays, strategy, avg, self.rng, np.zeros(tree.num_sequences),
                     _work_arrays(tree), np.zeros((0, tree.num_sequences)), visits)
        return visits
