"""The three readers give every rule the same meaning: each kind, and every published
puzzle, read as a puzzle document, as f-puzzles JSON and (where SudokuPad draws the kind)
as a SudokuPad link is the same puzzle; and the readings where they once differed from
the community's (docs/guides/variants.md names the source of each).

The clues of the hand-made cases are read off published solutions, which each reading
must keep: the UK Sudoku Championship 2022 thermometer puzzle's, the WSC 2022 6x6
thermometer puzzle's, and the Miracle Sudoku's (Mitchell Lee's, two givens)."""

from __future__ import annotations

import json

import pytest
from helpers import UNMAPPED, as_fpuzzles, as_sudokupad, fgrid, same_puzzle, scl_link
from test_public_variants import PUZZLES

from sudokulab.models import is_solution, read_text
from sudokulab.models.documents import read_documents
from sudokulab.models.fpuzzles import encode
from sudokulab.models.rules import neighbour_pairs

GRID = PUZZLES["uksc2022-thermo"]["solution"]
GRID6 = PUZZLES["wsc2022-thermo-6x6"]["solution"]
MIRACLE = "483726159726159483159483726837261594261594837594837261372615948615948372948372615"


def doc9(**fields) -> dict:
    """An empty 9x9 document whose clues the published grid keeps (the reader checks)."""
    return {"size": 9, "givens": "." * 81, "solution": GRID, **fields}


def every_dot(solution: str, n: int, black: bool = True) -> list[dict]:
    """Every kropki dot a solved grid has (a 1-2 pair gets the black one, as drawn), or
    with ``black`` false every white one (a consecutive sudoku's)."""
    dots = []
    for a, b in neighbour_pairs(n):
        x, y = int(solution[a]), int(solution[b])
        dot = "black" if black and 2 in (x / y, y / x) else None
        dot = dot or ("white" if abs(x - y) == 1 else None)
        if dot:
            cells = [f"r{c // n + 1}c{c % n + 1}" for c in (a, b)]
            dots.append({"cells": cells, "dot": dot})
    return dots


