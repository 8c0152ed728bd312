"""Evidence levels, budgets and the statistical criteria of the reproduction report.

A claim's verdict rests on one of four levels of evidence:

- ``exact``: an LP, a closed form or an exact evaluation computed by rcfr when the report is
  written (a game's value, its sizes, the uniform profile's exploitability); the verdict is
  final.
- ``at paper budget``: runs with the paper's iterations or nodes and at least its number of
  seeds; *holds*, *fails* or *inconclusive* by the criterion the claim states.
- ``below paper budget``: runs shorter than the paper's (or with fewer seeds); the verdict is
  the one for that budget and always carries the ratio ("fails at 1/33 of the paper's
  iterations"), never a bare *fails*.
- ``no data``: no run of the paper's game (a claim is never judged from another game).

Comparisons of curves are made over the last stretch of the runs (:data:`TAIL`, the last 20%
of their evaluation points) rather than at one stopping point; where the order changes within
that stretch the verdict is *inconclusive* and says that it depends on the stopping point. A
claim about every iteration or checkpoint is judged at every point (:func:`below_everywhere`).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .figures import mean_ci

EXACT, AT_BUDGET, BELOW_BUDGET, NO_DATA_LEVEL = ("exact", "at paper budget",
                                                 "below paper budget", "no data")
LEVELS = (EXACT, AT_BUDGET, BELOW_BUDGET, NO_DATA_LEVEL)
HOLDS, FAILS, INCONCLUSIVE, NO_DATA, UNEXPLAINED = ("holds", "fails", "inconclusive",
                                                    "no data", "unexplained")
VERDICTS = (HOLDS, FAILS, INCONCLUSIVE, NO_DATA, UNEXPLAINED)
TAIL = 0.2  # the share of a curve's last points a comparison is judged over
DEPENDS = "depends on the stopping point"


@dataclass(frozen=True)
class Budget:
    """A budget: ``amount`` iterations or nodes (``axis``) and ``seeds`` runs."""

    axis: str  # "iterations" or "nodes"
    amount: float
    seeds: int = 1

    def amount_text(self) -> str:
        amount = f"{self.amount:,.0f}" if self.axis == "iterations" else f"{self.amount:.3g}"
        return f"{amount} {self.axis}"

    def describe(self) -> str:
        seeds = f", {self.seeds} seeds" if self.seeds > 1 else ""
        return f"{self.amount_text()}{seeds}"


def ratio_text(ours: float, paper: float) -> str:
    """``ours / paper`` as a reader reads it: "1/33", "3/10", "1" or "3x"."""
    if paper <= 0 or ours <= 0:
        return "0"
    r = ours / paper
    if r >= 1:
        return "1" if r < 1.05 else f"{r:.3g}x"
    if r <= 0.1 or (r <= 0.5 and abs(1 / r - round(1 / r)) < 0.05 * (1 / r)):
        return f"1/{round(1 / r):,}"
    frac = Fraction(r).limit_denominator(20)
    return f"{frac.numerator}/{frac.denominator}"


def compare_budget(ours: Budget, paper: Budget | None) -> tuple[str, str]:
    """The evidence level of runs at ``ours`` for a claim stated at ``paper`` (None: the
    paper states no budget) and the budget's description ("1/33 of the paper's iterations,
    3 of 5 seeds")."""
    if paper is None:
        return AT_BUDGET, f"{ours.describe()} (the paper states no budget)"
    parts = []
    short = False
    if ours.amount < paper.amount * 0.999:
        short = True
        parts.append(f"{ratio_text(ours.amount, paper.amount)} of the paper's {paper.axis} "
                     f"({ours.amount_text()} of {paper.amount_text()})")
    else:
        parts.append(f"the paper's {paper.axis} ({ours.amount_text()})")
    if ours.seeds < paper.seeds:
        short = True
        parts.append(f"{ours.seeds} of {paper.seeds} seeds")
    elif paper.seeds > 1:
        parts.append(f"{ours.seeds} seeds")
    return (BELOW_BUDGET if short else AT_BUDGET), ", ".join(parts)


def qualify(verdict: str, level: str, budget_text: str) -> str:
    """The verdict as the table shows it: below the paper's budget it names that budget."""
    if level == BELOW_BUDGET and verdict in (HOLDS, FAILS, INCONCLUSIVE):
        return f"{verdict} at {budget_text.split(' (')[0]}" + (
            f", {budget_text.split('), ')[1]}" if "), " in budget_text else "")
    return verdict


def tail(curve: list[float], share: float = TAIL) -> list[float]:
    """The last ``share`` of a curve's points (at least one)."""
    if not curve:
        return []
    k = max(1, math.ceil(share * len(curve)))
    return list(curve[-k:])


@dataclass
class Comparison:
    """Whether series A is below series B, judged over the last stretch of their curves."""

    verdict: str
    a: float  # A's mean at the last point
    b: float
    a_half: float | None = None
    b_half: float | None = None
    points: int = 1  # the tail points compared
    note: str = ""
    flips: bool = False  # the order changes within the tail


