"""Each technique of the logic solver (:mod:`sudokulab.logic`) on a candidate grid built for
it, and on a near miss where it must find nothing.

Every grid starts from an empty 9x9 board (all nine candidates everywhere) and sets the
candidates of a few cells by hand; the expected step, and above all the exact set of
``(cell, value)`` pairs it removes or places, is worked out from the pattern in the
docstring, never read back from the function. In the diagrams ``ab`` is a cell's
candidates, ``.`` a cell that lost the value the pattern is about, ``*`` a cell that must
lose it, and an unmarked cell keeps all nine candidates.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest

from sudokulab import read_file, solve
from sudokulab.logic import LADDER, Board, Step, shape_of
from sudokulab.logic.chains import simple_colouring, x_chain, xy_chain
from sudokulab.logic.fish import jellyfish, swordfish, x_wing
from sudokulab.logic.intersections import locked_candidates
from sudokulab.logic.ladder import apply
from sudokulab.logic.singles import hidden_single, naked_single
from sudokulab.logic.subsets import (
    hidden_pair,
    hidden_quad,
    hidden_triple,
    naked_pair,
    naked_quad,
    naked_triple,
)
from sudokulab.logic.wings import w_wing, xy_wing, xyz_wing
from sudokulab.models import Geometry, geometry
from sudokulab.models.variants import variant_geometry

GEOM = geometry(9)
ALL = range(1, 10)


# --- naming cells and units the way the classroom does -----------------------------------


def rc(r: int, c: int) -> int:
    """The cell at row ``r``, column ``c`` (both from 1)."""
    return (r - 1) * 9 + c - 1


def row(r: int) -> int:
    """The unit index of row ``r`` (units: 9 rows, 9 columns, 9 boxes)."""
    return r - 1


def col(c: int) -> int:
    return 9 + c - 1


def box(b: int) -> int:
    return 18 + b - 1


def mask(values: Iterable[int]) -> int:
    return sum(1 << (v - 1) for v in set(values))


def board_with(candidates: dict[int, Iterable[int]] | None = None, geom: Geometry = GEOM) -> Board:
    """An empty board whose listed cells hold just the given candidates (the rest all)."""
    board = Board(shape_of(geom), [0] * geom.cell_count)
    for cell, values in (candidates or {}).items():
        board.masks[cell] = mask(values)
    return board


def confine(board: Board, value: int, unit: int, keep: Iterable[int]) -> Board:
    """In ``unit``, ``value`` stays a candidate only in the cells ``keep``."""
    keep = set(keep)
    for cell in board.shape.units[unit]:
        if cell not in keep:
            board.remove(cell, value)
    return board


def drop(board: Board, value: int, cells: Iterable[int]) -> Board:
    """The cells lose ``value``."""
    for cell in cells:
        board.remove(cell, value)
    return board


def pairs(cells: Iterable[int], values: Iterable[int]) -> set[tuple[int, int]]:
    values = tuple(values)
    return {(c, v) for c in cells for v in values}


def assert_step(
    step: Step | None,
    technique: str,
    *,
    cells: tuple[int, ...],
    values: tuple[int, ...],
    removed: set[tuple[int, int]] = frozenset(),
    placed: tuple[tuple[int, int], ...] = (),
    units: tuple[int, ...] = (),
    cover: tuple[int, ...] = (),
    kind: str = "",
    links: tuple | None = None,
) -> None:
    """Every field of the step as expected; ``removed`` as a set without repeats."""
    assert step is not None, f"{technique} not found"
    assert step.technique == technique
    assert step.cells == cells
    assert step.values == values
    assert step.units == units
    assert step.cover == cover
    assert step.kind == kind
    assert step.placed == placed
    assert len(set(step.removed)) == len(step.removed), "a removal is listed twice"
    assert set(step.removed) == set(removed)
    if links is not None:
        assert step.links == links


def test_the_helpers_name_cells_and_units_as_the_geometry_does():
    assert GEOM.cell_name(rc(4, 7)) == "r4c7"
    for number in range(1, 10):
        assert GEOM.units[row(number)].name == f"row {number}"
        assert GEOM.units[col(number)].name == f"column {number}"
        assert GEOM.units[box(number)].name == f"box {number}"
    assert GEOM.units[box(5)].cells == tuple(rc(r, c) for r in (4, 5, 6) for c in (4, 5, 6))
    board = board_with({rc(1, 1): (2, 5)})
    assert board.masks[rc(1, 1)] == 0b10010 and board.masks[rc(1, 2)] == 0x1FF


# --- singles -------------------------------------------------------------------------------


class TestNakedSingle:
    @staticmethod
    def grid() -> Board:
        """r3c5 holds only 7, r6c2 only 4: the first row-major, r3c5, is taken."""
        return board_with({rc(3, 5): (7,), rc(6, 2): (4,)})

    def test_a_cell_with_one_candidate_takes_it(self):
        step = naked_single(self.grid())
        assert_step(step, "naked single", cells=(rc(3, 5),), values=(7,), placed=((rc(3, 5), 7),))

    def test_two_candidates_are_not_a_single(self):
        assert naked_single(board_with({rc(3, 5): (7, 8)})) is None

    def test_a_placed_cell_is_not_a_single(self):
        givens = [0] * 81
        givens[rc(3, 5)] = 7  # placed: its mask is one bit, but it is not open
        assert naked_single(Board(shape_of(GEOM), givens)) is None


class TestHiddenSingle:
    @staticmethod
    def grid() -> Board:
        """Box 5: 4 only at r5c5 (the other eight cells lost it)."""
        board = board_with()
        return confine(board, 4, box(5), [rc(5, 5)])

    def test_in_a_box(self):
        step = hidden_single(self.grid())
        assert_step(
            step,
            "hidden single",
            cells=(rc(5, 5),),
            values=(4,),
            units=(box(5),),
            placed=((rc(5, 5), 4),),
            kind="box",
        )

    def test_in_a_line(self):
        """Row 2: 4 only at r2c7; box 3 still has 4 in its other rows."""
        board = confine(board_with(), 4, row(2), [rc(2, 7)])
        step = hidden_single(board)
        assert_step(
            step,
            "hidden single",
            cells=(rc(2, 7),),
            values=(4,),
            units=(row(2),),
            placed=((rc(2, 7), 4),),
            kind="line",
        )

    def test_boxes_come_before_lines(self):
        """Row 1 has 3 only at r1c5 (unit 0), box 9 has 6 only at r9c9: the box is first."""
        board = confine(board_with(), 3, row(1), [rc(1, 5)])
        confine(board, 6, box(9), [rc(9, 9)])
        step = hidden_single(board)
        assert step is not None
        assert (step.cells, step.values, step.units, step.kind) == (
            (rc(9, 9),),
            (6,),
            (box(9),),
            "box",
        )

    def test_two_places_are_not_a_single(self):
        board = confine(board_with(), 4, box(5), [rc(5, 5), rc(6, 6)])
        assert hidden_single(board) is None


# --- locked candidates ---------------------------------------------------------------------


class TestLockedCandidates:
    @staticmethod
    def pointing_grid() -> Board:
        """Box 1 keeps 1 only in row 1 (rows 2 and 3 of the box lost it), so the rest of
        row 1 loses it::

            r1  1 1 1 | * * * | * * *
            r2  . . . |       |
            r3  . . . |       |
        """
        board = board_with()
        return drop(board, 1, [rc(r, c) for r in (2, 3) for c in (1, 2, 3)])

    @staticmethod
    def claiming_grid() -> Board:
        """Row 5 keeps 2 only in box 4 (c4..c9 of the row lost it), so the rest of box 4
        loses it::

            r4  * * * |       |
            r5  2 2 2 | . . . | . . .
            r6  * * * |       |
        """
        board = board_with()
        return confine(board, 2, row(5), [rc(5, c) for c in (1, 2, 3)])

    def test_pointing(self):
        step = locked_candidates(self.pointing_grid())
        assert_step(
            step,
            "locked candidates",
            cells=(rc(1, 1), rc(1, 2), rc(1, 3)),
            values=(1,),
            units=(box(1),),
            cover=(row(1),),
            removed=pairs([rc(1, c) for c in range(4, 10)], [1]),
            kind="pointing",
        )

    def test_claiming(self):
        step = locked_candidates(self.claiming_grid())
        assert_step(
            step,
            "locked candidates",
            cells=(rc(5, 1), rc(5, 2), rc(5, 3)),
            values=(2,),
            units=(row(5),),
            cover=(box(4),),
            removed=pairs([rc(r, c) for r in (4, 6) for c in (1, 2, 3)], [2]),
            kind="claiming",
        )

    def test_a_value_in_two_rows_and_three_columns_of_a_box_is_not_locked(self):
        """Box 1 keeps 1 in rows 1 and 2, in all three columns: nothing is confined."""
        board = drop(board_with(), 1, [rc(3, c) for c in (1, 2, 3)])
        assert locked_candidates(board) is None

    def test_nothing_is_locked_when_the_line_already_lost_the_value(self):
        """Box 1 confines 1 to row 1, but the rest of row 1 has no 1 left (and row 1 then
        confines it to box 1, whose other rows have none either)."""
        board = drop(self.pointing_grid(), 1, [rc(1, c) for c in range(4, 10)])
        assert locked_candidates(board) is None


# --- naked and hidden subsets --------------------------------------------------------------


class TestNakedSubsets:
    @staticmethod
    def pair_grid() -> Board:
        """Row 1: r1c1 and r1c5 hold only 1 and 2 (different boxes); the other seven cells
        of the row lose 1 and 2::

            r1  12 * * | * 12 * | * * *
        """
        return board_with({rc(1, 1): (1, 2), rc(1, 5): (1, 2)})

    @staticmethod
    def triple_grid() -> Board:
        """Row 2: 12, 23 and 13 at c1, c4, c8: three cells, three values, none with all."""
        return board_with({rc(2, 1): (1, 2), rc(2, 4): (2, 3), rc(2, 8): (1, 3)})

    @staticmethod
    def quad_grid() -> Board:
        """Row 3: 12, 23, 34 and 14 at c1, c4, c7, c9: four cells, four values."""
        return board_with({rc(3, 1): (1, 2), rc(3, 4): (2, 3), rc(3, 7): (3, 4), rc(3, 9): (1, 4)})

    def test_naked_pair(self):
        step = naked_pair(self.pair_grid())
        rest = [rc(1, c) for c in (2, 3, 4, 6, 7, 8, 9)]
        assert_step(
            step,
            "naked pair",
            cells=(rc(1, 1), rc(1, 5)),
            values=(1, 2),
            units=(row(1),),
            removed=pairs(rest, (1, 2)),
        )

    def test_naked_triple(self):
        step = naked_triple(self.triple_grid())
        rest = [rc(2, c) for c in (2, 3, 5, 6, 7, 9)]
        assert_step(
            step,
            "naked triple",
            cells=(rc(2, 1), rc(2, 4), rc(2, 8)),
            values=(1, 2, 3),
            units=(row(2),),
            removed=pairs(rest, (1, 2, 3)),
        )

    def test_naked_quad(self):
        step = naked_quad(self.quad_grid())
        rest = [rc(3, c) for c in (2, 3, 5, 6, 8)]
        assert_step(
            step,
            "naked quad",
            cells=(rc(3, 1), rc(3, 4), rc(3, 7), rc(3, 9)),
            values=(1, 2, 3, 4),
            units=(row(3),),
            removed=pairs(rest, (1, 2, 3, 4)),
        )

    def test_a_pair_whose_second_cell_holds_three_values_is_no_pair(self):
        assert naked_pair(board_with({rc(1, 1): (1, 2), rc(1, 5): (1, 2, 3)})) is None

    def test_a_pair_with_nothing_left_to_remove(self):
        board = confine(self.pair_grid(), 1, row(1), [rc(1, 1), rc(1, 5)])
        confine(board, 2, row(1), [rc(1, 1), rc(1, 5)])
        assert naked_pair(board) is None

    def test_three_cells_holding_four_values_are_no_triple(self):
        board = board_with({rc(2, 1): (1, 2), rc(2, 4): (2, 3), rc(2, 8): (1, 4)})
        assert naked_triple(board) is None

    def test_four_cells_holding_five_values_are_no_quad(self):
        board = board_with({rc(3, 1): (1, 2), rc(3, 4): (2, 3), rc(3, 7): (3, 4), rc(3, 9): (1, 5)})
        assert naked_quad(board) is None


class TestHiddenSubsets:
    @staticmethod
    def pair_grid() -> Board:
        """Row 4: 1 and 2 fit only in r4c2 and r4c8 (both still hold all nine), so those
        two cells lose 3..9 (``.`` lost 1 and 2)::

            r4  . 123456789 . | . . . | . 123456789 .
        """
        board = board_with()
        for v in (1, 2):
            confine(board, v, row(4), [rc(4, 2), rc(4, 8)])
        return board

    @staticmethod
    def triple_grid() -> Board:
        """Row 5: 1 fits in c1, c5; 2 in c5, c9; 3 in c9, c1 (no two of them in two cells)."""
        board = board_with()
        for v, cols in ((1, (1, 5)), (2, (5, 9)), (3, (9, 1))):
            confine(board, v, row(5), [rc(5, c) for c in cols])
        return board

    @staticmethod
    def quad_grid() -> Board:
        """Row 6: 1 in c2, c4; 2 in c4, c6; 3 in c6, c8; 4 in c8, c2."""
        board = board_with()
        for v, cols in ((1, (2, 4)), (2, (4, 6)), (3, (6, 8)), (4, (8, 2))):
            confine(board, v, row(6), [rc(6, c) for c in cols])
        return board

    def test_hidden_pair(self):
        step = hidden_pair(self.pair_grid())
        assert_step(
            step,
            "hidden pair",
            cells=(rc(4, 2), rc(4, 8)),
            values=(1, 2),
            units=(row(4),),
            removed=pairs([rc(4, 2), rc(4, 8)], range(3, 10)),
        )

    def test_hidden_triple(self):
        step = hidden_triple(self.triple_grid())
        assert_step(
            step,
            "hidden triple",
            cells=(rc(5, 1), rc(5, 5), rc(5, 9)),
            values=(1, 2, 3),
            units=(row(5),),
            removed=pairs([rc(5, 1), rc(5, 5), rc(5, 9)], range(4, 10)),
        )

    def test_hidden_quad(self):
        step = hidden_quad(self.quad_grid())
        assert_step(
            step,
            "hidden quad",
            cells=(rc(6, 2), rc(6, 4), rc(6, 6), rc(6, 8)),
            values=(1, 2, 3, 4),
            units=(row(6),),
            removed=pairs([rc(6, c) for c in (2, 4, 6, 8)], range(5, 10)),
        )

    def test_two_values_over_three_cells_are_no_hidden_pair(self):
        board = confine(board_with(), 1, row(4), [rc(4, 2), rc(4, 8)])
        confine(board, 2, row(4), [rc(4, 2), rc(4, 5)])
        assert hidden_pair(board) is None

    def test_three_values_over_four_cells_are_no_hidden_triple(self):
        board = self.triple_grid()
        board.masks[rc(5, 3)] |= mask([3])  # 3 fits in c3 too
        assert hidden_triple(board) is None

    def test_four_values_over_five_cells_are_no_hidden_quad(self):
        board = self.quad_grid()
        board.masks[rc(6, 5)] |= mask([1])  # 1 fits in c5 too
        assert hidden_quad(board) is None


# --- fish ----------------------------------------------------------------------------------


def rows_confined(value: int, spots: dict[int, Iterable[int]]) -> Board:
    """Row r keeps ``value`` only in the columns ``spots[r]``."""
    board = board_with()
    for r, cols in spots.items():
        confine(board, value, row(r), [rc(r, c) for c in cols])
    return board


def columns_confined(value: int, spots: dict[int, Iterable[int]]) -> Board:
    """Column c keeps ``value`` only in the rows ``spots[c]``."""
    board = board_with()
    for c, rows in spots.items():
        confine(board, value, col(c), [rc(r, c) for r in rows])
    return board


def outside(lines: Iterable[int], within: Iterable[int], by_row: bool) -> list[int]:
    """The cells of the cover lines (columns when ``by_row``) outside the base lines."""
    within = set(within)
    return [
        rc(x, line) if by_row else rc(line, x)
        for line in lines
        for x in range(1, 10)
        if x not in within
    ]


class TestFish:
    @staticmethod
    def x_wing_rows() -> Board:
        """5 in rows 2 and 6 only at c3 and c7; the rest of columns 3 and 7 loses it
        (rows 1, 3..5, 7..9 as r1)::

                c1 c2 c3 c4 c5 c6 c7 c8 c9
            r1           *           *
            r2  .  .  5  .  .  .  5  .  .
            r6  .  .  5  .  .  .  5  .  .
        """
        return rows_confined(5, {2: (3, 7), 6: (3, 7)})

    @staticmethod
    def x_wing_columns() -> Board:
        """5 in columns 2 and 8 only at r3 and r8; the rest of rows 3 and 8 loses it."""
        return columns_confined(5, {2: (3, 8), 8: (3, 8)})

    @staticmethod
    def swordfish_rows() -> Board:
        """6 in rows 1, 5, 9 only at c1 c4 / c4 c8 / c1 c8 (two spots each)."""
        return rows_confined(6, {1: (1, 4), 5: (4, 8), 9: (1, 8)})

    @staticmethod
    def swordfish_columns() -> Board:
        """6 in columns 2, 5, 9 only at r2 r6 / r6 r9 / r2 r9."""
        return columns_confined(6, {2: (2, 6), 5: (6, 9), 9: (2, 9)})

    @staticmethod
    def jellyfish_rows() -> Board:
        """7 in rows 1, 3, 5, 7 only at c1 c3 / c3 c5 / c5 c7 / c7 c1."""
        return rows_confined(7, {1: (1, 3), 3: (3, 5), 5: (5, 7), 7: (7, 1)})

    @staticmethod
    def jellyfish_columns() -> Board:
        """7 in columns 2, 4, 6, 8 only at r2 r4 / r4 r6 / r6 r8 / r8 r2."""
        return columns_confined(7, {2: (2, 4), 4: (4, 6), 6: (6, 8), 8: (8, 2)})

    def test_x_wing_on_rows(self):
        step = x_wing(self.x_wing_rows())
        assert_step(
            step,
            "X-wing",
            cells=(rc(2, 3), rc(2, 7), rc(6, 3), rc(6, 7)),
            values=(5,),
            units=(row(2), row(6)),
            cover=(col(3), col(7)),
            removed=pairs(outside((3, 7), (2, 6), by_row=True), [5]),
        )

    def test_x_wing_on_columns(self):
        step = x_wing(self.x_wing_columns())
        assert_step(
            step,
            "X-wing",
            cells=(rc(3, 2), rc(8, 2), rc(3, 8), rc(8, 8)),
            values=(5,),
            units=(col(2), col(8)),
            cover=(row(3), row(8)),
            removed=pairs(outside((3, 8), (2, 8), by_row=False), [5]),
        )

    def test_swordfish_on_rows(self):
        step = swordfish(self.swordfish_rows())
        assert_step(
            step,
            "swordfish",
            cells=(rc(1, 1), rc(1, 4), rc(5, 4), rc(5, 8), rc(9, 1), rc(9, 8)),
            values=(6,),
            units=(row(1), row(5), row(9)),
            cover=(col(1), col(4), col(8)),
            removed=pairs(outside((1, 4, 8), (1, 5, 9), by_row=True), [6]),
        )

    def test_swordfish_on_columns(self):
        step = swordfish(self.swordfish_columns())
        assert_step(
            step,
            "swordfish",
            cells=(rc(2, 2), rc(6, 2), rc(6, 5), rc(9, 5), rc(2, 9), rc(9, 9)),
            values=(6,),
            units=(col(2), col(5), col(9)),
            cover=(row(2), row(6), row(9)),
            removed=pairs(outside((2, 6, 9), (2, 5, 9), by_row=False), [6]),
        )

    def test_jellyfish_on_rows(self):
        step = jellyfish(self.jellyfish_rows())
        assert_step(
            step,
            "jellyfish",
            cells=tuple(
                rc(r, c)
                for r, cs in ((1, (1, 3)), (3, (3, 5)), (5, (5, 7)), (7, (1, 7)))
                for c in cs
            ),
            values=(7,),
            units=(row(1), row(3), row(5), row(7)),
            cover=(col(1), col(3), col(5), col(7)),
            removed=pairs(outside((1, 3, 5, 7), (1, 3, 5, 7), by_row=True), [7]),
        )

    def test_jellyfish_on_columns(self):
        step = jellyfish(self.jellyfish_columns())
        assert_step(
            step,
            "jellyfish",
            cells=tuple(
                rc(r, c)
                for c, rs in ((2, (2, 4)), (4, (4, 6)), (6, (6, 8)), (8, (2, 8)))
                for r in rs
            ),
            values=(7,),
            units=(col(2), col(4), col(6), col(8)),
            cover=(row(2), row(4), row(6), row(8)),
            removed=pairs(outside((2, 4, 6, 8), (2, 4, 6, 8), by_row=False), [7]),
        )

    def test_an_x_wing_with_a_third_column_is_none(self):
        assert x_wing(rows_confined(5, {2: (3, 7), 6: (3, 7, 9)})) is None

    def test_a_swordfish_over_four_columns_is_none(self):
        assert swordfish(rows_confined(6, {1: (1, 4), 5: (4, 8), 9: (1, 8, 9)})) is None

    def test_a_jellyfish_over_five_columns_is_none(self):
        board = rows_confined(7, {1: (1, 3), 3: (3, 5), 5: (5, 7), 7: (7, 9)})
        assert jellyfish(board) is None

    def test_an_x_wing_with_nothing_to_remove_is_none(self):
        """Columns 3 and 7 hold 5 only in rows 2 and 6 already: the fish is there, idle."""
        board = rows_confined(5, {2: (3, 7), 6: (3, 7)})
        for c in (3, 7):
            confine(board, 5, col(c), [rc(2, c), rc(6, c)])
        assert x_wing(board) is None


# --- wings ---------------------------------------------------------------------------------


class TestXYWing:
    @staticmethod
    def grid() -> Board:
        """Pivot r1c1 (12), pincers r1c5 (13) and r5c1 (23): whatever the pivot is, one
        pincer is 3, so r5c5, seeing both pincers, loses 3::

                c1 c2 c3 c4 c5
            r1  12          13
            r5  23          *
        """
        return board_with({rc(1, 1): (1, 2), rc(1, 5): (1, 3), rc(5, 1): (2, 3)})

    def test_the_cell_seeing_both_pincers_loses_z(self):
        step = xy_wing(self.grid())
        assert_step(
            step,
            "XY-wing",
            cells=(rc(1, 1), rc(1, 5), rc(5, 1)),
            values=(3,),
            removed={(rc(5, 5), 3)},
        )

    def test_pincers_without_a_common_z_are_no_wing(self):
        board = board_with({rc(1, 1): (1, 2), rc(1, 5): (1, 3), rc(5, 1): (2, 4)})
        assert xy_wing(board) is None

    def test_pincers_sharing_the_same_pivot_value_are_no_wing(self):
        """r1c5 (13) and r5c1 (13) both meet the pivot on 1: if the pivot is 2, neither
        pincer is forced."""
        board = board_with({rc(1, 1): (1, 2), rc(1, 5): (1, 3), rc(5, 1): (1, 3)})
        assert xy_wing(board) is None


class TestXYZWing:
    @staticmethod
    def grid() -> Board:
        """Pivot r1c1 (123), pincers r1c5 (13) and r2c2 (23): one of the three is 3, so
        r1c2 and r1c3 (row 1 and box 1) lose 3::

                c1  c2  c3  c4  c5
            r1  123 *   *       13
            r2      23
        """
        return board_with({rc(1, 1): (1, 2, 3), rc(1, 5): (1, 3), rc(2, 2): (2, 3)})

    def test_cells_seeing_all_three_lose_z(self):
        step = xyz_wing(self.grid())
        assert_step(
            step,
            "XYZ-wing",
            cells=(rc(1, 1), rc(1, 5), rc(2, 2)),
            values=(3,),
            removed={(rc(1, 2), 3), (rc(1, 3), 3)},
        )

    def test_a_pincer_outside_the_pivots_values_is_no_wing(self):
        board = board_with({rc(1, 1): (1, 2, 3), rc(1, 5): (1, 3), rc(2, 2): (2, 4)})
        assert xyz_wing(board) is None

    def test_no_cell_sees_all_three(self):
        """Pincers r1c5 (13) and r5c1 (23): only the pivot itself sees both."""
        board = board_with({rc(1, 1): (1, 2, 3), rc(1, 5): (1, 3), rc(5, 1): (2, 3)})
        assert xyz_wing(board) is None


class TestWWing:
    @staticmethod
    def grid() -> Board:
        """r1c1 and r5c9 hold only 1 and 2; row 9 holds 1 only at r9c1 (seeing r1c1) and
        r9c9 (seeing r5c9). One of r1c1, r5c9 is 2: r1c9 and r5c1 lose 2::

                c1                c9
            r1  12                *
            r5  *                 12
            r9  1   . . . . . . . 1
        """
        board = board_with({rc(1, 1): (1, 2), rc(5, 9): (1, 2)})
        return confine(board, 1, row(9), [rc(9, 1), rc(9, 9)])

    def test_cells_seeing_both_twins_lose_y(self):
        step = w_wing(self.grid())
        assert_step(
            step,
            "W-wing",
            cells=(rc(1, 1), rc(5, 9), rc(9, 1), rc(9, 9)),
            values=(2, 1),
            units=(row(9),),
            removed={(rc(1, 9), 2), (rc(5, 1), 2)},
        )

    def test_a_link_whose_end_sees_neither_twin_is_no_wing(self):
        """Row 9 holds 1 at r9c1 and r9c8: r9c8 sees neither r1c1 nor r5c9."""
        board = board_with({rc(1, 1): (1, 2), rc(5, 9): (1, 2)})
        confine(board, 1, row(9), [rc(9, 1), rc(9, 8)])
        assert w_wing(board) is None

    def test_twins_with_different_values_are_no_wing(self):
        board = board_with({rc(1, 1): (1, 2), rc(5, 9): (1, 3)})
        confine(board, 1, row(9), [rc(9, 1), rc(9, 9)])
        assert w_wing(board) is None


# --- colouring and chains ------------------------------------------------------------------


class TestSimpleColouring:
    @staticmethod
    def trap_grid() -> Board:
        """Strong links on 4: row 1 (r1c1 = r1c6), column 6 (r1c6 = r5c6), row 5 (r5c6 =
        r5c3). Colours: r1c1, r5c6 one way, r1c6, r5c3 the other. r2c3 and r3c3 (box 1
        with r1c1, column 3 with r5c3) and r4c1, r6c1 (column 1, box 4) see both::

                c1 c2 c3 c4 c5 c6
            r1  A  .  .  .  .  B
            r2        *        .
            r3        *        .
            r4  *              .
            r5  .  .  D  .  .  C    (the rest of rows 1, 5 and column 6 lost 4)
            r6  *              .
        """
        board = board_with()
        confine(board, 4, row(1), [rc(1, 1), rc(1, 6)])
        confine(board, 4, col(6), [rc(1, 6), rc(5, 6)])
        return confine(board, 4, row(5), [rc(5, 3), rc(5, 6)])

    @staticmethod
    def wrap_grid() -> Board:
        """Strong links on 4: r1c1 = r1c5 (row 1) = r7c5 (column 5) = r7c2 (row 7) = r2c2
        (column 2). r1c1, r7c5 and r2c2 share a colour, and r1c1, r2c2 both lie in box 1:
        that colour is false, its three cells lose 4::

                c1 c2 c3 c4 c5
            r1  A  .  .  .  B
            r2     E        .
            r7  .  D  .  .  C    (the rest of rows 1, 7 and columns 2, 5 lost 4)
        """
        board = board_with()
        confine(board, 4, row(1), [rc(1, 1), rc(1, 5)])
        confine(board, 4, col(5), [rc(1, 5), rc(7, 5)])
        confine(board, 4, row(7), [rc(7, 5), rc(7, 2)])
        return confine(board, 4, col(2), [rc(7, 2), rc(2, 2)])

    def test_trap(self):
        step = simple_colouring(self.trap_grid())
        a, b, c, d = rc(1, 1), rc(1, 6), rc(5, 6), rc(5, 3)
        assert_step(
            step,
            "simple colouring",
            cells=tuple(sorted((a, b, c, d))),
            values=(4,),
            removed=pairs([rc(2, 3), rc(3, 3), rc(4, 1), rc(6, 1)], [4]),
            kind="trap",
        )
        colour = dict(zip(step.cells, step.links, strict=True))
        assert set(colour.values()) == {0, 1}
        assert colour[a] == colour[c] != colour[b] == colour[d]

    def test_wrap(self):
        step = simple_colouring(self.wrap_grid())
        a, b, c, d, e = rc(1, 1), rc(1, 5), rc(7, 5), rc(7, 2), rc(2, 2)
        assert_step(
            step,
            "simple colouring",
            cells=tuple(sorted((a, b, c, d, e))),
            values=(4,),
            removed=pairs([a, c, e], [4]),
            kind="wrap",
        )
        colour = dict(zip(step.cells, step.links, strict=True))
        assert colour[a] == colour[c] == colour[e] != colour[b] == colour[d]

    def test_no_cell_sees_both_colours(self):
        """The trap grid with the four trapped cells already rid of 4."""
        board = drop(self.trap_grid(), 4, [rc(2, 3), rc(3, 3), rc(4, 1), rc(6, 1)])
        assert simple_colouring(board) is None


class TestXChain:
    @staticmethod
    def grid() -> Board:
        """On 3: r1c2 = r1c8 (row 1) - r3c9 (box 3) = r8c9 (column 9). One end holds 3,
        so r8c2 (column 2, row 8) loses it::

                c2            c8  c9
            r1  A   . . . . . B   .
            r3                    C
            r8  *                 D    (the rest of row 1 and column 9 lost 3)
        """
        board = board_with()
        confine(board, 3, row(1), [rc(1, 2), rc(1, 8)])
        return confine(board, 3, col(9), [rc(3, 9), rc(8, 9)])

    def test_the_cell_seeing_both_ends_loses_the_value(self):
        step = x_chain(self.grid())
        assert_step(
            step,
            "X-chain",
            cells=(rc(1, 2), rc(1, 8), rc(3, 9), rc(8, 9)),
            values=(3,),
            removed={(rc(8, 2), 3)},
            links=("=", "-", "="),
        )

    def test_ends_that_see_nothing_are_no_chain(self):
        board = drop(self.grid(), 3, [rc(8, 2)])
        assert x_chain(board) is None

    def test_a_chain_ending_on_a_weak_link_is_none(self):
        """Column 9 keeps 3 in three cells: r3c9 has no strong partner to end on."""
        board = board_with()
        confine(board, 3, row(1), [rc(1, 2), rc(1, 8)])
        confine(board, 3, col(9), [rc(3, 9), rc(5, 9), rc(8, 9)])
        assert x_chain(board) is None


class TestXYChain:
    @staticmethod
    def grid() -> Board:
        """r1c1 (12) - r1c7 (23) - r6c7 (34) - r6c2 (41): if r1c1 is not 1 it is 2, r1c7
        is 3, r6c7 is 4 and r6c2 is 1. Cells seeing r1c1 and r6c2 lose 1::

                c1  c2          c7
            r1  12  *           23
            r2      *
            r3      *
            r4  *
            r5  *
            r6  *   41          34
        """
        return board_with({rc(1, 1): (1, 2), rc(1, 7): (2, 3), rc(6, 7): (3, 4), rc(6, 2): (1, 4)})

    def test_cells_seeing_both_ends_lose_z(self):
        step = xy_chain(self.grid())
        seeing = [rc(1, 2), rc(2, 2), rc(3, 2), rc(4, 1), rc(5, 1), rc(6, 1)]
        assert_step(
            step,
            "XY-chain",
            cells=(rc(1, 1), rc(1, 7), rc(6, 7), rc(6, 2)),
            values=(1, 2, 3, 4, 1),
            removed=pairs(seeing, [1]),
        )

    def test_a_chain_not_ending_on_z_is_none(self):
        board = board_with({rc(1, 1): (1, 2), rc(1, 7): (2, 3), rc(6, 7): (3, 4), rc(6, 2): (4, 5)})
        assert xy_chain(board) is None

    def test_ends_that_see_nothing_are_no_chain(self):
        seeing = [rc(1, 2), rc(2, 2), rc(3, 2), rc(4, 1), rc(5, 1), rc(6, 1)]
        assert xy_chain(drop(self.grid(), 1, seeing)) is None


# --- other geometries ----------------------------------------------------------------------

#: Jigsaw regions: A and B trade cells, so A reaches r1c4 and B reaches r3c3.
JIGSAW = (
    "AAAABBCCC",
    "AAABBBCCC",
    "AABBBBCCC",
    "DDDEEEFFF",
    "DDDEEEFFF",
    "DDDEEEFFF",
    "GGGHHHIII",
    "GGGHHHIII",
    "GGGHHHIII",
)


class TestOtherGeometries:
    jigsaw = variant_geometry(9, regions=JIGSAW)
    diagonals = variant_geometry(9, x=True)

    def test_the_jigsaw_regions_are_where_the_labels_say(self):
        region_a, region_b = self.jigsaw.units[18], self.jigsaw.units[19]
        assert region_a.kind == "region" and region_b.kind == "region"
        a = [rc(1, c) for c in (1, 2, 3, 4)] + [rc(2, c) for c in (1, 2, 3)] + [rc(3, 1), rc(3, 2)]
        assert sorted(region_a.cells) == sorted(a)
        assert rc(3, 3) in region_b.cells and rc(1, 4) not in region_b.cells

    def test_pointing_from_a_jigsaw_region_to_a_row(self):
        """Region A keeps 1 only in row 1 (r1c1..r1c4): r1c5..r1c9 lose it. With classic
        boxes the same candidates lock nothing (box 1 still has 1 at r3c3)."""
        lose_elsewhere = [rc(2, 1), rc(2, 2), rc(2, 3), rc(3, 1), rc(3, 2)]
        board = drop(board_with(geom=self.jigsaw), 1, lose_elsewhere)
        step = locked_candidates(board)
        assert_step(
            step,
            "locked candidates",
            cells=(rc(1, 1), rc(1, 2), rc(1, 3), rc(1, 4)),
            values=(1,),
            units=(18,),
            cover=(row(1),),
            removed=pairs([rc(1, c) for c in range(5, 10)], [1]),
            kind="pointing",
        )
        assert locked_candidates(drop(board_with(), 1, lose_elsewhere)) is None

    def test_claiming_from_a_row_to_a_jigsaw_region(self):
        """Row 3 keeps 2 only at r3c3..r3c6, all in region B: B's other cells lose it."""
        board = board_with(geom=self.jigsaw)
        confine(board, 2, row(3), [rc(3, c) for c in (3, 4, 5, 6)])
        step = locked_candidates(board)
        assert_step(
            step,
            "locked candidates",
            cells=(rc(3, 3), rc(3, 4), rc(3, 5), rc(3, 6)),
            values=(2,),
            units=(row(3),),
            cover=(19,),
            removed=pairs([rc(1, 5), rc(1, 6), rc(2, 4), rc(2, 5), rc(2, 6)], [2]),
            kind="claiming",
        )

    def test_fish_on_a_diagonal_geometry_use_rows_and_columns(self):
        board = Board(shape_of(self.diagonals), [0] * 81)
        for r in (2, 6):
            confine(board, 5, row(r), [rc(r, 3), rc(r, 7)])
        step = x_wing(board)
        assert_step(
            step,
            "X-wing",
            cells=(rc(2, 3), rc(2, 7), rc(6, 3), rc(6, 7)),
            values=(5,),
            units=(row(2), row(6)),
            cover=(col(3), col(7)),
            removed=pairs(outside((3, 7), (2, 6), by_row=True), [5]),
        )

    def test_fish_do_not_take_diagonals_as_base_lines(self):
        """Diagonal 1 keeps 7 only at r1c1 and r9c9, diagonal 2 only at r1c9 and r9c1: a
        fish on the diagonals would clear 7 from the rest of rows 1 and 9, but fish are
        rows and columns only, and no row or column holds 7 in fewer than seven cells."""
        board = Board(shape_of(self.diagonals), [0] * 81)
        diagonal_1, diagonal_2 = 27, 28
        assert [u.name for u in self.diagonals.units[27:]] == ["diagonal 1", "diagonal 2"]
        confine(board, 7, diagonal_1, [rc(1, 1), rc(9, 9)])
        confine(board, 7, diagonal_2, [rc(1, 9), rc(9, 1)])
        assert x_wing(board) is None
        assert swordfish(board) is None
        assert jellyfish(board) is None


