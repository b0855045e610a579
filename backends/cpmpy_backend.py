"""CPMpy as a backend: the model stated once in CPMpy, solved by whichever solver CPMpy
finds installed (the option ``solver``: ``ortools`` by default, since OR-Tools is a
dependency; ``z3``, ``pysat`` and its SAT solvers, ``exact``, ``gurobi``, ``highs``, ...
where present).

The model, in CPMpy's words: an integer variable per cell (a given's fixed, a narrowed
domain stated with ``InDomain``) and each constraint as its primitives
(:mod:`sudokulab.encodings`, :func:`stated`): ``AllDifferent`` (and a ``sum`` for a
killer cage), a linear row as a comparison of sums (a 0-1 literal "the cell holds one of
these values" as a Boolean expression), a ``Table`` of allowed tuples (``InDomain`` for a
unary one), and a row that holds when some cells take some values by ``implies``. No
variable is added beside the cells, so every solution is a grid and no two solutions
are the same grid.

Solutions are counted by CPMpy's ``solveAll`` with the limit as its ``solution_limit``
and the time left as its ``time_limit``: CP-SAT's own enumeration for ``ortools``, for
the others CPMpy's loop that blocks each solution found. A count is exact when the
solver says it ran out of solutions (``OPTIMAL`` or ``UNSATISFIABLE`` after the last
one) before the limit. A stop short of the limit without that is a timeout when a time
limit was given (the solver's own clock stopped it, which may run a little ahead of the
request's), else an ``error``. A solver that cannot take one of the constraints (CPMpy's
``NotSupportedError``, or an ``ImportError`` for a part it lacks: PySAT's pseudo-Boolean
encodings need pypblib) gives an ``error`` naming it.

CPMpy is imported only when a model is solved, or a solver named.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Mapping
from typing import Any

from ..encodings import Distinct, Implies, Linear, Primitive, Table, accepted_kinds, decompose
from ..encodings.primitives import TYPES
from ..models import Model
from . import interrupt
from .base import Backend, Request, check_deadline
from .highs_backend import quiet_highs
from .result import Result, Status

#: The solver used when none is named (OR-Tools is a dependency of sudokulab).
DEFAULT = "ortools"


class CpmpySolver(str):
    """An option naming a solver CPMpy finds installed (``SolverLookup.supported``)."""

    label = "solver CPMpy finds installed (ortools, z3, pysat, exact, gurobi, ...)"

    def __new__(cls, value: object) -> CpmpySolver:
        name = str(value)
        if name not in installed():
            raise ValueError(value)
        return super().__new__(cls, name)


def installed() -> list[str]:
    """The solvers (and subsolvers, ``pysat:glucose4``) CPMpy finds installed here."""
    from cpmpy import SolverLookup

    return list(SolverLookup.supported())


class CpmpyBackend(Backend):
    """CPMpy on the model, with the solver the option ``solver`` names (default ortools)."""

    name = "cpmpy"
    kinds = accepted_kinds(TYPES)
    options = {"solver": CpmpySolver}
    stops_itself = True  # the solver's time limit, through solveAll's time_limit
    requires = "cpmpy"

    def available(self) -> bool:
        """True when CPMpy is installed (found, not imported)."""
        return importlib.util.find_spec("cpmpy") is not None

    def version(self) -> str:
        """The installed CPMpy version."""
        import importlib.metadata

        return importlib.metadata.version("cpmpy")

    def in_process_with(self, options: Mapping[str, Any]) -> bool:
        """Not with ``solver=gurobi``: Gurobi takes over Ctrl-C while it optimizes
        (:mod:`.gurobi_backend`), so that solver runs in a worker process."""
        return options.get("solver", DEFAULT) != "gurobi"

    def build(self, model: Model, deadline: float | None = None) -> tuple[Any, list[Any]]:
        """The CPMpy ``Model`` of ``model`` and the cells' variables (:class:`.base.Late`
        once ``deadline`` has passed)."""
        import cpmpy as cp

        size = model.size
        xs = []
        for cell, domain in enumerate(model.domains):
            r, c = divmod(cell, size)
            xs.append(cp.intvar(domain[0], domain[-1], name=f"r{r + 1}c{c + 1}"))
        cpm = cp.Model()
        for x, domain in zip(xs, model.domains, strict=True):
            if len(domain) != domain[-1] - domain[0] + 1:  # holes in a narrowed domain
                cpm += cp.InDomain(x, list(domain))
        for constraint in model.constraints:
            check_deadline(deadline)
            for primitive in decompose(constraint, size):
                cpm += stated(cp, xs, primitive)
        return cpm, xs

    def search(self, model: Model, request: Request) -> Result:
        """Enumerate up to ``request.limit`` solutions with CPMpy's ``solveAll``."""
        import cpmpy as cp
        from cpmpy.exceptions import NotSupportedError
        from cpmpy.solvers.solver_interface import ExitStatus

        solver_name = request.options.get("solver", DEFAULT)
        stats: dict[str, Any] = {"solver": solver_name}
        cpm, xs = self.build(model, request.deadline)
        solutions: list[tuple[int, ...]] = []
        start = time.perf_counter()
        if solver_name == "highs":
            quiet_highs()  # the first Highs of a process prints a banner: made quiet here
        try:
            solver = cp.SolverLookup.get(solver_name, cpm)
        except (NotSupportedError, ImportError) as err:  # a constraint, or a missing part
            return self._refused(solver_name, err, stats, time.perf_counter() - start)
        left = request.left()
        if left is not None and left <= 0:
            return Result(self.name, Status.TIMEOUT, stats=stats)
        extra: dict[str, Any] = {}
        if solver_name == "ortools":
            # CP-SAT's enumeration is complete with one worker only (backends/cpsat.py),
            # and Ctrl-C is the caller's.
            extra = {"num_workers": 1, "catch_sigint_signal": False}
            interrupt.on_interrupt(solver.ort_solver.stop_search)
        try:
            solver.solveAll(
                display=lambda: solutions.append(tuple(int(x.value()) for x in xs)),
                time_limit=left,
                solution_limit=request.limit,
                call_from_model=True,  # no warning: the solver object is thrown away
                **extra,
            )
        except (NotSupportedError, ImportError) as err:
            return self._refused(solver_name, err, stats, time.perf_counter() - start)
        except Exception as err:  # the solver's own failure (a licence, a crash): this row's
            took = time.perf_counter() - start
            message = f"cpmpy: {solver_name} failed: {err}"
            return Result(self.name, Status.ERROR, solve_time=took, stats=stats, message=message)
        solve_time = time.perf_counter() - start
        status = solver.status().exitstatus
        stats["exit"] = status.name
        limited = request.limit is not None and len(solutions) >= request.limit
        exact = not limited and status in (ExitStatus.OPTIMAL, ExitStatus.UNSATISFIABLE)
        if exact or limited:
            return Result.counted(self.name, solutions, exact, False, 0.0, solve_time, stats)
        if request.timeout is None or status in (ExitStatus.ERROR, ExitStatus.NOT_RUN):
            # stopped short of the limit without an answer, and no time limit to stop it
            why = f"cpmpy: {solver_name} stopped with status {status.name}"
            return Result.counted(self.name, solutions, False, False, 0.0, solve_time, stats, why)
        # stopped short by its time limit, whatever the request's clock says: a timeout
        return Result.counted(self.name, solutions, False, True, 0.0, solve_time, stats)

    def _refused(self, solver: str, err: Exception, stats: dict, took: float) -> Result:
        message = f"cpmpy: {solver} cannot take this model: {err}"
        return Result(self.name, Status.ERROR, solve_time=took, stats=stats, message=message)

    def describe(self, model: Model) -> str:
        """The CPMpy model this backend builds, counted by constraint type."""
        cpm, xs = self.build(model)
        kinds: dict[str, int] = {}
        for constraint in cpm.constraints:
            name = getattr(constraint, "name", type(constraint).__name__)
            kinds[name] = kinds.get(name, 0) + 1
        parts = ", ".join(f"{count} {name}" for name, count in kinds.items())
        fixed = sum(1 for d in model.domains if len(d) == 1)
        return (
            f"cpmpy: {len(xs)} intvar ({fixed} fixed to their given), {parts}; "
            f"solver {DEFAULT} unless named"
        )


