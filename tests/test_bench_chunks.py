"""The chunked bench: chunks of one shape per request, rows built in bulk and committed a
chunk per transaction, agreement for the whole run at once; the same rows as ever."""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest
from helpers import fake_backends
from hypothesis import given, settings
from hypothesis import strategies as st

import sudokulab
from sudokulab.bench import BenchPlan, LocalExecutor, run_bench
from sudokulab.bench.crosscheck import agreement_flags
from sudokulab.bench.plan import Chunk, as_blocks, read_set
from sudokulab.bench.progress import Progress
from sudokulab.bench.run import agreement, agreement_column, puzzle_text, puzzle_texts
from sudokulab.bench.store import Store
from sudokulab.catalog import catalog, entries, load
from sudokulab.cli import main
from sudokulab.models import format_line, is_solution, parse_puzzle
from sudokulab.models.grids import Grids

CLASH = "55" + "." * 79
#: What may differ between two runs of the same bench: the clock and the run.
TIMES = ["time", "build_time", "solve_time", "run_id", "worker", "cpu_s", "peak_mb"]
KEY = ["set", "idx", "backend", "repeat"]


@pytest.fixture
def fakes(monkeypatch):
    """Register the misbehaving backends here and in child processes."""
    yield from fake_backends(monkeypatch, "SlowBackend")


def shipped(name: str) -> list[tuple[int, sudokulab.Puzzle]]:
    loaded = load(name)
    return [(i, e.puzzle) for i, e in zip(loaded.indices, loaded.entries, strict=True)]


class SmallChunks(LocalExecutor):
    """Chunks of three puzzles: a set becomes several chunks, run by two workers."""

    def chunk_size(self, spec, rows):
        return 3


def stored(store: Store, run: int):
    rows = store.results([run]).drop(columns=TIMES)
    return rows.sort_values(KEY).reset_index(drop=True)


# --- agreement, vectorised -------------------------------------------------------------


STATUSES = ["solved", "unsolvable", "multiple", "timeout", "error", "invalid"]
answers = st.lists(
    st.tuples(
        st.sampled_from(["s", "t"]),
        st.integers(0, 3),
        st.sampled_from(["a", "b", "c"]),
        st.sampled_from(STATUSES),
        st.sampled_from([None, "12", "21"]),
    ),
    max_size=30,
)


def per_puzzle(frame, unique):
    """agreement_flags puzzle by puzzle, as the bench computed agreement before."""
    flags = [None] * len(frame["set"])
    keys = list(zip(frame["set"], frame["idx"], strict=True))
    for key in dict.fromkeys(keys):
        rows = [i for i, k in enumerate(keys) if k == key]
        puzzle = [(frame["backend"][i], frame["status"][i], frame["solution"][i]) for i in rows]
        for i, flag in zip(rows, agreement_flags(puzzle, compare_solutions=unique), strict=True):
            flags[i] = flag
    return flags


@settings(max_examples=300, deadline=None)
@given(answers, st.booleans())
def test_vectorised_agreement_is_agreement_flags_per_puzzle(rows, unique):
    names = ("set", "idx", "backend", "status", "solution")
    frame = {name: [row[j] for row in rows] for j, name in enumerate(names)}
    expected = per_puzzle(frame, unique)
    assert agreement_column(frame, unique) == expected
    import pandas as pd

    assert agreement_column(pd.DataFrame(frame, columns=list(names)), unique) == expected
    keys = list(zip(frame["set"], frame["idx"], strict=True))
    puzzles = list(dict.fromkeys(keys))
    order = sorted(range(len(rows)), key=lambda i: puzzles.index(keys[i]))
    assert agreement(frame, unique) == [
        (expected[i], frame["set"][i], frame["idx"][i], frame["backend"][i]) for i in order
    ]


def test_a_run_stores_each_rows_agreement(tmp_path):
    # max_guesses=0 stops at the first guess: a timeout, no verdict, on the puzzles that
    # need one; the others agree. Repeats are rows of their own.
    sets = {"hard": shipped("gen-classic-hard"), "seeds": shipped("seeds")[:1]}
    specs = ["native", "native-py", "native:max_guesses=0"]
    plan = BenchPlan(list(sets), specs, timeout=None, repeats=2)
    with Store(tmp_path / "r.sqlite") as store:
        run = run_bench(plan, store, lambda n, p: sets[n], SmallChunks(2), progress=False)
        rows = store.results([run])
    assert len(rows) == 3 * 11 * 2 and set(rows["status"]) == {"solved", "timeout"}
    assert list(rows["agrees"]) == per_puzzle(rows.to_dict("list"), False)
    assert rows[rows["status"] == "solved"]["agrees"].all()
    assert rows[rows["status"] == "timeout"]["agrees"].isna().all()


