"""The Deep CFR family (Ceraolo 2021, sec. 5.2): Deep CFR (Brown et al. 2019), Single Deep CFR
(Steinberger 2019) and DREAM (Steinberger, Lerer & Brown 2020) -- neural Monte Carlo CFR with
reservoir memories.  Like fictitious play they are a second driver over the compiled forms
(the interface of :class:`~rcfr.solvers.policy_driver.PolicyDriver`), not the regret loop.

``DEEP_ALGORITHMS`` names them; :func:`make_deep_solver` builds one.  PyTorch is imported only
when a network is built."""

from __future__ import annotations

from typing import Any

from ...core.names import DEEP_ALGORITHMS  # noqa: F401 (re-exported)


def make_deep_solver(game: Any, key: str, **options: Any) -> Any:
    """The solver ``key`` of the family on ``game`` with its keyword ``options``."""
    if key == "deep-cfr":
        from .deep_cfr import DeepCFRSolver

        return DeepCFRSolver(game, **options)
    if key == "sd-cfr":
        from .sd_cfr import SDCFRSolver

        return SDCFRSolver(game, **options)
    from .dream import DREAMSolver

    return DREAMSolver(game, **options)


__all__ = ["DEEP_ALGORITHMS", "make_deep_solver"]
