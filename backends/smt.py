"""z3 (the z3-solver package) as a backend: the model as SMT over linear integer arithmetic.

The encoding is the model's, nearly word for word:

- an integer variable per cell, between 1 and the size (a narrowed domain, as some
  variants give, keeps only its values);
- each constraint as its primitives (:mod:`sudokulab.encodings`): ``Distinct`` (and a
  ``Sum`` equal to the total, for a killer cage), a linear row in z3's integer
  arithmetic (a 0-1 literal "the cell holds one of these values" counted by ``If``), a
  table as, for each value of its first cell, the tuples of the others it allows (a
  unary table: the cell's values), and a row that holds when some cells take some
  values as ``Implies``;
- each given as an equality ``cell == value``.

z3 solves it under the logic the option ``logic`` names: ``QF_FD`` by default, its
finite-domain solver, which bit-blasts the bounded integers into SAT (the fastest here:
see :data:`LOGICS`).

The variables and the constraints of a shape are built once per thread and reused
(building z3's expressions and a context, which a thread must not share, costs more
than many a check: docs/results.md, "Why these defaults"). A puzzle gets a fresh
``Solver`` on them plus its givens. Solutions are counted with blocking clauses (each
found grid is forbidden over the open cells, then z3 is asked again), up to the limit
(:func:`~sudokulab.backends.base.count_by_blocking`). The deadline is z3's own
``timeout`` parameter, set before each check to the time left; a check that ends
``unknown`` because of it is a ``timeout``. z3's own Ctrl-C handling is off (it would
cancel the check as if timed out): Ctrl-C interrupts the context and reaches the
caller. ``stats`` holds z3's counters (conflicts, decisions, propagations, where this
z3 reports them) and the size of what was built.

z3 is imported only when a model is solved.
"""

from __future__ import annotations

import importlib.util
import threading
import time
from collections import Counter
from typing import Any

from ..encodings import Distinct, Implies, Linear, Primitive, Table, accepted_kinds, decompose
from ..encodings.primitives import TYPES
from ..models import Grid, Model
from . import interrupt
from .base import Backend, Request, Unanswered, check_deadline, count_by_blocking
from .result import Result

#: z3's counters copied into ``stats`` when present, by the name ``stats`` gives them:
#: its arithmetic solver and its SAT core (``QF_FD``) name them differently.
COUNTERS = {
    "conflicts": "conflicts",
    "decisions": "decisions",
    "propagations": "propagations",
    "restarts": "restarts",
    "sat conflicts": "conflicts",
    "sat decisions": "decisions",
    "sat propagations 2ary": "propagations",
    "sat propagations nary": "propagations",
    "sat restarts": "restarts",
}

#: Shapes kept per thread before the cache starts afresh (killer puzzles each have their own).
_SHAPES = 64


#: z3's logics (``SolverFor``), default first: ``QF_FD`` (finite domains: z3 turns the
#: bounded integers into a SAT problem), measured several times as fast here as
#: ``QF_LIA`` (its arithmetic solver) and z3's default solver (docs/results.md, "Why
#: these defaults").
LOGICS = ("QF_FD", "QF_LIA", "default")


def _no_ctrl_c(z3: Any) -> None:
    """Turn z3's own Ctrl-C handling off (once): the caller's handler stops the check."""
    if not _CTRL_C_OFF:
        z3.set_param("ctrl_c", False)
        _CTRL_C_OFF.append(True)


_CTRL_C_OFF: list[bool] = []


