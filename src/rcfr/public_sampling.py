"""Monte Carlo CFR on the public tree: sample the private states from the joint deal, then walk
the public nodes (ARCHITECTURE.md, "Two compiled forms").

Given a deal ``(x0, x1)``, the histories that follow it are the public tree itself: a decision
node ``u`` of player ``p`` lies in information set ``(u, x_p)``, a public chance outcome has
the probability ``W_child[x0, x1] / W_parent[x0, x1]`` (card removal), and a terminal pays its
rule's payoff for the pair.  A pass draws the deal on-policy and runs the history form's sampled
pass (:mod:`rcfr.solvers.sampling`: CS, ES, OS or AS, Gibson et al. 2012) over the public
nodes, reading the deal's information set, chance probability or payoff at each node it visits,
so estimates, averaging and their unbiasedness are the history form's and a pass costs what it
visits (no sweep of the public tree, no write outside the touched information sets).  With the
tabular estimator every iteration runs in one numba kernel (:func:`run_public_sampled`); any
other estimator gets the same pass through the loop's Python step.  Nodes visited are counted
in histories: each public node the walk visits is one history of the sampled deal, plus the
chance nodes that dealt it.

:meth:`PublicSampledPass.deal_arrays` writes a deal's history-form node arrays (a sweep of the
public nodes): the reference the fused pass is tested against, bit for bit.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from .errors import RcfrError
from .games.public import FOLD_RULE, SHOWDOWN_RULE
from .public_tree import PublicTree, compile_public
from .solvers.rules import CLIPPED, PLAIN
from .solvers.sampling import (
    CS,
    ES,
    OS,
    SCHEMES,
    MCCFRSolver,
    SampledTree,
    SampleWork,
    absorb_touched,
    as_sampling_probability,
    check_parameters,
    check_rule,
    draw,
    sampled_pass,
    seed_state,
    uniform,
)
from .tree import KIND_CHANCE, KIND_TERMINAL


class PublicSampled(NamedTuple):
    """The public tree's arrays that the fused sampled pass reads (per public node, per
    terminal, per chance context)."""

    kind: np.ndarray  # int8, per public node
    child_start: np.ndarray  # int32 [n + 1]
    ctx: np.ndarray  # int32, chance context
    info_base: np.ndarray  # int64, first information set of a decision node
    seq_base: np.ndarray  # int64, first sequence of a decision node
    row_of: np.ndarray  # int32 [2, C, nmax]: row of a private state in its context
    joint: np.ndarray  # float64 [C, n0, n1]
    deal: np.ndarray  # float64 [n0 * n1]: the root context's joint weights, flat
    term_index: np.ndarray  # int64, per public node: its terminal's index (-1 elsewhere)
    term_ctx: np.ndarray
    term_rule: np.ndarray
    term_value: np.ndarray
    term_q: np.ndarray
    term_face: np.ndarray
    term_miss: np.ndarray
    rank: np.ndarray  # int64 [2, C, nmax]
    counts: np.ndarray  # int64 [2, faces, nmax]
    seq_start: np.ndarray  # per information set (what absorb_touched reads)
    num_actions: np.ndarray


class PublicWork(NamedTuple):
    """Scratch arrays of the fused pass: :class:`SampleWork`'s, plus the information set met
    at each visited decision node."""

    order: np.ndarray
    pick: np.ndarray
    q: np.ndarray
    ri: np.ndarray
    val: np.ndarray
    stamp: np.ndarray
    touched: np.ndarray
    info: np.ndarray


@njit(cache=True)
def _draw_chance(tree, h, x0, x1, u):
    """The child of public chance node ``h`` drawn with probabilities ``W_child[x0, x1] /
    W_h[x0, x1]`` (:func:`draw`'s rule, the same arithmetic as the deal's node arrays)."""
    joint, ctx = tree.joint, tree.ctx
    parent_w = joint[ctx[h], x0, x1]
    c0, c1 = tree.child_start[h], tree.child_start[h + 1]
    acc = 0.0
    last = c0
    for c in range(c0, c1):
        p = joint[ctx[c], x0, x1] / parent_w if parent_w > 0.0 else 0.0
        if p > 0.0:
            acc += p
            last = c
            if u < acc:
                return c
    return last


@njit(cache=True)
def _terminal_utility(tree, h, x0, x1):
    """Player 0's payoff at public terminal ``h`` for the deal ``(x0, x1)`` (its rule)."""
    z = tree.term_index[h]
    rule = tree.term_rule[z]
    value = tree.term_value[z]
    if rule == FOLD_RULE:
        return value
    if rule == SHOWDOWN_RULE:
        c = tree.term_ctx[z]
        r0, r1 = tree.rank[0, c, x0], tree.rank[1, c, x1]
        return value if r0 > r1 else (-value if r0 < r1 else 0.0 * value)
    f = tree.term_face[z]
    if tree.counts[0, f, x0] + tree.counts[1, f, x1] >= tree.term_q[z]:
        return value
    return tree.term_miss[z]


