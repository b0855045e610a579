"""Exact cover as backends: Knuth's Algorithm X with dancing links ("Dancing Links", 2000).

Sudoku as exact cover: a *row* for each cell and each value its domain allows (placing
that value there), and a *column* for each condition the grid must meet exactly once:

- each cell holds a value (a column per cell);
- each ``AllDifferent`` holds each value (a column per unit and value). A unit of as many
  cells as there are values must hold every value once: a *primary* column, covered
  exactly once. A unit of fewer cells (some variants' extra units) holds a value at most
  once: a *secondary* column, covered at most once and never chosen to branch on, as
  Knuth defines them.

A row has a 1 in its cell's column and in its (unit, value) column for each unit of its
cell; a solution is a set of rows covering every primary column exactly once and no
secondary column twice. Variants (diagonals, jigsaw regions, extra units) are more
columns. Killer cages are not exact cover: a sum is no covering condition, so ``kinds``
leaves them out and such a model is refused with that reason.

Algorithm X picks the primary column with the fewest rows left (Knuth's S heuristic,
the first on ties), covers it, and tries its rows in order; covering a column unlinks
it and every row that meets it from the doubly linked lists (the dancing links), and
uncovering relinks them in reverse. The givens' rows are chosen before the search. The
search is iterative, counts solutions up to the limit, and looks at the clock every
1,024 rows tried. ``stats``: ``nodes`` (rows tried, the givens' not counted) and
``updates`` (links removed, as Knuth counts them), and the matrix's ``rows``,
``columns`` and ``ones``.

One algorithm, two implementations, as for the native engine: this module is the
readable one, and ``native/cover.c`` (the ``Cover`` type of the compiled core) follows it
step by step, with the same matrix, the same solutions in the same order and the same
``nodes`` and ``updates``. ``dlx`` runs the compiled one when the core imports (the
same switches as ``native``: ``SUDOKULAB_PURE_PYTHON=1`` forces Python), a block of
puzzles in one call without the GIL; ``dlx-py`` always runs this one. ``stats["engine"]``
says which ran. Both count every solution and keep the first :data:`KEEP` grids. The
matrix of a shape is built once and copied per puzzle, with the rows a narrowed domain
excludes unlinked. Why not a library (the ``exact-cover`` package): see
docs/guides/comparing.md, "Exact cover".
"""

from __future__ import annotations

import time
from array import array
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import native
from ..models import Grid, Model, build_model
from ..native.surface import KEEP
from . import interrupt
from .base import Backend, Request
from .result import Answers, Result, status_codes, status_of

if TYPE_CHECKING:
    from ..models.grids import Grids  # numpy: only where blocks are computed

#: Rows tried between two looks at the clock.
_CLOCK_EVERY = 1023

#: Shapes kept before the cache starts afresh.
_SHAPES = 64

#: The int64 counters the compiled ``Cover.search`` gives each puzzle, in column order.
COUNTERS = ("count", "flags", "nodes", "updates", "kept", "nanoseconds")
#: Bits of the ``flags`` counter.
COMPLETE, TIMED_OUT = 1, 2


@dataclass(frozen=True)
class Matrix:
    """The dancing-links structure of a shape: node 0 is the root, nodes 1..columns the
    column headers, then the rows' nodes. ``row_of[node]`` is its row (-1 for a header),
    ``rows[r]`` the (cell, value) row ``r`` places, ``first[r]`` its first node."""

    left: list[int]
    right: list[int]
    up: list[int]
    down: list[int]
    column: list[int]
    size: list[int]
    row_of: list[int]
    rows: list[tuple[int, int]]
    first: list[int]
    row_index: dict[tuple[int, int], int]
    primary: int  # primary columns are 1..primary, secondary ones after them
    columns: int
    values: int  # values per cell (the grid's size)
    cells: int


