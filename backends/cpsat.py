"""Google OR-Tools CP-SAT as a backend: one integer variable per cell, and each constraint
posted as its primitives (:mod:`sudokulab.encodings`) in CP-SAT's own terms.

Distinct values are AddAllDifferent (and a linear sum when they have a total), a linear
row a linear constraint in a domain, a 0-1 literal "the cell holds one of these values"
a Boolean tied to the cell's domain both ways, a table AddAllowedAssignments (a unary one
a domain), and a row that holds when some cells take some values a linear constraint
enforced by those cells' literals.

OR-Tools is imported only when a model is solved, so ``sudokulab solve`` with the native
engine never pays for it.
"""

from __future__ import annotations

import functools
import importlib.util
import threading
import time
from collections import Counter
from typing import Any

from ..encodings import Distinct, Implies, Linear, Primitive, Table, accepted_kinds, decompose
from ..encodings.primitives import TYPES
from ..models import Model
from . import interrupt
from .base import Backend, PositiveNumber, Request, check_deadline
from .result import Result, Status, status_of

#: CP-SAT's unbounded sides of a linear row (a row with no low or no high bound).
INT_MIN, INT_MAX = -(2**63), 2**63 - 1

#: Templates kept per backend (and models per thread) before the cache starts afresh.
_TEMPLATES = 64


