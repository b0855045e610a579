"""HiGHS through highspy, its own Python interface, as a backend: the model's 0-1 program
(:mod:`sudokulab.encodings.linear`, the program of ``mip`` and of the MPS export) handed
to HiGHS directly, not through OR-Tools.

There is no objective. Solutions are counted with no-good cuts
(:func:`~sudokulab.backends.base.count_by_blocking`): a found grid is cut off over the
open cells and HiGHS is asked again, up to the limit. The deadline is HiGHS's own
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
from typing import Any

from ..encodings import Distinct, Implies, Linear, Table, accepted_kinds
from ..encodings.linear import Program, Row, program
from ..models import Grid, Model
from . import interrupt
from .base import Backend, Request, Unanswered, check_deadline, count_by_blocking
from .result import Result

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
    kinds = accepted_kinds((Distinct, Linear, Table, Implies))
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

        prog = program(model, lambda: check_deadline(deadline))
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
        return f"highs: {program(model).summary()}; no objective"
