"""HiGHS through highspy, its own Python interface, as a backend: the MIP backend's 0-1
program (:mod:`.mip`, the program the MPS export writes) handed to HiGHS directly, not
through OR-Tools.

The program (:func:`program`): a binary x(cell, value) for each value a cell's domain
allows (a given's one fixed to 1), one row per cell (its x add up to 1), one row per unit
and value (1 in a whole unit, at most 1 in a smaller one), and for a killer cage its
values' rows and its total. There is no objective. Solutions are counted with no-good
cuts (:func:`~sudokulab.backends.base.count_by_blocking`): a found grid is cut off over
the open cells and HiGHS is asked again, up to the limit. The deadline is HiGHS's own
``time_limit`` option, set to the time left before each solve; a solve it stops is a
timeout (HiGHS says ``kTimeLimit``, never "infeasible", when its clock ran out).

Ctrl-C is passed to HiGHS's ``cancelSolve`` (user interrupts handled). HiGHS's presolve
of a 25x25 program looks at neither: it took from 0.8 to 14 s with a 0.5 s time limit
(docs/results.md, "The deadlines"), so a grid larger than 16x16 is solved in a worker
process, killed :data:`.isolation.GRACE` after the deadline or on Ctrl-C
(``in_process_cells``). ``stats`` holds the branch-and-bound ``nodes`` and simplex
``iterations`` summed over the solves of a count, and the program's ``variables`` and
``constraints``.

highspy is imported only when a model is solved.
"""

from __future__ import annotations

import importlib.util
import os
import threading
import time
from typing import Any, NamedTuple

from ..models import Grid, Model
from . import interrupt
from .base import Backend, Request, Unanswered, check_deadline, count_by_blocking
from .result import Result


class Row(NamedTuple):
    """One linear row of the program: ``lower <= sum(coefs * x[columns]) <= upper``."""

    lower: float
    upper: float
    columns: tuple[int, ...]
    coefs: tuple[float, ...]


class Program(NamedTuple):
    """The 0-1 program of a model: each column's (cell, value), the columns fixed to 1
    (a given's), the rows, and how many rows each kind of constraint gave."""

    columns: list[tuple[int, int]]
    fixed: list[int]
    rows: list[Row]
    kinds: dict[str, int]

    def grid(self, values: Any, cells: int) -> Grid:
        """The grid a solution's column values spell (a column above 0.5 is set)."""
        grid = [0] * cells
        for (cell, value), x in zip(self.columns, values, strict=True):
            if x > 0.5:
                grid[cell] = value
        return tuple(grid)

    def cut(self, grid: Grid, open_cells: list[int]) -> Row:
        """The no-good row that forbids ``grid``: at most all but one of its open cells'
        x(cell, value) set."""
        index = {pair: i for i, pair in enumerate(self.columns)}
        columns = tuple(index[(c, grid[c])] for c in open_cells)
        return Row(-float("inf"), len(open_cells) - 1, columns, (1.0,) * len(columns))


def program(model: Model, deadline: float | None = None) -> Program:
    """The MIP backend's 0-1 program of ``model`` (alldifferent and sum constraints), as
    plain rows any MIP solver takes; :class:`.base.Late` once ``deadline`` has passed."""
    columns: list[tuple[int, int]] = []
    x: list[dict[int, int]] = []
    for cell, domain in enumerate(model.domains):
        x.append({})
        for value in domain:
            x[cell][value] = len(columns)
            columns.append((cell, value))
    fixed = [x[c][d[0]] for c, d in enumerate(model.domains) if len(d) == 1]
    rows = [Row(1, 1, tuple(values.values()), (1.0,) * len(values)) for values in x]
    kinds = {"one value per cell": len(rows), "each value once per unit": 0, "cage": 0}
    size = model.size
    for constraint in model.constraints:
        check_deadline(deadline)
        cells = constraint.cells
        whole = len(cells) == size and constraint.kind == "alldifferent"
        kind = "cage" if constraint.kind == "sum" else "each value once per unit"
        for v in range(1, size + 1):
            held = tuple(x[c][v] for c in cells if v in x[c])
            if held:
                rows.append(Row(1 if whole else 0, 1, held, (1.0,) * len(held)))
                kinds[kind] += 1
        if constraint.kind == "sum":
            pairs = [(i, float(v)) for c in cells for v, i in x[c].items()]
            total = constraint.total
            rows.append(Row(total, total, *map(tuple, zip(*pairs, strict=True))))
            kinds["cage"] += 1
    return Program(columns, fixed, rows, kinds)


_BANNER = threading.Lock()
_QUIET: list[bool] = []


