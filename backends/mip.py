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

The variant rules (:func:`add_rule`), in the linearisations the textbooks use: a
thermometer step as ``sum(v * x(a, v)) + 1 <= sum(v * x(b, v))`` (the slow one without
the 1), an XV pair, an arrow, a region-sum line and a little killer as linear rows over
``v * x(cell, v)``, anti-knight and anti-king as ``x(a, v) + x(b, v) <= 1``, the other
pair relations (kropki dots, whispers, nonconsecutive) as support rows, ``x(a, u) <=``
the sum of the ``x(b, v)`` that keep the rule with u (each at least as tight as the
forbidden pairs' ``x(a, u) + x(b, w) <= 1``), parity as the other parity's x fixed to 0,
renban as one selected window of consecutive values holding each value at most once,
and a sandwich as the same sum over ``y(k, v) = x(k, v)`` and "k lies between the
crusts", linearised, the crusts counted along the line.

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

from ..models import Grid, Model
from ..models.rules import KINDS, PAIRS
from . import interrupt
from .base import Backend, Request, Unanswered, check_deadline, count_by_blocking
from .cpsat import pair_table
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
    kinds = frozenset({"alldifferent", "sum"} | set(KINDS))
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
        program = build(model, name, deadline=request.deadline)
        if program is None:
            return Result(self.name, Status.ERROR, message=f"mip: OR-Tools has no {name} here")
        solver, x, _ = program
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
            return tuple(
                next(v for v, var in values.items() if var.solution_value() > 0.5) for values in x
            )

        def block(grid: Grid) -> None:
            cut = solver.Constraint(-solver.infinity(), len(open_cells) - 1)
            for c in open_cells:
                cut.SetCoefficient(x[c][grid[c]], 1)

        found = count_by_blocking(request, ask, block, closed=not open_cells)
        solve_time = time.perf_counter() - start
        return Result.counted(
            self.name, found.solutions, found.exact, found.timed_out, 0.0, solve_time, stats,
            found.message,
        )  # fmt: skip

    def describe(self, model: Model) -> str:
        """The program this backend builds (with its default solver), counted off it."""
        solver, x, rows = build(model, DEFAULT)
        fixed = sum(1 for values in x for var in values.values() if var.lb() == 1)
        parts = ", ".join(f"{count} {what}" for what, count in rows.items() if count)
        return (
            f"mip: {solver.NumVariables()} binary x(cell, value) ({fixed} fixed to 1 by a "
            f"given), {solver.NumConstraints()} linear constraints ({parts}); solver "
            f"{DEFAULT}, no objective"
        )


def build(
    model: Model,
    name: str = DEFAULT,
    integer: bool = True,
    spans: list | None = None,
    deadline: float | None = None,
):
    """The program of ``model`` on solver ``name`` (GLOP with ``integer`` false: the LP
    relaxation), its variables as one ``{value: var}`` per cell, and its rows counted by
    kind; None when this OR-Tools lacks the solver. ``spans``, when given, gets each
    variant rule with the number of rows it added (they come last, in the rules' order).
    :class:`.base.Late` once ``deadline`` has passed, between two constraints."""
    from ortools.linear_solver import pywraplp

    solver = pywraplp.Solver.CreateSolver(SOLVERS[name].pywraplp if integer else "GLOP")
    if solver is None:
        return None
    solver.SuppressOutput()
    if integer and name in _PARAMETERS:
        solver.SetSolverSpecificParametersAsString(_PARAMETERS[name])
    new_var = solver.IntVar if integer else solver.NumVar
    x: list[dict[int, Any]] = []
    for domain in model.domains:
        lower = 1 if len(domain) == 1 else 0
        x.append({v: new_var(lower, 1, "") for v in domain})
    check_deadline(deadline)
    for values in x:
        row = solver.Constraint(1, 1)
        for var in values.values():
            row.SetCoefficient(var, 1)
    rows = {"one value per cell": len(x), "each value once per unit": 0, "cage": 0}
    rows["variant rules"] = 0
    size = model.size
    for constraint in model.constraints:
        check_deadline(deadline)
        if constraint.kind not in ("alldifferent", "sum"):
            added = add_rule(solver, x, constraint, size, new_var)
            rows["variant rules"] += added
            if spans is not None:
                spans.append((constraint, added))
            continue
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


def add_rule(solver: Any, x: list[dict[int, Any]], rule: Any, size: int, new_var: Any) -> int:
    """Add one variant rule (:mod:`sudokulab.models.rules`) over the x(cell, value) of
    ``x`` (``new_var`` makes its own 0-1 variables); the number of rows it added."""
    kind, values = rule.kind, range(1, size + 1)
    before = solver.NumConstraints()

    def weighted(cells: Any, scale: int = 1) -> list[tuple[Any, int]]:
        return [(var, scale * v) for c in cells for v, var in x[c].items()]

    if kind in ("less", "lessequal", "pairsum"):
        a, b = weighted([rule.a]), weighted([rule.b], -1 if kind != "pairsum" else 1)
        if kind == "pairsum":
            _row(solver, a + b, rule.total, rule.total)
        else:  # value(a) - value(b) <= -1 (less) or 0
            _row(solver, a + b, -solver.infinity(), -1 if kind == "less" else 0)
    elif kind == "notequal":
        for v in values:
            held = [(x[c][v], 1) for c in rule.cells if v in x[c]]
            if len(held) == 2:
                _row(solver, held, -solver.infinity(), 1)
    elif kind in PAIRS:
        allowed = set(pair_table(rule, size))
        for u in values:
            for mine, other, keeps in (
                (rule.a, rule.b, lambda w, u=u: (u, w) in allowed),
                (rule.b, rule.a, lambda w, u=u: (w, u) in allowed),
            ):
                if u in x[mine]:
                    support = [(var, -1) for w, var in x[other].items() if keeps(w)]
                    if len(support) < len(x[other]):  # else the row says nothing
                        _row(solver, [(x[mine][u], 1), *support], -solver.infinity(), 0)
    elif kind == "parity":
        for v, var in x[rule.cell].items():
            if v % 2 != (rule.parity == "odd"):
                var.SetUb(0)
    elif kind == "sumequals":
        width = len(rule.targets)
        left = [
            term
            for i, c in enumerate(rule.targets)
            for term in weighted([c], 10 ** (width - 1 - i) if rule.digits else 1)
        ]
        _row(solver, left + weighted(rule.terms, -1), 0, 0)
    elif kind == "littlekiller":
        _row(solver, weighted(rule.line), rule.total, rule.total)
    elif kind == "consecutive":
        length = len(rule.line)
        window = {low: new_var(0, 1, "") for low in range(1, size - length + 2)}
        _row(solver, [(w, 1) for w in window.values()], 1, 1)
        # each value at most once, and only inside the selected window
        for v in values:
            held = [(x[c][v], 1) for c in rule.line if v in x[c]]
            inside = [(w, -1) for low, w in window.items() if low <= v < low + length]
            if held:
                _row(solver, held + inside, -solver.infinity(), 0)
    elif kind == "sandwich":
        _add_sandwich(solver, x, rule, size, new_var)
    else:
        raise ValueError(f"mip: no linearisation of {kind} constraints")
    return solver.NumConstraints() - before


def _add_sandwich(solver: Any, x: list[dict[int, Any]], rule: Any, size: int, new_var: Any):
    """The values strictly between the crusts (the 1 and the size) add up to the total.

    ``seen[k]``, the crusts before position k (0, 1 or 2), is linear in x; a 0-1 ``both``
    with ``2 both <= seen <= 1 + both`` makes ``inside = seen - 2 both`` the indicator of
    exactly one crust before k; ``y(k, v) = x(k, v) and inside`` by the product's three
    rows; the sum of ``v * y(k, v)`` is the total."""
    line, inf = rule.line, solver.infinity()
    terms: list[tuple[Any, int]] = []
    for k in range(1, len(line) - 1):
        seen = [(var, 1) for c in line[:k] for v, var in x[c].items() if v in (1, size)]
        both = new_var(0, 1, "")
        _row(solver, [*seen, (both, -2)], 0, inf)  # 2 both <= seen
        _row(solver, [*seen, (both, -1)], -inf, 1)  # seen <= 1 + both
        inside = [*seen, (both, -2)]
        for v, var in x[line[k]].items():
            if v in (1, size):
                continue
            y = new_var(0, 1, "")
            _row(solver, [(y, 1), (var, -1)], -inf, 0)
            _row(solver, [(y, 1), *((t, -c) for t, c in inside)], -inf, 0)
            _row(solver, [(y, 1), (var, -1), *((t, -c) for t, c in inside)], -1, inf)
            terms.append((y, v))
    _row(solver, terms, rule.total, rule.total)


def _row(solver: Any, terms: list[tuple[Any, int]], lower: float, upper: float) -> None:
    """``lower <= sum(coefficient * var) <= upper``, a variable's terms added together."""
    coefficients: dict[int, list] = {}
    for var, coefficient in terms:
        entry = coefficients.setdefault(var.index(), [var, 0])
        entry[1] += coefficient
    row = solver.Constraint(lower, upper)
    for var, coefficient in coefficients.values():
        if coefficient:
            row.SetCoefficient(var, coefficient)


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