def test_repeats_go_round_by_round_every_backend_in_each(tmp_path):
    """Drift on the machine falls on every backend alike: each repeat round runs every
    spec before the next round starts (the rows' stored order says so)."""
    sets = {"seeds": shipped("seeds")}
    specs = ["native", "native-py", "dlx"]
    plan = BenchPlan(list(sets), specs, timeout=None, repeats=3)
    with Store(tmp_path / "r.sqlite") as store:
        run = run_bench(plan, store, lambda n, p: sets[n], SmallChunks(2), progress=False)
        rows = store.results([run])
    rounds = rows["repeat"].tolist()
    assert rounds == sorted(rounds)  # round 0 whole, then round 1, then round 2
    for r in range(3):
        assert rows[rows["repeat"] == r]["backend"].drop_duplicates().tolist() == specs
    assert len(rows) == 3 * 3 * len(sets["seeds"]) and rows["verified"].all()


# --- reading a set in blocks -----------------------------------------------------------


@pytest.mark.parametrize("sample", [None, 4])
def test_read_set_gives_the_indices_and_puzzles_of_load(sample):
    for info in entries():
        if not info.shipped:
            continue
        loaded = load(info.name, sample=sample, seed=3)
        blocks = read_set(info.name, sample=sample, seed=3)
        indices = [int(i) for b in blocks for i in b.indices]
        puzzles = [p for b in blocks for p in b.grids.puzzles()]
        assert indices == loaded.indices, info.name
        assert puzzles == [e.puzzle for e in loaded.entries], info.name


def test_read_set_on_the_public_sets(data_dir):
    for name in ("sudoku17", "top2365", "hardest", "magictour_hard", "hard95", "sudopedia"):
        if name not in catalog():
            continue
        loaded = load(name, extra_dirs=[data_dir], sample=1000, seed=1)
        blocks = read_set(name, extra_dirs=[data_dir], sample=1000, seed=1)
        assert [int(i) for b in blocks for i in b.indices] == loaded.indices, name
        puzzles = [p for b in blocks for p in b.grids.puzzles()]
        assert puzzles == [e.puzzle for e in loaded.entries], name


def test_pairs_become_blocks_of_one_shape():
    killer = load("gen-killer").entries[0].puzzle
    pairs = [(0, parse_puzzle(CLASH)), (4, parse_puzzle(CLASH)), (7, killer), (9, killer)]
    blocks = as_blocks(pairs)
    assert [b.indices.tolist() for b in blocks] == [[0, 4], [7, 9]]
    assert blocks[1].grids.cages == killer.cages
    assert as_blocks(blocks) == blocks


def test_puzzle_texts_in_bulk_are_puzzle_text():
    for name in ("seeds", "gen-16x16", "gen-x", "gen-killer", "gen-4x4"):
        puzzles = [e.puzzle for e in load(name).entries]
        for block in as_blocks(list(enumerate(puzzles))):
            assert puzzle_texts(block.grids) == [puzzle_text(p) for p in block.grids.puzzles()]


def test_progress_advances_a_chunk_at_a_time():
    stream = io.StringIO()
    bar = Progress(10, stream=stream)
    bar.update("native", 4)
    bar.update("native", 6)
    assert bar.count == 10 and stream.getvalue().endswith("bench: 10/10 done (native)\n")


# --- the rows: the same as solving each puzzle alone ------------------------------------


def alone(puzzle, spec, limit):
    """The row a puzzle gets from `sudokulab.solve`, times aside."""
    r = sudokulab.solve(puzzle, spec, limit)
    grid = r.solution
    return {
        "status": str(r.status),
        "solution": format_line(grid) if grid else None,
        "count": r.count,
        "verified": None if grid is None else is_solution(puzzle, grid),
        "engine": r.stats.get("engine"),
        "nodes": r.stats.get("nodes"),
        "guesses": r.stats.get("guesses"),
        "backtracks": r.stats.get("backtracks"),
        "stats": json.dumps(r.stats, sort_keys=True, default=str),
        "error": r.message or None,
    }


def check_alone(rows, sets, limit, columns):
    for row in rows.to_dict("records"):
        puzzle = dict(sets[row["set"]])[row["idx"]]
        expected = alone(puzzle, row["backend"], limit)
        got = {c: None if row[c] is None or row[c] != row[c] else row[c] for c in columns}
        for c in ("nodes", "guesses", "backtracks"):
            if got.get(c) is not None:
                got[c] = int(got[c])
        assert got == {c: expected[c] for c in columns}, (row["set"], row["idx"], row["backend"])


