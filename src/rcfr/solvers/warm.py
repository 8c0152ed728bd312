"""Warm starts: a regret solver started from a strategy (Brown & Sandholm 2016, "Strategy-based
warm starting for regret minimization in games", AAAI).

The warm strategy ``sigma`` (of this game or of another one: a smaller stack, an abstraction,
fewer buckets; :func:`map_strategy` carries it over by information-set key) is walked once with
the full-width pass, which gives each player's counterfactual regrets of ``sigma`` against
itself, ``r(I, a) = v^sigma(I, a) - v^sigma(I)`` (the pass's instantaneous regrets).  The
solver then stands where ``T'`` iterations that all played ``sigma`` would have left it:

* the regrets are the update rule's absorption of ``T'`` copies of ``r``: ``T' r`` for CFR
  (the paper's substitute regrets), clipped at zero for CFR+, discounted as DCFR discounts
  ``T'`` iterations (each rule is positively homogeneous, so one scalar recursion per sign
  gives the factor); the predictive rules predict ``r``;
* the average strategy is ``sigma`` with the weight of ``T'`` iterations under the run's
  averaging (``sum_{t <= T'} t^g``), and the iteration counter is ``T'``.

``T'``, the substitute iteration count, is as many iterations as CFR's bound says it takes to
reach a profile as good as ``sigma``: the average strategy's exploitability falls as
``O(1/sqrt(T))`` (Zinkevich et al. 2007, Theorem 4), here with the constant of iteration 1 (the
uniform strategy), so ``T' = (expl(uniform) / expl(sigma))^2`` (rounded up; at least 1, at
most :data:`MAX_SUBSTITUTE`).  The substitute history then carries the overall regret
``T' NashConv(sigma) = sqrt(T') NashConv(uniform)``: exactly the bound's ``sqrt(T')`` growth, so
the warm-started run keeps CFR's convergence bound from ``T'`` on, as the paper proves for its
substitute regrets.  A strategy close to equilibrium stands for many iterations (its average
hardly moves: the run starts at its exploitability), a coarse one for few.  ``iterations``
overrides ``T'``.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from ..core.errors import RcfrError
from ..core.links import apply_link
from ..core.names import RULES
from ..core.rules import PREDICTIVE, RuleParams, rule_update
from ..evaluate import exploitability
from ..forms.base import Form
from ..policy import TabularPolicy
from .loop import CFRSolver, RegretSolver
from .tabular import TabularRegrets

MAX_SUBSTITUTE = 10**8  # the most iterations a warm start stands for


@dataclass(frozen=True)
class WarmStart:
    """What a warm start did: the substitute iteration count ``T'`` (the solver's iteration
    counter after it), the share of the target's information sets found in the source
    (``matched``: by key with the same actions; ``partial``: by key, other actions) and the
    warm strategy's exploitability on the target game."""

    source: str
    iterations: int
    matched: float
    partial: float
    exploitability: float

    def info(self) -> dict[str, Any]:
        return {"from": self.source, "iterations": self.iterations,
                "matched": self.matched, "partial": self.partial,
                "exploitability": self.exploitability}


# -- the strategy on the target game ----------------------------------------------------------
def map_strategy(source: TabularPolicy, tree: Form) -> tuple[np.ndarray, float, float]:
    """``source``'s behaviour on ``tree`` (another game's or this game's other form): at each of
    ``tree``'s information sets with the same key in the source, the source's probabilities of
    the actions both have (an action the source lacks gets 0, the rest are renormalised; uniform
    where the source puts no probability on the shared actions), or the game's own reading of
    the information set in the source (:meth:`~rcfr.games.protocol.Game.translate_infoset`:
    2-NL Hold'em with another stack scales the raises by the ratio of the stacks; a source
    action read by several actions is split evenly among them); uniform at information sets
    the source lacks.  Returns the probabilities over ``tree``'s sequences and the shares of
    information sets matched with the same actions and with other actions."""
    if source.tree.fingerprint() == tree.fingerprint():
        return source.probs.copy(), 1.0, 0.0
    if str(source.game) == str(tree.game):  # the game's other compiled form: exact
        return source.convert(tree).probs.copy(), 1.0, 0.0
    src = source.tree
    probs = 1.0 / tree.infoset_num_actions[tree.seq_infoset].astype(np.float64)
    same = other = 0
    for p in (0, 1):
        for i in tree.player_infosets(p):
            key = tree.infoset_keys[i]
            lo, n = int(tree.infoset_seq_start[i]), int(tree.infoset_num_actions[i])
            mine = [int(a) for a in tree.seq_action[lo:lo + n]]
            reading = tree.game.translate_infoset(key, mine, src.game)
            if reading is not None:
                key, mine = reading
            j = src.infoset_keys.find(key, p)
            if j < 0:
                continue
            slo, sn = int(src.infoset_seq_start[j]), int(src.infoset_num_actions[j])
            theirs = dict(zip(src.seq_action[slo:slo + sn].tolist(),
                              source.probs[slo:slo + sn].tolist(), strict=True))
            if reading is None and sn == n and all(a in theirs for a in mine):
                same += 1
            else:
                other += 1
            shared = [mine.count(a) for a in mine]  # (a source action read by several)
            row = np.array([theirs.get(a, 0.0) / k for a, k in zip(mine, shared, strict=True)])
            total = row.sum()
            if total > 0:
                probs[lo:lo + n] = row / total
    n = max(1, tree.num_infosets)
    return probs, same / n, other / n


