"""The results store: one SQLite file in WAL mode, written by one process (the sweep's
driver), with a versioned schema migrated on open.

``runs`` has one row per run (its spec hash, spec JSON, code version, host, status, error,
times, final figures) and ``points`` the curve of each run (iterations, nodes, seconds,
exploitability, value).  Every write is one transaction, so a killed driver never leaves a
half-written row.  Strategies and checkpoints are files in :attr:`Store.files`, a directory
beside the database, named by the run's hash.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..core.errors import RcfrError
from .spec import RunSpec

STATUSES = ("queued", "running", "done", "failed", "interrupted")
RUN_COLUMNS = ("hash", "spec", "code_version", "host", "status", "error", "started", "ended",
               "seconds", "iterations", "nodes", "value", "exploitability", "complexity",
               "complexity_share", "resumed_from")
POINT_COLUMNS = ("iterations", "nodes", "seconds", "exploitability", "value")

# each entry upgrades the schema by one version (PRAGMA user_version)
MIGRATIONS: tuple[str, ...] = (
    # 1: runs and their curves
    """
    CREATE TABLE runs (
        hash TEXT PRIMARY KEY,
        spec TEXT NOT NULL,
        code_version TEXT,
        host TEXT,
        status TEXT NOT NULL CHECK (status IN
            ('queued', 'running', 'done', 'failed', 'interrupted')),
        error TEXT,
        started REAL,
        ended REAL,
        seconds REAL,
        iterations INTEGER,
        nodes INTEGER,
        value REAL,
        exploitability REAL,
        complexity INTEGER
    );
    CREATE TABLE points (
        run TEXT NOT NULL REFERENCES runs(hash) ON DELETE CASCADE,
        iterations INTEGER NOT NULL,
        nodes INTEGER,
        seconds REAL,
        exploitability REAL,
        value REAL,
        PRIMARY KEY (run, iterations)
    );
    """,
    # 2: the complexity as a share of the game, where a run resumed, a status index
    """
    ALTER TABLE runs ADD COLUMN complexity_share REAL;
    ALTER TABLE runs ADD COLUMN resumed_from INTEGER;
    CREATE INDEX runs_status ON runs(status);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


