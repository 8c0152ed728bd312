"""Update rules: how a pass's instantaneous regrets enter the regret estimates, what the link
reads, and how the average strategy is weighted (ARCHITECTURE.md, the UpdateRule plug-in).

* ``cfr``: ``R += r``, uniform averaging (Zinkevich et al. 2007).
* ``cfr+``: ``Q = max(Q + r, 0)``, linear averaging (Tammelin 2014; Tammelin et al. 2015).
* ``dcfr:alpha,beta,gamma``: Discounted CFR (Brown & Sandholm 2019, sec. 3): at iteration
  ``t`` the new regret is added and the sum is multiplied by ``t^a / (t^a + 1)`` where it is
  ``>= 0`` (``a = alpha``) and by ``t^b / (t^b + 1)`` where it is negative (``b = beta``);
  iteration ``t`` weighs ``t^gamma`` in the average.  Defaults 1.5, 0, 2.  The order (add, then
  discount the sum by its sign) is OpenSpiel's ``discounted_cfr.py``, whose trajectories these
  rules reproduce.
* ``lcfr``: Linear CFR = ``dcfr:1,1,1`` (regret and average of iteration ``t`` weighted by
  ``t``, up to a common factor).
* ``pcfr+``: predictive CFR+ (Farina, Kroer & Sandholm 2021, PRM+ at every information set):
  ``Q = max(Q + r, 0)`` as in CFR+, the prediction ``m`` is the last instantaneous regret, and
  the link reads ``Q + m`` (the strategy is ``[Q + m]^+`` normalised); quadratic averaging.
* ``sapcfr+:alpha``: simple asymmetric predictive CFR+ (Meng et al., AAAI 2026, SAPCFR+): as
  ``pcfr+``, but the explicit update takes a step ``1 / (1 + alpha)`` of the implicit one, so
  the link reads ``Q + m / (1 + alpha)``; default ``alpha = 2``.  ``pcfr+`` is ``alpha = 0``.
* ``pdcfr+:alpha,gamma``: predictive discounted CFR+ (Xu et al. 2024): as ``pcfr+``, but the
  clipped sum is multiplied by ``t^alpha / (t^alpha + 1)`` at iteration ``t``; iteration ``t``
  weighs ``t^gamma`` in the average.  Defaults DCFR's, 1.5 and 2 (the PDCFR+ paper tunes
  ``pdcfr+:2.3,5``).
* ``dcfr+:alpha,gamma``: DCFR+ (Xu et al., IJCAI 2024, sec. 4): CFR+'s clipping with DCFR's
  discount of the positive regrets, ``Q^t = [Q^{t-1} (t-1)^a / ((t-1)^a + 1) + r^t]^+`` (kind
  ``CLIPPED_DISCOUNTED``, in the paper's order); iteration ``t`` weighs ``t^gamma``.  Defaults
  the paper's, 1.5 and 4.

The scheduled rules change their parameters with the iteration (:mod:`rcfr.core.schedules`,
:mod:`rcfr.solvers.ddcfr`); the kernels then read one iteration's parameters at a time:

* ``hs-dcfr:g0,T``: DCFR with the hyperparameter schedules of Zhang, McAleer & Sandholm (2024)
  (kind ``DISCOUNTED_BEFORE``).
* ``hs-pcfr+:g0,T``: PCFR+ with the scheduled averaging power (kind ``PREDICTIVE``).
* ``ddcfr:T``: Dynamic DCFR (Xu et al., ICLR 2024): the learned policy sets DCFR's parameters
  (kind ``DISCOUNTED_BEFORE``).

``DISCOUNTED_BEFORE`` is DCFR in the DDCFR paper's form (its eq. 1): the previous sum is
discounted by its sign with the factors of ``t - 1`` and iteration ``t``'s regrets added,
``R^t = R^{t-1} (t-1)^a / ((t-1)^a + 1) + r^t`` (``a = alpha`` where ``R^{t-1} > 0``, ``beta``
elsewhere), so that iteration ``t``'s parameters act at iteration ``t``.

A rule is a small frozen object; the numba kernels read ``kind``, ``alpha`` and ``beta``
(:class:`RuleParams`).

Lazy discounting.  A sampled pass touches few information sets, so discounting every regret
after every pass costs far more than the pass.  The discounted rules can instead keep, per
information set, the running products of the positive and negative discount factors at its
last update (:class:`LazyDiscount`) and apply the factors of the skipped iterations when the set
is next touched: an untouched regret gets no new regret (``v = R``), so its sign never changes
(a positive factor keeps ``R > 0``, ``R < 0``, ``0`` and ``-0.0`` as they are) and the skipped
steps multiply it by the product of the factors of its sign, exactly what the eager discount
does one step at a time (up to rounding).  The products are kept as mantissa and exponent, so
``beta = 0`` (a factor 1/2 per iteration) never underflows them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from .errors import RcfrError
from .names import RULES, SCHEDULED_RULES

PLAIN, CLIPPED, DISCOUNTED, PREDICTIVE, PREDICTIVE_DISCOUNTED = 0, 1, 2, 3, 4
CLIPPED_DISCOUNTED, DISCOUNTED_BEFORE = 5, 6


class RuleParams(NamedTuple):
    """What the kernels read of a rule."""

    kind: int
    alpha: float
    beta: float


def _num(x: float) -> str:
    """The shortest text that reads back as ``x`` (``2`` rather than ``2.0``)."""
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


@dataclass(frozen=True)
class UpdateRule:
    """One update rule; build it with :func:`parse_rule`."""

    name: str
    kind: int
    averaging: float  # iteration t weighs t**averaging in the average strategy
    alpha: float = 0.0
    beta: float = 0.0
    schedule: tuple[float, ...] = ()  # a scheduled rule's own parameters (g0, T or T)

    @property
    def params(self) -> RuleParams:
        return RuleParams(self.kind, self.alpha, self.beta)

    @property
    def predictive(self) -> bool:
        """Whether the link reads the estimates plus a prediction (the last regrets)."""
        return self.kind in (PREDICTIVE, PREDICTIVE_DISCOUNTED)

    @property
    def discounted(self) -> bool:
        return self.kind in (DISCOUNTED, PREDICTIVE_DISCOUNTED, CLIPPED_DISCOUNTED,
                             DISCOUNTED_BEFORE)

    @property
    def scheduled(self) -> bool:
        """Whether the parameters change with the iteration (the solver sets them each one)."""
        return self.name in SCHEDULED_RULES

    def spec(self) -> str:
        if self.name == "dcfr":
            return f"dcfr:{_num(self.alpha)},{_num(self.beta)},{_num(self.averaging)}"
        if self.name in ("pdcfr+", "dcfr+"):
            return f"{self.name}:{_num(self.alpha)},{_num(self.averaging)}"
        if self.name == "sapcfr+":
            return f"sapcfr+:{_num(self.alpha)}"
        if self.scheduled:
            return f"{self.name}:{','.join(_num(v) for v in self.schedule)}"
        return self.name

    def __str__(self) -> str:
        return self.spec()


DCFR_DEFAULTS = (1.5, 0.0, 2.0)
PDCFR_DEFAULTS = (1.5, 2.0)
DCFR_PLUS_DEFAULTS = (1.5, 4.0)  # Xu et al. 2024 (IJCAI), sec. 5
SAPCFR_DEFAULTS = (2.0,)  # the asymmetry alpha of SAPCFR+ (Meng et al. 2026)
HS_DEFAULTS = (30.0, 1000.0)  # the first averaging power and the horizon (Zhang et al. 2024)
HORIZON_DEFAULT = 1000  # the iterations a schedule spans: the papers' 1,000


def _finite(value, name: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise RcfrError(f"{name} must be a number, got {value!r}") from None
    if isinstance(value, bool) or not math.isfinite(x):
        raise RcfrError(f"{name} must be a finite number, got {value!r}")
    return x


def dcfr(alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0) -> UpdateRule:
    """Discounted CFR(alpha, beta, gamma) (Brown & Sandholm 2019); ``gamma >= 0``."""
    alpha, beta, gamma = (_finite(v, n) for v, n in ((alpha, "alpha"), (beta, "beta"),
                                                      (gamma, "gamma")))
    if gamma < 0:
        raise RcfrError(f"gamma must be >= 0, got {gamma:g}")
    return UpdateRule("dcfr", DISCOUNTED, gamma, alpha, beta)


def parse_rule(spec: str | UpdateRule | None) -> UpdateRule:
    """``"cfr"``, ``"cfr+"``, ``"lcfr"``, ``"dcfr"`` / ``"dcfr:A,B,G"``, ``"pcfr+"``,
    ``"pdcfr+"`` / ``"pdcfr+:A,G"`` or an :class:`UpdateRule` (``None`` is ``cfr``)."""
    if spec is None:
        return UpdateRule("cfr", PLAIN, 0.0)
    if isinstance(spec, UpdateRule):
        return spec
    name, _, arg = str(spec).strip().lower().partition(":")
    args = [a for a in arg.split(",")] if arg.strip() else []
    if name not in RULES and name not in SCHEDULED_RULES:
        raise RcfrError(f"unknown update rule {spec!r}; use one of "
                        f"{', '.join((*RULES, *SCHEDULED_RULES))}")
    if name == "dcfr":
        if len(args) not in (0, 3):
            raise RcfrError(f"dcfr takes three parameters alpha,beta,gamma, got {spec!r}")
        return dcfr(*(args or DCFR_DEFAULTS))
    if name in ("pdcfr+", "dcfr+"):
        if len(args) not in (0, 2):
            raise RcfrError(f"{name} takes two parameters alpha,gamma, got {spec!r}")
        defaults = PDCFR_DEFAULTS if name == "pdcfr+" else DCFR_PLUS_DEFAULTS
        alpha, gamma = (_finite(v, n) for v, n in zip(args or defaults,
                                                       ("alpha", "gamma"), strict=True))
        if gamma < 0:
            raise RcfrError(f"gamma must be >= 0, got {gamma:g}")
        kind = PREDICTIVE_DISCOUNTED if name == "pdcfr+" else CLIPPED_DISCOUNTED
        return UpdateRule(name, kind, gamma, alpha, 0.0)
    if name == "sapcfr+":
        if len(args) not in (0, 1):
            raise RcfrError(f"sapcfr+ takes one parameter alpha, got {spec!r}")
        alpha = _finite(args[0] if args else SAPCFR_DEFAULTS[0], "alpha")
        if alpha < 0:
            raise RcfrError(f"sapcfr+'s alpha must be >= 0, got {alpha:g}")
        return UpdateRule(name, PREDICTIVE, 2.0, alpha, 0.0)
    if name in SCHEDULED_RULES:
        return _scheduled(name, args, spec)
    if args:
        raise RcfrError(f"the {name} rule takes no parameters, got {spec!r}")
    return {
        "cfr": UpdateRule("cfr", PLAIN, 0.0),
        "cfr+": UpdateRule("cfr+", CLIPPED, 1.0),
        "lcfr": UpdateRule("lcfr", DISCOUNTED, 1.0, 1.0, 1.0),
        "pcfr+": UpdateRule("pcfr+", PREDICTIVE, 2.0),
    }[name]


def _horizon(value) -> int:
    horizon = _finite(value, "the horizon")
    if horizon != int(horizon) or not 1 <= horizon <= 2**40:
        raise RcfrError(f"the horizon must be a whole number of iterations >= 1, got {value}")
    return int(horizon)


def _scheduled(name: str, args: list[str], spec) -> UpdateRule:
    """A scheduled rule: ``hs-dcfr:g0,T``, ``hs-pcfr+:g0,T`` (the first averaging power and
    the horizon) or ``ddcfr:T``."""
    if name == "ddcfr":
        if len(args) not in (0, 1):
            raise RcfrError(f"ddcfr takes one parameter, the horizon, got {spec!r}")
        return UpdateRule(name, DISCOUNTED_BEFORE, 0.0,
                          schedule=(float(_horizon(args[0] if args else HORIZON_DEFAULT)),))
    if len(args) not in (0, 2):
        raise RcfrError(f"{name} takes two parameters gamma0,horizon, got {spec!r}")
    gamma0 = _finite(args[0] if args else HS_DEFAULTS[0], "gamma0")
    horizon = _horizon(args[1] if args else HS_DEFAULTS[1])
    if gamma0 < 5:  # the schedule lowers it by 5 over the horizon
        raise RcfrError(f"gamma0 must be >= 5 (the schedule lowers it by 5), got {gamma0:g}")
    kind = DISCOUNTED_BEFORE if name == "hs-dcfr" else PREDICTIVE
    return UpdateRule(name, kind, 0.0, schedule=(gamma0, float(horizon)))


@njit(cache=True)
def discount(t, power):
    """``t^power / (t^power + 1)`` (1 where ``t^power`` overflows)."""
    w = float(t) ** power
    return 1.0 if w == math.inf else w / (w + 1.0)


@njit(cache=True, inline="always")
def absorbed(regret, delta, clipped):
    """A regret after absorbing ``delta`` by the plain rule (``R + r``, CFR) or, with
    ``clipped``, the clipped one (``max(Q + r, 0)``, CFR+; Tammelin 2014)."""
    v = regret + delta
    return (v if v > 0.0 else 0.0) if clipped else v


@njit(cache=True, inline="always")
def absorbed_by(kind, regret, delta, pos, neg):
    """One regret after absorbing ``delta`` by a non-predictive rule of ``kind``
    (:func:`rule_update`'s arithmetic for one sequence; ``pos`` / ``neg``: the discounted
    rule's factors ``discount(t, alpha)`` / ``discount(t, beta)``)."""
    if kind == PLAIN or kind == CLIPPED:
        return absorbed(regret, delta, kind == CLIPPED)
    v = regret + delta
    return v * (pos if v >= 0.0 else neg)


@njit(cache=True)
def rule_update(rule, t, inst, s_lo, s_hi, regrets, pred):
    """Absorb iteration ``t``'s instantaneous regrets ``inst`` into ``regrets`` for sequences
    ``[s_lo, s_hi)`` by ``rule`` (a :class:`RuleParams`); predictive rules keep ``inst`` in
    ``pred`` as the next prediction, ``PREDICTIVE`` scaled by ``1 / (1 + alpha)`` (SAPCFR+'s
    asymmetric step; 1, exactly, for PCFR+)."""
    kind = rule.kind
    if kind == PLAIN:
        for s in range(s_lo, s_hi):
            regrets[s] = regrets[s] + inst[s]
    elif kind == CLIPPED or kind == PREDICTIVE:
        for s in range(s_lo, s_hi):
            v = regrets[s] + inst[s]
            regrets[s] = v if v > 0.0 else 0.0
    elif kind == DISCOUNTED:
        pos = discount(t, rule.alpha)
        neg = discount(t, rule.beta)
        for s in range(s_lo, s_hi):
            v = regrets[s] + inst[s]
            regrets[s] = v * (pos if v >= 0.0 else neg)
    elif kind == DISCOUNTED_BEFORE or kind == CLIPPED_DISCOUNTED:
        # the papers' form: the sum of t - 1 discounted (by its sign), then r added (clipped)
        pos = discount(t - 1, rule.alpha) if t > 1 else 0.0  # (R^0 = 0)
        neg = discount(t - 1, rule.beta) if t > 1 else 0.0
        if kind == CLIPPED_DISCOUNTED:
            for s in range(s_lo, s_hi):
                v = regrets[s] * pos + inst[s]
                regrets[s] = v if v > 0.0 else 0.0
        else:
            for s in range(s_lo, s_hi):
                v = regrets[s]
                regrets[s] = v * (pos if v > 0.0 else neg) + inst[s]
    else:  # PREDICTIVE_DISCOUNTED: clip, then discount the clipped sum
        pos = discount(t, rule.alpha)
        for s in range(s_lo, s_hi):
            v = regrets[s] + inst[s]
            regrets[s] = v * pos if v > 0.0 else 0.0
    if kind == PREDICTIVE:
        step = 1.0 / (1.0 + rule.alpha)
        for s in range(s_lo, s_hi):
            pred[s] = inst[s] * step
    elif kind == PREDICTIVE_DISCOUNTED:
        for s in range(s_lo, s_hi):
            pred[s] = inst[s]


@njit(cache=True)
def link_input(rule, regrets, pred, s_lo, s_hi, out):
    """What the link reads for ``[s_lo, s_hi)``: the regrets, plus the prediction for the
    predictive rules.  Returns the array to read (``regrets`` itself when not predictive)."""
    if rule.kind != PREDICTIVE and rule.kind != PREDICTIVE_DISCOUNTED:
        return regrets
    for s in range(s_lo, s_hi):
        out[s] = regrets[s] + pred[s]
    return out


# -- lazy discounting ---------------------------------------------------------------------------
POSITIVE, NEGATIVE = 0, 1  # the two products: factors of regrets >= 0, and of regrets < 0
ZERO_EXPONENT = 1 << 12  # a zero factor: the product's exponent drops below any double's
MIN_EXPONENT = -2200  # ldexp by less gives 0 for every finite double


class LazyDiscount(NamedTuple):
    """Lazily discounted regrets (see the module docstring): ``raw[s]`` is the regret of ``s``
    as of its information set's last update; the true regret is ``raw[s]`` times the product
    of the discount factors (of its sign) since then, ``clock[p] / mark[i]``.  A product is
    ``m * 2**e`` with ``m`` in ``[0.5, 1)``."""

    raw: np.ndarray  # (sequences,)
    mark_m: np.ndarray  # (infosets, 2): the player's products at the set's last update
    mark_e: np.ndarray  # (infosets, 2) int64
    clock_m: np.ndarray  # (2, 2): each player's products over its updates so far
    clock_e: np.ndarray  # (2, 2) int64


def lazy_discount(regrets: np.ndarray, num_infosets: int) -> LazyDiscount:
    """Lazy state whose true regrets are ``regrets`` (every product 1 = 0.5 * 2**1)."""
    return LazyDiscount(np.array(regrets, dtype=np.float64), np.full((num_infosets, 2), 0.5),
                        np.ones((num_infosets, 2), dtype=np.int64), np.full((2, 2), 0.5),
                        np.ones((2, 2), dtype=np.int64))


@njit(cache=True)
def scale_by(m, e, f):
    """The product ``m * 2**e`` times ``f`` in ``[0, 1]``, as ``(mantissa, exponent)``."""
    if f == 0.0:
        return m, e - ZERO_EXPONENT
    fm, fe = math.frexp(f)
    m2, me = math.frexp(m * fm)
    return m2, e + fe + me


@njit(cache=True)
def catch_up(lazy, p, info, s0, s1, out):
    """``out[s0:s1]`` = the true regrets of information set ``info`` of player ``p``: its raw
    regrets times the factors of their sign since its last update, ``clock[p] / mark[info]``
    (scaled by its exponent apart when the product alone would leave a double's range while
    the regret times it need not)."""
    cm, ce, mm, me = lazy.clock_m, lazy.clock_e, lazy.mark_m, lazy.mark_e
    q_up = cm[p, POSITIVE] / mm[info, POSITIVE]
    d_up = max(ce[p, POSITIVE] - me[info, POSITIVE], MIN_EXPONENT)
    q_down = cm[p, NEGATIVE] / mm[info, NEGATIVE]
    d_down = max(ce[p, NEGATIVE] - me[info, NEGATIVE], MIN_EXPONENT)
    if d_up >= -1000 and d_down >= -1000:
        up = math.ldexp(q_up, d_up)
        down = math.ldexp(q_down, d_down)
        for s in range(s0, s1):
            r = lazy.raw[s]
            out[s] = r * (up if r >= 0.0 else down)
    else:
        for s in range(s0, s1):
            r = lazy.raw[s]
            out[s] = math.ldexp(r * q_up, d_up) if r >= 0.0 else math.ldexp(r * q_down, d_down)


@njit(cache=True)
def tick(lazy, p, t, rule):
    """Player ``p``'s products advance by iteration ``t``'s factors."""
    pos = discount(t, rule.alpha)
    neg = discount(t, rule.beta)
    cm, ce = lazy.clock_m, lazy.clock_e
    cm[p, POSITIVE], ce[p, POSITIVE] = scale_by(cm[p, POSITIVE], ce[p, POSITIVE], pos)
    cm[p, NEGATIVE], ce[p, NEGATIVE] = scale_by(cm[p, NEGATIVE], ce[p, NEGATIVE], neg)


@njit(cache=True)
def stamp(lazy, p, info):
    """Information set ``info`` of player ``p`` is up to date with ``p``'s products."""
    for k in range(2):
        lazy.mark_m[info, k] = lazy.clock_m[p, k]
        lazy.mark_e[info, k] = lazy.clock_e[p, k]


@njit(cache=True)
def true_regrets(lazy, bounds, seq_start, num_actions, out):
    """Every information set's true regrets into ``out`` (the lazy state is unchanged)."""
    for p in range(2):
        for info in range(bounds[p], bounds[p + 1]):
            s0 = seq_start[info]
            catch_up(lazy, p, info, s0, s0 + num_actions[info], out)
