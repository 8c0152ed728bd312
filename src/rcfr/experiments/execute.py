"""Run one :class:`~rcfr.experiments.spec.RunSpec`: the one run path of ``rcfr solve`` and of
a sweep task (on a local worker process or a Ray worker).

:func:`run_spec` builds the solver from the spec (through its abstraction where it names one),
resumes it from a checkpoint and runs the budget with :func:`rcfr.api.solve`; its
:class:`RunHooks` add what a caller needs around a run (progress, stops, checkpoints, output
files) without changing it.  :func:`execute` is a sweep's run: it resumes from
``<hash>.ckpt.npz`` in the run directory (with the curve points measured before the
checkpoint, kept in ``<hash>.curve.json``) and returns a plain dict for the store.  A resumed
run gives the same strategy and curve as an uninterrupted one, bit for bit (the solvers'
checkpoints are exact and evaluation depends only on the iteration).
"""

from __future__ import annotations

import dataclasses
import gc
import json
import math
import os
import platform
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import RcfrError
from ..core.fileio import shown, write_json
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
    if spec.share is not None:  # a share of the full game's sequences, abstraction or not
        options["leaves"] = max(2, round(spec.share * tree.num_sequences))
    return options


def _compiled(spec: RunSpec, max_memory: str | int | None, keep: bool = True):
    """``spec``'s compiled game; with ``keep``, kept for the next run of this worker process
    (:func:`rcfr.forms.compile.compile_kept`): a sweep's runs of one large game (2-NL
    Hold'em(36) compiles in minutes) compile it once.  The memory guard counts the run's
    tables (:func:`rcfr.solvers.run.tables`), released at the end where ``spec.release``
    and nothing is evaluated before."""
    from ..forms.compile import compile_game, compile_kept
    from ..solvers.run import tables

    midway = spec.eval_every or spec.eval_nodes or spec.eval_log or spec.target_mbb \
        or spec.target_exploitability
    dtype = tables(spec.algorithm, {"dtype": spec.dtype, "storage": spec.storage},
                   bool(spec.release) and not midway)
    compile_ = compile_kept if keep else compile_game
    return compile_(spec.game, spec.form or "auto", max_memory, dtype=dtype)


@dataclass
class RunHooks:
    """What a caller adds to a run without changing it (none of it is the run's identity):
    ``progress(done, exploitability)`` after every chunk (``done``: iterations, or nodes with
    a node budget, since this call began; ``exploitability`` None where none was measured),
    ``should_stop()`` asked after every chunk, the ``checkpoint`` file written every
    ``checkpoint_every`` seconds and at the end, a checkpoint to ``resume`` from (with
    ``further``, the budget counts iterations or nodes beyond it, as ``rcfr solve --resume``
    does; else it is the whole run's, as a sweep resumes), ``curve_file`` keeping the curve
    beside the checkpoint (``curve_from``: the one a resumed run's earlier points are read from,
    if not ``curve_file``), the strategies written at the end (``out``: the average strategy,
    ``out_current``: the current one, ``out_abstract``: the abstract game's average strategy),
    the memory budget ``max_memory`` and ``keep_compiled`` (keep the game compiled for this
    process's next run)."""

    progress: Callable[[int, float | None], None] | None = None
    should_stop: Callable[[], bool] | None = None
    checkpoint: Path | None = None
    checkpoint_every: float = 60.0
    resume: Path | None = None
    further: bool = False
    curve_file: Path | None = None
    curve_from: Path | None = None
    out: Path | None = None
    out_current: Path | None = None
    out_abstract: Path | None = None
    max_memory: str | int | None = None
    keep_compiled: bool = False


@dataclass
class RunOutcome:
    """A finished (or stopped) run: the game, the solver, the result (its policy, evaluation
    and curve are the full game's, through an abstraction too), the curve ``points`` (with
    the ones measured before a resume), wall ``seconds`` with evaluation (and the time before
    a resume), where it resumed from, and its complexity."""

    spec: RunSpec
    tree: Any
    solver: Any
    result: Any  # rcfr.solvers.run.SolveResult
    points: list[dict[str, Any]]
    seconds: float
    resumed_from: int | None
    complexity: int | None
    complexity_share: float | None

    @property
    def interrupted(self) -> bool:
        return bool(self.result.interrupted)


