"""The ``rcfr`` command line: list games, solve them, evaluate strategies, solve the LP.

Every command takes ``--json`` and then prints one JSON object (or list) on stdout.  Bad input
gives a one-line ``error: ...`` on stderr and exit code 2.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from .console import err, out, print_table  # soft-wrapped: a pipe gets whole lines
from .core.budget import evaluation_only, set_memory_limit, set_time_limit
from .core.errors import RcfrError
from .core.fileio import check_outputs, shown
from .core.lazy import Deferred
from .core.names import DEEP_ALGORITHMS, FP_ALGORITHMS
from .games.registry import STANDARD_GAMES, load_game, registered_games
from .run.curve import checkpoint_seed, curve_path
from .run.spec import RunSpec, load_run_spec
from .solvers.options import (
    DEEP_PANEL,
    FP_PANEL,
    GAME_PANEL,
    MAX_COUNT,
    OPTION,
    OPTIONS,
    PANELS,
    Option,
)

# the numerical modules load when a command runs, not to build the command table (rcfr --help)
evaluate_policy = Deferred(".evaluate", "evaluate", __package__)
read_lock = Deferred(".solvers.locking", "read_lock", __package__)
check_public_choice = Deferred(".forms.compile", "check_public_choice", __package__)
compile_game = Deferred(".forms.compile", "compile_game", __package__)
compile_history_form = Deferred(".forms.compile", "compile_history_form", __package__)
form_sizes = Deferred(".forms.sizes", "form_sizes", __package__)
available_cores = Deferred(".forms.threads", "available_cores", __package__)
kernel_threads = Deferred(".forms.threads", "kernel_threads", __package__)
solve_lp = Deferred(".lp", "solve_lp", __package__)
TabularPolicy = Deferred(".policy", "TabularPolicy", __package__)
load_lifted = Deferred(".abstraction.lifted", "load_lifted", __package__)

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  rich_markup_mode=None,
                  help="Solve two-player zero-sum imperfect-information games with CFR.")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object for scripts.")]
FormOpt = Annotated[str, typer.Option(
    "--form", help="Compiled form: history, public (poker and dice games) or auto (the public "
                   "form where the history form would not fit).")]


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("rcfr")
        except PackageNotFoundError:  # pragma: no cover - run from a source tree
            text = "unknown"
        out.print(f"rcfr {text}")
        raise typer.Exit(0)


def import_game_module(name: str) -> None:
    """Import ``name`` (a module, or a ``.py`` file) so the games it registers with
    :func:`rcfr.games.register` can be loaded by name; the current folder is searched first."""
    path = Path(name)
    if name.endswith(".py"):
        if not path.is_file():
            raise RcfrError(f"--game-module {shown(name)}: no such file")
        name, folder = path.stem, str(path.resolve().parent)
    else:
        folder = os.getcwd()
    if folder not in sys.path:
        sys.path.insert(0, folder)
    try:
        importlib.import_module(name)
    except ImportError as exc:
        raise RcfrError(f"--game-module {name}: cannot import it ({exc})") from None
    except RcfrError:
        raise
    except SystemExit as exc:  # the module called sys.exit(): bad input, not our exit
        raise RcfrError(f"--game-module {name}: importing it called sys.exit({exc.code!r})"
                        ) from None
    except Exception as exc:
        raise RcfrError(f"--game-module {name}: importing it failed with "
                        f"{type(exc).__name__}: {exc}") from None


@app.callback()
def _options(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
    game_module: Annotated[list[str] | None, typer.Option(
        "--game-module", metavar="MODULE",
        help="Import this module (or .py file) first, so the games it registers with "
             "rcfr.games.register can be named; repeatable.")
    ] = None,
) -> None:
    """Solve two-player zero-sum imperfect-information games with CFR."""
    for name in game_module or ():
        import_game_module(name)


def _max_memory(value: str | None) -> str | None:
    if value is not None:
        set_memory_limit(value)  # main() clears it after the command
    return value


MaxMemoryOpt = Annotated[str | None, typer.Option(
    "--max-memory", callback=_max_memory,
    help="Refuse games and feature matrices needing more memory than this, e.g. 8G or 512M "
         "(default: half of the memory available).")]


def _max_time(value: float | None) -> float | None:
    if value is not None:
        set_time_limit(value)  # main() clears it after the command
    return value


MaxTimeOpt = Annotated[float | None, typer.Option(
    "--max-time", callback=_max_time, metavar="SECONDS",
    help="Stop compiling a game whose size has no closed form (random_game, openspiel: and "
         "custom games, walked to count them) after this many seconds (default: no limit).")]
EXIT_SIGNAL = {signal.SIGINT: 130, signal.SIGTERM: 143}


def _count(name: str, value: int | None, low: int = 1) -> None:
    """Refuse a count option below ``low`` or beyond what the kernels can hold."""
    if value is not None and not low <= value <= MAX_COUNT:
        bound = ("positive" if low == 1 else f">= {low}") if value < low else \
            f"at most {MAX_COUNT:,}"
        raise RcfrError(f"{name} must be {bound}, got {value}")


class _StopFlag:
    """SIGINT/SIGTERM handlers that only record the signal, so the solver stops between two
    iterations instead of being interrupted inside numba or a regressor's fit; a second
    signal stops at once."""

    def __init__(self) -> None:
        self.signum: int | None = None

    def __call__(self) -> bool:
        return self.signum is not None

    def _handle(self, signum, frame) -> None:
        if self.signum is not None:
            raise KeyboardInterrupt
        self.signum = signum
        err.print(f"{signal.Signals(signum).name}: stopping after the current iteration "
                  "(again to quit now)")

    @contextmanager
    def installed(self) -> Iterator[_StopFlag]:
        try:
            old = {s: signal.signal(s, self._handle) for s in EXIT_SIGNAL}
        except ValueError:  # not the main thread: leave the handlers alone
            yield self
            return
        try:
            yield self
        finally:
            for s, handler in old.items():
                signal.signal(s, handler)


SLOW_NOTICE_SECONDS = 3.0  # a compile longer than this says so (on a terminal)


@contextmanager
def notice_if_slow(text: str, after: float | None = None) -> Iterator[None]:
    """Print ``text`` on stderr once the block has run ``after`` seconds (default
    ``SLOW_NOTICE_SECONDS``), where stderr is a terminal: a long compile is not silent."""
    if not err.is_terminal:
        yield
        return
    timer = threading.Timer(SLOW_NOTICE_SECONDS if after is None else after,
                            lambda: err.print(text, markup=False, highlight=False))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _emit(obj) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")


def _fmt_expl(ev) -> str:
    text = f"{ev.exploitability:.6g}"
    if ev.exploitability_pot is not None:
        text += f"  ({ev.exploitability_pot:.3g}% of the pot)"
    if ev.exploitability_mbb is not None:
        text += f"  ({ev.exploitability_mbb:.4g} mbb/g)"
    return text


@app.command()
def games(
    names: Annotated[list[str] | None, typer.Argument(help="Game strings (default: all).")] = None,
    max_memory: MaxMemoryOpt = None,
    max_time: MaxTimeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List games with their sizes (--json: a list of objects, one per game)."""
    descriptions = registered_games()
    rows = []
    for spec in names or STANDARD_GAMES:
        game = load_game(spec)
        with notice_if_slow(f"{game}: compiling both forms to count them (--max-memory "
                            f"bounds the walk) ..."):
            sizes = form_sizes(game)  # both compiled forms
        rows.append({"name": str(game), "description": descriptions.get(game.short_name, ""),
                     **sizes})
    if as_json:
        _emit(rows)
        return
    print_table(("game", "histories", "terminals", "infosets", "sequences", "history MiB",
                 "public nodes", "public MiB"),
                ((r["name"], *(f"{r[k]:,}" for k in ("histories", "terminals", "infosets",
                                                      "sequences")),
                  ("~" if r["history_mb_estimated"] else "") + f"{r['history_mb']:,.1f}",
                  *(("-", "-") if r["public_nodes"] is None else
                    (f"{r['public_nodes']:,}", ("~" if r.get("public_mb_estimated") else "")
                     + f"{r['public_mb']:,.1f}"))) for r in rows), no_wrap=(0,))
    if not names:
        families = [f"{k}: {v}" for k, v in descriptions.items()]
        families.append("openspiel:<game>: any two-player zero-sum OpenSpiel game, e.g. "
                        "openspiel:leduc_poker (the openspiel extra)")
        out.print("Game families: " + "; ".join(families), markup=False, highlight=False)


FILES_PANEL = "Files, checkpoints and output"
DISTRIBUTED_PANEL = "Distributed: one game on Ray actors"
# the panels of solve's own options (the declared ones carry theirs)
OWN_PANELS = {**dict.fromkeys(("out_file", "current_file", "out_abstract", "checkpoint",
                               "checkpoint_every", "resume", "spec", "as_json"), FILES_PANEL),
              **dict.fromkeys(("max_memory", "max_time", "rounds"), GAME_PANEL),
              **dict.fromkeys(("distributed", "actors", "cut", "address"), DISTRIBUTED_PANEL)}


def _panel_title(panel: str) -> str:
    """A family's panel title, naming the options its algorithms share with other panels."""
    family = {FP_PANEL: FP_ALGORITHMS, DEEP_PANEL: DEEP_ALGORITHMS}.get(panel)
    if family is None:
        return panel
    also = [o.flag for o in OPTIONS if o.cli and o.panel != panel
            and set(family) & {*o.algorithms, *o.schemes}]
    return f"{panel} (also {', '.join(also)})" if also else panel


