"""A hold'em spot file: TOML with the keys postflop-solver names.

```toml
board = "Td9d6hQc"   # 3, 4 or 5 cards: the spot starts on the flop, turn or river
pot = 200            # chips in the pot at the start
stack = 900          # effective stack behind
big_blind = 10       # optional: chips in a big blind, for mbb/g figures
[ranges]
oop = "66+,A8s+"
ip = "QQ-22,AQs-A2s"
[bets]               # bet, raise, donk; per street ([bets.turn]) and player ([bets.river.ip])
bet = "60%, e, a"
raise = "2.5x"
[thresholds]         # each 0 (off) unless given
add_allin = 1.5
force_allin = 0.15
merging = 0.1
```

Bet sizes for a street and player come from the most specific of ``bets.<street>.<player>``,
``bets.<street>``, ``bets.<player>`` and ``bets`` that has the key (none: no sizes); donk sizes
(OOP's first bet on the turn or river after calling the last bet) from ``bets.<street>.donk``
or ``bets.donk`` (none: OOP's bet sizes). Every error is one :class:`RcfrError` line naming
the key.
"""

from __future__ import annotations

import dataclasses
import math
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...core.errors import RcfrError
from .action_tree import STREETS, TreeConfig, build_action_tree
from .bet_sizes import BetSize, parse_bet_sizes
from .combos import NUM_COMBOS, parse_board, remove_blocked
from .ranges import parse_range

PLAYERS = ("oop", "ip")
_TOP = ("board", "pot", "stack", "big_blind", "ranges", "bets", "thresholds")
_SIZES = ("bet", "raise", "donk")
THRESHOLDS = ("add_allin", "force_allin", "merging")


@dataclass(frozen=True)
class Spot:
    """A validated spot: ``board`` (card ids), ``street`` (0 flop, 1 turn, 2 river), ``pot``
    and ``stack`` in chips, ``ranges`` (two 1,326-weight vectors, OOP's then IP's, the
    board-blocked combos zeroed), ``bets[street][player] = (bet, raise)`` sizes, ``donks``
    per street (``None``: the bet sizes), the ``thresholds`` and the ``big_blind`` in chips
    (``None``: not given)."""

    board: tuple[int, ...]
    street: int
    pot: int
    stack: int
    ranges: tuple[np.ndarray, np.ndarray]
    bets: tuple
    donks: tuple
    thresholds: dict
    big_blind: int | None = None

    def tree_config(self) -> TreeConfig:
        """The action tree's inputs."""
        return TreeConfig(self.street, self.pot, self.stack, self.bets, self.donks,
                          **self.thresholds)

    def action_tree(self):
        """The spot's action tree (:func:`~.action_tree.build_action_tree`)."""
        return build_action_tree(self.tree_config())


def load_spot(path, board: str | None = None) -> Spot:
    """Read and validate a spot file (``board``: this board instead of the file's, written as
    its ``board`` key is)."""
    path = Path(path)
    data = read_spot_file(path)
    if board is not None:
        data = {**data, "board": board}
    return spot_from_dict(data, path.parent)


