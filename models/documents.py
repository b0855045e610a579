"""Puzzle documents: JSON for what a plain grid cannot say (variants, regions, cages).

A document is one JSON object, checked first against ``puzzle.schema.json`` (shipped
beside this module) and then for meaning::

    {"name": "killer 1", "size": 4, "x": false,
     "givens": "................",
     "cages": [{"cells": ["r1c1", "r1c2"], "sum": 3}, ...],
     "solution": "1234341221434321"}

Fields: ``size`` (inferred from the givens when absent), ``box`` ([rows, cols]),
``givens`` (a line of n*n cells, or n rows), ``x`` and ``hyper`` (flags), ``regions``
(jigsaw: n rows of labels), ``units`` (extra units, lists of cells), ``cages`` (each
``cells`` and ``sum``; without a sum the cells' values only differ), ``candidates``
(pencil marks: n characters per cell, as the one-line form), ``solution`` and ``name``,
and the variant rules' fields (:mod:`.rule_fields`: ``thermometers``, ``arrows``,
``kropki``, ``xv``, ``whispers``, ``renban``, ``entropic_lines``, ``region_sum_lines``,
``odd``, ``even``, ``sandwiches``, ``little_killers``, ``anti_knight``, ``anti_king``,
``nonconsecutive``, ``rules``). Cells are ``r1c1`` names or indices. An f-puzzles
document (an object with a ``grid`` of cell objects) is read by :mod:`.fpuzzles`, a
SudokuPad one (``cells`` rows, no ``givens``) by :mod:`.sudokupad`.

A set of documents is JSON Lines (``.jsonl``): one document per line, blank lines
ignored. A ``.json`` file holds one document or an array of them. Every error names the
source, the line and the field (``cages[2].sum``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from importlib import resources
from itertools import combinations
from typing import Any

from .entries import VALUES, Entry, ParseError, shown, too_deep, value_of
from .geometry import BOX_SHAPES, SIZES, Geometry, size_for_cell_count
from .puzzle import Cage, Grid, Puzzle, is_solution, marks_line, symbol
from .rule_fields import check_cage, distinct, read_rules, write_rules
from .rules import Rule, broken, broken_by_givens
from .variants import flags, region_labels, variant_geometry

_SCHEMA = "puzzle.schema.json"


class DocumentError(ParseError):
    """A document that breaks the schema or the rules: where, which field, and why."""


@cache
def schema() -> dict[str, Any]:
    """The JSON Schema of a puzzle document."""
    text = resources.files("sudokulab.models").joinpath(_SCHEMA).read_text(encoding="utf-8")
    return json.loads(text)


@cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema())


def _path(parts: Any) -> str:
    """A field path as ``cages[2].sum`` (1-based list positions, as people count)."""
    text = ""
    for part in parts:
        text += f"[{part + 1}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text or "document"


def _check_schema(doc: Any) -> str | None:
    errors = sorted(
        _validator().iter_errors(doc), key=lambda e: (list(map(str, e.path)), e.message)
    )
    if not errors:
        return None
    from jsonschema.exceptions import best_match

    error = best_match(errors)
    message = error.message
    whole = repr(error.instance)
    if len(whole) > _SHOWN and message.startswith(whole):  # a huge value: its head will do
        message = shown(error.instance, _SHOWN) + message[len(whole) :]
    return f"{_path(error.absolute_path)}: {message}"


#: Characters of a document's value that an error message quotes; beyond, it is cut short.
_SHOWN = 60


def _grid(value: Any, size: int | None, field: str) -> tuple[int, list[int]]:
    """The size and values of a ``givens`` or ``solution`` field."""
    if isinstance(value, str):
        cells = [c for c in value if not c.isspace()]
        n = size or size_for_cell_count(len(cells))
        if n is None or len(cells) != n * n:
            raise ValueError(f"{field}: {len(cells)} cells is not a whole grid")
        return n, [_value(c, n, f"{field} (cell {i + 1})") for i, c in enumerate(cells)]
    n = size or len(value)
    if len(value) != n:
        raise ValueError(f"{field}: {len(value)} rows, expected {n}")
    values: list[int] = []
    for r, row in enumerate(value, 1):
        if isinstance(row, str):
            tokens = row.split() if " " in row.strip() else list(row)
            row_values = [int(t) if t.isdigit() else _value(t, n, f"{field}[{r}]") for t in tokens]
        else:
            row_values = list(row)
        if len(row_values) != n:
            raise ValueError(f"{field}[{r}]: {len(row_values)} cells, expected {n}")
        bad = [v for v in row_values if not 0 <= v <= n]
        if bad:
            raise ValueError(f"{field}[{r}]: value {bad[0]} is outside 1..{n}")
        values += row_values
    return n, values


def _value(ch: str, n: int, field: str) -> int:
    try:
        value = value_of(ch)
    except ValueError:
        raise ValueError(f"{field}: {ch!r} is not a value or a blank") from None
    if value > n:
        raise ValueError(f"{field}: {ch!r} is outside 1..{n}")
    return value


def _cell(ref: str | int, n: int, field: str) -> int:
    """A cell index from an ``r1c1`` name or an index; ValueError when off the grid."""
    if isinstance(ref, int) and not isinstance(ref, bool):
        if not 0 <= ref < n * n:
            raise ValueError(f"{field}: cell {ref} is outside the {n}x{n} grid (0..{n * n - 1})")
        return ref
    found = re.fullmatch(r"[rR]([0-9]{1,3})[cC]([0-9]{1,3})", ref) if isinstance(ref, str) else None
    if not found:  # a rule record's cells are not checked by the schema
        raise ValueError(f"{field}: {shown(ref)} is not a cell (r1c1, or an index)")
    r, c = int(found[1]), int(found[2])
    if not (1 <= r <= n and 1 <= c <= n):
        raise ValueError(f"{field}: {ref} is outside the {n}x{n} grid")
    return (r - 1) * n + c - 1


def puzzle_of(doc: dict[str, Any]) -> tuple[Puzzle, Grid | None]:
    """The puzzle and known solution of a schema-valid document; ValueError naming the field."""
    size = doc.get("size")
    n, givens = _grid(doc["givens"], size, "givens")
    if size is None and n not in SIZES:
        raise ValueError(f"givens: {n}x{n} is not a supported size")
    units = [
        tuple(_cell(ref, n, f"units[{i}][{j}]") for j, ref in enumerate(unit, 1))
        for i, unit in enumerate(doc.get("units", []), 1)
    ]
    for i, unit in enumerate(units, 1):
        if len(unit) != n or len(set(unit)) != n:
            raise ValueError(f"units[{i}]: a unit needs {n} different cells, got {len(unit)}")
    regions = doc.get("regions")
    try:
        geom = variant_geometry(
            n,
            x=doc.get("x", False),
            hyper=doc.get("hyper", False),
            regions=[[str(label) for label in row] for row in regions] if regions else None,
            units=units,
            box=tuple(doc["box"]) if "box" in doc else None,
        )
    except ValueError as err:
        field = "regions" if regions and "region" in str(err) else _field_of(err)
        raise ValueError(f"{field}: {err}") from None
    cages, distinct_rules = _cages(doc.get("cages", []), geom)
    fields = read_rules(doc, geom, lambda ref, field: _cell(ref, n, field))
    for rule in distinct_rules:
        fields.setdefault(rule, "cages")
    masks = _candidates(doc["candidates"], n) if "candidates" in doc else None
    try:
        puzzle = Puzzle(geom, tuple(givens), cages, masks, tuple(fields))
    except ValueError as err:  # givens that are not the cells of one candidate
        raise ValueError(f"candidates: {err}") from None
    clashes = puzzle.clashes()
    if clashes:
        raise ValueError(f"givens: {clashes[0]}")
    _check_cage_givens(puzzle)
    rule = broken_by_givens(puzzle.rules, puzzle.givens)
    if rule is not None:
        names = ", ".join(geom.cell_name(c) for c in dict.fromkeys(rule.cells))
        raise ValueError(f"givens: {names} break {fields[rule]} ({rule.name})")
    solution = None
    if "solution" in doc:
        _, grid = _grid(doc["solution"], n, "solution")
        solution = tuple(grid)
        if not is_solution(puzzle, solution):
            raise ValueError(f"solution: does not solve the puzzle ({_broken(puzzle, solution)})")
    return puzzle, solution


def _candidates(text: str, n: int) -> tuple[int, ...]:
    """The masks of a ``candidates`` field: n characters per cell (whitespace ignored)."""
    chars = [c for c in text if not c.isspace()]
    if len(chars) != n**3:
        raise ValueError(f"candidates: {len(chars)} characters; a {n}x{n} puzzle's are {n**3}")
    masks = [0] * (n * n)
    for i, ch in enumerate(chars):
        v = i % n + 1
        value = VALUES.get(ch)
        if value not in (0, v):
            raise ValueError(f"candidates (character {i + 1}): {ch!r} is not {symbol(v)!r} or .")
        if value:
            masks[i // n] |= 1 << (v - 1)
    return tuple(masks)


def _field_of(err: ValueError) -> str:
    text = str(err)
    return "hyper" if "hyper" in text else "box" if "box" in text else "document"


def _cages(raw: list[dict[str, Any]], geom: Geometry) -> tuple[tuple[Cage, ...], list[Rule]]:
    """The cages of a document: on the grid, not overlapping, with a reachable sum; a cage
    without a sum only keeps its values apart (its ``NotEqual`` rules)."""
    n = geom.size
    owner: dict[int, str] = {}
    cages, rules = [], []
    for i, item in enumerate(raw, 1):
        cells = tuple(
            _cell(ref, n, f"cages[{i}].cells[{j}]") for j, ref in enumerate(item["cells"], 1)
        )
        total = item.get("sum")
        check_cage(cells, total, geom, f"cages[{i}]", owner, f"cages[{i}].sum")
        if total is None:
            rules += distinct(cells, geom)
        else:
            cages.append(Cage(cells, total))
    return tuple(cages), rules


def _check_cage_givens(puzzle: Puzzle) -> None:
    """ValueError when the givens inside a cage repeat a value or make its sum unreachable."""
    n, geom = puzzle.size, puzzle.geometry
    for i, cage in enumerate(puzzle.cages, 1):
        given = [(c, puzzle.givens[c]) for c in cage.cells if puzzle.givens[c]]
        seen: dict[int, int] = {}
        for cell, value in given:
            if value in seen:
                a, b = geom.cell_name(seen[value]), geom.cell_name(cell)
                raise ValueError(f"givens: cages[{i}]: {a} and {b} are both {symbol(value)}")
            seen[value] = cell
        rest = cage.total - sum(v for _, v in given)
        free = len(cage.cells) - len(given)
        left = [v for v in range(1, n + 1) if v not in seen]
        if not any(sum(c) == rest for c in combinations(left, free)):
            names = ", ".join(geom.cell_name(c) for c, _ in given)
            raise ValueError(f"givens: {names} break cages[{i}] (sum {cage.total})")


def _broken(puzzle: Puzzle, grid: Grid) -> str:
    """The first rule a grid breaks, in words."""
    for unit in puzzle.geometry.units:
        if len({grid[c] for c in unit.cells}) != puzzle.size:
            return f"{unit.name} repeats a value"
    for i, cage in enumerate(puzzle.cages, 1):
        values = [grid[c] for c in cage.cells]
        if len(set(values)) != len(values) or sum(values) != cage.total:
            return f"cages[{i}] is not {cage.total} in distinct values"
    rule = broken(puzzle.rules, grid)
    if rule is not None:
        return f"{rule.name} is broken"
    return "a given is changed"


#: What a value nested deeper than Python's recursion allows is, in an error message.
_TOO_DEEP = "not a puzzle document: arrays or objects nested too deeply"


def read_document(doc: Any, source: str, line: int) -> Entry:
    """One document as an Entry; DocumentError naming source, line and field."""
    if too_deep(doc):
        raise DocumentError(_TOO_DEEP, source, line)
    if isinstance(doc, dict) and "grid" in doc and "givens" not in doc:
        from .fpuzzles import read_fpuzzles_document  # an f-puzzles file's JSON

        return read_fpuzzles_document(doc, source, line)
    if isinstance(doc, dict) and "cells" in doc and "givens" not in doc:
        from .sudokupad import read_sudokupad_document  # a SudokuPad puzzle's JSON

        return read_sudokupad_document(doc, source, line)
    try:
        problem = _check_schema(doc)
        if problem is None:
            try:
                puzzle, solution = puzzle_of(doc)
            except ValueError as err:
                problem = str(err)
    except RecursionError:  # a value nested a few hundred levels deep: the checks recurse
        problem = _TOO_DEEP
    if problem is not None:
        raise DocumentError(problem, source, line)
    return Entry(puzzle, solution, source, line)


def read_documents(
    text: str,
    source: str = "<text>",
    lines: bool | None = None,
    errors: list[ParseError] | None = None,
) -> list[Entry]:
    """Every document in a text: JSON Lines, one JSON document, or a JSON array of them.

    ``lines`` forces JSON Lines (True) or one JSON value (False); by default a text whose
    first line is a whole JSON object is read as JSON Lines. The first bad document
    raises DocumentError; given a list as ``errors``, each bad document (a line of JSON
    Lines, an element of an array) is appended to it instead and the others are read.
    """
    text = text.removeprefix("\ufeff")
    rows = text.splitlines()
    if lines is None:
        first = next((s for s in rows if s.strip()), "")
        lines = _parses(first)
    if lines:
        entries: list[Entry] = []
        for number, row in enumerate(rows, 1):
            if row.strip():
                _keep(entries, errors, _read_row, row, source, number)
        return entries
    value = _load(text, source, None)
    if not isinstance(value, list):
        return [read_document(value, source, 1)]
    entries = []
    for i, doc in enumerate(value, 1):
        _keep(entries, errors, read_document, doc, f"{source} document {i}", 1)
    return entries


def _read_row(row: str, source: str, number: int) -> Entry:
    """The document on one line of JSON Lines."""
    return read_document(_load(row, source, number), source, number)


def _keep(
    entries: list[Entry], errors: list[ParseError] | None, read: Callable[..., Entry], *args: Any
) -> None:
    """Append what ``read(*args)`` reads to ``entries``, or its DocumentError to ``errors``
    (raised when there is no such list)."""
    try:
        entries.append(read(*args))
    except DocumentError as err:
        if errors is None:
            raise
        errors.append(err)


def _parses(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return False


def _load(text: str, source: str, line: int | None) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise DocumentError(f"not JSON: {err.msg}", source, line or err.lineno, err.colno) from None
    except RecursionError:  # json's decoder recurses once per level of nesting
        raise DocumentError(_TOO_DEEP, source, line or 1) from None


def to_document(puzzle: Puzzle, solution: Grid | None = None, name: str | None = None) -> dict:
    """A document for a puzzle (and its solution): the inverse of :func:`puzzle_of`."""
    geom = puzzle.geometry
    doc: dict[str, Any] = {}
    if name is not None:
        doc["name"] = name
    doc["size"] = geom.size
    if (geom.box_rows, geom.box_cols) != BOX_SHAPES[geom.size]:
        doc["box"] = [geom.box_rows, geom.box_cols]
    variant = flags(geom)
    for key in ("x", "hyper"):
        if variant[key]:
            doc[key] = True
    if variant["jigsaw"]:
        doc["regions"] = region_labels(geom)
    extra = [u for u in geom.units if u.kind == "unit"]
    if extra:
        doc["units"] = [[geom.cell_name(c) for c in u.cells] for u in extra]
    if puzzle.cages:
        doc["cages"] = [
            {"cells": [geom.cell_name(c) for c in cage.cells], "sum": cage.total}
            for cage in puzzle.cages
        ]
    doc.update(write_rules(puzzle.rules, geom))
    doc["givens"] = "".join(symbol(v) if v else "." for v in puzzle.givens)
    if puzzle.candidates is not None:
        doc["candidates"] = marks_line(puzzle.candidates, geom.size)
    if solution is not None:
        doc["solution"] = "".join(symbol(v) for v in solution)
    return doc


def dumps(puzzle: Puzzle, solution: Grid | None = None, name: str | None = None) -> str:
    """A document as one JSON line (a JSON Lines record)."""
    return json.dumps(to_document(puzzle, solution, name), separators=(", ", ": "))