class PanelCommand(typer.core.TyperCommand):
    """A command whose help lists its options in panels (``rich_help_panel``), in the order
    of :data:`rcfr.solvers.options.PANELS` and then of first use, as plain text: the app
    keeps rich_markup_mode=None (help texts are not markup), under which typer itself
    prints one flat list."""

    def format_options(self, ctx, formatter) -> None:
        args, panels = [], {p: [] for p in PANELS}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                args.append(record)
            else:
                panel = getattr(param, "rich_help_panel", None) or OWN_PANELS.get(param.name)
                panels.setdefault(panel or "Options", []).append(record)
        if args:
            with formatter.section("Arguments"):
                formatter.write_dl(args)
        for panel, records in panels.items():
            if records:
                with formatter.section(_panel_title(panel)):
                    formatter.write_dl(records)


def _declared(options: tuple[Option, ...]):
    """Give a command the options declared in :mod:`rcfr.solvers.options`: its signature (what
    typer reads) is its first parameter, one typer option per declaration, then its own
    parameters; the command receives the declared ones in ``**options``."""

    def wrap(command):
        own = [p for p in inspect.signature(command, eval_str=True).parameters.values()
               if p.kind is not inspect.Parameter.VAR_KEYWORD]
        declared = [inspect.Parameter(
            o.cli_name, inspect.Parameter.KEYWORD_ONLY, default=o.on_cli_default,
            annotation=Annotated[o.type if o.on_cli_default is not None else o.type | None,
                                 typer.Option(*o.cli, help=o.help,
                                              rich_help_panel=o.panel)])
            for o in options if o.cli]
        command.own_parameters = tuple(p.name for p in own)
        command.__signature__ = inspect.Signature(
            [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own[:1]] + declared
            + [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own[1:]])
        return command

    return wrap


@app.command(cls=PanelCommand)
@_declared(OPTIONS)
def solve(
    game: Annotated[str | None, typer.Argument(
        help="Game string, e.g. 'leduc(canonical=true)'.")] = None,
    out_file: Annotated[Path | None, typer.Option("--out", "-o",
                                                  help="Write the average strategy here "
                                                       "(.npz).")] = None,
    current_file: Annotated[Path | None, typer.Option(
        "--out-current", help="Write the current strategy (the link applied to the last "
                              "estimates) here (.npz).")] = None,
    out_abstract: Annotated[Path | None, typer.Option(
        "--out-abstract", help="With --abstraction: write the abstract game's average strategy "
                               "here (.npz).")] = None,
    checkpoint: Annotated[Path | None, typer.Option(
        help="Write the solver state here (atomically) every --checkpoint-every seconds, at "
             "the end, and when stopped by Ctrl-C or SIGTERM.")] = None,
    checkpoint_every: Annotated[float | None, typer.Option(
        "--checkpoint-every", help="Seconds between checkpoints (default 60; needs "
                                   "--checkpoint).")] = None,
    resume: Annotated[Path | None, typer.Option(
        help="Continue from this checkpoint: -n counts further iterations (--nodes further "
             "histories); the game, algorithm, --link, --averaging, --simultaneous and the "
             "regressor options must match the run that wrote it.")] = None,
    max_memory: MaxMemoryOpt = None,
    max_time: MaxTimeOpt = None,
    rounds: Annotated[str | None, typer.Option(
        help="liars_dice: solve the multi-round game (the loser of a round loses a die until "
             "a player has none), each round by -a on the public form, last rounds first; the "
             "next round is opened by: first (player 0), loser or winner.")] = None,
    spec: Annotated[Path | None, typer.Option(
        help="Run the RunSpec in this TOML file (its fields replace the options).")] = None,
    as_json: JsonOpt = False,
    distributed: Annotated[str | None, typer.Option(
        help="ray: solve one game across Ray actors (cfr ... pdcfr+ on the public form; the "
             "driver keeps the trunk above --cut, each actor a group of subgames; the same "
             "numbers as one process).  --checkpoint and --resume then name a folder.")] = None,
    actors: Annotated[int | None, typer.Option(
        help="--distributed: the number of actors (default 2).")] = None,
    cut: Annotated[str | None, typer.Option(
        help="--distributed: where the subgames start: flop (the first chance nodes below "
             "the root), chance, or depth:D (default: flop, or depth:2 without chance).")] = None,
    address: Annotated[str | None, typer.Option(
        help="--distributed: the Ray cluster, auto or HOST:PORT (default: a local cluster "
             "with one worker per actor).")] = None,
    **options: Any,
) -> None:
    """Run a solver and write its average strategy.  Ctrl-C or SIGTERM stops after the current
    iteration, writes the checkpoint and strategies asked for, and exits 130 or 143."""
    if distributed is not None or actors is not None or cut is not None or address is not None:
        if distributed is None:
            raise RcfrError("--actors, --cut and --address need --distributed ray")
        return _solve_distributed(game, distributed, actors, cut, address, spec, out_file,
                                  current_file, out_abstract, checkpoint, checkpoint_every,
                                  resume, rounds, as_json, options, max_memory)
    if spec is not None or game is None:
        if spec is None:
            raise RcfrError("give a game string or --spec FILE")
        if game is not None:
            raise RcfrError("give a game string or --spec FILE, not both")
        given = [o.flag for o in OPTIONS if o.cli and options[o.cli_name] != o.on_cli_default]
        if given:  # never silently dropped: the spec is the whole run
            raise RcfrError(f"--spec {spec} holds the run's options; leave out "
                            f"{', '.join(given)} (or set them in the spec)")
        run = load_run_spec(spec)
    else:
        run = run_from_options(game, options)
        if resume is not None and options["seed"] is None:  # the checkpoint's stream goes on
            run = run.replace(seed=checkpoint_seed(resume, run.seed))
    if checkpoint_every is not None:
        if checkpoint is None:
            raise RcfrError("--checkpoint-every needs --checkpoint FILE")
        if not 0 < checkpoint_every < float("inf"):
            raise RcfrError(f"--checkpoint-every must be a positive number of seconds, "
                            f"got {checkpoint_every}")
    check_outputs({"--out": out_file, "--out-current": current_file, "--checkpoint": checkpoint,
                   "--out-abstract": out_abstract}, {"--resume": resume, "--spec": spec},
                  updates=(("--checkpoint", "--resume"),))
    if rounds is not None:  # multi-round liar's dice: checked and run before any compile
        if spec is not None:
            raise RcfrError("--spec runs one game; leave out --rounds")
        for o in (OPTION["target_exploitability"], OPTION["target_mbb"]):
            if getattr(run, o.name) is not None:
                raise RcfrError(f"--rounds runs every round to its budget and evaluates the "
                                f"whole game once at the end; leave out {o.flag}")
        _check_rounds(run.game, rounds, run.form or "auto", {
            "--out-current": current_file, "--checkpoint": checkpoint,
            "--resume": resume, "--abstraction": run.abstraction, "--out-abstract": out_abstract})
        return _solve_rounds(run.game, rounds, run.algorithm, run.iterations, run.nodes,
                             as_json, out_file, **run.solver_options())
    from .run.engine import RunHooks, run_spec  # (the numerical core: not for --help)

    hooks = RunHooks(checkpoint=checkpoint, checkpoint_every=checkpoint_every or 60.0,
                     resume=resume, further=True, out=out_file, out_current=current_file,
                     out_abstract=out_abstract,  # the curve kept beside the checkpoint
                     curve_file=curve_path(checkpoint) if checkpoint is not None else None,
                     curve_from=curve_path(resume) if resume is not None else None)
    progress = Progress(TextColumn("{task.description}", markup=False), BarColumn(),
                        MofNCompleteColumn(), TextColumn("expl {task.fields[expl]}"),
                        TimeElapsedColumn(),
                        console=err, transient=True, disable=not err.is_terminal)
    stop = _StopFlag()
    with stop.installed(), progress:
        task = progress.add_task(f"{run.algorithm} on {run.game}",
                                 total=run.nodes or run.iterations or run.episodes,
                                 expl="-")

        def tick(done: int, expl: float | None) -> None:
            fields = {} if expl is None else {"expl": f"{expl:.3g}"}
            progress.update(task, completed=done, **fields)

        hooks.progress, hooks.should_stop = tick, stop
        with kernel_threads(run.threads or available_cores()):  # (the same numbers on any count)
            result = run_spec(run, hooks)
    info = result.to_dict()
    info.update({"out": str(out_file) if out_file else None,
                 "out_current": str(current_file) if current_file else None, "seed": run.seed,
                 "checkpoint": str(checkpoint) if checkpoint else None})
    if out_abstract is not None:
        info["out_abstract"] = str(out_abstract)
    info["run"] = run.hash  # the run's identity, as a sweep stores it
    info["notes"] = solve_notes(run, result, result.tree)
    if spec is not None:  # what solve --spec printed before it shared this path
        info.update({"hash": run.hash, "spec": run.to_dict(), "nodes": info["nodes_visited"],
                     "points": result.points})
    if as_json:
        _emit(info)
    else:
        _print_solve(result, info, result.tree, out_file)
    if stop.signum is not None:
        written = [f"{what} -> {path}" for what, path in (
            ("checkpoint", checkpoint), ("average strategy", out_file),
            ("current strategy", current_file)) if path is not None]
        err.print(f"interrupted by {signal.Signals(stop.signum).name} after iteration "
                  f"{result.iterations:,}" + (": " + ", ".join(written) if written else
                                              " (nothing written: no --checkpoint or --out)"))
        raise typer.Exit(EXIT_SIGNAL[stop.signum])


