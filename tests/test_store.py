"""The results store: its format, the texts kept once, an old store brought up to date,
and one writer per run."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sudokulab.bench import BenchPlan, LocalExecutor, puzzle_text, report, run_bench
from sudokulab.bench.store import FORMAT, RunLocked, Store, StoreBusy, StoreError
from sudokulab.catalog import load
from sudokulab.cli import main

#: The store's schema before format 2 (sudokulab up to issue 26): one wide results table.
FORMAT1 = """
CREATE TABLE runs (
    run_id INTEGER PRIMARY KEY AUTOINCREMENT, started TEXT NOT NULL, finished TEXT,
    machine TEXT, cpu TEXT, cores INTEGER, python TEXT, packages TEXT, git TEXT,
    args TEXT NOT NULL{executors}
);
CREATE TABLE results (
    run_id INTEGER NOT NULL REFERENCES runs(run_id), "set" TEXT NOT NULL,
    idx INTEGER NOT NULL, puzzle TEXT NOT NULL, backend TEXT NOT NULL, engine TEXT,
    repeat INTEGER NOT NULL, status TEXT NOT NULL, solution TEXT, count INTEGER,
    verified INTEGER, agrees INTEGER, time REAL, build_time REAL, solve_time REAL,
    nodes INTEGER, guesses INTEGER, backtracks INTEGER, stats TEXT, error TEXT,{worker}
    UNIQUE (run_id, "set", idx, backend, repeat)
);
CREATE TABLE ratings (
    puzzle TEXT PRIMARY KEY, status TEXT NOT NULL, hardest TEXT, score REAL, grade TEXT,
    steps INTEGER
);
"""


def shipped(name):
    loaded = load(name)
    return [(i, e.puzzle) for i, e in zip(loaded.indices, loaded.entries, strict=True)]


SETS = {"seeds": shipped("seeds"), "hard": shipped("gen-classic-hard"), "x": shipped("gen-x")}


def bench(path: Path, specs=("native", "cpsat"), repeats: int = 2) -> int:
    plan = BenchPlan(list(SETS), list(specs), timeout=None, repeats=repeats)
    with Store(path) as store:
        return run_bench(plan, store, lambda n, p: SETS[n], LocalExecutor(2), progress=False)


@pytest.fixture(scope="module")
def benched(tmp_path_factory):
    path = tmp_path_factory.mktemp("store") / "results.sqlite"
    bench(path)
    return path


def test_each_text_is_kept_once_and_the_view_gives_the_rows_back(benched):
    with sqlite3.connect(benched) as db:
        outcomes = db.execute("SELECT COUNT(*) FROM outcomes").fetchone()[0]
        puzzles = db.execute("SELECT COUNT(*) FROM puzzles").fetchone()[0]
        names = [n for (n,) in db.execute("SELECT name FROM names")]
        shared = [json.loads(s) for (s,) in db.execute("SELECT stats FROM shared_stats")]
        own = db.execute(
            "SELECT COUNT(*) FROM outcomes o JOIN names b ON b.name_id = o.backend_id"
            " WHERE b.name = 'native' AND o.stats IS NOT NULL"
        )
        version = db.execute("PRAGMA user_version").fetchone()[0]
        assert own.fetchone()[0] == 0  # the native rows share their stats but the counters
    count = sum(map(len, SETS.values()))
    assert outcomes == 2 * 2 * count and puzzles == count and version == FORMAT
    assert {"seeds", "hard", "x", "native", "cpsat"} <= set(names)
    assert all("nodes" not in s and "engine" in s for s in shared)
    with Store(benched) as store:
        rows = store.results()
    native = rows[rows["backend"] == "native"]
    stats = [json.loads(s) for s in native["stats"]]
    assert all(s["nodes"] == n and s["engine"] == e for s, n, e in
               zip(stats, native["nodes"], native["engine"], strict=True))  # fmt: skip
    assert list(native["stats"]) == [json.dumps(s, sort_keys=True) for s in stats]
    cpsat = rows[rows["backend"] == "cpsat"]
    assert cpsat["stats"].map(lambda s: "conflicts" in json.loads(s)).all()  # its own
    for name, pairs in SETS.items():  # every row has its puzzle, kept once per run
        mine = rows[rows["set"] == name]
        texts = {i: puzzle_text(p) for i, p in pairs}
        assert (mine["puzzle"] == mine["idx"].map(texts)).all()


def format1_store(path: Path, columns: bool = True) -> None:
    """A store as sudokulab wrote it before format 2 (``columns``: with the worker and
    executors columns, which came later)."""
    db = sqlite3.connect(path)
    db.executescript(
        FORMAT1.format(
            executors=",\n    executors TEXT" if columns else "",
            worker="\n    worker TEXT," if columns else "",
        )
    )
    db.execute("INSERT INTO runs (started, args) VALUES ('then', '{\"sets\": [\"seeds\"]}')")
    stats = json.dumps({"engine": "c", "nodes": 4, "guesses": 1, "order": "mrv"}, sort_keys=True)
    worker = ", worker" if columns else ""
    for backend, repeat in (("native", 0), ("native", 1), ("cpsat", 0)):
        db.execute(
            'INSERT INTO results (run_id, "set", idx, puzzle, backend, engine, repeat, status,'
            f" solution, verified, agrees, time, nodes, guesses, stats{worker}) VALUES"
            f" (1, 'seeds', 0, '1...', ?, 'c', ?, 'solved', '1234', 1, 1, 0.5, 4, 1, ?"
            f"{', ?' if columns else ''})",
            (backend, repeat, stats, *(["vm:7"] if columns else [])),
        )
    db.commit()
    db.close()


@pytest.mark.parametrize("columns", [True, False])
def test_a_format_1_store_is_brought_to_format_2_with_every_row(tmp_path, columns):
    path = tmp_path / "old.sqlite"
    format1_store(path, columns)
    with Store(path) as store:
        rows, runs = store.results(), store.runs()
        store.add_executor(1, {"executor": "local"})
        assert json.loads(store.runs()["executors"][0]) == [{"executor": "local"}]
    assert len(rows) == 3 and list(rows["backend"]) == ["native", "native", "cpsat"]
    assert (rows["puzzle"] == "1...").all() and (rows["engine"] == "c").all()
    assert rows["verified"].all() and rows["agrees"].all() and (rows["nodes"] == 4).all()
    assert json.loads(rows["stats"][0]) == {"engine": "c", "nodes": 4, "guesses": 1,
                                            "order": "mrv"}  # fmt: skip
    assert rows["worker"].eq("vm:7").all() if columns else rows["worker"].isna().all()
    assert runs["executors"].isna().all()
    with sqlite3.connect(path) as db:
        tables = dict(db.execute("SELECT name, type FROM sqlite_master"))
        assert tables["results"] == "view" and "results_format1" not in tables
        assert db.execute("PRAGMA user_version").fetchone()[0] == FORMAT


def test_a_run_half_done_in_a_format_1_store_is_resumed_after_the_upgrade(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    path = out / "results.sqlite"
    db = sqlite3.connect(path)
    db.executescript(FORMAT1.format(executors=",\n    executors TEXT", worker="\n    worker TEXT,"))
    plan = {"sets": ["seeds"], "specs": ["native"], "timeout": 10.0, "repeats": 1,
            "unique": False, "sample": None, "seed": 0, "data_dirs": []}  # fmt: skip
    db.execute("INSERT INTO runs (started, args) VALUES ('then', ?)", (json.dumps(plan),))
    first = SETS["seeds"][0][1]
    db.execute(
        'INSERT INTO results (run_id, "set", idx, puzzle, backend, repeat, status, time)'
        " VALUES (1, 'seeds', 0, ?, 'native', 0, 'solved', 0.25)",
        (puzzle_text(first),),
    )
    db.commit()
    db.close()
    assert main(["bench", "--resume", "1", "--out", str(out), "--no-plots"]) == 0
    with Store(path) as store:
        rows = store.results()
    assert list(rows["idx"]) == [0, 1, 2] and rows["status"].eq("solved").all()
    assert rows["time"].iloc[0] == 0.25  # the row from before the upgrade was kept
    assert "bringing" in capsys.readouterr().err


def test_a_newer_store_or_another_file_is_refused(tmp_path):
    newer = tmp_path / "newer.sqlite"
    with sqlite3.connect(newer) as db:
        db.execute(f"PRAGMA user_version = {FORMAT + 1}")
    with pytest.raises(StoreError, match="made by a newer sudokulab"):
        Store(newer)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    with pytest.raises(StoreError, match="not a sudokulab results store"):
        Store(other)
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"\x00\x01 not sqlite" * 100)
    with pytest.raises(StoreError, match="not a results store"):
        Store(junk)


# --- one writer per run ----------------------------------------------------------------


def test_a_run_is_locked_for_its_writer_and_released_when_it_closes(tmp_path, benched):
    path = tmp_path / "results.sqlite"
    path.write_bytes(benched.read_bytes())
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys
            from sudokulab.bench.store import Store
            store = Store({str(path)!r})
            store.lock_run(1)
            print("locked", flush=True)
            sys.stdin.read()
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout.readline() == "locked\n"
        with Store(path) as store, pytest.raises(RunLocked, match=f"pid {holder.pid} on "):
            store.lock_run(1)
        with Store(path) as store:
            store.lock_run(2)  # another run is free
    finally:
        holder.stdin.close()
        holder.wait()
    with Store(path) as store:
        store.lock_run(1)
    assert not list(tmp_path.glob(".*.lock"))  # released: nothing left beside the store


def test_a_lock_whose_holder_died_does_not_block(tmp_path, benched):
    path = tmp_path / "results.sqlite"
    path.write_bytes(benched.read_bytes())
    script = f"from sudokulab.bench.store import Store\nStore({str(path)!r}).lock_run(1)\n"
    script += "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    subprocess.run([sys.executable, "-c", script], check=False)
    assert list(tmp_path.glob(".*.lock"))  # it died holding it: the file stays
    with Store(path) as store:
        store.lock_run(1)


def test_a_second_resume_of_a_running_bench_is_refused_naming_the_holder(tmp_path, capsys):
    out = tmp_path / "out"
    args = ["seeds", "--backends", "native", "--out", str(out), "--no-plots"]
    assert main(["bench", *args]) == 0
    capsys.readouterr()
    holder = subprocess.Popen(
        [sys.executable, "-c",
         f"import sys\nfrom sudokulab.bench.store import Store\n"
         f"s = Store({str(out / 'results.sqlite')!r}); s.lock_run(1); print('ok', flush=True)\n"
         "sys.stdin.read()"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=os.environ.copy(),
    )  # fmt: skip
    try:
        assert holder.stdout.readline() == "ok\n"
        assert main(["bench", "--resume", "1", "--out", str(out), "--no-plots"]) == 2
        err = capsys.readouterr().err
        assert f"run 1 is being written by another bench (pid {holder.pid} on " in err
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    finally:
        holder.stdin.close()
        holder.wait()
    assert main(["bench", "--resume", "1", "--out", str(out), "--no-plots"]) == 0


#: The store's schema in format 2 (sudokulab up to issue 30, before CPU time and peak
#: memory were kept), as that version wrote it.
FORMAT2 = """
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
    o.rowid AS seq
