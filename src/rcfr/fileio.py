"""Strategy and checkpoint files: ``.npz`` arrays plus a JSON header, written atomically and
read without pickle."""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from .errors import RcfrError


def check_writable(path: str | os.PathLike | None) -> Path | None:
    """Fail early, with one line, if ``path`` cannot be written (``None`` passes)."""
    if path is None:
        return None
    path = Path(path)
    if path.is_dir():
        raise RcfrError(f"cannot write {path}: it is a directory")
    if not path.parent.is_dir():
        raise RcfrError(f"cannot write {path}: folder {path.parent} does not exist")
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: str | os.PathLike, write: Callable[[BinaryIO], None]) -> Path:
    """Call ``write(handle)`` on a temporary file beside ``path``, then rename it to ``path``,
    so a failure never leaves a half-written file (the umask's permissions are kept)."""
    path = check_writable(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it owner-only
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def write_npz(path: str | os.PathLike, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> Path:
    """Write ``arrays`` and the JSON ``meta`` to ``path`` atomically (:func:`write_atomic`)."""
    payload = {k: np.asarray(v) for k, v in arrays.items()}
    payload["meta"] = np.array(json.dumps(meta, sort_keys=True))
    return write_atomic(path, lambda handle: np.savez_compressed(handle, **payload))


def write_json(path: str | os.PathLike, obj: Any) -> Path:
    """Write ``obj`` as JSON to ``path`` atomically."""
    text = json.dumps(obj, indent=1, allow_nan=False).encode()
    return write_atomic(path, lambda handle: handle.write(text))


def read_npz(path: str | os.PathLike, kind: str) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Read a file written by :func:`write_npz`; ``kind`` must match its ``meta["format"]``."""
    path = Path(path)
    if not path.is_file():
        raise RcfrError(f"no such file: {path}")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        raise RcfrError(f"{path} is not a readable rcfr file ({type(exc).__name__})") from None
    try:
        meta = json.loads(str(arrays.pop("meta")[()]))
    except (KeyError, ValueError, TypeError):
        raise RcfrError(f"{path} is not an rcfr file: its JSON header is broken") from None
    if not isinstance(meta, dict) or meta.get("format") != kind:
        raise RcfrError(f"{path} is not a {kind} file")
    return arrays, meta
