"""Compressed regret and average-strategy tables (``storage="int16"``).

After Bowling et al. 2015 (Science 347, "Heads-up limit hold'em poker is solved",
supplement sec. 4.2: CFR+ regrets and average strategies as scaled integers) and
postflop-solver's per-node i16 regrets / u16 strategy sums: every information set ``i`` keeps a
scale ``c_i`` (float32) and its sequences' values as integers, regrets ``R_s ~ c_i q_s`` with
``q_s`` an int16 in ``[-32767, 32767]`` and average-strategy sums with a uint16 in
``[0, 65535]``; ``c_i`` is the set's largest magnitude over the integer range, chosen afresh at
every update.  The integers are rounded *stochastically*, ``q = floor(x + u)`` for
``x = v / c_i`` and ``u`` uniform in ``[0, 1)`` (up by one with probability ``x - floor(x)``), so
that ``E[c_i q] = v``: round-to-nearest loses every
update smaller than half a step, which stalls CFR+ (a prototype: 3.8e-3 against 1.8e-4
on Leduc after 3,000 iterations).  ``u`` is output ``s + 1`` of a SplitMix64 stream keyed by
the run's key, the iteration and the table (:func:`stream_word`): the same number whatever the
order or thread that rounds ``s``, so results do not depend on the thread count, and the
run's key (checkpointed) is the whole random state.

The kernels work over the sequence-form contract (information sets ``[i_lo, i_hi)``, their
``seq_start`` and ``num_actions``), so both forms' full-width passes share them: a pass's
instantaneous regrets are absorbed by the update rule (:func:`rcfr.core.rules.absorbed_by`)
and linked (:func:`rcfr.core.links.link_slice`) one information set at a time.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .links import link_slice
from .rules import absorbed_by, discount
from .splitmix import GAMMA, SPLIT_GAMMA, mix64, to_unit

REGRET_TOP, AVERAGE_TOP = 32767, 65535  # the integer ranges (int16 symmetric, uint16)
REGRET_STREAM, AVERAGE_STREAM = 0, 1


class CompactTables(NamedTuple):
    """One run's compressed tables: per-sequence integers and per-information-set scales."""

    regrets: np.ndarray  # (S,) int16
    regret_scale: np.ndarray  # (I,) float32
    average: np.ndarray  # (S,) uint16
    average_scale: np.ndarray  # (I,) float32


def compact_tables(num_sequences: int, num_infosets: int) -> CompactTables:
    """All-zero tables (regrets 0, no average yet)."""
    return CompactTables(np.zeros(num_sequences, np.int16), np.zeros(num_infosets, np.float32),
                         np.zeros(num_sequences, np.uint16),
                         np.zeros(num_infosets, np.float32))


def table_bytes(tables: CompactTables) -> int:
    """The tables' memory in bytes."""
    return int(sum(a.nbytes for a in tables))


@njit(cache=True)
def stream_word(key, t, stream):
    """The SplitMix64 state of iteration ``t``'s stream ``stream`` (regrets or averages) of a
    run whose key is ``key``: element ``s`` is drawn by :func:`draw`."""
    return mix64(key + np.uint64(2 * t + stream + 1) * SPLIT_GAMMA)


@njit(cache=True, inline="always")
def draw(word, s):
    """Output ``s + 1`` of the SplitMix64 stream with state ``word``: uniform in ``[0, 1)``."""
    return to_unit(mix64(word + np.uint64(s + 1) * GAMMA))


@njit(cache=True, inline="always")
def round_set(values, start, end, q, scales, i, top, bottom, word, o=0):
    """Store ``values[start:end]`` as ``scales[i] * q[start:end]``, the scale their largest
    magnitude over ``top`` (rounded up to a float32) and each integer rounded stochastically
    (unbiased); ``values`` gets the stored values back.  ``o``: sequence ``s``'s value is
    ``values[s - o]`` (a set's own scratch; the draws are by ``s``)."""
    m = 0.0
    for s in range(start, end):
        a = abs(values[s - o])
        if a > m:
            m = a
    c = np.float32(m / top)
    if float(c) * top < m:  # (rounded down: one float32 step up, so that |x| <= top)
        c = np.float32(float(c) * (1.0 + 2.0 ** -23))
    scale = float(c)
    if not scale > 0.0 or not math.isfinite(scale):  # all zero (or below float32's range)
        scales[i] = 0.0
        for s in range(start, end):
            q[s] = 0
            values[s - o] = 0.0
        return
    scales[i] = c
    inv = 1.0 / scale
    for s in range(start, end):
        f = math.floor(values[s - o] * inv + draw(word, s))  # (no branch to mispredict)
        f = min(max(f, bottom), top)  # (a guard: the division may round up by an ulp)
        q[s] = int(f)
        values[s - o] = f * scale


