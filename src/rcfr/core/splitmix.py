"""SplitMix64 (Steele, Lea & Flood 2014, "Fast splittable pseudorandom number generators"):
a Weyl sequence ``state += GAMMA`` through the ``mix64`` finalizer.  Output ``n`` of the stream
with state ``w`` is ``mix64(w + n * GAMMA)``, so any element of a stream can be drawn directly,
in any order: the sampled passes draw in sequence (:mod:`rcfr.forms.sampling`), stochastic
rounding draws element ``s`` of iteration ``t``'s stream (:mod:`rcfr.core.compact`)."""

from __future__ import annotations

import numpy as np
from numba import njit

GAMMA = np.uint64(0x9E3779B97F4A7C15)  # the Weyl increment (the golden ratio)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
S30, S27, S31, S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53
SPLIT_GAMMA = np.uint64(0xD1B54A32D192ED03)  # spreads a stream index over the word


@njit(cache=True, inline="always")
def mix64(z):
    """SplitMix64's finalizer (a bijection of 64-bit words)."""
    z = (z ^ (z >> S30)) * MIX1
    z = (z ^ (z >> S27)) * MIX2
    return z ^ (z >> S31)


@njit(cache=True, inline="always")
def to_unit(z):
    """A uniform double in ``[0, 1)`` from the top 53 bits of a word."""
    return float(z >> S11) * TO_UNIT
