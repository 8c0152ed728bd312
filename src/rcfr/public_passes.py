"""Passes over the public tree (:mod:`rcfr.public_tree`): terminal values by structured rules,
and full-width vector-form CFR.

Only the terminal sweep differs from the history form: it runs per *public* terminal over
vectors of private states instead of per history.  Realization plans, the backward sweep
(counterfactual regrets or a best response), links and averaging are the history form's
sequence-form kernels, since the public form keeps the sequence contract.  Vector-form CFR is
Zinkevich et al.'s (2007) CFR computed as in Johanson et al. (2012, "Efficient Nash equilibrium
approximation through Monte Carlo counterfactual regret minimization", sec. 3: public chance
sampling without the sampling): one walk of the public tree per player and iteration.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from . import kernels as K
from .errors import RcfrError
from .public_tree import FOLD_RULE, MATRIX_RULE, SHOWDOWN_RULE, PublicTree, compile_public
from .solvers.loop import (
    ALGORITHMS,
    CFRSolver,
    FullTree,
    FullWork,
    absorb,
    accumulate_average,
)


@njit(cache=True, inline="always")
def _payoff(rule, value, miss, q, face, x0, x1, c, rank, counts, matrix):
    """Player 0's payoff at a terminal of ``rule`` with private states ``x0``, ``x1``."""
    if rule == FOLD_RULE:
        return value
    if rule == SHOWDOWN_RULE:
        r0 = rank[0, c, x0]
        r1 = rank[1, c, x1]
        return value if r0 > r1 else (-value if r0 < r1 else 0.0)
    if rule == MATRIX_RULE:
        return value * matrix[c, x0, x1]
    return value if counts[0, face, x0] + counts[1, face, x1] >= q else miss


@njit(cache=True, inline="always")
def _dense_values(player, c, rule, value, miss, q, face, ro, joint, rank, counts, matrix, v):
    """``v[x] = sum_x' W[x, x'] u(x, x') ro[x']``: the n0 x n1 reference evaluation."""
    sign = 1.0 if player == 0 else -1.0
    for x in range(v.shape[0]):
        total = 0.0
        for y in range(ro.shape[0]):
            if ro[y] != 0.0:
                x0, x1 = (x, y) if player == 0 else (y, x)
                u = _payoff(rule, value, miss, q, face, x0, x1, c, rank, counts, matrix)
                total += joint[c, x0, x1] * u * ro[y]
        v[x] = sign * total


@njit(cache=True)
def terminal_values(player, plan, T, dense, s_lo, s_hi, acc):
    """``acc[s]``: sum over the terminals whose last ``player`` sequence is ``s`` of the
    player's payoff times chance and opponent reach (``acc`` padded, as
    :func:`rcfr.kernels.terminal_values` fills it)."""
    _sweep(player, plan, dense, s_lo, s_hi, T.num_private, T.exclusive, T.term_ctx,
           T.term_rule, T.term_value, T.term_miss, T.term_q, T.term_face, T.term_seq_base,
           T.term_stride, T.term_row_ctx, T.weight, T.valid, T.row_of, T.full, T.rank,
           T.rank_order, T.num_valid, T.joint, T.counts, T.max_count, T.matrix, T.pay, acc)


