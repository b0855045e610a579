"""SudokuPad's own puzzles: the zipped JSON read back, each constraint as the same rule
f-puzzles' document gives, two real public links, the refusals by name, the CLI."""

from __future__ import annotations

import json

import pytest
from helpers import as_sudokupad, fgrid, scl_link, zipped

import sudokulab
from sudokulab.cli import main
from sudokulab.models import is_solution, read_file, read_text
from sudokulab.models.documents import read_documents
from sudokulab.models.fpuzzles import encode
from sudokulab.models.rules import neighbour_pairs
from sudokulab.models.sudokupad import decode, puzzle_of, unzip

THERMOS = {
    "size": 4,
    "title": "thermo test",
    "grid": fgrid(4, {"R4C4": 2}),
    "thermometer": [
        {"lines": [["R1C1", "R1C2", "R1C3"]]},
        {"lines": [["R3C1", "R3C2", "R3C3", "R3C4"]]},
    ],
}
MIRACLE = {
    "size": 9,
    "grid": fgrid(9, {"R5C3": 1, "R6C7": 2}),
    "antiknight": True,
    "antiking": True,
    "nonconsecutive": True,
}
MANY = {
    "size": 9,
    "grid": fgrid(9, {"R5C3": 1, "R6C7": 2}),
    "arrow": [
        {"cells": ["R1C1"], "lines": [["R1C1", "R1C2", "R1C3"], ["R1C1", "R2C2", "R3C3"]]},
        {"cells": ["R5C5", "R5C6"], "lines": [["R5C6", "R6C7", "R7C8"]]},
    ],
    "difference": [{"cells": ["R2C1", "R3C1"]}, {"cells": ["R8C1", "R8C2"], "value": "3"}],
    "ratio": [{"cells": ["R3C1", "R3C2"], "value": "2"}],
    "xv": [{"cells": ["R4C1", "R4C2"], "value": "X"}, {"cells": ["R4C5", "R4C6"], "value": "V"}],
    "odd": [{"cell": "R8C8"}],
    "even": [{"cell": "R8C9"}],
    "littlekillersum": [
        {"cell": "R0C0", "direction": "DR", "value": "45"},
        {"cell": "R10C3", "direction": "UR", "value": "20"},
    ],
    "killercage": [{"cells": ["R9C8", "R9C9"], "value": "17"}],
    "thermometer": [{"lines": [["R7C4", "R7C5", "R7C6"]]}],
    "diagonal-": True,
    "diagonal+": True,
    "negative": ["ratio"],
    "antiknight": True,
}
JIGSAW = {
    "size": 4,
    "grid": [
        [{"region": "ABCD".index(ch)} for ch in line] for line in ("AAAB", "ACBB", "CCDB", "CDDD")
    ],
}


@pytest.mark.parametrize(
    "fdoc", [THERMOS, MIRACLE, MANY, JIGSAW], ids=["thermo", "miracle", "many", "jigsaw"]
)
def test_a_sudokupad_puzzle_reads_as_its_fpuzzles_document(fdoc):
    (expected,) = read_text(encode(fdoc))
    link = scl_link(as_sudokupad(fdoc))
    query = link.replace("sudokupad.app/", "sudokupad.app/?puzzle=")
    for text in (link, query, query.replace("?puzzle=", "?puzzleid="), link[22:]):
        (entry,) = read_text(text)
        puzzle, want = entry.puzzle, expected.puzzle
        assert puzzle.givens == want.givens and puzzle.cages == want.cages
        assert {u.cells for u in puzzle.geometry.units} == {u.cells for u in want.geometry.units}
        assert set(puzzle.rules) == set(want.rules)
        assert len(puzzle.rules) == len(want.rules)
    ctc = link.replace("sudokupad.app/scl", "app.crackingthecryptic.com/ctc")
    assert set(read_text(ctc)[0].puzzle.rules) == set(expected.puzzle.rules)


