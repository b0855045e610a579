"""Reading and writing puzzle text: lines, grids, numbers, tab-separated rows and CSV.

Reading rules, applied the same way to every text:

- Before reading: a DOS Ctrl-Z (0x1A) ends the text, a leading BOM is dropped, CRLF and CR
  become LF. Lines starting (after spaces) with ``#`` are comments. Errors give the original
  line and the 1-based character column in that line.
- A text whose first non-comment line holds a comma is CSV (see :func:`_read_csv`).
- Otherwise each line is blank, a comment, a separator (only ``- + = |`` and spaces, with
  ``--``, ``+`` or ``=`` in it), a header (a word of 2-20 letters then a space, ``:``,
  ``#`` or the line end, like ``Grid 01``, that does not read as cells), or cells.
  A line of n*n cells is a whole puzzle; a line of n cells is a grid row. Rows gather into
  a grid that is complete as soon as it has n rows, so grids may follow each other with no
  gap. A blank line, header or ``=`` line inside a grid is an error; other separator lines
  are ignored.
- Cells of a line: with a tab, tab-separated fields (an empty field is a blank; a line of
  only tabs is a row of blanks inside a tab grid); else, with spaces, whitespace-separated
  tokens read as numbers (``0 0 13 2``) when each is a number up to 25 or one character,
  unless only the tokens run together make a valid count; otherwise one character per
  cell, ``|`` ``+`` and spaces dropped (so ``003 020 600`` is a row of nine).
- Blanks are ``. 0 - _ *``; values are 1-9 then A-P (10-25), either case.
- A 16-cell line is a 4x4 puzzle unless ``size=16`` is given, or it belongs to a run of
  16-cell lines that holds a value above 4 or a separator line: then it is a 16x16 row.
- Clashing givens are not a parse error (see :meth:`Puzzle.clashes`).
- A text starting with ``{`` or ``[`` (and any ``.json`` or ``.jsonl`` file) holds puzzle
  documents (:mod:`sudokulab.models.documents`): variants, regions and cages.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NoReturn

from .documents import read_documents
from .entries import MAX_VALUE, VALUES, Entry, ParseError
from .geometry import SIZES, Geometry, geometry, size_for_cell_count
from .puzzle import Puzzle, symbol

_COUNTS = frozenset(SIZES) | {n * n for n in SIZES}
_NUMBER = re.compile(r"0|[1-9][0-9]*")
_SPACE_OR_BAR = re.compile(r"[\s|+]")
_TOKEN = re.compile(r"\S+")
_SEPARATOR = re.compile(r"[-+=|\s]+")
_HEADER = re.compile(r"\s*[A-Za-z]{2,20}(?=[\s:#]|$)")
_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9 _-]*")
_PUZZLE_NAMES = {"puzzle", "puzzles", "quiz", "quizzes", "grid", "givens", "question", "sudoku"}
_SOLUTION_NAMES = {"solution", "solutions", "answer", "answers"}
_DATA, _SEP, _BREAK, _TABS = 0, 1, 2, 3  # _TABS: only tabs, blank row or blank line


# --- reading -------------------------------------------------------------------------------


def _cells(s: str) -> tuple[Sequence[str], list[int] | None]:
    """The cell tokens of a line and their 1-based columns (None: token i is at column i+1)."""
    if "\t" in s:
        tokens, cols, start = [], [], 0
        for field in s.split("\t"):
            text = field.strip()
            if not text or text.strip("|+"):
                tokens.append(text or ".")
                cols.append(start + len(field) - len(field.lstrip()) + 1)
            start += len(field) + 1
        return tokens, cols
    if not _SPACE_OR_BAR.search(s):
        return s, None  # the common case, kept fast: one character per cell
    words = [(m.group(), m.start() + 1) for m in _TOKEN.finditer(s) if m.group().strip("|+")]
    numbers = all(len(w) == 1 or (_NUMBER.fullmatch(w) and int(w) <= MAX_VALUE) for w, _ in words)
    # "12 34" may be a row in box groups: read numbers unless only the characters fit
    if numbers and (len(words) in _COUNTS or sum(len(w) for w, _ in words) not in _COUNTS):
        return [w for w, _ in words], [c for _, c in words]
    tokens, cols = [], []
    for word, col in words:
        for i, ch in enumerate(word):
            if ch not in "|+":
                tokens.append(ch)
                cols.append(col + i)
    return tokens, cols


def _values(tokens: Sequence[str]) -> list[int | None]:
    """Values of cell tokens; None for a token that is neither a value nor a blank."""
    if isinstance(tokens, str):
        return list(map(VALUES.get, tokens))
    return [
        VALUES.get(t) if len(t) == 1 else int(t) if _NUMBER.fullmatch(t) else None for t in tokens
    ]


@dataclass(slots=True)
class _Cells:
    """One line's cells, with what is needed to point at any of them."""

    line: int
    text: str
    tokens: Sequence[str]
    cols: list[int] | None
    values: list[int | None]
    offset: int = 0  # columns before the text (a CSV field's position in its line)
    bad: bool = False  # some token is neither a value nor a blank
    top: int = 0  # the largest value

    def __post_init__(self) -> None:
        self.bad = None in self.values
        if self.bad:
            self.top = max((v for v in self.values if v is not None), default=0)
        else:
            self.top = max(self.values, default=0)  # type: ignore[type-var]

    def col(self, i: int) -> int:
        """Column of cell i in the original line; i == len means just past the end."""
        if i >= len(self.values):
            return self.offset + len(self.text) + 1
        return self.offset + (self.cols[i] if self.cols is not None else i + 1)