class CpSatBackend(Backend):
    """CP-SAT on the model as is; options ``workers`` (default 1) and ``seed``.

    More than one worker is used only when ``limit`` is 1; a count always runs on one,
    and ``stats["workers"]`` says how many ran.
    """

    name = "cpsat"
    kinds = accepted_kinds(TYPES)
    options = {"workers": PositiveNumber, "seed": int}
    stops_itself = True  # max_time_in_seconds
    requires = "ortools"

    def __init__(self) -> None:
        # Per set of constraints (units and cages), a CpModel holding the variables and
        # constraints; a puzzle copies it and narrows its givens' domains, into a CpModel
        # kept per thread and reused, because creating one is costly in OR-Tools 9.15 (it
        # installs its deprecated CamelCase aliases on every instance): docs/results.md,
        # "Why these defaults".
        self._templates: dict[tuple[int, int, tuple], Any] = {}
        self._reused = threading.local()

    def available(self) -> bool:
        """True when OR-Tools is installed (found, not imported)."""
        return importlib.util.find_spec("ortools") is not None

    def version(self) -> str:
        """The installed OR-Tools version."""
        return _metadata().version("ortools")

    def search(self, model: Model, request: Request) -> Result:
        """Enumerate up to ``request.limit`` solutions with CP-SAT, by the deadline."""
        from ortools.sat.python import cp_model

        options, limit = request.options, request.limit
        workers = options.get("workers", 1)  # one worker: a fair single-thread comparison
        cp = self.build(model, request.deadline)
        left = request.left()
        if left is not None and left <= 0:  # the build took the whole time
            return Result(self.name, Status.TIMEOUT, stats={"workers": workers})

        start = time.perf_counter()
        solver = cp_model.CpSolver()
        params = solver.parameters
        if limit != 1:
            # CP-SAT's enumeration is complete only with one worker: with two, OR-Tools
            # 9.15 finds 168 of the 288 grids of an empty 4x4. Extra workers only race
            # for a single solution.
            workers = 1
        params.num_workers = workers
        if "seed" in options:
            params.random_seed = options["seed"]
        if left is not None:
            params.max_time_in_seconds = left
        # Ctrl-C is the caller's: CP-SAT would otherwise catch it and stop as if timed out.
        params.catch_sigint_signal = False
        # With one worker, enumerating and stopping at the limit is also the faster way
        # to one solution (docs/results.md, "Why these defaults").
        params.enumerate_all_solutions = workers == 1
        collector = _collector_class(cp_model)(limit, len(model.domains))
        interrupt.on_interrupt(solver.stop_search)
        status = solver.solve(cp, collector)
        solve_time = time.perf_counter() - start

        solutions = tuple(collector.solutions)
        stats = {
            "cpsat_status": solver.status_name(status),
            "branches": solver.num_branches,
            "conflicts": solver.num_conflicts,
            "workers": workers,
        }
        if "seed" in options:
            stats["seed"] = options["seed"]
        if status == cp_model.MODEL_INVALID:
            return Result(
                self.name,
                Status.ERROR,
                solve_time=solve_time,
                stats=stats,
                message=f"CP-SAT: invalid model: {cp.validate()}",
            )
        # With enumeration, OPTIMAL and INFEASIBLE mean the search space was exhausted.
        exact = status in (cp_model.OPTIMAL, cp_model.INFEASIBLE) and not collector.stopped
        timed_out = not exact and not collector.stopped
        return Result(
            backend=self.name,
            status=status_of(len(solutions), exact, timed_out),
            solutions=solutions,
            count=len(solutions),
            exact=exact,
            solve_time=solve_time,
            stats=stats,
        )

    def build(self, model: Model, deadline: float | None = None) -> Any:
        """The CpModel of this puzzle: a copy of the template with the domains narrowed
        (:class:`.base.Late` once ``deadline`` has passed).

        It is this thread's reused CpModel: valid until the next ``build`` on the thread.
        """
        from ortools.sat.python import cp_model

        size, cells = model.size, len(model.domains)
        key = (cells, size, model.constraints)
        template = self._templates.get(key)
        if template is None:
            if len(self._templates) >= _TEMPLATES:
                self._templates.clear()  # killer puzzles each have their own cages
            template = cp_model.CpModel()
            # Variable i is cell i, so a solution is read straight off the response.
            xs = [template.new_int_var(1, size, f"c{i}") for i in range(cells)]
            poster = _Poster(template, xs)
            for constraint in model.constraints:
                check_deadline(deadline)  # a template left half-made is not kept
                for primitive in decompose(constraint, size):
                    poster.post(primitive)
            self._templates[key] = template
        check_deadline(deadline)
        reused = self._reused.__dict__  # this thread's models, by the same key
        if key not in reused and len(reused) >= _TEMPLATES:
            reused.clear()
        cp = reused.get(key)
        if cp is None:
            cp = reused[key] = template.clone()
        else:
            cp.proto.copy_from(template.proto)  # undoes the previous puzzle's givens
        variables = cp.proto.variables
        for cell, domain in enumerate(model.domains):
            if len(domain) == size:
                continue  # the template's 1..size
            bounds = variables[cell].domain
            if len(domain) == 1:
                bounds[0] = bounds[1] = domain[0]
            else:
                bounds.clear()
                bounds.extend(_intervals(domain))
        return cp

    def describe(self, model: Model) -> str:
        """The CpModel this backend builds, counted off its proto."""
        proto = self.build(model).proto
        cells = len(model.domains)  # the cells' variables first, then the literals' Booleans
        domains = Counter(tuple(proto.variables[i].domain) for i in range(cells))
        alldiff = sum(1 for c in proto.constraints if c.has_all_diff())
        fixed = sum(count for d, count in domains.items() if len(d) == 2 and d[0] == d[1])
        ranges = ", ".join(
            f"{count} in [{d[0]}, {d[1]}]"
            for d, count in domains.items()
            if not (len(d) == 2 and d[0] == d[1])
        )
        others = len(proto.constraints) - alldiff
        literals = len(proto.variables) - cells
        return (
            f"cpsat: {cells} IntVar ({ranges or 'none open'}; {fixed} fixed to their given)"
            + (f", {literals} BoolVar (a cell holds one of some values)" if literals else "")
            + f", {alldiff} AddAllDifferent"
            + (f", {others} other constraint(s)" if others else "")
        )


