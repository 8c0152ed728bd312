"""Static abstractions, the thesis's baselines (Morrill 2016, sec. 2.3 and 4.3): card
(state-space) abstractions as information-set maps, wager (action) abstractions as a game
transform, soft geometric translation, and lifting abstract strategies to the full game."""

from ..games.transforms.abstract_game import AbstractGame, Abstraction, AbstractState
from ..games.transforms.actions import NAMED_BETS, BetAbstraction, geometric_translation, parse_bets
from ..games.transforms.card_abstraction import (
    LEDUC_ABSTRACTIONS,
    CardAbstraction,
    LeducCardAbstraction,
)
from ..games.transforms.parse import ABSTRACTIONS, parse_abstraction
from .lift import lift
from .solve import (
    AbstractedSolver,
    AbstractionInfo,
    abstract_form,
    abstract_game,
    lift_policy,
    standard_abstractions,
)
from .spot import lift_classes

__all__ = [
    "ABSTRACTIONS", "LEDUC_ABSTRACTIONS", "NAMED_BETS", "AbstractGame", "AbstractState",
    "AbstractedSolver", "Abstraction", "AbstractionInfo", "BetAbstraction", "CardAbstraction",
    "LeducCardAbstraction", "abstract_form", "abstract_game", "geometric_translation", "lift",
    "lift_classes", "lift_policy", "parse_abstraction", "parse_bets", "standard_abstractions",
]
