"""The solver loop's state as a fused pass sees it (ARCHITECTURE.md, "One loop"): the tables,
the counters, the update rule's and the link's parameters and, for sampled passes, the random
generator and the lazily discounted regrets.  The solver builds a :class:`LoopState` from its
own fields, a pass's ``run_fused`` runs whole iterations on it in one numba kernel (the arrays
change in place) and returns the new :class:`Counters`, which the solver keeps; no pass reads
or writes a solver."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..core.compact import CompactTables
from ..core.rules import LazyDiscount, RuleParams, lazy_discount
from .lock import NO_LOCK, NodeLock

NO_LAZY = lazy_discount(np.zeros(0), 0)  # a state with no lazy discount (its arrays empty)
NO_RNG = np.zeros(1, dtype=np.uint64)  # the generator word of a pass that draws nothing


class Counters(NamedTuple):
    """The loop's counters: iterations done and histories visited (the cost measure of Gibson
    et al. 2012, sec. 5)."""

    iteration: int
    nodes_visited: int


class LoopState(NamedTuple):
    """What a fused pass reads and writes of the solver loop (the arrays are the solver's,
    written in place).

    The tables are indexed by sequence: ``regrets``, ``prediction`` (the last instantaneous
    regrets, predictive rules) and ``values`` (what the link reads) are the tabular
    estimator's; ``compact`` and ``key`` its compressed tables and their rounding key instead
    (``storage="int16"``, :mod:`rcfr.core.compact`), else ``None`` and 0.  ``strategy`` is the
    current strategy, ``avg_weights`` the average-strategy sums and ``inst`` the instantaneous
    regrets (scratch the sampled passes share with the Python step).  ``rule`` is the update
    rule's :class:`~rcfr.core.rules.RuleParams`, ``link_kind`` / ``link_param`` the link's,
    ``avg_power`` the averaging power (iteration ``t`` weighs ``t**avg_power``).  A sampled
    pass draws from ``rng`` (one SplitMix64 word) and, with ``lazily``, absorbs discounted
    regrets through ``lazy`` (:class:`~rcfr.core.rules.LazyDiscount`).  ``lock`` holds
    information sets' current strategy fixed (:mod:`rcfr.forms.lock`; a full-width pass
    applies it after each player's link)."""

    iteration: int
    nodes_visited: int
    alternating: bool
    avg_power: float
    rule: RuleParams
    link_kind: int
    link_param: float
    regrets: np.ndarray
    prediction: np.ndarray
    values: np.ndarray
    strategy: np.ndarray
    avg_weights: np.ndarray
    inst: np.ndarray
    compact: CompactTables | None = None
    key: np.uint64 = np.uint64(0)
    rng: np.ndarray = NO_RNG
    lazy: LazyDiscount = NO_LAZY
    lazily: bool = False
    lock: NodeLock = NO_LOCK

    def advanced(self, iterations: int, nodes: int) -> Counters:
        """The counters after ``iterations`` more iterations that visited ``nodes``
        histories."""
        return Counters(self.iteration + int(iterations), self.nodes_visited + int(nodes))