def stated(cp: Any, xs: list[Any], primitive: Primitive) -> list[Any]:
    """One primitive (:mod:`sudokulab.encodings`) as CPMpy constraints over the cells."""
    if isinstance(primitive, Distinct):
        line = [xs[c] for c in primitive.cells]
        if primitive.total is None:
            return [cp.AllDifferent(line)]
        return [cp.AllDifferent(line), cp.sum(line) == primitive.total]
    if isinstance(primitive, Linear):
        return [_row(cp, xs, primitive)]
    if isinstance(primitive, Table):
        cells = [xs[c] for c in primitive.cells]
        if len(cells) == 1:
            return [cp.InDomain(cells[0], sorted(v for (v,) in primitive.allowed))]
        return [cp.Table(cells, sorted(primitive.allowed))]
    if isinstance(primitive, Implies):
        when = cp.all([_literal(cp, xs[c], values) for c, values in primitive.when])
        return [when.implies(_row(cp, xs, primitive.then))]
    raise ValueError(f"cpmpy: no translation of {type(primitive).__name__}")


def _row(cp: Any, xs: list[Any], row: Linear) -> Any:
    """``low <= sum(terms) <= high``; a 0-1 literal counts as CPMpy's Boolean expression."""
    total = cp.sum(
        [t.coef * (xs[t.cell] if t.values is None else _literal(cp, xs[t.cell], t.values))
         for t in row.terms]
    )  # fmt: skip
    if row.low is not None and row.low == row.high:
        return total == row.low
    bounds = ([total >= row.low] if row.low is not None else []) + (
        [total <= row.high] if row.high is not None else []
    )
    return bounds[0] if len(bounds) == 1 else cp.all(bounds)


def _literal(cp: Any, x: Any, values: frozenset[int]) -> Any:
    """The Boolean expression "``x`` holds one of ``values``"."""
    if len(values) == 1:
        return x == next(iter(values))
    return cp.any([x == v for v in sorted(values)])