def test_the_round_trip_covers_each_mapped_kind():
    (entry,) = read_text(scl_link(as_sudokupad(MANY)))
    kinds = {r.kind for r in entry.puzzle.rules}
    assert kinds == {"sumequals", "difference", "ratio", "notratio", "pairsum", "parity"} | {
        "littlekiller",
        "less",
        "notequal",
    }
    arrows = [r for r in entry.puzzle.rules if r.kind == "sumequals"]
    assert {(r.targets, r.terms, r.digits) for r in arrows} == {
        ((0,), (1, 2), False),
        ((0,), (10, 20), False),
        ((40, 41), (51, 61), True),
    }
    up = next(r for r in entry.puzzle.rules if r.name == "little killer 2")
    assert up.line == (8 * 9 + 3, 7 * 9 + 4, 6 * 9 + 5, 5 * 9 + 6, 4 * 9 + 7, 3 * 9 + 8)


@pytest.mark.parametrize("fdoc", [THERMOS, MIRACLE], ids=["thermo", "miracle"])
@pytest.mark.parametrize("backend", ["native", "cpsat"])
def test_sudokupad_puzzles_solve_unique_on_native_and_cpsat(fdoc, backend):
    (entry,) = read_text(scl_link(as_sudokupad(fdoc)))
    result = sudokulab.solve(entry.puzzle, backend=backend, limit=2)
    assert result.exact and len(result.solutions) == 1, backend
    assert is_solution(entry.puzzle, result.solutions[0])


def test_drawings_read_whichever_way_they_are_drawn():
    """A thermometer drawn from its tip, a shaft given by its corners only: the same rules."""
    doc = as_sudokupad(THERMOS)
    expected = set(read_text(scl_link(doc))[0].puzzle.rules)
    doc["lines"][0]["wayPoints"].reverse()
    doc["lines"][1]["wayPoints"] = [[2.5, 0.5], [2.5, 3.5]]
    assert set(read_text(scl_link(doc))[0].puzzle.rules) == expected
    arrow = {"arrows": [{"wayPoints": [[1.9, 1.5], [3.5, 1.5]]}]}
    circle = {"center": [1.5, 1.5], "rounded": True, "width": 0.83, "height": 0.83}
    doc |= arrow | {"overlays": [circle | {"backgroundColor": "#FFFFFF"}]}
    (entry,) = read_text(scl_link(doc))
    (rule,) = [r for r in entry.puzzle.rules if r.kind == "sumequals"]
    assert (rule.targets, rule.terms) == ((5,), (9, 13))  # r2c2 = r3c2 + r4c2


def test_the_zipper_shorthand_reads_back():
    doc = {
        "cells": [[{}, {"value": "3"}], [{}, {}]],
        "cages": [{"value": 'rules: don\'t "quote"\nme', "unique": False}],
        "lines": [{"color": "#34BBE6", "wayPoints": [[0.5, -0.25]], "opacity": True}],
        "overlays": [{"backgroundColor": "#000000", "borderColor": "#FFFFFF", "text": ""}],
    }
    back = unzip(zipped(doc))
    assert back["cells"] == [[{}, {"value": 3}], [{}, {}]]
    assert back["cages"][0] == {"value": "rules: don't 'quote'\nme", "unique": False}
    assert back["lines"][0] == {"color": "#34BBE6", "wayPoints": [[0.5, -0.25]], "opacity": True}
    assert back["overlays"][0]["backgroundColor"] == "#000000"
    assert back["overlays"][0]["borderColor"] == "#FFFFFF"
    assert unzip(json.dumps(doc)) == doc  # plain JSON is read as it is
    with pytest.raises(ValueError):
        unzip("{ce:[[,],")


# --- real public SudokuPad links -------------------------------------------------------------

