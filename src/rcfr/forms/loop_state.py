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
# a full-width pass's pruning (LoopState.prune); AUTO: the form's choice (partial where it
# pays: the public form; both are exact)
NONE, PARTIAL, REGRET, AUTO = 0, 1, 2, 3
PRUNE_CODES = {"none": NONE, "partial": PARTIAL, "regret": REGRET, "auto": AUTO}


class RegretPruning(NamedTuple):
    """The loop's state of regret-based pruning (:mod:`rcfr.forms.history.regret_pruning`;
    kept in checkpoints): per sequence the last iteration of its window (0: none) and its
    skipped ``-v(I)`` sums; per sequence the running sum of its player's realization weights
    as the opponent's passes read them (padded); per updating player and terminal that sum at
    the start of the window the player's side of the terminal lies in."""

    until: np.ndarray  # int64 (sequences,)
    pend: np.ndarray  # float64 (sequences,)
    cum: np.ndarray  # float64 (sequences + 2,)
    snap: np.ndarray  # float64 (2, terminals)


def regret_pruning(num_sequences: int, num_terminals: int) -> RegretPruning:
    """A regret-based pruning state with no window open."""
    return RegretPruning(np.zeros(num_sequences, dtype=np.int64), np.zeros(num_sequences),
                         np.zeros(num_sequences + 2), np.zeros((2, num_terminals)))


NO_PRUNING = regret_pruning(0, 0)
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
    applies it after each player's link).  ``prune``: what a full-width pass skips
    (:data:`NONE`; :data:`PARTIAL`: the terminals the opponent cannot reach, exact, the
    unpruned pass's numbers bit for bit; :data:`REGRET`: that and regret-based pruning, whose
    state is ``regret_pruning``; :data:`AUTO`: the form's choice of the first two)."""

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
    prune: int = NONE
    regret_pruning: RegretPruning = NO_PRUNING

    def advanced(self, iterations: int, nodes: int) -> Counters:
        """The counters after ``iterations`` more iterations that visited ``nodes``
        histories."""
        return Counters(self.iteration + int(iterations), self.nodes_visited + int(nodes))