# --- soundness -----------------------------------------------------------------------------

#: Each technique with the grids built for it above.
POSITIVE: list[tuple[Callable[[Board], Step | None], Callable[[], Board]]] = [
    (naked_single, TestNakedSingle.grid),
    (hidden_single, TestHiddenSingle.grid),
    (locked_candidates, TestLockedCandidates.pointing_grid),
    (locked_candidates, TestLockedCandidates.claiming_grid),
    (naked_pair, TestNakedSubsets.pair_grid),
    (naked_triple, TestNakedSubsets.triple_grid),
    (naked_quad, TestNakedSubsets.quad_grid),
    (hidden_pair, TestHiddenSubsets.pair_grid),
    (hidden_triple, TestHiddenSubsets.triple_grid),
    (hidden_quad, TestHiddenSubsets.quad_grid),
    (x_wing, TestFish.x_wing_rows),
    (x_wing, TestFish.x_wing_columns),
    (swordfish, TestFish.swordfish_rows),
    (swordfish, TestFish.swordfish_columns),
    (jellyfish, TestFish.jellyfish_rows),
    (jellyfish, TestFish.jellyfish_columns),
    (xy_wing, TestXYWing.grid),
    (xyz_wing, TestXYZWing.grid),
    (w_wing, TestWWing.grid),
    (simple_colouring, TestSimpleColouring.trap_grid),
    (simple_colouring, TestSimpleColouring.wrap_grid),
    (x_chain, TestXChain.grid),
    (xy_chain, TestXYChain.grid),
]


