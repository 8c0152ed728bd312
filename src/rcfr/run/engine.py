"""The run engine: the one loop every solve goes down -- :func:`rcfr.solve`, ``rcfr solve``
and a sweep's runs (on a local worker process or a Ray worker).

:func:`drive` runs a set-up :class:`~rcfr.run.protocol.Solver` on a compiled game for a
budget (iterations, or histories visited: Gibson et al. 2012, sec. 5), evaluating its average
strategy on the evaluation schedule, stopping at a target, writing checkpoints; a caller adds
progress, stops and evaluations through one :class:`RunHooks` object.  :func:`solve` is the
Python front (a game, an algorithm and its options); :func:`run_spec` runs a
:class:`~rcfr.run.spec.RunSpec` (resumed from a checkpoint, with its curve file, a log-spaced
schedule and its output files).  Both compile the game once and set the solver up once; an
abstraction is a solver like any other (:class:`~rcfr.abstraction.solve.AbstractedSolver`: the
abstract game's solver, its policies lifted to the full game).  A resumed run gives the same
strategy and curve as an uninterrupted one, bit for bit (the solvers' checkpoints are exact and
evaluation depends only on the iteration); how the iterations are chunked never changes a
result.
"""

from __future__ import annotations

import dataclasses
import os
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..abstraction.solve import AbstractedSolver, abstract_form, refuse_targets
from ..abstraction.spot import names_buckets
from ..core.checks import MAX_COUNT, whole_number
from ..core.errors import RcfrError
from ..core.fileio import write_json
from ..core.names import EPISODIC, RULES
from ..evaluate import Evaluation, evaluate
from ..forms.base import Form
from ..forms.compile import check_history_choice, compile_game, compile_kept
from ..games.registry import load_game
from ..solvers.auto import auto_rule
from ..solvers.run import check_solver, make_solver, tables
from ..solvers.warm import warm_start
from .curve import checkpoint_seed, read_curve
from .protocol import Solver
from .result import RunResult
from .schedule import TARGET_SHARE, log_schedule, stop_target, target_gap
from .spec import RunSpec

CHUNK_SECONDS = 0.25  # the engine runs chunks of about this long between its hooks
FIRST_CHUNK = 64  # iterations at most before the first chunk has been timed


