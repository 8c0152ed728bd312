"""The one solver loop (ARCHITECTURE.md): a tree pass gives counterfactual regrets, a regret
estimator absorbs them by an update rule, and a link function turns its estimates into the next
strategy.

CFR = tabular cumulative regrets + regret matching (Zinkevich et al. 2007); CFR+ = tabular
Q-regrets clipped at zero + regret matching + linear averaging (Tammelin 2014; Morrill 2016,
sec. 2.5); LCFR / DCFR / PCFR+ = other update rules (:mod:`rcfr.core.rules`).  With
alternating updates player 0's pass updates its regrets and average strategy, then player 1's
pass runs against player 0's updated strategy; with simultaneous updates both passes run at the
same strategy.

A :class:`TreePass` writes the updating players' instantaneous regrets and adds their
average-strategy increments.  The loop has one Python step over that interface (any estimator)
and, for exact (pass, rule, :class:`TabularRegrets`) combinations, one fused numba kernel per
pass (the full-width pass here, the sampled passes in :mod:`rcfr.solvers.mccfr`), which the
solver hands its state (:class:`~rcfr.forms.loop_state.LoopState`) and whose new counters it
keeps.

The full-width pass works in sequence form: a realization plan per player, one sweep over the
terminals, one backward sweep over the updating player's information sets.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..core.checks import whole_number
from ..core.errors import RcfrError
from ..core.fileio import shown
from ..core.kernels import normalize
from ..core.links import Link, apply_link, parse_link
from ..core.names import ALGORITHMS, PRUNE_NAMES, STORAGE_NAMES, TABLE_DTYPE_NAMES
from ..core.rules import UpdateRule, parse_rule
from ..core.statecheck import check_checkpoint
from ..forms.base import Capability, Form
from ..forms.compile import compile_game
from ..forms.lock import NO_LOCK, NodeLock, apply_lock
from ..forms.loop_state import PRUNE_CODES, LoopState, RegretPruning, regret_pruning
from ..policy import TabularPolicy
from .checkpoint import check_options, read_checkpoint, write_checkpoint
from .locking import LockSource, read_lock
from .tabular import CompactRegrets, TabularRegrets

AVERAGING = {"uniform": 0.0, "linear": 1.0, "quadratic": 2.0}
AVERAGING_NAMES = {v: k for k, v in AVERAGING.items()}
UNLIMITED = 1 << 62


def averaging_power(averaging: str | float) -> float:
    if isinstance(averaging, str):
        if averaging not in AVERAGING:
            raise RcfrError(f"unknown averaging {averaging!r}; use {', '.join(AVERAGING)}")
        return AVERAGING[averaging]
    try:
        power = float(averaging)
    except (TypeError, ValueError):
        power = float("nan")
    if isinstance(averaging, bool) or not np.isfinite(power) or power < 0:
        raise RcfrError("the averaging power must be a finite number >= 0")
    return power


class RegretSolver:
    """The one solver loop: a tree pass + a regret estimator + an update rule + a link.

    ``estimator`` follows :class:`~rcfr.solvers.estimator.RegretEstimator` (default: the
    tabular one with ``rule``); ``rule`` is an update rule spec or object
    (:func:`~rcfr.core.rules.parse_rule`; default the estimator's, else ``cfr``).
    ``averaging`` is ``"uniform"``, ``"linear"``, ``"quadratic"`` or a power ``g`` (iteration
    ``t`` weighs ``t**g`` in the average strategy); by default the rule's.  ``lock`` holds
    information sets' strategies fixed (node locking: a
    :class:`~rcfr.forms.lock.NodeLock`, a lock file or ``"FILE.npz:P"``,
    :func:`~rcfr.solvers.locking.read_lock`): the current strategy is held to it after every
    link, so the average strategy is the lock wherever it is reached (and is set to it
    elsewhere).  Parameters are validated in :meth:`run`.
    """

    schedules = False  # whether the solver sets a scheduled rule's parameters (ScheduledSolver)

    def __init__(self, game: Form | Any, *, estimator: Any = None,
                 rule: str | UpdateRule | None = None, link: str | Link | None = None,
                 alternating: bool = True, averaging: str | float | None = None,
                 seed: int | None = None, name: str = "cfr", lock: LockSource = None) -> None:
        self.game = game
        self.lock = lock
        self.estimator = estimator
        self.rule = rule
        self.link = link
        self.alternating = alternating
        self.averaging = averaging
        self.seed = seed
        self.name = name
        self.iteration = 0
        self.nodes_visited = 0  # histories traversed by all tree passes so far
        self._ready = False
        self._released: int | None = None  # release_average's complexity, once it ran

    # -- set-up --------------------------------------------------------------------------
    def setup(self) -> None:
        if self._ready:
            if self._released is not None:
                raise RcfrError(f"this {self.name} solver released its tables "
                                f"(release_average): it cannot run or save any more")
            return
        self.tree = compile_game(self.game)
        self.link_ = parse_link(self.link)
        dtype = self._table_dtype()
        self.estimator_ = (self.estimator if self.estimator is not None
                           else TabularRegrets(self.rule, dtype=dtype))
        self.rule_ = self._resolve_rule()
        if self.rule_.scheduled and not self.schedules:
            raise RcfrError(f"{self.rule_.name} sets its parameters every iteration: run it as "
                            f"its own algorithm (-a {self.rule_.name}), on the full-width pass")
        self.averaging_ = self._default_averaging() if self.averaging is None else self.averaging
        self.avg_power_ = averaging_power(self.averaging_)
        self.estimator_.initialize(self.tree)
        t = self.tree
        S = t.num_sequences
        self.bounds_ = np.array([0, t.num_infosets_per_player[0], t.num_infosets], dtype=np.int64)
        self.seq_bounds_ = np.array([0, t.num_sequences_per_player[0], S], dtype=np.int64)
        self.lock_ = read_lock(t, self.lock)
        if self.lock_.size and not self._locks():
            raise RcfrError(f"{self.name} cannot lock nodes (node locking runs on the "
                            "full-width solvers)")
        self.strategy_ = self.lock_.force(TabularPolicy.uniform(t).probs).astype(dtype)
        compact = getattr(self.estimator_, "compact", None) is not None  # its own average
        self.avg_weights_ = np.zeros(0 if compact else S, dtype)
        self._inst = np.zeros(0 if compact else S, dtype)
        self.pass_ = self._make_pass()
        self.fused_ = (type(self.estimator_) in (TabularRegrets, CompactRegrets)
                       and self.pass_.fuses(self.rule_))
        self._ready = True
        if self.fused_:
            self._run_fused(0, UNLIMITED)  # compile now, not inside a timed run

    @property
    def locked(self) -> NodeLock | None:
        """The node lock this solver holds (:mod:`rcfr.forms.lock`), or ``None``."""
        if not self._ready:
            self.setup()
        return self.lock_ if self.lock_.size else None

    def _locks(self) -> bool:
        """Whether this solver's pass holds a lock (the full-width passes do)."""
        return True

    def _resolve_rule(self) -> UpdateRule:
        own = getattr(self.estimator_, "rule", None)
        mine = None if self.rule is None else parse_rule(self.rule)
        if own is None:
            return mine if mine is not None else parse_rule("cfr")
        own = parse_rule(own)
        if mine is not None and mine != own:
            raise RcfrError(f"the estimator's update rule is {own}, not {mine}")
        return own

    def _table_dtype(self) -> type:
        """The floating type of the per-sequence tables (a subclass may offer float32)."""
        return np.float64

    def _default_averaging(self) -> str | float:
        """The averaging when none is given: the rule's."""
        return AVERAGING_NAMES.get(self.rule_.averaging, self.rule_.averaging)

    def _make_pass(self) -> Any:
        """The tree pass: the full-width pass of the tree's form (a subclass picks another,
        e.g. Monte Carlo sampling)."""
        return self.tree.full_width_pass()

    # -- iterations ----------------------------------------------------------------------
    def run(self, iterations: int) -> RegretSolver:
        """Advance ``iterations`` iterations."""
        iterations = whole_number(iterations, "iterations")
        self.setup()
        if self.fused_:
            self._run_fused(iterations, UNLIMITED)
        else:
            for _ in range(iterations):
                self._step()
        return self

    def run_nodes(self, budget: int) -> RegretSolver:
        """Advance whole iterations until ``budget`` more histories have been visited (the last
        iteration may overshoot): the cost measure of Gibson et al. 2012, sec. 5.  A
        full-width pass for one player visits every history once."""
        budget = whole_number(budget, "the node budget")
        self.setup()
        if self.fused_:
            self._run_fused(UNLIMITED, budget)
        else:
            target = self.nodes_visited + budget
            while self.nodes_visited < target:
                self._step()
        return self

    def _loop_state(self) -> LoopState:
        """The loop as a fused pass sees it: this solver's tables, counters and parameters
        (:class:`~rcfr.forms.loop_state.LoopState`; a subclass adds what its pass draws)."""
        est = self.estimator_
        compact = getattr(est, "compact", None)  # storage="int16"
        return LoopState(self.iteration, self.nodes_visited, self.alternating, self.avg_power_,
                         self.rule_.params, self.link_.kind, self.link_.param, est.regrets,
                         est.prediction, est.values_, self.strategy_, self.avg_weights_,
                         self._inst, compact, np.uint64(0) if compact is None else est.key[0],
                         lock=self.lock_)

    def _run_fused(self, max_iters: int, node_budget: int) -> None:
        """Whole iterations in the pass's fused kernel, until ``max_iters`` iterations or
        ``node_budget`` histories; the tables change in place, the counters come back."""
        self.iteration, self.nodes_visited = self.pass_.run_fused(self._loop_state(),
                                                                  max_iters, node_budget)

    def _step(self) -> None:
        """One iteration through Python over the tree pass, for any estimator."""
        t = self.tree
        self.iteration += 1
        weight = float(self.iteration) ** self.avg_power_
        hook = getattr(self, "average_hook_", None)  # an average strategy by regression
        for group in ((0,), (1,)) if self.alternating else ((0, 1),):
            before = None if hook is None else self.avg_weights_.copy()
            self.nodes_visited += int(self.pass_.run(group, self.strategy_, weight,
                                                     self.avg_weights_, self._inst))
            for p in group:
                if hook is not None:  # the pass's average-strategy increments, to the hook
                    lo, hi = self.seq_bounds_[p], self.seq_bounds_[p + 1]
                    hook(p, self.avg_weights_[lo:hi] - before[lo:hi], weight)
                self.estimator_.update(p, self._inst, self.iteration)
                apply_link(self.link_.kind, self.link_.param, self.estimator_.predict(p),
                           self.bounds_[p], self.bounds_[p + 1], t.infoset_seq_start,
                           t.infoset_num_actions, self.strategy_)
                apply_lock(self.lock_, p, self.strategy_)

    # -- outputs -------------------------------------------------------------------------
    def _info(self) -> dict[str, Any]:
        info = {"algorithm": self.name, "iterations": self.iteration,
                "rule": self.rule_.spec(), "link": self.link_.spec(),
                "alternating": self.alternating, "averaging": self.averaging_,
                "seed": self.seed, "nodes_visited": self.nodes_visited}
        info.update(self.tree.file_meta())  # files say which form they index
        lock = getattr(self, "lock_", NO_LOCK)
        if lock.size:  # (recorded only where set: files without a lock stay as they were)
            info["lock"] = lock.digest()
            info["locked_infosets"] = [lock.infosets(0), lock.infosets(1)]
            if not hasattr(self.lock, "seq"):
                info["lock_source"] = str(self.lock)
        return info

    # what a resumed run must share (lock: the digest of the locked sequences' probabilities)
    _config_keys: tuple[str, ...] = ("rule", "link", "alternating", "averaging", "lock")

    def _extra_state(self) -> dict[str, np.ndarray]:
        """Hook: arrays a subclass adds to its checkpoints (e.g. a random generator's state)."""
        return {}

    def _load_extra_state(self, arrays: dict[str, np.ndarray]) -> None:
        """Hook: take the subclass's arrays back from a checkpoint (``KeyError`` or
        ``ValueError`` when they are missing or malformed)."""

    def _check_resume(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        """Hook: refuse (``RcfrError``) a well-formed checkpoint this solver cannot resume."""

    @property
    def complexity(self) -> int:
        """The estimator's size: a table's sequences, regression-tree leaves or linear
        weights (both players together)."""
        if self._released is not None:
            return self._released
        self.setup()
        return int(self.estimator_.complexity)

    @property
    def complexity_share(self) -> float:
        """Complexity as a share of the game's sequences (the thesis's x axis)."""
        return self.complexity / self.tree.num_sequences

    def average_policy(self) -> TabularPolicy:
        """The average strategy (the one that converges to an equilibrium)."""
        self.setup()
        compact = getattr(self.estimator_, "compact", None) is not None  # decoded afresh
        policy = TabularPolicy.from_weights(self.tree, self.average_weights(), self._info(),
                                            consume=compact)
        self.lock_.force(policy.probs)  # (where unreached, the average is uniform: the lock)
        return policy

    def average_weights(self) -> np.ndarray:
        """The average-strategy sums over sequences (decoded from compressed tables)."""
        self.setup()
        if getattr(self.estimator_, "compact", None) is not None:
            return self.estimator_.decoded("average")
        return self.avg_weights_

    @property
    def releasable(self) -> bool:
        """Whether :meth:`release_average` gives this solver's average (its tabular sums)."""
        return True

    def release_average(self) -> np.ndarray:
        """End the run: the average strategy's probabilities over sequences in the tables' own
        precision (float32 tables: a float32 profile), normalised in place of the average
        sums after the regret and current-strategy tables are dropped, so the profile costs
        no second vector over the sequences.  For evaluating the end of a run that does not
        fit beside the solver's tables (:func:`rcfr.run.engine.drive`'s ``release``); the
        solver cannot run, checkpoint or give its average again."""
        self.setup()
        complexity = self.complexity
        self.pass_ = self.strategy_ = self._inst = None  # (the full-width pass's plan too)
        self.fused_ = False
        weights = self.average_weights()  # (compressed tables: decoded afresh, float64)
        release = getattr(self.estimator_, "release", None)  # (a given estimator is kept)
        if callable(release):
            release()
        self.estimator_ = self.avg_weights_ = None
        self._released = complexity
        t = self.tree
        normalize(weights, 0, t.num_infosets, t.infoset_seq_start, t.infoset_num_actions,
                  weights)
        return self.lock_.force(weights)

    def current_policy(self) -> TabularPolicy:
        """The current strategy (the link applied to the current estimates)."""
        self.setup()
        return TabularPolicy(self.tree, self.strategy_.copy(), self._info())

    # -- checkpoints ---------------------------------------------------------------------
    def save_checkpoint(self, path: str | os.PathLike) -> None:
        """Write the solver's full state (``.npz`` + JSON header, atomic); the header records
        the algorithm, the update rule and the options a resumed run must share."""
        self.setup()
        write_checkpoint(path, self.tree, self._info(), self._state_arrays())

    def _state_arrays(self) -> dict[str, np.ndarray]:
        """The arrays of a checkpoint (and, of a solver just set up, the template a loaded
        checkpoint's values are checked against)."""
        arrays = {"strategy": self.strategy_, "avg_weights": self.avg_weights_}
        arrays.update({f"estimator_{k}": v for k, v in self.estimator_.state().items()})
        arrays.update(self._extra_state())
        return arrays

    def load_checkpoint(self, path: str | os.PathLike) -> RegretSolver:
        """Resume from a checkpoint of the same game, algorithm and update rule."""
        name = shown(path)
        self.setup()
        arrays, meta = read_checkpoint(path, self.tree, self.name)
        mine = self._info()
        if "rule" not in meta:
            raise RcfrError(f"{name} records no update rule (an rcfr from before rules were "
                            "recorded wrote it); start the run afresh")
        meta.setdefault("dtype", "float64")  # before float32 tables
        meta.setdefault("storage", "float")  # before compressed tables
        check_options(path, meta, {key: mine.get(key) for key in self._config_keys})
        S = self.tree.num_sequences
        opaque = getattr(self.estimator_, "opaque_state", ())
        check_checkpoint(name, arrays, self._state_arrays(),
                         tuple(f"estimator_{k}" for k in opaque),
                         growing=("estimator_reg",))  # (the regressors' trees grow)
        self._check_resume(arrays, meta)
        try:
            with np.errstate(invalid="raise", over="raise"):  # e.g. NaN cast to an integer
                self._read_state(arrays, meta, S)
        except (KeyError, ValueError, TypeError, IndexError, OverflowError, FloatingPointError):
            raise RcfrError(f"{name} is corrupted: its arrays do not fit the game") from None
        return self

    def _read_state(self, arrays: dict, meta: dict, S: int) -> None:
        """Check and take the state of a checkpoint's arrays (raises on corruption)."""
        state = {k[len("estimator_"):]: v for k, v in arrays.items()
                 if k.startswith("estimator_")}
        strategy = np.array(arrays["strategy"], dtype=self.strategy_.dtype)
        avg = np.array(arrays["avg_weights"], dtype=self.avg_weights_.dtype)
        if strategy.shape != (S,) or avg.shape != self.avg_weights_.shape:
            raise KeyError("shape")
        iteration, nodes_visited = meta.get("iterations", 0), meta.get("nodes_visited", 0)
        if not all(type(v) is int and 0 <= v <= 2**62 for v in (iteration, nodes_visited)):
            raise ValueError("counts")
        self.estimator_.load_state(state)
        self._load_extra_state(arrays)
        self.strategy_, self.avg_weights_ = strategy, avg
        self.iteration, self.nodes_visited = iteration, nodes_visited




TABLE_DTYPES = {name: np.dtype(name).type for name in TABLE_DTYPE_NAMES}  # the tables' dtype


class CFRSolver(RegretSolver):
    """The tabular instances of the loop, one per update rule (:mod:`rcfr.core.rules`):
    CFR (``algorithm="cfr"``: cumulative regrets, uniform averaging; Zinkevich et al. 2007),
    CFR+ (``"cfr+"``: regret-matching+, linear averaging; Tammelin et al. 2015), Linear and
    Discounted CFR (``"lcfr"``, ``"dcfr"`` or ``"dcfr:alpha,beta,gamma"``; Brown & Sandholm
    2019), predictive CFR+ (``"pcfr+"``; Farina et al. 2021) and predictive discounted CFR+
    (``"pdcfr+"``; Xu et al. 2024).  ``algorithm`` may also be an
    :class:`~rcfr.core.rules.UpdateRule`; ``lock``: node locking (:class:`RegretSolver`).
    ``prune="partial"`` lets the full-width pass skip what the opponent cannot reach
    (exact: the same numbers as ``"none"``, bit for bit; the default, ``None``, lets the
    form choose: partial on the public form, where it pays); ``"regret"`` adds
    regret-based pruning (CFR on the history form; Brown & Sandholm 2015: not the unpruned
    numbers, CFR's guarantee).
    """

    _config_keys = RegretSolver._config_keys + ("dtype", "storage")

    def __init__(self, game: Form | Any, algorithm: str | UpdateRule = "cfr", *,
                 alternating: bool = True, averaging: str | float | None = None,
                 link: str | Link | None = None, seed: int | None = None,
                 dtype: str = "float64", storage: str = "float",
                 lock: LockSource = None, prune: str | None = None) -> None:
        self.dtype = dtype
        self.storage = storage
        self.prune = prune
        if isinstance(algorithm, UpdateRule):
            rule = algorithm
        else:
            key = str(algorithm).strip().lower()
            if key.partition(":")[0] not in ALGORITHMS:
                raise RcfrError(f"unknown algorithm {algorithm!r}; use one of "
                                f"{', '.join(ALGORITHMS)}")
            rule = parse_rule(key)
        key = str(storage).strip().lower()
        if key not in STORAGE_NAMES:
            raise RcfrError(f"storage must be one of {', '.join(STORAGE_NAMES)}, got {storage!r}")
        self.storage_ = key
        self.prune_ = "auto" if prune is None else str(prune).strip().lower()
        if self.prune_ not in (*PRUNE_NAMES, "auto"):
            raise RcfrError(f"prune must be one of {', '.join(PRUNE_NAMES)}, got {prune!r}")
        if self.prune_ == "regret" and (rule.name != "cfr" or key == "int16"):
            raise RcfrError("regret-based pruning (prune regret) runs with cfr on float "
                            "tables: its windows' bound and catch-up are for cumulative "
                            f"regrets, not {rule.name}" + (" on int16" if key == "int16" else ""))
        self.regret_pruning_: RegretPruning | None = None
        estimator = (CompactRegrets(rule, seed=0 if seed is None else seed) if key == "int16"
                     else TabularRegrets(rule))
        super().__init__(game, estimator=estimator, rule=rule, link=link,
                         alternating=alternating, averaging=averaging, seed=seed,
                         name=rule.name, lock=lock)

    def _table_dtype(self) -> type:
        """``dtype="float32"``: the regrets, current and average strategies in single precision
        (half the memory; the arithmetic stays double).  Checkpoints record it."""
        key = str(self.dtype).strip().lower()
        if key not in TABLE_DTYPES:
            raise RcfrError(f"dtype must be float64 or float32, got {self.dtype!r}")
        self.dtype_ = key
        self.estimator.dtype = TABLE_DTYPES[key]
        return TABLE_DTYPES[key]

    def _info(self) -> dict[str, Any]:
        return {**super()._info(), "dtype": self.dtype_, "storage": self.storage_,
                "prune": self.prune_}

    def _loop_state(self) -> LoopState:
        state = super()._loop_state()._replace(prune=PRUNE_CODES[self.prune_])
        if self.prune_ != "regret":
            return state
        if self.regret_pruning_ is None:
            if not self.tree.supports(Capability.REGRET_PRUNING):
                raise RcfrError(f"regret-based pruning runs on the history form, not the "
                                f"{self.tree.form} form of {self.tree.game} (--form history)")
            self.regret_pruning_ = regret_pruning(self.tree.num_sequences,
                                                  self.tree.num_terminals)
        return state._replace(regret_pruning=self.regret_pruning_)

    def pruned_fraction(self, by: str = "partial") -> float:
        """The fraction of the terminal sweeps' terminals (public terminals in the public form)
        skipped so far, both players together: for the opponent's zero reach (``by=
        "partial"``) or by regret-based pruning (``"regret"``)."""
        stats = getattr(self.pass_, "stats", None)
        swept = 0 if stats is None else int(stats[:, 2].sum())
        column = 1 if by == "regret" else 0
        return int(stats[:, column].sum()) / swept if swept else 0.0

    def _extra_state(self) -> dict[str, np.ndarray]:
        if self.prune_ != "regret":
            return {}
        self._loop_state()  # (the state exists)
        return {f"prune_{k}": v for k, v in self.regret_pruning_._asdict().items()}

    def _load_extra_state(self, arrays: dict[str, np.ndarray]) -> None:
        if self.prune_ != "regret" or "prune_until" not in arrays:
            return  # (no window open: a run without regret-based pruning)
        fresh = self.regret_pruning_
        loaded = RegretPruning(*(np.array(arrays[f"prune_{k}"], dtype=getattr(fresh, k).dtype)
                                 for k in RegretPruning._fields))
        for k in RegretPruning._fields:
            if getattr(loaded, k).shape != getattr(fresh, k).shape:
                raise ValueError(k)
        for k in RegretPruning._fields:  # (in place: the pass holds no copy)
            getattr(fresh, k)[...] = getattr(loaded, k)

    def _check_resume(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        was = meta.get("prune", "partial")
        if was == "regret" != self.prune_ and np.any(np.asarray(
                arrays.get("prune_until", 0)) > 0):
            raise RcfrError(f"this checkpoint was run with prune regret and has pruned windows "
                            f"open; resume it with prune regret, not {self.prune_}")

    def _read_state(self, arrays: dict, meta: dict, S: int) -> None:
        if self.prune_ == "regret":
            self._loop_state()
            for k in RegretPruning._fields:  # a checkpoint without windows: none open
                getattr(self.regret_pruning_, k)[...] = 0
        super()._read_state(arrays, meta, S)
