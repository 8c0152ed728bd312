"""The memory guard: refuse, with one line, a game or a matrix too large for the memory budget
before building it (ARCHITECTURE.md: "size estimate (refuse early above the memory budget)").

A game's size comes from a closed form where its rules give one (liar's dice, no-limit one-card
poker, 2-NL Hold'em(k), Leduc, Kuhn, goofspiel, matrix games); for any other game the compiler
itself is the bounded walk: it stops as soon as it has reached more histories than the budget
allows.  The budget defaults to half of the memory available when it is first asked for;
``--max-memory`` on the command line and ``max_memory`` in the API set it.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from .errors import RcfrError

# Peak bytes per history while compiling and solving (measured: 210-410 bytes at the compile
# peak for kuhn, leduc, liar's dice, goofspiel and one-card poker, ~55 bytes once compiled,
# plus the solver's arrays over histories).
BYTES_PER_HISTORY = 450
DEFAULT_SHARE = 0.5  # of the memory available
_UNITS = {"": 1, "B": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_HUGE_EXPONENT = 1000  # sizes beyond 2^1000 histories are reported as "more than"
_NL_EXACT_STACK = 1500  # one-card poker's closed form is O(stack^2); above, a lower bound
# The public form's peak bytes per sequence while compiling and solving, and its compiled
# arrays' bytes per sequence (measured on 2-NL Hold'em(k) at k = 30: compile peak 81-91, CFR+
# with one evaluation 100, external sampling with one evaluation 89 with float64 tables and 81
# (the compile peak) with float32; arrays 20; k = 36 before shared chance contexts: 84 and 27).
BYTES_PER_PUBLIC_SEQUENCE = 110
BYTES_PER_PUBLIC_SEQUENCE_FLOAT32 = 92  # the sampled solvers' dtype="float32" tables
PUBLIC_TREE_BYTES_PER_SEQUENCE = 20


@dataclass(frozen=True)
class SizeEstimate:
    """Histories (nodes of the compiled tree), sequences where known, and the memory needed."""

    histories: float
    sequences: float | None = None
    at_least: bool = False  # a lower bound (the walk stopped at the budget, or a large game)

    @property
    def bytes(self) -> float:
        return self.histories * BYTES_PER_HISTORY


def available_memory() -> int:
    """Bytes of memory available now (``MemAvailable`` on Linux, else the free pages)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return 4 * 2**30


_limit: list[int] = []  # set by set_memory_limit() or memory_limit()


def set_memory_limit(value: str | float | int | None) -> None:
    """Make ``value`` the budget wherever none is given (``None``: back to the default)."""
    _limit.clear()
    if value is not None:
        _limit.append(parse_memory(value))


@contextmanager
def memory_limit(value: str | float | int | None) -> Iterator[None]:
    """Within the block, the budget is ``value`` wherever none is given."""
    saved = list(_limit)
    set_memory_limit(value)
    try:
        yield
    finally:
        _limit[:] = saved


def parse_memory(value: str | float | int | None) -> int:
    """``"4G"``, ``"512M"``, ``"2.5GB"`` or a number of bytes -> bytes (``None``: the limit set by
    :func:`memory_limit`, else half of the memory available)."""
    if value is None:
        return _limit[-1] if _limit else int(DEFAULT_SHARE * available_memory())
    if isinstance(value, bool):
        raise RcfrError(f"a memory size must be a number of bytes or e.g. 4G, got {value!r}")
    if isinstance(value, (int, float)):
        number, unit = float(value), ""
    else:
        m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([KMGTkmgt]?)[iI]?[bB]?\s*",
                         str(value))
        if m is None:
            raise RcfrError(f"cannot read the memory size {value!r}: use e.g. 512M, 4G or a "
                            f"number of bytes")
        number, unit = float(m.group(1)), m.group(2).upper()
    if not math.isfinite(number) or number <= 0:
        raise RcfrError(f"a memory size must be positive, got {value!r}")
    return int(min(number * _UNITS[unit], 2.0**62))


