"""What every puzzle reader shares: the entry it reads, the error it raises, the values.

Blanks are ``. 0 - _ *``; values are 1-9 then A-P (10-25), either case.
"""

from __future__ import annotations

from dataclasses import dataclass

from .geometry import SIZES
from .puzzle import Grid, Puzzle

#: The characters of a blank cell.
BLANKS = ".0-_*"
#: The largest value of any size.
MAX_VALUE = max(SIZES)
#: The value of each character: 0 for a blank, 1-9, then A-P (either case) for 10-25.
VALUES: dict[str, int] = dict.fromkeys(BLANKS, 0)
for _v in range(1, MAX_VALUE + 1):
    _ch = str(_v) if _v < 10 else chr(ord("A") + _v - 10)
    VALUES[_ch] = VALUES[_ch.lower()] = _v


class ParseError(ValueError):
    """A text that is not a puzzle: where (source, line, column) and what was expected."""

    def __init__(
        self,
        message: str,
        source: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.message, self.source, self.line, self.column = message, source, line, column
        where = ", ".join(
            f"{name} {n}" for name, n in (("line", line), ("column", column)) if n is not None
        )
        super().__init__(": ".join(p for p in (source, where, message) if p))

    def __reduce__(self) -> tuple[type, tuple[str, str | None, int | None, int | None]]:
        # pickle (e.g. from a worker process) must rebuild the parts, not the joined text
        return type(self), (self.message, self.source, self.line, self.column)


@dataclass(frozen=True, slots=True)
class Entry:
    """One puzzle read from a text, what the text said of its solutions, and where it was.

    ``solution`` is a solution the text gave (a CSV column, ``puzzle:count:solution``);
    ``count`` is the number of solutions the text claimed (``puzzle:count``), else None.
    """

    puzzle: Puzzle
    solution: Grid | None
    source: str
    line: int  # 1-based line where the puzzle starts
    count: int | None = None


#: The deepest nesting of arrays and objects a puzzle's JSON may have: a puzzle nests five
#: or six levels; deeper is garbage, refused before anything recurses over it.
MAX_DEPTH = 32


def too_deep(value: object, limit: int = MAX_DEPTH) -> bool:
    """Whether a JSON value nests arrays and objects deeper than ``limit`` (walked with a
    stack, not recursion, so that any depth is answered)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            if depth > limit:
                return True
            stack += [(child, depth + 1) for child in item]
    return False


def shown(value: object, width: int = 60) -> str:
    """A value as an error message quotes it: its repr on one line, cut to about ``width``
    characters (``'abc...xyz'``, ``[[[...]]]``, ``[1, 2, 3, ...]``)."""
    import reprlib

    shortener = reprlib.Repr()
    shortener.maxlevel, shortener.maxlist, shortener.maxdict = 3, 4, 4
    shortener.maxstring = shortener.maxother = max(width // 4, 12)
    text = shortener.repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def value_of(ch: str) -> int:
    """The value of one character (0 for a blank); ValueError if it is neither."""
    value = VALUES.get(ch)
    if value is None:
        raise ValueError(f"{ch!r} is not a value or a blank")
    return value
