"""Reading and writing puzzle text: lines, grids, numbers, tab-separated rows and CSV.

One reader for every text: comments, separators and headers skipped, the size told from
the text, text after a puzzle kept as a count and a solution, pencil marks, and puzzle
documents and f-puzzles and SudokuPad links handed to their modules. The rules, exactly,
are in docs/guides/formats.md, "The reading rules, exactly". Errors name the line and
column (:class:`ParseError`); given a list as ``errors``, :func:`read_text` and
:func:`read_file` collect them and read on, skipping a bad line, dropping a broken grid
whole and returning every good puzzle in order; errors that are not about one puzzle (an
unreadable or non-UTF-8 file, an unsupported size, a text that is not JSON where JSON
begins) still raise.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from .entries import MAX_VALUE, VALUES, Entry, ParseError
from .geometry import SIZES, Geometry, geometry, size_for_cell_count
from .puzzle import Grid, Puzzle, marks_line, single, symbol

_COUNTS = frozenset(SIZES) | {n * n for n in SIZES}
_SQUARES = {n * n: n for n in SIZES}  # cells of a whole puzzle: its size
_ROW_SIZES = frozenset(SIZES)
#: Characters of a pencil-mark line (n per cell) and its size; 64 is an 8x8 puzzle's
#: cells, so a 64-character line is pencil marks only with ``size=4``.
_CUBES = {n**3: n for n in SIZES if n**3 not in _SQUARES}
#: The largest size a line of k cells may belong to (as a puzzle, a row or pencil marks).
_LARGEST = {k: max(n for n in SIZES if k in (n, n * n, n**3)) for k in _COUNTS | set(_CUBES)}
_NUMBER = re.compile(r"0|[1-9][0-9]*")
_DIGITS = re.compile(r"[0-9]+")
_SPACE_OR_BAR = re.compile(r"[\s|+]")
_TOKEN = re.compile(r"\S+")
_SEPARATOR = re.compile(r"[-+=|\s]+")
_HEADER = re.compile(r"\s*[A-Za-z]{2,20}(?=[\s:#]|$)")
_HEAD = re.compile(r" *([^\t #:]*)")  # a line's head: up to the first tab, space, # or :
_FIELD = re.compile(r"[^\t #:]*")  # a field after ':' in puzzle:count:solution
_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9 _-]*")
_PUZZLE_NAMES = {"puzzle", "puzzles", "quiz", "quizzes", "grid", "givens", "question", "sudoku"}
_SOLUTION_NAMES = {"solution", "solutions", "answer", "answers"}
_DATA, _SEP, _BREAK, _TABS = 0, 1, 2, 3  # _TABS: only tabs, blank row or blank line
_LINE = 4  # a whole puzzle with text after it (a _Line)


# --- reading -------------------------------------------------------------------------------


def _cells(s: str) -> tuple[Sequence[str], list[int] | None, list[int] | None]:
    """The cell tokens of a line, their 1-based columns (None: token i is at column i+1),
    and for a row of pencil marks each cell's candidate mask (else None)."""
    if "\t" in s:
        tokens, cols, start = [], [], 0
        for field in s.split("\t"):
            text = field.strip()
            if not text or text.strip("|+"):
                tokens.append(text or ".")
                cols.append(start + len(field) - len(field.lstrip()) + 1)
            start += len(field) + 1
        return tokens, cols, None
    if not _SPACE_OR_BAR.search(s):
        return s, None, None  # the common case, kept fast: one character per cell
    words = [(m.group(), m.start() + 1) for m in _TOKEN.finditer(s) if m.group().strip("|+")]
    if len(words) in _ROW_SIZES:  # (cheap first: most rows are not pencil marks)
        marks = _marks_row([w for w, _ in words])
        if marks is not None:
            return [w for w, _ in words], [c for _, c in words], marks
    numbers = all(len(w) == 1 or (_NUMBER.fullmatch(w) and int(w) <= MAX_VALUE) for w, _ in words)
    # "12 34" may be a row in box groups: read numbers unless only the characters fit
    if numbers and (len(words) in _COUNTS or sum(len(w) for w, _ in words) not in _COUNTS):
        return [w for w, _ in words], [c for _, c in words], None
    tokens, cols = [], []
    for word, col in words:
        for i, ch in enumerate(word):
            if ch not in "|+":
                tokens.append(ch)
                cols.append(col + i)
    return tokens, cols, None