def below(a_runs: list[list[float]], b_runs: list[list[float]], share: float = TAIL,
          margin: float = 0.0) -> Comparison:
    """Is A below B?  Each argument is a list of runs (seeds), each run its curve (the
    exploitability at the evaluation points, a single final value where no curve was stored).

    Criterion: the seeds' means are compared at every point of the last ``share`` of the
    curves (aligned from the end).  *holds* when A is below B at all of them and, with several
    seeds, A's 95% interval at the last point is below B's; *fails* the same way round the
    other way; *inconclusive* when the order changes within the tail (the verdict would depend
    on the stopping point) or the intervals overlap.  ``margin`` asks for A below B by that
    relative amount (0.1: 10% below).
    """
    n = min(len(r) for r in a_runs + b_runs)
    k = max(1, math.ceil(share * n))
    a_means, b_means = [], []
    for j in range(n - k, n):
        a_means.append(statistics.fmean(r[len(r) - n + j] for r in a_runs))
        b_means.append(statistics.fmean(r[len(r) - n + j] for r in b_runs))
    a_last, a_half = mean_ci([r[-1] for r in a_runs])
    b_last, b_half = mean_ci([r[-1] for r in b_runs])
    lower = [x < (1 - margin) * y for x, y in zip(a_means, b_means, strict=True)]
    upper = [x > y for x, y in zip(a_means, b_means, strict=True)]
    several = len(a_runs) > 1 or len(b_runs) > 1
    separated_low = a_last + (a_half or 0) < b_last - (b_half or 0)
    separated_high = a_last - (a_half or 0) > b_last + (b_half or 0)
    flips = any(lower) and any(upper)
    if all(lower) and (not several or separated_low):
        verdict, note = HOLDS, ""
    elif all(upper) and (not several or separated_high):
        verdict, note = FAILS, ""
    elif flips:
        verdict, note = INCONCLUSIVE, f"the order changes within the last {k} points: {DEPENDS}"
    elif several:
        verdict, note = INCONCLUSIVE, "the 95% intervals overlap"
    else:
        verdict, note = INCONCLUSIVE, "within the margin"
    if k == 1 and n == 1:
        note = (note + "; " if note else "") + "final point only (no curve stored)"
    return Comparison(verdict, a_last, b_last, a_half, b_half, k, note, flips)


@dataclass(frozen=True)
class Everywhere:
    """Whether series A is below series B at every evaluation point but the first."""

    verdict: str
    points: int  # the points compared
    higher: tuple[int, ...]  # indices (into the aligned curves) where A's mean is above B's
    separated: tuple[int, ...]  # ... where A's 95% interval lies above B's
    last: Comparison


def below_everywhere(a_runs: list[list[float]], b_runs: list[list[float]]) -> Everywhere:
    """Is A below B at every evaluation point ("at each iteration", "at every checkpoint")?
    The curves are aligned from the end; the first point (one iteration, or the first few
    nodes: the starting profile for every run) is left out, and so are ties (curves that
    start out together). *holds* when A's seed mean is nowhere above B's and its 95%
    interval is below at the last point; *fails* where at some point A's interval lies above
    B's (with one run a side, where A is above); else *inconclusive*."""
    n = min(len(r) for r in a_runs + b_runs)
    several = len(a_runs) > 1 or len(b_runs) > 1
    higher, separated = [], []
    for j in range(1, n):
        (a, ha), (b, hb) = (mean_ci([r[len(r) - n + j] for r in runs])
                            for runs in (a_runs, b_runs))
        if a > b:
            higher.append(j)
            if a - (ha or 0) > b + (hb or 0) or not several:
                separated.append(j)
    last = below(a_runs, b_runs, share=1 / n)
    verdict = (FAILS if separated else HOLDS if not higher and last.verdict == HOLDS
               else INCONCLUSIVE)
    return Everywhere(verdict, n - 1, tuple(higher), tuple(separated), last)


def combine(verdicts: list[str]) -> str:
    """A claim about every case: *fails* if one fails, *inconclusive* if one is, else
    *holds*; *no data* for none."""
    if not verdicts:
        return NO_DATA
    if FAILS in verdicts:
        return FAILS
    if INCONCLUSIVE in verdicts:
        return INCONCLUSIVE
    return HOLDS


def most(verdicts: list[str], share: float = 0.75) -> str:
    """A claim about most cases ("for the most part", "almost every"): *holds* when at least
    ``share`` of the decided comparisons hold, *fails* when fewer than half do."""
    decided = [v for v in verdicts if v in (HOLDS, FAILS)]
    if not decided:
        return INCONCLUSIVE if verdicts else NO_DATA
    wins = decided.count(HOLDS) / len(decided)
    return HOLDS if wins >= share else FAILS if wins < 0.5 else INCONCLUSIVE


@dataclass
class Outcome:
    """A claim's judgment: what we found, the verdict, the evidence level, the budget."""

    ours: str
    verdict: str
    level: str = EXACT
    budget: str = ""
    note: str = ""
    settings: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
