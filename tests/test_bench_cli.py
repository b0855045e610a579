"""`sudokulab bench` and `sudokulab report` from the command line."""

from __future__ import annotations

import json

import pytest
from helpers import fake_backends

from sudokulab.backends import get_backend
from sudokulab.backends.base import unsupported
from sudokulab.bench.store import Store
from sudokulab.catalog import entries, load
from sudokulab.cli import main
from sudokulab.models import build_model


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
    # a backend refusing a set's rule kinds (a variant set) is skipped on it, with its reason
    answered = sum(
        count
        for name, count in shipped.items()
        for b in ("native", "cpsat")
        if not unsupported(get_backend(b), build_model(load(name).entries[0].puzzle))
    )
    assert ("skipped" in captured.err) == (answered < 2 * sum(shipped.values()))
    assert len(rows) == answered
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
    assert main(["bench", "seeds", "--out", out, "--backends", "cplex"]) == 2
    assert "unknown backend 'cplex'" in capsys.readouterr().err
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


# --- exit statuses, as solve's on the same files ---------------------------------------

GOOD = "....5.264..7..9..35..62....8......9.7..34..86.....2.3....9.....9.476........3...."
CLASH = "55" + "." * 79
#: A puzzle the native engine does not settle without a guess.
GUESS = "..8....64...78.1...3.4...7....1....5.7...92..2.63.......5.3.7..6...7..4......1..."
# r1c9 can only be 9, and r2c9 is 9: no solution, though no two givens clash
UNSOLVABLE = "12345678." + "........9" + "." * 63


@pytest.fixture
def fakes(monkeypatch):
    """The misbehaving backends, here and in worker processes."""
    yield from fake_backends(monkeypatch, "WrongBackend")


