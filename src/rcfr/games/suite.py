"""The convergence suite of the DCFR and DDCFR papers (Brown & Sandholm 2019; Xu et al. 2024).

Each game is loadable by a short name (``goofspiel3``, ``battleship2x2``, ...) with the
parameters of the DDCFR authors' code (``ddcfr/game/game_config.py``): native rcfr games where
the rules agree with OpenSpiel's (sizes and exploitability checked in the tests), OpenSpiel's
Battleship through the ``openspiel:`` loader otherwise, and Big Leduc (from the authors'
PokerRL code: 12 ranks, 2 suits, 6 raises a round) as OpenSpiel's ``universal_poker``.
Simultaneous-move Goofspiel and the matrix game are played turn-based (player 1 does not see
player 0's move), as the DDCFR code does with ``pyspiel.convert_to_turn_based``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .matrix import MatrixGame
from .protocol import Game

# The DDCFR code's "Small Matrix": a rock-paper-scissors-like 5 x 3 game whose rows 4 and 5
# (for the row player) lose 10,000 and 20,000 whatever the column; value 0, uniform
# exploitability 3000.27.  Payoffs to the row player.
SMALL_MATRIX = [[0, -1, 2], [1, 0, -2], [-2, 2, 0],
                [-10000, -10000, -10000], [-20000, -20000, -20000]]

# written as OpenSpiel prints it (parameters sorted), so ``str()`` of the game gives it back
_BATTLESHIP = ("battleship(allow_repeated_shots=False,board_height={h},board_width=2,"
               "num_shots=3,ship_sizes=[2],ship_values=[2])")
# Big Leduc: Leduc's rules (an ante of 1 each, written as two blinds of 1; bets of 2, then 4;
# one private card, one board card; a pair beats a high card) on 12 ranks x 2 suits, 6 raises
# a round, stacks of 100 (PokerRL's BigLeduc, which the DDCFR authors ran); with numRanks=3
# and maxRaises=2 2 the same string is Leduc (the tests).  Parameters sorted as OpenSpiel
# prints them.
_UNIVERSAL_LEDUC = ("universal_poker(betting=limit,blind=1 1,firstPlayer=1 1,"
                    "maxRaises={raises} {raises},numBoardCards=0 1,numHoleCards=1,numPlayers=2,"
                    "numRanks={ranks},numRounds=2,numSuits=2,raiseSize=2 4,stack=100 100)")
BIG_LEDUC = _UNIVERSAL_LEDUC.format(ranks=12, raises=6)


@dataclass(frozen=True)
class SuiteGame:
    """One suite game: rcfr's short name, the DDCFR code's name, rcfr's game string, the
    OpenSpiel game it equals (``None`` where OpenSpiel needs a file: the matrix game) and the
    description ``rcfr games`` gives its short name (``None``: a name rcfr had before)."""

    name: str
    ddcfr_name: str
    game_string: str
    openspiel: str | None
    description: str | None = None
    pokerrl: int = 0  # a Libratus endgame (its number): the papers' unit is PokerRL's


def papers_unit(name: str) -> float:
    """The factor from rcfr's exploitability of suite game ``name`` to the unit of the
    DCFR/DDCFR papers' curves: 1, but for the Libratus endgames (chips to PokerRL's big blinds
    of its deal, :func:`rcfr.games.holdem.libratus.pokerrl_scale`)."""
    entry = BY_NAME.get(name)
    if entry is None or not entry.pokerrl:
        return 1.0
    from .holdem.libratus import pokerrl_scale  # (numba kernels: loaded only here)

    return pokerrl_scale(entry.pokerrl)


_NEEDS = " (needs open_spiel)"
SUITE: tuple[SuiteGame, ...] = (
    SuiteGame("kuhn", "KuhnPoker", "kuhn", "kuhn_poker"),
    SuiteGame("leduc", "LeducPoker", "leduc", "leduc_poker"),
    SuiteGame("big_leduc", "BigLeduc", f"openspiel:{BIG_LEDUC}", BIG_LEDUC,
              "suite: Big Leduc, 12 ranks x 2 suits, 6 raises a round, as OpenSpiel "
              "universal_poker" + _NEEDS),
    SuiteGame("small_matrix", "SmallMatrix", "small_matrix", None,
              "the DCFR/DDCFR suite's 5x3 matrix game, turn-based"),
    SuiteGame("goofspiel3", "GoofSpiel3", "goofspiel(num_cards=3)",
              "goofspiel(num_cards=3,imp_info=True,points_order=descending)",
              "suite: goofspiel(num_cards=3), bids hidden, descending"),
    SuiteGame("goofspiel4", "GoofSpiel4", "goofspiel(num_cards=4)",
              "goofspiel(num_cards=4,imp_info=True,points_order=descending)",
              "suite: goofspiel(num_cards=4), bids hidden, descending"),
    SuiteGame("liars_dice3", "LiarsDice3", "liars_dice(faces=3)",
              "liars_dice(numdice=1,dice_sides=3)", "suite: liars_dice(faces=3), one die each"),
    SuiteGame("liars_dice4", "LiarsDice4", "liars_dice(faces=4)",
              "liars_dice(numdice=1,dice_sides=4)", "suite: liars_dice(faces=4), one die each"),
    SuiteGame("battleship2x2", "BattleShip2", f"openspiel:{_BATTLESHIP.format(h=2)}",
              _BATTLESHIP.format(h=2),
              "suite: OpenSpiel battleship 2x2, ship 2 (value 2), 3 shots" + _NEEDS),
    SuiteGame("battleship2x3", "BattleShip3", f"openspiel:{_BATTLESHIP.format(h=3)}",
              _BATTLESHIP.format(h=3),
              "suite: OpenSpiel battleship 2x3, ship 2 (value 2), 3 shots" + _NEEDS),
    SuiteGame("libratus_endgame3", "Subgame3", "libratus_endgame(n=3,pokerrl=true)", None,
              "suite: Libratus endgame 3 (river), as PokerRL seats its players", pokerrl=3),
    SuiteGame("libratus_endgame4", "Subgame4", "libratus_endgame(n=4,pokerrl=true)", None,
              "suite: Libratus endgame 4 (river), as PokerRL seats its players", pokerrl=4),
)
BY_NAME = {g.name: g for g in SUITE}


def small_matrix() -> Game:
    """The DDCFR code's small matrix game (``nfg/1.nfg`` there), turn-based."""
    return MatrixGame(SMALL_MATRIX)

