"""rcfr: counterfactual regret minimization and Regression CFR for two-player zero-sum games."""

from .api import solve
from .core.errors import RcfrError
from .evaluate import Evaluation, best_response, evaluate, expected_value, exploitability, nash_conv
from .forms import GameTree
from .forms.compile import compile_game
from .games import Game, State, load_game, registered_games
from .lp import LPSolution, solve_lp
from .policy import TabularPolicy
from .solvers import CFRSolver, MCCFRSolver, RCFRSolver, RegretSolver, SolveResult

__version__ = "0.1.0"

__all__ = [
    "CFRSolver", "Evaluation", "Game", "GameTree", "LPSolution", "MCCFRSolver", "RCFRSolver",
    "RcfrError", "RegretSolver", "SolveResult", "State", "TabularPolicy", "best_response",
    "compile_game", "evaluate", "expected_value", "exploitability", "load_game", "nash_conv",
    "registered_games", "solve", "solve_lp",
]
