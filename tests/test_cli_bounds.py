"""Bad values and bad input at the command line: one argument type for every number, deep
JSON, the exit statuses every command promises, and the bound on plain backtracking."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import parsers

import sudokulab.cli.solve as solve_command
from sudokulab.backends import parse_spec
from sudokulab.backends.specs import slow_reason
from sudokulab.cli import build_parser, main
from sudokulab.cli.common import MAX_SECONDS, Number, count, seconds

EXAMPLE = "....5.264..7..9..35..62....8......9.7..34..86.....2.3....9.....9.476........3...."
ANSWER = "389157264267489153541623978813576492792341586456892731635914827924768315178235649"
SECOND = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
# r1c1..r1c8 hold 1..8 and r2c9 holds 9: no clash, but r1c9 has no candidate left.
STUCK = "12345678." + "........9" + "." * 63
CLASH = "55" + "." * 79
# A 17-clue puzzle plain backtracking solves in some 80,000 nodes.
SEVENTEEN = "090107000000000082000900060017000500000480000000000000608030000000000100200000000"
# One it needs some 150 million nodes for (any deadline below seconds stops it).
SLOW = "600000500000032000000000000100600000000500080070000030030089000002000600000400100"
DEEP = "[" * 5000 + "]" * 5000
TOO_DEEP = "not a puzzle document: arrays or objects nested too deeply"


def run(capsys, *args: str) -> tuple[int, str, str]:
    """The CLI in-process: (exit status, stdout, stderr), usage errors included."""
    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse's exit on a bad option
        code = exc.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


# --- numbers ------------------------------------------------------------------------------


def _numeric_options() -> list[tuple[str, str, Number]]:
    """(command, option, type) of every option whose type is the one numeric type."""
    return [
        (parser.prog, action.option_strings[0], action.type)
        for parser in parsers(build_parser())
        for action in parser._actions
        if isinstance(action.type, Number) and action.option_strings
    ]


def test_no_option_takes_a_bare_int_or_float():
    for parser in parsers(build_parser()):
        for action in parser._actions:
            assert action.type not in (int, float), (parser.prog, action.dest)


def test_every_command_has_its_numbers_checked():
    found = {(prog, option) for prog, option, _ in _numeric_options()}
    assert {
        ("sudokulab solve", "--timeout"),
        ("sudokulab solve", "--limit"),
        ("sudokulab solve", "--size"),
        ("sudokulab check", "--timeout"),
        ("sudokulab explain", "--timeout"),
        ("sudokulab explain", "--max-steps"),
        ("sudokulab explain", "--number"),
        ("sudokulab model", "--number"),
        ("sudokulab rate", "--jobs"),
        ("sudokulab generate", "--count"),
        ("sudokulab generate", "--seed"),
        ("sudokulab generate", "--attempts"),
        ("sudokulab generate", "--timeout"),
        ("sudokulab data fetch", "--timeout"),
        ("sudokulab data fetch", "--retries"),
        ("sudokulab bench", "--timeout"),
        ("sudokulab bench", "--workers"),
        ("sudokulab bench", "--repeats"),
        ("sudokulab bench", "--sample"),
        ("sudokulab bench", "--seed"),
        ("sudokulab bench", "--resume"),
        ("sudokulab bench", "--connect-timeout"),
        ("sudokulab bench", "--worker-timeout"),
    } <= found


def _args(prog: str, option: str, value: str) -> list[str]:
    """A command line of ``prog`` with ``option=value`` (so that ``-inf`` is a value), and
    a puzzle or a set name when it takes one."""
    words = prog.split()[1:]
    takes_puzzles = words[0] in ("solve", "check", "explain", "model", "rate")
    names = ["top95"] if words == ["data", "fetch"] else []
    return [*words, f"{option}={value}", *([EXAMPLE] if takes_puzzles else []), *names]


BAD = ["nan", "NaN", "inf", "-inf", "1e400", "-1", "ten", "", "1e3000000", "0x10"]


@pytest.mark.parametrize("value", BAD)
def test_every_numeric_option_refuses_bad_values_with_exit_2(capsys, value):
    for prog, option, _ in _numeric_options():
        code, out, err = run(capsys, *_args(prog, option, value))
        assert code == 2, (prog, option, value)
        assert out == ""
        assert f"argument {option}" in err and repr(value) in err, err


def test_every_numeric_option_refuses_a_value_above_its_range(capsys):
    for prog, option, kind in _numeric_options():
        above = str(int(kind.high) + 1) if kind.kind is int else repr(kind.high * 2)
        code, _, err = run(capsys, *_args(prog, option, above))
        assert code == 2, (prog, option)
        assert f"argument {option}: {above!r} is out of range" in err or "invalid choice" in err


def test_the_messages_name_the_option_the_value_and_the_range(capsys):
    code, _, err = run(capsys, "solve", EXAMPLE, "--timeout", "nan")
    assert code == 2
    assert err.endswith(
        "sudokulab solve: error: argument --timeout: 'nan' is not a finite number\n"
    )
    code, _, err = run(capsys, "bench", "--timeout", "1e400")
    assert code == 2 and "argument --timeout: '1e400' is not a finite number" in err
    code, _, err = run(capsys, "solve", EXAMPLE, "--limit", "0")
    assert code == 2 and "argument --limit: '0' is out of range: from 1 to 2147483647" in err
    code, _, err = run(capsys, "solve", EXAMPLE, "--timeout", "2e6")
    assert "'2e6' is out of range: more than 0 and at most 1000000 seconds" in err
    code, _, err = run(capsys, "generate", "--count", "2.5")
    assert code == 2 and "argument --count: '2.5' is not a whole number" in err


def test_the_type_takes_the_whole_range():
    assert seconds("1e6") == MAX_SECONDS and seconds("1e-9") == 1e-9
    assert seconds(" 2.5 ") == 2.5
    assert count("1") == 1 and count(str(2**31 - 1)) == 2**31 - 1
    assert Number(int, 0, 5)("0") == 0
    for text in ("0", "-0.0", "1000000.5"):
        with pytest.raises(argparse.ArgumentTypeError):
            seconds(text)
    with pytest.raises(argparse.ArgumentTypeError, match="not a whole number"):
        count("9" * 5000)  # beyond Python's limit on int() of text: refused, not a crash


def test_the_largest_timeout_reaches_every_backend(capsys):
    """At the top of the range no solver's clock overflows (1e300 once did, in three)."""
    for backend in ("native", "backtracking", "cpsat", "sat", "mip", "smt", "dlx", "constraint"):
        code, out, err = run(capsys, "solve", SECOND, "--backend", backend, "--timeout", "1e6")
        assert (code, err) == (0, ""), backend
        assert len(out.strip()) == 81


