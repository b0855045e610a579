"""The durable results store of the bench: one SQLite file, written chunk by chunk.

Tables (format 4):

- ``runs``: one row per bench run: when, on what machine, with which arguments, run by
  which executors;
- ``outcomes``: one row per puzzle x backend x repeat, unique: how it ended, its first
  solution, times (wall; CPU seconds and the worker's peak memory where the executor
  measured them, NULL where not: see :mod:`.executors`), counters and, in a ``--certify``
  run, what the proof of its negative claim came to (``proved``, ``proof_lines``,
  ``proof_bytes``, ``check_time``; NULL without a proof). Texts every row
  would repeat are kept once: the set, the backend and the worker are numbers into
  ``names``; the stats a whole chunk shares (the native engine's knobs) a number into
  ``shared_stats``, and a row keeps in ``stats`` only what is its own; the puzzle's
  text is in ``puzzles``, once per run whatever the backends and repeats;
- ``ratings``: one row per puzzle text the logic solver rated, for ``bench --rate``.

The view ``results`` puts them together again: one row per outcome with the set, the
puzzle, the backend, the engine, the whole stats (as JSON) and the worker as text, the
columns of :data:`RESULT_COLUMNS`, so ``SELECT ... FROM results`` reads the rows as the
bench made them. A store made by an older sudokulab is brought to format 3 in place
when it is opened, once, keeping every row: format 1 (one wide ``results`` table) is
rebuilt, formats 2 and 3 gain the columns they lack (NULL in their rows).

The rows of a chunk of work are committed together, in one transaction, once the chunk
is done, in WAL mode: a Ctrl-C keeps every finished chunk, a kill loses at most the
chunks in flight, never part of one, and ``--resume`` can tell what is left to do. One
process at a time writes a run: :meth:`Store.lock_run` holds a lock on it until the
store is closed or the process ends, however it ends.
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

#: The store's format (SQLite's ``user_version``): 2 since outcomes keep their texts once,
#: 3 since they keep CPU time and peak memory (``cpu_s``, ``peak_mb``), 4 since they keep
#: what a proof came to (``proved``, ``proof_lines``, ``proof_bytes``, ``check_time``).
FORMAT = 4

TABLES = """
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY,
    started TEXT NOT NULL,
    finished TEXT,
    machine TEXT,
    cpu TEXT,
    cores INTEGER,
    python TEXT,
    packages TEXT,
    git TEXT,
    args TEXT NOT NULL,
    executors TEXT
);
CREATE TABLE IF NOT EXISTS names (
    name_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS shared_stats (
    stats_id INTEGER PRIMARY KEY,
    stats TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS puzzles (
    run_id INTEGER NOT NULL,
    set_id INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    puzzle TEXT NOT NULL,
    PRIMARY KEY (run_id, set_id, idx)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS outcomes (
    run_id INTEGER NOT NULL,
    set_id INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    backend_id INTEGER NOT NULL,
    repeat INTEGER NOT NULL,
    status TEXT NOT NULL,
    solution TEXT,
    count INTEGER,
    verified INTEGER,
    agrees INTEGER,
    time REAL,
    build_time REAL,
    solve_time REAL,
    nodes INTEGER,
    guesses INTEGER,
    backtracks INTEGER,
    stats_id INTEGER,
    stats TEXT,
    error TEXT,
    worker_id INTEGER,
    cpu_s REAL,
    peak_mb REAL,
    proved INTEGER,
    proof_lines INTEGER,
    proof_bytes INTEGER,
    check_time REAL,
    UNIQUE (run_id, set_id, backend_id, repeat, idx)
);
CREATE TABLE IF NOT EXISTS ratings (
    puzzle TEXT PRIMARY KEY,
    status TEXT NOT NULL,
    hardest TEXT,
    score REAL,
    grade TEXT,
    steps INTEGER
);
"""


VIEW = """
CREATE VIEW IF NOT EXISTS results AS
SELECT
    o.run_id AS run_id,
    s.name AS "set",
    o.idx AS idx,
    p.puzzle AS puzzle,
    b.name AS backend,
    COALESCE(json_extract(o.stats, '$.engine'), json_extract(h.stats, '$.engine')) AS engine,
    o.repeat AS repeat,
    o.status AS status,
    o.solution AS solution,
    o.count AS count,
    o.verified AS verified,
    o.agrees AS agrees,
    o.time AS time,
    o.build_time AS build_time,
    o.solve_time AS solve_time,
    o.nodes AS nodes,
    o.guesses AS guesses,
    o.backtracks AS backtracks,
    json_patch(
        json_patch(
            COALESCE(h.stats, '{}'),
            json_object('nodes', o.nodes, 'guesses', o.guesses, 'backtracks', o.backtracks)
        ),
        COALESCE(o.stats, '{}')
    ) AS stats,
    o.error AS error,
    w.name AS worker,
    o.cpu_s AS cpu_s,
    o.peak_mb AS peak_mb,
    o.proved AS proved,
    o.proof_lines AS proof_lines,
    o.proof_bytes AS proof_bytes,
    o.check_time AS check_time,
    o.rowid AS seq
FROM outcomes o
LEFT JOIN names s ON s.name_id = o.set_id
LEFT JOIN names b ON b.name_id = o.backend_id
LEFT JOIN names w ON w.name_id = o.worker_id
LEFT JOIN shared_stats h ON h.stats_id = o.stats_id
LEFT JOIN puzzles p ON p.run_id = o.run_id AND p.set_id = o.set_id AND p.idx = o.idx;
"""

SCHEMA = TABLES + VIEW

#: The columns of ``ratings`` in order.
RATING_COLUMNS = ("puzzle", "status", "hardest", "score", "grade", "steps")

#: The columns of the ``results`` view (and of :meth:`Store.results`) in order.
RESULT_COLUMNS = (
    "run_id", "set", "idx", "puzzle", "backend", "engine", "repeat", "status", "solution",
    "count", "verified", "agrees", "time", "build_time", "solve_time", "nodes", "guesses",
    "backtracks", "stats", "error", "worker", "cpu_s", "peak_mb", "proved", "proof_lines",
    "proof_bytes", "check_time",
)  # fmt: skip

#: Rows a Parquet export reads and writes at a time.
PARQUET_CHUNK = 50_000


def _parquet_schema() -> Any:
    """The Parquet columns of :data:`RESULT_COLUMNS` (pyarrow imported only when asked)."""
    import pyarrow as pa

    kinds = {
        "run_id": pa.int64(), "idx": pa.int64(), "repeat": pa.int64(), "count": pa.int64(),
        "verified": pa.bool_(), "agrees": pa.bool_(), "time": pa.float64(),
        "build_time": pa.float64(), "solve_time": pa.float64(), "nodes": pa.int64(),
        "guesses": pa.int64(), "backtracks": pa.int64(), "cpu_s": pa.float64(),
        "peak_mb": pa.float64(), "proved": pa.bool_(), "proof_lines": pa.int64(),
        "proof_bytes": pa.int64(), "check_time": pa.float64(),
    }  # fmt: skip
    return pa.schema([(c, kinds.get(c, pa.string())) for c in RESULT_COLUMNS])


#: What a row of :class:`ChunkRows` holds, in order (the rest is the chunk's).
ROW_FIELDS = (
    "idx", "repeat", "status", "solution", "count", "verified", "agrees", "time",
    "build_time", "solve_time", "nodes", "guesses", "backtracks", "stats", "error", "cpu_s",
    "peak_mb", "proved", "proof_lines", "proof_bytes", "check_time",
)  # fmt: skip
#: The counters each outcome keeps in a column of its own (not in its stats text).
COUNTERS = ("nodes", "guesses", "backtracks")

_INSERT = (
    f"INSERT OR REPLACE INTO outcomes (run_id, set_id, backend_id, worker_id, stats_id, "
    f"{', '.join(ROW_FIELDS)}) VALUES ({', '.join('?' * (5 + len(ROW_FIELDS)))})"
)

PACKAGES = (
    "sudokulab",
    "ortools",
    "python-sat",
    "z3-solver",
    "python-constraint2",
    "pandas",
    "numpy",
)

#: Puzzle texts :meth:`Store.unrated` gives at a time.
PAGE = 4096


@dataclass(frozen=True)
class ChunkRows:
    """The rows of one chunk, as the store keeps them: what the chunk's rows share (set,
    backend, worker, the stats every row shares as JSON), each puzzle's text, and a
    tuple per row in :data:`ROW_FIELDS` order (``stats``: the row's own stats as JSON,
    beyond the shared ones and the counters; None when it has none; ``cpu_s`` and
    ``peak_mb``: None where the executor did not measure them; the proof's figures: None
    where nothing was proved)."""

    set: str
    backend: str
    worker: str | None
    shared: str | None
    puzzles: list[tuple[int, str]]
    rows: list[tuple[Any, ...]]

    def __len__(self) -> int:
        return len(self.rows)


class StoreError(Exception):
    """A store that cannot be used: not a folder, not a store, too new a format."""


class StoreBusy(StoreError):
    """Another process is writing the store (``holder`` says which, when it is known)."""

    def __init__(self, path: Path, holder: str | None) -> None:
        which = f" ({holder})" if holder else ""
        super().__init__(
            f"{path} is busy: another sudokulab process is writing it{which}; try again when "
            "it is done"
        )
        self.path, self.holder = path, holder


class RunLocked(StoreError):
    """Another process is writing the run (``holder`` says which)."""

    def __init__(self, run_id: int, holder: str) -> None:
        super().__init__(
            f"run {run_id} is being written by another bench ({holder}); wait for it to "
            "finish or stop it, then resume"
        )
        self.run_id, self.holder = run_id, holder


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _git_revision() -> str | None:
    source = Path(__file__).resolve().parent.parent
    try:
        out = subprocess.run(
            ["git", "-C", str(source), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def machine() -> dict[str, Any]:
    """Where the numbers come from: host, CPU, cores, Python, package versions, git."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return {
        "machine": socket.gethostname(),
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "packages": json.dumps(versions, sort_keys=True),
        "git": _git_revision(),
    }


#: Columns format 1 gained over time: (table, column, type); a format-1 store gets them
#: before it is brought to format 2.
ADDED_COLUMNS = (("results", "worker", "TEXT"), ("runs", "executors", "TEXT"))
#: Columns formats 3 and 4 added to ``outcomes``: an older store gains those it lacks (NULL
#: in the rows it has: not measured, nothing proved) and the ``results`` view is made
#: again to show them.
MEASURED_COLUMNS = (
    ("cpu_s", "REAL"), ("peak_mb", "REAL"), ("proved", "INTEGER"), ("proof_lines", "INTEGER"),
    ("proof_bytes", "INTEGER"), ("check_time", "REAL"),
)  # fmt: skip

#: Format 1 to this one, in one transaction: the names and the puzzles once, each row's stats
#: kept whole as its own (it has no shared part), the rows in their order.
_MIGRATE = """
ALTER TABLE results RENAME TO results_format1;
{schema}
INSERT OR IGNORE INTO names (name)
    SELECT "set" FROM results_format1 UNION SELECT backend FROM results_format1
    UNION SELECT worker FROM results_format1 WHERE worker IS NOT NULL;
INSERT OR IGNORE INTO puzzles (run_id, set_id, idx, puzzle)
    SELECT r.run_id, s.name_id, r.idx, r.puzzle
    FROM results_format1 r JOIN names s ON s.name = r."set";
INSERT INTO outcomes (run_id, set_id, idx, backend_id, repeat, status, solution, count,
    verified, agrees, time, build_time, solve_time, nodes, guesses, backtracks, stats_id,
    stats, error, worker_id)
    SELECT r.run_id, s.name_id, r.idx, b.name_id, r.repeat, r.status, r.solution, r.count,
        r.verified, r.agrees, r.time, r.build_time, r.solve_time, r.nodes, r.guesses,
        r.backtracks, NULL, NULLIF(r.stats, '{{}}'), r.error, w.name_id
    FROM results_format1 r JOIN names s ON s.name = r."set"
    JOIN names b ON b.name = r.backend LEFT JOIN names w ON w.name = r.worker
    ORDER BY r.rowid;
DROP TABLE results_format1;
PRAGMA user_version = {version};
"""


def _tables(db: sqlite3.Connection) -> dict[str, str]:
    return dict(db.execute("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')"))


def _migrate(db: sqlite3.Connection, path: Path, script: str) -> None:
    """Bring an older store to this format with ``script``, all of it or nothing (an error
    or Ctrl-C part way rolls back: the store stays as it was)."""
    print(f"sudokulab: bringing {path} to store format {FORMAT}...", file=sys.stderr)
    try:
        db.executescript("BEGIN;\n" + script + "COMMIT;")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            db.execute("ROLLBACK")
        raise


def _open_format(db: sqlite3.Connection, path: Path) -> None:
    """Create the tables of a new store, bring an older store to this format, or refuse a
    store of a newer format."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = _tables(db)
    if version > FORMAT:
        raise StoreError(
            f"{path} is a results store of format {version}, made by a newer sudokulab "
            f"(this one reads format {FORMAT} and older): upgrade sudokulab"
        )
    if tables.get("results") == "table" or ("outcomes" in tables and version < FORMAT):
        # One process upgrades; another that found the old format too waits for it, then
        # finds the store upgraded (it would fail on the columns already added).
        with _upgrading(path):
            _upgrade(db, path, db.execute("PRAGMA user_version").fetchone()[0], _tables(db))
        return
    if tables and "outcomes" not in tables:
        raise StoreError(f"{path} is an SQLite file but not a sudokulab results store")
    db.executescript(SCHEMA)
    db.execute(f"PRAGMA user_version = {FORMAT}")
    db.commit()


def _upgrade(db: sqlite3.Connection, path: Path, version: int, tables: dict[str, str]) -> None:
    """Bring a store of an older format to this one (nothing if it is there already)."""
    if tables.get("results") == "table":  # format 1
        for table, column, kind in ADDED_COLUMNS:
            have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            if column not in have:
                db.execute(f'ALTER TABLE {table} ADD COLUMN "{column}" {kind}')
        db.commit()
        _migrate(db, path, _MIGRATE.format(schema=SCHEMA, version=FORMAT))
        return
    if version < FORMAT:  # formats 2 and 3: the columns they lack, then the view again
        have = {row[1] for row in db.execute("PRAGMA table_info(outcomes)")}
        added = "".join(
            f"ALTER TABLE outcomes ADD COLUMN {column} {kind};\n"
            for column, kind in MEASURED_COLUMNS
            if column not in have
        )
        _migrate(db, path, f"{added}DROP VIEW IF EXISTS results;\n{VIEW}"
                 f"PRAGMA user_version = {FORMAT};\n")  # fmt: skip


#: Seconds a store's opening waits for another process's write (SQLite's busy timeout)
#: or upgrade before it says the store is busy.
BUSY_TIMEOUT = 5.0


@contextlib.contextmanager
def _upgrading(path: Path) -> Iterator[None]:
    """Hold the store's upgrade lock (a file beside it, as a run's lock), waiting up to
    :data:`BUSY_TIMEOUT` for another process's upgrade; StoreBusy naming it after that."""
    lock = path.with_name(f".{path.name}.upgrade.lock").resolve()
    until = time.monotonic() + BUSY_TIMEOUT
    while True:
        taken = _flock(lock)
        if isinstance(taken, int):
            break
        if time.monotonic() >= until:
            raise StoreBusy(path, f"{taken}, upgrading it" if taken else "upgrading it")
        time.sleep(0.05)
    try:
        yield
    finally:
        _unlock(lock, taken)