@dataclass
class RunHooks:
    """What a caller adds to a run without changing it (none of it is the run's identity):
    ``progress(done, exploitability)`` after every chunk (``done``: iterations, or nodes with
    a node budget, since this call began; ``exploitability`` None where none was measured),
    ``on_evaluation(evaluation)`` with each evaluation whole (its value too), just before,
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
    on_evaluation: Callable[[Evaluation], None] | None = None
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


# -- the loop -------------------------------------------------------------------------------
def drive(tree: Form, solver: Solver, iterations: int | None = None, eval_every: int = 0, *,
          nodes: int | None = None, eval_nodes: int = 0, target: float | None = None,
          release: bool = False, time_budget: float | None = None,
          clock: Callable[[], float] = time.perf_counter, measure: bool = True,
          hooks: RunHooks | None = None) -> RunResult:
    """Run the set-up ``solver`` (its policies index ``tree``) for ``iterations`` more
    iterations -- or, with ``nodes``, whole iterations until that many more histories have
    been visited, or, with ``time_budget``, whole chunks until that many seconds of ``clock``
    time have been spent iterating (a subgame re-solved for a time) -- evaluating its average
    strategy every ``eval_every`` iterations and every ``eval_nodes`` nodes (0: only at the
    end; ``measure=False``: not even then, the result's ``evaluation`` is None: a re-solved
    subgame is measured in the whole game).  The result's ``seconds`` count ``clock`` time
    spent iterating.  With ``target`` (exploitability, game units)
    the run stops at the first evaluation point that close to equilibrium; without a schedule
    the target sets its own points (:func:`~rcfr.run.schedule.target_gap`).  With
    ``release`` the run ends by turning the solver's average sums into the final profile in
    place (:meth:`~rcfr.solvers.loop.RegretSolver.release_average`: the result's ``policy``
    is ``None``, so a run evaluated only at its end needs no more memory at the end than
    while it ran).  A failed checkpoint write does not stop the run: the result's
    ``checkpoint_error`` says why."""
    hooks = hooks if hooks is not None else RunHooks()
    iterations = iterations or 0
    auto = target is not None and not eval_every and not eval_nodes  # the target's schedule
    min_nodes = tree.num_nodes / TARGET_SHARE if auto else 0  # (the game's histories)
    if nodes is None and time_budget is None and hasattr(solver, "check_run"):
        solver.check_run(iterations)  # (state that grows with the run)
    it0, nodes0 = solver.iteration, solver.nodes_visited
    chunk = eval_every if eval_every else max(1, min(1000, (iterations or 1000) // 100))
    if time_budget is not None:  # whole chunks until the time is spent
        iterations = MAX_COUNT
    by_eval_nodes = bool(eval_nodes) or (auto and nodes is not None)
    next_eval_nodes = eval_nodes or (target_gap(0, 1.0, min_nodes) if by_eval_nodes else 0)
    next_eval_it = None  # the target's next point in iterations (set after the first chunk)
    curve: list[tuple[int, float]] = []
    curve_nodes: list[int] = []
    last = None  # (iteration, average policy, its evaluation) of the last evaluation point
    seconds = 0.0
    per_iteration = 0.0  # wall seconds of the last chunk's iterations
    # a node budget runs chunks of whole iterations, each up to the first past its share of
    # the budget (solver.run_nodes), so every evaluation point and the end fall on the first
    # iteration past them whatever the chunks' lengths (set by the clock); with eval_every
    # the chunks follow the evaluation iterations
    by_nodes = nodes is not None and not eval_every and hasattr(solver, "run_nodes")
    per_node = 0.0  # wall seconds a node in the last chunk
    last_checkpoint = time.monotonic()
    interrupted = False
    while True:
        done_it, done_nodes = solver.iteration - it0, solver.nodes_visited - nodes0
        if (done_it >= iterations) if nodes is None else (done_nodes >= nodes):
            break
        if time_budget is not None and seconds >= time_budget:
            break
        before = solver.iteration
        if by_nodes:  # whole iterations up to the first past the budget or evaluation point
            goal = min(nodes, next_eval_nodes) if by_eval_nodes else nodes
            step = goal - done_nodes
            step = min(step, max(1, int(CHUNK_SECONDS / per_node)) if per_node > 0 else 1)
            t0 = clock()
            solver.run_nodes(step)
            elapsed = clock() - t0
            per_node = elapsed / max(1, solver.nodes_visited - nodes0 - done_nodes)
        else:
            n = chunk - (solver.iteration % chunk)
            if next_eval_it is not None:
                n = next_eval_it - solver.iteration
            elif auto and nodes is None:  # one iteration measures an iteration's nodes
                n = 1
            if per_iteration > 0:
                n = min(n, max(1, int(CHUNK_SECONDS / per_iteration)))
            else:  # a short first chunk times the iterations (a stop is not kept waiting)
                n = min(n, FIRST_CHUNK)
            if nodes is None:
                n = min(n, iterations - done_it)
            else:  # stay close to the budget and to the next evaluation point
                per = done_nodes / done_it if done_it else float("inf")
                goal = min(nodes, next_eval_nodes) if by_eval_nodes else nodes
                n = max(1, min(n, int(-(-(goal - done_nodes) // per)) if done_it else 1))
            t0 = clock()
            solver.run(n)
            elapsed = clock() - t0
            per_iteration = elapsed / n
        seconds += elapsed
        done_nodes = solver.nodes_visited - nodes0
        at_end = (solver.iteration - it0 >= iterations) if nodes is None else done_nodes >= nodes
        at_end = at_end or (time_budget is not None and seconds >= time_budget)
        # an evaluation point passed (an episodic solver may end a chunk a few past it)
        due = eval_every and solver.iteration // eval_every > before // eval_every
        if by_eval_nodes and done_nodes >= next_eval_nodes:
            due = True
            if auto:
                next_eval_nodes = done_nodes + target_gap(done_nodes, 1.0, min_nodes)
            else:
                while next_eval_nodes <= done_nodes:
                    next_eval_nodes += eval_nodes
        if auto and nodes is None:
            done_it = solver.iteration - it0
            if next_eval_it is not None and solver.iteration >= next_eval_it:
                due = True
            if next_eval_it is None or due:  # (from the first chunk's nodes on)
                per = max(1.0, done_nodes / done_it)  # histories an iteration
                next_eval_it = solver.iteration + target_gap(done_it, per, min_nodes)
        expl = None
        if due or (at_end and (eval_every or eval_nodes or auto)):
            policy = solver.average_policy()
            evaluation = _evaluate(tree, solver, policy)
            last = (solver.iteration, policy, evaluation)
            expl = evaluation.exploitability
            if hooks.on_evaluation is not None:
                hooks.on_evaluation(evaluation)
            curve.append((solver.iteration, expl))
            curve_nodes.append(solver.nodes_visited)
        if hooks.progress is not None:
            hooks.progress(solver.iteration - it0 if nodes is None else done_nodes, expl)
        if (hooks.checkpoint is not None
                and time.monotonic() - last_checkpoint >= hooks.checkpoint_every):
            _save_checkpoint(solver, hooks.checkpoint)
            last_checkpoint = time.monotonic()
        if target is not None and expl is not None and expl <= target:
            break
        if hooks.should_stop is not None and hooks.should_stop():
            interrupted = True
            break
    reached = None if target is None else bool(curve) and curve[-1][1] <= target
    failed = None if hooks.checkpoint is None else _save_checkpoint(solver, hooks.checkpoint)
    if release and getattr(solver, "releasable", False):  # (deep and FP solvers: no tables)
        policy, evaluation = None, _evaluate(tree, solver, solver.release_average())
    elif last is not None and last[0] == solver.iteration:  # evaluated at the end already
        _, policy, evaluation = last
    else:
        policy = solver.average_policy()
        evaluation = _evaluate(tree, solver, policy) if measure else None
    return _result(tree, solver, seconds=seconds, policy=policy, evaluation=evaluation,
                   curve=curve, curve_nodes=curve_nodes, iterations_run=solver.iteration - it0,
                   interrupted=interrupted, checkpoint_error=failed, target_reached=reached)


def _evaluate(tree: Form, solver: Solver, policy: Any) -> Evaluation:
    """The evaluation of ``solver``'s ``policy`` on ``tree``: in the locked game where the
    solver holds a node lock (its ``locked``, :mod:`rcfr.forms.lock`)."""
    return evaluate(tree, policy, lock=getattr(solver, "locked", None))


def _result(tree: Form, solver: Solver, **fields: Any) -> RunResult:
    """A :class:`RunResult` of ``solver`` on ``tree`` (the abstract game's solver and the
    abstraction's figures through an abstraction)."""
    inner, info = solver, None
    if isinstance(solver, AbstractedSolver):
        inner, info = solver.inner, solver.info()
    return RunResult(str(tree.game), solver.name, solver.iteration, solver=inner,
                     abstraction=info, tree=tree, **fields)


def _save_checkpoint(solver: Solver, path: str | os.PathLike) -> str | None:
    """Write ``solver``'s checkpoint; the error line when the write failed (the atomic write
    keeps the previous file), so a full disk does not lose the run's other outputs."""
    try:
        solver.save_checkpoint(path)
    except RcfrError as exc:
        return str(exc)
    return None


# -- the Python front -----------------------------------------------------------------------
def _positive(name: str, value, allow_zero: bool = False) -> int:
    return whole_number(value, name, 0 if allow_zero else 1)


def solve(game: Any, algorithm: str = "cfr+", iterations: int = 1000, eval_every: int = 0, *,
          nodes: int | None = None, episodes: int | None = None, eval_nodes: int = 0,
          solver: Solver | None = None,
          callback: Callable[[int, float | None], None] | None = None,
          checkpoint: str | os.PathLike | None = None, checkpoint_every: float = 60.0,
          should_stop: Callable[[], bool] | None = None,
          target_exploitability: float | None = None, target_mbb: float | None = None,
          release: bool = False, on_evaluation: Callable[[Evaluation], None] | None = None,
          abstraction: Any = None, form: str = "auto", max_memory: str | float | None = None,
          warm_from: Any = None, warm_iterations: int | None = None,
          **options) -> RunResult:
    """Run ``iterations`` iterations of ``algorithm`` on ``game`` (a game string, a game or a
    compiled form: compiled here, once, in ``form`` -- ``"auto"``, ``"history"`` or
    ``"public"`` -- under ``max_memory``) -- or, with ``nodes``, whole iterations until that
    many more histories have been visited, or, for nfsp, ``episodes`` games of self-play (its
    iterations; they replace ``iterations``) -- through :func:`drive`.  The average strategy
    is evaluated every ``eval_every`` iterations and every ``eval_nodes`` nodes visited (0:
    only at the end).  ``callback(done, exploitability)`` is called after every chunk, with
    ``done`` counting iterations (nodes with ``nodes``); ``exploitability`` is ``None`` when
    none was measured; ``on_evaluation(evaluation)`` gets each of those evaluations whole.

    With ``checkpoint``, the solver state is written there atomically every
    ``checkpoint_every`` seconds of wall time (checked between chunks) and once at the end, so
    a run killed midway resumes from its last checkpoint; a failed write warns and the
    result's ``checkpoint_error`` says why.  ``should_stop()`` is asked after every chunk
    (about 0.25 s); when it returns true the run stops after the current iteration (the
    result says ``interrupted``).  With ``target_exploitability`` (game units) or
    ``target_mbb`` (mbb/g, poker games) the run stops at the first evaluation point where the
    average strategy is that close to equilibrium (``target_reached``); without a schedule
    the target sets its own points (geometric: the run stops at most about a tenth past where
    it first could, and evaluation stays about a tenth of the work).  With ``abstraction`` (a
    name such as ``"J.QK"`` or ``"HP"``, or a compiled abstract game; :mod:`rcfr.abstraction`)
    the abstract game is solved and the result is the full game's (its ``abstraction`` holds
    the abstract strategy).  ``algorithm="auto"`` runs the rule best on the game's kind in the
    convergence suite (:func:`rcfr.solvers.auto.auto_rule`).  ``release``: see :func:`drive`.
    ``solver``: run this solver (built by :func:`~rcfr.solvers.run.make_solver`) instead of a
    new one.  ``lock`` (one of ``options``; the full-width regret algorithms): node locking, a
    lock file, ``"STRATEGY.npz:P"`` or a :class:`~rcfr.forms.lock.NodeLock`
    (:func:`~rcfr.solvers.locking.read_lock`); the run is evaluated in the locked game.
    ``warm_from`` (a strategy file or a :class:`~rcfr.policy.TabularPolicy`, of this game or
    another) warm-starts a full-width tabular rule (:func:`rcfr.solvers.warm.warm_start`;
    ``warm_iterations`` overrides the iterations it stands for) and ``iterations`` count the
    iterations after it."""
    if episodes is not None:
        if str(algorithm).strip().lower() not in EPISODIC:
            raise RcfrError(f"--episodes is the budget of {', '.join(EPISODIC)}; {algorithm} "
                            f"takes iterations or nodes")
        if nodes is not None:
            raise RcfrError("give one budget: --episodes or --nodes, not both")
        iterations = _positive("episodes", episodes)
    if nodes is None:
        _positive("iterations", iterations)
    else:
        _positive("the node budget", nodes)
    _positive("eval-every", eval_every, allow_zero=True)
    _positive("eval-nodes", eval_nodes, allow_zero=True)
    if not checkpoint_every > 0:
        raise RcfrError(f"checkpoint-every must be a positive number of seconds, "
                        f"got {checkpoint_every!r}")
    if abstraction is not None:
        if options.get("lock") is not None:
            raise RcfrError(_LOCK_ABSTRACTION)
        refuse_targets(target_exploitability, target_mbb)
        if release:
            raise RcfrError("release keeps no strategy: it takes no abstraction")
    if str(algorithm).strip().lower() == "auto":  # the rule best on the game's kind
        algorithm = auto_rule(game)[0]
    midway = bool(eval_every or eval_nodes)  # evaluations beside the solver's tables
    tree = compile_game(game, form, max_memory,
                        dtype=tables(algorithm, options, release and not midway))
    target = stop_target(tree.game, target_exploitability, target_mbb)
    abstract = None if abstraction is None else abstract_form(tree, abstraction)
    if solver is None:
        solver = make_solver(tree if abstract is None else abstract, algorithm, **options)
    if abstract is not None:
        solver = AbstractedSolver(solver, tree, abstract)
    check_warm(algorithm, warm_from, warm_iterations, abstraction, options.get("lock"))
    solver.setup()  # validation and kernel loading happen outside the timed runs
    if warm_from is not None:
        warm_start(solver, warm_from, warm_iterations)
    hooks = RunHooks(progress=callback, on_evaluation=on_evaluation, should_stop=should_stop,
                     checkpoint=checkpoint, checkpoint_every=checkpoint_every)
    result = drive(tree, solver, iterations, eval_every, nodes=nodes, eval_nodes=eval_nodes,
                   target=target, release=release, hooks=hooks)
    if result.checkpoint_error is not None:
        warnings.warn(result.checkpoint_error, RuntimeWarning, stacklevel=2)
    return result


# -- a run spec -----------------------------------------------------------------------------
_PUBLIC_ABSTRACTION = ("--abstraction solves the abstract game's history form (but a spot's "
                       "buckets:K or actions:..., either form); leave out --form public")


_LOCK_ABSTRACTION = ("--lock fixes information sets of the game solved; it takes no "
                     "--abstraction")


def check_spec(spec: RunSpec) -> None:
    """Refuse what a run of ``spec`` would refuse before its first iteration, without
    compiling the game (``rcfr sweep --dry-run`` asks it of every run): the game string, the
    solver's options (:func:`rcfr.solvers.run.check_solver`), and how the abstraction, the
    form, the stopping targets and ``release`` combine."""
    if spec.release and spec.abstraction is not None:
        raise RcfrError("release keeps no strategy: it takes no abstraction")
    if spec.lock is not None and spec.abstraction is not None:
        raise RcfrError(_LOCK_ABSTRACTION)
    if spec.abstraction is not None and not names_buckets(spec.abstraction):
        check_history_choice(spec.form, _PUBLIC_ABSTRACTION)
    game = load_game(spec.game)
    if spec.abstraction is not None:
        refuse_targets(spec.target_exploitability, spec.target_mbb)
    stop_target(game, spec.target_exploitability, spec.target_mbb)
    check_warm(spec.algorithm, spec.warm_from, spec.warm_iterations, spec.abstraction,
               spec.lock)
    options = spec.solver_options()
    if spec.share is not None:  # the leaves follow from the game's sequences when it runs
        options["leaves"] = 2
    check_solver(spec.algorithm, **options)


def check_warm(algorithm: str, warm_from: Any, warm_iterations: int | None,
               abstraction: Any, lock: Any = None) -> None:
    """Refuse a warm start where it does not apply: it sets the regrets of the full-width
    tabular rules (:mod:`rcfr.solvers.warm`), in the game that is solved."""
    if warm_from is None:
        if warm_iterations is not None:
            raise RcfrError("--warm-iterations needs --warm-from FILE")
        return
    if str(algorithm).strip().lower().partition(":")[0] not in RULES:
        raise RcfrError(f"--warm-from sets the regrets of the full-width tabular rules "
                        f"({', '.join(RULES)}), not {algorithm}")
    if abstraction is not None:
        raise RcfrError("--warm-from starts the game that is solved; with --abstraction, warm-"
                        "start a solve of the full game from the abstraction's strategy instead")
    if lock is not None:
        raise RcfrError("--warm-from starts every information set from the warm strategy; it "
                        "does not take --lock")


def _compiled(spec: RunSpec, max_memory: str | int | None, keep: bool = True) -> Form:
    """``spec``'s compiled game; with ``keep``, kept for the next run of this worker process
    (:func:`rcfr.forms.compile.compile_kept`): a sweep's runs of one large game (2-NL
    Hold'em(36) compiles in minutes) compile it once.  The memory guard counts the run's
    tables (:func:`rcfr.solvers.run.tables`), released at the end where ``spec.release``
    and nothing is evaluated before."""
    midway = spec.eval_every or spec.eval_nodes or spec.eval_log or spec.target_mbb \
        or spec.target_exploitability
    dtype = tables(spec.algorithm, {"dtype": spec.dtype, "storage": spec.storage},
                   bool(spec.release) and not midway)
    compile_ = compile_kept if keep else compile_game
    return compile_(spec.game, spec.form or "auto", max_memory, dtype=dtype)


def build(spec: RunSpec, tree: Form, out_abstract: Path | None = None) -> Solver:
    """A fresh solver for ``spec`` on its compiled game ``tree``: through its abstraction
    where it names one (the abstract game's solver, lifted)."""
    options = spec.solver_options()
    if spec.share is not None:  # a share of the full game's sequences, abstraction or not
        options["leaves"] = max(2, round(spec.share * tree.num_sequences))
    if spec.abstraction is None:
        if out_abstract is not None:
            raise RcfrError("--out-abstract needs --abstraction")
        return make_solver(tree, spec.algorithm, **options)
    if not tree.supports("history nodes") and not names_buckets(spec.abstraction):
        raise RcfrError(_PUBLIC_ABSTRACTION)
    abstract = abstract_form(tree, spec.abstraction)
    return AbstractedSolver(make_solver(abstract, spec.algorithm, **options), tree, abstract)


def run_spec(spec: RunSpec, hooks: RunHooks | None = None) -> RunResult:
    """Run ``spec``: the one run path of ``rcfr solve`` and of a sweep's runs.  The game is
    compiled once, the solver built (:func:`build`), resumed from ``hooks.resume`` and set up
    once; the budget is run by :func:`drive` in one segment, or one per point of an
    ``eval_log`` schedule; ``hooks`` add progress, stops, checkpoints and output files
    (:class:`RunHooks`).  The result's ``points`` are the curve as the store keeps it,
    ``wall_seconds`` the run's with evaluation (and the time before a resume)."""
    hooks = hooks if hooks is not None else RunHooks()
    if spec.release and (spec.abstraction is not None or hooks.out is not None
                         or hooks.out_current is not None):
        raise RcfrError("release keeps no strategy: it takes no abstraction and no --out or "
                        "--out-current")
    check_spec(spec)
    tree = _compiled(spec, hooks.max_memory, hooks.keep_compiled)
    solver = build(spec, tree, hooks.out_abstract)
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
    solver.setup()  # kernels load outside the measured time
    warm = spec.warm_from is not None and hooks.resume is None
    if warm:  # (a resumed run has its checkpoint's state, warm start included)
        warm_start(solver, spec.warm_from, spec.warm_iterations)
    by_nodes = spec.nodes is not None
    done = (lambda: solver.nodes_visited) if by_nodes else (lambda: solver.iteration)
    start = done()
    base = start if hooks.further or warm else 0
    # an episodic solver's (nfsp) iteration is one episode: its budget counts them
    total = spec.nodes if by_nodes else spec.iterations or spec.episodes
    target = stop_target(tree.game, spec.target_exploitability, spec.target_mbb)
    clock = time.perf_counter()
    last: dict[str, float] = {}  # the value of the evaluation behind the next point

    def on_evaluation(evaluation) -> None:
        last["value"] = float(evaluation.value)
        if hooks.on_evaluation is not None:
            hooks.on_evaluation(evaluation)

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

    segment = dataclasses.replace(hooks, progress=on_chunk, on_evaluation=on_evaluation)
    # one segment up to each log-spaced evaluation point, then the budget
    targets = [base + t for t in log_schedule(total, spec.eval_log or 0)
               if t >= (spec.eval_from or 0)]
    if not targets or targets[-1] != base + total:
        targets.append(base + total)
    if spec.eval_log and resumed_from is not None and not hooks.further:
        # a segment's checkpoint is written as it ends, before run_spec commits the
        # segment's point: a run killed in between resumes at a point its curve lacks, which
        # is measured now (the same average strategy, so the same numbers)
        key = "nodes" if by_nodes else "iterations"
        passed = [t for t in targets if t <= done()]
        if passed and not any((p[key] or 0) >= passed[-1] for p in points):
            evaluation = _evaluate(tree, solver, solver.average_policy())
            on_evaluation(evaluation)
            on_chunk(0, evaluation.exploitability)
    measured = len(points)
    targets = [t for t in targets if t > done()]
    results: list[RunResult] = []
    for goal in targets:
        if goal <= done():
            continue
        budget = {"nodes": goal - done()} if by_nodes else {"iterations": goal - done()}
        result = drive(tree, solver, eval_every=spec.eval_every or 0,
                       eval_nodes=spec.eval_nodes or 0, target=target,
                       release=bool(spec.release) and goal == targets[-1], hooks=segment,
                       **budget)
        results.append(result)
        if result.interrupted or result.target_reached:
            break
        if spec.eval_log and not (points and points[-1]["iterations"] == solver.iteration):
            on_evaluation(result.evaluation)
            on_chunk(0, result.evaluation.exploitability)
        if done() < targets[-1]:  # a segment's average is evaluated, not kept (2-NL
            results[-1] = dataclasses.replace(result, policy=None)  # Hold'em(36): 1.6 GB each)
        result = None
    result = _whole(results, points, measured, tree, solver)
    result.spec, result.points, result.resumed_from = spec, points, resumed_from
    result.wall_seconds = seconds0 + time.perf_counter() - clock
    if not result.interrupted and points and points[-1]["iterations"] == solver.iteration:
        points[-1]["value"] = float(result.evaluation.value)
    if hooks.out is not None:
        result.policy.save(hooks.out)
    if hooks.out_abstract is not None:
        result.abstraction.abstract_policy.save(hooks.out_abstract)
    if hooks.out_current is not None:
        solver.current_policy().save(hooks.out_current)
    failed = results[-1].checkpoint_error if results else None
    if failed is not None:  # the strategies are written; the previous checkpoint is kept
        written = [str(p) for p in (hooks.out, hooks.out_current, hooks.out_abstract)
                   if p is not None]
        raise RcfrError(failed + (f"; the strategies were written ({', '.join(written)})"
                                  if written else ""))
    return result


def _whole(results: list[RunResult], points: list[dict[str, Any]], measured: int, tree: Form,
           solver: Solver) -> RunResult:
    """The result of the whole run from its segments' results: the last one's strategy and
    evaluation, with the curve of all ``points`` where there were several segments, or
    points from before a resume (``measured`` of them)."""
    if not results:  # resumed at its budget: nothing left to run
        policy = solver.average_policy()
        return _result(tree, solver, seconds=0.0, policy=policy,
                       evaluation=_evaluate(tree, solver, policy), iterations_run=0)
    result = results[-1]
    if len(results) == 1 and not measured:
        return result
    return dataclasses.replace(
        result, curve=[(p["iterations"], p["exploitability"]) for p in points],
        curve_nodes=[p["nodes"] for p in points], seconds=sum(r.seconds for r in results),
        iterations_run=sum(r.iterations_run or 0 for r in results))
