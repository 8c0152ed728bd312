"""The fictitious-play family (Ceraolo 2021, sec. 5.1): plain normal-form fictitious play (Brown
1951), full-width extensive-form fictitious play (XFP) and sampled fictitious self-play (FSP;
Heinrich, Lanctot & Silver 2015), and Neural Fictitious Self-Play (NFSP; Heinrich & Silver
2016).  They are not regret loops: each is its own driver over the compiled forms, with the
interface :mod:`rcfr.run.engine` drives (:class:`~rcfr.solvers.policy_driver.PolicyDriver`).

``FP_ALGORITHMS`` names them; :func:`make_fp_solver` builds one (the NFSP module, which needs
PyTorch, is imported only when asked for)."""

from __future__ import annotations

from typing import Any

from ...core.names import EPISODIC, FP_ALGORITHMS  # noqa: F401 (re-exported)
from ..policy_driver import PolicyDriver
from .stepped import parse_step


def make_fp_solver(game: Any, key: str, **options: Any) -> PolicyDriver:
    """The fictitious-play solver ``key`` on ``game`` with its own keyword ``options``."""
    if key == "fp":
        from .fictitious import FictitiousPlay

        return FictitiousPlay(game, **options)
    if key == "xfp":
        from .xfp import XFPSolver

        return XFPSolver(game, **options)
    if key == "fsp":
        from .fsp import FSPSolver

        return FSPSolver(game, **options)
    from .nfsp import NFSPSolver

    return NFSPSolver(game, **options)


__all__ = ["EPISODIC", "FP_ALGORITHMS", "make_fp_solver", "parse_step"]
