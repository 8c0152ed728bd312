"""The history form's full-width pass (Zinkevich et al. 2007, eq. 7) in sequence form: a
realization plan per player, one sweep over the terminals, one backward sweep over the updating
player's information sets; and the fused tabular loop (:func:`run_tabular`) that runs whole
iterations of the solver loop in numba (:mod:`rcfr.solvers.loop`).

Partial pruning (``prune``, as Brown & Sandholm 2015, "Regret-based pruning in extensive-form
games", review it): a terminal where the opponent's realization weight is exactly zero adds an
exact zero to the updating player's values, so the terminal sweep skips it
(:func:`pruned_terminal_values`).  The sums keep their order and a skipped term is a signed
zero added to a sum that started at +0, so the run is the unpruned one bit for bit.  Nothing
else is skipped: the player's own plan still feeds its average strategy, and the backward
sweep reads every value.  Regret-based pruning (CFR): :func:`run_regret_pruned`,
:mod:`rcfr.forms.history.regret_pruning`."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from ...core import kernels as K
from ...core.compact import absorb_compact, average_compact
from ...core.links import apply_link
from ...core.rules import link_input, rule_update
from ..base import Form
from ..lock import apply_lock
from ..loop_state import PARTIAL, REGRET, Counters, LoopState
from . import regret_pruning as RBP


class FullTree(NamedTuple):
    """The compiled tree's arrays that the full-width pass reads."""

    bounds: np.ndarray  # information sets of player p: [bounds[p], bounds[p + 1])
    seq_bounds: np.ndarray  # sequences of player p: [seq_bounds[p], seq_bounds[p + 1])
    seq_start: np.ndarray
    num_actions: np.ndarray
    parent_seq: np.ndarray
    term_seq: np.ndarray
    term_coef: np.ndarray


class FullWork(NamedTuple):
    """Scratch arrays of the full-width pass (``plan`` and ``acc`` padded)."""

    plan: np.ndarray
    acc: np.ndarray
    inst: np.ndarray


def full_tree(tree: Form) -> FullTree:
    return FullTree(
        np.array([0, tree.num_infosets_per_player[0], tree.num_infosets], dtype=np.int64),
        np.array([0, tree.num_sequences_per_player[0], tree.num_sequences], dtype=np.int64),
        tree.infoset_seq_start, tree.infoset_num_actions, tree.infoset_parent_seq,
        tree.terminal_seq, tree.terminal_coef)


@njit(cache=True)
def accumulate_average(plan, weight, s_lo, s_hi, avg):
    """Add ``weight`` times the player's realization weights to the average-strategy sums."""
    for s in range(s_lo, s_hi):
        avg[s] += weight * plan[s]


@njit(cache=True)
def pruned_terminal_values(player, plan, term_seq, term_coef, s_lo, s_hi, acc):
    """:func:`rcfr.core.kernels.terminal_values` without the terminals where the opponent's
    realization weight is zero (their terms are exact zeros; the others keep their order and
    arithmetic).  Returns how many it skipped."""
    for s in range(s_lo, s_hi):
        acc[s] = 0.0
    acc[acc.shape[0] - 2 + player] = 0.0
    own = term_seq[player]
    opp = term_seq[1 - player]
    sign = 1.0 if player == 0 else -1.0
    skipped = 0
    for z in range(term_coef.shape[0]):
        w = plan[opp[z]]
        if w == 0.0:
            skipped += 1
        else:
            acc[own[z]] += sign * term_coef[z] * w
    return skipped


@njit(cache=True)
def player_regrets(player, strategy, tree, plan, acc, inst, prune, stats):
    """Full-width pass for ``player``: ``inst`` gets its instantaneous counterfactual regrets
    (``plan`` must hold the opponent's realization plan).  Returns the player's value.  With
    ``prune``, partial pruning; ``stats[player]`` then counts the terminals skipped and
    swept (columns 0 and 2; column 1 is regret-based pruning's)."""
    if prune:
        skipped = pruned_terminal_values(player, plan, tree.term_seq, tree.term_coef,
                                         tree.seq_bounds[player], tree.seq_bounds[player + 1],
                                         acc)
        stats[player, 0] += skipped
        stats[player, 2] += tree.term_coef.shape[0]
    else:
        K.terminal_values(player, plan, tree.term_seq, tree.term_coef, tree.seq_bounds[player],
                          tree.seq_bounds[player + 1], acc)
    return K.counterfactual_regrets(player, strategy, tree.bounds[player],
                                    tree.bounds[player + 1], tree.seq_start, tree.num_actions,
                                    tree.parent_seq, acc, inst)


