"""The ``sweep``, ``results``, ``report`` and ``figure`` commands (registered on rcfr's CLI)."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ..console import err, out, print_table
from ..core.budget import parse_memory
from ..core.errors import RcfrError
from ..core.fileio import check_outputs, write_atomic, write_json
from .figures import DESCRIPTIONS as FIGURE_KINDS
from .runners import BACKENDS
from .spec import RunSpec, SweepSpec, load_sweep
from .store import RUN_COLUMNS, Store, parse_where
from .sweep import check_runs, plan, run_sweep

DbOpt = Annotated[Path, typer.Option("--db", help="The results database (SQLite).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object for scripts.")]
WorkersOpt = Annotated[int, typer.Option("--workers", "-w", help="Runs at a time.")]
BackendOpt = Annotated[str, typer.Option(help=f"{' or '.join(BACKENDS)} (Ray: pip install -e "
                                              "'.[ray]' in the rcfr checkout).")]
RayOpt = Annotated[str | None, typer.Option(
    "--ray-address", help="Join this Ray cluster ('auto': the one this machine is in); "
                          "without it a local Ray instance is started.")]
CkptOpt = Annotated[float, typer.Option("--checkpoint-every",
                                        help="Seconds between a run's checkpoints.")]
MemoryOpt = Annotated[str | None, typer.Option(
    "--max-memory", help="Each run's memory budget, e.g. 20G (default: the spec's max_memory, "
                         "else half of the memory available to the worker).")]


def _console():
    return out, err


def _emit(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")


def _warn(store: Store) -> None:
    """One ``warning:`` line on stderr for each damaged row the command read and left out
    (the command goes on with the others and exits 0)."""
    _, err = _console()
    for line in store.warnings():
        err.print(f"warning: {line}")


MAX_WORKERS = 1024  # processes or Ray tasks at a time


def _check_backend(backend: str, workers: int) -> None:
    if backend not in BACKENDS:
        raise RcfrError(f"--backend must be {' or '.join(BACKENDS)}, got {backend!r}")
    if not 1 <= workers <= MAX_WORKERS:
        raise RcfrError(f"--workers must be from 1 to {MAX_WORKERS}, got {workers}")


def execute_sweep(sweep: SweepSpec, db: Path, *, workers: int, backend: str,
                  ray_address: str | None, checkpoint_every: float, dry_run: bool = False,
                  as_json: bool = False, max_memory: str | None = None) -> dict[str, Any]:
    """Plan ``sweep`` against the store at ``db``, print the plan, run what is missing with a
    progress bar (runs done / failed / remaining, ETA); return a summary.  A damaged row is
    named on stderr (one ``warning:`` line each); a damaged row of one of the sweep's own runs
    stops it before anything runs."""
    _check_backend(backend, workers)
    if dry_run:  # a dry run writes nothing, not even a new store's schema
        store = Store(db if db.exists() else ":memory:", readonly=True)
    else:
        store = Store(db)
    with store:
        info = _execute_sweep(sweep, store, workers, backend, ray_address, checkpoint_every,
                              dry_run, as_json, max_memory)
        _warn(store)
        return info


def _execute_sweep(sweep: SweepSpec, store: Store, workers: int, backend: str,
                   ray_address: str | None, checkpoint_every: float, dry_run: bool,
                   as_json: bool, max_memory: str | None) -> dict[str, Any]:
    out, err = _console()
    the_plan = plan(sweep, store)
    if dry_run:  # what each run would refuse before it starts, without compiling a game
        check_runs(the_plan.todo)
    info: dict[str, Any] = {"sweep": sweep.name, "runs": len(sweep.runs),
                            "complete": the_plan.complete, "to_run": len(the_plan.todo),
                            "estimated_nodes": the_plan.nodes,
                            "estimated_seconds": the_plan.seconds}
    (err if as_json else out).print(the_plan.describe())
    if dry_run:
        for spec in the_plan.todo:
            if not as_json:
                out.print(f"  {spec.hash[:12]}  {spec.label()}", soft_wrap=True)
        info["plan"] = [{"hash": s.hash, "spec": s.to_dict()} for s in the_plan.todo]
        return info
    bar = Progress(TextColumn(sweep.name, markup=False), BarColumn(), MofNCompleteColumn(),
                   TextColumn("done {task.fields[done]}, failed {task.fields[failed]}, "
                              "remaining {task.fields[remaining]}"),
                   TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                   console=err, transient=True, disable=not err.is_terminal)
    with bar:
        task = bar.add_task(sweep.name, total=len(the_plan.todo), done=0, failed=0,
                            remaining=len(the_plan.todo))

        def tick(counts: dict[str, int], label: str) -> None:
            bar.update(task, completed=counts["done"] + counts["failed"], **{
                k: counts[k] for k in ("done", "failed", "remaining")})

        summary = run_sweep(the_plan, store, workers=workers, backend=backend,
                            ray_address=ray_address, checkpoint_every=checkpoint_every,
                            progress=tick, max_memory=max_memory)
    info.update(summary.to_dict())
    if not as_json:
        out.print(f"ran {summary.ran} runs in {summary.seconds:.1f} s: {summary.done} done, "
                  f"{summary.failed} failed, {summary.interrupted} interrupted"
                  + (f"; skipped {summary.skipped} held or done by another sweep on the store"
                     if summary.skipped else ""))
        for h, message in summary.errors.items():
            out.print(f"  failed {h[:12]}: {message}", soft_wrap=True)
    return info


def _results(store: Store, where: list[str] | None, points: str | None,
             csv_file: Path | None, as_json: bool) -> None:
    """``rcfr results``: the runs (or one run's curve) the store holds intact."""
    out, _ = _console()
    if points is not None:
        run_hash = store.find(points)
        rows = store.points(run_hash)
        if as_json:
            _emit({"hash": run_hash, "points": rows})
            return
        if csv_file is not None:
            _write_csv(csv_file, rows, ["iterations", "nodes", "seconds",
                                        "exploitability", "value"])
            return
        print_table(("iterations", "nodes", "seconds", "exploitability", "value"),
                    ((f"{p['iterations']:,}", f"{p['nodes'] or 0:,}", f"{p['seconds'] or 0:.2f}",
                      f"{p['exploitability']:.6g}",
                      "" if p["value"] is None else f"{p['value']:+.6f}") for p in rows))
        return
    rows = store.runs(where=parse_where(where or []))
    if as_json:
        _emit(rows)
        return
    if csv_file is not None:
        flat = [{**{k: r[k] for k in RUN_COLUMNS if k != "spec"},
                 "spec": json.dumps(r["spec"], sort_keys=True)} for r in rows]
        _write_csv(csv_file, flat, [k for k in RUN_COLUMNS])
        out.print(f"{len(rows)} runs -> {csv_file}")
        return
    errors = any(r["regression_error"] is not None for r in rows)  # (f-RCFR's, when stored)
    print_table(("hash", "run", "status", "iterations", "seconds", "exploitability",
                 "complexity") + (("regression error",) if errors else ()),
                ((r["hash"][:12], RunSpec.from_dict(r["spec"]).label(), r["status"],
                  "" if r["iterations"] is None else f"{r['iterations']:,}",
                  "" if r["seconds"] is None else f"{r['seconds']:.2f}",
                  "" if r["exploitability"] is None else f"{r['exploitability']:.6g}",
                  "" if r["complexity"] is None else f"{r['complexity']:,}")
                 + (("" if r["regression_error"] is None else f"{r['regression_error']:.4g}",)
                    if errors else ()) for r in rows))
    failed = [r for r in rows if r["status"] == "failed"]
    for r in failed:
        out.print(f"failed {r['hash'][:12]}: {r['error']}")


def register(app: typer.Typer) -> None:
    """Add the experiment commands to ``app``."""

    @app.command()
    def sweep(
        spec: Annotated[str, typer.Argument(
            help="Sweep spec: a TOML file, or the name of a spec packaged with rcfr, e.g. "
                 "thesis_4_1_quick or gibson_bluff (the paper figures' specs; 'rcfr figure' "
                 "plots them).")],
        db: DbOpt = Path("results.db"),
        workers: WorkersOpt = 1,
        backend: BackendOpt = "local",
        ray_address: RayOpt = None,
        checkpoint_every: CkptOpt = 60.0,
        max_memory: MemoryOpt = None,
        dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the plan only.")] = False,
        as_json: JsonOpt = False,
    ) -> None:
        """Run a sweep spec's runs that the store does not have yet (resuming interrupted
        ones from their checkpoints).  Exit code 1 when it ran runs and none of them is done
        (all failed or were interrupted); 2 for bad input."""
        from .figures import load_spec

        sweep_spec = load_spec(spec)
        parse_memory(max_memory)  # a bad size fails before anything runs
        info = execute_sweep(sweep_spec, db, workers=workers, backend=backend,
                             ray_address=ray_address, checkpoint_every=checkpoint_every,
                             dry_run=dry_run, as_json=as_json, max_memory=max_memory)
        if as_json:
            _emit(info)
        if info.get("ran") and not info.get("done"):  # scripts and CI see it
            raise typer.Exit(1)

    @app.command()
    def results(
        db: DbOpt = Path("results.db"),
        where: Annotated[list[str] | None, typer.Option(
            help="Filter, e.g. 'algorithm=rcfr+' or 'status=failed' (repeatable; "
                 "comma-separated pairs).")] = None,
        points: Annotated[str | None, typer.Option(
            "--points", help="Print the curve of the run with this hash (or prefix).")] = None,
        csv_file: Annotated[Path | None, typer.Option("--csv", help="Write the rows "
                                                                    "here (CSV).")] = None,
        as_json: JsonOpt = False,
    ) -> None:
        """List stored runs and their final figures, or one run's curve."""
        check_outputs({"--csv": csv_file}, {"--db": db})
        with Store(db, readonly=True) as store:
            _results(store, where, points, csv_file, as_json)
            _warn(store)

    @app.command()
    def report(
        db: DbOpt = Path("results.db"),
        out_dir: Annotated[Path, typer.Option("--out", "-o", help="Directory for "
                                                                  "report.html and "
                                                                  "report.md.")] = Path("report"),
        claims: Annotated[bool, typer.Option(
            "--claims", help="Also judge the papers' claims (the reproduction "
                             "report: exact computations take minutes).")] = False,
        docs: Annotated[Path | None, typer.Option(
            "--docs", help="With --claims: also regenerate the documentation's Reproduction "
                           "page data in this docs folder (data/reproduction.json, "
                           "img/reproduction/).")] = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Write a report of the store: its runs and every paper figure with data in it; with
        --claims, the reproduction report's table of the papers' claims with our numbers,
        evidence levels and verdicts instead of the runs."""
        from .report import runs_line, write_docs_report, write_report

        out, _ = _console()
        if docs is not None and not claims:
            raise RcfrError("--docs regenerates the Reproduction page, which judges the "
                            "papers' claims: add --claims")
        if docs is not None and not docs.is_dir():
            raise RcfrError(f"not a directory: {docs}")
        with Store(db, readonly=True) as store:
            info = write_report(store, out_dir, claims=claims)
            if docs is not None:
                write_docs_report(store, docs)
                info["docs"] = str(docs)
            _warn(store)
        if as_json:
            _emit(info)
            return
        what = (f"{len(info['claims'])} claims" if claims else runs_line(info["runs"]))
        out.print(f"report: {info['html']} and {info['markdown']} ({len(info['figures'])} "
                  f"figures, {what})")

    @app.command(help=FIGURE_HELP)
    def figure(
        name: Annotated[str | None, typer.Argument(
            metavar="NAME", help="A figure spec packaged with rcfr, e.g. thesis_4_1, gibson_bluff, "
                 "dorazio_leduc (--spec FILE takes its place).")] = None,
        db: DbOpt = Path("results.db"),
        quick: Annotated[bool, typer.Option("--quick", help="The spec's quick twin (minutes "
                                                            "on 2 cores).")] = False,
        spec: Annotated[Path | None, typer.Option(
            help="A sweep spec file of your own instead of NAME; its 'figure' key names the "
                 "plot kind (listed above).")] = None,
        out_file: Annotated[Path | None, typer.Option("--out", "-o",
                                                      help="PNG (default NAME.png).")] = None,
        data_file: Annotated[Path | None, typer.Option("--data", help="Also write the plotted "
                                                                      "data (JSON).")] = None,
        share: Annotated[float | None, typer.Option(
            help="convergence: the regressors' complexity share (replaces the spec's).")] = None,
        x_axis: Annotated[str, typer.Option(
            "--x", help="convergence_suite: the x axis, iterations or seconds (each run's "
                        "wall-clock seconds at its points, evaluation included).")
        ] = "iterations",
        no_run: Annotated[bool, typer.Option("--no-run", help="Plot what the store has; run "
                                                              "nothing.")] = False,
        workers: WorkersOpt = 1,
        backend: BackendOpt = "local",
        ray_address: RayOpt = None,
        checkpoint_every: CkptOpt = 60.0,
        max_memory: MemoryOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        from .figures import KINDS, SUITE_AXES, collect, figure_spec, plot

        out, _ = _console()
        if name is None and spec is None:
            raise RcfrError("give a figure NAME (a spec packaged with rcfr) or --spec FILE "
                            "(a sweep spec of your own)")
        sweep_spec = load_sweep(spec) if spec is not None else figure_spec(name, quick)
        if sweep_spec.figure is None:
            raise RcfrError(f"{sweep_spec.path}: figure: missing (the plot kind: "
                            f"{', '.join(KINDS)})")
        if sweep_spec.figure not in KINDS:  # before anything runs
            raise RcfrError(f"{sweep_spec.path}: figure: expected one of {', '.join(KINDS)}, "
                            f"got {sweep_spec.figure!r}")
        if share is not None:
            if sweep_spec.figure != "convergence":
                raise RcfrError(f"--share applies to convergence figures, not "
                                f"{sweep_spec.figure}")
            sweep_spec = with_share(sweep_spec, share)
        if x_axis not in SUITE_AXES:
            raise RcfrError(f"--x must be one of {', '.join(SUITE_AXES)}, got {x_axis!r}")
        if x_axis != "iterations" and sweep_spec.figure != "convergence_suite":
            raise RcfrError(f"--x {x_axis} applies to convergence_suite figures, not "
                            f"{sweep_spec.figure}")
        out_file = out_file if out_file is not None else Path(f"{sweep_spec.name}.png")
        check_outputs({"--out": out_file, "--data": data_file, "--db": db}, {"--spec": spec})
        _check_backend(backend, workers)
        if not 0 < checkpoint_every < float("inf"):
            raise RcfrError(f"--checkpoint-every must be a positive number of seconds, "
                            f"got {checkpoint_every}")
        parse_memory(max_memory)
        info: dict[str, Any] = {}
        if not no_run:
            info = execute_sweep(sweep_spec, db, workers=workers, backend=backend,
                                 ray_address=ray_address, checkpoint_every=checkpoint_every,
                                 as_json=as_json, max_memory=max_memory)
        with Store(db if db.exists() or not no_run else ":memory:", readonly=True) as store:
            data = collect(sweep_spec, store)
            _warn(store)
        if sweep_spec.figure == "convergence_suite":
            data["axis"] = x_axis
        if data_file is not None:
            json.dumps(data, allow_nan=False)  # fails before the PNG is written, not after
        plot(data, out_file)
        if data_file is not None:
            write_json(data_file, data)
        if as_json:
            _emit({"figure": sweep_spec.name, "out": str(out_file),
                   "data": str(data_file) if data_file else None, **info})
            return
        out.print(f"{sweep_spec.name}: {data['done']} of {data['runs']} runs plotted -> "
                  f"{out_file}" + (f" (data: {data_file})" if data_file else ""))


FIGURE_HELP = (
    "Run a figure's missing runs into the store, then plot it from the store.  NAME is a "
    "paper figure's spec packaged with rcfr; --spec FILE plots a sweep spec of your own, "
    "whose top-level 'figure' key names one of these plot kinds:\n\n"
    + "\n\n".join(f"{kind}: {text}." for kind, text in FIGURE_KINDS.items()))


def with_share(sweep: SweepSpec, share: float) -> SweepSpec:
    """The sweep with every regressor run's ``share`` replaced by ``share``."""
    runs = []
    for r in sweep.runs:
        if r.regressor is not None:
            r = r.replace(share=float(share), leaves=None)
        runs.append(r)
    unique = tuple({r.hash: r for r in runs}.values())
    return SweepSpec(f"{sweep.name}_share{share:g}", unique, sweep.figure, sweep.description,
                     sweep.path, sweep.max_memory)


def _write_csv(path: Path, rows: list[dict], columns: list[str]) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(rows)
    data = buffer.getvalue().encode()
    write_atomic(path, lambda handle: handle.write(data))
