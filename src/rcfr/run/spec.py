"""Run specs: what defines a run.

A :class:`RunSpec` holds everything that defines one solver run, one field per option declared
in :mod:`rcfr.solvers.options` (plus a sweep's own: ``share``, ``eval_log``, ``eval_from``);
its canonical JSON (sorted keys, fields left at ``None`` omitted) is the run's identity and
:attr:`RunSpec.hash` its key in the results store.  :func:`load_run_spec` reads one from a
TOML (or JSON) file; sweep specs, grids of runs, are :mod:`rcfr.experiments.spec`'s.  Every
mistake is an :class:`~rcfr.core.errors.RcfrError` with one line naming the key.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any

from ..core.errors import RcfrError
from ..core.names import EPISODIC
from ..solvers.options import ALL_ALGORITHMS, MAX_COUNT, OPTIONS, RUN, Option, solver_options

_INT, _FLOAT, _STR, _BOOL = "a whole number", "a number", "a string", "true or false"
_KINDS = {int: _INT, float: _FLOAT, str: _STR, bool: _BOOL}

# a run's fields beyond the solver's options (rcfr.solvers.options): what only a sweep sets
SPEC_OPTIONS: tuple[Option, ...] = (
    Option("share", float, "The regressor's leaves as a share of the game's sequences "
           "(Morrill 2016, ch. 4); give leaves or share.", group=RUN, low=0, low_open=True,
           high=1, bound="in (0, 1]"),
    Option("eval_log", int, "Evaluation points a decade, log-spaced up to the budget "
           "(instead of eval_every and eval_nodes).", group=RUN, low=0, high=1000),
    Option("eval_from", int, "With eval_log: no evaluation before this many iterations "
           "(nodes with a node budget).", group=RUN, high=MAX_COUNT),
    Option("release", bool, "true: the store keeps the run's figures but not its "
           "average strategy, and the run ends by turning the solver's tables into that "
           "strategy in place (rcfr.run.engine.drive's release: 2-NL Hold'em(40)'s sampled "
           "runs fit in 22 GB, and no strategy file of GBs is written).  Part of the run's "
           "identity: float32 tables give a float32 profile, whose figures differ from the "
           "float64 one's in the last digits.", group=RUN),
)
FIELDS: tuple[Option, ...] = (*OPTIONS, *SPEC_OPTIONS)  # a RunSpec's fields after the game
FIELD_KINDS = {"game": _STR, **{o.name: _KINDS[o.type] for o in FIELDS}}
_IDENTITY = {"game": True, **{o.name: o.identity for o in FIELDS}}


class _RunSpecMethods:
    """What a :class:`RunSpec` does; its fields come from the declarations."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None:
                if f.name == "game":
                    raise RcfrError("game: missing (a game string is required)")
                continue
            object.__setattr__(self, f.name, _coerce(f.name, value))
        object.__setattr__(self, "algorithm", self.algorithm.strip().lower())
        if self.algorithm not in ALL_ALGORITHMS:  # before anything runs, as a sweep expands
            raise RcfrError(f"algorithm: unknown algorithm {self.algorithm!r}; use one of "
                            f"{', '.join(ALL_ALGORITHMS)}")
        for o in FIELDS:  # a flag a run records only when on: off is the same run as unset
            if o.type is bool and not o.recorded and getattr(self, o.name) is False:
                object.__setattr__(self, o.name, None)
        if self.episodes is not None:  # the episodic algorithms' budget (rcfr.solvers.fp)
            if self.algorithm not in EPISODIC:
                raise RcfrError(f"episodes: the budget of {', '.join(EPISODIC)}; "
                                f"{self.algorithm} takes iterations or nodes")
            if self.iterations is not None or self.nodes is not None:
                raise RcfrError("episodes: give exactly one budget, episodes, iterations or "
                                "nodes")
        elif (self.iterations is None) == (self.nodes is None):
            raise RcfrError("iterations: give exactly one budget, iterations or nodes")
        for key in ("iterations", "nodes", "episodes"):
            value = getattr(self, key)
            if value is not None and value < 1:
                raise RcfrError(f"{key}: the budget must be at least 1, got {value}")
        for o in FIELDS:
            o.check(getattr(self, o.name), f"{o.name}:")
        if self.eval_log and (self.eval_every or self.eval_nodes):
            raise RcfrError("eval_log: give eval_log or eval_every/eval_nodes, not both")
        if self.eval_from is not None and (self.eval_from < 1 or not self.eval_log):
            raise RcfrError("eval_from: a whole number >= 1 that bounds an eval_log schedule "
                            "from below")
        if self.leaves is not None and self.share is not None:
            raise RcfrError("share: give leaves or share, not both")

    # -- identity --------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The fields that are set (``None`` omitted), in declaration order."""
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) is not None}

    def to_json(self) -> str:
        """Every field that is set, as sorted JSON (what a worker runs; the store keeps
        :meth:`canonical_json`)."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"),
                          allow_nan=False)

    def canonical_json(self) -> str:
        """The fields that define the run (options with ``identity=False``, such as the
        thread count, change how it runs, never its numbers), as sorted JSON; a node lock
        adds its files' digest (:func:`~rcfr.solvers.locking.lock_file_digest`: the same
        lock path with other contents is another run)."""
        data = {k: v for k, v in self.to_dict().items() if _IDENTITY[k]}
        if self.lock is not None:
            from ..solvers.locking import lock_file_digest  # (numba: only for a locked run)

            digest = lock_file_digest(self.lock)
            if digest is not None:
                data["lock_digest"] = digest
        return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)

    @functools.cached_property
    def hash(self) -> str:
        """The run's identity: 20 hex digits of the SHA-256 of its canonical JSON (computed
        once: a report asks it of every packaged spec's runs)."""
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()[:20]

    @classmethod
    def from_dict(cls, data: dict[str, Any], where: str = "") -> RunSpec:
        if not isinstance(data, dict):
            raise RcfrError(f"{where.rstrip('.') or 'run'}: expected a table of a run's "
                            f"fields, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise RcfrError(f"{where}{key}: unknown key; a run takes "
                                f"{', '.join(sorted(known))}")
        if data.get("game") is None:
            raise RcfrError(f"{where}game: missing (a game string is required)")
        try:
            return cls(**data)
        except RcfrError as exc:
            raise RcfrError(f"{where}{exc}") from None

    @classmethod
    def from_json(cls, text: str) -> RunSpec:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise RcfrError(f"not valid JSON: {' '.join(str(exc).split())[:120]}") from None
        return cls.from_dict(data)

    def replace(self, **changes: Any) -> RunSpec:
        return dataclasses.replace(self, **changes)

    def solver_options(self) -> dict[str, Any]:
        """Keyword options for :func:`rcfr.solvers.run.make_solver` (only those set)."""
        return solver_options(self.to_dict())

    def label(self) -> str:
        """A short human description (for progress lines and tables)."""
        parts = [self.algorithm, self.game]
        for key in ("rule", "abstraction", "regressor", "share", "leaves", "features", "link",
                    "form", "dtype"):
            value = getattr(self, key)
            if value is not None:
                parts.append(f"{key}={value}")
        if self.bootstrap:
            parts.append("bootstrap")
        budget = (f"{self.iterations:,} it" if self.iterations else
                  f"{self.episodes:,} episodes" if self.episodes else f"{self.nodes:.3g} nodes")
        return " ".join(parts) + f" {budget} seed {self.seed}"


