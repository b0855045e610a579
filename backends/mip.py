"""Integer programming as a backend: the model's 0-1 program (:mod:`sudokulab.encodings.linear`,
the program highs, gurobi and the LP, MPS and OPB exports take) on the MIP solvers that
OR-Tools bundles (SCIP, HiGHS, CBC), through its ``pywraplp`` wrapper.

The program, as the operations-research classroom writes it: a binary x(cell, value) for
each cell and value its domain allows (a given's cell has one, fixed to 1); each cell
takes one value (the sum of its x is 1); each unit takes each value once (the sum over
its cells of x(cell, value) is 1; at most 1 in a unit of fewer cells); a killer cage's
values differ and the sum of value times x(cell, value) over its cells is its total. The
variant rules come as the primitives they decompose into: linear rows over ``v * x(cell,
v)`` (thermometers, arrows, XV pairs, little killers), support rows for the pair tables
(kropki dots, whispers, nonconsecutive), a parity's other values' columns left out,
and a sandwich's sums as rows relaxed by big-M unless its crusts hold.

There is no objective: any feasible point is a solution. Solutions are counted with
no-good cuts (a found grid is cut off: the sum of its x(cell, value) over the open cells
is at most their number less one) and the solver is asked again, up to the limit
(:func:`~sudokulab.backends.base.count_by_blocking`). The deadline is the solver's own
time limit, set before each solve to the time left, for the solvers that keep it
(:data:`SOLVERS`); CBC does not, so it runs without one, in a process killed at the
deadline (``stops_itself_with``).

``stats`` holds the branch-and-bound ``nodes`` and simplex ``iterations`` (summed over
the solves of a count), the program's ``variables`` and ``constraints``, and with the
option ``root_lp`` whether the root LP relaxation (the same rows, x between 0 and 1,
solved by GLOP) is already integral: a fact worth showing a class, since most Sudoku
puzzles' relaxations are, and the hard ones are not always. It costs a second LP
solve, so it is asked for, not done by default.

OR-Tools is imported only when a model is solved.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..encodings import Distinct, Implies, Linear, Table, accepted_kinds
from ..encodings.linear import Row, program
from ..models import Grid, Model
from . import interrupt
from .base import Backend, Request, Unanswered, check_deadline, count_by_blocking
from .result import Result, Status


class MipSolver(NamedTuple):
    """A MIP solver as ``pywraplp`` names it, and what it can be trusted with:
    ``time_limit``, whether it keeps its time limit and says "infeasible" under it only
    when it proved it (then it stops itself at the deadline; else it gets no time limit
    and is killed at the deadline); ``in_process``, whether it may run in the caller's
    process (else every request is isolated); ``in_process_cells``, the most cells of a
    grid it runs on there (None: any; beyond, in a worker: see the backend's)."""

    pywraplp: str
    time_limit: bool
    in_process: bool
    in_process_cells: int | None = None


#: The MIP solvers offered, default first: SCIP, the fastest to a proven-unique solution
#: here with CBC close, and the one OR-Tools documents first (docs/results.md, "Why
#: these defaults"). CBC overruns its time limit by seconds on large grids and, stopped
#: by it, may answer "infeasible" without a proof (python-mip issue 17, or-tools issue
#: 2480), so it gets no time limit; and it puts its own Ctrl-C handler in place while it
#: solves (Ctrl-C would end its solve, not reach the caller), so it runs in a worker
#: process, killed at the deadline or on Ctrl-C.
#: HiGHS's presolve of a 25x25 program looks neither at its time limit nor for an
#: interrupt (1 s asked, under two CPU burners: 4.5 s), as through highspy
#: (:mod:`.highs_backend`): beyond 16x16, HiGHS runs in a worker.
SOLVERS: dict[str, MipSolver] = {
    "scip": MipSolver("SCIP", True, True),
    "cbc": MipSolver("CBC", False, False),
    "highs": MipSolver("HIGHS", True, True, 256),
}


#: The default solver (the first of :data:`SOLVERS`).
DEFAULT = next(iter(SOLVERS))
#: Solver-specific parameters: no banner from HiGHS; Ctrl-C left to the caller by SCIP
#: (which would otherwise catch it, print a line on standard output and stop as if
#: timed out).
_PARAMETERS = {"highs": "output_flag=false", "scip": "misc/catchctrlc = FALSE"}


class MipBackend(Backend):
    """A 0-1 integer program on a MIP solver; options ``solver`` and ``root_lp``."""

    name = "mip"
    kinds = accepted_kinds((Distinct, Linear, Table, Implies))
    options = {"solver": tuple(SOLVERS), "root_lp": bool}
    stops_itself = True  # the solver's time limit, set to the time left before each solve
    requires = "ortools"

    def available(self) -> bool:
        """True when OR-Tools is installed (found, not imported)."""
        return importlib.util.find_spec("ortools") is not None

    def version(self) -> str:
        """The installed OR-Tools version (its SCIP, CBC and HiGHS come with it)."""
        import importlib.metadata

        return importlib.metadata.version("ortools")

    def stops_itself_with(self, options: Mapping[str, Any]) -> bool:
        """Whether the chosen solver keeps its time limit (:data:`SOLVERS`)."""
        return SOLVERS[options.get("solver", DEFAULT)].time_limit

    def in_process_with(self, options: Mapping[str, Any]) -> bool:
        """Whether the chosen solver may run in the caller's process (:data:`SOLVERS`)."""
        return SOLVERS[options.get("solver", DEFAULT)].in_process

    def in_process_cells_with(self, options: Mapping[str, Any]) -> int | None:
        """The most cells of a grid the chosen solver runs on in the caller's process
        (:data:`SOLVERS`; see ``in_process_cells``)."""
        return SOLVERS[options.get("solver", DEFAULT)].in_process_cells

    def search(self, model: Model, request: Request) -> Result:
        """Find up to ``request.limit`` solutions, one MIP solve each, by the deadline."""
        options = request.options
        name = options.get("solver", DEFAULT)
        built = build(model, name, deadline=request.deadline)
        if built is None:
            return Result(self.name, Status.ERROR, message=f"mip: OR-Tools has no {name} here")
        solver, x, prog = built
        stats: dict[str, Any] = {
            "solver": name,
            "variables": solver.NumVariables(),
            "constraints": solver.NumConstraints(),
            "nodes": 0,
            "iterations": 0,
        }
        if options.get("root_lp"):
            stats["root_lp_integral"] = root_lp_integral(model)
        open_cells = [c for c, domain in enumerate(model.domains) if len(domain) > 1]
        cells = len(model.domains)
        limited = SOLVERS[name].time_limit
        interrupt.on_interrupt(solver.InterruptSolve)  # SCIP stops; CBC, HiGHS cannot
        start = time.perf_counter()

        def ask(left: float | None) -> Grid | None | Unanswered:
            if left is not None and limited:
                solver.SetTimeLimit(max(1, int(left * 1000)))
            status = solver.Solve()
            stats["nodes"] += solver.nodes()
            stats["iterations"] += solver.iterations()
            if status == solver.INFEASIBLE:
                return None
            if status not in (solver.OPTIMAL, solver.FEASIBLE):
                # NOT_SOLVED, or for HiGHS a status pywraplp does not name (99)
                return Unanswered(f"mip: {name} ended with status {status}")
            return prog.grid((var.solution_value() for var in x), cells)

        def block(grid: Grid) -> None:
            _add(solver, x, prog.cut(grid, open_cells))

        found = count_by_blocking(request, ask, block, closed=not open_cells)
        solve_time = time.perf_counter() - start
        return Result.counted(
            self.name, found.solutions, found.exact, found.timed_out, 0.0, solve_time, stats,
            found.message,
        )  # fmt: skip

    def describe(self, model: Model) -> str:
        """The program this backend builds (with its default solver), counted off it."""
        return (
            f"mip: {program(model).summary('linear constraints')}; solver {DEFAULT}, no objective"
        )


def build(model: Model, name: str = DEFAULT, integer: bool = True, deadline: float | None = None):
    """The program of ``model`` on solver ``name`` (GLOP with ``integer`` false: the LP
    relaxation), one variable per column of the program, and the program; None when this
    OR-Tools lacks the solver. :class:`.base.Late` once ``deadline`` has passed, between
    two constraints."""
    from ortools.linear_solver import pywraplp

    prog = program(model, lambda: check_deadline(deadline))
    solver = pywraplp.Solver.CreateSolver(SOLVERS[name].pywraplp if integer else "GLOP")
    if solver is None:
        return None
    solver.SuppressOutput()
    if integer and name in _PARAMETERS:
        solver.SetSolverSpecificParametersAsString(_PARAMETERS[name])
    new_var = solver.IntVar if integer else solver.NumVar
    fixed = set(prog.fixed)
    x = [new_var(1 if i in fixed else 0, 1, "") for i in range(len(prog.columns))]
    for row in prog.rows:
        _add(solver, x, row)
    return solver, x, prog


def _add(solver: Any, x: list[Any], row: Row) -> None:
    """Add one row of the program (an infinite bound is the solver's infinity)."""
    inf = solver.infinity()
    constraint = solver.Constraint(max(row.lower, -inf), min(row.upper, inf))
    for column, coef in zip(row.columns, row.coefs, strict=True):
        constraint.SetCoefficient(x[column], coef)


def root_lp_integral(model: Model) -> bool:
    """Whether the LP relaxation of the program (x between 0 and 1) has an integral
    optimum at the root, as GLOP finds it: every x(cell, value) within 1e-6 of 0 or 1."""
    solver, x, prog = build(model, integer=False)
    if solver.Solve() != solver.OPTIMAL:
        return False
    return all(
        min(var.solution_value(), 1 - var.solution_value()) < 1e-6
        for var, pair in zip(x, prog.columns, strict=True)
        if pair is not None
    )