def _mask(token: str, n: int) -> int | None:
    """The candidate mask of a pencil-mark cell: its values run together in ascending
    order (a blank is none: 0); None when it is not such a cell of size n."""
    if len(token) == 1 and VALUES.get(token) == 0:
        return 0
    mask, last = 0, 0
    for ch in token:
        value = VALUES.get(ch)
        if not value or value <= last or value > n:
            return None
        mask, last = mask | 1 << (value - 1), value
    return mask


def _marks_row(words: list[str]) -> list[int] | None:
    """The masks of a row of pencil-mark cells (as many as a size's rows), else None.

    Such a row has a cell of several characters and is not a row of numbers up to n
    (``12 3 4 ...`` of a 16x16 grid); its cells are values in ascending order
    (``1679``) or a blank (a cell with no candidate: an error where the grid is read).
    """
    n = len(words)
    if all(len(w) == 1 for w in words):
        return None
    if all(len(w) == 1 or (_NUMBER.fullmatch(w) and int(w) <= n) for w in words):
        return None
    masks = [_mask(w, n) for w in words]
    return None if None in masks else masks  # type: ignore[return-value]


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
    marks: list[int] | None = None  # a row of pencil marks: each cell's candidate mask

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


@dataclass(slots=True)
class _Line(_Cells):
    """A whole puzzle followed by text: its size and what ``:count:solution`` gave."""

    size: int = 0
    count: int | None = None
    solution: Grid | None = None
    error: ParseError | None = None  # a bad count or solution, raised in its turn
    whole: str = ""  # the whole line, for when it has to be read as cells after all


def _read(text: str, line: int, offset: int = 0) -> _Cells:
    """Tokenise a line (or a CSV field starting after ``offset`` columns)."""
    tokens, cols, marks = _cells(text)
    if marks is not None:  # a cell's value: its one candidate, else a blank
        values: list[int | None] = [single(m) for m in marks]
        return _Cells(line, text, tokens, cols, values, offset, marks=marks)
    return _Cells(line, text, tokens, cols, _values(tokens), offset)


def _fits(cells: _Cells) -> bool:
    """True when the cells read as a puzzle or a row of some supported size."""
    return not cells.bad and cells.top <= _LARGEST.get(len(cells.values), -1)


def _bad_value(cells: _Cells, n: int, source: str) -> ParseError | None:
    """The error for the first cell that is not a value of size n, if any."""
    values = cells.values
    if not (cells.bad or cells.top > n):
        return None
    i = next(i for i, v in enumerate(values) if v is None or v > n)
    what = "a value or a blank" if values[i] is None else f"a value of a {n}x{n} puzzle"
    return ParseError(f"{cells.tokens[i]!r} is not {what}", source, cells.line, cells.col(i))


def _check(cells: _Cells, n: int, source: str) -> list[int]:
    """The cells' values, or a ParseError at the first that is not a value of size n."""
    err = _bad_value(cells, n, source)
    if err is not None:
        raise err
    return cells.values  # type: ignore[return-value]


def _count_error(
    cells: _Cells, source: str, options: list[tuple[int, str]], what: str = "line"
) -> ParseError:
    """The error for a wrong cell count, at the nearest option; a bad character first."""
    err = _bad_value(cells, MAX_VALUE, source)
    if err is not None:
        return err
    k = len(cells.values)
    want, meaning = min(options, key=lambda o: abs(o[0] - k))
    message = f"{what} has {k} cells; expected {want} for {meaning}"
    return ParseError(message, source, cells.line, cells.col(min(k, want)))


def _options(size: int | None, rows: bool = True) -> list[tuple[int, str]]:
    """Cell counts a line may have, puzzles first, with what each means."""
    sizes = SIZES if size is None else (size,)
    puzzles = [(n * n, f"a {n}x{n} puzzle") for n in sizes]
    if not rows:
        return puzzles
    marks = [(n**3, f"the pencil marks of a {n}x{n} puzzle") for n in sizes if n**3 in _CUBES]
    if size is not None:
        marks = [(size**3, f"the pencil marks of a {size}x{size} puzzle")]
    return puzzles + [(n, f"a row of a {n}x{n} grid") for n in sizes] + marks


def _head(s: str, size: int | None) -> tuple[re.Match[str], int] | None:
    """The head of a line and its size, when the head has the length of a whole puzzle."""
    match = _HEAD.match(s)
    k = len(match.group(1))  # type: ignore[union-attr]
    if size is None:
        n = _SQUARES.get(k) or _CUBES.get(k)
    else:
        n = size if k in (size * size, size**3) else None
    return None if n is None else (match, n)  # type: ignore[return-value]


