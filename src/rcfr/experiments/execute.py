"""Run one :class:`~rcfr.experiments.spec.RunSpec` to completion, resuming from its
checkpoint: the work of one sweep task, on a local worker process or a Ray worker.

The solver loop is :func:`rcfr.solvers.run.solve`; this module only builds the solver from the
spec, resumes it from ``<hash>.ckpt.npz`` in the run directory (with the curve points measured
before the checkpoint, kept in ``<hash>.curve.json``), and returns a plain dict for the store.
A resumed run gives the same strategy and curve as an uninterrupted one, bit for bit (the
solvers' checkpoints are exact and evaluation depends only on the iteration).
"""

from __future__ import annotations

import json
import math
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.errors import RcfrError
from ..core.fileio import write_json
from .spec import RunSpec


def checkout_root(package: Path | None = None) -> Path | None:
    """The source checkout rcfr runs from (``ROOT/src/rcfr``, ``ROOT/pyproject.toml`` naming
    rcfr), or None for an installed rcfr: a site-packages inside some other project's folder
    never borrows that project's git.  ``package``: rcfr's package folder (default: this
    one's)."""
    import tomllib

    if package is None:
        package = Path(__file__).resolve().parents[len(__package__.split(".")) - 1]
    if package.name != "rcfr" or package.parent.name != "src":
        return None
    root = package.parent.parent
    try:
        with (root / "pyproject.toml").open("rb") as handle:
            name = tomllib.load(handle).get("project", {}).get("name")
    except (OSError, ValueError, AttributeError):  # none, unreadable or not TOML
        return None
    return root if name == "rcfr" else None


