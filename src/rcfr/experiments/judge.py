"""The papers' claims, read from the packaged table ``data/claims.toml``, and judged.

Each row of the table names its check (:data:`.claims.CHECKS`) or, for a claim judged on the
store's runs, its figure specs, the paper's budget and its judge (:data:`.claims.JUDGES`,
through :func:`.claims.on_runs`); :func:`judge_all` runs the checks on a
:class:`~.claims.Context` and gives the report's rows.
"""

from __future__ import annotations

import inspect
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ..core.errors import RcfrError
from .claims import CHECKS, JUDGES, Context, on_runs
from .evidence import BELOW_BUDGET, FAILS, HOLDS, INCONCLUSIVE, NO_DATA_LEVEL, Budget, Outcome

TABLE = "claims.toml"


@dataclass(frozen=True)
class Claim:
    id: str
    seed: str  # the paper
    source: str  # section, figure
    text: str
    paper: str  # the paper's number or statement, short
    check: Callable[[Context], Outcome]
    game: str = ""  # the paper's game (rcfr's game string), where a claim has one


def _args(value: Any) -> Any:
    """The table's arrays as tuples (the checks' argument types)."""
    if isinstance(value, list):
        return tuple(_args(v) for v in value)
    if isinstance(value, dict):
        return {k: _args(v) for k, v in value.items()}
    return value


def _made(table: dict[str, Callable[..., Any]], kind: str, name: str, args: dict[str, Any],
          game: str) -> Any:
    """``table[name]`` made with ``args``, and with the claim's ``game`` where it takes one."""
    if name not in table:
        raise RcfrError(f"the claims table names an unknown {kind} {name!r}")
    if game and "game" in inspect.signature(table[name]).parameters:
        args = {"game": game, **args}
    return table[name](**args)


def _claim(row: dict[str, Any], seed: str, budgets: dict[str, Budget]) -> Claim:
    game, args = row.get("game", ""), _args(row.get("args", {}))
    if "judge" in row:
        check = on_runs(tuple(row["runs"]), game, budgets[row["budget"]],
                        _made(JUDGES, "judge", row["judge"], args, ""), row.get("needs", ""))
    else:
        check = _made(CHECKS, "check", row["check"], args, game)
    return Claim(row["id"], seed, row["source"], row["text"], row["reported"], check, game)


def load_claims(text: str | None = None) -> tuple[Claim, ...]:
    """The claims of the table ``text`` (TOML; default the packaged ``data/claims.toml``), in
    its order."""
    if text is None:
        text = resources.files(__package__).joinpath("data", TABLE).read_text("utf-8")
    data = tomllib.loads(text)
    budgets = {name: Budget(b["axis"], b["amount"], b["seeds"])
               for name, b in data.get("budgets", {}).items()}
    return tuple(_claim(row, paper["name"], budgets) for paper in data["paper"]
                 for row in paper["claim"])


CLAIMS: tuple[Claim, ...] = load_claims()


def judge_all(ctx: Context, claims: Iterable[Claim] = CLAIMS) -> list[dict[str, str]]:
    """Every claim's row: id, seed, source, claim, paper, ours, level, budget, verdict (as
    shown: qualified by the budget below the paper's), criterion and notes, settings."""
    from .evidence import qualify

    rows = []
    for claim in claims:
        try:
            out = claim.check(ctx)
        except Exception as exc:  # noqa: BLE001 - one bad check must not sink the report
            out = Outcome("", INCONCLUSIVE, NO_DATA_LEVEL,
                          note=f"could not evaluate: {type(exc).__name__}: {exc}")
        if out.level == BELOW_BUDGET and out.verdict not in (HOLDS, FAILS, INCONCLUSIVE):
            out.level = NO_DATA_LEVEL
        rows.append({"id": claim.id, "seed": claim.seed, "source": claim.source,
                     "claim": claim.text, "paper": claim.paper, "ours": out.ours,
                     "level": out.level, "budget": out.budget, "verdict": out.verdict,
                     "shown": qualify(out.verdict, out.level, out.budget),
                     "note": out.note, "settings": out.settings, "game": claim.game})
    return rows


__all__ = ["CLAIMS", "Claim", "judge_all", "load_claims"]
