"""Reading a file of puzzles in blocks: bounded memory, in file order, errors in place.

:func:`read_blocks` reads a file (or standard input) chunk by chunk and yields, in file
order, :class:`Block` s of puzzles of one shape (arrays, see :mod:`.grids`) and the
:class:`ParseError` of each bad line, so a caller answers every good puzzle, names
every bad one, and never holds more than a chunk of a large file.

The rules are :func:`~.formats.read_text`'s. Most of a large file is usually one
puzzle per line, which this reads with a few numpy operations per chunk: a line whose
first n*n characters are values or blanks, followed by nothing, a TAB, a space or ``#``
(the common line; a 16-character line is never read this way, since it may be a row of
a 16x16 grid). Every other run of lines (grids, ``:`` fields, anything unusual) goes to
:func:`~.formats.read_text` as one text, so it means exactly what it means there.
CSV and JSON files are read whole by :func:`~.formats.read_file`. A line of pencil
marks (n*n*n characters, 729 for 9x9) is read fast the same way when each character is
its value or a blank, every cell keeps a candidate and the marks narrow some cell; the
others go to :func:`~.formats.read_text` a chunk at a time (such a line is a whole
puzzle: nothing after it continues one before it). Pencil-mark puzzles form blocks of
their own, apart from plain ones.
"""

from __future__ import annotations

import io
import itertools
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import BinaryIO

import numpy as np

from .entries import Entry, ParseError
from .formats import read_file, read_text
from .geometry import SIZES, geometry
from .grids import _VALUES, Grids

#: Bytes per chunk: a few megabytes of text at a time.
CHUNK_BYTES = 1 << 20
#: What a line is: a whole puzzle read fast, blank or a comment, anything else.
_FAST, _NEUTRAL, _SLOW = 1, 0, 2
#: Bytes that may follow a puzzle on its line: TAB, space, ``#`` (and CR, LF).
_AFTER = np.zeros(256, dtype=bool)
_AFTER[[9, 32, 35]] = True
_FAST_CELLS = frozenset(n * n for n in SIZES) - {16}
_MARKS_CELLS = frozenset(n**3 for n in SIZES) - {64}  # 64: an 8x8 puzzle (or 4x4 marks)


@dataclass(frozen=True, eq=False)
class Block:
    """Puzzles of one shape read from one source, with where each starts and what the
    text says is known of it (a solution, a number of solutions)."""

    grids: Grids
    source: str
    #: The 1-based line of each puzzle.
    lines: np.ndarray
    #: Known solutions, a ``(k, n*n)`` array with zero rows where none is known; or None.
    solutions: np.ndarray | None = None
    #: Known numbers of solutions, -1 where none is known; or None.
    counts: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.grids)

    def take(self, rows: np.ndarray | slice) -> Block:
        """The block of some rows."""
        return Block(
            self.grids.take(rows),
            self.source,
            self.lines[rows],
            None if self.solutions is None else self.solutions[rows],
            None if self.counts is None else self.counts[rows],
        )

    def entries(self) -> list[Entry]:
        """The puzzles as entries, as :func:`~.formats.read_text` gives them."""
        out = []
        for i, puzzle in enumerate(self.grids.puzzles()):
            solution = None
            if self.solutions is not None and self.solutions[i].any():
                solution = tuple(self.solutions[i].tolist())
            count = None
            if self.counts is not None and self.counts[i] >= 0:
                count = int(self.counts[i])
            out.append(Entry(puzzle, solution, self.source, int(self.lines[i]), count))
        return out


def blocks_of(entries: Iterable[Entry]) -> Iterator[Block]:
    """Entries packed into blocks: each run of one source and one shape is one block."""
    run: list[Entry] = []
    for entry in entries:
        if run and not _same_block(run[0], entry):
            yield _block(run)
            run = []
        run.append(entry)
    if run:
        yield _block(run)


def _same_block(a: Entry, b: Entry) -> bool:
    # pencil-mark puzzles go apart from plain ones: a backend may refuse only those
    return (
        a.source == b.source
        and a.puzzle.geometry == b.puzzle.geometry
        and a.puzzle.cages == b.puzzle.cages
        and a.puzzle.rules == b.puzzle.rules
        and (a.puzzle.candidates is None) == (b.puzzle.candidates is None)
    )


def _block(run: Sequence[Entry]) -> Block:
    grids = Grids.of([e.puzzle for e in run])
    cells = grids.geometry.cell_count
    solutions = counts = None
    if any(e.solution is not None for e in run):
        solutions = np.zeros((len(run), cells), dtype=np.uint8)
        for i, e in enumerate(run):
            if e.solution is not None:
                solutions[i] = e.solution
    if any(getattr(e, "count", None) is not None for e in run):
        counts = np.array([-1 if e.count is None else e.count for e in run], dtype=np.int64)
    lines = np.array([e.line for e in run], dtype=np.int64)
    return Block(grids, run[0].source, lines, solutions, counts)