@njit(cache=True)
def absorb_compact(t, rule, link_kind, link_param, i_lo, i_hi, seq_start, num_actions, inst,
                   strategy, C, key):
    """Information sets ``[i_lo, i_hi)``: their instantaneous regrets ``inst`` absorbed into
    the compressed regrets by ``rule`` (not a predictive one), rounded, and the link's strategy
    of the stored regrets into ``strategy``; ``inst`` gets the stored regrets."""
    pos = discount(t, rule.alpha)
    neg = discount(t, rule.beta)
    word = stream_word(key, t, REGRET_STREAM)
    for i in range(i_lo, i_hi):
        start = seq_start[i]
        end = start + num_actions[i]
        c = float(C.regret_scale[i])
        for s in range(start, end):
            inst[s] = absorbed_by(rule.kind, C.regrets[s] * c, inst[s], pos, neg)
        round_set(inst, start, end, C.regrets, C.regret_scale, i, REGRET_TOP, -REGRET_TOP,
                  word)
        link_slice(link_kind, link_param, inst, start, end, strategy)


@njit(cache=True)
def average_compact(t, weight, i_lo, i_hi, seq_start, num_actions, plan, C, key):
    """Add ``weight`` times the realization plan to the compressed average-strategy sums of
    information sets ``[i_lo, i_hi)`` (rounded, each set in a scratch of its own size: no
    vector over the sequences)."""
    word = stream_word(key, t, AVERAGE_STREAM)
    widest = 0
    for i in range(i_lo, i_hi):
        widest = max(widest, num_actions[i])
    buf = np.empty(widest)
    for i in range(i_lo, i_hi):
        start = seq_start[i]
        end = start + num_actions[i]
        c = float(C.average_scale[i])
        for s in range(start, end):
            buf[s - start] = C.average[s] * c + weight * plan[s]
        round_set(buf, start, end, C.average, C.average_scale, i, AVERAGE_TOP, 0, word, start)


@njit(cache=True, parallel=True)
def _absorb_chunks(t, rule, link_kind, link_param, i_lo, i_hi, seq_start, num_actions, inst,
                   strategy, C, key, threads):
    n = i_hi - i_lo
    for c in prange(threads):
        absorb_compact(t, rule, link_kind, link_param, i_lo + n * c // threads,
                       i_lo + n * (c + 1) // threads, seq_start, num_actions, inst, strategy,
                       C, key)


@njit(cache=True, parallel=True)
def _average_chunks(t, weight, i_lo, i_hi, seq_start, num_actions, plan, C, key, threads):
    n = i_hi - i_lo
    for c in prange(threads):
        average_compact(t, weight, i_lo + n * c // threads, i_lo + n * (c + 1) // threads,
                        seq_start, num_actions, plan, C, key)


@njit(cache=True)
def absorb_threaded(t, rule, link_kind, link_param, i_lo, i_hi, seq_start, num_actions, inst,
                    strategy, C, key, LV, threads):
    """:func:`absorb_compact` split over ``threads`` threads where ``LV`` (the tree's levels,
    ``None`` on one thread: the parallel branch is then compiled out) is given; information
    sets are independent and each draws its own stream elements: the same numbers on any
    count."""
    if LV is None:
        absorb_compact(t, rule, link_kind, link_param, i_lo, i_hi, seq_start, num_actions,
                       inst, strategy, C, key)
    elif threads > 1 and i_hi - i_lo >= 64 * threads:
        _absorb_chunks(t, rule, link_kind, link_param, i_lo, i_hi, seq_start, num_actions,
                       inst, strategy, C, key, threads)
    else:
        absorb_compact(t, rule, link_kind, link_param, i_lo, i_hi, seq_start, num_actions,
                       inst, strategy, C, key)


@njit(cache=True)
def average_threaded(t, weight, i_lo, i_hi, seq_start, num_actions, plan, C, key, LV,
                     threads):
    """:func:`average_compact` split over ``threads`` threads (as :func:`absorb_threaded`)."""
    if LV is None:
        average_compact(t, weight, i_lo, i_hi, seq_start, num_actions, plan, C, key)
    elif threads > 1 and i_hi - i_lo >= 64 * threads:
        _average_chunks(t, weight, i_lo, i_hi, seq_start, num_actions, plan, C, key, threads)
    else:
        average_compact(t, weight, i_lo, i_hi, seq_start, num_actions, plan, C, key)


@njit(cache=True)
def decode(q, scale, bounds, seq_start, num_actions, out):
    """Compact values ``scale * q`` (one scale per information set) into ``out`` (float64,
    over sequences): the regrets (``C.regrets``, ``C.regret_scale``) or the average-strategy
    sums (``C.average``, ``C.average_scale``)."""
    for i in range(bounds[0], bounds[2]):
        c = float(scale[i])
        start = seq_start[i]
        for s in range(start, start + num_actions[i]):
            out[s] = q[s] * c
