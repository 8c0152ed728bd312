"""Run a solver by name with a convergence curve: the loop behind ``rcfr solve`` and every
sweep run (:func:`rcfr.experiments.execute.run_spec` calls it through :func:`rcfr.api.solve`)."""

from __future__ import annotations

import math
import os
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core.checks import whole_number
from ..core.errors import RcfrError
from ..core.rules import DCFR_DEFAULTS, PDCFR_DEFAULTS, UpdateRule, parse_rule
from ..evaluate import Evaluation, evaluate
from ..forms.base import Form
from ..forms.compile import compile_game
from ..forms.sampling import SCHEMES
from ..games.protocol import Game
from ..policy import TabularPolicy
from .deep import DEEP_ALGORITHMS, make_deep_solver
from .fp import EPISODIC, FP_ALGORITHMS, make_fp_solver
from .loop import ALGORITHMS, CFRSolver, RegretSolver
from .options import (
    ALL_ALGORITHMS,
    AVERAGE_OPTIONS,
    FP_OPTIONS,
    NUMERIC_OPTIONS,
    OPTION,
    OPTIONS,
    RCFR_OPTIONS,
    RULE_OPTIONS,
    RUN,
    SCHEME_OPTIONS,
)
from .rcfr import RCFR_ALGORITHMS, RCFRSolver, make_estimator
from .sampling import MCCFRSolver

CHUNK_SECONDS = 0.25  # solve() runs chunks of about this long between its hooks
FIRST_CHUNK = 64  # iterations at most before the first chunk has been timed
# a target's own evaluation schedule (no eval_every or eval_nodes given): each point at least
# TARGET_RATIO times the work done before it and at least 1 / TARGET_SHARE times the game's
# histories (an exact evaluation walks the tree a few times) visited since the last one
TARGET_RATIO = 1.1
TARGET_SHARE = 0.1


@dataclass
class SolveResult:
    """The average strategy after ``iterations`` iterations, its evaluation, and the
    exploitability curve ``[(iteration, exploitability), ...]`` sampled every ``eval_every``."""

    game: str
    algorithm: str
    iterations: int
    seconds: float
    policy: TabularPolicy | None  # None where ``release`` spent the solver's average
    evaluation: Evaluation
    curve: list[tuple[int, float]] = field(default_factory=list)
    solver: RegretSolver | None = None
    curve_nodes: list[int] = field(default_factory=list)  # nodes visited at each curve point
    iterations_run: int | None = None  # iterations in this call (fewer than ``iterations``
    # when resumed from a checkpoint); the speed is measured on these
    interrupted: bool = False  # ``should_stop`` ended the run before its budget
    checkpoint_error: str | None = None  # why the last checkpoint write failed (the run went
    # on; the previous checkpoint file is kept)
    target_reached: bool | None = None  # None: no target; else whether the run stopped at it

    def to_dict(self) -> dict:
        out = {"game": self.game, "algorithm": self.algorithm, "iterations": self.iterations,
               "seconds": self.seconds,
               "iterations_per_second": None}
        run = self.iterations if self.iterations_run is None else self.iterations_run
        if self.seconds:
            out["iterations_per_second"] = run / self.seconds
        out.update(self.evaluation.to_dict())
        if getattr(self.solver, "average_model_", None) is not None:  # the table, beside it
            out["tabular_exploitability"] = evaluate(
                self.solver.tree, self.solver.tabular_average_policy()).exploitability
        complexity = getattr(self.solver, "complexity", None)
        if complexity is not None:
            out["complexity"] = complexity
            out["complexity_share"] = self.solver.complexity_share
        out["curve"] = [list(p) for p in self.curve]
        out["nodes_visited"] = getattr(self.solver, "nodes_visited", None)
        if self.algorithm in EPISODIC:  # an iteration is an episode; no tree is walked
            out["episodes"], out["nodes_visited"] = self.iterations, None
            out["episodes_per_second"] = out["iterations_per_second"]
        out["curve_nodes"] = list(self.curve_nodes)
        out["interrupted"] = self.interrupted
        if self.target_reached is not None:
            out["target_reached"] = self.target_reached
            out["target_iteration"] = self.iterations if self.target_reached else None
        return out