@pytest.mark.parametrize("unique", [False, True])
def test_the_chunked_bench_gives_the_rows_of_each_puzzle_solved_alone(tmp_path, unique):
    sets = {
        name: shipped(name)
        for name in ("seeds", "gen-classic-hard", "gen-4x4", "gen-x", "gen-jigsaw", "gen-killer")
    }
    sets["seeds"] = sets["seeds"][:1] + [(5, parse_puzzle(CLASH))] + sets["seeds"][2:]
    specs = ["native", "native:max_guesses=3", "hidden-singles"]
    plan = BenchPlan(list(sets), specs, timeout=None, unique=unique)
    with Store(tmp_path / "r.sqlite") as store:
        run = run_bench(plan, store, lambda n, p: sets[n], SmallChunks(2), progress=False)
        rows = store.results([run])
    assert len(rows) == len(specs) * sum(map(len, sets.values()))
    assert set(rows["status"]) >= {"solved", "invalid", "timeout"}
    columns = ["status", "solution", "count", "verified", "engine", "nodes", "guesses",
               "backtracks", "stats", "error"]  # fmt: skip
    check_alone(rows, sets, 2 if unique else 1, columns)


def test_a_backend_solved_one_puzzle_at_a_time_gives_the_same_rows_too(tmp_path):
    sets = {"seeds": shipped("seeds")[:1] + [(1, parse_puzzle(CLASH))], "4x4": shipped("gen-4x4")}
    plan = BenchPlan(list(sets), ["cpsat", "constraint"], timeout=None, unique=True)
    with Store(tmp_path / "r.sqlite") as store:
        run = run_bench(plan, store, lambda n, p: sets[n], SmallChunks(2), progress=False)
        rows = store.results([run])
    assert len(rows) == 2 * 12 and set(rows["status"]) == {"solved", "invalid"}
    check_alone(rows, sets, 2, ["status", "solution", "count", "verified", "engine", "error"])
    assert rows[rows["status"] == "solved"]["agrees"].all()


def test_rows_are_stored_in_the_plan_order_whatever_order_chunks_finish_in(tmp_path):
    class Backwards(SmallChunks):
        def run(self, spec, chunks, limit, timeout):
            yield from reversed(list(super().run(spec, chunks, limit, timeout)))

    sets = {"hard": shipped("gen-classic-hard"), "seeds": shipped("seeds")}
    plan = BenchPlan(list(sets), ["native", "native-py"], timeout=None)
    with Store(tmp_path / "r.sqlite") as store:
        run = run_bench(plan, store, lambda n, p: sets[n], Backwards(1), progress=False)
        rows = store.results([run])
    expected = [(b, s, i) for b in plan.specs for s in sets for i, _ in sets[s]]
    assert list(zip(rows["backend"], rows["set"], rows["idx"], strict=True)) == expected


def test_ctrl_c_keeps_the_chunks_that_finished_early(tmp_path):
    class Interrupted(SmallChunks):
        def run(self, spec, chunks, limit, timeout):
            answers = list(super().run(spec, chunks, limit, timeout))
            yield answers[2]  # finished before the first two: waits for them
            yield answers[1]
            raise KeyboardInterrupt

    sets = {"hard": shipped("gen-classic-hard")}
    plan = BenchPlan(["hard"], ["native"], timeout=None)
    with Store(tmp_path / "r.sqlite") as store:
        with pytest.raises(KeyboardInterrupt):
            run_bench(plan, store, lambda n, p: sets[n], Interrupted(1), progress=False)
        kept = store.results()
        assert sorted(kept["idx"]) == [3, 4, 5, 6, 7, 8]  # chunks 1 and 2, whole
        run_bench(plan, store, lambda n, p: sets[n], LocalExecutor(1), resume=1, progress=False)
        assert sorted(store.results()["idx"]) == list(range(10))