def bench_file(tmp_path, lines, *more, name="puzzles.txt", backends="native"):
    """Bench a file of ``lines``; the exit status, stdout and the stored rows (None when
    no store was made)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / name
    path.write_text("".join(f"{line}\n" for line in lines))
    out = tmp_path / "out"
    code = main(["bench", str(path), "--backends", backends, "--out", str(out), "--no-plots",
                 "--workers", "1", *more])  # fmt: skip
    store = out / "results.sqlite"
    if not store.exists():
        return code, None
    with Store(store) as s:
        return code, s.results()


@pytest.mark.parametrize(
    "lines, status, solve_status, expected",
    [
        ([GOOD], 0, 0, ["solved"]),
        ([GOOD, UNSOLVABLE], 0, 1, ["solved", "unsolvable"]),  # an answer, for a bench
        ([GOOD, CLASH], 2, 2, ["solved", "invalid"]),
        ([GOOD, "1" * 80, GOOD], 2, 2, ["solved", "solved"]),
    ],
)
def test_bench_exits_as_solve_does_on_bad_input(
    tmp_path, capsys, lines, status, solve_status, expected
):
    code, rows = bench_file(tmp_path, lines)
    err = capsys.readouterr().err
    assert code == status and "Traceback" not in err
    assert list(rows["status"]) == expected  # the good puzzles are answered and stored
    assert main(["solve", str(tmp_path / "puzzles.txt")]) == solve_status
    if "1" * 80 in lines:
        assert "puzzles.txt: line 2, column 81: line has 80 cells" in err


def test_a_timeout_is_a_result_a_wrong_answer_a_failure(tmp_path, fakes, capsys):
    # max_guesses=0: a puzzle that needs a guess stops there, a timeout whatever the machine
    code, rows = bench_file(tmp_path, [GUESS, GOOD], backends="native:max_guesses=0")
    err = capsys.readouterr().err
    assert code == 0 and list(rows["status"]) == ["timeout", "solved"]
    assert err.rstrip().endswith("run 1: 2 rows: 1 solved, 1 timeout in 1 pair, 0 wrong")
    code, _ = bench_file(tmp_path / "t", [GUESS], "--fail-on", "timeout",
                         backends="native:max_guesses=0")  # fmt: skip
    assert code == 1
    code, _ = bench_file(tmp_path / "u", [UNSOLVABLE], "--fail-on", "unsolvable,multiple")
    assert code == 1
    code, rows = bench_file(tmp_path / "w", [GOOD], backends="native,wrong")
    err = capsys.readouterr().err
    assert code == 1 and list(rows["verified"]) == [True, False]
    assert "## Wrong answers" in (tmp_path / "w" / "out" / "run-1" / "report.md").read_text()
    assert err.rstrip().endswith("run 1: 2 rows: 1 solved, 1 wrong")
    out = str(tmp_path / "w" / "out")
    assert main(["report", "--out", out, "--format", "csv", "--no-plots"]) == 1
    report = ["report", "--out", str(tmp_path / "out"), "--no-plots"]
    assert main(report) == 0
    assert main([*report, "--fail-on", "timeout"]) == 1
    with pytest.raises(SystemExit) as stop:
        main(["bench", "seeds", "--fail-on", "slow"])
    assert stop.value.code == 2 and "give a comma list of timeout, unsolvable" in (
        capsys.readouterr().err
    )


def test_an_empty_or_unreadable_set_is_bad_input_and_leaves_no_run(tmp_path, capsys):
    for lines in ([], ["# a comment, no puzzle"]):
        code, rows = bench_file(tmp_path, lines)
        err = capsys.readouterr().err
        assert code == 2 and rows is None and "no puzzle found" in err
        assert len(err.strip().splitlines()) == 1 and not (tmp_path / "out").exists()
    binary = tmp_path / "binary.bin"
    binary.write_bytes(bytes(range(256)) * 64)
    out = tmp_path / "kept"
    assert main(["bench", "seeds", "--backends", "native", "--out", str(out), "--no-plots"]) == 0
    capsys.readouterr()
    args = ["--backends", "native", "--out", str(out), "--no-plots"]
    assert main(["bench", str(binary), *args]) == 2
    err = capsys.readouterr().err
    assert "binary.bin" in err and "Traceback" not in err
    assert main(["bench", "seeds", *args]) == 0
    with Store(out / "results.sqlite") as store:
        assert store.run_ids() == [1, 2]  # the failed bench took no run number


def test_out_must_be_a_folder(tmp_path, capsys):
    regular = tmp_path / "file.txt"
    regular.write_text("not a folder\n")
    for out in ("/dev/null", str(regular)):
        for command in (["bench", "seeds", "--backends", "native"], ["report"]):
            assert main([*command, "--out", out, "--no-plots"]) == 2
            err = capsys.readouterr().err
            assert err.startswith("sudokulab: error: --out ") and "not a folder" in err
            assert len(err.strip().splitlines()) == 1
    assert regular.read_text() == "not a folder\n"


def test_the_default_table_counts_invalid_puzzles(tmp_path, capsys):
    code, _ = bench_file(tmp_path, [GOOD, CLASH, CLASH])
    table = capsys.readouterr().out.splitlines()
    header = table[0].split()
    assert code == 2 and "invalid" in header
    row = table[2].split()
    assert row[header.index("invalid")] == "2" and row[header.index("solved")] == "1"


def test_report_md_escapes_set_names(tmp_path, capsys):
    import markdown  # the test extra

    name = "<img src=x onerror=alert(1)><script>alert(2)<script>*x*.txt"
    code, rows = bench_file(tmp_path, [GOOD], name=name)
    assert code == 0 and rows["set"].iloc[0].endswith(name)
    text = (tmp_path / "out" / "run-1" / "report.md").read_text()
    assert "<img" not in text and "<script" not in text
    page = markdown.markdown(text, extensions=["tables"])
    assert "<img" not in page and "<script" not in page and "onerror=alert(1)" in page
    assert "&lt;script&gt;alert(2)&lt;script&gt;*x*.txt" in page  # the name, as text


def test_report_says_what_it_wrote(tmp_path, capsys):
    out = str(tmp_path / "out")
    assert main(["bench", "seeds", "--backends", "native", "--out", out, "--no-plots"]) == 0
    assert f"report: {out}/run-1/\n" in capsys.readouterr().err
    assert main(["report", "--out", out]) == 0
    assert f"report and plots: {out}/run-1/\n" in capsys.readouterr().err


def test_report_compares_runs_of_two_stores(tmp_path, capsys):
    """STORE:RUN: a run of another store (another machine's results folder) beside one of
    --out's, each with its machine line, and the two compared with a verdict."""
    here, there = tmp_path / "here", tmp_path / "there"
    for out in (here, there):
        args = ["bench", "seeds", "--out", str(out), "--backends", "native", "--no-plots"]
        assert main(args) == 0
    capsys.readouterr()
    args = ["report", "1", f"{there}:1", "--out", str(here), "--format", "csv"]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert captured.err.count("Python 3") == 2  # each run's machine
    assert "here:1 -> there:1" in captured.err
    assert "verdict" in captured.out and "no significant difference" in captured.out
    (folder,) = (here).glob("compare-*")
    text = (folder / "report.md").read_text()
    assert "## here:1" in text and "## there:1" in text and "verdict" in text
    assert main(["report", "1", f"{there}:9", "--out", str(here)]) == 2
    assert "no run 9 in" in capsys.readouterr().err
    assert main(["report", f"{there / 'results.sqlite'}:1", "--out", str(here)]) == 0


def test_the_terminal_table_fits_the_terminal_and_wide_shows_all(tmp_path, capsys, monkeypatch):
    out = str(tmp_path / "out")
    args = ["bench", "seeds", "gen-4x4", "--backends", "native,forward-checking", "--out", out,
            "--no-plots", "--workers", "1"]  # fmt: skip
    assert main(args) == 0
    capsys.readouterr()
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    shown = []
    for columns in (80, 120, 200):
        monkeypatch.setenv("COLUMNS", str(columns))
        assert main(["report", "--out", out, "--no-plots"]) == 0
        text, err = capsys.readouterr()
        lines = text.splitlines()
        assert lines[0].split()[:4] == ["set", "backend", "puzzles", "solved"]
        assert "mean ms" in lines[0] and "more columns: --wide" in err
        assert columns == 80 or max(map(len, lines)) <= columns
        shown.append(len(lines[1].split()))
    assert shown[0] < shown[1] < shown[2]  # more room, more columns
    assert main(["report", "--out", out, "--no-plots", "--wide"]) == 0
    text, err = capsys.readouterr()
    assert "peak MB" in text and "< 1 s" in text and "more columns" not in err
