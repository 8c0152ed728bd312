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
on the trajectory gives a strategy row weighted by ``1 / xi_i(h)``.  The baseline never
depends on the sample it corrects, so the estimates stay unbiased whatever it is.

The baseline (``baseline="net"``, the default) is DREAM's learned history-action value
network ``Q(h, a)`` (Steinberger, Lerer & Brown 2020): a perceptron over the
history's features (both players' information-state tensors at ``h`` concatenated where the
game has them; otherwise the acting player's one-hot and each player's features of its latest
information set on the path), giving player 0's value of every action.  It is trained on a
circular memory of the ``(h, a)`` pairs the trajectories visit (both players' decisions) by
Adam steps on the squared error to the expected-SARSA target under the current policy,
``y(h, a) = V(h a)`` with ``V`` the terminal utility, ``sum_a' sigma(h', a') Q(h', a')`` at a
decision and the chance-weighted mean of the children's ``V`` at chance (targets computed from
the network before the steps, so they follow the current policy and not the one that visited
the pair).  Before each player's traversals the network is evaluated once on every decision
history (one batched call) into a table of baselines: ``Q(h, a)`` below decisions and
``V(h a)`` below chance.  ``baseline="table"`` is VR-MCCFR's tabular baseline instead: an
exponential average of each history action's sampled values (rate ``baseline_rate``), moved
toward the sampled value after it is used.  Both need one node per history (the history form).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ...core.budget import check_allocations, check_training_rows, mlp_bytes
from ...core.errors import RcfrError
from ...forms.base import KIND_CHANCE, KIND_TERMINAL, Capability, Form
from ...forms.sampling import draw, explore, seed_state, uniform
from ...games.infostate import has_infostate, infostate_size, infostate_tensor
from ..memory import CircularBuffer
from ..mlp import MLP, Adam, one_blas_thread, squared_error_grad
from .deep_cfr import DEFAULTS as DEEP_DEFAULTS
from .deep_cfr import DeepCFRSolver
from .nets import derived_seed

DEFAULTS = {**DEEP_DEFAULTS, "epsilon": 0.5, "baseline_rate": 0.2, "baseline": "net",
            "q_steps": None, "q_lr": None, "q_memory": 100_000}
BASELINES = ("net", "table")
MAX_FEATURE_GIB = 1.0  # the Q-network's input rows, one per decision history


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
                     st_weight, q_node, q_act):
    """``count`` outcome-sampling trajectories for ``player`` with baseline correction (module
    docstring); the decisions' ``(h, a)`` pairs into ``q_node, q_act``; the table baseline
    moves only when ``rate > 0``.  Returns (advantage rows, strategy rows, pairs, histories
    visited)."""
    sign = 1.0 if player == 0 else -1.0
    width = adv_rows.shape[1]
    na_rows = 0
    ns_rows = 0
    nq = 0
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
                q_node[nq] = h
                q_act[nq] = a
                nq += 1
                if kind[h] == player:
                    adv_info[na_rows] = node_infoset[h] - info_lo
                    for j in range(width):
                        adv_rows[na_rows, j] = (vha[j] - vh) / path_xi[k] if j < na else 0.0
                    na_rows += 1
            if rate > 0.0:
                baseline[c0 + a] += rate * (sign * v - baseline[c0 + a])
            v = vh
    return na_rows, ns_rows, nq, nodes


@njit(cache=True)
def history_values(kind, child_start, node_infoset, seq_start, chance_prob, util, strategy, q,
                   q_row, baseline, value):
    """Bottom-up (children follow their parents in the node order): ``value[n]`` player 0's
    expected value of history ``n`` under ``strategy`` with ``Q``'s rows ``q[q_row[n]]`` at the
    decisions (the terminal utility at terminals, the chance-weighted mean of the children at
    chance), and ``baseline[c]`` of each child: ``Q(h, a)`` below a decision, ``value[c]``
    below chance."""
    for n in range(kind.shape[0] - 1, -1, -1):
        if kind[n] == KIND_TERMINAL:
            value[n] = util[n]
            continue
        c0 = child_start[n]
        na = child_start[n + 1] - c0
        v = 0.0
        if kind[n] == KIND_CHANCE:
            for j in range(na):
                baseline[c0 + j] = value[c0 + j]
                v += chance_prob[c0 + j] * value[c0 + j]
        else:
            s0 = seq_start[node_infoset[n]]
            r = q_row[n]
            for j in range(na):
                baseline[c0 + j] = q[r, j]
                v += strategy[s0 + j] * q[r, j]
        value[n] = v


