"""A distributed checkpoint's folder: the manifest (read and checked before any file it names
is opened), the file names (confined to the folder), the arrays' checks, and the removal of
the files a new manifest no longer names.

A checkpoint is written as new files, then the manifest replaced atomically, then the old
files removed, so a run killed at any moment leaves a folder that resumes.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..core.checks import MAX_COUNT
from ..core.errors import RcfrError

MANIFEST = "manifest.json"
FORMAT = "rcfr.distributed"
VERSION = 1
MAX_PARTS = 1 << 16
TABLES = ("regrets", "prediction", "strategy", "avg_weights")
# trunk-ITER.npz, partJ-ITER.npz, each with an optional -GEN (a second checkpoint at ITER)
_NAME = re.compile(r"(trunk|part(0|[1-9][0-9]{0,5}))-([0-9]{8,19})(?:-([0-9]{1,6}))?\.npz")
_TEMP = re.compile(r"\.(.+)\.[A-Za-z0-9_]+\.tmp")  # write_atomic's temporary files


def _ours(name: str) -> bool:
    """Whether ``name`` is a file a distributed checkpoint writes (or its temporary file)."""
    temp = _TEMP.fullmatch(name)
    base = temp.group(1) if temp else name
    return base == MANIFEST or _NAME.fullmatch(base) is not None


def new_names(folder: Path, iteration: int, parts: int) -> tuple[str, list[str]]:
    """Names for a checkpoint at ``iteration`` that no file in ``folder`` has yet (a second
    checkpoint at the same iteration gets ``-1``, ``-2``, ...)."""
    gen = 0
    while True:
        tag = f"{iteration:08d}" + (f"-{gen}" if gen else "")
        names = [f"trunk-{tag}.npz"] + [f"part{j}-{tag}.npz" for j in range(parts)]
        if not any(os.path.lexists(folder / n) for n in names):
            return names[0], names[1:]
        gen += 1


def remove_stale(folder: Path, keep: set[str]) -> None:
    """Remove the checkpoint files in ``folder`` that ``keep`` (the manifest's) does not
    name: earlier checkpoints, and what a killed write left."""
    for name in os.listdir(folder):
        if name != MANIFEST and name not in keep and _ours(name):
            try:
                os.unlink(folder / name)
            except FileNotFoundError:  # pragma: no cover - gone meanwhile
                pass


def check_folder(folder: str | os.PathLike, option: str = "--checkpoint") -> None:
    """Refuse a checkpoint folder that cannot be written or holds other files than a
    distributed checkpoint's (a new folder, an empty one or a checkpoint's are fine)."""
    path = Path(folder)
    if path.exists() or path.is_symlink():
        if not path.is_dir():
            raise RcfrError(f"{option} {path}: not a folder (a distributed checkpoint is a "
                            f"folder)")
        foreign = sorted(n for n in os.listdir(path) if not _ours(n))
        if foreign:
            raise RcfrError(f"{option} {path} holds files that are not a distributed "
                            f"checkpoint's ({foreign[0]}, ...): give a new or empty folder, "
                            f"or a checkpoint's")
        if not os.access(path, os.W_OK | os.X_OK):
            raise RcfrError(f"{option} {path}: the folder is not writable")
        return
    parent = path.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise RcfrError(f"{option} {path}: cannot create the folder in {parent}")


def is_count(v: Any, low: int = 0, high: int = MAX_COUNT) -> bool:
    """Whether ``v`` is a JSON integer (not a bool) from ``low`` to ``high``."""
    return type(v) is int and low <= v <= high


def _is_number(v: Any) -> bool:
    return type(v) in (int, float) and math.isfinite(v) and v >= 0


# the manifest's entries and their checks (what each must be, for the message)
_ENTRIES: dict[str, tuple[Any, str]] = {
    "version": (lambda v: type(v) is int and v == VERSION, f"{VERSION}"),
    "game": (lambda v: isinstance(v, str) and v.strip() != "", "a game string"),
    "fingerprint": (lambda v: isinstance(v, str) and v != "", "a string"),
    "iterations": (is_count, "a whole number >= 0"),
    "nodes_visited": (is_count, "a whole number >= 0"),
    "parts": (lambda v: is_count(v, 1, MAX_PARTS), f"a whole number in 1..{MAX_PARTS}"),
    "cut": (lambda v: isinstance(v, str) and v != "", "a string"),
    "rule": (lambda v: isinstance(v, str) and v != "", "a string"),
    "link": (lambda v: isinstance(v, str) and v != "", "a string"),
    "alternating": (lambda v: type(v) is bool, "true or false"),
    "averaging": (lambda v: (isinstance(v, str) and v != "") or _is_number(v),
                  "a name or a number >= 0"),
    "dtype": (lambda v: v in ("float64", "float32"), "float64 or float32"),
    "trunk": (lambda v: isinstance(v, str), "a file name"),
    "part_files": (lambda v: isinstance(v, list) and all(isinstance(n, str) for n in v),
                   "a list of file names"),
}


def _confined(folder: Path, name: str, kind: str, path: Path) -> Path:
    """``folder / name`` where ``name`` is a checkpoint file's own name for ``kind``
    (``trunk`` or ``partJ``) and the file lies in ``folder``; else the manifest is refused."""
    m = _NAME.fullmatch(name)
    if m is None or (m.group(1) if kind == "trunk" else f"part{m.group(2)}") != kind:
        raise RcfrError(f"{path} is damaged: {name!r} is not a {kind} file's name")
    file = folder / name
    if Path(os.path.realpath(file)).parent != Path(os.path.realpath(folder)):
        raise RcfrError(f"{path} is damaged: {name} leads out of {folder}")
    if not file.is_file():
        raise RcfrError(f"{path} names {name}, which is not in {folder}: the checkpoint is "
                        f"incomplete")
    return file


def read_manifest(folder: str | os.PathLike) -> dict[str, Any]:
    """The manifest of the checkpoint in ``folder``, checked (its entries' types, the count
    of part files, their names confined to the folder and present) before any file it names
    is opened; ``trunk_path`` and ``part_paths`` added."""
    folder = Path(folder)
    path = folder / MANIFEST
    try:
        m = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError):
        raise RcfrError(f"{path}: no distributed checkpoint manifest") from None
    if not isinstance(m, dict) or m.get("format") != FORMAT:
        raise RcfrError(f"{path} is not a distributed checkpoint manifest")
    m.setdefault("dtype", "float64")  # (written before float32 tables)
    for key, (ok, what) in _ENTRIES.items():
        if key not in m:
            raise RcfrError(f"{path} is damaged: it lacks {key!r}")
        if not ok(m[key]):
            raise RcfrError(f"{path} is damaged: {key} must be {what}, got {m[key]!r:.60}")
    if "seed" in m and not is_count(m["seed"]):
        raise RcfrError(f"{path} is damaged: seed must be a whole number >= 0")
    if len(m["part_files"]) != m["parts"]:
        raise RcfrError(f"{path} is damaged: {len(m['part_files'])} part files for "
                        f"{m['parts']} parts")
    m["trunk_path"] = _confined(folder, m["trunk"], "trunk", path)
    m["part_paths"] = [_confined(folder, n, f"part{j}", path)
                       for j, n in enumerate(m["part_files"])]
    return m


def check_tables(path: str | os.PathLike, arrays: dict, size: int, dtype: str) -> None:
    """Refuse a checkpoint file whose tables are missing, of another dtype or shape than the
    part's ``size`` sequences in ``dtype``, or not finite."""
    for key in TABLES:
        a = arrays.get(key)
        if a is None:
            raise RcfrError(f"{path} is corrupted: it lacks {key}")
        if a.dtype != np.dtype(dtype) or a.shape != (size,):
            raise RcfrError(f"{path} is corrupted: {key} is {a.dtype} of shape {a.shape}, "
                            f"not {dtype} of shape ({size},)")
        if not np.isfinite(a).all():
            raise RcfrError(f"{path} is corrupted: {key} holds values that are not finite")
