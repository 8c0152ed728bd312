"""Monte Carlo CFR: sampled tree passes for the one solver loop (ARCHITECTURE.md).

Each pass walks the compiled tree's node arrays top-down for one *updating player* ``i``,
estimates ``i``'s instantaneous counterfactual regrets from a sample, and hands them to the same
regret estimator, link function and average strategy as the full-width solvers.  Four schemes
(Gibson, Burch, Lanctot & Szafron 2012, "Efficient Monte Carlo CFR in games with many player
actions", sec. 2 and Algorithm 1; Lanctot, Waugh, Zinkevich & Bowling 2009):

* ``cs`` chance sampling: one chance outcome at every chance node, every action of both players;
  exact counterfactual values on the sampled chance branch (opponent reach times value).
* ``es`` external sampling: chance and the opponent sampled on-policy, every action of ``i``.
* ``os`` outcome sampling: one trajectory; ``i`` samples epsilon-greedily (probability
  ``epsilon / |A(I)| + (1 - epsilon) sigma(I, a)``, epsilon 0.5 by default, as in the paper's
  experiments); values are importance weighted by ``1 / q_i``.
* ``as`` average strategy sampling (the paper's Algorithm 1): every action of ``i`` is sampled
  independently with probability ``rho(I, a) = max(epsilon, (beta + tau s(I, a)) /
  (beta + sum_b s(I, b)))`` (eq. 2; probability 1 when ``rho >= 1`` or the denominator is 0),
  where ``s`` is ``i``'s cumulative average-strategy weight; opponent and chance as in ES.
  Defaults ``epsilon = 0.05, beta = 1e6, tau = 1000`` (the paper's sec. 5 choice).

Sampled values.  ES, OS and AS return ``u_i(z) / q_i(z)`` at a terminal, ``q_i`` being the
probability with which ``i``'s own sampling decisions reached it (1 for ES); an unsampled action
has value 0 (Algorithm 1, lines 5 and 12-14).  At ``i``'s node the regret of ``a`` is
``v(a) - sum_b sigma(b) v(b)``.  Chance and opponent are sampled on-policy, so their reach
cancels in the importance weight and every estimate is unbiased for the exact counterfactual
regret (Lanctot et al. 2009, Lemma 1).  CS weighs the regrets by the opponent's reach instead.

Average strategy.  ES, OS and AS update the *opponent's* cumulative strategy at its sampled
nodes by ``sigma(I, .) / q_i(h)`` (Algorithm 1, line 9): Lanctot et al.'s "simple" averaging
for ES (``q_i = 1``) and its stochastically weighted form for OS and AS.  Its expectation is
``pi_opp(I) sigma(I, .)`` times a factor fixed per information set, so the normalised average is
unbiased.  CS updates ``i``'s own average by ``pi_i(h) sigma(I, .)`` at ``i``'s nodes, like
vanilla CFR.  With ``averaging`` power ``g`` every increment is also weighted by ``t**g``.

Updates.  Each iteration runs one pass for player 0, then one for player 1 (alternating
updates).  The strategy is fixed during a pass; the pass writes sampled regrets of the
information sets it touched into ``inst`` and the regret estimator absorbs them afterwards, so
the fused tabular kernel (sparse update of the touched sets) and the Python path (dense
``estimator.update(player, inst, t)``, any estimator) give bit-identical results.  The update
rule (:mod:`rcfr.core.rules`) is ``cfr`` or ``cfr+`` with every scheme; ``lcfr`` and ``dcfr``
with external sampling (Brown & Sandholm 2019 use discounting with external sampling) discount
the player's whole table after each of its passes.  The fused kernel does it lazily
(:class:`~rcfr.core.rules.LazyDiscount`): a touched information set first catches up with the
factors of the iterations it missed, then takes the new regrets and this iteration's factor;
the untouched sets' strategies stay as they are, which is exact for the polynomial links
(regret matching), whose strategy a discount of every positive regret by one factor does not
change.  The result equals the eager discount up to rounding (tested to 1e-12), and the lazy
state is checkpointed, so a resumed run is bit-identical.  With the exponential link, and
through the Python loop, the whole table is discounted after each pass.  The predictive rules
and discounting with the other schemes are refused (:func:`check_rule`).

Implementation.  A pass is two sweeps over a node list, no recursion: a breadth-first sweep
draws the samples and appends the visited children (parents come before children), then a
backward sweep over the same list backs the values up.  Random numbers come from SplitMix64
over a one-word ``uint64`` state that the solver owns and checkpoints, so a seed gives
bit-identical runs.  Every pass returns the number of histories it visited.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from ..core.errors import RcfrError
from ..core.links import Link
from ..core.rules import CLIPPED, DISCOUNTED, PLAIN, LazyDiscount, UpdateRule, lazy_discount
from ..evaluate import exploitability
from ..forms import Capability, Form, compile_game
from ..forms.loop_state import LoopState
from ..forms.sampling import SCHEMES, discounts_lazily
from .loop import TABLE_DTYPES, RegretSolver

SCHEME_NAMES = {
    "cs": "chance sampling",
    "es": "external sampling",
    "os": "outcome sampling",
    "as": "average strategy sampling",
}
DEFAULT_EPSILON = {"os": 0.5, "as": 0.05}  # Gibson et al. 2012, sec. 5
DEFAULT_BATCH = 64  # passes per thread and iteration of parallel MCCFR (threads > 1)


# -- set-up helpers ----------------------------------------------------------------------
def _real(x: Any, name: str) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real) or not math.isfinite(float(x)):
        raise RcfrError(f"{name} must be a finite number, got {x!r}")
    return float(x)


def check_parameters(scheme: str, epsilon: float | None = None, beta: float = 1e6,
                     tau: float = 1000.0) -> tuple[str, float, float, float]:
    """Validate a scheme and its parameters; returns ``(scheme, epsilon, beta, tau)`` with the
    scheme's default epsilon filled in (parameters a scheme does not use are checked too)."""
    key = str(scheme).strip().lower()
    if key not in SCHEMES:
        raise RcfrError(f"unknown sampling scheme {scheme!r}; use one of {', '.join(SCHEMES)}")
    eps = DEFAULT_EPSILON.get(key, 0.05) if epsilon is None else _real(epsilon, "epsilon")
    if not 0.0 < eps <= 1.0:
        raise RcfrError(f"epsilon must be in (0, 1], got {eps:g}")
    beta = _real(beta, "beta")
    if beta < 0.0:
        raise RcfrError(f"beta must be >= 0, got {beta:g}")
    tau = _real(tau, "tau")
    if tau < 1.0:
        raise RcfrError(f"tau must be >= 1, got {tau:g}")
    return key, eps, beta, tau


