"""The one solver loop (ARCHITECTURE.md): a tree pass gives counterfactual regrets, a regret
estimator absorbs them by an update rule, and a link function turns its estimates into the next
strategy.

CFR = tabular cumulative regrets + regret matching (Zinkevich et al. 2007); CFR+ = tabular
Q-regrets clipped at zero + regret matching + linear averaging (Tammelin 2014; Morrill 2016,
sec. 2.5); LCFR / DCFR / PCFR+ = other update rules (:mod:`rcfr.solvers.rules`).  With
alternating updates player 0's pass updates its regrets and average strategy, then player 1's
pass runs against player 0's updated strategy; with simultaneous updates both passes run at the
same strategy.

A :class:`TreePass` writes the updating players' instantaneous regrets and adds their
average-strategy increments.  The loop has one Python step over that interface (any estimator)
and, for exact (pass, rule, :class:`TabularRegrets`) combinations, one fused numba kernel per
pass: the full-width pass here, the sampled passes in :mod:`rcfr.solvers.sampling`.

The full-width pass works in sequence form: a realization plan per player, one sweep over the
terminals, one backward sweep over the updating player's information sets.
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple, Protocol

import numpy as np
from numba import njit

from .. import kernels as K
from ..errors import RcfrError
from ..fileio import check_game_matches, read_npz, write_npz
from ..links import Link, apply_link, parse_link
from ..policy import TabularPolicy
from ..tree import GameTree, compile_game
from .checks import whole_number
from .rules import UpdateRule, link_input, parse_rule, rule_update
from .tabular import TabularRegrets, legacy_rule

CHECKPOINT_FORMAT = "rcfr.checkpoint"
AVERAGING = {"uniform": 0.0, "linear": 1.0, "quadratic": 2.0}
AVERAGING_NAMES = {v: k for k, v in AVERAGING.items()}
UNLIMITED = 1 << 62
# the rule of a checkpoint written before rules were recorded, by its algorithm
LEGACY_RULES = {"cfr": "cfr", "cfr+": "cfr+", "rcfr": "cfr", "rcfr+": "cfr+", "cs": "cfr",
                "es": "cfr", "os": "cfr", "as": "cfr"}


class FullTree(NamedTuple):
    """The compiled tree's arrays that the full-width pass reads."""

    bounds: np.ndarray  # information sets of player p: [bounds[p], bounds[p + 1])
    seq_bounds: np.ndarray  # sequences of player p: [seq_bounds[p], seq_bounds[p + 1])
    seq_start: np.ndarray
    num_actions: np.ndarray
    parent_seq: np.ndarray
    term_seq: np.ndarray
    term_coef: np.ndarray


class FullWork(NamedTuple):
    """Scratch arrays of the full-width pass (``plan`` and ``acc`` padded)."""

    plan: np.ndarray
    acc: np.ndarray
    inst: np.ndarray


def full_tree(tree: GameTree) -> FullTree:
    return FullTree(
        np.array([0, tree.num_infosets_per_player[0], tree.num_infosets], dtype=np.int64),
        np.array([0, tree.num_sequences_per_player[0], tree.num_sequences], dtype=np.int64),
        tree.infoset_seq_start, tree.infoset_num_actions, tree.infoset_parent_seq,
        tree.terminal_seq, tree.terminal_coef)


@njit(cache=True)
def accumulate_average(plan, weight, s_lo, s_hi, avg):
    """Add ``weight`` times the player's realization weights to the average-strategy sums."""
    for s in range(s_lo, s_hi):
        avg[s] += weight * plan[s]


@njit(cache=True)
def player_regrets(player, strategy, tree, plan, acc, inst):
    """Full-width pass for ``player``: ``inst`` gets its instantaneous counterfactual regrets
    (``plan`` must hold the opponent's realization plan).  Returns the player's value."""
    K.terminal_values(player, plan, tree.term_seq, tree.term_coef, tree.seq_bounds[player],
                      tree.seq_bounds[player + 1], acc)
    return K.counterfactual_regrets(player, strategy, tree.bounds[player],
                                    tree.bounds[player + 1], tree.seq_start, tree.num_actions,
                                    tree.parent_seq, acc, inst)


@njit(cache=True)
def full_width_pass(p_lo, p_hi, weight, tree, strategy, avg, work, stale_lo=0, stale_hi=2):
    """Players ``[p_lo, p_hi)`` at the same strategy: their regrets into ``work.inst`` and
    ``weight`` times their realization plans into the average-strategy sums.  The realization
    plans of players ``[stale_lo, stale_hi)`` are recomputed; the others' must be current in
    ``work.plan``."""
    K.realization_plan(strategy, tree.bounds[stale_lo], tree.bounds[stale_hi], tree.seq_start,
                       tree.num_actions, tree.parent_seq, work.plan)
    for p in range(p_lo, p_hi):
        player_regrets(p, strategy, tree, work.plan, work.acc, work.inst)
    for p in range(p_lo, p_hi):
        accumulate_average(work.plan, weight, tree.seq_bounds[p], tree.seq_bounds[p + 1], avg)


