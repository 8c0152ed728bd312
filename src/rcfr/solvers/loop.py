"""The one solver loop (ARCHITECTURE.md): a tree pass gives counterfactual regrets, a regret
estimator absorbs them, and a link function turns its estimates into the next strategy.

CFR = tabular cumulative regrets + regret matching (Zinkevich et al. 2007); CFR+ = tabular
Q-regrets clipped at zero + regret matching + linear averaging (Tammelin 2014; Morrill 2016,
sec. 2.5).  With alternating updates player 0's pass updates its regrets and average strategy,
then player 1's pass runs against player 0's updated strategy.

The full-width tree pass works in sequence form: a realization plan per player, one sweep over
the terminals, one backward sweep over the updating player's information sets.  For the tabular
estimator the whole iteration runs inside one numba kernel built from the same pieces.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from numba import njit

from .. import kernels as K
from ..errors import RcfrError
from ..fileio import check_game_matches, read_npz, write_npz
from ..links import Link, apply_link, parse_link
from ..policy import TabularPolicy
from ..tree import GameTree, compile_game
from .tabular import TabularRegrets, tabular_update

CHECKPOINT_FORMAT = "rcfr.checkpoint"
AVERAGING = {"uniform": 0.0, "linear": 1.0, "quadratic": 2.0}


@njit(cache=True)
def accumulate_average(plan, weight, s_lo, s_hi, avg):
    """Add ``weight`` times the player's realization weights to the average-strategy sums."""
    for s in range(s_lo, s_hi):
        avg[s] += weight * plan[s]


@njit(cache=True)
def player_regrets(player, strategy, bounds, seq_bounds, seq_start, num_actions, parent_seq,
                   term_seq, term_coef, plan, acc, inst):
    """Full-width pass for ``player``: ``inst`` gets its instantaneous counterfactual regrets
    (``plan`` must hold the opponent's realization plan).  Returns the player's value."""
    K.terminal_values(player, plan, term_seq, term_coef, seq_bounds[player],
                      seq_bounds[player + 1], acc)
    return K.counterfactual_regrets(player, strategy, bounds[player], bounds[player + 1],
                                    seq_start, num_actions, parent_seq, acc, inst)


@njit(cache=True)
def run_tabular(n_iters, t0, plus, alternating, avg_power, link_kind, link_param, bounds,
                seq_bounds, seq_start, num_actions, parent_seq, term_seq, term_coef, regrets,
                strategy, avg, plan, acc, inst):
    """``n_iters`` iterations of the loop with the tabular estimator, entirely in numba."""
    n_info = bounds[2]
    for it in range(n_iters):
        t = t0 + it + 1
        weight = float(t) ** avg_power
        if alternating:
            for p in range(2):
                K.realization_plan(strategy, 0, n_info, seq_start, num_actions, parent_seq, plan)
                player_regrets(p, strategy, bounds, seq_bounds, seq_start, num_actions,
                               parent_seq, term_seq, term_coef, plan, acc, inst)
                accumulate_average(plan, weight, seq_bounds[p], seq_bounds[p + 1], avg)
                tabular_update(inst, seq_bounds[p], seq_bounds[p + 1], plus, regrets)
                apply_link(link_kind, link_param, regrets, bounds[p], bounds[p + 1], seq_start,
                           num_actions, strategy)
        else:
            K.realization_plan(strategy, 0, n_info, seq_start, num_actions, parent_seq, plan)
            for p in range(2):
                player_regrets(p, strategy, bounds, seq_bounds, seq_start, num_actions,
                               parent_seq, term_seq, term_coef, plan, acc, inst)
            for p in range(2):
                accumulate_average(plan, weight, seq_bounds[p], seq_bounds[p + 1], avg)
                tabular_update(inst, seq_bounds[p], seq_bounds[p + 1], plus, regrets)
                apply_link(link_kind, link_param, regrets, bounds[p], bounds[p + 1], seq_start,
                           num_actions, strategy)


