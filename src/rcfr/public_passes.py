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
from .links import POLYNOMIAL, apply_link
from .public_tree import FOLD_RULE, SHOWDOWN_RULE, PublicTree, compile_public
from .solvers.loop import CFRSolver

# update rules of the vector-form pass (issue 10 turns these into plug-ins for both forms)
RULE_CFR = 0  # cumulative regrets (Zinkevich et al. 2007)
RULE_CFR_PLUS = 1  # regret-matching+: Q-regrets clipped at zero (Tammelin 2014)


@njit(cache=True)
def rule_update(rule, inst, s_lo, s_hi, regrets):
    """Add the instantaneous regrets of sequences ``[s_lo, s_hi)`` by ``rule``."""
    for s in range(s_lo, s_hi):
        v = regrets[s] + inst[s]
        if rule == RULE_CFR_PLUS and v < 0.0:
            v = 0.0
        regrets[s] = v


@njit(cache=True, inline="always")
def _payoff(rule, value, miss, q, face, x0, x1, c, rank, counts):
    """Player 0's payoff at a terminal of ``rule`` with private states ``x0``, ``x1``."""
    if rule == FOLD_RULE:
        return value
    if rule == SHOWDOWN_RULE:
        r0 = rank[0, c, x0]
        r1 = rank[1, c, x1]
        return value if r0 > r1 else (-value if r0 < r1 else 0.0)
    return value if counts[0, face, x0] + counts[1, face, x1] >= q else miss


@njit(cache=True, inline="always")
def _dense_values(player, c, rule, value, miss, q, face, ro, joint, rank, counts, v):
    """``v[x] = sum_x' W[x, x'] u(x, x') ro[x']``: the n0 x n1 reference evaluation."""
    sign = 1.0 if player == 0 else -1.0
    for x in range(v.shape[0]):
        total = 0.0
        for y in range(ro.shape[0]):
            if ro[y] != 0.0:
                x0, x1 = (x, y) if player == 0 else (y, x)
                u = _payoff(rule, value, miss, q, face, x0, x1, c, rank, counts)
                total += joint[c, x0, x1] * u * ro[y]
        v[x] = sign * total


@njit(cache=True)
def terminal_values(player, plan, T, dense, s_lo, s_hi, acc):
    """``acc[s]``: sum over the terminals whose last ``player`` sequence is ``s`` of the
    player's payoff times chance and opponent reach (``acc`` padded, as
    :func:`rcfr.kernels.terminal_values` fills it)."""
    _sweep(player, plan, dense, s_lo, s_hi, T.num_private, T.exclusive, T.term_ctx,
           T.term_rule, T.term_value, T.term_miss, T.term_q, T.term_face, T.term_seq_base,
           T.term_stride, T.term_row_ctx, T.weight, T.valid, T.row_of, T.rank, T.rank_order,
           T.num_valid, T.joint, T.counts, T.max_count, acc)


@njit(cache=True)
def _sweep(player, plan, dense, s_lo, s_hi, num_private, exclusive, term_ctx, term_rule,
           term_value, term_miss, term_q, term_face, tsb, tst, trc, weight, valid, row_of,
           rank, rank_order, num_valid, joint, counts, max_count, acc):
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
        elif num_valid[opp, trc[opp, z]] == n_opp:  # every private state possible
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
                          term_face[z], ro, joint, rank, counts, v)
        elif rule == FOLD_RULE:  # a scalar times the opponent's reach (less the one card
            # it cannot hold when both were dealt from one deck)
            scale = sign * term_value[z]
            if exclusive:
                for x in range(n_own):
                    v[x] = w_own[c, x] * scale * (total - ro[x])
            else:
                for x in range(n_own):
                    v[x] = w_own[c, x] * scale * total
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
        elif num_valid[player, rc] == n_own:
            for x in range(n_own):
                acc[base + x * stride] += v[x]
        else:
            for x in range(n_own):
                if valid[player, c, x] != 0.0:
                    acc[base + row_of[player, rc, x] * stride] += v[x]


