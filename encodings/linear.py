"""The 0-1 program of a model, from its primitives: one translation for mip, highs, gurobi
and the LP, MPS and OPB exports.

Columns: a binary x(cell, value) for each value a cell may take (its domain, less the
values a one-cell table rules out; a given's one fixed to 1), and the auxiliary binaries
a table of three cells or more selects its tuple with. Rows ``lower <= sum(coef * x) <=
upper``: each cell one value, then each constraint's rows in the model's order
(:attr:`Program.spans`). A primitive becomes:

- :class:`.Distinct`: per value, at most one of its cells holds it (exactly one in a
  whole unit, as many cells as values; the same cells' rows made once); with a total,
  one row of ``v * x(cell, v)``;
- :class:`.Linear`: one row, a value term as ``coef * v * x(cell, v)`` over the cell's
  values, a literal as ``coef * x(cell, v)`` over its listed values;
- :class:`.Table`: a one-cell table removes columns; a pair table gets support rows,
  ``x(a, u) <=`` the sum of the ``x(b, w)`` that keep the table with u (each at least as
  tight as the forbidden pairs' ``x(a, u) + x(b, w) <= 1``); a longer one selects one
  allowed tuple, each ``x(cell, u)`` the sum of the selected tuples holding u there;
- :class:`.Implies`: its row relaxed by big-M, ``M = the row's reach past its bound`` (its
  terms' bounds over the cells' values) times the number of guards not met, ``k - sum of
  the guards' x``: a cell takes one value, so that sum counts the guards met.

Plain data, for any solver to load (:func:`program`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..models.model import AllDifferent, Sum
from .decompose import decompose_model
from .primitives import Distinct, Implies, Linear, Primitive, Table

INF = float("inf")

#: How describe names the rows, by what made them (the cells' rows come first).
CELLS, UNITS, CAGES, RULES = (
    "one value per cell",
    "each value once per unit",
    "cage",
    "variant rules",
)


class Row(NamedTuple):
    """One linear row of the program: ``lower <= sum(coefs * x[columns]) <= upper``."""

    lower: float
    upper: float
    columns: tuple[int, ...]
    coefs: tuple[float, ...]


@dataclass
class Program:
    """The 0-1 program of a model: each column's (cell, value) (None for an auxiliary
    column), the columns fixed to 1 (a given's), the rows, each constraint with the number
    of rows it made (in the model's order, after the cells' rows) and each row's label
    (``v<value>`` or ``total`` for a distinct row, else ""); ``x[cell][value]`` is the
    column of x(cell, value)."""

    columns: list[tuple[int, int] | None] = field(default_factory=list)
    fixed: list[int] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    spans: list[tuple[Any, int]] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    x: list[dict[int, int]] = field(default_factory=list)

    @property
    def kinds(self) -> dict[str, int]:
        """The rows counted by what made them: the cells, units, cages and variant rules."""
        counts = {CELLS: len(self.x), UNITS: 0, CAGES: 0, RULES: 0}
        for constraint, count in self.spans:
            what = (
                UNITS if isinstance(constraint, AllDifferent)
                else CAGES if isinstance(constraint, Sum) else RULES
            )  # fmt: skip
            counts[what] += count
        return counts

    def summary(self, rows: str = "linear rows") -> str:
        """What the program holds, counted: its columns and its ``rows`` by what made them."""
        aux = sum(1 for pair in self.columns if pair is None)
        cells = len(self.columns) - aux
        parts = ", ".join(f"{count} {what}" for what, count in self.kinds.items() if count)
        more = f" and {aux} auxiliary binaries" if aux else ""
        return (
            f"{cells} binary x(cell, value) ({len(self.fixed)} fixed to 1 by a given){more}, "
            f"{len(self.rows)} {rows} ({parts})"
        )

    def grid(self, values: Iterable[float], cells: int) -> tuple[int, ...]:
        """The grid a solution's column values spell (a column above 0.5 is set)."""
        grid = [0] * cells
        for pair, x in zip(self.columns, values, strict=True):
            if pair is not None and x > 0.5:
                grid[pair[0]] = pair[1]
        return tuple(grid)

    def cut(self, grid: tuple[int, ...], open_cells: list[int]) -> Row:
        """The no-good row that forbids ``grid``: at most all but one of its open cells'
        x(cell, value) set."""
        columns = tuple(self.x[c][grid[c]] for c in open_cells)
        return Row(-INF, len(open_cells) - 1, columns, (1.0,) * len(columns))

    def _row(self, terms: Iterable[tuple[int, float]], lower: float, upper: float) -> None:
        """Add ``lower <= sum(coef * x) <= upper``, a column's terms added together."""
        merged: dict[int, float] = {}
        for column, coef in terms:
            merged[column] = merged.get(column, 0) + coef
        merged = {c: a for c, a in merged.items() if a}
        self.rows.append(Row(lower, upper, tuple(merged), tuple(merged.values())))
        self.labels.append("")

    def _ones(self, columns: tuple[int, ...], lower: float, label: str = "") -> None:
        """Add ``lower <= sum(x[columns]) <= 1`` over distinct columns (no merging)."""
        self.rows.append(Row(lower, 1, columns, (1.0,) * len(columns)))
        self.labels.append(label)


def program(model: Any, step: Callable[[], None] | None = None) -> Program:
    """The 0-1 program of ``model``; ``step`` is called before each constraint (a build's
    deadline check). ValueError naming the constraint for a primitive it cannot translate."""
    parts = decompose_model(model)
    size = model.size
    domains = [set(d) for d in model.domains]
    for _, primitives in parts:  # one-cell tables narrow the domains before any row
        for p in primitives:
            if isinstance(p, Table) and len(p.cells) == 1:
                domains[p.cells[0]] &= {t[0] for t in p.allowed}
    prog = Program()
    for cell, domain in enumerate(model.domains):
        prog.x.append({})
        for value in domain:
            if value in domains[cell]:
                prog.x[cell][value] = len(prog.columns)
                prog.columns.append((cell, value))
        if len(domain) == 1 and prog.x[cell]:
            prog.fixed.append(prog.x[cell][domain[0]])
    for values in prog.x:
        prog._ones(tuple(values.values()), 1)
    seen: set[frozenset[int]] = set()  # a sandwich's line is a unit: its rows are there
    for constraint, primitives in parts:
        if step is not None:
            step()
        before = len(prog.rows)
        for p in primitives:
            if isinstance(p, Distinct) and p.total is None:
                if frozenset(p.cells) in seen:
                    continue
                seen.add(frozenset(p.cells))
            _translate(prog, p, size, constraint)
        prog.spans.append((constraint, len(prog.rows) - before))
    return prog


def _translate(prog: Program, p: Primitive, size: int, constraint: Any) -> None:
    x = prog.x
    if isinstance(p, Distinct):
        whole = len(p.cells) == size
        held: dict[int, list[int]] = {}
        for c in p.cells:
            for v, i in x[c].items():
                held.setdefault(v, []).append(i)
        for v in sorted(held):
            if whole or len(held[v]) > 1 or p.total is not None:
                prog._ones(tuple(held[v]), 1 if whole else 0, f"v{v}")
        if p.total is not None:
            terms = [(i, v) for c in p.cells for v, i in x[c].items()]
            prog._row(terms, p.total, p.total)
            prog.labels[-1] = "total"
    elif isinstance(p, Linear):
        prog._row(_terms(x, p), _bound(p.low, -INF), _bound(p.high, INF))
    elif isinstance(p, Table):
        _table(prog, p)
    elif isinstance(p, Implies):
        _implies(prog, p)
    else:
        raise ValueError(f"{constraint.name}: no 0-1 row for {type(p).__name__}")


def _bound(value: int | None, missing: float) -> float:
    return missing if value is None else value


def _terms(x: list[dict[int, int]], row: Linear) -> list[tuple[int, float]]:
    """A linear row's terms over the columns: a value term ``coef * v`` on each of its
    cell's columns, a literal ``coef`` on the columns of its values."""
    out: list[tuple[int, float]] = []
    for t in row.terms:
        for v, i in x[t.cell].items():
            if t.values is None:
                out.append((i, t.coef * v))
            elif v in t.values:
                out.append((i, t.coef))
    return out


def _reach(x: list[dict[int, int]], row: Linear) -> tuple[float, float]:
    """The least and the most the row's sum can be: each cell takes one of its values."""
    by_cell: dict[int, dict[int, float]] = {}
    for t in row.terms:
        per = by_cell.setdefault(t.cell, {v: 0.0 for v in x[t.cell]})
        for v in per:
            if t.values is None:
                per[v] += t.coef * v
            elif v in t.values:
                per[v] += t.coef
    low = sum(min(per.values(), default=0) for per in by_cell.values())
    high = sum(max(per.values(), default=0) for per in by_cell.values())
    return low, high


def _table(prog: Program, p: Table) -> None:
    x = prog.x
    if len(p.cells) == 1:
        return  # the columns it rules out were never made
    if len(p.cells) == 2:
        a, b = p.cells
        for mine, other, side in ((a, b, 0), (b, a, 1)):
            for u, column in x[mine].items():
                keep = {t[1 - side] for t in p.allowed if t[side] == u}
                support = [(i, -1) for w, i in x[other].items() if w in keep]
                if len(support) < len(x[other]):  # else the row says nothing
                    prog._row([(column, 1), *support], -INF, 0)
        return
    # a longer table: one selected tuple among those the domains allow
    tuples = [t for t in p.allowed if all(v in x[c] for c, v in zip(p.cells, t, strict=True))]
    chosen = []
    for _ in tuples:
        chosen.append(len(prog.columns))
        prog.columns.append(None)
    prog._ones(tuple(chosen), 1)
    for k, cell in enumerate(p.cells):
        for u, column in x[cell].items():
            picks = [(i, -1) for i, t in zip(chosen, tuples, strict=True) if t[k] == u]
            prog._row([(column, 1), *picks], 0, 0)


def _implies(prog: Program, p: Implies) -> None:
    """``then`` relaxed by big-M times the guards not met."""
    x = prog.x
    guards = [(x[c][v], 1) for c, values in p.when for v in values if v in x[c]]
    k = len(p.when)
    terms = _terms(x, p.then)
    low, high = _reach(x, p.then)
    if p.then.high is not None and high > p.then.high:
        m = high - p.then.high  # sum + m * met <= high + m * k
        prog._row(terms + [(i, m * a) for i, a in guards], -INF, p.then.high + m * k)
    if p.then.low is not None and low < p.then.low:
        m = p.then.low - low  # sum - m * met >= low - m * k
        prog._row(terms + [(i, -m * a) for i, a in guards], p.then.low - m * k, INF)
