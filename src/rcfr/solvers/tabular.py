"""The tabular regret estimator: one table of regrets over all sequences, updated by an update
rule (:mod:`rcfr.core.rules`): cumulative regrets (CFR, Zinkevich et al. 2007), Q-regrets
clipped at zero (CFR+, Tammelin 2014; Morrill 2016, eq. 2.6), discounted (LCFR / DCFR, Brown &
Sandholm 2019) or predictive (PCFR+, Farina et al. 2021)."""

from __future__ import annotations

import numpy as np

from ..core.compact import (
    CompactTables,
    compact_tables,
    decode,
    table_bytes,
)
from ..core.errors import RcfrError
from ..core.rules import (
    CLIPPED,
    DISCOUNTED,
    PLAIN,
    UpdateRule,
    link_input,
    parse_rule,
    rule_update,
)


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

    def release(self) -> None:
        """Drop the tables (the solver's :meth:`~rcfr.solvers.loop.RegretSolver.
        release_average` ends the run)."""
        self.regrets = self.prediction = self.values_ = None

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


class CompactRegrets(TabularRegrets):
    """``storage="int16"``: the regrets as int16 and the average-strategy sums as uint16, each
    with one float32 scale per information set, rounded stochastically
    (:mod:`rcfr.core.compact`; Ceraolo 2021; Bowling et al. 2015, sec. 4.2).  ``key`` (one 64-bit
    word drawn from the run's seed) keys the rounding streams; the fused passes run it, the
    Python loop does not (non-predictive rules only)."""

    def __init__(self, rule: str | UpdateRule | None = None, *, seed: int | None = None) -> None:
        super().__init__(rule)
        if self.rule.predictive:
            raise RcfrError(f"storage int16 keeps no prediction table; {self.rule.name} needs "
                            "one (use cfr, cfr+, lcfr or dcfr)")
        if self.rule.kind not in (PLAIN, CLIPPED, DISCOUNTED):
            raise RcfrError(f"storage int16 runs cfr, cfr+, lcfr and dcfr, not {self.rule.name}")
        self.key = np.random.default_rng(seed).bit_generator.random_raw(1).astype(np.uint64)

    def initialize(self, tree) -> None:
        S = tree.num_sequences
        self.bounds_ = [(r.start, r.stop) for r in (tree.player_sequences(0),
                                                   tree.player_sequences(1))]
        self.infoset_bounds_ = np.array([0, tree.num_infosets_per_player[0],
                                         tree.num_infosets], dtype=np.int64)
        self.tree_ = tree
        self.compact = compact_tables(S, tree.num_infosets)
        empty = np.zeros(0, self.dtype)
        self.regrets = self.prediction = self.values_ = empty  # (the float tables: none)

    def update(self, player: int, regrets: np.ndarray, iteration: int) -> None:
        raise RcfrError("storage int16 runs in the fused passes only")

    def decoded(self, which: str) -> np.ndarray:
        """The regrets (``"regrets"``) or average-strategy sums (``"average"``) as float64."""
        t = self.tree_
        out = np.zeros(t.num_sequences)
        C = self.compact
        q, scale = (C.regrets, C.regret_scale) if which == "regrets" else (C.average,
                                                                            C.average_scale)
        decode(q, scale, self.infoset_bounds_, t.infoset_seq_start, t.infoset_num_actions, out)
        return out

    @property
    def complexity(self) -> int:
        return int(self.compact.regrets.shape[0]) if hasattr(self, "compact") else 0

    def release(self) -> None:
        super().release()
        del self.compact

    @property
    def table_bytes(self) -> int:
        """The compressed tables' bytes (the current strategy is the solver's)."""
        return table_bytes(self.compact)

    def state(self) -> dict[str, np.ndarray]:
        return {**{f"c_{k}": v for k, v in self.compact._asdict().items()}, "key": self.key}

    def load_state(self, arrays: dict[str, np.ndarray]) -> None:
        """Take the compressed tables and the rounding key from a checkpoint (their dtypes and
        shapes must be the tables'; scales finite and >= 0)."""
        new = {}
        for k, v in self.compact._asdict().items():
            got = np.asarray(arrays[f"c_{k}"])
            if got.dtype != v.dtype or got.shape != v.shape:
                raise ValueError(f"{k}: {got.dtype}{got.shape}, expected {v.dtype}{v.shape}")
            new[k] = np.array(got)
        for k in ("regret_scale", "average_scale"):
            if not (np.isfinite(new[k]).all() and (new[k] >= 0).all()):
                raise ValueError(f"{k}: not finite and >= 0")
        key = np.asarray(arrays["key"])
        if key.dtype != np.uint64 or key.shape != (1,):
            raise ValueError("key")
        self.compact = CompactTables(**new)
        self.key = np.array(key)