def _rule_for(key: str, rule: str | UpdateRule | None, options: dict) -> UpdateRule:
    """The update rule of ``algorithm`` ``key`` with DCFR's ``alpha``, ``beta``, ``gamma``
    options filled in."""
    if key in ALGORITHMS:
        if rule is not None:
            raise RcfrError(f"-a {key} is itself an update rule; --rule applies to rcfr and the "
                            f"sampling schemes")
        rule = key
    base = parse_rule(rule)
    names = RULE_OPTIONS.get(base.name, ())
    given = {k: options[k] for k in names if options.get(k) is not None}
    if not given:
        return base
    if isinstance(rule, UpdateRule) or ":" in str(rule):
        raise RcfrError(f"give {base.name}'s parameters in the rule {rule} or as options, not both")
    if "gamma" in given and options.get("averaging") is not None:
        raise RcfrError(f"--gamma is {base.name}'s averaging power; give --gamma or --averaging")
    if base.name == "dcfr":
        values = [given.get(k, d) for k, d in zip(names, DCFR_DEFAULTS, strict=True)]
    else:
        values = [given.get(k, d) for k, d in zip(names, PDCFR_DEFAULTS, strict=True)]
    return parse_rule(f"{base.name}:{','.join(str(float(v)) for v in values)}")


def make_solver(game: Form | str, algorithm: str, *, rule: str | UpdateRule | None = None,
                **options) -> RegretSolver:
    """A solver for ``algorithm`` on ``game``: :func:`solver_recipe`'s checks, then the solver
    built on the game."""
    return solver_recipe(algorithm, rule=rule, **options)(game)


def check_solver(algorithm: str, *, rule: str | UpdateRule | None = None, **options) -> None:
    """Refuse what :func:`make_solver` would refuse for these options, without a game (a
    sweep's ``--dry-run`` checks every run this way, compiling nothing)."""
    solver_recipe(algorithm, rule=rule, **options)