def _fixed_pass_inputs(game, strategy, player, avg_weights):
    tree = compile_game(game)
    probs = np.ascontiguousarray(getattr(strategy, "probs", strategy), dtype=np.float64)
    if probs.shape != (tree.num_sequences,):
        raise RcfrError(f"a strategy for {tree.game} needs {tree.num_sequences} entries")
    if player not in (0, 1):
        raise RcfrError(f"player must be 0 or 1, got {player!r}")
    avg = np.zeros(tree.num_sequences) if avg_weights is None else np.array(
        avg_weights, dtype=np.float64)
    if avg.shape != (tree.num_sequences,):
        raise RcfrError(f"average-strategy weights for {tree.game} need {tree.num_sequences} "
                        "entries")
    return tree, probs, avg


def sample_regrets(game: Form | Any, strategy: Any, player: int, scheme: str = "es", *,
                   samples: int = 1, seed: int | None = None, epsilon: float | None = None,
                   beta: float = 1e6, tau: float = 1000.0,
                   avg_weights: np.ndarray | None = None) -> np.ndarray:
    """``(samples, num_sequences)`` sampled instantaneous counterfactual regrets of ``player``
    at the fixed ``strategy`` (a :class:`~rcfr.TabularPolicy` or a probability vector), one row
    per pass of ``scheme``; nothing is updated.  Each row's expectation is
    :func:`exact_regrets` (Lanctot et al. 2009, Lemma 1).  ``avg_weights`` is the cumulative
    average strategy that AS samples from (zeros by default)."""
    scheme, eps, beta, tau = check_parameters(scheme, epsilon, beta, tau)
    tree, probs, avg = _fixed_pass_inputs(game, strategy, player, avg_weights)
    pass_ = tree.sampled_pass(SCHEMES[scheme], eps, beta, tau, seed)
    return pass_.sample_regrets(player, probs, avg, int(samples), pass_.rng)


