"""Deep CFR (Brown, Lerer, Gross & Sandholm 2019, Alg. 1 and 2) on a compiled tree of either
form.

Iteration ``t``, for each player ``p`` in turn (alternating updates, as the paper and rcfr's
CFR loop): ``traversals`` external-sampling traversals for ``p`` at the current strategy of
both players; every information set of ``p`` a traversal touches gives an advantage row
``(I, t, v(I, a) - v(I))`` for ``p``'s reservoir memory, every opponent information set it
visits a strategy row ``(I, t, sigma^t(I))`` for the opponent's strategy memory; then ``p``'s
advantage network is re-initialised (the paper's default; ``warm_start`` keeps it) and trained
on its memory with the loss weighted by ``t`` (linear CFR), and ``p``'s next strategy is regret
matching on the network's outputs (the highest-advantage action where none is positive).  The
average strategy is a second network per player trained on the strategy memory (weights
``t``), fitted when asked for (:meth:`average_policy`) from a generator derived from the seed
and the iteration, so evaluating along the way never changes the run.

Speed: the networks are evaluated once per player and iteration on every information set (one
batched call), so the traversals are the form's numba pass over a strategy table
(:mod:`rcfr.solvers.deep.traverse`), not a network call per node. Defaults are the settings of
OpenSpiel's Deep CFR example for small poker games (one hidden layer of 64 units, 375
traversals per player and iteration, 375 Adam steps of minibatch 256, memories of 100,000 rows,
2,500 steps for the average network) except the learning rate, 1e-2 rather than 1e-3 (with
advantages fitted in units of their root mean square; measured on Leduc, 0.40 exploitability
after 15 iterations at 1e-2, 0.54 at 3e-3) -- the paper's own settings (4,000 steps of
minibatch 10,000, memories of 40 million rows, three-layer card/bet networks) are sized for
heads-up no-limit hold'em. Features are rcfr's providers (:mod:`rcfr.features`): ``infostate``
(OpenSpiel's information-state tensor) where the game has one and the history form is compiled,
``onehot`` elsewhere. ``network="embed"`` replaces the perceptrons by the paper's card and
bet network (:mod:`rcfr.solvers.deep.embed`; Kuhn and Leduc).

``model="tabular"`` replaces the networks by the exact fit (one output per sequence) and
``scheme="full"`` the traversals by one full-width pass (rows for every information set of
``p``, strategy rows weighted by ``p``'s reach); with ``fallback="uniform"`` the iterates are
then linear CFR's (the plumbing check of the tests).  PyTorch runs on one thread with
deterministic algorithms; two runs with the same seed are identical, and checkpoints (networks,
Adam's moments, memories, both generators) resume bit for bit.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from ...core.budget import check_allocations, check_training_rows, mlp_bytes
from ...core.errors import RcfrError
from ...core.kernels import normalize
from ...features import infoset_features
from ...forms.base import Capability, Form
from ...forms.sampling import ES
from ...games.infostate import has_infostate
from ..policy_driver import PolicyDriver
from .nets import ADVANTAGE, POLICY, derived_seed, make_model, parse_hidden, torch_module
from .reservoir import Reservoir
from .traverse import regret_matching, scatter_rows, traverse

DEFAULTS: dict[str, Any] = {
    "hidden": "64", "traversals": 375, "train_steps": 375, "batch_size": 256,
    "memory": 100_000, "lr": 1e-2, "policy_steps": 2500, "warm_start": False,
    "features": None, "scheme": "es", "model": "net", "fallback": "argmax", "backend": "numpy",
    "network": "mlp"}
_CHOICES = {"scheme": ("es", "full"), "model": ("net", "tabular"),
            "fallback": ("argmax", "uniform"), "backend": ("numpy", "torch"),
            "network": ("mlp", "embed")}


@contextlib.contextmanager
def torch_threads(active: bool) -> Iterator[None]:
    """PyTorch on one thread with deterministic algorithms (restored after): small networks
    gain nothing from threads on a shared machine, and results do not depend on them."""
    if not active:
        yield
        return
    torch = torch_module()
    threads, determ = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(determ)


def _rng_state(rng: np.random.Generator) -> np.ndarray:
    st = rng.bit_generator.state
    return np.array([str(st["state"]["state"]), str(st["state"]["inc"]),
                     str(st["has_uint32"]), str(st["uinteger"])])


def _set_rng_state(rng: np.random.Generator, arr: np.ndarray) -> None:
    s, inc, has, uint = (int(x) for x in arr)
    rng.bit_generator.state = {"bit_generator": "PCG64", "state": {"state": s, "inc": inc},
                               "has_uint32": has, "uinteger": uint}


class DeepCFRSolver(PolicyDriver):
    """Deep CFR (module docstring); keyword options as :data:`DEFAULTS`."""

    name = "deep-cfr"
    _growing_state = ("adv0.", "adv1.", "strat0.", "strat1.", "q.mem.")
    uses_strategy_memory = True

    def __init__(self, game: Form | Any, *, seed: int | None = None, **options: Any) -> None:
        super().__init__(game, seed=seed)
        self.options = self._take_options(options, DEFAULTS)
        for k, choices in _CHOICES.items():
            if self.options[k] not in choices:
                raise RcfrError(f"{k} must be one of {', '.join(choices)}, got "
                                f"{self.options[k]!r}")
        for k in ("traversals", "train_steps", "batch_size", "memory", "policy_steps"):
            v = self.options[k]
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise RcfrError(f"--{k.replace('_', '-')} must be a positive whole number, "
                                f"got {v!r}")
        if not float(self.options["lr"]) > 0:
            raise RcfrError(f"--lr must be > 0, got {self.options['lr']!r}")
        self._avg_cache: tuple[int, np.ndarray] | None = None

    # -- set-up --------------------------------------------------------------------------
    @property
    def _nets(self) -> bool:
        """Whether PyTorch networks run (one thread, deterministic, while iterating)."""
        return self.options["model"] == "net" and self.options["backend"] == "torch"

    def _init_state(self) -> None:
        o, t = self.options, self.tree
        self.width_ = int(t.infoset_num_actions.max())
        self.hidden_ = parse_hidden(o["hidden"])
        if o["features"] is None:
            o["features"] = ("infostate" if has_infostate(t.game)
                             and t.supports(Capability.HISTORY_NODES) else "onehot")
        self.layout_ = None
        if o["network"] == "embed" and o["model"] == "net":
            from .embed import card_layout

            self.layout_ = card_layout(t.game)
            if o["features"] != "infostate" or o["backend"] != "numpy":
                raise RcfrError("--network embed reads the information-state tensor (the "
                                "history form's infostate features) with the numpy backend")
        seed = int(self.seed or 0)
        self.bounds_ = (0, t.num_infosets_per_player[0], t.num_infosets)
        self.rng_ = np.random.default_rng(seed)
        self.pass_ = self._make_pass(seed)
        self.features_ = []
        for p in (0, 1):
            lo, hi = self.bounds_[p], self.bounds_[p + 1]
            feats = (np.asarray(infoset_features(t, p, o["features"], seed), dtype=np.float64)
                     if o["model"] == "net" else np.zeros((hi - lo, 0)))
            self.features_.append(feats)
        check_allocations(f"{self.name} on {t.game}", self._footprint())
        self.adv_mem_, self.strat_mem_, self.adv_model_ = [], [], []
        for p in (0, 1):
            self.adv_mem_.append(Reservoir(int(o["memory"]), self.width_))
            self.strat_mem_.append(Reservoir(int(o["memory"]), self.width_))
            self.adv_model_.append(self._model(p, ADVANTAGE))
        from ...policy import TabularPolicy

        self.strategy_ = TabularPolicy.uniform(t).probs.copy()
        self._init_extra()

    def _network_bytes(self, inputs: int, arrays: int = 4) -> float:
        """Bytes of one network on ``inputs`` features: weights, gradients and Adam's two
        moments (``arrays``), float64 (the card and bet network: its own shapes)."""
        if self.options["model"] != "net":  # the exact fit: a table over information sets
            return 0.0
        if self.layout_ is not None:
            from .embed import embed_shapes

            params = sum(math.prod(s) for s in embed_shapes(self.layout_, self.hidden_[0],
                                                            self.width_))
            return 8.0 * arrays * params
        return float(mlp_bytes([inputs, *self.hidden_, self.width_], arrays))

    def _footprint(self) -> dict[str, float]:
        """What :meth:`_init_state` and an iteration allocate, in bytes, for the memory guard
        (:func:`~rcfr.core.budget.check_allocations`), counted from the options before any of
        it is: per player an advantage network and the average network fitted beside it, both
        reservoirs (rows of an information set, an iteration, a target vector and a weight),
        the minibatches' indices (every step's drawn at once) and activations, the networks'
        outputs on every information set and the traversals' rows; steps times rows above
        :data:`~rcfr.core.budget.MAX_TRAINING_ROWS` are refused."""
        o = self.options
        batch, W = int(o["batch_size"]), self.width_
        batch = min(batch, int(o["memory"]))  # (a minibatch is drawn from one memory)
        steps, flag = int(o["train_steps"]), "--train-steps"
        if self.uses_strategy_memory and int(o["policy_steps"]) > steps:
            steps, flag = int(o["policy_steps"]), "--policy-steps"
        check_training_rows(f"{flag} x --batch-size", steps, batch)
        parts = {"networks (--hidden)": 0.0, "reservoirs (--memory)": 0.0,
                 "minibatches (--train-steps, --policy-steps, --batch-size)": 0.0,
                 "traversal rows (--traversals)": 0.0}
        widest = max([W, *self.hidden_]) if o["model"] == "net" else W
        layers = len(self.hidden_) + 2
        for p in (0, 1):
            inputs = int(self.features_[p].shape[1])
            infosets = self.bounds_[p + 1] - self.bounds_[p]
            parts["networks (--hidden)"] += (2 * self._network_bytes(inputs)
                                             + 8.0 * infosets * widest * layers)
            parts["reservoirs (--memory)"] += 2 * float(o["memory"]) * (20 + 8 * W)
            parts["minibatches (--train-steps, --policy-steps, --batch-size)"] += (
                8.0 * steps * batch + 8.0 * batch * widest * (layers + 4))
            parts["traversal rows (--traversals)"] += 3 * float(o["traversals"]) * (12 + 8 * W)
        return parts

    def _init_extra(self) -> None:
        """Hook for the variants' own state."""

    def _make_pass(self, seed: int) -> Any:
        if self.options["scheme"] == "full":
            return self.tree.full_width_pass()
        return self.tree.sampled_pass(ES, 0.0, 0.0, 0.0, seed)

    def _model(self, p: int, role: str) -> Any:
        lo, hi = self.bounds_[p], self.bounds_[p + 1]
        return make_model(self.options["model"], self.features_[p],
                          self.tree.infoset_num_actions[lo:hi], self.width_, self.hidden_,
                          role, float(self.options["lr"]), self.options["backend"],
                          self.layout_)

    def _config(self) -> dict[str, Any]:
        return {k: (str(v) if k in ("hidden", "features") else v)
                for k, v in self.options.items()}

    # -- iterations ----------------------------------------------------------------------
    def run(self, iterations: int) -> DeepCFRSolver:
        """Advance ``iterations`` iterations (PyTorch on one thread, deterministic)."""
        from ...core.checks import whole_number

        iterations = whole_number(iterations, "iterations")
        self.setup()
        self.check_run(iterations)
        with torch_threads(self._nets):
            for _ in range(iterations):
                self._iterate()
        return self

    def check_run(self, iterations: int) -> None:
        """Hook: refuse ``iterations`` more iterations whose kept state would not fit."""

    def _traverse(self, p: int, t: int) -> None:
        """The traversals for ``p`` and their rows into the memories."""
        sampled = self.options["scheme"] != "full"
        count = int(self.options["traversals"]) if sampled else 1
        adv, strat, nodes = traverse(self.tree, self.pass_, p, self.strategy_, count, sampled,
                                     self.width_, self.uses_strategy_memory)
        self.nodes_visited += nodes
        info, rows, _ = adv.view()
        self.adv_mem_[p].add(info, t, rows, np.ones(len(info)), self.rng_)
        if self.uses_strategy_memory:
            for q in (0, 1):
                s_info, s_rows, s_weight = strat[q].view()
                self.strat_mem_[q].add(s_info, t, s_rows, s_weight, self.rng_)

    def _iterate(self) -> None:
        t = self.iteration + 1
        o = self.options
        for p in (0, 1):
            self._traverse(p, t)
            self._before_update(p, t)
            model = self.adv_model_[p]
            if not o["warm_start"] or getattr(model, "net", 0) is None:
                model.reset(derived_seed(int(self.seed or 0), t, p, 1))
            model.fit(self.adv_mem_[p], t, int(o["train_steps"]), int(o["batch_size"]),
                      self.rng_)
            self._update_strategy(p)
            self._after_update(p, t)
        self.iteration = t

    def _before_update(self, p: int, t: int) -> None:
        """Hook: player ``p``'s strategy of iteration ``t`` is about to change."""

    def _after_update(self, p: int, t: int) -> None:
        """Hook: player ``p``'s network of iteration ``t`` has been trained."""

    def _update_strategy(self, p: int) -> None:
        values, known = self.adv_model_[p].predict()
        lo, hi = self.bounds_[p], self.bounds_[p + 1]
        rows = np.zeros_like(values)
        regret_matching(values, known, self.tree.infoset_num_actions[lo:hi],
                        self.options["fallback"] == "argmax", rows)
        scatter_rows(rows, self.tree.infoset_seq_start, self.tree.infoset_num_actions, lo,
                     self.strategy_)

    # -- outputs -------------------------------------------------------------------------
    def _current(self) -> np.ndarray:
        return self.strategy_

    def _average(self) -> np.ndarray:
        """The average-strategy networks fitted on the strategy memories (cached per
        iteration; their generators derive from the seed and the iteration)."""
        if self._avg_cache is not None and self._avg_cache[0] == self.iteration:
            return self._avg_cache[1]
        t, o = self.tree, self.options
        out = self.strategy_.copy() if self.iteration == 0 else np.zeros(t.num_sequences)
        if self.iteration > 0:
            with torch_threads(self._nets):
                for p in (0, 1):
                    model = self._model(p, POLICY)
                    seed = derived_seed(int(self.seed or 0), self.iteration, p, 2)
                    model.reset(seed)
                    model.fit(self.strat_mem_[p], self.iteration, int(o["policy_steps"]),
                              int(o["batch_size"]), np.random.default_rng(seed))
                    probs, known = model.predict()
                    lo, hi = self.bounds_[p], self.bounds_[p + 1]
                    n = t.infoset_num_actions[lo:hi]
                    probs = np.where(known[:, None], probs, 1.0)  # unseen: uniform
                    probs = probs * (np.arange(self.width_)[None, :] < n[:, None])
                    scatter_rows(probs, t.infoset_seq_start, t.infoset_num_actions, lo, out)
            normed = np.empty_like(out)
            normalize(out, 0, t.num_infosets, t.infoset_seq_start, t.infoset_num_actions,
                      normed)
            out = normed
        self._avg_cache = (self.iteration, out)
        return out

    # -- checkpoints ---------------------------------------------------------------------
    def _state(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {"strategy": self.strategy_, "rng": _rng_state(self.rng_),
                                      "pass_rng": np.asarray(getattr(self.pass_, "rng",
                                                                     np.zeros(1, np.uint64)))}
        for p in (0, 1):
            out.update(self.adv_mem_[p].state(f"adv{p}."))
            out.update(self.strat_mem_[p].state(f"strat{p}."))
            out.update(self.adv_model_[p].state(f"model{p}."))
        out.update(self._extra_state())
        return out

    def _extra_state(self) -> dict[str, np.ndarray]:
        return {}

    def _load_state(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        strategy = np.array(arrays["strategy"], dtype=np.float64)
        if strategy.shape != self.strategy_.shape:
            raise ValueError("shape")
        for p in (0, 1):
            self.adv_mem_[p].load_state(f"adv{p}.", arrays)
            self.strat_mem_[p].load_state(f"strat{p}.", arrays)
            self.adv_model_[p].load_state(f"model{p}.", arrays)
        _set_rng_state(self.rng_, arrays["rng"])
        if hasattr(self.pass_, "rng"):
            state = np.array(arrays["pass_rng"], dtype=np.uint64)
            if state.shape != self.pass_.rng.shape:
                raise ValueError("pass_rng")
            self.pass_.rng = state
        self.strategy_ = strategy
        self._load_extra_state(arrays)
        self._avg_cache = None

    def _load_extra_state(self, arrays: dict[str, np.ndarray]) -> None:
        """Hook: a variant's own arrays."""