def solver_recipe(algorithm: str, *, rule: str | UpdateRule | None = None,
                  **options) -> Callable[[Form | str], RegretSolver]:
    """The checked configuration of a solver, as a function that builds it on a game, for
    ``algorithm``: ``cfr``, ``cfr+``, ``lcfr``, ``dcfr``, ``pcfr+``, ``pdcfr+`` (tabular, one per
    update rule; DCFR takes ``alpha``, ``beta``, ``gamma``), ``rcfr``,
    ``rcfr+`` (regression CFR, which takes the regressor options and a ``rule``) or ``cs``,
    ``es``, ``os``, ``as`` (Monte Carlo CFR: ``epsilon`` for os/as, ``beta``, ``tau`` for as;
    a ``rule``; with a ``regressor`` its regrets are estimated by regression from the sampled
    targets; ``dtype="float32"``: single-precision tables).  An option the algorithm would
    ignore is refused (which algorithms, schemes and rules take which options is declared in
    :mod:`rcfr.solvers.options`)."""
    key = str(algorithm).strip().lower()
    if key not in ALL_ALGORITHMS:
        raise RcfrError(f"unknown algorithm {algorithm!r}; use one of {', '.join(ALL_ALGORITHMS)}")
    for k in ("dtype", "storage"):
        if options.get(k) is None:
            options.pop(k, None)
    given = {k for k, v in options.items() if v is not None and v is not False}
    dtype = OPTION["dtype"]
    if "dtype" in given and key not in dtype.algorithms:
        raise RcfrError(f"{dtype.flag} sets the tables of the tabular solvers "
                        f"{'/'.join(dtype.algorithms)}, not {key}")
    storage = OPTION["storage"]
    if "storage" in given and key not in storage.algorithms:
        raise RcfrError(f"{storage.flag} sets the tables of the full-width solvers "
                        f"{'/'.join(storage.algorithms)}, not {key}")
    if "alpha" in given and (options.get("regressor") or "").strip().lower() == "ridge":
        raise RcfrError(f"{OPTION['alpha'].flag} is DCFR's; the ridge penalty is "
                        f"{OPTION['ridge_alpha'].flag}")
    if key in FP_ALGORITHMS:
        return _make_fp(key, rule, options, given)
    if key in DEEP_ALGORITHMS:
        return _make_deep(key, rule, options, given)
    for k in FP_OPTIONS:
        if k in given:
            raise RcfrError(f"{OPTION[k].flag} applies to {'/'.join(OPTION[k].algorithms)}, "
                            f"not {key}")
        options.pop(k, None)
    rule_ = _rule_for(key, rule, options)
    rule_opts = RULE_OPTIONS.get(rule_.name, ())
    scheme_opts = SCHEME_OPTIONS.get(key, ())
    for k in NUMERIC_OPTIONS:
        if k in given and k in rule_opts and k in scheme_opts:
            raise RcfrError(f"{OPTION[k].flag} would mean both {rule_.name}'s {k} and {key}'s")
        if k in given and k not in rule_opts and k not in scheme_opts:
            schemes, rules = OPTION[k].schemes, OPTION[k].rules
            users = ([f"the sampling schemes {'/'.join(schemes)}"] if schemes else []) + (
                [f"the rules {'/'.join(rules)}"] if rules else []) + (
                ["/".join(OPTION[k].algorithms)] if OPTION[k].algorithms else [])
            raise RcfrError(f"{OPTION[k].flag} applies to {' and '.join(users)}, not {key}"
                            + (f" with the {rule_.name} rule" if key not in ALGORITHMS else ""))
    rest = {k: v for k, v in options.items() if k not in NUMERIC_OPTIONS}
    regression = {k: rest.pop(k) for k in RCFR_OPTIONS if k in rest}
    average = {k: rest.pop(k) for k in AVERAGE_OPTIONS if k in rest}
    average_given = [OPTION[k] for k in AVERAGE_OPTIONS if k in given]
    if average_given and key not in average_given[0].algorithms:
        raise RcfrError(f"{average_given[0].flag} applies to "
                        f"{' and '.join(average_given[0].algorithms)}, not {key}")
    if "ridge_alpha" in regression:
        regression["alpha"] = regression.pop("ridge_alpha")
    regression_given = [k for k in RCFR_OPTIONS if k in given]
    rule_arg = None if rule is None and key not in ALGORITHMS else rule_
    if key in SCHEMES:
        scheme = {k: options[k] for k in scheme_opts if k in given}

        def sampled(game):
            estimator = None
            if regression_given:
                tree = compile_game(game)
                estimator = make_estimator(
                    tree, regression.get("regressor") or "best-first", rule=rule_,
                    seed=int(options.get("seed") or 0),
                    **{k: v for k, v in regression.items()
                       if k != "regressor" and v is not None and v is not False})
                game = tree
            return MCCFRSolver(game, key, estimator=estimator, rule=rule_arg, **scheme, **rest)

        return sampled
    if key in RCFR_ALGORITHMS:
        if regression.pop("minibatch", None):
            minibatch = OPTION["minibatch"]
            raise RcfrError(f"{minibatch.flag} fits the sequences a sampled pass touched; use "
                            f"it with the sampling schemes {', '.join(minibatch.algorithms)}")
        return lambda game: RCFRSolver(game, key, rule=rule_arg, **regression, **average,
                                       **rest)
    if regression_given:
        raise RcfrError(f"{OPTION[regression_given[0]].flag} applies to rcfr, rcfr+ and "
                        f"the sampling schemes, not {key}")
    return lambda game: CFRSolver(game, rule_, **rest)


