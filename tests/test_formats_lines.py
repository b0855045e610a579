"""A whole puzzle with text after it on its line, and reading on past bad lines (issue 13)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers import sample, solved
from hypothesis import given, settings
from hypothesis import strategies as st

from sudokulab.models import SIZES, is_solution
from sudokulab.models.entries import VALUES
from sudokulab.models.formats import (
    Entry,
    ParseError,
    format_grid,
    format_line,
    parse_puzzle,
    read_file,
    read_text,
)

TOP95_FIRST = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
TOP95_SOLUTION = "417369825632158947958724316825437169791586432346912758289643571573291684164875293"
PUZZLE = parse_puzzle(TOP95_FIRST)
SOLUTION = tuple(map(int, TOP95_SOLUTION))


def read(text: str, **kwargs: object) -> tuple[list[Entry], list[ParseError]]:
    """The entries and the errors of a text read with recovery."""
    errors: list[ParseError] = []
    entries = read_text(text, errors=errors, **kwargs)  # type: ignore[arg-type]
    return entries, errors


def error(text: str, **kwargs: object) -> ParseError:
    """The ParseError that reading ``text`` without recovery raises."""
    with pytest.raises(ParseError) as info:
        read_text(text, **kwargs)  # type: ignore[arg-type]
    return info.value


def where(errors: list[ParseError]) -> list[tuple[int | None, int | None]]:
    """(line, column) of each error."""
    return [(e.line, e.column) for e in errors]


# --- each form -----------------------------------------------------------------------------

FORMS = {
    "tab and text": ("\tfrom the forum, #3", None, None),
    "spaces and text": ("   SE 9.1 (hardest)", None, None),
    "a comment": ("  # top95 no. 1", None, None),
    "a comment at once": ("#1", None, None),
    "a tab alone": ("\t", None, None),
    "count": (":1", 1, None),
    "count zero": (":0", 0, None),
    "count and solution": (f":1:{TOP95_SOLUTION}", 1, SOLUTION),
    "tdoku's no solution": (":0:", 0, None),
    "count, solution and a comment": (f":2:{TOP95_SOLUTION} # a second one exists", 2, SOLUTION),
    "count and free text": (":17\tclues: 17", 17, None),
}


@pytest.mark.parametrize("form", sorted(FORMS))
def test_each_form_alone(form: str) -> None:
    tail, count, solution = FORMS[form]
    for text in (f"{TOP95_FIRST}{tail}", f"  {TOP95_FIRST}{tail}\r\n"):
        (entry,) = read_text(text, source="t.txt")
        assert entry == Entry(PUZZLE, solution, "t.txt", 1, count)


def test_every_form_mixed_in_one_file_with_crlf() -> None:
    tails = [tail for tail, _, _ in FORMS.values()]
    grid = format_grid(PUZZLE).splitlines()
    lines = [
        "# tails of every kind, a grid and a CSV-looking comment: a, b",
        *(f"{TOP95_FIRST}{tail}" for tail in tails),
        "Grid 01",
        *grid,
        TOP95_FIRST,
        f"{format_line(sample(4))}  # a 4x4 puzzle",
        f"{format_line(sample(16))}:1",
    ]
    entries = read_text("\r\n".join(lines) + "\r\n")
    assert [e.puzzle for e in entries] == [PUZZLE] * (len(tails) + 2) + [sample(4), sample(16)]
    assert [e.line for e in entries] == [*range(2, 2 + len(tails)), 14, 25, 26, 27]
    assert [e.count for e in entries] == [c for _, c, _ in FORMS.values()] + [None, None, None, 1]
    assert [e.solution for e in entries][: len(tails)] == [s for _, _, s in FORMS.values()]
    assert all(is_solution(e.puzzle, e.solution) for e in entries if e.solution is not None)


def test_other_sizes_and_the_sixteen_character_head() -> None:
    six = format_line(sample(6))
    (entry,) = read_text(f"{six}:1:{format_line(solved(6))}")
    assert (entry.puzzle, entry.count, entry.solution) == (sample(6), 1, solved(6))
    four = format_line(sample(4))
    assert [e.puzzle.size for e in read_text(f"{four} # 4x4\n{four}\t4x4")] == [4, 4]
    big = format_line(sample(16))
    assert [e.puzzle for e in read_text(f"{big} # 16x16", size=16)] == [sample(16)]
    # a 16-character head with text after it is a 4x4 puzzle, or a bad row with size 16
    assert error("123456789ABCDEFG # a row").message == "'5' is not a value of a 4x4 puzzle"
    err = error(f"{four} # a row", size=16)
    assert (err.column, err.message) == (18, "'#' is not a value or a blank")
    rows = [format_line(solved(16))[i : i + 16] for i in range(0, 256, 16)]
    rows[5] += "  # row 6"  # inside a 16x16 grid: not a row, as before
    err = error("\n".join(rows))
    assert (err.line, err.column, err.message) == (6, 19, "'#' is not a value or a blank")


def test_lines_that_read_as_cells_keep_their_old_meaning() -> None:
    # 16 groups of 16 characters: one 16x16 puzzle, not a 4x4 puzzle and text
    rows = [format_line(solved(16))[i : i + 16] for i in range(0, 256, 16)]
    assert parse_puzzle(" ".join(rows)).size == 16
    assert parse_puzzle("1234 3412 2143 4321").size == 4
    zeros = TOP95_FIRST.replace(".", "0")
    assert str(parse_puzzle(" ".join(zeros[i : i + 9] for i in range(0, 81, 9)))) == TOP95_FIRST
    tabs = "\n".join(
        "\t".join(c.strip(".") for c in TOP95_FIRST[i : i + 9]) for i in range(0, 81, 9)
    )
    assert str(parse_puzzle(tabs)) == TOP95_FIRST
    numbers = "\n".join(" ".join(map(str, solved(16)[r * 16 : r * 16 + 16])) for r in range(16))
    assert parse_puzzle(numbers).givens == solved(16)


# --- errors in the fields ------------------------------------------------------------------


SOLUTION_WITH = TOP95_SOLUTION[:9] + "{}" + TOP95_SOLUTION[10:]  # column 94 after ":1:"
HAS = "the solution has {} cells; expected 81 for a 9x9 puzzle"
BLANK = "the solution has a blank; expected a complete grid"
THIRD = "unexpected ':' after the solution; expected puzzle:count:solution"


@pytest.mark.parametrize(
    ("tail", "column", "message"),
    [
        (":x", 83, "'x' is not a count of solutions (a whole number)"),
        (":-1", 83, "'-1' is not a count of solutions (a whole number)"),
        (":", 83, "a count of solutions (a whole number) is missing after ':'"),
        (f":1:{TOP95_SOLUTION[:80]}", 165, HAS.format(80)),
        (f":1:{TOP95_SOLUTION}9", 166, HAS.format(82)),
        (":1:" + SOLUTION_WITH.format("."), 94, BLANK),
        (":1:" + SOLUTION_WITH.format("y"), 94, "'y' is not a value or a blank"),
        (":1:" + SOLUTION_WITH.format("A"), 94, "'A' is not a value of a 9x9 puzzle"),
        (f":1:{TOP95_SOLUTION}:x", 166, THIRD),
    ],
)  # fmt: skip
def test_a_bad_count_or_solution_names_its_line_and_column(
    tail: str, column: int, message: str
) -> None:
    err = error(f"{TOP95_FIRST}\n{TOP95_FIRST}{tail}\n{TOP95_FIRST}", source="s.txt")
    assert (err.source, err.line, err.column, err.message) == ("s.txt", 2, column, message)
    entries, errors = read(f"{TOP95_FIRST}\n{TOP95_FIRST}{tail}\n{TOP95_FIRST}")
    assert [e.line for e in entries] == [1, 3]
    assert [str(e) for e in errors] == [str(err).replace("s.txt", "<text>")]


def test_a_bad_puzzle_before_its_fields_is_named_first() -> None:
    err = error(f"{TOP95_FIRST[:-1]}G:x")
    assert (err.column, err.message) == (81, "'G' is not a value of a 9x9 puzzle")


# --- CSV or not ----------------------------------------------------------------------------


def test_a_comma_in_the_text_after_a_puzzle_is_not_csv() -> None:
    for tail in ("  # from the forum, 2005", "\tfrom the forum, 2005", ":1 # one, and only"):
        entries = read_text(f"{TOP95_FIRST}{tail}\n{TOP95_FIRST}\n")
        assert [(e.puzzle, e.solution) for e in entries] == [(PUZZLE, None)] * 2, tail


def test_csv_is_still_csv() -> None:
    for text in (
        f"{TOP95_FIRST},{TOP95_SOLUTION}",
        f"{TOP95_FIRST} , {TOP95_SOLUTION}",
        f"{TOP95_FIRST}, {TOP95_SOLUTION}",
        f"puzzle,solution\n{TOP95_FIRST},{TOP95_SOLUTION}",
    ):
        assert [(e.puzzle, e.solution) for e in read_text(text)] == [(PUZZLE, SOLUTION)], text


# --- reading on past errors ----------------------------------------------------------------


def test_recovery_in_a_large_text(data_dir: Path) -> None:
    good = (data_dir / "norvig-pytudes/sudoku10k.txt").read_text().split("\n")[:5000]
    lines = list(good)
    broken = {  # line number: the bad line
        7: good[6][:80],
        1234: good[1233][:40] + "x" + good[1233][41:],
        2500: good[2499] + ":many",
        2501: good[2500] + f":1:{TOP95_SOLUTION[:80]}",
        4999: good[4998] + "..",
        5000: "Y" + good[4999],
    }
    for no, line in broken.items():
        lines[no - 1] = line
    text = "\n".join(lines)
    entries, errors = read(text, source="10k")
    kept = [no for no in range(1, 5001) if no not in broken]
    assert [str(e.puzzle) for e in entries] == [good[no - 1] for no in kept]
    assert [e.line for e in entries] == kept
    assert [e.line for e in errors] == sorted(broken)
    assert all(e.source == "10k" for e in errors)
    first = error(text, source="10k")  # without a list: the first error, as before
    assert str(first) == str(errors[0])
    assert str(first) == "10k: line 7, column 81: line has 80 cells; expected 81 for a 9x9 puzzle"


def test_recovery_of_generated_lines_with_tails() -> None:
    rng = random.Random(13)
    lines, expected, bad = [], [], []
    for no in range(1, 2001):
        p = sample(9, no)
        line = format_line(p) + rng.choice(["", "  # ok, fine", "\tnote", ":1"])
        if no % 97 == 0:
            line = line[:50] + "?" + line[51:]
            bad.append(no)
        else:
            expected.append(p)
        lines.append(line)
    entries, errors = read("\n".join(lines))
    assert [e.puzzle for e in entries] == expected
    assert [(e.line, e.column) for e in errors] == [(no, 51) for no in bad]


def grid_rows(puzzle: str = TOP95_FIRST) -> list[str]:
    """The nine rows of a 9x9 line."""
    return [puzzle[i : i + 9] for i in range(0, 81, 9)]


def test_a_grid_cut_short_in_the_middle_is_dropped() -> None:
    rows = grid_rows()
    text = "\n".join(["Grid 1", *rows, "Grid 2", *rows[:6], "", "Grid 3", *rows, TOP95_FIRST])
    entries, errors = read(text)
    assert [e.line for e in entries] == [2, 20, 29]
    assert [e.message for e in errors] == [
        "grid starting at line 12 ended after 6 rows; a 9x9 grid needs 9"
    ]
    assert where(errors) == [(18, None)]
    assert str(error(text)) == str(errors[0])


def test_a_grid_cut_short_by_a_whole_puzzle_keeps_the_puzzle() -> None:
    rows = grid_rows()
    entries, errors = read("\n".join([*rows[:7], TOP95_FIRST, *rows]))
    assert [e.line for e in entries] == [8, 9]
    assert [e.message for e in errors] == [
        "line has 81 cells; expected 9 for a row of the 9x9 grid starting at line 1"
    ]
    assert where(errors) == [(8, 10)]


@pytest.mark.parametrize(
    ("bad_row", "wrong", "error_row"),
    [
        (0, "short", 1),  # a short first row is seen at the second, as before
        (0, "bad", 0),
        (3, "short", 3),
        (3, "bad", 3),
        (8, "short", 8),
        (8, "bad", 8),
    ],
)
def test_a_grid_with_a_wrong_row_is_dropped_whole(bad_row: int, wrong: str, error_row: int) -> None:
    rows = grid_rows()
    rows[bad_row] = rows[bad_row][:8] if wrong == "short" else "x" + rows[bad_row][1:]
    back_to_back = "\n".join(["# one bad grid, then a good one", *rows, *grid_rows()])
    entries, errors = read(back_to_back)
    assert [e.line for e in entries] == [11]
    assert [e.line for e in errors] == [error_row + 2]
    assert str(error(back_to_back)) == str(errors[0])
    entries, errors = read("\n".join([*rows, "", TOP95_FIRST, "", *grid_rows()]))
    assert [e.line for e in entries] == [11, 13]
    assert [e.line for e in errors] == [error_row + 1]


def test_a_grid_cut_short_at_the_end() -> None:
    entries, errors = read("\n".join([TOP95_FIRST, *grid_rows()[:3]]) + "\n")
    assert [e.line for e in entries] == [1]
    assert [(e.line, e.message) for e in errors] == [
        (5, "grid starting at line 2 ended after 3 rows; a 9x9 grid needs 9")
    ]


def test_a_bad_csv_row_is_skipped() -> None:
    rows = [
        "puzzle,solution",
        f"{TOP95_FIRST},{TOP95_SOLUTION}",
        f"{TOP95_FIRST[:80]},{TOP95_SOLUTION}",
        f"{TOP95_FIRST},{TOP95_SOLUTION[:9]}.{TOP95_SOLUTION[10:]}",
        f"{TOP95_FIRST}",
        f"{TOP95_FIRST},{TOP95_SOLUTION}",
    ]
    entries, errors = read("\n".join(rows))
    assert [(e.line, e.solution) for e in entries] == [(2, SOLUTION), (5, None), (6, SOLUTION)]
    assert where(errors) == [(3, 81), (4, 92)]
    assert str(error("\n".join(rows))) == str(errors[0])
    _, missing = read(f"solution,puzzle\n{TOP95_SOLUTION},{TOP95_FIRST}\n{TOP95_SOLUTION}")
    assert [(e.line, e.message) for e in missing] == [(3, "row has 1 field; the puzzle is field 2")]


def test_first_line_shifts_entries_and_errors() -> None:
    text = "\n".join([TOP95_FIRST, TOP95_FIRST[:80], *grid_rows(), *grid_rows()[:2]])
    entries, errors = read(text, first_line=101)
    assert [e.line for e in entries] == [101, 103]
    assert [e.line for e in errors] == [102, 113]
    assert errors[1].message == "grid starting at line 112 ended after 2 rows; a 9x9 grid needs 9"
    assert error(text, first_line=101).line == 102
    csv = read(f"{TOP95_FIRST},{TOP95_SOLUTION}\n{TOP95_FIRST},1", first_line=7)
    assert ([e.line for e in csv[0]], csv[1]) == ([7, 8], [])  # a short field 2 is no solution
    _, csv_errors = read(f"{TOP95_FIRST},{TOP95_SOLUTION}\nbad,{TOP95_SOLUTION}", first_line=7)
    assert [e.line for e in csv_errors] == [8]
    (doc,) = read_text('\n{"givens": "1..............."}', first_line=5)
    assert doc.line == 6


def test_errors_not_about_a_line_still_raise(tmp_path: Path) -> None:
    errors: list[ParseError] = []
    with pytest.raises(ValueError, match="unsupported size 10"):
        read_text(TOP95_FIRST, size=10, errors=errors)
    binary = tmp_path / "latin1.txt"
    binary.write_bytes(TOP95_FIRST.encode() + b"\n\xe9\n")
    with pytest.raises(ParseError, match="not UTF-8"):
        read_file(binary, errors=errors)
    with pytest.raises(ParseError, match="cannot read"):
        read_file(tmp_path / "missing.txt", errors=errors)
    assert errors == []


def test_read_file_reads_on_past_errors(tmp_path: Path) -> None:
    path = tmp_path / "set.txt"
    path.write_text(f"{TOP95_FIRST}:1\n{TOP95_FIRST}:one\n{TOP95_FIRST} # fine\n")
    errors: list[ParseError] = []
    entries = read_file(path, errors=errors)
    assert [(e.line, e.count) for e in entries] == [(1, 1), (3, None)]
    assert [str(e) for e in errors] == [
        f"{path}: line 2, column 83: 'one' is not a count of solutions (a whole number)"
    ]


# --- the property --------------------------------------------------------------------------

PROPERTY_SIZES = [n for n in SIZES if n <= 16]
#: Characters that start free text after spaces: not cells, so the line cannot read as cells.
STARTS = "QRSTUVWXYZqrstuvwxyz!?()/"
TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\r\n\x1a"))
#: Free text after a tab: not starting with a comma, which would make "puzzle<TAB>,..." CSV.
FREE = TEXT.filter(lambda t: not t.lstrip(" \t").startswith(","))


@st.composite
def puzzle_lines(draw: st.DrawFn) -> tuple[str, int]:
    """A puzzle line of some size, in any blank and letter case, with one given at least."""
    n = draw(st.sampled_from(PROPERTY_SIZES))
    symbols = [ch for ch, v in VALUES.items() if v <= n]
    line = draw(st.text(st.sampled_from(symbols), min_size=n * n, max_size=n * n))
    given = draw(st.integers(0, n * n - 1))
    line = line[:given] + "123456789ABCDEFG"[draw(st.integers(0, n - 1))] + line[given + 1 :]
    return line, n


@st.composite
def tails(draw: st.DrawFn, n: int) -> str:
    """Any of the forms that may follow a whole puzzle on its line."""
    solution = format_line(solved(n))
    text = draw(TEXT)
    count = str(draw(st.integers(0, 10**6)))
    after = draw(st.sampled_from(["", f" {text}", f"\t{text}", f"#{text}", f"  # {text}"]))
    return draw(
        st.sampled_from(
            [
                "",
                f"\t{draw(FREE)}",
                " " * draw(st.integers(1, 3)) + draw(st.sampled_from(STARTS)) + text,
                f"#{text}",
                f" # {text}",
                f":{count}{after}",
                f":{count}:{solution}{after}",
                f":{count}:{after}",
            ]
        )
    )


@settings(max_examples=80, deadline=None)
@given(st.lists(puzzle_lines(), min_size=1, max_size=8), st.data())
def test_property_any_tail_reads_as_the_bare_line(
    lines: list[tuple[str, int]], data: st.DataObject
) -> None:
    bare = read_text("\n".join(line for line, _ in lines))
    ended = [line + data.draw(tails(n)) for line, n in lines]
    newline = data.draw(st.sampled_from(["\n", "\r\n"]))
    tailed = read_text(newline.join(ended))
    assert [e.puzzle for e in tailed] == [e.puzzle for e in bare]
    assert [e.line for e in tailed] == [e.line for e in bare] == list(range(1, len(lines) + 1))