#: "Parity Fish" by Marty Sears (Sudoku-Bench's example puzzle, SakanaAI/Sudoku-Bench):
#: kropki dots in the data, the red parity lines in its background image.
PARITY_FISH = (
    "https://sudokupad.app/sclN4SwJgXA5AzgHjAtgfQLIEMBOAXAngZQFMsZkBWADgAYBjANgDMwAjV9ATmYeas"
    "IHYAjOkID2VACziGVAExhxNKABpEhbOjDp1EYDAD2AV0w1C0fAbB6A1gYAEGK4Uy2AbjNlkAdLM8zxAWhoaBjJ"
    "0CjpldANsAAs9TGgMHFxbIhJlTAMAG0IYaAA5eMR0LNsYC2s7TJyYW3QAB3qs3ABuWwYQLNLYwlsAc0xwWwB3"
    "EFjbHtswED6x2oF/djK9CZitKZm5qb0AOwAdKGxbTEJ64iOQHbqdlMw9YaVbGj0sg0Qdx/QdsFtizEcfgBmOCA2"
    "zMPRwTx7HYAFWGKxMXVqGgAVugTDsjiVdn06sdCD8spdeogDDAjs9MehLrZdr1CC5CFdprMsd9aTtenowD8WWMo"
    "bD4U9CEinrtOTRsASwSl0CMYmNepYKbt1DTKTBCDRoiBGRtWTABXCESKsrVKRKpT9mLKwVl0VZtiqqTS+dhasMY"
    "k4uZzbCBapYDMwcqsuT1MJ5lPpXtgQLtoBQyOJAXR2AI+DJ2Hw6DIyAIKIDxAIZIW+BR2GQ6EWKxQS3Q+JXy4C+"
    "OIZMXmwJxHQyOwKGXK+xWwIU2na83xGRCzJBI32MpmLNin1TFAYthsPU8gB6LcgTwgRB9IyeZ6ILc7QEgADy2HE"
    "+U8KLOfXni/Qy709XRY1wEAESmw0AAApYN+tgAGL+jEUAAL5KCYEAANoIUoKGoShAC6SjIWhqGYdhOFKHhBEYVh"
    "xGEaRxFEZRFEEVRtGYSciFIVQShUHhLECOxSgyHhf5sVhf6cQJ3F4TIrGiUoQkIWJPF4QhLGAlx4hcWQvFKIpwn"
    "KcJqlYWJGnSUoWkGapcksXQXF8FxFBqeZwmWcJ1m6UotkGfZBnWXJgLiVhXlSV5PFYeI3kIUFUlBQFCFkMFUVSV"
    "FslYQhXn6V5RleTpIXqXhQVGUF6VRfpUVGVFJkJV5LleW5XmORlLlBW5QXVVFLlRW5UUeQldDBZ1UmdRFfDBf1U"
    "n9RFFDBaNUmjfFSGdfpnVGZ16X9fp/VGf16Wjfpo1GaNJXTc5eGdW5nXVf1Ln9W5/XVaNLmjW5o0eZheiIcAkqI"
    "YCnhtZhwwQFQniFkoMQ/X9QWxL+vijVK0DKDQEAAMQsQk2BwTIcNgXBAhw1QsEvQBIUfUojnfb9/2A8TIOAwI4P"
    "/iu0OY0oiPI6j6OY9jr2RfjhNAyTXPk2DMgQzTcF0wzNAo7DaM0Bj8Os7j4j40JRPAwDPP/hTVOQ1AtPw/TEBI6"
    "LTOSyzSg44hk0fV9Kuk0roOU/z1NQ0L2si2LEtS1jxts/1v06Yr3Nk6rfMCw7MNO7rjPi8z0se7jfHm0ovtBVb/"
    "02+rgshwjYf6xHhtRybCF0Pj9kJ8r/sp3bGtaxnesu5H7t5wXMUW/7Se87bQea47Vfh67Rt5xQHNN0rLcB239sd"
    "+nOvVwbbsy4hfD4z7lsq2X7eV5P3e17PCF/u9i/N8vavl2nwuZzXOd157SheHvQ8H4HY9r870+92zYkN4PfvW4f"
    "q+d+vWc97nNm3sRLxyXqXb+D9f5P2zjPaOiE/xyxvp/ZOECK5QNPs/QBuNfJx19l5JOXk0EhzRtAi+2DC4f3wVz"
    "Qhx8I6kK3jJXB1CS5/RocHJm9C4EIX7nFShLDARsPHhwjBWDTZKHnkgqhxNBFaxISIrG6FoJAA"
)
PARITY_FISH_SOLUTION = (
    "854369172976251834123478956419582367568937421237146598785694213691823745342715689"
)