def _solution(text: str, line: int, offset: int, source: str, n: int, what: str) -> Grid:
    """A field that must hold a complete grid of size n (no blanks)."""
    cells = _read(text, line, offset)
    if len(cells.values) != n * n:
        raise _count_error(cells, source, [(n * n, f"a {n}x{n} puzzle")], what)
    values = _check(cells, n, source)
    if 0 in values:
        message = "the solution has a blank; expected a complete grid"
        raise ParseError(message, source, line, cells.col(values.index(0)))
    return tuple(values)


def _counted(s: str, at: int, n: int, line: int, source: str) -> tuple[int, Grid | None]:
    """The fields of ``:count`` or ``:count:solution`` starting at ``s[at] == ':'``."""
    start = at + 1
    end = _FIELD.match(s, start).end()  # type: ignore[union-attr]
    if not _DIGITS.fullmatch(s, start, end):
        message = (
            f"{s[start:end]!r} is not a count of solutions (a whole number)"
            if end > start
            else "a count of solutions (a whole number) is missing after ':'"
        )
        raise ParseError(message, source, line, start + 1)
    count, solution = int(s[start:end]), None
    if s[end : end + 1] == ":":
        start = end + 1
        end = _FIELD.match(s, start).end()  # type: ignore[union-attr]
        if end > start:  # tdoku writes "puzzle:0:" for a puzzle with no solution
            solution = _solution(s[start:end], line, start, source, n, "the solution")
    if s[end : end + 1] == ":":
        message = "unexpected ':' after the solution; expected puzzle:count:solution"
        raise ParseError(message, source, line, end + 1)
    return count, solution


def _line(s: str, line: int, size: int | None, source: str) -> _Line | None:
    """A whole puzzle followed by text (free text, a comment or fields), else None.

    A head of the right length with a character that is not a value or a blank is read
    too, so that the error points at that character (not at the whole tab field). A line
    with nothing after its head is left to the cell rules, which read it the same way.
    """
    found = _head(s, size)
    if found is None or found[0].end() == len(s):
        return None
    match, n = found
    head = match.group(1)
    values = list(map(VALUES.get, head))
    cells = _Line(line, head, head, None, values, match.start(1), size=n, whole=s)
    if s[match.end() : match.end() + 1] == ":":
        try:
            cells.count, cells.solution = _counted(s, match.end(), n, line, source)
        except ParseError as err:
            cells.error = err
    return cells


def _csv_is_text(first: str, size: int | None) -> bool:
    """True when the commas of a first line are in the text after a whole puzzle."""
    found = _head(first, size)
    if found is None or None in map(VALUES.get, found[0].group(1)):
        return False
    return not first[found[0].end() :].lstrip(" \t").startswith(",")


def _classify(
    lines: list[str], source: str, size: int | None, first_line: int
) -> list[tuple[int, _Cells]]:
    """(kind, cells) for every line but comments; never raises (errors wait their turn)."""
    out: list[tuple[int, _Cells]] = []
    for no, raw in enumerate(lines, first_line):
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
            kind = _DATA
            if head.isalpha() and _HEADER.match(s) and not _fits(cells):
                kind = _BREAK
            # text after a puzzle needs a tab or space (cols) or a # or : (bad): cheap first
            elif (cells.bad or cells.cols is not None) and not _fits(cells):
                line = _line(s, no, size, source)
                if line is not None:
                    kind, cells = _LINE, line
            out.append((kind, cells))
    return out


def _rows16(records: list[tuple[int, _Cells]], start: int) -> tuple[int, bool]:
    """End of the run of 16-cell lines at ``start``, and whether they are 16x16 rows."""
    end, big, sep_inside, pending_sep = start, False, False, False
    while end < len(records):
        kind, cells = records[end]
        if kind == _SEP:
            pending_sep = True
        elif kind == _DATA and len(cells.values) == 16:
            big = big or cells.top > 4 or cells.marks is not None
            sep_inside = sep_inside or pending_sep
        else:
            break
        end += 1
    return end, big or sep_inside


def _whole(kind: int, cells: _Cells, size: int | None) -> bool:
    """True when a line reads, with no error, as a whole puzzle on its own."""
    if isinstance(cells, _Line):
        n = cells.size
        return cells.error is None and _whole_error(cells, n, "") is None
    k = len(cells.values)
    n = (_SQUARES.get(k) or _CUBES.get(k, 0)) if size is None else size
    return kind == _DATA and k in (n * n, n**3) and _whole_error(cells, n, "") is None


