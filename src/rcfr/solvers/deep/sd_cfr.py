"""Single Deep CFR (Steinberger 2019): Deep CFR without the average-strategy network.  Every
iteration's value network is kept (its weights; :attr:`SDCFRSolver.snapshots`), and the average
strategy is the mixture of the iterations' strategies with the linear-CFR weights -- played by
drawing one iteration per game with probability proportional to ``t``
(:meth:`SDCFRSolver.sample_iteration`), and computed exactly as a tabular strategy in
sequence form: iteration ``t``'s strategy of player ``p`` weighs ``t`` times ``p``'s own reach
under it (Steinberger 2019, sec. 3, the "trajectory" weighting; the realization plan,
Koller, Megiddo & von Stengel 1994), accumulated as the run goes, so the exact exploitability
of the average needs no network training at all."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...core.budget import check_allocations
from ...core.errors import RcfrError
from ...core.kernels import normalize, padded, realization_plan
from ...core.statecheck import typed
from ...forms.base import Form
from .deep_cfr import DeepCFRSolver


class SDCFRSolver(DeepCFRSolver):
    """Single Deep CFR (module docstring); the options of :class:`DeepCFRSolver` but the
    average network's ``policy_steps``, which it refuses (it trains no such network)."""

    name = "sd-cfr"
    uses_strategy_memory = False

    def __init__(self, game: Form | Any, *, seed: int | None = None, **options: Any) -> None:
        if options.get("policy_steps") is not None:
            raise RcfrError("sd-cfr trains no average-strategy network: it takes no "
                            "policy_steps")
        super().__init__(game, seed=seed, **options)

    def _init_extra(self) -> None:
        self.avg_weights_ = np.zeros(self.tree.num_sequences)
        self.snapshots: list[list[list[np.ndarray]]] = []  # [iteration][player] weights

    def check_run(self, iterations: int) -> None:
        """Refuse a run whose kept networks (one per iteration and player, weights only)
        would exceed the memory budget (:func:`~rcfr.core.budget.check_allocations`)."""
        if self.options["model"] != "net":
            return
        kept = sum(self._network_bytes(int(self.features_[p].shape[1]), 1) for p in (0, 1))
        check_allocations(f"{self.name} on {self.tree.game}", {
            "the kept networks (--hidden x --iterations)":
                kept * float(self.iteration + iterations)})

    def _before_update(self, p: int, t: int) -> None:
        """``avg[s] += t * plan_p(s)`` for the strategy ``p`` played in iteration ``t``."""
        tree = self.tree
        lo, hi = self.bounds_[p], self.bounds_[p + 1]
        plan = padded(tree.num_sequences)
        realization_plan(self.strategy_, lo, hi, tree.infoset_seq_start,
                         tree.infoset_num_actions, tree.infoset_parent_seq, plan)
        seqs = tree.player_sequences(p)
        self.avg_weights_[seqs.start:seqs.stop] += t * plan[seqs.start:seqs.stop]

    def _after_update(self, p: int, t: int) -> None:
        if self.options["model"] != "net":
            return
        if p == 0:
            self.snapshots.append([])
        self.snapshots[-1].append(self.adv_model_[p].weights())

    def _average(self) -> np.ndarray:
        t = self.tree
        out = np.empty(t.num_sequences)
        normalize(self.avg_weights_, 0, t.num_infosets, t.infoset_seq_start,
                  t.infoset_num_actions, out)
        return out

    def sample_iteration(self, rng: np.random.Generator) -> int:
        """An iteration ``1..T`` drawn with probability proportional to ``t`` (whose kept
        networks then play a whole game: the SD-CFR average, Steinberger 2019, Alg. 1)."""
        T = self.iteration
        w = np.arange(1, T + 1, dtype=np.float64)
        return int(rng.choice(T, p=w / w.sum())) + 1

    def _extra_state(self) -> dict[str, np.ndarray]:
        out = {"avg_weights": self.avg_weights_}
        for k, per_player in enumerate(self.snapshots):
            for p, weights in enumerate(per_player):
                for j, w in enumerate(weights):
                    out[f"snap{k}.{p}.{j}"] = w
        return out

    def _load_extra_state(self, arrays: dict[str, Any]) -> None:
        avg = np.array(arrays["avg_weights"], dtype=np.float64)
        if avg.shape != self.avg_weights_.shape:
            raise ValueError("shape")
        self.avg_weights_ = avg
        snaps: dict[int, dict[int, dict[int, np.ndarray]]] = {}
        for key in arrays:
            if key.startswith("snap"):
                k, p, j = (int(x) for x in key[4:].split("."))
                snaps.setdefault(k, {}).setdefault(p, {})[j] = np.array(arrays[key])
        snapshots = [[[snaps[k][p][j] for j in sorted(snaps[k][p])] for p in sorted(snaps[k])]
                     for k in sorted(snaps)]
        if snapshots:  # each iteration's networks, shaped as the value networks' weights
            try:
                shapes = [[w.shape for w in self.adv_model_[p].weights()] for p in (0, 1)]
            except AttributeError:  # no network trained, yet snapshots
                raise ValueError("snapshots without networks") from None
            for k, per_player in enumerate(snapshots):
                if len(per_player) != 2 or [len(w) for w in per_player] != [len(s) for s in
                                                                              shapes]:
                    raise ValueError(f"snapshot {k}: not both players' networks")
                for p, weights in enumerate(per_player):
                    per_player[p] = [typed(w, "f", shape, f"snap{k}.{p}.{j}")
                                     for j, (w, shape) in enumerate(zip(weights, shapes[p],
                                                                        strict=True))]
        self.snapshots = snapshots
