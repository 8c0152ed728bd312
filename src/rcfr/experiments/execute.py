"""A sweep's run: :func:`execute` runs one :class:`~rcfr.run.spec.RunSpec` through the run
engine (:func:`rcfr.run.engine.run_spec`, as ``rcfr solve`` does), resuming from
``<hash>.ckpt.npz`` in the run directory (with the curve points measured before the
checkpoint, kept in ``<hash>.curve.json``), and returns a plain dict for the store, with the
code version that ran it.
"""

from __future__ import annotations

import gc
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..core.errors import RcfrError
from ..run.spec import RunSpec


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
    """A sweep's run: :func:`run_spec` checkpointing to ``<hash>.ckpt.npz`` (its curve in
    ``<hash>.curve.json``) and resuming from there; the store's row."""
    from ..run.engine import RunHooks, run_spec  # (the numerical core: not for --help)

    gc.collect()  # a worker's previous run's tables (cycles would keep them beside this one;
    # collected here, not after that run, so its result reached the driver at once)
    ckpt = directory / f"{spec.hash}.ckpt.npz"
    curve_file = directory / f"{spec.hash}.curve.json"
    run = run_spec(spec, RunHooks(should_stop=should_stop, checkpoint=ckpt,
                                  checkpoint_every=checkpoint_every,
                                  resume=ckpt if ckpt.is_file() else None,
                                  curve_file=curve_file, max_memory=max_memory,
                                  keep_compiled=True))
    solver, evaluation = run.solver, run.evaluation
    out = {"status": "interrupted" if run.interrupted else "done", "error": None,
           "seconds": run.wall_seconds, "iterations": solver.iteration,
           "nodes": solver.nodes_visited, "value": float(evaluation.value),
           "exploitability": float(evaluation.exploitability),
           "complexity": run.complexity, "complexity_share": run.complexity_share,
           "regression_error": getattr(getattr(solver, "estimator_", None), "error_", None),
           "resumed_from": run.resumed_from, "points": run.points}
    if not run.interrupted:
        if run.policy is not None:  # (none kept where the run released its tables)
            out["strategy"] = _policy_bytes(run.policy)
        for path in (ckpt, curve_file):  # the run is complete: its strategy is what stays
            path.unlink(missing_ok=True)
    return out


def _policy_bytes(policy) -> bytes:
    """The policy's ``.npz`` file as bytes (the same file :meth:`TabularPolicy.save`
    writes)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "policy.npz"
        policy.save(path)
        return path.read_bytes()