@njit(cache=True)
def absorb(p, t, rule, link_kind, link_param, tree, inst, regrets, prediction, values,
           strategy):
    """Tabular estimator: player ``p``'s regrets by ``rule``, then the link on its sets."""
    lo, hi = tree.seq_bounds[p], tree.seq_bounds[p + 1]
    rule_update(rule, t, inst, lo, hi, regrets, prediction)
    x = link_input(rule, regrets, prediction, lo, hi, values)
    apply_link(link_kind, link_param, x, tree.bounds[p], tree.bounds[p + 1], tree.seq_start,
               tree.num_actions, strategy)


@njit(cache=True)
def run_tabular(n_iters, t0, alternating, avg_power, rule, link_kind, link_param, tree,
                regrets, prediction, values, strategy, avg, work):
    """``n_iters`` iterations of the loop with the tabular estimator, entirely in numba."""
    for it in range(n_iters):
        t = t0 + it + 1
        weight = float(t) ** avg_power
        if alternating:  # after the first pass only the last updated player's plan is stale
            for p in range(2):
                first = it == 0 and p == 0
                full_width_pass(p, p + 1, weight, tree, strategy, avg, work,
                                0 if first else 1 - p, 2 if first else 2 - p)
                absorb(p, t, rule, link_kind, link_param, tree, work.inst, regrets, prediction,
                       values, strategy)
        else:
            full_width_pass(0, 2, weight, tree, strategy, avg, work)
            for p in range(2):
                absorb(p, t, rule, link_kind, link_param, tree, work.inst, regrets, prediction,
                       values, strategy)


class TreePass(Protocol):
    """A tree pass of the loop (ARCHITECTURE.md): full width or sampled."""

    def run(self, players: tuple[int, ...], strategy: np.ndarray, weight: float,
            avg: np.ndarray, inst: np.ndarray) -> int:
        """Write the instantaneous regrets of ``players`` (updated at the same ``strategy``)
        into ``inst``, add ``weight`` times their average-strategy increments to ``avg`` and
        return the number of histories visited."""

    def fuses(self, rule: UpdateRule) -> bool:
        """Whether :meth:`run_fused` runs this rule with the tabular estimator."""

    def run_fused(self, solver: RegretSolver, max_iters: int, node_budget: int) -> None:
        """Iterations with :class:`TabularRegrets` in one numba kernel, advancing the solver's
        ``iteration`` and ``nodes_visited``, until ``max_iters`` iterations or ``node_budget``
        histories (whole iterations)."""