class SmtBackend(Backend):
    """z3 on the model: an integer per cell, ``Distinct`` per unit, cage sums; options
    ``logic`` (see :data:`LOGICS`) and ``seed`` (z3's random seed)."""

    name = "smt"
    kinds = accepted_kinds(TYPES)
    options = {"logic": LOGICS, "seed": int}
    stops_itself = True  # z3's timeout parameter, set to the time left before each check
    requires = "z3-solver"

    def __init__(self) -> None:
        self._local = threading.local()  # a z3 context per thread, and its shapes

    def available(self) -> bool:
        """True when z3 is installed (found, not imported)."""
        return importlib.util.find_spec("z3") is not None

    def version(self) -> str:
        """The installed z3-solver version."""
        import importlib.metadata

        return importlib.metadata.version("z3-solver")

    def search(self, model: Model, request: Request) -> Result:
        """Find up to ``request.limit`` solutions, one check each, by the deadline."""
        import z3

        _no_ctrl_c(z3)
        options = request.options
        solver, cells = self.build(model, options.get("logic", LOGICS[0]), request.deadline)
        if "seed" in options:
            solver.set("random_seed", options["seed"])
        interrupt.on_interrupt(solver.ctx.interrupt)
        start = time.perf_counter()
        open_cells = [i for i, domain in enumerate(model.domains) if len(domain) > 1]

        def ask(left: float | None) -> Grid | None | Unanswered:
            if left is not None:
                solver.set("timeout", max(1, int(left * 1000)))
            answer = solver.check()
            if answer == z3.unsat:
                return None
            if answer != z3.sat:
                return Unanswered(f"smt: z3 gave up: {solver.reason_unknown()}")
            found = solver.model()
            return tuple(found.eval(x, model_completion=True).as_long() for x in cells)

        def block(grid: Grid) -> None:
            solver.add(z3.Or([cells[i] != grid[i] for i in open_cells]))

        found = count_by_blocking(request, ask, block, closed=not open_cells)
        solve_time = time.perf_counter() - start
        stats = self._stats(solver, len(cells), len(self._local.added) + len(found.solutions))
        return Result.counted(
            self.name, found.solutions, found.exact, found.timed_out, 0.0, solve_time, stats,
            found.message,
        )  # fmt: skip

    def build(
        self, model: Model, logic: str = LOGICS[0], deadline: float | None = None
    ) -> tuple[Any, list[Any]]:
        """A z3 ``Solver`` for ``logic`` holding the model (the shape's constraints and the
        givens), and the cells' integer variables, in this thread's context
        (:class:`.base.Late` once ``deadline`` has passed)."""
        import z3

        local = self._local.__dict__
        ctx = local.get("ctx")
        if ctx is None:
            ctx = local["ctx"] = z3.Context()
            local["shapes"] = {}
        shapes: dict[tuple, tuple[list[Any], list[Any]]] = local["shapes"]
        key = (len(model.domains), model.size, model.constraints)
        shape = shapes.get(key)
        if shape is None:
            if len(shapes) >= _SHAPES:
                shapes.clear()
            cells = [z3.Int(f"r{i // model.size + 1}c{i % model.size + 1}", ctx)
                     for i in range(len(model.domains))]  # fmt: skip
            rules = [z3.And(x >= 1, x <= model.size) for x in cells]
            terms = _Terms(z3, ctx, cells, model.size, literal_values(model))
            for constraint in model.constraints:
                check_deadline(deadline)  # a shape left half-made is not kept
                for primitive in decompose(constraint, model.size):
                    rules += terms.assertions(primitive)
            shape = shapes[key] = (cells, rules, terms.counts)
        cells, rules, self._local.counts = shape
        solver = z3.Solver(ctx=ctx) if logic == "default" else z3.SolverFor(logic, ctx=ctx)
        added = list(rules)
        for i, domain in enumerate(model.domains):
            if len(domain) == 1:
                added.append(cells[i] == domain[0])
            elif len(domain) < model.size:
                added.append(z3.Or([cells[i] == v for v in domain]))
        check_deadline(deadline)
        solver.add(added)
        self._local.added = added  # what stats count (a solver may merge assertions)
        return solver, cells

    def _stats(self, solver: Any, variables: int, assertions: int) -> dict[str, Any]:
        """z3's counters of this solver, and what was built (the blocking clauses count
        as assertions)."""
        stats: dict[str, Any] = {"variables": variables, "assertions": assertions}
        found = solver.statistics()
        for key in found.keys():  # noqa: SIM118 - a z3 Statistics, not a dict
            if key in COUNTERS:
                name = COUNTERS[key]
                stats[name] = stats.get(name, 0) + found.get_key_value(key)
        return stats

    def describe(self, model: Model) -> str:
        """The SMT problem this backend builds, counted as it was built."""
        _, cells = self.build(model)
        counts = self._local.counts
        givens = sum(1 for d in model.domains if len(d) == 1)
        narrowed = sum(1 for d in model.domains if 1 < len(d) < model.size)
        return (
            f"smt: {len(cells)} Int ({len(cells)} bounded 1..{model.size}), "
            f"{counts['distinct']} Distinct"
            + (f", {counts['total']} Sum == total" if counts["total"] else "")
            + f", {givens} given(s) as equalities"
            + (f", {narrowed} narrowed domain(s)" if narrowed else "")
            + "".join(f", {counts[k]} {k}(s)" for k in _RULES if counts[k])
            + f"; z3, logic {LOGICS[0]}"
        )


def literal_values(model: Model) -> dict[int, set[int]]:
    """The values each cell's 0-1 literals read, over the model's primitives."""
    read: dict[int, set[int]] = {}
    for constraint in model.constraints:
        for primitive in decompose(constraint, model.size):
            if isinstance(primitive, Implies):
                pairs = list(primitive.when) + [(t.cell, t.values) for t in primitive.then.terms]
            elif isinstance(primitive, Linear):
                pairs = [(t.cell, t.values) for t in primitive.terms]
            else:
                continue
            for cell, values in pairs:
                if values is not None:
                    read.setdefault(cell, set()).update(values)
    return read