# --- deep JSON ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["solve", "check", "rate", "explain", "model"])
def test_a_deep_json_array_is_a_parse_error_naming_the_source(capsys, tmp_path, command):
    path = tmp_path / "deep.json"
    path.write_text(DEEP)
    extra = ["--backends", "native"] if command == "check" else []
    code, out, err = run(capsys, command, str(path), *extra)
    assert code == 2
    assert f"sudokulab: error: {path}: line 1: {TOO_DEEP}\n" in err
    code, out, err = run(capsys, command, DEEP, *extra)
    assert code == 2
    assert f"sudokulab: error: argument 1: line 1: {TOO_DEEP}\n" in err


@pytest.mark.parametrize("suffix", [".txt", ".jsonl"])
def test_the_good_puzzles_around_a_deep_array_are_answered(capsys, tmp_path, suffix):
    path = tmp_path / f"mixed{suffix}"
    if suffix == ".txt":
        path.write_text(f"{EXAMPLE}\n{DEEP}\n{SECOND}\n")
    else:
        path.write_text(f'{{"givens": "{EXAMPLE}"}}\n{DEEP}\n{{"givens": "{SECOND}"}}\n')
    code, out, err = run(capsys, "solve", str(path))
    assert code == 2
    assert out.splitlines()[0] == ANSWER and len(out.splitlines()) == 2
    assert err == f"sudokulab: error: {path}: line 2: {TOO_DEEP}\n"
    code, out, err = run(capsys, "rate", str(path))
    assert code == 2 and f"{path} line 1: " in out and f"{path} line 3: " in out
    code, out, err = run(capsys, "check", str(path), "--backends", "native,cpsat")
    assert code == 2 and "all 2 backends agree" not in out
    assert "1 bad line in the input was not checked" in out