def _read(text: str, line: int, offset: int = 0) -> _Cells:
    """Tokenise a line (or a CSV field starting after ``offset`` columns)."""
    tokens, cols = _cells(text)
    return _Cells(line, text, tokens, cols, _values(tokens), offset)


def _fits(cells: _Cells) -> bool:
    """True when the cells read as a puzzle or a row of some supported size."""
    k = len(cells.values)
    return not cells.bad and any(cells.top <= n and k in (n, n * n) for n in SIZES)


def _check(cells: _Cells, n: int, source: str) -> list[int]:
    """The cells' values, or a ParseError at the first that is not a value of size n."""
    values = cells.values
    if cells.bad or cells.top > n:
        i = next(i for i, v in enumerate(values) if v is None or v > n)
        what = "a value or a blank" if values[i] is None else f"a value of a {n}x{n} puzzle"
        raise ParseError(f"{cells.tokens[i]!r} is not {what}", source, cells.line, cells.col(i))
    return values  # type: ignore[return-value]


def _wrong_count(cells: _Cells, source: str, options: list[tuple[int, str]]) -> NoReturn:
    """Raise for a wrong cell count at the nearest option; a bad character first, if any."""
    _check(cells, MAX_VALUE, source)
    k = len(cells.values)
    want, what = min(options, key=lambda o: abs(o[0] - k))
    message = f"line has {k} cells; expected {want} for {what}"
    raise ParseError(message, source, cells.line, cells.col(min(k, want)))


def _options(size: int | None, rows: bool = True) -> list[tuple[int, str]]:
    """Cell counts a line may have, puzzles first, with what each means."""
    sizes = SIZES if size is None else (size,)
    puzzles = [(n * n, f"a {n}x{n} puzzle") for n in sizes]
    return puzzles + [(n, f"a row of a {n}x{n} grid") for n in sizes] if rows else puzzles


