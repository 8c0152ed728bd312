"""The results store: one SQLite file in WAL mode, written by one process (the sweep's
driver), with a versioned schema migrated on open.

``runs`` has one row per run (its spec hash, spec JSON, code version, host, status, error,
times, final figures) and ``points`` the curve of each run (iterations, nodes, seconds,
exploitability, value).  Every write is one transaction, so a killed driver never leaves a
half-written row.  Strategies and checkpoints are files in :attr:`Store.files`, a directory
beside the database, named by the run's hash.

Every read is checked: the file must pass ``PRAGMA quick_check`` when opened (a
damaged file is refused with one line suggesting ``sqlite3 FILE ".recover"``, and nothing is
ever written into it), and every row read is validated -- a row that cannot be read back (a
spec that is not a valid run, a status or a figure of the wrong type, a curve point without an
exploitability) is left out and named in :attr:`Store.damaged`, which the commands print as
one ``warning:`` line per run.  A store opened with ``readonly=True`` (``results``, ``report``,
``figure --no-run``, ``sweep --dry-run``) is never changed, and any other is changed only by
its first write (WAL mode and the schema's migration come then).
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
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
               "complexity_share", "resumed_from", "owner", "regression_error")
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
    # 3: the sweep driver that holds a running run (HOST:PID), so that a second driver on the
    # store skips it
    """
    ALTER TABLE runs ADD COLUMN owner TEXT;
    """,
    # 4: f-RCFR's cumulative regression error (D'Orazio et al. 2019, Fig. 1)
    """
    ALTER TABLE runs ADD COLUMN regression_error REAL;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
_INT_COLUMNS = ("iterations", "nodes", "complexity", "resumed_from")
_REAL_COLUMNS = ("started", "ended", "seconds", "value", "exploitability", "complexity_share",
                 "regression_error")
_TEXT_COLUMNS = ("code_version", "host", "error", "owner")
_HASH = re.compile(r"[0-9a-f]{1,64}")
MAX_WARNINGS = 20  # damaged rows named one by one; the rest counted


