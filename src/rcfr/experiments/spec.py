"""Run specs and sweep specs: what defines a run, and TOML grids of runs.

A :class:`RunSpec` holds everything that defines one solver run, one field per option declared
in :mod:`rcfr.solvers.options` (plus a sweep's own: ``share``, ``eval_log``, ``eval_from``);
its canonical JSON (sorted keys, fields left at ``None`` omitted) is the run's identity and
:attr:`RunSpec.hash` its key in the results store.  A sweep spec is a TOML file::

    name = "thesis_4_1_quick"
    figure = "rcfr_complexity"      # the plot that reads it (optional)
    seeds = [0]                      # or a count: seeds = 5 -> 0..4
    max_memory = "20G"               # each run's memory budget (optional; rcfr.core.budget)
    fresh_workers = true             # each run in a new process (optional: games of GBs)
    [base]                           # a RunSpec's fields
    game = "leduc(canonical=true)"
    iterations = 1000
    [grid]                           # cartesian product
    share = [0.1, 0.3, 0.5]
    [zip]                            # lists of one length, taken together
    algorithm = ["rcfr", "rcfr+"]
    bootstrap = [false, true]
    [[part]]                         # more grids on the same base (own base/grid/zip/seeds)
    base = { algorithm = "cfr+", averaging = "uniform" }

A budget (``iterations``, ``nodes`` or ``episodes``) set by a part, a grid or a zip replaces
the base's.  Every mistake is an :class:`~rcfr.core.errors.RcfrError` with one line naming the key.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import json
import math
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ..core.budget import parse_memory
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
           "strategy in place (rcfr.solvers.run.solve's release: 2-NL Hold'em(40)'s sampled "
           "runs fit in 22 GB, and no strategy file of GBs is written).  Part of the run's "
           "identity: float32 tables give a float32 profile, whose figures differ from the "
           "float64 one's in the last digits.", group=RUN),
)
FIELDS: tuple[Option, ...] = (*OPTIONS, *SPEC_OPTIONS)  # a RunSpec's fields after the game
_TYPES = {"game": _STR, **{o.name: _KINDS[o.type] for o in FIELDS}}
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
        thread count, change how it runs, never its numbers), as sorted JSON."""
        data = {k: v for k, v in self.to_dict().items() if _IDENTITY[k]}
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
    kind = _TYPES[key]
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


# -- sweep specs ----------------------------------------------------------------------------
@dataclass(frozen=True)
class SweepSpec:
    """A parsed sweep spec: its runs in expansion order (duplicates removed)."""

    name: str
    runs: tuple[RunSpec, ...]
    figure: str | None = None
    description: str = ""
    path: str | None = None
    max_memory: str | None = None  # each run's memory budget, e.g. "20G" (not its identity)
    fresh_workers: bool = False  # each run in a new worker process (the local backend)

    def hashes(self) -> list[str]:
        return list(self._hashes)

    @functools.cached_property
    def _hashes(self) -> tuple[str, ...]:
        return tuple(r.hash for r in self.runs)


MAX_RUNS = 100_000  # runs a sweep spec may expand to (counted before expanding)
_TOP_KEYS = {"name", "figure", "description", "seeds", "base", "grid", "zip", "part",
             "max_memory", "fresh_workers"}
_PART_KEYS = {"base", "grid", "zip", "seeds", "name"}


