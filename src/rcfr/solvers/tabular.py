"""The tabular regret estimator: one table of regrets over all sequences, updated by an update
rule (:mod:`rcfr.core.rules`): cumulative regrets (CFR, Zinkevich et al. 2007), Q-regrets
clipped at zero (CFR+, Tammelin 2014; Morrill 2016, eq. 2.6), discounted (LCFR / DCFR, Brown &
Sandholm 2019) or predictive (PCFR+, Farina et al. 2021)."""

from __future__ import annotations

import numpy as np

from ..core.rules import UpdateRule, link_input, parse_rule, rule_update


class TabularRegrets:
    """One table of regrets over all sequences, updated by ``rule`` (a spec string or an
    :class:`~rcfr.core.rules.UpdateRule`; default ``cfr``).

    The solvers run exactly this class inside their fused numba kernels; a subclass always goes
    through the Python loop, so its own :meth:`update` is called."""

    def __init__(self, rule: str | UpdateRule | None = None, *,
                 dtype: type = np.float64) -> None:
        self.rule = parse_rule("cfr" if rule is None else rule)
        self.dtype = dtype  # of the tables (float32: half the memory, opt-in)
        self.regrets: np.ndarray | None = None

    def initialize(self, tree) -> None:
        S = tree.num_sequences
        self.bounds_ = [(r.start, r.stop) for r in (tree.player_sequences(0),
                                                   tree.player_sequences(1))]
        self.regrets = np.zeros(S, self.dtype)
        self.prediction = np.zeros(S, self.dtype)  # the last instantaneous regrets (predictive)
        self.values_ = np.zeros(S, self.dtype)  # what the link reads, for predictive rules

    def update(self, player: int, regrets: np.ndarray, iteration: int) -> None:
        lo, hi = self.bounds_[player]
        rule_update(self.rule.params, iteration, regrets, lo, hi, self.regrets, self.prediction)

    def predict(self, player: int) -> np.ndarray:
        lo, hi = self.bounds_[player]
        return link_input(self.rule.params, self.regrets, self.prediction, lo, hi, self.values_)

    @property
    def complexity(self) -> int:
        return 0 if self.regrets is None else int(self.regrets.shape[0])

    def state(self) -> dict[str, np.ndarray]:
        out = {"regrets": self.regrets}
        if self.rule.predictive:
            out["prediction"] = self.prediction
        return out

    def load_state(self, arrays: dict[str, np.ndarray]) -> None:
        """Take regrets (and predictions) from a checkpoint; their shape must match the table
        (the kernels do not check bounds)."""
        regrets = np.array(arrays["regrets"], dtype=self.dtype)
        if self.regrets is not None and regrets.shape != self.regrets.shape:
            raise ValueError(f"regrets of shape {regrets.shape}, expected {self.regrets.shape}")
        if self.rule.predictive:
            prediction = np.array(arrays["prediction"], dtype=self.dtype)
            if prediction.shape != regrets.shape:
                raise ValueError("predictions of the wrong shape")
            self.prediction = prediction
        self.regrets = regrets
