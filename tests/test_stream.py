"""The block reader and the batch path of `solve`: the same puzzles, errors and answers as
reading and solving one puzzle at a time, in chunks of any size."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sudokulab import solve
from sudokulab.backends import get_backend
from sudokulab.backends.base import unsupported
from sudokulab.cli import main
from sudokulab.models import (
    ParseError,
    build_model,
    format_grid,
    format_line,
    read_file,
    read_text,
)
from sudokulab.models.stream import Block, read_blocks

SHIPPED = Path(__file__).resolve().parent.parent / "data"


def _read(path, chunk_bytes=1 << 22, size=None):
    """Entries and errors of read_blocks, in order."""
    entries, errors = [], []
    for item in read_blocks(path, size=size, chunk_bytes=chunk_bytes):
        if isinstance(item, ParseError):
            errors.append(item)
        else:
            assert isinstance(item, Block) and len(item)
            entries += item.entries()
    return entries, errors


def _where(errors):
    return [(e.source, e.line, e.column, e.message) for e in errors]


@pytest.mark.parametrize("chunk", [1 << 22, 700, 1])
def test_blocks_hold_what_the_reader_reads_in_any_chunk_size(data_dir, chunk):
    files = sorted(SHIPPED.glob("*.jsonl")) + [SHIPPED / "seeds.csv"]
    files += [
        data_dir / "norvig-pytudes" / name for name in ("sudoku-top95.txt", "sudoku-hardest.txt")
    ]
    for path in files:
        assert _read(path, chunk) == (read_file(path), []), path


MIXED = """\
# a file of every kind of line
4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......
52...6.........7.13...........4..8..6......5...........418.........3..2...87.....\tfrom the forum

Grid 01
003020600
900305001
001806400
008102900
700000008
006708200
002609500
800203009
005010300

6.....8.3.4.7.................5.4.7.3..2.....1.6.......2.....5.....8.6......1....  # hard, rated 9.9
48.3............71.2.......7.5....6....2..8.............1.76...3.....4......5....:1
.....6....59.....82....8....45........3........6..3.54...325..6..................x
..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..
003020600
900305001
"""


@pytest.mark.parametrize("chunk", [1 << 22, 120, 1])
def test_a_mixed_file_reads_as_read_text_reads_it_errors_in_place(tmp_path, chunk):
    path = tmp_path / "mixed.txt"
    path.write_text(MIXED)
    errors = []
    expected = read_text(MIXED, str(path), errors=errors)
    entries, found = _read(path, chunk)
    assert entries == expected
    assert _where(found) == _where(errors)
    assert [e.line for e in entries] == [2, 3, 6, 16, 17, 19]
    assert [e.line for e in found] == [18, 22]  # the bad character, the grid cut short at the end
    assert entries[4].count == 1


def test_a_16_cell_line_is_read_by_the_reader_rules(tmp_path):
    path = tmp_path / "fours.txt"
    for lines in (["1..............."] * 3, ["1...............", "123456789ABCDEFG"]):
        path.write_text("\n".join(lines) + "\n")
        errors = []
        entries, found = _read(path)
        assert entries == read_text(path.read_text(), str(path), errors=errors)
        assert _where(found) == _where(errors)
        assert len(entries) == (3 if len(set(lines)) == 1 else 0)


def test_unreadable_and_not_utf8_files_are_errors_not_crashes(tmp_path):
    (tmp_path / "bad.txt").write_bytes(b"\xff\xfe....\n")
    assert _read(tmp_path / "missing.txt")[1][0].message.startswith("cannot read the file")
    entries, errors = _read(tmp_path / "bad.txt")
    assert entries == [] and "not UTF-8" in errors[0].message


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_bad_line_in_a_large_file_costs_only_that_line(capsys, tmp_path, data_dir):
    source = (data_dir / "norvig-pytudes" / "sudokus_17.txt").read_text().splitlines()
    lines = source[:5000]
    bad = lines[2500][:30] + "x" + lines[2500][31:]
    lines[2500] = bad
    path = tmp_path / "big.txt"
    path.write_text("\n".join(lines) + "\n")
    code, out, err = _run(capsys, "solve", str(path))
    assert code == 2
    answers = out.splitlines()
    assert len(answers) == 4999
    good = [e.puzzle for e in read_text("\n".join(lines[:2500] + lines[2501:]))]
    assert all(solve(p, limit=1).solution == tuple(int(c) for c in a)
               for p, a in zip(good[::250], answers[::250], strict=True))  # fmt: skip
    assert err == f"sudokulab: error: {path}: line 2501, column 31: 'x' is not a value or a blank\n"


@pytest.mark.parametrize("backend", ["native", "native-py"])
@pytest.mark.parametrize("mode", [[], ["--unique"], ["--format", "grid"], ["--count"]])
def test_solve_prints_what_one_puzzle_at_a_time_gives(capsys, backend, mode):
    rng = random.Random(3)
    for path in sorted(SHIPPED.glob("*.jsonl")):
        entries = read_file(path)
        if unsupported(get_backend(backend), build_model(entries[0].puzzle)):
            continue  # a rule variant the engine does not take (yet)
        if backend == "native-py":
            entries = rng.sample(entries, min(3, len(entries)))
        elif mode == ["--count"]:
            entries = entries[:20]
        code, out, err = _run(capsys, "solve", "--backend", backend, *mode,
                              *[_write(path, entries)])  # fmt: skip
        limit = 1000 if mode == ["--count"] else 2 if mode == ["--unique"] else 1
        expected = []
        for entry in entries:
            result = solve(entry.puzzle, backend, limit)
            if mode == ["--count"]:
                expected.append(f"{result.count}")
            elif mode == ["--format", "grid"]:
                expected.append(format_grid(result.solution, entry.puzzle.geometry))
            else:
                text = format_line(result.solution)
                expected.append(text + (" unique" if mode else ""))
        separator = "\n\n" if mode == ["--format", "grid"] else "\n"
        assert (code, out, err) == (0, separator.join(expected) + "\n", ""), path


_FILES: dict[str, str] = {}


def _write(path, entries):
    """The entries as one JSON Lines file (they may be variants) in a temporary place."""
    import tempfile

    from sudokulab.models.documents import dumps

    folder = _FILES.setdefault("dir", tempfile.mkdtemp())
    out = Path(folder) / f"{path.stem}-{len(entries)}.jsonl"
    out.write_text("".join(dumps(e.puzzle) + "\n" for e in entries))
    return str(out)


def test_check_names_bad_lines_checks_the_rest_and_compares_known_counts(capsys, tmp_path):
    path = tmp_path / "counts.txt"
    path.write_text(
        "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......:1\n"
        "52...6.........7.13...........4..8..6......5...........418.........3..2...87.....x\n"
        "..3.2.6..9..3.5..1..18.64....81.29..7.......8..67.82....26.95..8..2.3..9..5.1.3..:2\n"
        "1...............:0\n"
    )
    code, out, err = _run(capsys, "check", str(path), "--backends", "native,native-py")
    assert code == 2
    assert f"{path}: line 2, column 82: 'x' is not a value or a blank" in err
    flagged = [line for line in out.splitlines() if "differs from the known answer" in line]
    assert len(flagged) == 4  # two backends x (line 3: one solution, not 2; line 4: many)
    assert f"{path}:3:" in out and f"{path}:4:" in out and f"{path}:1:" not in out
    assert "1 bad line in the input was not checked" in out