def matrix(cells: int, size: int, units: tuple[tuple[int, ...], ...]) -> Matrix:
    """The exact-cover matrix of a grid shape: every row, every column, linked."""
    full = [u for u in units if len(u) == size]
    partial = [u for u in units if len(u) != size]
    # columns: cells, then (full unit, value), then (partial unit, value): secondary
    col_of_cell = list(range(1, cells + 1))
    unit_col: dict[tuple[int, int], int] = {}
    next_col = cells + 1
    for group in (full, partial):
        for u in group:
            for v in range(1, size + 1):
                unit_col[id(u), v] = next_col
                next_col += 1
    primary = cells + len(full) * size
    columns = next_col - 1
    units_of: list[list[tuple[int, ...]]] = [[] for _ in range(cells)]
    for u in units:
        for c in u:
            units_of[c].append(u)
    n = columns + 1
    left, right = list(range(-1, n - 1)), list(range(1, n + 1))
    left[0], right[columns] = columns, 0
    # secondary headers are left out of the root's list: never chosen, never "uncovered"
    if primary < columns:
        right[primary] = 0
        left[0] = primary
        for c in range(primary + 1, columns + 1):
            left[c] = right[c] = c
    up, down = list(range(n)), list(range(n))
    column = list(range(n))
    size_of = [0] * n
    row_of = [-1] * n
    rows: list[tuple[int, int]] = []
    first: list[int] = []
    row_index: dict[tuple[int, int], int] = {}
    for cell in range(cells):
        for v in range(1, size + 1):
            r = len(rows)
            row_index[cell, v] = r
            rows.append((cell, v))
            cols = [col_of_cell[cell]] + [unit_col[id(u), v] for u in units_of[cell]]
            start = len(left)
            first.append(start)
            for k, col in enumerate(cols):
                node = start + k
                left.append(start + (k - 1) % len(cols))
                right.append(start + (k + 1) % len(cols))
                up.append(up[col])
                down.append(col)
                down[up[col]] = node
                up[col] = node
                column.append(col)
                row_of.append(r)
                size_of[col] += 1
    return Matrix(left, right, up, down, column, size_of, row_of, rows, first, row_index,
                  primary, columns, size, cells)  # fmt: skip


class DlxBackend(Backend):
    """Knuth's Algorithm X with dancing links on the exact-cover form of the model:
    ``engine`` ``"c"`` (the compiled core's ``Cover``) or ``"python"`` (:class:`Links`)."""

    kinds = frozenset({"alldifferent"})
    #: Why a kind is refused (``unsupported`` says it).
    refuses = {"sum": "killer cages are not exact cover (a sum is no covering condition)"}
    options: dict[str, Any] = {}
    stops_itself = True  # the clock is read every 1,024 rows tried
    requires = ""
    checks_signals = True  # Python hears Ctrl-C itself; the compiled core looks for it

    def __init__(self, name: str = "dlx", engine: str | None = None) -> None:
        self.name = name
        self.engine = engine or native.ENGINE  # "c" or "python": which implementation runs
        self.batch = self.engine == "c"  # search_grids: a block in one call
        self._shapes: dict[tuple, Any] = {}
        self._covers: dict[tuple, Any] = {}

    def available(self) -> bool:
        """Always: Python, or the compiled core when it imports."""
        return True

    def version(self) -> str:
        """This sudokulab's version and the implementation (the algorithm is written here)."""
        from .. import __version__

        return f"{__version__} ({self.engine})"

    def shape(self, model: Model) -> Matrix:
        """The matrix of the model's shape, built once."""
        key = _key(model)
        found = self._shapes.get(key)
        if found is None:
            if len(self._shapes) >= _SHAPES:
                self._shapes.clear()
            found = self._shapes[key] = matrix(key[0], key[1], key[2])
        return found

    def cover(self, model: Model) -> Any:
        """The compiled core's matrix of the model's shape (``_core.Cover``), built once."""
        key = _key(model)
        found = self._covers.get(key)
        if found is None:
            if len(self._covers) >= _SHAPES:
                self._covers.clear()
            found = self._covers[key] = native._core.Cover(key[1], key[2])
        return found

    def search(self, model: Model, request: Request) -> Result:
        """Find up to ``request.limit`` exact covers by the deadline."""
        # Ctrl-C stops a compiled search in any thread (Python hears it by itself); both
        # register it, so that the two say alike when their search is under way
        interrupt.on_interrupt(native.interrupt)
        if self.engine == "c":
            return self._search_c(model, request)
        m = self.shape(model)
        links = Links(m)
        ok = links.restrict(model.domains)

        start = time.perf_counter()
        solutions: list[Grid] = []
        exact, timed_out = True, False
        if ok:
            exact, timed_out = links.search(request.limit, request.deadline, solutions)
        stats = {
            "engine": self.engine,
            "nodes": links.nodes,
            "updates": links.updates,
            "rows": len(m.rows),
            "columns": m.columns,
            "ones": len(m.left) - m.columns - 1,
        }
        solve_time = time.perf_counter() - start
        status = status_of(links.found, exact, timed_out)
        return Result(self.name, status, tuple(solutions), links.found, exact, 0.0, solve_time,
                      stats)  # fmt: skip

    def _search_c(self, model: Model, request: Request) -> Result:
        """One puzzle in the compiled core: its domains as candidate masks."""
        cover = self.cover(model)
        full = (1 << model.size) - 1
        masks = array("I", [full if len(d) == model.size else _mask(d) for d in model.domains])
        start = time.perf_counter()
        deadline = request.deadline
        timeout = None if deadline is None else deadline - start
        grids, counters = cover.search(masks, request.limit, timeout, KEEP)
        solve_time = time.perf_counter() - start
        count, flags, nodes, updates, kept, _ = memoryview(counters).cast("q")
        cells = len(model.domains)
        solutions = tuple(tuple(grids[i * cells : (i + 1) * cells]) for i in range(kept))
        exact, timed_out = bool(flags & COMPLETE), bool(flags & TIMED_OUT)
        stats = {"engine": "c", "nodes": nodes, "updates": updates, **_size(cover)}
        status = status_of(count, exact, timed_out)
        return Result(self.name, status, solutions, count, exact, 0.0, solve_time, stats)

    def search_grids(self, grids: Grids, request: Request) -> Answers:
        """A block of puzzles: in the compiled core, one call for the whole block (each
        puzzle with the whole timeout from its own start, its solve time as the core
        measured it, its build time an even share of the block's set-up); in Python,
        one search per puzzle."""
        if self.engine != "c" or not len(grids):
            return super().search_grids(grids, request)
        import numpy as np

        start = time.perf_counter()
        cover = self.cover(build_model(grids.puzzle(0)))
        if grids.candidates is not None:  # pencil marks: the domains, as build_model reads them
            masks = grids.candidates
        else:
            givens = grids.givens.astype(np.uint32)
            full = (1 << grids.geometry.size) - 1
            masks = np.where(givens > 0, np.left_shift(1, givens - 1, dtype=np.uint32), full)
        masks = np.ascontiguousarray(masks, dtype=np.uint32)
        interrupt.on_interrupt(native.interrupt)
        build = (time.perf_counter() - start) / len(grids)
        kept_grids, raw = cover.search(masks, request.limit, request.timeout, 1)
        counters = np.frombuffer(raw, dtype=np.int64).reshape(-1, len(COUNTERS))
        count, flags, kept = counters[:, 0], counters[:, 1], counters[:, 4]
        cells = grids.geometry.cell_count
        solution = np.zeros((len(grids), cells), dtype=np.uint8)
        solution[kept > 0] = np.frombuffer(kept_grids, dtype=np.uint8).reshape(-1, cells)
        status = status_codes(count, (flags & COMPLETE) != 0, (flags & TIMED_OUT) != 0)
        size = _size(cover)
        stats = [
            {"engine": "c", "nodes": n, "updates": u, **size} for n, u in counters[:, 2:4].tolist()
        ]
        missing = np.full(len(grids), -1, dtype=np.int64)
        return Answers(
            backend=self.name,
            status=status,
            count=count.copy(),
            exact=(flags & COMPLETE) != 0,
            solution=solution,
            build_time=np.full(len(grids), build),
            solve_time=counters[:, 5] / 1e9,
            nodes=counters[:, 2].copy(),
            guesses=missing,
            backtracks=missing.copy(),
            stats=stats,
        )

    def describe(self, model: Model) -> str:
        """The exact-cover matrix this backend builds, counted off it."""
        m = self.shape(model)
        links = Links(m)
        links.restrict(model.domains)
        secondary = m.columns - m.primary
        return (
            f"{self.name}: exact cover of {len(m.rows)} rows (cell, value) by {m.columns} "
            f"columns ({len(model.domains)} cells, {m.primary - len(model.domains)} unit-values"
            + (f", {secondary} secondary" if secondary else "")
            + f"), {len(m.left) - m.columns - 1} ones; {links.given} rows chosen by the givens"
        )


