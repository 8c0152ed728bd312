"""Static abstractions, the thesis's baselines (Morrill 2016, sec. 2.3 and 4.3): card
(state-space) abstractions as information-set maps, wager (action) abstractions as a game
transform, soft geometric translation, and lifting abstract strategies to the full game."""

from ..games.transforms.actions import NAMED_BETS, BetAbstraction, geometric_translation, parse_bets
from ..games.transforms.base import AbstractGame, Abstraction, AbstractState
from ..games.transforms.cards import LEDUC_ABSTRACTIONS, CardAbstraction, LeducCardAbstraction
from ..games.transforms.parse import ABSTRACTIONS, parse_abstraction
from .lift import lift
from .solve import (
    AbstractSolveResult,
    abstract_game,
    abstraction_baselines,
    lift_policy,
    solve_with_abstraction,
    standard_abstractions,
)

__all__ = [
    "ABSTRACTIONS", "LEDUC_ABSTRACTIONS", "NAMED_BETS", "AbstractGame", "AbstractSolveResult",
    "AbstractState", "Abstraction", "BetAbstraction", "CardAbstraction", "LeducCardAbstraction",
    "abstract_game", "abstraction_baselines", "geometric_translation", "lift", "lift_policy",
    "parse_abstraction", "parse_bets", "solve_with_abstraction", "standard_abstractions",
]
