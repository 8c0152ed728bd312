"""Bet-size strings in the postflop-solver / PioSOLVER convention.

A list is comma-separated sizes (spaces ignored, a trailing comma allowed, case ignored):

- ``60%``: a fraction of the pot (for a raise, of the pot after the call, added to the bet
  raised); ``2.5x``: a multiple of the previous bet (raises only, above 1);
- ``100c``: a fixed number of chips (an integer; ``20c3r`` caps a raise at 3 bets in the street);
- ``e``, ``2e``, ``3e200%``: geometric over the streets left (``e``: 3 on the flop, 2 on the
  turn, 1 on the river; for a raise the bets made in the street are taken off), at most the
  given % of the pot; ``a``: all-in.

Sizes are sorted as postflop-solver sorts them; a bad one raises one :class:`RcfrError` naming
it and where it was read.
"""

from __future__ import annotations

import math
import re
from typing import NamedTuple

from ...core.errors import RcfrError

# kinds, in postflop-solver's order (its BetSize enum): sorting a list sorts by kind, then value
POT, PREV, CHIPS, GEOMETRIC, ALLIN = range(5)
_NUMBER = re.compile(r"^(\d+\.?\d*|\.\d+)$")


class BetSize(NamedTuple):
    """One size: ``kind`` and its ``value`` (a pot or bet ratio, chips, or the streets of a
    geometric size, 0 for the street's default), ``cap`` (a chip raise's cap, or a geometric
    size's largest pot ratio)."""

    kind: int
    value: float = 0.0
    cap: float = 0.0

    def __str__(self) -> str:
        if self.kind == POT:
            return f"{_num(self.value * 100)}%"
        if self.kind == PREV:
            return f"{_num(self.value)}x"
        if self.kind == CHIPS:
            return f"{int(self.value)}c" + (f"{int(self.cap)}r" if self.cap else "")
        if self.kind == GEOMETRIC:
            streets = str(int(self.value)) if self.value else ""
            return f"{streets}e" + (f"{_num(self.cap * 100)}%" if math.isfinite(self.cap) else "")
        return "a"


def _num(x: float) -> str:
    return f"{x:.10g}"


def parse_bet_sizes(text: str, raise_: bool = False, where: str = "bet") -> tuple[BetSize, ...]:
    """A comma-separated list -> sorted sizes; ``raise_`` allows ``x`` and raise caps."""
    if not isinstance(text, str):
        raise RcfrError(f"{where}: bet sizes are a string such as \"60%, e, a\", "
                        f"not {type(text).__name__}")
    tokens = [t.strip() for t in text.split(",")]
    if tokens[-1] == "":
        tokens.pop()
    return tuple(sorted(parse_bet_size(t, raise_, where) for t in tokens))


def parse_bet_size(token: str, raise_: bool = False, where: str = "bet") -> BetSize:
    """One size (see the module's help); a bad one raises one line naming it."""
    s = token.lower()

    def bad(why: str) -> RcfrError:
        return RcfrError(f"{where}: bad bet size {token!r}: {why}")

    if s.endswith("x"):
        if not raise_:
            raise bad("a multiple of the previous bet (x) is only for raises")
        ratio = _float(s[:-1])
        if ratio is None:
            raise bad("write a multiple as 2.5x")
        if ratio <= 1.0:
            raise bad("the multiple must be above 1")
        return BetSize(PREV, ratio)
    if "c" in s:
        parts = s.split("c")
        if len(parts) != 2:
            raise bad("write chips as 100c (or 20c3r for a raise capped at 3 bets)")
        chips = _float(parts[0])
        if chips is None or chips != int(chips):
            raise bad("chips are a whole number, as in 100c")
        if chips > 2**31 - 1:
            raise bad("chips must be below 2^31")
        cap = 0
        if parts[1]:
            if not raise_:
                raise bad("a raise cap (r) is only for raises")
            c = _float(parts[1][:-1]) if parts[1].endswith("r") else None
            if c is None or c != int(c) or c == 0:
                raise bad("a raise cap is a positive whole number, as in 20c3r")
            if c > 100:
                raise bad("a raise cap is at most 100")
            cap = int(c)
        return BetSize(CHIPS, int(chips), cap)
    if "e" in s:
        parts = s.split("e")
        if len(parts) != 2:
            raise bad("write a geometric size as e, 2e or 2e150%")
        streets = 0
        if parts[0]:
            n = _float(parts[0])
            if n is None or n != int(n) or n == 0:
                raise bad("the number of streets is a positive whole number, as in 2e")
            if n > 100:
                raise bad("the number of streets is at most 100")
            streets = int(n)
        most = math.inf
        if parts[1]:
            m = _float(parts[1][:-1]) if parts[1].endswith("%") else None
            if m is None:
                raise bad("the largest size of a geometric bet is a % of the pot, as in e150%")
            most = m / 100
        return BetSize(GEOMETRIC, streets, most)
    if s.endswith("%"):
        ratio = _float(s[:-1])
        if ratio is None:
            raise bad("write a fraction of the pot as 60%")
        return BetSize(POT, ratio / 100)
    if s == "a":
        return BetSize(ALLIN)
    raise bad("a size ends in % (pot), x (previous bet), c (chips), e (geometric) or is a "
              "(all-in)")


def _float(s: str) -> float | None:
    return float(s) if _NUMBER.match(s) else None


def sizes_str(sizes: tuple[BetSize, ...]) -> str:
    """Sizes back to a string that parses to them."""
    return ", ".join(str(s) for s in sizes)
