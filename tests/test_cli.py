"""The command line: outputs, exit statuses, and errors without tracebacks."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import fake_backends, two_solution_grid

import sudokulab
from sudokulab import is_solution, parse_puzzle
from sudokulab.cli import main

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = "....5.264..7..9..35..62....8......9.7..34..86.....2.3....9.....9.476........3...."
ANSWER = "389157264267489153541623978813576492792341586456892731635914827924768315178235649"
# r1c1..r1c8 hold 1..8 and r2c9 holds 9: no clash, but r1c9 has no candidate left.
STUCK = "12345678." + "........9" + "." * 63


def run(capsys, *args, stdin=None, monkeypatch=None):
    """Run the CLI in-process; return (exit status, stdout, stderr)."""
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_piped_line_gives_the_solved_line(capsys, monkeypatch):
    code, out, err = run(capsys, "solve", stdin=EXAMPLE + "\n", monkeypatch=monkeypatch)
    assert (code, out, err) == (0, ANSWER + "\n", "")


def test_console_script_reads_stdin_like_the_seed_solver():
    proc = subprocess.run(
        ["sudokulab", "solve"], input=EXAMPLE, capture_output=True, text=True, timeout=60
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, ANSWER + "\n", "")


def test_python_dash_m_works():
    proc = subprocess.run(
        [sys.executable, "-m", "sudokulab", "solve", EXAMPLE],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.stdout == ANSWER + "\n"


def test_main_stays_the_function_after_any_number_of_calls(capsys):
    # the first call imports the parser's module: it must not take the function's name
    assert sudokulab.cli.main(["solve", EXAMPLE]) == 0
    from sudokulab.cli import main as again

    assert again is main and sudokulab.cli.main is main
    assert [again(["solve", EXAMPLE]), sudokulab.cli.main(["solve", EXAMPLE])] == [0, 0]
    assert capsys.readouterr().out == 3 * (ANSWER + "\n")


def test_a_file_of_many_puzzles_in_grid_format(capsys):
    code, out, _ = run(capsys, "solve", str(REPO / "data" / "seeds.csv"), "--format", "grid")
    assert code == 0
    grids = out.strip().split("\n\n")
    assert len(grids) == 3
    assert grids[0].splitlines()[0] == "3 8 9 | 1 5 7 | 2 6 4"
    assert grids[0].splitlines()[3] == "------+-------+------"


def test_unique_and_count(capsys):
    code, out, _ = run(capsys, "solve", "--unique", EXAMPLE)
    assert (code, out) == (0, ANSWER + " unique\n")
    # A puzzle with a deadly rectangle blanked has two solutions.
    two = "".join(str(v or ".") for v in two_solution_grid(tuple(map(int, ANSWER))))
    assert is_solution(parse_puzzle(two), tuple(map(int, ANSWER)))
    code, out, _ = run(capsys, "solve", "--unique", two)
    assert code == 1 and out.endswith(" multiple\n")
    code, out, _ = run(capsys, "solve", "--count", two)
    assert (code, out) == (0, "2\n")
    code, out, _ = run(capsys, "solve", "--count", "--limit", "10", "." * 16)
    assert (code, out) == (0, "10+\n")


def test_unsolvable_and_timeout_exit_1_and_keep_going(capsys, tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_text(f"{STUCK}\n{EXAMPLE}\n")
    code, out, err = run(capsys, "solve", str(path))
    assert code == 1
    assert out == ANSWER + "\n"
    assert err == f"sudokulab: {path} line 1: no solution\n"
    code, out, err = run(
        capsys, "solve", "--count", "--limit", "100000000", "--timeout", "0.2", "." * 256
    )
    assert code == 1 and out == ""
    assert "timeout after" in err


def test_parse_error_names_file_line_and_column_and_exits_2(capsys, tmp_path):
    path = tmp_path / "bad.txt"
    bad = EXAMPLE[:40] + "x" + EXAMPLE[41:]
    path.write_text(f"{EXAMPLE}\n\n{bad}\n{EXAMPLE}\n")
    code, out, err = run(capsys, "solve", str(path))
    assert (code, out) == (2, f"{ANSWER}\n{ANSWER}\n")  # the good puzzles are still solved
    assert err == f"sudokulab: error: {path}: line 3, column 41: 'x' is not a value or a blank\n"


def test_clashing_givens_exit_2_naming_the_clash(capsys):
    clash = "5" + EXAMPLE[1:]  # r1c1 = 5 and r1c5 = 5
    code, out, err = run(capsys, "solve", clash, EXAMPLE)
    assert code == 2
    assert out == ANSWER + "\n"  # the good puzzle is still solved
    assert "argument 1 line 1: invalid puzzle: row 1: r1c1 and r1c5 are both 5" in err


def test_missing_file_and_no_input(capsys, monkeypatch):
    code, _, err = run(capsys, "solve", "nothere.txt")
    assert (code, err) == (2, "sudokulab: error: nothere.txt: no such file\n")
    code, _, err = run(capsys, "solve", stdin="", monkeypatch=monkeypatch)
    assert code == 2 and "no puzzle found" in err


def test_bad_options_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["solve", "--timeout", "-1", EXAMPLE])
    assert exc.value.code == 2
    assert "--timeout: '-1' is out of range: more than 0" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["solve", "--propagation", "fast", EXAMPLE])
    assert exc.value.code == 2


def test_stats_and_knobs(capsys):
    code, out, err = run(
        capsys, "solve", "--stats", "--propagation", "forward", "--order", "first", EXAMPLE
    )
    assert code == 0 and out == ANSWER + "\n"
    assert err.startswith("puzzle: solved, ")
    assert "nodes " in err and "guesses " in err and "backtracks " in err


# easy50's first puzzle (Norvig's set): naked singles settle it, no guess needed.
NAKED = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"


@pytest.mark.parametrize("backend", ["native", "native-py"])
def test_forward_checking_counts_no_guess_where_naked_singles_settle(capsys, backend):
    # The search places each cell left with one candidate: propagation, not a guess.
    code, out, err = run(
        capsys, "solve", "--stats", "--propagation", "forward", "--backend", backend, NAKED
    )
    assert code == 0 and is_solution(parse_puzzle(NAKED), parse_puzzle(out.strip()).givens)
    stats = dict(re.findall(r"(nodes|guesses|backtracks) (\d+)", err))
    assert stats["guesses"] == stats["backtracks"] == "0" and int(stats["nodes"]) > 1


def test_stats_show_each_backends_own_counters(capsys):
    code, out, err = run(capsys, "solve", "--stats", "--backend", "sat", EXAMPLE)
    assert code == 0 and out == ANSWER + "\n"
    stats = sudokulab.solve(EXAMPLE, "sat").stats
    assert f", variables {stats['variables']}, clauses {stats['clauses']}, " in err
    assert "conflicts " in err and "decisions " in err and "nodes " not in err


# A few puzzles given as text are solved one at a time (no numpy, no threads), the rest a
# block at a time: the same outputs and statuses either way.
ONE_BY_ONE_CASES = [
    ["solve", EXAMPLE],
    ["solve", EXAMPLE, STUCK, "1234" * 4, "1...............", "12.3"],
    ["solve", EXAMPLE, "--format", "grid", "--unique"],
    ["solve", "1...............", EXAMPLE, "--unique", "--stats"],
    ["solve", "1...............", STUCK, "--count", "--limit", "7"],
    ["solve", "1" * 81, EXAMPLE, "--backend", "dlx", "--stats"],
    ["solve", EXAMPLE, "--backend", "backtracking", "--count"],
    # (not a timeout: how far a search gets in its time differs from run to run)
    ["solve", "." * 81, "--backend", "backtracking", "--count", "--limit", "3"],
    ["solve", "." * 81, "--variant", "x", "--format", "grid"],
    ["solve", "12..............", "--size", "4", "--stats", "--format", "grid"],
]


@pytest.fixture
def wrong(monkeypatch):
    """The ``wrong`` backend: every puzzle "solved" with a grid of ones."""
    yield from fake_backends(monkeypatch, "WrongBackend")


@pytest.mark.parametrize("few", [True, False])
@pytest.mark.parametrize("how", [[], ["--unique"], ["--count"], ["--format", "grid"]])
def test_a_wrong_solution_is_an_error_naming_its_fault(capsys, monkeypatch, wrong, few, how):
    import sudokulab.cli.solve as solve_command

    if not few:  # the block path
        monkeypatch.setattr(solve_command, "FEW", 0)
    code, out, err = run(capsys, "solve", EXAMPLE, "--backend", "wrong", *how)
    assert code == 1 and out == ""  # --count too: it printed 1 before the API verified
    said = "error after 1 solution" if how == ["--count"] else "error"
    assert err == (
        f"sudokulab: puzzle: {said} (wrong gave a solution that breaks the rules or the"
        " givens: r1c5 holds 1 but its given is 5)\n"
    )


@pytest.mark.parametrize("args", ONE_BY_ONE_CASES, ids=lambda args: " ".join(args[2:]) or "one")
def test_puzzles_given_as_text_answer_as_a_block_does(capsys, monkeypatch, args):
    import re

    import sudokulab.cli.solve as solve_command

    def answered() -> tuple[int, str, str]:
        code, out, err = run(capsys, *args)
        return code, out, re.sub(r"\d+\.\d+ ms", "T ms", err)  # --stats: the time differs

    alone = answered()
    monkeypatch.setattr(solve_command, "FEW", 0)
    assert answered() == alone