def read_blocks(
    path: str | os.PathLike[str], size: int | None = None, chunk_bytes: int = CHUNK_BYTES
) -> Iterator[Block | ParseError]:
    """The blocks and errors of a file (``-``: standard input), in file order.

    A file that cannot be read, or is not UTF-8 text, is one ParseError.
    """
    if size is not None:
        geometry(size)  # ValueError for an unsupported size, before reading anything
    source = os.fspath(path)
    if source == "-":
        binary = getattr(sys.stdin, "buffer", None)  # a text stream in place of stdin: encode
        stream = binary if binary is not None else io.BytesIO(sys.stdin.read().encode())
        yield from _read_stream(stream, "<stdin>", size, chunk_bytes)
        return
    if source.endswith((".json", ".jsonl")):
        yield from _whole(source, size)
        return
    try:
        stream = open(path, "rb")  # noqa: SIM115 (closed below, also when abandoned)
    except OSError as e:
        yield ParseError(f"cannot read the file: {e.strerror or e}", source)
        return
    with stream:
        yield from _read_stream(stream, source, size, chunk_bytes)


def _whole(source: str, size: int | None) -> Iterator[Block | ParseError]:
    """A file read whole by read_file, its errors first."""
    errors: list[ParseError] = []
    try:
        entries = read_file(source, size=size, errors=errors)
    except ParseError as err:
        yield err
        return
    yield from errors
    yield from blocks_of(entries)


def _read_stream(
    stream: BinaryIO, source: str, size: int | None, chunk_bytes: int
) -> Iterator[Block | ParseError]:
    """Chunks of lines, each read fast where it can be, the rest by read_text."""
    line = 1  # the number of the chunk's first line
    pending: list[bytes] = []  # a slow run, carried to the next chunk (a grid may go on)
    pending_line = 1
    lines = stream.readlines(chunk_bytes)
    if lines and lines[0].startswith(b"\xef\xbb\xbf"):
        lines[0] = lines[0][3:]
    if _whole_file_format(lines):
        yield from _text(b"".join(lines) + stream.read(), source, size, 1)
        return
    while lines:
        last = False
        data = b"".join(lines)
        if b"\x1a" in data:  # a DOS end-of-file mark: nothing after it is data
            cut = next(i for i, x in enumerate(lines) if b"\x1a" in x)
            lines = lines[: cut + 1]
            lines[-1] = lines[-1].split(b"\x1a", 1)[0]
            data, last = b"".join(lines), True
        kinds, width, values = _fast_lines(lines, size, data)
        # runs of one kind: [starts[j], starts[j + 1]) all fast, or all not fast
        fast = kinds == _FAST
        starts = np.flatnonzero(np.diff(fast.view(np.int8), prepend=-1, append=-1)).tolist()
        for begin, end in itertools.pairwise(starts):
            if fast[begin]:
                if pending:
                    yield from _text(b"".join(pending), source, size, pending_line)
                    pending = []
                yield _fast_block(values[begin:end], width, source, line + begin, size)
                continue
            for i in range(begin, end):  # neutral lines join a slow run, else are skipped
                if kinds[i] == _SLOW or pending:
                    if not pending:
                        pending_line = line + i
                    pending.append(lines[i])
        line += len(lines)
        if pending:  # only the lines after the last blank or whole one may go on
            blank = max((j for j, x in enumerate(pending) if _ends_run(x, size)), default=-1)
            if blank >= 0:
                yield from _text(b"".join(pending[: blank + 1]), source, size, pending_line)
                pending_line += blank + 1
                pending = pending[blank + 1 :]
        lines = [] if last else stream.readlines(chunk_bytes)
    if pending:
        yield from _text(b"".join(pending), source, size, pending_line)


def _whole_file_format(lines: list[bytes]) -> bool:
    """Whether the text is read whole: JSON documents, or CSV (a comma in the first line
    that is not a comment, unless the line reads fast: then the comma is in its comment)."""
    for raw in lines:
        text = raw.strip()
        if not text or text.startswith(b"#"):
            continue
        if text[:1] in (b"{", b"["):
            return True
        return b"," in text and _fast_lines([raw], None)[0][0] != _FAST
    return False


