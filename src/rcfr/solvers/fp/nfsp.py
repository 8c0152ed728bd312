"""Neural Fictitious Self-Play (NFSP; Heinrich & Silver 2016, Alg. 1) with batched,
vectorised self-play.

Each player is an agent with a best-response Q-network (DQN: Q-learning on a circular memory
M_RL of its transitions, a target network, epsilon-greedy exploration) and an average-policy
network (supervised classification of its own best-response actions on a reservoir memory
M_SL).  In every episode an agent plays ``epsilon-greedy(Q)`` with probability ``eta`` (the
anticipatory parameter) and its average policy otherwise; only the best-response actions go
to M_SL.  The average policy is what converges to an equilibrium; :meth:`average_policy`
exports it as a tabular strategy over every information set (the network's softmax over the
legal actions), so evaluation, ``rcfr play`` and the report read it as any other strategy.

Defaults are the NFSP paper's Leduc hold'em settings (sec. 5.1): one hidden layer of 64
rectified units (``hidden``), M_RL of 200,000 transitions and M_SL of 2,000,000, learning
rates 0.1 (RL) and 0.005 (SL) with plain SGD, ``eta = 0.1``, exploration starting at 0.06 and
decaying to 0 as the inverse square root (here ``eps_start / sqrt(1 + episodes / 1000)``), the
target network refitted every 300 updates, and 2 updates of minibatch 128 per network for
every 128 of an agent's steps (``learn_every = 64``).

Speed: ``envs`` games (default 128) are stepped at once over the compiled history form
(:class:`~rcfr.solvers.fp.batched_games.BatchedGames`) and the networks are evaluated on each step's
batch of observations.  Observations are information-set features from
:func:`rcfr.features.infoset_features`: by default ``infostate`` (OpenSpiel's
information-state tensor: private card, board card and betting bits) on Kuhn, Leduc and
``openspiel:`` games that have one, ``onehot`` on the rest (``hashing:K`` too); the memories
hold information-set indices and the features are gathered when a minibatch is drawn.  An
observation is a function of the information set, so the agents act by table: after each
learning step one network call per player gives the greedy action and the average policy at
every information set, and every game's action is a numpy lookup (no network call per step).
The networks are numpy multilayer perceptrons (:mod:`rcfr.solvers.mlp`: PyTorch's
per-operation overhead dominated at these sizes), with matrix products on one BLAS thread while
:meth:`run` plays.

One iteration is one episode (``iteration`` counts finished games; a call to :meth:`run`
ends after the batched step in which the count is reached, so where a run is cut into calls
never changes it).  All sampling uses one numpy generator seeded by ``seed``; the networks are
initialised from a second one seeded by ``(seed, 1)``; checkpoints hold the networks, the
optimisers' settings (plain SGD keeps no other state), both memories, the games in flight and
the generator, and resume bit for bit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...core.budget import check_allocations, mlp_bytes
from ...core.checks import parse_hidden
from ...features import infoset_features
from ...forms.base import Form
from ...games.infostate import has_infostate
from ..memory import CircularBuffer, ReservoirBuffer
from ..mlp import MLP, cross_entropy_grad, masked_softmax, one_blas_thread, squared_error_grad
from ..policy_driver import PolicyDriver
from .batched_games import BatchedGames

DEFAULTS = {"hidden": "64", "eta": 0.1, "rl_lr": 0.1, "sl_lr": 0.005, "batch_size": 128,
            "rl_memory": 200_000, "sl_memory": 2_000_000, "learn_every": 64,
            "target_every": 300, "eps_start": 0.06, "envs": 128, "features": None}
EPS_DECAY = 1000.0  # episodes: epsilon = eps_start / sqrt(1 + episodes / EPS_DECAY)


class NFSPSolver(PolicyDriver):
    """NFSP on a compiled history form (module doc); keyword options as :data:`DEFAULTS`."""

    name = "nfsp"
    _growing_state = ("rl0.", "rl1.", "sl0.", "sl1.")

    def __init__(self, game: Form | Any, *, seed: int | None = None, **options: Any) -> None:
        super().__init__(game, seed=seed)
        self.options = self._take_options(options, DEFAULTS)

    # -- set-up --------------------------------------------------------------------------
    def _init_state(self) -> None:
        o, t = self.options, self.tree
        hidden = list(parse_hidden(o["hidden"]))
        if o["features"] is None:  # OpenSpiel's information-state tensor where there is one
            o["features"] = "infostate" if has_infostate(t.game) else "onehot"
        self.rng_ = np.random.default_rng(int(self.seed or 0))
        self.games_ = BatchedGames(t, int(o["envs"]), self.rng_)
        self.width_ = int(t.infoset_num_actions.max())
        self.features_ = [np.ascontiguousarray(
            infoset_features(t, p, o["features"], int(self.seed or 0)), dtype=np.float64)
            for p in (0, 1)]
        self.first_ = [t.player_infosets(p).start for p in (0, 1)]
        cols = np.arange(self.width_)
        self.legal_ = [cols < t.infoset_num_actions[t.player_infosets(p)][:, None]
                       for p in (0, 1)]
        self._check_memory(hidden)
        gen = np.random.default_rng([int(self.seed or 0), 1])
        self.q_, self.q_target_, self.pi_ = [], [], []
        self.rl_mem_, self.sl_mem_ = [], []
        for p in (0, 1):
            sizes = [int(self.features_[p].shape[1]), *hidden, self.width_]
            q, pi, target = MLP(sizes, gen), MLP(sizes, gen), MLP(sizes, gen)
            target.copy_from(q)
            self.q_.append(q)
            self.q_target_.append(target)
            self.pi_.append(pi)
            self.rl_mem_.append(CircularBuffer(int(o["rl_memory"]), {
                "s": np.int32, "a": np.int8, "r": np.float64, "s2": np.int32,
                "done": np.bool_}))
            self.sl_mem_.append(ReservoirBuffer(int(o["sl_memory"]),
                                                {"s": np.int32, "a": np.int8}))
        n = self.games_.n
        self.mode_ = self.rng_.random((n, 2)) < float(o["eta"])  # best-response mode
        self.pending_ = np.full((n, 2), -1, dtype=np.int64)  # last infoset (local), or -1
        self.pending_action_ = np.zeros((n, 2), dtype=np.int64)
        self.steps_ = np.zeros(2, dtype=np.int64)  # each agent's steps
        self.learned_ = np.zeros(2, dtype=np.int64)  # each agent's learning steps
        self.tables_: list[Any] = [None, None]  # acting tables, rebuilt after learning

    def _check_memory(self, hidden: list[int]) -> None:
        """Refuse (:func:`~rcfr.core.budget.check_allocations`) networks, memories and
        minibatches larger than the memory budget before allocating them: per player three
        networks (Q, its target, the average policy; weights and gradients, plain SGD keeps
        no state), their activations on a minibatch and on every information set, M_RL's
        transitions (18 bytes) and M_SL's rows (5 bytes)."""
        o, t = self.options, self.tree
        batch = int(o["batch_size"])
        parts = {"networks (--hidden)": 0.0, "activations (--batch-size)": 0.0,
                 "M_RL (--rl-memory)": 0.0, "M_SL (--sl-memory)": 0.0}
        for p in (0, 1):
            sizes = [int(self.features_[p].shape[1]), *hidden, self.width_]
            rows = batch + t.player_infosets(p).stop - t.player_infosets(p).start
            parts["networks (--hidden)"] += 3 * mlp_bytes(sizes)
            parts["activations (--batch-size)"] += 8 * 3 * rows * float(sum(sizes))
            parts["M_RL (--rl-memory)"] += 18 * float(o["rl_memory"])
            parts["M_SL (--sl-memory)"] += 5 * float(o["sl_memory"])
        parts["games in flight (--envs)"] = 64 * float(o["envs"])
        check_allocations(f"{self.name} on {t.game}", parts)

    def _config(self) -> dict[str, Any]:
        return {k: (str(v) if k in ("hidden", "features") else v)
                for k, v in self.options.items()}

    # -- acting --------------------------------------------------------------------------
    def epsilon(self) -> float:
        return float(self.options["eps_start"]) / math.sqrt(1.0 + self.iteration / EPS_DECAY)

    def _policy_probs(self, p: int, local: Any) -> np.ndarray:
        return masked_softmax(self.pi_[p](self.features_[p][local]), self.legal_[p][local])

    def _tables(self, p: int) -> tuple[np.ndarray, np.ndarray]:
        """Player ``p``'s greedy best-response action and average-policy probabilities at
        every one of its information sets, from one network call each; kept until the
        networks next learn (an observation is a function of the information set, so acting
        by table lookup is acting by the networks)."""
        if self.tables_[p] is None:
            q = np.where(self.legal_[p], self.q_[p](self.features_[p]), -np.inf)
            probs = self._policy_probs(p, slice(None))
            self.tables_[p] = (np.argmax(q, axis=1), np.cumsum(probs, axis=1))
        return self.tables_[p]

    def _act(self, p: int, games: np.ndarray, local: np.ndarray) -> np.ndarray:
        g = self.games_
        n_actions = g.num_actions[local + self.first_[p]]
        greedy, cum = self._tables(p)
        br = self.mode_[games, p]
        actions = np.zeros(len(games), dtype=np.int64)
        nbr = int(br.sum())
        if nbr:
            explore = self.rng_.random(nbr) < self.epsilon()
            rand = (self.rng_.random(nbr) * n_actions[br]).astype(np.int64)
            actions[br] = np.where(explore, rand, greedy[local[br]])
        if nbr < len(games):
            rows = cum[local[~br]]
            u = self.rng_.random(len(games) - nbr)[:, None]
            k = (rows < u * rows[:, -1:]).sum(axis=1)
            actions[~br] = np.minimum(k, n_actions[~br] - 1)
        if nbr:
            self.sl_mem_[p].add({"s": local[br], "a": actions[br]}, self.rng_)
        return actions

    def _step(self) -> None:
        """One batched step: every game's player to act acts; finished games end their
        agents' transitions and restart."""
        g = self.games_
        player = g.player
        for p in (0, 1):
            games = np.flatnonzero(player == p)
            if games.size == 0:
                continue
            local = g.infosets(games) - self.first_[p]
            had = self.pending_[games, p] >= 0  # the agent's previous step ends here
            if had.any():
                k = games[had]
                self.rl_mem_[p].add({"s": self.pending_[k, p], "a": self.pending_action_[k, p],
                                     "r": np.zeros(k.size), "s2": local[had],
                                     "done": np.zeros(k.size, dtype=bool)})
            actions = self._act(p, games, local)
            self.pending_[games, p] = local
            self.pending_action_[games, p] = actions
            g.step(games, actions)
            self.steps_[p] += games.size
        ended = np.flatnonzero(g.terminal())
        if ended.size:
            u = g.returns(ended)
            for p in (0, 1):
                had = self.pending_[ended, p] >= 0
                k = ended[had]
                if k.size:
                    self.rl_mem_[p].add({"s": self.pending_[k, p],
                                         "a": self.pending_action_[k, p],
                                         "r": (u[had] if p == 0 else -u[had]),
                                         "s2": np.zeros(k.size, dtype=np.int64),
                                         "done": np.ones(k.size, dtype=bool)})
            self.pending_[ended] = -1
            self.mode_[ended] = self.rng_.random((ended.size, 2)) < float(self.options["eta"])
            g.reset(np.isin(np.arange(g.n), ended))
            self.iteration += int(ended.size)
            self.nodes_visited += int(ended.size)  # sampled histories: one per episode
        every = int(self.options["learn_every"])
        for p in (0, 1):
            while self.learned_[p] < self.steps_[p] // every:
                self._learn(p)
                self.learned_[p] += 1

    # -- learning ------------------------------------------------------------------------
    def _learn(self, p: int) -> None:
        """One SGD step of each network on a minibatch of its memory (once it holds one):
        the average policy on the cross-entropy of its best-response actions, the Q-network on
        the squared error against ``r + max_a' Q_target(s', a')`` (0 after the last step)."""
        self.tables_[p] = None
        size = int(self.options["batch_size"])
        feats, legal = self.features_[p], self.legal_[p]
        if len(self.sl_mem_[p]) >= size:
            batch = self.sl_mem_[p].sample(size, self.rng_)
            s = batch["s"]
            logits, inputs = self.pi_[p].forward(feats[s])
            grad = cross_entropy_grad(logits, legal[s], batch["a"].astype(np.int64))
            self.pi_[p].backward(inputs, grad)
            self.pi_[p].sgd_step(float(self.options["sl_lr"]))
        if len(self.rl_mem_[p]) >= size:
            batch = self.rl_mem_[p].sample(size, self.rng_)
            s, s2 = batch["s"], batch["s2"]
            nxt = np.where(legal[s2], self.q_target_[p](feats[s2]), -np.inf)
            target = batch["r"] + np.where(batch["done"], 0.0, nxt.max(axis=1))
            q, inputs = self.q_[p].forward(feats[s])
            grad = squared_error_grad(q, batch["a"].astype(np.int64), target)
            self.q_[p].backward(inputs, grad)
            self.q_[p].sgd_step(float(self.options["rl_lr"]))
            if (self.learned_[p] + 1) % int(self.options["target_every"]) == 0:
                self.q_target_[p].copy_from(self.q_[p])

    # -- the interface solve() drives ----------------------------------------------------
    def run(self, iterations: int) -> NFSPSolver:
        """Play until ``iterations`` more episodes have finished (whole batched steps), with
        matrix products on one BLAS thread (small networks gain nothing from more, and the
        result does not depend on the machine's thread count)."""
        from ...core.checks import whole_number

        iterations = whole_number(iterations, "iterations")
        self.setup()
        with one_blas_thread():
            target = self.iteration + iterations
            while self.iteration < target:
                self._step()
        return self

    def network_policy(self, player: int) -> np.ndarray:
        """The average-policy network's probabilities at each of ``player``'s information
        sets (rows padded to the widest)."""
        self.setup()
        with one_blas_thread():
            return self._policy_probs(player, slice(None))

    def _average(self) -> np.ndarray:
        t = self.tree
        out = np.empty(t.num_sequences)
        for p in (0, 1):
            probs = self.network_policy(p)
            infos = t.player_infosets(p)
            n = t.infoset_num_actions[infos.start:infos.stop]
            rows = np.repeat(np.arange(len(n)), n)
            cols = np.arange(len(rows)) - np.repeat(np.cumsum(n) - n, n)
            seqs = t.player_sequences(p)
            out[seqs.start:seqs.stop] = probs[rows, cols]
        # each row sums to one in float64 already; renormalise against rounding
        sums = np.add.reduceat(out, t.infoset_seq_start)
        return out / np.repeat(sums, t.infoset_num_actions)

    # -- checkpoints ---------------------------------------------------------------------
    def _state(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for p in (0, 1):
            for name, net in (("q", self.q_[p]), ("qt", self.q_target_[p]),
                              ("pi", self.pi_[p])):
                out.update(net.state(f"{name}{p}."))
            out.update(self.rl_mem_[p].state(f"rl{p}."))
            out.update(self.sl_mem_[p].state(f"sl{p}."))
        rng = self.rng_.bit_generator.state
        out["rng"] = np.array([str(rng["state"]["state"]), str(rng["state"]["inc"]),
                               str(rng["has_uint32"]), str(rng["uinteger"])])
        out.update(node=self.games_.node, mode=self.mode_, pending=self.pending_,
                   pending_action=self.pending_action_, steps=self.steps_,
                   learned=self.learned_)
        return out

    def _meta(self) -> dict[str, Any]:
        return {"optimizers": "sgd (no state)",
                "lr": [float(self.options["rl_lr"]), float(self.options["sl_lr"])]}

    def _load_state(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        self.tables_ = [None, None]
        for p in (0, 1):
            for name, net in (("q", self.q_[p]), ("qt", self.q_target_[p]),
                              ("pi", self.pi_[p])):
                net.load_state(f"{name}{p}.", arrays)
            self.rl_mem_[p].load_state(f"rl{p}.", arrays)
            self.sl_mem_[p].load_state(f"sl{p}.", arrays)
        n = self.games_.n
        for key, attr, shape in (("mode", "mode_", (n, 2)), ("pending", "pending_", (n, 2)),
                                 ("pending_action", "pending_action_", (n, 2)),
                                 ("steps", "steps_", (2,)), ("learned", "learned_", (2,))):
            value = np.array(arrays[key], dtype=getattr(self, attr).dtype)
            if value.shape != shape:
                raise ValueError("shape")
            setattr(self, attr, value)
        node = np.array(arrays["node"], dtype=np.int64)
        if node.shape != (n,) or node.min() < 0 or node.max() >= self.tree.num_nodes:
            raise ValueError("nodes")
        self.games_.node = node
        s, inc, has, uint = (int(x) for x in arrays["rng"])
        self.rng_.bit_generator.state = {"bit_generator": "PCG64",
                                         "state": {"state": s, "inc": inc},
                                         "has_uint32": has, "uinteger": uint}
