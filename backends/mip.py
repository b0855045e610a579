"""Integer programming as a backend: the model as a 0-1 program, on the MIP solvers that
OR-Tools bundles (SCIP, HiGHS, CBC), through its ``pywraplp`` wrapper.

The program, as the operations-research classroom writes it:

- a binary variable x(cell, value) for each cell and each value its domain allows (a
  given's cell has one, fixed to 1);
- each cell takes one value: the sum of its x is 1;
- each ``AllDifferent`` takes each value once: the sum over its cells of x(cell, value)
  is 1 when the unit has as many cells as there are values, at most 1 otherwise (some
  variants' extra units);
- a killer cage: its values differ (at most one x(cell, value) per value), and the sum
  of value times x(cell, value) over its cells equals its total.

There is no objective: any feasible point is a solution. Solutions are counted with
no-good cuts (a found grid is cut off: the sum of its x(cell, value) over the open cells
is at most their number less one) and the solver is asked again, up to the limit. The
deadline is the solver's own time limit, set before each solve to the time left.

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
from typing import Any

from ..models import Grid, Model
from .base import Backend, check_options, check_request
from .result import Result, Status

#: The MIP solvers offered (``pywraplp`` names in :data:`_NAMES`), default first: SCIP
#: was measured fastest to a proven-unique solution here, with CBC close (first 20 of
#: top95, uniqueness check: SCIP 42 ms, CBC 38 ms, HiGHS 61 ms a puzzle, building
#: included), and SCIP is the one OR-Tools documents first.
SOLVERS = ("scip", "cbc", "highs")
_NAMES = {"scip": "SCIP", "cbc": "CBC", "highs": "HIGHS"}
#: Seconds before the deadline within which a solve without an answer counts as stopped
#: by its time limit (the limit is set in whole milliseconds).
_SLACK = 0.05


class MipBackend(Backend):
    """A 0-1 integer program on a MIP solver; options ``solver`` and ``root_lp``."""

    name = "mip"
    kinds = frozenset({"alldifferent", "sum"})
    options = {"solver": SOLVERS, "root_lp": bool}
    stops_itself = True  # the solver's time limit, set to the time left before each solve
    requires = "ortools"

    def available(self) -> bool:
        """True when OR-Tools is installed (found, not imported)."""
        return importlib.util.find_spec("ortools") is not None

    def version(self) -> str:
        """The installed OR-Tools version (its SCIP, CBC and HiGHS come with it)."""
        import importlib.metadata

        return importlib.metadata.version("ortools")

    def solve(
        self, model: Model, limit: int | None = 1, timeout: float | None = None, **options: Any
    ) -> Result:
        """Find up to ``limit`` solutions, one MIP solve each, within ``timeout`` seconds."""
        options = check_options(self, options)
        check_request(self, model, limit)
        name = options.get("solver", SOLVERS[0])
        start = time.perf_counter()
        deadline = None if timeout is None else start + timeout
        program = build(model, name)
        if program is None:
            return Result(self.name, Status.ERROR, message=f"mip: OR-Tools has no {name} here")
        solver, x, _ = program
        build_time = time.perf_counter() - start

        start = time.perf_counter()
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
        solutions: list[Grid] = []
        exact = timed_out = False
        message = ""
        while limit is None or len(solutions) < limit:
            if deadline is not None:
                left = deadline - time.perf_counter()
                if left <= 0:
                    timed_out = True
                    break
                solver.SetTimeLimit(max(1, int(left * 1000)))
            status = solver.Solve()
            stats["nodes"] += solver.nodes()
            stats["iterations"] += solver.iterations()
            if status == solver.INFEASIBLE:
                exact = True
                break
            if status not in (solver.OPTIMAL, solver.FEASIBLE):
                # Stopped by the time limit before an answer: NOT_SOLVED, or for HiGHS a
                # status pywraplp does not name (99), with the time left spent.
                if deadline is not None and time.perf_counter() >= deadline - _SLACK:
                    timed_out = True
                else:
                    message = f"mip: {name} ended with status {status}"
                break
            grid = tuple(
                next(v for v, var in values.items() if var.solution_value() > 0.5) for values in x
            )
            solutions.append(grid)
            if not open_cells:  # every cell given: the one solution there is
                exact = True
                break
            cut = solver.Constraint(-solver.infinity(), len(open_cells) - 1)
            for c in open_cells:
                cut.SetCoefficient(x[c][grid[c]], 1)
        solve_time = time.perf_counter() - start
        return Result.counted(
            self.name, solutions, exact, timed_out, build_time, solve_time, stats, message
        )

    def describe(self, model: Model) -> str:
        """The program this backend builds (with its default solver), counted off it."""
        solver, x, rows = build(model, SOLVERS[0])
        fixed = sum(1 for values in x for var in values.values() if var.lb() == 1)
        parts = ", ".join(f"{count} {what}" for what, count in rows.items() if count)
        return (
            f"mip: {solver.NumVariables()} binary x(cell, value) ({fixed} fixed to 1 by a "
            f"given), {solver.NumConstraints()} linear constraints ({parts}); solver "
            f"{SOLVERS[0]}, no objective"
        )


def build(model: Model, name: str = SOLVERS[0], integer: bool = True):
    """The program of ``model`` on solver ``name`` (GLOP with ``integer`` false: the LP
    relaxation), its variables as one ``{value: var}`` per cell, and its rows counted by
    kind; None when this OR-Tools lacks the solver."""
    from ortools.linear_solver import pywraplp

    solver = pywraplp.Solver.CreateSolver(_NAMES[name] if integer else "GLOP")
    if solver is None:
        return None
    solver.SuppressOutput()
    if integer and name == "highs":
        solver.SetSolverSpecificParametersAsString("output_flag=false")  # its banner
    new_var = solver.IntVar if integer else solver.NumVar
    x: list[dict[int, Any]] = []
    for domain in model.domains:
        lower = 1 if len(domain) == 1 else 0
        x.append({v: new_var(lower, 1, "") for v in domain})
    for values in x:
        row = solver.Constraint(1, 1)
        for var in values.values():
            row.SetCoefficient(var, 1)
    rows = {"one value per cell": len(x), "each value once per unit": 0, "cage": 0}
    size = model.size
    for constraint in model.constraints:
        cells = constraint.cells
        whole = len(cells) == size and constraint.kind == "alldifferent"
        for v in range(1, size + 1):
            held = [x[c][v] for c in cells if v in x[c]]
            if not held:
                continue
            row = solver.Constraint(1 if whole else 0, 1)
            for var in held:
                row.SetCoefficient(var, 1)
            rows["cage" if constraint.kind == "sum" else "each value once per unit"] += 1
        if constraint.kind == "sum":
            row = solver.Constraint(constraint.total, constraint.total)
            for c in cells:
                for v, var in x[c].items():
                    row.SetCoefficient(var, v)
            rows["cage"] += 1
    return solver, x, rows


def root_lp_integral(model: Model) -> bool:
    """Whether the LP relaxation of the program (x between 0 and 1) has an integral
    optimum at the root, as GLOP finds it: every x within 1e-6 of 0 or 1."""
    solver, x, _ = build(model, integer=False)
    if solver.Solve() != solver.OPTIMAL:
        return False
    return all(
        min(var.solution_value(), 1 - var.solution_value()) < 1e-6
        for values in x
        for var in values.values()
    )
