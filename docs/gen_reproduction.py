"""Regenerate the Reproduction page's data from one or more results stores.

    nice -n 10 .venv/bin/python docs/gen_reproduction.py --db repro.db \\
        --db docs/data/paper_runs.db [--docs docs] [--out merged.db]

The stores' finished runs are merged into a temporary copy of the first (a run already in an
earlier store is kept from that one), the report is judged on it, and
``docs/data/reproduction.json`` and ``docs/img/reproduction/*.png`` are written (``--out``: the
merged store is kept there too, with its cached uniform lines in ``OUT.files/``, e.g. to commit
as ``docs/data/paper_runs.db``)
(:func:`rcfr.experiments.report.write_docs_report`).  ``make docs`` then renders
``docs/reproduction.md`` from them without solving anything.  The live stores are read only
(SQLite's backup API reads a consistent snapshot of a store that a sweep is writing).
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import tempfile
from pathlib import Path

from rcfr.experiments import Store
from rcfr.experiments.report import summary_line, write_docs_report
from rcfr.experiments.store import MIGRATIONS


def merge(stores: list[Path], target: Path) -> int:
    """Copy ``stores[0]`` to ``target`` and add the other stores' done runs (with their
    curves) that it lacks; returns the number of runs added."""
    source = sqlite3.connect(f"file:{stores[0]}?mode=ro", uri=True)
    copy = sqlite3.connect(target)
    source.backup(copy)
    source.close()
    version = copy.execute("PRAGMA user_version").fetchone()[0]  # the newest schema, so
    for migration in MIGRATIONS[version:]:  # no later store's column is dropped
        copy.executescript(migration)
    copy.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
    added = 0
    for k, other in enumerate(stores[1:]):
        copy.execute(f"ATTACH ? AS s{k}", (f"file:{other}?mode=ro",))
        have = {h for (h,) in copy.execute("SELECT hash FROM runs")}
        def common(table: str, k: int = k) -> str:  # (stores of other schema versions)
            mine = {r[1] for r in copy.execute(f"PRAGMA main.table_info({table})")}
            return ",".join(r[1] for r in copy.execute(f"PRAGMA s{k}.table_info({table})")
                            if r[1] in mine)

        cols, pcols = common("runs"), common("points")
        for (h,) in copy.execute(f"SELECT hash FROM s{k}.runs WHERE status = 'done'").fetchall():
            if h in have:
                continue
            copy.execute(f"INSERT INTO runs ({cols}) SELECT {cols} FROM s{k}.runs WHERE hash = ?",
                         (h,))
            copy.execute(f"INSERT INTO points ({pcols}) SELECT {pcols} FROM s{k}.points "
                         "WHERE run = ?", (h,))
            added += 1
        copy.commit()
    copy.close()
    for store in stores:  # cached uniform lines (2-NL Hold'em: minutes each)
        for cached in Path(f"{store}.files").glob("uniform-*.json"):
            Path(f"{target}.files").mkdir(exist_ok=True)
            shutil.copy2(cached, Path(f"{target}.files") / cached.name)
    return added


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, action="append", required=True,
                        help="a results store (repeat to merge several; the first wins)")
    parser.add_argument("--docs", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--out", type=Path, help="keep the merged store here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / args.db[0].name
        added = merge(args.db, target)
        with Store(target) as store:
            report = write_docs_report(store, args.docs)
        if args.out is not None:
            done = sqlite3.connect(target)
            kept = sqlite3.connect(args.out)
            done.backup(kept)
            kept.close()
            done.close()
            for cached in Path(f"{target}.files").glob("uniform-*.json"):  # (G10's value)
                Path(f"{args.out}.files").mkdir(exist_ok=True)
                shutil.copy2(cached, Path(f"{args.out}.files") / cached.name)
    print(f"{summary_line(report['summary'])}; {added} runs merged from the other stores; "
          f"wrote {args.docs / 'data' / 'reproduction.json'} and "
          f"{len(report['figures'])} figures")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