@njit(cache=True)
def run_public(n_iters, t0, rule, alternating, avg_power, link_kind, link_param, bounds,
               seq_bounds, seq_start, num_actions, parent_seq, T, dense, regrets, strategy,
               avg, plan, acc):
    """``n_iters`` iterations of vector-form CFR with update ``rule``, in the order of
    :func:`rcfr.solvers.loop.run_tabular` (so both forms give the same strategies)."""
    n_info = bounds[2]
    for it in range(n_iters):
        t = t0 + it + 1
        weight = float(t) ** avg_power
        for group in range(2 if alternating else 1):
            K.realization_plan(strategy, 0, n_info, seq_start, num_actions, parent_seq, plan)
            for p in range(2):
                if not alternating or p == group:
                    terminal_values(p, plan, T, dense, seq_bounds[p], seq_bounds[p + 1], acc)
            for p in range(2):
                if not alternating or p == group:
                    backward_update(p, rule, weight, link_kind, link_param, bounds[p],
                                    bounds[p + 1], seq_start, num_actions, parent_seq, plan,
                                    acc, regrets, strategy, avg)


@njit(cache=True)
def backward_update(player, rule, weight, link_kind, link_param, i_lo, i_hi, seq_start,
                    num_actions, parent_seq, plan, acc, regrets, strategy, avg):
    """One sweep, children before parents, over the player's information sets ``[i_lo, i_hi)``
    that does what :func:`rcfr.kernels.counterfactual_regrets`, ``accumulate_average``,
    :func:`rule_update` and ``apply_link`` do in four (an information set's new strategy is
    set once its value has been taken; its ancestors only read that value), with the same
    arithmetic per sequence."""
    for i in range(i_hi - 1, i_lo - 1, -1):
        start = seq_start[i]
        end = start + num_actions[i]
        v = 0.0
        for s in range(start, end):
            v += strategy[s] * acc[s]
        for s in range(start, end):
            avg[s] += weight * plan[s]
            r = regrets[s] + (acc[s] - v)
            if rule == RULE_CFR_PLUS and r < 0.0:
                r = 0.0
            regrets[s] = r
        if link_kind == POLYNOMIAL and link_param == 2.0:  # regret matching, as apply_link
            total = 0.0
            for s in range(start, end):
                total += regrets[s] if regrets[s] > 0.0 else 0.0
            if total > 0.0:
                for s in range(start, end):
                    strategy[s] = (regrets[s] if regrets[s] > 0.0 else 0.0) / total
            else:
                for s in range(start, end):
                    strategy[s] = 1.0 / (end - start)
        else:
            apply_link(link_kind, link_param, regrets, i, i + 1, seq_start, num_actions,
                       strategy)
        acc[parent_seq[i]] += v
    return acc[acc.shape[0] - 2 + player]


class PublicCFRSolver(CFRSolver):
    """CFR (``"cfr"``) or CFR+ (``"cfr+"``) on the public tree: the shared loop
    (:class:`rcfr.solvers.loop.RegretSolver`: set-up, averaging, policies, checkpoints,
    nodes counted in histories) with the vector-form pass."""

    def __init__(self, game: PublicTree | Any, algorithm: str = "cfr", **options) -> None:
        if not isinstance(game, PublicTree):
            game = compile_public(game)
        super().__init__(game, algorithm, **options)

    def _run_fused(self, iterations: int) -> None:
        t = self.tree
        rule = RULE_CFR_PLUS if self.estimator_.plus else RULE_CFR
        run_public(iterations, self.iteration, rule, self.alternating, self.avg_power_,
                   self.link_.kind, self.link_.param, self.bounds_, self.seq_bounds_,
                   t.infoset_seq_start, t.infoset_num_actions, t.infoset_parent_seq, t.arrays,
                   t.pairing == "dense", self.estimator_.regrets, self.strategy_,
                   self.avg_weights_, self._plan, self._acc)
        self.iteration += iterations
        self.nodes_visited += 2 * iterations * t.num_nodes

    def _info(self) -> dict[str, Any]:
        return {**super()._info(), "form": "public"}  # files say which form they index

    def _step(self) -> None:  # pragma: no cover - the tabular estimator is always fused
        raise RcfrError("the public form runs the tabular estimator only")


def make_public_solver(tree: PublicTree, algorithm: str, **options) -> PublicCFRSolver:
    """A solver on the public form: ``cfr`` or ``cfr+`` (``alternating``, ``averaging``,
    ``link``, ``seed`` as for :class:`rcfr.solvers.loop.CFRSolver`)."""
    key = str(algorithm).lower()
    if key not in ("cfr", "cfr+"):
        raise RcfrError(f"the public form runs cfr and cfr+, not {algorithm!r}; use "
                        "--form history")
    allowed = {"alternating", "averaging", "link", "seed"}
    extra = [k for k, v in options.items() if k not in allowed and v is not None]
    if extra:
        raise RcfrError(f"--{extra[0]} does not apply to {key} on the public form")
    return PublicCFRSolver(tree, key, **{k: v for k, v in options.items() if k in allowed})
