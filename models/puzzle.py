"""A puzzle is a geometry plus its givens; a grid is a tuple of values (0 = blank).

A pencil-mark puzzle (Sukaku) also says which values each cell may still take: its
``candidates``, one bit mask per cell (bit v-1 set when v is a candidate).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import TYPE_CHECKING

from .display import Displayed
from .geometry import Geometry, Unit, geometry, size_for_cell_count

if TYPE_CHECKING:
    from .rules import Rule  # loaded by the puzzles that have rules (see _broken)

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
    #: Pencil marks: each cell's candidates as a bit mask (bit v-1 for value v), or None
    #: for a plain puzzle (a given's value alone, every value elsewhere). A cell with one
    #: candidate is a given; marks that narrow no cell beyond that are the plain puzzle
    #: (stored as None, so a puzzle has one form).
    candidates: tuple[int, ...] | None = None
    #: Variant rules beyond units and cages (:mod:`.rules`: thermometers, arrows, kropki
    #: dots, anti-knight...), each a record the model takes as a constraint.
    rules: tuple[Rule, ...] = field(default=())

    def __post_init__(self) -> None:
        n = self.geometry.size
        if len(self.givens) != n * n:
            raise ValueError(f"a {n}x{n} puzzle needs {n * n} cells, got {len(self.givens)}")
        if self.givens and (min(self.givens) < 0 or max(self.givens) > n):
            cell = next(c for c, v in enumerate(self.givens) if not 0 <= v <= n)
            name = self.geometry.cell_name(cell)
            raise ValueError(f"{name}: value {self.givens[cell]} is outside 1..{n}")
        if self.candidates is not None:
            self._check_candidates()
        for rule in self.rules:
            if any(not 0 <= c < n * n for c in rule.cells):
                raise ValueError(f"{rule.name}: a cell outside the {n}x{n} grid")

    def _check_candidates(self) -> None:
        """Every cell has a candidate, none above n, the givens are the single ones; and
        marks that narrow nothing become None."""
        geom, masks = self.geometry, self.candidates
        assert masks is not None
        full = (1 << geom.size) - 1
        if len(masks) != geom.cell_count:
            raise ValueError(f"expected candidates for {geom.cell_count} cells, got {len(masks)}")
        for cell, (mask, given) in enumerate(zip(masks, self.givens, strict=True)):
            if not 0 < mask <= full:
                what = "no candidate" if mask == 0 else f"a candidate outside 1..{geom.size}"
                raise ValueError(f"{geom.cell_name(cell)} has {what}")
            if given != single(mask):
                raise ValueError(
                    f"{geom.cell_name(cell)}: given {given} but candidates "
                    f"{''.join(map(symbol, values_of(mask)))}"
                )
        if all(mask == full or mask & (mask - 1) == 0 for mask in masks):
            object.__setattr__(self, "candidates", None)

    @classmethod
    def from_candidates(
        cls, masks: Sequence[int], geom: Geometry, cages: tuple[Cage, ...] = ()
    ) -> Puzzle:
        """A pencil-mark puzzle from one mask per cell: a cell of one candidate is a given.

        >>> p = Puzzle.from_candidates([0b1111] * 15 + [0b0110], geometry(4))
        >>> p.given_count, p.candidates[-1], p.domain(15)
        (0, 6, (2, 3))
        """
        masks = tuple(int(m) for m in masks)
        return cls(geom, tuple(map(single, masks)), cages, masks)

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

    def domain(self, cell: int) -> tuple[int, ...]:
        """The values ``cell`` may take: its candidates, else its given, else every value."""
        if self.candidates is not None:
            return values_of(self.candidates[cell])
        given = self.givens[cell]
        return (given,) if given else tuple(self.geometry.values)

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
        if self.candidates is not None:
            return marks_line(self.candidates, self.geometry.size)
        return "".join(symbol(v) if v else "." for v in self.givens)


def single(mask: int) -> int:
    """The value of a mask with one bit set (bit v-1 for v), else 0."""
    return mask.bit_length() if mask and mask & (mask - 1) == 0 else 0


def values_of(mask: int) -> tuple[int, ...]:
    """The values of a candidate mask, ascending."""
    return tuple(v for v in range(1, mask.bit_length() + 1) if mask >> (v - 1) & 1)


def marks_line(masks: Sequence[int], n: int) -> str:
    """Pencil marks on one line, n characters per cell: v's symbol where v is a
    candidate, ``.`` where it is not (tdoku's 729-character form for 9x9)."""
    return "".join(symbol(v) if m >> (v - 1) & 1 else "." for m in masks for v in range(1, n + 1))


def is_solution(puzzle: Puzzle, grid: Grid | list[int] | None) -> bool:
    """True when ``grid`` fills every cell, keeps the givens, and each unit is a permutation.

    Each killer cage must also hold pairwise different values adding up to its total,
    each cell of a pencil-mark puzzle one of its candidates, and every variant rule hold.
    This is the independent verifier: it trusts no solver and knows only the rules.
    """
    return grid is not None and not fault(puzzle, grid)


def fault(puzzle: Puzzle, grid: Sequence[int]) -> str:
    """What keeps ``grid`` from being a solution of the puzzle, naming the first cell at
    fault and the given, candidate, unit, cage or rule it breaks; "" when it is one.

    The checks of :func:`is_solution`, in the model's order (cells, units, cages, rules).

    >>> fault(Puzzle.from_grid([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 0]),
    ...       [1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 1, 1])
    'r4c3 holds 1 but its given is 2'
    """
    if _holds(puzzle, grid):  # the common case, in a few C-level passes
        return ""
    geom = puzzle.geometry
    n = geom.size
    if len(grid) != n * n:
        return f"the grid has {len(grid)} cells, not {n * n}"
    marks = puzzle.candidates
    for cell, value in enumerate(grid):
        if not 1 <= value <= n:
            name = geom.cell_name(cell)
            return f"{name} holds {value}, not a value of 1..{n}" if value else f"{name} is empty"
        given = puzzle.givens[cell] or (single(marks[cell]) if marks is not None else 0)
        if given and value != given:
            return f"{geom.cell_name(cell)} holds {symbol(value)} but its given is {symbol(given)}"
        if marks is not None and not marks[cell] >> (value - 1) & 1:
            return f"{geom.cell_name(cell)} holds {symbol(value)}, not one of its candidates"
    named = [(unit.cells, unit.name, None) for unit in geom.units]
    named += [(cage.cells, f"cage {i}", cage.total) for i, cage in enumerate(puzzle.cages, 1)]
    for cells, name, total in named:
        if len({grid[c] for c in cells}) < len(cells):  # a repeat: name its two cells
            seen: dict[int, int] = {}
            for cell in cells:
                if grid[cell] in seen:
                    a, b = geom.cell_name(seen[grid[cell]]), geom.cell_name(cell)
                    return f"{a} and {b} both hold {symbol(grid[cell])} ({name})"
                seen[grid[cell]] = cell
        added = sum(grid[c] for c in cells) if total is not None else total
        if added != total:
            return f"{name} (from {geom.cell_name(cells[0])}) adds up to {added}, not {total}"
    rule = _broken(puzzle, grid)
    if rule is not None:
        cells = ", ".join(geom.cell_name(c) for c in rule.cells)
        return f"{rule.name} ({rule.kind}) is broken at {cells}"
    return ""


def _holds(puzzle: Puzzle, grid: Sequence[int]) -> bool:
    """Whether ``grid`` is a solution: :func:`fault`'s checks, naming nothing (a backend's
    answers are verified one by one, up to a thousand grids of a count)."""
    geom = puzzle.geometry
    n = geom.size
    if len(grid) != n * n or min(grid) < 1 or max(grid) > n:
        return False
    if not all(v == g for g, v in zip(puzzle.givens, grid, strict=True) if g):
        return False
    marks = puzzle.candidates
    if marks is not None and not all(m >> (v - 1) & 1 for m, v in zip(marks, grid, strict=True)):
        return False
    if not all(len(set(values(grid))) == n for values in _unit_getters(geom)):
        return False
    for cage in puzzle.cages:
        cells = [grid[c] for c in cage.cells]
        if len(set(cells)) < len(cells) or sum(cells) != cage.total:
            return False
    return _broken(puzzle, grid) is None


def _broken(puzzle: Puzzle, grid: Sequence[int]) -> Rule | None:
    """The first variant rule ``grid`` breaks, or None: the rules' module (some twenty
    record types) loads for a puzzle that has rules, not at every start-up."""
    if not puzzle.rules:
        return None
    from .rules import broken

    return broken(puzzle.rules, grid)


def _unit_getters(geom: Geometry) -> tuple[itemgetter, ...]:
    """Each unit's values of a grid, as one C call (kept on the shared geometry)."""
    cached = geom.__dict__.get("_unit_getters")
    if cached is None:
        cached = tuple(itemgetter(*unit.cells) for unit in geom.units)
        object.__setattr__(geom, "_unit_getters", cached)
    return cached
