"""Pencil-mark (Sukaku) puzzles: read in tdoku's one-line form and the grid form, written
back, and solved with their candidates by every backend (the native engine in both its
implementations, with the same counters)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from helpers import random_solution
from hypothesis import given, settings
from hypothesis import strategies as st

from sudokulab import Puzzle, build_model, is_solution, parse_puzzle, solve
from sudokulab.api import solve_grids
from sudokulab.backends import all_backends, as_spec, get_backend
from sudokulab.backends.base import unsupported
from sudokulab.bench.plan import skip_reason
from sudokulab.cli import main
from sudokulab.models import (
    ParseError,
    format_candidates,
    format_grid,
    format_line,
    geometry,
    read_text,
    stream,
)
from sudokulab.models.documents import dumps
from sudokulab.models.grids import Grids
from sudokulab.models.stream import Block, read_blocks
from sudokulab.models.variants import with_variant

#: A puzzle of 24 givens with exactly two solutions (a deadly rectangle left open).
TWO = "4...6.8....2.5....9.87......2....16.........2....1.7.......3...57...16.416.8...9."
#: Every backend spec that takes pencil marks, with the options worth a run of their own.
SPECS = [
    "cpsat",
    "sat",
    "sat:encoding=extended",
    "sat:encoding=minimal",
    "sat:search=failed-literal",
    "mip",
    "mip:solver=highs",
    "mip:solver=cbc",
    "smt",
    "smt:logic=QF_LIA",
    "dlx",
    "constraint",
    "constraint:forwardcheck=false",
    "constraint:solver=optimized",
    "native",
    "native-py",
    "native:propagation=forward",
    "native:propagation=singles",
    "native:propagation=locked",
]


def bit(v: int) -> int:
    return 1 << (v - 1)


def plain_masks(puzzle: Puzzle) -> list[int]:
    full = (1 << puzzle.size) - 1
    return [bit(v) if v else full for v in puzzle.givens]


@pytest.fixture(scope="module")
def two():
    """The puzzle, its two solutions, and a cell where they differ."""
    puzzle = parse_puzzle(TWO)
    found = solve(puzzle, "native", limit=3)
    assert (found.status, found.count, found.exact) == ("multiple", 2, True)
    first, second = found.solutions
    cell = next(c for c in range(81) if first[c] != second[c])
    return puzzle, first, second, cell


def narrowed(puzzle: Puzzle, cell: int, *excluded: int) -> Puzzle:
    masks = plain_masks(puzzle)
    for v in excluded:
        masks[cell] &= ~bit(v)
    return Puzzle.from_candidates(masks, puzzle.geometry)


# --- the one-line form ---------------------------------------------------------------------


def test_the_line_holds_each_digit_at_its_place_as_tdoku_writes_it():
    # r1c1 given 2 (one candidate), r1c2 may be 1 or 4, every other cell anything
    n = 4
    cells = ["." + "2" + "..", "1" + ".." + "4"] + ["1234"] * 14
    puzzle = parse_puzzle("".join(cells), size=n)
    assert puzzle.candidates is not None
    assert puzzle.candidates[:3] == (bit(2), bit(1) | bit(4), 0b1111)
    assert puzzle.givens[:2] == (2, 0)  # one candidate: a given
    assert build_model(puzzle).domains[:2] == ((2,), (1, 4))
    # tdoku's 729 characters: input[row * 81 + col * 9 + digit - 1]
    line = "".join(str(v) for _ in range(81) for v in range(1, 10))
    line = line[: 9 * 10 + 4] + "." + line[9 * 10 + 5 :]  # r2c2 (cell 10) loses 5
    puzzle = parse_puzzle(line)
    assert puzzle.size == 9 and puzzle.candidates[10] == 0b111101111


def test_a_64_character_line_is_an_8x8_puzzle_unless_the_size_says_4():
    line = "1234" * 16
    assert parse_puzzle(line).size == 8
    marks = parse_puzzle(line, size=4)
    assert marks.size == 4 and marks.candidates is None  # every value everywhere: plain
    assert marks == Puzzle.from_grid([0] * 16)


def test_marks_that_narrow_nothing_are_the_plain_puzzle(two):
    puzzle = two[0]
    marks = Puzzle.from_candidates(plain_masks(puzzle), puzzle.geometry)
    assert marks.candidates is None and marks == puzzle
    assert parse_puzzle(format_line(narrowed(puzzle, 0))) == puzzle
    assert solve(marks, "native", limit=3).count == 2  # so the native engine takes it


def test_a_line_with_text_after_it_and_solver_fields(two):
    puzzle, first, second, cell = two
    marks = narrowed(puzzle, cell, first[cell])
    line = format_line(marks)
    answer = "".join(map(str, second))
    entries = read_text(f"{line}  # from a forum\n{line}:1:{answer}\n")
    assert [e.puzzle for e in entries] == [marks, marks]
    assert (entries[1].count, entries[1].solution) == (1, second)


def test_csv_and_documents_carry_marks(two):
    puzzle, first, _, cell = two
    marks = narrowed(puzzle, cell, first[cell])
    (entry,) = read_text(f"puzzle,id\n{format_line(marks)},7\n")
    assert entry.puzzle == marks
    (entry,) = read_text(dumps(marks))
    assert entry.puzzle == marks


# --- the grid form -------------------------------------------------------------------------


def test_the_grid_form_is_read_back(two):
    puzzle, first, _, cell = two
    marks = narrowed(puzzle, cell, first[cell])
    text = format_grid(marks)
    assert text == format_candidates(marks.candidates, marks.geometry)
    assert parse_puzzle(text) == marks


def test_a_hand_written_grid_of_pairs_reads_as_candidates():
    # "12" is candidates 1 and 2 in a 4x4 grid, not the number twelve
    text = "12 34 | 34 12\n3  4  | 1  2\n------+------\n4 3 | 2 1\n12 12 | 34 34\n"
    puzzle = parse_puzzle(text)
    assert puzzle.candidates == ((3, 12, 12, 3) + (4, 8, 1, 2) + (8, 4, 2, 1) + (3, 3, 12, 12))
    assert puzzle.givens[4:12] == (3, 4, 1, 2, 4, 3, 2, 1)


@pytest.mark.parametrize("n", [12, 16, 25])
def test_larger_grids_of_marks_with_letters(n):
    rng = random.Random(n)
    solution = random_solution(n, rng)
    masks = [bit(v) | (bit(rng.randint(1, n)) if rng.random() < 0.5 else 0) for v in solution]
    masks[0] |= bit(10) | bit(11)  # "AB" in it: these cells are not numbers
    puzzle = Puzzle.from_candidates(masks, geometry(n))
    assert parse_puzzle(format_line(puzzle)) == puzzle
    assert parse_puzzle(format_grid(puzzle)) == puzzle
    assert "AB" in format_grid(puzzle).split()[0]


masks_strategy = st.sampled_from([4, 6, 8, 9]).flatmap(
    lambda n: st.tuples(
        st.just(n), st.lists(st.integers(1, (1 << n) - 1), min_size=n * n, max_size=n * n)
    )
)


@settings(max_examples=60, deadline=None)
@given(masks_strategy)
def test_round_trip_of_any_marks(case):
    n, masks = case
    puzzle = Puzzle.from_candidates(masks, geometry(n))
    size = 4 if n == 4 else None  # 64 characters: 8x8 unless the size says 4
    assert parse_puzzle(format_line(puzzle), size=size) == puzzle
    assert parse_puzzle(format_grid(puzzle), size=size) == puzzle
    if not puzzle.clashes():  # a document's givens must not clash
        assert read_text(dumps(puzzle))[0].puzzle == puzzle


# --- errors, positioned --------------------------------------------------------------------


def error(text: str, size: int | None = None) -> ParseError:
    with pytest.raises(ParseError) as info:
        read_text(text, size=size)
    return info.value


def test_errors_name_the_line_the_column_and_the_cell():
    full = "123456789" * 81
    err = error("\n" + full[:3] + "5" + full[4:])  # r1c1's 4th character must be 4 or .
    assert (err.line, err.column) == (2, 4)
    assert err.message == "'5' is not '4' or a blank (the mark of 4 in r1c1)"
    err = error(full[:18] + "." * 9 + full[27:])  # r1c3 has every value excluded
    assert (err.line, err.column) == (1, 19)
    assert err.message == "r1c3 has no candidate (its 9 characters are all blanks)"
    err = error(full[:-1])
    assert err.column == 729
    assert err.message == "line has 728 cells; expected 729 for the pencil marks of a 9x9 puzzle"
    err = error(full[:4] + "x" + full[5:])
    assert (err.column, err.message) == (5, "'x' is not '5' or a blank (the mark of 5 in r1c1)")


def test_a_grid_cell_with_no_candidate_is_an_error_at_that_cell():
    text = "12 34 | 34 12\n3  4  | -  2\n4 3 | 2 1\n12 12 | 34 34\n"
    err = error(text)
    assert (err.line, err.column) == (2, 9)
    assert err.message.startswith("r2c3 has no candidate")


def test_bad_lines_are_skipped_and_the_good_ones_read(two):
    puzzle, first, _, cell = two
    good = format_line(narrowed(puzzle, cell, first[cell]))
    bad = good[:99] + "." * 9 + good[108:]  # r2c3 (characters 100-108) of no candidate
    errors: list[ParseError] = []
    entries = read_text("\n".join([good, bad, good, TWO]), errors=errors)
    assert [e.line for e in entries] == [1, 3, 4]
    assert [(e.line, e.column) for e in errors] == [(2, 100)]


def test_clashing_single_candidates_are_invalid_givens():
    masks = [0b1111] * 16
    masks[0] = masks[1] = bit(3)  # r1c1 and r1c2 both 3
    result = solve(Puzzle.from_candidates(masks, geometry(4)), "cpsat")
    assert result.status == "invalid" and "r1c1 and r1c2 are both 3" in result.message


# --- files, blocks, the batch path ---------------------------------------------------------


def test_a_file_streams_in_blocks_with_marks_and_errors_in_place(tmp_path, two):
    puzzle, first, second, cell = two
    marks = narrowed(puzzle, cell, first[cell])
    line = format_line(marks)
    bad = "9" + line[1:]
    path = tmp_path / "marks.txt"
    path.write_text("\n".join([line] * 5 + [bad] + [line] * 5 + [TWO]) + "\n")
    items = list(read_blocks(path, chunk_bytes=2000))  # about two lines a chunk
    errors = [i for i in items if isinstance(i, ParseError)]
    blocks = [i for i in items if isinstance(i, Block)]
    assert [(e.line, e.column) for e in errors] == [(6, 1)]
    assert len(blocks) > 3  # read chunk by chunk, not held whole
    assert sum(len(b) for b in blocks) == 11
    assert all(b.grids.candidates is not None for b in blocks[:-1])
    assert blocks[-1].grids.candidates is None and blocks[-1].lines.tolist() == [12]
    answers = solve_grids(blocks[0].grids, "dlx")
    assert (answers.status_names() == "solved").all()
    assert blocks[0].grids.verify(answers.solution).all()
    assert (answers.solution == np.array(second, dtype=np.uint8)).all()


@pytest.mark.parametrize("chunk_bytes", [1 << 20, 3000])
def test_the_fast_path_reads_marks_as_read_text_does(tmp_path, monkeypatch, two, chunk_bytes):
    puzzle, first, second, cell = two
    good = format_line(narrowed(puzzle, cell, first[cell]))
    plain = format_line(narrowed(puzzle, 0))  # narrows nothing: the plain puzzle
    empty = good[:99] + "." * 9 + good[108:]  # r2c3 without a candidate
    wrong = good[:5] + "9" + good[6:]  # the place of r1c1's 6
    counted = good + ":1:" + "".join(map(str, second))
    lines = [good, good + "  # a comment, with a comma", plain, empty, TWO, wrong, good, counted]
    path = tmp_path / "mixed.txt"
    path.write_text("\n".join(lines) + "\n")
    slow: list[int] = []  # the lines read_text is given: not the plain pencil-mark ones

    def read_text_spy(text, source, size, errors, first_line):
        slow.extend(range(first_line, first_line + text.count("\n")))
        return read_text(text, source, size, errors, first_line)

    monkeypatch.setattr(stream, "read_text", read_text_spy)
    items = list(read_blocks(path, chunk_bytes=chunk_bytes))
    monkeypatch.undo()
    assert slow == [3, 4, 5, 6, 8]
    blocks = [b for b in items if isinstance(b, Block)]
    got = [(e.line, e.puzzle, e.count) for b in blocks for e in b.entries()]
    errors: list[ParseError] = []
    want = [(e.line, e.puzzle, e.count) for e in read_text(path.read_text(), errors=errors)]
    assert got == want
    assert [line for line, _, _ in got] == [1, 2, 3, 5, 7, 8]
    found = [(e.line, e.column, e.message) for e in items if isinstance(e, ParseError)]
    assert found == [(e.line, e.column, e.message) for e in errors]
    assert [where[:2] for where in found] == [(4, 100), (6, 6)]
    for block in blocks:  # a block is all pencil marks or all plain
        marked = [p.candidates is not None for p in block.grids.puzzles()]
        assert marked == [block.grids.candidates is not None] * len(block)


def test_the_bulk_verifier_checks_the_marks(two):
    puzzle, first, second, cell = two
    grids = Grids.of([narrowed(puzzle, cell, first[cell])] * 2)
    ok = grids.verify(np.array([first, second], dtype=np.uint8))
    assert ok.tolist() == [False, True]
    assert not is_solution(grids.puzzle(0), first) and is_solution(grids.puzzle(0), second)
    with pytest.raises(ValueError, match="pencil marks"):  # one block, one kind
        Grids.of([puzzle, grids.puzzle(0)])


# --- every backend -------------------------------------------------------------------------


@pytest.fixture(params=SPECS)
def spec(request):
    backend = get_backend(request.param.partition(":")[0])
    if not backend.available():
        pytest.skip(f"{backend.name} is not installed (pip install {backend.requires})")
    return request.param


def test_marks_make_the_answer_unique_or_leave_none(spec, two):
    puzzle, first, second, cell = two
    unique = narrowed(puzzle, cell, first[cell])
    result = solve(unique, spec, limit=None, timeout=120)
    assert (result.status, result.count, result.exact) == ("solved", 1, True)
    assert result.solution == second and is_solution(unique, result.solution)
    other = narrowed(puzzle, cell, second[cell])
    assert solve(other, spec, limit=2, timeout=120).solution == first
    none = narrowed(puzzle, cell, first[cell], second[cell])
    result = solve(none, spec, limit=2, timeout=120)
    assert (result.status, result.count, result.exact) == ("unsolvable", 0, True)


@pytest.mark.parametrize("name", ["native", "native-py"])
def test_the_native_engine_takes_pencil_marks_one_by_one_and_in_blocks(name, two):
    puzzle, first, second, cell = two
    marks = narrowed(puzzle, cell, first[cell])
    backend = get_backend(name)
    assert backend.pencil_marks and unsupported(backend, build_model(marks)) == ""
    result = solve(marks, name, limit=2)
    assert (result.status, result.solution) == ("solved", second)
    # a mark that keeps both solutions: a blank where they agree loses another value
    blank = next(c for c in range(81) if not puzzle.givens[c] and first[c] == second[c])
    both = narrowed(puzzle, blank, first[blank] % 9 + 1)
    answers = solve_grids(Grids.of([marks, both, marks]), name, limit=2)
    assert answers.status_names().tolist() == ["solved", "multiple", "solved"]
    assert answers.solution[0].tolist() == list(second)
    assert skip_reason(as_spec(name), "custom", [puzzle, marks]) == ""


def test_both_native_implementations_count_alike_on_marks(two):
    puzzle, first, _, cell = two
    marks = narrowed(puzzle, cell, first[cell])
    blank = next(c for c in range(81) if not puzzle.givens[c] and c != cell)
    other = narrowed(puzzle, blank, first[blank] % 9 + 1)
    block = Grids.of([marks, other])
    rows = [solve_grids(block, n, limit=2) for n in ("native", "native-py")]
    for field in ("count", "nodes", "guesses", "backtracks"):
        assert getattr(rows[0], field).tolist() == getattr(rows[1], field).tolist()


def test_every_backend_says_it_takes_them():
    takes = {name for name, b in all_backends().items() if b.pencil_marks}
    assert takes == set(all_backends())


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from([4, 6, 9]),
    st.randoms(use_true_random=False),
    st.sampled_from(["dlx", "sat", "native", "native-py"]),
)
def test_marks_that_keep_a_solution_never_make_the_puzzle_unsolvable(n, rng, spec):
    solution = random_solution(n, rng)
    full = (1 << n) - 1
    masks = [bit(v) | (rng.getrandbits(n) & full) for v in solution]
    puzzle = Puzzle.from_candidates(masks, geometry(n))
    result = solve(puzzle, spec, timeout=120)
    assert result.status == "solved" and is_solution(puzzle, result.solution)


def test_variants_keep_the_marks(two):
    puzzle, first, _, cell = two
    marks = narrowed(puzzle, cell, first[cell])
    assert with_variant(marks, ["x"]).candidates == marks.candidates


# --- the command line ----------------------------------------------------------------------


def test_the_command_line_solves_and_explains_marks(capsys, two):
    puzzle, first, second, cell = two
    line = format_line(narrowed(puzzle, cell, first[cell]))
    assert main(["solve", line, "--backend", "dlx"]) == 0
    out, err = capsys.readouterr()
    assert (out, err) == ("".join(map(str, second)) + "\n", "")
    assert main(["solve", line]) == 0
    out, err = capsys.readouterr()
    assert (out, err) == ("".join(map(str, second)) + "\n", "")
    assert main(["solve", line[:-1], "--backend", "dlx"]) == 2
    _, err = capsys.readouterr()
    assert "column 729" in err and "Traceback" not in err
    assert main(["explain", line]) == 0
    out, err = capsys.readouterr()
    assert err == "" and "hidden singles" in out  # the trace starts from the marks
    assert out.split()[-2:] == ["outcome", "solved"]


def test_the_bench_runs_native_on_marks_and_stores_them(tmp_path, capsys, two):
    import sqlite3

    puzzle, first, second, cell = two
    marks = narrowed(puzzle, cell, first[cell])
    path = tmp_path / "marks.txt"
    path.write_text(f"{format_line(marks)}\n" * 3)
    out = tmp_path / "out"
    args = ["bench", str(path), "--backends", "native,dlx", "--out", str(out), "--no-plots"]
    assert main(args) == 0
    _, err = capsys.readouterr()
    assert "skipped" not in err
    with sqlite3.connect(out / "results.sqlite") as db:
        texts = [row[0] for row in db.execute("select puzzle from puzzles")]
    assert [read_text(t)[0].puzzle for t in texts] == [marks] * 3
