"""The values of a checkpoint's arrays, checked once for every solver before any is taken
(:func:`check_state`): a damaged file is refused with one line instead of resuming into NaN
regrets, a uniform strategy or a crash inside a kernel."""

from __future__ import annotations

import re

import numpy as np

from .errors import RcfrError

# the arrays that can never be negative (digits in a key read as #): average sums,
# probabilities, the compressed tables' scales, the memories' sample weights, iterations,
# information sets and counters, Adam's second moments and step counts, NFSP's counters
NONNEGATIVE = re.compile(
    r"avg_weights|strategy|average|best_response|estimator_c_(regret|average)_scale"
    r"|(adv|strat)#\.(weight|iteration|info|added)|(rl|sl)#\.added|q\.mem\.added"
    r"|.*\.adam\.(t|v)|steps|learned")
PROBABILITIES = re.compile(r"strategy|average|best_response")  # and at most 1
_PCG64_PARTS = (2**128, 2**128, 2, 2**32)  # state, inc, has_uint32, uinteger: upper bounds


def _pattern(key: str) -> str:
    return re.sub(r"\d+", "#", key)


def check_rng(key: str, value: np.ndarray) -> None:
    """A PCG64 generator's state as four decimal strings: ``state``, ``inc`` (odd),
    ``has_uint32`` and ``uinteger``, each in its range."""
    if value.dtype.kind != "U" or value.shape != (4,):
        raise ValueError(f"{key} is not a random generator's state")
    parts = [str(x) for x in value]
    if not all(p.isascii() and p.isdigit() and len(p) <= 40 for p in parts):
        raise ValueError(f"{key} is not a random generator's state")
    numbers = [int(p) for p in parts]
    if any(n >= bound for n, bound in zip(numbers, _PCG64_PARTS, strict=True)) \
            or numbers[1] % 2 == 0:
        raise ValueError(f"{key} is not a random generator's state (out of range)")


def check_state(arrays: dict[str, np.ndarray], template: dict[str, np.ndarray],
                opaque: tuple[str, ...] = (), growing: tuple[str, ...] = ()) -> None:
    """Refuse (``ValueError`` naming the array) a checkpoint's ``arrays`` whose values cannot
    be a solver's state, by comparison with ``template`` (the same solver's own arrays):
    every array numeric (a random generator's state: :func:`check_rng`), of the template's
    kind of dtype (float, integer or bool), number of dimensions and shape (only the trailing
    dimensions where the template is empty or its key starts with one of ``growing``: a
    memory or a tree that grows), integers within the template dtype's range (int16 tables),
    floats finite, and the arrays named in :data:`NONNEGATIVE` (:data:`PROBABILITIES`)
    ``>= 0`` (and ``<= 1``).  An array the template lacks (SD-CFR's snapshots) must be
    numeric and finite.  Keys starting with one of ``opaque`` (a scikit-learn estimator's
    attributes) are left to their owner's ``load_state``."""
    by_pattern = {}  # adv1.info as adv0.info: the other player's array
    for k, v in template.items():
        by_pattern.setdefault(_pattern(k), v)
    for key, value in arrays.items():
        if key.startswith(opaque):
            continue
        value = np.asarray(value)
        like = template.get(key, by_pattern.get(_pattern(key)))
        like = None if like is None else np.asarray(like)
        if like is not None and like.dtype.kind == "U":
            check_rng(key, value)
            continue
        kind = value.dtype.kind
        if kind not in "biuf":
            raise ValueError(f"{key} holds {value.dtype} values, not numbers")
        if like is not None:
            want = like.dtype.kind
            if want == "b" and kind != "b" or want == "f" and kind != "f" \
                    or want in "iu" and kind not in "iu":
                raise ValueError(f"{key} is {value.dtype}, not {like.dtype}")
            fixed = like.size and not key.startswith(growing)
            if value.ndim != like.ndim or value.shape[1:] != like.shape[1:] \
                    or (fixed and value.shape != like.shape):
                raise ValueError(f"{key} has shape {value.shape}, not {like.shape}")
            if want in "iu" and value.size:
                info = np.iinfo(like.dtype)
                if int(value.min()) < info.min or int(value.max()) > info.max:
                    raise ValueError(f"{key} holds values beyond {like.dtype}")
        if kind == "f" and not np.isfinite(value).all():
            raise ValueError(f"{key} holds NaN or infinite values")
        pattern = _pattern(key)
        if NONNEGATIVE.fullmatch(pattern) and kind != "b" and value.size and value.min() < 0:
            raise ValueError(f"{key} holds negative values")
        if PROBABILITIES.fullmatch(pattern) and value.size and value.max() > 1 + 1e-6:
            raise ValueError(f"{key} holds probabilities above 1")


def check_checkpoint(name: str, arrays: dict[str, np.ndarray],
                     template: dict[str, np.ndarray], opaque: tuple[str, ...] = (),
                     growing: tuple[str, ...] = ()) -> None:
    """:func:`check_state` for the checkpoint file shown as ``name``: one ``RcfrError`` line,
    "NAME is corrupted: ...", naming the damaged array."""
    try:
        check_state(arrays, template, opaque, growing)
    except ValueError as exc:
        raise RcfrError(f"{name} is corrupted: {exc}") from None


def typed(value, kind: str, shape: tuple[int, ...], key: str) -> np.ndarray:
    """A copy of ``value`` if its dtype is of ``kind`` (numpy kind letters, e.g. ``"f"``,
    ``"iu"``) and its shape ``shape``, else ``ValueError`` naming ``key``: what a network's
    weights, an optimiser's moments or a counter loaded from a checkpoint must be."""
    value = np.asarray(value)
    if value.dtype.kind not in kind or value.shape != tuple(shape):
        raise ValueError(f"{key} is {value.dtype}{list(value.shape)}, not {kind!r}"
                         f"{list(shape)}")
    return np.array(value)
