"""DREAM (Steinberger, Lerer & Brown 2020), the model-free successor of Deep CFR: outcome
sampling (one trajectory per traversal; the traverser explores, ``epsilon`` uniform, the
opponent and chance play on-policy; Lanctot et al. 2009) with history baselines for variance
reduction (Schmid et al. 2019, VR-MCCFR, eq. 7-9), and the advantage and average networks of
Deep CFR (:class:`~rcfr.solvers.deep.deep_cfr.DeepCFRSolver`).

Along a sampled trajectory, bottom-up, the baseline-corrected value of every action of a
history ``h`` is ``u(h, a) = b(h, a) + [a = a*] (u(h a*) - b(h, a*)) / xi(h, a*)`` (``a*`` the
sampled action, ``xi`` its sampling probability) and ``u(h) = sum_a pi(h, a) u(h, a)``; the
traverser's advantage row at ``h`` is ``(u(h, a) - u(h)) / xi_i(h)`` (``xi_i(h)``: the
traverser's own sampling probability of reaching ``h``, which makes the rows' sum over a
traversal an unbiased estimate of the counterfactual regrets), and an opponent information set
on the trajectory gives a strategy row weighted by ``1 / xi_i(h)``.  After the values are
computed, the baseline of each sampled action moves toward its sampled value (an exponential
average with rate ``baseline_rate``; the baseline never depends on the sample it corrects, so
the estimates stay unbiased).

This is the smaller version of DREAM: the baseline is learned as a table over the histories'
actions (the learned history baseline of VR-MCCFR) rather than DREAM's Q-network over both
players' observations, so it needs one node per history (the history form); the advantage and
average networks are Deep CFR's, trained the same way.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ...core.errors import RcfrError
from ...forms.base import KIND_CHANCE, KIND_TERMINAL, Form
from ...forms.sampling import draw, explore, seed_state, uniform
from .deep_cfr import DEFAULTS as DEEP_DEFAULTS
from .deep_cfr import DeepCFRSolver

DEFAULTS = {**DEEP_DEFAULTS, "epsilon": 0.5, "baseline_rate": 0.2}


@njit(cache=True)
def tree_depth(kind, child_start):
    """The number of decisions and chance events on the longest root-to-terminal path."""
    n = kind.shape[0]
    depth = np.zeros(n, dtype=np.int64)
    stack = np.zeros(n, dtype=np.int64)
    top = 1
    best = 0
    while top > 0:
        top -= 1
        h = stack[top]
        if kind[h] == KIND_TERMINAL:
            best = max(best, depth[h])
            continue
        for c in range(child_start[h], child_start[h + 1]):
            depth[c] = depth[h] + 1
            stack[top] = c
            top += 1
    return best


@njit(cache=True)
def dream_traversals(count, player, epsilon, rate, kind, child_start, node_infoset, chance_prob,
                     seq_start, util, strategy, baseline, rng, info_lo, opp_lo, path_node,
                     path_pick, path_prob, path_xi, vha, adv_info, adv_rows, st_info, st_rows,
                     st_weight):
    """``count`` outcome-sampling trajectories for ``player`` with baseline correction (module
    docstring); returns (advantage rows, strategy rows, histories visited)."""
    sign = 1.0 if player == 0 else -1.0
    width = adv_rows.shape[1]
    na_rows = 0
    ns_rows = 0
    nodes = 0
    for _ in range(count):
        h = 0
        d = 0
        xi = 1.0
        while kind[h] != KIND_TERMINAL:
            c0 = child_start[h]
            na = child_start[h + 1] - c0
            path_node[d] = h
            path_xi[d] = xi
            if kind[h] == KIND_CHANCE:
                a = draw(chance_prob, c0, c0 + na, uniform(rng))
                prob = chance_prob[c0 + a]
            else:
                info = node_infoset[h]
                s0 = seq_start[info]
                if kind[h] == player:
                    a = explore(strategy, s0, na, epsilon, uniform(rng))
                    prob = epsilon / na + (1.0 - epsilon) * strategy[s0 + a]
                    xi *= prob
                else:
                    a = draw(strategy, s0, s0 + na, uniform(rng))
                    prob = strategy[s0 + a]
                    st_info[ns_rows] = info - opp_lo
                    st_weight[ns_rows] = 1.0 / xi
                    for j in range(width):
                        st_rows[ns_rows, j] = strategy[s0 + j] if j < na else 0.0
                    ns_rows += 1
            path_pick[d] = a
            path_prob[d] = prob
            d += 1
            h = c0 + a
        v = sign * util[h]
        nodes += d + 1
        for k in range(d - 1, -1, -1):
            h = path_node[k]
            c0 = child_start[h]
            na = child_start[h + 1] - c0
            a = path_pick[k]
            for j in range(na):
                vha[j] = sign * baseline[c0 + j]
            vha[a] += (v - sign * baseline[c0 + a]) / path_prob[k]
            vh = 0.0
            if kind[h] == KIND_CHANCE:
                for j in range(na):
                    vh += chance_prob[c0 + j] * vha[j]
            else:
                s0 = seq_start[node_infoset[h]]
                for j in range(na):
                    vh += strategy[s0 + j] * vha[j]
                if kind[h] == player:
                    adv_info[na_rows] = node_infoset[h] - info_lo
                    for j in range(width):
                        adv_rows[na_rows, j] = (vha[j] - vh) / path_xi[k] if j < na else 0.0
                    na_rows += 1
            baseline[c0 + a] += rate * (sign * v - baseline[c0 + a])
            v = vh
    return na_rows, ns_rows, nodes


class DREAMSolver(DeepCFRSolver):
    """DREAM with a tabular history baseline (module docstring); the options of
    :class:`DeepCFRSolver` plus ``epsilon`` (the traverser's exploration) and
    ``baseline_rate``."""

    name = "dream"

    def __init__(self, game: Form | Any, *, seed: int | None = None, epsilon: float | None = None,
                 baseline_rate: float | None = None, **options: Any) -> None:
        super().__init__(game, seed=seed, **options)
        self.options["epsilon"] = DEFAULTS["epsilon"] if epsilon is None else float(epsilon)
        self.options["baseline_rate"] = (DEFAULTS["baseline_rate"] if baseline_rate is None
                                         else float(baseline_rate))
        if not 0 < self.options["epsilon"] <= 1:
            raise RcfrError(f"--epsilon must be in (0, 1] for dream, got {epsilon!r}")
        if not 0 < self.options["baseline_rate"] <= 1:
            raise RcfrError(f"baseline_rate must be in (0, 1], got {baseline_rate!r}")
        if self.options["scheme"] != "es":
            raise RcfrError("dream samples outcomes; it takes no scheme")

    def _make_pass(self, seed: int) -> Any:
        t = self.tree
        if not t.history_nodes:
            raise RcfrError("dream walks histories (its baseline is per history); compile "
                            "the history form (--form history)")
        self.arrays_ = (np.asarray(t.node_kind), np.asarray(t.node_child_start),
                        np.asarray(t.node_infoset), np.asarray(t.node_chance_prob))
        util = np.zeros(t.num_nodes)
        util[t.terminal_nodes] = t.terminal_utility
        self.util_ = util
        self.baseline_ = np.zeros(t.num_nodes)  # player 0's value of each history
        self.depth_ = int(tree_depth(self.arrays_[0], self.arrays_[1]))
        self.branching_ = int(np.diff(self.arrays_[1]).max())  # chance nodes included
        self.rng_state_ = seed_state(seed)
        return None

    def _traverse(self, p: int, t: int) -> None:
        tree, o = self.tree, self.options
        count, W, D = int(o["traversals"]), self.width_, max(self.depth_, 1)
        kind, child_start, node_infoset, chance_prob = self.arrays_
        adv_info = np.zeros(count * D, dtype=np.int32)
        adv_rows = np.zeros((count * D, W))
        st_info = np.zeros(count * D, dtype=np.int32)
        st_rows = np.zeros((count * D, W))
        st_weight = np.zeros(count * D)
        path = [np.zeros(D, dtype=np.int64) for _ in range(2)]
        n_adv, n_st, nodes = dream_traversals(
            count, p, float(o["epsilon"]), float(o["baseline_rate"]), kind, child_start,
            node_infoset, chance_prob, tree.infoset_seq_start, self.util_, self.strategy_,
            self.baseline_, self.rng_state_, self.bounds_[p], self.bounds_[1 - p], path[0],
            path[1], np.zeros(D), np.zeros(D), np.zeros(self.branching_), adv_info, adv_rows,
            st_info, st_rows, st_weight)
        self.nodes_visited += int(nodes)
        self.adv_mem_[p].add(adv_info[:n_adv], t, adv_rows[:n_adv], np.ones(n_adv), self.rng_)
        self.strat_mem_[1 - p].add(st_info[:n_st], t, st_rows[:n_st], st_weight[:n_st],
                                   self.rng_)

    def _config(self) -> dict[str, Any]:
        return super()._config()

    def _extra_state(self) -> dict[str, np.ndarray]:
        return {"baseline": self.baseline_, "dream_rng": self.rng_state_}

    def _load_extra_state(self, arrays: dict[str, Any]) -> None:
        baseline = np.array(arrays["baseline"], dtype=np.float64)
        state = np.array(arrays["dream_rng"], dtype=np.uint64)
        if baseline.shape != self.baseline_.shape or state.shape != self.rng_state_.shape:
            raise ValueError("shape")
        self.baseline_, self.rng_state_ = baseline, state