def read_strategy(path: str | os.PathLike, tree: Form) -> tuple[np.ndarray, float, float]:
    """The strategy file ``path`` (a strategy of any game, :meth:`TabularPolicy.save`) mapped
    onto ``tree`` (:func:`map_strategy`)."""
    return map_strategy(TabularPolicy.load(path), tree)


# -- the substitute iterations ----------------------------------------------------------------
@njit(cache=True)
def _substitute_factors(rule, iterations, avg_power):
    """The regret after ``iterations`` iterations that each brought regret +1 (and -1) under
    ``rule``, and the average's total weight ``sum_{t <= T'} t^avg_power``."""
    regrets = np.zeros(2)
    inst = np.array([1.0, -1.0])
    pred = np.zeros(2)
    weight = 0.0
    for t in range(1, iterations + 1):
        rule_update(rule, t, inst, 0, 2, regrets, pred)
        weight += float(t) ** avg_power
    return regrets[0], -regrets[1], weight


def substitute_iterations(uniform: float, warm: float) -> int:
    """``T' = ceil((uniform / warm)^2)`` from the exploitabilities of the uniform strategy and
    of the warm one (the module's docstring), within ``[1, MAX_SUBSTITUTE]``."""
    if not warm > 0.0:
        return MAX_SUBSTITUTE
    ratio = max(0.0, uniform) / warm
    return int(min(float(MAX_SUBSTITUTE), max(1.0, math.ceil(ratio * ratio))))


# -- the warm start --------------------------------------------------------------------------
def warm_start(solver: RegretSolver, strategy: str | os.PathLike | TabularPolicy | np.ndarray,
               iterations: int | None = None) -> WarmStart:
    """Start ``solver`` (a full-width tabular regret solver, fresh: no iteration run) from
    ``strategy`` -- a strategy file or policy of any game, or probabilities over the solver's
    sequences -- as the module's docstring derives; ``iterations`` overrides ``T'``."""
    if type(solver) is not CFRSolver or type(solver.estimator) is not TabularRegrets:
        raise RcfrError("a warm start sets the regret tables of the full-width tabular rules "
                        f"({', '.join(RULES)}) stored as floats, not int16")
    solver.setup()
    if solver.iteration:
        raise RcfrError("a warm start sets up a fresh solver; this one has run "
                        f"{solver.iteration} iterations")
    tree = solver.tree
    if isinstance(strategy, np.ndarray):
        probs, same, other, source = np.asarray(strategy, np.float64), 1.0, 0.0, "strategy"
        TabularPolicy(tree, probs)  # (checked: one distribution per information set)
    elif isinstance(strategy, TabularPolicy):
        (probs, same, other), source = map_strategy(strategy, tree), str(strategy.game)
    else:
        (probs, same, other), source = read_strategy(strategy, tree), os.fspath(strategy)
    if same + other == 0.0:
        raise RcfrError(f"none of {tree.game}'s information sets is in the warm strategy's "
                        f"game ({source}): nothing to start from")
    warm_expl = _exploitability(tree, probs)
    inst = np.zeros(tree.num_sequences)
    avg = np.zeros(tree.num_sequences)
    # one walk at sigma for both players: their counterfactual regrets, and sigma's
    # realization plan (weight 1) for the average
    solver.nodes_visited += int(solver.pass_.run((0, 1), probs, 1.0, avg, inst))
    T = iterations
    if T is None:
        T = substitute_iterations(_exploitability(tree, TabularPolicy.uniform(tree).probs),
                                  warm_expl)
    if not (isinstance(T, int | np.integer) and 1 <= T <= MAX_SUBSTITUTE):
        raise RcfrError(f"the warm start's iterations must be a whole number from 1 to "
                        f"{MAX_SUBSTITUTE:,}, got {T!r}")
    rule: RuleParams = solver.rule_.params
    up, down, weight = _substitute_factors(rule, int(T), float(solver.avg_power_))
    est = solver.estimator_
    est.regrets[:] = np.where(inst >= 0.0, inst * up, inst * down)
    if solver.rule_.predictive:  # (SAPCFR+'s asymmetric step, as rule_update keeps it)
        est.prediction[:] = inst / (1.0 + rule.alpha) if rule.kind == PREDICTIVE else inst
    solver.avg_weights_[:] = avg * weight
    link = solver.link_
    for p in (0, 1):
        apply_link(link.kind, link.param, est.predict(p), solver.bounds_[p],
                   solver.bounds_[p + 1], tree.infoset_seq_start, tree.infoset_num_actions,
                   solver.strategy_)
    solver.iteration = int(T)
    done = WarmStart(source, int(T), same, other, warm_expl)
    solver.warm_start_ = done
    return done


def _exploitability(tree: Form, probs: np.ndarray) -> float:
    return max(0.0, float(exploitability(tree, np.asarray(probs, dtype=np.float64))))


__all__ = ["MAX_SUBSTITUTE", "WarmStart", "map_strategy", "read_strategy",
           "substitute_iterations", "warm_start"]
