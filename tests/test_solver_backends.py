"""What only the CP-SAT and python-constraint backends promise (the contract is elsewhere)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from helpers import two_solution_grid

import sudokulab
from sudokulab import Puzzle, Status, build_model, is_solution, parse_puzzle, read_file
from sudokulab.backends.constraint import SOLVERS, ConstraintBackend
from sudokulab.backends.cpsat import CpSatBackend

SEEDS = Path(__file__).resolve().parent.parent / "data" / "seeds.csv"
HARD = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
CPSAT = CpSatBackend()
CONSTRAINT = ConstraintBackend()


@pytest.fixture(params=[CPSAT, CONSTRAINT], ids=lambda b: b.name)
def backend(request):
    return request.param


def test_available_and_versioned(backend):
    assert backend.available()
    assert backend.version()
    from sudokulab.models.rules import KINDS

    assert backend.kinds == {"alldifferent", "sum"} | set(KINDS)  # every variant rule
    assert backend.requires


def test_solution_verified_with_times(backend):
    puzzle = parse_puzzle(HARD)
    result = backend.solve(build_model(puzzle), limit=2)
    assert result.status is Status.SOLVED and result.unique is True
    assert is_solution(puzzle, result.solution)
    assert result.solution == sudokulab.solve(puzzle).solution
    assert result.build_time > 0 and result.solve_time > 0


def test_two_solutions_counted_exactly(backend):
    answer = read_file(SEEDS)[0].solution
    two = Puzzle.from_grid(two_solution_grid(answer))
    result = backend.solve(build_model(two), limit=5)
    assert (result.status, result.count, result.exact) == (Status.MULTIPLE, 2, True)
    assert len(set(result.solutions)) == 2
    assert all(is_solution(two, s) for s in result.solutions)


def test_empty_4x4_has_288_grids(backend):
    puzzle = parse_puzzle("." * 16)
    result = backend.solve(build_model(puzzle), limit=None)
    assert (result.count, result.exact) == (288, True)
    assert len(set(result.solutions)) == 288
    assert all(is_solution(puzzle, s) for s in result.solutions)
    stopped = backend.solve(build_model(puzzle), limit=10)
    assert (stopped.count, stopped.exact) == (10, False)


def test_options_are_validated(backend):
    model = build_model(parse_puzzle(HARD))
    with pytest.raises(ValueError, match="no option 'colour'"):
        backend.solve(model, colour="red")
    with pytest.raises(ValueError, match="limit must be at least 1"):
        backend.solve(model, limit=0)


def test_cpsat_reports_its_statistics():
    result = CPSAT.solve(build_model(parse_puzzle("." * 16)), limit=None)
    stats = result.stats
    assert stats["cpsat_status"] == "OPTIMAL"  # enumeration finished
    assert stats["workers"] == 1
    assert stats["branches"] > 0 and stats["conflicts"] >= 0
    stopped = CPSAT.solve(build_model(parse_puzzle("." * 16)), limit=3)
    assert stopped.stats["cpsat_status"] == "FEASIBLE"  # StopSearch at the limit


def test_cpsat_workers_and_seed():
    puzzle = parse_puzzle(HARD)
    result = CPSAT.solve(build_model(puzzle), workers=2, seed=7)
    assert result.status is Status.SOLVED and is_solution(puzzle, result.solution)
    assert result.stats["workers"] == 2 and result.stats["seed"] == 7
    # A count runs on one worker: CP-SAT's parallel enumeration misses solutions.
    counted = CPSAT.solve(build_model(parse_puzzle("." * 16)), limit=None, workers=2)
    assert (counted.count, counted.exact, counted.stats["workers"]) == (288, True, 1)
    assert CPSAT.solve(build_model(puzzle), workers="2").stats["workers"] == 2  # from a spec
    with pytest.raises(ValueError, match="workers='abc'"):
        CPSAT.solve(build_model(puzzle), workers="abc")
    with pytest.raises(ValueError, match="workers=0"):
        CPSAT.solve(build_model(puzzle), workers=0)


def test_cpsat_unsolvable_is_exact():
    stuck = Puzzle.from_grid(list(range(1, 9)) + [0] * 9 + [9] + [0] * 63)
    result = CPSAT.solve(build_model(stuck), limit=1)
    assert (result.status, result.count, result.exact) == (Status.UNSOLVABLE, 0, True)
    assert result.stats["cpsat_status"] == "INFEASIBLE"


def test_cpsat_timeout_is_its_own():
    # CP-SAT's own time limit stops it (a verdict: it cannot count every 25x25 grid).
    result = CPSAT.solve(build_model(parse_puzzle("." * 625)), limit=None, timeout=0.5)
    assert result.status is Status.TIMEOUT and not result.exact
    assert all(is_solution(Puzzle.from_grid([0] * 625), s) for s in result.solutions)


def test_cpsat_cached_template_keeps_puzzles_apart():
    # The same geometry's model is reused: a later puzzle must not see earlier givens.
    backend = CpSatBackend()
    for entry in read_file(SEEDS):
        result = backend.solve(build_model(entry.puzzle), limit=2)
        assert result.unique is True and result.solution == entry.solution
    empty = backend.solve(build_model(parse_puzzle("." * 81)), limit=2)
    assert empty.count == 2


def test_cpsat_threads_share_one_backend():
    # Each thread reuses its own CpModel, so concurrent solves do not mix givens.
    entries = read_file(SEEDS) * 4
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda e: CPSAT.solve(build_model(e.puzzle), limit=2), entries))
    assert [r.solution for r in results] == [e.solution for e in entries]
    assert all(r.unique for r in results)


def test_cpsat_non_interval_domain():
    # A domain with a hole (no puzzle builds one yet) must reach CP-SAT as it is.
    model = build_model(parse_puzzle("." * 16))
    domains = list(model.domains)
    domains[0] = (1, 3)
    domains[5] = (2, 4)
    narrowed = type(model)(model.puzzle, tuple(domains), model.constraints)
    result = CPSAT.solve(narrowed, limit=None)
    assert result.exact and 0 < result.count < 288
    assert all(s[0] in (1, 3) and s[5] in (2, 4) for s in result.solutions)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("forwardcheck", [True, False])
def test_constraint_every_solver_counts(solver, forwardcheck):
    result = CONSTRAINT.solve(
        build_model(parse_puzzle("1" + "." * 15)),
        limit=None,
        solver=solver,
        forwardcheck=forwardcheck,
    )
    assert (result.count, result.exact) == (72, True)
    assert result.stats == {"solver": solver, "forwardcheck": forwardcheck}


def test_constraint_default_solver_and_bad_choice():
    model = build_model(parse_puzzle(HARD))
    assert CONSTRAINT.solve(model).stats["solver"] == SOLVERS[0] == "backtracking"
    assert CONSTRAINT.stops_itself is False
    with pytest.raises(ValueError, match="solver='fast' is not one of"):
        CONSTRAINT.solve(model, solver="fast")


def test_constraint_checks_the_clock_between_solutions():
    # Stops after the first solution once the deadline has passed, keeping it.
    result = CONSTRAINT.solve(build_model(parse_puzzle("." * 81)), limit=None, timeout=1e-6)
    assert result.status is Status.TIMEOUT and result.count == 1 and not result.exact


def test_constraint_agrees_with_native_on_easy50(data_dir):
    entries = read_file(data_dir / "norvig-pytudes" / "sudoku-easy50.txt")[:10]
    for entry in entries:
        result = CONSTRAINT.solve(build_model(entry.puzzle), limit=2)
        assert result.status is Status.SOLVED and result.unique is True
        assert is_solution(entry.puzzle, result.solution)
        assert result.solution == sudokulab.solve(entry.puzzle).solution
