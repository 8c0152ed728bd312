"""rcfr: counterfactual regret minimization and Regression CFR for two-player zero-sum games."""

import sys
import types
from typing import TYPE_CHECKING

from .core.errors import RcfrError
from .core.lazy import lazy_exports

if TYPE_CHECKING:  # what the package exports; imported on first use (PEP 562), so that
    # `import rcfr` and `rcfr --version` do not load scikit-learn, numba or scipy
    from .api import solve
    from .evaluate import (
        Evaluation,
        best_response,
        evaluate,
        expected_value,
        exploitability,
        nash_conv,
    )
    from .forms import GameTree
    from .forms.compile import compile_game
    from .games import Game, State, load_game, registered_games
    from .lp import LPSolution, solve_lp
    from .policy import TabularPolicy
    from .run.result import RunResult, SolveResult
    from .solvers import CFRSolver, MCCFRSolver, RCFRSolver, RegretSolver

_LAZY = {"solve": "api", "Evaluation": "evaluate", "best_response": "evaluate",
         "evaluate": "evaluate", "expected_value": "evaluate", "exploitability": "evaluate",
         "nash_conv": "evaluate", "GameTree": "forms", "compile_game": "forms.compile",
         "Game": "games", "State": "games", "load_game": "games",
         "registered_games": "games", "LPSolution": "lp", "solve_lp": "lp",
         "TabularPolicy": "policy", "CFRSolver": "solvers", "MCCFRSolver": "solvers",
         "RCFRSolver": "solvers", "RegretSolver": "solvers", "RunResult": "run.result",
         "SolveResult": "run.result"}


__getattr__, __dir__ = lazy_exports(__name__, {k: f".{v}" for k, v in _LAZY.items()})


class _Package(types.ModuleType):
    """The package: importing a submodule named like an export (``rcfr.evaluate``) leaves
    the export (the function) in place, as the eager imports did."""

    def __setattr__(self, name: str, value) -> None:
        if name in _LAZY and isinstance(value, types.ModuleType) and name not in vars(self):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


__version__ = "0.1.0"

__all__ = [
    "CFRSolver", "Evaluation", "Game", "GameTree", "LPSolution", "MCCFRSolver", "RCFRSolver",
    "RcfrError", "RegretSolver", "RunResult", "SolveResult", "State", "TabularPolicy",
    "best_response", "compile_game", "evaluate", "expected_value", "exploitability",
    "load_game", "nash_conv", "registered_games", "solve", "solve_lp",
]