def _classify(lines: list[str]) -> list[tuple[int, _Cells]]:
    """(kind, cells) for every line but comments; never raises (errors wait their turn)."""
    out: list[tuple[int, _Cells]] = []
    for no, raw in enumerate(lines, 1):
        # trailing tabs are empty fields, i.e. blanks: keep them
        s = raw.rstrip(" ") if "\t" in raw else raw.rstrip()
        head = s.lstrip()[:1]
        if not head:
            out.append((_TABS if s else _BREAK, _read(s, no)))
        elif head == "#":
            continue
        elif head in "-+=|" and _SEPARATOR.fullmatch(s) and ("--" in s or "+" in s or "=" in s):
            out.append((_BREAK if "=" in s else _SEP, _Cells(no, s, "", None, [])))
        else:
            cells = _read(s, no)
            header = head.isalpha() and _HEADER.match(s) and not _fits(cells)
            out.append((_BREAK if header else _DATA, cells))
    return out


def _rows16(records: list[tuple[int, _Cells]], start: int) -> tuple[int, bool]:
    """End of the run of 16-cell lines at ``start``, and whether they are 16x16 rows."""
    end, big, sep_inside, pending_sep = start, False, False, False
    while end < len(records):
        kind, cells = records[end]
        if kind == _SEP:
            pending_sep = True
        elif kind == _DATA and len(cells.values) == 16:
            big = big or cells.top > 4
            sep_inside = sep_inside or pending_sep
        else:
            break
        end += 1
    return end, big or sep_inside


def _read_lines(lines: list[str], source: str, size: int | None) -> list[Entry]:
    """Puzzles from lines and grids (not CSV), in order; raises at the first bad one."""
    records = _classify(lines)
    entries: list[Entry] = []
    block: list[int] = []
    block_n = block_rows = block_start = 0
    run_end, run_rows = -1, False
    for index, (kind, cells) in enumerate(records):
        k, no = len(cells.values), cells.line
        if kind == _TABS:  # a row of blanks inside a tab-separated grid, else a blank line
            kind = _DATA if block_rows and k == block_n else _BREAK
        if kind == _SEP:
            continue
        if block_rows and (kind == _BREAK or k != block_n):
            if kind == _DATA:
                row = f"a row of the {block_n}x{block_n} grid starting at line {block_start}"
                _wrong_count(cells, source, [(block_n, row)])
            raise _ended(source, no, block_start, block_rows, block_n)
        if kind == _BREAK:
            continue
        if block_rows:
            n = block_n
        elif size is not None:
            if k not in (size, size * size):
                _wrong_count(cells, source, _options(size))
            n = size
        elif k == 16:
            if index >= run_end:
                run_end, run_rows = _rows16(records, index)
            n = 16 if run_rows else 4
        elif k in _COUNTS:
            n = size_for_cell_count(k) or k
        else:
            _wrong_count(cells, source, _options(None))
        values = _check(cells, n, source)
        if k == n * n:
            entries.append(Entry(Puzzle(geometry(n), tuple(values)), None, source, no))
            continue
        if not block_rows:
            block_n, block_start = n, no
        block.extend(values)
        block_rows += 1
        if block_rows == n:
            entries.append(Entry(Puzzle(geometry(n), tuple(block)), None, source, block_start))
            block, block_rows = [], 0
    if block_rows:
        raise _ended(source, len(lines), block_start, block_rows, block_n)
    return entries


def _ended(source: str, line: int, start: int, rows: int, n: int) -> ParseError:
    """The error for a grid cut short."""
    rows_text = f"{rows} row" + ("s" if rows > 1 else "")
    message = f"grid starting at line {start} ended after {rows_text}; a {n}x{n} grid needs {n}"
    return ParseError(message, source, line)


def _fields(s: str) -> list[tuple[str, int]]:
    """CSV fields of a line, stripped of spaces and quotes, with the column before each."""
    out, start = [], 0
    for field in s.split(","):
        text = field.strip()
        lead = len(field) - len(field.lstrip())
        if len(text) >= 2 and text[0] == text[-1] == '"':
            text, lead = text[1:-1].strip(), lead + 1
        out.append((text, start + lead))
        start += len(field) + 1
    return out


