"""The variant fields of a puzzle document, read into rules and written back.

A document states its rules in the words setters use (each a list; cells are ``r1c1``
names or indices):

- ``thermometers`` / ``slow_thermometers``: lines of cells, bulb first; each step up
  the line is a ``Less`` (``LessEqual`` for a slow one);
- ``arrows``: ``{"circle": [cells], "shaft": [cells]}``; the circle (its cells read as
  the digits of one number when there are several) equals the sum of the shaft;
- ``kropki``: ``{"cells": [a, b], "dot": "white"|"black"}``: white, the values differ
  by 1 (``Difference``); black, one is twice the other (``Ratio``);
  ``kropki_negative``: true when every dot is given (no dot between two orthogonal
  neighbours: neither rule holds there);
- ``xv``: ``{"cells": [a, b], "sum": 5|10}``: the two cells add up to the sum;
- ``whispers``: lines of cells whose neighbours on the line differ by at least
  ``n // 2 + 1`` (5 on a 9x9 grid: German whispers);
- ``renban``: lines whose cells hold a set of consecutive values, in any order;
- ``region_sum_lines``: lines whose cells in each box (or region) they cross add up to
  the same sum, box by box;
- ``odd`` / ``even``: cells;
- ``sandwiches``: ``{"row": r, "sum": t}`` or ``{"column": c, "sum": t}`` (1-based):
  the values between the 1 and the n of that row or column add up to t;
- ``little_killers``: ``{"cells": [...], "sum": t}``: a diagonal's values (repeats
  allowed) add up to t;
- ``anti_knight``, ``anti_king``, ``nonconsecutive``: board-wide flags;
- ``rules``: any rule record as such, ``{"kind": "less", "a": "r1c1", "b": "r1c2"}``
  (the form a document is written back in: it says every rule exactly).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

from .geometry import Geometry
from .rules import (
    KINDS,
    Consecutive,
    Difference,
    Less,
    LessEqual,
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
        circle = line(item["circle"], f"{field}.circle", 1)
        shaft = line(item["shaft"], f"{field}.shaft", 1)
        if set(circle) & set(shaft):
            raise ValueError(f"{field}: the circle and the shaft share a cell")
        add(SumEquals(circle, shaft, f"arrow {i}", len(circle) > 1), field)
    for i, item in enumerate(doc.get("kropki", []), 1):
        a, b = _pair(item["cells"], f"kropki[{i}].cells", cell)
        rule = Difference(a, b, 1, f"white dot {i}") if item["dot"] == "white" else None
        add(rule or Ratio(a, b, 2, f"black dot {i}"), f"kropki[{i}]")
    if doc.get("kropki_negative"):
        dotted = {frozenset(r.cells) for r in out if r.kind in ("difference", "ratio")}
        for a, b in neighbour_pairs(n):
            if frozenset((a, b)) not in dotted:
                add(NotDifference(a, b, 1, "no white dot"), "kropki_negative")
                add(NotRatio(a, b, 2, "no black dot"), "kropki_negative")
    for i, item in enumerate(doc.get("xv", []), 1):
        a, b = _pair(item["cells"], f"xv[{i}].cells", cell)
        add(PairSum(a, b, item["sum"], f"xv {i}"), f"xv[{i}]")
    for i, refs in enumerate(doc.get("whispers", []), 1):
        cells = line(refs, f"whispers[{i}]")
        for a, b in zip(cells, cells[1:], strict=False):
            add(MinDifference(a, b, n // 2 + 1, f"whispers {i}"), f"whispers[{i}]")
    for i, refs in enumerate(doc.get("renban", []), 1):
        cells = line(refs, f"renban[{i}]")
        if len(cells) > n:
            raise ValueError(f"renban[{i}]: {len(cells)} cells cannot hold a run within 1..{n}")
        add(Consecutive(cells, f"renban {i}"), f"renban[{i}]")
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
        low, high = 0, n * (n + 1) // 2 - 1 - n
        if not low <= item["sum"] <= high:
            total = item["sum"]
            raise ValueError(f"{field}.sum: a sandwich adds up to {low}..{high}, never {total}")
        k = number - 1
        row = which == "row"
        cells = tuple(k * n + j if row else j * n + k for j in range(n))
        add(Sandwich(cells, item["sum"], f"{which} {number} sandwich"), field)
    for i, item in enumerate(doc.get("little_killers", []), 1):
        cells = line(item["cells"], f"little_killers[{i}].cells", 1)
        add(LittleKiller(cells, item["sum"], f"little killer {i}"), f"little_killers[{i}]")
    for i, item in enumerate(doc.get("rules", []), 1):
        add(_record(item, cell, f"rules[{i}]"), f"rules[{i}]")
    for key, name in FLAGS.items():
        if doc.get(key):
            for rule in board_rules(geom, name):
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
    """A line's cells grouped by the box (or jigsaw region) each lies in, in the order
    the line enters them: a line that comes back into a box adds to its group there."""
    area = {}
    for number, unit in enumerate(u for u in geom.units if u.kind in ("box", "region")):
        for c in unit.cells:
            area[c] = number
    groups: dict[int, list[int]] = {}
    for c in cells:
        groups.setdefault(area[c], []).append(c)
    return [tuple(group) for group in groups.values()]


def _record(item: dict[str, Any], cell: CellReader, field: str) -> Rule:
    """A rule record from its generic form (``kind`` and the record's fields)."""
    cls = KINDS.get(item.get("kind", ""))
    if cls is None:
        raise ValueError(f"{field}.kind: {item.get('kind')!r} is none of {', '.join(KINDS)}")
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
        values[f.name] = value
    unknown = sorted(set(item) - {"kind"} - {f.name for f in fields(cls)})
    if unknown:
        raise ValueError(f"{field}: a {cls.kind} rule has no field {unknown[0]!r}")
    try:
        return cls(**values)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{field}: {err}") from None


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
