"""Dynamic Discounted CFR (Xu et al., ICLR 2024, Algorithm 1): DCFR whose parameters a learned
policy sets as the run goes.

Every ``tau`` iterations the policy reads the observation ``(t / T, f)``: the iteration over the
horizon ``T`` and the exploitability's progress on a log scale,
``f = (log10 e_t + 12) / (log10 e_0 + 12)`` (``e_t``: the exploitability of the average
strategy after ``t`` iterations, at least 1e-12; ``e_0``: the uniform strategy's), and answers
``(alpha, beta, gamma)`` in [0, 5] x [-5, 0] x [0, 5] and the interval ``tau`` in
{1, 2, 5, 10, 20} (the authors' ``ddcfr/cfr/cfr_env.py``).  The next ``tau`` iterations run
DCFR in the paper's form with those parameters (:data:`rcfr.core.rules.DISCOUNTED_BEFORE`,
``R^t = R^{t-1} (t-1)^a / ((t-1)^a + 1) + r^t``; the average ``C^t = C^{t-1}
((t-1)/t)^gamma + x^t``).  Past the horizon the last parameters stay (the paper runs ``T``).

The policy is the authors' released network (github.com/rpSebastian/DDCFR, ``models/model.pkl``,
trained by evolution strategies), converted once to ``data/ddcfr_policy.npz``
(``benchmarks/convert_ddcfr_policy.py``) and run here in numpy: two layers of 64 ELU units,
``tanh`` to the three parameters, a linear head of five logits for ``tau``.  The exploitability
is the form's exact evaluator's.
"""

from __future__ import annotations

import math
from importlib import resources
from typing import Any

import numpy as np

from ..evaluate import exploitability
from ..policy import TabularPolicy
from .scheduled import ScheduledSolver

TAUS = (1, 2, 5, 10, 20)  # the intervals the policy chooses from
RANGES = ((0.0, 5.0), (-5.0, 0.0), (0.0, 5.0))  # alpha, beta, gamma
FLOOR = -12.0  # log10 of the least exploitability the observation counts (the authors' 1e-12)
LAYERS = ("w1", "b1", "w2", "b2", "w_abg", "b_abg", "w_tau", "b_tau")

_WEIGHTS: dict[str, np.ndarray] | None = None


def policy_weights() -> dict[str, np.ndarray]:
    """The released network's weights (float64), loaded once without pickle."""
    global _WEIGHTS
    if _WEIGHTS is None:
        ref = resources.files("rcfr.solvers").joinpath("data/ddcfr_policy.npz")
        with ref.open("rb") as f, np.load(f, allow_pickle=False) as data:
            _WEIGHTS = {k: np.array(data[k], dtype=np.float64) for k in LAYERS}
    return _WEIGHTS


def _elu(x: np.ndarray) -> np.ndarray:
    return np.where(x > 0.0, x, np.expm1(np.minimum(x, 0.0)))


def policy_outputs(obs: tuple[float, float]) -> tuple[np.ndarray, int]:
    """The network on one observation: the three ``tanh`` outputs in [-1, 1] and the index of
    ``tau`` (the largest logit)."""
    w = policy_weights()
    x = np.asarray(obs, dtype=np.float64)
    h = _elu(w["w1"] @ x + w["b1"])
    h = _elu(w["w2"] @ h + w["b2"])
    abg = np.tanh(w["w_abg"] @ h + w["b_abg"])
    return abg, int(np.argmax(w["w_tau"] @ h + w["b_tau"]))


def policy_action(obs: tuple[float, float]) -> tuple[float, float, float, int]:
    """``(alpha, beta, gamma, tau)`` for an observation: each output mapped from [-1, 1] onto
    its range."""
    abg, k = policy_outputs(obs)
    a, b, g = (float(v) * (hi - lo) / 2 + (hi + lo) / 2 for v, (lo, hi) in zip(abg, RANGES,
                                                                            strict=True))
    return a, b, g, TAUS[k]


def log_exploitability(e: float) -> float:
    return math.log10(max(float(e), 1e-12))


class DDCFRSolver(ScheduledSolver):
    """``ddcfr`` / ``ddcfr:T`` (Xu et al. 2024): DCFR with the learned discounting policy.

    Its state beyond the tables: the current parameters, the iteration of the next query and
    the exploitabilities the policy read (the first is ``e_0``); checkpoints keep them, so a
    resumed run continues bit for bit."""

    def __init__(self, game: Any, algorithm: str = "ddcfr", **options: Any) -> None:
        super().__init__(game, algorithm, **options)
        self.params_ = (1.5, 0.0, 2.0)  # (set by the first query)
        self.next_query_ = 0
        self.history_: list[tuple[int, float]] = []  # (iteration, exploitability) read

    def _exploitability(self) -> float:
        avg = TabularPolicy.from_weights(self.tree, self.avg_weights_)
        return exploitability(self.tree, avg)

    def parameters(self, t: int) -> tuple[float, float, float]:
        done = t - 1
        horizon = self.rule_.schedule[0]
        if done == self.next_query_ and done < horizon:
            e = self._exploitability()
            self.history_.append((done, e))
            start = log_exploitability(self.history_[0][1])
            frac = ((log_exploitability(e) - FLOOR) / (start - FLOOR) if start > FLOOR
                    else 0.0)
            alpha, beta, gamma, tau = policy_action((done / horizon, frac))
            self.params_ = (alpha, beta, gamma)
            self.next_query_ = done + tau
        return self.params_

    def _extra_state(self) -> dict[str, np.ndarray]:
        return {"ddcfr_params": np.array([*self.params_, self.next_query_], dtype=np.float64),
                "ddcfr_history": np.array(self.history_, dtype=np.float64).reshape(-1, 2)}

    def _load_extra_state(self, arrays: dict[str, np.ndarray]) -> None:
        params = np.asarray(arrays["ddcfr_params"], dtype=np.float64)
        history = np.asarray(arrays["ddcfr_history"], dtype=np.float64)
        if params.shape != (4,) or history.ndim != 2 or history.shape[1] != 2:
            raise ValueError("ddcfr state")
        if not (np.isfinite(params).all() and np.isfinite(history).all()):
            raise ValueError("ddcfr state")
        self.params_ = (float(params[0]), float(params[1]), float(params[2]))
        self.next_query_ = int(params[3])
        self.history_ = [(int(i), float(e)) for i, e in history]