@njit(cache=True)
def _sweep(player, plan, dense, s_lo, s_hi, num_private, exclusive, term_ctx, term_rule,
           term_value, term_miss, term_q, term_face, tsb, tst, trc, weight, valid, row_of, full,
           rank, rank_order, num_valid, joint, counts, max_count, matrix, pay, acc):
    """:func:`terminal_values` on plain arrays (numba handles them far faster than fields
    of a large named tuple inside the loop)."""
    for s in range(s_lo, s_hi):
        acc[s] = 0.0
    empty = acc.shape[0] - 2 + player
    acc[empty] = 0.0
    opp = 1 - player
    ro = np.empty(num_private[opp])
    v = np.zeros(num_private[player])
    top = max_count[opp]
    held = np.empty(top + 2)
    w_opp = valid[opp] if dense else weight[opp]
    w_own = weight[player]
    sign = 1.0 if player == 0 else -1.0
    n_opp = ro.shape[0]
    n_own = v.shape[0]
    empty_reach = plan[plan.shape[0] - 2 + opp]
    for z in range(term_ctx.shape[0]):
        c = term_ctx[z]
        base = tsb[opp, z]
        stride = tst[opp, z]
        total = 0.0
        if base < 0:
            for x in range(n_opp):
                ro[x] = w_opp[c, x] * empty_reach
                total += ro[x]
        elif full[opp, trc[opp, z]]:  # every private state possible, each its own row
            for x in range(n_opp):
                ro[x] = w_opp[c, x] * plan[base + x * stride]
                total += ro[x]
        else:
            rc = trc[opp, z]
            for x in range(n_opp):
                wx = w_opp[c, x]
                ro[x] = 0.0 if wx == 0.0 else wx * plan[base + row_of[opp, rc, x] * stride]
                total += ro[x]
        rule = term_rule[z]
        if dense:
            _dense_values(player, c, rule, term_value[z], term_miss[z], term_q[z],
                          term_face[z], ro, joint, rank, counts, matrix, v)
        elif rule == FOLD_RULE:  # a scalar times the opponent's reach (less the one card
            # it cannot hold when both were dealt from one deck)
            scale = sign * term_value[z]
            if exclusive:
                for x in range(n_own):
                    v[x] = w_own[c, x] * scale * (total - ro[x])
            else:
                for x in range(n_own):
                    v[x] = w_own[c, x] * scale * total
        elif rule == MATRIX_RULE:  # the stake times the payoff matrix (less the pairs one
            # deck cannot deal): a matrix-vector product with the opponent's reach
            stake = sign * term_value[z]
            for x in range(n_own):
                total = 0.0
                for y in range(n_opp):
                    if player == 0:
                        total += pay[c, x, y] * ro[y]
                    else:
                        total += pay[c, y, x] * ro[y]
                v[x] = stake * total * w_own[c, x]
        elif rule == SHOWDOWN_RULE:  # the higher rank wins the stake: running sums over
            # both players' states sorted by rank, O(n0 + n1); a card the opponent cannot hold
            # ties with itself, so it drops out
            stake = term_value[z]
            m_own = num_valid[player, c]
            m_opp = num_valid[opp, c]
            lt = 0
            le = 0
            s_lt = 0.0
            s_le = 0.0
            for i in range(m_own):
                x = rank_order[player, c, i]
                r = rank[player, c, x]
                while lt < m_opp and rank[opp, c, rank_order[opp, c, lt]] < r:
                    s_lt += ro[rank_order[opp, c, lt]]
                    lt += 1
                while le < m_opp and rank[opp, c, rank_order[opp, c, le]] <= r:
                    s_le += ro[rank_order[opp, c, le]]
                    le += 1
                v[x] = w_own[c, x] * stake * (s_lt - (total - s_le))
        else:  # liar's dice: the bid holds (player 0 gets ``hit``, else ``miss``) if both
            # players' dice for ``face`` reach ``q``; held[k]: the opponent's reach with at
            # least k such dice, one running sum per count (O(n0 + n1 * max count))
            face = term_face[z]
            q = term_q[z]
            hit = sign * term_value[z]
            miss = sign * term_miss[z]
            held[0] = total
            for k in range(1, top + 1):
                s = 0.0
                for y in range(n_opp):
                    if counts[opp, face, y] >= k:
                        s += ro[y]
                held[k] = s
            held[top + 1] = 0.0
            for x in range(n_own):
                need = min(max(q - counts[player, face, x], 0), top + 1)
                v[x] = w_own[c, x] * (hit * held[need] + miss * (total - held[need]))
        base = tsb[player, z]
        stride = tst[player, z]
        rc = trc[player, z]
        if base < 0:
            for x in range(n_own):
                acc[empty] += v[x] * valid[player, c, x]
        elif full[player, rc]:
            for x in range(n_own):
                acc[base + x * stride] += v[x]
        else:
            for x in range(n_own):
                if valid[player, c, x] != 0.0:
                    acc[base + row_of[player, rc, x] * stride] += v[x]


@njit(cache=True)
def public_pass(p_lo, p_hi, weight, tree, T, dense, strategy, avg, work):
    """Players ``[p_lo, p_hi)`` at the same strategy: their counterfactual regrets into
    ``work.inst`` and ``weight`` times their realization plans into the average-strategy sums
    (:func:`rcfr.solvers.loop.full_width_pass` with the public terminal sweep)."""
    K.realization_plan(strategy, 0, tree.bounds[2], tree.seq_start, tree.num_actions,
                       tree.parent_seq, work.plan)
    for p in range(p_lo, p_hi):
        terminal_values(p, work.plan, T, dense, tree.seq_bounds[p], tree.seq_bounds[p + 1],
                        work.acc)
        K.counterfactual_regrets(p, strategy, tree.bounds[p], tree.bounds[p + 1],
                                 tree.seq_start, tree.num_actions, tree.parent_seq, work.acc,
                                 work.inst)
    for p in range(p_lo, p_hi):
        accumulate_average(work.plan, weight, tree.seq_bounds[p], tree.seq_bounds[p + 1], avg)


