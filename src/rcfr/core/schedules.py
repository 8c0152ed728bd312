"""Hyperparameter schedules: update-rule parameters that change with the iteration.

Zhang, McAleer & Sandholm (2024), "Faster game solving via hyperparameter schedules"
(arXiv:2404.09097, eq. 4) move DCFR's parameters linearly over a run of ``T`` iterations,

    alpha_t = 1 + 3 t / T,    beta_t = -1 - 2 t / T,    gamma_t = g0 - 5 t / T,

with ``g0 = 30`` (their default; ``15`` the milder schedule): the average strategy forgets the
early iterations hard at first and less and less.  HS-DCFR schedules all three; HS-PCFR+ only
``gamma``, PCFR+'s one hyperparameter.  ``t`` counts the iterations from 1; past the horizon the
parameters keep their values at ``T`` (rcfr's choice: the paper runs ``T`` iterations).

A time-varying averaging power enters the average as DCFR's recurrence (Brown & Sandholm 2019,
sec. 3; the DDCFR code): ``C^t = C^{t-1} ((t-1)/t)^{gamma_t} + x^t`` (:func:`average_factor`),
which is ``t^gamma`` weighting when ``gamma`` is constant.
"""

from __future__ import annotations

from .rules import UpdateRule


def hs_parameters(rule: UpdateRule, t: int) -> tuple[float, float, float]:
    """``(alpha, beta, gamma)`` of the scheduled rule ``hs-dcfr`` or ``hs-pcfr+`` at iteration
    ``t`` (``hs-pcfr+`` schedules gamma alone: its alpha is PCFR+'s 0, no damping of the
    prediction, :func:`rcfr.core.rules.rule_update`)."""
    gamma0, horizon = rule.schedule
    x = min(float(t), horizon) / horizon
    if rule.name == "hs-pcfr+":
        return 0.0, 0.0, gamma0 - 5.0 * x
    return 1.0 + 3.0 * x, -1.0 - 2.0 * x, gamma0 - 5.0 * x


def average_factor(t: int, gamma: float) -> float:
    """What the average-strategy sums are multiplied by before iteration ``t`` adds its
    strategy with weight 1: ``((t-1)/t)^gamma`` (0 at ``t = 1``, whose sums are empty)."""
    return 0.0 if t <= 1 else ((t - 1) / t) ** gamma
