"""Variants: every rule is units or cages in one model, solved by every backend that takes it."""

from __future__ import annotations

import random

import pytest

import sudokulab
from sudokulab.backends import Status, all_backends, get_backend
from sudokulab.backends.base import admit
from sudokulab.bench.crosscheck import cross_check
from sudokulab.catalog import load
from sudokulab.generate import jigsaw_geometry, remove_clues, solved_grid
from sudokulab.logic.ladder import BY_NAME
from sudokulab.models import Puzzle, build_model, geometry, is_solution
from sudokulab.models.puzzle import Cage
from sudokulab.models.variants import (
    diagonal_units,
    extra_units,
    hyper_units,
    region_labels,
    variant_geometry,
    with_variant,
)

#: Cells at the centre of each 3x3 box: a ninth "centre dot" unit, a user's extra unit.
CENTRES = [[(3 * (b // 3) + 1) * 9 + 3 * (b % 3) + 1 for b in range(9)]]


#: Naked singles alone settle the puzzles made here (quick for every backend).
NAKED_SINGLES = (BY_NAME["naked single"],)


def _made(geom, seed: int) -> tuple[Puzzle, tuple[int, ...]]:
    """An easy puzzle with a unique solution in this geometry (quick for every backend)."""
    rng = random.Random(seed)
    solution = solved_grid(geom, rng)
    assert solution is not None
    return remove_clues(geom, solution, rng, NAKED_SINGLES), solution


def _variant_puzzles() -> dict[str, tuple[Puzzle, tuple[int, ...]]]:
    rng = random.Random(5)
    return {
        "x": _made(variant_geometry(9, x=True), 1),
        "hyper": _made(variant_geometry(9, hyper=True), 2),
        "jigsaw": _made(jigsaw_geometry(9, rng), 3),
        "extra-units": _made(variant_geometry(9, units=CENTRES), 4),
        "x-6x6": _made(variant_geometry(6, x=True), 6),
    }


VARIANTS = _variant_puzzles()


def _specs_for(puzzle: Puzzle) -> list[str]:
    kinds = build_model(puzzle).kinds
    # complete ones: the cross-checks below ask for uniqueness (local search: test_local)
    return [
        n for n, b in all_backends().items() if b.available() and b.complete and kinds <= b.kinds
    ]


@pytest.mark.parametrize("name", VARIANTS)
def test_every_backend_solves_each_variant_alike(name):
    puzzle, solution = VARIANTS[name]
    specs = _specs_for(puzzle)
    assert {"native", "native-py", "cpsat", "constraint"} <= set(specs)
    frame = cross_check([puzzle], specs, timeout=None, solutions=[solution])
    assert frame["ok"].all(), frame[["backend", "status", "message"]]
    assert set(frame["status"]) == {"solved"}  # limit 2: unique on every backend
    assert frame["verified"].all()


def test_every_shipped_variant_set_is_solved_by_the_backends_that_take_it():
    for name in ("gen-x", "gen-jigsaw", "gen-killer"):
        entries = load(name).entries[:1]  # one each: the cages' backends take two more below
        specs = _specs_for(entries[0].puzzle)
        frame = cross_check(entries, specs, timeout=None, solutions=[e.solution for e in entries])
        assert frame["ok"].all() and frame["verified"].all(), (name, frame)


def test_killer_is_solved_by_every_backend_alike():
    entries = load("gen-killer").entries[2:4]  # the first: the test above
    puzzle = entries[0].puzzle
    assert puzzle.cages and build_model(puzzle).kinds == {"alldifferent", "sum"}
    specs = _specs_for(puzzle)
    assert {"native", "native-py", "cpsat", "constraint"} <= set(specs)
    specs += [f"native:propagation={p}" for p in ("none", "forward", "singles")]
    frame = cross_check(entries, specs, timeout=None, solutions=[e.solution for e in entries])
    assert frame["ok"].all() and frame["verified"].all(), frame
    assert set(frame["status"]) == {"solved"}


def test_a_backend_without_the_sum_kind_refuses_cages():
    from sudokulab.backends import Backend

    class Plain(Backend):
        name = "plain"
        kinds = frozenset({"alldifferent"})

    model = build_model(load("gen-killer").entries[0].puzzle)
    with pytest.raises(ValueError, match="plain does not support sum constraints"):
        admit(Plain(), model)


def test_cpsat_keys_its_templates_on_the_cages():
    entry = load("gen-killer").entries[0]
    cpsat = get_backend("cpsat")
    puzzle = entry.puzzle
    first = cpsat.solve(build_model(puzzle), limit=2)
    assert first.status is Status.SOLVED and is_solution(puzzle, first.solution)
    # the same givens and cage cells, one total moved between two cages: other constraints
    a, b = puzzle.cages[0], puzzle.cages[1]
    moved = (Cage(a.cells, a.total + 1), Cage(b.cells, b.total - 1), *puzzle.cages[2:])
    other = Puzzle(puzzle.geometry, puzzle.givens, moved)
    second = cpsat.solve(build_model(other), limit=2)
    assert second.solution != first.solution
    assert second.solution is None or is_solution(other, second.solution)


def test_the_verifier_knows_every_kind():
    x_puzzle, x_solution = VARIANTS["x"]
    classics = [e for e in load("gen-classic-easy").entries]
    for name in ("x", "hyper", "jigsaw", "extra-units"):
        puzzle, solution = VARIANTS[name]
        assert is_solution(puzzle, solution)
        blank = Puzzle(puzzle.geometry, (0,) * 81)
        # a grid valid as classic Sudoku that breaks this variant's own units
        broken = [e.solution for e in classics if not is_solution(blank, e.solution)]
        assert broken, name
        assert is_solution(Puzzle(geometry(9), (0,) * 81), broken[0])
        assert not is_solution(blank, broken[0])
    # cages: the total, and distinct values within a cage
    cells = (0, 1)
    total = x_solution[0] + x_solution[1]
    assert is_solution(Puzzle(geometry(9), (0,) * 81, (Cage(cells, total),)), x_solution)
    assert not is_solution(Puzzle(geometry(9), (0,) * 81, (Cage(cells, total + 1),)), x_solution)
    same = next(c for c in range(9, 81) if x_solution[c] == x_solution[0])  # another unit
    doubled = Cage((0, same), 2 * x_solution[0])
    assert not is_solution(Puzzle(geometry(9), (0,) * 81, (doubled,)), x_solution)


def test_a_classic_puzzle_that_breaks_the_variant_is_invalid_or_unsolvable():
    g = variant_geometry(9, x=True)
    for entry in load("gen-classic-easy").entries:
        as_x = with_variant(entry.puzzle, ["x"])
        if as_x.clashes():
            clash = as_x.clashes()[0]
            assert clash.unit.kind == "diagonal"
            assert sudokulab.solve(as_x).status is Status.INVALID
        elif not is_solution(Puzzle(g, entry.puzzle.givens), entry.solution):
            frame = cross_check([as_x], _specs_for(as_x), timeout=None)
            assert set(frame["status"]) == {"unsolvable"}, frame
            return
    pytest.fail("every easy puzzle's solution is also an X solution: pick another set")


def test_hyper_is_9x9_only_and_regions_must_fit():
    assert len(hyper_units(9)) == 4
    with pytest.raises(ValueError, match="9x9"):
        hyper_units(4)
    with pytest.raises(ValueError, match="region 'C' has 3 cells"):
        variant_geometry(4, regions=["AABB", "AABB", "CCDD", "CDDD"])
    with pytest.raises(ValueError, match="region 'A' .* not contiguous"):
        variant_geometry(4, regions=["AABB", "ACBB", "CADD", "CCDD"])


def test_variant_units_are_named_and_counted():
    assert [u.cells for u in diagonal_units(4)] == [(0, 5, 10, 15), (3, 6, 9, 12)]
    g = variant_geometry(9, x=True, hyper=True, units=CENTRES)
    names = [u.name for u in g.units[27:]]
    assert names == [
        "diagonal 1", "diagonal 2", "window 1", "window 2", "window 3", "window 4", "unit 1",
    ]  # fmt: skip
    assert len(g.peers[10]) == 20 + 6 + 2 + 2  # r2c2: new peers on diagonal, window, dots
    assert extra_units(9, CENTRES)[0].cells == tuple(CENTRES[0])


def test_jigsaw_regions_replace_the_boxes_and_read_back():
    g = jigsaw_geometry(9, random.Random(1))
    kinds = [u.kind for u in g.units]
    assert kinds.count("region") == 9 and "box" not in kinds
    again = variant_geometry(9, regions=region_labels(g))
    assert again == g


def test_a_jigsaw_grid_is_drawn_without_box_lines():
    from sudokulab.classroom.narrative import candidates_grid
    from sudokulab.classroom.page import _regions
    from sudokulab.classroom.trace import State
    from sudokulab.models import format_grid, parse_puzzle

    g = jigsaw_geometry(9, random.Random(1))
    givens = tuple(range(1, 10)) + (0,) * 72
    text = format_grid(givens, g)
    assert "|" not in text and "-" not in text
    assert text.splitlines()[0] == "1 2 3 4 5 6 7 8 9" and len(text.splitlines()) == 9
    assert parse_puzzle(text).givens == givens  # still reads back
    grid = candidates_grid(g, State((511,) * 81, (0,) * 81))
    assert "|" not in grid and "-" not in grid
    # The page's thick lines follow the regions: each cell's region, or None for boxes.
    regions = _regions(g)
    assert sorted(set(regions)) == list(range(9))
    for k, unit in enumerate(u for u in g.units if u.kind == "region"):
        assert all(regions[c] == k for c in unit.cells)
    assert _regions(geometry(9)) is None
    assert "|" in format_grid(givens, geometry(9))
