"""The ``spots`` command: one hold'em spot solved on many boards, and its aggregate report
(:mod:`.spot_batch`, :mod:`.spot_aggregate`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..console import out, print_table
from ..core.budget import parse_memory
from ..core.errors import RcfrError
from .commands import (
    BackendOpt,
    CkptOpt,
    JsonOpt,
    MemoryOpt,
    RayOpt,
    WorkersOpt,
    _check_backend,
    _emit,
    execute_sweep,
)

SORTS = ("board", "weight", "ev_oop", "ev_ip", "equity_oop", "equity_ip", "exploitability")


def register(app: typer.Typer) -> None:
    """Add ``spots`` to ``app``."""

    @app.command()
    def spots(
        spot: Annotated[str, typer.Argument(
            help="A spot file (TOML) or the name of a spot shipped with rcfr (basic_flop, "
                 "river_small, ...).")],
        flops: Annotated[str, typer.Option(
            "--flops", "--boards",
            help="The boards, of the spot's own size: 'all' (every class of boards up to "
                 "suit isomorphism: 1,755 flops), N (a sample of N classes stratified by "
                 "texture) or a file of boards (one a line, optionally with a weight).")],
        out_dir: Annotated[Path, typer.Option(
            "--out", "-o", help="Folder of the batch: its results store (runs.db), "
                                "batch.json and the report's files.")],
        algorithm: Annotated[str, typer.Option("--algorithm", "-a",
                                               help="The full-width algorithm.")] = "dcfr",
        iterations: Annotated[int, typer.Option(
            "--iterations", "-n", help="Iterations at most, a board.")] = 1000,
        target: Annotated[float, typer.Option(
            "--target", help="Stop a board once its exploitability is at most this % of the "
                             "pot (0: run every iteration).")] = 0.5,
        eval_every: Annotated[int, typer.Option(
            "--eval-every", help="Iterations between a board's evaluations.")] = 10,
        dtype: Annotated[str, typer.Option(
            "--dtype", help="Regret tables: float32 or float64.")] = "float32",
        storage: Annotated[str | None, typer.Option(
            "--storage", help="int16: 16-bit tables (cfr, cfr+, lcfr, dcfr).")] = None,
        node: Annotated[str | None, typer.Option(
            "--node", help="Also report the action frequencies at this node, by its action "
                           "path from the root ('check,bet 60').")] = None,
        report_only: Annotated[bool, typer.Option(
            "--report", help="Solve nothing: report the boards the folder has solved.")] = False,
        dry_run: Annotated[bool, typer.Option(
            "--dry-run", help="Write and solve nothing: print the boards and how many are "
                              "still to solve.")] = False,
        sort: Annotated[str, typer.Option(
            "--sort", help=f"Order of the boards' table: {', '.join(SORTS)} or an action "
                           "frequency column ('root: check'); largest first but for "
                           "board.")] = "board",
        rows: Annotated[int, typer.Option(
            "--rows", help="Boards shown in the table (0: all; the CSV has all).")] = 20,
        workers: WorkersOpt = 1,
        backend: BackendOpt = "local",
        ray_address: RayOpt = None,
        checkpoint_every: CkptOpt = 600.0,  # a flop's checkpoint is hundreds of MB
        max_memory: MemoryOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Solve a spot on many boards (isomorphic boards once, weighted) and report EV,
        equity and action frequencies per board, per texture and over all of them
        (boards.csv, textures.csv, aggregate.json, textures.png in --out).  Rerun the same
        command to resume a stopped batch."""
        from .spot_aggregate import report_tables
        from .spot_aggregate import write_report as write_spot_report
        from .spot_batch import STORE_FILE, check_folder, make_batch, write_batch

        _check_backend(backend, workers)
        parse_memory(max_memory)
        if rows < 0:
            raise RcfrError(f"--rows must be 0 or more, got {rows}")
        if not target >= 0:
            raise RcfrError(f"--target must be a % of the pot, 0 or more, got {target}")
        info: dict = {"out": str(out_dir)}
        if not report_only:
            options = {"algorithm": algorithm, "iterations": iterations,
                       "eval_every": eval_every, "dtype": dtype, "storage": storage}
            batch = make_batch(spot, flops, {k: v for k, v in options.items()
                                             if v is not None})
            if target > 0:
                batch.options["target_exploitability"] = target * batch.pot / 100
            check_folder(batch, out_dir)
            info.update(game=batch.game, classes=len(batch.boards),
                        weight=sum(b.weight for b in batch.boards),
                        symmetries=batch.symmetries)
            if not as_json:
                out.print(f"{batch.game}: {len(batch.boards):,} boards standing for "
                          f"{_weight(info['weight'])} ({batch.symmetries} suit permutations "
                          f"keep the ranges)", markup=False, highlight=False)
            if dry_run:
                _dry_run(batch, out_dir, info, as_json)
                return
            write_batch(batch, out_dir)
            info.update(execute_sweep(batch.sweep(), out_dir / STORE_FILE, workers=workers,
                                      backend=backend, ray_address=ray_address,
                                      checkpoint_every=checkpoint_every, as_json=as_json,
                                      max_memory=max_memory))
        report = report_tables(out_dir, node, workers)
        batch_data, board_table, freq = report["batch"], report["rows"], report["freq"]
        total, textures = report["total"], report["textures"]
        info["files"] = write_spot_report(out_dir, board_table, textures, total, freq)
        info.update(aggregate=total, textures=textures, boards=board_table)
        if as_json:
            _emit(info)
        else:
            _print_report(batch_data, board_table, total, textures, freq, sort, rows)
        if info.get("ran") and not info.get("done"):
            raise typer.Exit(1)