def _table(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise RcfrError(f"{where}: expected a table, got {value!r}")
    return value


def _seeds(value: Any, where: str) -> list[int]:
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise RcfrError(f"{where}: the number of seeds must be at least 1, got {value}")
        if value > MAX_RUNS:
            raise RcfrError(f"{where}: at most {MAX_RUNS:,} seeds (a sweep spec expands to "
                            f"at most {MAX_RUNS:,} runs), got {value:,}")
        return list(range(value))
    if isinstance(value, list) and value and all(
            isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in value):
        return list(dict.fromkeys(value))
    raise RcfrError(f"{where}: expected a count >= 1 or a non-empty list of whole numbers >= 0, "
                    f"got {value!r}")


def _axes(table: Any, where: str, same_length: bool) -> list[tuple[str, list]]:
    table = _table(table, where)
    if not table:
        raise RcfrError(f"{where}: empty (give at least one key with a list of values)")
    known = set(_TYPES)
    axes = []
    for key, values in table.items():
        if key not in known:
            raise RcfrError(f"{where}.{key}: unknown key; a run takes {', '.join(sorted(known))}")
        if not isinstance(values, list) or not values:
            raise RcfrError(f"{where}.{key}: expected a non-empty list, got {values!r}")
        axes.append((key, [_check(key, v, where) for v in values]))
    if same_length and len({len(v) for _, v in axes}) > 1:
        sizes = ", ".join(f"{k}: {len(v)}" for k, v in axes)
        raise RcfrError(f"{where}: the lists must have one length ({sizes})")
    return axes


def _check(key: str, value: Any, where: str) -> Any:
    try:
        return _coerce(key, value)
    except RcfrError as exc:
        raise RcfrError(f"{where}.{exc}") from None


BUDGETS = ("iterations", "nodes", "episodes")  # a run has exactly one


def _over(base: dict, over: dict) -> dict:
    """``base`` with ``over``'s fields; a budget in ``over`` replaces ``base``'s budget (a
    part or a grid of node budgets over a base of iterations)."""
    if any(over.get(k) is not None for k in BUDGETS):
        base = {k: v for k, v in base.items() if k not in BUDGETS}
    return {**base, **over}


def _expand(base: dict, grid: Any, zipped: Any, seeds: list[int], where: str,
            counted: list[int]) -> list[RunSpec]:
    """The runs of one grid (``counted[0]``: the runs expanded so far in the spec, bounded by
    :data:`MAX_RUNS`)."""
    grid_axes = _axes(grid, f"{where}grid", False) if grid is not None else []
    zip_axes = _axes(zipped, f"{where}zip", True) if zipped is not None else []
    keys = [k for k, _ in grid_axes] + [k for k, _ in zip_axes]
    for key in keys:
        if keys.count(key) > 1:
            raise RcfrError(f"{where}zip.{key}: given in both grid and zip")
    if "seed" in keys:
        raise RcfrError(f"{where}grid.seed: use the top-level seeds list")
    count = len(seeds) * (len(zip_axes[0][1]) if zip_axes else 1)
    for _, values in grid_axes:
        count *= len(values)
    if count + counted[0] > MAX_RUNS:  # checked before anything is expanded
        raise RcfrError(f"{where or ''}grid: the spec expands to more than {MAX_RUNS:,} runs "
                        f"({count + counted[0]:,}); split it into several specs")
    counted[0] += count
    zip_rows = list(zip(*[v for _, v in zip_axes], strict=True)) if zip_axes else [()]
    runs = []
    for combo in itertools.product(*[v for _, v in grid_axes]):
        for row in zip_rows:
            values = _over(base, {**dict(zip([k for k, _ in grid_axes], combo, strict=True)),
                                  **dict(zip([k for k, _ in zip_axes], row, strict=True))})
            for seed in seeds:
                values["seed"] = seed
                runs.append(RunSpec.from_dict(values, where=where))
    return runs


def parse_sweep(data: dict[str, Any], name: str = "sweep", path: str | None = None) -> SweepSpec:
    """Expand a sweep spec read from TOML (see the module docstring)."""
    for key in data:
        if key not in _TOP_KEYS:
            raise RcfrError(f"{key}: unknown key; a sweep spec takes "
                            f"{', '.join(sorted(_TOP_KEYS))}")
    for key in ("name", "figure", "description", "max_memory"):
        if key in data and not isinstance(data[key], str):
            raise RcfrError(f"{key}: expected a string, got {data[key]!r}")
    if "name" in data:
        check_name(data["name"])
    if "max_memory" in data:
        parse_memory(data["max_memory"])  # e.g. "20G": checked here, judged in each run
    if not isinstance(data.get("fresh_workers", False), bool):
        raise RcfrError(f"fresh_workers: expected true or false, got {data['fresh_workers']!r}")
    base = _table(data.get("base", {}), "base")
    for key in base:
        if key not in _TYPES:
            raise RcfrError(f"base.{key}: unknown key; a run takes {', '.join(sorted(_TYPES))}")
        _check(key, base[key], "base")
    if "seed" in base:  # base.seed is every run's seed (not 0)
        seed = _check("seed", base["seed"], "base")
        if "seeds" in data and _seeds(data["seeds"], "seeds") != [seed]:
            raise RcfrError("base.seed: give base.seed (every run's seed) or seeds, not both")
        data = {**data, "seeds": [seed]}
    seeds = _seeds(data.get("seeds", [0]), "seeds")
    counted = [0]
    parts = data.get("part", [])
    if not isinstance(parts, list):
        raise RcfrError("part: expected an array of tables ([[part]])")
    if "grid" not in data and "zip" not in data and not parts:
        raise RcfrError("grid: missing (a sweep needs a [grid], a [zip] or [[part]] tables)")
    runs: list[RunSpec] = []
    if "grid" in data or "zip" in data or not parts:
        runs += _expand(base, data.get("grid"), data.get("zip"), seeds, "", counted)
    for k, part in enumerate(parts):
        where = f"part[{k}]."
        part = _table(part, f"part[{k}]")
        for key in part:
            if key not in _PART_KEYS:
                raise RcfrError(f"{where}{key}: unknown key; a part takes "
                                f"{', '.join(sorted(_PART_KEYS))}")
        over = _table(part.get("base", {}), f"{where}base")
        for key in over:
            if key not in _TYPES:
                raise RcfrError(f"{where}base.{key}: unknown key")
            _check(key, over[key], f"{where}base")
        part_seeds = _seeds(part["seeds"], f"{where}seeds") if "seeds" in part else seeds
        if "seed" in over:  # the part's runs' seed, as base.seed is the sweep's
            if "seeds" in part and part_seeds != [over["seed"]]:
                raise RcfrError(f"{where}base.seed: give {where}base.seed or {where}seeds, "
                                f"not both")
            part_seeds = [over["seed"]]
        if "grid" not in part and "zip" not in part:
            counted[0] += len(part_seeds)
            if counted[0] > MAX_RUNS:
                raise RcfrError(f"{where}seeds: the spec expands to more than {MAX_RUNS:,} "
                                f"runs; split it into several specs")
            runs += [RunSpec.from_dict({**_over(base, over), "seed": s}, where=f"{where}base.")
                     for s in part_seeds]
        else:
            runs += _expand(_over(base, over), part.get("grid"), part.get("zip"), part_seeds,
                            where, counted)
    unique = list({r.hash: r for r in runs}.values())
    return SweepSpec(data.get("name", name), tuple(unique), data.get("figure"),
                     data.get("description", ""), path, data.get("max_memory"),
                     data.get("fresh_workers", False))


def check_name(name: str) -> str:
    """A sweep's name names its files (``figure`` writes ``NAME.png``): a plain file name."""
    if (not name.strip() or len(name) > 200 or name.startswith(".") or "/" in name
            or "\\" in name or any(not c.isprintable() for c in name)):
        raise RcfrError(f"name: expected a plain file name (no folders, no leading dot, no "
                        f"control characters), got {name[:60]!r}")
    return name


MAX_SPEC_BYTES = 16 << 20  # a spec file is a few kilobytes


def _read_toml(path: str | Path) -> dict[str, Any]:
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


def load_sweep(path: str | Path) -> SweepSpec:
    """Read and expand a sweep spec file; errors name the file and the key."""
    data = _read_toml(path)
    try:
        return parse_sweep(data, Path(path).stem, str(path))
    except RcfrError as exc:
        raise RcfrError(f"{path}: {exc}") from None


def load_run_spec(path: str | Path) -> RunSpec:
    """Read one run from TOML (or JSON, for a ``.json`` file): a RunSpec's fields at the top
    level (or in a ``[run]`` table); every mistake is one line naming the key."""
    data = _read_toml(path)
    try:
        if set(data) == {"run"}:
            data = _table(data["run"], "run")
        for key, value in data.items():
            if key in _TYPES:
                _check(key, value, "run")
        return RunSpec.from_dict(data)
    except RcfrError as exc:
        raise RcfrError(f"{path}: {exc}") from None