class FullWidthPass:
    """The exact pass (Zinkevich et al. 2007, eq. 7) over every history, in sequence form."""

    def __init__(self, tree: GameTree) -> None:
        self.tree = tree
        self.arrays = full_tree(tree)
        S = tree.num_sequences
        self.work = FullWork(K.padded(S), np.zeros(S + 2), np.zeros(S))

    def run(self, players, strategy, weight, avg, inst) -> int:
        full_width_pass(players[0], players[-1] + 1, weight, self.arrays, strategy, avg,
                        self.work._replace(inst=inst))
        return len(players) * self.tree.num_nodes

    def fuses(self, rule: UpdateRule) -> bool:
        return True

    def run_fused(self, solver: RegretSolver, max_iters: int, node_budget: int) -> None:
        per = 2 * self.tree.num_nodes  # one full pass per player
        iterations = min(max_iters, max(1, -(-node_budget // per)))
        est = solver.estimator_
        run_tabular(iterations, solver.iteration, solver.alternating, solver.avg_power_,
                    solver.rule_.params, solver.link_.kind, solver.link_.param, self.arrays,
                    est.regrets, est.prediction, est.values_, solver.strategy_,
                    solver.avg_weights_, self.work)
        solver.iteration += iterations
        solver.nodes_visited += iterations * per


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
    (:func:`~rcfr.solvers.rules.parse_rule`; default the estimator's, else ``cfr``).
    ``averaging`` is ``"uniform"``, ``"linear"``, ``"quadratic"`` or a power ``g`` (iteration
    ``t`` weighs ``t**g`` in the average strategy); by default the rule's.  Parameters are
    validated in :meth:`run`.
    """

    def __init__(self, game: GameTree | Any, *, estimator: Any = None,
                 rule: str | UpdateRule | None = None, link: str | Link | None = None,
                 alternating: bool = True, averaging: str | float | None = None,
                 seed: int | None = None, name: str = "cfr") -> None:
        self.game = game
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

    # -- set-up --------------------------------------------------------------------------
    def _setup(self) -> None:
        if self._ready:
            return
        self.tree = compile_game(self.game)
        self.link_ = parse_link(self.link)
        dtype = self._table_dtype()
        self.estimator_ = (self.estimator if self.estimator is not None
                           else TabularRegrets(legacy_rule(self.rule), dtype=dtype))
        self.rule_ = self._resolve_rule()
        self.averaging_ = self._default_averaging() if self.averaging is None else self.averaging
        self.avg_power_ = averaging_power(self.averaging_)
        self.estimator_.initialize(self.tree)
        t = self.tree
        S = t.num_sequences
        self.bounds_ = np.array([0, t.num_infosets_per_player[0], t.num_infosets], dtype=np.int64)
        self.seq_bounds_ = np.array([0, t.num_sequences_per_player[0], S], dtype=np.int64)
        self.strategy_ = TabularPolicy.uniform(t).probs.astype(dtype)
        self.avg_weights_ = np.zeros(S, dtype)
        self._inst = np.zeros(S, dtype)
        self.pass_ = self._make_pass()
        self.fused_ = type(self.estimator_) is TabularRegrets and self.pass_.fuses(self.rule_)
        self._ready = True
        if self.fused_:
            self.pass_.run_fused(self, 0, UNLIMITED)  # compile now, not inside a timed run

    def _resolve_rule(self) -> UpdateRule:
        own = getattr(self.estimator_, "rule", None)
        mine = None if self.rule is None else parse_rule(legacy_rule(self.rule))
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

    def _make_pass(self) -> TreePass:
        """The tree pass: the full-width pass of the tree's form (a subclass picks another,
        e.g. Monte Carlo sampling)."""
        if getattr(self.tree, "form", None) == "public":
            from ..public_passes import PublicFullWidthPass

            return PublicFullWidthPass(self.tree)
        return FullWidthPass(self.tree)

    # -- iterations ----------------------------------------------------------------------
    def run(self, iterations: int) -> RegretSolver:
        """Advance ``iterations`` iterations."""
        iterations = whole_number(iterations, "iterations")
        self._setup()
        if self.fused_:
            self.pass_.run_fused(self, iterations, UNLIMITED)
        else:
            for _ in range(iterations):
                self._step()
        return self

    def run_nodes(self, budget: int) -> RegretSolver:
        """Advance whole iterations until ``budget`` more histories have been visited (the last
        iteration may overshoot): the cost measure of Gibson et al. 2012, sec. 5.  A
        full-width pass for one player visits every history once."""
        budget = whole_number(budget, "the node budget")
        self._setup()
        if self.fused_:
            self.pass_.run_fused(self, UNLIMITED, budget)
        else:
            target = self.nodes_visited + budget
            while self.nodes_visited < target:
                self._step()
        return self

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

    # -- outputs -------------------------------------------------------------------------
    def _info(self) -> dict[str, Any]:
        info = {"algorithm": self.name, "iterations": self.iteration,
                "rule": self.rule_.spec(), "link": self.link_.spec(),
                "alternating": self.alternating, "averaging": self.averaging_,
                "seed": self.seed, "nodes_visited": self.nodes_visited}
        if getattr(self.tree, "form", None) == "public":
            info["form"] = "public"  # files say which form they index
        return info

    _config_keys: tuple[str, ...] = ("rule", "link", "alternating", "averaging")  # to resume

    def _extra_state(self) -> dict[str, np.ndarray]:
        """Hook: arrays a subclass adds to its checkpoints (e.g. a random generator's state)."""
        return {}

    def _load_extra_state(self, arrays: dict[str, np.ndarray]) -> None:
        """Hook: take the subclass's arrays back from a checkpoint (``KeyError`` or
        ``ValueError`` when they are missing or malformed)."""

    @property
    def complexity(self) -> int:
        """The estimator's size: a table's sequences, regression-tree leaves or linear
        weights (both players together)."""
        self._setup()
        return int(self.estimator_.complexity)

    @property
    def complexity_share(self) -> float:
        """Complexity as a share of the game's sequences (the thesis's x axis)."""
        return self.complexity / self.tree.num_sequences

    def average_policy(self) -> TabularPolicy:
        """The average strategy (the one that converges to an equilibrium)."""
        self._setup()
        return TabularPolicy.from_weights(self.tree, self.avg_weights_, self._info())

    def current_policy(self) -> TabularPolicy:
        """The current strategy (the link applied to the current estimates)."""
        self._setup()
        return TabularPolicy(self.tree, self.strategy_.copy(), self._info())

    # -- checkpoints ---------------------------------------------------------------------
    def save_checkpoint(self, path: str | os.PathLike) -> None:
        """Write the solver's full state (``.npz`` + JSON header, atomic); the header records
        the algorithm, the update rule and the options a resumed run must share."""
        self._setup()
        arrays = {"strategy": self.strategy_, "avg_weights": self.avg_weights_}
        arrays.update({f"estimator_{k}": v for k, v in self.estimator_.state().items()})
        arrays.update(self._extra_state())
        meta = {"format": CHECKPOINT_FORMAT, "version": 1, "game": str(self.tree.game),
                "fingerprint": self.tree.fingerprint(), **self._info()}
        write_npz(path, arrays, meta)

    def load_checkpoint(self, path: str | os.PathLike) -> RegretSolver:
        """Resume from a checkpoint of the same game, algorithm and update rule."""
        self._setup()
        arrays, meta = read_npz(path, CHECKPOINT_FORMAT)
        check_game_matches(path, "a checkpoint", meta, self.tree)
        if meta.get("algorithm") != self.name:
            raise RcfrError(f"{path} is a {meta.get('algorithm')} checkpoint, not {self.name}")
        mine = self._info()
        meta.setdefault("rule", LEGACY_RULES.get(meta.get("algorithm")))  # before rules
        meta.setdefault("dtype", "float64")  # before float32 tables
        for key in self._config_keys:
            if meta.get(key) != mine[key]:
                raise RcfrError(f"{path} was run with {key} {meta.get(key)!r}, "
                                f"not {mine[key]!r}")
        S = self.tree.num_sequences
        try:
            with np.errstate(invalid="raise", over="raise"):  # e.g. NaN cast to an integer
                self._read_state(arrays, meta, S)
        except (KeyError, ValueError, TypeError, IndexError, OverflowError, FloatingPointError):
            raise RcfrError(f"{path} is corrupted: its arrays do not fit the game") from None
        return self

    def _read_state(self, arrays: dict, meta: dict, S: int) -> None:
        """Check and take the state of a checkpoint's arrays (raises on corruption)."""
        state = {k[len("estimator_"):]: v for k, v in arrays.items()
                 if k.startswith("estimator_")}
        strategy = np.array(arrays["strategy"], dtype=self.strategy_.dtype)
        avg = np.array(arrays["avg_weights"], dtype=self.avg_weights_.dtype)
        if strategy.shape != (S,) or avg.shape != (S,):
            raise KeyError("shape")
        iteration, nodes_visited = meta.get("iterations", 0), meta.get("nodes_visited", 0)
        if not all(type(v) is int and 0 <= v <= 2**62 for v in (iteration, nodes_visited)):
            raise ValueError("counts")
        self.estimator_.load_state(state)
        self._load_extra_state(arrays)
        self.strategy_, self.avg_weights_ = strategy, avg
        self.iteration, self.nodes_visited = iteration, nodes_visited


# the tabular algorithms: each is an update rule with its own averaging
ALGORITHMS = {"cfr": "cfr", "cfr+": "cfr+", "lcfr": "lcfr", "dcfr": "dcfr", "pcfr+": "pcfr+",
              "pdcfr+": "pdcfr+"}


class CFRSolver(RegretSolver):
    """The tabular instances of the loop, one per update rule (:mod:`rcfr.solvers.rules`):
    CFR (``algorithm="cfr"``: cumulative regrets, uniform averaging; Zinkevich et al. 2007),
    CFR+ (``"cfr+"``: regret-matching+, linear averaging; Tammelin et al. 2015), Linear and
    Discounted CFR (``"lcfr"``, ``"dcfr"`` or ``"dcfr:alpha,beta,gamma"``; Brown & Sandholm
    2019), predictive CFR+ (``"pcfr+"``; Farina et al. 2021) and predictive discounted CFR+
    (``"pdcfr+"``; Xu et al. 2024).  ``algorithm`` may also be an
    :class:`~rcfr.solvers.rules.UpdateRule`.
    """

    def __init__(self, game: GameTree | Any, algorithm: str | UpdateRule = "cfr", *,
                 alternating: bool = True, averaging: str | float | None = None,
                 link: str | Link | None = None, seed: int | None = None) -> None:
        if isinstance(algorithm, UpdateRule):
            rule = algorithm
        else:
            key = str(algorithm).strip().lower()
            if key.partition(":")[0] not in ALGORITHMS:
                raise RcfrError(f"unknown algorithm {algorithm!r}; use one of "
                                f"{', '.join(ALGORITHMS)}")
            rule = parse_rule(key)
        super().__init__(game, estimator=TabularRegrets(rule), rule=rule, link=link,
                         alternating=alternating, averaging=averaging, seed=seed,
                         name=rule.name)
