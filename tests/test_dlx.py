"""The `dlx` backend: the exact-cover matrix, secondary columns, the refusal of killer
cages, its counters, and Algorithm X's answers against brute force."""

from __future__ import annotations

import itertools

import pytest

from sudokulab import Puzzle, build_model, is_solution, parse_puzzle, solve
from sudokulab.backends import dlx, get_backend
from sudokulab.catalog import load
from sudokulab.models.model import AllDifferent

SEED_PUZZLE = "....5.264..7..9..35..62....8......9.7..34..86.....2.3....9.....9.476........3...."


def all_4x4() -> list[tuple[int, ...]]:
    """Every 4x4 grid, by brute force over rows (no solver involved)."""
    perms = list(itertools.permutations(range(1, 5)))
    grids = []
    for rows in itertools.product(perms, repeat=4):
        grid = tuple(v for row in rows for v in row)
        if is_solution(Puzzle.from_grid([0] * 16), grid):
            grids.append(grid)
    return grids


def test_the_matrix_of_a_classic_grid():
    m = dlx.matrix(81, 9, tuple(c.cells for c in build_model(parse_puzzle("." * 81)).constraints))
    # a row per (cell, value); a column per cell and per (unit, value); four ones a row
    assert (len(m.rows), m.columns, m.primary) == (729, 324, 324)
    assert len(m.left) - m.columns - 1 == 729 * 4
    assert sum(m.size[1:]) == 729 * 4 and set(m.size[1:]) == {9}


def test_counts_and_grids_agree_with_brute_force():
    grids = all_4x4()
    assert len(grids) == 288
    result = solve("." * 16, "dlx", limit=None)
    assert result.exact and sorted(result.solutions) == sorted(grids)
    one = solve("1..." + "." * 12, "dlx", limit=None)
    assert sorted(one.solutions) == sorted(g for g in grids if g[0] == 1)


def test_a_unit_of_fewer_cells_is_a_secondary_column():
    # r1c1 and r4c4 share no unit; an extra AllDifferent of those two cells is "at most
    # once" per value: secondary columns, never branched on.
    model = build_model(parse_puzzle("." * 16))
    extra = AllDifferent((0, 15), "extra")
    model = type(model)(model.puzzle, model.domains, (*model.constraints, extra))
    result = get_backend("dlx").solve(model, limit=None)
    want = sorted(g for g in all_4x4() if g[0] != g[15])
    assert result.exact and sorted(result.solutions) == want
    line = get_backend("dlx").describe(model)
    assert ", 4 secondary)" in line


def test_killer_cages_are_refused_with_the_reason():
    puzzle = load("gen-killer").entries[0].puzzle
    result = solve(puzzle, "dlx")
    assert result.status == "error"
    assert "killer cages are not exact cover" in result.message
    with pytest.raises(ValueError, match="a sum is no covering condition"):
        get_backend("dlx").solve(build_model(puzzle))


def test_stats_and_describe():
    result = solve(SEED_PUZZLE, "dlx", limit=2)
    stats = result.stats
    assert (stats["rows"], stats["columns"], stats["ones"]) == (729, 324, 2916)
    assert stats["nodes"] >= 56 and stats["updates"] > stats["nodes"]  # 56 open cells
    assert get_backend("dlx").describe(build_model(parse_puzzle(SEED_PUZZLE))) == (
        "dlx: exact cover of 729 rows (cell, value) by 324 columns (81 cells, 243 "
        "unit-values), 2916 ones; 25 rows chosen by the givens"
    )
    # a puzzle its givens alone solve: no row tried, one solution, exact
    answer = result.solution
    full = solve("".join(map(str, answer)), "dlx", limit=2)
    assert (full.count, full.exact, full.stats["nodes"]) == (1, True, 0)