def _takes(key: str) -> tuple[str, ...]:
    """What an algorithm of the fictitious-play or Deep CFR family takes: the seed and the
    options declared for it (:data:`rcfr.solvers.options.OPTIONS`, the one list)."""
    return ("seed", *(o.name for o in OPTIONS if key in o.algorithms))


def _users(o) -> str:
    """Who takes option ``o``, as its refusal names them."""
    return "/".join((*o.algorithms, *o.schemes, *o.rules)) or "the regret algorithms"


def _refuse_ignored(key: str, rule, given: set, takes: tuple[str, ...]) -> None:
    """Refuse the options ``key`` of the second or third driver would ignore."""
    if rule is not None:
        raise RcfrError(f"{OPTION['rule'].flag} applies to rcfr and the sampling schemes, "
                        f"not {key}")
    for k in sorted(given, key=lambda k: list(OPTION).index(k) if k in OPTION else -1):
        if k not in takes and k != "alternating":
            o = OPTION.get(k)
            if o is None:
                raise RcfrError(f"unknown option {k!r} for {key}")
            if o.group == RUN:
                raise RcfrError(f"{o.flag} is a run's option (rcfr.solve, rcfr solve), not "
                                f"{key}'s solver's")
            raise RcfrError(f"{o.flag} applies to {_users(o)}, not {key}")


# the fictitious-play algorithms that update both players from the same games at once
_ONE_STEP = {"fsp": "fsp's players learn from the same sampled games at once",
             "nfsp": "nfsp's agents learn from the same self-play games at once"}


def _make_fp(key: str, rule, options: dict, given: set):
    """A solver of the fictitious-play family (:mod:`rcfr.solvers.fp`) for a game; options it
    would ignore are refused."""
    takes = _takes(key)
    _refuse_ignored(key, rule, given, takes)
    if options.get("alternating") is False and key in _ONE_STEP:
        raise RcfrError(f"{OPTION['alternating'].flag}: {_ONE_STEP[key]}; there are no "
                        f"alternating updates to turn off")
    kwargs = {k: options[k] for k in takes if options.get(k) is not None}
    if key not in _ONE_STEP and options.get("alternating") is not None:
        kwargs["alternating"] = options["alternating"]
    return lambda game: make_fp_solver(game, key, **kwargs)


def _make_deep(key: str, rule, options: dict, given: set):
    """A solver of the Deep CFR family (:mod:`rcfr.solvers.deep`) for a game; options it
    would ignore are refused."""
    takes = _takes(key)
    _refuse_ignored(key, rule, given, takes)
    if options.get("alternating") is False:
        raise RcfrError(f"{OPTION['alternating'].flag}: {key} updates the players in turn "
                        f"(alternating), as the Deep CFR paper")
    kwargs = {k: options[k] for k in takes if options.get(k) is not None}
    return lambda game: make_deep_solver(game, key, **kwargs)


def tables(algorithm: str, options: dict, released: bool = False) -> str | None:
    """The tables the memory guard counts (:func:`rcfr.core.budget.check_public`): the compact
    full-width ones, the sampled solvers' float32 ones (``"...-released"`` for a run evaluated
    only at its end, after :meth:`~rcfr.solvers.loop.RegretSolver.release_average`), the
    full-width float32 ones, the full-width predictive rules' (a prediction table more), else
    float64."""
    key = str(algorithm).strip().lower()
    single, rule = options.get("dtype") == "float32", key.partition(":")[0] in ALGORITHMS
    if options.get("storage") == "int16":
        return "int16-released" if released else "int16"
    if single and key in SCHEMES:
        return "float32-released" if released else "float32"
    if rule and parse_rule(key).predictive:
        return "predictive-float32" if single else "predictive"
    return "float32-width" if single and rule else None


def _positive(name: str, value, allow_zero: bool = False) -> int:
    return whole_number(value, name, 0 if allow_zero else 1)


