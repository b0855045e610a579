"""f-puzzles puzzles: links, their compressed text, and the JSON they hold, as puzzles.

f-puzzles (and SudokuPad, for the puzzles it loads from f-puzzles: ``fpuz...``) keeps a
puzzle as JSON compressed with LZ-string into URL-safe base64: the ``load=`` part of an
``https://www.f-puzzles.com/?load=N4Ig...`` link. The JSON has ``size``, a ``grid`` of
cell objects (``value`` with ``given``; ``region`` for jigsaw), and a list per
constraint. The constraints sudokulab models are mapped to its rules; any other one is
refused by name, since a puzzle read without one of its rules is another puzzle.

The readings follow f-puzzles' rule texts and the solver it runs (rangsk's
SudokuSolver, ``SolverFactory`` and its constraints); docs/guides/variants.md ("How each
rule is read") gives each constraint's reading and its source. Garbage (a text that does
not decompress, JSON that is no puzzle or nests too deeply, a value of the wrong type) is
refused with FPuzzlesError, never another exception.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import unquote

from .entries import Entry, ParseError, shown, too_deep
from .geometry import BOX_SHAPES, SIZES, geometry, make_geometry
from .puzzle import Cage, Puzzle, is_solution
from .rule_fields import (
    board_wide,
    check_cage,
    check_little_killer,
    distinct,
    negative_kropki,
    sandwich_sums,
    segments,
    whispers_gap,
)
from .rules import (
    Difference,
    Less,
    LessEqual,
    LittleKiller,
    MinDifference,
    PairSum,
    Parity,
    Ratio,
    Rule,
    Sandwich,
    SumEquals,
    broken_by_givens,
)
from .variants import diagonal_units, region_units


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
    plain = decompress(word)
    if not plain:
        raise FPuzzlesError("not an f-puzzles puzzle: the text does not decompress", source, 1)
    try:
        doc = json.loads(plain)
    except ValueError:
        raise FPuzzlesError("not an f-puzzles puzzle: no JSON inside", source, 1) from None
    except RecursionError:  # json's decoder recurses once per level of nesting
        doc = None
    if doc is None or too_deep(doc):
        raise FPuzzlesError("not an f-puzzles puzzle: its JSON nests too deeply", source, 1)
    if not isinstance(doc, dict) or "grid" not in doc:
        raise FPuzzlesError("not an f-puzzles puzzle: no grid in its JSON", source, 1)
    return doc


def decompress(word: str) -> str | None:
    """The text LZ-string's URL-safe base64 ``word`` holds, or None when it holds none."""
    import lzstring

    try:
        return lzstring.LZString().decompressFromBase64(word.replace(" ", "+"))
    except Exception:  # on garbage, lzstring fails with whatever its code runs into
        return None  # (UnboundLocalError, KeyError, IndexError, TypeError...)


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
    match = re.fullmatch(r"[Rr](\d+)[Cc](\d+)", ref) if isinstance(ref, str) else None
    if not match:
        raise ValueError(f"{field}: {shown(ref)} is not a cell (R1C1)")
    r, c = int(match[1]), int(match[2])
    if not (1 <= r <= n and 1 <= c <= n):
        raise ValueError(f"{field}: {ref} is outside the {n}x{n} grid")
    return (r - 1) * n + c - 1


def _cells(refs: Any, n: int, field: str, least: int = 1, once: bool = True) -> tuple[int, ...]:
    """A list of cells (a line, a cage, a dot's pair), with ``once`` none twice."""
    if not isinstance(refs, list):
        raise ValueError(f"{field}: {shown(refs)} is not a list of cells")
    cells = tuple(_cell(ref, n, field) for ref in refs)
    if len(cells) < least:
        raise ValueError(f"{field}: {len(cells)} cells, at least {least} needed")
    if once and len(set(cells)) != len(cells):
        raise ValueError(f"{field}: a cell appears twice")
    return cells


