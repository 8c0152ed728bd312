"""Games as rules (OpenSpiel's State API) and the registry that loads them by name."""

from .kuhn import KuhnPoker
from .leduc import LeducPoker
from .matrix import MatrixGame, RockPaperScissors
from .protocol import CHANCE, TERMINAL, Game, State
from .registry import STANDARD_GAMES, load_game, parse_game_string, register, registered_games
from .transforms import parse as _transforms  # noqa: F401 (sets the GAME@SPEC hook)

__all__ = [
    "CHANCE", "TERMINAL", "Game", "State", "KuhnPoker", "LeducPoker", "MatrixGame",
    "RockPaperScissors", "STANDARD_GAMES", "load_game", "parse_game_string", "register",
    "registered_games",
]