@njit(cache=True)
def _decision(tree, h, kd, x0, x1, work):
    """Information set and first sequence of decision node ``h`` for the deal (recorded in
    ``work.info``)."""
    x = x0 if kd == 0 else x1
    row = tree.row_of[kd, tree.ctx[h], x]
    work.info[h] = tree.info_base[h] + row
    na = tree.child_start[h + 1] - tree.child_start[h]
    return tree.seq_base[h] + row * na, na


@njit(cache=True)
def _public_expand_cs(player, weight, x0, x1, tree, strategy, avg, rng, work):
    """Chance sampling over the deal's public nodes (:func:`_expand_cs`'s sweep)."""
    kind, child_start = tree.kind, tree.child_start
    order, pick, q, ri = work.order, work.pick, work.q, work.ri
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
        if kd == KIND_CHANCE:
            c = _draw_chance(tree, h, x0, x1, uniform(rng))
            pick[h] = c
            q[c] = q[h]
            ri[c] = ri[h]
            order[n] = c
            n += 1
            continue
        c0 = child_start[h]
        s0, na = _decision(tree, h, kd, x0, x1, work)
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
def _public_expand_sampled(scheme, player, weight, epsilon, beta, tau, x0, x1, tree, strategy,
                           avg, rng, work):
    """ES / OS / AS over the deal's public nodes (:func:`_expand_sampled`'s sweep)."""
    kind, child_start = tree.kind, tree.child_start
    order, pick, q, val = work.order, work.pick, work.q, work.val
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
        if kd == KIND_CHANCE:
            c = _draw_chance(tree, h, x0, x1, uniform(rng))
            pick[h] = c
            q[c] = q[h]
            order[n] = c
            n += 1
            continue
        c0 = child_start[h]
        s0, na = _decision(tree, h, kd, x0, x1, work)
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
            u = uniform(rng)
            if u < epsilon:
                a = min(int(u / epsilon * na), na - 1)
            else:
                a = draw(strategy, s0, s0 + na, (u - epsilon) / (1.0 - epsilon))
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
def _public_backup(player, cs, n, x0, x1, tree, strategy, inst, work, pass_id):
    """:func:`_backup` over the deal's visited public nodes."""
    kind, child_start, seq_start = tree.kind, tree.child_start, tree.seq_start
    order, pick, q, val, stamp, touched = (work.order, work.pick, work.q, work.val,
                                           work.stamp, work.touched)
    sign = 1.0 if player == 0 else -1.0
    nt = 0
    for k in range(n - 1, -1, -1):
        h = order[k]
        kd = kind[h]
        if kd == KIND_TERMINAL:
            u = _terminal_utility(tree, h, x0, x1)
            val[h] = sign * u if cs else sign * u / q[h]
        elif kd == KIND_CHANCE or (kd != player and pick[h] >= 0):
            val[h] = val[pick[h]]
        else:
            info = work.info[h]
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
def public_sampled_pass(scheme, player, weight, epsilon, beta, tau, tree, strategy, avg, rng,
                        inst, work, pass_id):
    """One sampled pass on the public tree: draw the deal ``(x0, x1)`` from the joint
    distribution, then :func:`rcfr.solvers.sampling.sampled_pass`'s scheme over the public
    nodes with the deal's information sets, chance probabilities and payoffs read on the way.
    Returns ``(public nodes visited, information sets touched)``."""
    k = draw(tree.deal, 0, tree.deal.shape[0], uniform(rng))
    n1 = tree.joint.shape[2]
    x0, x1 = k // n1, k % n1
    if scheme == CS:
        n = _public_expand_cs(player, weight, x0, x1, tree, strategy, avg, rng, work)
    else:
        n = _public_expand_sampled(scheme, player, weight, epsilon, beta, tau, x0, x1, tree,
                                   strategy, avg, rng, work)
    nt = _public_backup(player, scheme == CS, n, x0, x1, tree, strategy, inst, work, pass_id)
    return n, nt


