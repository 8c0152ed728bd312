"""Monte Carlo CFR on the public tree: sample the private states from the joint deal, then walk
the public nodes (ARCHITECTURE.md, "Two compiled forms").

Given a deal ``(x0, x1)``, the histories that follow it are the public tree itself: a decision
node ``u`` of player ``p`` lies in information set ``(u, x_p)``, a public chance outcome has
the probability ``W_child[x0, x1] / W_parent[x0, x1]`` (card removal), and a terminal pays its
rule's payoff for the pair.  A pass draws the deal on-policy, writes those per-node arrays and
runs the history form's sampled pass (:func:`rcfr.solvers.sampling.sampled_pass`: CS, ES, OS or
AS, Gibson et al. 2012) over them, so estimates, averaging and their unbiasedness are the
history form's.  Nodes visited are counted in histories: each public node the walk visits is
one history of the sampled deal, plus the chance nodes that dealt it.

Writing a deal's arrays costs a sweep of the public nodes; they are kept per deal where all
deals fit in ``CACHE_BYTES`` (Kuhn, Leduc, Bluff(1,1)), else written again for every pass
(Bluff(2,1): 126 joint rolls x 524,287 nodes), which then costs what a full sweep of the public
nodes does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import RcfrError
from .games.public import FOLD_RULE, SHOWDOWN_RULE
from .public_tree import PublicTree, compile_public
from .solvers.sampling import (
    SCHEMES,
    MCCFRSolver,
    SampledTree,
    SampleWork,
    check_parameters,
    check_rule,
    draw,
    sampled_pass,
    seed_state,
    uniform,
)
from .tree import KIND_CHANCE

CACHE_BYTES = 256 * 2**20  # every deal's node arrays are kept when they fit in this


class PublicSampledPass:
    """A sampled pass over the public tree (a :class:`rcfr.solvers.loop.TreePass`); one
    player per pass, the deal drawn from the pass's SplitMix64 state."""

    def __init__(self, tree: PublicTree, scheme: int, epsilon: float, beta: float, tau: float,
                 seed: int | None) -> None:
        self.tree = tree
        self.scheme = scheme
        self.epsilon, self.beta, self.tau = epsilon, beta, tau
        self.rng = seed_state(seed)
        self.counter = np.zeros(1, dtype=np.int64)
        T = tree.arrays
        n = tree.num_public_nodes
        self.deal = np.ascontiguousarray(T.joint[0].ravel())
        self.deal_depth = tree.structure.deal_depth
        kind = tree.node_kind
        self.decision = [np.flatnonzero(kind == p) for p in (0, 1)]
        self.terminal = tree.terminal_nodes
        parent = tree.node_parent
        self.chance_children = np.flatnonzero((parent >= 0)
                                              & (kind[np.maximum(parent, 0)] == KIND_CHANCE))
        fits = 20 * n * int((self.deal > 0).sum()) <= CACHE_BYTES
        self.cache: dict | None = {} if fits else None
        self.infoset = np.full(n, -1, dtype=np.int32)
        self.prob = np.ones(n)
        self.util = np.zeros(n)
        self.work = SampleWork(np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
                               np.ones(n), np.ones(n), np.zeros(n),
                               np.zeros(tree.num_infosets, dtype=np.int64),
                               np.zeros(tree.num_infosets, dtype=np.int64))

    def deal_arrays(self, x0: int, x1: int) -> SampledTree:
        """The history form's node arrays of the histories that follow the deal ``(x0, x1)``
        (kept per deal while all deals fit in ``CACHE_BYTES``)."""
        cached = self.cache.get((x0, x1)) if self.cache is not None else None
        if cached is not None:
            return cached
        arrays = self._write_deal(x0, x1)
        if self.cache is not None:
            arrays = arrays._replace(node_infoset=arrays.node_infoset.copy(),
                                     chance_prob=arrays.chance_prob.copy(),
                                     util=arrays.util.copy())
            self.cache[(x0, x1)] = arrays
        return arrays

    def _write_deal(self, x0: int, x1: int) -> SampledTree:
        t, T = self.tree, self.tree.arrays
        ctx = t.node_ctx
        for p, x in ((0, x0), (1, x1)):
            u = self.decision[p]
            self.infoset[u] = t.node_info_base[u] + T.row_of[p, ctx[u], x]
        v = self.chance_children
        if v.size:
            parent_w = T.joint[ctx[t.node_parent[v]], x0, x1]
            self.prob[v] = np.divide(T.joint[ctx[v], x0, x1], parent_w,
                                     out=np.zeros(v.size), where=parent_w > 0)
        z = self.terminal
        c = T.term_ctx
        rule, value = T.term_rule, T.term_value
        showdown = value * np.sign(T.rank[0, c, x0] - T.rank[1, c, x1])
        held = T.counts[0, T.term_face, x0] + T.counts[1, T.term_face, x1] >= T.term_q
        self.util[z] = np.where(rule == FOLD_RULE, value,
                                np.where(rule == SHOWDOWN_RULE, showdown,
                                         np.where(held, value, T.term_miss)))
        return SampledTree(t.node_kind, t.node_child_start, self.infoset, self.prob,
                           t.infoset_seq_start, t.infoset_num_actions, self.util)

    def sample_deal(self) -> tuple[int, int]:
        k = int(draw(self.deal, 0, self.deal.shape[0], uniform(self.rng)))
        return divmod(k, self.tree.arrays.joint.shape[2])

    def run(self, players, strategy, weight, avg, inst) -> int:
        (player,) = players
        inst[:] = 0.0
        self.counter[0] += 1
        arrays = self.deal_arrays(*self.sample_deal())
        n, _ = sampled_pass(self.scheme, player, weight, self.epsilon, self.beta, self.tau,
                            arrays, strategy, avg, self.rng, inst, self.work, self.counter[0])
        return int(n) + self.deal_depth

    def fuses(self, rule) -> bool:
        return False  # the Python loop, one pass per player


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
