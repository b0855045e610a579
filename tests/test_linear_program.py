"""The 0-1 program (encodings/linear.py) that mip, highs, gurobi and the LP, MPS and OPB
exports take: at a filled grid's 0-1 point its rows hold exactly when the grid keeps the
puzzle, for every kind; rows counted by the constraint that made them."""

from __future__ import annotations

import pytest
from test_variant_kinds import CASES, all_4x4, case

from sudokulab.encodings.linear import program
from sudokulab.models import Puzzle, build_model, is_solution
from sudokulab.models.rules import Sandwich


def rows_hold(prog, grid) -> bool:
    """Whether every row holds at the 0-1 point of ``grid`` (no auxiliary column)."""
    assert None not in prog.columns
    return holds_at(prog, [float(grid[cell] == value) for cell, value in prog.columns])


def holds_at(prog, point: list[float]) -> bool:
    """Whether every row holds at a point (one value per column)."""
    for row in prog.rows:
        total = sum(a * point[i] for i, a in zip(row.columns, row.coefs, strict=True))
        if not row.lower - 1e-9 <= total <= row.upper + 1e-9:
            return False
    return True


@pytest.mark.parametrize("kind", sorted(CASES))
def test_the_rows_keep_exactly_the_grids_the_rules_keep(kind):
    puzzle = case(kind)
    prog = program(build_model(puzzle))
    kept = [g for g in all_4x4() if rows_hold(prog, g)]
    assert kept == [g for g in all_4x4() if is_solution(puzzle, g)]
    assert 0 < len(kept) < len(all_4x4())  # the rule is there: some grids go, some stay


def test_rows_are_counted_by_the_constraint_that_made_them():
    puzzle = case("sandwich")
    model = build_model(puzzle)
    prog = program(model)
    assert [c for c, _ in prog.spans] == list(model.constraints)
    assert sum(n for _, n in prog.spans) == len(prog.rows) - len(model.domains)
    counts = prog.kinds
    assert counts["one value per cell"] == 16 and counts["each value once per unit"] == 12 * 4
    # a sandwich's line is a row or a column: its values' rows are the unit's, made once
    start = len(model.domains)
    for constraint, count in prog.spans:
        labels = prog.labels[start : start + count]
        start += count
        if isinstance(constraint, Sandwich):
            assert count and not any(label.startswith("v") for label in labels)
    assert counts["variant rules"] == sum(n for c, n in prog.spans if isinstance(c, Sandwich))
    assert len({(r.lower, r.upper, r.columns, r.coefs) for r in prog.rows}) == len(prog.rows)


def test_a_parity_cell_has_no_column_for_the_other_parity():
    prog = program(build_model(case("parity")))
    assert (0, 2) not in prog.columns and (0, 1) in prog.columns  # r1c1 is odd
    assert (5, 1) not in prog.columns and (5, 2) in prog.columns  # r2c2 is even


def test_an_empty_9x9_is_the_classrooms_729_columns_and_324_rows():
    prog = program(build_model(Puzzle.from_grid([0] * 81)))
    assert (len(prog.columns), len(prog.rows), prog.fixed) == (729, 324, [])
    assert prog.summary() == (
        "729 binary x(cell, value) (0 fixed to 1 by a given), 324 linear rows "
        "(81 one value per cell, 243 each value once per unit)"
    )


def test_a_table_of_three_cells_selects_one_allowed_tuple():
    # no kind makes one today: a new kind's decomposition may (one auxiliary column each)
    from itertools import product

    from sudokulab.encodings import Table
    from sudokulab.encodings.linear import Program, _translate

    allowed = frozenset({(1, 2, 3), (2, 3, 1), (3, 3, 3)})
    prog = Program()
    for cell in range(3):
        prog.x.append({})
        for value in (1, 2, 3):
            prog.x[cell][value] = len(prog.columns)
            prog.columns.append((cell, value))
    _translate(prog, Table((0, 1, 2), allowed), 3, None)
    aux = [i for i, pair in enumerate(prog.columns) if pair is None]
    assert len(aux) == len(allowed)
    for values in product((1, 2, 3), repeat=3):
        cells = [float(prog.columns[i] == (i // 3, values[i // 3])) for i in range(9)]
        fits = []
        for chosen in aux:
            point = cells + [float(i == chosen) for i in aux]
            fits.append(holds_at(prog, point))
        assert any(fits) == (values in allowed)
