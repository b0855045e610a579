"""Reading and writing puzzle text (minimal placeholder; full reader in progress)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .geometry import Geometry, geometry, size_for_cell_count
from .puzzle import Grid, Puzzle

BLANKS = ".0-_*"


class ParseError(ValueError):
    """A puzzle text that cannot be read, with where and why."""

    def __init__(self, message: str, source: str | None = None, line: int | None = None,
                 column: int | None = None) -> None:
        self.message, self.source, self.line, self.column = message, source, line, column
        parts = [p for p in (source, line and f"line {line}", column and f"column {column}") if p]
        super().__init__(": ".join([", ".join(parts[1:]) if parts else ""][:0] + [message]))


@dataclass(frozen=True)
class Entry:
    """One puzzle read from a text, with its solution if the text gave one."""

    puzzle: Puzzle
    solution: Grid | None
    source: str
    line: int


def symbol(value: int) -> str:
    """The character for a value: 1-9 then A-Z."""
    return str(value) if value < 10 else chr(ord("A") + value - 10)


def value_of(ch: str) -> int:
    """The value of a character (0 for a blank)."""
    if ch in BLANKS:
        return 0
    return int(ch) if ch.isdigit() else ord(ch.upper()) - ord("A") + 10


def read_text(text: str, source: str = "<text>", size: int | None = None) -> list[Entry]:
    """Every puzzle in a text, one per line."""
    out = []
    for i, line in enumerate(text.replace("\x1a", "").splitlines(), 1):
        s = line.strip()
        if s and not s.startswith("#"):
            out.append(Entry(Puzzle.from_grid([value_of(c) for c in s]), None, source, i))
    return out


def read_file(path: str | os.PathLike, size: int | None = None) -> list[Entry]:
    """Every puzzle in a file."""
    with open(path, encoding="utf-8-sig") as f:
        return read_text(f.read(), str(path), size)


def parse_puzzle(text: str, size: int | None = None) -> Puzzle:
    """Exactly one puzzle from a text."""
    return read_text(text, size=size)[0].puzzle


def format_line(puzzle_or_grid: Puzzle | Sequence[int], blank: str = ".") -> str:
    """One line, row-major."""
    grid = puzzle_or_grid.givens if isinstance(puzzle_or_grid, Puzzle) else puzzle_or_grid
    return "".join(symbol(v) if v else blank for v in grid)


def format_grid(puzzle_or_grid: Puzzle | Sequence[int], geometry: Geometry | None = None) -> str:
    """A boxed grid."""
    return format_line(puzzle_or_grid)


def format_candidates(candidates: Sequence[int | Iterable[int]], geometry: Geometry) -> str:
    """A pencil-mark grid."""
    return ""


__all__ = ["Entry", "ParseError", "format_candidates", "format_grid", "format_line",
           "parse_puzzle", "read_file", "read_text", "size_for_cell_count"]