def check_spec(spec: RunSpec) -> None:
    """Refuse what a run of ``spec`` would refuse before its first iteration, without
    compiling the game (``rcfr sweep --dry-run`` asks it of every run): the game string, the
    solver's options (:func:`rcfr.solvers.run.check_solver`), and how the abstraction, the
    form, the stopping targets and ``release`` combine."""
    from ..abstraction.solve import refuse_targets
    from ..forms.compile import check_history_choice
    from ..games.registry import load_game
    from ..solvers.run import check_solver, stop_target

    if spec.release and spec.abstraction is not None:
        raise RcfrError("release keeps no strategy: it takes no abstraction")
    if spec.abstraction is not None:
        check_history_choice(spec.form, _PUBLIC_ABSTRACTION)
    game = load_game(spec.game)
    if spec.abstraction is not None:
        refuse_targets(spec.target_exploitability, spec.target_mbb)
    stop_target(game, spec.target_exploitability, spec.target_mbb)
    options = spec.solver_options()
    if spec.share is not None:  # the leaves follow from the game's sequences when it runs
        options["leaves"] = 2
    check_solver(spec.algorithm, **options)


_PUBLIC_ABSTRACTION = ("--abstraction solves the abstract game's history form; leave out "
                       "--form public")


def _build(spec: RunSpec, hooks: RunHooks):
    """The compiled game, the game the solver runs on (the abstract one with an abstraction)
    and a fresh solver for ``spec``."""
    from ..solvers.run import make_solver

    tree = _compiled(spec, hooks.max_memory, hooks.keep_compiled)
    solve_tree = tree
    if spec.abstraction is not None:
        from ..abstraction import abstract_game

        if not tree.history_nodes:
            raise RcfrError(_PUBLIC_ABSTRACTION)
        solve_tree = abstract_game(tree, spec.abstraction)
    elif hooks.out_abstract is not None:
        raise RcfrError("--out-abstract needs --abstraction")
    return tree, solve_tree, make_solver(solve_tree, spec.algorithm,
                                         **_solver_options(spec, tree))


