"""Geometry invariants: cells, units and peers, computed once and checked here."""

from __future__ import annotations

import pytest

from sudokulab.models import SIZES, Puzzle, Unit, build_model, geometry


@pytest.mark.parametrize("size", SIZES)
def test_counts_follow_from_the_size(size):
    g = geometry(size)
    box_rows, box_cols = g.box_rows, g.box_cols
    assert box_rows * box_cols == size
    assert g.cell_count == size * size
    assert len(g.units) == 3 * size
    assert [u.kind for u in g.units].count("box") == size
    # A cell's peers: its row and column (2(n-1)) plus the rest of its box.
    expected_peers = 2 * (size - 1) + (size - box_rows - box_cols + 1)
    assert {len(p) for p in g.peers} == {expected_peers}
    assert all(len(units) == 3 for units in g.units_of)


def test_classic_9x9_numbers():
    g = geometry(9)
    assert (g.cell_count, len(g.units), len(g.peers[0])) == (81, 27, 20)
    assert (len(geometry(4).peers[0]), len(geometry(16).peers[0])) == (7, 39)
    assert (len(geometry(4).units), len(geometry(16).units)) == (12, 48)


def test_exact_units_and_peers_of_r3c5():
    g = geometry(9)
    cell = 2 * 9 + 4  # r3c5
    assert g.cell_name(cell) == "r3c5"
    names = sorted(g.units[i].name for i in g.units_of[cell])
    assert names == ["box 2", "column 5", "row 3"]
    peer_names = {g.cell_name(p) for p in g.peers[cell]}
    row = {f"r3c{c}" for c in range(1, 10)}
    col = {f"r{r}c5" for r in range(1, 10)}
    box = {f"r{r}c{c}" for r in (1, 2, 3) for c in (4, 5, 6)}
    assert peer_names == (row | col | box) - {"r3c5"}


def test_boxes_of_6x6_are_two_rows_by_three_columns():
    g = geometry(6)
    box1 = next(u for u in g.units if u.name == "box 1")
    assert [g.cell_name(c) for c in box1.cells] == ["r1c1", "r1c2", "r1c3", "r2c1", "r2c2", "r2c3"]
    assert g.box(6 * 5 + 5) == 5


def test_geometry_is_cached_and_immutable():
    assert geometry(9) is geometry(9)
    with pytest.raises(AttributeError):
        geometry(9).size = 4  # type: ignore[misc]
    assert isinstance(geometry(9).units, tuple)


def test_unsupported_size_is_a_clear_error():
    with pytest.raises(ValueError, match="unsupported size 10"):
        geometry(10)


def test_extra_units_make_a_variant_without_touching_the_classic_one():
    g = geometry(9)
    diagonal = Unit("diagonal", 1, tuple(i * 10 for i in range(9)))
    x = g.with_units([diagonal])
    assert len(x.units) == 28 and len(g.units) == 27
    assert len(x.peers[0]) == 20 + 6  # r1c1 gains the diagonal cells outside its box
    assert x != g and x == g.with_units([diagonal])
    model = build_model(Puzzle(x, (0,) * 81))
    assert len(model.constraints) == 28
    assert model.constraints[-1].cells == diagonal.cells


def test_bad_extra_unit_is_rejected():
    with pytest.raises(ValueError, match="9 distinct cells"):
        geometry(9).with_units([Unit("region", 1, (0, 1, 2))])


def test_model_has_a_variable_per_cell_and_alldifferent_per_unit():
    givens = [0] * 81
    givens[0] = 5
    model = build_model(Puzzle(geometry(9), tuple(givens)))
    assert len(model.variables) == 81
    assert model.domains[0] == (5,)
    assert model.domains[1] == tuple(range(1, 10))
    assert model.kinds == {"alldifferent"}
    assert sorted(c.name for c in model.constraints)[:2] == ["box 1", "box 2"]
    assert len(model.constraints) == 27
