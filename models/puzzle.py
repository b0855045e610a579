"""A puzzle is a geometry plus its givens; a grid is a tuple of values (0 = blank)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .display import Displayed
from .geometry import Geometry, Unit, geometry, size_for_cell_count

#: A grid: one value per cell, row-major; 0 marks a blank.
Grid = tuple[int, ...]


@dataclass(frozen=True)
class Clash:
    """Two givens with the same value in one unit."""

    unit: Unit
    first: int
    second: int
    value: int
    geometry: Geometry

    def __str__(self) -> str:
        a = self.geometry.cell_name(self.first)
        b = self.geometry.cell_name(self.second)
        return f"{self.unit.name}: {a} and {b} are both {symbol(self.value)}"


@dataclass(frozen=True)
class Cage:
    """A killer cage: its cells take pairwise different values that add up to ``total``."""

    cells: tuple[int, ...]
    total: int


def symbol(value: int) -> str:
    """The character for a value: 1-9, then A-Z for sizes above 9 (10 = A, 25 = P)."""
    return str(value) if value < 10 else chr(ord("A") + value - 10)


@dataclass(frozen=True)
class Puzzle(Displayed):
    """A grid shape and its givens (0 for a blank cell).

    >>> p = Puzzle.from_grid([1, 0, 0, 0,  0, 0, 1, 0,  0, 1, 0, 0,  0, 0, 0, 1])
    >>> p.size, p.given_count
    (4, 4)
    """

    geometry: Geometry
    givens: Grid
    #: Killer cages (none for other variants); the geometry's units carry the other rules.
    cages: tuple[Cage, ...] = field(default=())

    def __post_init__(self) -> None:
        n = self.geometry.size
        if len(self.givens) != n * n:
            raise ValueError(f"a {n}x{n} puzzle needs {n * n} cells, got {len(self.givens)}")
        if self.givens and (min(self.givens) < 0 or max(self.givens) > n):
            cell = next(c for c, v in enumerate(self.givens) if not 0 <= v <= n)
            name = self.geometry.cell_name(cell)
            raise ValueError(f"{name}: value {self.givens[cell]} is outside 1..{n}")

    @classmethod
    def from_grid(cls, grid: list[int] | tuple[int, ...], geom: Geometry | None = None) -> Puzzle:
        """A puzzle from a flat list of values, the size inferred from its length."""
        if geom is None:
            size = size_for_cell_count(len(grid))
            if size is None:
                raise ValueError(f"{len(grid)} cells is not a supported grid size")
            geom = geometry(size)
        return cls(geom, tuple(int(v) for v in grid))

    @property
    def size(self) -> int:
        """Grid size n (values 1..n)."""
        return self.geometry.size

    @property
    def given_count(self) -> int:
        """Number of givens."""
        return sum(1 for v in self.givens if v)

    def clashes(self) -> list[Clash]:
        """Every pair of givens that share a unit and a value, in unit order."""
        found = []
        for unit in self.geometry.units:
            seen: dict[int, int] = {}
            for cell in unit.cells:
                value = self.givens[cell]
                if not value:
                    continue
                if value in seen:
                    found.append(Clash(unit, seen[value], cell, value, self.geometry))
                else:
                    seen[value] = cell
        return found

    def __str__(self) -> str:
        return "".join(symbol(v) if v else "." for v in self.givens)


def is_solution(puzzle: Puzzle, grid: Grid | list[int] | None) -> bool:
    """True when ``grid`` fills every cell, keeps the givens, and each unit is a permutation.

    Each killer cage must also hold pairwise different values adding up to its total.
    This is the independent verifier: it trusts no solver and knows only the rules.
    """
    if grid is None:
        return False
    geom = puzzle.geometry
    n = geom.size
    if len(grid) != n * n:
        return False
    if any(g and g != v for g, v in zip(puzzle.givens, grid, strict=True)):
        return False
    full = set(range(1, n + 1))
    if not all({grid[c] for c in unit.cells} == full for unit in geom.units):
        return False
    for cage in puzzle.cages:
        values = [grid[c] for c in cage.cells]
        if len(set(values)) != len(values) or sum(values) != cage.total:
            return False
    return True