def _solve_distributed(game, distributed, actors, cut, address, spec, out_file, current_file,
                       out_abstract, checkpoint, checkpoint_every, resume, rounds, as_json,
                       options, max_memory) -> None:
    """``rcfr solve GAME --distributed ray``: :class:`rcfr.distributed.DistributedSolver`.
    Ctrl-C or SIGTERM stops after the current iteration, writes the checkpoint and strategy
    asked for, and exits 130 or 143, as a single-process solve does."""
    if str(distributed).strip().lower() != "ray":
        raise RcfrError(f"--distributed takes ray, got {distributed!r}")
    for flag, value in (("--spec", spec), ("--out-current", current_file),
                        ("--out-abstract", out_abstract), ("--rounds", rounds)):
        if value is not None:
            raise RcfrError(f"--distributed does not take {flag}")
    if game is None:
        raise RcfrError("give a game string")
    from .core.names import RULES
    run = run_from_options(game, options)
    allowed = {"algorithm", "iterations", "alternating", "averaging", "link", "alpha", "beta",
               "gamma", "form", "threads", "eval_every", "seed", "dtype"}
    given = [o.flag for o in OPTIONS if o.cli and o.name not in allowed
             and options[o.cli_name] != o.on_cli_default]
    if given:
        raise RcfrError(f"--distributed does not take {', '.join(given)}")
    if run.form not in (None, "auto", "public"):
        raise RcfrError("--distributed solves the public form; leave out --form or give public")
    key = run.algorithm.strip().lower()
    if key not in RULES:  # (the scheduled rules set their parameters from the driver)
        raise RcfrError(f"--distributed runs {', '.join(RULES)}, not {run.algorithm!r}")
    if actors is not None and actors < 1:
        raise RcfrError(f"--actors must be at least 1, got {actors}")
    if checkpoint_every is not None and checkpoint is None:
        raise RcfrError("--checkpoint-every needs --checkpoint DIR")
    if checkpoint_every is not None and not 0 < checkpoint_every < float("inf"):
        raise RcfrError(f"--checkpoint-every must be a positive number of seconds, got "
                        f"{checkpoint_every}")
    check_outputs({"--out": out_file})
    from .distributed.checkpoint_folder import check_folder
    from .distributed.cluster import check_address, import_ray
    if checkpoint is not None:
        check_folder(checkpoint)
    ray = import_ray()
    check_address(address)
    from .distributed import DistributedSolver
    from .solvers.run import _rule_for
    rule = _rule_for(key, None, {k: getattr(run, k, None) for k in
                                 ("alpha", "beta", "gamma", "averaging")})
    dtype = getattr(run, "dtype", None) or "float64"
    if resume is not None:
        expect = {"game": run.game, "algorithm": rule.spec(), "actors": actors, "cut": cut,
                  "alternating": run.alternating, "averaging": run.averaging,
                  "link": run.link, "dtype": dtype, "seed": options["seed"]}
        solver = DistributedSolver.resume(resume, address=address, expect=expect,
                                          max_memory=max_memory)
    else:
        solver = DistributedSolver(run.game, rule.spec(), actors=actors or 2, cut=cut,
                                   alternating=run.alternating, averaging=run.averaging,
                                   link=run.link, address=address, dtype=dtype,
                                   max_memory=max_memory, seed=run.seed)
    stop = _StopFlag()
    start, t0 = solver.iteration, time.perf_counter()
    try:
        def line(s) -> None:
            if not as_json and err.is_terminal:
                st = s.stats() if s.iteration % 50 == 0 else None
                if st is not None:
                    mem = max(m["rss"] for m in st["actor_memory"]) / 2**20
                    err.print(f"iteration {s.iteration:,}: {st['bytes_per_iteration']:,.0f} "
                              f"bytes/iteration, driver {st['driver_share']:.0%}, actor RSS "
                              f"<= {mem:,.0f} MiB", markup=False, highlight=False)
        with stop.installed():  # (after ray.init, whose own handlers it replaces)
            solver.run(run.iterations or 1000, progress=line, checkpoint_dir=checkpoint,
                       checkpoint_seconds=None if checkpoint is None else
                       checkpoint_every or 60.0, should_stop=stop)
            ev = solver.evaluate()
            stats = solver.stats()
            if checkpoint is not None:
                solver.save_checkpoint(checkpoint)
            if out_file is not None:
                solver.average_policy().save(out_file)
    except ray.exceptions.RayActorError:
        raise RcfrError(f"an actor died after iteration {solver.iteration:,}: continue from "
                        f"the last checkpoint with --resume DIR") from None
    finally:
        solver.close()
    seconds = time.perf_counter() - t0
    from .evaluate import Evaluation
    evaluation = Evaluation(ev["value"], tuple(ev["best_response"]), ev["nash_conv"],
                            ev["exploitability"], getattr(solver.tree.game, "big_blind", None))
    done = solver.iteration - start
    info = {**solver.info(), "seconds": seconds,
            "iterations_per_second": done / seconds if seconds > 0 else None,
            **evaluation.to_dict(),
            "bytes_per_iteration": stats["bytes_per_iteration"],
            "driver_share": stats["driver_share"],
            "seconds_per_iteration": stats["seconds_per_iteration"],
            "actor_memory": stats["actor_memory"], "driver_tables": stats["driver_tables"],
            "driver_peak_rss": stats["driver_peak_rss"],
            "out": str(out_file) if out_file else None,
            "checkpoint": str(checkpoint) if checkpoint else None,
            "interrupted": stop.signum is not None}
    if as_json:
        _emit(info)
    else:
        _print_head(info["algorithm"], info["game"], info, seconds, evaluation)
        out.print(f"  distributed         {info['actors']} actors, {info['subgames']:,} subgames "
                  f"below the cut {info['cut']}; {stats['bytes_per_iteration']:,.0f} bytes "
                  f"moved per iteration; driver {stats['driver_share']:.0%} of the time",
                  markup=False, highlight=False)
        if checkpoint is not None:
            out.print(f"  checkpoint -> {checkpoint}", markup=False, highlight=False)
        if out_file is not None:
            out.print(f"  average strategy -> {out_file}", markup=False, highlight=False)
    if stop.signum is not None:
        written = [f"{what} -> {path}" for what, path in (
            ("checkpoint", checkpoint), ("average strategy", out_file)) if path is not None]
        err.print(f"interrupted by {signal.Signals(stop.signum).name} after iteration "
                  f"{solver.iteration:,}" + (": " + ", ".join(written) if written else
                                             " (nothing written: no --checkpoint or --out)"))
        raise typer.Exit(EXIT_SIGNAL[stop.signum])


SOLVE_OWN = solve.own_parameters  # the game and what is no option of the run (files, ...)


