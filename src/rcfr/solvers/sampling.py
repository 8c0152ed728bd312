"""Monte Carlo CFR: sampled tree passes for the one solver loop (ARCHITECTURE.md).

Each pass walks the compiled tree's node arrays top-down for one *updating player* ``i``,
estimates ``i``'s instantaneous counterfactual regrets from a sample, and hands them to the same
regret estimator, link function and average strategy as the full-width solvers.  Four schemes
(Gibson, Burch, Lanctot & Szafron 2012, "Efficient Monte Carlo CFR in games with many player
actions", sec. 2 and Algorithm 1; Lanctot, Waugh, Zinkevich & Bowling 2009):

* ``cs`` chance sampling: one chance outcome at every chance node, every action of both players;
  exact counterfactual values on the sampled chance branch (opponent reach times value).
* ``es`` external sampling: chance and the opponent sampled on-policy, every action of ``i``.
* ``os`` outcome sampling: one trajectory; ``i`` samples epsilon-greedily (probability
  ``epsilon / |A(I)| + (1 - epsilon) sigma(I, a)``, epsilon 0.5 by default, as in the paper's
  experiments); values are importance weighted by ``1 / q_i``.
* ``as`` average strategy sampling (the paper's Algorithm 1): every action of ``i`` is sampled
  independently with probability ``rho(I, a) = max(epsilon, (beta + tau s(I, a)) /
  (beta + sum_b s(I, b)))`` (eq. 2; probability 1 when ``rho >= 1`` or the denominator is 0),
  where ``s`` is ``i``'s cumulative average-strategy weight; opponent and chance as in ES.
  Defaults ``epsilon = 0.05, beta = 1e6, tau = 1000`` (the paper's sec. 5 choice).

Sampled values.  ES, OS and AS return ``u_i(z) / q_i(z)`` at a terminal, ``q_i`` being the
probability with which ``i``'s own sampling decisions reached it (1 for ES); an unsampled action
has value 0 (Algorithm 1, lines 5 and 12-14).  At ``i``'s node the regret of ``a`` is
``v(a) - sum_b sigma(b) v(b)``.  Chance and opponent are sampled on-policy, so their reach
cancels in the importance weight and every estimate is unbiased for the exact counterfactual
regret (Lanctot et al. 2009, Lemma 1).  CS weighs the regrets by the opponent's reach instead.

Average strategy.  ES, OS and AS update the *opponent's* cumulative strategy at its sampled
nodes by ``sigma(I, .) / q_i(h)`` (Algorithm 1, line 9): Lanctot et al.'s "simple" averaging
for ES (``q_i = 1``) and its stochastically weighted form for OS and AS.  Its expectation is
``pi_opp(I) sigma(I, .)`` times a factor fixed per information set, so the normalised average is
unbiased.  CS updates ``i``'s own average by ``pi_i(h) sigma(I, .)`` at ``i``'s nodes, like
vanilla CFR.  With ``averaging`` power ``g`` every increment is also weighted by ``t**g``.

Updates.  Each iteration runs one pass for player 0, then one for player 1 (alternating
updates).  The strategy is fixed during a pass; the pass writes sampled regrets of the
information sets it touched into ``inst`` and the regret estimator absorbs them afterwards, so
the fused tabular kernel (sparse update of the touched sets) and the Python path (dense
``estimator.update(player, inst, t)``, any estimator) give bit-identical results.  The update
rule (:mod:`rcfr.solvers.rules`) is ``cfr`` or ``cfr+`` with every scheme; ``lcfr`` and ``dcfr``
with external sampling (Brown & Sandholm 2019 use discounting with external sampling) discount
the player's whole table after each of its passes.  The fused kernel does it lazily
(:class:`~rcfr.solvers.rules.LazyDiscount`): a touched information set first catches up with the
factors of the iterations it missed, then takes the new regrets and this iteration's factor;
the untouched sets' strategies stay as they are, which is exact for the polynomial links
(regret matching), whose strategy a discount of every positive regret by one factor does not
change.  The result equals the eager discount up to rounding (tested to 1e-12), and the lazy
state is checkpointed, so a resumed run is bit-identical.  With the exponential link, and
through the Python loop, the whole table is discounted after each pass.  The predictive rules
and discounting with the other schemes are refused (:func:`check_rule`).

Implementation.  A pass is two sweeps over a node list, no recursion: a breadth-first sweep
draws the samples and appends the visited children (parents come before children), then a
backward sweep over the same list backs the values up.  Random numbers come from SplitMix64
over a one-word ``uint64`` state that the solver owns and checkpoints, so a seed gives
bit-identical runs.  Every pass returns the number of histories it visited.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from ..errors import RcfrError
from ..evaluate import exploitability
from ..kernels import padded, realization_plan
from ..links import POLYNOMIAL, Link, apply_link, link_slice
from ..tree import KIND_CHANCE, KIND_TERMINAL, GameTree, compile_game
from .loop import RegretSolver, full_tree, player_regrets
from .rules import (
    CLIPPED,
    DISCOUNTED,
    PLAIN,
    LazyDiscount,
    UpdateRule,
    catch_up,
    discount,
    lazy_discount,
    link_input,
    rule_update,
    stamp,
    tick,
    true_regrets,
)
from .tabular import legacy_rule

CS, ES, OS, AS = 0, 1, 2, 3
SCHEMES = {"cs": CS, "es": ES, "os": OS, "as": AS}
SCHEME_NAMES = {
    "cs": "chance sampling",
    "es": "external sampling",
    "os": "outcome sampling",
    "as": "average strategy sampling",
}
DEFAULT_EPSILON = {"os": 0.5, "as": 0.05}  # Gibson et al. 2012, sec. 5
TABLE_DTYPES = {"float64": np.float64, "float32": np.float32}  # MCCFRSolver's dtype


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

# SplitMix64 (Steele, Lea & Flood 2014) constants
_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


# -- random numbers ----------------------------------------------------------------------
@njit(cache=True)
def uniform(rng):
    """A uniform double in ``[0, 1)`` from the SplitMix64 state ``rng[0]`` (advanced)."""
    rng[0] += _GAMMA
    z = rng[0]
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    z = z ^ (z >> _S31)
    return float(z >> _S11) * _TO_UNIT


@njit(cache=True)
def draw(probs, lo, hi, u):
    """Index ``k - lo`` of the first ``k`` in ``[lo, hi)`` where the running sum of ``probs``
    exceeds ``u``; rounding past the end falls back to the last positive entry."""
    acc = 0.0
    last = lo
    for k in range(lo, hi):
        p = probs[k]
        if p > 0.0:
            acc += p
            last = k
            if u < acc:
                return k - lo
    return last - lo


@njit(cache=True)
def explore(strategy, s0, na, epsilon, u):
    """Outcome sampling's action at an information set of the updating player whose strategy is
    ``strategy[s0:s0 + na]``: uniform with probability ``epsilon``, else on-policy (``u``
    uniform in ``[0, 1)``)."""
    if u < epsilon:
        return min(int(u / epsilon * na), na - 1)
    return draw(strategy, s0, s0 + na, (u - epsilon) / (1.0 - epsilon))


@njit(cache=True)
def as_sampling_probability(s, lo, hi, k, epsilon, beta, tau):
    """Probability that average strategy sampling samples sequence ``k`` of the information set
    whose cumulative average-strategy weights are ``s[lo:hi]``: Gibson et al. 2012, eq. 2,
    capped at 1 (1 also when ``beta + sum s`` is 0)."""
    total = beta
    for j in range(lo, hi):
        total += s[j]
    if total <= 0.0:
        return 1.0
    rho = max(epsilon, (beta + tau * s[k]) / total)
    return 1.0 if rho >= 1.0 else rho


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
            for j in range(na):
                c = c0 + j
                rho = as_sampling_probability(avg, s0, s0 + na, s0 + j, epsilon, beta, tau)
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
def absorb_touched(p, t, nt, touched, inst, rule, link_kind, link_param, tree, bounds,
                   seq_bounds, regrets, prediction, values, strategy):
    """Tabular estimator after player ``p``'s pass: plain and clipped rules update the touched
    information sets only and re-apply the link there (the others' regrets do not change);
    discounted rules update all of ``p``'s sequences (``inst`` zero outside the touched sets)."""
    seq_start = tree.seq_start
    num_actions = tree.num_actions
    if rule.kind == PLAIN or rule.kind == CLIPPED:
        for k in range(nt):
            info = touched[k]
            s0 = seq_start[info]
            rule_update(rule, t, inst, s0, s0 + num_actions[info], regrets, prediction)
            apply_link(link_kind, link_param, regrets, info, info + 1, seq_start, num_actions,
                       strategy)
    else:
        lo, hi = seq_bounds[p], seq_bounds[p + 1]
        rule_update(rule, t, inst, lo, hi, regrets, prediction)
        x = link_input(rule, regrets, prediction, lo, hi, values)
        apply_link(link_kind, link_param, x, bounds[p], bounds[p + 1], seq_start, num_actions,
                   strategy)


@njit(cache=True)
def absorb_lazily(p, t, nt, touched, inst, rule, link_kind, link_param, seq_start, num_actions,
                  lazy, strategy):
    """A discounted rule after player ``p``'s pass, lazily (:class:`LazyDiscount`): each touched
    information set catches up with the factors it missed (through ``t - 1``), adds its new
    regrets, is discounted by iteration ``t``'s factor of their sign and gets the link; then
    ``p``'s products advance by ``t`` and the touched sets are marked up to date."""
    raw = lazy.raw
    pos = discount(t, rule.alpha)
    neg = discount(t, rule.beta)
    for k in range(nt):
        info = touched[k]
        s0 = seq_start[info]
        s1 = s0 + num_actions[info]
        catch_up(lazy, p, info, s0, s1, raw)
        for s in range(s0, s1):
            v = raw[s] + inst[s]
            raw[s] = v * (pos if v >= 0.0 else neg)
        link_slice(link_kind, link_param, raw, s0, s1, strategy)
    tick(lazy, p, t, rule)
    for k in range(nt):
        stamp(lazy, p, touched[k])


@njit(cache=True)
def start_pass(t0, it, p, avg_power, dense, seq_bounds, inst):
    """Before player ``p``'s pass in iteration ``it`` of a fused run that started after
    ``t0`` iterations: clear ``p``'s ``inst`` for a ``dense`` rule (a whole-table update) and
    return the iteration number ``t`` and the average strategy's weight ``t ** avg_power``."""
    if dense:
        for s in range(seq_bounds[p], seq_bounds[p + 1]):
            inst[s] = 0.0
    t = t0 + it + 1
    return t, float(t) ** avg_power


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


# -- set-up helpers ----------------------------------------------------------------------
def _real(x: Any, name: str) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(float(x)):
        raise RcfrError(f"{name} must be a finite number, got {x!r}")
    return float(x)


def check_parameters(scheme: str, epsilon: float | None = None, beta: float = 1e6,
                     tau: float = 1000.0) -> tuple[str, float, float, float]:
    """Validate a scheme and its parameters; returns ``(scheme, epsilon, beta, tau)`` with the
    scheme's default epsilon filled in (parameters a scheme does not use are checked too)."""
    key = str(scheme).strip().lower()
    if key not in SCHEMES:
        raise RcfrError(f"unknown sampling scheme {scheme!r}; use one of {', '.join(SCHEMES)}")
    eps = DEFAULT_EPSILON.get(key, 0.05) if epsilon is None else _real(epsilon, "epsilon")
    if not 0.0 < eps <= 1.0:
        raise RcfrError(f"epsilon must be in (0, 1], got {eps:g}")
    beta = _real(beta, "beta")
    if beta < 0.0:
        raise RcfrError(f"beta must be >= 0, got {beta:g}")
    tau = _real(tau, "tau")
    if tau < 1.0:
        raise RcfrError(f"tau must be >= 1, got {tau:g}")
    return key, eps, beta, tau


def _tree_arrays(tree: GameTree) -> SampledTree:
    util = np.zeros(tree.num_nodes)
    util[tree.terminal_nodes] = tree.terminal_utility
    return SampledTree(tree.node_kind, tree.node_child_start, tree.node_infoset,
                       tree.node_chance_prob, tree.infoset_seq_start, tree.infoset_num_actions,
                       util)


def _work_arrays(tree: GameTree) -> SampleWork:
    n = tree.num_nodes
    return SampleWork(np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.ones(n),
                      np.ones(n), np.zeros(n), np.zeros(tree.num_infosets, dtype=np.int64),
                      np.zeros(tree.num_infosets, dtype=np.int64))


def seed_state(seed: int | None) -> np.ndarray:
    """A one-word SplitMix64 state drawn from ``numpy.random.default_rng(seed)``."""
    state = np.random.default_rng(seed).bit_generator.random_raw(1)
    return np.asarray(state, dtype=np.uint64).reshape(1)


def _fixed_pass_inputs(game, strategy, player, avg_weights):
    tree = compile_game(game)
    probs = np.ascontiguousarray(getattr(strategy, "probs", strategy), dtype=np.float64)
    if probs.shape != (tree.num_sequences,):
        raise RcfrError(f"a strategy for {tree.game} needs {tree.num_sequences} entries")
    if player not in (0, 1):
        raise RcfrError(f"player must be 0 or 1, got {player!r}")
    avg = np.zeros(tree.num_sequences) if avg_weights is None else np.array(
        avg_weights, dtype=np.float64)
    if avg.shape != (tree.num_sequences,):
        raise RcfrError(f"average-strategy weights for {tree.game} need {tree.num_sequences} "
                        "entries")
    return tree, probs, avg


def sample_regrets(game: GameTree | Any, strategy: Any, player: int, scheme: str = "es", *,
                   samples: int = 1, seed: int | None = None, epsilon: float | None = None,
                   beta: float = 1e6, tau: float = 1000.0,
                   avg_weights: np.ndarray | None = None) -> np.ndarray:
    """``(samples, num_sequences)`` sampled instantaneous counterfactual regrets of ``player``
    at the fixed ``strategy`` (a :class:`~rcfr.TabularPolicy` or a probability vector), one row
    per pass of ``scheme``; nothing is updated.  Each row's expectation is
    :func:`exact_regrets` (Lanctot et al. 2009, Lemma 1).  ``avg_weights`` is the cumulative
    average strategy that AS samples from (zeros by default)."""
    scheme, eps, beta, tau = check_parameters(scheme, epsilon, beta, tau)
    tree, probs, avg = _fixed_pass_inputs(game, strategy, player, avg_weights)
    rows = np.zeros((int(samples), tree.num_sequences))
    _sample_many(int(samples), SCHEMES[scheme], player, eps, beta, tau, _tree_arrays(tree),
                 probs, avg, seed_state(seed), np.zeros(tree.num_sequences), _work_arrays(tree),
                 rows, np.zeros(tree.num_nodes, dtype=np.int64))
    return rows


def visit_counts(game: GameTree | Any, strategy: Any, player: int, scheme: str = "es", *,
                 samples: int = 1, seed: int | None = None, epsilon: float | None = None,
                 beta: float = 1e6, tau: float = 1000.0,
                 avg_weights: np.ndarray | None = None) -> np.ndarray:
    """How often each history is visited over ``samples`` passes of ``scheme`` for ``player``
    at the fixed ``strategy`` (the sampling decisions made visible; sums to the histories
    visited)."""
    scheme, eps, beta, tau = check_parameters(scheme, epsilon, beta, tau)
    tree, probs, avg = _fixed_pass_inputs(game, strategy, player, avg_weights)
    visits = np.zeros(tree.num_nodes, dtype=np.int64)
    _sample_many(int(samples), SCHEMES[scheme], player, eps, beta, tau, _tree_arrays(tree),
                 probs, avg, seed_state(seed), np.zeros(tree.num_sequences), _work_arrays(tree),
                 np.zeros((0, tree.num_sequences)), visits)
    return visits


def exact_regrets(game: GameTree | Any, strategy: Any, player: int) -> np.ndarray:
    """``player``'s exact instantaneous counterfactual regrets at ``strategy`` (the full-width
    pass, Zinkevich et al. 2007, eq. 7); other players' entries are zero."""
    tree, probs, _ = _fixed_pass_inputs(game, strategy, player, None)
    plan = padded(tree.num_sequences)
    realization_plan(probs, 0, tree.num_infosets, tree.infoset_seq_start,
                     tree.infoset_num_actions, tree.infoset_parent_seq, plan)
    inst = np.zeros(tree.num_sequences)
    player_regrets(player, probs, full_tree(tree), plan, np.zeros(tree.num_sequences + 2), inst)
    return inst


# -- the pass and the solver ---------------------------------------------------------------
class LazyDiscounting:
    """The lazily discounted regrets of a fused sampled pass (:class:`LazyDiscount`), for the
    history and the public form's passes (which have ``tree``, ``bounds`` and ``arrays`` with
    ``seq_start`` and ``num_actions``)."""

    lazy: LazyDiscount | None = None  # the fused kernel's lazily discounted regrets
    _lazy_of: np.ndarray | None = None  # the regrets array the lazy state stands for

    @staticmethod
    def discounts_lazily(solver: RegretSolver) -> bool:
        """Whether the fused kernel discounts lazily: a discounted rule with a polynomial link
        (whose strategies a common discount of the positive regrets leaves unchanged)."""
        return solver.rule_.kind == DISCOUNTED and solver.link_.kind == POLYNOMIAL

    def lazy_state(self, solver: RegretSolver) -> LazyDiscount:
        """The lazy state standing for the estimator's regrets (rebuilt from them when they were
        replaced, e.g. by a checkpoint without one)."""
        regrets = solver.estimator_.regrets
        if self.lazy is None or self._lazy_of is not regrets:
            self.lazy = lazy_discount(regrets, self.tree.num_infosets)
            self._lazy_of = regrets
        return self.lazy

    def show_true_regrets(self, solver: RegretSolver) -> None:
        """After a lazy run: the estimator's table shows the true regrets (the lazy state
        stays)."""
        true_regrets(self.lazy, self.bounds, self.arrays.seq_start, self.arrays.num_actions,
                     solver.estimator_.regrets)


class SampledPass(LazyDiscounting):
    """A sampled tree pass (:func:`sampled_pass`) with its generator state (SplitMix64, one
    word) and scratch arrays; one player per pass."""

    def __init__(self, tree: GameTree, scheme: int, epsilon: float, beta: float, tau: float,
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

    def fuses(self, rule: UpdateRule) -> bool:
        return True

    def run_fused(self, solver: RegretSolver, max_iters: int, node_budget: int) -> None:
        est = solver.estimator_
        lazily = self.discounts_lazily(solver)
        lazy = self.lazy_state(solver) if lazily else NO_LAZY
        its, nodes = run_sampled(
            self.scheme, max_iters, node_budget, solver.iteration, solver.avg_power_,
            solver.rule_.params, solver.link_.kind, solver.link_.param, self.epsilon,
            self.beta, self.tau, self.arrays, self.bounds, self.seq_bounds, est.regrets,
            est.prediction, est.values_, solver.strategy_, solver.avg_weights_, self.rng,
            self.counter, solver._inst, self.work, lazy, lazily)
        if lazily:
            self.show_true_regrets(solver)
        solver.iteration += int(its)
        solver.nodes_visited += int(nodes)


NO_LAZY = lazy_discount(np.zeros(0), 0)


def _load_lazy(arrays: dict[str, np.ndarray], regrets: np.ndarray,
               num_infosets: int) -> LazyDiscount:
    """A checkpoint's lazy state (``ValueError`` unless it fits the game and is finite)."""
    fresh = lazy_discount(regrets, num_infosets)
    lazy = LazyDiscount(*(np.array(arrays[f"lazy_{k}"], dtype=v.dtype)
                          for k, v in fresh._asdict().items()))
    for got, want in zip(lazy, fresh, strict=True):
        if got.shape != want.shape or (got.dtype == np.float64 and
                                       not np.isfinite(got).all()):
            raise ValueError("lazy discount state")
    if not ((lazy.mark_m >= 0.5) & (lazy.mark_m < 1)).all() or not (
            (lazy.clock_m >= 0.5) & (lazy.clock_m < 1)).all():
        raise ValueError("lazy discount products")
    for e in (lazy.mark_e, lazy.clock_e):
        if not ((e <= 1) & (e >= -(1 << 60))).all():
            raise ValueError("lazy discount exponents")
    return lazy


def check_rule(scheme: str, rule: UpdateRule) -> None:
    """Refuse update rules that the literature does not define with a sampled pass."""
    if rule.predictive:
        raise RcfrError(f"{rule.name} predicts the next regrets by the last exact ones (Farina "
                        f"et al. 2021); it is not defined with the sampled pass {scheme}")
    if rule.kind == DISCOUNTED and scheme != "es":
        raise RcfrError(f"{rule.name} with a sampled pass is defined for external sampling "
                        f"(Brown & Sandholm 2019), not {scheme}")


class MCCFRSolver(RegretSolver):
    """Monte Carlo CFR (Lanctot et al. 2009; Gibson et al. 2012): the solver loop with a
    sampled tree pass (``scheme`` ``"cs"``, ``"es"``, ``"os"`` or ``"as"``).

    Parameters are configured here and validated in :meth:`run` / :meth:`run_nodes`:
    ``epsilon`` in (0, 1] (OS exploration, default 0.5; AS floor, default 0.05), ``beta >= 0``
    and ``tau >= 1`` (AS bonus and threshold, defaults 1e6 and 1000).  ``estimator`` defaults to
    the tabular one with ``rule`` (default ``cfr``; ``plus=True`` is ``cfr+``); ``lcfr`` and
    ``dcfr`` discount the whole table after each external-sampling pass (Brown & Sandholm
    2019), lazily in the fused kernel (see the module docstring).  ``averaging`` as in
    :class:`RegretSolver`, except that it stays uniform for ``cfr`` and ``cfr+`` unless given;
    updates always alternate.  Any estimator gets the sampled regrets
    (dense, zero outside the touched information sets) through the Python loop.  ``seed`` makes
    runs bit-identical; the generator's state is saved in checkpoints.  :attr:`nodes_visited`
    counts every history each pass touched.  ``dtype="float32"`` (opt-in, tabular estimator)
    keeps the regrets, the current and average strategy in single precision: half the memory,
    the arithmetic still in double; checkpoints record it and a resume must match.
    """

    _config_keys = ("rule", "link", "alternating", "averaging", "epsilon", "beta", "tau",
                    "dtype")
    _pass_class: type = SampledPass  # the tree pass for the compiled form

    def __init__(self, game: GameTree | Any, scheme: str = "es", *,
                 epsilon: float | None = None, beta: float = 1e6, tau: float = 1000.0,
                 seed: int | None = None, estimator: Any = None,
                 rule: str | UpdateRule | None = None,
                 link: str | Link | None = None, averaging: str | float | None = None,
                 plus: bool = False, alternating: bool = True, dtype: str = "float64") -> None:
        rule = legacy_rule(plus) if rule is None and plus else rule
        super().__init__(game, estimator=estimator, rule=rule, link=link,
                         alternating=alternating, averaging=averaging, seed=seed,
                         name=str(scheme).strip().lower())
        self.scheme = scheme
        self.epsilon = epsilon
        self.beta = beta
        self.tau = tau
        self.plus = plus
        self.dtype = dtype

    def _table_dtype(self) -> type:
        key = str(self.dtype).strip().lower()
        if key not in TABLE_DTYPES:
            raise RcfrError(f"dtype must be float64 or float32, got {self.dtype!r}")
        if key != "float64" and self.estimator is not None:
            raise RcfrError(f"dtype {key} is for the tabular estimator's tables; a regressor "
                            "keeps its own")
        self.dtype_ = key
        return TABLE_DTYPES[key]

    def _default_averaging(self) -> str | float:
        return "uniform" if self.rule_.name in ("cfr", "cfr+") else super()._default_averaging()

    def _make_pass(self) -> SampledPass:
        if not self.alternating:
            raise RcfrError("Monte Carlo CFR alternates updates (one sampled pass per player); "
                            "simultaneous updates are not supported")
        key, self.epsilon_, self.beta_, self.tau_ = check_parameters(
            self.scheme, self.epsilon, self.beta, self.tau)
        check_rule(key, self.rule_)
        return self._pass_class(self.tree, SCHEMES[key], self.epsilon_, self.beta_, self.tau_,
                                self.seed)

    # -- outputs and checkpoints ---------------------------------------------------------
    def _info(self) -> dict[str, Any]:
        info = super()._info()
        key = self.name
        info.update({"scheme": key,
                     "epsilon": self.epsilon_ if key in ("os", "as") else None,
                     "beta": self.beta_ if key == "as" else None,
                     "tau": self.tau_ if key == "as" else None, "dtype": self.dtype_})
        return info

    def _lazily(self) -> bool:
        return (self.fused_ and isinstance(self.pass_, LazyDiscounting)
                and LazyDiscounting.discounts_lazily(self))

    def _extra_state(self) -> dict[str, np.ndarray]:
        out = {"rng_state": self.pass_.rng}
        if self._lazily():  # the lazy state too, so that a resumed run is bit-identical
            out.update({f"lazy_{k}": v for k, v in
                        self.pass_.lazy_state(self)._asdict().items()})
        return out

    def _load_extra_state(self, arrays: dict[str, np.ndarray]) -> None:
        state = np.array(arrays["rng_state"], dtype=np.uint64)
        if state.shape != (1,):
            raise ValueError("rng_state")
        self.pass_.rng = state
        if self._lazily() and "lazy_raw" in arrays:
            self.pass_.lazy = _load_lazy(arrays, self.estimator_.regrets, self.tree.num_infosets)
            self.pass_._lazy_of = self.estimator_.regrets

    def sample_regrets(self, player: int, samples: int = 1) -> np.ndarray:
        """Sampled regrets of ``player`` at the current strategy (:func:`sample_regrets` with
        this solver's scheme, parameters and average strategy; its own generator is untouched)."""
        self._setup()
        return sample_regrets(self.tree, self.strategy_, player, self.name, samples=samples,
                              seed=int(self.pass_.rng[0] >> np.uint64(1)),
                              epsilon=self.epsilon_, beta=self.beta_, tau=self.tau_,
                              avg_weights=self.avg_weights_)


def nodes_curve(game: GameTree | Any, scheme: str, budgets: list[int], *, seed: int = 0,
                **options: Any) -> list[tuple[int, float]]:
    """Exploitability of a fresh :class:`MCCFRSolver`'s average strategy after each cumulative
    node budget in ``budgets`` (increasing): ``[(nodes visited, exploitability), ...]`` — the
    x-axis of Gibson et al. 2012, Figures 2 and 3."""
    tree = compile_game(game)
    solver = MCCFRSolver(tree, scheme, seed=seed, **options)
    curve = []
    for budget in budgets:
        if budget > solver.nodes_visited:
            solver.run_nodes(int(budget) - solver.nodes_visited)
        curve.append((solver.nodes_visited, exploitability(tree, solver.average_policy())))
    return curve
