"""Strategy and checkpoint files: ``.npz`` arrays plus a JSON header, written atomically and
read without pickle."""

from __future__ import annotations

import io
import json
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from .errors import RcfrError

FORMAT_VERSION = 1  # of the JSON header of strategy and checkpoint files
MULTI_ROUND_FORMAT = "rcfr.multi-round-policy"  # rcfr.abstraction.rounds's round strategies


def shown(path: str | os.PathLike) -> str:
    """``path`` as messages print it: as given where it is plain, else quoted with escapes
    (``'a\\nb'``), so that a name with a newline or a control character never breaks an
    ``error:`` line in two."""
    text = os.fspath(path)
    text = text if isinstance(text, str) else os.fsdecode(text)
    if text and text.isprintable() and text == text.strip():
        return text
    return repr(text)


def check_writable(path: str | os.PathLike | None, probe: bool = True) -> Path | None:
    """Fail early, with one line naming ``path`` as given, if it cannot be written: a folder,
    a missing folder, a FIFO or any other existing file that is not a regular file (a FIFO
    with no reader would block; a socket cannot be written), a file without write permission,
    or (with ``probe``) a folder where a file cannot be created -- found by creating and
    removing a probe file there (``None`` passes).  A character device (``/dev/null``) is
    written through."""
    if path is None:
        return None
    path = Path(path)
    if path.is_dir():
        raise RcfrError(f"cannot write {shown(path)}: it is a directory")
    if not path.parent.is_dir():
        raise RcfrError(f"cannot write {shown(path)}: folder {shown(path.parent)} does not "
                        f"exist")
    special = _special(path)
    if special is not None and not special:
        kind = "a FIFO (named pipe)" if stat.S_ISFIFO(os.stat(path).st_mode) else \
            "not a regular file"
        raise RcfrError(f"cannot write {shown(path)}: it is {kind}; give a regular file "
                        f"(or /dev/null)")
    if path.exists() and not os.access(path, os.W_OK):
        raise RcfrError(f"cannot write {shown(path)}: permission denied")
    if probe and special is None:  # a device is written through: no file beside it
        real = Path(os.path.realpath(path))  # a symlink's target is what gets replaced
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".probe", dir=real.parent)
        except OSError as exc:
            raise RcfrError(f"cannot write {shown(path)}: {exc.strerror or exc}") from None
        os.close(fd)
        os.unlink(tmp)
    return path


