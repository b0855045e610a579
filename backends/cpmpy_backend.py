"""CPMpy as a backend: the model stated once in CPMpy, solved by whichever solver CPMpy
finds installed (the option ``solver``: ``ortools`` by default, since OR-Tools is a
dependency; ``z3``, ``pysat`` and its SAT solvers, ``exact``, ``gurobi``, ``highs``, ...
where present).

The model, in CPMpy's words: an integer variable per cell (a given's fixed, a narrowed
domain stated with ``InDomain``), ``AllDifferent`` per unit, ``AllDifferent`` and ``sum``
per killer cage, and each variant rule as CPMpy says it (:func:`add_rule`): comparisons
and sums for thermometers, arrows, XV and little killers, ``abs`` for kropki dots and
whispers, a ``Table`` of the value pairs of a ratio, renban as ``AllDifferent`` with
``max - min`` the length less one, a sandwich as the sum of the cells between the
crusts' positions. No variable is added beside the cells, so every solution is a grid
and no two solutions are the same grid.

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

from ..models import Model
from ..models.rules import KINDS
from . import interrupt
from .base import Backend, Request, check_deadline
from .cpsat import pair_table
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
    kinds = frozenset({"alldifferent", "sum"} | set(KINDS))
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
            if constraint.kind in ("alldifferent", "sum"):
                cpm += cp.AllDifferent([xs[i] for i in constraint.cells])
            if constraint.kind == "sum":
                cpm += cp.sum([xs[i] for i in constraint.cells]) == constraint.total
            elif constraint.kind != "alldifferent":
                cpm += add_rule(cp, xs, constraint, size)
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


def add_rule(cp: Any, xs: list[Any], rule: Any, size: int) -> Any:
    """One variant rule (:mod:`sudokulab.models.rules`) as a CPMpy constraint."""
    kind = rule.kind
    if hasattr(rule, "a") and hasattr(rule, "b"):
        a, b = xs[rule.a], xs[rule.b]
        if kind == "less":
            return a < b
        if kind == "lessequal":
            return a <= b
        if kind == "notequal":
            return a != b
        if kind == "pairsum":
            return a + b == rule.total
        if kind == "difference":
            return cp.abs(a - b) == rule.k
        if kind == "notdifference":
            return cp.abs(a - b) != rule.k
        if kind == "mindifference":
            return cp.abs(a - b) >= rule.k
        # a ratio, or no ratio: the table of the value pairs that keep it
        return cp.Table([a, b], pair_table(rule, size))
    if kind == "sumequals":
        width = len(rule.targets)
        weights = [10 ** (width - 1 - i) if rule.digits else 1 for i in range(width)]
        left = cp.sum([w * xs[c] for w, c in zip(weights, rule.targets, strict=True)])
        return left == cp.sum([xs[c] for c in rule.terms])
    if kind == "littlekiller":
        return cp.sum([xs[c] for c in rule.line]) == rule.total
    if kind == "parity":
        odd = rule.parity == "odd"
        return cp.InDomain(xs[rule.cell], [v for v in range(1, size + 1) if v % 2 == odd])
    if kind == "consecutive":
        line = [xs[c] for c in rule.line]
        return [cp.AllDifferent(line), cp.max(line) - cp.min(line) == len(line) - 1]
    if kind == "sandwich":
        return _sandwich(cp, [xs[c] for c in rule.line], rule.total, size)
    raise ValueError(f"cpmpy: no translation of {kind} constraints")


def _sandwich(cp: Any, line: list[Any], total: int, size: int) -> Any:
    """The values strictly between the 1 and the ``size`` of ``line`` add up to ``total``:
    each crust's position is the sum of k times (cell k holds it), and a cell counts when
    it lies strictly between the two positions."""
    one = cp.sum([k * (x == 1) for k, x in enumerate(line)])
    top = cp.sum([k * (x == size) for k, x in enumerate(line)])
    inside = [((one < k) & (k < top)) | ((top < k) & (k < one)) for k in range(len(line))]
    return cp.sum([x * held for x, held in zip(line, inside, strict=True)]) == total