def _key(model: Model) -> tuple[int, int, tuple[tuple[int, ...], ...]]:
    """What a shape's matrix depends on: cells, values, units."""
    return (len(model.domains), model.size, tuple(c.cells for c in model.constraints))


def _mask(domain: tuple[int, ...]) -> int:
    """A domain as a candidate mask (bit v-1 for value v), as the compiled core reads it."""
    mask = 0
    for v in domain:
        mask |= 1 << (v - 1)
    return mask


def _size(cover: Any) -> dict[str, int]:
    """The matrix's counts, as the stats give them."""
    return {"rows": cover.rows, "columns": cover.columns, "ones": cover.ones}


def backends() -> list[DlxBackend]:
    """``dlx`` (the compiled core when it imports, else Python) and ``dlx-py`` (always
    Python, the readable one)."""
    return [DlxBackend("dlx"), DlxBackend("dlx-py", "python")]


class Links:
    """One puzzle's working copy of a shape's links, and Algorithm X over it."""

    def __init__(self, m: Matrix) -> None:
        self.m = m
        self.left, self.right = m.left[:], m.right[:]
        self.up, self.down = m.up[:], m.down[:]
        self.size = m.size[:]
        self.column = m.column  # never changes
        self.nodes = self.updates = self.given = 0
        self.found = 0  # solutions counted by search (the first KEEP kept)
        self.chosen: list[int] = []  # the givens' rows

    def cover(self, c: int) -> None:
        """Unlink column ``c`` and every row that meets it."""
        left, right, up, down, column, size = (
            self.left, self.right, self.up, self.down, self.column, self.size
        )  # fmt: skip
        right[left[c]] = right[c]
        left[right[c]] = left[c]
        updates = 1
        i = down[c]
        while i != c:
            j = right[i]
            while j != i:
                down[up[j]] = down[j]
                up[down[j]] = up[j]
                size[column[j]] -= 1
                updates += 1
                j = right[j]
            i = down[i]
        self.updates += updates

    def uncover(self, c: int) -> None:
        """Relink what ``cover(c)`` unlinked, in reverse order."""
        left, right, up, down, column, size = (
            self.left, self.right, self.up, self.down, self.column, self.size
        )  # fmt: skip
        i = up[c]
        while i != c:
            j = left[i]
            while j != i:
                size[column[j]] += 1
                down[up[j]] = j
                up[down[j]] = j
                j = left[j]
            i = up[i]
        right[left[c]] = c
        left[right[c]] = c

    def restrict(self, domains: tuple[tuple[int, ...], ...]) -> bool:
        """Unlink the rows a narrowed domain excludes, then choose the givens' rows;
        False when two givens need the same column (they clash)."""
        m = self.m
        up, down, right, column, size = self.up, self.down, self.right, self.column, self.size
        givens = []
        for cell, domain in enumerate(domains):
            if len(domain) == m.values:
                continue
            if len(domain) == 1:
                givens.append((cell, domain[0]))
                continue
            for v in range(1, m.values + 1):
                if v in domain:
                    continue
                node = j = m.first[m.row_index[cell, v]]
                while True:  # unlink the row from each of its columns
                    down[up[j]] = down[j]
                    up[down[j]] = up[j]
                    size[column[j]] -= 1
                    j = right[j]
                    if j == node:
                        break
        covered: set[int] = set()
        for cell, v in givens:
            node = m.first[m.row_index[cell, v]]
            cols = [column[node]]
            j = right[node]
            while j != node:
                cols.append(column[j])
                j = right[j]
            if covered.intersection(cols):
                return False  # two givens in one column: a value twice in a unit
            covered.update(cols)
            for col in cols:
                self.cover(col)
            self.chosen.append(m.row_index[cell, v])
        self.given = len(self.chosen)
        return True

    def search(
        self, limit: int | None, deadline: float | None, out: list[Grid], keep: int = KEEP
    ) -> tuple[bool, bool]:
        """Algorithm X from the current links, counting solutions in ``found`` and
        appending the first ``keep`` grids to ``out``: (exact, timed out). Iterative:
        ``levels`` holds each covered column with the row node tried there."""
        m = self.m
        left, right, down, column, size = self.left, self.right, self.down, self.column, self.size
        row_of, rows = m.row_of, m.rows
        base = [0] * m.cells
        for r in self.chosen:
            cell, v = rows[r]
            base[cell] = v
        cover, uncover = self.cover, self.uncover
        clock = time.perf_counter
        levels: list[list[int]] = []  # [column, row node]
        found = nodes = 0
        descend = True
        while True:
            if descend:
                if right[0] == 0:  # every primary column covered: a solution
                    found += 1
                    self.found = found
                    if found <= keep:
                        grid = base[:]
                        for _, node in levels:
                            cell, v = rows[row_of[node]]
                            grid[cell] = v
                        out.append(tuple(grid))
                    if limit is not None and found >= limit:
                        self.nodes = nodes
                        return False, False
                else:
                    best, fewest = 0, -1
                    c = right[0]
                    while c:  # the primary column with the fewest rows, first on ties
                        if fewest < 0 or size[c] < fewest:
                            best, fewest = c, size[c]
                            if not fewest:
                                break
                        c = right[c]
                    if fewest:
                        cover(best)
                        node = down[best]
                        levels.append([best, node])
                        nodes += 1
                        j = right[node]
                        while j != node:
                            cover(column[j])
                            j = right[j]
                        if not nodes & _CLOCK_EVERY and deadline is not None and clock() > deadline:
                            self.nodes = nodes
                            return False, True
                        continue
            # back: undo the last row tried, then take the next row of its column
            if not levels:
                self.nodes = nodes
                return True, False
            level = levels[-1]
            c, node = level
            j = left[node]
            while j != node:
                uncover(column[j])
                j = left[j]
            node = down[node]
            if node == c:  # every row of the column tried
                uncover(c)
                levels.pop()
                descend = False
                continue
            level[1] = node
            nodes += 1
            j = right[node]
            while j != node:
                cover(column[j])
                j = right[j]
            if not nodes & _CLOCK_EVERY and deadline is not None and clock() > deadline:
                self.nodes = nodes
                return False, True
            descend = True
