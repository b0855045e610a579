"""Locked candidates (propagation ``locked``): the rule on constructed grids, its soundness
on whole sets, and what it saves; the compiled core's identity with the reference is in
the identity tests (they run every propagation)."""

from __future__ import annotations

import random

import pytest

from sudokulab import read_file, solve
from sudokulab.classroom.trace import Locked, Recorder, trace_puzzle
from sudokulab.models import geometry, parse_puzzle
from sudokulab.native import reference

GEOM = geometry(9)
UNITS = tuple(u.cells for u in GEOM.units)


def unit(kind: str, number: int) -> int:
    return next(i for i, u in enumerate(GEOM.units) if (u.kind, u.number) == (kind, number))


def cell(r: int, c: int) -> int:
    return (r - 1) * 9 + c - 1


def one_pass(masks: list[int]) -> tuple[list[int], list[Locked], bool]:
    """One pass of the rule over ``masks`` (nothing placed): the masks after it, the
    removals it reports, and whether it found a contradiction."""
    recorder = Recorder(None)
    engine = reference.Engine(9, UNITS, "locked", "mrv", trace=recorder)
    masks = masks[:]
    ok = engine._locked_candidates(masks, bytearray(81), [], set(), set())
    return masks, [e for e in recorder.events if isinstance(e, Locked)], not ok


def test_pointing_a_box_confines_a_value_to_one_row():
    masks = [0x1FF] * 81
    for r in (2, 3):  # in box 1, value 1 only in row 1
        for c in (1, 2, 3):
            masks[cell(r, c)] &= ~1
    after, found, dead = one_pass(masks)
    assert not dead
    assert [(e.unit, e.other, e.value) for e in found] == [(unit("box", 1), unit("row", 1), 1)]
    assert found[0].cells == tuple(cell(1, c) for c in range(4, 10))
    assert [c for c in range(81) if after[c] != masks[c]] == list(found[0].cells)
    assert all(after[c] == masks[c] & ~1 for c in found[0].cells)


def test_claiming_a_line_confines_a_value_to_one_box():
    masks = [0x1FF] * 81
    for c in range(4, 10):  # in row 5, value 2 only in box 4 (r5c1..r5c3)
        masks[cell(5, c)] &= ~2
    after, found, _ = one_pass(masks)
    assert [(e.unit, e.other, e.value) for e in found] == [(unit("row", 5), unit("box", 4), 2)]
    assert set(found[0].cells) == {cell(r, c) for r in (4, 6) for c in (1, 2, 3)}
    assert all(after[c] == 0x1FF & ~2 for c in found[0].cells)


def test_nothing_is_locked_where_no_value_is_confined():
    masks = [0x1FF] * 81
    masks[cell(1, 1)] &= ~1  # box 1 keeps 1 in two rows and two columns
    masks[cell(2, 2)] &= ~1
    after, found, dead = one_pass(masks)
    assert after == masks and not found and not dead


def test_a_locked_value_emptying_a_cell_is_a_contradiction():
    masks = [0x1FF] * 81
    for r in (2, 3):
        for c in (1, 2, 3):
            masks[cell(r, c)] &= ~1
    masks[cell(1, 9)] = 1  # r1c9 can only be 1, which box 1 keeps in row 1
    _, _, dead = one_pass(masks)
    assert dead


def test_explain_names_pointing_and_claiming():
    # A 17-clue puzzle that needs guesses with hidden singles and none with locked.
    puzzle = parse_puzzle(
        "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    )
    hidden, locked = trace_puzzle(puzzle, "hidden"), trace_puzzle(puzzle, "locked")
    assert hidden.summary.guesses > 0 and locked.summary.guesses == 0
    assert locked.summary.locked_candidates == sum(isinstance(e, Locked) for e in locked.events)
    assert locked.solutions == hidden.solutions


@pytest.fixture(scope="module")
def hard_sets(data_dir):
    top95 = read_file(data_dir / "norvig-pytudes" / "sudoku-top95.txt")
    seventeen = read_file(data_dir / "norvig-pytudes" / "sudokus_17.txt")
    return [e.puzzle for e in top95] + [e.puzzle for e in random.Random(7).sample(seventeen, 300)]


def test_the_root_never_loses_a_solution_value(hard_sets):
    # Before any guess every state holds the solution: no rule may remove its value.
    for puzzle in hard_sets:
        answer = solve(puzzle, "native").solution
        recorder = Recorder(None)
        engine = reference.Engine(9, UNITS, "locked", "mrv", trace=recorder)
        engine.search(puzzle.givens, limit=1, max_guesses=0)
        for event in recorder.events:
            if event.depth > 0 or not isinstance(event, Locked):
                continue
            assert all(answer[c] != event.value for c in event.cells), (puzzle, event)


def test_locked_guesses_less_than_hidden_and_agrees(hard_sets):
    hidden = locked = 0
    for puzzle in hard_sets:
        a = solve(puzzle, "native", limit=2, propagation="hidden")
        b = solve(puzzle, "native", limit=2, propagation="locked")
        assert (a.solutions, a.count, a.exact) == (b.solutions, b.count, b.exact)
        hidden += a.stats["guesses"]
        locked += b.stats["guesses"]
    # A stronger fixpoint can branch elsewhere (MRV), so one puzzle may take more
    # guesses; over the sets it takes far fewer.
    assert locked < hidden / 2
