"""The public API: solve, count, is_solution, results and errors."""

from __future__ import annotations

import subprocess
import sys

import pytest
from helpers import fake_backends

import sudokulab
from sudokulab import Puzzle, Status, count, fault, is_solution, parse_puzzle, solve
from sudokulab.api import solve_grids
from sudokulab.models import Cage

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


@pytest.fixture
def wrong(monkeypatch):
    """The ``wrong`` backend: every puzzle "solved" with a grid of ones."""
    yield from fake_backends(monkeypatch, "WrongBackend")


#: What the API says of the ``wrong`` backend's grid on EXAMPLE (its first given: r1c5 5).
WRONG = "wrong gave a solution that breaks the rules or the givens: r1c5 holds 1 but its given is 5"


@pytest.mark.parametrize("isolate", [False, True])
def test_a_solution_that_fails_verification_is_an_error_naming_its_fault(wrong, isolate):
    result = solve(EXAMPLE, "wrong", isolate=isolate)
    assert result.status is Status.ERROR and not result.exact
    assert result.message == WRONG
    assert result.solution == (1,) * 81  # kept, for a caller to show
    assert solve(EXAMPLE).status is Status.SOLVED  # the right answer passes


def test_a_block_verifies_every_row_as_one_puzzle_does(wrong):
    from sudokulab.backends.result import ERROR, SOLVED
    from sudokulab.models.grids import Grids

    grids = Grids.of([parse_puzzle(EXAMPLE)] * 3)
    for isolate in (False, True):
        answers = solve_grids(grids, "wrong", isolate=isolate)
        assert answers.status.tolist() == [ERROR] * 3 and answers.verified.tolist() == [False] * 3
        assert answers.messages == dict.fromkeys(range(3), WRONG) and not answers.exact.any()
        assert answers.result(0).status is solve(EXAMPLE, "wrong").status
    for backend in ("native", "native-py"):  # one engine call for the block
        answers = solve_grids(grids, backend)
        assert answers.status.tolist() == [SOLVED] * 3 and answers.verified.all()


def test_fault_names_the_first_cell_at_fault_and_what_it_breaks():
    puzzle = parse_puzzle(EXAMPLE)
    grid = tuple(int(c) for c in ANSWER)
    assert fault(puzzle, grid) == ""
    swapped = list(grid)
    swapped[0], swapped[1] = swapped[1], swapped[0]  # two blanks: a column breaks
    assert fault(puzzle, swapped) == "r1c1 and r4c1 both hold 8 (column 1)"
    assert fault(puzzle, grid[:-1]) == "the grid has 80 cells, not 81"
    assert fault(puzzle, (0,) + grid[1:]) == "r1c1 is empty"
    assert fault(puzzle, (10,) + grid[1:]) == "r1c1 holds 10, not a value of 1..9"
    blank = Puzzle.from_grid([0] * 16)
    caged = Puzzle(blank.geometry, blank.givens, (Cage((0, 1), 3), Cage((2, 3), 6)))
    assert fault(caged, [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1]) == (
        "cage 2 (from r1c3) adds up to 7, not 6"
    )
