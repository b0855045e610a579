"""f-puzzles puzzles: links, their compressed text, and the JSON they hold, as puzzles.

f-puzzles (and SudokuPad, for the puzzles it loads from f-puzzles: ``fpuz...``) keeps a
puzzle as JSON compressed with LZ-string into URL-safe base64: the ``load=`` part of an
``https://www.f-puzzles.com/?load=N4Ig...`` link. The JSON has ``size``, a ``grid`` of
cell objects (``value`` with ``given``; ``region`` for jigsaw), and a list per
constraint. The constraints sudokulab models are mapped to its rules; any other one is
refused by name, since a puzzle read without one of its rules is another puzzle:

===================  =======================================================
f-puzzles            sudokulab
===================  =======================================================
diagonal+/-          the diagonals as units
killercage           killer cages
thermometer          ``Less`` chains (bulb first)
arrow                ``SumEquals`` (circle = shaft; a 2-cell circle is a number)
difference, ratio    kropki dots: ``Difference`` (value, default 1),
                     ``Ratio`` (value, default 2); ``negative`` adds
                     ``NotDifference``/``NotRatio`` between undotted neighbours
xv                   ``PairSum`` (V 5, X 10)
whispers             ``MinDifference`` (value, default 5) between neighbours
renban               ``Consecutive``
regionsumline        ``SumEquals`` between the segments of each box crossed
odd, even            ``Parity``
sandwichsum          ``Sandwich`` of the row or column
littlekillersum      ``LittleKiller`` along the diagonal
antiknight, antiking ``NotEqual`` per chess-move pair
nonconsecutive       ``NotDifference`` (1) per orthogonal pair
===================  =======================================================
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from .entries import Entry, ParseError
from .geometry import BOX_SHAPES, SIZES, geometry, make_geometry
from .puzzle import Cage, Puzzle, is_solution
from .rule_fields import segments
from .rules import (
    Difference,
    Less,
    LittleKiller,
    MinDifference,
    NotDifference,
    NotRatio,
    PairSum,
    Parity,
    Ratio,
    Rule,
    Sandwich,
    SumEquals,
    broken_by_givens,
    neighbour_pairs,
)
from .variants import board_rules, diagonal_units, region_units


class FPuzzlesError(ParseError):
    """An f-puzzles link or document sudokulab cannot read: where, and why."""


#: Keys that say nothing about the solution (titles, display settings): skipped.
_IGNORED = frozenset(
    {"size", "grid", "title", "author", "ruleset", "solution", "disabledlogic"}
    | {"truecandidatesoptions", "version", "highlightConflicts", "negative"}
)

#: The names f-puzzles' keys are refused by (the rest by their key).
_NAMES = {
    "entropicline": "entropic line",
    "betweenline": "between line",
    "minimum": "minimum cell",
    "maximum": "maximum cell",
    "palindrome": "palindrome",
    "clone": "clone",
    "quadruple": "quadruple",
    "extraregion": "extra region",
    "cage": "cage (a cosmetic cage may carry a rule in the text)",
    "line": "line (a cosmetic line may carry a rule in the text)",
    "circle": "circle (a cosmetic circle may carry a rule in the text)",
    "rectangle": "rectangle (a cosmetic shape may carry a rule in the text)",
    "text": "text (a cosmetic text may carry a rule)",
    "sumdot": "sum dot",
}

_LINK = re.compile(r"[?&]load=([^&#\s]+)|/(fpuz[^?&#\s]*)|[?&]puzzleid=(fpuz[^&#\s]+)")


def is_fpuzzles_text(text: str) -> bool:
    """Whether a text's first line is an f-puzzles (or SudokuPad ``fpuz``) link or
    compressed puzzle."""
    word = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if not word or any(ch.isspace() for ch in word):
        return False
    if word.startswith(("http://", "https://")):
        return "f-puzzles" in word or "sudokupad" in word
    return word.startswith(("fpuz", "N4Ig"))  # LZ-string base64 of '{"size":'


def decode(text: str, source: str = "<text>") -> dict[str, Any]:
    """The JSON object an f-puzzles link or compressed text holds; FPuzzlesError if none."""
    import json

    import lzstring

    word = text.strip()
    if word.startswith(("http://", "https://")):
        found = _LINK.search(word)
        if not found:
            raise FPuzzlesError(
                "not an f-puzzles puzzle: a link without load=... or fpuz...",
                source,
                1,
            )
        word = next(g for g in found.groups() if g)
    word = unquote(word).removeprefix("fpuz")
    try:
        plain = lzstring.LZString().decompressFromBase64(word.replace(" ", "+"))
    except (ValueError, KeyError, IndexError, TypeError):
        plain = None
    if not plain:
        raise FPuzzlesError("not an f-puzzles puzzle: the text does not decompress", source, 1)
    try:
        doc = json.loads(plain)
    except ValueError:
        raise FPuzzlesError("not an f-puzzles puzzle: no JSON inside", source, 1) from None
    if not isinstance(doc, dict) or "grid" not in doc:
        raise FPuzzlesError("not an f-puzzles puzzle: no grid in its JSON", source, 1)
    return doc


def encode(doc: dict[str, Any]) -> str:
    """The compressed text of an f-puzzles JSON object (the ``load=`` part of a link)."""
    import json

    import lzstring

    return lzstring.LZString().compressToBase64(json.dumps(doc, separators=(",", ":")))


def read_fpuzzles_text(
    text: str, source: str = "<text>", errors: list[ParseError] | None = None, first_line: int = 1
) -> list[Entry]:
    """The puzzles of a text of f-puzzles links or compressed texts, one a line (blank
    lines and ``#`` comments skipped); the first bad one raises FPuzzlesError, or each is
    appended to ``errors``."""
    entries = []
    for number, line in enumerate(text.splitlines(), first_line):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            doc = decode(line, source)
            entries.append(read_fpuzzles_document(doc, source, number))
        except FPuzzlesError as err:
            err = FPuzzlesError(err.message, source, number)
            if errors is None:
                raise err from None
            errors.append(err)
    return entries


def read_fpuzzles_document(doc: dict[str, Any], source: str, line: int) -> Entry:
    """An f-puzzles JSON object as an Entry; FPuzzlesError naming what cannot be read."""
    try:
        puzzle, solution = puzzle_of(doc)
    except ValueError as err:
        raise FPuzzlesError(str(err), source, line) from None
    return Entry(puzzle, solution, source, line)


def _cell(ref: Any, n: int, field: str) -> int:
    match = re.fullmatch(r"[Rr](\d+)[Cc](\d+)", str(ref))
    if not match:
        raise ValueError(f"{field}: {ref!r} is not a cell (R1C1)")
    r, c = int(match[1]), int(match[2])
    if not (1 <= r <= n and 1 <= c <= n):
        raise ValueError(f"{field}: {ref} is outside the {n}x{n} grid")
    return (r - 1) * n + c - 1


def _number(value: Any, field: str, default: int | None = None) -> int:
    if value in (None, "") and default is not None:
        return default
    try:
        return int(str(value).strip())
    except ValueError:
        raise ValueError(f"{field}: {value!r} is not a number") from None


def puzzle_of(doc: dict[str, Any]) -> tuple[Puzzle, tuple[int, ...] | None]:
    """The puzzle (and solution, when the document has a whole one) of an f-puzzles
    object; ValueError naming the key of what cannot be read."""
    n = doc.get("size", 9)
    if n not in SIZES:
        raise ValueError(f"size: {n}x{n} is not a supported size ({', '.join(map(str, SIZES))})")
    unsupported = [
        key for key, value in doc.items() if key not in _IGNORED and key not in _READERS and value
    ]
    if unsupported:
        name = _NAMES.get(unsupported[0], unsupported[0])
        raise ValueError(f'the puzzle uses "{name}", which sudokulab does not model')
    grid = doc["grid"]
    if not isinstance(grid, list) or len(grid) != n or any(len(row) != n for row in grid):
        raise ValueError(f"grid: expected {n} rows of {n} cells")
    givens, labels = [], []
    rows, cols = BOX_SHAPES[n]
    for r, row in enumerate(grid):
        for c, item in enumerate(row):
            item = item or {}
            value = item.get("value") if item.get("given") else None
            givens.append(_number(value, f"grid R{r + 1}C{c + 1}", 0))
            region = item.get("region")
            labels.append(str((r // rows) * (n // cols) + c // cols if region is None else region))
    geom = geometry(n)
    units = list(geom.units[: 2 * n])
    if labels != [str((i // n // rows) * (n // cols) + i % n // cols) for i in range(n * n)]:
        units += region_units(n, [labels[r * n : (r + 1) * n] for r in range(n)])
    else:
        units += geom.units[2 * n :]
    down, up = diagonal_units(n)
    if doc.get("diagonal-"):
        units.append(down)
    if doc.get("diagonal+"):
        units.append(up)
    geom = make_geometry(n, rows, cols, tuple(units))
    cages = []
    for i, item in enumerate(doc.get("killercage") or [], 1):
        cells = tuple(_cell(ref, n, f"killercage {i}") for ref in item.get("cells", []))
        if item.get("value") in (None, ""):
            raise ValueError(f"killercage {i}: a cage without a sum (sudokulab does not model it)")
        cages.append(Cage(cells, _number(item["value"], f"killercage {i}")))
    rules: list[Rule] = []
    negative = doc.get("negative") or []
    for key, reader in _READERS.items():
        if doc.get(key) or key in negative:
            rules += reader(doc.get(key) or [], n, geom, doc)
    puzzle = Puzzle(geom, tuple(givens), tuple(cages), None, tuple(dict.fromkeys(rules)))
    clashes = puzzle.clashes()
    if clashes:
        raise ValueError(f"grid: {clashes[0]}")
    rule = broken_by_givens(puzzle.rules, puzzle.givens)
    if rule is not None:
        raise ValueError(f"grid: the givens break {rule.name}")
    solution = doc.get("solution")
    if isinstance(solution, list) and len(solution) == n * n and all(solution):
        grid_solution = tuple(_number(v, "solution") for v in solution)
        if not is_solution(puzzle, grid_solution):
            raise ValueError("solution: does not solve the puzzle")
        return puzzle, grid_solution
    return puzzle, None


def _lines(items: list[dict[str, Any]], n: int, key: str) -> list[tuple[int, tuple[int, ...]]]:
    """Each line of each item (numbered by item), as cells."""
    out = []
    for i, item in enumerate(items, 1):
        for line in item.get("lines", []):
            out.append((i, tuple(_cell(ref, n, f"{key} {i}") for ref in line)))
    return out


def _thermometers(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
    return [
        Less(a, b, f"thermometer {i}")
        for i, line in _lines(items, n, "thermometer")
        for a, b in zip(line, line[1:], strict=False)
    ]


def _arrows(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
    rules: list[Rule] = []
    for i, item in enumerate(items, 1):
        circle = tuple(_cell(ref, n, f"arrow {i}") for ref in item.get("cells", []))
        for line in item.get("lines", []):
            cells = (_cell(ref, n, f"arrow {i}") for ref in line)
            shaft = tuple(c for c in cells if c not in circle)
            if circle and shaft:
                rules.append(SumEquals(circle, shaft, f"arrow {i}", len(circle) > 1))
    return rules


def _pair(item: dict[str, Any], n: int, key: str, i: int) -> tuple[int, int]:
    cells = item.get("cells", [])
    if len(cells) != 2:
        raise ValueError(f"{key} {i}: a dot between {len(cells)} cells")
    a, b = (_cell(ref, n, f"{key} {i}") for ref in cells)
    return a, b


def _dotted_edges(doc: dict[str, Any], n: int) -> set[frozenset[int]]:
    """The pairs of cells that carry a kropki dot of either colour."""
    return {
        frozenset(_pair(item, n, key, i))
        for key in ("difference", "ratio")
        for i, item in enumerate(doc.get(key) or [], 1)
    }


def _dots(kind: type, default: int, key: str) -> Any:
    def read(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
        rules: list[Rule] = []
        for i, item in enumerate(items, 1):
            a, b = _pair(item, n, key, i)
            word = "white dot" if kind is Difference else "black dot"
            value = _number(item.get("value"), f"{key} {i}", default)
            rules.append(kind(a, b, value, f"{word} {i}"))
        if key in (doc.get("negative") or []):
            # "All dots given" speaks of undotted edges only: an edge with a dot of either
            # colour is exempt (f-puzzles' and SudokuPad's checkers, and the community's
            # reading; the document form's kropki_negative says the same).
            dotted = _dotted_edges(doc, n)
            negative = NotDifference if kind is Difference else NotRatio
            word = "no white dot" if kind is Difference else "no black dot"
            rules += [
                negative(a, b, default, word)
                for a, b in neighbour_pairs(n)
                if frozenset((a, b)) not in dotted
            ]
        return rules

    return read


def _xv(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
    if "xv" in (doc.get("negative") or []):
        raise ValueError('the puzzle uses "XV negative constraint", which sudokulab does not model')
    rules: list[Rule] = []
    for i, item in enumerate(items, 1):
        a, b = _pair(item, n, "xv", i)
        letter = str(item.get("value", "")).upper()
        if letter not in ("X", "V"):
            raise ValueError(f"xv {i}: {item.get('value')!r} is neither X nor V")
        rules.append(PairSum(a, b, 10 if letter == "X" else 5, f"{letter} {i}"))
    return rules


def _whispers(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
    rules: list[Rule] = []
    for i, item in enumerate(items, 1):
        k = _number(item.get("value"), f"whispers {i}", 5)
        for _, line in _lines([item], n, f"whispers {i}"):
            pairs = zip(line, line[1:], strict=False)
            rules += [MinDifference(a, b, k, f"whispers {i}") for a, b in pairs]
    return rules


def _renban(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
    from .rules import Consecutive

    return [Consecutive(line, f"renban {i}") for i, line in _lines(items, n, "renban")]


def _region_sums(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
    rules: list[Rule] = []
    for i, line in _lines(items, n, "regionsumline"):
        parts = segments(line, geom)
        rules += [
            SumEquals(a, b, f"region-sum line {i}") for a, b in zip(parts, parts[1:], strict=False)
        ]
    return rules


def _parity(parity: str) -> Any:
    def read(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
        return [
            Parity(_cell(item.get("cell"), n, parity), parity, f"{parity} cell") for item in items
        ]

    return read


def _sandwiches(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
    rules: list[Rule] = []
    for i, item in enumerate(items, 1):
        match = re.fullmatch(r"[Rr](\d+)[Cc](\d+)", str(item.get("cell")))
        if not match:
            raise ValueError(f"sandwichsum {i}: {item.get('cell')!r} is not a clue position")
        r, c = int(match[1]), int(match[2])
        total = _number(item.get("value"), f"sandwichsum {i}")
        if 1 <= c <= n and r in (0, n + 1):
            line, name = tuple(j * n + c - 1 for j in range(n)), f"column {c} sandwich"
        elif 1 <= r <= n and c in (0, n + 1):
            line, name = tuple((r - 1) * n + j for j in range(n)), f"row {r} sandwich"
        else:
            raise ValueError(f"sandwichsum {i}: R{r}C{c} is not outside a row or column")
        rules.append(Sandwich(line, total, name))
    return rules


_STEPS = {"DR": (1, 1), "DL": (1, -1), "UR": (-1, 1), "UL": (-1, -1)}


def _little_killers(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
    rules: list[Rule] = []
    for i, item in enumerate(items, 1):
        match = re.fullmatch(r"[Rr](\d+)[Cc](\d+)", str(item.get("cell")))
        step = _STEPS.get(str(item.get("direction")).upper())
        if not match or step is None:
            raise ValueError(f"littlekillersum {i}: no clue position and direction")
        r, c = int(match[1]) + step[0], int(match[2]) + step[1]
        cells = []
        while 1 <= r <= n and 1 <= c <= n:
            cells.append((r - 1) * n + c - 1)
            r, c = r + step[0], c + step[1]
        if item.get("value") in (None, ""):
            continue  # an arrow without a sum says nothing
        if not cells:
            raise ValueError(f"littlekillersum {i}: the diagonal misses the grid")
        total = _number(item.get("value"), f"littlekillersum {i}")
        rules.append(LittleKiller(tuple(cells), total, f"little killer {i}"))
    return rules


def _board(name: str) -> Any:
    def read(flag: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
        return list(board_rules(geom, name))

    return read


def _units_done(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
    return []  # read with the geometry (diagonals) or the cages (killer cages)


_READERS = {
    "diagonal+": _units_done,
    "diagonal-": _units_done,
    "killercage": _units_done,
    "thermometer": _thermometers,
    "arrow": _arrows,
    "difference": _dots(Difference, 1, "difference"),
    "ratio": _dots(Ratio, 2, "ratio"),
    "xv": _xv,
    "whispers": _whispers,
    "renban": _renban,
    "regionsumline": _region_sums,
    "odd": _parity("odd"),
    "even": _parity("even"),
    "sandwichsum": _sandwiches,
    "littlekillersum": _little_killers,
    "antiknight": _board("anti-knight"),
    "antiking": _board("anti-king"),
    "nonconsecutive": _board("nonconsecutive"),
}
