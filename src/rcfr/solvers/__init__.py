"""Solvers: the one regret loop, its tabular instances (CFR, CFR+), Regression CFR and Monte
Carlo CFR."""

from .loop import ALGORITHMS, CFRSolver, RegretSolver
from .rcfr import RCFRSolver
from .regression import LinearRegrets, RegressionRegrets
from .run import SolveResult, make_solver, solve
from .sampling import SCHEMES, MCCFRSolver
from .tabular import TabularRegrets

__all__ = [
    "ALGORITHMS", "SCHEMES", "CFRSolver", "LinearRegrets", "MCCFRSolver", "RCFRSolver",
    "RegressionRegrets", "RegretSolver", "SolveResult", "TabularRegrets", "make_solver", "solve",
]
