"""Damaged checkpoints are refused with one line, for every solver family (CFR+ with float64,
float32 and int16 tables, external sampling, the public form, RCFR+, XFP, FSP, NFSP, SD-CFR,
Deep CFR, DREAM): each array of a small real checkpoint is mutated in turn -- NaN, infinity,
a negative value where none can be, another kind of dtype, strings, another shape -- and
each mutant must be refused (:mod:`rcfr.core.statecheck`, shared by every solver's
``load_checkpoint``), while the checkpoint itself loads."""

from __future__ import annotations

import json

import numpy as np
import pytest

import rcfr
from rcfr.core.errors import RcfrError
from rcfr.solvers.run import make_solver

FAMILIES = {  # name: (form, algorithm, options)
    "cfr+": ("history", "cfr+", {}),
    "float32": ("history", "cfr+", {"dtype": "float32"}),
    "int16": ("history", "cfr+", {"storage": "int16"}),
    "es": ("history", "es", {}),
    "public": ("public", "cfr+", {}),
    "rcfr+": ("history", "rcfr+", {}),
    "xfp": ("history", "xfp", {}),
    "fsp": ("history", "fsp", {}),
    "nfsp": ("history", "nfsp", {}),
    "sd-cfr": ("history", "sd-cfr", {}),
    "deep-cfr": ("history", "deep-cfr", {}),
    "dream": ("history", "dream", {}),
}
# what can never be negative, by the key's last name: average sums, probabilities, counters,
# sample weights, iterations and information-set indices, Adam's moments and steps, scales
NEVER_NEGATIVE = {"avg_weights", "strategy", "average", "best_response", "weight",
                  "iteration", "info", "added", "c_regret_scale", "c_average_scale", "t", "v",
                  "steps", "learned"}


def _solver(family: str):
    form, algorithm, options = FAMILIES[family]
    return make_solver(rcfr.compile_game("kuhn", form=form), algorithm, seed=1, **options)


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    """One small checkpoint of each family, written once: ``{family: (arrays, meta)}``."""
    folder = tmp_path_factory.mktemp("checkpoints")
    out = {}
    for family in FAMILIES:
        solver = _solver(family)
        solver.run(2)
        path = folder / f"{family}.npz"
        solver.save_checkpoint(path)
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        out[family] = (arrays, json.loads(str(arrays.pop("meta")[()])))
    return out


def _mutants(key: str, value: np.ndarray):
    """(what, mutated array) for one array of a checkpoint."""
    kind, name = value.dtype.kind, key.rsplit(".", 1)[-1].removeprefix("estimator_")
    flat = value.reshape(-1)
    if kind == "f" and flat.size:
        for what, bad in (("NaN", np.nan), ("inf", np.inf), ("-inf", -np.inf)):
            changed = flat.copy()
            changed[-1] = bad
            yield what, changed.reshape(value.shape)
    if name in NEVER_NEGATIVE and kind in "if" and flat.size:
        changed = flat.copy()
        changed[0] = -1
        yield "negative", changed.reshape(value.shape)
    if kind == "f":
        yield "integer dtype", value.astype(np.int64)
    elif kind in "iub":
        yield "float dtype", value.astype(np.float64)
    else:  # a random generator's state as strings
        yield "integer dtype", np.zeros(value.shape, np.uint64)
        yield "even inc", np.array([value[0], "2", value[2], value[3]])
        yield "too large", np.array([str(2**130), *value[1:]])
    yield "strings", np.full(value.shape, "x")
    if value.ndim == 0:
        yield "a vector", value.reshape(1)
    else:
        yield "one more row", np.concatenate([value, value[:1] if len(value) else
                                              np.zeros((1, *value.shape[1:]), value.dtype)])


@pytest.mark.parametrize("family", FAMILIES)
def test_every_mutated_array_is_refused_with_one_line(checkpoints, family, tmp_path):
    arrays, meta = checkpoints[family]
    path = tmp_path / "c.npz"

    def load(mutated: dict) -> None:
        np.savez(path, **mutated, meta=np.array(json.dumps(meta)))
        _solver(family).load_checkpoint(path)

    load(arrays)  # the checkpoint itself is whole, also into a solver that has run
    solver = _solver(family)
    solver.run(1)
    solver.load_checkpoint(path)
    accepted = []
    count = 0
    for key, value in arrays.items():
        for what, bad in _mutants(key, value):
            count += 1
            try:
                load({**arrays, key: bad})
            except RcfrError as exc:
                assert "\n" not in str(exc) and "corrupted" in str(exc), (key, what, exc)
            else:
                accepted.append(f"{key}: {what}")
    assert not accepted, f"{len(accepted)} of {count} mutants accepted: {accepted}"
    assert count >= 3 * len(arrays)