class Store:
    """A results database (created if missing).  Use as a context manager or call
    :meth:`close`."""

    def __init__(self, path: str | Path, create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise RcfrError(f"no results database at {self.path}")
        if self.path.is_dir():
            raise RcfrError(f"{self.path} is a directory, not a results database")
        if not self.path.parent.is_dir():
            raise RcfrError(f"directory does not exist: {self.path.parent}")
        try:
            self.db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            self.db.row_factory = sqlite3.Row
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA foreign_keys=ON")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise RcfrError(f"{self.path}: not a results database ({exc})") from None

    @property
    def files(self) -> Path:
        """The directory of strategies and checkpoints, beside the database."""
        return self.path.with_name(self.path.name + ".files")

    def ensure_files(self) -> Path:
        self.files.mkdir(exist_ok=True)
        return self.files

    def strategy_path(self, run_hash: str) -> Path:
        return self.files / f"{run_hash}.strategy.npz"

    # -- schema ----------------------------------------------------------------------------
    def _migrate(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise RcfrError(f"{self.path}: schema version {version} is newer than this rcfr "
                            f"understands ({SCHEMA_VERSION}); upgrade rcfr")
        for v in range(version, SCHEMA_VERSION):
            with self.transaction():
                for statement in MIGRATIONS[v].split(";"):
                    if statement.strip():
                        self.db.execute(statement)
                self.db.execute(f"PRAGMA user_version = {v + 1}")

    @property
    def version(self) -> int:
        return self.db.execute("PRAGMA user_version").fetchone()[0]

    def transaction(self):
        return _Transaction(self.db)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- writes (the driver only) ------------------------------------------------------------
    def queue(self, specs: Iterable[RunSpec]) -> None:
        """Add runs not yet in the store as ``queued``; existing rows are left alone."""
        with self.transaction():
            self.db.executemany(
                "INSERT OR IGNORE INTO runs (hash, spec, status) VALUES (?, ?, 'queued')",
                [(s.hash, s.canonical_json()) for s in specs])

    def mark_running(self, run_hash: str, code_version: str) -> None:
        with self.transaction():
            self.db.execute("UPDATE runs SET status = 'running', started = ?, error = NULL, "
                            "code_version = ? WHERE hash = ?",
                            (time.time(), code_version, run_hash))

    def mark(self, hashes: Iterable[str], status: str, error: str | None = None) -> None:
        if status not in STATUSES:
            raise ValueError(status)
        with self.transaction():
            self.db.executemany("UPDATE runs SET status = ?, error = ?, ended = ? "
                                "WHERE hash = ?",
                                [(status, error, time.time(), h) for h in hashes])

    def record(self, result: dict[str, Any]) -> None:
        """Write a run's result (from :func:`rcfr.experiments.execute.execute`) and its
        curve in one transaction."""
        h = result["hash"]
        with self.transaction():
            self.db.execute(
                "UPDATE runs SET status = ?, error = ?, host = ?, ended = ?, seconds = ?, "
                "iterations = ?, nodes = ?, value = ?, exploitability = ?, complexity = ?, "
                "complexity_share = ?, resumed_from = ?, "
                "code_version = COALESCE(?, code_version) WHERE hash = ?",
                (result["status"], result.get("error"), result.get("host"), time.time(),
                 result.get("seconds"), result.get("iterations"), result.get("nodes"),
                 result.get("value"), result.get("exploitability"), result.get("complexity"),
                 result.get("complexity_share"), result.get("resumed_from"),
                 result.get("code_version"), h))
            self.db.execute("DELETE FROM points WHERE run = ?", (h,))
            self.db.executemany(
                "INSERT INTO points (run, iterations, nodes, seconds, exploitability, value) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(h, *(p.get(k) for k in POINT_COLUMNS)) for p in result.get("points", [])])

    # -- reads -------------------------------------------------------------------------------
    def statuses(self, hashes: Iterable[str]) -> dict[str, str]:
        hashes = list(hashes)
        out: dict[str, str] = {}
        for k in range(0, len(hashes), 500):
            chunk = hashes[k:k + 500]
            rows = self.db.execute(
                f"SELECT hash, status FROM runs WHERE hash IN ({','.join('?' * len(chunk))})",
                chunk)
            out.update({r["hash"]: r["status"] for r in rows})
        return out

    def runs(self, where: dict[str, Any] | None = None,
             hashes: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Rows of ``runs`` as dicts (``spec`` parsed), filtered by ``where`` (a spec field
        or a column, equal to the value) and ``hashes``; in insertion order."""
        sql, args = "SELECT * FROM runs", []
        clauses = []
        for key, value in (where or {}).items():
            if key in RUN_COLUMNS and key != "spec":
                clauses.append(f"{key} = ?")
            elif key in RunSpec.__dataclass_fields__:
                clauses.append(f"json_extract(spec, '$.{key}') IS ?")
            else:
                raise RcfrError(f"--where: unknown key {key!r}; use a run field "
                                f"({', '.join(RunSpec.__dataclass_fields__)}) or a column "
                                f"({', '.join(RUN_COLUMNS)})")
            args.append(int(value) if isinstance(value, bool) else value)
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        sql += " ORDER BY rowid"
        rows = [dict(r) for r in self.db.execute(sql, args)]
        if hashes is not None:
            wanted = {h: k for k, h in enumerate(hashes)}
            rows = sorted((r for r in rows if r["hash"] in wanted), key=lambda r: wanted[r["hash"]])
        for r in rows:
            r["spec"] = json.loads(r["spec"])
        return rows

    def run(self, run_hash: str) -> dict[str, Any] | None:
        rows = self.runs(where={"hash": run_hash})
        return rows[0] if rows else None

    def points(self, run_hash: str) -> list[dict[str, Any]]:
        return [dict(r) for r in self.db.execute(
            "SELECT iterations, nodes, seconds, exploitability, value FROM points "
            "WHERE run = ? ORDER BY iterations", (run_hash,))]

    def find(self, prefix: str) -> str:
        """The full hash of the one run whose hash starts with ``prefix``."""
        rows = self.db.execute("SELECT hash FROM runs WHERE hash LIKE ? || '%'",
                               (prefix,)).fetchall()
        if len(rows) != 1:
            raise RcfrError(f"{'no run' if not rows else 'several runs'} with a hash starting "
                            f"{prefix!r} in {self.path}")
        return rows[0][0]


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on an exception."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, *exc) -> None:
        self.db.execute("ROLLBACK" if exc_type else "COMMIT")


def parse_where(items: Iterable[str]) -> dict[str, Any]:
    """``['algorithm=rcfr+', 'share=0.5']`` -> ``{'algorithm': 'rcfr+', 'share': 0.5}``
    (numbers and true/false are read as such)."""
    out: dict[str, Any] = {}
    for item in items:
        for part in item.split(","):
            if not part.strip():
                continue
            if "=" not in part:
                raise RcfrError(f"--where: expected KEY=VALUE, got {part!r}")
            key, text = (s.strip() for s in part.split("=", 1))
            value: Any = text
            if text.lower() in ("true", "false"):
                value = text.lower() == "true"
            else:
                for cast in (int, float):
                    try:
                        value = cast(text)
                        break
                    except ValueError:
                        pass
            out[key] = value
    return out