@njit(cache=True)
def full_width_pass(p_lo, p_hi, weight, tree, strategy, avg, work, stale_lo, stale_hi, prune,
                    stats):
    """Players ``[p_lo, p_hi)`` at the same strategy: their regrets into ``work.inst`` and
    ``weight`` times their realization plans into the average-strategy sums.  The realization
    plans of players ``[stale_lo, stale_hi)`` are recomputed; the others' must be current in
    ``work.plan``.  ``prune``: partial pruning, counted in ``stats`` (:func:`player_regrets`)."""
    K.realization_plan(strategy, tree.bounds[stale_lo], tree.bounds[stale_hi], tree.seq_start,
                       tree.num_actions, tree.parent_seq, work.plan)
    for p in range(p_lo, p_hi):
        player_regrets(p, strategy, tree, work.plan, work.acc, work.inst, prune, stats)
    for p in range(p_lo, p_hi):
        accumulate_average(work.plan, weight, tree.seq_bounds[p], tree.seq_bounds[p + 1], avg)


@njit(cache=True)
def absorb(p, t, rule, link_kind, link_param, tree, inst, regrets, prediction, values,
           strategy):
    """Tabular estimator: player ``p``'s regrets by ``rule``, then the link on its sets."""
    absorb_sets(t, rule, link_kind, link_param, tree.bounds[p], tree.bounds[p + 1],
                tree.seq_bounds[p], tree.seq_bounds[p + 1], tree.seq_start, tree.num_actions,
                inst, regrets, prediction, values, strategy)


@njit(cache=True)
def absorb_sets(t, rule, link_kind, link_param, i_lo, i_hi, s_lo, s_hi, seq_start,
                num_actions, inst, regrets, prediction, values, strategy):
    """:func:`absorb` for the information sets ``[i_lo, i_hi)``, whose sequences are
    ``[s_lo, s_hi)``: the rule's update, then the link (each per sequence or per set, so any
    cut of a player's sets into ranges gives the same numbers)."""
    rule_update(rule, t, inst, s_lo, s_hi, regrets, prediction)
    x = link_input(rule, regrets, prediction, s_lo, s_hi, values)
    apply_link(link_kind, link_param, x, i_lo, i_hi, seq_start, num_actions, strategy)


@njit(cache=True)
def run_tabular(n_iters, t0, alternating, avg_power, rule, link_kind, link_param, tree,
                regrets, prediction, values, strategy, avg, work, lock, prune, stats):
    """``n_iters`` iterations of the loop with the tabular estimator, entirely in numba; each
    player's new strategy held to ``lock`` (:mod:`rcfr.forms.lock`; ``prune``: partial
    pruning, counted in ``stats``)."""
    for it in range(n_iters):
        t = t0 + it + 1
        weight = float(t) ** avg_power
        if alternating:  # after the first pass only the last updated player's plan is stale
            for p in range(2):
                first = it == 0 and p == 0
                full_width_pass(p, p + 1, weight, tree, strategy, avg, work,
                                0 if first else 1 - p, 2 if first else 2 - p, prune, stats)
                absorb(p, t, rule, link_kind, link_param, tree, work.inst, regrets, prediction,
                       values, strategy)
                apply_lock(lock, p, strategy)
        else:
            full_width_pass(0, 2, weight, tree, strategy, avg, work, 0, 2, prune, stats)
            for p in range(2):
                absorb(p, t, rule, link_kind, link_param, tree, work.inst, regrets, prediction,
                       values, strategy)
                apply_lock(lock, p, strategy)


@njit(cache=True)
def run_regret_pruned(n_iters, t0, alternating, avg_power, rule, link_kind, link_param, tree,
                      regrets, prediction, values, strategy, avg, work, lock, stats, rp, delta,
                      mark, roots):
    """:func:`run_tabular` for CFR with regret-based pruning
    (:mod:`rcfr.forms.history.regret_pruning`; partial pruning too): each player's pass skips
    its open windows, and after its update windows close (with their catch-up) and open; the
    ``lock`` is held after the update and after the catch-up's re-links."""
    plan, acc, inst = work.plan, work.acc, work.inst
    b, sb = tree.bounds, tree.seq_bounds
    for it in range(n_iters):
        t = t0 + it + 1
        weight = float(t) ** avg_power
        if alternating:  # after the first pass only the last updated player's plan is stale
            for p in range(2):
                first = it == 0 and p == 0
                K.realization_plan(strategy, b[0 if first else 1 - p], b[2 if first else 2 - p],
                                   tree.seq_start, tree.num_actions, tree.parent_seq, plan)
                RBP.pruned_pass(p, strategy, tree, plan, acc, inst, rp, mark, stats)
                accumulate_average(plan, weight, sb[p], sb[p + 1], avg)
                absorb(p, t, rule, link_kind, link_param, tree, inst, regrets, prediction,
                       values, strategy)
                apply_lock(lock, p, strategy)
                if RBP.update_windows(p, t, tree, strategy, regrets, delta, rp, acc, roots, mark,
                                      link_kind, link_param):
                    apply_lock(lock, p, strategy)
        else:
            K.realization_plan(strategy, b[0], b[2], tree.seq_start, tree.num_actions,
                               tree.parent_seq, plan)
            for p in range(2):
                RBP.pruned_pass(p, strategy, tree, plan, acc, inst, rp, mark, stats)
                accumulate_average(plan, weight, sb[p], sb[p + 1], avg)
            for p in range(2):
                absorb(p, t, rule, link_kind, link_param, tree, inst, regrets, prediction,
                       values, strategy)
                apply_lock(lock, p, strategy)
            for p in range(2):
                if RBP.update_windows(p, t, tree, strategy, regrets, delta, rp, acc, roots, mark,
                                      link_kind, link_param):
                    apply_lock(lock, p, strategy)