class RegretSolver:
    """The one solver loop: full-width tree pass + regret estimator + link function.

    Parameters are validated in :meth:`run`; ``averaging`` is ``"uniform"``, ``"linear"``,
    ``"quadratic"`` or a power ``g`` (iteration ``t`` weighs ``t**g`` in the average strategy).
    """

    def __init__(self, game: GameTree | Any, *, estimator: Any = None,
                 link: str | Link | None = None,
                 alternating: bool = True, averaging: str | float = "uniform",
                 seed: int | None = None, name: str = "cfr") -> None:
        self.game = game
        self.estimator = estimator
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
        if isinstance(self.averaging, str):
            if self.averaging not in AVERAGING:
                raise RcfrError(f"unknown averaging {self.averaging!r}; use {', '.join(AVERAGING)}")
            self.avg_power_ = AVERAGING[self.averaging]
        else:
            self.avg_power_ = float(self.averaging)
            if not np.isfinite(self.avg_power_) or self.avg_power_ < 0:
                raise RcfrError("the averaging power must be a finite number >= 0")
        self.estimator_ = self.estimator if self.estimator is not None else TabularRegrets()
        self.estimator_.initialize(self.tree)
        t = self.tree
        S = t.num_sequences
        self.bounds_ = np.array([0, t.num_infosets_per_player[0], t.num_infosets], dtype=np.int64)
        self.seq_bounds_ = np.array([0, t.num_sequences_per_player[0], S], dtype=np.int64)
        self.strategy_ = TabularPolicy.uniform(t).probs.copy()
        self.avg_weights_ = np.zeros(S)
        self._plan = K.padded(S)
        self._acc = np.zeros(S + 2)
        self._inst = np.zeros(S)
        self._setup_pass()
        self._ready = True
        if getattr(self.estimator_, "fused", False):
            self._run_fused(0)  # load or compile the kernel now, not inside a timed run

    def _setup_pass(self) -> None:
        """Hook for a subclass that supplies its own tree pass (e.g. Monte Carlo sampling):
        validate its parameters and allocate its state; runs after the common set-up and before
        the fused kernel is loaded."""

    # -- iterations ----------------------------------------------------------------------
    def run(self, iterations: int) -> RegretSolver:
        """Advance ``iterations`` iterations."""
        if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)):
            raise RcfrError(f"iterations must be a whole number, got {iterations!r}")
        if iterations <= 0:
            raise RcfrError(f"iterations must be positive, got {iterations}")
        self._setup()
        if getattr(self.estimator_, "fused", False):
            self._run_fused(int(iterations))
        else:
            for _ in range(int(iterations)):
                self._step()
        return self

    def run_nodes(self, budget: int) -> RegretSolver:
        """Advance whole iterations until ``budget`` more histories have been visited (the last
        iteration may overshoot).  A full-width pass for one player visits every history once,
        so an iteration visits ``2 * num_nodes``."""
        if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget <= 0:
            raise RcfrError(f"the node budget must be a positive whole number, got {budget!r}")
        self._setup()
        per_iteration = 2 * self.tree.num_nodes
        return self.run(max(1, -(-int(budget) // per_iteration)))

    def _run_fused(self, iterations: int) -> None:
        t = self.tree
        run_tabular(iterations, self.iteration, self.estimator_.plus, self.alternating,
                    self.avg_power_, self.link_.kind, self.link_.param, self.bounds_,
                    self.seq_bounds_, t.infoset_seq_start, t.infoset_num_actions,
                    t.infoset_parent_seq, t.terminal_seq, t.terminal_coef,
                    self.estimator_.regrets, self.strategy_, self.avg_weights_, self._plan,
                    self._acc, self._inst)
        self.iteration += iterations
        self.nodes_visited += 2 * iterations * t.num_nodes  # one full pass per player

    def _step(self) -> None:
        """One iteration through Python, for estimators that are not numba kernels."""
        t = self.tree
        self.iteration += 1
        weight = float(self.iteration) ** self.avg_power_
        players = [[0], [1]] if self.alternating else [[0, 1]]
        for group in players:
            K.realization_plan(self.strategy_, 0, t.num_infosets, t.infoset_seq_start,
                               t.infoset_num_actions, t.infoset_parent_seq, self._plan)
            for p in group:
                player_regrets(p, self.strategy_, self.bounds_, self.seq_bounds_,
                               t.infoset_seq_start, t.infoset_num_actions, t.infoset_parent_seq,
                               t.terminal_seq, t.terminal_coef, self._plan, self._acc, self._inst)
                self.nodes_visited += t.num_nodes
            for p in group:
                s_lo, s_hi = int(self.seq_bounds_[p]), int(self.seq_bounds_[p + 1])
                accumulate_average(self._plan, weight, s_lo, s_hi, self.avg_weights_)
                self.estimator_.update(self._inst, s_lo, s_hi, self.iteration)
                apply_link(self.link_.kind, self.link_.param, self.estimator_.predict(),
                           self.bounds_[p], self.bounds_[p + 1], t.infoset_seq_start,
                           t.infoset_num_actions, self.strategy_)

    # -- outputs -------------------------------------------------------------------------
    def _info(self) -> dict[str, Any]:
        return {"algorithm": self.name, "iterations": self.iteration,
                "link": self.link_.spec(), "alternating": self.alternating,
                "averaging": self.averaging, "seed": self.seed,
                "nodes_visited": self.nodes_visited}

    _config_keys: tuple[str, ...] = ("link", "alternating", "averaging")  # must match to resume

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
        """Write the solver's full state (``.npz`` + JSON header, atomic)."""
        self._setup()
        arrays = {"strategy": self.strategy_, "avg_weights": self.avg_weights_}
        arrays.update({f"estimator_{k}": v for k, v in self.estimator_.state().items()})
        arrays.update(self._extra_state())
        meta = {"format": CHECKPOINT_FORMAT, "version": 1, "game": str(self.tree.game),
                "fingerprint": self.tree.fingerprint(), **self._info()}
        write_npz(path, arrays, meta)

    def load_checkpoint(self, path: str | os.PathLike) -> RegretSolver:
        """Resume from a checkpoint of the same game and algorithm."""
        self._setup()
        arrays, meta = read_npz(path, CHECKPOINT_FORMAT)
        check_game_matches(path, "a checkpoint", meta, self.tree)
        if meta.get("algorithm") != self.name:
            raise RcfrError(f"{path} is a {meta.get('algorithm')} checkpoint, not {self.name}")
        mine = self._info()
        for key in self._config_keys:
            if meta.get(key) != mine[key]:
                raise RcfrError(f"{path} was run with {key} {meta.get(key)!r}, "
                                f"not {mine[key]!r}")
        S = self.tree.num_sequences
        try:
            state = {k[len("estimator_"):]: v for k, v in arrays.items()
                     if k.startswith("estimator_")}
            strategy = np.array(arrays["strategy"], dtype=np.float64)
            avg = np.array(arrays["avg_weights"], dtype=np.float64)
            if strategy.shape != (S,) or avg.shape != (S,):
                raise KeyError("shape")
            iteration, nodes_visited = meta.get("iterations", 0), meta.get("nodes_visited", 0)
            if not all(type(v) is int and 0 <= v <= 2**62 for v in (iteration, nodes_visited)):
                raise ValueError("counts")
            self.estimator_.load_state(state)
            self._load_extra_state(arrays)
        except (KeyError, ValueError, TypeError, IndexError):
            raise RcfrError(f"{path} is corrupted: its arrays do not fit the game") from None
        self.strategy_, self.avg_weights_ = strategy, avg
        self.iteration, self.nodes_visited = iteration, nodes_visited
        return self


ALGORITHMS = {
    "cfr": {"plus": False, "averaging": "uniform"},
    "cfr+": {"plus": True, "averaging": "linear"},
}


class CFRSolver(RegretSolver):
    """CFR (``algorithm="cfr"``) or CFR+ (``"cfr+"``): the tabular instances of the loop.

    CFR: cumulative regrets, regret matching, uniform averaging (Zinkevich et al. 2007).
    CFR+: regret-matching+, linear averaging with weight t (Tammelin et al. 2015).
    """

    def __init__(self, game: GameTree | Any, algorithm: str = "cfr", *,
                 alternating: bool = True, averaging: str | float | None = None,
                 link: str | Link | None = None, seed: int | None = None) -> None:
        key = str(algorithm).lower()
        if key not in ALGORITHMS:
            raise RcfrError(f"unknown algorithm {algorithm!r}; use one of {', '.join(ALGORITHMS)}")
        cfg = ALGORITHMS[key]
        super().__init__(game, estimator=TabularRegrets(plus=cfg["plus"]), link=link,
                         alternating=alternating,
                         averaging=cfg["averaging"] if averaging is None else averaging,
                         seed=seed, name=key)