def git_commit(root: Path) -> str | None:
    """The commit checked out at ``root`` (read from ``root/.git``, no git needed), or None."""
    head = root / ".git"
    try:
        if head.is_file():  # a worktree: "gitdir: PATH"
            head = root / head.read_text().split(":", 1)[1].strip()
        ref = (head / "HEAD").read_text().strip()
        if ref.startswith("ref:"):
            name = ref.split(" ", 1)[1].strip()
            common = head / "commondir"
            base = head / common.read_text().strip() if common.is_file() else head
            for path in (head / name, base / name):
                if path.is_file():
                    ref = path.read_text().strip()
                    break
            else:  # packed: "HASH REF" lines
                packed = (base / "packed-refs").read_text().splitlines()
                ref = next(line.split()[0] for line in packed
                           if line.endswith(f" {name}") and not line.startswith("#"))
        if len(ref) < 10 or any(c not in "0123456789abcdef" for c in ref):
            return None
        return ref
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def code_version() -> str:
    """rcfr's version (package metadata, e.g. ``0.1.0``), with the git commit when running
    from a source checkout (``0.1.0+g0123456789``); never fails."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        text = version("rcfr")
    except (PackageNotFoundError, ValueError):  # not installed
        text = "unknown"
    root = checkout_root()
    commit = git_commit(root) if root is not None else None
    return f"{text}+g{commit[:10]}" if commit else text


def _solver_options(spec: RunSpec, tree) -> dict[str, Any]:
    options = spec.solver_options()
    if spec.share is not None:
        options["leaves"] = max(2, round(spec.share * tree.num_sequences))
    return options


_COMPILED: dict[tuple[str, str, str], Any] = {}  # this process's last compiled game


def _compiled(spec: RunSpec, max_memory: str | int | None):
    """``spec``'s compiled game, kept for the next run of this worker process: a sweep's runs
    of one large game (2-NL Hold'em(36) compiles in minutes) compile it once.  The previous
    game is dropped before another one is compiled, so only one is held."""
    from ..forms.compile import compile_game

    key = (spec.game, spec.form or "auto", spec.dtype or "float64")
    if key not in _COMPILED:
        _COMPILED.clear()
        _COMPILED[key] = compile_game(spec.game, spec.form or "auto", max_memory,
                                      dtype=spec.dtype)
    return _COMPILED[key]


def _build(spec: RunSpec, max_memory: str | int | None = None):
    """The compiled game and a fresh solver for ``spec`` (abstractions and update rules are
    passed on only when the spec sets them); ``max_memory``: the memory guard's budget."""
    from ..solvers.run import make_solver

    tree = _compiled(spec, max_memory)
    return tree, make_solver(tree, spec.algorithm, **_solver_options(spec, tree))


def execute(spec: RunSpec | str, directory: str | os.PathLike, *,
            checkpoint_every: float = 60.0,
            should_stop: Callable[[], bool] | None = None,
            max_memory: str | int | None = None) -> dict[str, Any]:
    """Run ``spec`` (a RunSpec or its canonical JSON), checkpointing into ``directory``; return
    the store's row: ``hash``, ``status`` (done, interrupted or failed with ``error``), final
    figures, ``points`` and ``strategy`` (the average strategy's ``.npz`` bytes).  Never
    raises for a bad spec or a failing solver: the error is in the result.  ``max_memory``:
    the memory guard's budget (:mod:`rcfr.core.budget`; not part of the run's identity)."""
    t0 = time.time()
    if isinstance(spec, str):
        spec = RunSpec.from_json(spec)
    out: dict[str, Any] = {"hash": spec.hash, "host": platform.node(),
                           "code_version": code_version(), "started": t0, "points": []}
    try:
        out.update(_execute(spec, Path(directory), checkpoint_every, should_stop, max_memory))
    except RcfrError as exc:
        out.update(status="failed", error=str(exc))
    except Exception as exc:  # a bug or a missing feature: recorded, the sweep goes on
        text = " ".join(str(exc).split())
        out.update(status="failed", error=f"{type(exc).__name__}: {text}"[:2000])
    out["wall_seconds"] = time.time() - t0
    return out


def _execute(spec: RunSpec, directory: Path, checkpoint_every: float,
             should_stop: Callable[[], bool] | None,
             max_memory: str | int | None = None) -> dict[str, Any]:
    from ..evaluate import evaluate
    from ..solvers.run import solve

    if spec.abstraction is not None:
        return _execute_abstraction(spec)
    tree, solver = _build(spec, max_memory)
    ckpt = directory / f"{spec.hash}.ckpt.npz"
    curve_file = directory / f"{spec.hash}.curve.json"
    points: list[dict[str, Any]] = []
    seconds0 = 0.0
    resumed_from = None
    if ckpt.is_file():
        solver.load_checkpoint(ckpt)
        resumed_from = solver.iteration
        if curve_file.is_file():
            saved = json.loads(curve_file.read_text())
            points = [p for p in saved["points"] if p["iterations"] <= solver.iteration]
            seconds0 = float(saved.get("seconds", 0.0))
    solver._setup()  # kernels load outside the measured time, as in solve()
    clock = time.perf_counter()

    def on_chunk(done: int, expl: float | None) -> None:
        if expl is None:
            return
        points.append({"iterations": solver.iteration, "nodes": solver.nodes_visited,
                       "seconds": seconds0 + time.perf_counter() - clock,
                       "exploitability": float(expl), "value": None})
        write_json(curve_file, {"points": points,
                                "seconds": seconds0 + time.perf_counter() - clock})

    by_nodes = spec.iterations is None
    total = spec.nodes if by_nodes else spec.iterations
    done = (lambda: solver.nodes_visited) if by_nodes else (lambda: solver.iteration)
    # one solve() call per segment: up to each log-spaced evaluation point, then the budget
    targets = [t for t in log_schedule(total, spec.eval_log or 0)
               if t > done() and t >= (spec.eval_from or 0)]
    if not targets or targets[-1] != total:
        targets.append(total)
    interrupted = False
    result = None
    for target in targets:
        if target <= done():
            continue
        budget = {"nodes": target - done()} if by_nodes else {"iterations": target - done()}
        result = solve(tree, spec.algorithm, eval_every=spec.eval_every,
                       eval_nodes=spec.eval_nodes, solver=solver, callback=on_chunk,
                       checkpoint=ckpt, checkpoint_every=checkpoint_every,
                       should_stop=should_stop, **budget)
        if result.interrupted:
            interrupted = True
            break
        if spec.eval_log and not (points and points[-1]["iterations"] == solver.iteration):
            on_chunk(0, result.evaluation.exploitability)
    if result is not None and not interrupted:
        evaluation, policy = result.evaluation, result.policy
    else:
        policy = solver.average_policy()
        evaluation = evaluate(tree, policy)
    seconds = seconds0 + time.perf_counter() - clock
    if not interrupted and points and points[-1]["iterations"] == solver.iteration:
        points[-1]["value"] = float(evaluation.value)
    out = {"status": "interrupted" if interrupted else "done", "error": None,
           "seconds": seconds, "iterations": solver.iteration, "nodes": solver.nodes_visited,
           "value": float(evaluation.value), "exploitability": float(evaluation.exploitability),
           "complexity": getattr(solver, "complexity", None),
           "complexity_share": getattr(solver, "complexity_share", None),
           "resumed_from": resumed_from, "points": points}
    if not interrupted:
        out["strategy"] = _policy_bytes(policy)
        for path in (ckpt, curve_file):  # the run is complete: its strategy is what stays
            path.unlink(missing_ok=True)
    return out


def _execute_abstraction(spec: RunSpec) -> dict[str, Any]:
    """A run on an abstraction (issue 12): ``solve(..., abstraction=NAME)`` solves the abstract
    game and returns the full-game strategy; it runs in one piece (no resume)."""
    from ..api import solve
    from ..forms.compile import compile_game

    tree = compile_game(spec.game)
    options = _solver_options(spec, tree)
    budget = ({"iterations": spec.iterations} if spec.iterations is not None
              else {"nodes": spec.nodes})
    result = solve(tree, spec.algorithm, eval_every=spec.eval_every,
                   eval_nodes=spec.eval_nodes, **budget, **options)
    info = result.to_dict()
    points = [{"iterations": it, "nodes": n, "seconds": None, "exploitability": float(e),
               "value": None} for (it, e), n in zip(result.curve, result.curve_nodes,
                                                      strict=False)]
    return {"status": "done", "error": None, "seconds": result.seconds,
            "iterations": result.iterations, "nodes": info.get("nodes_visited"),
            "value": float(result.evaluation.value),
            "exploitability": float(result.evaluation.exploitability),
            "complexity": info.get("complexity"), "complexity_share": info.get("complexity_share"),
            "resumed_from": None, "points": points, "strategy": _policy_bytes(result.policy)}


def log_schedule(budget: int, per_decade: int) -> list[int]:
    """``per_decade`` evaluation points a decade, evenly spaced in log scale, up to
    ``budget`` (included) over at most six decades; none for ``per_decade = 0``."""
    if per_decade <= 0:
        return []
    decades = min(6.0, math.log10(budget))
    count = int(round(decades * per_decade))
    return sorted({max(1, round(budget * 10 ** (-k / per_decade))) for k in range(count + 1)})


def _policy_bytes(policy) -> bytes:
    """The policy's ``.npz`` file as bytes (the same file :meth:`TabularPolicy.save`
    writes)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "policy.npz"
        policy.save(path)
        return path.read_bytes()