#: "Introduction to Counting Circles" by Michael Lefkowitz (Sudoku-Bench's
#: src/sudokupad_interaction/README.md): a 4x4 whose circles count digits.
COUNTING_CIRCLES = (
    "sclN4SwJgXA5AzgHjAtgfQLIgMYAsCGBTAGwBk8AzAawHsB3EAFwC9k8B2ADhwBYWAjDARjABOAAwiAbJ1IBmIWx"
    "54ArP1L9F00qXEZpUADQYcEANrAAbtDr0CeCAAIAkgDs6AJ0pgArhiuUnduko7AGFKTxcQJwBzEJBXDBsYKABfPX"
    "NoHE86LEpXe3RsfAI7EgoaegYUtIsoV09E+wBlAFUAEQB5AGlmgB0nAFo7ADEQAmLsvDso13A7WmyArEmwECj6GD"
    "t+fs47GCDsnDo7JyCVtaPXPAAHPEONyLscO3dqPTsMSgJPRCc33LseJQ4AA6Pp9YLtZoAOQAKg4oQBxEIOABKwSI"
    "AFFGn0AIJOACedjO9DsDyeGDiCUmkRWhjoeA2eDgOB8BEJOWodkQOAJ70piXefjoOAeByOxLowLsOI2PLsTJwiCu"
    "NjeIFIizwl1JsrsACZSf4eYSKfEVRqtTgtQrWYS6NQgrr7v4TVSnRq7FdPAwGDZgVV0rBPlkQH57NJOLr+PxdZxw"
    "/xpLrddJ+JwUgBdAwwCCKEQGWzGYx6IsZwvFvSlvQlouVjOXEwF3MiEu5/gl/h6Jvl9utkvGXO65t6aRtvQDrtDt"
    "O93UdkvT1vl6Qzhd6Hvl4zTsfrifLzeL4eTvSeEzAGBuSjkWxQE5OPD6HlRGwQXM+EzSYGKDvvjPUJ/AtjTrBf3/"
    "PRsggds8joAxdQgABiIYDH4WCRFSE8zwvaBr1vPR70fZ86BMXV30/RRvyAgCyJAwDwIgSCMGguCEKQlDT3cdCrz8"
    "LCcNsPDXyIt8SL0H8RD/cjhOA0DqNo+j4IEJi0hY89L0wu9olwgx8OMfg+K/QSKMAsTpwkvQIKg2CZMQmDkPktCl"
    "I4lSH249STC0j9CIEoSRL0fTPKMky6LMxjLOYmyMLs7DVMcl9jH4lcdI84DvPEqjjJo0yGNkoLrNY2yb3stSopc2"
    "L3L0ijfNS/z0osqzUOy0LcvChynycvsiOE4qDK80rkr86TAuqhS2OUhr8o0tqitIjrEsM7ryt6jLkLTZIgA"
)


def test_parity_fish_reads_its_dots_and_refuses_its_background_image():
    """A real puzzle: its 16 white and 5 black dots read as kropki rules its published
    solution keeps; its parity lines are only in the background image, which is refused
    (without them the dots leave many solutions: the image carries rules)."""
    with pytest.raises(ValueError, match="background image, which may carry rules"):
        read_text(PARITY_FISH)
    doc = decode(PARITY_FISH)
    assert doc["metadata"]["title"] == "Parity Fish"
    del doc["metadata"]["bgimage"]
    puzzle, solution = puzzle_of(doc)
    assert solution == tuple(int(ch) for ch in PARITY_FISH_SOLUTION)
    kinds = [r.kind for r in puzzle.rules]
    assert kinds.count("difference") == 16 and kinds.count("ratio") == 5
    dot = next(r for r in puzzle.rules if r.name == "white dot 1")
    assert dot.cells == (3 * 9 + 7, 3 * 9 + 8)  # between r4c8 and r4c9
    result = sudokulab.solve(puzzle, backend="cpsat", limit=2, timeout=60)
    assert len(result.solutions) == 2


