"""Solvers: the one regret loop (a tree pass, a regret estimator, an update rule and a link),
its tabular instances (CFR, CFR+, LCFR, DCFR, PCFR+), Regression CFR and Monte Carlo CFR;
the options of a run, declared once (:mod:`rcfr.solvers.options`).  Exports load on first use
(:func:`rcfr.core.lazy.lazy_exports`)."""

from typing import TYPE_CHECKING

from ..core.lazy import lazy_exports

if TYPE_CHECKING:
    from ..core.rules import RULES, UpdateRule, dcfr, parse_rule
    from ..forms.base import TreePass
    from ..forms.sampling import SCHEMES
    from .estimator import RegretEstimator
    from .loop import ALGORITHMS, CFRSolver, RegretSolver
    from .mccfr import MCCFRSolver
    from .options import OPTIONS, Option
    from .rcfr import RCFRSolver
    from .regression import LinearRegrets, RegressionRegrets
    from .run import make_solver
    from .tabular import TabularRegrets

__getattr__, __dir__ = lazy_exports(__name__, {
    "RULES": "..core.names", "UpdateRule": "..core.rules", "dcfr": "..core.rules",
    "parse_rule": "..core.rules", "TreePass": "..forms.base", "SCHEMES": "..core.names",
    "RegretEstimator": ".estimator", "ALGORITHMS": "..core.names", "CFRSolver": ".loop",
    "RegretSolver": ".loop", "OPTIONS": ".options", "Option": ".options", "RCFRSolver": ".rcfr",
    "LinearRegrets": ".regression", "RegressionRegrets": ".regression",
    "make_solver": ".run", "MCCFRSolver": ".mccfr",
    "TabularRegrets": ".tabular"})

__all__ = [
    "ALGORITHMS", "OPTIONS", "RULES", "SCHEMES", "CFRSolver", "LinearRegrets",
    "MCCFRSolver", "Option", "RCFRSolver", "RegressionRegrets", "RegretEstimator",
    "RegretSolver", "TabularRegrets", "TreePass", "UpdateRule", "dcfr", "make_solver",
    "parse_rule",
]