def test_a_chunk_is_one_request_to_a_batch_backend(tmp_path, monkeypatch):
    from sudokulab.backends import Worker

    sizes = []
    run_grids = Worker.run_grids

    def counted(self, backend, grids, *args, **kwargs):
        sizes.append(len(grids))
        return run_grids(self, backend, grids, *args, **kwargs)

    monkeypatch.setattr(Worker, "run_grids", counted)
    grids = Grids.of([p for _, p in shipped("gen-classic-hard")] * 3)
    chunk = Chunk("hard", np.arange(30), grids, 0)
    assert LocalExecutor(1).chunk_size(sudokulab.backends.as_spec("native"), 10_000) == 4096
    assert LocalExecutor(2).chunk_size(sudokulab.backends.as_spec("cpsat"), 10_000) == 16
    assert LocalExecutor(2).chunk_size(sudokulab.backends.as_spec("cpsat"), 24) == 3
    assert LocalExecutor(4).chunk_size(sudokulab.backends.as_spec("native"), 30) == 8
    spec = sudokulab.backends.as_spec("native")
    executor = LocalExecutor(1)
    try:
        [(got, answers, ran, used)] = executor.run(spec, [chunk], 1, None)
    finally:
        executor.release()
    assert got is chunk and sizes == [30] and (answers.status_names() == "solved").all()
    host, pid = ran.split(":")
    assert host == socket.gethostname() and int(pid) not in (os.getpid(), 0)
    # one request for the block: its measured CPU time shared out, one peak for all rows
    assert (used.cpu_s >= 0).all() and used.cpu_s.sum() > 0
    assert (used.peak_mb > 0).all() and len(set(used.peak_mb.tolist())) == 1


def test_the_worker_processes_serve_every_repeat_round_and_go_with_the_run(tmp_path):
    # Repeats go round by round; each backend's worker process is started once for all
    # rounds (not once per round), and stopped when the run ends.
    sets = {"hard": shipped("gen-classic-hard")[:4]}
    plan = BenchPlan(["hard"], ["native", "constraint"], timeout=None, repeats=3)
    executor = LocalExecutor(1)
    with Store(tmp_path / "r.sqlite") as store:
        run = run_bench(plan, store, lambda n, p: sets[n], executor, progress=False)
        rows = store.results([run])
    assert len(rows) == 2 * 3 * 4 and set(rows["repeat"]) == {0, 1, 2}
    workers = rows.groupby("backend")["worker"].unique()
    assert all(len(w) == 1 for w in workers)  # one process per backend for the 3 rounds
    pids = [int(w[0].rsplit(":", 1)[1]) for w in workers]
    assert len(set(pids)) == 2 and not executor._pools  # released with the run
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


# --- a killed bench -----------------------------------------------------------------------


def test_a_bench_killed_mid_chunk_keeps_whole_chunks_and_resume_completes_it(tmp_path, fakes):
    # `slow` sleeps 0.25 s per puzzle: a chunk of seeds (3 puzzles) takes 0.75 s, and the
    # kill comes just after a chunk is committed, in the middle of the next one.
    args = ["seeds", "--backends", "native,slow", "--repeats", "3", "--workers", "1",
            "--timeout", "60", "--no-plots"]  # fmt: skip
    out = tmp_path / "killed"
    db = out / "results.sqlite"
    command = [sys.executable, "-m", "sudokulab", "bench", *args, "--out", str(out)]
    bench = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)  # fmt: skip
    slow = 0
    deadline = time.monotonic() + 120
    while slow == 0 and time.monotonic() < deadline and bench.poll() is None:
        time.sleep(0.02)
        if db.exists():
            with sqlite3.connect(db) as con:
                try:
                    query = "SELECT COUNT(*) FROM results WHERE backend = 'slow'"
                    slow = con.execute(query).fetchone()[0]
                except sqlite3.OperationalError:
                    slow = 0
    bench.send_signal(signal.SIGKILL)
    bench.wait()
    with Store(db) as store:
        kept = store.results()
        assert store.runs().iloc[0]["finished"] is None
    assert 3 <= len(kept[kept["backend"] == "slow"]) < 9
    per_chunk = kept.groupby(["backend", "repeat"]).size()
    assert (per_chunk == 3).all()  # whole chunks only: a repeat of seeds is one chunk
    assert kept["status"].eq("solved").all() and kept["verified"].all()

    assert main(["bench", "--resume", "1", "--out", str(out), "--no-plots"]) == 0
    assert main(["bench", *args, "--out", str(tmp_path / "whole")]) == 0
    with Store(db) as store:
        resumed = stored(store, 1)
        assert store.runs().iloc[0]["finished"] is not None
        times = store.results().set_index(KEY)["time"]
    with Store(tmp_path / "whole" / "results.sqlite") as store:
        whole = stored(store, 1)
    assert len(resumed) == 2 * 3 * 3 and not resumed.duplicated(KEY).any()
    assert resumed.equals(whole)
    before = kept.set_index(KEY)["time"]
    assert (times.loc[before.index] == before).all()  # kept rows were not run again


# --- memory bounded by the chunks in flight ---------------------------------------------


