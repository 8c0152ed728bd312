"""Solvers: the one regret loop and its tabular instances (CFR, CFR+)."""

from .loop import ALGORITHMS, CFRSolver, RegretSolver
from .run import SolveResult, make_solver, solve
from .tabular import TabularRegrets

__all__ = [
    "ALGORITHMS", "CFRSolver", "RegretSolver", "SolveResult", "TabularRegrets", "make_solver",
    "solve",
]
