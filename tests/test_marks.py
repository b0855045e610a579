"""The marks of a puzzle's variant rules (sudokulab.classroom.marks): rebuilt from the rules
of every kind, read from f-puzzles and the project's documents and made by the generator;
what cannot be drawn gives no mark; the viewer's data and the explain page carry them."""

from __future__ import annotations

import json
import random
import re

import pytest
from helpers import marked_puzzle, random_solution

from sudokulab.catalog import load
from sudokulab.classroom.marks import (
    CAPTIONS,
    Arrow,
    Caption,
    Clue,
    Dot,
    EdgeText,
    Line,
    ParityMark,
    Thermometer,
    marks_data,
    puzzle_marks,
)
from sudokulab.classroom.page import viewer_data
from sudokulab.classroom.trace import trace_puzzle
from sudokulab.cli import main
from sudokulab.generate import kropki_dots, thermometers
from sudokulab.models import Puzzle, geometry, rules
from sudokulab.models.documents import dumps, read_documents
from sudokulab.models.fpuzzles import encode, read_fpuzzles_text
from sudokulab.models.variants import with_variant

G9 = geometry(9)


def at(name: str, n: int = 9) -> int:
    """The index of a cell named R1C1 (f-puzzles) or r1c1."""
    r, c = map(int, re.fullmatch(r"[Rr](\d+)[Cc](\d+)", name).groups())
    return (r - 1) * n + c - 1


def cells(*names: str) -> tuple[int, ...]:
    return tuple(map(at, names))


def with_rules(*rules, geom=G9) -> Puzzle:
    return Puzzle(geom, (0,) * geom.cell_count, (), None, rules)


def fpuzzles(**constraints) -> Puzzle:
    """The puzzle of an empty 9x9 f-puzzles document with the constraints, read back
    from its compressed text."""
    doc = {"size": 9, "grid": [[{} for _ in range(9)] for _ in range(9)], **constraints}
    (entry,) = read_fpuzzles_text(encode(doc))
    return entry.puzzle


# --- every f-puzzles constraint sudokulab reads ----------------------------------------------


def test_fpuzzles_constraints_become_their_marks():
    branch = [["R1C1", "R1C2", "R1C3"], ["R1C1", "R2C1", "R3C1"]]
    arrows = [["R5C6", "R6C7", "R7C7"]], [["R9C9", "R8C8", "R7C8"], ["R9C9", "R9C8"]]
    puzzle = fpuzzles(
        thermometer=[{"lines": branch}, {"lines": [["R9C1", "R8C1"]]}],
        arrow=[
            {"cells": ["R5C5", "R5C6"], "lines": arrows[0]},
            {"cells": ["R9C9"], "lines": arrows[1]},
        ],
        difference=[{"cells": ["R6C1", "R6C2"]}, {"cells": ["R7C5", "R8C5"], "value": "3"}],
        ratio=[{"cells": ["R6C2", "R7C2"]}],
        xv=[{"cells": ["R4C1", "R5C1"], "value": "X"}, {"cells": ["R4C2", "R4C3"], "value": "v"}],
        whispers=[{"lines": [["R8C1", "R8C2", "R8C3"]]}],
        renban=[{"lines": [["R4C7", "R4C8", "R3C9"]]}],
        regionsumline=[{"lines": [["R3C2", "R3C3", "R3C4", "R2C4", "R2C3"]]}],
        odd=[{"cell": "R2C6"}],
        even=[{"cell": "R2C7"}],
        sandwichsum=[{"cell": "R0C4", "value": "3"}, {"cell": "R2C10", "value": "10"}],
        littlekillersum=[
            {"cell": "R10C0", "direction": "UR", "value": "45"},
            {"cell": "R0C10", "direction": "DL", "value": "40"},
        ],
        antiking=True,
    )
    marks = puzzle_marks(puzzle)
    assert marks == (
        Thermometer("thermometer 1", at("R1C1"), (cells(*branch[0]), cells(*branch[1]))),
        Thermometer("thermometer 2", at("R9C1"), (cells("R9C1", "R8C1"),)),
        Arrow("arrow 1", cells("R5C5", "R5C6"), cells(*arrows[0][0])),
        Arrow("arrow 2", cells("R9C9"), cells(*arrows[1][0])),
        Arrow("arrow 2", cells("R9C9"), cells(*arrows[1][1])),
        Dot("white dot 1", at("R6C1"), at("R6C2"), "white"),
        Dot("white dot 2", at("R7C5"), at("R8C5"), "white", "3"),
        Dot("black dot 1", at("R6C2"), at("R7C2"), "black"),
        EdgeText("X 1", at("R4C1"), at("R5C1"), "X"),
        EdgeText("V 2", at("R4C2"), at("R4C3"), "V"),
        Line("whispers 1", "whispers", (cells("R8C1", "R8C2", "R8C3"),)),
        Line("renban 1", "renban", (cells("R4C7", "R4C8", "R3C9"),)),
        # the line comes back in order, though its rules hold it box by box
        Line("region-sum line 1", "region sum", (cells("R3C2", "R3C3", "R3C4", "R2C4", "R2C3"),)),
        ParityMark("odd cell", at("R2C6"), "odd"),
        ParityMark("even cell", at("R2C7"), "even"),
        # a sandwich's rule keeps its row or column, not the side its clue was on
        Clue("column 4 sandwich", "sandwich", 3, -1, 3, (1, 0)),
        Clue("row 2 sandwich", "sandwich", 10, 1, -1, (0, 1)),
        Clue("little killer 1", "little killer", 45, 9, -1, (-1, 1)),
        Clue("little killer 2", "little killer", 40, -1, 9, (1, -1)),
        Caption("anti-king", CAPTIONS["anti-king"]),
    )


