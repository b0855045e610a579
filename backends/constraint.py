"""python-constraint (the python-constraint2 package) as a backend.

One variable per cell (its domain from the model: a given is a one-value domain), and
each constraint's primitives (:mod:`sudokulab.encodings`): ``AllDifferentConstraint``
for distinct values (with ``ExactSumConstraint`` for a cage's total), ``InSetConstraint``
for a cell's allowed values, and a ``FunctionConstraint`` over its cells asking the
primitive's own ``holds`` for the rest (checked once all its cells are assigned);
solutions counted through the solver's iterator.

The package is compiled (Cython): its search runs no Python code of its own, so Python's
Ctrl-C handler would not run until the next solution (an empty 25x25 grid kept a
counting search going some 40 s after Ctrl-C), nor would another thread get the GIL. So
the problem also holds a :func:`heartbeat`, a constraint over every cell, written in
Python, that always holds: the search calls it at each assignment, and Ctrl-C is heard
there (or, for a search on another thread that Ctrl-C stopped, raised there).
The package is imported only when a model is solved. It has no time limit of its own:
between solutions the clock is checked, and a run that must stop mid-search is killed
from outside (``stops_itself`` is false).
"""

from __future__ import annotations

import functools
import importlib.util
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from ..encodings import Distinct, Primitive, Table, accepted_kinds, decompose
from ..encodings.primitives import TYPES
from ..models import Model
from . import interrupt
from .base import Backend, Request
from .result import Result, status_of

#: Solver choices, default first: ``backtracking`` (BacktrackingSolver, which re-picks
#: the cell with the fewest candidates at every step), ``recursive``
#: (RecursiveBacktrackingSolver, the same order, recursive) and ``optimized``
#: (OptimizedBacktrackingSolver, the package's default, which fixes the order up front),
#: in the order they measured, fastest first; forward checking is on by default, as it
#: measured faster for each (docs/results.md, "Why these defaults").
SOLVERS = ("backtracking", "recursive", "optimized")

_CLASSES = {
    "backtracking": "BacktrackingSolver",
    "recursive": "RecursiveBacktrackingSolver",
    "optimized": "OptimizedBacktrackingSolver",
}


class ConstraintBackend(Backend):
    """python-constraint's backtracking solvers; options ``solver`` and ``forwardcheck``."""

    name = "constraint"
    kinds = accepted_kinds(TYPES)
    options = {"solver": SOLVERS, "forwardcheck": bool}
    stops_itself = False  # only between solutions; the caller enforces the deadline
    requires = "python-constraint2"
    checks_signals = True  # compiled, but Ctrl-C reaches it at each heartbeat

    def available(self) -> bool:
        """True when the ``constraint`` package is installed (found, not imported)."""
        return importlib.util.find_spec("constraint") is not None

    def version(self) -> str:
        """The installed python-constraint2 version."""
        for dist in ("python-constraint2", "python-constraint"):
            try:
                return _metadata().version(dist)
            except _metadata().PackageNotFoundError:
                continue
        return "unknown"

    def search(self, model: Model, request: Request) -> Result:
        """Iterate over up to ``request.limit`` solutions, checking the deadline between
        them (killed from outside when isolated)."""
        options, limit, deadline = request.options, request.limit, request.deadline
        solver_name = options.get("solver", SOLVERS[0])
        forwardcheck = options.get("forwardcheck", True)
        problem = build_problem(model, solver_name, forwardcheck)

        start = time.perf_counter()
        cells = range(len(model.domains))
        solutions: list[tuple[int, ...]] = []
        exact = timed_out = False
        found = problem.getSolutionIter()
        while True:
            try:
                assignment = next(found)
            except StopIteration:
                exact = True
                break
            solutions.append(tuple(assignment[cell] for cell in cells))
            if limit is not None and len(solutions) >= limit:
                break
            if deadline is not None and time.perf_counter() > deadline:
                timed_out = True
                break
        solve_time = time.perf_counter() - start
        return Result(
            backend=self.name,
            status=status_of(len(solutions), exact, timed_out),
            solutions=tuple(solutions),
            count=len(solutions),
            exact=exact,
            solve_time=solve_time,
            stats={"solver": solver_name, "forwardcheck": forwardcheck},
        )

    def describe(self, model: Model) -> str:
        """The Problem this backend builds: its variables, constraints and solver."""
        import constraint

        problem = build_problem(model)
        sizes = Counter(len(d) for d in model.domains)
        size_text = ", ".join(f"{count} with {k} value(s)" for k, count in sorted(sizes.items()))
        built = Counter(name for _, _, name in posts(constraint, model))
        kinds = ", ".join(f"{count} {name}" for name, count in built.items())
        solver = type(problem.getSolver()).__name__
        return f"constraint: {len(model.domains)} variables ({size_text}), {kinds}; solver {solver}"


def build_problem(model: Model, solver_name: str = SOLVERS[0], forwardcheck: bool = True) -> Any:
    """The python-constraint Problem of a model: a variable per cell and each constraint's
    primitives (:func:`posts`)."""
    import constraint

    solver = getattr(constraint, _CLASSES[solver_name])(forwardcheck=forwardcheck)
    problem = constraint.Problem(solver)
    for cell, domain in enumerate(model.domains):
        problem.addVariable(cell, list(domain))
    problem.addConstraint(heartbeat(constraint)(), list(range(len(model.domains))))
    for posted, cells, _ in posts(constraint, model):
        problem.addConstraint(posted, cells)
    return problem


def posts(constraint: Any, model: Model) -> Iterator[tuple[Any, list[int], str]]:
    """Each primitive of the model (:mod:`sudokulab.encodings`) as python-constraint
    constraints, with their cells and the class's name: distinct values as an
    AllDifferentConstraint (and an ExactSumConstraint for a total), a unary table as an
    InSetConstraint, anything else as a FunctionConstraint asking the primitive's own
    ``holds``."""
    alldifferent = constraint.AllDifferentConstraint()  # stateless: one serves every unit
    for c in model.constraints:
        for primitive in decompose(c, model.size):
            cells = list(primitive.cells)
            if isinstance(primitive, Distinct):
                yield alldifferent, cells, "AllDifferentConstraint"
                if primitive.total is not None:
                    exact = constraint.ExactSumConstraint(primitive.total)
                    yield exact, cells, "ExactSumConstraint"
            elif isinstance(primitive, Table) and len(cells) == 1:
                allowed = {v for (v,) in primitive.allowed}
                yield constraint.InSetConstraint(allowed), cells, "InSetConstraint"
            else:
                check = constraint.FunctionConstraint(_checker(primitive, cells))
                yield check, cells, "FunctionConstraint"


@functools.cache
def heartbeat(constraint: Any) -> type:
    """The heartbeat's class (made once: it needs the lazily imported package): Python
    code the compiled search calls at each assignment, so that Ctrl-C reaches it."""

    class Heartbeat(constraint.Constraint):
        """Holds always; ends a search that Ctrl-C stopped (:func:`.interrupt.stopped`)."""

        def __call__(self, variables, domains, assignments, forwardcheck=False) -> bool:
            if interrupt.stopped():
                raise KeyboardInterrupt  # a search on another thread: see interrupt.call
            return True

    return Heartbeat


def _checker(primitive: Primitive, cells: list[int]) -> Any:
    """The primitive as a function of its cells' values (it reads them by cell)."""

    def holds(*values: int) -> bool:
        return primitive.holds(dict(zip(cells, values, strict=True)))

    return holds


def _metadata():
    """importlib.metadata, imported when a version is asked for (it is slow to import)."""
    import importlib.metadata

    return importlib.metadata
