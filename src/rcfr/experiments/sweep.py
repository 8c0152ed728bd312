"""Sweeps: expand a spec, skip what the store has, run the rest, record every result.

The driver (this module) is the only writer of the store; workers return result dicts.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..core.budget import parse_memory
from ..core.errors import RcfrError
from ..core.fileio import write_atomic
from .execute import code_version
from .runners import BACKENDS, run_inline, run_local, run_ray
from .spec import RunSpec, SweepSpec
from .store import Store, driver_id

Progress = Callable[[dict[str, int], str], None]


@dataclass
class Plan:
    """What a sweep would do: the runs to run (``todo``) and those the store already has."""

    sweep: SweepSpec
    todo: list[RunSpec]
    complete: int
    retry: int  # failed or interrupted before
    nodes: int | None  # estimated histories visited by ``todo`` (None: unknown)
    seconds: float | None  # estimated from similar runs in the store (None: no such runs)
    repeats: int = 0  # runs that differ from another only by a seed their algorithm ignores

    def describe(self) -> str:
        text = (f"{self.sweep.name}: {len(self.sweep.runs)} runs, {self.complete} already "
                f"done, {len(self.todo)} to run")
        if self.retry:
            text += f" ({self.retry} failed or interrupted before)"
        if self.nodes:
            text += f"; about {self.nodes:.2g} nodes"
        if self.seconds is not None:
            text += f", about {_duration(self.seconds)} of CPU time"
        if self.repeats:
            text += (f"\nnote: {self.repeats} of its runs differ from another only by the "
                     f"seed, which full-width tabular CFR ignores: they give identical results")
        return text


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


PLAN_MEMORY = 16 << 20  # a plan compiles only games this small to count their histories


def _game_size(game: str) -> int | None:
    """The histories of ``game``: its closed form where it has one, else counted by compiling
    it if it is small (the memory guard stops the walk of a larger one at once); None where
    unknown.  A plan never compiles a large game."""
    from ..core.budget import estimate_size
    from ..games.registry import load_game

    try:
        loaded = load_game(game)
        estimate = estimate_size(loaded)
        if estimate is not None and not estimate.at_least:
            return int(estimate.histories)
        from ..forms.compile import compile_game

        return compile_game(loaded, "history", PLAN_MEMORY).num_nodes
    except Exception:  # too large to count here, or a bad game string (check_runs names it)
        return None


def _estimate_nodes(spec: RunSpec, sizes: dict[str, int | None]) -> int | None:
    if spec.nodes is not None:
        return spec.nodes
    if spec.game not in sizes:
        sizes[spec.game] = _game_size(spec.game)
    size = sizes[spec.game]
    if size is None or spec.iterations is None or spec.algorithm in ("cs", "os", "as", "es"):
        return None
    return 2 * spec.iterations * size


def plan(sweep: SweepSpec, store: Store) -> Plan:
    status = store.statuses(sweep.hashes())
    damaged = [h for h in sweep.hashes() if h in store.damaged]
    if damaged:  # never run over (nor record into) a row that cannot be read back
        h = damaged[0]
        more = f" (and {len(damaged) - 1} more of its runs)" if len(damaged) > 1 else ""
        raise RcfrError(f"{store.path}: run {h} of this sweep is damaged{more}: "
                        f"{store.damaged[h]}; delete its row to run it again (sqlite3 "
                        f"{store.path} \"DELETE FROM runs WHERE hash = '{h}'\") or give "
                        f"another --db")
    todo = [r for r in sweep.runs if status.get(r.hash) != "done"]
    # runs that started before first (they resume), then one seed of every cell before the
    # next seed, so a figure fills in evenly while a long sweep runs
    seeds = {s: k for k, s in enumerate(dict.fromkeys(r.seed for r in sweep.runs))}
    order = {r.hash: k for k, r in enumerate(todo)}
    todo.sort(key=lambda r: (status.get(r.hash) not in ("running", "interrupted"),
                             seeds[r.seed], order[r.hash]))
    retry = sum(status.get(r.hash) in ("failed", "interrupted") for r in todo)
    sizes: dict[str, int | None] = {}
    estimates = [_estimate_nodes(r, sizes) for r in todo]
    nodes = sum(e for e in estimates if e) or None
    # seconds: the mean of done runs in the store with the same game, algorithm and budget
    seen: dict[tuple, float] = {}
    for row in store.runs(where={"status": "done"}):
        s = row["spec"]
        key = (s.get("game"), s.get("algorithm"), s.get("iterations"), s.get("nodes"))
        if row["seconds"] is not None:
            seen.setdefault(key, row["seconds"])
    seconds: float | None = None
    keys = [(r.game, r.algorithm, r.iterations, r.nodes) for r in todo]
    if todo and all(k in seen for k in keys):
        seconds = sum(seen[k] for k in keys)
    return Plan(sweep, todo, len(sweep.runs) - len(todo), retry, nodes, seconds,
                _seed_repeats(sweep.runs))


def check_runs(runs: list[RunSpec]) -> None:
    """Refuse ``runs`` if any would fail before its first iteration
    (:func:`rcfr.run.engine.check_spec`, what a run checks, without compiling a game): one error
    line naming the first such run and how many there are."""
    from ..run.engine import check_spec

    errors: dict[str, str | None] = {}  # by the run without its seed: one check a setting
    failing = []
    for r in runs:
        key = r.replace(seed=0).hash
        if key not in errors:
            try:
                check_spec(r)
                errors[key] = None
            except RcfrError as exc:
                errors[key] = str(exc)
        if errors[key] is not None:
            failing.append((r, errors[key]))
    if failing:
        r, message = failing[0]
        raise RcfrError(f"{len(failing)} of {len(runs)} runs would fail; the first, run "
                        f"{r.hash[:12]} ({r.label()}): {message}")


def _seed_repeats(runs: tuple[RunSpec, ...]) -> int:
    """How many ``runs`` repeat another but for the seed, where the algorithm is full-width
    tabular CFR (deterministic: the seed is only recorded)."""
    from ..solvers.loop import ALGORITHMS

    seen: set[str] = set()
    repeats = 0
    for r in runs:
        if r.algorithm not in ALGORITHMS or r.regressor is not None:
            continue
        key = r.replace(seed=0).hash
        repeats += key in seen
        seen.add(key)
    return repeats


@dataclass
class SweepSummary:
    ran: int = 0
    done: int = 0
    failed: int = 0
    interrupted: int = 0
    skipped: int = 0  # held by another sweep driver on the store, or done by it meanwhile
    seconds: float = 0.0
    errors: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"ran": self.ran, "done": self.done, "failed": self.failed,
                "interrupted": self.interrupted, "skipped": self.skipped,
                "seconds": self.seconds,
                "errors": self.errors}


def run_sweep(sweep: SweepSpec | Plan, store: Store, *, workers: int = 1,
              backend: str = "local", ray_address: str | None = None,
              checkpoint_every: float = 60.0,
              progress: Progress | None = None,
              max_memory: str | int | None = None) -> SweepSummary:
    """Run the runs of ``sweep`` that the store does not have complete on ``backend``
    (``local`` processes, ``ray`` tasks, or ``inline`` in this process); return counts.
    Ctrl-C marks the runs in flight ``interrupted`` (they resume from their checkpoints).
    ``max_memory``: each run's memory budget (default: the sweep spec's ``max_memory``, else
    :mod:`rcfr.core.budget`'s default, judged in each worker)."""
    if backend not in (*BACKENDS, "inline"):
        raise RcfrError(f"unknown backend {backend!r}; use {' or '.join(BACKENDS)}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise RcfrError(f"workers must be a whole number >= 1, got {workers!r}")
    if not checkpoint_every > 0:
        raise RcfrError(f"checkpoint-every must be positive, got {checkpoint_every!r}")
    sweep_spec = sweep.sweep if isinstance(sweep, Plan) else sweep
    if max_memory is None:
        max_memory = sweep_spec.max_memory
    if max_memory is not None:
        max_memory = parse_memory(max_memory)
    the_plan = sweep if isinstance(sweep, Plan) else plan(sweep, store)
    todo = the_plan.todo
    summary = SweepSummary()
    if not todo:
        return summary
    store.queue(todo)
    directory = store.ensure_files()
    version = code_version()
    running: set[str] = set()
    counts = {"done": 0, "failed": 0, "remaining": len(todo), "total": len(todo)}
    t0 = time.perf_counter()

    owner = driver_id()

    def on_start(spec: RunSpec) -> bool:
        """Claim the run (False: another driver holds it or has done it: skipped)."""
        if not store.claim(spec.hash, version, owner):
            summary.skipped += 1
            counts["remaining"] -= 1
            if progress is not None:
                progress(dict(counts), f"skipped: {spec.hash[:8]}")
            return False
        running.add(spec.hash)
        return True

    def on_result(result: dict[str, Any]) -> None:
        h = result["hash"]
        running.discard(h)
        strategy = result.pop("strategy", None)
        if strategy is not None:
            write_atomic(store.strategy_path(h), lambda handle: handle.write(strategy))
        store.record(result)
        summary.ran += 1
        status = result["status"]
        if status == "done":
            summary.done += 1
        elif status == "failed":
            summary.failed += 1
            summary.errors[h] = result.get("error") or ""
        else:
            summary.interrupted += 1
        counts["done" if status == "done" else "failed"] += 1
        counts["remaining"] -= 1
        if progress is not None:
            progress(dict(counts), f"{status}: {h[:8]}")

    if progress is not None:
        progress(dict(counts), "")
    try:
        if backend == "inline":
            run_inline(todo, directory, checkpoint_every=checkpoint_every, on_start=on_start,
                       on_result=on_result, max_memory=max_memory)
        elif backend == "local":
            run_local(todo, directory, workers=workers, checkpoint_every=checkpoint_every,
                      on_start=on_start, on_result=on_result, max_memory=max_memory,
                      fresh_workers=sweep_spec.fresh_workers)
        else:
            run_ray(todo, directory, workers=workers, checkpoint_every=checkpoint_every,
                    on_start=on_start, on_result=on_result, address=ray_address,
                    max_memory=max_memory)
    except KeyboardInterrupt:
        store.mark(sorted(running), "interrupted", "stopped by the user")
        raise
    finally:
        summary.seconds = time.perf_counter() - t0
    return summary
