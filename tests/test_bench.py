"""The bench runner and its store: rows survive kills, crashes and hangs cost one row."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
from helpers import fake_backends

from sudokulab.backends import as_spec
from sudokulab.bench import BenchPlan, LocalExecutor, report, run_bench
from sudokulab.bench.store import Store
from sudokulab.models import parse_puzzle, read_file

TESTS = Path(__file__).resolve().parent
SEEDS = TESTS.parent / "data" / "seeds.csv"
EXAMPLE = "....5.264..7..9..35..62....8......9.7..34..86.....2.3....9.....9.476........3...."
GIVEN_FIRST = "7.18.43.......2.....453..7.6.....7..1...9...5..8.....38...195....23........6.89.4"
TINY = {
    "seeds": [(i, e.puzzle) for i, e in enumerate(read_file(SEEDS))],
    "two": [(0, parse_puzzle(EXAMPLE)), (1, parse_puzzle(GIVEN_FIRST))],
    "clash": [(0, parse_puzzle("55" + "." * 79))],
}


def load(name, plan):
    return TINY[name]


@pytest.fixture
def fakes(monkeypatch):
    """Register the misbehaving backends here and in worker processes."""
    yield from fake_backends(
        monkeypatch, "CrashBackend", "HangBackend", "SlowBackend", "HangBatchBackend"
    )


def test_a_run_stores_every_row_with_machine_and_agreement(tmp_path):
    plan = BenchPlan(["seeds", "two", "clash"], ["native", "native-py:order=first"], timeout=None)
    with Store(tmp_path / "r.sqlite") as store:
        run = run_bench(plan, store, load, LocalExecutor(2), progress=False)
        rows = store.results([run])
        runs = store.runs([run])
    assert len(rows) == (3 + 2 + 1) * 2
    assert set(rows["backend"]) == {"native", "native-py:order=first"}
    solved = rows[rows["status"] == "solved"]
    assert len(solved) == 10 and solved["verified"].all() and solved["agrees"].all()
    clash = rows[rows["set"] == "clash"]
    assert set(clash["status"]) == {"invalid"} and clash["error"].str.contains("row 1").all()
    assert (rows["time"] >= rows["solve_time"]).all() and solved["nodes"].notna().all()
    run_row = runs.iloc[0]
    assert run_row["finished"] and run_row["cores"] >= 1 and run_row["python"]
    assert '"sets": ["seeds", "two", "clash"]' in run_row["args"]


def test_crash_and_hang_cost_one_row_each_and_the_run_finishes(tmp_path, fakes):
    plan = BenchPlan(["two"], ["native", "crash", "hang"], timeout=1.0)
    start = time.perf_counter()
    with Store(tmp_path / "r.sqlite") as store:
        run = run_bench(plan, store, load, LocalExecutor(2), progress=False)
        rows = store.results([run]).set_index(["backend", "idx"])
    assert time.perf_counter() - start < 20
    assert rows.loc[("crash", 0), "status"] == "error"
    assert rows.loc[("crash", 0), "error"] == "worker process died from SIGSEGV"
    assert rows.loc[("hang", 0), "status"] == "timeout"
    for backend in ("native", "crash", "hang"):
        assert rows.loc[(backend, 1), "status"] == "solved"  # the puzzle with r1c1 given
    # Failures have no verdict; with one conclusive answer left there is nothing to compare.
    assert rows.loc[("native", 0), "agrees"] is None
    assert rows.loc[("crash", 0), "agrees"] is None
    assert rows.loc[("native", 1), "agrees"] and rows.loc[("hang", 1), "agrees"]
    # a request killed (the hang at its deadline) or dead (the crash) was not measured
    for killed in (("crash", 0), ("hang", 0)):
        assert pd.isna(rows.loc[killed, "cpu_s"]) and pd.isna(rows.loc[killed, "peak_mb"])
    assert rows.loc[("crash", 1), "cpu_s"] >= 0 and rows.loc[("hang", 1), "peak_mb"] > 0


def test_each_row_keeps_the_cpu_time_and_peak_memory_its_worker_measured(tmp_path):
    # native solves a chunk in one request (its rows share the block's CPU time), constraint
    # one request per puzzle (each row its own); an invalid puzzle makes no request.
    plan = BenchPlan(["two", "clash"], ["native", "constraint"], timeout=None, repeats=2)
    with Store(tmp_path / "r.sqlite") as store:
        run = run_bench(plan, store, load, LocalExecutor(1), progress=False)
        rows = store.results([run])
        summary = report.summary(store.rows([run])).set_index(["set", "backend"])
    invalid = rows["status"] == "invalid"
    assert invalid.sum() == 4 and rows[invalid][["cpu_s", "peak_mb"]].isna().all().all()
    ran = rows[~invalid]
    assert len(ran) == 8 and ran["cpu_s"].notna().all() and (ran["cpu_s"] >= 0).all()
    assert ran["peak_mb"].notna().all() and (ran["peak_mb"] > 0).all()
    assert (ran.loc[ran["backend"] == "constraint", "cpu_s"] > 0).all()
    assert ran.loc[ran["backend"] == "native", "cpu_s"].sum() > 0
    for backend in ("native", "constraint"):
        mine = ran[ran["backend"] == backend]
        got = summary.loc[("two", backend)]
        assert got["peak_mb"] == mine["peak_mb"].max()
        assert got["mean_cpu_low_s"] <= got["mean_cpu_s"] <= got["mean_cpu_high_s"]
        assert got["mean_cpu_s"] > 0
    assert summary.loc[("clash", "native"), ["mean_cpu_s", "peak_mb"]].isna().all()


def test_a_killed_run_keeps_its_rows_and_resume_finishes_it(tmp_path, fakes):
    db = tmp_path / "r.sqlite"
    script = textwrap.dedent(
        f"""
        from sudokulab.bench import BenchPlan, LocalExecutor, report, run_bench
        from sudokulab.models import read_file
        from sudokulab.bench.store import Store
        entries = read_file({str(SEEDS)!r})
        pairs = [(i, e.puzzle) for i, e in enumerate(entries)]
        plan = BenchPlan(["seeds"], ["slow"], timeout=30, repeats=8)
        run_bench(plan, Store({str(db)!r}), lambda name, plan: pairs, LocalExecutor(1),
                  progress=False)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], env=os.environ.copy())
    deadline = time.time() + 60
    finished = 0
    while time.time() < deadline and finished < 5:
        time.sleep(0.2)
        if db.exists():
            with sqlite3.connect(db) as con:
                try:
                    finished = con.execute("SELECT COUNT(*) FROM results").fetchone()[0]
                except sqlite3.OperationalError:
                    finished = 0
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    with Store(db) as store:
        kept = store.results()
        assert 5 <= len(kept) < 24
        assert store.runs().iloc[0]["finished"] is None
        run = int(kept["run_id"].iloc[0])
        plan = BenchPlan(**store.run_args(run))
        run_bench(plan, store, load_seeds, LocalExecutor(2), resume=run, progress=False)
        rows = store.results([run])
        assert store.runs().iloc[0]["finished"] is not None
    assert len(rows) == 24
    assert not rows.duplicated(["set", "idx", "backend", "repeat"]).any()
    before = kept.set_index(["idx", "repeat"])["time"]
    after = rows.set_index(["idx", "repeat"])["time"]
    assert (after.loc[before.index] == before).all()  # finished rows were not run again


