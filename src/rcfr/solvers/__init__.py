"""Solvers: the one regret loop and its tabular instances (CFR, CFR+)."""

from .loop import ALGORITHMS, CFRSolver, RegretSolver
from .tabular import TabularRegrets

__all__ = ["ALGORITHMS", "CFRSolver", "RegretSolver", "TabularRegrets"]
