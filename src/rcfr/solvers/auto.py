"""``-a auto``: the update rule with the best measured curve for the game's kind.

The choice is read from the convergence suite of the DCFR and DDCFR papers (Brown & Sandholm
2019; Xu et al. 2024), run by ``rcfr figure convergence_suite``: for each kind of game, the
rule that reached the suite games' targets (1e-3 and 1e-6 of the game's unit) in the fewest
iterations, and ended lowest after 1,000 (the table in docs/algorithms.md).
"""

from __future__ import annotations

from typing import Any

from ..games.matrix import MatrixGame
from ..games.registry import load_game

# kind: (rule, the suite's evidence, as the choice is printed)
AUTO_RULES: dict[str, tuple[str, str]] = {
    "poker": ("dcfr", "best on Leduc, Big Leduc and the Libratus endgames"),
    "dice": ("pcfr+", "best on Liar's Dice 4, and to 1e-6 on Liar's Dice 3"),
    "goofspiel": ("pcfr+", "best on Goofspiel 4, tied on Goofspiel 3"),
    "battleship": ("pcfr+", "best on Battleship 2x2 and 2x3"),
    "matrix": ("pdcfr+", "best on the suite's matrix game"),
    "other": ("dcfr", "the rule best on most of the suite's games to 1e-3"),
}
SUITE = "in the convergence suite"


def game_kind(game: Any) -> str:
    """The kind of ``game`` (a game string, a game or a compiled form) :data:`AUTO_RULES` is
    keyed by: poker (a game with a big blind, or OpenSpiel's poker games), dice, goofspiel,
    battleship, matrix, else other."""
    game = load_game(game) if isinstance(game, str) else getattr(game, "game", game)
    name = str(getattr(game, "short_name", "")).removeprefix("openspiel:")
    if getattr(game, "big_blind", None) is not None or "poker" in name:  # (universal_poker)
        return "poker"
    if isinstance(game, MatrixGame) or name in ("matrix_rps", "matrix_mp"):
        return "matrix"
    for kind in ("dice", "goofspiel", "battleship"):
        if kind in name:
            return kind
    return "other"


def auto_rule(game: Any) -> tuple[str, str]:
    """The rule ``-a auto`` runs on ``game`` and the line that says why
    (``"auto: dcfr (best on ... in the convergence suite)"``)."""
    kind = game_kind(game)
    rule, why = AUTO_RULES[kind]
    return rule, f"auto: {rule} ({why} {SUITE}; {kind} games)"


__all__ = ["AUTO_RULES", "auto_rule", "game_kind"]