def _holders(path: Path) -> str | None:
    """Who is writing the store, as far as its lock files say: the processes upgrading
    it or writing its runs (their own words), or None when none says."""
    said = []
    prefix = f".{path.name}."
    for lock in sorted(path.parent.iterdir()):
        if not (lock.name.startswith(prefix) and lock.name.endswith(".lock")):
            continue
        if lock.resolve() in _RunLock._held:
            continue  # this process's own
        with contextlib.suppress(OSError):
            fd = os.open(lock, os.O_RDONLY)
            try:
                import fcntl

                try:
                    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                except BlockingIOError:  # held: its holder wrote who it is
                    said.append(os.pread(fd, 4096, 0).decode(errors="replace").strip())
            finally:
                os.close(fd)
    return "; ".join(dict.fromkeys(s for s in said if s)) or None


def _busy(err: sqlite3.Error) -> bool:
    """Whether SQLite refused because another connection holds the database."""
    code = getattr(err, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return "database is locked" in str(err)


class Store:
    """A results store in one SQLite file (created on first use, with its folder)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        if self.path.parent.exists() and not self.path.parent.is_dir():
            raise StoreError(f"{self.path.parent} is not a folder")
        if self.path.exists() and not self.path.is_file():
            raise StoreError(f"{self.path} is not a file")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT)
        except (OSError, sqlite3.Error) as err:
            raise StoreError(f"cannot open a store at {self.path}: {err}") from None
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            _open_format(self._db, self.path)
        except sqlite3.DatabaseError as err:
            self._db.close()
            if _busy(err):
                raise StoreBusy(self.path, _holders(self.path)) from None
            raise StoreError(f"{self.path} is not a results store: {err}") from None
        except BaseException:
            self._db.close()
            raise
        self._ids: dict[tuple[str, str], int] = {}
        self._locks: dict[int, _RunLock] = {}

    def close(self) -> None:
        """Close the database and release the runs this store locked."""
        for lock in self._locks.values():
            lock.release()
        self._locks.clear()
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- runs ---------------------------------------------------------------------------

    def start_run(
        self,
        args: dict[str, Any],
        executor: dict[str, Any] | None = None,
        first: ChunkRows | None = None,
    ) -> int:
        """Record a new run with its arguments, machine and executor (and its first
        chunk's rows, in the same transaction: a run is never left without rows by a
        failure between the two); its id."""
        info = machine()
        with self._db:
            cursor = self._db.execute(
                "INSERT INTO runs (started, machine, cpu, cores, python, packages, git, args,"
                " executors) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    _now(),
                    info["machine"],
                    info["cpu"],
                    info["cores"],
                    info["python"],
                    info["packages"],
                    info["git"],
                    json.dumps(args, sort_keys=True),
                    json.dumps([executor], sort_keys=True) if executor is not None else None,
                ),
            )
            run_id = int(cursor.lastrowid)
            if first is not None:
                self._insert(run_id, first)
        return run_id

    def finish_run(self, run_id: int) -> None:
        """Mark a run finished."""
        with self._db:
            self._db.execute("UPDATE runs SET finished = ? WHERE run_id = ?", (_now(), run_id))

    def add_executor(self, run_id: int, executor: dict[str, Any]) -> None:
        """Record what ran (part of) a run: the ``executors`` column is a JSON list, one
        entry per start or resume (a run may be finished by another executor)."""
        row = self._db.execute("SELECT executors FROM runs WHERE run_id = ?", (run_id,))
        found = row.fetchone()
        known = json.loads(found[0]) if found and found[0] else []
        with self._db:
            self._db.execute(
                "UPDATE runs SET executors = ? WHERE run_id = ?",
                (json.dumps([*known, executor], sort_keys=True), run_id),
            )

    def run_args(self, run_id: int) -> dict[str, Any]:
        """The arguments a run was started with; LookupError if there is no such run."""
        row = self._db.execute("SELECT args FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            raise LookupError(f"no run {run_id} in {self.path}")
        return json.loads(row[0])

    def run_ids(self) -> list[int]:
        """Every run in the store, oldest first."""
        return [r[0] for r in self._db.execute("SELECT run_id FROM runs ORDER BY run_id")]

    def lock_run(self, run_id: int) -> None:
        """Hold the run for this process until :meth:`close` or the process's end (a
        crash included: the system releases the lock); :class:`RunLocked` naming the
        holder when another process holds it."""
        if run_id not in self._locks:
            lock = self.path.with_name(f".{self.path.name}.run-{run_id}.lock")
            self._locks[run_id] = _RunLock.take(lock, run_id)

    # --- rows ---------------------------------------------------------------------------

    def _id(self, table: str, value: str) -> int:
        """The number of a name (or of a shared stats text), made on first use."""
        key = (table, value)
        found = self._ids.get(key)
        if found is None:
            column, number = ("name", "name_id") if table == "names" else ("stats", "stats_id")
            self._db.execute(f"INSERT OR IGNORE INTO {table} ({column}) VALUES (?)", (value,))
            row = self._db.execute(
                f"SELECT {number} FROM {table} WHERE {column} = ?", (value,)
            ).fetchone()
            found = self._ids[key] = int(row[0])
        return found

    def _insert(self, run_id: int, chunk: ChunkRows) -> None:
        set_id = self._id("names", chunk.set)
        backend_id = self._id("names", chunk.backend)
        worker_id = None if chunk.worker is None else self._id("names", chunk.worker)
        stats_id = None if chunk.shared is None else self._id("shared_stats", chunk.shared)
        self._db.executemany(
            "INSERT OR IGNORE INTO puzzles (run_id, set_id, idx, puzzle) VALUES (?, ?, ?, ?)",
            [(run_id, set_id, idx, text) for idx, text in chunk.puzzles],
        )
        head = (run_id, set_id, backend_id, worker_id)
        # a row whose status is invalid has no stats (no backend ran), whatever is shared
        self._db.executemany(
            _INSERT,
            [(*head, None if row[2] == "invalid" else stats_id, *row) for row in chunk.rows],
        )

    def add_rows(self, run_id: int, chunk: ChunkRows) -> None:
        """Store a chunk's rows in one transaction: all of them or, after a crash, none.
        A row already stored is replaced, never doubled."""
        try:
            with self._db:  # commits at the end, rolls back on an exception
                self._insert(run_id, chunk)
        except BaseException:
            self._ids.clear()  # numbers made in the rolled-back transaction are gone
            raise

    def stored_indices(
        self, run_id: int, set_name: str, backend: str, repeat: int, low: int, high: int
    ) -> np.ndarray:
        """The indices from ``low`` to ``high`` that a run has a row for, for one set,
        backend and repeat."""
        rows = self._db.execute(
            "SELECT o.idx FROM outcomes o JOIN names s ON s.name_id = o.set_id"
            " JOIN names b ON b.name_id = o.backend_id WHERE o.run_id = ? AND s.name = ?"
            " AND b.name = ? AND o.repeat = ? AND o.idx BETWEEN ? AND ?",
            (run_id, set_name, backend, repeat, low, high),
        )
        return np.fromiter((r[0] for r in rows), dtype=np.int64)

    def row_counts(self, run_id: int) -> dict[tuple[str, str], int]:
        """How many rows a run has per (set, backend)."""
        rows = self._db.execute(
            "SELECT s.name, b.name, n FROM (SELECT set_id, backend_id, COUNT(*) AS n"
            " FROM outcomes WHERE run_id = ? GROUP BY set_id, backend_id) o"
            " JOIN names s ON s.name_id = o.set_id JOIN names b ON b.name_id = o.backend_id",
            (run_id,),
        )
        return {(s, b): n for s, b, n in rows}

    def backends(self, run_id: int) -> list[str]:
        """The backend labels of a run's results, in the order they were first stored."""
        rows = self._db.execute(
            "SELECT b.name FROM (SELECT backend_id, MIN(rowid) AS first FROM outcomes"
            " WHERE run_id = ? GROUP BY backend_id) o JOIN names b ON b.name_id = o.backend_id"
            " ORDER BY o.first",
            (run_id,),
        )
        return [r[0] for r in rows]

    def write_agreement(self, run_id: int, unique: bool = False) -> None:
        """Compute every row's agreement for the run in SQL (:func:`agreement_query`) and
        write the verdicts that changed, in one transaction."""
        with self._db:
            backends = self._db.execute(
                "SELECT COUNT(DISTINCT backend_id) FROM outcomes WHERE run_id = ?", (run_id,)
            ).fetchone()[0]
            if backends < 2:  # nothing to compare: no row has a verdict
                self._db.execute(
                    "UPDATE outcomes SET agrees = NULL WHERE run_id = ? AND agrees IS NOT NULL",
                    (run_id,),
                )
                return
            source = (
                "SELECT rowid AS k, set_id AS s, idx, backend_id AS b, status, solution"
                " FROM outcomes WHERE run_id = ?"
            )
            self._db.execute(
                f"UPDATE outcomes SET agrees = a.flag FROM ({agreement_query(source, unique)})"
                " AS a WHERE outcomes.rowid = a.k AND outcomes.agrees IS NOT a.flag",
                (run_id,),
            )

    # --- ratings ------------------------------------------------------------------------

    def unrated(self, run_id: int) -> Iterator[list[str]]:
        """The distinct puzzle texts of a run that have no rating yet, a page of at most
        :data:`PAGE` at a time (rate a page, store it, then ask for the next)."""
        after: tuple[int, int] = (-1, -1)
        while True:
            rows = self._db.execute(
                "SELECT p.set_id, p.idx, p.puzzle FROM puzzles p"
                " LEFT JOIN ratings g ON g.puzzle = p.puzzle"
                " WHERE p.run_id = ? AND (p.set_id, p.idx) > (?, ?) AND g.puzzle IS NULL"
                " ORDER BY p.set_id, p.idx LIMIT ?",
                (run_id, *after, PAGE),
            ).fetchall()
            if not rows:
                return
            after = (rows[-1][0], rows[-1][1])
            yield list(dict.fromkeys(text for _, _, text in rows))

    def unrated_count(self, run_id: int) -> int:
        """How many distinct puzzle texts of a run have no rating yet."""
        return int(
            self._db.execute(
                "SELECT COUNT(DISTINCT p.puzzle) FROM puzzles p"
                " LEFT JOIN ratings g ON g.puzzle = p.puzzle"
                " WHERE p.run_id = ? AND g.puzzle IS NULL",
                (run_id,),
            ).fetchone()[0]
        )

    def add_ratings(self, rows: Iterable[Sequence[Any]]) -> None:
        """Store ratings, each a tuple in :data:`RATING_COLUMNS` order, in one transaction."""
        marks = ", ".join("?" * len(RATING_COLUMNS))
        with self._db:
            self._db.executemany(f"INSERT OR REPLACE INTO ratings VALUES ({marks})", rows)

    def ratings(self, run_ids: Iterable[int] | None = None) -> pd.DataFrame:
        """The ratings of the puzzles of some runs (default: every rating) as a DataFrame."""
        import pandas as pd

        query, params = "SELECT * FROM ratings", []
        if run_ids is not None:
            params = list(run_ids)
            marks = ", ".join("?" for _ in params)
            query += f" WHERE puzzle IN (SELECT puzzle FROM puzzles WHERE run_id IN ({marks}))"
        return pd.read_sql_query(query, self._db, params=params)

    # --- reading ------------------------------------------------------------------------

    def rows(self, run_ids: Iterable[int] | None = None) -> Rows:
        """The rows of some runs (default: all) where they are, for the reports to
        query in SQL without loading them: straight from ``outcomes`` (the set, the
        backend and the worker as numbers, named by :attr:`Rows.names` once a query has
        grouped them; the puzzle's text looked up only by a query that asks for it)."""
        params = tuple(run_ids) if run_ids is not None else ()
        where = f" WHERE o.run_id IN ({', '.join('?' * len(params))})" if params else ""
        if run_ids is not None and not params:
            where = " WHERE 0"
        source = (
            'SELECT o.run_id AS run_id, o.set_id AS "set", o.idx AS idx, o.backend_id AS'
            " backend, o.repeat AS repeat, o.status AS status, o.solution AS solution,"
            " o.count AS count, o.verified AS verified, o.agrees AS agrees, o.time AS time,"
            " o.build_time AS build_time, o.solve_time AS solve_time, o.nodes AS nodes,"
            " o.guesses AS guesses, o.backtracks AS backtracks, o.error AS error,"
            " o.worker_id AS worker, o.cpu_s AS cpu_s, o.peak_mb AS peak_mb,"
            " o.proved AS proved, o.proof_lines AS proof_lines, o.proof_bytes AS proof_bytes,"
            " o.check_time AS check_time,"
            " o.rowid AS seq, (SELECT p.puzzle FROM puzzles p WHERE"
            " p.run_id = o.run_id AND p.set_id = o.set_id AND p.idx = o.idx) AS puzzle"
            f" FROM outcomes o{where}"
        )
        names = dict(self._db.execute("SELECT name_id, name FROM names"))
        return Rows(self._db, source, params, ratings="ratings", names=names)

    def results(self, run_ids: Iterable[int] | None = None) -> pd.DataFrame:
        """The results of some runs (default: all) as a DataFrame, in the order they were
        stored (the ``results`` view): every row in memory, for small runs and tests
        (the reports query :meth:`rows` instead)."""
        import pandas as pd

        columns = ", ".join(f'"{c}"' for c in RESULT_COLUMNS)
        params = list(run_ids) if run_ids is not None else []
        where = f" WHERE run_id IN ({', '.join('?' * len(params))})" if run_ids is not None else ""
        frame = pd.read_sql_query(
            f"SELECT {columns} FROM results{where} ORDER BY seq", self._db, params=params
        )
        # the stats as the bench wrote them: keys sorted (the view merges them in any order)
        frame["stats"] = [
            s if s is None else json.dumps(json.loads(s), sort_keys=True) for s in frame["stats"]
        ]
        for column in ("verified", "agrees", "proved"):  # 0/1/NULL as True/False/None
            if not len(frame):
                frame[column] = frame[column].map(bool)  # the dtype map gives, as ever
                continue
            values = [None if v is None or v != v else bool(v) for v in frame[column].tolist()]
            frame[column] = pd.Series(values, index=frame.index)
        return frame

    def write_parquet(
        self, path: str | os.PathLike[str], run_ids: Iterable[int], chunk: int = PARQUET_CHUNK
    ) -> int:
        """Write the rows of ``run_ids`` (the ``results`` view's columns, in the order they
        were stored) to a Parquet file, ``chunk`` rows at a time (memory holds one chunk,
        whatever the run's size), with the runs table (machine, CPU, Python, packages,
        arguments) as JSON in the file's metadata under ``sudokulab.runs``. Returns the
        rows written. Needs pyarrow (``pip install "sudokulab[parquet]"``)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        params = list(run_ids)
        marks = ", ".join("?" * len(params))
        columns = ", ".join(f'"{c}"' for c in RESULT_COLUMNS)
        cursor = self._db.execute(
            f"SELECT {columns} FROM results WHERE run_id IN ({marks}) ORDER BY seq", params
        )
        runs = self.runs(params).to_json(orient="records")
        schema = _parquet_schema().with_metadata({"sudokulab.runs": runs})
        written = 0
        with pq.ParquetWriter(os.fspath(path), schema) as writer:
            while batch := cursor.fetchmany(chunk):
                values = list(zip(*batch, strict=True))
                arrays = {
                    name: [None if v is None else bool(v) for v in values[i]]
                    if name in ("verified", "agrees", "proved")
                    else list(values[i])
                    for i, name in enumerate(RESULT_COLUMNS)
                }
                writer.write_table(pa.Table.from_pydict(arrays, schema=schema))
                written += len(batch)
        return written

    def runs(self, run_ids: Iterable[int] | None = None) -> pd.DataFrame:
        """The runs table (default: all runs) as a DataFrame."""
        import pandas as pd

        query = "SELECT * FROM runs"
        params: list[int] = []
        if run_ids is not None:
            params = list(run_ids)
            query += f" WHERE run_id IN ({', '.join('?' for _ in params)})"
        return pd.read_sql_query(query + " ORDER BY run_id", self._db, params=params)


#: Statuses that settle a puzzle; timeout and error are failures to answer.
CONCLUSIVE = ("solved", "unsolvable", "multiple", "invalid")
_CONCLUSIVE_SQL = ", ".join(f"'{s}'" for s in CONCLUSIVE)


def agreement_query(source: str, unique: bool) -> str:
    """SQL giving each row's agreement, ``(k, flag)``, from ``source``: a query of rows
    with a key ``k``, a puzzle ``s`` and ``idx``, a backend ``b``, ``status`` and
    ``solution``.

    A row agrees (1) when its verdict is every conclusive row's verdict on that puzzle,
    disagrees (0) when not, and has no verdict (NULL) when it is a timeout or an error or
    fewer than two backends answered the puzzle conclusively. A verdict is the status;
    with ``unique`` a solved row's grid too (``solved`` then claims the one solution).
    """
    verdict = (
        "CASE WHEN status = 'solved' THEN 's:' || COALESCE('=' || solution, '') ELSE status END"
        if unique
        else "status"
    )
    return (
        f"WITH src AS ({source}),"
        f" per AS (SELECT s, idx, COUNT(DISTINCT b) AS backends, COUNT(DISTINCT {verdict})"
        f" AS verdicts FROM src WHERE status IN ({_CONCLUSIVE_SQL}) GROUP BY s, idx)"
        f" SELECT src.k AS k, CASE WHEN src.status IN ({_CONCLUSIVE_SQL})"
        f" AND per.backends >= 2 THEN per.verdicts = 1 END AS flag"
        f" FROM src LEFT JOIN per ON per.s = src.s AND per.idx = src.idx"
    )


@dataclass(frozen=True)
class Rows:
    """Bench rows to report on, where they are: an SQLite database and a query giving
    the columns of :data:`RESULT_COLUMNS` (those it has; the others read as NULL) and
    ``seq``, the rows' order; ``ratings`` names a table of ratings in the same database.
    A query groups by ``set``, ``backend`` and ``worker`` as they are and names what it
    gives with :meth:`name` (a store's rows hold numbers there: no text per row).

    A store gives its runs' rows (:meth:`Store.rows`); :meth:`of` puts a DataFrame's in
    an in-memory database, so every report is one SQL query whatever its source.
    """

    db: sqlite3.Connection
    source: str
    params: tuple[Any, ...] = ()
    ratings: str | None = None
    #: The names of the numbers in the ``set``, ``backend`` and ``worker`` columns when
    #: they hold numbers (a store's ``names``); None when they hold the texts.
    names: Mapping[int, str] | None = None
    #: Tables already computed from these rows (a report asks for its summary three
    #: times: the terminal, report.md, the heatmap); the rows must not change meanwhile.
    tables: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, results: Rows | pd.DataFrame, ratings: pd.DataFrame | None = None) -> Rows:
        """Rows as they are, or a DataFrame's rows (and ``ratings``) copied into an
        in-memory database."""
        if isinstance(results, Rows):
            return results
        import pandas as pd

        db = sqlite3.connect(":memory:")
        columns = [c for c in RESULT_COLUMNS if c != "run_id"] + ["run_id"]
        frame = pd.DataFrame(index=results.index)
        for column in columns:
            values = results[column] if column in results else pd.Series(None, index=results.index)
            if column in ("time", "build_time", "solve_time", "cpu_s", "peak_mb", "check_time",
                          "proof_lines", "proof_bytes", *COUNTERS):  # fmt: skip
                values = pd.to_numeric(values, errors="coerce")
            elif column in ("verified", "agrees", "proved", "count", "idx", "repeat"):
                values = values.map(_plain)
            frame[column] = values.astype(object).where(values.notna(), None)
        frame["seq"] = np.arange(len(frame))
        names = ", ".join(f'"{c}"' for c in frame.columns)
        db.execute(f"CREATE TABLE results ({names})")
        db.executemany(
            f"INSERT INTO results VALUES ({', '.join('?' * len(frame.columns))})",
            frame.itertuples(index=False, name=None),
        )
        table = None
        if ratings is not None:
            table = "ratings"
            db.execute(f"CREATE TABLE ratings ({', '.join(RATING_COLUMNS)})")
            kept = ratings.reindex(columns=list(RATING_COLUMNS))
            db.executemany(
                f"INSERT INTO ratings VALUES ({', '.join('?' * len(RATING_COLUMNS))})",
                kept.astype(object).where(kept.notna(), None).itertuples(index=False, name=None),
            )
        return cls(db, "SELECT * FROM results", (), table)

    def name(self, value: Any) -> Any:
        """The text of a ``set``, ``backend`` or ``worker`` value a query gave."""
        return value if self.names is None or value is None else self.names[value]

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Every row of ``sql``, in which ``{rows}`` stands for these rows (a subquery)."""
        return self.db.execute(
            sql.format(rows=f"({self.source})"), (*self.params, *params)
        ).fetchall()

    def count(self) -> int:
        """How many rows."""
        return int(self.query("SELECT COUNT(*) FROM {rows}")[0][0])


def _plain(value: Any) -> Any:
    """A flag or a number as SQLite takes it: None for a missing value, an int else."""
    if value is None or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, bool | np.bool_):
        return int(value)
    if isinstance(value, np.integer | np.floating):
        return value.item()
    return value