@njit(cache=True)
def run_public_sampled(scheme, max_iters, node_budget, t0, avg_power, deal_depth, rule,
                       link_kind, link_param, epsilon, beta, tau, tree, bounds, seq_bounds,
                       regrets, prediction, values, strategy, avg, rng, counter, inst, work):
    """:func:`rcfr.solvers.sampling.run_sampled` with the public pass: iterations entirely in
    numba, each pass counting ``deal_depth`` dealing chance nodes plus the public nodes it
    visits.  Returns ``(iterations, histories visited)``."""
    dense = rule.kind != PLAIN and rule.kind != CLIPPED
    it = 0
    nodes = 0
    while it < max_iters and nodes < node_budget:
        t = t0 + it + 1
        weight = float(t) ** avg_power
        for p in range(2):
            counter[0] += 1
            if dense:
                for s in range(seq_bounds[p], seq_bounds[p + 1]):
                    inst[s] = 0.0
            n, nt = public_sampled_pass(scheme, p, weight, epsilon, beta, tau, tree, strategy,
                                        avg, rng, inst, work, counter[0])
            nodes += n + deal_depth
            absorb_touched(p, t, nt, work.touched, inst, rule, link_kind, link_param, tree,
                           bounds, seq_bounds, regrets, prediction, values, strategy)
        it += 1
    return it, nodes


def public_arrays(tree: PublicTree) -> PublicSampled:
    T = tree.arrays
    term_index = np.full(tree.num_public_nodes, -1, dtype=np.int64)
    term_index[tree.terminal_nodes] = np.arange(tree.terminal_nodes.size)
    return PublicSampled(
        tree.node_kind, tree.node_child_start, tree.node_ctx, tree.node_info_base,
        tree.node_seq_base, T.row_of, T.joint, np.ascontiguousarray(T.joint[0].ravel()),
        term_index, T.term_ctx, T.term_rule, T.term_value, T.term_q, T.term_face, T.term_miss,
        T.rank, T.counts, tree.infoset_seq_start, tree.infoset_num_actions)


