"""Many puzzles of one shape as arrays: checked, verified and formatted in bulk.

:class:`Grids` holds the givens of ``k`` puzzles that share a geometry (and cages) as one
``(k, n*n)`` array of ``uint8`` values, 0 for a blank. What :class:`~.puzzle.Puzzle`
does for one puzzle in Python loops, this does for all of them with a few numpy
operations per unit: the clash check (:meth:`Grids.clashing`), the independent verifier
(:meth:`Grids.verify`, the same rules as :func:`~.puzzle.is_solution`) and the line
format (:func:`format_lines`). It is what lets a file of a million puzzles go from text
to verified answers at the speed of the engine.

>>> g = Grids.of([Puzzle.from_grid([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 0]),
...               Puzzle.from_grid([1, 1] + [0] * 14)])
>>> g.clashing().tolist()
[False, True]
>>> g.verify(g.givens).tolist()  # the first is one cell short of its solution
[False, False]
>>> format_lines(g.givens)
'123434122143432.\\n11..............\\n'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from .entries import VALUES
from .geometry import Geometry, geometry, size_for_cell_count
from .puzzle import Cage, Puzzle, symbol
from .rules import Rule

#: Bytes of each value's character in a line: ``.`` for a blank, 1-9, then A-P.
_SYMBOLS = np.frombuffer(
    ("." + "".join(symbol(v) for v in range(1, 26))).encode("ascii"), dtype=np.uint8
)


@cache
def unit_table(geom: Geometry) -> np.ndarray:
    """The geometry's units as one ``(units, n)`` array of cell numbers."""
    table = np.array([unit.cells for unit in geom.units], dtype=np.intp)
    table.setflags(write=False)
    return table


@dataclass(frozen=True, eq=False)
class Grids:
    """The givens of many puzzles of one shape: a ``(k, n*n)`` uint8 array, 0 = blank."""

    geometry: Geometry
    givens: np.ndarray
    #: Killer cages, shared by every puzzle of the block (none for other variants).
    cages: tuple[Cage, ...] = ()
    #: Pencil marks: a ``(k, n*n)`` uint32 array of candidate masks (bit v-1 for value v)
    #: consistent with the givens, or None for plain puzzles.
    candidates: np.ndarray | None = None
    #: Variant rules (:mod:`.rules`), shared by every puzzle of the block like the cages.
    rules: tuple[Rule, ...] = ()

    def __post_init__(self) -> None:
        givens = np.ascontiguousarray(self.givens, dtype=np.uint8)
        if givens.ndim != 2 or givens.shape[1] != self.geometry.cell_count:
            cells = self.geometry.cell_count
            raise ValueError(f"givens must be a (k, {cells}) array, got shape {givens.shape}")
        if givens.size and int(givens.max()) > self.geometry.size:
            row, cell = np.argwhere(givens > self.geometry.size)[0]
            name = self.geometry.cell_name(int(cell))
            raise ValueError(
                f"puzzle {row}: {name}: value {givens[row, cell]} is outside "
                f"1..{self.geometry.size}"
            )
        object.__setattr__(self, "givens", givens)
        if self.candidates is not None:
            masks = np.ascontiguousarray(self.candidates, dtype=np.uint32)
            if masks.shape != givens.shape:
                raise ValueError(f"candidates must have the givens' shape {givens.shape}")
            object.__setattr__(self, "candidates", masks)

    @classmethod
    def of(cls, puzzles: Sequence[Puzzle]) -> Grids:
        """The puzzles as one block; ValueError unless they share a geometry and cages, and
        all have pencil marks or none has (a backend may refuse only the ones that have)."""
        if not puzzles:
            raise ValueError("no puzzles to put in a block")
        first = puzzles[0]
        marked = first.candidates is not None
        for i, puzzle in enumerate(puzzles):
            if (puzzle.geometry, puzzle.cages, puzzle.rules) != (
                first.geometry,
                first.cages,
                first.rules,
            ):
                raise ValueError(f"puzzle {i} has another shape than puzzle 0")
            if (puzzle.candidates is not None) != marked:
                raise ValueError(f"puzzle {i} has pencil marks and puzzle 0 not, or the reverse")
        cells = first.geometry.cell_count
        givens = np.array([p.givens for p in puzzles], dtype=np.uint8).reshape(-1, cells)
        masks = None
        if marked:
            masks = np.array([p.candidates for p in puzzles], dtype=np.uint32).reshape(-1, cells)
        return cls(first.geometry, givens, first.cages, masks, first.rules)

    @classmethod
    def from_lines(cls, lines: Sequence[str], size: int | None = None) -> Grids:
        """Puzzle lines of one size (``.`` or ``0`` blanks), without the reader's checks.

        Meant for trusted text (tests, benchmarks); files go through the reader.
        """
        data = np.frombuffer("".join(lines).encode("ascii"), dtype=np.uint8)
        cells = len(lines[0]) if lines else 0
        n = size or size_for_cell_count(cells)
        if n is None:
            raise ValueError(f"{cells} cells is not a supported grid size")
        values = _VALUES[data]
        if (values == 255).any():
            raise ValueError("a character that is neither a value nor a blank")
        return cls(geometry(n), values.reshape(-1, n * n))

    def __len__(self) -> int:
        return len(self.givens)

    @property
    def size(self) -> int:
        """Grid size n (values 1..n)."""
        return self.geometry.size

    @property
    def shape(self) -> tuple[Geometry, tuple[Cage, ...], bool, tuple[Rule, ...]]:
        """What puzzles must share to join one block: geometry, cages, whether they
        carry pencil marks, and variant rules."""
        return self.geometry, self.cages, self.candidates is not None, self.rules

    def puzzle(self, i: int) -> Puzzle:
        """Puzzle ``i`` as a :class:`Puzzle`."""
        marks = None if self.candidates is None else tuple(self.candidates[i].tolist())
        givens = tuple(self.givens[i].tolist())
        return Puzzle(self.geometry, givens, self.cages, marks, self.rules)

    def puzzles(self) -> list[Puzzle]:
        """Every puzzle of the block, in order."""
        if self.candidates is not None:
            return [self.puzzle(i) for i in range(len(self))]
        return [
            Puzzle(self.geometry, tuple(row), self.cages, None, self.rules)
            for row in self.givens.tolist()
        ]

    def take(self, rows: np.ndarray | slice) -> Grids:
        """The block of some rows (a mask, indices or a slice)."""
        marks = None if self.candidates is None else self.candidates[rows]
        return Grids(self.geometry, self.givens[rows], self.cages, marks, self.rules)

    def clashing(self) -> np.ndarray:
        """Per puzzle: do two givens share a unit and a value? (``Puzzle.clashes`` says
        which.)"""
        bits = _bits_by_cell(self.givens, self.geometry.size)
        cells = _unit_columns(self.geometry)  # sums and ors of a unit differ on a repeat
        total = bits[cells[0]]
        seen = total.copy()
        for column in cells[1:]:
            part = bits[column]
            total += part
            seen |= part
        return (total != seen).any(axis=0)

    def verify(self, solutions: np.ndarray) -> np.ndarray:
        """Per puzzle: is ``solutions[i]`` a solution of puzzle ``i``?

        The independent verifier of :func:`~.puzzle.is_solution`, in bulk: every cell
        filled with a value of the size, the givens kept, every cell one of its candidates
        (pencil marks), every unit a permutation, every cage's values different and adding
        up to its total, every variant rule kept (a rule is checked in Python, row by row,
        on the rows that passed the rest). A row of zeros (no solution) is False.
        """
        solutions = np.asarray(solutions, dtype=np.uint8)
        if solutions.shape != self.givens.shape:
            raise ValueError(f"expected solutions of shape {self.givens.shape}")
        n = self.geometry.size
        givens = self.givens
        ok = ~((givens != 0) & (givens != solutions)).any(axis=1)
        bits = _bits_by_cell(solutions, n)  # 0 for a value outside 1..n
        ok &= bits.min(axis=0, initial=1) != 0
        if self.candidates is not None:  # bit v of bits is bit v-1 of a mask
            ok &= ((bits.T >> 1) & self.candidates == bits.T >> 1).all(axis=1)
        cells = _unit_columns(self.geometry)
        seen = bits[cells[0]]
        for column in cells[1:]:
            seen |= bits[column]
        ok &= (seen == (1 << (n + 1)) - 2).all(axis=0)
        for cage in self.cages:
            values = solutions[:, list(cage.cells)].astype(np.int64)
            part = bits[list(cage.cells)]
            distinct = part.sum(axis=0, dtype=np.int64) == np.bitwise_or.reduce(part, axis=0)
            ok &= distinct & (values.sum(axis=1) == cage.total)
        if self.rules:
            for i in np.flatnonzero(ok).tolist():
                grid = solutions[i].tolist()
                ok[i] = all(rule.holds(grid) for rule in self.rules)
        return ok


