"""The `mip` backend: every solver OR-Tools bundles, the root LP relaxation, its counters
and what it builds."""

from __future__ import annotations

import pytest

from sudokulab import Puzzle, build_model, is_solution, parse_puzzle, read_file, solve
from sudokulab.backends import get_backend, mip, parse_spec
from sudokulab.catalog import load

pytest.importorskip("ortools")

SEED_PUZZLE = "....5.264..7..9..35..62....8......9.7..34..86.....2.3....9.....9.476........3...."
SEED_ANSWER = "389157264267489153541623978813576492792341586456892731635914827924768315178235649"


@pytest.mark.parametrize("solver", mip.SOLVERS)
def test_every_solver_solves_counts_and_stops_at_the_deadline(solver, capfd):
    result = solve(SEED_PUZZLE, "mip", limit=2, solver=solver)
    assert (result.status, result.count, result.exact) == ("solved", 1, True)
    assert "".join(map(str, result.solution)) == SEED_ANSWER
    assert result.stats["solver"] == solver
    # r1c1, r1c2 = 1, 2 on a 4x4: a twelfth of the 288 grids, each cut off once found
    # (CBC takes minutes for all 288: its re-solves grow with the cuts)
    some = solve("12" + "." * 14, "mip", limit=None, solver=solver)
    assert (some.count, some.exact) == (24, True) and len(set(some.solutions)) == 24
    # A verdict, not a time: CBC once said "unsolvable" here, stopped by its time limit.
    counted = solve("." * 256, "mip", limit=None, timeout=1.0, solver=solver)
    assert counted.status == "timeout" and not counted.exact
    assert all(is_solution(Puzzle.from_grid([0] * 256), s) for s in counted.solutions)
    assert capfd.readouterr().out == ""  # no solver banner on standard output


def test_the_root_lp_relaxation_is_reported_and_checked(data_dir):
    # Checked independently: the LP relaxation solved here, then every x near 0 or 1.
    from ortools.linear_solver import pywraplp

    seen = set()
    for entry in read_file(data_dir / "norvig-pytudes" / "sudoku-top95.txt")[:30]:
        model = build_model(entry.puzzle)
        result = get_backend("mip").solve(model, root_lp=True)
        lp = pywraplp.Solver.CreateSolver("GLOP")
        x = {}
        for c, domain in enumerate(model.domains):
            for v in domain:
                x[c, v] = lp.NumVar(1 if len(domain) == 1 else 0, 1, "")
            lp.Add(sum(x[c, v] for v in domain) == 1)
        for unit in model.constraints:
            for v in range(1, 10):
                lp.Add(sum(x[c, v] for c in unit.cells if (c, v) in x) == 1)
        assert lp.Solve() == lp.OPTIMAL
        integral = all(
            min(var.solution_value(), 1 - var.solution_value()) < 1e-6 for var in x.values()
        )
        assert result.stats["root_lp_integral"] is integral
        seen.add(integral)
    assert seen == {True, False}  # some of top95 relax to an integral point, some do not
    assert "root_lp_integral" not in solve(SEED_PUZZLE, "mip").stats  # asked for only


def test_stats_and_options():
    result = solve(SEED_PUZZLE, "mip")
    stats = result.stats
    # x(cell, value) for each value a cell's domain allows: 25 givens, 56 open cells
    assert stats["variables"] == 25 + 56 * 9 and stats["constraints"] == 81 + 27 * 9
    assert stats["nodes"] >= 0 and stats["iterations"] >= 0
    with pytest.raises(ValueError, match="solver='gurobi' is not one of"):
        parse_spec("mip:solver=gurobi")
    backend = get_backend("mip")
    assert backend.available() and backend.stops_itself and backend.requires == "ortools"


def test_describe_counts_what_is_built():
    backend = get_backend("mip")
    empty = build_model(Puzzle.from_grid([0] * 81))
    assert backend.describe(empty) == (
        "mip: 729 binary x(cell, value) (0 fixed to 1 by a given), 324 linear constraints "
        "(81 one value per cell, 243 each value once per unit); solver scip, no objective"
    )
    killer = build_model(load("gen-killer").entries[0].puzzle)
    cages = sum(1 for c in killer.constraints if c.kind == "sum")
    assert f", {cages * 9 + cages} cage); " in backend.describe(killer)  # distinct rows, sums


def test_a_cage_no_values_can_fill_is_unsolvable():
    from sudokulab.models import geometry
    from sudokulab.models.puzzle import Cage

    puzzle = Puzzle(geometry(4), (0,) * 16, (Cage((0, 1), 100),))
    result = get_backend("mip").solve(build_model(puzzle), limit=2)
    assert (result.status, result.exact) == ("unsolvable", True)
    assert solve(parse_puzzle("12" + "." * 14), "mip", limit=None).count == 288 // 12
