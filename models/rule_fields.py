"""The variant fields of a puzzle document, read into rules and written back.

A document states its rules in the words setters use (each a list; cells are ``r1c1``
names or indices):

- ``thermometers`` / ``slow_thermometers``: lines of cells, bulb first; each step up
  the line is a ``Less`` (``LessEqual`` for a slow one);
- ``arrows``: ``{"circle": [cells], "shaft": [cells]}``; the circle equals the sum of
  the shaft; a circle of several cells (a pill) is one number, its digits read in
  reading order (left to right, top to bottom), whatever order the cells are listed in;
- ``kropki``: ``{"cells": [a, b], "dot": "white"|"black"}``: white, the values differ
  by 1 (``Difference``); black, one is twice the other (``Ratio``); a 1-2 pair keeps
  both, and carries the dot the setter drew;
  ``kropki_negative``: true when every dot is given (between two orthogonal neighbours
  without a dot of either colour, neither relation holds);
- ``xv``: ``{"cells": [a, b], "sum": 5|10}``: the two cells add up to the sum;
- ``whispers``: lines of cells whose neighbours on the line differ by at least half the
  size, rounded up (5 on a 9x9 grid: German whispers; 3 on 6x6, as f-puzzles reads them);
- ``renban``: lines whose cells hold a set of consecutive values, in any order;
- ``entropic_lines``: lines whose every three successive cells hold one low, one middle
  and one high value (1-3, 4-6, 7-9 on 9x9);
- ``region_sum_lines``: lines cut by the box (or region) borders into segments, each
  adding up to the same sum; a line that comes back into a box starts a new segment;
- ``odd`` / ``even``: cells;
- ``sandwiches``: ``{"row": r, "sum": t}`` or ``{"column": c, "sum": t}`` (1-based):
  the values between the 1 and the n of that row or column add up to t;
- ``little_killers``: ``{"cells": [...], "sum": t}``: a diagonal's values (repeats
  allowed) add up to t (k cells: k..n*k);
- ``anti_knight``, ``anti_king``, ``nonconsecutive``: board-wide flags; nonconsecutive
  spares the neighbours a kropki dot joins (the dot says what holds there);
- ``rules``: any rule record as such, ``{"kind": "less", "a": "r1c1", "b": "r1c2"}``
  (the form a document is written back in: it says every rule exactly).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

from .entries import shown
from .geometry import Geometry
from .rules import (
    KINDS,
    Consecutive,
    Difference,
    Entropic,
    Less,
    LessEqual,
    LittleKiller,
    MinDifference,
    NotDifference,
    NotEqual,
    NotRatio,
    PairSum,
    Parity,
    Ratio,
    Rule,
    Sandwich,
    SumEquals,
    neighbour_pairs,
)
from .variants import BOARD_RULES, board_flags, board_rules

#: The document's board-wide flags, by the variant each names.
FLAGS = {"anti_knight": "anti-knight", "anti_king": "anti-king", "nonconsecutive": "nonconsecutive"}

#: Fields of a rule record that hold one cell, and those that hold a line of cells.
_CELL_FIELDS = ("a", "b", "cell")
_LINE_FIELDS = ("targets", "terms", "line")

CellReader = Callable[[Any, str], int]


def read_rules(doc: dict[str, Any], geom: Geometry, cell: CellReader) -> dict[Rule, str]:
    """The rules of a document's variant fields, each with the field it came from;
    ValueError naming the field. ``cell(ref, field)`` reads one cell."""
    n = geom.size
    out: dict[Rule, str] = {}

    def add(rule: Rule, field: str) -> None:
        out.setdefault(rule, field)

    def line(refs: list[Any], field: str, least: int = 2) -> tuple[int, ...]:
        cells = tuple(cell(ref, f"{field}[{j}]") for j, ref in enumerate(refs, 1))
        if len(cells) < least:
            raise ValueError(f"{field}: a line needs at least {least} cells, got {len(cells)}")
        if len(set(cells)) != len(cells):
            raise ValueError(f"{field}: a cell appears twice")
        return cells

    for key, kind in (("thermometers", Less), ("slow_thermometers", LessEqual)):
        word = key[:-1].replace("_", " ")
        for i, refs in enumerate(doc.get(key, []), 1):
            cells = line(refs, f"{key}[{i}]")
            if kind is Less and len(cells) > n:
                raise ValueError(f"{key}[{i}]: {len(cells)} cells cannot rise within 1..{n}")
            for a, b in zip(cells, cells[1:], strict=False):
                add(kind(a, b, f"{word} {i}"), f"{key}[{i}]")
    for i, item in enumerate(doc.get("arrows", []), 1):
        field = f"arrows[{i}]"
        circle = tuple(sorted(line(item["circle"], f"{field}.circle", 1)))  # reading order
        shaft = line(item["shaft"], f"{field}.shaft", 1)
        if set(circle) & set(shaft):
            raise ValueError(f"{field}: the circle and the shaft share a cell")
        add(SumEquals(circle, shaft, f"arrow {i}", len(circle) > 1), field)
    dots = {"white": 0, "black": 0}  # numbered by colour, as f-puzzles' and SudokuPad's are
    for i, item in enumerate(doc.get("kropki", []), 1):
        a, b = _pair(item["cells"], f"kropki[{i}].cells", cell)
        dots[item["dot"]] += 1
        name = f"{item['dot']} dot {dots[item['dot']]}"
        rule = Difference(a, b, 1, name) if item["dot"] == "white" else Ratio(a, b, 2, name)
        add(rule, f"kropki[{i}]")
    if doc.get("kropki_negative"):
        for white in (True, False):
            for rule in negative_kropki(list(out), n, white):
                add(rule, "kropki_negative")
    for i, item in enumerate(doc.get("xv", []), 1):
        a, b = _pair(item["cells"], f"xv[{i}].cells", cell)
        letter = {10: "X", 5: "V"}.get(item["sum"], "xv")
        add(PairSum(a, b, item["sum"], f"{letter} {i}"), f"xv[{i}]")
    for i, refs in enumerate(doc.get("whispers", []), 1):
        cells = line(refs, f"whispers[{i}]")
        for a, b in zip(cells, cells[1:], strict=False):
            add(MinDifference(a, b, whispers_gap(n), f"whispers {i}"), f"whispers[{i}]")
    for i, refs in enumerate(doc.get("renban", []), 1):
        cells = line(refs, f"renban[{i}]")
        if len(cells) > n:
            raise ValueError(f"renban[{i}]: {len(cells)} cells cannot hold a run within 1..{n}")
        add(Consecutive(cells, f"renban {i}"), f"renban[{i}]")
    for i, refs in enumerate(doc.get("entropic_lines", []), 1):
        cells = line(refs, f"entropic_lines[{i}]")
        if len(cells) < 3:
            raise ValueError(f"entropic_lines[{i}]: a line of {len(cells)} cells (3 at least)")
        add(Entropic(cells, n, f"entropic line {i}"), f"entropic_lines[{i}]")
    for i, refs in enumerate(doc.get("region_sum_lines", []), 1):
        parts = segments(line(refs, f"region_sum_lines[{i}]"), geom)
        if len(parts) < 2:
            raise ValueError(f"region_sum_lines[{i}]: the line stays in one box or region")
        for first, second in zip(parts, parts[1:], strict=False):
            add(SumEquals(first, second, f"region-sum line {i}"), f"region_sum_lines[{i}]")
    for parity in ("odd", "even"):
        for i, ref in enumerate(doc.get(parity, []), 1):
            add(Parity(cell(ref, f"{parity}[{i}]"), parity, f"{parity} cell"), f"{parity}[{i}]")
    for i, item in enumerate(doc.get("sandwiches", []), 1):
        field = f"sandwiches[{i}]"
        which = "row" if "row" in item else "column"
        number = item[which]
        if not 1 <= number <= n:
            raise ValueError(f"{field}.{which}: {number} is outside 1..{n}")
        low, high = sandwich_sums(n)
        if not low <= item["sum"] <= high:
            total = item["sum"]
            raise ValueError(f"{field}.sum: a sandwich adds up to {low}..{high}, never {total}")
        k = number - 1
        row = which == "row"
        cells = tuple(k * n + j if row else j * n + k for j in range(n))
        add(Sandwich(cells, item["sum"], f"{which} {number} sandwich"), field)
    for i, item in enumerate(doc.get("little_killers", []), 1):
        cells = line(item["cells"], f"little_killers[{i}].cells", 1)
        check_little_killer(len(cells), item["sum"], n, f"little_killers[{i}].sum")
        add(LittleKiller(cells, item["sum"], f"little killer {i}"), f"little_killers[{i}]")
    for i, item in enumerate(doc.get("rules", []), 1):
        add(_record(item, cell, f"rules[{i}]", n), f"rules[{i}]")
    for key, name in FLAGS.items():
        if doc.get(key):
            for rule in board_wide(geom, name, list(out)):
                add(rule, key)
    return out


def _pair(refs: list[Any], field: str, cell: CellReader) -> tuple[int, int]:
    if len(refs) != 2:
        raise ValueError(f"{field}: a pair needs 2 cells, got {len(refs)}")
    a, b = (cell(ref, f"{field}[{j}]") for j, ref in enumerate(refs, 1))
    if a == b:
        raise ValueError(f"{field}: the same cell twice")
    return a, b


def segments(cells: tuple[int, ...], geom: Geometry) -> list[tuple[int, ...]]:
    """A line's segments: its cells cut where the line crosses a box (or jigsaw region)
    border, in the line's order. A line that comes back into a box starts a new segment
    there (f-puzzles' rule text: "if the line re-enters a region, then it starts a new
    sum"; its solver splits the line the same way)."""
    area = {}
    for number, unit in enumerate(u for u in geom.units if u.kind in ("box", "region")):
        for c in unit.cells:
            area[c] = number
    groups: list[list[int]] = []
    for i, c in enumerate(cells):
        if not i or area[c] != area[cells[i - 1]]:
            groups.append([])
        groups[-1].append(c)
    return [tuple(group) for group in groups]


def whispers_gap(n: int) -> int:
    """German whispers' least difference on an n x n grid: half the size rounded up (5 on
    9x9, 3 on 6x6), as f-puzzles' whispers and its solver read it."""
    return (n + 1) // 2


def dotted(rules: list[Rule]) -> set[frozenset[int]]:
    """The pairs of cells a kropki dot of either colour joins (a ``Difference`` or a
    ``Ratio`` between them)."""
    return {frozenset(r.cells) for r in rules if r.kind in ("difference", "ratio")}


def negative_kropki(rules: list[Rule], n: int, white: bool) -> list[Rule]:
    """Kropki's negative constraint ("all dots are given") for the white dots (``white``)
    or the black ones: between orthogonal neighbours joined by no dot of either colour, no
    difference (no ratio) a dot of that colour carries holds; 1 (2) when there is no such
    dot. The dots of the other colour are exempt too: a 1-2 pair with a black dot is not a
    missing white dot (f-puzzles' solver, SudokuPad and the community read it so)."""
    kind, default = ("difference", 1) if white else ("ratio", 2)
    values = sorted({getattr(r, "k" if white else "r") for r in rules if r.kind == kind})
    negative = NotDifference if white else NotRatio
    word = "no white dot" if white else "no black dot"
    joined = dotted(rules)
    return [
        negative(a, b, value, word)
        for value in values or [default]
        for a, b in neighbour_pairs(n)
        if frozenset((a, b)) not in joined
    ]


def board_wide(geom: Geometry, name: str, rules: list[Rule]) -> list[Rule]:
    """A board-wide variant's rules beside a puzzle's other ``rules``: nonconsecutive
    spares the neighbours a kropki dot joins (f-puzzles' "Consecutive" and "Kropki"
    puzzles: the nonconsecutive rule beside white dots is their negative constraint; its
    solver exempts a dot of either colour)."""
    found = list(board_rules(geom, name))
    if name != "nonconsecutive":
        return found
    joined = dotted(rules)
    return [rule for rule in found if frozenset(rule.cells) not in joined]


def check_little_killer(length: int, total: Any, n: int, field: str) -> None:
    """ValueError unless a little killer's sum is one ``length`` values of 1..n (repeats
    allowed) can make."""
    if isinstance(total, bool) or not isinstance(total, int):
        raise ValueError(f"{field}: {total!r} is not a whole number")
    if not length <= total <= n * length:
        raise ValueError(
            f"{field}: {length} values from 1..{n} add up to {length}..{n * length}, never {total}"
        )


def sandwich_sums(n: int) -> tuple[int, int]:
    """The least and the greatest sum a sandwich clue can have on an n x n grid."""
    return 0, n * (n + 1) // 2 - 1 - n


def check_cage(
    cells: tuple[int, ...],
    total: int | None,
    geom: Geometry,
    field: str,
    owner: dict[int, str],
    sum_field: str | None = None,
) -> None:
    """ValueError unless a killer cage is one every reader takes: some cells, none twice
    nor in another cage (``owner`` records whose each cell is), at most n, and a sum
    (when it has one) that distinct values of 1..n reach."""
    n = geom.size
    if not cells:
        raise ValueError(f"{field}: a cage without cells")
    for cell in cells:
        if cell in owner:
            where = "twice in it" if owner[cell] == field else f"also in {owner[cell]}"
            raise ValueError(f"{field}: {geom.cell_name(cell)} is {where}")
        owner[cell] = field
    if len(cells) > n:
        raise ValueError(f"{field}: {len(cells)} cells cannot hold distinct values 1..{n}")
    if total is None:
        return
    low = len(cells) * (len(cells) + 1) // 2
    high = len(cells) * (2 * n - len(cells) + 1) // 2
    if isinstance(total, bool) or not isinstance(total, int) or not low <= total <= high:
        raise ValueError(
            f"{sum_field or field}: {len(cells)} distinct values from 1..{n} add up to "
            f"{low}..{high}, never {total}"
        )


def distinct(cells: tuple[int, ...], geom: Geometry, name: str = "killer cage") -> list[Rule]:
    """A cage without a sum: its values differ (killer rules: digits do not repeat in a
    cage; f-puzzles' solver reads a cage without a value so), a ``NotEqual`` for each
    pair of its cells no unit already keeps apart."""
    peers = geom.peers
    return [
        NotEqual(a, b, name)
        for i, a in enumerate(cells)
        for b in cells[i + 1 :]
        if b not in peers[a]
    ]


#: How a record's field types are named in an error message.
_WORDS = {"int": "whole number", "str": "text", "bool": "true or false"}


def _typed(value: Any, annotation: Any) -> bool:
    """Whether a record's value has the type its field is annotated with."""
    kind = {"int": int, "str": str, "bool": bool}.get(str(annotation))
    if kind is None:
        return True
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


def _record(item: dict[str, Any], cell: CellReader, field: str, n: int) -> Rule:
    """A rule record from its generic form (``kind`` and the record's fields)."""
    kind = item.get("kind")
    cls = KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"{field}.kind: {shown(kind)} is none of {', '.join(KINDS)}")
    values: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in item:
            if f.name in ("name", "digits"):
                continue
            raise ValueError(f"{field}: a {cls.kind} rule needs {f.name!r}")
        value = item[f.name]
        where = f"{field}.{f.name}"
        if f.name in _CELL_FIELDS:
            value = cell(value, where)
        elif f.name in _LINE_FIELDS:
            if not isinstance(value, list) or not value:
                raise ValueError(f"{where}: expected a list of cells")
            value = tuple(cell(ref, f"{where}[{j}]") for j, ref in enumerate(value, 1))
        elif not _typed(value, f.type):  # a record's numbers are whole numbers, its flags bools
            raise ValueError(f"{where}: {shown(value)} is not a {_WORDS[str(f.type)]}")
        values[f.name] = value
    unknown = sorted(set(item) - {"kind"} - {f.name for f in fields(cls)})
    if unknown:
        raise ValueError(f"{field}: a {cls.kind} rule has no field {unknown[0]!r}")
    try:
        rule = cls(**values)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{field}: {err}") from None
    if len(set(rule.cells)) != len(rule.cells):
        raise ValueError(f"{field}: a cell appears twice")
    if rule.kind == "littlekiller":
        check_little_killer(len(rule.cells), values["total"], n, f"{field}.total")
    return rule


def write_rules(rules: tuple[Rule, ...], geom: Geometry) -> dict[str, Any]:
    """The document fields of a puzzle's rules: board-wide flags, and every other rule
    in its generic form."""
    doc: dict[str, Any] = {}
    flags = board_flags(rules)
    by_flag = {name: key for key, name in FLAGS.items()}
    for name in flags:
        doc[by_flag[name]] = True
    rest = [rule for rule in rules if rule.name not in flags or rule.name not in BOARD_RULES]
    if rest:
        doc["rules"] = [_generic(rule, geom) for rule in rest]
    return doc


def _generic(rule: Rule, geom: Geometry) -> dict[str, Any]:
    item: dict[str, Any] = {"kind": rule.kind}
    for f in fields(rule):
        value = getattr(rule, f.name)
        if f.name in _CELL_FIELDS:
            value = geom.cell_name(value)
        elif f.name in _LINE_FIELDS:
            value = [geom.cell_name(c) for c in value]
        elif f.name == "digits" and not value:
            continue
        item[f.name] = value
    return item
