"""The shape of a Sudoku grid: values, cells, units and peers, computed once.

Vocabulary, used with the same meaning everywhere in sudokulab:

- **value** (or digit): 1..n, where n is the grid's size.
- **cell**: one square of the grid, numbered 0..n*n-1 row-major, named ``r{row}c{col}``
  with 1-based row and column (``r1c1`` is cell 0, ``r9c9`` is cell 80).
- **unit**: a group of n cells that must hold every value exactly once: each row,
  each column and each box, plus any extra units a variant adds.
- **peers** of a cell: every other cell that shares a unit with it.
- **candidates** of a cell: the values it may still take.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

#: Box shape (rows x columns) of each classic size.
BOX_SHAPES: dict[int, tuple[int, int]] = {
    4: (2, 2),
    6: (2, 3),
    8: (2, 4),
    9: (3, 3),
    12: (3, 4),
    16: (4, 4),
    25: (5, 5),
}

#: Sizes that have a box shape, smallest first.
SIZES: tuple[int, ...] = tuple(sorted(BOX_SHAPES))


@dataclass(frozen=True)
class Unit:
    """A group of cells that must hold every value once, e.g. ``row 1`` or ``box 5``."""

    kind: str  # "row", "column", "box", or a variant's kind ("diagonal", "region", ...)
    number: int  # 1-based within its kind
    cells: tuple[int, ...]

    @property
    def name(self) -> str:
        """Human name of the unit: ``row 1``, ``column 7``, ``box 5``."""
        return f"{self.kind} {self.number}"

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, eq=False)
class Geometry:
    """Values, cells, units and peers of one grid shape; immutable and shared.

    Two geometries are equal when they have the same size and the same units, whatever
    their box shape was called. Build them with :func:`geometry` (cached) or
    :meth:`with_units` for variants.

    >>> g = geometry(9)
    >>> len(g.units), len(g.peers[0]), cell_name(g, 80)
    (27, 20, 'r9c9')
    """

    size: int
    box_rows: int
    box_cols: int
    units: tuple[Unit, ...]
    #: For each cell, the indices (into ``units``) of the units containing it.
    units_of: tuple[tuple[int, ...], ...] = field(repr=False)
    #: For each cell, its peers in ascending order.
    peers: tuple[tuple[int, ...], ...] = field(repr=False)

    @property
    def cell_count(self) -> int:
        """Number of cells, n*n."""
        return self.size * self.size

    @property
    def cells(self) -> range:
        """All cells, 0..n*n-1."""
        return range(self.size * self.size)

    @property
    def values(self) -> range:
        """All values, 1..n."""
        return range(1, self.size + 1)

    def row(self, cell: int) -> int:
        """0-based row of a cell."""
        return cell // self.size

    def col(self, cell: int) -> int:
        """0-based column of a cell."""
        return cell % self.size

    def box(self, cell: int) -> int:
        """0-based box of a cell, numbered row-major."""
        r, c = divmod(cell, self.size)
        boxes_per_row = self.size // self.box_cols
        return (r // self.box_rows) * boxes_per_row + c // self.box_cols

    def cell_name(self, cell: int) -> str:
        """Name of a cell: ``r1c1`` for cell 0."""
        r, c = divmod(cell, self.size)
        return f"r{r + 1}c{c + 1}"

    def with_units(self, extra: list[Unit] | tuple[Unit, ...]) -> Geometry:
        """A new geometry with extra units (a variant: diagonals, regions...)."""
        return make_geometry(
            self.size, self.box_rows, self.box_cols, tuple(self.units) + tuple(extra)
        )

    def __reduce__(self) -> tuple:
        # A classic geometry travels (to worker processes) as its size alone and comes
        # back as the shared cached instance, with its derived tables.
        if self.size in BOX_SHAPES and self is geometry(self.size):
            return (geometry, (self.size,))
        return (make_geometry, (self.size, self.box_rows, self.box_cols, self.units))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Geometry):
            return NotImplemented
        return self is other or (self.size == other.size and self._key == other._key)

    def __hash__(self) -> int:
        return hash((self.size, self._key))

    @property
    def _key(self) -> tuple[tuple[int, ...], ...]:
        return tuple(u.cells for u in self.units)

    def __repr__(self) -> str:
        box = f"{self.box_rows}x{self.box_cols}"
        return f"Geometry(size={self.size}, box={box}, units={len(self.units)})"


def cell_name(geometry: Geometry, cell: int) -> str:
    """Name of a cell in a geometry: ``r1c1`` for cell 0."""
    return geometry.cell_name(cell)


def _classic_units(size: int, box_rows: int, box_cols: int) -> tuple[Unit, ...]:
    rows = [Unit("row", r + 1, tuple(r * size + c for c in range(size))) for r in range(size)]
    cols = [Unit("column", c + 1, tuple(r * size + c for r in range(size))) for c in range(size)]
    boxes = []
    for b in range(size):
        top = (b // (size // box_cols)) * box_rows
        left = (b % (size // box_cols)) * box_cols
        cells = tuple(
            (top + dr) * size + left + dc for dr in range(box_rows) for dc in range(box_cols)
        )
        boxes.append(Unit("box", b + 1, cells))
    return tuple(rows + cols + boxes)


def make_geometry(size: int, box_rows: int, box_cols: int, units: tuple[Unit, ...]) -> Geometry:
    """A geometry from any units (a variant's, a jigsaw's): each of ``size`` distinct
    cells inside the grid, else ValueError; ``units_of`` and ``peers`` derived from them.
    The box shape only says how grids are drawn."""
    count = size * size
    for unit in units:
        if len(unit.cells) != size or len(set(unit.cells)) != size:
            raise ValueError(f"{unit.name} must have {size} distinct cells, got {unit.cells}")
        bad = [c for c in unit.cells if not 0 <= c < count]
        if bad:
            raise ValueError(f"{unit.name} names cells outside the grid: {bad}")
    units_of: list[list[int]] = [[] for _ in range(count)]
    peer_sets: list[set[int]] = [set() for _ in range(count)]
    for index, unit in enumerate(units):
        for cell in unit.cells:
            units_of[cell].append(index)
            peer_sets[cell].update(unit.cells)
    peers = tuple(tuple(sorted(s - {cell})) for cell, s in enumerate(peer_sets))
    return Geometry(size, box_rows, box_cols, units, tuple(map(tuple, units_of)), peers)


@cache
def geometry(size: int = 9) -> Geometry:
    """The classic geometry of a size (4, 6, 8, 9, 12, 16 or 25): rows, columns, boxes.

    Cached: every caller shares one immutable instance per size.
    """
    if size not in BOX_SHAPES:
        sizes = ", ".join(map(str, SIZES))
        raise ValueError(f"unsupported size {size}: sizes are {sizes}")
    box_rows, box_cols = BOX_SHAPES[size]
    return make_geometry(size, box_rows, box_cols, _classic_units(size, box_rows, box_cols))


def size_for_cell_count(count: int) -> int | None:
    """The classic size whose grid has ``count`` cells, or None."""
    for size in SIZES:
        if size * size == count:
            return size
    return None