def visit_counts(game: Form | Any, strategy: Any, player: int, scheme: str = "es", *,
                 samples: int = 1, seed: int | None = None, epsilon: float | None = None,
                 beta: float = 1e6, tau: float = 1000.0,
                 avg_weights: np.ndarray | None = None) -> np.ndarray:
    """How often each history is visited over ``samples`` passes of ``scheme`` for ``player``
    at the fixed ``strategy`` (the sampling decisions made visible; sums to the histories
    visited)."""
    scheme, eps, beta, tau = check_parameters(scheme, epsilon, beta, tau)
    tree, probs, avg = _fixed_pass_inputs(game, strategy, player, avg_weights)
    pass_ = tree.sampled_pass(SCHEMES[scheme], eps, beta, tau, seed)
    return pass_.visit_counts(player, probs, avg, int(samples))


def exact_regrets(game: Form | Any, strategy: Any, player: int) -> np.ndarray:
    """``player``'s exact instantaneous counterfactual regrets at ``strategy`` (the full-width
    pass, Zinkevich et al. 2007, eq. 7); other players' entries are zero."""
    tree, probs, _ = _fixed_pass_inputs(game, strategy, player, None)
    inst = np.zeros(tree.num_sequences)
    tree.full_width_pass().run((player,), probs, 0.0, np.zeros(tree.num_sequences), inst)
    return inst


def _load_lazy(arrays: dict[str, np.ndarray], regrets: np.ndarray,
               num_infosets: int) -> LazyDiscount:
    """A checkpoint's lazy state (``ValueError`` unless it fits the game and is finite)."""
    fresh = lazy_discount(regrets, num_infosets)
    lazy = LazyDiscount(*(np.array(arrays[f"lazy_{k}"], dtype=v.dtype)
                          for k, v in fresh._asdict().items()))
    for got, want in zip(lazy, fresh, strict=True):
        if got.shape != want.shape or (got.dtype == np.float64 and
                                       not np.isfinite(got).all()):
            raise ValueError("lazy discount state")
    if not ((lazy.mark_m >= 0.5) & (lazy.mark_m < 1)).all() or not (
            (lazy.clock_m >= 0.5) & (lazy.clock_m < 1)).all():
        raise ValueError("lazy discount products")
    for e in (lazy.mark_e, lazy.clock_e):
        if not ((e <= 1) & (e >= -(1 << 60))).all():
            raise ValueError("lazy discount exponents")
    return lazy


def check_rule(scheme: str, rule: UpdateRule) -> None:
    """Refuse update rules that the literature does not define with a sampled pass."""
    if rule.predictive:
        raise RcfrError(f"{rule.name} predicts the next regrets by the last exact ones (Farina "
                        f"et al. 2021); it is not defined with the sampled pass {scheme}")
    if rule.kind not in (PLAIN, CLIPPED, DISCOUNTED):
        raise RcfrError(f"{rule.name} is defined with the full-width pass (its papers' CFR), "
                        f"not with the sampled pass {scheme}")
    if rule.kind == DISCOUNTED and scheme != "es":
        raise RcfrError(f"{rule.name} with a sampled pass is defined for external sampling "
                        f"(Brown & Sandholm 2019), not {scheme}")


