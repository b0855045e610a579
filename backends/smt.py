"""z3 (the z3-solver package) as a backend: the model as SMT over linear integer arithmetic.

The encoding is the model's, nearly word for word:

- an integer variable per cell, between 1 and the size (a narrowed domain, as some
  variants give, keeps only its values);
- ``Distinct`` over the cells of every ``AllDifferent`` (rows, columns, boxes, and any
  variant's extra units or regions);
- for a killer cage, the ``Sum`` of its cells equal to its total (with ``Distinct``);
- each given as an equality ``cell == value``;
- each variant rule in z3's integer arithmetic (:func:`rule_terms`): ``<`` and ``<=``
  for thermometers, disjunctions of differences for kropki dots and whispers, sums for
  arrows, XV and little killers, renban as ``Distinct`` inside a window of consecutive
  values, a sandwich as a sum of ``If`` terms (a cell counts when one crust lies before
  it and the other after).

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
from typing import Any

from ..models import Grid, Model
from ..models.rules import KINDS
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
    kinds = frozenset({"alldifferent", "sum"} | set(KINDS))
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
            variant: list[Any] = []  # the variant rules' assertions, kept last
            for number, constraint in enumerate(model.constraints):
                check_deadline(deadline)  # a shape left half-made is not kept
                xs = [cells[i] for i in constraint.cells]
                if constraint.kind in ("alldifferent", "sum"):
                    rules.append(z3.Distinct(xs))
                if constraint.kind == "sum":
                    rules.append(z3.Sum(xs) == constraint.total)
                elif constraint.kind != "alldifferent":
                    variant += rule_terms(z3, ctx, cells, constraint, model.size, number)
            shape = shapes[key] = (cells, rules + variant, len(variant))
        cells, rules, self._local.variant = shape
        solver = z3.Solver(ctx=ctx) if logic == "default" else z3.SolverFor(logic, ctx=ctx)
        added = list(rules)
        for i, domain in enumerate(model.domains):
            if len(domain) == 1:
                added.append(cells[i] == domain[0])
            elif len(domain) < model.size:
                added.append(z3.Or([cells[i] == v for v in domain]))
        check_deadline(deadline)
        solver.add(added)
        self._local.added = added  # what describe counts (a solver may merge assertions)
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
        """The SMT problem this backend builds, counted off the solver's assertions."""
        _, cells = self.build(model)
        kinds: dict[str, int] = {}
        variant = self._local.variant
        # the givens and narrowed domains come after the shape's assertions, one each
        start = len(self._local.added) - sum(1 for d in model.domains if len(d) < model.size)
        unit_part = self._local.added[: start - variant] + self._local.added[start:]
        for assertion in unit_part:
            name = assertion.decl().name()
            if name == "=" and assertion.arg(0).decl().name() == "+":
                name = "sum"
            kinds[name] = kinds.get(name, 0) + 1
        distinct = kinds.pop("distinct", 0)
        sums = kinds.pop("sum", 0)
        bounds = kinds.pop("and", 0)
        givens = kinds.pop("=", 0)
        others = sum(kinds.values())
        return (
            f"smt: {len(cells)} Int ({bounds} bounded 1..{model.size}), {distinct} Distinct"
            + (f", {sums} Sum == total" if sums else "")
            + f", {givens} given(s) as equalities"
            + (f", {others} narrowed domain(s)" if others else "")
            + (f", {variant} variant rule assertion(s)" if variant else "")
            + f"; z3, logic {LOGICS[0]}"
        )


def rule_terms(z3: Any, ctx: Any, xs: list[Any], rule: Any, size: int, number: int) -> list[Any]:
    """The assertions of one variant rule (:mod:`sudokulab.models.rules`) over the cells'
    integers; ``number`` names the rule's own variables apart."""
    kind = rule.kind
    if kind == "sumequals":
        width = len(rule.targets)
        weights = [10 ** (width - 1 - i) if rule.digits else 1 for i in range(width)]
        left = z3.Sum([w * xs[c] for w, c in zip(weights, rule.targets, strict=True)])
        return [left == z3.Sum([xs[c] for c in rule.terms])]
    if kind == "littlekiller":
        return [z3.Sum([xs[c] for c in rule.line]) == rule.total]
    if kind == "parity":
        x = xs[rule.cell]
        return [z3.Or([x == v for v in range(1, size + 1) if v % 2 == (rule.parity == "odd")])]
    if kind == "consecutive":
        line = [xs[c] for c in rule.line]
        low = z3.Int(f"run{number}", ctx)  # the run's smallest value (bounded: QF_FD)
        window = [z3.And(low >= 1, low <= size - len(line) + 1), z3.Distinct(line)]
        return window + [z3.And(x >= low, x <= low + len(line) - 1) for x in line]
    if kind == "sandwich":
        line = [xs[c] for c in rule.line]
        terms = []
        for i, x in enumerate(line):
            before_one = z3.Or([y == 1 for y in line[:i]] or [z3.BoolVal(False, ctx)])
            before_top = z3.Or([y == size for y in line[:i]] or [z3.BoolVal(False, ctx)])
            after_one = z3.Or([y == 1 for y in line[i + 1 :]] or [z3.BoolVal(False, ctx)])
            after_top = z3.Or([y == size for y in line[i + 1 :]] or [z3.BoolVal(False, ctx)])
            inside = z3.Or(z3.And(before_one, after_top), z3.And(before_top, after_one))
            terms.append(z3.If(inside, x, 0))
        return [z3.Sum(terms) == rule.total]
    a, b = xs[rule.a], xs[rule.b]
    if kind == "less":
        return [a < b]
    if kind == "lessequal":
        return [a <= b]
    if kind == "notequal":
        return [a != b]
    if kind == "pairsum":
        return [a + b == rule.total]
    if kind == "difference":
        return [z3.Or(a - b == rule.k, b - a == rule.k)]
    if kind == "notdifference":
        return [z3.And(a - b != rule.k, b - a != rule.k)]
    if kind == "mindifference":
        return [z3.Or(a - b >= rule.k, b - a >= rule.k)]
    if kind == "ratio":
        return [z3.Or(a == rule.r * b, b == rule.r * a)]
    if kind == "notratio":
        return [z3.And(a != rule.r * b, b != rule.r * a)]
    raise ValueError(f"smt: no translation of {kind} constraints")