class PublicSampledPass:
    """A sampled pass over the public tree (a :class:`rcfr.solvers.loop.TreePass`); one
    player per pass, the deal drawn from the pass's SplitMix64 state; fused with the tabular
    estimator (:func:`run_public_sampled`)."""

    def __init__(self, tree: PublicTree, scheme: int, epsilon: float, beta: float, tau: float,
                 seed: int | None) -> None:
        self.tree = tree
        self.scheme = scheme
        self.epsilon, self.beta, self.tau = epsilon, beta, tau
        self.rng = seed_state(seed)
        self.counter = np.zeros(1, dtype=np.int64)
        self.deal_depth = int(tree.structure.deal_depth)
        self.arrays = public_arrays(tree)
        n = tree.num_public_nodes
        self.work = PublicWork(np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                               np.ones(n), np.ones(n), np.zeros(n),
                               np.zeros(tree.num_infosets, dtype=np.int64),
                               np.zeros(tree.num_infosets, dtype=np.int64),
                               np.zeros(n, dtype=np.int64))
        S = tree.num_sequences
        self.bounds = np.array([0, tree.num_infosets_per_player[0], tree.num_infosets],
                               dtype=np.int64)
        self.seq_bounds = np.array([0, tree.num_sequences_per_player[0], S], dtype=np.int64)

    def run(self, players, strategy, weight, avg, inst) -> int:
        (player,) = players
        inst[:] = 0.0
        self.counter[0] += 1
        n, _ = public_sampled_pass(self.scheme, player, weight, self.epsilon, self.beta,
                                   self.tau, self.arrays, strategy, avg, self.rng, inst,
                                   self.work, self.counter[0])
        return int(n) + self.deal_depth

    def fuses(self, rule) -> bool:
        return True

    def run_fused(self, solver, max_iters: int, node_budget: int) -> None:
        est = solver.estimator_
        its, nodes = run_public_sampled(
            self.scheme, max_iters, node_budget, solver.iteration, solver.avg_power_,
            self.deal_depth, solver.rule_.params, solver.link_.kind, solver.link_.param,
            self.epsilon, self.beta, self.tau, self.arrays, self.bounds, self.seq_bounds,
            est.regrets, est.prediction, est.values_, solver.strategy_, solver.avg_weights_,
            self.rng, self.counter, solver._inst, self.work)
        solver.iteration += int(its)
        solver.nodes_visited += int(nodes)

    # -- the reference: the deal's history-form node arrays --------------------------------
    def deal_arrays(self, x0: int, x1: int) -> SampledTree:
        """The history form's node arrays of the histories that follow the deal ``(x0, x1)``
        (a sweep of the public nodes): :func:`rcfr.solvers.sampling.sampled_pass` over them
        is the pass that :func:`public_sampled_pass` computes without them."""
        t, T = self.tree, self.tree.arrays
        n = t.num_public_nodes
        kind, ctx, parent = t.node_kind, t.node_ctx, t.node_parent
        infoset = np.full(n, -1, dtype=np.int32)
        for p, x in ((0, x0), (1, x1)):
            u = np.flatnonzero(kind == p)
            infoset[u] = t.node_info_base[u] + T.row_of[p, ctx[u], x]
        prob = np.ones(n)
        v = np.flatnonzero((parent >= 0) & (kind[np.maximum(parent, 0)] == KIND_CHANCE))
        if v.size:
            parent_w = T.joint[ctx[parent[v]], x0, x1]
            prob[v] = np.divide(T.joint[ctx[v], x0, x1], parent_w, out=np.zeros(v.size),
                                where=parent_w > 0)
        z = t.terminal_nodes
        c = T.term_ctx
        rule, value = T.term_rule, T.term_value
        showdown = value * np.sign(T.rank[0, c, x0] - T.rank[1, c, x1])
        held = T.counts[0, T.term_face, x0] + T.counts[1, T.term_face, x1] >= T.term_q
        util = np.zeros(n)
        util[z] = np.where(rule == FOLD_RULE, value,
                           np.where(rule == SHOWDOWN_RULE, showdown,
                                    np.where(held, value, T.term_miss)))
        return SampledTree(kind, t.node_child_start, infoset, prob, t.infoset_seq_start,
                           t.infoset_num_actions, util)

    def reference_run(self, player: int, strategy, weight, avg, inst) -> int:
        """:meth:`run` through the deal's node arrays and the history form's pass (slow: a
        sweep of the public nodes per pass; for tests)."""
        inst[:] = 0.0
        self.counter[0] += 1
        k = int(draw(self.arrays.deal, 0, self.arrays.deal.shape[0], uniform(self.rng)))
        arrays = self.deal_arrays(*divmod(k, self.arrays.joint.shape[2]))
        n = self.tree.num_public_nodes
        work = SampleWork(np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                          np.ones(n), np.ones(n), np.zeros(n),
                          np.zeros(self.tree.num_infosets, dtype=np.int64),
                          np.zeros(self.tree.num_infosets, dtype=np.int64))
        visited, _ = sampled_pass(self.scheme, player, weight, self.epsilon, self.beta,
                                  self.tau, arrays, strategy, avg, self.rng, inst, work, 1)
        return int(visited) + self.deal_depth


class PublicMCCFRSolver(MCCFRSolver):
    """Monte Carlo CFR (``scheme`` ``"cs"``, ``"es"``, ``"os"``, ``"as"``) on the public tree,
    with :class:`rcfr.solvers.sampling.MCCFRSolver`'s parameters and checks."""

    def __init__(self, game: PublicTree | Any, scheme: str = "es", **options) -> None:
        if not isinstance(game, PublicTree):
            game = compile_public(game)
        super().__init__(game, scheme, **options)

    def _make_pass(self) -> PublicSampledPass:
        if not self.alternating:
            raise RcfrError("Monte Carlo CFR alternates updates (one sampled pass per player); "
                            "simultaneous updates are not supported")
        key, self.epsilon_, self.beta_, self.tau_ = check_parameters(
            self.scheme, self.epsilon, self.beta, self.tau)
        check_rule(key, self.rule_)
        return PublicSampledPass(self.tree, SCHEMES[key], self.epsilon_, self.beta_,
                                 self.tau_, self.seed)

    def _info(self) -> dict[str, Any]:
        return {**super()._info(), "form": "public"}

    def sample_regrets(self, player: int, samples: int = 1) -> np.ndarray:
        """``(samples, num_sequences)`` sampled regrets of ``player``, one row per pass at the
        current strategy (the solver's generator and average strategy are left as they
        were)."""
        self._setup()
        saved = self.pass_.rng.copy()
        avg = self.avg_weights_.copy()
        rows = np.zeros((int(samples), self.tree.num_sequences))
        for k in range(int(samples)):
            self.pass_.run((player,), self.strategy_, 1.0, avg, rows[k])
        self.pass_.rng = saved
        return rows
