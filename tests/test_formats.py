"""Reading and writing puzzle text: every public file, every form, every error's location."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
from helpers import sample, solved
from hypothesis import given, settings
from hypothesis import strategies as st

from sudokulab.models import SIZES, Puzzle, geometry, is_solution
from sudokulab.models.entries import value_of
from sudokulab.models.formats import (
    Entry,
    ParseError,
    format_candidates,
    format_grid,
    format_line,
    parse_puzzle,
    read_file,
    read_text,
    symbol,
)

TOP95_FIRST = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"

COUNTS = {
    "akleemans-sudoku-backtracking/magictour_easy.csv": 1011,
    "akleemans-sudoku-backtracking/magictour_hard.csv": 95,
    "akleemans-sudoku-backtracking/menneske_random.csv": 90,
    "akleemans-sudoku-backtracking/norvig_hardest.csv": 11,
    "norvig-pytudes/sudoku-easy50.txt": 50,
    "norvig-pytudes/sudoku-top95.txt": 95,
    "norvig-pytudes/sudoku-hardest.txt": 11,
    "norvig-pytudes/sudoku10k.txt": 10000,
    "norvig-pytudes/sudokus_17.txt": 49151,
    "amtal-sudoku/top1465": 1465,
    "sunjay-sudoku/top2365.txt": 2365,
    "sunjay-sudoku/top95.txt": 95,
    "sunjay-sudoku/msk_009.txt": 1011,
    "sunjay-sudoku/hard95.txt": 95,
    "sunjay-sudoku/hard95solutions.txt": 95,
    "tkych-cl-sudoku/easy50.txt": 50,
    "stevehjohn-Sudoku/Sudopedia Tests.txt": 4,
}


def puzzles(data_dir: Path, name: str) -> list[Puzzle]:
    """The puzzles of one public file."""
    return [e.puzzle for e in read_file(data_dir / name)]


def numbers_rows(p: Puzzle) -> str:
    """The numbers form, one row per line."""
    n = p.size
    return "\n".join(" ".join(map(str, p.givens[r * n : (r + 1) * n])) for r in range(n))


def numbers_line(p: Puzzle) -> str:
    """The numbers form, the whole puzzle on one line."""
    return " ".join(map(str, p.givens))


def error(text: str, **kwargs: object) -> ParseError:
    """The ParseError that reading ``text`` raises."""
    with pytest.raises(ParseError) as info:
        read_text(text, **kwargs)  # type: ignore[arg-type]
    return info.value


# --- the public files --------------------------------------------------------------------


def test_the_count_table_covers_every_file(data_dir: Path) -> None:
    listed = {str(p.relative_to(data_dir)) for p in data_dir.glob("*/*")}
    assert listed == set(COUNTS)


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_public_file_loads_with_its_stated_count(data_dir: Path, name: str) -> None:
    entries = read_file(data_dir / name)
    assert len(entries) == COUNTS[name]
    assert all(e.puzzle.size == 9 and e.source == str(data_dir / name) for e in entries)


def test_four_forms_of_top95_agree(data_dir: Path) -> None:
    forms = [
        puzzles(data_dir, "norvig-pytudes/sudoku-top95.txt"),
        puzzles(data_dir, "akleemans-sudoku-backtracking/magictour_hard.csv"),
        puzzles(data_dir, "sunjay-sudoku/top95.txt"),
        puzzles(data_dir, "sunjay-sudoku/hard95.txt"),
    ]
    assert str(forms[0][0]) == TOP95_FIRST
    assert all(form == forms[0] for form in forms)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("norvig-pytudes/sudoku-easy50.txt", "tkych-cl-sudoku/easy50.txt"),
        ("norvig-pytudes/sudoku-hardest.txt", "akleemans-sudoku-backtracking/norvig_hardest.csv"),
        ("sunjay-sudoku/msk_009.txt", "akleemans-sudoku-backtracking/magictour_easy.csv"),
    ],
)
def test_copies_of_a_set_agree(data_dir: Path, a: str, b: str) -> None:
    assert puzzles(data_dir, a) == puzzles(data_dir, b)


def test_entry_lines_point_at_where_each_puzzle_starts(data_dir: Path) -> None:
    grids = read_file(data_dir / "tkych-cl-sudoku/easy50.txt")
    assert [e.line for e in grids[:3]] == [2, 12, 22]
    back_to_back = read_file(data_dir / "sunjay-sudoku/top2365.txt")
    assert [e.line for e in back_to_back[:3]] == [1, 10, 19]


@pytest.mark.parametrize(
    ("name", "count"),
    [
        ("akleemans-sudoku-backtracking/menneske_random.csv", 90),
        ("stevehjohn-Sudoku/Sudopedia Tests.txt", 4),
    ],
)
def test_csv_solutions_solve_their_puzzles(data_dir: Path, name: str, count: int) -> None:
    entries = read_file(data_dir / name)
    assert sum(e.solution is not None for e in entries) == count
    assert all(is_solution(e.puzzle, e.solution) for e in entries)


def test_hard95_solutions_solve_hard95_in_order(data_dir: Path) -> None:
    grids = puzzles(data_dir, "sunjay-sudoku/hard95.txt")
    answers = puzzles(data_dir, "sunjay-sudoku/hard95solutions.txt")
    assert all(a.given_count == 81 for a in answers)
    assert all(is_solution(p, a.givens) for p, a in zip(grids, answers, strict=True))


# --- round trips -------------------------------------------------------------------------

WRITERS = {
    "line": format_line,
    "line0": lambda p: format_line(p, blank="0"),
    "grid": format_grid,
    "numbers_rows": numbers_rows,
    "numbers_line": numbers_line,
}


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_round_trip_every_size(n: int, writer: str) -> None:
    p = sample(n)
    assert [e.puzzle for e in read_text(WRITERS[writer](p))] == [p]
    assert parse_puzzle(WRITERS[writer](p), size=n) == p


def test_big_sizes_use_letters() -> None:
    assert format_line(Puzzle(geometry(16), solved(16)))[:16] == "123456789ABCDEFG"
    assert "P" in format_line(Puzzle(geometry(25), solved(25)))
    p = parse_puzzle(format_line(sample(16)).lower())
    assert p == sample(16)


def test_several_puzzles_of_mixed_forms_in_one_text() -> None:
    texts = [format_grid(sample(9, 1)), format_line(sample(9, 2)), numbers_rows(sample(6, 3))]
    got = [e.puzzle for e in read_text("\n\n".join(texts))]
    assert got == [sample(9, 1), sample(9, 2), sample(6, 3)]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(SIZES), st.data())
def test_property_every_writer_reads_back(n: int, data: st.DataObject) -> None:
    givens = data.draw(st.lists(st.integers(0, n), min_size=n * n, max_size=n * n))
    p = Puzzle(geometry(n), tuple(givens))
    for name, write in WRITERS.items():
        text = write(p)
        assert parse_puzzle(text, size=n) == p, name
        # 16 rows of 16 numbers, none above 4, also read as 16 4x4 puzzles: documented.
        if not (n == 16 and name == "numbers_rows" and max(givens) <= 4):
            assert parse_puzzle(text) == p, name


# --- forms and file quirks -----------------------------------------------------------------


def grid9(puzzle: str = TOP95_FIRST) -> list[str]:
    """The nine rows of a 9x9 line."""
    return [puzzle[i : i + 9] for i in range(0, 81, 9)]


def test_crlf_missing_final_newline_trailing_empty_lines_and_ctrl_z() -> None:
    expected = [parse_puzzle(TOP95_FIRST)] * 2
    for text in [
        f"{TOP95_FIRST}\r\n{TOP95_FIRST}\r\n",
        f"{TOP95_FIRST}\n{TOP95_FIRST}",
        f"{TOP95_FIRST}\n{TOP95_FIRST}\n\n\n  \n",
        f"{TOP95_FIRST}\r\n{TOP95_FIRST}\r\n\x1a",
        f"{TOP95_FIRST}\n{TOP95_FIRST}\n\x1aanything after the DOS end of file",
        f"\ufeff{TOP95_FIRST}\r{TOP95_FIRST}",
    ]:
        assert [e.puzzle for e in read_text(text)] == expected, repr(text[-30:])


def test_comments_headers_and_rule_lines() -> None:
    rows = grid9()
    text = "\n".join(
        [
            "# top95, first puzzle twice",
            "Grid 01",
            *rows[:4],
            "  # a comment inside a grid",
            *rows[4:],
            "=========",
            "Puzzle 2: hard",
            *rows,
            "SUDOKU",
            "",
            TOP95_FIRST,
        ]
    )
    entries = read_text(text)
    assert [e.puzzle for e in entries] == [parse_puzzle(TOP95_FIRST)] * 3
    assert [e.line for e in entries] == [3, 15, 26]


def test_boxed_grid_with_separators() -> None:
    text = """
    +-------+-------+-------+
    | 4 . . | . . . | 8 . 5 |
    | . 3 . | . . . | . . . |
    | . . . | 7 . . | . . . |
    +-------+-------+-------+
    | . 2 . | . . . | . 6 . |
    | . . . | . 8 . | 4 . . |
    | . . . | . 1 . | . . . |
    +-------+-------+-------+
    | . . . | 6 . 3 | . 7 . |
    | 5 . . | 2 . . | . . . |
    | 1 . 4 | . . . | . . . |
    +-------+-------+-------+
    """
    assert str(parse_puzzle(text)) == TOP95_FIRST
    compact = "\n".join(f"{r[:3]}|{r[3:6]}|{r[6:]}" for r in grid9())
    assert str(parse_puzzle(compact.replace("\n", "\n---+---+---\n", 1))) == TOP95_FIRST


def test_space_separated_box_groups_are_characters() -> None:
    text = "\n".join(f"{r[:3]} {r[3:6]} {r[6:]}" for r in grid9(TOP95_FIRST.replace(".", "0")))
    assert str(parse_puzzle(text)) == TOP95_FIRST


def test_every_blank_character() -> None:
    for blank in ".0-_*":
        assert str(parse_puzzle(TOP95_FIRST.replace(".", blank))) == TOP95_FIRST
    assert str(parse_puzzle(" ".join("1234" + "-" * 12))) == "1234" + "." * 12
    assert str(parse_puzzle("- - | - -\n" * 4)) == "." * 16  # spaced dashes are cells


def test_tab_separated_rows_with_empty_fields() -> None:
    rows = ["\t".join("" if c == "." else c for c in r) for r in grid9()]
    assert rows[0] == "4\t\t\t\t\t\t8\t\t5"
    assert str(parse_puzzle("\n".join(rows))) == TOP95_FIRST
    sixteen = "\n".join("\t".join(["16", *[""] * 15]) for _ in range(16))
    assert parse_puzzle(sixteen).givens[::16] == (16,) * 16
    blank_row = "\n".join(["1\t2\t3\t4", "\t\t\t", "\t\t\t", "4\t3\t\t1", "\t", ""])
    assert str(parse_puzzle(blank_row)) == "1234........43.1"  # a row of only tabs is blank


def test_numbers_form_for_big_sizes() -> None:
    p = sample(25)
    assert max(p.givens) > 9
    assert parse_puzzle(numbers_rows(p)) == p
    assert (
        parse_puzzle(
            "\n".join(
                " ".join(str(v or ".") for v in row)
                for row in (p.givens[r * 25 : (r + 1) * 25] for r in range(25))
            )
        )
        == p
    )


def test_sixteen_cell_lines() -> None:
    four = "1234341221434321"
    assert [e.puzzle.size for e in read_text(f"{four}\n{four}")] == [4, 4]
    sixteen = format_line(Puzzle(geometry(16), solved(16)))
    rows = [sixteen[i : i + 16] for i in range(0, 256, 16)]
    assert parse_puzzle("\n".join(rows)).size == 16  # values above 4 mark 16x16 rows
    small = Puzzle(geometry(16), tuple(v if v <= 4 else 0 for v in solved(16)))
    assert len(read_text(numbers_rows(small))) == 16  # the documented ambiguity
    assert parse_puzzle(numbers_rows(small), size=16) == small
    assert parse_puzzle(format_grid(small)) == small  # separator lines mark 16x16 rows


def test_csv_header_names_quotes_and_ignored_columns() -> None:
    solution = format_line(solved(9))
    puzzle = "." + solution[1:]
    text = f'id,difficulty,Solution,Quizzes\n7,2,"{solution}", {puzzle} \n8,3,,{puzzle}\n'
    entries = read_text(text)
    assert [(str(e.puzzle), e.solution, e.line) for e in entries] == [
        (puzzle, solved(9), 2),
        (puzzle, None, 3),
    ]
    plain = read_text(f"quizzes,solutions\n{puzzle},{solution}\n{puzzle},{solution}")
    assert [e.solution for e in plain] == [solved(9)] * 2
    no_header = read_text(f"{puzzle},{solution},9,12345\n{puzzle},1,{solution}\n")
    assert [e.solution for e in no_header] == [solved(9), None]  # a short field 2 is not one


def test_empty_texts() -> None:
    assert read_text("") == []
    assert read_text("\n\n# only comments\n\x1a") == []


def test_entry_fields() -> None:
    entry = read_text(f"\n{TOP95_FIRST}", source="top95.txt")[0]
    assert entry == Entry(parse_puzzle(TOP95_FIRST), None, "top95.txt", 2)


# --- errors ------------------------------------------------------------------------------


def test_bad_character_names_source_line_and_column() -> None:
    bad = TOP95_FIRST[:40] + "x" + TOP95_FIRST[41:]
    err = error(f"{TOP95_FIRST}\n# comment\n{bad}\n", source="top95.txt")
    assert str(err) == "top95.txt: line 3, column 41: 'x' is not a value or a blank"
    assert (err.source, err.line, err.column) == ("top95.txt", 3, 41)
    assert err.message == "'x' is not a value or a blank"
    assert isinstance(err, ValueError)


def test_columns_count_characters_of_the_original_line() -> None:
    err = error("  4 . . | . . . | 8 . x\r\n")
    assert (err.line, err.column) == (1, 23)
    err = error("4\t\t\t\t\t\t8\t\t?")
    assert err.column == 11


def test_value_too_big_for_the_size() -> None:
    err = error(TOP95_FIRST[:-1] + "G")
    assert str(err) == "<text>: line 1, column 81: 'G' is not a value of a 9x9 puzzle"
    err = error(numbers_rows(sample(9)).replace("0", "10", 1))
    assert err.message == "'10' is not a value of a 9x9 puzzle"


def test_wrong_line_length() -> None:
    err = error(TOP95_FIRST[:80])
    assert str(err) == "<text>: line 1, column 81: line has 80 cells; expected 81 for a 9x9 puzzle"
    err = error(TOP95_FIRST + "..")
    assert (err.column, err.message) == (82, "line has 83 cells; expected 81 for a 9x9 puzzle")
    err = error(TOP95_FIRST[:20], size=4)
    assert err.message == "line has 20 cells; expected 16 for a 4x4 puzzle"
    err = error(TOP95_FIRST, size=4)  # nearer the 64 characters of 4x4 pencil marks
    assert err.message == "line has 81 cells; expected 64 for the pencil marks of a 4x4 puzzle"
    rows = grid9()
    rows[3] = rows[3][:8]
    err = error("\n".join(rows))
    assert (err.line, err.column) == (4, 9)
    assert err.message == (
        "line has 8 cells; expected 9 for a row of the 9x9 grid starting at line 1"
    )


def test_wrong_row_count() -> None:
    rows = grid9()
    err = error("Grid 01\n" + "\n".join(rows[:7]) + "\n\nGrid 02\n" + "\n".join(rows))
    assert str(err) == (
        "<text>: line 9: grid starting at line 2 ended after 7 rows; a 9x9 grid needs 9"
    )
    err = error("\n".join(rows + rows[:2]))
    assert err.message == "grid starting at line 10 ended after 2 rows; a 9x9 grid needs 9"


def test_csv_errors() -> None:
    solution = format_line(solved(9))
    err = error(f"{TOP95_FIRST},{solution}\n{TOP95_FIRST},{solution[:5]}.{solution[6:]}")
    assert (err.line, err.column) == (2, 88)
    assert "blank" in err.message
    err = error(f"{TOP95_FIRST},{solution}\n{TOP95_FIRST[:9]}y{TOP95_FIRST[10:]},{solution}")
    assert (err.line, err.column, err.message) == (2, 10, "'y' is not a value or a blank")


def test_parse_error_survives_pickling() -> None:
    err = pickle.loads(pickle.dumps(error("12x4" * 4, source="a.txt")))
    assert (str(err), err.line, err.column) == (
        "a.txt: line 1, column 3: 'x' is not a value or a blank",
        1,
        3,
    )


def test_csv_puzzle_column_missing() -> None:
    err = error(f"solution,puzzle\n{TOP95_FIRST}")
    assert (err.line, err.message) == (2, "row has 1 field; the puzzle is field 2")


def test_fail_fast_on_the_first_bad_puzzle() -> None:
    err = error(f"{TOP95_FIRST[:80]}\n{TOP95_FIRST[:5]}x")
    assert err.line == 1


def test_parse_puzzle_wants_exactly_one() -> None:
    with pytest.raises(ParseError, match="expected one puzzle, found 3"):
        parse_puzzle("\n".join([TOP95_FIRST] * 3))
    with pytest.raises(ParseError, match="expected one puzzle, found none"):
        parse_puzzle("# nothing")


def test_unsupported_size_is_refused() -> None:
    with pytest.raises(ValueError, match="unsupported size 10"):
        read_text(TOP95_FIRST, size=10)


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.txt"
    with pytest.raises(ParseError, match="nope.txt") as info:
        read_file(missing)
    assert info.value.source == str(missing)
    binary = tmp_path / "latin1.txt"
    binary.write_bytes(TOP95_FIRST.encode() + b"\n\xe9\n")
    with pytest.raises(ParseError, match="not UTF-8") as info:
        read_file(binary)
    assert info.value.line == 2
    with pytest.raises(ParseError, match="folder|directory"):
        read_file(tmp_path)


def test_read_file_tolerates_bom_and_names_the_source(tmp_path: Path) -> None:
    path = tmp_path / "one.txt"
    path.write_bytes(b"\xef\xbb\xbf" + TOP95_FIRST.encode() + b"\r\n")
    (entry,) = read_file(str(path))
    assert (str(entry.puzzle), entry.source) == (TOP95_FIRST, str(path))
    bad = tmp_path / "bad.txt"
    bad.write_text(f"{TOP95_FIRST}\n{TOP95_FIRST[:-1]}x\n")
    with pytest.raises(ParseError) as info:
        read_file(bad)
    assert str(info.value) == f"{bad}: line 2, column 81: 'x' is not a value or a blank"


# --- writers -----------------------------------------------------------------------------


def test_format_grid_layout() -> None:
    text = format_grid(parse_puzzle(TOP95_FIRST))
    assert text.splitlines()[:4] == [
        "4 . . | . . . | 8 . 5",
        ". 3 . | . . . | . . .",
        ". . . | 7 . . | . . .",
        "------+-------+------",
    ]
    assert len(text.splitlines()) == 11
    six = format_grid(tuple(range(1, 7)) * 6).splitlines()
    assert six[:3] == ["1 2 3 | 4 5 6", "1 2 3 | 4 5 6", "------+------"]
    assert format_grid(solved(4)) == "1 2 | 3 4\n3 4 | 1 2\n----+----\n2 3 | 4 1\n4 1 | 2 3"


def test_format_line_accepts_grids_and_a_blank_character() -> None:
    assert format_line(parse_puzzle(TOP95_FIRST).givens, blank="0") == TOP95_FIRST.replace(".", "0")
    with pytest.raises(ValueError, match="80 cells"):
        format_line((0,) * 80)


def test_format_candidates() -> None:
    g = geometry(4)
    cells: list[object] = [0b1111, [1, 2], set(), 0b0100] + [[3]] * 12
    text = format_candidates(cells, g)  # type: ignore[arg-type]
    assert text.splitlines() == [
        "1234 12   | -    3",
        "3    3    | 3    3",
        "----------+----------",
        "3    3    | 3    3",
        "3    3    | 3    3",
    ]
    assert not any(line.endswith(" ") for line in text.splitlines())
    big = format_candidates([1 << 15] * 256, geometry(16))
    assert big.splitlines()[0].startswith("G G G G | G")


def test_symbols_and_values() -> None:
    assert [symbol(v) for v in (1, 9, 10, 16, 25)] == ["1", "9", "A", "G", "P"]
    assert [value_of(c) for c in "19AgP.0-_*"] == [1, 9, 10, 16, 25, 0, 0, 0, 0, 0]
    with pytest.raises(ValueError):
        value_of("Q")