def _next_count(records: list[tuple[int, _Cells]], index: int) -> int:
    """The cell count of the next line of cells after ``index``, or -1 at a break."""
    for kind, cells in records[index + 1 :]:
        if kind != _SEP:
            return len(cells.values) if kind in (_DATA, _TABS) else -1
    return -1


def _read_lines(
    lines: list[str],
    source: str,
    size: int | None,
    errors: list[ParseError] | None,
    first_line: int,
) -> list[Entry]:
    """Puzzles from lines and grids (not CSV), in order; errors as :func:`read_text` says."""
    records = _classify(lines, source, size, first_line)
    entries: list[Entry] = []
    block: list[_Cells] = []  # the rows of the grid being read
    block_n = block_rows = block_start = 0
    skip = 0  # rows (of block_n cells) of a broken grid still to drop
    run_end, run_rows = -1, False

    def fail(err: ParseError) -> None:
        if errors is None:
            raise err
        errors.append(err)

    for index, (kind, cells) in enumerate(records):
        k, no = len(cells.values), cells.line
        if kind == _TABS:  # a row of blanks inside a tab-separated grid, else a blank line
            kind = _DATA if (block_rows or skip) and k == block_n else _BREAK
        if kind == _SEP:
            continue
        if block_rows or skip:
            if kind == _LINE and k == block_n:
                # 16 characters and text inside a 16x16 grid: not a row, the cells say why
                kind, cells = _DATA, _read(cells.whole, no)
                k = len(cells.values)
            if skip:  # the rest of a broken grid goes with it
                if kind == _DATA and k == block_n:
                    skip -= 1
                    continue
                skip = 0
        if block_rows and (kind == _BREAK or k != block_n):
            rows, block, block_rows = block_rows, [], 0
            if kind == _BREAK:
                fail(_ended(source, no, block_start, rows, block_n))
                continue
            row = f"a row of the {block_n}x{block_n} grid starting at line {block_start}"
            fail(_count_error(cells, source, [(block_n, row)]))
            if not _whole(kind, cells, size):  # a wrong row: the rest of its grid goes too
                if rows == 1 and _next_count(records, index) == k:
                    block_n = k  # rows of k cells follow: the first row was the wrong one
                skip = block_n - rows - 1
                continue
            # else the grid was cut short by a whole puzzle: read the puzzle
        if kind == _BREAK:
            continue
        if kind == _LINE:  # a whole puzzle with text after it, never inside a grid here
            err = _whole_error(cells, cells.size, source) or cells.error
            if err is not None:
                fail(err)
            else:
                puzzle = _whole_puzzle(cells, cells.size)
                entries.append(Entry(puzzle, cells.solution, source, no, cells.count))
            continue
        if block_rows:
            n = block_n
        elif size is not None:
            if k not in (size, size * size, size**3):
                fail(_count_error(cells, source, _options(size)))
                continue
            n = size
        elif k == 16:
            if index >= run_end:
                run_end, run_rows = _rows16(records, index)
            n = 16 if run_rows else 4
        elif k in _COUNTS:
            n = _SQUARES.get(k, k)  # a whole puzzle, else a row
        elif k in _CUBES:
            n = _CUBES[k]
        else:
            fail(_count_error(cells, source, _options(None)))
            continue
        if k == n**3:  # pencil marks on one line
            err = _whole_error(cells, n, source)
            if err is not None:
                fail(err)
            else:
                entries.append(Entry(_whole_puzzle(cells, n), None, source, no))
            continue
        if cells.bad or cells.top > n:  # (_bad_value's test, inlined: the common line)
            fail(_bad_value(cells, n, source))  # type: ignore[arg-type]
            if k == n:  # a bad row: the rest of its grid goes with it
                skip, block_n, block, block_rows = n - block_rows - 1, n, [], 0
            continue
        values: list[int] = cells.values  # type: ignore[assignment]
        if k == n * n:
            entries.append(Entry(Puzzle(geometry(n), tuple(values)), None, source, no))
            continue
        if not block_rows:
            block_n, block_start = n, no
        block.append(cells)
        block_rows += 1
        if block_rows == n:
            try:
                entries.append(Entry(_grid_puzzle(block, n, source), None, source, block_start))
            except ParseError as err:
                fail(err)
            block, block_rows = [], 0
    if block_rows:
        fail(_ended(source, first_line + len(lines) - 1, block_start, block_rows, block_n))
    return entries


