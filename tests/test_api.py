"""The public API: solve, count, is_solution, results and errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

import sudokulab
from sudokulab import Puzzle, Status, count, is_solution, parse_puzzle, solve

pytestmark = pytest.mark.seam

EXAMPLE = "....5.264..7..9..35..62....8......9.7..34..86.....2.3....9.....9.476........3...."
ANSWER = "389157264267489153541623978813576492792341586456892731635914827924768315178235649"


def test_solve_accepts_text_or_a_puzzle_and_reports_times():
    result = solve(EXAMPLE)
    assert result.status is Status.SOLVED
    assert "".join(map(str, result.solution)) == ANSWER
    assert result.backend == "native"  # the fastest engine by default
    assert result.time == result.build_time + result.solve_time
    assert result.build_time > 0 and result.solve_time > 0
    assert solve(parse_puzzle(EXAMPLE)).solution == result.solution
    assert result.unique is None  # limit=1 does not check uniqueness
    assert solve(EXAMPLE, limit=2).unique is True


def test_clashing_givens_are_an_invalid_result_naming_unit_and_cells():
    givens = list(EXAMPLE)
    givens[1] = "5"  # r1c2 = 5 clashes with r1c5 = 5
    result = solve("".join(givens))
    assert result.status is Status.INVALID
    assert result.message == "row 1: r1c2 and r1c5 are both 5; box 1: r1c2 and r3c1 are both 5"
    assert result.solutions == ()
    with pytest.raises(ValueError, match="invalid puzzle: row 1"):
        count("".join(givens))


def test_clash_lists_every_pair_in_unit_order():
    puzzle = Puzzle.from_grid([1, 1, 0, 0] + [0] * 12)
    assert [str(c) for c in puzzle.clashes()] == [
        "row 1: r1c1 and r1c2 are both 1",
        "box 1: r1c1 and r1c2 are both 1",
    ]


def test_is_solution_checks_rules_and_givens():
    puzzle = parse_puzzle(EXAMPLE)
    grid = tuple(int(c) for c in ANSWER)
    assert is_solution(puzzle, grid)
    swapped = list(grid)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    assert not is_solution(puzzle, swapped)  # breaks columns and a given
    assert not is_solution(puzzle, grid[:-1])
    assert not is_solution(puzzle, None)
    other = parse_puzzle("1" + "." * 80)
    assert not is_solution(other, grid)  # a valid grid that does not keep the given


def test_unknown_backend_and_option_are_clear_errors():
    with pytest.raises(ValueError, match="unknown backend 'cplex'"):
        solve(EXAMPLE, backend="cplex")
    with pytest.raises(ValueError, match="no option 'heuristic'"):
        solve(EXAMPLE, heuristic="mrv")
    with pytest.raises(ValueError, match="propagation='fast' is not one of"):
        solve(EXAMPLE, propagation="fast")


def test_native_and_native_py_agree():
    a = solve(EXAMPLE, backend="native", limit=2)
    b = solve(EXAMPLE, backend="native-py", limit=2)
    assert a.solutions == b.solutions
    assert {k: a.stats[k] for k in ("nodes", "guesses", "backtracks")} == {
        k: b.stats[k] for k in ("nodes", "guesses", "backtracks")
    }


def test_result_as_dict_is_flat():
    record = solve(EXAMPLE).as_dict()
    assert record["status"] == "solved" and record["nodes"] == 1
    assert set(record) >= {"backend", "count", "time", "guesses", "backtracks"}


def test_public_names_exist():
    for name in sudokulab.__all__:
        assert hasattr(sudokulab, name), name


def test_heavy_packages_are_imported_lazily():
    code = (
        "import sys, sudokulab; sudokulab.solve('.' * 16); "
        "print(sorted(m for m in ('ortools', 'constraint', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_missing_backend_package_is_an_error_naming_it(monkeypatch):
    backend = sudokulab.get_backend("cpsat")
    monkeypatch.setattr(type(backend), "available", lambda self: False)
    result = solve(EXAMPLE, "cpsat")
    assert result.status is Status.ERROR
    assert result.message == "backend 'cpsat' is not installed: pip install ortools"