def run_from_options(game: str, values: dict[str, Any]) -> RunSpec:
    """The RunSpec of ``rcfr solve GAME [OPTIONS]`` from the declared options' values (by
    their command-line parameter names), each checked under its flag: ``--nodes`` replaces
    ``--iterations``, the average strategy is evaluated ten times in a run unless
    ``--eval-every`` says otherwise (a target sets its own points), and ``--form auto`` is the
    default form."""
    if not game.strip():
        load_game(game)  # its error: the games there are
    run: dict[str, Any] = {}
    for o in OPTIONS:
        if not o.cli:
            continue
        value = values[o.cli_name]
        o.check(value)
        run[o.name] = (not value) if o.invert else value
    budgets = [OPTION[k].flag for k in ("iterations", "nodes", "episodes") if run[k] is not None]
    if len(budgets) > 1:
        raise RcfrError(f"give one budget: {' or '.join(budgets)}, not both")
    nodes, iterations = run["nodes"], run["iterations"] or 1000  # -n's default
    run["iterations"] = iterations
    if nodes is not None or run["episodes"] is not None:  # --nodes, --episodes replace -n
        run["iterations"] = None
        iterations = run["episodes"] or iterations
    if run["eval_every"] is None:
        targeted = run["target_exploitability"] is not None or run["target_mbb"] is not None
        if targeted:  # the target's own schedule (rcfr.run.schedule.target_gap)
            run["eval_every"], run["eval_nodes"] = 0, 0
        else:
            run["eval_every"] = 0 if nodes is not None else max(1, iterations // 10)
            run["eval_nodes"] = max(1, nodes // 10) if nodes is not None else 0
    if run["form"] == "auto":
        run["form"] = None
    if str(run["algorithm"]).strip().lower() == "auto":  # the rule best on the game's kind
        from .solvers.auto import auto_rule

        run["algorithm"], line = auto_rule(game)
        err.print(line, markup=False, highlight=False)
    return RunSpec(game=game, **{k: v for k, v in run.items() if v is not None})


def _check_rounds(game: str, opener: str, form: str, files: dict) -> None:
    """Refuse what ``solve --rounds`` does not do, before anything is compiled."""
    from .abstraction.rounds import multi_round_game, round_states

    multi_round_game(game)
    round_states(1, 1, opener)
    given = [name for name, value in files.items() if value is not None]
    if given:
        raise RcfrError(f"--rounds solves one game per round and writes only its strategy "
                        f"(--out); leave out {given[0]}")
    check_public_choice(form, "--rounds solves the rounds")


def _solve_rounds(game: str, opener: str, algorithm: str, iterations: int, nodes: int | None,
                  as_json: bool, out_file: Path | None, **options) -> None:
    """``solve --rounds``: multi-round liar's dice, round by round (rcfr.abstraction.rounds)."""
    from .abstraction.rounds import multi_round_game, solve_multi_round

    dice, dice2, faces = multi_round_game(game)
    sol = solve_multi_round(dice, dice2, opener, faces, algorithm, iterations, nodes, **options)
    info = sol.to_dict()
    info["out"] = str(out_file) if out_file else None
    if out_file is not None:
        sol.save(out_file)
    if as_json:
        _emit(info)
        return
    who = {"first": "player 0", "loser": "the loser", "winner": "the winner"}[opener]
    out.print(f"{algorithm} on {info['game']} over rounds (next round opened by {who}): "
              f"{sol.nodes_visited:,} nodes visited in {sol.seconds:.2f} s")
    for (d0, d1, o), v in sol.values.items():
        out.print(f"  round with dice ({d0}, {d1}) opened by player {o}: value {v:+.6f}, "
                  f"round exploitability {sol.round_exploitability[(d0, d1, o)]:.3g}")
    out.print(f"value {sol.value:+.6f}  exploitability {sol.exploitability:.6g} "
              f"(best responses {sol.best_responses[0]:+.6f}, {sol.best_responses[1]:+.6f})")
    if out_file is not None:
        out.print(f"  round strategies -> {out_file}")


NFSP_EPISODES = 1_000_000  # Heinrich & Silver 2016 trained Leduc for millions of episodes


def solve_notes(run: RunSpec, result, tree) -> list[str]:
    """Why a result may look wrong: an NFSP budget far below the NFSP paper's, or f-RCFR's
    linear model with fewer features than the information sets it fits."""
    notes = []
    if run.algorithm == "nfsp" and result.iterations < NFSP_EPISODES:
        notes.append(f"nfsp learns from self-play: Heinrich & Silver (2016) trained Leduc for "
                     f"millions of episodes; {result.iterations:,} are an early, noisy point "
                     f"of that curve (--episodes {NFSP_EPISODES:,} or more)")
    shortfall = getattr(getattr(result.solver, "estimator_", None), "shortfall", None)
    short = shortfall() if callable(shortfall) else None
    if short is not None:
        features, infosets = short
        notes.append(f"the linear model has {features} features (--features "
                     f"{run.features or 'hashing:5'}) for {infosets} information sets: it "
                     f"cannot fit every regret, so it plateaus above equilibrium (D'Orazio et "
                     f"al. 2019, Fig. 2); give at least as many features (hashing:K has 10*K) "
                     f"to converge")
    return notes


def _print_head(algorithm: str, game: str, info: dict, seconds: float, ev) -> None:
    """A solve's first lines, in one process or on Ray actors: the work and its speed, the
    value and the exploitability."""
    if "episodes" in info:  # nfsp: episodes of self-play, no tree walked
        out.print(f"{algorithm} on {game}: {info['episodes']:,} episodes in {seconds:.2f} s "
                  f"({info['episodes_per_second'] or 0:,.0f} episodes/s)")
    else:
        rate = info["iterations_per_second"]  # None when no time passed
        out.print(f"{algorithm} on {game}: {info['iterations']:,} iterations, "
                  f"{info['nodes_visited']:,} nodes visited in {seconds:.2f} s"
                  + (f" ({rate:,.0f} it/s)" if rate is not None else ""))
    out.print(f"  value to player 0   {ev.value:+.6f}")
    out.print(f"  exploitability      {_fmt_expl(ev)}"
              + ("  (in the locked game)" if ev.locked else ""))
    if ev.locked:  # what each player still gains deviating at its free information sets
        g0, g1 = ev.gains
        out.print(f"  locked: the players' gains by deviating where free: {g0:.6g} (player 0), "
                  f"{g1:.6g} (player 1)")


def _print_solve(result, info: dict, tree, out_file) -> None:
    _print_head(result.algorithm, result.game, info, result.seconds, result.evaluation)
    if "tabular_exploitability" in info:
        out.print(f"  tabular average     {info['tabular_exploitability']:.6g} (the model's "
                  "strategy above)")
    if "complexity" in info:
        out.print(f"  complexity          {info['complexity']:,} "
                  f"({100 * info['complexity_share']:.1f}% of {tree.num_sequences:,} sequences)")
    warm = info.get("warm_start")
    if warm is not None:
        out.print(f"  warm start          {warm['from']}: {warm['iterations']:,} iterations' "
                  f"worth (its exploitability {warm['exploitability']:.6g}; "
                  f"{100 * (warm['matched'] + warm['partial']):.1f}% of the information "
                  f"sets found there)", markup=False, highlight=False)
    if info.get("target_reached") is not None:
        out.print("  stopped at the target exploitability" if info["target_reached"] else
                  "  target exploitability not reached in the budget")
    if out_file is not None:
        out.print(f"  average strategy -> {out_file}")
    for note in info["notes"]:
        out.print(f"  note: {note}", markup=False, highlight=False)


@app.command()
def evaluate(
    game: Annotated[str, typer.Argument(help="Game string.")],
    strategy: Annotated[Path | None, typer.Argument(help="Strategy file (.npz).")] = None,
    uniform: Annotated[bool, typer.Option("--uniform", help="Evaluate the uniform "
                                                            "policy.")] = False,
    form: FormOpt = "auto",
    rounds: Annotated[str | None, typer.Option(
        help="liars_dice over rounds (first, loser or winner opens the next round): the "
             "strategy file is solve --rounds's.")] = None,
    lock: Annotated[str | None, typer.Option(
        "--lock", help="Evaluate in the game this lock restricts (solve --lock's FILE): the "
                       "locked sets held to the lock, best responses deviating only where "
                       "free.")] = None,
    max_memory: MaxMemoryOpt = None,
    max_time: MaxTimeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Value, best-response values and exploitability of a strategy."""
    if uniform == (strategy is not None):
        raise RcfrError("give either a strategy file or --uniform")
    if rounds is not None:
        if lock is not None:
            raise RcfrError("--lock evaluates a compiled game's strategy; it takes no --rounds")
        return _evaluate_rounds(game, rounds, strategy, as_json)
    with evaluation_only(), notice_if_slow(f"{game}: compiling ..."):  # judged by
        tree = compile_game(game, form)  # evaluation's own peak: no solver tables
    policy = TabularPolicy.uniform(tree) if uniform else TabularPolicy.load(strategy, tree)
    ev = evaluate_policy(tree, policy, lock=None if lock is None else read_lock(tree, lock))
    if as_json:
        _emit(ev.to_dict())
        return
    out.print(f"{'uniform policy' if uniform else strategy} in {tree.game}"
              + (f", locked by {lock}" if ev.locked else ""))
    out.print(f"  value to player 0        {ev.value:+.6f}")
    out.print(f"  best response, player 0  {ev.best_response_values[0]:+.6f}")
    out.print(f"  best response, player 1  {ev.best_response_values[1]:+.6f}")
    out.print(f"  exploitability           {_fmt_expl(ev)}"
              + ("  (in the locked game: the players' gains summed)" if ev.locked else ""))
    out.print(f"  NashConv                 {ev.nash_conv:.6g}")


def _evaluate_rounds(game: str, opener: str, strategy: Path | None, as_json: bool) -> None:
    """``evaluate --rounds``: a multi-round strategy (or the uniform one) in multi-round
    liar's dice."""
    from .abstraction.rounds import evaluate_multi_round, load_multi_round, multi_round_game

    dice, dice2, faces = multi_round_game(game)
    probs = None if strategy is None else load_multi_round(strategy, game, opener)
    ev = evaluate_multi_round(dice, dice2, opener, faces, probs)  # None: the uniform profile
    if as_json:
        _emit({"game": game, "rounds": opener, **ev})
        return
    out.print(f"{'uniform policy' if strategy is None else strategy} in {game} over rounds "
              f"(--rounds {opener})")
    out.print(f"  value to player 0        {ev['value']:+.6f}")
    out.print(f"  best response, player 0  {ev['best_response_values'][0]:+.6f}")
    out.print(f"  best response, player 1  {ev['best_response_values'][1]:+.6f}")
    out.print(f"  exploitability           {ev['exploitability']:.6g}")


@app.command()
def lp(
    game: Annotated[str, typer.Argument(help="Game string.")],
    out_file: Annotated[Path | None, typer.Option("--out", "-o",
                                                  help="Write the equilibrium here.")] = None,
    max_memory: MaxMemoryOpt = None,
    max_time: MaxTimeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Exact game value and an equilibrium from the sequence-form linear program."""
    check_outputs({"--out": out_file})
    tree = compile_history_form(game)  # the LP's own form
    sol = solve_lp(tree)
    policy = TabularPolicy(tree, sol.strategy, {"algorithm": "lp"})
    ev = evaluate_policy(tree, policy)
    if out_file is not None:
        policy.save(out_file)
    if as_json:
        _emit({"game": str(tree.game), "value": sol.value,
               "exploitability": ev.exploitability, "out": str(out_file) if out_file else None})
        return
    out.print(f"{tree.game}: value to player 0 {sol.value:+.9f} "
              f"(equilibrium exploitability {ev.exploitability:.2g})")
    if out_file is not None:
        out.print(f"  equilibrium -> {out_file}")


BlueprintAbstractionOpt = Annotated[str | None, typer.Option(
    "--abstraction", help="The strategy file is a strategy of this abstraction of GAME, as "
                          "solve --abstraction SPEC --out-abstract writes it (a spot's "
                          "buckets:K): it is lifted to GAME first.")]


@app.command()
def resolve(
    game: Annotated[str, typer.Argument(help="Game string.")],
    blueprint: Annotated[Path, typer.Argument(help="The blueprint strategy (.npz), e.g. an "
                                                   "abstraction's lifted by solve --out.")],
    at: Annotated[str | None, typer.Option(
        "--at", help="Where the subgames start: chance:K (after the K-th chance event) or "
                     "actions:N (default: leduc chance:3, nl_one_card actions:1, nl_holdem2 "
                     "chance:4, a hold'em spot chance:3, a river spot actions:1).")] = None,
    method: Annotated[str, typer.Option(help="unsafe, resolve, maxmargin or "
                                             "reach-maxmargin.")] = "reach-maxmargin",
    iterations: Annotated[int | None, typer.Option(
        "--iterations", "-n", help="Iterations per subgame (default: 1,000, then twice as "
                                   "many each round until the re-solved strategy is no more "
                                   "exploitable than the blueprint, at most "
                                   "--max-iterations).")] = None,
    max_iterations: Annotated[int, typer.Option(
        "--max-iterations", help="Without -n or --seconds: the most iterations per subgame "
                                 "in the last round.")] = 64_000,
    algorithm: Annotated[str, typer.Option("--algorithm", "-a", help="The gadget's solver "
                                           "(any rcfr algorithm, or lp: exact).")] = "pcfr+",
    seconds: Annotated[float | None, typer.Option(help="Seconds per subgame instead of "
                                                       "iterations (at most 86,400).")] = None,
    values: Annotated[str, typer.Option(help="The opponent's alternative values: "
                                             "best-response or blueprint (the estimated "
                                             "variants).")] = "best-response",
    out_file: Annotated[Path | None, typer.Option("--out", "-o", help="Write the re-solved "
                                                  "full-game strategy here.")] = None,
    abstraction: BlueprintAbstractionOpt = None,
    off_tree: Annotated[list[str] | None, typer.Option(
        "--off-tree", help="Nested re-solving of a spot's bet off the blueprint's action "
                           "abstraction (--abstraction actions:..., or the one BLUEPRINT's "
                           "file names): the bet's action path, as inspect --node takes it "
                           "('check,bet 100'; a dealt card stands for every card); repeat "
                           "it for more, or 'all' for every off-tree bet.")] = None,
    form: FormOpt = "auto",
    max_memory: MaxMemoryOpt = None,
    max_time: MaxTimeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Re-solve every subgame at a cut of a blueprint (safe and nested subgame solving, Brown &
    Sandholm 2017) and evaluate the result in the full game.  On the public form (--form
    public, or auto where the history form is too large) the subgames are public subtrees,
    solved in vector form by a full-width solver."""
    from .subgame import default_cut, method_function, parse_cut, resolve_at_cut
    from .subgame.blueprint import VALUES
    from .subgame.target import resolve_to_blueprint

    check_outputs({"--out": out_file}, {"BLUEPRINT": blueprint})
    _count("--iterations", iterations)
    _count("--max-iterations", max_iterations)
    if seconds is not None and not 0 < seconds <= MAX_RESOLVE_SECONDS:
        raise RcfrError(f"--seconds must be a positive number of seconds per subgame, at most "
                        f"{MAX_RESOLVE_SECONDS:,.0f} (one day), got {seconds}")
    if off_tree:
        if at is not None:
            raise RcfrError("--at does not go with --off-tree: the off-tree bet starts the "
                            "subgame")
        if values != "best-response":
            raise RcfrError("--values does not go with --off-tree: the bettor's alternative "
                            "is its best value from the abstraction's own bets")
        if form not in ("auto", "public"):
            raise RcfrError(f"--off-tree re-solves on the public form, not --form {form}")
        return _resolve_off_tree(game, blueprint, abstraction, off_tree, method, iterations,
                                 algorithm, seconds, out_file, as_json)
    if at is not None:
        parse_cut(at)
    method_function(method)
    if values not in VALUES:
        raise RcfrError(f"--values is {' or '.join(VALUES)}, got {values!r}")
    tree = compile_game(game, form)
    at = default_cut(tree) if at is None else at
    policy = load_lifted(tree, blueprint, abstraction)
    key = method.strip().lower().replace("_", "-")
    kw: dict[str, Any] = {"algorithm": algorithm, "seconds": seconds}
    if key != "unsafe":
        kw["values"] = values
    fixed = iterations is not None or seconds is not None or algorithm.strip().lower() == "lp"
    if fixed:
        result = resolve_at_cut(policy, at, key, iterations=iterations or 1000, **kw)
    else:
        result = resolve_to_blueprint(policy, at, key, max_iterations=max_iterations,
                                      start=min(1000, max_iterations), **kw)
    notes = _resolve_notes(result, key, values, fixed)
    if out_file is not None:
        result.policy.convert(tree).save(out_file)
    if as_json:
        _emit({"game": str(tree.game), **result.to_dict(), **notes,
               "out": str(out_file) if out_file else None})
        return
    runs = (f"{result.iterations:,} iterations per subgame" if result.iterations
            else "solved exactly" if algorithm.strip().lower() == "lp" else "")
    out.print(f"{result.method} at {at} in {tree.game}: {len(result.results) // 2} subgames "
              f"re-solved for both players in {result.seconds:.2f} s"
              + (f" ({runs})" if runs else ""))
    out.print(f"  blueprint exploitability  {_fmt_expl(result.blueprint_evaluation)}")
    out.print(f"  re-solved exploitability  {_fmt_expl(result.evaluation)}")
    out.print(f"  smallest margin           {result.min_margin:+.6g}: {notes['margin']}")
    if "warning" in notes:
        out.print(f"  warning: {notes['warning']}")
    if out_file is not None:
        out.print(f"  re-solved strategy -> {out_file}")


MAX_RESOLVE_SECONDS = 86_400.0  # --seconds per subgame: a day


def _action_abstraction(tree, blueprint: Path, abstraction: str | None, what: str):
    """The blueprint of a spot's action abstraction, lifted to the spot ``tree`` (public
    form), its abstraction's name and the abstract spot: ``abstraction`` names it (BLUEPRINT
    is then the abstract strategy) or BLUEPRINT's file does (the lifted strategy)."""
    from .abstraction.spot import bucketed_spot, is_sized

    def sized(spec):
        abstract = bucketed_spot(tree.game, spec)
        if abstract is None or not is_sized(abstract):
            raise RcfrError(f"{what} takes an action abstraction of a spot "
                            f"(actions:BETS[/RAISES]), not {spec!r}")
        return abstract

    if abstraction is not None:
        abstract = sized(abstraction)
        return load_lifted(tree, blueprint, abstraction), abstraction, abstract
    policy = TabularPolicy.load(blueprint, tree)
    spec = (policy.metadata or {}).get("abstraction")
    if not isinstance(spec, str):
        raise RcfrError(f"{shown(blueprint)} names no abstraction: give --abstraction")
    return policy, spec, sized(spec)


def _off_tree_line(tree, abstract, text: str) -> tuple:
    """The betting line of the off-tree bet at the action path ``text`` (``--off-tree``)."""
    from .spot_report import find_node
    from .subgame.offtree import action_nodes_of, off_tree_lines

    found = off_tree_lines(tree.game, abstract)
    line = action_nodes_of(tree, find_node(tree, text, option="--off-tree"))[1]
    if line not in found:
        bets = [",".join(x) for x in found]
        listed = "; ".join(bets[:8]) + ("; ..." if len(bets) > 8 else "")
        raise RcfrError(f"--off-tree {text}: not a bet off the abstraction "
                        + (f"(its off-tree bets: {listed})" if bets else "(it has none)"))
    return line


def _resolve_off_tree(game: str, blueprint: Path, abstraction: str | None, paths: list[str],
                      method: str, iterations: int | None, algorithm: str,
                      seconds: float | None, out_file: Path | None, as_json: bool) -> None:
    """``rcfr resolve --off-tree``: nested re-solving (Brown & Sandholm 2017, sec. 6) of the
    off-tree bets named, and the gain each gives its bettor under translation and under the
    re-solve, exactly (:func:`rcfr.subgame.offtree.nested_resolve_spot`)."""
    from .evaluate import evaluate as evaluate_policy
    from .subgame.offtree import nested_resolve_spot

    key = method.strip().lower().replace("_", "-")
    if key not in ("unsafe", "resolve", "maxmargin", "reach-maxmargin"):
        raise RcfrError(f"--method is unsafe, resolve, maxmargin or reach-maxmargin, "
                        f"got {method!r}")
    tree = compile_game(game, "public")
    policy, spec, abstract = _action_abstraction(tree, blueprint, abstraction,
                                                 "nested re-solving")
    lines = None if any(p.strip().lower() == "all" for p in paths) else list(
        dict.fromkeys(_off_tree_line(tree, abstract, p) for p in paths))
    n = iterations or 1000
    res = nested_resolve_spot(policy, abstract, lines, key, iterations=n,
                              algorithm=algorithm, seconds=seconds)
    before, after = evaluate_policy(tree, policy), evaluate_policy(tree, res.policy)
    pot = before.pot or 1.0
    if out_file is not None:
        res.policy.save(out_file)
    rows = []
    for r in res.rows:
        base = res.in_tree_value[r.opponent]
        rows.append({**r.to_dict(), "in_tree_value": base,
                     "translation_gain": r.translation_value - base,
                     "nested_gain": r.nested_value - base,
                     "translation_gain_pot_pct": 100 * (r.translation_value - base) / pot,
                     "nested_gain_pot_pct": 100 * (r.nested_value - base) / pot})
    runs = f"{seconds:g} s" if seconds is not None else f"{n:,} iterations"
    if as_json:
        _emit({"game": str(tree.game), "blueprint_abstraction": spec, "method": key,
               "algorithm": algorithm, "iterations": None if seconds is not None else n,
               "seconds_per_subgame": seconds, "pot": before.pot, "off_tree": rows,
               "blueprint_exploitability": before.exploitability,
               "exploitability": after.exploitability, "seconds": res.seconds,
               "out": str(out_file) if out_file else None})
        return
    subgames = sum(r["subgames"] for r in rows)
    out.print(f"nested {key} of {len(rows)} off-tree bet(s) of {spec} in {tree.game}: "
              f"{subgames} subgame(s) re-solved in {res.seconds:.2f} s ({runs} of "
              f"{algorithm} each)", markup=False, highlight=False)
    out.print("  the bettor's exact gain from the off-tree bet (chips, % of the pot):")
    for r in rows:
        out.print(f"    {r['line']} (player {r['opponent']})", markup=False,
                  highlight=False)
        out.print(f"      translation  {r['translation_gain']:.6g}  "
                  f"({r['translation_gain_pot_pct']:.3g}%)")
        out.print(f"      nested       {r['nested_gain']:.6g}  "
                  f"({r['nested_gain_pot_pct']:.3g}%)  smallest margin "
                  f"{r['min_margin']:+.3g}")
    out.print(f"  blueprint exploitability  {_fmt_expl(before)}")
    out.print(f"  re-solved exploitability  {_fmt_expl(after)}")
    if out_file is not None:
        out.print(f"  re-solved strategy -> {out_file}")


@app.command()
def improve(
    game: Annotated[str, typer.Argument(help="A real-card spot, e.g. "
                                             "'holdem_spot(spot=river_small)'.")],
    blueprint: Annotated[Path, typer.Argument(help="The blueprint lifted to the spot (.npz), "
                                                   "as solve --abstraction actions:... -o "
                                                   "writes it.")],
    histories: Annotated[Path, typer.Option(
        "--histories", help="The opponents' betting: one betting line per hand "
                            "(check,bet 100|2c|bet 50), or Poker Hand History files.")],
    abstraction: Annotated[str | None, typer.Option(
        "--abstraction", help="BLUEPRINT is a strategy of this action abstraction of GAME "
                              "(e.g. actions:25%,a), as solve --out-abstract writes it: it is "
                              "lifted first (default: BLUEPRINT is the lifted strategy, whose "
                              "file names its abstraction).")] = None,
    top: Annotated[int, typer.Option("--top", help="How many of the off-tree sizes used "
                                                   "most to add.")] = 1,
    method: Annotated[str, typer.Option(help="resolve, maxmargin or reach-maxmargin.")
                      ] = "resolve",
    iterations: Annotated[int, typer.Option("--iterations", "-n",
                                            help="Iterations per new subgame.")] = 1000,
    algorithm: Annotated[str, typer.Option("--algorithm", "-a", help="The gadgets' "
                                           "full-width solver.")] = "cfr+",
    out_file: Annotated[Path | None, typer.Option("--out", "-o", help="Write the improved "
                                                  "strategy here.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The self-improver (Libratus; Brown & Sandholm 2017): add the off-tree bet sizes the
    opponents used most to the blueprint's action abstraction, re-solve the branches they
    start (the rest fixed), and say exactly what changed."""
    from .subgame.improve import improve as run_improve
    from .subgame.improve import read_record

    check_outputs({"--out": out_file}, {"BLUEPRINT": blueprint, "--histories": histories})
    _count("--iterations", iterations)
    _count("--top", top)
    tree = compile_game(game, "public")
    policy, spec, abstract = _action_abstraction(tree, blueprint, abstraction,
                                                 "the self-improver")
    lines = read_record(histories, tree.game)
    result = run_improve(policy, abstract, lines, top, method, iterations=iterations,
                         algorithm=algorithm)
    if out_file is not None:
        result.policy.save(out_file)
    if as_json:
        _emit({"game": str(tree.game), "blueprint_abstraction": spec, "hands": len(lines),
               **result.to_dict(), "out": str(out_file) if out_file else None})
        return
    seen = ", ".join(f"{s} ({n})" for s, n in sorted(result.counts.items(),
                                                      key=lambda kv: -kv[1]))
    out.print(f"self-improver on {tree.game}: {len(lines):,} hands, off-tree sizes {seen}")
    out.print(f"  added {', '.join(result.sizes)}: {len(result.lines)} new branches "
              f"re-solved ({method}, {iterations:,} iterations each) in "
              f"{result.seconds:.2f} s")
    pot = result.before.pot or 1.0
    out.print(f"  against an opponent restricted to {result.abstraction}:")
    out.print(f"    blueprint  {result.restricted_before:.6g}  "
              f"({100 * result.restricted_before / pot:.3g}% of the pot)")
    out.print(f"    improved   {result.restricted_after:.6g}  "
              f"({100 * result.restricted_after / pot:.3g}% of the pot)")
    out.print(f"  full exploitability: blueprint {_fmt_expl(result.before)}")
    out.print(f"                       improved  {_fmt_expl(result.after)}")
    if out_file is not None:
        out.print(f"  improved strategy -> {out_file}")


def _resolve_notes(result, method: str, values: str, fixed: bool) -> dict[str, str]:
    """What ``rcfr resolve`` says of its result: ``margin``, what the smallest margin means,
    and ``warning``, why the re-solved strategy is more exploitable than the blueprint (only
    where it is)."""
    from .subgame.target import guaranteed

    safe = guaranteed(method, values)
    m = result.min_margin
    if method == "unsafe":
        margin = "unsafe re-solving keeps no margin (it has no guarantee)"
    elif m >= 0:
        margin = "no opponent root set gets more than its alternative value (safe)"
    else:
        margin = (f"some opponent root set gets up to {-m:.3g} per unit of weight more than "
                  f"its alternative value: the gadgets are not solved to the precision needed")
        if not safe:
            margin += (", or the alternative values (the blueprint's own, --values blueprint) "
                       "are not attainable")
    notes = {"margin": margin}
    if result.worse:
        why = (f"the re-solved strategy is more exploitable than the blueprint "
               f"({result.evaluation.exploitability:.3g} against "
               f"{result.blueprint_evaluation.exploitability:.3g}): ")
        if method == "unsafe":
            why += "unsafe re-solving has no guarantee; use resolve, maxmargin or reach-maxmargin"
        elif not safe:
            why += "the estimated variants (--values blueprint) have no guarantee"
        elif fixed:
            why += ("its gadgets are solved more loosely than the blueprint; run more "
                    "iterations (-n, --seconds), or leave both out to raise them until it is not")
        else:
            why += (f"{result.iterations:,} iterations per subgame do not solve the gadgets "
                    f"as precisely as the blueprint; raise --max-iterations")
        notes["warning"] = why
    return notes


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="Game string.")],
    strategy: Annotated[Path, typer.Argument(help="The strategy to play against (.npz).")],
    seat: Annotated[int, typer.Option(help="Your seat: 0 (first to act) or 1.")] = 0,
    hands: Annotated[int, typer.Option(help="Hands to play.")] = 1,
    seed: Annotated[int, typer.Option(help="Seed for chance and the strategy's "
                                           "actions, >= 0.")] = 0,
    resolve_method: Annotated[str | None, typer.Option(
        "--resolve", help="Re-solve the subgames at --at with this method (unsafe, resolve, "
                          "maxmargin, reach-maxmargin), the strategy being the blueprint; "
                          "on a spot with an action abstraction, answer each of your bets "
                          "off it by nested re-solving (the cut only with --at).")] = None,
    at: Annotated[str | None, typer.Option("--at", help="With --resolve: where the subgames "
                                                        "start (chance:K or actions:N; default: "
                                                        "the game's usual cut).")] = None,
    abstraction: BlueprintAbstractionOpt = None,
    max_memory: MaxMemoryOpt = None,
    max_time: MaxTimeOpt = None,
    as_json: Annotated[bool, typer.Option(
        "--json", help="The hands' dialogue on stderr; one JSON summary object on stdout at "
                       "the end (payoffs per hand, total).")] = False,
    histories: Annotated[Path | None, typer.Option(
        "--histories", help="A hold'em spot: write the hands played here, in the Poker Hand "
                            "History format (.phhs).")] = None,
) -> None:
    """Play against a saved strategy: pick actions by number or name; end of input stops."""
    import numpy as np

    from .play import play_hand

    if seat not in (0, 1):
        raise RcfrError(f"--seat must be 0 or 1, got {seat}")
    _count("--hands", hands)
    OPTION["seed"].check(seed)
    if resolve_method is None and at is not None:
        raise RcfrError("--at goes with --resolve")
    check_outputs({"--histories": histories})
    tree = compile_game(game)
    recorded: list[dict] = []
    on_end = None
    if histories is not None:
        from .games.holdem import phh
        from .games.holdem.spot_game import SpotGame

        if not isinstance(tree.game, SpotGame):
            raise RcfrError(f"--histories writes hands of a hold'em spot, not of {tree.game}")

        def on_end(state) -> None:
            recorded.append(phh.hand_history(tree.game, state.hands, state.line))
    policy = load_lifted(tree, strategy, abstraction)
    if resolve_method is not None:
        # each subgame's re-solve depends on the blueprint alone, so re-solving all of them
        # before the first hand plays as re-solving each one when it is reached would
        from .subgame import default_cut, method_function, parse_cut, resolve_at_cut

        method_function(resolve_method)
        abstract = _played_action_abstraction(tree, policy, abstraction)
        if abstract is None or at is not None:  # (an action abstraction: the cut if given)
            cut = default_cut(tree) if at is None else at
            parse_cut(cut)
            policy = resolve_at_cut(policy, cut, resolve_method.strip().lower()
                                    ).policy.convert(tree)
        if abstract is not None:  # the human's off-tree bets: nested re-solving
            from .subgame.nested_play import NestedResponder

            policy = NestedResponder(policy, abstract, seat,
                                     resolve_method.strip().lower().replace("_", "-"),
                                     notify=lambda text: write(text))
    rng = np.random.default_rng(seed)

    def read() -> str | None:
        line = sys.stdin.readline()
        return line if line else None

    talk = err if as_json else out  # --json: stdout holds the one object

    def write(text: str) -> None:
        talk.print(text, markup=False, highlight=False)

    payoffs: list[float] = []
    for h in range(hands):
        write(f"-- hand {h + 1} of {hands}, you are player {seat} in {tree.game}")
        payoff = play_hand(policy, seat, rng, read, write, on_end)
        if payoff is None:
            write("end of input")
            break
        payoffs.append(payoff)
    total, played = float(sum(payoffs)), len(payoffs)
    if histories is not None and recorded:
        from .core.fileio import write_atomic

        text = phh.dumps(recorded).encode()
        write_atomic(histories, lambda f: f.write(text))
        write(f"{len(recorded)} hand(s) -> {histories}")
    if as_json:
        _emit({"game": str(tree.game), "seat": seat, "seed": seed, "hands": hands,
               "played": played, "payoffs": payoffs, "total": total,
               "per_hand": total / played if played else None,
               "ended_early": played < hands})
        return
    write(f"you played {played} hand(s): {total:+g} in all"
          + (f", {total / played:+.3f} per hand" if played else ""))


def _played_action_abstraction(tree, policy, abstraction: str | None):
    """The action abstraction (a spot) that the strategy ``policy`` of the spot ``tree`` was
    lifted from (``--abstraction``, or the one its file names), or ``None``."""
    from .abstraction.spot import bucketed_spot, is_sized
    from .games.holdem.spot_game import SpotGame

    spec = abstraction or (policy.metadata or {}).get("abstraction")
    if not isinstance(tree.game, SpotGame) or not isinstance(spec, str):
        return None
    abstract = bucketed_spot(tree.game, spec)
    return abstract if abstract is not None and is_sized(abstract) else None


@app.command("match")
def match_command(
    game: Annotated[str, typer.Argument(help="Game string (a hold'em spot).")],
    a: Annotated[Path, typer.Argument(help="Strategy A (.npz).")],
    b: Annotated[Path, typer.Argument(help="Strategy B (.npz).")],
    hands: Annotated[int, typer.Option(help="Deals to play, each in both seats.")] = 1000,
    seed: Annotated[int, typer.Option(help="Seed for the deals, >= 0.")] = 0,
    abstraction_a: Annotated[str | None, typer.Option(
        "--abstraction-a", help="A is a strategy of this abstraction of GAME (buckets:K), "
                                "lifted first.")] = None,
    abstraction_b: Annotated[str | None, typer.Option(
        "--abstraction-b", help="The same for B.")] = None,
    max_memory: MaxMemoryOpt = None,
    max_time: MaxTimeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """A against B over --hands deals, each played in both seats and scored by its exact
    expected value (only the cards' luck remains), with a 95% interval and the exact
    expectation over every deal."""
    from .match import match

    _count("--hands", hands, low=2)
    OPTION["seed"].check(seed)
    tree = compile_game(game, "public")
    pa = load_lifted(tree, a, abstraction_a)
    pb = load_lifted(tree, b, abstraction_b)
    r = match(pa, pb, hands, seed)
    if as_json:
        _emit({"game": str(tree.game), "a": str(a), "b": str(b), **r.to_dict()})
        return
    lo, hi = r.interval

    def unit(x: float) -> str:
        mbb = r.mbb(x)
        return f"{x:+.4f}" + ("" if mbb is None else f" ({mbb:+.1f} mbb/g)")

    out.print(f"{a} against {b} in {tree.game}: {hands:,} deals, both seats each (seed {seed})")
    out.print(f"  A wins per hand   {unit(r.estimate)}, 95% interval [{lo:+.4f}, {hi:+.4f}]")
    out.print(f"  exact expectation {unit(r.exact)}")


@app.command()
def view(
    game: Annotated[str, typer.Argument(
        help="Game string; or, alone, a folder of rcfr spots (its aggregate report).")],
    strategy: Annotated[Path | None, typer.Argument(
        help="The strategy to view (.npz).")] = None,
    compare: Annotated[Path | None, typer.Option(
        help="A second strategy of the same game: show the difference at every node.")] = None,
    output: Annotated[Path | None, typer.Option(
        "-o", "--out", help="The site's folder (default: STRATEGY-view, or FOLDER-view for "
                            "a batch, in the working folder).")] = None,
    values: Annotated[bool | None, typer.Option(
        "--values/--no-values", help="Include counterfactual values and best-response gains "
                                     "(default: for games of at most 100,000 sequences).")] = None,
    form: Annotated[str, typer.Option(
        "--form", help="Compiled form: auto (the public form where the game has one), public "
                       "or history (an information-set table).")] = "auto",
    serve: Annotated[bool, typer.Option(
        help="Serve the site on localhost after writing it (Ctrl-C stops).")] = False,
    port: Annotated[int, typer.Option(help="The port --serve listens on.")] = 8000,
    max_memory: MaxMemoryOpt = None,
    max_time: MaxTimeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write a static HTML page that walks a strategy node by node, or (rcfr view FOLDER) the
    aggregate report of a batch of boards of rcfr spots (opens nothing)."""
    from . import view as viewer

    if not 0 <= port <= 65535:
        raise RcfrError(f"--port must be in 0..65535, got {port}")
    if strategy is None:
        if compare is not None or values is not None or form != "auto":
            raise RcfrError("a batch's page takes no --compare, --values or --form")
        folder = _view_batch(Path(game), output, as_json)
        if serve:
            viewer.serve(folder, port)
        return
    folder = output if output is not None else Path(f"{strategy.stem}-view")
    meta = viewer.view(game, strategy, folder, compare=compare, values=values, form=form,
                       max_memory=max_memory)
    page = folder / "index.html"
    if as_json:
        _emit({"page": str(page), "sequences": meta["sequences"], "mode": meta["mode"],
               "chunks": len(meta["chunks"]) if meta["lazy"] else 0, "values": meta["values"],
               "summary": meta["summary"]})
    else:
        out.print(f"wrote {page} ({meta['sequences']:,} sequences"
                  + (f", {len(meta['chunks'])} chunks in {folder / 'data'}" if meta["lazy"]
                     else "") + ")")
    if serve:
        viewer.serve(folder, port)


def _view_batch(batch: Path, output: Path | None, as_json: bool) -> Path:
    """``rcfr view FOLDER``: the aggregate report of the batch in ``FOLDER`` as one page."""
    from .experiments.spot_aggregate import report_tables
    from .experiments.spot_batch import BATCH_FILE
    from .view.batch import write_batch_view

    if not batch.is_dir():
        raise RcfrError(f"rcfr view takes GAME STRATEGY, or a folder of rcfr spots alone; "
                        f"{batch} is not a folder")
    if not (batch / BATCH_FILE).is_file():
        raise RcfrError(f"{batch} holds no batch ({BATCH_FILE}): rcfr view FOLDER takes a "
                        f"folder of rcfr spots ... --out FOLDER")
    folder = output if output is not None else Path(f"{batch.resolve().name}-view")
    meta = write_batch_view(report_tables(batch), folder, source=str(batch))
    page = folder / "index.html"
    if as_json:
        _emit({"page": str(page), "mode": meta["mode"], "boards": meta["boards"],
               "solved": meta["solved"]})
    else:
        out.print(f"wrote {page} ({meta['solved']:,} of {meta['boards']:,} boards solved)",
                  markup=False, highlight=False)
    return folder


@app.command("inspect")
def inspect_command(
    game: Annotated[str, typer.Argument(help="A hold'em spot's game string.")],
    strategy: Annotated[Path, typer.Argument(help="The solved strategy (.npz).")],
    node: Annotated[str | None, typer.Option(
        "--node", help="The decision node: its action path from the root ('check,bet 100'; "
                       "dealt cards as actions: 'check,check,2c') or its public node index "
                       "(default: the root).")] = None,
    by: Annotated[str, typer.Option(
        "--by", help="Rows per hand class (the 169: AA, AKs, AKo, ...), made-hand or draw "
                     "category, or combo.")] = "class",
    max_memory: MaxMemoryOpt = None,
    max_time: MaxTimeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Read a solved spot at one node: both ranges' reach, strategy, EV, equity and equity
    realisation per hand class, category or combo."""
    from .spot_report import BY, spot_report

    if by not in BY:
        raise RcfrError(f"--by is {', '.join(BY)}, not {by!r}")
    with evaluation_only(), notice_if_slow(f"{game}: compiling ..."):
        tree = compile_game(game, "public")
    report = spot_report(tree, TabularPolicy.load(strategy, tree).probs, node)
    if as_json:
        _emit({"game": str(tree.game), **report.to_dict(by)})
        return
    data = report.to_dict(by)
    where = data["path"] or "the root"
    out.print(f"{strategy} in {tree.game}, node {data['node']} ({where}): board "
              f"{data['board']}, pot {data['pot']:g}, player {data['player']} to act",
              markup=False, highlight=False)

    def num(x, fmt):
        return "-" if x is None else format(x, fmt)

    for r in sorted(data["ranges"], key=lambda r: r["player"] != data["player"]):
        acting = "strategy" in r
        out.print(f"player {r['player']}{' (to act)' if acting else ''}: {r['combos']:.4g} "
                  f"combos, EV {num(r['ev'], '+.3f')}, equity {num(r['equity'], '.1%')}, "
                  f"EQR {num(r['eqr'], '.3f')}"
                  + ("".join(f", {a} {p:.1%}" for a, p in zip(data["actions"], r["strategy"],
                                                              strict=True)) if acting else ""),
                  markup=False, highlight=False)
        heads = [by, "combos", "share", "EV", "equity", "EQR"] + (
            data["actions"] if acting else [])
        print_table(heads, [[row["hand"], f"{row['combos']:.3g}", f"{row['share']:.1%}",
                             num(row["ev"], "+.2f"), num(row["equity"], ".1%"),
                             num(row["eqr"], ".2f")]
                            + ([f"{p:.1%}" for p in row["strategy"]] if acting else [])
                            for row in r["rows"]], no_wrap=(0,))


@app.command("distill")
def distill_command(
    game: Annotated[str, typer.Argument(help="Game string.")],
    strategy: Annotated[Path, typer.Argument(help="Strategy file (.npz) to distil.")],
    model: Annotated[str, typer.Option(
        help="cart, optimal (STreeD), xgboost or mlp (one hidden layer of 2^D units).")] = "cart",
    max_depth: Annotated[int | None, typer.Option(
        help="D: the deepest tree (default: unbounded for cart, 3 for optimal, 6 for xgboost, "
             "4 for mlp).")] = None,
    per_round: Annotated[bool, typer.Option(
        "--per-round", help="One model per betting round (else one per player).")] = False,
    features: Annotated[str | None, typer.Option(
        help="Feature set (default: waugh for Leduc and no-limit one-card poker, holdem for "
             "nl_holdem2, else onehot).")] = None,
    weights: Annotated[str, typer.Option(
        help="reach (each information set by its player's own reach) or uniform.")] = "reach",
    sweep: Annotated[str | None, typer.Option(
        help="Depths to sweep, e.g. 1,2,3,4,6 (a table; --figure draws it).")] = None,
    figure: Annotated[Path | None, typer.Option(
        help="With --sweep: write exploitability against leaves as an image.")] = None,
    rules: Annotated[bool, typer.Option("--rules", help="Print the trees as text rules.")] = False,
    draw: Annotated[Path | None, typer.Option(
        help="Draw the trees (cart, optimal) as an image: .png, .pdf or .svg.")] = None,
    out_file: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Write the distilled strategy (.npz).")] = None,
    max_memory: MaxMemoryOpt = None,
    max_time: MaxTimeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Distil a strategy into small decision trees and price it: exact exploitability."""
    from .distill import distill as run_distill
    from .distill import make_model
    from .distill import sweep as run_sweep

    depths = _depths(sweep) if sweep is not None else None
    if figure is not None and depths is None:
        raise RcfrError("--figure draws a --sweep; give --sweep too")
    if figure is not None and figure.suffix.lower() not in (".png", ".pdf", ".svg"):
        raise RcfrError(f"--figure writes .png, .pdf or .svg, got {figure.name!r}")
    if depths is not None and (out_file is not None or rules or max_depth is not None
                               or draw is not None):
        raise RcfrError("--sweep fits one model per depth: give it without --max-depth, --out, "
                        "--rules or --draw")
    make_model(model, max_depth)
    if draw is not None:
        from .view.trees import check_draw

        check_draw(draw, model)
    check_outputs({"--out": out_file, "--figure": figure, "--draw": draw})
    tree = compile_game(game, "auto", max_memory)
    policy = TabularPolicy.load(strategy, tree)
    options = {"per_round": per_round, "features": features, "weights": weights}
    if depths is not None:
        return _distill_sweep(run_sweep(policy, depths, model, **options), figure, as_json)
    result = run_distill(policy, model, max_depth, **options)
    if draw is not None:
        from .view.trees import draw_trees

        draw_trees(result, draw)
    if out_file is not None:
        result.policy.save(out_file)
    if as_json:
        _emit({**result.to_dict(), **({"out": str(out_file)} if out_file else {}),
               **({"draw": str(draw)} if draw else {})})
        return
    out.print(f"{strategy} in {tree.game}: {model}, depth {max_depth or 'default'}, "
              f"{result.policy.metadata['distilled']['features']} features, {weights} weights")
    out.print(f"  exploitability, original   {_fmt_expl(result.original)}")
    out.print(f"  exploitability, distilled  {_fmt_expl(result.evaluation)}")
    out.print(f"  {result.unit:<25}  {result.size:,} in {len(result.parts)} models")
    for part in result.parts if rules else ():
        where = "" if part.round is None else f", round {part.round + 1}"
        out.print(f"player {part.player + 1}{where} ({part.infosets:,} information sets, "
                  f"{part.size:,} {part.unit}):", markup=False, highlight=False)
        if part.rules is None:
            out.print(f"  ({model} has no text rules)", markup=False, highlight=False)
        for line in part.rules or ():
            out.print(f"  {line}", markup=False, highlight=False)
    if draw is not None:
        out.print(f"  trees drawn -> {draw}")
    if out_file is not None:
        out.print(f"  distilled strategy -> {out_file}")


def _depths(text: str) -> list[int]:
    try:
        depths = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise RcfrError(f"--sweep takes depths such as 1,2,3,4, got {text!r}") from None
    if not depths or min(depths) < 1:
        raise RcfrError(f"--sweep takes depths of at least 1, got {text!r}")
    return sorted(set(depths))


def _distill_sweep(rows, figure: Path | None, as_json: bool) -> None:
    """``distill --sweep``: exploitability against leaves, as a table (and an image)."""
    if figure is not None:
        import matplotlib

        from .core.fileio import write_atomic

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5, 3.5))
        ax.plot([r.size for _, r in rows], [r.evaluation.exploitability for _, r in rows], "o-",
                label="distilled")
        ax.axhline(rows[0][1].original.exploitability, color="k", ls="--", label="original")
        ax.set(xscale="log", yscale="log", xlabel=rows[0][1].unit, ylabel="exploitability")
        ax.legend()
        fig.tight_layout()
        fmt = figure.suffix.lstrip(".").lower()
        write_atomic(figure, lambda handle: fig.savefig(handle, format=fmt))
        plt.close(fig)
    if as_json:
        _emit({"original_exploitability": rows[0][1].original.exploitability,
               "sweep": [{"max_depth": d, **r.to_dict()} for d, r in rows],
               **({"figure": str(figure)} if figure else {})})
        return
    print_table(["depth", rows[0][1].unit, "exploitability"],
                [[str(d), f"{r.size:,}", _fmt_expl(r.evaluation)] for d, r in rows])
    out.print(f"original: {_fmt_expl(rows[0][1].original)}")
    if figure is not None:
        out.print(f"figure -> {figure}")


from .experiments.commands import register as _register_experiments  # noqa: E402
from .experiments.spot_commands import register as _register_spots  # noqa: E402

_register_experiments(app)  # sweep, results, report, figure
_register_spots(app)  # spots


def _interrupted(exc: BaseException | None) -> bool:
    """Whether ``exc`` is, or was raised while handling, a Ctrl-C (numba turns a
    KeyboardInterrupt raised inside a kernel into a SystemError)."""
    seen = 0
    while exc is not None and seen < 20:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


@functools.cache
def _command():
    """The click command behind ``app``, built once (typer rebuilds it on every call)."""
    return typer.main.get_command(app)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app, turning every input error into one line and exit code 2
    (130 after Ctrl-C, 143 after SIGTERM)."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        code = _command().main(args=args or ["--help"], prog_name="rcfr",
                               standalone_mode=False)
    except RcfrError as exc:
        err.print(f"error: {one_line(str(exc))}")
        return 2
    except typer.Exit as exc:
        return exc.exit_code
    except (typer.Abort, KeyboardInterrupt):
        err.print("interrupted")
        return 130
    except OSError as exc:
        name = shown(exc.filename) if exc.filename else ""
        err.print(one_line(f"error: {exc.strerror or exc}: {name}".rstrip(": ")))
        return 2
    except Exception as exc:
        if _interrupted(exc):
            err.print("interrupted")
            return 130
        if not callable(getattr(exc, "format_message", None)):
            raise
        # a usage error from the argument parser (click's, vendored or not)
        msg = one_line(" ".join(exc.format_message().split()))
        err.print(f"error: {msg}")
        return 2
    finally:
        set_memory_limit(None)
        set_time_limit(None)
    return code if isinstance(code, int) else 0


def one_line(text: str) -> str:
    """``text`` with its line breaks and other control characters escaped: an ``error:``
    message is always one line (the messages quote file names themselves)."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def entry() -> None:  # pragma: no cover - console script
    sys.exit(main())