def history_features(tree: Form, infoset_feats: list[np.ndarray], bounds: tuple[int, ...]
                     ) -> tuple[np.ndarray, np.ndarray]:
    """The features of every decision history (module docstring) and each node's row in them
    (``-1`` off the decisions)."""
    kind = np.asarray(tree.node_kind)
    parent = np.asarray(tree.node_parent)
    node_info = np.asarray(tree.node_infoset)
    decisions = np.flatnonzero((kind == 0) | (kind == 1))
    q_row = np.full(len(kind), -1, dtype=np.int64)
    q_row[decisions] = np.arange(len(decisions))
    infostate = has_infostate(tree.game)
    width = (2 * infostate_size(tree.game) if infostate
             else 2 + sum(f.shape[1] for f in infoset_feats))
    gib = len(decisions) * width * 8 / 2**30
    if gib > MAX_FEATURE_GIB:
        raise RcfrError(f"dream's Q-network would need {gib:.3g} GiB of history features "
                        f"({len(decisions):,} decision histories x {width:,}); give smaller "
                        f"--features (hashing:K) or DREAMSolver(baseline='table')")
    if infostate:
        action = np.asarray(tree.node_action)
        paths: list[tuple[list[int], list[bool]]] = [([], [])]
        for n in range(1, len(kind)):
            h, c = paths[parent[n]]
            paths.append((h + [int(action[n])], c + [bool(kind[parent[n]] == KIND_CHANCE)]))
        rows = [np.concatenate([infostate_tensor(tree.game, *paths[n], p) for p in (0, 1)])
                for n in decisions]
        return np.asarray(rows, dtype=np.float64).reshape(len(decisions), -1), q_row
    last = np.full((len(kind), 2), -1, dtype=np.int64)  # each player's latest infoset
    for n in range(len(kind)):
        if n:
            last[n] = last[parent[n]]
        if kind[n] in (0, 1):
            last[n, kind[n]] = node_info[n] - bounds[kind[n]]
    parts = [np.eye(2)[kind[decisions]]]
    for p in (0, 1):
        f = np.vstack([infoset_feats[p], np.zeros((1, infoset_feats[p].shape[1]))])
        parts.append(f[last[decisions, p]])  # -1: the zero row
    return np.hstack(parts), q_row