class _RunLock:
    """A lock on one run of a store: an exclusive ``flock`` on a file beside the store
    (released by the system when its holder exits or dies), which says who holds it.

    The lock is the process's: stores of one process that lock one run share it (they
    are counted, and the last release lets it go), since it keeps other processes out.
    """

    #: The locks this process holds, by file, and how many stores hold each.
    _held: dict[Path, list[Any]] = {}

    def __init__(self, path: Path, fd: int) -> None:
        self.path, self.fd = path, fd

    @classmethod
    def take(cls, path: Path, run_id: int) -> _RunLock:
        path = path.resolve()
        held = cls._held.get(path)
        if held is not None:
            held[1] += 1
            return held[0]
        lock = cls._take(path, run_id)
        cls._held[path] = [lock, 1]
        return lock

    @classmethod
    def _take(cls, path: Path, run_id: int) -> _RunLock:
        taken = _flock(path)
        if isinstance(taken, str):
            raise RunLocked(run_id, taken or "a process that has not said which")
        return cls(path, taken)

    def release(self) -> None:
        held = self._held.get(self.path)
        if held is not None and held[1] > 1:
            held[1] -= 1
            return
        self._held.pop(self.path, None)
        _unlock(self.path, self.fd)


def _flock(path: Path) -> int | str:
    """An exclusive ``flock`` on the file ``path`` (made if need be), which then says who
    holds it: its descriptor; or, when another process holds it, what that one wrote."""
    import fcntl

    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 4096, 0).decode(errors="replace").strip()
            os.close(fd)
            return holder
        # a holder that was releasing may have removed the file since we opened it
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    started = datetime.now().astimezone().isoformat(timespec="seconds")
    text = f"pid {os.getpid()} on {socket.gethostname()}, since {started}"
    os.ftruncate(fd, 0)
    os.pwrite(fd, text.encode(), 0)
    return fd


def _unlock(path: Path, fd: int) -> None:
    """Let a lock of :func:`_flock` go, its file removed (nothing is left beside the
    store)."""
    with contextlib.suppress(OSError):
        os.unlink(path)
    os.close(fd)
