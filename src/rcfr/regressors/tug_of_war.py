"""Tug-of-war hashing features (Bellemare et al. 2012), as f-RCFR uses them (D'Orazio et al.
2019, sec. 4.1): ``k`` random partitions of the information states into ``buckets`` buckets,
and a random sign per state and partition."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from ..core.errors import RcfrError
from ._checks import check_int


def _digest(seed: int, partition: int, key: str) -> bytes:
    """A stable 16-byte hash of ``(seed, partition, key)`` (BLAKE2b; not Python's ``hash``)."""
    return hashlib.blake2b(f"{seed}\x1f{partition}\x1f{key}".encode(), digest_size=16).digest()


def tug_of_war_codes(keys: Sequence[str], num_partitions: int, buckets: int = 10,
                     seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(bucket, sign)``, both ``len(keys) x num_partitions``: key ``i``'s bucket in
    partition ``j`` and its sign ``+-1`` there -- the tug-of-war features in compact form (a
    row of :func:`tug_of_war_features` is built from one row of each)."""
    k = check_int("num_partitions", num_partitions, 1)
    b = check_int("buckets", buckets, 1)
    s = check_int("seed", seed, -(2**63))
    names = list(keys)
    for name in names:
        if not isinstance(name, str):
            raise RcfrError(f"tug-of-war keys must be strings, got {name!r}")
    if len(set(names)) != len(names):
        raise RcfrError("tug-of-war keys must be distinct")
    n = len(names)
    bucket = np.empty((n, k), dtype=np.int64)
    sign = np.empty((n, k))
    for j in range(k):
        digests = [_digest(s, j, name) for name in names]
        order = sorted(range(n), key=lambda i: (digests[i][:8], names[i]))
        bucket[order, j] = np.arange(n) * b // max(n, 1)
        sign[:, j] = [1.0 if d[8] & 1 else -1.0 for d in digests]
    return bucket, sign


def tug_of_war_rows(bucket: np.ndarray, sign: np.ndarray, buckets: int) -> np.ndarray:
    """The dense feature rows of the keys whose codes (from :func:`tug_of_war_codes`) are
    ``bucket`` and ``sign``: column ``j * buckets + b`` holds the sign if the key falls in
    bucket ``b`` of partition ``j``."""
    n, k = bucket.shape
    F = np.zeros((n, k * buckets))
    F[np.arange(n)[:, None], np.arange(k)[None, :] * buckets + bucket] = sign
    return F


def tug_of_war_features(keys: Sequence[str], num_partitions: int, buckets: int = 10,
                        seed: int = 0) -> np.ndarray:
    """The ``len(keys) x (num_partitions * buckets)`` tug-of-war feature matrix.

    For each partition ``j`` the keys are ordered by a seeded hash and cut into ``buckets``
    consecutive groups whose sizes differ by at most one; each key also gets a hashed sign
    ``+-1``.  Column ``j * buckets + b`` holds the key's sign if it falls in bucket ``b`` of
    partition ``j``, else 0: every row has exactly ``num_partitions`` nonzeros.  A key's
    features depend only on the set of keys, ``seed`` and the key (not on the order of
    ``keys``), and are the same in every run.
    """
    bucket, sign = tug_of_war_codes(keys, num_partitions, buckets, seed)
    return tug_of_war_rows(bucket, sign, check_int("buckets", buckets, 1))
