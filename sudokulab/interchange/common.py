"""What every format shares: the errors, the imported answer, the header, the verifier."""

from __future__ import annotations

from dataclasses import dataclass

from ..models import Grid, Model, ParseError, fault
from ..models.puzzle import symbol


class Refused(ValueError):
    """The format (or the encoding asked for) cannot carry this model: says what and why."""


class WrongSolution(ValueError):
    """A decoded answer that breaks a rule or a given: the message names the cell."""


#: Statuses an outside solver's answer can have, as this package reads them.
SOLVED, UNSOLVABLE, UNKNOWN = "solved", "unsolvable", "unknown"
#: Competition status words (``s WORD``) of a solver that stopped without deciding (the PB
#: and XCSP3 competitions' UNSUPPORTED: it could not take the instance).
UNDECIDED = ("UNKNOWN", "INDETERMINATE", "TIMEOUT", "UNSUPPORTED")


@dataclass(frozen=True)
class Answer:
    """An outside solver's answer, read from its output: ``solved`` with the decoded grid
    (verified against the rules and the givens), ``unsolvable``, or ``unknown`` (it gave up
    or stopped: ``said`` is the line of its output that says so, ``c UNKNOWN``,
    ``=====UNKNOWN=====``, ``Status: INTEGER UNDEFINED``...)."""

    status: str
    grid: Grid | None = None
    said: str = ""


def unreadable(message: str, source: str, line: int | None = None) -> ParseError:
    """The error of a solution file that cannot be read, positioned by its line."""
    return ParseError(message, source, line)


def header_lines(model: Model, format_name: str, encoding: str, numbering: str) -> list[str]:
    """The header every exported file starts with (each format adds its comment marker):
    the puzzle, the format and encoding, and how variables are numbered."""
    puzzle = model.puzzle
    geom = model.geometry
    kinds = {}
    for c in model.constraints:
        kinds[c.kind] = kinds.get(c.kind, 0) + 1
    counts = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    lines = [
        f"sudokulab export, format {format_name}, encoding {encoding}",
        f"puzzle: {puzzle}",
        f"grid {geom.size}x{geom.size}, cells r1c1..r{geom.size}c{geom.size} numbered 0.."
        f"{len(model.domains) - 1} row-major; constraints: {counts}",
    ]
    for cage in puzzle.cages:
        cells = " ".join(geom.cell_name(c) for c in cage.cells)
        lines.append(f"cage {cells} sum {cage.total}")
    lines += numbering.splitlines()
    return lines


def decode(model: Model, pairs: list[tuple[int, int]]) -> Grid:
    """The grid of (cell, value) pairs an answer sets; WrongSolution naming the cell that
    gets no value or two."""
    geom = model.geometry
    grid = [0] * len(model.domains)
    for cell, value in pairs:
        if grid[cell] and grid[cell] != value:
            raise WrongSolution(
                f"{geom.cell_name(cell)} holds both {symbol(grid[cell])} and {symbol(value)}"
            )
        grid[cell] = value
    for cell, value in enumerate(grid):
        if not value:
            raise WrongSolution(f"{geom.cell_name(cell)} gets no value from the solution")
    return tuple(grid)


def verify(model: Model, grid: Grid) -> Grid:
    """``grid``, when it keeps every given and candidate and meets every constraint; else
    WrongSolution naming the first cell at fault and the rule it breaks (the one verifier,
    :func:`~sudokulab.models.fault`)."""
    wrong = fault(model.puzzle, grid)
    if wrong:
        raise WrongSolution(wrong)
    return grid
