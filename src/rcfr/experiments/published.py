"""The DDCFR authors' published exploitability curves (Xu et al., ICLR 2024), shipped with rcfr.

``data/ddcfr_curves.csv`` keeps their ``results/<algorithm>/<game>/data.csv`` (MIT License;
the source commit and the notice are in the file's header) at 39 iterations from 0 to 1,000,
for CFR, CFR+, DCFR and DDCFR on the twelve games of the DCFR/DDCFR suite.  Games carry
rcfr's suite names (:mod:`rcfr.games.suite`; the Libratus endgames, PokerRL runs, are
``libratus_endgame(n=3,pokerrl=true)`` and ``n=4`` in :mod:`rcfr.games.holdem.libratus`),
algorithms rcfr's names (``ddcfr`` is the authors' learned schedule).
"""

from __future__ import annotations

import csv
from functools import lru_cache
from importlib import resources

from ..core.errors import RcfrError

DATA = "data/ddcfr_curves.csv"
ALGORITHMS = ("cfr", "cfr+", "dcfr", "ddcfr")


@lru_cache(maxsize=1)
def _table() -> dict[tuple[str, str], tuple[tuple[int, float], ...]]:
    text = resources.files("rcfr.experiments").joinpath(DATA).read_text(encoding="utf-8")
    rows = csv.DictReader(line for line in text.splitlines() if not line.startswith("#"))
    table: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for row in rows:
        key = (row["game"], row["algorithm"])
        table.setdefault(key, []).append((int(row["iteration"]), float(row["exploitability"])))
    return {key: tuple(sorted(points)) for key, points in table.items()}


def published_games() -> list[str]:
    """The games with published curves, in the file's order."""
    return list(dict.fromkeys(game for game, _ in _table()))


def published_curve(game: str, algorithm: str) -> list[tuple[int, float]]:
    """``[(iteration, exploitability), ...]`` the DDCFR authors published for ``algorithm`` on
    ``game`` (a suite name such as ``leduc`` or ``liars_dice3``)."""
    key = (game, algorithm.lower())
    if key not in _table():
        if game not in published_games():
            raise RcfrError(f"no published curve for game {game!r}; games: "
                            f"{', '.join(published_games())}")
        raise RcfrError(f"no published curve for algorithm {algorithm!r}; algorithms: "
                        f"{', '.join(ALGORITHMS)}")
    return list(_table()[key])


def published_value(game: str, algorithm: str, iteration: int) -> float:
    """The published exploitability of ``algorithm`` on ``game`` after ``iteration``
    iterations (one of the iterations the file keeps)."""
    points = dict(published_curve(game, algorithm))
    if iteration not in points:
        raise RcfrError(f"the published curves keep iterations {', '.join(map(str, points))}; "
                        f"not {iteration}")
    return points[iteration]
