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

from .errors import RcfrError

# Peak bytes per history while compiling and solving (measured: 210-410 bytes at the compile
# peak for kuhn, leduc, liar's dice, goofspiel and one-card poker, ~55 bytes once compiled,
# plus the solver's arrays over histories).
BYTES_PER_HISTORY = 450
DEFAULT_SHARE = 0.5  # of the memory available
_UNITS = {"": 1, "B": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
HUGE_EXPONENT = 1000  # sizes beyond 2^1000 histories are reported as "more than"
NL_EXACT_STACK = 1500  # one-card poker's closed form is O(stack^2); above, a lower bound
# The public form's peak bytes per sequence while compiling and solving, and its compiled
# arrays' bytes per sequence.  Measured on 2-NL Hold'em(k) (benchmarks/bench_memory.py: peak
# resident memory less the started process, two iterations and one evaluation of the average)
# after the lean evaluation (rcfr.forms.public.evaluate) and the in-place averages: CFR+ 82 and
# DCFR 87 bytes a sequence with float64 tables (k = 28; 103 and 111 before), the sampled solvers
# with float32 tables 48-59 (k = 30, one and two threads: CS 59, ES 52; 79-91 before), the
# compact full-width tables (storage="int16", float32 strategy) 57 (k = 30; 79 before); arrays
# 20.4-21 (k = 20 to 40).  The guard counts a little above them (the tree's levels on several
# threads: 2.7 a sequence).
BYTES_PER_PUBLIC_SEQUENCE = 95
BYTES_PER_PUBLIC_SEQUENCE_FLOAT32 = 62  # the sampled solvers' dtype="float32" tables
BYTES_PER_PUBLIC_SEQUENCE_INT16 = 62  # full-width storage="int16" (compact tables)
# The full-width solvers' float32 tables (measured at k = 28, two iterations and one
# evaluation, one thread: DCFR 80.8, CFR+ 72.8), and the predictive rules' (PCFR+, PDCFR+),
# which keep a prediction table besides the regrets: 108.8 with float64 tables, 88.9 with
# float32 at k = 28; a float32 PCFR+ run of 2-NL Hold'em(36) evaluated along the way was killed
# at 20.4 GB (102 a sequence), so the guard counts above both.
BYTES_PER_PUBLIC_SEQUENCE_WIDTH_FLOAT32 = 85
BYTES_PER_PUBLIC_SEQUENCE_PREDICTIVE = 120
BYTES_PER_PUBLIC_SEQUENCE_PREDICTIVE_FLOAT32 = 110
# A sampled float32 or compact full-width run evaluated only at its end, released first
# (rcfr.run.engine.drive's release): the larger of the run (measured at k = 40, one thread:
# CS 38.7 bytes a sequence, ES, OS, AS 32.8, CFR+ int16 38.1) and its end (the tree 20.3, the
# profile 4 or 8, the evaluation 9.4, the tree's levels on several threads 2.7; measured
# at k = 24 with the evaluation: CS 39.6, CFR+ int16 41.0, with the process's fixed costs).
BYTES_PER_PUBLIC_SEQUENCE_RELEASED = 40
PUBLIC_TREE_BYTES_PER_SEQUENCE = 21
# The public compile's own peak per sequence: it writes the information sets and sequences
# straight into their final arrays, so it peaks at the arrays it keeps plus a few per-node
# arrays (measured: 20.6-21.6 bytes a sequence at k = 20 to 38, 0.99-1.03 times the arrays;
# the vectorized compile before it peaked at 3.7 times).
PUBLIC_COMPILE_BYTES_PER_SEQUENCE = 23
# What evaluation alone needs (no regret or average tables): the compiled arrays (21 bytes a
# sequence), the float64 profile (8), one padded plan over the sequences (8: each player's values
# overwrite its own plan in place) and player 0's parents' reach (8 an information set, 1.4 a
# sequence), and on several threads the tree's levels (8 an information set, 2.7 a sequence;
# their build peaks below this).  Measured (rcfr.forms.public.evaluate, benchmarks/
# bench_memory.py; peak resident memory less the started process): 2-NL Hold'em(24) to (38),
# uniform profile, one thread 36.7-38.0 bytes a sequence (k = 38: 11.8 GiB; 53 before the lean
# evaluation), two threads 41 (k = 30); a float32 profile 4 less.  A history form's uniform
# evaluation peaks at 407 bytes per history (goofspiel(num_cards=6), as its compile does).
BYTES_PER_HISTORY_EVALUATE = 410
BYTES_PER_PUBLIC_SEQUENCE_EVALUATE = 41
_evaluating: list[bool] = []  # set by evaluation_only()


@contextmanager
def evaluation_only() -> Iterator[None]:
    """Within the block, the guard counts what evaluating a strategy needs (the compiled game
    and the evaluation's arrays), not a solver's tables."""
    _evaluating.append(True)
    try:
        yield
    finally:
        _evaluating.pop()


def _per_history() -> int:
    return BYTES_PER_HISTORY_EVALUATE if _evaluating else BYTES_PER_HISTORY


def _purpose() -> str:
    return "to compile and evaluate" if _evaluating else "to compile and solve"


@dataclass(frozen=True)
class SizeEstimate:
    """Histories (nodes of the compiled tree), sequences where known, and the memory needed."""

    histories: float
    sequences: float | None = None
    at_least: bool = False  # a lower bound (the walk stopped at the budget, or a large game)

    @property
    def bytes(self) -> float:
        return self.histories * _per_history()


def proc_bytes(path: str, field: str) -> int | None:
    """A ``kB`` field of a Linux ``/proc`` file in bytes (``/proc/meminfo``'s
    ``MemAvailable``, ``/proc/self/status``'s ``VmRSS`` or ``VmHWM``), or ``None`` where
    there is none."""
    try:
        with open(path) as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def peak_rss() -> int:
    """This process's peak resident memory in bytes (Linux's ``VmHWM``; 0 elsewhere)."""
    return proc_bytes("/proc/self/status", "VmHWM") or 0


def available_memory() -> int:
    """Bytes of memory available now (``MemAvailable`` on Linux, else the free pages)."""
    available = proc_bytes("/proc/meminfo", "MemAvailable")
    if available is not None:
        return available
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


_seconds: list[float] = []  # set by set_time_limit()


def set_time_limit(seconds: float | None) -> None:
    """Bound the walk that compiles a game without a closed-form size to ``seconds`` (``None``:
    no bound, the default); ``RcfrError`` unless a positive finite number."""
    _seconds.clear()
    if seconds is not None:
        if isinstance(seconds, bool) or not 0 < seconds < float("inf"):
            raise RcfrError(f"--max-time must be a positive number of seconds, got {seconds}")
        _seconds.append(float(seconds))


def time_limit() -> float | None:
    """The walk's time bound in seconds (``None``: none)."""
    return _seconds[-1] if _seconds else None


def walk_out_of_time(game, histories: int, seconds: float) -> RcfrError:
    """The error the compiler raises when its walk runs past the time bound."""
    return RcfrError(f"{game}: compiling it passed the time limit of {seconds:g} s after "
                     f"{_count(histories)} histories (the game has more): see --max-time, or "
                     f"choose a smaller game")


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


def estimate_size(game) -> SizeEstimate | None:
    """A closed-form size of ``game`` where its rules give one (the game's own
    ``size_estimate()``; else ``None``: walk it)."""
    estimate = getattr(game, "size_estimate", None)
    return estimate() if callable(estimate) else None


# -- the guard -----------------------------------------------------------------------------
def _refusal(what: str, est: SizeEstimate, budget: int) -> RcfrError:
    about = "more than" if est.at_least else "about"
    return RcfrError(f"{what} has {about} {_count(est.histories)} histories "
                     f"(~{format_bytes(est.bytes)} {_purpose()}); the limit is "
                     f"{format_bytes(budget)}: see --max-memory, or choose a smaller game")


def check_game(game, max_memory: str | float | int | None = None) -> int:
    """Refuse ``game`` if its closed-form size exceeds the budget; return the largest number
    of histories the compiler may walk (the bound for games without a closed form)."""
    budget = parse_memory(max_memory)
    est = estimate_size(game)
    if est is not None and est.bytes > budget:
        raise _refusal(str(game), est, budget)
    return max(1, budget // _per_history())


def public_sequences(game) -> int | None:
    """The public form's sequences where the game gives them in closed form (2-NL Hold'em(k)),
    else ``None``."""
    sizes = getattr(game, "closed_form_sizes", None)
    if not callable(sizes) or not callable(getattr(game, "public_structure", None)):
        return None
    return int(sizes(support=False)["sequences"])


def public_compile_bytes(game) -> int | None:
    """The public compile's peak growth of the process, in bytes, where the game gives its
    sequences in closed form (else ``None``)."""
    sequences = public_sequences(game)
    return None if sequences is None else PUBLIC_COMPILE_BYTES_PER_SEQUENCE * sequences


def check_public(game, max_memory: str | float | int | None = None,
                 dtype: str | None = None) -> bool:
    """Refuse ``game``'s public form if its closed-form memory exceeds the budget; ``True``
    where a closed form judged it (``False``: the public tree's node budget applies).
    ``dtype="float32"``: the sampled solvers' single-precision tables, ``"int16"``: the
    full-width solvers' compact tables (less memory); ``"float32-released"``,
    ``"int16-released"``: the same evaluated only at the end, after releasing them;
    ``"float32-width"``: the full-width solvers' float32 tables; ``"predictive"``,
    ``"predictive-float32"``: the full-width predictive rules' (a prediction table more)."""
    sequences = public_sequences(game)
    if sequences is None:
        return False
    budget = parse_memory(max_memory)
    per = {"float32": BYTES_PER_PUBLIC_SEQUENCE_FLOAT32,
           "float32-released": BYTES_PER_PUBLIC_SEQUENCE_RELEASED,
           "int16-released": BYTES_PER_PUBLIC_SEQUENCE_RELEASED,
           "int16": BYTES_PER_PUBLIC_SEQUENCE_INT16,
           "float32-width": BYTES_PER_PUBLIC_SEQUENCE_WIDTH_FLOAT32,
           "predictive": BYTES_PER_PUBLIC_SEQUENCE_PREDICTIVE,
           "predictive-float32": BYTES_PER_PUBLIC_SEQUENCE_PREDICTIVE_FLOAT32,
           }.get(dtype, BYTES_PER_PUBLIC_SEQUENCE)
    if _evaluating:
        per = BYTES_PER_PUBLIC_SEQUENCE_EVALUATE
    need = per * float(sequences)
    if need > budget:
        raise RcfrError(f"{game}'s public form has about {_count(sequences)} sequences "
                        f"(~{format_bytes(need)} {_purpose()}); the limit is "
                        f"{format_bytes(budget)}: see --max-memory, or choose a smaller game")
    return True


def walk_exceeded(game, histories: int, max_memory: str | float | int | None = None) -> RcfrError:
    """The error the compiler raises when its walk passes the budget's histories."""
    return _refusal(str(game), SizeEstimate(float(histories), None, True),
                    parse_memory(max_memory))


def resident_bytes() -> int:
    """The process's resident memory now (Linux ``/proc/self/statm``; elsewhere its peak,
    ``getrusage``): what a walk of a game without a closed-form size checks against the
    budget, since the states it holds cost more than the arrays it builds."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def walk_out_of_memory(game, histories: int, max_memory: str | float | int | None = None
                       ) -> RcfrError:
    """The error the compiler raises when the walk grows the process past the budget."""
    budget = parse_memory(max_memory)
    return RcfrError(f"{game}: compiling it passed the memory limit of {format_bytes(budget)} "
                     f"after {_count(histories)} histories (the game has more): see "
                     f"--max-memory, or choose a smaller game")


def check_matrix(rows: float, cols: float, what: str,
                 max_memory: str | float | int | None = None) -> None:
    """Refuse a dense float64 ``rows x cols`` matrix (``what``) larger than the budget."""
    budget = parse_memory(max_memory)
    need = 8.0 * float(rows) * float(cols)
    if need > budget:
        raise RcfrError(f"{what} would be a {_count(rows)} x {_count(cols)} matrix "
                        f"(~{format_bytes(need)}); the limit is {format_bytes(budget)}: see "
                        f"--max-memory, or use fewer features")


# The sequence-form LP's peak growth per terminal history (rcfr.lp: the payoff matrix, the
# constraint matrices stacked for each player's LP and HiGHS's own copies), measured as peak
# resident memory less the compiled game: goofspiel(num_cards=5) 556 bytes a terminal (14,400
# terminals), liar's dice 654 (147,420); the guard counts above both.
LP_BYTES_PER_TERMINAL = 800


def check_lp(what: str, terminals: int, max_memory: str | float | int | None = None) -> None:
    """Refuse the sequence-form LP of a game with ``terminals`` terminal histories when its
    matrices and the solver's copies (:data:`LP_BYTES_PER_TERMINAL`) exceed the budget."""
    budget = parse_memory(max_memory)
    need = LP_BYTES_PER_TERMINAL * float(terminals)
    if need > budget:
        raise RcfrError(f"the sequence-form LP of {what} has {_count(terminals)} terminal "
                        f"histories (~{format_bytes(need)} to build and solve); the limit is "
                        f"{format_bytes(budget)}: see --max-memory, or choose a smaller game")


def _parameters(widths) -> int:
    """Weights and biases of a fully connected network of layer ``widths``."""
    widths = [int(w) for w in widths]
    return sum((a + 1) * b for a, b in zip(widths[:-1], widths[1:], strict=True))


def network_bytes(inputs: int, hidden: tuple[int, ...], itemsize: int = 4) -> int:
    """Bytes a fully connected ``inputs -> hidden... -> 1`` network holds while it trains:
    each weight and bias, its gradient and Adam's two moments (4 arrays of ``itemsize``)."""
    return 4 * itemsize * _parameters((inputs, *hidden, 1))


def check_network(inputs: int, hidden: tuple[int, ...], itemsize: int, what: str,
                  max_memory: str | float | int | None = None) -> None:
    """Refuse, before it is built, a network (:func:`network_bytes`) larger than the budget."""
    budget = parse_memory(max_memory)
    need = network_bytes(inputs, hidden, itemsize)
    if need > budget:
        raise RcfrError(f"{what} ({inputs} inputs, hidden {','.join(map(str, hidden))}) "
                        f"would need ~{format_bytes(need)} with its gradients and optimiser "
                        f"state; the limit is {format_bytes(budget)}: see --max-memory, or "
                        f"use smaller --hidden layers")


# -- the drivers' tables, networks and memories --------------------------------------------
# Minibatch rows (steps x batch size) one iteration of a neural driver may train on: 2^50 rows
# (1.1e15) take weeks on any machine, so a larger count is refused rather than run until killed.
MAX_TRAINING_ROWS = 2**50


def mlp_bytes(sizes: list[int] | tuple[int, ...], arrays: int = 2) -> int:
    """Bytes of a float64 perceptron of layer ``sizes`` (inputs, hidden..., outputs): its
    weights and biases ``arrays`` times (2: with their gradients; 4: and Adam's moments)."""
    return 8 * arrays * _parameters(sizes)


def check_allocations(what: str, parts: dict[str, float],
                      max_memory: str | float | int | None = None) -> None:
    """Refuse, before any is allocated, what a driver would allocate (``parts``: bytes by what
    they hold -- tables, networks with their gradients and optimiser state, memories,
    minibatches) when together they exceed the budget; the message names the largest."""
    budget = parse_memory(max_memory)
    need = float(sum(parts.values()))
    if need > budget:
        name, most = max(parts.items(), key=lambda kv: kv[1])
        raise RcfrError(f"{what} would allocate ~{format_bytes(need)} ({name} ~"
                        f"{format_bytes(most)}); the limit is {format_bytes(budget)}: see "
                        f"--max-memory, or choose smaller sizes")


def check_training_rows(what: str, steps: int, batch: int) -> None:
    """Refuse ``steps`` minibatches of ``batch`` rows an iteration (``what``: the options, as
    the command line spells them) above :data:`MAX_TRAINING_ROWS`: no machine finishes them."""
    rows = float(steps) * float(batch)
    if rows > MAX_TRAINING_ROWS:
        raise RcfrError(f"{what}: {_count(steps)} steps of {_count(batch)} rows is "
                        f"{rows:.2g} minibatch rows an iteration, more than any machine "
                        f"finishes (the most is 2^50, {float(MAX_TRAINING_ROWS):.2g})")