def _csv_grid(text: str, line: int, offset: int, source: str, size: int | None) -> list[int]:
    """The values of a CSV field that must hold one whole puzzle (of ``size`` if given)."""
    cells = _read(text, line, offset)
    n = size if size is not None else size_for_cell_count(len(cells.values))
    if n is None or len(cells.values) != n * n:
        _wrong_count(cells, source, _options(size, rows=False))
    return _check(cells, n, source)


def _read_csv(lines: list[str], source: str, size: int | None) -> list[Entry]:
    """Puzzles from CSV: a puzzle column, an optional solution column, an optional header.

    Without a header the puzzle is field 1 and the solution field 2, read when it is longer
    than a row (so a short difficulty or id column is ignored). A first row made of words
    that is not a puzzle is a header; it may name the columns (``puzzle``/``quizzes``/...,
    ``solution``/``answer``/...). A solution must be a complete grid of the puzzle's size.
    """
    entries: list[Entry] = []
    p_col, s_col, named, first = 0, 1, False, True
    for no, raw in enumerate(lines, 1):
        s = raw.rstrip()
        if not s.strip() or s.lstrip().startswith("#"):
            continue
        fields = _fields(s)
        if first:
            first = False
            names = [t.lower() for t, _ in fields]
            if all(not t or _WORDS.fullmatch(t) for t, _ in fields) and not _fits(
                _read(fields[0][0], no)
            ):
                p_col = next((i for i, t in enumerate(names) if t in _PUZZLE_NAMES), 0)
                s_col = next((i for i, t in enumerate(names) if t in _SOLUTION_NAMES), -1)
                named = s_col >= 0
                if not named and p_col == 0 and names[0] not in _PUZZLE_NAMES:
                    s_col = 1  # unknown names: the usual puzzle, solution order
                continue
        if p_col >= len(fields):
            have = f"{len(fields)} field" + ("s" if len(fields) > 1 else "")
            message = f"row has {have}; the puzzle is field {p_col + 1}"
            raise ParseError(message, source, no, len(s) + 1)
        text, offset = fields[p_col]
        values = _csv_grid(text, no, offset, source, size)
        n = size_for_cell_count(len(values)) or 0
        solution = None
        if 0 <= s_col < len(fields) and fields[s_col][0] and (named or len(fields[s_col][0]) > n):
            stext, soffset = fields[s_col]
            solution = tuple(_csv_grid(stext, no, soffset, source, n))
            if 0 in solution:
                blank = _read(stext, no, soffset).col(solution.index(0))
                message = "the solution has a blank; expected a complete grid"
                raise ParseError(message, source, no, blank)
        entries.append(Entry(Puzzle(geometry(n), tuple(values)), solution, source, no))
    return entries


def read_text(text: str, source: str = "<text>", size: int | None = None) -> list[Entry]:
    """Every puzzle in a text, in order; raises ParseError at the first bad one."""
    if size is not None:
        geometry(size)  # ValueError for an unsupported size, before reading anything
    cut = text.find("\x1a")
    if cut >= 0:
        text = text[:cut]  # DOS end of file: nothing after it is data
    text = text.removeprefix("\ufeff")
    if text.lstrip()[:1] in ("{", "["):  # a puzzle document (JSON or JSON Lines)
        return read_documents(text, source)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    first = next((s for s in lines if s.strip() and not s.lstrip().startswith("#")), "")
    if "," in first:
        return _read_csv(lines, source, size)
    return _read_lines(lines, source, size)


def read_file(path: str | os.PathLike[str], size: int | None = None) -> list[Entry]:
    """Every puzzle in a UTF-8 file (BOM tolerated); ParseError names the file on failure."""
    source = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ParseError(f"cannot read the file: {e.strerror or e}", source) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ParseError(f"not UTF-8 text (byte {e.start + 1})", source, line) from None
    if source.endswith((".json", ".jsonl")):  # puzzle documents, whatever they start with
        return read_documents(text, source, lines=True if source.endswith(".jsonl") else None)
    return read_text(text, source, size)


