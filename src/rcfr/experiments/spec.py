"""Run specs and sweep specs: what defines a run, and TOML grids of runs.

A run is a :class:`~rcfr.run.spec.RunSpec` (:mod:`rcfr.run.spec`: its fields, its identity and
its hash).  A sweep spec is a TOML file::

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

import functools
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.budget import parse_memory
from ..core.errors import RcfrError
from ..run.spec import (  # noqa: F401 (RunSpec, load_run_spec, SPEC_OPTIONS: re-exported)
    FIELD_KINDS,
    SPEC_OPTIONS,
    RunSpec,
    check_value,
    load_run_spec,
    read_spec_file,
    read_table,
)


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
    table = read_table(table, where)
    if not table:
        raise RcfrError(f"{where}: empty (give at least one key with a list of values)")
    known = set(FIELD_KINDS)
    axes = []
    for key, values in table.items():
        if key not in known:
            raise RcfrError(f"{where}.{key}: unknown key; a run takes {', '.join(sorted(known))}")
        if not isinstance(values, list) or not values:
            raise RcfrError(f"{where}.{key}: expected a non-empty list, got {values!r}")
        axes.append((key, [check_value(key, v, where) for v in values]))
    if same_length and len({len(v) for _, v in axes}) > 1:
        sizes = ", ".join(f"{k}: {len(v)}" for k, v in axes)
        raise RcfrError(f"{where}: the lists must have one length ({sizes})")
    return axes


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
    base = read_table(data.get("base", {}), "base")
    for key in base:
        if key not in FIELD_KINDS:
            raise RcfrError(f"base.{key}: unknown key; a run takes "
                            f"{', '.join(sorted(FIELD_KINDS))}")
        check_value(key, base[key], "base")
    if "seed" in base:  # base.seed is every run's seed (not 0)
        seed = check_value("seed", base["seed"], "base")
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
        part = read_table(part, f"part[{k}]")
        for key in part:
            if key not in _PART_KEYS:
                raise RcfrError(f"{where}{key}: unknown key; a part takes "
                                f"{', '.join(sorted(_PART_KEYS))}")
        over = read_table(part.get("base", {}), f"{where}base")
        for key in over:
            if key not in FIELD_KINDS:
                raise RcfrError(f"{where}base.{key}: unknown key")
            check_value(key, over[key], f"{where}base")
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


def load_sweep(path: str | Path) -> SweepSpec:
    """Read and expand a sweep spec file; errors name the file and the key."""
    data = read_spec_file(path)
    try:
        return parse_sweep(data, Path(path).stem, str(path))
    except RcfrError as exc:
        raise RcfrError(f"{path}: {exc}") from None