def read_spot_file(path) -> dict:
    """The dict a spot file parses to (not validated)."""
    path = Path(path)
    try:
        return tomllib.loads(path.read_text())
    except OSError as e:
        raise RcfrError(f"cannot read the spot file {str(path)!r}: {e.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise RcfrError(f"the spot file {str(path)!r} is not TOML: {e}") from None


def spot_ranges(path) -> tuple[np.ndarray, np.ndarray]:
    """A spot file's two ranges (OOP's, IP's) before the board's cards are removed."""
    path = Path(path)
    table = _table(read_spot_file(path), "ranges")
    return tuple(_range(table, p, (), path.parent) for p in PLAYERS)


def spot_from_dict(data: dict, base: Path | None = None) -> Spot:
    """Validate a spot given as the dict a spot file parses to (``base``: the folder that a
    range's ``file`` is read from; default the working folder)."""
    _only(data, _TOP, "")
    for key in ("board", "pot", "stack", "ranges"):
        if key not in data:
            raise RcfrError(f"{key}: missing (a spot needs board, pot, stack and ranges)")
    if not isinstance(data["board"], str):
        raise RcfrError("board: a board is a string such as \"Td9d6hQc\"")
    try:
        board = parse_board(data["board"])
    except RcfrError as e:
        raise RcfrError(f"board: {e}") from None
    pot, stack = _chips(data, "pot"), _chips(data, "stack")
    ranges = tuple(_range(_table(data, "ranges"), p, board, base) for p in PLAYERS)
    bets, donks = _bets(_table(data, "bets"))
    thresholds = _thresholds(_table(data, "thresholds"))
    big_blind = _chips(data, "big_blind") if "big_blind" in data else None
    return Spot(board, len(board) - 3, pot, stack, ranges, bets, donks, thresholds, big_blind)


def _only(table: dict, keys, where: str) -> None:
    for key in table:
        if key not in keys:
            known = ", ".join(keys)
            raise RcfrError(f"{where}{key}: unknown key (known here: {known})")


def _table(data: dict, key: str, where: str = "") -> dict:
    table = data.get(key, {})
    if not isinstance(table, dict):
        raise RcfrError(f"{where}{key}: a table, such as [{where}{key}]")
    return table


def _chips(data: dict, key: str) -> int:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**31:
        raise RcfrError(f"{key}: a positive whole number of chips below 2^31, not {value!r}")
    return value


def _range(ranges: dict, player: str, board, base: Path | None) -> np.ndarray:
    _only(ranges, PLAYERS, "ranges.")
    if player not in ranges:
        raise RcfrError(f"ranges.{player}: missing (a spot needs both ranges)")
    value = ranges[player]
    try:
        if isinstance(value, dict):
            _only(value, ("file",), f"ranges.{player}.")
            weights = read_weights(Path(base or ".") / str(value.get("file", "")))
        elif isinstance(value, str):
            weights = parse_range(value)
        else:
            raise RcfrError('a range string such as "66+,A8s+" or a table such as '
                            '{ file = "oop.txt" }')
        weights = remove_blocked(weights, board)
    except RcfrError as e:
        raise RcfrError(f"ranges.{player}: {e}") from None
    if not weights.any():
        raise RcfrError(f"ranges.{player}: no combo is left once the board's cards are removed")
    return weights


def read_weights(path: Path) -> np.ndarray:
    """A range as a text file of 1,326 weights from 0 to 1 (whitespace or commas between
    them), one per combo in :mod:`.combos`'s order (postflop-solver's raw range order)."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise RcfrError(f"cannot read the range file {str(path)!r}: "
                        f"{getattr(e, 'strerror', None) or e}") from None
    try:
        weights = np.array([float(t) for t in text.replace(",", " ").split()])
    except ValueError as e:
        raise RcfrError(f"the range file {str(path)!r} holds something other than numbers: "
                        f"{e}") from None
    if weights.shape != (NUM_COMBOS,) or not np.all((weights >= 0) & (weights <= 1)):
        raise RcfrError(f"the range file {str(path)!r} needs {NUM_COMBOS:,} weights from 0 to "
                        f"1, not {weights.size:,} numbers"
                        + ("" if weights.shape != (NUM_COMBOS,) else " (one is outside)"))
    return weights


def _bets(bets: dict) -> tuple[tuple, tuple]:
    """Resolve ``[bets]`` into per-street, per-player (bet, raise) sizes and donk sizes."""
    _only(bets, _SIZES + STREETS + PLAYERS, "bets.")
    tables = {"": bets}
    for p in PLAYERS:
        tables[p] = _table(bets, p, "bets.")
        _only(tables[p], ("bet", "raise"), f"bets.{p}.")
    for s in STREETS:
        tables[s] = _table(bets, s, "bets.")
        _only(tables[s], _SIZES + PLAYERS, f"bets.{s}.")
        for p in PLAYERS:
            tables[f"{s}.{p}"] = _table(tables[s], p, f"bets.{s}.")
            _only(tables[f"{s}.{p}"], ("bet", "raise"), f"bets.{s}.{p}.")
    if "donk" in tables["flop"]:
        raise RcfrError("bets.flop.donk: no donk bets on the flop (only the turn and river)")
    parsed = {}
    for name, table in tables.items():
        for key in _SIZES:
            if key in table:
                where = f"bets.{name}.{key}" if name else f"bets.{key}"
                parsed[name, key] = parse_bet_sizes(table[key], key == "raise", where)

    def pick(key: str, *names: str) -> tuple[BetSize, ...] | None:
        return next((parsed[n, key] for n in names if (n, key) in parsed), None)

    sizes = tuple(tuple(
        tuple(pick(key, f"{s}.{p}", s, p, "") or () for key in ("bet", "raise"))
        for p in PLAYERS) for s in STREETS)
    donks = (None, pick("donk", "turn", ""), pick("donk", "river", ""))
    return sizes, donks


def _thresholds(table: dict) -> dict:
    _only(table, THRESHOLDS, "thresholds.")
    out = {}
    for key in THRESHOLDS:
        value = table.get(key, 0.0)
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if not number or not 0 <= value < math.inf:
            raise RcfrError(f"thresholds.{key}: a number, 0 or more, not {value!r}")
        out[key] = float(value)
    return out


def with_sizes(spot: Spot, bets: str | None = None, raises: str | None = None) -> Spot:
    """``spot`` with the bet (and donk) sizes and/or the raise sizes of every street and
    player replaced: an action abstraction of it (Brown & Sandholm 2017's blueprint keeps a
    few sizes).  ``bets`` and ``raises`` are size lists as :func:`parse_bet_sizes` reads them,
    with spaces or commas between the sizes (a game string's values hold no commas);
    ``None`` keeps the spot's."""
    def sizes(text, raise_: bool, where: str):
        if text is None:
            return None
        text = str(text).replace(",", " ").split()
        if not text:
            raise RcfrError(f"{where}: no sizes (give at least one, such as a for all-in)")
        return parse_bet_sizes(",".join(text), raise_, where)

    new_bets, new_raises = sizes(bets, False, "bets"), sizes(raises, True, "raises")
    table = tuple(tuple((new_bets if new_bets is not None else b,
                         new_raises if new_raises is not None else r) for b, r in street)
                  for street in spot.bets)
    donks = (None, None, None) if new_bets is not None else spot.donks
    return dataclasses.replace(spot, bets=table, donks=donks)