def format_bytes(n: float) -> str:
    for unit, size in (("TB", 2**40), ("GB", 2**30), ("MB", 2**20), ("KB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} bytes"


def _count(n: float) -> str:
    return f"{n:,.0f}" if n < 1e9 else f"{n:.2g}"


# -- closed forms ------------------------------------------------------------------------------
def _nl_one_card(cards: int, stack: int, ante: int) -> SizeEstimate:
    """Nodes of the betting tree by dynamic programming over ``T(m, o)``: the subtree where the
    player to act has put in ``m`` chips and faces a raise to ``o`` (the last raise is then
    ``o - m``): fold and call end the hand, raises go to ``T(o, k)`` for every ``k`` from
    ``min(2o - m, stack)`` to the stack."""
    at_least = stack > _NL_EXACT_STACK
    s = min(stack, _NL_EXACT_STACK)
    a = min(ante, s)
    # suffix[o][k] = sum of T(o, k') for k' >= k (rows filled from the largest o down)
    suffix = np.zeros((s + 2, s + 2))
    for m in range(s - 1, a - 1, -1):
        o = np.arange(m + 1, s + 1)
        lo = np.minimum(2 * o - m, s)
        t = 3.0 + np.where(o < s, suffix[o, lo], 0.0)
        row = np.zeros(s + 2)
        row[m + 1 : s + 1] = t
        suffix[m] = np.cumsum(row[::-1])[::-1]
    raises = suffix[a, a + 1] if a < s else 0.0  # the first raise, to any k > ante
    check = 2.0 + raises  # after a check: call (showdown) or raise
    betting = 1.0 + check + raises
    c = float(min(cards, 2**_HUGE_EXPONENT))
    return SizeEstimate(float(1.0 + c + c * (c - 1.0) * betting), None, at_least)


def _goofspiel(num_cards: int, points_order: str) -> SizeEstimate:
    """Per round with ``k`` cards in each hand: (a chance node drawing the point card when the
    order is random, then) player 0's node, ``k`` nodes of player 1 and ``k^2`` rounds with
    ``k - 1`` cards; with one card left the round plays itself (a terminal)."""
    chance = points_order == "random"
    nodes = 1.0  # a finished game
    for k in range(2, num_cards + 1):
        nodes = 1.0 + k + k * k * nodes
        if chance:
            nodes = 1.0 + k * nodes
        if nodes > 2.0**_HUGE_EXPONENT:  # beyond any memory: stop counting
            return SizeEstimate(nodes, None, at_least=True)
    return SizeEstimate(nodes)


def estimate_size(game) -> SizeEstimate | None:
    """A closed-form size of ``game`` where its rules give one (else ``None``: walk it)."""
    from .games.goofspiel import Goofspiel
    from .games.kuhn import KuhnPoker
    from .games.leduc import LeducPoker
    from .games.liars_dice import LiarsDice
    from .games.matrix import MatrixGame
    from .games.nl_holdem2 import NLHoldem2
    from .games.nl_one_card import NLOneCardPoker

    p = getattr(game, "params", {})
    kind = type(game)
    if kind is LiarsDice and set(p) <= {"dice", "faces", "dice2"}:
        if game.bluff_action > _HUGE_EXPONENT:  # beyond any memory: skip the exact count
            return SizeEstimate(2.0**_HUGE_EXPONENT, None, at_least=True)
        sizes = game.closed_form_sizes()  # the bidding tree's closed form
        return SizeEstimate(float(sizes["histories"]), float(sizes["sequences"]))
    if kind is NLOneCardPoker and set(p) == {"cards", "stack", "ante"}:
        return _nl_one_card(p["cards"], p["stack"], p["ante"])
    if kind is NLHoldem2:  # the betting tree's closed form, every bucket deal possible
        sizes = game.closed_form_sizes(support=False)
        return SizeEstimate(float(sizes["histories"]), float(sizes["sequences"]))
    if kind is Goofspiel and set(p) == {"num_cards", "points_order", "imp_info"}:
        return _goofspiel(p["num_cards"], p["points_order"])
    if kind is LeducPoker and set(p) == {"canonical"}:
        return SizeEstimate(1939.0 if p["canonical"] else 9457.0, 672.0 if p["canonical"]
                            else 2184.0)
    if kind is KuhnPoker and not p:
        return SizeEstimate(58.0, 24.0)
    if isinstance(game, MatrixGame):
        rows, cols = np.shape(game.payoffs)
        return SizeEstimate(1.0 + rows + rows * cols, float(rows + cols))
    return None


# -- the guard -----------------------------------------------------------------------------
def _refusal(what: str, est: SizeEstimate, budget: int) -> RcfrError:
    about = "more than" if est.at_least else "about"
    return RcfrError(f"{what} has {about} {_count(est.histories)} histories "
                     f"(~{format_bytes(est.bytes)} to compile and solve); the limit is "
                     f"{format_bytes(budget)}: see --max-memory, or choose a smaller game")


def check_game(game, max_memory: str | float | int | None = None) -> int:
    """Refuse ``game`` if its closed-form size exceeds the budget; return the largest number
    of histories the compiler may walk (the bound for games without a closed form)."""
    budget = parse_memory(max_memory)
    est = estimate_size(game)
    if est is not None and est.bytes > budget:
        raise _refusal(str(game), est, budget)
    return max(1, budget // BYTES_PER_HISTORY)


def public_sequences(game) -> int | None:
    """The public form's sequences where the game gives them in closed form (2-NL Hold'em(k)),
    else ``None``."""
    sizes = getattr(game, "closed_form_sizes", None)
    if not callable(sizes) or not callable(getattr(game, "public_structure", None)):
        return None
    return int(sizes(support=False)["sequences"])


def check_public(game, max_memory: str | float | int | None = None,
                 dtype: str | None = None) -> bool:
    """Refuse ``game``'s public form if its closed-form memory exceeds the budget; ``True``
    where a closed form judged it (``False``: the public tree's node budget applies).
    ``dtype="float32"``: the sampled solvers' single-precision tables (less memory)."""
    sequences = public_sequences(game)
    if sequences is None:
        return False
    budget = parse_memory(max_memory)
    per = BYTES_PER_PUBLIC_SEQUENCE_FLOAT32 if dtype == "float32" else BYTES_PER_PUBLIC_SEQUENCE
    need = per * float(sequences)
    if need > budget:
        raise RcfrError(f"{game}'s public form has about {_count(sequences)} sequences "
                        f"(~{format_bytes(need)} to compile and solve); the limit is "
                        f"{format_bytes(budget)}: see --max-memory, or choose a smaller game")
    return True


def walk_exceeded(game, histories: int, max_memory: str | float | int | None = None) -> RcfrError:
    """The error the compiler raises when its walk passes the budget's histories."""
    return _refusal(str(game), SizeEstimate(float(histories), None, True),
                    parse_memory(max_memory))


def check_matrix(rows: float, cols: float, what: str,
                 max_memory: str | float | int | None = None) -> None:
    """Refuse a dense float64 ``rows x cols`` matrix (``what``) larger than the budget."""
    budget = parse_memory(max_memory)
    need = 8.0 * float(rows) * float(cols)
    if need > budget:
        raise RcfrError(f"{what} would be a {_count(rows)} x {_count(cols)} matrix "
                        f"(~{format_bytes(need)}); the limit is {format_bytes(budget)}: see "
                        f"--max-memory, or use fewer features")