def test_fpuzzles_board_rules_and_negative_dots_are_captions_not_pairs():
    puzzle = fpuzzles(antiknight=True, nonconsecutive=True, negative=["ratio"])
    assert len(puzzle.rules) > 300  # every pair is a rule...
    marks = puzzle_marks(puzzle)  # ...told once each, under the grid
    assert {m.name for m in marks} == {"anti-knight", "nonconsecutive", "no black dot"}
    assert all(isinstance(m, Caption) and m.text == CAPTIONS[m.name] for m in marks)
    miracle = with_variant(Puzzle(G9, (0,) * 81), ["anti-knight", "anti-king", "nonconsecutive"])
    assert [m.name for m in puzzle_marks(miracle)] == ["anti-knight", "anti-king", "nonconsecutive"]


def test_a_region_sum_line_that_comes_back_into_a_box_is_drawn_in_its_order():
    line = ["R4C1", "R4C2", "R4C3", "R4C4", "R5C4", "R5C3", "R6C3", "R6C4", "R6C5"]
    puzzle = fpuzzles(regionsumline=[{"lines": [line]}])
    rules = puzzle.rules  # four segments: the line starts a new one each time it crosses
    assert [r.targets for r in rules] == [cells(*line[:3]), cells(*line[3:5]), cells(*line[5:7])]
    assert puzzle_marks(puzzle) == (Line("region-sum line 1", "region sum", (cells(*line),)),)


# --- the project's documents, the generator's puzzles -----------------------------------------


