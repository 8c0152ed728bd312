"""On-disk cache of precomputed Hold'em tables: ``.npz`` files under the user's cache folder,
each with a SHA-256 checksum of its arrays in the JSON header, rebuilt when missing or corrupt.

The folder is ``$RCFR_CACHE_DIR``, else ``$XDG_CACHE_HOME/rcfr``, else ``~/.cache/rcfr``.
Files are written atomically (:func:`rcfr.core.fileio.write_npz`), so an interrupted build never
leaves a half-written table behind; a file that fails to load or whose checksum differs is
rebuilt and replaced.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ...core.errors import RcfrError
from ...core.fileio import FORMAT_VERSION, read_npz, write_npz


def cache_dir() -> Path:
    """The cache folder (created on first use)."""
    env = os.environ.get("RCFR_CACHE_DIR")
    if env:
        path = Path(env)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        path = Path(xdg) / "rcfr" if xdg else Path.home() / ".cache" / "rcfr"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RcfrError(f"cannot create the cache folder {path}: {exc.strerror or exc}") from None
    return path


def checksum(arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 over the arrays' names, dtypes, shapes and bytes (sorted by name)."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}:{a.dtype.str}:{a.shape};".encode())
        digest.update(a.tobytes())
    return digest.hexdigest()


def _load(path: Path, kind: str, key: dict[str, Any]) -> dict[str, np.ndarray] | None:
    if not path.is_file():
        return None
    try:
        arrays, meta = read_npz(path, kind)
    except RcfrError:
        return None
    if meta.get("key") != key or meta.get("sha256") != checksum(arrays):
        return None
    return arrays


def cached_arrays(name: str, kind: str, key: dict[str, Any],
                  build: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Arrays stored in ``cache_dir()/name``, or ``build()``'s, written there first when the
    file is missing, unreadable, built for another ``key`` or fails its checksum (a cache
    folder that cannot be written only costs a warning and a rebuild next time)."""
    try:
        path = cache_dir() / name
    except RcfrError as exc:
        path = None
        problem = str(exc)
    arrays = _load(path, kind, key) if path is not None else None
    if arrays is not None:
        return arrays
    arrays = {k: np.asarray(v) for k, v in build().items()}
    meta = {"format": kind, "version": FORMAT_VERSION, "key": key, "sha256": checksum(arrays)}
    if path is not None:
        try:
            write_npz(path, arrays, meta)
            return arrays
        except (RcfrError, OSError) as exc:
            problem = str(exc)
    warnings.warn(f"{name} is not cached ({problem}); it will be built again next time",
                  RuntimeWarning, stacklevel=2)
    return arrays
