"""Google OR-Tools CP-SAT as a backend: one integer variable per cell, AllDifferent per unit.

Every variant rule goes over in CP-SAT's own terms (:func:`add_rule`): inequalities and
sums as linear constraints, the pair relations of kropki dots and whispers as tables of
allowed value pairs, renban as AllDifferent inside a window of consecutive values, a
sandwich by AddElement over the row's prefix sums at the crusts' positions.

OR-Tools is imported only when a model is solved, so ``sudokulab solve`` with the native
engine never pays for it.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import threading
import time
from collections import Counter
from typing import Any

from ..models import Model
from ..models.rules import KINDS, PAIRS
from . import interrupt
from .base import Backend, PositiveNumber, Request, check_deadline
from .result import Result, Status, status_of

#: Templates kept per backend (and models per thread) before the cache starts afresh.
_TEMPLATES = 64


class CpSatBackend(Backend):
    """CP-SAT on the model as is; options ``workers`` (default 1) and ``seed``.

    More than one worker is used only when ``limit`` is 1; a count always runs on one,
    and ``stats["workers"]`` says how many ran.
    """

    name = "cpsat"
    kinds = frozenset({"alldifferent", "sum"} | set(KINDS))
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
            for constraint in model.constraints:
                check_deadline(deadline)  # a template left half-made is not kept
                if constraint.kind in ("alldifferent", "sum"):
                    template.add_all_different([xs[i] for i in constraint.cells])
                if constraint.kind == "sum":
                    template.add(sum(xs[i] for i in constraint.cells) == constraint.total)
                elif constraint.kind != "alldifferent":
                    add_rule(template, xs, constraint, size)
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
        domains = Counter(tuple(v.domain) for v in proto.variables)
        alldiff = sum(1 for c in proto.constraints if c.has_all_diff())
        fixed = sum(count for d, count in domains.items() if len(d) == 2 and d[0] == d[1])
        ranges = ", ".join(
            f"{count} in [{d[0]}, {d[1]}]"
            for d, count in domains.items()
            if not (len(d) == 2 and d[0] == d[1])
        )
        others = len(proto.constraints) - alldiff
        return (
            f"cpsat: {len(proto.variables)} IntVar ({ranges or 'none open'}; {fixed} fixed to "
            f"their given), {alldiff} AddAllDifferent"
            + (f", {others} other constraint(s)" if others else "")
        )


def add_rule(cp: Any, xs: list[Any], rule: Any, size: int) -> None:
    """Add one variant rule (:mod:`sudokulab.models.rules`) over the cell variables."""
    kind = rule.kind
    if kind in PAIRS:
        a, b = xs[rule.a], xs[rule.b]
        if kind == "less":
            cp.add(a < b)
        elif kind == "lessequal":
            cp.add(a <= b)
        elif kind == "notequal":
            cp.add(a != b)
        elif kind == "pairsum":
            cp.add(a + b == rule.total)
        else:  # a relation of two values: the table of the pairs that keep it
            cp.add_allowed_assignments([a, b], pair_table(rule, size))
    elif kind == "sumequals":
        width = len(rule.targets)
        weights = [10 ** (width - 1 - i) if rule.digits else 1 for i in range(width)]
        left = sum(w * xs[c] for w, c in zip(weights, rule.targets, strict=True))
        cp.add(left == sum(xs[c] for c in rule.terms))
    elif kind == "littlekiller":
        cp.add(sum(xs[c] for c in rule.line) == rule.total)
    elif kind == "parity":
        cp.add_allowed_assignments(
            [xs[rule.cell]], [(v,) for v in range(1, size + 1) if v % 2 == (rule.parity == "odd")]
        )
    elif kind == "consecutive":
        # distinct values inside a window [low, low + len - 1]: a run, whatever its order
        line = [xs[c] for c in rule.line]
        low = cp.new_int_var(1, max(1, size - len(line) + 1), "")
        cp.add_all_different(line)
        for x in line:
            cp.add(x >= low)
            cp.add(x <= low + len(line) - 1)
    elif kind == "sandwich":
        _add_sandwich(cp, [xs[c] for c in rule.line], rule.total, size)
    else:
        raise ValueError(f"cpsat: no translation of {kind} constraints")


def pair_table(rule: Any, size: int) -> list[tuple[int, int]]:
    """The value pairs (cell a's, cell b's) a pair rule allows."""
    values = range(1, size + 1)
    probe = dataclasses.replace(rule, a=0, b=1)  # the rule read off a two-value grid
    return [(u, v) for u in values for v in values if probe.holds((u, v))]


def _add_sandwich(cp: Any, line: list[Any], total: int, size: int) -> None:
    """The values strictly between the 1 and the ``size`` of ``line`` add up to ``total``:
    with ``prefix[k]`` the sum of the first k cells, it is ``prefix[hi] - prefix[lo + 1]``
    where lo and hi are the crusts' positions, read by AddElement."""
    n = len(line)
    one = cp.new_int_var(0, n - 1, "")
    top = cp.new_int_var(0, n - 1, "")
    cp.add_element(one, line, 1)
    cp.add_element(top, line, size)
    lo = cp.new_int_var(0, n - 1, "")
    hi = cp.new_int_var(0, n - 1, "")
    cp.add_min_equality(lo, [one, top])
    cp.add_max_equality(hi, [one, top])
    after = cp.new_int_var(1, n, "")
    cp.add(after == lo + 1)
    prefix = [cp.new_constant(0)]
    for k in range(1, n + 1):
        step = cp.new_int_var(0, size * n, "")
        cp.add(step == sum(line[:k]))
        prefix.append(step)
    upper = cp.new_int_var(0, size * n, "")
    lower = cp.new_int_var(0, size * n, "")
    cp.add_element(hi, prefix, upper)
    cp.add_element(after, prefix, lower)
    cp.add(upper - lower == total)


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
