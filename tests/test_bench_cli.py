"""`sudokulab bench` and `sudokulab report` from the command line."""

from __future__ import annotations

import json

import pytest

from sudokulab.bench.store import Store
from sudokulab.catalog import entries
from sudokulab.cli import main


def test_bench_on_the_shipped_sets_writes_store_report_and_plots(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["bench", "--out", str(out), "--backends", "native,cpsat", "--timeout", "60"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "seeds" in captured.out and "cpsat" in captured.out and "mean ms" in captured.out
    assert "Python" in captured.err  # the machine line goes with the numbers
    with Store(out / "results.sqlite") as store:
        rows = store.results()
    shipped = {i.name: i.count for i in entries() if i.shipped}
    assert "skipped" not in captured.err  # both take every constraint kind shipped
    assert len(rows) == 2 * sum(shipped.values())
    assert rows["verified"].all() and rows["agrees"].all()
    folder = out / "run-1"
    report = (folder / "report.md").read_text()
    assert "seeds" in report and "cumulative.png" in report
    for name in ("cumulative.png", "cumulative.svg", "mean-time.png", "mean-time.svg"):
        assert (folder / name).stat().st_size > 1000


def test_report_formats_and_two_runs_side_by_side(tmp_path, capsys):
    out = str(tmp_path / "out")
    for _ in range(2):
        args = ["bench", "seeds", "--out", out, "--backends", "native", "--no-plots"]
        assert main(args) == 0
    capsys.readouterr()
    assert main(["report", "--out", out, "--format", "json", "--no-plots"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert records[0]["backend"] == "native" and records[0]["solved"] == 3
    assert main(["report", "1", "2", "--out", out, "--format", "csv", "--no-plots"]) == 0
    text = capsys.readouterr().out
    assert "old_mean_s" in text and "ratio" in text


def test_bench_errors_exit_2_without_traceback(tmp_path, capsys):
    out = str(tmp_path / "out")
    assert main(["bench", "no-such-set", "--out", out]) == 2
    assert "sudokulab: error:" in capsys.readouterr().err
    assert main(["bench", "seeds", "--out", out, "--backends", "gurobi"]) == 2
    assert "unknown backend 'gurobi'" in capsys.readouterr().err
    assert main(["bench", "--resume", "7", "--out", out]) == 2
    assert "no results store" in capsys.readouterr().err
    assert main(["report", "--out", out]) == 2
    with pytest.raises(SystemExit) as exc:
        main(["bench", "seeds", "--out", out, "--workers", "0"])
    assert exc.value.code == 2 and "--workers: '0' is out of range" in capsys.readouterr().err


def test_a_baseline_that_names_no_backend_is_refused_before_any_work(tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["bench", "seeds", "--out", str(out), "--backends", "native", "--baseline", "x"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "--baseline 'x' is not among the bench's backends: native" in err
    assert not (out / "results.sqlite").exists()  # refused before the store was made

    args = ["bench", "seeds", "--out", str(out), "--backends", "native,native-py", "--no-plots"]
    assert main([*args, "--baseline", "native"]) == 0
    capsys.readouterr()
    assert main(["report", "--out", str(out), "--baseline", "nosuch", "--no-plots"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" not in captured.err
    assert "'nosuch' is not among the backends of run 1: native, native-py" in captured.err
    assert main(["report", "--out", str(out), "--baseline", "native-py", "--no-plots"]) == 0
    assert "vs baseline" in capsys.readouterr().out


def test_bench_rate_keeps_each_puzzles_rating_and_reports_times_by_grade(tmp_path, capsys):
    from sudokulab import rate

    out = str(tmp_path / "b")
    args = ["bench", "gen-classic-hard", "gen-killer", "--backends", "native", "--out", out]
    assert main([*args, "--rate", "--no-plots", "--workers", "1"]) == 0
    captured = capsys.readouterr()
    assert "rated 20 puzzle(s)" in captured.err
    with Store(tmp_path / "b" / "results.sqlite") as store:
        ratings = store.ratings([1])
        results = store.results([1])
    assert len(ratings) == 20 and set(ratings.puzzle) == set(results.puzzle)
    classic = ratings[ratings.status != "error"]
    assert len(classic) == 10  # the killer puzzles are refused: the ladder knows no sums
    expected = rate(list(classic.puzzle))
    assert classic.grade.tolist() == expected.grade.tolist()
    assert classic.score.tolist() == expected.score.tolist()
    report = (tmp_path / "b" / "run-1" / "report.md").read_text()
    section = report.split("## By difficulty", 1)[1]
    for grade, rows in expected.grade.value_counts().items():
        assert f"| native    | {grade:<9} | {rows:>6} |" in section
    assert "| native    | not rated |     10 |" in section
    # A second run of the same puzzles rates nothing new; its report still has the grades.
    assert main([*args, "--rate", "--no-plots", "--workers", "1"]) == 0
    assert "rated 0 puzzle(s)" in capsys.readouterr().err
    assert "## By difficulty" in (tmp_path / "b" / "run-2" / "report.md").read_text()
    # Without --rate the report has no such section.
    assert main([*args[:-2], "--out", str(tmp_path / "c"), "--no-plots"]) == 0
    assert "By difficulty" not in (tmp_path / "c" / "run-1" / "report.md").read_text()