def test_counting_circles_is_refused_by_its_circle():
    with pytest.raises(ValueError, match=r"a white circle at \(3.5, 0.5\) \(in r4c1\)"):
        read_text(COUNTING_CIRCLES)
    doc = decode(COUNTING_CIRCLES)
    assert len(doc["cells"]) == 4 and "solution: 3421124341322314" in str(doc["cages"])


# --- refusals --------------------------------------------------------------------------------


def thermo_doc(**extra) -> dict:
    doc = as_sudokupad(THERMOS)
    for key, value in extra.items():
        doc[key] = doc.get(key, []) + value if isinstance(value, list) else value
    return doc


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            {
                "lines": [
                    {"color": "#67f067", "thickness": 10, "wayPoints": [[1.5, 0.5], [1.5, 2.5]]}
                ]
            },
            r"a line sudokulab cannot read as a rule: a #67f067 line r2c1-r2c2-r2c3",
        ),
        (
            {
                "lines": [{"color": "#CFCFCF", "wayPoints": [[1.5, 0.5], [1.5, 2.5]]}],
                "overlays": [
                    {"center": [1.5, x], "rounded": True, "width": 0.8, "height": 0.8}
                    | {"backgroundColor": "#FFFFFF", "borderColor": "#CFCFCF"}
                    for x in (0.5, 2.5)
                ],
            },
            r"lines 3: .* a #cfcfcf line r2c1-r2c2-r2c3",
        ),
        (
            {"overlays": [{"center": [-0.5, 1.5], "text": "7", "width": 0.25, "height": 0.25}]},
            r"a clue '7' outside the grid \(r0c2\): a sandwich, X-sum, skyscraper",
        ),
        (
            {"overlays": [{"center": [1, 1.5], "backgroundColor": "#ff0000", "rounded": True}]},
            r"a mark between r1c2-r2c2 sudokulab cannot read as a rule: a #ff0000 circle",
        ),
        ({"cages": [{"cells": [[3, 0], [3, 0]], "value": 5}]}, r"cages 2: r4c1 is twice in it"),
        (
            {"cages": [{"cells": [[3, 0], [3, 1]], "value": 5, "unique": False}]},
            r"a cage from r4c1 whose digits may repeat",
        ),
        ({"global": ["disjoint"]}, r'uses "disjoint groups", which sudokulab does not model'),
        ({"foglight": [[0, 0]]}, r'uses "fog of war"'),
        (
            {"arrows": [{"wayPoints": [[1.5, 1.5], [1.5, 3.5]]}]},
            r"an arrow from r2c2 without a circle",
        ),
        (
            {
                "underlays": [
                    {"center": [1.5, 1.5], "width": 1, "height": 1, "backgroundColor": "#ffa0a0"}
                ]
            },
            r"a #ffa0a0 shape at \(1.5, 1.5\) \(in r2c2\)",
        ),
    ],
    ids=[
        "line",
        "between line",
        "outside clue",
        "dot",
        "cell twice",
        "repeats",
        "disjoint",
        "fog",
        "arrow",
        "shading",
    ],
)
def test_what_sudokulab_cannot_read_is_refused_by_name(extra, message):
    with pytest.raises(ValueError, match=message):
        read_text(scl_link(thermo_doc(**extra)))