def test_document_fields_become_their_marks():
    doc = {
        "size": 4,
        "givens": "................",
        "slow_thermometers": [["r4c4", "r3c4", "r2c4"]],
        "arrows": [{"circle": ["r1c1", "r1c2"], "shaft": ["r2c3", "r3c3"]}],
        "kropki": [{"cells": ["r4c1", "r4c2"], "dot": "black"}],
        "kropki_negative": True,
        "region_sum_lines": [["r2c1", "r2c2", "r3c2"]],
        "little_killers": [{"cells": ["r4c1"], "sum": 3}, {"cells": ["r3c4", "r4c3"], "sum": 5}],
    }
    puzzle = read_documents(json.dumps(doc))[0].puzzle
    marks = puzzle_marks(puzzle)
    c4 = lambda *names: tuple(at(x, 4) for x in names)  # noqa: E731
    assert marks == (
        Thermometer("slow thermometer 1", at("r4c4", 4), (c4("r4c4", "r3c4", "r2c4"),), True),
        Arrow("arrow 1", c4("r1c1", "r1c2"), c4("r1c2", "r2c3", "r3c3")),
        Dot("black dot 1", at("r4c1", 4), at("r4c2", 4), "black"),
        Line("region-sum line 1", "region sum", (c4("r2c1", "r2c2", "r3c2"),)),
        Clue("little killer 1", "little killer", 3, 4, -1, (-1, 1)),  # a corner reads inwards
        Clue("little killer 2", "little killer", 5, 1, 4, (1, -1)),  # from either end
        Caption("no white dot", CAPTIONS["no white dot"]),
        Caption("no black dot", CAPTIONS["no black dot"]),
    )
    # written back (every rule in its generic form) and read again: the same marks
    again = read_documents(dumps(puzzle))[0].puzzle
    assert puzzle_marks(again) == marks


def _chains(rules) -> dict[str, list[tuple[int, int]]]:
    out: dict[str, list[tuple[int, int]]] = {}
    for rule in rules:
        out.setdefault(rule.name, []).append((rule.a, rule.b))
    return out


@pytest.mark.parametrize("size", [4, 9, 16])
def test_the_generators_thermometers_and_dots_are_drawn_as_made(size):
    rng = random.Random(size)
    geom = geometry(size)
    solution = tuple(random_solution(size, rng))
    made = thermometers(geom, solution, rng)
    marks = puzzle_marks(with_rules(*made, geom=geom))
    assert marks and all(isinstance(m, Thermometer) and len(m.paths) == 1 for m in marks)
    chains = _chains(made)
    assert [m.name for m in marks] == list(chains)
    for mark in marks:
        (path,) = mark.paths
        assert mark.bulb == path[0] and list(zip(path, path[1:], strict=False)) == chains[mark.name]
    dots = kropki_dots(geom, solution, rng)
    drawn = puzzle_marks(with_rules(*dots, geom=geom))
    assert len(drawn) == len(dots)
    assert {(m.a, m.b, m.colour, m.label) for m in drawn} == {
        (r.a, r.b, "white" if isinstance(r, rules.Difference) else "black", "") for r in dots
    }


@pytest.mark.parametrize("name", ["gen-thermometer", "gen-kropki"])
def test_the_shipped_variant_sets_are_drawn(name):
    puzzle = load(name).entries[0].puzzle
    marks = puzzle_marks(puzzle)
    drawn = set()
    for mark in marks:
        if isinstance(mark, Thermometer):
            drawn |= {(p[i], p[i + 1]) for p in mark.paths for i in range(len(p) - 1)}
        else:
            drawn.add((mark.a, mark.b))
    assert drawn == {(r.a, r.b) for r in puzzle.rules}  # every rule on the page, once


# --- every kind; what cannot be drawn ---------------------------------------------------------