def parse_puzzle(text: str, size: int | None = None) -> Puzzle:
    """The one puzzle in a text; ParseError if there are none or several."""
    entries = read_text(text, size=size)
    if len(entries) != 1:
        raise ParseError(f"expected one puzzle, found {len(entries) or 'none'}", "<text>")
    return entries[0].puzzle


# --- writing -------------------------------------------------------------------------------


def _grid_and_geometry(
    puzzle_or_grid: Puzzle | Sequence[int], geom: Geometry | None = None
) -> tuple[Sequence[int], Geometry]:
    """The values and geometry of a puzzle, or of a flat grid (classic shape by length)."""
    if isinstance(puzzle_or_grid, Puzzle):
        grid, geom = puzzle_or_grid.givens, geom or puzzle_or_grid.geometry
    else:
        grid = puzzle_or_grid
    if geom is None:
        n = size_for_cell_count(len(grid))
        if n is None:
            raise ValueError(f"{len(grid)} cells is not a supported grid size")
        geom = geometry(n)
    if len(grid) != geom.cell_count:
        raise ValueError(f"a {geom.size}x{geom.size} grid needs {geom.cell_count} cells")
    return grid, geom


def format_line(puzzle_or_grid: Puzzle | Sequence[int], blank: str = ".") -> str:
    """A puzzle on one line, row-major: ``4.....8.5.3...``; letters for values above 9."""
    grid, _ = _grid_and_geometry(puzzle_or_grid)
    return "".join(symbol(v) if v else blank for v in grid)


def _boxed(texts: Sequence[str], geom: Geometry) -> str:
    """Cell texts laid out in rows, ``|`` between boxes and a ``-+-`` line between bands.

    A geometry without boxes (jigsaw: regions replace them) gets plain rows: box lines
    there would draw regions that are not the puzzle's.
    """
    n, bc = geom.size, geom.box_cols
    if not any(u.kind == "box" for u in geom.units):
        width = max(map(len, texts))
        return "\n".join(
            " ".join(t.ljust(width) for t in texts[r * n : (r + 1) * n]).rstrip() for r in range(n)
        )
    width = (max(map(len, texts)) + 1) * bc - 1  # one box's cells and the spaces between
    dashes = ["-" * (width + 2)] * (n // bc)
    rule = "+".join(["-" * (width + 1), *dashes[1:-1], "-" * (width + 1)])
    lines = []
    for r in range(n):
        if r and r % geom.box_rows == 0:
            lines.append(rule)
        row = texts[r * n : (r + 1) * n]
        groups = [" ".join(row[c : c + bc]) for c in range(0, n, bc)]
        lines.append(" | ".join(groups).rstrip())
    return "\n".join(lines)


def format_grid(puzzle_or_grid: Puzzle | Sequence[int], geometry: Geometry | None = None) -> str:
    """A boxed grid, one row per line, ``.`` for blanks (box shape from the geometry)."""
    grid, geom = _grid_and_geometry(puzzle_or_grid, geometry)
    return _boxed([symbol(v) if v else "." for v in grid], geom)


def format_candidates(candidates: Sequence[int | Iterable[int]], geometry: Geometry) -> str:
    """A pencil-mark grid: each cell's candidates run together, ``-`` for a cell with none.

    A cell's candidates are a bit mask (bit v-1 set when value v is possible) or an
    iterable of values; every cell is padded to the widest.
    """
    if len(candidates) != geometry.cell_count:
        raise ValueError(f"expected {geometry.cell_count} cells, got {len(candidates)}")
    texts = []
    for cell in candidates:
        if isinstance(cell, int):
            values = [v for v in geometry.values if cell >> (v - 1) & 1]
        else:
            values = sorted(set(cell))
        texts.append("".join(map(symbol, values)) or "-")
    width = max(map(len, texts))
    return _boxed([t.ljust(width) for t in texts], geometry)