def _grid_puzzle(rows: list[_Cells], n: int, source: str) -> Puzzle:
    """The puzzle of a grid's n rows: pencil marks when a row is (then every row's cells
    are read as candidates run together: ``12`` is 1 and 2, not twelve)."""
    if all(row.marks is None for row in rows):
        return Puzzle(geometry(n), tuple(v for row in rows for v in row.values))  # type: ignore[misc]
    masks: list[int] = []
    for r, row in enumerate(rows):
        row_masks = row.marks
        if row_masks is None:
            row_masks = [_mask(token, n) for token in row.tokens]  # type: ignore[misc]
        for i, mask in enumerate(row_masks):
            if mask is None:  # a cell of several characters that is not candidates
                message = f"{row.tokens[i]!r} is not candidates of a {n}x{n} puzzle"
                raise ParseError(message, source, row.line, row.col(i))
            if not mask:
                where = geometry(n).cell_name(r * n + i)
                message = f"{where} has no candidate (a pencil-mark cell lists at least one)"
                raise ParseError(message, source, row.line, row.col(i))
        masks += row_masks
    return Puzzle.from_candidates(masks, geometry(n))


def _whole_error(cells: _Cells, n: int, source: str) -> ParseError | None:
    """The error of a whole puzzle on one line (n*n cells, or n*n*n pencil marks), if any."""
    values = cells.values
    if len(values) != n**3:
        return _bad_value(cells, n, source)
    for i, value in enumerate(values):
        v = i % n + 1
        if value is None or value not in (0, v):
            where = geometry(n).cell_name(i // n)
            message = (
                f"{cells.tokens[i]!r} is not {symbol(v)!r} or a blank (the mark of {v} in {where})"
            )
            return ParseError(message, source, cells.line, cells.col(i))
    for cell in range(n * n):
        if not any(values[cell * n : (cell + 1) * n]):
            where = geometry(n).cell_name(cell)
            message = f"{where} has no candidate (its {n} characters are all blanks)"
            return ParseError(message, source, cells.line, cells.col(cell * n))
    return None


def _whole_puzzle(cells: _Cells, n: int) -> Puzzle:
    """The puzzle of a whole line that :func:`_whole_error` passed."""
    values = cells.values
    if len(values) == n * n:
        return Puzzle(geometry(n), tuple(values))  # type: ignore[arg-type]
    masks = [0] * (n * n)
    for i, value in enumerate(values):
        if value:
            masks[i // n] |= 1 << (value - 1)
    return Puzzle.from_candidates(masks, geometry(n))


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


def _csv_grid(text: str, line: int, offset: int, source: str, size: int | None) -> Puzzle:
    """The puzzle of a CSV field that must hold one whole puzzle (of ``size`` if given),
    its cells or its pencil marks."""
    cells = _read(text, line, offset)
    k = len(cells.values)
    n = size if size is not None else _SQUARES.get(k) or _CUBES.get(k)
    if n is None or k not in (n * n, n**3):
        raise _count_error(cells, source, _options(size, rows=False))
    err = _whole_error(cells, n, source)
    if err is not None:
        raise err
    return _whole_puzzle(cells, n)


def _read_csv(
    lines: list[str],
    source: str,
    size: int | None,
    errors: list[ParseError] | None,
    first_line: int,
) -> list[Entry]:
    """Puzzles from CSV: a puzzle column, an optional solution column, an optional header.

    Without a header the puzzle is field 1 and the solution field 2, read when it is longer
    than a row (so a short difficulty or id column is ignored). A first row made of words
    that is not a puzzle is a header; it may name the columns (``puzzle``/``quizzes``/...,
    ``solution``/``answer``/...). A solution must be a complete grid of the puzzle's size.
    A bad row raises, or with an ``errors`` list is appended to it and skipped.
    """
    entries: list[Entry] = []
    p_col, s_col, named, first = 0, 1, False, True
    for no, raw in enumerate(lines, first_line):
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
        try:
            if p_col >= len(fields):
                have = f"{len(fields)} field" + ("s" if len(fields) > 1 else "")
                message = f"row has {have}; the puzzle is field {p_col + 1}"
                raise ParseError(message, source, no, len(s) + 1)
            text, offset = fields[p_col]
            puzzle = _csv_grid(text, no, offset, source, size)
            n = puzzle.size
            solution = None
            stext, soffset = fields[s_col] if 0 <= s_col < len(fields) else ("", 0)
            if stext and (named or len(stext) > n):
                solution = _solution(stext, no, soffset, source, n, "line")
            entries.append(Entry(puzzle, solution, source, no))
        except ParseError as err:
            if errors is None:
                raise
            errors.append(err)
    return entries


def _documents(
    text: str, source: str, first_line: int, errors: list[ParseError] | None
) -> list[Entry]:
    """Puzzle documents from a text whose first line is ``first_line``; the first error
    raises, or each is appended to ``errors``."""
    shift = first_line - 1
    found: list[ParseError] = []
    try:
        from .documents import read_documents  # json and the schema, only for documents

        entries = read_documents(text, source, errors=found if errors is not None else None)
    except ParseError as err:
        raise _shifted(err, shift) from None
    if errors is not None:
        errors += [_shifted(err, shift) for err in found]
    return [replace(e, line=e.line + shift) for e in entries] if shift else entries


def _shifted(err: ParseError, shift: int) -> ParseError:
    """The error with its line counted from the whole text's start."""
    if not shift or err.line is None:
        return err
    return type(err)(err.message, err.source, err.line + shift, err.column)


def read_text(
    text: str,
    source: str = "<text>",
    size: int | None = None,
    errors: list[ParseError] | None = None,
    first_line: int = 1,
) -> list[Entry]:
    """Every puzzle in a text, in order; raises ParseError at the first bad one.

    Given a list as ``errors``, each bad line, grid, CSV row or puzzle document is appended to
    it instead and reading goes on. ``first_line`` is the number of the
    text's first line, for a text cut from a larger one: entries and errors count from it.
    """
    if size is not None:
        geometry(size)  # ValueError for an unsupported size, before reading anything
    cut = text.find("\x1a")
    if cut >= 0:
        text = text[:cut]  # DOS end of file: nothing after it is data
    text = text.removeprefix("\ufeff")
    if text.lstrip()[:1] in ("{", "["):  # a puzzle document (JSON or JSON Lines)
        return _documents(text, source, first_line, errors)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    first = next((s for s in lines if s.strip() and not s.lstrip().startswith("#")), "")
    if first.lstrip()[:4] in ("http", "fpuz", "N4Ig") or first.lstrip()[:3] in ("scl", "ctc"):
        from .fpuzzles import is_fpuzzles_text
        from .sudokupad import is_sudokupad_text, read_sudokupad_text

        if is_sudokupad_text(first) or is_fpuzzles_text(first):  # links, compressed puzzles
            return read_sudokupad_text(text, source, errors, first_line)
    if "," in first and not _csv_is_text(first.rstrip(), size):
        return _read_csv(lines, source, size, errors, first_line)
    return _read_lines(lines, source, size, errors, first_line)


def read_file(
    path: str | os.PathLike[str], size: int | None = None, errors: list[ParseError] | None = None
) -> list[Entry]:
    """Every puzzle in a UTF-8 file (BOM tolerated); ParseError names the file on failure.

    ``errors`` as for :func:`read_text`; an unreadable or non-UTF-8 file always raises.
    """
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
        lines = True if source.endswith(".jsonl") else None
        from .documents import read_documents

        return read_documents(text, source, lines, errors)
    return read_text(text, source, size, errors)


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


def counted(n: int, thing: str) -> str:
    """A count and what it counts, singular for one: ``1 puzzle``, ``3 puzzles``.

    >>> counted(1, "puzzle"), counted(0, "bad line"), counted(95, "puzzle")
    ('1 puzzle', '0 bad lines', '95 puzzles')
    """
    return f"{n} {thing}{'' if n == 1 else 's'}"


def format_line(puzzle_or_grid: Puzzle | Sequence[int], blank: str = ".") -> str:
    """A puzzle on one line, row-major: ``4.....8.5.3...``; letters for values above 9.

    A pencil-mark puzzle is written n characters per cell, tdoku's 729-character form.
    """
    if isinstance(puzzle_or_grid, Puzzle) and puzzle_or_grid.candidates is not None:
        line = marks_line(puzzle_or_grid.candidates, puzzle_or_grid.size)
        return line if blank == "." else line.replace(".", blank)
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
    """A boxed grid, one row per line, ``.`` for blanks (box shape from the geometry); a
    pencil-mark puzzle's as :func:`format_candidates` writes them."""
    if isinstance(puzzle_or_grid, Puzzle) and puzzle_or_grid.candidates is not None:
        return format_candidates(puzzle_or_grid.candidates, geometry or puzzle_or_grid.geometry)
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