def test_a_bench_reads_its_set_as_it_goes_and_holds_only_the_chunks_in_flight(tmp_path):
    """4,000 puzzles in 40 blocks, chunks of 25, two workers: the set is read a block at
    a time as the executor takes chunks, and never more than AHEAD chunks per worker are
    out at once, however many there are."""
    from sudokulab.bench.executors import AHEAD
    from sudokulab.bench.plan import SetBlock

    puzzles = Grids.of([p for _, p in shipped("gen-classic-hard")])
    read = []

    def stream(name, plan):  # a fresh pass over the set each time it is asked for
        for b in range(40):
            read.append(b)
            indices = np.arange(b * 100, (b + 1) * 100)
            yield SetBlock(indices, puzzles.take(indices % len(puzzles)))

    flying = peak = 0
    seen_at_first = None

    class Counting(LocalExecutor):
        def chunk_size(self, spec, rows):
            return 25

        def run(self, spec, chunks, limit, timeout):
            nonlocal flying, peak, seen_at_first

            def taken():
                nonlocal flying, peak
                for chunk in chunks:
                    flying += 1
                    peak = max(peak, flying)
                    yield chunk

            for item in super().run(spec, taken(), limit, timeout):
                flying -= 1
                if seen_at_first is None:
                    seen_at_first = len(read)
                yield item

    plan = BenchPlan(["many"], ["native"], timeout=None)
    with Store(tmp_path / "r.sqlite") as store:
        run = run_bench(plan, store, stream, Counting(2), progress=False)
        counts = store.row_counts(run)
    assert counts == {("many", "native"): 4000}
    assert peak <= AHEAD * 2  # 160 chunks in all
    assert len(read) == 80  # one pass to count the set, one to run it
    assert seen_at_first - 40 <= 2  # when the first answer came, a block or two was read


# --- Ctrl-C, as a user presses it ----------------------------------------------------------


def test_ctrl_c_stops_a_bench_in_one_line_and_the_resume_finishes_it(tmp_path, fakes):
    # `slow` takes a quarter of a second per puzzle; Ctrl-C goes to the whole process
    # group (the bench and its worker processes), as a terminal sends it.
    out = tmp_path / "out"
    db = out / "results.sqlite"
    args = ["seeds", "--backends", "slow", "--repeats", "8", "--workers", "1", "--timeout",
            "60", "--no-plots", "--out", str(out)]  # fmt: skip
    bench = subprocess.Popen([sys.executable, "-m", "sudokulab", "bench", *args], cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)  # fmt: skip
    deadline = time.monotonic() + 120
    rows = 0
    while rows == 0 and time.monotonic() < deadline and bench.poll() is None:
        time.sleep(0.05)
        if db.exists():
            with sqlite3.connect(db) as con, contextlib.suppress(sqlite3.OperationalError):
                rows = con.execute("SELECT COUNT(*) FROM outcomes").fetchone()[0]
    os.killpg(bench.pid, signal.SIGINT)
    err = bench.communicate(timeout=60)[1]
    assert bench.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    resume = f"sudokulab bench --resume 1 --out {out}"
    assert (
        err.splitlines()[-1] == f"bench: interrupted; finished rows are kept. Resume with: {resume}"
    )
    with Store(db) as store:
        kept = store.results()
        assert store.runs().iloc[0]["finished"] is None
    assert 0 < len(kept) < 24 and kept["status"].eq("solved").all()
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert not list(out.glob(".*.lock"))  # the run's lock went with the process
    assert main(["bench", "--resume", "1", "--out", str(out), "--no-plots"]) == 0
    with Store(db) as store:
        rows = store.results()
    assert len(rows) == 24 and not rows.duplicated(KEY).any()


def test_ctrl_c_before_the_first_row_leaves_no_run_and_no_store(tmp_path, fakes):
    out = tmp_path / "out"
    args = ["seeds", "--backends", "slow", "--workers", "1", "--no-plots", "--out", str(out)]
    bench = subprocess.Popen([sys.executable, "-m", "sudokulab", "bench", *args], cwd=tmp_path,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)  # fmt: skip
    assert bench.stderr.readline().startswith("bench: seeds x slow;")  # it is under way
    os.killpg(bench.pid, signal.SIGINT)
    err = bench.communicate(timeout=60)[1]
    assert bench.returncode == 130 and "Traceback" not in err, err
    if "no run" in err:  # stopped before the first chunk of 3 puzzles was in (0.75 s)
        assert err.splitlines()[-1] == "bench: interrupted before any row was stored; no run"
        assert not out.exists()
    else:  # a slow machine: the first chunk made it, and the run is there to resume
        assert err.splitlines()[-1].endswith(f"sudokulab bench --resume 1 --out {out}")