def test_a_deep_array_through_the_console_script(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text(DEEP)
    proc = subprocess.run(
        ["sudokulab", "solve", str(path)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2
    assert proc.stderr == f"sudokulab: error: {path}: line 1: {TOO_DEEP}\n"


# --- exit statuses ------------------------------------------------------------------------


def _file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


# (command, extra arguments): each command that reads puzzles, as docs/cli.md promises:
# 0 done, 1 some work failed, 2 bad input or usage.
COMMANDS = {
    "solve": [],
    "check": ["--backends", "native,cpsat"],
    "rate": [],
    "explain": [],
    "model": [],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_an_empty_file_or_one_of_comments_is_bad_input(capsys, tmp_path, command):
    for text in ("", "# no puzzle here\n\n"):
        code, out, err = run(capsys, command, _file(tmp_path, "none.txt", text), *COMMANDS[command])
        assert (code, out) == (2, "")
        assert err == "sudokulab: error: no puzzle found in the input\n"


@pytest.mark.parametrize("command", COMMANDS)
def test_clashing_givens_are_bad_input(capsys, tmp_path, command):
    path = _file(tmp_path, "clash.txt", CLASH)
    code, out, err = run(capsys, command, path, *COMMANDS[command])
    assert code == 2
    if command == "check":
        assert "r1c1 and r1c2 are both 5" in out and "1 of 1 puzzle is invalid" in out
    else:
        assert "invalid puzzle: row 1: r1c1 and r1c2 are both 5" in err


# An unsolvable puzzle: the work of solve, rate and explain failed (1); check's backends
# agree that it has no solution (0); model shows its CSP without solving it (0).
UNSOLVABLE = {"solve": 1, "check": 0, "rate": 1, "explain": 1, "model": 0}


@pytest.mark.parametrize("command", COMMANDS)
def test_an_unsolvable_puzzle(capsys, tmp_path, command):
    code, out, _ = run(capsys, command, _file(tmp_path, "stuck.txt", STUCK), *COMMANDS[command])
    assert code == UNSOLVABLE[command]
    if command == "check":
        assert "all 2 backends agree on 1 puzzle\n" in out


def test_a_timeout_is_failed_work(capsys):
    hard = ["--count", "--limit", "100000000", "--timeout", "0.05", "." * 256]
    code, out, err = run(capsys, "solve", *hard)
    assert (code, out) == (1, "") and "timeout after" in err
    code, out, _ = run(capsys, "check", SLOW, "--backends", "backtracking", "--timeout", "0.05")
    assert code == 1 and "timeout" in out
    code, out, _ = run(
        capsys, "explain", SLOW, "--propagation", "none", "--order", "first", "--timeout", "0.05"
    )
    assert code == 1 and "stopped by the timeout" in out


@pytest.mark.parametrize(
    "args",
    [
        ["solve", EXAMPLE, "--propagation", "fast"],
        ["check", EXAMPLE, "--backends", "nosuch"],
        ["rate", EXAMPLE, "--format", "xml"],
        ["explain", EXAMPLE, "--show-candidates", "sometimes"],
        ["model", EXAMPLE, "--cell", "r10c1"],
        ["generate", "--variant", "killer", "--difficulty", "hard"],
        ["generate", "--variant", "jigsaw", "--format", "line"],
        ["sets", "--data-dir", "/nonexistent/folder"],
        ["data", "fetch", "nosuchset"],
        ["data", "fetch", "top95", "hardest", "--url", "https://example.org/x"],
    ],
)
def test_bad_options_and_names_exit_2(capsys, args):
    code, _, err = run(capsys, *args)
    assert code == 2 and "error" in err


# --- plain backtracking and few clues -----------------------------------------------------


def test_the_rule_plain_backtracking_and_few_clues():
    backtracking = parse_spec("backtracking")
    assert "9x9 puzzle of 17 clues" in slow_reason(backtracking, 9, 17)
    assert slow_reason(backtracking, 9, 20)  # a quarter of 81 cells, rounded down
    assert slow_reason(backtracking, 9, 21) == ""
    assert "16x16 grids" in slow_reason(backtracking, 16, 200)
    assert slow_reason(backtracking, 4, 0) == slow_reason(backtracking, 6, 3) == ""
    for spec in ("native", "native:propagation=forward", "cpsat", "hidden-singles"):
        assert slow_reason(parse_spec(spec), 9, 17) == "", spec
    assert slow_reason(parse_spec("native:propagation=none,order=mrv"), 9, 17)


@pytest.fixture
def timeouts(monkeypatch):
    """The timeout each block of ``solve`` is solved with (each puzzle, when a few are
    given as text and solved one at a time)."""
    seen: list[float | None] = []

    def recording(real):
        def solve(puzzles, spec, limit, timeout, **kwargs):
            seen.append(timeout)
            return real(puzzles, spec, limit, timeout, **kwargs)

        return solve

    for name in ("solve_grids", "solve_puzzle"):
        monkeypatch.setattr(solve_command, name, recording(getattr(solve_command, name)))
    return seen


def test_solve_warns_and_bounds_plain_backtracking_on_few_clues(capsys, timeouts):
    assert np.count_nonzero(np.array(list(SEVENTEEN), dtype=int)) == 17
    code, out, err = run(capsys, "solve", SEVENTEEN, "--backend", "backtracking")
    assert code == 0 and len(out.strip()) == 81
    assert err == (
        "sudokulab: warning: plain backtracking can search for minutes on a 9x9 puzzle of "
        f"17 clues: each such puzzle stops after {solve_command.SLOW_TIMEOUT:g} s "
        "(--timeout SECONDS to choose)\n"
    )
    assert timeouts == [solve_command.SLOW_TIMEOUT]


def test_a_given_timeout_or_another_backend_needs_no_warning(capsys, timeouts):
    code, _, err = run(capsys, "solve", SEVENTEEN, "--backend", "backtracking", "--timeout", "30")
    assert (code, err) == (0, "")
    code, _, err = run(capsys, "solve", SEVENTEEN, "--propagation", "hidden")
    assert (code, err) == (0, "")
    code, _, err = run(capsys, "solve", EXAMPLE, "--backend", "backtracking")  # 24 clues
    assert (code, err) == (0, "")
    assert timeouts == [30.0, None, None]


def test_the_warning_comes_once_and_names_a_large_grid(capsys, timeouts, tmp_path, monkeypatch):
    sixteen = "." * 256
    path = _file(tmp_path, "two.txt", f"{sixteen}\n{sixteen}\n")
    monkeypatch.setattr(solve_command, "SLOW_TIMEOUT", 0.05)
    counting = ["--count", "--limit", "100000000"]
    code, _, err = run(capsys, "solve", path, "--backend", "backtracking", *counting)
    assert code == 1  # both stopped by the bound: a timeout is failed work
    assert err.count("timeout after") == 2
    assert err.count("sudokulab: warning:") == 1
    assert "plain backtracking runs past any timeout on 16x16 grids" in err
    assert set(timeouts) == {0.05}


def test_the_help_says_what_solve_does_about_it(capsys):
    with pytest.raises(SystemExit):
        main(["solve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "plain backtracking on grids beyond 9x9 or on 9x9 puzzles of 20 clues or fewer" in text
    assert f"stop after {solve_command.SLOW_TIMEOUT:g} s, with a warning" in text


def test_python_m_reports_a_bad_value_without_a_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "sudokulab", "solve", EXAMPLE, "--timeout", "nan"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.endswith("argument --timeout: 'nan' is not a finite number\n")
