"""What the two forms' sampled passes share (Gibson et al. 2012; Lanctot et al. 2009): the
scheme codes, random numbers (SplitMix64 over a one-word state the solver owns and checkpoints
and hands a fused pass in its :class:`~rcfr.forms.loop_state.LoopState`), on-policy draws,
outcome sampling's exploration and average strategy sampling's probability (eq. 2), and the
tabular estimator's absorption of a pass's regrets -- over the touched information sets, or
lazily for the discounted rules (:class:`LazyDiscounting`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..core.links import POLYNOMIAL, apply_link, link_slice
from ..core.names import AS, CS, ES, OS, SCHEMES  # noqa: F401 (the scheme codes, re-exported)
from ..core.rules import (
    CLIPPED,
    DISCOUNTED,
    PLAIN,
    LazyDiscount,
    absorbed,
    catch_up,
    discount,
    link_input,
    rule_update,
    stamp,
    tick,
    true_regrets,
)
from ..core.splitmix import GAMMA, SPLIT_GAMMA, mix64, to_unit
from .loop_state import NO_LAZY  # noqa: F401 (re-exported: no lazy discount)


# -- random numbers ----------------------------------------------------------------------
@njit(cache=True)
def uniform(rng):
    """A uniform double in ``[0, 1)`` from the SplitMix64 state ``rng[0]`` (advanced)."""
    rng[0] += GAMMA
    return to_unit(mix64(rng[0]))


@njit(cache=True)
def thread_states(rng, states):
    """The random streams of one parallel batch: ``rng`` advances by one draw (the batch's word
    ``w``) and thread ``j`` starts from SplitMix64's mix of ``w + (j + 1) * c``, so a thread's
    stream depends on the seed, the batch's place in the run and ``j`` only."""
    rng[0] += GAMMA
    w = rng[0]
    for j in range(states.shape[0]):
        states[j, 0] = mix64(w + np.uint64(j + 1) * SPLIT_GAMMA)


@njit(cache=True)
def clear_merged(nt, merged, seq_start, num_actions, inst, mark):
    """After a batch's absorption: zero ``inst`` and unflag the merged information sets."""
    for k in range(nt):
        info = merged[k]
        mark[info] = False
        s0 = seq_start[info]
        for s in range(s0, s0 + num_actions[info]):
            inst[s] = 0.0


@njit(cache=True)
def draw(probs, lo, hi, u):
    """Index ``k - lo`` of the first ``k`` in ``[lo, hi)`` where the running sum of ``probs``
    exceeds ``u``; rounding past the end falls back to the last positive entry."""
    acc = 0.0
    last = lo
    for k in range(lo, hi):
        p = probs[k]
        if p > 0.0:
            acc += p
            last = k
            if u < acc:
                return k - lo
    return last - lo


@njit(cache=True, inline="always")
def explore(strategy, s0, na, epsilon, u):
    """Outcome sampling's action at an information set of the updating player whose strategy is
    ``strategy[s0:s0 + na]``: uniform with probability ``epsilon``, else on-policy (``u``
    uniform in ``[0, 1)``)."""
    if u < epsilon:
        return min(int(u / epsilon * na), na - 1)
    return draw(strategy, s0, s0 + na, (u - epsilon) / (1.0 - epsilon))


@njit(cache=True, inline="always")
def os_probability(strategy, s0, na, a, epsilon):
    """Probability that outcome sampling's :func:`explore` picks action ``a`` of the set whose
    strategy is ``strategy[s0:s0 + na]`` (Lanctot et al. 2009, epsilon-on-policy)."""
    return epsilon / na + (1.0 - epsilon) * strategy[s0 + a]


@njit(cache=True, inline="always")
def as_total(s, lo, hi, beta):
    """``beta + sum s[lo:hi]``: the denominator of average strategy sampling's probability
    (Gibson et al. 2012, eq. 2) for the information set whose average-strategy weights are
    ``s[lo:hi]``."""
    total = beta
    for j in range(lo, hi):
        total += s[j]
    return total


@njit(cache=True, inline="always")
def as_probability(total, sk, epsilon, beta, tau):
    """Gibson et al. 2012, eq. 2: ``max(epsilon, (beta + tau s_k) / total)`` capped at 1 (1
    also when ``total`` (:func:`as_total`) is 0)."""
    if total <= 0.0:
        return 1.0
    rho = max(epsilon, (beta + tau * sk) / total)
    return 1.0 if rho >= 1.0 else rho


@njit(cache=True)
def as_sampling_probability(s, lo, hi, k, epsilon, beta, tau):
    """Probability that average strategy sampling samples sequence ``k`` of the information set
    whose cumulative average-strategy weights are ``s[lo:hi]``: Gibson et al. 2012, eq. 2,
    capped at 1 (1 also when ``beta + sum s`` is 0)."""
    return as_probability(as_total(s, lo, hi, beta), s[k], epsilon, beta, tau)


