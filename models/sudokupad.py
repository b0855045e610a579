"""SudokuPad puzzles: its links, their compressed text, and the JSON they hold, as puzzles.

SudokuPad (``https://sudokupad.app/scl...``, ``?puzzleid=scl...``, the same tails on
``app.crackingthecryptic.com``; ``ctc`` is another name for ``scl``) keeps a puzzle as
JSON compressed with LZ-string into base64, after its "zipper" shortened it: short keys
(``ce`` cells, ``re`` regions, ``ca`` cages, ``l`` lines, ``a`` arrows, ``u``/``o``
underlays/overlays, ``ct`` centre, ``wp`` way points, ``c1``/``c2`` border/background
colours...), single quotes, unquoted keys, ``t``/``f`` for true/false, ``#0``/``#F`` for
black and white, an empty array slot for ``{}``. A link with a short id
(``sudokupad.app/abc123``) names a puzzle on SudokuPad's server and needs the network:
it is refused, asking for the long link or the JSON. A SudokuPad link to an f-puzzles
puzzle (``fpuz...``) is read by :mod:`.fpuzzles`.

SudokuPad stores a puzzle mostly as drawings: what a line or a circle means is a
convention its rules text states. The data and the unambiguous conventions are read, each
kind as :mod:`.fpuzzles` reads the same f-puzzles constraint; any other mark is refused
by name (a puzzle read without one of its rules is another puzzle), never dropped.
docs/guides/variants.md ("SudokuPad's own puzzles", "How each rule is read") lists what
is read as which rule and what is refused. Garbage (a text that does not decompress, JSON
nested too deeply, a value of the wrong type) is refused with SudokuPadError, never
another exception.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any
from urllib.parse import unquote

from .entries import MAX_DEPTH, Entry, ParseError, shown, too_deep
from .geometry import BOX_SHAPES, SIZES, geometry, make_geometry
from .puzzle import Cage, Puzzle, is_solution
from .rule_fields import board_wide, check_cage, check_little_killer, distinct, negative_kropki
from .rules import (
    Difference,
    Less,
    LittleKiller,
    PairSum,
    Parity,
    Ratio,
    Rule,
    SumEquals,
    broken_by_givens,
)
from .variants import diagonal_units, region_units


class SudokuPadError(ParseError):
    """A SudokuPad link or document sudokulab cannot read: where, and why."""


#: The zipper's short keys, by long key (SudokuPad's ``PuzzleZipper``).
_SHORT = {
    "color": "c",
    "cages": "ca",
    "center": "ct",
    "borderColor": "c1",
    "backgroundColor": "c2",
    "cells": "ce",
    "cellSize": "cs",
    "arrows": "a",
    "overlays": "o",
    "underlays": "u",
    "width": "w",
    "height": "h",
    "value": "v",
    "videos": "vd",
    "lines": "l",
    "rounded": "r",
    "regions": "re",
    "fontSize": "fs",
    "thickness": "th",
    "headLength": "hl",
    "wayPoints": "wp",
    "title": "t",
    "text": "te",
    "duration": "d",
    "d": "d2",
}
_LONG = {short: long for long, short in _SHORT.items()}

#: Top-level keys that say nothing about the solution.
_QUIET = frozenset({"id", "cellSize", "settings", "videos", "metadata", "version", "solution"})

#: Names of the top-level keys refused (the rest by their key).
_NAMES = {
    "foglight": "fog of war",
    "foglink": "fog of war",
    "triggereffect": "trigger effects",
}

_SCL = re.compile(r"(?:[?&](?:puzzle|puzzleid|load)=|/)((?:scl|ctc)[^?&#\s]+)")
_HOSTS = ("sudokupad", "crackingthecryptic")


def is_sudokupad_text(text: str) -> bool:
    """Whether a text's first line is a SudokuPad link (not one to an f-puzzles puzzle)
    or a compressed SudokuPad puzzle (``scl...``)."""
    word = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if not word or any(ch.isspace() for ch in word):
        return False
    if word.startswith(("http://", "https://")):
        host = word.split("/")[2] if word.count("/") >= 2 else ""
        return any(h in host for h in _HOSTS) and "fpuz" not in word
    return word.startswith(("scl", "ctc"))


def decode(text: str, source: str = "<text>") -> dict[str, Any]:
    """The JSON object (long keys) a SudokuPad link or compressed text holds;
    SudokuPadError if none."""
    from .fpuzzles import decompress

    word = text.strip()
    if word.startswith(("http://", "https://")):
        found = _SCL.search(word)
        if not found:
            tail = word.split("/", 3)[3] if word.count("/") >= 3 else ""
            raise SudokuPadError(
                f"a SudokuPad short link ({tail or word}) names a puzzle on SudokuPad's server, "
                "which sudokulab does not fetch: paste the long link (.../scl...) or the "
                "puzzle's JSON",
                source,
                1,
            )
        word = found[1]
    word = unquote(word)[3:]
    plain = word if word.lstrip().startswith("{") else decompress(word)
    if not plain:
        raise SudokuPadError("not a SudokuPad puzzle: the text does not decompress", source, 1)
    try:
        doc = unzip(plain)
    except ValueError as err:
        raise SudokuPadError(f"not a SudokuPad puzzle: {err}", source, 1) from None
    if not isinstance(doc, dict) or "cells" not in doc:
        raise SudokuPadError("not a SudokuPad puzzle: no cells in its JSON", source, 1)
    return doc


def unzip(text: str) -> Any:
    """The JSON value of a SudokuPad puzzle text, zipped (short keys, the zipper's
    shorthand) or plain JSON; ValueError where it is neither."""
    try:
        value = json.loads(text)  # plain JSON has its long keys (as SudokuPad reads it)
    except ValueError:
        pass
    except RecursionError:  # json's decoder recurses once per level of nesting
        raise ValueError(_TOO_DEEP) from None
    else:
        if too_deep(value):
            raise ValueError(_TOO_DEEP)
        return value
    value, end = _Zipped(text).value(0)
    if text[end:].strip():
        raise ValueError(f"unexpected {text[end : end + 10]!r} at character {end}")
    return value


#: What a value nested deeper than any puzzle is, in an error message.
_TOO_DEEP = f"arrays or objects nested more than {MAX_DEPTH} deep"


class _Zipped:
    """A reader of the zipper's JSON shorthand (a recursive descent over the text, no
    deeper than :data:`~.entries.MAX_DEPTH` levels)."""

    _WORD = re.compile(r"[^,:\]\}\[\{'\"\s]+")

    def __init__(self, text: str) -> None:
        self.text = text
        self.depth = 0

    def value(self, i: int, key: bool = False) -> tuple[Any, int]:
        """The value starting at ``i`` (after blanks), and where it ends."""
        text = self.text
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            raise ValueError("the text ends inside a value")
        ch = text[i]
        if ch in "{[":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise ValueError(_TOO_DEEP)
            found = self._object(i + 1) if ch == "{" else self._array(i + 1)
            self.depth -= 1
            return found
        if ch in "'\"":
            return self._string(i)
        found = self._WORD.match(text, i)
        if not found:
            raise ValueError(f"unexpected {text[i : i + 10]!r} at character {i}")
        return self._word(found[0], key), found.end()

    def _object(self, i: int) -> tuple[dict[str, Any], int]:
        out: dict[str, Any] = {}
        text = self.text
        while True:
            i = self._skip(i)
            if text[i] == "}":
                return out, i + 1
            if text[i] in "'\"":
                key, i = self._string(i)
            else:
                found = self._WORD.match(text, i)
                if not found:
                    raise ValueError(f"expected a key at character {i}")
                key, i = found[0], found.end()
            i = self._skip(i)
            if text[i] != ":":
                raise ValueError(f"expected ':' at character {i}")
            value, i = self.value(i + 1, key=True)
            out[_LONG.get(key, key)] = value
            i = self._skip(i)
            if text[i] == ",":
                i += 1
            elif text[i] != "}":
                raise ValueError(f"expected ',' or '}}' at character {i}")

    def _array(self, i: int) -> tuple[list[Any], int]:
        out: list[Any] = []
        text = self.text
        while True:  # the zipper drops empty arrays: "[]" is one empty slot, as SudokuPad reads it
            i = self._skip(i)
            if text[i] in ",]":  # an empty slot is an empty object (an empty cell)
                out.append({})
            else:
                item, i = self.value(i)
                out.append(item)
                i = self._skip(i)
            if text[i] == "]":
                return out, i + 1
            if text[i] != ",":
                raise ValueError(f"expected ',' or ']' at character {i}")
            i += 1

    def _string(self, i: int) -> tuple[str, int]:
        text = self.text
        if text[i] == '"':  # a plain JSON string (the zipper keeps them when a text has one)
            return json.decoder.scanstring(text, i + 1)
        j = i + 1
        while j < len(text) and text[j] != "'":
            j += 2 if text[j] == "\\" else 1
        if j >= len(text):
            raise ValueError("a string does not end")
        raw = text[i + 1 : j].replace("\\'", "'").replace('"', '\\"')
        try:
            return json.loads('"' + raw + '"'), j + 1
        except ValueError:
            return raw, j + 1

    def _skip(self, i: int) -> int:
        text = self.text
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            raise ValueError("the text ends inside an object or array")
        return i

    @staticmethod
    def _word(word: str, key: bool) -> Any:
        fixed = {"t": True, "f": False, "true": True, "false": False, "null": None}
        if word in fixed:
            return fixed[word]
        if word in ("#0", "#F"):
            return "#000000" if word == "#0" else "#FFFFFF"
        if key and re.fullmatch(r"[0-9a-fA-F]{6}", word):
            return "#" + word  # a colour: the zipper dropped its '#'
        try:
            return json.loads(word)
        except ValueError:
            return word


def read_sudokupad_text(
    text: str, source: str = "<text>", errors: list[ParseError] | None = None, first_line: int = 1
) -> list[Entry]:
    """The puzzles of a text of SudokuPad or f-puzzles links or compressed texts, one a
    line (blank lines and ``#`` comments skipped); the first bad one raises, or each is
    appended to ``errors``."""
    from .fpuzzles import FPuzzlesError, read_fpuzzles_text

    entries = []
    for number, line in enumerate(text.splitlines(), first_line):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not is_sudokupad_text(line):
            entries += read_fpuzzles_text(line, source, errors, number)
            continue
        try:
            entries.append(read_sudokupad_document(decode(line, source), source, number))
        except (SudokuPadError, FPuzzlesError) as err:
            err = SudokuPadError(err.message, source, number)
            if errors is None:
                raise err from None
            errors.append(err)
    return entries


def read_sudokupad_document(doc: dict[str, Any], source: str, line: int) -> Entry:
    """A SudokuPad JSON object (long keys) as an Entry; SudokuPadError naming what cannot
    be read."""
    try:
        puzzle, solution = puzzle_of(doc)
    except ValueError as err:
        raise SudokuPadError(str(err), source, line) from None
    return Entry(puzzle, solution, source, line)


# --- reading the drawings ------------------------------------------------------------------


def _name(r: int, c: int) -> str:
    return f"r{r + 1}c{c + 1}"


def _num(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{shown(value)} is not a coordinate")
    return float(value)


def _point(value: Any, what: str) -> tuple[float, float]:
    try:
        r, c = value
        return _num(r), _num(c)
    except (TypeError, ValueError):
        raise ValueError(f"{what}: {shown(value)} is not a point (row, column)") from None


def _is_half(x: float) -> bool:
    return abs(x - math.floor(x) - 0.5) < 1e-6


def _is_whole(x: float) -> bool:
    return abs(x - round(x)) < 1e-6


def _colour(value: Any) -> str:
    """A colour as six lowercase hex digits (no alpha), or the word it was."""
    if value is not None and not isinstance(value, str):
        return shown(value, 20)
    text = str(value or "").strip().lower()
    if re.fullmatch(r"#[0-9a-f]{3,4}", text):
        text = "#" + "".join(ch * 2 for ch in text[1:4])
    if re.fullmatch(r"#[0-9a-f]{8}", text):
        if text[7:] == "00":
            return "none"  # fully transparent
        text = text[:7]
    return {"white": "#ffffff", "black": "#000000", "transparent": "none", "": "none"}.get(
        text, text
    )


def _described(colour: str) -> str:
    names = {"#ffffff": "white", "#000000": "black", "none": "uncoloured"}
    return names.get(colour, colour)


def _grey(colour: str) -> bool:
    if not re.fullmatch(r"#[0-9a-f]{6}", colour) or colour in ("#ffffff", "#000000"):
        return False
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return max(r, g, b) - min(r, g, b) < 24


class _Board:
    """The puzzle's drawings, each read once: what a rule uses is marked as used."""

    def __init__(self, doc: dict[str, Any], n: int) -> None:
        self.n = n
        self.shapes: list[dict[str, Any]] = []
        for key in ("underlays", "overlays"):
            for i, item in enumerate(_objects(doc, key), 1):
                self.shapes.append({**item, "_where": f"{key} {i}"})
        self.used: set[int] = set()
        #: The circles arrows start from (several arrows may share one).
        self.arrow_circles: set[int] = set()

    def cell(self, r: float, c: float) -> int | None:
        """The cell at a point, or None outside the grid."""
        n = self.n
        row, col = math.floor(r), math.floor(c)
        return row * n + col if 0 <= row < n and 0 <= col < n else None

    def circles_at(self, r: float, c: float, arrow: bool = False) -> list[int]:
        """The unused round shapes (bulbs; with ``arrow``, also the circles of other
        arrows) that cover a point."""
        found = []
        for i, shape in enumerate(self.shapes):
            if i in self.used and not (arrow and i in self.arrow_circles):
                continue
            if not shape.get("rounded") or shape.get("text"):
                continue
            try:
                cr, cc = _point(shape.get("center"), shape["_where"])
                w, h = _num(shape.get("width", 0)), _num(shape.get("height", 0))
            except ValueError:
                continue
            if w >= 0.6 and h >= 0.6 and abs(r - cr) <= h / 2 and abs(c - cc) <= w / 2:
                found.append(i)
        return found

    def circle_cells(self, i: int) -> tuple[int, ...]:
        """The cells whose centres a round shape covers (an arrow's circle may span two)."""
        shape = self.shapes[i]
        cr, cc = _point(shape.get("center"), shape["_where"])
        w, h = _num(shape.get("width", 0)), _num(shape.get("height", 0))
        out = []
        for r in range(self.n):
            for c in range(self.n):
                if abs(r + 0.5 - cr) <= h / 2 and abs(c + 0.5 - cc) <= w / 2:
                    out.append(r * self.n + c)
        return tuple(out)


def _path(points: list[tuple[float, float]], n: int, what: str) -> list[int]:
    """The cells a line through cell centres visits, in order (a straight or diagonal
    segment passes the cells between its ends)."""
    cells: list[int] = []
    for (r0, c0), (r1, c1) in zip(points, points[1:], strict=False):
        dr, dc = r1 - r0, c1 - c0
        steps = max(abs(dr), abs(dc))
        if not (_is_whole(steps) and (abs(dr) in (0, steps) and abs(dc) in (0, steps))):
            raise ValueError(f"{what}: a segment that is neither straight nor diagonal")
        k = round(steps)
        for j in range(k + 1):
            r, c = r0 + dr * j / max(k, 1), c0 + dc * j / max(k, 1)
            cell = math.floor(r) * n + math.floor(c)
            if not cells or cells[-1] != cell:
                cells.append(cell)
    if len(points) == 1:
        cells.append(math.floor(points[0][0]) * n + math.floor(points[0][1]))
    return cells


def _line_points(item: dict[str, Any], what: str) -> list[tuple[float, float]]:
    points = item.get("wayPoints") or []
    if not isinstance(points, list):
        raise ValueError(f"{what}: {shown(points)} is not a list of points")
    points = [_point(p, what) for p in points]
    if len(points) < 2:
        raise ValueError(f"{what}: a line needs two points")
    return points


def _cells_text(cells: list[int] | tuple[int, ...], n: int) -> str:
    return "-".join(_name(c // n, c % n) for c in cells)


def _lines(doc: dict[str, Any], board: _Board, units: list[Any]) -> list[Rule]:
    """Thermometers and diagonals from the lines; any other line refused."""
    n = board.n
    rules: list[Rule] = []
    down, up = diagonal_units(n)
    thermometers = 0
    for i, item in enumerate(_objects(doc, "lines"), 1):
        what = f"lines {i}"
        points = _line_points(item, what)
        ends = {points[0], points[-1]}
        if len(points) == 2 and ends == {(0.0, 0.0), (float(n), float(n))}:
            units.append(down)
            continue
        if len(points) == 2 and ends == {(0.0, float(n)), (float(n), 0.0)}:
            units.append(up)
            continue
        colour = _described(_colour(item.get("color")))
        centred = all(_is_half(r) and _is_half(c) for r, c in points)
        inside = all(0 < r < n and 0 < c < n for r, c in points)
        if centred and inside:
            cells = _path(points, n, what)
            bulb = _bulb(board, points, _colour(item.get("color")))
            if bulb is not None:
                if board.circles_at(*points[0]) != [bulb]:
                    cells.reverse()  # drawn from the top: the bulb is at the line's end
                board.used.add(bulb)
                thermometers += 1
                rules += [
                    Less(a, b, f"thermometer {thermometers}")
                    for a, b in zip(cells, cells[1:], strict=False)
                ]
            else:
                raise ValueError(
                    f"{what}: the puzzle draws a line sudokulab cannot read as a rule: a "
                    f"{colour} line {_cells_text(cells, n)} (whispers, renban and other "
                    "lines are conventions only the rules text states)"
                )
            continue
        raise ValueError(
            f"{what}: the puzzle draws a line sudokulab cannot read as a rule: a {colour} "
            f"line through {points[0]}...{points[-1]}"
        )
    return rules


def _bulb(board: _Board, points: list[tuple[float, float]], colour: str) -> int | None:
    """A thermometer's bulb: the one filled circle, in the line's colour (or both grey), at
    one end of the line and not the other (a line between two circles is not a
    thermometer), covering one cell."""
    found = []
    for end in (points[0], points[-1]):
        circles = board.circles_at(*end)
        if len(circles) > 1:
            return None
        found += circles
    if len(found) != 1 or len(board.circle_cells(found[0])) != 1:
        return None
    fill = _colour(board.shapes[found[0]].get("backgroundColor"))
    same = fill == colour or (_grey(fill) and _grey(colour))
    return found[0] if same and fill not in ("none", "#ffffff") else None


def _arrows(doc: dict[str, Any], board: _Board) -> tuple[list[Rule], list[tuple[int, int, int]]]:
    """Arrows from a circle (sums) and little-killer arrows outside the grid (as clue
    cell and direction, read with their numbers later)."""
    n = board.n
    rules: list[Rule] = []
    killers = []
    numbers: dict[int, int] = {}  # arrows from one circle are one arrow
    for i, item in enumerate(_objects(doc, "arrows"), 1):
        what = f"arrows {i}"
        points = _line_points(item, what)
        (r0, c0), (r1, c1) = points[0], points[1]
        start = board.cell(r0, c0)
        if start is None:
            dr, dc = r1 - r0, c1 - c0
            if len(points) == 2 and dr and dc and abs(abs(dr) - abs(dc)) < 1e-6:
                killers.append((math.floor(r0), math.floor(c0), i))
                continue
            raise ValueError(f"{what}: an arrow outside the grid that is not a little killer's")
        circles = board.circles_at(r0, c0, arrow=True)
        if not circles:
            circles = board.circles_at(math.floor(r0) + 0.5, math.floor(c0) + 0.5, arrow=True)
        if len({board.circle_cells(c) for c in circles}) > 1:
            raise ValueError(
                f"{what}: the puzzle draws an arrow from {_cells_text([start], n)} out of "
                "overlapping circles, which sudokulab cannot read as a rule"
            )
        if not circles:
            raise ValueError(
                f"{what}: the puzzle draws an arrow from {_cells_text([start], n)} without a "
                "circle, which sudokulab cannot read as a rule"
            )
        # f-puzzles' arrows from one circle, converted, draw that circle once each: each
        # arrow takes a copy of its own while one is left (f-puzzles numbers them apart)
        circles.sort(key=lambda c: c in board.arrow_circles)
        circle = board.circle_cells(circles[0])
        board.used.add(circles[0])
        board.arrow_circles.add(circles[0])
        centre = (math.floor(r0) + 0.5, math.floor(c0) + 0.5)
        if not all(0 < r < n and 0 < c < n for r, c in points[1:]):
            raise ValueError(f"{what}: an arrow leaves the grid")
        tail = [(math.floor(r) + 0.5, math.floor(c) + 0.5) for r, c in points[1:]]
        shaft = [c for c in _path([centre, *tail], n, what) if c not in circle]
        if not shaft:
            raise ValueError(f"{what}: an arrow without a shaft")
        number = numbers.setdefault(circles[0], len(numbers) + 1)
        rules.append(SumEquals(circle, tuple(shaft), f"arrow {number}", len(circle) > 1))
    return rules, killers


def _dots_and_marks(doc: dict[str, Any], board: _Board, killers: list[Any]) -> list[Rule]:
    """Kropki dots, XV, parity shapes and little-killer numbers from the shapes; any
    other shape refused."""
    n = board.n
    rules: list[Rule] = []
    clues: dict[tuple[int, int], tuple[int, str]] = {}
    counts = {"white dot": 0, "black dot": 0, "xv": 0}
    for i, shape in enumerate(board.shapes):
        if i in board.used:
            continue
        what = shape["_where"]
        r, c = _point(shape.get("center"), what)
        w, h = _num(shape.get("width", 0)), _num(shape.get("height", 0))
        text = str(shape.get("text", "") or "").strip()
        fill = _colour(shape.get("backgroundColor"))
        at = f"at ({r:g}, {c:g})"
        if board.cell(r, c) is None:
            if text:
                clues[(math.floor(r), math.floor(c))] = (i, text)
                continue
            raise ValueError(f"{what}: a shape outside the grid {at}, which sudokulab cannot read")
        edge = None
        if _is_half(r) and _is_whole(c) and 0 < c < n:
            a = math.floor(r) * n + round(c) - 1
            edge = (a, a + 1)
        elif _is_whole(r) and _is_half(c) and 0 < r < n:
            a = (round(r) - 1) * n + math.floor(c)
            edge = (a, a + n)
        if edge is not None:
            where = f"between {_cells_text(edge, n)}"
            dot = shape.get("rounded") and abs(w - h) < 1e-6 and w <= 0.5
            if dot and fill in ("#ffffff", "#000000"):
                white = fill == "#ffffff"
                if text and not re.fullmatch(r"[0-9]{1,9}", text):
                    raise ValueError(f"{what}: a dot {where} labelled {shown(text)}")
                word = "white dot" if white else "black dot"
                counts[word] += 1
                k = int(text) if text else (1 if white else 2)
                kind = Difference if white else Ratio
                rules.append(kind(edge[0], edge[1], k, f"{word} {counts[word]}"))
                continue
            if text.upper() in ("X", "V") and fill in ("#ffffff", "none") and w <= 0.5:
                letter = text.upper()
                counts["xv"] += 1
                total = 10 if letter == "X" else 5
                rules.append(PairSum(edge[0], edge[1], total, f"{letter} {counts['xv']}"))
                continue
            raise ValueError(
                f"{what}: the puzzle draws a mark {where} sudokulab cannot read as a rule: "
                f"a {_described(fill)} {'circle' if shape.get('rounded') else 'shape'}"
                + (f" labelled {shown(text)}" if text else "")
            )
        cell = board.cell(r, c)
        assert cell is not None
        centred = _is_half(r) and _is_half(c) and abs(w - h) < 1e-6
        if centred and not text and _grey(fill) and 0.5 <= w <= 0.8:
            parity = "odd" if shape.get("rounded") else "even"
            rules.append(Parity(cell, parity, f"{parity} cell"))
            continue
        kind = "circle" if shape.get("rounded") else "shape"
        label = f" with the text {shown(text)}" if text else ""
        raise ValueError(
            f"{what}: the puzzle draws a {_described(fill)} {kind}{label} {at} "
            f"(in {_cells_text([cell], n)}), which sudokulab cannot read as a rule"
        )
    for number, (r, c, i) in enumerate(killers, 1):
        found = clues.pop((r, c), None)
        if found is None:
            raise ValueError(f"arrows {i}: a little killer arrow without a number")
        _, text = found
        if text == "_":
            continue  # an arrow without a sum says nothing
        if not re.fullmatch(r"[0-9]{1,9}", text):
            raise ValueError(f"arrows {i}: a little killer labelled {shown(text)}")
        (r0, c0), (r1, c1) = _line_points(doc["arrows"][i - 1], f"arrows {i}")[:2]
        dr, dc = (1 if r1 > r0 else -1), (1 if c1 > c0 else -1)
        cells = []
        rr, cc = r + dr, c + dc
        while 0 <= rr < n and 0 <= cc < n:
            cells.append(rr * n + cc)
            rr, cc = rr + dr, cc + dc
        if not cells:
            raise ValueError(f"arrows {i}: the little killer's diagonal misses the grid")
        check_little_killer(len(cells), int(text), n, f"arrows {i}: the little killer's sum")
        rules.append(LittleKiller(tuple(cells), int(text), f"little killer {number}"))
    if clues:
        (r, c), (i, text) = next(iter(clues.items()))
        raise ValueError(
            f"{board.shapes[i]['_where']}: a clue {shown(text)} outside the grid "
            f"(r{r + 1}c{c + 1}): a sandwich, X-sum, skyscraper or other outside clue, which "
            "only the rules text names; sudokulab cannot read it"
        )
    return rules


_GLOBAL = {"antiknight": "anti-knight", "antiking": "anti-king", "nonconsecutive": "nonconsecutive"}


def _globals(doc: dict[str, Any], geom: Any, rules: list[Rule]) -> list[Rule]:
    """The board-wide rules SudokuPad names in ``global`` (and f-puzzles' metadata flags),
    read as :mod:`.fpuzzles` reads the same flags."""
    n = geom.size
    names = doc.get("global") or []
    if not isinstance(names, list):
        raise ValueError(f"global: expected a list of names, got {shown(names)}")
    names = [str(g) for g in names]
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    names += [key for key in ("antiknight", "antiking") if meta.get(key) is True]
    out: list[Rule] = []
    for name in dict.fromkeys(names):
        if name in _GLOBAL:
            out += board_wide(geom, _GLOBAL[name], rules)  # nonconsecutive spares the dots
        elif name in ("antidifference", "antiratio"):
            out += negative_kropki(rules, n, name == "antidifference")
        else:
            label = {"disjoint": "disjoint groups", "antixv": "XV negative constraint"}
            raise ValueError(
                f'global: the puzzle uses "{label.get(name, shown(name).strip(chr(39)))}", '
                "which sudokulab does not model"
            )
    return out


def _cages(doc: dict[str, Any], geom: Any) -> tuple[list[Cage], list[Rule], str | None]:
    """Killer cages (one without a sum only keeps its digits apart: ``NotEqual`` rules),
    and the solution a metadata cage gives."""
    n = geom.size
    cages, rules, solution = [], [], None
    owner: dict[int, str] = {}
    for i, cage in enumerate(_objects(doc, "cages"), 1):
        what = f"cages {i}"
        cells = cage.get("cells") or []
        value = cage.get("value")
        if not cells:
            meta = re.match(r"^([^: ]+):\s*(.*)", str(value or ""), re.S)
            if meta and meta[1] == "solution":
                solution = meta[2].strip()
            continue
        style = cage.get("style") or cage.get("type")
        if style not in (None, "killer"):
            name = {"extraregion": "extra region", "disjoint": "disjoint groups"}
            raise ValueError(
                f'{what}: the puzzle uses "{name.get(style, shown(style))}", which sudokulab '
                "does not model"
            )
        if not isinstance(cells, list):
            raise ValueError(f"{what}: {shown(cells)} is not a list of cells")
        try:
            index = tuple(_grid_cell(p, n, what) for p in cells)
        except ValueError:
            raise ValueError(f"{what}: cells outside the grid") from None
        where = _cells_text(index[:1], n)
        if cage.get("unique") is False:
            raise ValueError(
                f"{what}: a cage from {where} whose digits may repeat (sudokulab does not model it)"
            )
        total = cage.get("sum", value)
        if total in (None, ""):
            check_cage(index, None, geom, what, owner)
            rules += distinct(index, geom)
            continue
        if not re.fullmatch(r"\d{1,9}", str(total).strip()):
            raise ValueError(f"{what}: a cage from {where} labelled {shown(total)}, not a sum")
        check_cage(index, int(str(total).strip()), geom, what, owner)
        cages.append(Cage(index, int(str(total).strip())))
    return cages, rules, solution


def _objects(doc: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """A list of objects; ValueError naming the key and the first that is not one."""
    items = doc.get(key) or []
    if not isinstance(items, list):
        raise ValueError(f"{key}: expected a list of objects, got {shown(items)}")
    for i, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise ValueError(f"{key} {i}: not an object")
    return items


def _grid_cell(point: Any, n: int, what: str) -> int:
    try:
        r, c = point
    except (TypeError, ValueError):
        raise ValueError(f"{what}: {shown(point)} is not a cell (row, column)") from None
    if not (isinstance(r, int) and isinstance(c, int) and 0 <= r < n and 0 <= c < n):
        raise ValueError(f"{what}: {shown(point)} is not a cell of the grid")
    return r * n + c


def puzzle_of(doc: dict[str, Any]) -> tuple[Puzzle, tuple[int, ...] | None]:
    """The puzzle (and solution, when the puzzle carries a whole one) of a SudokuPad
    object with long keys; ValueError naming what cannot be read."""
    rows = doc.get("cells")
    if not isinstance(rows, list) or not rows or not all(isinstance(r, list) for r in rows):
        raise ValueError("cells: expected rows of cells")
    n = len(rows)
    if any(len(row) != n for row in rows):
        raise ValueError(f"cells: {n} rows of {sorted({len(r) for r in rows})} cells: not square")
    if n not in SIZES:
        raise ValueError(f"size: {n}x{n} is not a supported size ({', '.join(map(str, SIZES))})")
    unknown = [
        key
        for key, value in doc.items()
        if value
        and key not in _QUIET
        and key not in ("cells", "regions", "cages", "lines", "arrows", "underlays", "overlays")
        and key != "global"
    ]
    if unknown:
        name = _NAMES.get(unknown[0], unknown[0])
        raise ValueError(f'the puzzle uses "{name}", which sudokulab does not model')
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    if meta.get("norowcol"):
        raise ValueError(
            'metadata: the puzzle uses "no row or column rule" (norowcol), which sudokulab '
            "does not model"
        )
    if meta.get("bgimage"):
        raise ValueError(
            "metadata: the puzzle draws a background image, which may carry rules sudokulab "
            "cannot read"
        )
    givens = []
    for r, row in enumerate(rows):
        for c, item in enumerate(row):
            item = item if isinstance(item, dict) else {}
            if item.get("pencilMarks") or item.get("centremarks"):
                raise ValueError(f"cells {_name(r, c)}: given pencil marks (not read as a rule)")
            value = item.get("value")
            if value in (None, ""):
                givens.append(0)
                continue
            try:
                givens.append(int(str(value).strip()))
            except ValueError:
                raise ValueError(f"cells {_name(r, c)}: {shown(value)} is not a value") from None
            if not 1 <= givens[-1] <= n:
                raise ValueError(f"cells {_name(r, c)}: {shown(value)} is outside 1..{n}")
    box_rows, box_cols = BOX_SHAPES[n]
    geom = geometry(n)
    units = list(geom.units[: 2 * n])
    regions = doc.get("regions") or []
    if not regions:
        raise ValueError("regions: none (sudokulab models a grid with boxes or jigsaw regions)")
    if not isinstance(regions, list) or not all(isinstance(r, list | None) for r in regions):
        raise ValueError(f"regions: expected lists of cells, got {shown(regions)}")
    labels = [["" for _ in range(n)] for _ in range(n)]
    for i, region in enumerate(regions):
        for point in region or []:
            cell = _grid_cell(point, n, f"regions {i + 1}")
            labels[cell // n][cell % n] = str(i)
    if any("" in row for row in labels):
        missing = next(r * n + c for r in range(n) for c in range(n) if labels[r][c] == "")
        raise ValueError(f"regions: {_cells_text([missing], n)} is in no region")
    if {frozenset(u.cells) for u in region_units(n, labels)} == {
        frozenset(u.cells) for u in geom.units[2 * n :]
    }:
        units += geom.units[2 * n :]
    else:
        units += region_units(n, labels)
    board = _Board(doc, n)
    rules = _lines(doc, board, units)
    arrow_rules, killers = _arrows(doc, board)
    rules += arrow_rules
    rules += _dots_and_marks(doc, board, killers)
    geom = make_geometry(n, box_rows, box_cols, tuple(dict.fromkeys(units)))
    rules += _globals(doc, geom, rules)
    cages, distinct_rules, solution_text = _cages(doc, geom)
    rules += distinct_rules
    solution_text = str(meta.get("solution") or solution_text or "")
    puzzle = Puzzle(geom, tuple(givens), tuple(cages), None, tuple(dict.fromkeys(rules)))
    clashes = puzzle.clashes()
    if clashes:
        raise ValueError(f"cells: {clashes[0]}")
    rule = broken_by_givens(puzzle.rules, puzzle.givens)
    if rule is not None:
        raise ValueError(f"cells: the givens break {rule.name}")
    if n <= 9 and re.fullmatch(rf"[1-{n}]{{{n * n}}}", solution_text):
        grid = tuple(int(ch) for ch in solution_text)
        if not is_solution(puzzle, grid):
            raise ValueError("solution: does not solve the puzzle")
        return puzzle, grid
    return puzzle, None