@njit(cache=True)
def run_compact(n_iters, t0, alternating, avg_power, rule, link_kind, link_param, tree, C, key,
                strategy, work, lock, prune, stats):
    """:func:`run_tabular` on compressed tables (``storage="int16"``,
    :mod:`rcfr.core.compact`; non-predictive rules): the same passes in the same order, each
    player's regrets absorbed and average-strategy sums added with stochastic rounding."""
    plan, acc, inst = work.plan, work.acc, work.inst
    b, ss, na = tree.bounds, tree.seq_start, tree.num_actions
    for it in range(n_iters):
        t = t0 + it + 1
        weight = float(t) ** avg_power
        if alternating:  # after the first pass only the last updated player's plan is stale
            for p in range(2):
                first = it == 0 and p == 0
                K.realization_plan(strategy, b[0 if first else 1 - p], b[2 if first else 2 - p],
                                   ss, na, tree.parent_seq, plan)
                player_regrets(p, strategy, tree, plan, acc, inst, prune, stats)
                average_compact(t, weight, b[p], b[p + 1], ss, na, plan, C, key)
                absorb_compact(t, rule, link_kind, link_param, b[p], b[p + 1], ss, na, inst,
                               strategy, C, key)
                apply_lock(lock, p, strategy)
        else:
            K.realization_plan(strategy, b[0], b[2], ss, na, tree.parent_seq, plan)
            for p in range(2):
                player_regrets(p, strategy, tree, plan, acc, inst, prune, stats)
            average_compact(t, weight, b[0], b[2], ss, na, plan, C, key)
            for p in range(2):
                absorb_compact(t, rule, link_kind, link_param, b[p], b[p + 1], ss, na, inst,
                               strategy, C, key)
                apply_lock(lock, p, strategy)


class FullWidthPass:
    """The exact pass (Zinkevich et al. 2007, eq. 7) over every history, in sequence form."""

    def __init__(self, tree: Form) -> None:
        self.tree = tree
        self.arrays = full_tree(tree)
        S = tree.num_sequences
        self.work = FullWork(K.padded(S), np.zeros(S + 2), np.zeros(S))
        # per player: terminals skipped for the opponent's reach, by regret, and swept
        self.stats = np.zeros((2, 3), dtype=np.int64)
        self._delta = self._mark = None

    def run(self, players, strategy, weight, avg, inst) -> int:
        full_width_pass(players[0], players[-1] + 1, weight, self.arrays, strategy, avg,
                        self.work._replace(inst=inst), 0, 2, False, self.stats)  # (every
        # argument given: numba dispatches a call that omits defaults about ten times slower)
        return len(players) * self.tree.num_nodes

    def fuses(self, rule: Any) -> bool:
        return True

    def run_fused(self, state: LoopState, max_iters: int, node_budget: int) -> Counters:
        per = 2 * self.tree.num_nodes  # one full pass per player
        iterations = min(max_iters, max(1, -(-node_budget // per)))
        partial = state.prune == PARTIAL  # (not by default: a test per terminal costs
        # about what skipping the terminal's multiply-add saves, docs/performance.md)
        if state.prune == REGRET:
            if self._delta is None:
                S = self.tree.num_sequences
                self._delta = np.zeros(S)
                RBP.regret_bounds(self.arrays, self._delta)
                self._mark = (np.zeros(S + 2, dtype=np.int8), np.zeros(S, dtype=np.bool_))
            run_regret_pruned(iterations, state.iteration, state.alternating, state.avg_power,
                              state.rule, state.link_kind, state.link_param, self.arrays,
                              state.regrets, state.prediction, state.values, state.strategy,
                              state.avg_weights, self.work, state.lock, self.stats,
                              state.regret_pruning, self._delta, *self._mark)
        elif state.compact is not None:  # storage="int16"
            run_compact(iterations, state.iteration, state.alternating, state.avg_power,
                        state.rule, state.link_kind, state.link_param, self.arrays,
                        state.compact, state.key, state.strategy, self.work, state.lock,
                        partial, self.stats)
        else:
            run_tabular(iterations, state.iteration, state.alternating, state.avg_power,
                        state.rule, state.link_kind, state.link_param, self.arrays,
                        state.regrets, state.prediction, state.values, state.strategy,
                        state.avg_weights, self.work, state.lock, partial, self.stats)
        return state.advanced(iterations, iterations * per)