def _weight(w: float) -> str:
    """A weight as a whole number where it is one (boards), else to two decimals."""
    return f"{w:,.0f}" if abs(w - round(w)) < 1e-9 else f"{w:,.2f}"


def _dry_run(batch, out_dir: Path, info: dict, as_json: bool) -> None:
    from .spot_batch import STORE_FILE
    from .store import Store

    db = out_dir / STORE_FILE
    hashes = [batch.run(b).hash for b in batch.boards]
    done = 0
    if db.is_file():
        with Store(db, readonly=True) as store:
            done = sum(s == "done" for s in store.statuses(hashes).values())
    info.update(done=done, to_solve=len(hashes) - done,
                boards=[{"board": b.board, "weight": b.weight, "given": list(b.given)}
                        for b in batch.boards])
    if as_json:
        _emit(info)
        return
    out.print(f"{done:,} solved, {len(hashes) - done:,} to solve; the first boards:",
              markup=False, highlight=False)
    print_table(["board", "weight", "given"], [[b.board, _weight(b.weight), " ".join(b.given)]
                                               for b in batch.boards[:10]])


def _print_report(batch: dict, rows: list[dict], total: dict, textures: list[dict],
                  freq: list[str], sort: str, shown: int) -> None:
    solved = [r for r in rows if r.get("ev_oop") is not None]
    if sort not in (*SORTS, *freq):
        raise RcfrError(f"--sort is one of {', '.join((*SORTS, *freq))}, not {sort!r}")
    missing = len(rows) - len(solved)
    out.print(f"{len(solved):,} of {len(rows):,} boards solved"
              + (f" ({missing:,} not: failed or still to run)" if missing else ""),
              markup=False, highlight=False)
    if not solved:
        return
    heads = ["texture", "boards", "weight", "EV oop", "EV ip", "equity oop",
             *[c.split(": ", 1)[1] if c.startswith("root: ") else c for c in freq]]

    def line(name: str, r: dict) -> list[str]:
        return [name, f"{r['boards']:,}", _weight(r['weight']), f"{r['ev_oop']:.2f}",
                f"{r['ev_ip']:.2f}", f"{r['equity_oop']:.1%}",
                *[f"{r[c]:.1%}" for c in freq]]

    print_table(heads, [line("all", total)] + [line(t["value"], t) for t in textures],
                no_wrap=(0,))
    key = (lambda r: r["board"]) if sort == "board" else (lambda r: -(r.get(sort) or 0.0))
    ordered = sorted(solved, key=key)
    if shown:
        ordered = ordered[:shown]
    print_table(["board", "weight", "exploitability %", "EV oop", "EV ip", "equity oop",
                 *heads[6:]],
                [[r["board"], _weight(r['weight']), f"{r['exploitability_pct']:.3f}",
                  f"{r['ev_oop']:.2f}", f"{r['ev_ip']:.2f}", f"{r['equity_oop']:.1%}",
                  *[f"{r.get(c, 0.0):.1%}" for c in freq]] for r in ordered], no_wrap=(0,))