def _field(o: Option) -> tuple[str, Any, Any]:
    kind = o.type if o.recorded else o.type | None
    return o.name, kind, dataclasses.field(default=o.default)


RunSpec = dataclasses.make_dataclass(
    "RunSpec", [("game", str), *map(_field, FIELDS)], bases=(_RunSpecMethods,), frozen=True)
RunSpec.__module__ = __name__  # pickles by name (Python 3.11's make_dataclass takes no module)
RunSpec.__doc__ = (
    "Everything that defines a run: the game and one field per option of "
    ":data:`rcfr.solvers.options.OPTIONS` (the algorithm and its options, the budget: "
    "``iterations`` or ``nodes`` visited, the seed, the evaluation schedule: every "
    "``eval_every`` iterations / ``eval_nodes`` nodes, 0: only at the end) and of "
    ":data:`SPEC_OPTIONS` (``share`` sets the regressor's leaves as a share of the game's "
    "sequences, Morrill 2016, ch. 4; ``eval_log``, ``eval_from``: a log-spaced evaluation "
    "schedule).\n\nFields: " + ", ".join(["game", *(o.name for o in FIELDS)]) + ".")


def _coerce(key: str, value: Any) -> Any:
    """``value`` as the field's type (whole floats such as ``1e9`` become ints), or an error
    naming ``key``."""
    kind = FIELD_KINDS[key]
    if kind == _BOOL:
        if isinstance(value, bool):
            return value
    elif kind == _STR:
        if isinstance(value, str) and value.strip():
            return value.strip()
    elif isinstance(value, bool):
        pass
    elif kind == _INT:
        if isinstance(value, int):
            return value
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            return int(value)
    elif isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    raise RcfrError(f"{key}: expected {kind}, got {value!r}")


def read_table(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RcfrError(f"{where}: expected a table, got {value!r}")
    return value


def check_value(key: str, value: Any, where: str) -> Any:
    try:
        return _coerce(key, value)
    except RcfrError as exc:
        raise RcfrError(f"{where}.{exc}") from None


MAX_SPEC_BYTES = 16 << 20  # a spec file is a few kilobytes


def read_spec_file(path: str | Path) -> dict[str, Any]:
    """A spec file: TOML, or JSON where it ends in ``.json``."""
    path = Path(path)
    if not path.is_file():
        raise RcfrError(f"no such spec file: {path}")
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_SPEC_BYTES + 1)
    except OSError as exc:
        raise RcfrError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_SPEC_BYTES:
        raise RcfrError(f"{path}: larger than {MAX_SPEC_BYTES >> 20} MB, not a spec file")
    try:
        text = raw.decode()
    except UnicodeDecodeError:
        raise RcfrError(f"{path}: not UTF-8 text") from None
    kind = "JSON" if path.suffix.lower() == ".json" else "TOML"
    try:
        data = json.loads(text) if kind == "JSON" else tomllib.loads(text)
    except (ValueError, RecursionError) as exc:  # TOMLDecodeError and JSONDecodeError too
        reason = "nested too deeply" if isinstance(exc, RecursionError) else \
            " ".join(str(exc).split())[:160]
        raise RcfrError(f"{path}: not valid {kind}: {reason}") from None
    if not isinstance(data, dict):
        raise RcfrError(f"{path}: expected a {kind} table (object), got {type(data).__name__}")
    return data


def load_run_spec(path: str | Path) -> RunSpec:
    """Read one run from TOML (or JSON, for a ``.json`` file): a RunSpec's fields at the top
    level (or in a ``[run]`` table); every mistake is one line naming the key."""
    data = read_spec_file(path)
    try:
        if set(data) == {"run"}:
            data = read_table(data["run"], "run")
        for key, value in data.items():
            if key in FIELD_KINDS:
                check_value(key, value, "run")
        return RunSpec.from_dict(data)
    except RcfrError as exc:
        raise RcfrError(f"{path}: {exc}") from None
