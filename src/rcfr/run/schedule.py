"""When a run evaluates and when it stops: log-spaced evaluation points, a stopping target's
own geometric schedule, and the target itself."""

from __future__ import annotations

import math

from ..core.errors import RcfrError
from ..games.protocol import Game

# a target's own evaluation schedule (no eval_every or eval_nodes given): each point at least
# TARGET_RATIO times the work done before it and at least 1 / TARGET_SHARE times the game's
# histories (an exact evaluation walks the tree a few times) visited since the last one
TARGET_RATIO = 1.1
TARGET_SHARE = 0.1


def log_schedule(budget: int, per_decade: int) -> list[int]:
    """``per_decade`` evaluation points a decade, evenly spaced in log scale, up to
    ``budget`` (included) over at most six decades; none for ``per_decade = 0``."""
    if per_decade <= 0:
        return []
    decades = min(6.0, math.log10(budget))
    count = int(round(decades * per_decade))
    return sorted({max(1, round(budget * 10 ** (-k / per_decade))) for k in range(count + 1)})


def target_gap(done: int, per: float, min_nodes: float) -> int:
    """Units (iterations or nodes) from ``done`` to a target's next evaluation point, ``per``
    nodes a unit: at least ``TARGET_RATIO - 1`` of ``done`` (a run stops at most about that
    share past the first point it could) and at least ``min_nodes`` nodes (evaluation is a
    bounded share of the work).  A function of counts alone, so the points (and where a run
    stops) never depend on the clock."""
    return max(1, math.ceil(done * (TARGET_RATIO - 1)), math.ceil(min_nodes / per))


def stop_target(game: Game, exploitability: float | None, mbb: float | None) -> float | None:
    """The exploitability (game units) a run of ``game`` stops at, from
    ``target_exploitability`` and ``target_mbb`` (checked; refused where ``game`` has no big
    blind to count milli-big-blinds in)."""
    if exploitability is None and mbb is None:
        return None
    for name, value in (("target-exploitability", exploitability), ("target-mbb", mbb)):
        if value is not None and not 0 < value < float("inf"):
            raise RcfrError(f"--{name} must be a positive number, got {value}")
    targets = [] if exploitability is None else [float(exploitability)]
    if mbb is not None:
        big_blind = getattr(game, "big_blind", None)
        if not big_blind:
            raise RcfrError(f"--target-mbb counts milli-big-blinds; {game} has no big "
                            f"blind: use --target-exploitability")
        targets.append(float(mbb) * big_blind / 1000.0)
    return min(targets)