def load_seeds(name, plan):
    return TINY["seeds"]


def test_agreement_compares_only_conclusive_answers():
    import pandas as pd

    from sudokulab.bench import agreement

    frame = pd.DataFrame(
        {
            "set": ["s"] * 7,
            "idx": [0, 0, 0, 1, 1, 2, 2],
            "backend": ["a", "b", "c", "a", "b", "a", "b"],
            "status": ["solved", "solved", "timeout", "solved", "solved", "unsolvable", "error"],
            "solution": ["123", "123", None, "123", "321", None, None],
        }
    )
    # Without a uniqueness check two valid but different solutions are both right.
    assert [a for a, *_ in agreement(frame)][3:5] == [True, True]
    assert agreement(frame, unique=True) == [
        (True, "s", 0, "a"),
        (True, "s", 0, "b"),
        (None, "s", 0, "c"),
        (False, "s", 1, "a"),
        (False, "s", 1, "b"),
        (None, "s", 2, "a"),
        (None, "s", 2, "b"),
    ]


TIMES = [
    "time",
    "build_time",
    "solve_time",
    "stats",
    "run_id",
    "created",
    "worker",
    "cpu_s",
    "peak_mb",
]


def test_batching_gives_the_same_rows(tmp_path):
    # native and native-py take chunks of puzzles per request; the rows must not change.
    plan = BenchPlan(["seeds", "two", "clash"], ["native", "native-py:order=first"], timeout=None)
    frames = []
    for batch in (True, False):
        with Store(tmp_path / f"{batch}.sqlite") as store:
            run = run_bench(plan, store, load, LocalExecutor(2, batch=batch), progress=False)
            rows = store.results([run]).drop(columns=TIMES, errors="ignore")
        frames.append(rows.sort_values(["backend", "set", "idx"]).reset_index(drop=True))
    assert len(frames[0]) == 12 and (frames[0]["status"] != "error").all()
    assert frames[0].equals(frames[1])


