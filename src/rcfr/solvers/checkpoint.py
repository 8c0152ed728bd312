"""A solver's checkpoint, one format for every driver: its arrays in an ``.npz`` with a JSON
header (the format tag, the game and its fingerprint, the solver's algorithm, counters and
options; :func:`rcfr.core.fileio.write_npz`, never pickle)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..core.errors import RcfrError
from ..core.fileio import check_game_matches, read_npz, shown, write_npz
from ..forms.base import Form

CHECKPOINT_FORMAT = "rcfr.checkpoint"


def write_checkpoint(path: str | os.PathLike, tree: Form, info: dict[str, Any],
                     arrays: dict[str, np.ndarray], **extra: Any) -> None:
    """Write ``arrays`` with a header of ``tree``'s game, the solver's ``info`` (its
    ``algorithm``, counters and options) and ``extra`` (atomic)."""
    meta = {"format": CHECKPOINT_FORMAT, "version": 1, "game": str(tree.game),
            "fingerprint": tree.fingerprint(), **info, **extra}
    write_npz(path, arrays, meta)


def read_checkpoint(path: str | os.PathLike, tree: Form, algorithm: str
                    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and header of a checkpoint written by ``algorithm`` on ``tree``'s game
    (another game or algorithm is refused with one line)."""
    arrays, meta = read_npz(path, CHECKPOINT_FORMAT)
    check_game_matches(path, "a checkpoint", meta, tree)
    if meta.get("algorithm") != algorithm:
        raise RcfrError(f"{shown(path)} is a {meta.get('algorithm')} checkpoint, not "
                        f"{algorithm}")
    return arrays, meta


def check_options(path: str | os.PathLike, meta: dict[str, Any],
                  options: dict[str, Any]) -> None:
    """Refuse a checkpoint whose header records other ``options`` than the resuming run's."""
    for key, value in options.items():
        if meta.get(key) != value:
            raise RcfrError(f"{shown(path)} was run with {key} {meta.get(key)!r}, "
                            f"not {value!r}")