def checkpoint_seed(path: str | os.PathLike, default: int) -> int:
    """The seed a checkpoint's header records (``default`` where it records none or cannot
    be read: loading it reports the damage)."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            seed = json.loads(str(data["meta"][()])).get("seed", default)
    except Exception:
        return default
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else default


def curve_path(checkpoint: str | os.PathLike) -> Path | None:
    """The curve file ``rcfr solve`` keeps beside a checkpoint (``FILE.curve.json``, written
    at each evaluation), so that a resumed run's curve goes on from the earlier runs' points;
    none beside a checkpoint that is not a regular file (``/dev/null``, a FIFO)."""
    path = Path(checkpoint)
    return Path(f"{path}.curve.json") if path.is_file() or not path.exists() else None


_POINT_TYPES = {"iterations": (int,), "nodes": (int, type(None)), "seconds": (int, float),
                "exploitability": (int, float), "value": (int, float, type(None))}


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def read_curve(path: Path) -> tuple[list[dict[str, Any]], float]:
    """The points and seconds of a curve file kept beside a checkpoint, checked: one error
    line for a file that is not one."""
    try:
        saved = json.loads(Path(path).read_text())
        points, seconds = saved["points"], saved.get("seconds", 0.0)
        ok = isinstance(points, list) and _number(seconds) and all(
            isinstance(p, dict) and set(p) == set(_POINT_TYPES) and all(
                isinstance(p[k], t) and not isinstance(p[k], bool)
                and (p[k] is None or _number(p[k])) for k, t in _POINT_TYPES.items())
            for p in points)
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        ok = False
    if not ok:
        raise RcfrError(f"{shown(path)}: not a curve file (the evaluation points kept beside a "
                        f"checkpoint); remove it to resume without the earlier points")
    return points, float(seconds)


def run_spec(spec: RunSpec, hooks: RunHooks | None = None) -> RunOutcome:
    """Run ``spec``: the one run path of ``rcfr solve`` and of a sweep's runs.  The game is
    compiled, the solver built (on the abstract game with an abstraction) and resumed from
    ``hooks.resume``; the budget is run by :func:`rcfr.api.solve` in one call, or one call
    per point of an ``eval_log`` schedule; ``hooks`` add progress, stops, checkpoints and
    output files (:class:`RunHooks`)."""
    from ..api import solve

    hooks = hooks if hooks is not None else RunHooks()
    if spec.release and (spec.abstraction is not None or hooks.out is not None
                         or hooks.out_current is not None):
        raise RcfrError("release keeps no strategy: it takes no abstraction and no --out or "
                        "--out-current")
    check_spec(spec)
    tree, solve_tree, solver = _build(spec, hooks)
    abstract = solve_tree if spec.abstraction is not None else None
    points: list[dict[str, Any]] = []
    seconds0 = 0.0
    resumed_from = None
    if hooks.resume is not None:
        solver.load_checkpoint(hooks.resume)
        seed = checkpoint_seed(hooks.resume, spec.seed)
        if seed != spec.seed:  # its random stream goes on: another seed would be a lie
            raise RcfrError(f"{hooks.resume} was run with seed {seed}, not {spec.seed}: a "
                            f"resumed run continues its checkpoint's random stream (leave "
                            f"out --seed)")
        resumed_from = solver.iteration
        source = hooks.curve_from or hooks.curve_file
        if source is not None and source.is_file():
            points, seconds0 = read_curve(source)
            points = [p for p in points if p["iterations"] <= solver.iteration]
    elif hooks.curve_file is not None and hooks.curve_file.is_file():
        hooks.curve_file.unlink()  # a new run: no earlier run's points survive beside it
    solver.setup()  # kernels load outside the measured time, as in solve()
    by_nodes = spec.nodes is not None
    done = (lambda: solver.nodes_visited) if by_nodes else (lambda: solver.iteration)
    start = done()
    base = start if hooks.further else 0
    # an episodic solver's (nfsp) iteration is one episode: its budget counts them
    total = spec.nodes if by_nodes else spec.iterations or spec.episodes
    clock = time.perf_counter()
    last: dict[str, float] = {}  # the value of the evaluation behind the next point

    def on_evaluation(evaluation) -> None:
        last["value"] = float(evaluation.value)

    def on_chunk(_: int, expl: float | None) -> None:
        if expl is not None:
            points.append({"iterations": solver.iteration, "nodes": solver.nodes_visited,
                           "seconds": seconds0 + time.perf_counter() - clock,
                           "exploitability": float(expl), "value": last.pop("value", None)})
            if hooks.curve_file is not None:
                write_json(hooks.curve_file, {"points": points,
                                              "seconds": seconds0 + time.perf_counter() - clock})
        if hooks.progress is not None:
            hooks.progress(done() - start, expl)

    # one solve() call per segment: up to each log-spaced evaluation point, then the budget
    targets = [base + t for t in log_schedule(total, spec.eval_log or 0)
               if t >= (spec.eval_from or 0)]
    if not targets or targets[-1] != base + total:
        targets.append(base + total)
    if spec.eval_log and resumed_from is not None and not hooks.further:
        # a segment's checkpoint is written as its solve() returns, before run_spec commits
        # the segment's point: a run killed in between resumes at a point its curve lacks,
        # which is measured now (the same average strategy, so the same numbers)
        key = "nodes" if by_nodes else "iterations"
        passed = [t for t in targets if t <= done()]
        if passed and not any((p[key] or 0) >= passed[-1] for p in points):
            evaluation = _evaluate_now(tree, solver, abstract)
            on_evaluation(evaluation)
            on_chunk(0, evaluation.exploitability)
    measured = len(points)
    targets = [t for t in targets if t > done()]
    results = []
    for target in targets:
        if target <= done():
            continue
        budget = {"nodes": target - done()} if by_nodes else {"iterations": target - done()}
        with warnings.catch_warnings():  # a failed checkpoint write: raised below
            warnings.simplefilter("ignore", RuntimeWarning)
            result = solve(tree, spec.algorithm, eval_every=spec.eval_every,
                           eval_nodes=spec.eval_nodes, solver=solver, callback=on_chunk,
                           checkpoint=hooks.checkpoint, checkpoint_every=hooks.checkpoint_every,
                           should_stop=hooks.should_stop, abstraction=abstract,
                           target_exploitability=spec.target_exploitability,
                           target_mbb=spec.target_mbb,
                           release=bool(spec.release) and target == targets[-1],
                           on_evaluation=on_evaluation, **budget)
        results.append(result)
        if result.interrupted or result.target_reached:
            break
        if spec.eval_log and not (points and points[-1]["iterations"] == solver.iteration):
            on_evaluation(result.evaluation)
            on_chunk(0, result.evaluation.exploitability)
        if done() < targets[-1]:  # a segment's average is evaluated, not kept (2-NL
            results[-1] = dataclasses.replace(result, policy=None)  # Hold'em(36): 1.6 GB each)
        result = None
    seconds = seconds0 + time.perf_counter() - clock
    result = _whole(results, points, measured, tree, solver, abstract)
    if not result.interrupted and points and points[-1]["iterations"] == solver.iteration:
        points[-1]["value"] = float(result.evaluation.value)
    if hooks.out is not None:
        result.policy.save(hooks.out)
    if hooks.out_abstract is not None:
        result.abstraction.abstract_policy.save(hooks.out_abstract)
    if hooks.out_current is not None:
        _full_policy(tree, abstract, solver.current_policy()).save(hooks.out_current)
    failed = results[-1].checkpoint_error if results else None
    if failed is not None:  # the strategies are written; the previous checkpoint is kept
        written = [str(p) for p in (hooks.out, hooks.out_current, hooks.out_abstract)
                   if p is not None]
        raise RcfrError(failed + (f"; the strategies were written ({', '.join(written)})"
                                  if written else ""))
    complexity = getattr(solver, "complexity", None)
    share = getattr(solver, "complexity_share", None)
    if abstract is not None:  # the abstract game's sequences, or the regressors' size
        complexity = int(abstract.num_sequences if complexity is None else complexity)
        share = complexity / tree.num_sequences
    return RunOutcome(spec, tree, solver, result, points, seconds, resumed_from, complexity,
                      share)


def _full_policy(tree, abstract, policy):
    """``policy`` on the full game: lifted from the abstract game where there is one."""
    if abstract is None:
        return policy
    from ..abstraction import lift_policy

    return lift_policy(tree, abstract, policy)


def _evaluate_now(tree, solver, abstract):
    """The evaluation of ``solver``'s average strategy on the full game."""
    from ..evaluate import evaluate

    return evaluate(tree, _full_policy(tree, abstract, solver.average_policy()))