def _number(value: Any, field: str, default: int | None = None) -> int:
    if value in (None, "") and default is not None:
        return default
    if isinstance(value, int | str) and not isinstance(value, bool):
        text = str(value).strip()
        if re.fullmatch(r"-?\d{1,9}", text):
            return int(text)
    raise ValueError(f"{field}: {shown(value)} is not a number")


def _items(doc: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """A constraint's list of objects; ValueError naming the key when it is not one."""
    items = doc.get(key) or []
    if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
        raise ValueError(f"{key}: expected a list of objects, got {shown(items)}")
    return items


def puzzle_of(doc: dict[str, Any]) -> tuple[Puzzle, tuple[int, ...] | None]:
    """The puzzle (and solution, when the document has a whole one) of an f-puzzles
    object; ValueError naming the key of what cannot be read."""
    n = doc.get("size", 9)
    if isinstance(n, bool) or not isinstance(n, int) or n not in SIZES:
        raise ValueError(f"size: {shown(n)} is not a supported size ({', '.join(map(str, SIZES))})")
    unsupported = [
        key for key, value in doc.items() if key not in _IGNORED and key not in _READERS and value
    ]
    if unsupported:
        name = _NAMES.get(unsupported[0], shown(unsupported[0]).strip("'"))
        raise ValueError(f'the puzzle uses "{name}", which sudokulab does not model')
    grid = doc["grid"]
    if (
        not isinstance(grid, list)
        or len(grid) != n
        or any(not isinstance(row, list) or len(row) != n for row in grid)
    ):
        raise ValueError(f"grid: expected {n} rows of {n} cells")
    givens, labels = [], []
    rows, cols = BOX_SHAPES[n]
    for r, row in enumerate(grid):
        for c, item in enumerate(row):
            item = item or {}
            if not isinstance(item, dict):
                raise ValueError(f"grid R{r + 1}C{c + 1}: {shown(item)} is not a cell object")
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
    negative = doc.get("negative") or []
    if not isinstance(negative, list):
        raise ValueError(f"negative: expected a list of constraint names, got {shown(negative)}")
    cages, rules = _killer_cages(_items(doc, "killercage"), geom)
    for key, reader in _READERS.items():
        if reader is not _units_done and (doc.get(key) or key in negative):
            if key not in _FLAGS:
                _items(doc, key)
            rules += reader(doc.get(key) or [], n, geom, doc)
    if doc.get("nonconsecutive"):  # after the dots, which it spares
        rules += board_wide(geom, "nonconsecutive", rules)
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
        if not all(1 <= v <= n for v in grid_solution) or not is_solution(puzzle, grid_solution):
            raise ValueError("solution: does not solve the puzzle")
        return puzzle, grid_solution
    return puzzle, None


def _killer_cages(items: list[dict[str, Any]], geom: Any) -> tuple[list[Cage], list[Rule]]:
    """Killer cages; a cage without a value only keeps its digits apart (``NotEqual``)."""
    n, owner = geom.size, {}
    cages: list[Cage] = []
    rules: list[Rule] = []
    for i, item in enumerate(items, 1):
        field = f"killercage {i}"
        cells = _cells(item.get("cells", []), n, field, 0, once=False)  # check_cage says why
        if item.get("value") in (None, ""):
            check_cage(cells, None, geom, field, owner)
            rules += distinct(cells, geom)
            continue
        total = _number(item["value"], field)
        check_cage(cells, total, geom, field, owner, f"{field} sum")
        cages.append(Cage(cells, total))
    return cages, rules


def _lines(items: list[dict[str, Any]], n: int, key: str) -> list[tuple[int, tuple[int, ...]]]:
    """Each line of each item (numbered by item), as cells."""
    out = []
    for i, item in enumerate(items, 1):
        lines = item.get("lines", [])
        if not isinstance(lines, list):
            raise ValueError(f"{key} {i}: {shown(lines)} is not a list of lines")
        out += [(i, _cells(line, n, f"{key} {i}")) for line in lines]
    return out


def _thermometers(kind: type, key: str, word: str) -> Any:
    def read(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
        rules: list[Rule] = []
        for i, line in _lines(items, n, key):
            if kind is Less and len(line) > n:
                raise ValueError(f"{key} {i}: {len(line)} cells cannot rise within 1..{n}")
            rules += [kind(a, b, f"{word} {i}") for a, b in zip(line, line[1:], strict=False)]
        return rules

    return read


def _arrows(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
    rules: list[Rule] = []
    for i, item in enumerate(items, 1):
        # a pill's digits read in reading order, as setters' rules say ("left to right or
        # top to bottom"), however f-puzzles listed the cells
        circle = tuple(sorted(_cells(item.get("cells", []), n, f"arrow {i}")))
        for _, line in _lines([item], n, f"arrow {i}"):
            shaft = tuple(c for c in line if c not in circle)
            if circle and shaft:
                rules.append(SumEquals(circle, shaft, f"arrow {i}", len(circle) > 1))
    return rules


def _pair(item: dict[str, Any], n: int, key: str, i: int) -> tuple[int, int]:
    cells = item.get("cells", [])
    if not isinstance(cells, list) or len(cells) != 2:
        raise ValueError(f"{key} {i}: a mark between {shown(cells)}, not two cells")
    a, b = _cells(cells, n, f"{key} {i}")
    return a, b


def _dots(kind: type, default: int, key: str) -> Any:
    def read(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
        rules: list[Rule] = []
        for i, item in enumerate(items, 1):
            a, b = _pair(item, n, key, i)
            word = "white dot" if kind is Difference else "black dot"
            value = _number(item.get("value"), f"{key} {i}", default)
            low, high = (1, n - 1) if kind is Difference else (2, n)
            if not low <= value <= high:
                raise ValueError(f"{key} {i}: a dot of {value} (values 1..{n} allow {low}..{high})")
            rules.append(kind(a, b, value, f"{word} {i}"))
        if key in (doc.get("negative") or []):
            # "All dots are given" speaks of undotted edges only: an edge with a dot of either
            # colour is exempt (f-puzzles' solver; SudokuPad's checker; the document form's
            # kropki_negative says the same).
            other = "ratio" if kind is Difference else "difference"
            dots = rules + _dots(Ratio if kind is Difference else Difference, 3 - default, other)(
                _items(doc, other), n, geom, {}
            )
            rules += negative_kropki(dots, n, kind is Difference)
        return rules

    return read


def _xv(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
    if "xv" in (doc.get("negative") or []):
        # a + b != 5 and != 10 is no rule kind sudokulab has (every backend would need it)
        raise ValueError('the puzzle uses "XV negative constraint", which sudokulab does not model')
    rules: list[Rule] = []
    for i, item in enumerate(items, 1):
        a, b = _pair(item, n, "xv", i)
        letter = item.get("value")
        if not isinstance(letter, str) or letter.upper() not in ("X", "V"):
            raise ValueError(f"xv {i}: {shown(letter)} is neither X nor V")
        letter = letter.upper()
        rules.append(PairSum(a, b, 10 if letter == "X" else 5, f"{letter} {i}"))
    return rules


def _whispers(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
    rules: list[Rule] = []
    for i, item in enumerate(items, 1):
        k = _number(item.get("value"), f"whispers {i}", whispers_gap(n))
        if not 1 <= k < n:
            raise ValueError(f"whispers {i}: a difference of {k} between values 1..{n}")
        for _, line in _lines([item], n, f"whispers {i}"):
            pairs = zip(line, line[1:], strict=False)
            rules += [MinDifference(a, b, k, f"whispers {i}") for a, b in pairs]
    return rules


def _renban(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
    from .rules import Consecutive

    rules: list[Rule] = []
    for i, line in _lines(items, n, "renban"):
        if len(line) > n:
            raise ValueError(f"renban {i}: {len(line)} cells cannot hold a run within 1..{n}")
        rules.append(Consecutive(line, f"renban {i}"))
    return rules


def _entropic(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
    from .rules import Entropic

    rules: list[Rule] = []
    for i, line in _lines(items, n, "entropicline"):
        if len(line) < 3:
            raise ValueError(f"entropicline {i}: a line of {len(line)} cells (3 at least)")
        rules.append(Entropic(line, n, f"entropic line {i}"))
    return rules


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


def _clue(item: dict[str, Any], key: str, i: int) -> tuple[int, int]:
    """The row and column (0 or n+1 outside the grid) of a clue outside the grid."""
    ref = item.get("cell")
    match = re.fullmatch(r"[Rr](\d{1,3})[Cc](\d{1,3})", ref) if isinstance(ref, str) else None
    if not match:
        raise ValueError(f"{key} {i}: {shown(ref)} is not a clue position")
    return int(match[1]), int(match[2])


def _sandwiches(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
    rules: list[Rule] = []
    low, high = sandwich_sums(n)
    for i, item in enumerate(items, 1):
        r, c = _clue(item, "sandwichsum", i)
        total = _number(item.get("value"), f"sandwichsum {i}")
        if 1 <= c <= n and r in (0, n + 1):
            line, name = tuple(j * n + c - 1 for j in range(n)), f"column {c} sandwich"
        elif 1 <= r <= n and c in (0, n + 1):
            line, name = tuple((r - 1) * n + j for j in range(n)), f"row {r} sandwich"
        else:
            raise ValueError(f"sandwichsum {i}: R{r}C{c} is not outside a row or column")
        if not low <= total <= high:
            raise ValueError(f"sandwichsum {i}: a sandwich adds up to {low}..{high}, never {total}")
        rules.append(Sandwich(line, total, name))
    return rules


_STEPS = {"DR": (1, 1), "DL": (1, -1), "UR": (-1, 1), "UL": (-1, -1)}


def _little_killers(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
    rules: list[Rule] = []
    for i, item in enumerate(items, 1):
        r, c = _clue(item, "littlekillersum", i)
        step = _STEPS.get(str(item.get("direction")).upper())
        if step is None:
            raise ValueError(f"littlekillersum {i}: {shown(item.get('direction'))} is no direction")
        if 1 <= r <= n and 1 <= c <= n:
            raise ValueError(f"littlekillersum {i}: R{r}C{c} is inside the grid, not beside it")
        r, c = r + step[0], c + step[1]
        cells = []
        while 1 <= r <= n and 1 <= c <= n:
            cells.append((r - 1) * n + c - 1)
            r, c = r + step[0], c + step[1]
        if item.get("value") in (None, ""):
            continue  # an arrow without a sum says nothing
        if not cells:
            raise ValueError(f"littlekillersum {i}: the diagonal misses the grid")
        total = _number(item.get("value"), f"littlekillersum {i}")
        check_little_killer(len(cells), total, n, f"littlekillersum {i}")
        rules.append(LittleKiller(tuple(cells), total, f"little killer {i}"))
    return rules


def _board(name: str) -> Any:
    def read(flag: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
        return board_wide(geom, name, [])

    return read


def _units_done(items: Any, n: int, geom: Any, doc: Any) -> list[Rule]:
    return []  # read with the geometry (diagonals), the cages or after the dots


#: The keys that are a flag, not a list of objects.
_FLAGS = frozenset({"diagonal+", "diagonal-", "antiknight", "antiking", "nonconsecutive"})

_READERS = {
    "diagonal+": _units_done,
    "diagonal-": _units_done,
    "killercage": _units_done,
    "thermometer": _thermometers(Less, "thermometer", "thermometer"),
    "slowthermometer": _thermometers(LessEqual, "slowthermometer", "slow thermometer"),
    "arrow": _arrows,
    "difference": _dots(Difference, 1, "difference"),
    "ratio": _dots(Ratio, 2, "ratio"),
    "xv": _xv,
    "whispers": _whispers,
    "renban": _renban,
    "entropicline": _entropic,
    "regionsumline": _region_sums,
    "odd": _parity("odd"),
    "even": _parity("even"),
    "sandwichsum": _sandwiches,
    "littlekillersum": _little_killers,
    "antiknight": _board("anti-knight"),
    "antiking": _board("anti-king"),
    "nonconsecutive": _units_done,
}
