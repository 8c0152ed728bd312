"""Matrix games given as a payoff table: the row player (0) and the column player (1) move
at once, modelled as player 1 not seeing player 0's choice."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..core.budget import SizeEstimate
from ..core.errors import RcfrError
from .protocol import TERMINAL, Game, State

RPS = ((0, -1, 1), (1, 0, -1), (-1, 1, 0))


class MatrixState(State):
    __slots__ = ("game", "moves")

    def __init__(self, game: MatrixGame, moves: tuple[int, ...] = ()) -> None:
        self.game = game
        self.moves = moves

    def current_player(self) -> int:
        return TERMINAL if len(self.moves) == 2 else len(self.moves)

    def legal_actions(self) -> list[int]:
        if len(self.moves) == 2:
            return []
        return list(range(self.game.payoffs.shape[len(self.moves)]))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return []

    def apply_action(self, action: int) -> None:
        self.moves = self.moves + (action,)

    def returns(self) -> list[float]:
        u = float(self.game.payoffs[self.moves[0], self.moves[1]])
        return [u, -u]

    def information_state_string(self, player: int | None = None) -> str:
        p = self.current_player() if player is None else player
        return f"p{p}"

    def action_to_string(self, player: int, action: int) -> str:
        names = self.game.action_names
        return names[player][action] if names else f"{'rc'[player]}{action}"

    def clone(self) -> MatrixState:
        return MatrixState(self.game, self.moves)


class MatrixGame(Game):
    """A zero-sum matrix game; ``payoffs[i][j]`` is paid to the row player."""

    short_name = "matrix"

    def __init__(self, payoffs: Sequence[Sequence[float]], action_names=None) -> None:
        try:
            table = np.asarray(payoffs, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise RcfrError(f"matrix payoffs must be a table of numbers: {exc}") from None
        if table.ndim != 2 or table.shape[0] < 1 or table.shape[1] < 1:
            raise RcfrError(f"matrix payoffs must be a 2-d table, got shape {table.shape}")
        if not np.all(np.isfinite(table)):
            raise RcfrError("matrix payoffs must be finite numbers")
        super().__init__(payoffs=table.tolist())
        self.payoffs = table
        self.action_names = action_names

    def new_initial_state(self) -> MatrixState:
        return MatrixState(self)

    def num_distinct_actions(self) -> int:
        return int(max(self.payoffs.shape))

    def size_estimate(self) -> SizeEstimate:
        """Histories and sequences (:mod:`rcfr.core.budget`'s memory guard)."""
        rows, cols = np.shape(self.payoffs)
        return SizeEstimate(1.0 + rows + rows * cols, float(rows + cols))



class RockPaperScissors(MatrixGame):
    """Rock-paper-scissors: value 0, unique equilibrium uniform."""

    short_name = "rps"

    def __init__(self) -> None:
        super().__init__(RPS, action_names=(("rock", "paper", "scissors"),) * 2)
        self.params = {}