def _whole(results: list, points: list[dict[str, Any]], measured: int, tree, solver,
           abstract):
    """The result of the whole run from its segments' results: the last one's strategy and
    evaluation, with the curve of all ``points`` where there were several segments, or
    points from before a resume (``measured`` of them)."""
    from ..evaluate import evaluate
    from ..solvers.run import SolveResult

    if not results:  # resumed at its budget: nothing left to run
        policy = _full_policy(tree, abstract, solver.average_policy())
        return SolveResult(str(tree.game), solver.name, solver.iteration, 0.0, policy,
                           evaluate(tree, policy), [], solver, [], 0, False)
    result = results[-1]
    if len(results) == 1 and not measured:
        return result
    return dataclasses.replace(
        result, curve=[(p["iterations"], p["exploitability"]) for p in points],
        curve_nodes=[p["nodes"] for p in points], seconds=sum(r.seconds for r in results),
        iterations_run=sum(r.iterations_run or 0 for r in results))


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
    gc.collect()  # a worker's previous run's tables (cycles would keep them beside this one;
    # collected here, not after that run, so its result reached the driver at once)
    ckpt = directory / f"{spec.hash}.ckpt.npz"
    curve_file = directory / f"{spec.hash}.curve.json"
    run = run_spec(spec, RunHooks(should_stop=should_stop, checkpoint=ckpt,
                                  checkpoint_every=checkpoint_every,
                                  resume=ckpt if ckpt.is_file() else None,
                                  curve_file=curve_file, max_memory=max_memory,
                                  keep_compiled=True))
    solver, evaluation = run.solver, run.result.evaluation
    out = {"status": "interrupted" if run.interrupted else "done", "error": None,
           "seconds": run.seconds, "iterations": solver.iteration,
           "nodes": solver.nodes_visited, "value": float(evaluation.value),
           "exploitability": float(evaluation.exploitability),
           "complexity": run.complexity, "complexity_share": run.complexity_share,
           "regression_error": getattr(getattr(solver, "estimator_", None), "error_", None),
           "resumed_from": run.resumed_from, "points": run.points}
    if not run.interrupted:
        if run.result.policy is not None:  # (none kept where the run released its tables)
            out["strategy"] = _policy_bytes(run.result.policy)
        for path in (ckpt, curve_file):  # the run is complete: its strategy is what stays
            path.unlink(missing_ok=True)
    return out


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