#: A rule of each kind and the marks it gives (one case a kind; more below).
CASES = {
    "less": (rules.Less(0, 1, "thermometer 1"), Thermometer("thermometer 1", 0, ((0, 1),))),
    "lessequal": (rules.LessEqual(1, 0, "t"), Thermometer("t", 1, ((1, 0),), True)),
    "difference": (rules.Difference(0, 9, 2, "d"), Dot("d", 0, 9, "white", "2")),
    "notdifference": (
        rules.NotDifference(0, 1, 1, "nonconsecutive"),
        Caption("nonconsecutive", ""),
    ),
    "mindifference": (rules.MinDifference(0, 10, 5, "w"), Line("w", "whispers", ((0, 10),))),
    "ratio": (rules.Ratio(3, 4, 3, "r"), Dot("r", 3, 4, "black", "3")),
    "notratio": (rules.NotRatio(0, 1, 2, "no black dot"), Caption("no black dot", "")),
    "pairsum": (rules.PairSum(0, 1, 7, "s"), EdgeText("s", 0, 1, "7")),
    "notequal": (rules.NotEqual(0, 11, "anti-knight"), Caption("anti-knight", "")),
    "sumequals": (
        rules.SumEquals((40,), (30, 20), "arrow 3"),
        Arrow("arrow 3", (40,), (40, 30, 20)),
    ),
    "consecutive": (
        rules.Consecutive((0, 1, 11), "renban 2"),
        Line("renban 2", "renban", ((0, 1, 11),)),
    ),
    "parity": (rules.Parity(80, "even", "even cell"), ParityMark("even cell", 80, "even")),
    "entropic": (rules.Entropic((0, 1, 2), 9, "e 1"), Line("e 1", "entropic", ((0, 1, 2),))),
    "sandwich": (
        rules.Sandwich(tuple(range(80, -1, -9)), 5, "column 9 sandwich"),  # read upwards
        Clue("column 9 sandwich", "sandwich", 5, 9, 8, (-1, 0)),
    ),
    "littlekiller": (
        rules.LittleKiller((8, 16, 24), 12, "little killer 1"),
        Clue("little killer 1", "little killer", 12, -1, 9, (1, -1)),
    ),
}


def test_the_cases_cover_every_kind():
    assert set(CASES) == set(rules.KINDS)


@pytest.mark.parametrize("kind", sorted(rules.KINDS))
def test_each_kind_gives_its_mark(kind):
    rule, mark = CASES[kind]
    assert rule.kind == kind
    if isinstance(mark, Caption):
        mark = Caption(mark.name, CAPTIONS[mark.name])
    assert puzzle_marks(with_rules(rule)) == (mark,)
    (data,) = marks_data(with_rules(rule))
    assert data["kind"] == mark.kind and data["name"] == rule.name
    assert json.loads(json.dumps(data)) == data


@pytest.mark.parametrize(
    "rule",
    [
        rules.Less(0, 40, "thermometer 1"),  # cells that do not touch: no thermometer between
        rules.MinDifference(0, 2, 5, "whispers 1"),
        rules.Difference(0, 10, 1, "white dot 1"),  # diagonal neighbours: no edge for a dot
        rules.Ratio(0, 2, 2, "black dot 1"),  # not neighbours
        rules.PairSum(0, 40, 10, "X 1"),
        rules.NotEqual(0, 1, "not equal"),  # a pair of a board-wide kind, not a board-wide rule
        rules.NotDifference(0, 1, 2, "no difference"),
        rules.SumEquals((0,), (40, 41), "arrow 1"),  # a shaft away from its circle
        rules.SumEquals((0,), (1, 3), "arrow 2"),  # a shaft that jumps
        rules.SumEquals((0, 1), (2,), "equal sums"),  # a sum that is neither arrow nor line
        rules.LittleKiller((40, 50), 9, "little killer 1"),  # a diagonal inside the grid
        rules.LittleKiller((40,), 5, "little killer 2"),  # one cell, not a corner
        rules.Sandwich((0, 2, 4, 6, 8, 10, 12, 14, 16), 0, "odd sandwich"),  # steps of two
    ],
    ids=lambda rule: rule.name,
)
def test_what_cannot_be_drawn_gives_no_mark(rule):
    assert puzzle_marks(with_rules(rule)) == ()