def check_outputs(outputs: dict[str, str | os.PathLike | None],
                  inputs: dict[str, str | os.PathLike | None] | None = None,
                  updates: tuple[tuple[str, str], ...] = ()) -> None:
    """Check, before any work, that every output of a command (``{option: path}``) can be
    written, that no two options name the same file, and that no output names one of the
    command's ``inputs`` (``{option: path}``: a checkpoint resumed from, a strategy read), which
    writing it would destroy -- except the pairs ``(output, input)`` in ``updates`` (a
    checkpoint written over the one resumed from)."""
    read = {k: Path(os.path.realpath(v)) for k, v in (inputs or {}).items() if v is not None}
    seen: dict[Path, str] = {}
    for option, path in outputs.items():
        if path is None:
            continue
        key = Path(os.path.realpath(path))
        for source, real in read.items():
            if (option, source) not in updates and real == key:
                raise RcfrError(f"{option} {shown(path)} is the file {source} reads: writing "
                                f"it would destroy it; give the output its own path")
        if key in seen:
            raise RcfrError(f"{seen[key]} and {option} name the same file {shown(path)}: give "
                            f"each output its own path")
        check_writable(path)
        seen[key] = option


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _special(path: Path) -> bool | None:
    """None for a regular file or nothing (after symlinks); True for a character device
    (written through); False for any other kind of file (refused: a FIFO, a socket, a block
    device)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:  # nothing there (or a dangling symlink): a new file
        return None
    if stat.S_ISREG(mode):
        return None
    return stat.S_ISCHR(mode)


def write_atomic(path: str | os.PathLike, write: Callable[[BinaryIO], None]) -> Path:
    """Call ``write(handle)`` on a temporary file beside ``path``, then rename it to ``path``,
    so a failure never leaves a half-written file and the previous file stays whole (the
    umask's permissions are kept).  A symlink's target is replaced (the link stays); an
    existing character device (``/dev/null``) is written through, never renamed over; any
    other kind of file (a FIFO, a socket) is refused.  A failed write names the file."""
    path = check_writable(path, probe=False)
    if _special(path):
        buffer = io.BytesIO()  # seekable, as a zip archive wants; then one plain write
        write(buffer)
        try:
            with open(path, "wb") as handle:
                handle.write(buffer.getvalue())
        except OSError as exc:
            raise RcfrError(f"cannot write {shown(path)}: {exc.strerror or exc}") from None
        return path
    target = Path(os.path.realpath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise RcfrError(f"cannot write {shown(path)}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it owner-only
        os.replace(tmp, target)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):  # disk full, quota, I/O error: the old file is kept
            raise RcfrError(f"cannot write {shown(path)}: {exc.strerror or exc} (nothing was "
                            f"changed there)") from None
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
    name = shown(path)
    path = Path(path)
    if path.is_dir():
        raise RcfrError(f"{name} is a folder, not a {kind} file")
    if not path.exists():
        raise RcfrError(f"no such file: {name}")
    if not path.is_file():
        raise RcfrError(f"{name} is not a regular file")
    try:
        with np.load(path, allow_pickle=False) as data:
            if not isinstance(data, np.lib.npyio.NpzFile):
                raise ValueError("not an .npz archive")
            arrays = {k: data[k] for k in data.files}
    except Exception as exc:  # a damaged file fails in zipfile, zlib, numpy's header parser...
        raise RcfrError(f"{name} is not a readable rcfr file "
                        f"({type(exc).__name__}: damaged or not an .npz)") from None
    try:
        meta = json.loads(str(arrays.pop("meta")[()]))
    except (KeyError, ValueError, TypeError, IndexError, RecursionError):
        raise RcfrError(f"{name} is not an rcfr file: its JSON header is broken") from None
    if not isinstance(meta, dict) or meta.get("format") != kind:
        theirs = meta.get("format") if isinstance(meta, dict) else None
        hint = ""
        if theirs == MULTI_ROUND_FORMAT:
            hint = (f" (it holds multi-round strategies: add --rounds "
                    f"{meta.get('rounds', 'RULE')})")
        elif isinstance(theirs, str) and theirs.startswith("rcfr"):
            hint = f" (it is a {theirs} file)"
        raise RcfrError(f"{name} is not a {kind} file{hint}")
    if meta.get("version") != FORMAT_VERSION:
        raise RcfrError(f"{name} is a {kind} file of version {meta.get('version')!r}; this rcfr "
                        f"reads version {FORMAT_VERSION}")
    return arrays, meta


def check_game_matches(path: str | os.PathLike, what: str, meta: dict[str, Any], tree) -> None:
    """Refuse a file whose header names another game than ``tree``'s, saying what differs."""
    name = shown(path)
    fingerprint = tree.fingerprint()
    theirs, ours = meta.get("game"), str(tree.game)
    if meta.get("fingerprint") == fingerprint:
        n = meta.get("num_sequences", tree.num_sequences)
        if theirs != ours or n != tree.num_sequences:
            raise RcfrError(f"{name} is corrupted: its header contradicts itself")
        return
    if theirs != ours:
        raise RcfrError(f"{name} holds {what} for {theirs!r}, not for {ours!r}")
    n = meta.get("num_sequences")
    if isinstance(n, int) and n != tree.num_sequences:
        raise RcfrError(f"{name} holds {what} for {theirs!r} with {n:,} sequences, but "
                        f"{ours!r} here has {tree.num_sequences:,}: it was written by another "
                        f"version of the game's rules")
    raise RcfrError(f"{name} holds {what} for {theirs!r} whose information sets or actions differ "
                    f"from {ours!r} here (fingerprint {str(meta.get('fingerprint'))[:12]!r}, "
                    f"not {fingerprint[:12]!r}): it was written by another version of the "
                    f"game's rules")
