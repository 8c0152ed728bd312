"""The files a run keeps beside its checkpoint: the curve measured so far
(``FILE.curve.json``, so a resumed run's curve goes on from the earlier runs' points) and the
seed its header records (a resumed run continues that random stream)."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from ..core.errors import RcfrError
from ..core.fileio import shown


def checkpoint_seed(path: str | os.PathLike, default: int) -> int:
    """The seed a checkpoint's header records (``default`` where it records none or cannot
    be read: loading it reports the damage)."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            seed = json.loads(str(data["meta"][()])).get("seed", default)
    except Exception:
        return default
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else default


def curve_path(checkpoint: str | os.PathLike) -> Path | None:
    """The curve file ``rcfr solve`` keeps beside a checkpoint (``FILE.curve.json``, written
    at each evaluation), so that a resumed run's curve goes on from the earlier runs' points;
    none beside a checkpoint that is not a regular file (``/dev/null``, a FIFO)."""
    path = Path(checkpoint)
    return Path(f"{path}.curve.json") if path.is_file() or not path.exists() else None


_POINT_TYPES = {"iterations": (int,), "nodes": (int, type(None)), "seconds": (int, float),
                "exploitability": (int, float), "value": (int, float, type(None))}


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def read_curve(path: Path) -> tuple[list[dict[str, Any]], float]:
    """The points and seconds of a curve file kept beside a checkpoint, checked: one error
    line for a file that is not one."""
    try:
        saved = json.loads(Path(path).read_text())
        points, seconds = saved["points"], saved.get("seconds", 0.0)
        ok = isinstance(points, list) and _number(seconds) and all(
            isinstance(p, dict) and set(p) == set(_POINT_TYPES) and all(
                isinstance(p[k], t) and not isinstance(p[k], bool)
                and (p[k] is None or _number(p[k])) for k, t in _POINT_TYPES.items())
            for p in points)
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        ok = False
    if not ok:
        raise RcfrError(f"{shown(path)}: not a curve file (the evaluation points kept beside a "
                        f"checkpoint); remove it to resume without the earlier points")
    return points, float(seconds)