class MCCFRSolver(RegretSolver):
    """Monte Carlo CFR (Lanctot et al. 2009; Gibson et al. 2012): the solver loop with a
    sampled tree pass (``scheme`` ``"cs"``, ``"es"``, ``"os"`` or ``"as"``).

    Parameters are configured here and validated in :meth:`run` / :meth:`run_nodes`:
    ``epsilon`` in (0, 1] (OS exploration, default 0.5; AS floor, default 0.05), ``beta >= 0``
    and ``tau >= 1`` (AS bonus and threshold, defaults 1e6 and 1000).  ``estimator`` defaults to
    the tabular one with ``rule`` (default ``cfr``); ``lcfr`` and
    ``dcfr`` discount the whole table after each external-sampling pass (Brown & Sandholm
    2019), lazily in the fused kernel (see the module docstring).  ``averaging`` as in
    :class:`RegretSolver`, except that it stays uniform for ``cfr`` and ``cfr+`` unless given;
    updates always alternate.  Any estimator gets the sampled regrets
    (dense, zero outside the touched information sets) through the Python loop.  ``seed`` makes
    runs bit-identical; the generator's state is saved in checkpoints.  :attr:`nodes_visited`
    counts every history each pass touched.  ``dtype="float32"`` (opt-in, tabular estimator)
    keeps the regrets, the current and average strategy in single precision: half the memory,
    the arithmetic still in double; checkpoints record it and a resume must match.
    ``threads`` > 1 (public form, tabular estimator): parallel MCCFR, each iteration a batch
    of ``batch`` passes (default 64) per thread and player at the strategy fixed at its start,
    every thread on its own random stream and buffers, merged in thread order; repeatable for
    a seed, thread count and batch, each count its own (unbiased) sample path
    (``docs/sampling.md``); ``threads=1`` is the serial pass.
    """

    _config_keys = ("rule", "link", "alternating", "averaging", "epsilon", "beta", "tau",
                    "dtype")
    def __init__(self, game: Form | Any, scheme: str = "es", *,
                 epsilon: float | None = None, beta: float = 1e6, tau: float = 1000.0,
                 seed: int | None = None, estimator: Any = None,
                 rule: str | UpdateRule | None = None,
                 link: str | Link | None = None, averaging: str | float | None = None,
                 alternating: bool = True, dtype: str = "float64", threads: int = 1,
                 batch: int | None = None) -> None:
        super().__init__(game, estimator=estimator, rule=rule, link=link,
                         alternating=alternating, averaging=averaging, seed=seed,
                         name=str(scheme).strip().lower())
        self.scheme = scheme
        self.epsilon = epsilon
        self.beta = beta
        self.tau = tau
        self.dtype = dtype
        self.threads = threads
        self.batch = batch
        self.lazy_: LazyDiscount | None = None  # the fused kernel's lazily discounted regrets
        self._lazy_of: np.ndarray | None = None  # the regrets array the lazy state stands for

    def _table_dtype(self) -> type:
        key = str(self.dtype).strip().lower()
        if key not in TABLE_DTYPES:
            raise RcfrError(f"dtype must be float64 or float32, got {self.dtype!r}")
        if key != "float64" and self.estimator is not None:
            raise RcfrError(f"dtype {key} is for the tabular estimator's tables; a regressor "
                            "keeps its own")
        self.dtype_ = key
        return TABLE_DTYPES[key]

    def _default_averaging(self) -> str | float:
        return "uniform" if self.rule_.name in ("cfr", "cfr+") else super()._default_averaging()

    def _locks(self) -> bool:
        """The sampled passes hold no lock (node locking is the full-width solvers')."""
        return False

    def _make_pass(self) -> Any:
        if not self.alternating:
            raise RcfrError("Monte Carlo CFR alternates updates (one sampled pass per player); "
                            "simultaneous updates are not supported")
        key, self.epsilon_, self.beta_, self.tau_ = check_parameters(
            self.scheme, self.epsilon, self.beta, self.tau)
        check_rule(key, self.rule_)
        for name in ("threads", "batch"):
            x = getattr(self, name)
            if (x is not None or name == "threads") and (
                    isinstance(x, bool) or not isinstance(x, numbers.Integral) or x < 1):
                raise RcfrError(f"{name} must be a positive whole number, got {x!r}")
        self.threads_ = int(self.threads)
        self.batch_ = int(self.batch) if self.batch is not None else (
            1 if self.threads_ == 1 else DEFAULT_BATCH)
        pass_ = self.tree.sampled_pass(SCHEMES[key], self.epsilon_, self.beta_, self.tau_,
                                       self.seed)
        if self.threads_ > 1 or self.batch_ > 1:
            if not self.tree.supports(Capability.THREADED_SAMPLING):
                raise RcfrError(f"parallel Monte Carlo CFR (threads={self.threads_}) runs on "
                                "the public form (form='public'); this form's passes run on "
                                "one thread")
            if self.estimator is not None:
                raise RcfrError("parallel Monte Carlo CFR (threads > 1) is fused with the "
                                "tabular estimator; a regressor's passes run on one thread")
            pass_.set_threads(self.threads_, self.batch_)
        self.rng_ = pass_.rng  # the generator the pass was seeded with (checkpointed here)
        return pass_

    # -- outputs and checkpoints ---------------------------------------------------------
    def _info(self) -> dict[str, Any]:
        info = super()._info()
        key = self.name
        info.update({"scheme": key,
                     "epsilon": self.epsilon_ if key in ("os", "as") else None,
                     "beta": self.beta_ if key == "as" else None,
                     "tau": self.tau_ if key == "as" else None, "dtype": self.dtype_})
        if self.threads_ > 1 or self.batch_ > 1:  # (absent from serial runs' outputs)
            info.update({"threads": self.threads_, "batch": self.batch_})
        return info

    def _lazily(self) -> bool:
        return self.fused_ and discounts_lazily(self.rule_.kind, self.link_.kind)

    def _lazy(self) -> LazyDiscount:
        """The lazy state standing for the estimator's regrets (rebuilt from them when they were
        replaced, e.g. by a checkpoint without one)."""
        regrets = self.estimator_.regrets
        if self.lazy_ is None or self._lazy_of is not regrets:
            self.lazy_ = lazy_discount(regrets, self.tree.num_infosets)
            self._lazy_of = regrets
        return self.lazy_

    def _loop_state(self) -> LoopState:
        """The loop's state with the pass's generator and, for a discounted rule, the lazy
        state (see the module docstring)."""
        state = super()._loop_state()._replace(rng=self.rng_)
        return state._replace(lazy=self._lazy(), lazily=True) if self._lazily() else state

    def _extra_state(self) -> dict[str, np.ndarray]:
        out = {"rng_state": self.rng_}
        if self._lazily():  # the lazy state too, so that a resumed run is bit-identical
            out.update({f"lazy_{k}": v for k, v in self._lazy()._asdict().items()})
        return out

    def _load_extra_state(self, arrays: dict[str, np.ndarray]) -> None:
        state = np.array(arrays["rng_state"], dtype=np.uint64)
        if state.shape != (1,):
            raise ValueError("rng_state")
        self.rng_[:] = state  # (in place: the pass's Python step draws from it too)
        if self._lazily() and "lazy_raw" in arrays:
            self.lazy_ = _load_lazy(arrays, self.estimator_.regrets, self.tree.num_infosets)
            self._lazy_of = self.estimator_.regrets

    def sample_regrets(self, player: int, samples: int = 1) -> np.ndarray:
        """``(samples, num_sequences)`` sampled regrets of ``player`` at the current strategy,
        one row per pass of this solver's scheme and parameters (its own generator and average
        strategy are left as they were)."""
        self.setup()
        return self.pass_.sample_regrets(player, self.strategy_, self.avg_weights_, int(samples))


def nodes_curve(game: Form | Any, scheme: str, budgets: list[int], *, seed: int = 0,
                **options: Any) -> list[tuple[int, float]]:
    """Exploitability of a fresh :class:`MCCFRSolver`'s average strategy after each cumulative
    node budget in ``budgets`` (increasing): ``[(nodes visited, exploitability), ...]`` — the
    x-axis of Gibson et al. 2012, Figures 2 and 3."""
    tree = compile_game(game)
    solver = MCCFRSolver(tree, scheme, seed=seed, **options)
    curve = []
    for budget in budgets:
        if budget > solver.nodes_visited:
            solver.run_nodes(int(budget) - solver.nodes_visited)
        curve.append((solver.nodes_visited, exploitability(tree, solver.average_policy())))
    return curve