def quiet_highs() -> Any:
    """A silent ``Highs``: the first one made in a process prints HiGHS's banner on
    standard output before any option can stop it, so that one is made with standard
    output sent to /dev/null (the answer of ``solve --format json`` must stay clean)."""
    import highspy

    with _BANNER:
        if not _QUIET:
            sink = os.open(os.devnull, os.O_WRONLY)
            saved = os.dup(1)
            try:
                os.dup2(sink, 1)
                highs = highspy.Highs()
            finally:
                os.dup2(saved, 1)
                os.close(saved)
                os.close(sink)
            _QUIET.append(True)
        else:
            highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    return highs


def _add_rows(highs: Any, rows: list[Row]) -> None:
    """Add ``rows`` to ``highs`` in one call (compressed sparse rows)."""
    import numpy as np

    starts = np.cumsum([0] + [len(r.columns) for r in rows[:-1]], dtype=np.int32)
    indices = np.fromiter((i for r in rows for i in r.columns), dtype=np.int32)
    values = np.fromiter((a for r in rows for a in r.coefs), dtype=np.float64)
    lower = np.array([r.lower for r in rows], dtype=np.float64)
    upper = np.array([r.upper for r in rows], dtype=np.float64)
    highs.addRows(len(rows), lower, upper, len(indices), starts, indices, values)


class HighsBackend(Backend):
    """HiGHS (highspy) on the 0-1 program of the model; no options."""

    name = "highs"
    kinds = frozenset({"alldifferent", "sum"})
    options: dict = {}
    stops_itself = True  # HiGHS's time_limit, set to the time left before each solve
    requires = "highspy"
    in_process_cells = 256  # beyond 16x16, its presolve keeps neither deadline nor Ctrl-C

    def available(self) -> bool:
        """True when highspy is installed (found, not imported)."""
        return importlib.util.find_spec("highspy") is not None

    def version(self) -> str:
        """The installed highspy version (HiGHS's own)."""
        import importlib.metadata

        return importlib.metadata.version("highspy")

    def build(self, model: Model, deadline: float | None = None) -> tuple[Any, Program]:
        """A ``Highs`` holding the program of ``model``, and the program
        (:class:`.base.Late` once ``deadline`` has passed)."""
        import highspy
        import numpy as np

        prog = program(model, deadline)
        highs = quiet_highs()
        count = len(prog.columns)
        lower = np.zeros(count)
        lower[prog.fixed] = 1.0
        highs.addVars(count, lower, np.ones(count))
        integer = np.array([highspy.HighsVarType.kInteger] * count)
        highs.changeColsIntegrality(count, np.arange(count, dtype=np.int32), integer)
        _add_rows(highs, prog.rows)
        return highs, prog

    def search(self, model: Model, request: Request) -> Result:
        """Find up to ``request.limit`` solutions, one HiGHS solve each, by the deadline."""
        import highspy

        highs, prog = self.build(model, request.deadline)
        cells = len(model.domains)
        stats: dict[str, Any] = {
            "variables": len(prog.columns),
            "constraints": len(prog.rows),
            "nodes": 0,
            "iterations": 0,
        }
        open_cells = [c for c, domain in enumerate(model.domains) if len(domain) > 1]
        status = highspy.HighsModelStatus
        # Ctrl-C: HiGHS stops where it next looks for a user interrupt (between solves,
        # count_by_blocking looks too)
        highs.HandleUserInterrupt = True
        interrupt.on_interrupt(highs.cancelSolve)
        start = time.perf_counter()

        def ask(left: float | None) -> Grid | None | Unanswered:
            if left is not None:
                highs.setOptionValue("time_limit", max(left, 1e-3))
            highs.run()
            info = highs.getInfo()
            stats["nodes"] += max(info.mip_node_count, 0)
            stats["iterations"] += max(info.simplex_iteration_count, 0)
            answer = highs.getModelStatus()
            if answer == status.kInfeasible:
                return None
            if answer != status.kOptimal:
                return Unanswered(f"highs: {highs.modelStatusToString(answer)}")
            return prog.grid(highs.getSolution().col_value, cells)

        def block(grid: Grid) -> None:
            _add_rows(highs, [prog.cut(grid, open_cells)])

        found = count_by_blocking(request, ask, block, closed=not open_cells)
        solve_time = time.perf_counter() - start
        return Result.counted(
            self.name, found.solutions, found.exact, found.timed_out, 0.0, solve_time, stats,
            found.message,
        )  # fmt: skip

    def describe(self, model: Model) -> str:
        """The program handed to HiGHS, counted off it."""
        prog = program(model)
        parts = ", ".join(f"{count} {what}" for what, count in prog.kinds.items() if count)
        return (
            f"highs: {len(prog.columns)} binary x(cell, value) ({len(prog.fixed)} fixed to 1 "
            f"by a given), {len(prog.rows)} linear rows ({parts}); no objective"
        )
