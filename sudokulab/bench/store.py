"""The durable results store of the bench: one SQLite file, written chunk by chunk.

Three tables: ``runs`` (one row per bench run: when, on what machine, with which
arguments, run by which executors), ``results`` (one row per puzzle x backend x
repeat, unique, with the worker that ran it when the executor says) and ``ratings``
(one row per puzzle text the logic solver rated, for ``bench --rate``: how hard it is
for a human, whatever backend solved it). The rows of
a chunk of work are committed together, in one transaction, once the chunk is done, in
WAL mode: a Ctrl-C keeps every finished chunk, a kill loses at most the chunks in
flight, never part of one, and ``--resume`` can tell what is left to do.
"""

from __future__ import annotations

import json
import os
import platform
import socket
import sqlite3
import subprocess
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY AUTOINCREMENT,
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
CREATE TABLE IF NOT EXISTS results (
    run_id INTEGER NOT NULL REFERENCES runs(run_id),
    "set" TEXT NOT NULL,
    idx INTEGER NOT NULL,
    puzzle TEXT NOT NULL,
    backend TEXT NOT NULL,
    engine TEXT,
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
    stats TEXT,
    error TEXT,
    worker TEXT,
    UNIQUE (run_id, "set", idx, backend, repeat)
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

#: The columns of ``ratings`` in order.
RATING_COLUMNS = ("puzzle", "status", "hardest", "score", "grade", "steps")

#: The columns of ``results`` in order, as the bench writes them.
RESULT_COLUMNS = (
    "run_id", "set", "idx", "puzzle", "backend", "engine", "repeat", "status", "solution",
    "count", "verified", "agrees", "time", "build_time", "solve_time", "nodes", "guesses",
    "backtracks", "stats", "error", "worker",
)  # fmt: skip

_NAMES = ", ".join(f'"{c}"' for c in RESULT_COLUMNS)
_INSERT = (
    f"INSERT OR REPLACE INTO results ({_NAMES}) VALUES ({', '.join('?' * len(RESULT_COLUMNS))})"
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


#: Columns added since the first stores: (table, column, type); an older store gets them.
ADDED_COLUMNS = (("results", "worker", "TEXT"), ("runs", "executors", "TEXT"))


def _add_missing_columns(db: sqlite3.Connection) -> None:
    """Bring a store made by an older sudokulab up to date (new columns are nullable)."""
    for table, column, kind in ADDED_COLUMNS:
        have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
        if column not in have:
            db.execute(f'ALTER TABLE {table} ADD COLUMN "{column}" {kind}')


class Store:
    """A results store in one SQLite file (created on first use)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)
        _add_missing_columns(self._db)
        self._db.commit()

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start_run(self, args: dict[str, Any]) -> int:
        """Record a new run with its arguments and machine; its id."""
        info = machine()
        cursor = self._db.execute(
            "INSERT INTO runs (started, machine, cpu, cores, python, packages, git, args)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                _now(),
                info["machine"],
                info["cpu"],
                info["cores"],
                info["python"],
                info["packages"],
                info["git"],
                json.dumps(args, sort_keys=True),
            ),
        )
        self._db.commit()
        return int(cursor.lastrowid)

    def finish_run(self, run_id: int) -> None:
        """Mark a run finished."""
        self._db.execute("UPDATE runs SET finished = ? WHERE run_id = ?", (_now(), run_id))
        self._db.commit()

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

    def add_rows(self, rows: Iterable[Sequence[Any]]) -> None:
        """Store results, each a tuple in :data:`RESULT_COLUMNS` order, in one transaction:
        all of them or, after a crash, none. A row already stored is replaced, never
        doubled."""
        with self._db:  # commits at the end, rolls back on an exception
            self._db.executemany(_INSERT, rows)

    def unrated(self, run_id: int) -> list[str]:
        """The distinct puzzle texts of a run that have no rating yet, in row order."""
        query = (
            "SELECT DISTINCT r.puzzle FROM results r LEFT JOIN ratings g ON g.puzzle = r.puzzle "
            "WHERE r.run_id = ? AND g.puzzle IS NULL ORDER BY r.rowid"
        )
        return [row[0] for row in self._db.execute(query, (run_id,))]

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
            query += f" WHERE puzzle IN (SELECT puzzle FROM results WHERE run_id IN ({marks}))"
        return pd.read_sql_query(query, self._db, params=params)

    def done(self, run_id: int) -> set[tuple[str, int, str, int]]:
        """(set, idx, backend, repeat) of every result a run already has."""
        rows = self._db.execute(
            'SELECT "set", idx, backend, repeat FROM results WHERE run_id = ?', (run_id,)
        )
        return {tuple(r) for r in rows}

    def backends(self, run_id: int) -> list[str]:
        """The backend labels of a run's results, in the order they were first stored."""
        rows = self._db.execute(
            "SELECT backend FROM results WHERE run_id = ? GROUP BY backend ORDER BY MIN(rowid)",
            (run_id,),
        )
        return [r[0] for r in rows]

    def verdicts(self, run_id: int, solutions: bool = True) -> dict[str, list[Any]]:
        """What agreement needs of a run's rows, in store order, as columns: ``rowid``,
        ``set``, ``idx``, ``backend``, ``status``, ``solution`` (None for every row
        unless ``solutions``) and the stored ``agrees`` (0, 1 or None)."""
        solution = "solution" if solutions else "NULL"
        rows = self._db.execute(
            f'SELECT rowid, "set", idx, backend, status, {solution}, agrees FROM results'
            " WHERE run_id = ? ORDER BY rowid",
            (run_id,),
        ).fetchall()
        names = ("rowid", "set", "idx", "backend", "status", "solution", "agrees")
        columns = list(zip(*rows, strict=True)) or [()] * len(names)
        return {name: list(column) for name, column in zip(names, columns, strict=True)}

    def clear_agreement(self, run_id: int) -> None:
        """Set every agreement verdict of a run to None."""
        with self._db:
            self._db.execute(
                "UPDATE results SET agrees = NULL WHERE run_id = ? AND agrees IS NOT NULL",
                (run_id,),
            )

    def set_agreement_rows(self, agrees: Iterable[tuple[bool | None, int]]) -> None:
        """Write agreement verdicts, given as (agrees, rowid), in one transaction."""
        with self._db:
            self._db.executemany(
                "UPDATE results SET agrees = ? WHERE rowid = ?",
                [(None if a is None else int(a), rowid) for a, rowid in agrees],
            )

    def results(self, run_ids: Iterable[int] | None = None) -> pd.DataFrame:
        """The results of some runs (default: all) as a DataFrame."""
        import pandas as pd

        query = "SELECT * FROM results"
        params: list[int] = []
        if run_ids is not None:
            params = list(run_ids)
            query += f" WHERE run_id IN ({', '.join('?' for _ in params)})"
        frame = pd.read_sql_query(query + " ORDER BY rowid", self._db, params=params)
        for column in ("verified", "agrees"):  # 0/1/NULL as True/False/None
            if not len(frame):
                frame[column] = frame[column].map(bool)  # the dtype map gives, as ever
                continue
            values = [None if v is None or v != v else bool(v) for v in frame[column].tolist()]
            frame[column] = pd.Series(values, index=frame.index)
        return frame

    def runs(self, run_ids: Iterable[int] | None = None) -> pd.DataFrame:
        """The runs table (default: all runs) as a DataFrame."""
        import pandas as pd

        query = "SELECT * FROM runs"
        params: list[int] = []
        if run_ids is not None:
            params = list(run_ids)
            query += f" WHERE run_id IN ({', '.join('?' for _ in params)})"
        return pd.read_sql_query(query + " ORDER BY run_id", self._db, params=params)
