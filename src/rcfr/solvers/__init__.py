"""Solvers: the one regret loop (a tree pass, a regret estimator, an update rule and a link),
its tabular instances (CFR, CFR+, LCFR, DCFR, PCFR+), Regression CFR and Monte Carlo CFR."""

from .estimator import RegretEstimator
from .loop import ALGORITHMS, CFRSolver, FullWidthPass, RegretSolver, TreePass
from .rcfr import RCFRSolver
from .regression import LinearRegrets, RegressionRegrets
from .rules import RULES, UpdateRule, dcfr, parse_rule
from .run import SolveResult, make_solver, solve
from .sampling import SCHEMES, MCCFRSolver, SampledPass
from .tabular import TabularRegrets

__all__ = [
    "ALGORITHMS", "RULES", "SCHEMES", "CFRSolver", "FullWidthPass", "LinearRegrets",
    "MCCFRSolver", "RCFRSolver", "RegressionRegrets", "RegretEstimator", "RegretSolver",
    "SampledPass", "SolveResult", "TabularRegrets", "TreePass", "UpdateRule", "dcfr",
    "make_solver", "parse_rule", "solve",
]
