"""The average strategy by regression: a second regressor per player represents the average
strategy, so that RCFR's memory saving does not stop at the regrets (the thesis keeps the
average in a table, Morrill 2016 sec. 3 "Regression CFR"; D'Orazio et al. 2019, sec. 5, name
"learning the average policies from data" as the practical alternative).

Two targets, on the same sequence features as the regret regressor:

* ``"weights"``: the cumulative strategy weights ``W(Ia) = sum_t w_t pi_i^t(Ia)`` (the
  player's realization weights, which the loop sums for the tabular average).  With
  ``bootstrap=True`` the target is the model's own last estimate plus the new weights, ``W~ +
  w_t pi_i^t`` (as thesis Algorithm 2 bootstraps regrets), so no table of the game's size is
  needed: the run's memory is the two models.  Unweighted, like the regret targets (thesis
  Algorithms 1-2 and Theorem 3.0.7 weigh every sequence's error alike).
* ``"strategy"``: the average behavioural strategy ``sigma(a|I) = W(Ia) / sum_b W(Ib)``, fit
  with sample weights ``sum_b W(Ib)`` -- the information set's reach mass, the weight with
  which its strategies enter the average (thesis sec. 3: the average strategy is the average
  of the reach probabilities) -- so the loss spends the model on the information sets the
  average actually plays.  Fit to the loop's table (stored targets).

Either way the model's output is clipped at zero and normalised per information set (uniform
where all are zero) to give the strategy it represents.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..core.errors import RcfrError
from ..policy import TabularPolicy
from ..regressors import SklearnRegressor

TARGETS = ("weights", "strategy")


class AverageStrategyModel:
    """One regressor per player fit to the average strategy (``target="strategy"``) or the
    cumulative strategy weights (``"weights"``, optionally ``bootstrap``-ed).

    ``update`` takes each iteration's realization weights (bootstrapped targets); ``refit``
    fits the stored targets from the loop's table; ``policy`` is the strategy the model
    represents; ``complexity`` its leaves or weights.
    """

    def __init__(self, regressors: Any, *, target: str = "strategy",
                 bootstrap: bool = False) -> None:
        self.regressors = regressors
        self.target = target
        self.bootstrap = bootstrap

    def initialize(self, tree, X: list[np.ndarray]) -> None:
        if self.target not in TARGETS:
            raise RcfrError(f"unknown average target {self.target!r}; use weights or strategy")
        if self.bootstrap and self.target != "weights":
            raise RcfrError("a bootstrapped average fits the cumulative strategy weights: use "
                            "the weights target")
        if isinstance(self.regressors, (list, tuple)):
            if len(self.regressors) != 2:
                raise RcfrError("give one average regressor, or two (one per player)")
            regs = list(self.regressors)
        else:
            regs = [copy.deepcopy(self.regressors) for _ in range(2)]
        self.regressors_ = [r if hasattr(r, "complexity") else SklearnRegressor(r) for r in regs]
        self.tree_ = tree
        self.X_ = X
        self.bounds_ = [(r.start, r.stop) for r in (tree.player_sequences(0),
                                                   tree.player_sequences(1))]
        self.estimates = np.zeros(tree.num_sequences)  # the model's weights (or strategy)
        self.total_ = 0.0  # sum of the averaging weights w_t so far (for "average" scaling)
        self.fitted_for_ = -1  # the iteration the stored targets were last fit at

    def _fit(self, p: int, target: np.ndarray, weight: np.ndarray | None, scale: float) -> None:
        reg = self.regressors_[p]
        average = getattr(reg, "target_scale", "cumulative") == "average" and scale > 0
        reg.fit(self.X_[p], target / scale if average else target, sample_weight=weight)
        fitted = getattr(reg, "fitted_", None)
        pred = np.asarray(reg.predict(self.X_[p]) if fitted is None else fitted, dtype=float)
        lo, hi = self.bounds_[p]
        self.estimates[lo:hi] = pred * scale if average else pred

    def update(self, player: int, increment: np.ndarray, weight: float) -> None:
        """Bootstrapped targets: refit the player's model to its estimate plus this
        iteration's average-strategy ``increment`` (``weight`` times its realization weights,
        added by the pass; ``weight`` is the iteration's averaging weight)."""
        if player == 0:
            self.total_ += weight
        lo, hi = self.bounds_[player]
        self._fit(player, self.estimates[lo:hi] + increment, None, self.total_)

    def refit(self, avg_weights: np.ndarray, iteration: int) -> None:
        """Stored targets: fit both players' models to the loop's table of cumulative strategy
        weights (once per iteration count)."""
        if self.bootstrap or self.fitted_for_ == iteration:
            return
        t = self.tree_
        starts, counts = t.infoset_seq_start, t.infoset_num_actions
        mass = np.zeros(t.num_sequences)  # sum_b W(Ib), spread over the set's sequences
        sums = np.add.reduceat(avg_weights, starts) if t.num_infosets else np.zeros(0)
        mass[:] = np.repeat(sums, counts)
        for p in (0, 1):
            lo, hi = self.bounds_[p]
            W, m = avg_weights[lo:hi], mass[lo:hi]
            if self.target == "weights":
                self._fit(p, W.copy(), None, max(float(m.max(initial=0.0)), 0.0))
            else:
                n = np.repeat(counts, counts)[lo:hi]
                sigma = np.where(m > 0, W / np.where(m > 0, m, 1.0), 1.0 / n)
                weight = m if m.sum() > 0 else None
                self._fit(p, sigma, weight, 1.0)
        self.fitted_for_ = iteration

    def policy(self, metadata: dict | None = None) -> TabularPolicy:
        """The strategy the model represents."""
        return TabularPolicy.from_weights(self.tree_, np.maximum(self.estimates, 0.0), metadata)

    @property
    def complexity(self) -> int:
        return sum(int(r.complexity) for r in getattr(self, "regressors_", []))

    def state(self) -> dict[str, np.ndarray]:
        return {"estimates": self.estimates, "total": np.array(self.total_)}

    def load_state(self, arrays: dict[str, np.ndarray]) -> None:
        estimates = np.array(arrays["estimates"], dtype=np.float64)
        if estimates.shape != self.estimates.shape:
            raise ValueError("average estimates of the wrong size")
        self.estimates = estimates
        self.total_ = float(np.asarray(arrays["total"]).reshape(()))
        self.fitted_for_ = -1