class _Poster:
    """Posts primitives on a CpModel over the cell variables ``xs``; a 0-1 literal "cell
    holds one of these values" is one Boolean, made once and shared by every row that
    reads it."""

    def __init__(self, cp: Any, xs: list[Any]) -> None:
        from ortools.sat.python import cp_model

        self.cp, self.xs, self.domain = cp, xs, cp_model.Domain
        self.literals: dict[tuple[int, frozenset[int]], Any] = {}

    def post(self, primitive: Primitive) -> None:
        """Add one primitive."""
        cp, xs = self.cp, self.xs
        if isinstance(primitive, Distinct):
            line = [xs[c] for c in primitive.cells]
            cp.add_all_different(line)
            if primitive.total is not None:
                cp.add(sum(line) == primitive.total)
        elif isinstance(primitive, Linear):
            self.row(primitive)
        elif isinstance(primitive, Table):
            cells = [xs[c] for c in primitive.cells]
            if len(cells) == 1:  # a domain: presolve folds it into the variable's
                values = sorted(v for (v,) in primitive.allowed)
                cp.add_linear_expression_in_domain(cells[0], self.domain.from_values(values))
            else:
                cp.add_allowed_assignments(cells, sorted(primitive.allowed))
        elif isinstance(primitive, Implies):
            guards = [self.literal(c, values) for c, values in primitive.when]
            self.row(primitive.then).only_enforce_if(guards)
        else:
            raise ValueError(f"cpsat: no translation of {type(primitive).__name__}")

    def row(self, row: Linear) -> Any:
        """Add ``low <= sum(terms) <= high``; the constraint, to enforce it."""
        expr = sum(
            t.coef * (self.xs[t.cell] if t.values is None else self.literal(t.cell, t.values))
            for t in row.terms
        )
        low = INT_MIN if row.low is None else row.low
        high = INT_MAX if row.high is None else row.high
        return self.cp.add_linear_expression_in_domain(expr, self.domain(low, high))

    def literal(self, cell: int, values: frozenset[int]) -> Any:
        """The Boolean "``cell`` holds one of ``values``", both ways."""
        key = (cell, values)
        found = self.literals.get(key)
        if found is None:
            found = self.literals[key] = self.cp.new_bool_var("")
            inside = self.domain.from_values(sorted(values))
            x = self.xs[cell]
            self.cp.add_linear_expression_in_domain(x, inside).only_enforce_if(found)
            self.cp.add_linear_expression_in_domain(x, inside.complement()).only_enforce_if(~found)
        return found


def _intervals(values: tuple[int, ...]) -> list[int]:
    """Ascending values as CP-SAT's flat domain: [lo1, hi1, lo2, hi2, ...]."""
    flat: list[int] = []
    for v in values:
        if flat and flat[-1] == v - 1:
            flat[-1] = v
        else:
            flat += [v, v]
    return flat


@functools.cache
def _collector_class(cp_model: Any) -> type:
    """The solution callback class, made once: it needs the lazily imported base class."""

    class Collector(cp_model.CpSolverSolutionCallback):
        """Keeps each grid (the first ``cells`` variables: a variant rule may add its own
        after them) and stops the search at ``limit`` (None: never)."""

        def __init__(self, limit: int | None, cells: int) -> None:
            super().__init__()
            self.limit, self.cells = limit, cells
            self.solutions: list[tuple[int, ...]] = []
            self.stopped = False  # StopSearch at the limit, as opposed to the deadline

        def on_solution_callback(self) -> None:
            if self.stopped:
                return  # a parallel worker's solution arriving before the stop took hold
            solution = tuple(self.Response().solution)
            self.solutions.append(
                solution[: self.cells] if len(solution) > self.cells else solution
            )
            if self.limit is not None and len(self.solutions) >= self.limit:
                self.stopped = True
                self.StopSearch()

    return Collector


def _metadata():
    """importlib.metadata, imported when a version is asked for (it is slow to import)."""
    import importlib.metadata

    return importlib.metadata