def solve(game: Form | str, algorithm: str = "cfr+", iterations: int = 1000,
          eval_every: int = 0, *, nodes: int | None = None, episodes: int | None = None,
          eval_nodes: int = 0,
          solver: RegretSolver | None = None,
          callback: Callable[[int, float | None], None] | None = None,
          checkpoint: str | os.PathLike | None = None, checkpoint_every: float = 60.0,
          should_stop: Callable[[], bool] | None = None,
          target_exploitability: float | None = None, target_mbb: float | None = None,
          release: bool = False, on_evaluation: Callable[[Evaluation], None] | None = None,
          **options) -> SolveResult:
    """Run ``iterations`` iterations of ``algorithm`` on ``game`` -- or, with ``nodes``, whole
    iterations until that many more histories have been visited, or, for nfsp, ``episodes``
    games of self-play (its iterations; they replace ``iterations``).  The average strategy is
    evaluated every ``eval_every`` iterations and every ``eval_nodes`` nodes visited (0: only
    at the end).  ``callback(done, exploitability)`` is called after every chunk, with ``done``
    counting iterations (nodes with ``nodes``); ``exploitability`` is ``None`` when none was
    measured; ``on_evaluation(evaluation)`` gets each of those evaluations whole (its value
    too), just before.

    With ``checkpoint``, the solver state is written there atomically every
    ``checkpoint_every`` seconds of wall time (checked between chunks) and once at the end, so
    a run killed midway resumes from its last checkpoint.  ``should_stop()`` is asked after
    every chunk; when it returns true the run stops after the current iteration (the result
    says ``interrupted``).  A failed checkpoint write does not stop the run: the previous
    checkpoint is kept, a later write is tried, and if the last one fails the result's
    ``checkpoint_error`` says why (with a warning).  Chunks are kept short (about 0.25 s) so
    both react quickly; the chunking never changes the result.  With
    ``target_exploitability`` (game units) or ``target_mbb`` (mbb/g, poker games) the run
    stops at the first evaluation point where the average strategy is that close to
    equilibrium (the result says ``target_reached``); without ``eval_every`` or
    ``eval_nodes`` the target sets its own points (:func:`target_gap`: geometric, so the run
    stops at most about a tenth past where it first could, and evaluation stays about a tenth
    of the work).  Abstractions go through
    :func:`rcfr.api.solve`.  With ``release``, the run ends by turning the solver's average
    sums into the final profile in place (:meth:`~rcfr.solvers.loop.RegretSolver.
    release_average`; float32 tables give a float32 profile): the result's ``policy`` is
    ``None`` and its solver spent, so a run evaluated only at its end needs no more memory
    at the end than while it ran (how a sampled run of 2-NL Hold'em(40) fits in 22 GB);
    solvers without tabular averages end as without it."""
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
    midway = bool(eval_every or eval_nodes)  # evaluations beside the solver's tables
    tree = compile_game(game, dtype=tables(algorithm, options, release and not midway))
    target = stop_target(tree.game, target_exploitability, target_mbb)
    auto = target is not None and not eval_every and not eval_nodes  # the target's schedule
    min_nodes = tree.num_nodes / TARGET_SHARE if auto else 0  # (the game's histories)
    solver = solver if solver is not None else make_solver(tree, algorithm, **options)
    solver.setup()  # validation and kernel loading happen outside the timed runs
    if nodes is None and hasattr(solver, "check_run"):  # state that grows with the run
        solver.check_run(iterations)
    it0, nodes0 = solver.iteration, solver.nodes_visited
    chunk = eval_every if eval_every else max(1, min(1000, (iterations or 1000) // 100))
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
        before = solver.iteration
        if by_nodes:  # whole iterations up to the first past the budget or evaluation point
            goal = min(nodes, next_eval_nodes) if by_eval_nodes else nodes
            step = goal - done_nodes
            step = min(step, max(1, int(CHUNK_SECONDS / per_node)) if per_node > 0 else 1)
            t0 = time.perf_counter()
            solver.run_nodes(step)
            elapsed = time.perf_counter() - t0
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
            t0 = time.perf_counter()
            solver.run(n)
            elapsed = time.perf_counter() - t0
            per_iteration = elapsed / n
        seconds += elapsed
        done_nodes = solver.nodes_visited - nodes0
        at_end = (solver.iteration - it0 >= iterations) if nodes is None else done_nodes >= nodes
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
            evaluation = evaluate(tree, policy)
            last = (solver.iteration, policy, evaluation)
            expl = evaluation.exploitability
            if on_evaluation is not None:
                on_evaluation(evaluation)
            curve.append((solver.iteration, expl))
            curve_nodes.append(solver.nodes_visited)
        if callback is not None:
            callback(solver.iteration - it0 if nodes is None else done_nodes, expl)
        if checkpoint is not None and time.monotonic() - last_checkpoint >= checkpoint_every:
            _save_checkpoint(solver, checkpoint)
            last_checkpoint = time.monotonic()
        if target is not None and expl is not None and expl <= target:
            break
        if should_stop is not None and should_stop():
            interrupted = True
            break
    reached = None if target is None else bool(curve) and curve[-1][1] <= target
    failed = None if checkpoint is None else _save_checkpoint(solver, checkpoint)
    if failed is not None:
        warnings.warn(failed, RuntimeWarning, stacklevel=2)
    if release and getattr(solver, "releasable", False):  # (deep and FP solvers: no tables)
        policy, evaluation = None, evaluate(tree, solver.release_average())
    elif last is not None and last[0] == solver.iteration:  # evaluated at the end already
        _, policy, evaluation = last
    else:
        policy = solver.average_policy()
        evaluation = evaluate(tree, policy)
    return SolveResult(str(tree.game), solver.name, solver.iteration, seconds, policy,
                       evaluation, curve, solver, curve_nodes,
                       solver.iteration - it0, interrupted, failed, reached)


def target_gap(done: int, per: float, min_nodes: float) -> int:
    """Units (iterations or nodes) from ``done`` to a target's next evaluation point, ``per``
    nodes a unit: at least ``TARGET_RATIO - 1`` of ``done`` (a run stops at most about that
    share past the first point it could) and at least ``min_nodes`` nodes (evaluation is a
    bounded share of the work).  A function of counts alone, so the points (and where a run
    stops) never depend on the clock."""
    return max(1, math.ceil(done * (TARGET_RATIO - 1)), math.ceil(min_nodes / per))


def stop_target(game: Game, exploitability: float | None, mbb: float | None) -> float | None:
    """The exploitability (game units) a run of ``game`` stops at, from
    ``target_exploitability`` and ``target_mbb`` (checked; refused where ``game`` has no big
    blind to count milli-big-blinds in)."""
    if exploitability is None and mbb is None:
        return None
    for name, value in (("target-exploitability", exploitability), ("target-mbb", mbb)):
        if value is not None and not 0 < value < float("inf"):
            raise RcfrError(f"--{name} must be a positive number, got {value}")
    targets = [] if exploitability is None else [float(exploitability)]
    if mbb is not None:
        big_blind = getattr(game, "big_blind", None)
        if not big_blind:
            raise RcfrError(f"--target-mbb counts milli-big-blinds; {game} has no big "
                            f"blind: use --target-exploitability")
        targets.append(float(mbb) * big_blind / 1000.0)
    return min(targets)


def _save_checkpoint(solver: RegretSolver, path: str | os.PathLike) -> str | None:
    """Write ``solver``'s checkpoint; the error line when the write failed (the atomic write
    keeps the previous file), so a full disk does not lose the run's other outputs."""
    try:
        solver.save_checkpoint(path)
    except RcfrError as exc:
        return str(exc)
    return None