#: What :meth:`SmtBackend.describe` counts beside Distinct and sums: one each a primitive.
_RULES = ("linear row", "table", "implication", "exactly-one")


class _Terms:
    """The z3 assertions of primitives over the cells' integers; a 0-1 literal "cell holds
    one of these values" is made once and shared."""

    def __init__(self, z3: Any, ctx: Any, cells: list[Any], size: int, read: Any) -> None:
        self.z3, self.ctx, self.cells, self.size = z3, ctx, cells, size
        self.read: dict[int, set[int]] = read  # the values each cell's literals read
        self.literals: dict[tuple[int, frozenset[int]], Any] = {}
        self.counts: Counter[str] = Counter()

    def assertions(self, primitive: Primitive) -> list[Any]:
        """One primitive's assertions."""
        z3, xs = self.z3, self.cells
        if isinstance(primitive, Distinct):
            line = [xs[c] for c in primitive.cells]
            self.counts["distinct"] += 1
            if primitive.total is None:
                return [z3.Distinct(line), *self.once(primitive.cells)]
            self.counts["total"] += 1
            return [z3.Distinct(line), z3.Sum(line) == primitive.total]
        if isinstance(primitive, Linear):
            self.counts["linear row"] += 1
            return [self.row(primitive)]
        if isinstance(primitive, Table):
            self.counts["table"] += 1
            return [self.table(primitive)]
        if isinstance(primitive, Implies):
            self.counts["implication"] += 1
            when = [self.literal(c, values) for c, values in primitive.when]
            return [z3.Implies(z3.And(when), self.row(primitive.then))]
        raise ValueError(f"smt: no translation of {type(primitive).__name__}")

    def once(self, cells: tuple[int, ...]) -> list[Any]:
        """A whole unit holds each value once: said outright, as an exactly-one over the
        unit, for each value a literal of its cells reads (without it z3 ties a sandwich's
        crusts to the sums between them late: 20 to 40 times the conflicts). Not for
        every value: on classic puzzles that costs more than it saves."""
        if len(cells) != self.size:
            return []
        values = sorted(set().union(*(self.read.get(c, ()) for c in cells)))
        xs = [self.cells[c] for c in cells]
        self.counts["exactly-one"] += len(values)
        return [self.z3.PbEq([(x == v, 1) for x in xs], 1) for v in values]

    def row(self, row: Linear) -> Any:
        """``low <= sum(terms) <= high``: a literal term counts through ``If``."""
        z3, one, zero = self.z3, self.z3.IntVal(1, self.ctx), self.z3.IntVal(0, self.ctx)
        if all(t.values is not None for t in row.terms):  # 0-1 literals alone: pseudo-Boolean
            weighted = [(self.literal(t.cell, t.values), t.coef) for t in row.terms]
            if row.low is not None and row.low == row.high:
                return z3.PbEq(weighted, row.low)
            bounds = ([z3.PbGe(weighted, row.low)] if row.low is not None else []) + (
                [z3.PbLe(weighted, row.high)] if row.high is not None else []
            )
            return bounds[0] if len(bounds) == 1 else z3.And(bounds)
        parts = []
        for t in row.terms:
            part = (
                self.cells[t.cell]
                if t.values is None
                else z3.If(self.literal(t.cell, t.values), one, zero)
            )
            parts.append(part if t.coef == 1 else t.coef * part)
        total = z3.Sum(parts)
        if row.low is not None and row.low == row.high:
            return total == row.low
        bounds = ([total >= row.low] if row.low is not None else []) + (
            [total <= row.high] if row.high is not None else []
        )
        return bounds[0] if len(bounds) == 1 else z3.And(bounds)

    def table(self, table: Table) -> Any:
        """The allowed tuples: a unary table as the cell's values; otherwise, for each value
        of the first cell, the tuples of the others it allows (none: the value is out)."""
        z3, xs = self.z3, [self.cells[c] for c in table.cells]
        if len(xs) == 1:
            return self.literal(table.cells[0], frozenset(v for (v,) in table.allowed))
        rest: dict[int, list[tuple[int, ...]]] = {}
        for values in sorted(table.allowed):
            rest.setdefault(values[0], []).append(values[1:])
        parts = []
        for u in range(1, self.size + 1):
            tails = rest.get(u)
            if tails is None:
                parts.append(xs[0] != u)
            else:
                options = [z3.And([x == v for x, v in zip(xs[1:], tail, strict=True)])
                           for tail in tails]  # fmt: skip
                parts.append(z3.Implies(xs[0] == u, z3.Or(options)))
        return z3.And(parts)

    def literal(self, cell: int, values: frozenset[int]) -> Any:
        """The Boolean "``cell`` holds one of ``values``"."""
        key = (cell, values)
        found = self.literals.get(key)
        if found is None:
            x = self.cells[cell]
            found = self.literals[key] = self.z3.Or([x == v for v in sorted(values)])
        return found
