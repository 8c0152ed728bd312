"""Range strings, as PioSOLVER, GTO+ and postflop-solver write them, to 1,326 combo weights.

A range is comma-separated tokens, each a hand class with an optional weight ``:w`` (0 to 1,
default 1); spaces around ``,``, ``-`` and ``:`` are ignored, and a trailing comma is allowed.

- ``QQ``: a pair (6 combos); ``AKs`` suited (4), ``AKo`` offsuit (12), ``AK`` both (16);
  ``AhKh``, ``AsAh``: one combo. The higher rank comes first; ranks may be lower case
  (``ak``), suits and ``s``/``o`` are lower case.
- ``66+``: 66 up to AA. ``T9s+``: a connector walks both ranks up (T9s, JTs, ..., AKs);
  any other class walks the kicker up to just below the first rank (``A8s+``: A8s, A9s,
  ..., AKs).
- ``QQ-22``, ``98s-65s``, ``AQo-86o``: from the first class down to the second with the same
  gap between the ranks; ``A5s-A4s``, ``K5-K2``: the first rank fixed, the kicker from the
  first down to the second. The first class must be the higher, and both must have the same
  suitedness (or the same two suits, ``AhAs-QhQs``).

Where tokens overlap, the first one's weight holds (postflop-solver's rule). A bad token
raises one :class:`RcfrError` that names it.
"""

from __future__ import annotations

import re

import numpy as np

from ...core.errors import RcfrError
from .cards import RANK_CHARS, SUIT_CHARS
from .combos import NUM_COMBOS, combo_index

_CLASS = r"[2-9TJQKAtjqka]{2}[so]?|(?:[2-9TJQKAtjqka][cdhs]){2}"
_TOKEN = re.compile(rf"^(?P<lo>{_CLASS})(?:(?P<plus>\+)|-(?P<hi>{_CLASS}))?"
                    r"(?::(?P<w>\d+\.?\d*|\.\d+))?$")
_SPACES = re.compile(r"\s*([-:,+])\s*")

# a hand class: (first rank, second rank, kind), kind "s", "o", "" (any) or the two suits
_Class = tuple[int, int, object]


def parse_range(text: str) -> np.ndarray:
    """A range string -> float64 weights over the combos in :mod:`~.combos` order."""
    if not isinstance(text, str):
        raise RcfrError(f"a range is a string, not {type(text).__name__}")
    weights = np.zeros(NUM_COMBOS)
    seen = np.zeros(NUM_COMBOS, dtype=bool)
    tokens = _SPACES.sub(r"\1", text.strip()).split(",")
    if tokens[-1] == "":
        tokens.pop()
    for token in tokens:
        weight, combos = _token_combos(token)
        new = [k for k in combos if not seen[k]]
        weights[new] = weight
        seen[new] = True
    return weights


def _bad(token: str, why: str) -> RcfrError:
    return RcfrError(f"bad range token {token!r}: {why}")


def _token_combos(token: str) -> tuple[float, list[int]]:
    if token == "":
        raise _bad(token, "an empty token (two commas in a row?)")
    m = _TOKEN.match(token)
    if m is None:
        raise _bad(token, "write a class (QQ, AKs, AKo, AK, AhKh), optionally with + or "
                          "-CLASS, then optionally :WEIGHT (e.g. 'A8s+:0.5')")
    weight = 1.0
    if m["w"] is not None:
        weight = float(m["w"])
        if not 0.0 <= weight <= 1.0:
            raise _bad(token, f"the weight {m['w']} is not between 0 and 1")
    lo = _parse_class(token, m["lo"])
    if m["plus"]:
        classes = _plus(lo)
    elif m["hi"] is not None:
        classes = _dash(token, lo, _parse_class(token, m["hi"]))
    else:
        classes = [lo]
    return weight, [k for c in classes for k in _class_combos(c)]


def _parse_class(token: str, text: str) -> _Class:
    if len(text) == 4:
        r1, s1, r2, s2 = (RANK_CHARS.index(text[0].upper()), SUIT_CHARS.index(text[1]),
                          RANK_CHARS.index(text[2].upper()), SUIT_CHARS.index(text[3]))
        kind: object = (s1, s2)
        if r1 == r2 and s1 == s2:
            raise _bad(token, f"{text} names one card twice")
    else:
        r1, r2 = RANK_CHARS.index(text[0].upper()), RANK_CHARS.index(text[1].upper())
        kind = text[2:]
        if r1 == r2 and kind:
            raise _bad(token, f"a pair ({text[:2]}) is neither suited nor offsuit")
    if r1 < r2:
        raise _bad(token, f"write the higher rank first ({text})")
    return r1, r2, kind


def _plus(c: _Class) -> list[_Class]:
    r1, r2, kind = c
    gap = r1 - r2
    if gap <= 1:  # pairs and connectors: both ranks walk up to the aces
        return [(r, r - gap, kind) for r in range(r1, 13)]
    return [(r1, r, kind) for r in range(r2, r1)]  # the kicker walks up below the first rank


def _dash(token: str, a: _Class, b: _Class) -> list[_Class]:
    (a1, a2, kind), (b1, b2, kind2) = a, b
    if kind != kind2:
        raise _bad(token, "both ends need the same suitedness (or the same two suits)")
    if a1 - a2 == b1 - b2:
        if a1 <= b1:
            raise _bad(token, "write the higher class first")
        return [(r, r - (a1 - a2), kind) for r in range(b1, a1 + 1)]
    if a1 == b1:
        if a2 <= b2:
            raise _bad(token, "write the higher class first")
        return [(a1, r, kind) for r in range(b2, a2 + 1)]
    raise _bad(token, "the ends share neither the first rank nor the gap between the ranks")


def _class_combos(c: _Class) -> list[int]:
    r1, r2, kind = c
    if isinstance(kind, tuple):
        return [combo_index(4 * r1 + kind[0], 4 * r2 + kind[1])]
    if r1 == r2:
        return [combo_index(4 * r1 + s, 4 * r1 + t) for s in range(4) for t in range(s + 1, 4)]
    return [combo_index(4 * r1 + s, 4 * r2 + t) for s in range(4) for t in range(4)
            if kind == "" or (kind == "s") == (s == t)]
