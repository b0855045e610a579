"""The variant rules a puzzle states beside its units and cages, one small record a kind.

Each record is both a rule of the puzzle (:attr:`Puzzle.rules <.puzzle.Puzzle.rules>`)
and a constraint of the model (the builder adds it unchanged): its ``kind`` is what a
backend's ``kinds`` accepts or refuses, its ``cells`` are the cells it reads, its
``name`` says where it came from (``thermometer 2``, ``anti-knight``), and
:meth:`holds` is the verifier's test of it on a filled grid, knowing only the rule.

>>> Less(0, 1, "thermometer 1").holds((3, 5))
True
>>> SumEquals((0,), (1, 2), "arrow 1").holds((9, 4, 5))
True
>>> Sandwich((0, 1, 2, 3), 5, "row 1 sandwich").holds((1, 2, 3, 4))
True
>>> Sandwich((0, 1, 2, 3), 5, "row 1 sandwich").holds((1, 4, 2, 3))
False
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: A filled grid as the verifier reads it: one value per cell.
Values = Sequence[int]


@dataclass(frozen=True)
class Less:
    """Cell ``a`` holds a smaller value than cell ``b`` (a thermometer is a chain of them,
    bulb first)."""

    a: int
    b: int
    name: str = "less"

    kind = "less"

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells the rule reads."""
        return (self.a, self.b)

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps the rule."""
        return grid[self.a] < grid[self.b]


@dataclass(frozen=True)
class LessEqual:
    """Cell ``a`` holds a value at most cell ``b``'s (a slow thermometer's chain)."""

    a: int
    b: int
    name: str = "less or equal"

    kind = "lessequal"

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells the rule reads."""
        return (self.a, self.b)

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps the rule."""
        return grid[self.a] <= grid[self.b]


@dataclass(frozen=True)
class Difference:
    """Cells ``a`` and ``b`` differ by exactly ``k`` (a white kropki dot: k = 1)."""

    a: int
    b: int
    k: int = 1
    name: str = "difference"

    kind = "difference"

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells the rule reads."""
        return (self.a, self.b)

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps the rule."""
        return abs(grid[self.a] - grid[self.b]) == self.k


@dataclass(frozen=True)
class NotDifference:
    """Cells ``a`` and ``b`` do not differ by ``k`` (nonconsecutive: k = 1 between
    orthogonal neighbours; a kropki puzzle's negative constraint)."""

    a: int
    b: int
    k: int = 1
    name: str = "no difference"

    kind = "notdifference"

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells the rule reads."""
        return (self.a, self.b)

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps the rule."""
        return abs(grid[self.a] - grid[self.b]) != self.k


@dataclass(frozen=True)
class MinDifference:
    """Cells ``a`` and ``b`` differ by at least ``k`` (German whispers: k = 5 between
    neighbours on the line)."""

    a: int
    b: int
    k: int = 5
    name: str = "minimum difference"

    kind = "mindifference"

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells the rule reads."""
        return (self.a, self.b)

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps the rule."""
        return abs(grid[self.a] - grid[self.b]) >= self.k


@dataclass(frozen=True)
class Ratio:
    """One of cells ``a`` and ``b`` is ``r`` times the other (a black kropki dot: r = 2)."""

    a: int
    b: int
    r: int = 2
    name: str = "ratio"

    kind = "ratio"

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells the rule reads."""
        return (self.a, self.b)

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps the rule."""
        x, y = grid[self.a], grid[self.b]
        return x == self.r * y or y == self.r * x


@dataclass(frozen=True)
class NotRatio:
    """Neither of cells ``a`` and ``b`` is ``r`` times the other (a kropki puzzle's
    negative constraint: no black dot, no 1:2 pair)."""

    a: int
    b: int
    r: int = 2
    name: str = "no ratio"

    kind = "notratio"

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells the rule reads."""
        return (self.a, self.b)

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps the rule."""
        x, y = grid[self.a], grid[self.b]
        return x != self.r * y and y != self.r * x


@dataclass(frozen=True)
class PairSum:
    """Cells ``a`` and ``b`` add up to ``total`` (XV: V is 5, X is 10)."""

    a: int
    b: int
    total: int
    name: str = "pair sum"

    kind = "pairsum"

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells the rule reads."""
        return (self.a, self.b)

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps the rule."""
        return grid[self.a] + grid[self.b] == self.total


@dataclass(frozen=True)
class NotEqual:
    """Cells ``a`` and ``b`` hold different values (anti-knight, anti-king: two cells a
    chess move apart that share no unit)."""

    a: int
    b: int
    name: str = "not equal"

    kind = "notequal"

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells the rule reads."""
        return (self.a, self.b)

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps the rule."""
        return grid[self.a] != grid[self.b]


@dataclass(frozen=True)
class SumEquals:
    """The values of ``targets`` add up to those of ``terms`` (an arrow: its circle's
    cells, read as digits of one number when there are several, equal the sum of its
    shaft; a region-sum line: two of its segments). Values may repeat unless a unit
    forbids it."""

    targets: tuple[int, ...]
    terms: tuple[int, ...]
    name: str = "equal sums"
    #: Whether the targets are the digits of one number (a two-cell arrow circle)
    #: rather than values to add.
    digits: bool = False

    kind = "sumequals"

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells the rule reads."""
        return self.targets + self.terms

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps the rule."""
        return self.left(grid) == sum(grid[c] for c in self.terms)

    def left(self, grid: Values) -> int:
        """The targets' side: their sum, or the number their digits spell."""
        if not self.digits:
            return sum(grid[c] for c in self.targets)
        number = 0
        for cell in self.targets:
            number = number * 10 + grid[cell]
        return number


@dataclass(frozen=True)
class Consecutive:
    """The cells hold different values that form a run (renban: {3, 4, 5} in any order)."""

    line: tuple[int, ...]
    name: str = "renban"

    kind = "consecutive"

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells the rule reads."""
        return self.line

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps the rule."""
        values = {grid[c] for c in self.line}
        return len(values) == len(self.line) and max(values) - min(values) == len(values) - 1


@dataclass(frozen=True)
class Parity:
    """The cell holds an odd value (``odd``) or an even one (``even``)."""

    cell: int
    parity: str
    name: str = "parity"

    kind = "parity"

    def __post_init__(self) -> None:
        if self.parity not in ("odd", "even"):
            raise ValueError(f"parity must be odd or even, not {self.parity!r}")

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells the rule reads."""
        return (self.cell,)

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps the rule."""
        return grid[self.cell] % 2 == (self.parity == "odd")


@dataclass(frozen=True)
class Sandwich:
    """The values strictly between the 1 and the ``high`` of a row or column (``line``,
    in order; ``high`` is the size) add up to ``total`` (0 when they are adjacent)."""

    line: tuple[int, ...]
    total: int
    name: str = "sandwich"

    kind = "sandwich"

    @property
    def high(self) -> int:
        """The larger crust: the line's length, the grid's size."""
        return len(self.line)

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells the rule reads."""
        return self.line

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps the rule."""
        values = [grid[c] for c in self.line]
        if 1 not in values or self.high not in values:
            return False
        i, j = sorted((values.index(1), values.index(self.high)))
        return sum(values[i + 1 : j]) == self.total


@dataclass(frozen=True)
class LittleKiller:
    """The values along a diagonal (``line``) add up to ``total``; they may repeat."""

    line: tuple[int, ...]
    total: int
    name: str = "little killer"

    kind = "littlekiller"

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells the rule reads."""
        return self.line

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps the rule."""
        return sum(grid[c] for c in self.line) == self.total


def entropy_groups(size: int) -> tuple[range, range, range]:
    """The low, middle and high values of an entropic line on a ``size`` x ``size`` grid:
    1-3, 4-6, 7-9 on 9x9; the low and high groups equal and the middle one the rest."""
    third, up = size // 3, -(-size // 3)
    k = third if 2 * third + up == size else up
    return range(1, k + 1), range(k + 1, size - k + 1), range(size - k + 1, size + 1)


@dataclass(frozen=True)
class Entropic:
    """Every three successive cells of ``line`` hold one low, one middle and one high
    value (:func:`entropy_groups` of ``size``); a line of fewer than three says nothing."""

    line: tuple[int, ...]
    size: int = 9
    name: str = "entropic line"

    kind = "entropic"

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells the rule reads."""
        return self.line

    def group(self, value: int) -> int:
        """0, 1 or 2: the value's group."""
        return next(g for g, values in enumerate(entropy_groups(self.size)) if value in values)

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps the rule."""
        groups = [self.group(grid[c]) for c in self.line]
        return all(len(set(groups[i : i + 3])) == 3 for i in range(len(groups) - 2))


#: Every variant rule a puzzle can state.
Rule = (
    Less
    | LessEqual
    | Difference
    | NotDifference
    | MinDifference
    | Ratio
    | NotRatio
    | PairSum
    | NotEqual
    | SumEquals
    | Consecutive
    | Parity
    | Sandwich
    | LittleKiller
    | Entropic
)

#: The kinds of the variant rules, by name.
KINDS = {
    cls.kind: cls
    for cls in (
        Less,
        LessEqual,
        Difference,
        NotDifference,
        MinDifference,
        Ratio,
        NotRatio,
        PairSum,
        NotEqual,
        SumEquals,
        Consecutive,
        Parity,
        Sandwich,
        LittleKiller,
        Entropic,
    )
}

#: The pair kinds (two cells ``a`` and ``b``, one relation between their values).
PAIRS = frozenset(
    {"less", "lessequal", "difference", "notdifference", "mindifference", "ratio"}
    | {"notratio", "pairsum", "notequal"}
)


def broken(rules: Sequence[Rule], grid: Values) -> Rule | None:
    """The first rule a filled grid breaks, or None."""
    return next((rule for rule in rules if not rule.holds(grid)), None)


def broken_by_givens(rules: Sequence[Rule], givens: Values) -> Rule | None:
    """The first rule the givens alone break: a rule whose every cell is given, false."""
    for rule in rules:
        if all(givens[c] for c in rule.cells) and not rule.holds(givens):
            return rule
    return None


def knight_pairs(size: int) -> list[tuple[int, int]]:
    """Every pair of cells a chess knight's move apart, each pair once (lower cell first)."""
    return _pairs(size, ((1, 2), (2, 1), (1, -2), (2, -1)))


def king_pairs(size: int) -> list[tuple[int, int]]:
    """Every pair of cells a chess king's move apart, each pair once."""
    return _pairs(size, ((0, 1), (1, 0), (1, 1), (1, -1)))


def neighbour_pairs(size: int) -> list[tuple[int, int]]:
    """Every pair of orthogonally adjacent cells, each pair once."""
    return _pairs(size, ((0, 1), (1, 0)))


def _pairs(size: int, moves: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    pairs = []
    for r in range(size):
        for c in range(size):
            for dr, dc in moves:
                nr, nc = r + dr, c + dc
                if 0 <= nr < size and 0 <= nc < size:
                    pairs.append((r * size + c, nr * size + nc))
    return sorted(pairs)