class _BadText:
    """A TEXT value that is not UTF-8 (a damaged row): kept so the row can be named."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    def __repr__(self) -> str:
        return f"text that is not UTF-8 ({self.raw[:16]!r})"


def _text(raw: bytes) -> str | _BadText:
    try:
        return raw.decode()
    except UnicodeDecodeError:
        return _BadText(raw)


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (_is_int(value) or isinstance(value, float)) and not (
        isinstance(value, float) and math.isnan(value))


def _run_damage(row: dict[str, Any]) -> str | None:
    """What is wrong with a ``runs`` row (None: nothing); sets ``row["spec"]`` to the run's
    fields (a dict, as :meth:`RunSpec.to_dict` gives them) when it is good."""
    if not isinstance(row.get("hash"), str) or not _HASH.fullmatch(row["hash"]):
        return f"its hash is {_show(row.get('hash'))}, not a run hash"
    text = row.get("spec")
    if not isinstance(text, str):
        return f"its spec is {_show(text)}, not JSON text"
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return f"its spec is not valid JSON ({_show(text)})"
    if not isinstance(data, dict):
        return f"its spec is a JSON {type(data).__name__}, not an object"
    try:
        spec = RunSpec.from_dict(data)
    except RcfrError as exc:
        return f"its spec is not a valid run ({exc})"
    except Exception as exc:  # a value no run holds: whatever the check tripped on
        return f"its spec is not a valid run ({type(exc).__name__})"
    if row.get("status") not in STATUSES:
        return f"its status is {_show(row.get('status'))}, not one of {', '.join(STATUSES)}"
    for key in _INT_COLUMNS:
        if row.get(key) is not None and not _is_int(row[key]):
            return f"{key} is {_show(row[key])}, not a whole number"
    for key in _REAL_COLUMNS:
        if row.get(key) is not None and not _is_number(row[key]):
            return f"{key} is {_show(row[key])}, not a number"
    for key in _TEXT_COLUMNS:
        if row.get(key) is not None and not isinstance(row[key], str):
            return f"{key} is {_show(row[key])}, not text"
    if row["status"] == "done" and row.get("exploitability") is None:
        return "it is done but has no exploitability"
    row["spec"] = spec.to_dict()
    return None


def _point_damage(point: dict[str, Any]) -> str | None:
    if not _is_int(point.get("iterations")):
        return f"iterations is {_show(point.get('iterations'))}, not a whole number"
    if point.get("nodes") is not None and not _is_int(point["nodes"]):
        return f"nodes is {_show(point['nodes'])}, not a whole number"
    if not _is_number(point.get("exploitability")):
        return f"exploitability is {_show(point.get('exploitability'))}, not a number"
    for key in ("seconds", "value"):
        if point.get(key) is not None and not _is_number(point[key]):
            return f"{key} is {_show(point[key])}, not a number"
    return None


class Store:
    """A results database (created if missing).  Use as a context manager or call
    :meth:`close`."""

    def __init__(self, path: str | Path, create: bool = True, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.damaged: dict[str, str] = {}  # run hash (or "row N") -> what is wrong with it
        memory = str(path) == ":memory:"
        if not memory:
            if (readonly or not create) and not self.path.exists():
                raise RcfrError(f"no results database at {self.path}")
            if self.path.is_dir():
                raise RcfrError(f"{self.path} is a directory, not a results database")
            if self.path.exists() and not self.path.is_file():
                raise RcfrError(f"{self.path} is not a regular file, not a results database")
            if not self.path.parent.is_dir():
                raise RcfrError(f"directory does not exist: {self.path.parent}")
        self.db = None
        self._prepared = False
        # SQLite's -wal and -shm files this connection creates are removed on close if they
        # hold nothing: a damaged file (whose close does not checkpoint) keeps no litter
        self._sidecars = [] if memory else [
            p for p in (self.path.with_name(self.path.name + s) for s in ("-wal", "-shm"))
            if not os.path.lexists(p)]
        try:
            self.db = self._connect()
            self._check()
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            self.close()
            raise self._error(exc) from None
        except BaseException:
            self.close()
            raise

    def _connect(self) -> sqlite3.Connection:
        """A connection that changes nothing by opening (read-only stores are read through a
        read-write connection that never writes, so SQLite leaves no -wal or -shm file
        behind; a folder that cannot take them is read through a read-only one).  It is
        :attr:`db` as soon as it exists, so that :meth:`close` closes it whatever fails."""
        uri = None if str(self.path) == ":memory:" else self.path.resolve().as_uri()
        tries = [(str(self.path), False)]
        if self.readonly and uri is not None:
            tries += [(f"{uri}?mode=ro", True), (f"{uri}?immutable=1", True)]
        for k, (name, as_uri) in enumerate(tries):
            self.db = sqlite3.connect(name, uri=as_uri, timeout=30.0, isolation_level=None)
            self.db.row_factory = sqlite3.Row
            self.db.text_factory = _text
            try:
                self.db.execute("PRAGMA schema_version").fetchone()  # opens the file
                break
            except sqlite3.OperationalError:
                if k == len(tries) - 1:
                    raise
                self.db.close()
        return self.db

    def _check(self) -> None:
        """Refuse a damaged file, another program's SQLite file and a newer schema."""
        try:
            rows = [tuple(r) for r in self.db.execute("PRAGMA quick_check").fetchall()]
        except UnicodeDecodeError:  # SQLite's report quotes damaged bytes
            rows = [("quick_check's report is not UTF-8",)]
        if rows != [("ok",)]:
            first = rows[0][0] if rows else "no answer"
            raise self._error(sqlite3.DatabaseError(f"quick_check: {first}"))
        version = self.version
        if version > SCHEMA_VERSION:
            raise RcfrError(f"{self.path}: schema version {version} is newer than this rcfr "
                            f"understands ({SCHEMA_VERSION}); upgrade rcfr")
        tables = {r[0] for r in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if version == 0 and tables:
            raise RcfrError(f"{self.path} is an SQLite file but not an rcfr results database "
                            f"(it has tables {', '.join(sorted(map(str, tables)))[:80]}); "
                            f"give another --db")
        if version and not {"runs", "points"} <= tables:
            raise RcfrError(f"{self.path}: not a results database (schema version {version} "
                            f"without its runs and points tables)")
        if version:
            later = ({"complexity_share", "resumed_from"} if version < 2 else set()) | (
                {"owner"} if version < 3 else set()) | (
                {"regression_error"} if version < 4 else set())
            for table, wanted in (("runs", set(RUN_COLUMNS) - later),
                                  ("points", {"run", *POINT_COLUMNS})):
                have = {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}
                if not wanted <= have:
                    missing = ", ".join(sorted(wanted - have))
                    raise RcfrError(f"{self.path}: not a results database (its {table} table "
                                    f"lacks {missing})")

    def _error(self, exc: sqlite3.Error | UnicodeDecodeError) -> RcfrError:
        """One line for an SQLite error on this file."""
        text = " ".join(str(exc).split())
        if isinstance(exc, UnicodeDecodeError):
            text = "text that is not UTF-8 where SQLite keeps its own"
        low = text.lower()
        if "locked" in low or "busy" in low:
            return RcfrError(f"{self.path}: the results database is locked by another "
                             f"process ({text}); try again when it is done")
        if "readonly" in low or "read-only" in low:
            return RcfrError(f"cannot write {self.path}: {text}")
        if "unable to open" in low:
            return RcfrError(f"cannot open {self.path}: {text}")
        if "not a database" in low or "no such table" in low or "no such column" in low:
            return RcfrError(f"{self.path}: not a results database ({text})")
        return RcfrError(f"{self.path}: the results database is damaged ({text}); recover "
                         f"what it holds with: sqlite3 {self.path} \".recover\" | sqlite3 "
                         f"recovered.db")

    def _query(self, sql: str, args: Iterable[Any] = ()) -> list[dict[str, Any]]:
        try:
            return [dict(r) for r in self.db.execute(sql, tuple(args)).fetchall()]
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise self._error(exc) from None

    def _prepare(self) -> None:
        """Before the first write: WAL mode and the schema migrated (a store that is only read,
        or refused after reading, is left as it was)."""
        if self._prepared:
            return
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self._migrate()
        self._prepared = True

    def _write(self, statements: list[tuple[str, Any, bool]]) -> None:
        """Run ``(sql, args, many)`` statements in one transaction."""
        if self.readonly:
            raise RcfrError(f"{self.path} was opened read-only")
        try:
            self._prepare()
            with self.transaction():
                for sql, args, many in statements:
                    (self.db.executemany if many else self.db.execute)(sql, args)
        except sqlite3.Error as exc:
            raise self._error(exc) from None

    def _damage(self, key: str, reason: str) -> None:
        self.damaged.setdefault(key, reason)

    def warnings(self) -> list[str]:
        """One line for each damaged row read (at most :data:`MAX_WARNINGS`, then a
        count)."""
        items = list(self.damaged.items())
        lines = [f"{self.path}: run {key}: {reason} (left out)"
                 for key, reason in items[:MAX_WARNINGS]]
        if len(items) > MAX_WARNINGS:
            lines.append(f"{self.path}: {len(items) - MAX_WARNINGS} more damaged rows left out")
        return lines

    @property
    def files(self) -> Path:
        """The directory of strategies and checkpoints, beside the database."""
        return self.path.with_name(self.path.name + ".files")

    def ensure_files(self) -> Path:
        if not self.readonly:
            try:
                self._prepare()
            except sqlite3.Error as exc:
                raise self._error(exc) from None
        self.files.mkdir(exist_ok=True)
        return self.files

    def strategy_path(self, run_hash: str) -> Path:
        return self.files / f"{run_hash}.strategy.npz"

    # -- schema ----------------------------------------------------------------------------
    def _migrate(self) -> None:
        if self.version >= SCHEMA_VERSION:
            return
        with self.transaction():  # the version read again under the write lock: another
            # driver may have created or migrated the store meanwhile
            for v in range(self.version, SCHEMA_VERSION):
                for statement in MIGRATIONS[v].split(";"):
                    if statement.strip():
                        self.db.execute(statement)
                self.db.execute(f"PRAGMA user_version = {v + 1}")

    @property
    def version(self) -> int:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version < 0:
            raise RcfrError(f"{self.path}: schema version {version} is not rcfr's")
        return version

    def transaction(self):
        return _Transaction(self.db)

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None
            wal = self._sidecars[0] if self._sidecars else None
            try:
                if wal is not None and wal.name.endswith("-wal") and wal.is_file() \
                        and wal.stat().st_size == 0:
                    for path in self._sidecars:
                        path.unlink(missing_ok=True)
            except OSError:  # a folder that takes no change: nothing was left there either
                pass

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- writes (the driver only) ------------------------------------------------------------
    def queue(self, specs: Iterable[RunSpec]) -> None:
        """Add runs not yet in the store as ``queued``; existing rows are left alone."""
        self._write([("INSERT OR IGNORE INTO runs (hash, spec, status) VALUES (?, ?, 'queued')",
                      [(s.hash, s.canonical_json()) for s in specs], True)])

    def mark_running(self, run_hash: str, code_version: str) -> None:
        self._write([("UPDATE runs SET status = 'running', started = ?, error = NULL, "
                      "code_version = ? WHERE hash = ?",
                      (time.time(), code_version, run_hash), False)])

    def claim(self, run_hash: str, code_version: str, owner: str) -> bool:
        """Mark a queued, failed or interrupted run ``running`` for the driver ``owner``
        (``HOST:PID``, :func:`driver_id`), in one transaction; False (and nothing written)
        where it is done or running for another driver that is alive on this host."""
        if self.readonly:
            raise RcfrError(f"{self.path} was opened read-only")
        try:
            self._prepare()
            with self.transaction():
                row = self.db.execute("SELECT status, owner, started FROM runs WHERE hash = ?",
                                      (run_hash,)).fetchone()
                if row is None or row["status"] == "done":
                    return False
                if (row["status"] == "running" and row["owner"] not in (None, owner)
                        and _alive(row["owner"], row["started"])):
                    return False
                self.db.execute("UPDATE runs SET status = 'running', started = ?, "
                                "error = NULL, code_version = ?, owner = ? WHERE hash = ?",
                                (time.time(), code_version, owner, run_hash))
                return True
        except sqlite3.Error as exc:
            raise self._error(exc) from None

    def mark(self, hashes: Iterable[str], status: str, error: str | None = None) -> None:
        if status not in STATUSES:
            raise ValueError(status)
        self._write([("UPDATE runs SET status = ?, error = ?, ended = ? WHERE hash = ?",
                      [(status, error, time.time(), h) for h in hashes], True)])

    def record(self, result: dict[str, Any]) -> None:
        """Write a run's result (from :func:`rcfr.experiments.execute.execute`) and its
        curve in one transaction."""
        h = result["hash"]
        self._write([
            ("UPDATE runs SET status = ?, error = ?, host = ?, ended = ?, seconds = ?, "
             "iterations = ?, nodes = ?, value = ?, exploitability = ?, complexity = ?, "
             "complexity_share = ?, resumed_from = ?, regression_error = ?, "
             "code_version = COALESCE(?, code_version) WHERE hash = ?",
             (result["status"], result.get("error"), result.get("host"), time.time(),
              result.get("seconds"), result.get("iterations"), result.get("nodes"),
              result.get("value"), result.get("exploitability"), result.get("complexity"),
              result.get("complexity_share"), result.get("resumed_from"),
              result.get("regression_error"), result.get("code_version"), h), False),
            ("DELETE FROM points WHERE run = ?", (h,), False),
            ("INSERT INTO points (run, iterations, nodes, seconds, exploitability, value) "
             "VALUES (?, ?, ?, ?, ?, ?)",
             [(h, *(p.get(k) for k in POINT_COLUMNS)) for p in result.get("points", [])],
             True)])

    # -- reads (every row checked: a damaged one is left out and named in ``damaged``) -------
    @property
    def _empty(self) -> bool:
        """A file without rcfr's tables yet (a new, empty file; they come with the first
        write)."""
        return self.version == 0

    def statuses(self, hashes: Iterable[str]) -> dict[str, str]:
        """The status of each run of ``hashes`` the store has (damaged rows left out)."""
        return {r["hash"]: r["status"] for r in self.runs(hashes=hashes)}

    def runs(self, where: dict[str, Any] | None = None,
             hashes: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """Rows of ``runs`` as dicts (``spec`` parsed), filtered by ``where`` (a spec field
        or a column, equal to the value) and ``hashes``; in insertion order.  A damaged row
        is left out and named in :attr:`damaged`."""
        sql, args = "SELECT rowid AS rowid_, * FROM runs", []
        clauses = []
        for key, value in (where or {}).items():
            if key in RUN_COLUMNS and key != "spec":
                clauses.append(f"{key} = ?")
            elif key in RunSpec.__dataclass_fields__:  # a row whose spec is no JSON is kept
                clauses.append(f"(NOT json_valid(spec) OR json_type(spec) != 'object' "
                               f"OR json_extract(spec, '$.{key}') IS ?)")
            else:
                raise RcfrError(f"--where: unknown key {key!r}; use a run field "
                                f"({', '.join(RunSpec.__dataclass_fields__)}) or a column "
                                f"({', '.join(RUN_COLUMNS)})")
            args.append(int(value) if isinstance(value, bool) else value)
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        sql += " ORDER BY rowid"
        if self._empty:
            return []
        rows = self._query(sql, args)
        if hashes is not None:
            wanted = {h: k for k, h in enumerate(hashes)}
            rows = sorted((r for r in rows if isinstance(r.get("hash"), str)
                           and r["hash"] in wanted), key=lambda r: wanted[r["hash"]])
        good = []
        for r in rows:
            rowid = r.pop("rowid_")
            for key in RUN_COLUMNS:  # an older schema read as it is (read-only)
                r.setdefault(key, None)
            reason = _run_damage(r)
            if reason is None:
                good.append(r)
            else:
                key = r["hash"] if isinstance(r["hash"], str) and _HASH.fullmatch(
                    r["hash"]) else f"in row {rowid}"
                self._damage(key, reason)
        if where:  # a spec field filtered in SQL where the spec was JSON: now on the real run
            for key, value in where.items():
                if key not in RUN_COLUMNS:
                    value = bool(value) if isinstance(value, bool) else value
                    good = [r for r in good if r["spec"].get(key) == value]
        return good

    def run(self, run_hash: str) -> dict[str, Any] | None:
        rows = self.runs(where={"hash": run_hash})
        return rows[0] if rows else None

    def points(self, run_hash: str) -> list[dict[str, Any]]:
        """The curve of a run, by iterations; a damaged point is left out and its run named
        in :attr:`damaged`."""
        if self._empty:
            return []
        good = []
        for k, p in enumerate(self._query(
                "SELECT iterations, nodes, seconds, exploitability, value FROM points "
                "WHERE run = ? ORDER BY iterations", (run_hash,))):
            reason = _point_damage(p)
            if reason is None:
                good.append(p)
            else:
                self._damage(run_hash, f"curve point {k + 1}: {reason}")
        return good

    def find(self, prefix: str) -> str:
        """The full hash of the one run whose hash starts with ``prefix``."""
        rows = [] if self._empty else self._query(
            "SELECT hash FROM runs WHERE substr(hash, 1, ?) = ?", (len(prefix), prefix))
        if len(rows) != 1:
            raise RcfrError(f"{'no run' if not rows else 'several runs'} with a hash starting "
                            f"{prefix!r} in {self.path}")
        return rows[0]["hash"]


def driver_id() -> str:
    """This process as a store's ``owner`` of the runs it holds: ``HOST:PID``, HOST the host
    name and this boot's id (``vm/3f2a91c0``), so that a store copied from another machine of
    the same name does not take its drivers for this one's processes."""
    return f"{_this_host()}:{os.getpid()}"


def _this_host() -> str:
    """The host name with the first 8 characters of Linux's boot id, where it can be read."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()[:8]
    except OSError:
        return platform.node()
    return f"{platform.node()}/{boot}" if boot else platform.node()


def _alive(owner: Any, since: float | None = None) -> bool:
    """Whether the driver ``owner`` (``HOST:PID``) still runs: a process on this host (and
    boot) that exists and, where it can be told (Linux), started before ``since`` (the time
    it claimed the run: a later process has only reused the number); a driver on another
    host or boot cannot be asked and counts as gone (its runs resume). An owner written
    before the boot id was recorded (``HOST:PID``) is asked by its host name alone."""
    host, _, pid = str(owner).rpartition(":")
    if host not in (_this_host(), platform.node()) or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    if since is None:
        return True
    started = _process_start(int(pid))
    return started is None or started <= float(since) + 2.0


def _process_start(pid: int) -> float | None:
    """When process ``pid`` started (seconds since the epoch, from Linux's ``/proc``), or
    None where that cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        boot = next(int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime "))
        return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: start time
    except (OSError, ValueError, IndexError, StopIteration):
        return None


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on an exception."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type, *exc) -> None:
        if exc_type is None:
            self.db.execute("COMMIT")
        elif self.db.in_transaction:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error:  # the error at hand is the one to report
                pass


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