def assert_only_candidates(board: Board, step: Step) -> None:
    """A step removes and places only candidates the board has."""
    for cell, value in step.removed:
        assert board.has(cell, value), (step.technique, GEOM.cell_name(cell), value)
    for cell, value in step.placed:
        assert board.has(cell, value), (step.technique, GEOM.cell_name(cell), value)


@pytest.mark.parametrize(
    "find, grid", POSITIVE, ids=[f"{f.__name__}-{g.__qualname__}" for f, g in POSITIVE]
)
def test_steps_remove_only_candidates_the_board_has(find, grid):
    """On every constructed grid, the technique built for it and every rung of the ladder
    remove (and place) only candidates the board holds, and leave the board unchanged."""
    board = grid()
    before = board.masks[:]
    step = find(board)
    assert step is not None and (step.removed or step.placed)
    assert_only_candidates(board, step)
    for technique in LADDER:
        other = technique.find(board)
        if other is not None:
            assert other.removed or other.placed, technique.name
            assert_only_candidates(board, other)
    assert board.masks == before, "finding a step changed the board"


def test_steps_on_hard_puzzles_remove_only_candidates_and_never_the_answer(data_dir):
    """Along the ladder's walk through hard puzzles, every technique that applies at each
    state removes only candidates the board has, never a value of the solution, and
    places only the solution's values."""
    entries = read_file(data_dir / "norvig-pytudes" / "sudoku-top95.txt")[:20]
    seen = set()
    for entry in entries:
        puzzle = entry.puzzle
        answer = solve(puzzle, "native").solution
        board = Board(shape_of(puzzle.geometry), puzzle.givens)
        while board.open:
            first = None
            for technique in LADDER:
                step = technique.find(board)
                if step is None:
                    continue
                seen.add(step.technique)
                assert_only_candidates(board, step)
                assert all(answer[c] != v for c, v in step.removed), step
                assert all(answer[c] == v for c, v in step.placed), step
                first = first or step
            if first is None:
                break
            apply(board, first)
    assert {"hidden single", "locked candidates", "naked pair", "X-wing"} <= seen