def test_a_hung_batch_is_killed_at_the_sum_of_its_timeouts(tmp_path, fakes):
    plan = BenchPlan(["two"], ["hangbatch"], timeout=0.5)
    start = time.perf_counter()
    with Store(tmp_path / "r.sqlite") as store:
        run = run_bench(plan, store, load, LocalExecutor(1), progress=False)
        rows = store.results([run])
    elapsed = time.perf_counter() - start
    # the block killed at 2 x 0.5 s + the grace, then asked again one puzzle at a time:
    # the hung one killed alone at 0.5 s + the grace, the other answered
    assert 2.4 < elapsed < 25
    assert list(rows["status"]) == ["timeout", "solved"]
    assert rows["error"][0].startswith("killed after")


def test_resuming_a_finished_run_runs_nothing_and_keeps_every_row(tmp_path):
    # every spec's rows already stored: the executor gets no task (it once divided by 0)
    assert list(LocalExecutor(2, batch=True).run(as_spec("native"), [], 1, 1.0)) == []
    with Store(tmp_path / "r.sqlite") as store:
        plan = BenchPlan(["seeds"], ["native", "native-py"], timeout=None)
        run = run_bench(plan, store, load_seeds, LocalExecutor(2), progress=False)
        before = store.results([run])
        again = run_bench(plan, store, load_seeds, LocalExecutor(2), resume=run, progress=False)
        after = store.results([run])
    assert again == run and len(after) == len(before) == 2 * 3
    assert after["verified"].all()


def test_a_variant_row_stores_the_whole_puzzle(tmp_path):
    from sudokulab.bench import puzzle_text
    from sudokulab.catalog import load as load_set
    from sudokulab.models import format_line
    from sudokulab.models.documents import read_documents

    killer = load_set("gen-killer").entries[0].puzzle
    jigsaw = load_set("gen-jigsaw").entries[0].puzzle
    sets = {"variants": [(0, killer), (1, jigsaw)], "two": TINY["two"]}
    plan = BenchPlan(["variants", "two"], ["native"], timeout=None)
    with Store(tmp_path / "r.sqlite") as store:
        run = run_bench(
            plan, store, lambda name, plan: sets[name], LocalExecutor(1), progress=False
        )
        rows = store.results([run]).set_index(["set", "idx"])
    for idx, puzzle in enumerate((killer, jigsaw)):
        text = rows.loc[("variants", idx), "puzzle"]
        assert read_documents(text)[0].puzzle == puzzle  # the cages, the regions: all there
    assert rows.loc[("two", 0), "puzzle"] == format_line(TINY["two"][0][1])
    assert puzzle_text(TINY["two"][1][1]) == GIVEN_FIRST
