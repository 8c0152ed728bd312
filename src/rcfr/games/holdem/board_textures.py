"""Board textures, as players name them, and a representative sample of boards by texture.

A board's texture (any number of cards; the names are the flop's):

- **suits**: ``monotone`` (three or more cards of one suit: a flush is possible),
  ``two-tone`` (two of a suit at most), ``rainbow`` (no two of a suit);
- **pairing**: ``trips`` (three or more of a rank), ``paired`` (two), ``unpaired``;
- **connected**: a straight is possible: three distinct ranks of the board lie within five
  consecutive ranks (the ace low too);
- **high card**: the highest rank (``A`` ... ``2``).

:func:`stratified_sample` picks ``n`` of a list of board classes so that each (suits, pairing)
stratum gets its share of the boards (largest remainders, at least one a stratum), and within
a stratum spreads its picks evenly over the classes ordered from the highest board down; each
pick stands for its stratum's boards divided by the picks there, so that the weights sum to the
boards' total and every stratum weighs what it does among all boards.
"""

from __future__ import annotations

from collections import Counter

from ...core.errors import RcfrError
from .cards import RANK_CHARS

SUITS = ("monotone", "two-tone", "rainbow")
PAIRING = ("unpaired", "paired", "trips")


def texture(board) -> dict:
    """``{"suits", "pairing", "connected", "high"}`` of ``board`` (card ids; module
    docstring)."""
    cards = [int(c) for c in board]
    suits = max(Counter(c % 4 for c in cards).values())
    ranks = Counter(c // 4 for c in cards)
    pairs = max(ranks.values())
    distinct = set(ranks) | ({-1} if 12 in ranks else set())  # the ace plays low too
    connected = any(sum(low <= r < low + 5 for r in distinct) >= 3 for low in range(-1, 9))
    return {"suits": SUITS[0] if suits >= 3 else SUITS[1] if suits == 2 else SUITS[2],
            "pairing": PAIRING[min(pairs, 3) - 1], "connected": connected,
            "high": RANK_CHARS[max(ranks)]}


def stratified_sample(classes, n: int) -> list[tuple[tuple[int, ...], float]]:
    """``n`` of ``classes`` (``(board, boards in its class)`` pairs) with their weights
    (module docstring); an error where ``n`` is below the number of strata or above the
    number of classes."""
    strata: dict[tuple[str, str], list] = {}
    for board, count in classes:
        t = texture(board)
        strata.setdefault((t["suits"], t["pairing"]), []).append((board, count))
    if not len(strata) <= n <= len(classes):
        raise RcfrError(f"a sample of {n} boards: give from {len(strata)} (one per suit and "
                        f"pairing texture) to {len(classes):,} (all of them)")
    totals = {k: sum(c for _, c in v) for k, v in strata.items()}
    total = sum(totals.values())
    # one pick a stratum, the rest by largest remainder of the share left, capped by its size
    picks = dict.fromkeys(strata, 1)
    while sum(picks.values()) < n:
        left = n - len(strata)
        room = [k for k in strata if picks[k] < len(strata[k])]
        want = {k: 1 + left * totals[k] / total - picks[k] for k in room}
        picks[max(room, key=lambda k: (want[k], totals[k]))] += 1
    out = []
    for key in sorted(strata, key=lambda k: (SUITS.index(k[0]), PAIRING.index(k[1]))):
        members = sorted(strata[key], key=lambda bc: sorted(bc[0], reverse=True),
                         reverse=True)
        m = picks[key]
        for i in range(m):
            board, _ = members[(2 * i + 1) * len(members) // (2 * m)]
            out.append((board, totals[key] / m))
    return out