FROM outcomes o
LEFT JOIN names s ON s.name_id = o.set_id
LEFT JOIN names b ON b.name_id = o.backend_id
LEFT JOIN names w ON w.name_id = o.worker_id
LEFT JOIN shared_stats h ON h.stats_id = o.stats_id
LEFT JOIN puzzles p ON p.run_id = o.run_id AND p.set_id = o.set_id AND p.idx = o.idx;
PRAGMA user_version = 2;
"""


def format2_store(path: Path) -> None:
    """A format-2 store with one run of three rows (two native repeats, one cpsat)."""
    db = sqlite3.connect(path)
    db.executescript(FORMAT2)
    db.execute("INSERT INTO runs (started, args) VALUES ('then', '{\"sets\": [\"seeds\"]}')")
    db.executemany("INSERT INTO names (name_id, name) VALUES (?, ?)",
                   [(1, "seeds"), (2, "native"), (3, "cpsat"), (4, "vm:7")])  # fmt: skip
    db.execute('INSERT INTO shared_stats (stats_id, stats) VALUES (1, \'{"engine": "c"}\')')
    db.execute("INSERT INTO puzzles VALUES (1, 1, 0, '1...')")
    for backend, repeat, time in ((2, 0, 0.5), (2, 1, 0.25), (3, 0, 2.0)):
        db.execute(
            "INSERT INTO outcomes (run_id, set_id, idx, backend_id, repeat, status, solution,"
            " verified, time, nodes, stats_id, worker_id) VALUES"
            " (1, 1, 0, ?, ?, 'solved', '1234', 1, ?, 4, ?, 4)",
            (backend, repeat, time, 1 if backend == 2 else None),
        )
    db.commit()
    db.close()


def test_a_format_2_store_gains_the_measured_columns_once_keeping_every_row(tmp_path, capsys):
    path = tmp_path / "old.sqlite"
    format2_store(path)
    with Store(path) as store:
        rows = store.results()
    assert "bringing" in capsys.readouterr().err
    assert list(rows["backend"]) == ["native", "native", "cpsat"]
    assert list(rows["time"]) == [0.5, 0.25, 2.0] and (rows["puzzle"] == "1...").all()
    assert list(rows["engine"][:2]) == ["c", "c"] and rows["engine"].isna()[2]
    assert rows["worker"].eq("vm:7").all()
    assert rows["cpu_s"].isna().all() and rows["peak_mb"].isna().all()  # not measured
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == FORMAT
        columns = {row[1] for row in db.execute("PRAGMA table_info(outcomes)")}
        assert {"cpu_s", "peak_mb", "proved", "proof_lines", "check_time"} <= columns
    with Store(path) as store:  # upgraded in place once: the next open has nothing to do
        assert len(store.results()) == 3
        summary = report.summary(store.rows([1]))
    assert "bringing" not in capsys.readouterr().err
    assert summary["mean_cpu_s"].isna().all() and summary["peak_mb"].isna().all()
    assert list(summary["mean_s"]) == [0.375, 2.0]
    assert "proved" not in summary  # nothing proved: no certified columns


def test_a_format_3_store_gains_the_proof_columns_keeping_every_row(tmp_path, capsys):
    path = tmp_path / "old.sqlite"
    format2_store(path)
    with sqlite3.connect(path) as db:  # format 3: the measured columns, measured
        db.executescript(
            "ALTER TABLE outcomes ADD COLUMN cpu_s REAL; ALTER TABLE outcomes ADD COLUMN"
            " peak_mb REAL; UPDATE outcomes SET cpu_s = 0.1; PRAGMA user_version = 3;"
        )
    with Store(path) as store:
        rows = store.results()
    assert "bringing" in capsys.readouterr().err
    assert list(rows["time"]) == [0.5, 0.25, 2.0] and (rows["cpu_s"] == 0.1).all()
    assert rows["proved"].isna().all() and rows["proof_bytes"].isna().all()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == FORMAT == 4


def test_a_bench_resumed_in_a_format_2_store_measures_its_new_rows(tmp_path):
    path = tmp_path / "results.sqlite"
    format2_store(path)
    plan = BenchPlan(["seeds"], ["native"], timeout=None)
    with Store(path) as store:
        run = run_bench(plan, store, lambda n, p: SETS[n], LocalExecutor(1), progress=False)
        rows = store.results([run])
        old = store.results([1])
    assert old["cpu_s"].isna().all() and len(old) == 3
    assert rows["cpu_s"].notna().all() and (rows["cpu_s"] >= 0).all()
    assert rows["peak_mb"].notna().all() and (rows["peak_mb"] > 0).all()


# --- a store another process is writing ------------------------------------------------


def holding(path: Path, code: str, then: str = "") -> subprocess.Popen:
    """A process that runs ``code`` (with ``path`` and ``store`` at hand), holds on until
    its stdin closes, then runs ``then``; returned once it holds."""
    script = (
        textwrap.dedent(f"""
        import sqlite3, sys
        from pathlib import Path
        from sudokulab.bench import store
        path = Path({str(path)!r})
    """)
        + textwrap.dedent(code)
        + "\nprint('holding', flush=True)\nsys.stdin.read()\n"
    )
    holder = subprocess.Popen(
        [sys.executable, "-c", script + textwrap.dedent(then)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert holder.stdout.readline() == "holding\n"
    return holder


def test_a_store_another_bench_is_writing_is_busy_naming_it(tmp_path, benched, monkeypatch):
    """A bench holds its run and is in the middle of a write: a second process opening
    the store is told it is busy and by whom, not that it is no store."""
    path = tmp_path / "results.sqlite"
    path.write_bytes(benched.read_bytes())
    monkeypatch.setattr("sudokulab.bench.store.BUSY_TIMEOUT", 0.2)
    holder = holding(
        path,
        """
        s = store.Store(path)
        s.lock_run(1)
        db = sqlite3.connect(path)
        db.execute("BEGIN IMMEDIATE")  # a chunk's rows being written
    """,
    )
    try:
        with pytest.raises(StoreBusy) as busy:
            Store(path)
        assert str(busy.value).startswith(
            f"{path} is busy: another sudokulab process is writing it (pid {holder.pid} on "
        )
        assert "not a results store" not in str(busy.value)
    finally:
        holder.stdin.close()
        holder.wait()
    with Store(path) as store:  # once it is done, the store opens as ever
        assert store.run_ids() == [1]


def test_a_write_by_a_process_that_does_not_say_is_busy_all_the_same(tmp_path, monkeypatch):
    path = tmp_path / "old.sqlite"
    format2_store(path)
    monkeypatch.setattr("sudokulab.bench.store.BUSY_TIMEOUT", 0.2)
    writer = sqlite3.connect(path)
    writer.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreBusy, match="is busy: another sudokulab process is writing it;"):
            Store(path)
    finally:
        writer.rollback()
        writer.close()
    with Store(path) as store:
        assert len(store.results()) == 3


def test_a_store_another_process_is_upgrading_is_busy_then_found_upgraded(
    tmp_path, monkeypatch, capsys
):
    """Two processes opening one old store at once: the second waits for the first's
    upgrade (here, past its patience: busy, naming the first), then opens the store as
    upgraded, without upgrading it again."""
    path = tmp_path / "old.sqlite"
    format2_store(path)
    monkeypatch.setattr("sudokulab.bench.store.BUSY_TIMEOUT", 0.2)
    holder = holding(
        path,
        """
        upgrade = store._upgrading(path)  # an upgrade under way, slowly
        upgrade.__enter__()
        """,
        then="""
        db = sqlite3.connect(path)
        store._upgrade(db, path, 2, store._tables(db))
        upgrade.__exit__(None, None, None)
        """,
    )
    try:
        with pytest.raises(StoreBusy, match=rf"\(pid {holder.pid} on .*, upgrading it\)"):
            Store(path)
    finally:
        holder.stdin.close()
        holder.wait()
    capsys.readouterr()
    with Store(path) as store:
        assert len(store.results()) == 3
    assert "bringing" not in capsys.readouterr().err  # the first one did
    assert not list(tmp_path.glob(".*.lock"))
