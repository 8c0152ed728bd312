"""Many boards at once: one hold'em spot solved on a set of boards, each board a run of the
sweep machinery (:mod:`.sweep`: resumable, local processes or Ray, results in the store).

The boards are the spot's own size (flops for a flop spot, five cards for a river spot),
merged into classes by the suit permutations that leave both ranges unchanged
(:mod:`rcfr.games.holdem.board_classes`): each class is solved once, on its canonical board,
and weighs the boards it stands for. ``--flops`` chooses them:

- ``all``: every class (a flop spot with suit-symmetric ranges: the 1,755 flops, weights
  summing to 22,100);
- ``N``: a sample of ``N`` classes stratified by suit and pairing texture
  (:func:`rcfr.games.holdem.board_textures.stratified_sample`);
- a file: one board a line (``Ks7d2c``, optionally followed by a weight, default 1; ``#``
  starts a comment), isomorphic boards merged and their weights added.

An output folder holds ``runs.db`` (the results store, strategies beside it in
``runs.db.files/``) and ``batch.json`` (the spot, its file's SHA-256, the options and the
boards with their weights); a spot file that changed since the folder's runs were solved is
refused.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..core.errors import RcfrError
from ..core.fileio import write_json
from ..games.holdem.board_classes import board_classes, merge_boards, range_symmetries
from ..games.holdem.board_textures import stratified_sample
from ..games.holdem.cards import card_str
from ..games.holdem.combos import parse_board
from ..games.holdem.spot import load_spot, spot_ranges
from ..games.holdem.spot_game import packaged_spots
from .spec import RunSpec, SweepSpec

BATCH_FILE = "batch.json"
STORE_FILE = "runs.db"
BATCH_FORMAT = "rcfr-spot-batch"


@dataclass(frozen=True)
class BatchBoard:
    """A class of boards solved once: its canonical ``board`` (text), the ``weight`` it
    carries (boards it stands for) and the boards given for it (a file's; else empty)."""

    board: str
    weight: float
    given: tuple[str, ...] = ()


@dataclass(frozen=True)
class SpotBatch:
    """A spot (``game``: its game string without a board, ``path``: its file), the boards
    and how each is solved (one :class:`RunSpec` a board)."""

    game: str
    path: Path
    pot: int
    symmetries: int  # suit permutations that leave both ranges unchanged (1 to 24)
    boards: tuple[BatchBoard, ...]
    options: dict

    def game_string(self, board: str) -> str:
        """The spot on ``board``, written as the game writes itself (its keys sorted)."""
        name, rest = self.game.split("(", 1)
        return f"{name}(board={board},{rest}"

    def run(self, board: BatchBoard) -> RunSpec:
        return RunSpec(game=self.game_string(board.board), form="public", **self.options)

    def sweep(self) -> SweepSpec:
        return SweepSpec("spots", tuple(self.run(b) for b in self.boards),
                         description=f"{self.game} on {len(self.boards)} boards")

    def digest(self) -> str:
        return hashlib.sha256(self.path.read_bytes()).hexdigest()

    def to_dict(self) -> dict:
        return {"format": BATCH_FORMAT, "game": self.game, "digest": self.digest(),
                "pot": self.pot, "symmetries": self.symmetries, "options": self.options,
                "boards": [{"board": b.board, "weight": b.weight, "given": list(b.given),
                            "hash": self.run(b).hash} for b in self.boards]}


def spot_source(spot: str) -> tuple[str, Path]:
    """A spot file's path or a packaged spot's name -> (its game string, its file)."""
    path = Path(spot)
    if path.is_file():
        path = path.resolve()
        if any(c in str(path) for c in ",()=") or str(path) != str(path).strip():
            raise RcfrError(f"a spot file's path goes into each board's game string: "
                            f"{str(path)!r} has a comma, a bracket, '=' or outer spaces; "
                            f"copy the file to a plainer path")
        return f"holdem_spot(file={path})", path
    if spot in packaged_spots():
        ref = resources.files("rcfr.games.holdem").joinpath("spots", f"{spot}.toml")
        return f"holdem_spot(spot={spot})", Path(str(ref))
    raise RcfrError(f"no such spot file: {spot} (nor a spot shipped with rcfr: "
                    f"{', '.join(packaged_spots())})")


def board_text(board) -> str:
    return "".join(card_str(c) for c in board)


def choose_boards(flops: str, size: int, perms) -> list[BatchBoard]:
    """The boards ``--flops`` names (module docstring), merged under ``perms``."""
    text = str(flops).strip()
    if text == "all":
        return [BatchBoard(board_text(b), float(n)) for b, n in board_classes(size, perms)]
    if text.isdigit() and not Path(text).is_file():
        picks = stratified_sample(board_classes(size, perms), int(text))
        return [BatchBoard(board_text(b), w) for b, w in picks]
    path = Path(text)
    try:
        lines = path.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise RcfrError(f"--flops is all, a number of boards or a file of boards; cannot read "
                        f"{text!r}: {getattr(e, 'strerror', None) or e}") from None
    boards, weights = [], []
    for n, line in enumerate(lines, 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        where = f"{path}, line {n}"
        if len(fields) > 2:
            raise RcfrError(f"{where}: a board and an optional weight, not {line.strip()!r}")
        try:
            boards.append(parse_board(fields[0], (size,)))
        except RcfrError as e:
            raise RcfrError(f"{where}: {e}") from None
        try:
            weight = float(fields[1]) if len(fields) == 2 else 1.0
        except ValueError:
            weight = -1.0
        if not 0 < weight < float("inf"):
            raise RcfrError(f"{where}: a board's weight is a positive number, not "
                            f"{fields[1]!r}")
        weights.append(weight)
    if not boards:
        raise RcfrError(f"{path}: no boards in it (one a line, e.g. Ks7d2c)")
    return [BatchBoard(board_text(rep), w, tuple(board_text(b) for b in given))
            for rep, w, given in merge_boards(boards, perms, weights)]


def make_batch(spot: str, flops: str, options: dict) -> SpotBatch:
    """The batch of ``spot`` (a file or a packaged spot's name) on the boards ``flops``
    names, each solved with the run ``options`` (a :class:`RunSpec`'s fields but the game
    and form)."""
    game, path = spot_source(spot)
    loaded = load_spot(path)
    perms = range_symmetries(*spot_ranges(path))
    boards = choose_boards(flops, len(loaded.board), perms)
    batch = SpotBatch(game, path, loaded.pot, len(perms), tuple(boards), dict(options))
    batch.run(boards[0])  # a bad option fails here, before anything is written
    return batch


def check_folder(batch: SpotBatch, out: Path) -> None:
    """Refuse an output folder that holds another spot's batch, or this spot's from a spot
    file that has changed since."""
    path = out / BATCH_FILE
    if not path.is_file():
        return
    try:
        old = json.loads(path.read_text())
        game, digest = old["game"], old["digest"]
    except (OSError, ValueError, KeyError, TypeError):
        raise RcfrError(f"{path} is not a batch file: give another --out") from None
    if game != batch.game:
        raise RcfrError(f"{out} holds a batch of {game}, not of {batch.game}: give another "
                        f"--out")
    if digest != batch.digest():
        raise RcfrError(f"the spot file {batch.path} changed since {out}'s runs were solved: "
                        f"give another --out")


def write_batch(batch: SpotBatch, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    return write_json(out / BATCH_FILE, batch.to_dict())


def read_batch(out: Path) -> dict:
    """An output folder's ``batch.json``."""
    path = out / BATCH_FILE
    try:
        data = json.loads(path.read_text())
    except OSError:
        raise RcfrError(f"{out} holds no batch ({BATCH_FILE}): run rcfr spots SPOT --flops "
                        f"... --out {out} first") from None
    except ValueError:
        raise RcfrError(f"{path} is not a batch file") from None
    if not isinstance(data, dict) or data.get("format") != BATCH_FORMAT:
        raise RcfrError(f"{path} is not a batch file")
    return data