@njit(cache=True, inline="always")
def add_average(avg, strategy, s0, na, inc):
    """``avg[s0 + j] += inc * strategy[s0 + j]``: a sampled pass's average-strategy increment at
    one information set (``inc`` = ``weight / q`` for the opponent, Gibson et al. 2012,
    Algorithm 1, line 9; ``weight * pi_i`` for chance sampling's updating player)."""
    for j in range(na):
        avg[s0 + j] += inc * strategy[s0 + j]


@njit(cache=True, inline="always")
def sampled_regret(w, child, v):
    """The sampled counterfactual regret of an action: ``w * (v(a) - v)`` (``w`` the opponent's
    reach for chance sampling, 1 otherwise; Gibson et al. 2012, Algorithm 1, line 14)."""
    return w * (child - v)


@njit(cache=True)
def absorb_touched(p, t, nt, touched, inst, rule, link_kind, link_param, tree, bounds,
                   seq_bounds, regrets, prediction, values, strategy):
    """Tabular estimator after player ``p``'s pass: plain and clipped rules update the touched
    information sets only and re-apply the link there (the others' regrets do not change);
    discounted rules update all of ``p``'s sequences (``inst`` zero outside the touched sets)."""
    seq_start = tree.seq_start
    num_actions = tree.num_actions
    if rule.kind == PLAIN or rule.kind == CLIPPED:  # rule_update's arithmetic, written out
        clipped = rule.kind == CLIPPED
        for k in range(nt):
            info = touched[k]
            s0 = seq_start[info]
            s1 = s0 + num_actions[info]
            for s in range(s0, s1):
                regrets[s] = absorbed(regrets[s], inst[s], clipped)
            link_slice(link_kind, link_param, regrets, s0, s1, strategy)
    else:
        lo, hi = seq_bounds[p], seq_bounds[p + 1]
        rule_update(rule, t, inst, lo, hi, regrets, prediction)
        x = link_input(rule, regrets, prediction, lo, hi, values)
        apply_link(link_kind, link_param, x, bounds[p], bounds[p + 1], seq_start, num_actions,
                   strategy)


@njit(cache=True)
def absorb_lazily(p, t, nt, touched, inst, rule, link_kind, link_param, seq_start, num_actions,
                  lazy, strategy):
    """A discounted rule after player ``p``'s pass, lazily (:class:`LazyDiscount`): each touched
    information set catches up with the factors it missed (through ``t - 1``), adds its new
    regrets, is discounted by iteration ``t``'s factor of their sign and gets the link; then
    ``p``'s products advance by ``t`` and the touched sets are marked up to date."""
    raw = lazy.raw
    pos = discount(t, rule.alpha)
    neg = discount(t, rule.beta)
    for k in range(nt):
        info = touched[k]
        s0 = seq_start[info]
        s1 = s0 + num_actions[info]
        catch_up(lazy, p, info, s0, s1, raw)
        for s in range(s0, s1):
            v = raw[s] + inst[s]
            raw[s] = v * (pos if v >= 0.0 else neg)
        link_slice(link_kind, link_param, raw, s0, s1, strategy)
    tick(lazy, p, t, rule)
    for k in range(nt):
        stamp(lazy, p, touched[k])


@njit(cache=True, inline="always")
def start_pass(t0, it, p, avg_power, dense, seq_bounds, inst):
    """Before player ``p``'s pass in iteration ``it`` of a fused run that started after
    ``t0`` iterations: clear ``p``'s ``inst`` for a ``dense`` rule (a whole-table update) and
    return the iteration number ``t`` and the average strategy's weight ``t ** avg_power``."""
    if dense:
        for s in range(seq_bounds[p], seq_bounds[p + 1]):
            inst[s] = 0.0
    t = t0 + it + 1
    return t, float(t) ** avg_power


def seed_state(seed: int | None) -> np.ndarray:
    """A one-word SplitMix64 state drawn from ``numpy.random.default_rng(seed)``."""
    state = np.random.default_rng(seed).bit_generator.random_raw(1)
    return np.asarray(state, dtype=np.uint64).reshape(1)


# -- lazily discounted regrets -------------------------------------------------------------
def discounts_lazily(rule_kind: int, link_kind: int) -> bool:
    """Whether a fused sampled pass discounts lazily: a discounted rule with a polynomial link
    (whose strategies a common discount of the positive regrets leaves unchanged)."""
    return rule_kind == DISCOUNTED and link_kind == POLYNOMIAL


class LazyDiscounting:
    """What the history and the public form's sampled passes (which have ``bounds`` and
    ``arrays`` with ``seq_start`` and ``num_actions``) do after a lazily discounted run
    (:class:`LazyDiscount`, carried by the loop state)."""

    def show_true_regrets(self, lazy: LazyDiscount, regrets: np.ndarray) -> None:
        """After a lazy run: the estimator's table ``regrets`` shows the true regrets (the
        lazy state stays)."""
        true_regrets(lazy, self.bounds, self.arrays.seq_start, self.arrays.num_actions, regrets)