#: One document per kind (``sudokupad``: whether SudokuPad draws it).
CASES = {
    "thermometers": (doc9(thermometers=[["r1c7", "r1c6", "r1c5"]]), True),
    "slow thermometers": (doc9(slow_thermometers=[["r2c6", "r2c7", "r2c8"]]), False),
    "arrows": (
        doc9(
            arrows=[
                {"circle": ["r1c3"], "shaft": ["r2c3", "r3c3"]},
                {"circle": ["r5c7"], "shaft": ["r5c8", "r5c9"]},
            ]
        ),
        True,
    ),
    "kropki (a black dot on a 1-2 pair)": (
        doc9(
            kropki=[
                {"cells": ["r1c1", "r1c2"], "dot": "white"},
                {"cells": ["r1c5", "r1c6"], "dot": "black"},
                {"cells": ["r1c6", "r1c7"], "dot": "black"},
            ]
        ),
        True,
    ),
    "kropki, every dot given": (doc9(kropki=every_dot(GRID, 9), kropki_negative=True), True),
    "xv": (
        doc9(xv=[{"cells": ["r1c8", "r1c9"], "sum": 10}, {"cells": ["r3c3", "r4c3"], "sum": 5}]),
        True,
    ),
    "whispers": (doc9(whispers=[["r3c1", "r3c2", "r3c3", "r3c4"]]), False),
    "whispers 6x6": (
        {"size": 6, "givens": "." * 36, "solution": GRID6, "whispers": [["r1c1", "r2c1"]]},
        False,
    ),
    "renban": (doc9(renban=[["r1c3", "r1c4", "r1c5"]]), False),
    "entropic lines": (doc9(entropic_lines=[["r1c1", "r2c1", "r2c2", "r3c2", "r3c3"]]), False),
    "region-sum line coming back into a box": (
        doc9(region_sum_lines=[["r2c2", "r2c3", "r3c4", "r3c3", "r3c2"]]),
        False,
    ),
    "odd and even": (doc9(odd=["r1c1"], even=["r1c2"]), True),
    "sandwiches": (
        doc9(sandwiches=[{"row": 1, "sum": 25}, {"column": 1, "sum": 3}]),
        False,
    ),
    "little killers": (
        doc9(
            little_killers=[
                {"cells": [f"r{i}c{i + 1}" for i in range(1, 9)], "sum": 52},
                {"cells": ["r9c1"], "sum": 8},
            ]
        ),
        True,
    ),
    "killer cages, one without a sum": (
        doc9(cages=[{"cells": ["r1c1", "r1c2"], "sum": 17}, {"cells": ["r3c3", "r4c4"]}]),
        True,
    ),
    "diagonals": ({"size": 4, "x": True, "givens": "1..............."}, True),
    "jigsaw": (
        {"size": 4, "givens": "." * 16, "regions": ["AAAB", "ACBB", "CCDB", "CDDD"]},
        True,
    ),
    "anti-knight, anti-king, nonconsecutive": (
        {
            "size": 9,
            "givens": "." * 38 + "1" + "." * 12 + "2" + "." * 29,
            "solution": MIRACLE,
            "anti_knight": True,
            "anti_king": True,
            "nonconsecutive": True,
        },
        True,
    ),
    "nonconsecutive beside white dots": (
        doc9(kropki=every_dot(GRID, 9, black=False), nonconsecutive=True),
        True,
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_each_kind_reads_the_same_as_a_document_fpuzzles_and_sudokupad(name):
    doc, drawn = CASES[name]
    (document,) = read_documents(json.dumps(doc))
    fdoc = as_fpuzzles(doc)
    (fpuzzles,) = read_text(encode(fdoc))
    same_puzzle(fpuzzles.puzzle, document.puzzle)
    assert document.puzzle.rules or document.puzzle.cages or name in ("diagonals", "jigsaw")
    assert fpuzzles.solution == document.solution
    if drawn:
        (pad,) = read_text(scl_link(as_sudokupad(fdoc)))
        same_puzzle(pad.puzzle, document.puzzle)
        if document.solution is not None:
            assert is_solution(pad.puzzle, document.solution)


@pytest.mark.parametrize("name", sorted(PUZZLES))
def test_every_published_puzzle_reads_the_same_as_fpuzzles_and_sudokupad(name):
    """Each published puzzle of test_public_variants, as f-puzzles JSON (and as SudokuPad
    draws it, where it draws every kind the puzzle has): the same rules, the published
    solution kept."""
    doc = PUZZLES[name]
    (document,) = read_documents(json.dumps(doc))
    solution = document.solution
    assert solution is not None and is_solution(document.puzzle, solution)
    if UNMAPPED & set(doc):
        pytest.skip(f"f-puzzles has no key for {sorted(UNMAPPED & set(doc))}")
    fdoc = as_fpuzzles(doc)
    (fpuzzles,) = read_text(encode(fdoc))
    same_puzzle(fpuzzles.puzzle, document.puzzle)
    assert fpuzzles.solution == solution
    if not UNDRAWN & set(doc):
        (pad,) = read_text(scl_link(as_sudokupad(fdoc)))
        same_puzzle(pad.puzzle, document.puzzle)
        assert is_solution(pad.puzzle, solution)


#: Document fields SudokuPad draws only as lines or numbers whose meaning its rules text
#: states: sudokulab refuses them there (see docs/guides/variants.md).
UNDRAWN = {"slow_thermometers", "whispers", "renban", "region_sum_lines", "sandwiches"}
UNDRAWN |= {"entropic_lines"}


def test_the_cases_cover_every_field_of_a_document_f_puzzles_has_a_key_for():
    used = {key for doc, _ in CASES.values() for key in doc}
    fields = {"thermometers", "slow_thermometers", "arrows", "kropki", "kropki_negative", "xv"}
    fields |= {"whispers", "renban", "region_sum_lines", "odd", "even", "sandwiches"}
    fields |= {"entropic_lines"}
    fields |= {"little_killers", "cages", "x", "regions", "anti_knight", "anti_king"}
    assert fields | {"nonconsecutive"} <= used


# --- the readings that once differed --------------------------------------------------------


def fpuzzles(n: int = 9, **keys):
    (entry,) = read_text(encode({"size": n, "grid": fgrid(n), **keys}))
    return entry.puzzle


def test_a_pill_reads_in_reading_order_however_its_cells_are_listed():
    """A circle of several cells is a number read left to right or top to bottom, as the
    rule texts say; f-puzzles lists a pill's cells in the order they were selected."""
    shaft = ["R1C1", "R2C1", "R3C1"]
    for circle in (["R1C2", "R1C3"], ["R1C3", "R1C2"]):
        (arrow,) = fpuzzles(arrow=[{"cells": circle, "lines": [[circle[0], *shaft[1:]]]}]).rules
        assert (arrow.targets, arrow.digits) == ((1, 2), True)
    doc = {"givens": "." * 81, "arrows": [{"circle": ["r1c3", "r1c2"], "shaft": ["r2c1"]}]}
    (arrow,) = read_documents(json.dumps(doc))[0].puzzle.rules
    assert arrow.targets == (1, 2)


def test_whispers_default_to_half_the_size_rounded_up():
    """f-puzzles' German whispers: 5 on 9x9, "(size / 2) rounded up" on other sizes."""
    line = {"lines": [["R1C1", "R1C2"]]}
    assert {r.k for r in fpuzzles(9, whispers=[line]).rules} == {5}
    assert {r.k for r in fpuzzles(6, whispers=[line]).rules} == {3}
    assert {r.k for r in fpuzzles(4, whispers=[line | {"value": "1"}]).rules} == {1}
    doc = {"size": 6, "givens": "." * 36, "whispers": [["r1c1", "r1c2"]]}
    assert {r.k for r in read_documents(json.dumps(doc))[0].puzzle.rules} == {3}


def test_nonconsecutive_spares_the_edges_a_dot_joins():
    """f-puzzles' "Consecutive" sudoku (white dots beside the nonconsecutive rule) and
    "Kropki" sudoku (with the ratio's negative constraint): the nonconsecutive rule is the
    white dots' negative constraint, and f-puzzles' solver exempts a dot of either colour.
    Read otherwise, a white dot beside it has no solution."""
    white = [{"cells": [c.upper() for c in d["cells"]]} for d in every_dot(GRID, 9, False)]
    puzzle = fpuzzles(difference=white, nonconsecutive=True)
    grid = tuple(map(int, GRID))
    assert is_solution(puzzle, grid)
    undotted = {frozenset(r.cells) for r in puzzle.rules if r.kind == "notdifference"}
    assert len(undotted) == len(neighbour_pairs(9)) - len(white)
    # a 1-2 pair with a black dot is exempt too
    black = {"cells": ["R1C6", "R1C7"]}
    puzzle = fpuzzles(ratio=[black], nonconsecutive=True, negative=["ratio"])
    assert frozenset((5, 6)) not in {
        frozenset(r.cells) for r in puzzle.rules if r.kind == "notdifference"
    }


def test_negative_ratio_forbids_the_ratios_its_dots_carry():
    """f-puzzles' solver: the negative constraint forbids each value the ratio dots carry
    (2 when there is no dot), between neighbours no dot joins."""
    grid = tuple(map(int, GRID))
    threes = [
        {"cells": [f"R{a // 9 + 1}C{a % 9 + 1}", f"R{b // 9 + 1}C{b % 9 + 1}"], "value": "3"}
        for a, b in neighbour_pairs(9)
        if 3 in (grid[a] / grid[b], grid[b] / grid[a])
    ]
    puzzle = fpuzzles(ratio=threes, negative=["ratio"])
    assert {r.r for r in puzzle.rules if r.kind == "notratio"} == {3}
    assert is_solution(puzzle, grid)  # its 1-2, 2-4, 3-6 and 4-8 pairs are undotted
    assert {r.r for r in fpuzzles(negative=["ratio"]).rules} == {2}


def test_a_cage_without_a_sum_keeps_its_digits_apart():
    """Killer rules: digits do not repeat in a cage; one without a sum says no more
    (f-puzzles' solver reads it so). Pairs a unit already separates get no rule."""
    cage = {"cells": ["R1C1", "R2C2", "R5C5"]}
    rules = fpuzzles(killercage=[cage]).rules
    assert {(r.kind, r.cells) for r in rules} == {("notequal", (0, 40)), ("notequal", (10, 40))}
    pad = as_sudokupad({"size": 9, "grid": fgrid(9), "killercage": [cage]})
    assert set(read_text(scl_link(pad))[0].puzzle.rules) == set(rules)
