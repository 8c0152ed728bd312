"""``-a auto``: the update rule with the best measured curve for the game's kind.

The choice is read from the convergence suite of the DCFR and DDCFR papers (Brown & Sandholm
2019; Xu et al. 2024), run by ``rcfr figure convergence_suite``: for each kind of game, the
rule that reached the suite games' targets (1e-3 and 1e-6 of the game's unit) in the fewest
iterations, else the one lowest after 1,000 (the table "Which rule first" in
docs/algorithms.md, printed by ``benchmarks/suite_targets.py``).
"""

from __future__ import annotations

from typing import Any

from ..games.matrix import MatrixGame
from ..games.registry import load_game

# kind: (rule, the suite's evidence, as the choice is printed)
AUTO_RULES: dict[str, tuple[str, str]] = {
    "poker": ("dcfr", "first to 1e-3 on Leduc and lowest there after 1,000 iterations, within "
                      "1.6x of the lowest on the Libratus endgames"),
    "dice": ("hs-pcfr+", "first to 1e-6 on Liar's Dice 3 (with HS-DCFR) and 4"),
    "goofspiel": ("hs-pcfr+", "first to 1e-6 on Goofspiel 3 (with HS-DCFR) and 4"),
    "battleship": ("pcfr+", "first to 1e-3 on Battleship 2x2 and 2x3"),
    "matrix": ("ddcfr", "the only rule to 1e-3 on the matrix game"),
    "other": ("hs-pcfr+", "first to a target on the most suite games: 9 of the 15 firsts, ties "
                          "included"),
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