@njit(cache=True)
def run_public(n_iters, t0, alternating, avg_power, rule, link_kind, link_param, tree, T, dense,
               regrets, prediction, values, strategy, avg, work):
    """``n_iters`` iterations of vector-form CFR with any update ``rule``, in the order of
    :func:`rcfr.solvers.loop.run_tabular` (so both forms give the same strategies)."""
    for it in range(n_iters):
        t = t0 + it + 1
        weight = float(t) ** avg_power
        if alternating:
            for p in range(2):
                public_pass(p, p + 1, weight, tree, T, dense, strategy, avg, work)
                absorb(p, t, rule, link_kind, link_param, tree, work.inst, regrets, prediction,
                       values, strategy)
        else:
            public_pass(0, 2, weight, tree, T, dense, strategy, avg, work)
            for p in range(2):
                absorb(p, t, rule, link_kind, link_param, tree, work.inst, regrets, prediction,
                       values, strategy)


class PublicFullWidthPass:
    """The exact pass over the public tree (a :class:`rcfr.solvers.loop.TreePass`)."""

    def __init__(self, tree: PublicTree) -> None:
        self.tree = tree
        self.dense = tree.pairing == "dense"
        self.arrays = FullTree(
            np.array([0, tree.num_infosets_per_player[0], tree.num_infosets], dtype=np.int64),
            np.array([0, tree.num_sequences_per_player[0], tree.num_sequences], dtype=np.int64),
            tree.infoset_seq_start, tree.infoset_num_actions, tree.infoset_parent_seq,
            np.zeros((2, 0), dtype=np.int32), np.zeros(0))  # no history terminals
        S = tree.num_sequences
        self.work = FullWork(K.padded(S), np.zeros(S + 2), np.zeros(S))

    def run(self, players, strategy, weight, avg, inst) -> int:
        public_pass(players[0], players[-1] + 1, weight, self.arrays, self.tree.arrays,
                    self.dense, strategy, avg, self.work._replace(inst=inst))
        return len(players) * self.tree.num_nodes

    def fuses(self, rule) -> bool:
        return True

    def run_fused(self, solver, max_iters: int, node_budget: int) -> None:
        per = 2 * self.tree.num_nodes  # one full pass per player, counted in histories
        iterations = min(max_iters, max(1, -(-node_budget // per)))
        est = solver.estimator_
        run_public(iterations, solver.iteration, solver.alternating, solver.avg_power_,
                   solver.rule_.params, solver.link_.kind, solver.link_.param, self.arrays,
                   self.tree.arrays, self.dense, est.regrets, est.prediction, est.values_,
                   solver.strategy_, solver.avg_weights_, self.work)
        solver.iteration += iterations
        solver.nodes_visited += iterations * per


class PublicCFRSolver(CFRSolver):
    """CFR, CFR+ or any other update rule (``algorithm`` as for
    :class:`rcfr.solvers.loop.CFRSolver`) on the public tree: the shared loop with the
    vector-form pass."""

    def __init__(self, game: PublicTree | Any, algorithm: str = "cfr", **options) -> None:
        if not isinstance(game, PublicTree):
            game = compile_public(game)
        super().__init__(game, algorithm, **options)

    def _make_pass(self) -> PublicFullWidthPass:
        return PublicFullWidthPass(self.tree)

    def _info(self) -> dict[str, Any]:
        return {**super()._info(), "form": "public"}  # files say which form they index


def make_public_solver(tree: PublicTree, algorithm: str, **options):
    """A solver on the public form: a tabular update rule (``cfr``, ``cfr+``, ``lcfr``,
    ``dcfr``, ``pcfr+``, ``pdcfr+``) or Monte Carlo CFR (``cs``, ``es``, ``os``, ``as``), with
    the options and checks of :func:`rcfr.solvers.run.make_solver`."""
    from .public_sampling import PublicMCCFRSolver
    from .solvers.run import make_solver
    from .solvers.sampling import SCHEMES

    key = str(algorithm).strip().lower()
    if key.partition(":")[0] not in ALGORITHMS and key not in SCHEMES:
        raise RcfrError(f"the public form runs {', '.join([*ALGORITHMS, *SCHEMES])}, not "
                        f"{algorithm!r}; use --form history")
    s = make_solver(tree, key, **options)  # validates the options, resolves the rule
    if key in SCHEMES:
        if s.estimator is not None:
            raise RcfrError("regression estimators need the history form; use --form history")
        return PublicMCCFRSolver(tree, key, epsilon=s.epsilon, beta=s.beta, tau=s.tau,
                                 seed=s.seed, rule=s.rule, link=s.link, averaging=s.averaging,
                                 plus=s.plus, alternating=s.alternating)
    return PublicCFRSolver(tree, s.rule, alternating=s.alternating, averaging=s.averaging,
                           link=s.link, seed=s.seed)
