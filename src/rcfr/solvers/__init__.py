"""Solvers: the one regret loop, its tabular instances (CFR, CFR+) and Monte Carlo CFR."""

from .loop import ALGORITHMS, CFRSolver, RegretSolver
from .run import SolveResult, make_solver, solve
from .sampling import SCHEMES, MCCFRSolver
from .tabular import TabularRegrets

__all__ = [
    "ALGORITHMS", "SCHEMES", "CFRSolver", "MCCFRSolver", "RegretSolver", "SolveResult",
    "TabularRegrets", "make_solver", "solve",
]