def test_chains_that_branch_loop_or_jump_are_still_walked():
    # a cycle has no bulb: it is walked once from its first cell, and the walk ends
    loop = [rules.Less(0, 1, "t"), rules.Less(1, 10, "t"), rules.Less(10, 0, "t")]
    assert puzzle_marks(with_rules(*loop)) == (Thermometer("t", 0, ((0, 1, 10, 0),)),)
    # rules of one name that are two chains (generic records) are two thermometers
    two = [rules.Less(0, 1, "less"), rules.Less(40, 41, "less"), rules.Less(1, 2, "less")]
    assert puzzle_marks(with_rules(*two)) == (
        Thermometer("less", 0, ((0, 1, 2),)),
        Thermometer("less", 40, ((40, 41),)),
    )
    # a renban whose cells do not touch in turn is drawn in touching pieces
    jump = rules.Consecutive((0, 1, 30, 31), "renban 1")
    assert puzzle_marks(with_rules(jump)) == (Line("renban 1", "renban", ((0, 1), (30, 31))),)


def test_marks_on_every_size_and_on_jigsaw_stay_on_the_board():
    jigsaw = load("gen-jigsaw").entries[0]
    grids = [(geometry(n), tuple(random_solution(n, random.Random(n)))) for n in (4, 6, 9, 16)]
    for geom, solution in grids + [(jigsaw.puzzle.geometry, jigsaw.solution)]:
        puzzle = marked_puzzle(geom, solution)
        n = geom.size
        marks = puzzle_marks(puzzle)
        kinds = {m.kind for m in marks}
        assert {"thermometer", "arrow", "dot", "parity", "clue"} <= kinds
        for mark in marks:
            if isinstance(mark, Clue):  # just outside, on the line's way in
                assert (mark.row in (-1, n)) or (mark.col in (-1, n))
                r, c = mark.row + mark.step[0], mark.col + mark.step[1]
                assert 0 <= r < n and 0 <= c < n
            elif isinstance(mark, (Dot, EdgeText)):  # on the edge between neighbours
                assert abs(mark.a // n - mark.b // n) + abs(mark.a % n - mark.b % n) == 1
            elif isinstance(mark, ParityMark):
                assert 0 <= mark.cell < n * n
            else:
                paths = mark.paths if isinstance(mark, (Thermometer, Line)) else (mark.path,)
                for path in paths:  # from cell to touching cell
                    assert all(0 <= c < n * n for c in path)
                    for a, b in zip(path, path[1:], strict=False):
                        assert a != b and abs(a // n - b // n) <= 1 and abs(a % n - b % n) <= 1


# --- the viewer's data and the explain page ---------------------------------------------------


def test_the_viewer_data_carries_the_marks():
    puzzle = load("gen-thermometer").entries[0].puzzle
    data = viewer_data(trace_puzzle(puzzle, max_steps=5))
    assert data["marks"] == marks_data(puzzle) and data["marks"]
    plain = load("gen-classic-easy").entries[0].puzzle
    assert viewer_data(trace_puzzle(plain, max_steps=5))["marks"] == []


def test_explain_html_of_a_thermometer_arrow_kropki_puzzle_carries_the_marks(tmp_path, capsys):
    entry = load("gen-thermometer").entries[0]
    puzzle = marked_puzzle(entry.puzzle.geometry, entry.solution)
    source = tmp_path / "marked.json"
    source.write_text(dumps(puzzle, entry.solution) + "\n", encoding="utf-8")
    html = tmp_path / "marked.html"
    assert main(["explain", str(source), "--html", str(html)]) == 0
    capsys.readouterr()
    page = html.read_text(encoding="utf-8")
    data = json.loads(re.search(r"var DATA=(.*?);var ROOT=", page).group(1))
    assert data["marks"] == marks_data(read_documents(source.read_text())[0].puzzle)
    kinds = {m["kind"] for m in data["marks"]}
    assert {"thermometer", "arrow", "dot", "line", "xv", "parity", "clue"} <= kinds
    # the script draws each as a group of the SVG over the grid, by these hooks
    for hook in ('"data-mark"', '"data-role": "marks"', ".slv-marks {"):
        assert hook in page
    assert not re.search(r"(src|href)\s*=|https?://|@import|url\(", page)  # no network