class DREAMSolver(DeepCFRSolver):
    """DREAM (module docstring); the options of :class:`DeepCFRSolver` plus ``epsilon`` (the
    traverser's exploration), ``baseline`` (``net``: the Q-network, trained by ``q_steps``
    Adam steps (default: ``train_steps``) of ``batch_size`` at rate ``q_lr`` (default:
    ``lr``) per player and iteration on a circular memory of ``q_memory`` pairs; ``table``:
    the tabular baseline) and ``baseline_rate`` (the table's)."""

    name = "dream"

    def __init__(self, game: Form | Any, *, seed: int | None = None, epsilon: float | None = None,
                 baseline_rate: float | None = None, baseline: str | None = None,
                 q_steps: int | None = None, q_lr: float | None = None,
                 q_memory: int | None = None, **options: Any) -> None:
        super().__init__(game, seed=seed, **options)
        o = self.options
        given = {"epsilon": epsilon, "baseline_rate": baseline_rate, "baseline": baseline,
                 "q_steps": q_steps, "q_lr": q_lr, "q_memory": q_memory}
        for k, v in given.items():
            o[k] = DEFAULTS[k] if v is None else v
        o["epsilon"], o["baseline_rate"] = float(o["epsilon"]), float(o["baseline_rate"])
        if o["q_steps"] is None:
            o["q_steps"] = int(o["train_steps"])
        o["q_lr"] = float(o["lr"] if o["q_lr"] is None else o["q_lr"])
        if not 0 < o["epsilon"] <= 1:
            raise RcfrError(f"--epsilon must be in (0, 1] for dream, got {epsilon!r}")
        if not 0 < o["baseline_rate"] <= 1:
            raise RcfrError(f"baseline_rate must be in (0, 1], got {baseline_rate!r}")
        if o["baseline"] not in BASELINES:
            raise RcfrError(f"baseline must be one of {', '.join(BASELINES)}, got "
                            f"{o['baseline']!r}")
        for k in ("q_steps", "q_memory"):
            v = o[k]
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise RcfrError(f"{k} must be a positive whole number, got {v!r}")
            o[k] = int(v)
        if not o["q_lr"] > 0:
            raise RcfrError(f"q_lr must be > 0, got {q_lr!r}")
        if o["scheme"] != "es":
            raise RcfrError("dream samples outcomes; it takes no scheme")

    def _make_pass(self, seed: int) -> Any:
        t = self.tree
        if not t.supports(Capability.HISTORY_NODES):
            raise RcfrError("dream walks histories (its baseline is per history); compile "
                            "the history form (--form history)")
        self.arrays_ = (np.asarray(t.node_kind), np.asarray(t.node_child_start),
                        np.asarray(t.node_infoset), np.asarray(t.node_chance_prob))
        util = np.zeros(t.num_nodes)
        util[t.terminal_nodes] = t.terminal_utility
        self.util_ = util
        self.baseline_ = np.zeros(t.num_nodes)  # player 0's value of each history action
        self.depth_ = int(tree_depth(self.arrays_[0], self.arrays_[1]))
        self.branching_ = int(np.diff(self.arrays_[1]).max())  # chance nodes included
        self.rng_state_ = seed_state(seed)
        return None

    def _footprint(self) -> dict[str, float]:
        """Deep CFR's (:meth:`DeepCFRSolver._footprint`) and each traversal's rows, up to the
        tree's depth of them (advantage, strategy and Q rows)."""
        parts = super()._footprint()
        rows = float(self.options["traversals"]) * max(self.depth_, 1)
        parts["traversal rows (--traversals)"] = rows * (32 + 16 * self.width_)
        return parts

    def _init_extra(self) -> None:
        if self.options["baseline"] != "net":
            return
        o = self.options
        feats = self.features_ if o["model"] == "net" else [
            np.zeros((self.bounds_[p + 1] - self.bounds_[p], 0)) for p in (0, 1)]
        self.q_features_, self.q_row_ = history_features(self.tree, feats, self.bounds_)
        check_training_rows("--q-steps x --batch-size", o["q_steps"], int(o["batch_size"]))
        sizes = [self.q_features_.shape[1], *self.hidden_, self.width_]
        check_allocations(f"{self.name} on {self.tree.game}", {
            **self._footprint(), "the Q-network (--hidden)": float(mlp_bytes(sizes, 4)),
            "the Q-memory (--q-memory)": 16.0 * o["q_memory"],
            "the Q-network's minibatches (--batch-size)":
                8.0 * 3 * int(o["batch_size"]) * sum(sizes)})
        self.q_net_ = MLP([self.q_features_.shape[1], *self.hidden_, self.width_],
                          np.random.default_rng(derived_seed(int(self.seed or 0), 0, 0, 3)))
        self.q_opt_ = Adam(self.q_net_.theta.size, self.options["q_lr"])
        self.q_mem_ = CircularBuffer(self.options["q_memory"],
                                     {"node": np.int64, "action": np.int64})
        self.value_ = np.zeros(self.tree.num_nodes)

    def _q_baseline(self) -> None:
        """The network on every decision history into :attr:`baseline_` and the histories'
        values into :attr:`value_` (:func:`history_values`)."""
        kind, child_start, node_infoset, chance_prob = self.arrays_
        with one_blas_thread():
            q = self.q_net_(self.q_features_)
        history_values(kind, child_start, node_infoset, self.tree.infoset_seq_start,
                       chance_prob, self.util_, self.strategy_, q, self.q_row_, self.baseline_,
                       self.value_)

    def _fit_q(self) -> None:
        """``q_steps`` Adam steps on the squared error to the targets ``V(h a)`` of pairs drawn
        from the memory (the values of :meth:`_q_baseline`, before the steps)."""
        mem, o = self.q_mem_, self.options
        if not len(mem):
            return
        child_start = self.arrays_[1]
        with one_blas_thread():
            for _ in range(o["q_steps"]):
                rows = mem.sample(int(o["batch_size"]), self.rng_)
                node, action = rows["node"], rows["action"]
                target = self.value_[child_start[node] + action]
                out, inputs = self.q_net_.forward(self.q_features_[self.q_row_[node]])
                self.q_net_.backward(inputs, squared_error_grad(out, action, target))
                self.q_opt_.step(self.q_net_.theta, self.q_net_.grad)

    def _traverse(self, p: int, t: int) -> None:
        tree, o = self.tree, self.options
        net = o["baseline"] == "net"
        if net:
            self._q_baseline()
        count, W, D = int(o["traversals"]), self.width_, max(self.depth_, 1)
        kind, child_start, node_infoset, chance_prob = self.arrays_
        adv_info = np.zeros(count * D, dtype=np.int32)
        adv_rows = np.zeros((count * D, W))
        st_info = np.zeros(count * D, dtype=np.int32)
        st_rows = np.zeros((count * D, W))
        st_weight = np.zeros(count * D)
        q_node = np.zeros(count * D, dtype=np.int64)
        q_act = np.zeros(count * D, dtype=np.int64)
        path = [np.zeros(D, dtype=np.int64) for _ in range(2)]
        n_adv, n_st, n_q, nodes = dream_traversals(
            count, p, float(o["epsilon"]), 0.0 if net else float(o["baseline_rate"]), kind,
            child_start, node_infoset, chance_prob, tree.infoset_seq_start, self.util_,
            self.strategy_, self.baseline_, self.rng_state_, self.bounds_[p],
            self.bounds_[1 - p], path[0], path[1], np.zeros(D), np.zeros(D),
            np.zeros(self.branching_), adv_info, adv_rows, st_info, st_rows, st_weight, q_node,
            q_act)
        self.nodes_visited += int(nodes)
        self.adv_mem_[p].add(adv_info[:n_adv], t, adv_rows[:n_adv], np.ones(n_adv), self.rng_)
        self.strat_mem_[1 - p].add(st_info[:n_st], t, st_rows[:n_st], st_weight[:n_st],
                                   self.rng_)
        if net:
            self.q_mem_.add({"node": q_node[:n_q], "action": q_act[:n_q]})
            self._fit_q()

    def _extra_state(self) -> dict[str, np.ndarray]:
        out = {"baseline": self.baseline_, "dream_rng": self.rng_state_}
        if self.options["baseline"] == "net":
            out.update(self.q_net_.state("q."))
            out.update(self.q_opt_.state("q.adam."))
            out.update(self.q_mem_.state("q.mem."))
        return out

    def _load_extra_state(self, arrays: dict[str, Any]) -> None:
        baseline = np.array(arrays["baseline"], dtype=np.float64)
        state = np.array(arrays["dream_rng"], dtype=np.uint64)
        if baseline.shape != self.baseline_.shape or state.shape != self.rng_state_.shape:
            raise ValueError("shape")
        if self.options["baseline"] == "net":
            self.q_net_.load_state("q.", arrays)
            self.q_opt_.load_state("q.adam.", arrays)
            self.q_mem_.load_state("q.mem.", arrays)
        self.baseline_, self.rng_state_ = baseline, state