def _fast_lines(
    lines: list[bytes], size: int | None, data: bytes | None = None
) -> tuple[np.ndarray, int, np.ndarray]:
    """Per line: _FAST (a whole puzzle), _NEUTRAL (blank, a comment) or _SLOW; the number
    of cells of the fast ones (one width per chunk); and the values of the first ``width``
    characters of every line, a ``(k, width)`` array (meaningful for the fast ones)."""
    k = len(lines)
    kinds = np.full(k, _SLOW, dtype=np.int8)
    width = _width(lines, size)
    if not k:
        return kinds, width, np.zeros((0, width), dtype=np.uint8)
    raw = np.frombuffer(b"".join(lines) if data is None else data, dtype=np.uint8)
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=k)
    step = int(lengths[0])
    if width and step > width and (lengths == step).all():  # one length: a view, no gathering
        table = raw.reshape(k, step)
        values = np.take(_VALUES, table[:, :width])
        after = table[:, width]
        ok = (after == 10) | (after == 13) | _AFTER[after]
        starts = None
    else:
        starts = np.zeros(k, dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        padded = np.concatenate([raw, np.full(width + 1, 10, dtype=np.uint8)])
        index = starts[:, None] + np.arange(width + 1)
        np.minimum(index, (starts + lengths)[:, None] + width, out=index)
        table = padded[index]
        values = _VALUES[table[:, :width]]
        after = table[:, width] if width else np.zeros(k, dtype=np.uint8)
        # a line shorter than width runs into the next line: its newline is in the cells
        ok = (lengths > width) & ((after == 10) | (after == 13) | _AFTER[after])
    if width:
        n, marks = _shape(width, size)
        if marks:
            ok &= _marks_ok(values, n)
        else:
            ok[np.flatnonzero(values > n) // width] = False  # 255 is above any size
        kinds[ok] = _FAST
    for i in np.flatnonzero(~ok if width else np.ones(k, dtype=bool)).tolist():
        text = lines[i].strip()
        if not text or text.startswith(b"#"):
            kinds[i] = _NEUTRAL
    return kinds, width, values


def _head_length(text: bytes) -> int:
    """The length of a line's head: up to its first TAB, space, ``#``, ``:`` or line end."""
    cut = len(text)
    for stop in (b"\t", b" ", b"#", b":", b"\r", b"\n"):
        at = text.find(stop)
        if 0 <= at < cut:
            cut = at
    return cut


def _ends_run(text: bytes, size: int | None) -> bool:
    """Whether nothing after this line can belong to a puzzle before it: a blank line, or
    a whole puzzle's pencil marks (n*n*n characters; so a file of them is read in
    chunks, not held whole)."""
    if not text.strip():
        return True
    cut = _head_length(text)
    return cut in _MARKS_CELLS if size is None else cut == size**3


def _width(lines: list[bytes], size: int | None) -> int:
    """The character count of this chunk's fast lines (a whole puzzle's cells, or its
    pencil marks): that of its first line that may read fast, among its first lines."""
    for text in lines[:64]:
        cut = _head_length(text)
        if size is None and (cut in _FAST_CELLS or cut in _MARKS_CELLS):
            return cut
        if size is not None and cut in (size * size, size**3) and cut != 16:
            return cut
    return 0


def _shape(width: int, size: int | None) -> tuple[int, bool]:
    """The size of the puzzles of fast lines of ``width`` characters, and whether those
    are pencil marks (n*n*n characters; 64 only with ``size=4``)."""
    if size is not None:
        return size, width == size**3
    n = round(width ** (1 / 3)) if width in _MARKS_CELLS else round(width**0.5)
    return n, width in _MARKS_CELLS


def _marks_ok(values: np.ndarray, n: int) -> np.ndarray:
    """Per line of pencil marks: does each character hold its value or a blank, does each
    cell keep a candidate, and do the marks narrow some cell (marks that narrow nothing
    are the plain puzzle: read by read_text, they join the plain puzzles' blocks)?"""
    want = np.tile(np.arange(1, n + 1, dtype=np.uint8), n * n)
    ok = ((values == 0) | (values == want)).all(axis=1)
    counts = (values.reshape(len(values), n * n, n) > 0).sum(axis=2)
    ok &= (counts > 0).all(axis=1)
    return ok & ((counts > 1) & (counts < n)).any(axis=1)


def _fast_block(
    values: np.ndarray, width: int, source: str, first: int, size: int | None = None
) -> Block:
    """A block of fast lines (each a whole puzzle of ``width`` cells, or its pencil marks)
    from their values."""
    n, marks = _shape(width, size)
    lines_no = np.arange(first, first + len(values), dtype=np.int64)
    if not marks:
        return Block(Grids(geometry(n), values), source, lines_no)
    candidates = (values.reshape(len(values), n * n, n) > 0).astype(np.uint32)
    counts = candidates.sum(axis=2)
    candidates = (candidates << np.arange(n, dtype=np.uint32)).sum(axis=2, dtype=np.uint32)
    givens = np.where(counts == 1, values.reshape(len(values), n * n, n).max(axis=2), 0)
    return Block(Grids(geometry(n), givens.astype(np.uint8), (), candidates), source, lines_no)


def _text(data: bytes, source: str, size: int | None, first: int) -> Iterator[Block | ParseError]:
    """Lines read by read_text (errors kept in place), then packed into blocks."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = first + data.count(b"\n", 0, e.start)
        yield ParseError(f"not UTF-8 text (byte {e.start + 1} of line {line})", source, line)
        return
    errors: list[ParseError] = []
    try:
        entries = read_text(text, source, size, errors=errors, first_line=first)
    except ParseError as err:  # a run that is not one puzzle per error (not JSON at all)
        yield err
        return
    # errors and entries interleaved in line order
    merged: list[tuple[int, int, Entry | ParseError]] = [(e.line, 1, e) for e in entries]
    merged += [(err.line or 0, 0, err) for err in errors]
    merged.sort(key=lambda item: (item[0], item[1]))
    run: list[Entry] = []
    for _, _, item in merged:
        if isinstance(item, ParseError):
            if run:
                yield from blocks_of(run)
                run = []
            yield item
        else:
            run.append(item)
    if run:
        yield from blocks_of(run)