@cache
def _unit_columns(geom: Geometry) -> np.ndarray:
    """The unit table by columns, ``(n, units)``: row j holds the j-th cell of each unit,
    so a unit's values are combined a column at a time over whole rows of puzzles."""
    table = np.ascontiguousarray(unit_table(geom).T)
    table.setflags(write=False)
    return table


@cache
def _bit_table(n: int) -> np.ndarray:
    """Each byte v as the bit 1 << v for a value 1..n, else 0: uint16 while a unit's sum
    of n such bits fits in it, else uint32."""
    table = np.zeros(256, dtype=np.uint16 if n * (1 << n) < 1 << 16 else np.uint32)
    table[1 : n + 1] = 1 << np.arange(1, n + 1)
    table.setflags(write=False)
    return table


def _bits_by_cell(grids: np.ndarray, n: int) -> np.ndarray:
    """Each value v of a ``(k, n*n)`` array as the bit 1 << v (0 for a blank or a value
    outside 1..n), transposed to ``(n*n, k)``: a cell's row is then one contiguous run."""
    return _bit_table(n)[grids.T]


def format_lines(grids: np.ndarray, blank: str = ".") -> str:
    """Each row of a ``(k, n*n)`` array as a puzzle line (``format_line``), newline ended."""
    grids = np.asarray(grids, dtype=np.uint8)
    if grids.size == 0:
        return ""
    symbols = _SYMBOLS.copy()
    symbols[0] = ord(blank)
    text = np.empty((grids.shape[0], grids.shape[1] + 1), dtype=np.uint8)
    text[:, :-1] = symbols[grids]
    text[:, -1] = ord("\n")
    return text.tobytes().decode("ascii")


#: The value of each byte of a line: 0 for a blank, 1-25, 255 for anything else.
_VALUES = np.full(256, 255, dtype=np.uint8)
for _ch, _v in VALUES.items():
    _VALUES[ord(_ch)] = _v