def test_short_links_and_garbage_are_refused_clearly(capsys):
    with pytest.raises(ValueError, match=r"short link \(abc123\).*paste the long link"):
        read_text("https://sudokupad.app/abc123")
    with pytest.raises(ValueError, match="does not decompress"):
        read_text("https://sudokupad.app/scl!!!")
    assert main(["solve", "https://sudokupad.app/abc123"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "short link" in err and "Traceback" not in err


# --- where puzzles are read ------------------------------------------------------------------


def test_the_cli_solves_a_link_and_a_file_of_links(capsys, tmp_path):
    link = scl_link(as_sudokupad(THERMOS))
    assert main(["solve", "--backend", "native", "--unique", link]) == 0
    assert capsys.readouterr().out.strip() == "2341412312343412 unique"
    bad = scl_link(thermo_doc(**{"global": ["disjoint"]}))
    path = tmp_path / "links.txt"
    path.write_text(
        "# SudokuPad and f-puzzles\n" + link + "\n" + bad + "\n" + encode(THERMOS) + "\n"
    )
    errors: list = []
    entries = read_file(path, errors=errors)
    assert [e.line for e in entries] == [2, 4] and entries[0].puzzle == entries[1].puzzle
    assert errors[0].line == 3 and "disjoint groups" in errors[0].message
    code = main(["solve", "--backend", "cpsat", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out.count("2341412312343412") == 2 and "line 3" in err
    plain = tmp_path / "puzzle.json"
    plain.write_text(json.dumps(as_sudokupad(THERMOS)))
    (entry,) = read_file(plain)
    assert set(entry.puzzle.rules) == set(read_text(link)[0].puzzle.rules)


def test_the_serve_paste_box_reads_a_link():
    from sudokulab.serve.bounds import Bounds
    from sudokulab.serve.work import Refused, read_puzzle

    link = scl_link(as_sudokupad(THERMOS))
    assert read_puzzle({"puzzle": link}, Bounds()) == read_text(link)[0].puzzle
    with pytest.raises(Refused, match="short link"):
        read_puzzle({"puzzle": "https://sudokupad.app/abc123"}, Bounds())


def _kropki_of(solution: str, n: int) -> tuple[dict, dict]:
    """Every kropki dot a solved grid has, as f-puzzles and as a document: a pair of 1
    and 2 (both relations hold) carries a black dot, as setters draw it."""
    fdots: dict[str, list] = {"difference": [], "ratio": []}
    ddots = []
    for a, b in neighbour_pairs(n):
        x, y = int(solution[a]), int(solution[b])
        refs = [f"R{a // n + 1}C{a % n + 1}", f"R{b // n + 1}C{b % n + 1}"]
        dot = "black" if 2 in (x / y, y / x) else "white" if abs(x - y) == 1 else None
        if dot:
            fdots["ratio" if dot == "black" else "difference"].append({"cells": refs})
            ddots.append({"cells": [ref.lower() for ref in refs], "dot": dot})
    return fdots, {"kropki": ddots}


@pytest.mark.parametrize("negative", [["difference", "ratio"], ["difference"], ["ratio"]])
def test_negative_kropki_exempts_every_dotted_edge(negative):
    """f-puzzles' negative constraint ("all dots given") forbids a relation only between
    undotted neighbours: a black dot on a 1-2 pair is not a missing white dot. Read
    otherwise (as sudokulab once did), a full-dot kropki puzzle has no solution."""
    solution = "123456789456789123789123456214365897365897214897214365531642978642978531978531642"
    fdots, ddots = _kropki_of(solution, 9)

    def digits(refs: list[str]) -> list[str]:
        return sorted(solution[(int(ref[1]) - 1) * 9 + int(ref[3]) - 1] for ref in refs)

    blacks = [d["cells"] for d in ddots["kropki"] if d["dot"] == "black"]
    assert ["1", "2"] in map(digits, blacks), "the grid must have a black dot on a 1-2 pair"
    fdoc = {"size": 9, "grid": fgrid(9, {"R1C1": 1}), **fdots, "negative": negative}
    (expected,) = read_text(encode(fdoc))
    assert is_solution(expected.puzzle, tuple(int(ch) for ch in solution))
    (pad,) = read_text(scl_link(as_sudokupad(fdoc)))
    assert set(pad.puzzle.rules) == set(expected.puzzle.rules)
    if negative == ["difference", "ratio"]:
        doc = {"size": 9, "givens": "1" + "." * 80, **ddots, "kropki_negative": True}
        (document,) = read_documents(json.dumps(doc))
        assert {(r.kind, r.cells) for r in document.puzzle.rules} == {
            (r.kind, r.cells) for r in expected.puzzle.rules
        }
    undotted = {frozenset(r.cells) for r in expected.puzzle.rules if r.kind.startswith("not")}
    dotted = {
        frozenset(r.cells) for r in expected.puzzle.rules if r.kind in ("difference", "ratio")
    }
    assert undotted and not undotted & dotted
