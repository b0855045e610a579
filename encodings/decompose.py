"""Each constraint kind decomposed once into primitives (:mod:`.primitives`).

:data:`DECOMPOSITIONS` holds, for every kind a model can hold (units ``alldifferent``,
killer cages ``sum`` and the variant rules of :mod:`sudokulab.models.rules`), the function
that decomposes one constraint of that kind and the primitive types it uses. A backend
says which primitive types it translates; :func:`accepted_kinds` turns that into the
kinds it takes. Adding a kind is one entry here (docs/guides/adding-a-constraint.md).

Every decomposition keeps exactly the grids its constraint's ``holds`` keeps, among the
grids whose units hold (a sandwich's line is a row or a column): tests/test_encodings.py
checks that on random grids.

>>> from sudokulab.models.rules import Less
>>> row, = decompose(Less(0, 1), 9)  # x0 - x1 <= -1
>>> [(t.coef, t.cell) for t in row.terms], row.low, row.high
([(1, 0), (-1, 1)], None, -1)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from functools import lru_cache
from itertools import combinations
from typing import Any

from .primitives import Distinct, Implies, Linear, Primitive, Table, Term

Decomposition = Callable[[Any, int], tuple[Primitive, ...]]


def _values(cells: Iterable[int], coef: int = 1) -> tuple[Term, ...]:
    return tuple(Term(coef, c) for c in cells)


def _merged(terms: Iterable[Term]) -> tuple[Term, ...]:
    """The terms with one term per (cell, values): a cell read twice adds its coefficients."""
    coefs: dict[tuple[int, frozenset[int] | None], int] = {}
    for t in terms:
        coefs[t.cell, t.values] = coefs.get((t.cell, t.values), 0) + t.coef
    return tuple(Term(coef, cell, values) for (cell, values), coef in coefs.items() if coef)


def _pair_table(rule: Any, size: int) -> Table:
    """The value pairs a two-cell rule allows, read off its own ``holds``."""
    probe = dataclasses.replace(rule, a=0, b=1)
    values = range(1, size + 1)
    allowed = frozenset((u, v) for u in values for v in values if probe.holds((u, v)))
    return Table((rule.a, rule.b), allowed)


def _unit(c: Any, size: int) -> tuple[Primitive, ...]:
    return (Distinct(c.cells),)


def _cage(c: Any, size: int) -> tuple[Primitive, ...]:
    return (Distinct(c.cells, c.total),)


def _less(r: Any, size: int) -> tuple[Primitive, ...]:
    return (Linear((Term(1, r.a), Term(-1, r.b)), high=-1),)


def _less_equal(r: Any, size: int) -> tuple[Primitive, ...]:
    return (Linear((Term(1, r.a), Term(-1, r.b)), high=0),)


def _pair_sum(r: Any, size: int) -> tuple[Primitive, ...]:
    return (Linear(_merged(_values((r.a, r.b))), r.total, r.total),)


def _not_equal(r: Any, size: int) -> tuple[Primitive, ...]:
    return (Distinct((r.a, r.b)),)


def _table(r: Any, size: int) -> tuple[Primitive, ...]:
    return (_pair_table(r, size),)


def _parity(r: Any, size: int) -> tuple[Primitive, ...]:
    odd = r.parity == "odd"
    return (Table((r.cell,), frozenset((v,) for v in range(1, size + 1) if v % 2 == odd)),)


def _sum_equals(r: Any, size: int) -> tuple[Primitive, ...]:
    width = len(r.targets)
    left = [Term(10 ** (width - 1 - i) if r.digits else 1, c) for i, c in enumerate(r.targets)]
    return (Linear(_merged(left + list(_values(r.terms, -1))), 0, 0),)


def _little_killer(r: Any, size: int) -> tuple[Primitive, ...]:
    return (Linear(_merged(_values(r.line)), r.total, r.total),)


def _consecutive(r: Any, size: int) -> tuple[Primitive, ...]:
    """Distinct values, each two within the run's length of each other: a run."""
    span = len(r.line) - 1
    values = range(1, size + 1)
    near = frozenset((u, v) for u in values for v in values if u != v and abs(u - v) <= span)
    return (Distinct(r.line), *(Table((a, b), near) for a, b in combinations(r.line, 2)))


def _sandwich(r: Any, size: int) -> tuple[Primitive, ...]:
    """The line's values are distinct (a row or column: 1 and ``high`` are in it); for the
    crusts at positions i < j, the cells between add up to the total, or, when no set of
    that many distinct values between the crusts' makes the total, no crusts there."""
    line, high, total = r.line, r.high, r.total
    crust = frozenset({1, high})
    out: list[Primitive] = [Distinct(line)]
    for i, j in combinations(range(len(line)), 2):
        k = j - i - 1  # the filling's length, its values from 2..high-1
        least, most = sum(range(2, k + 2)), sum(range(high - k, high))
        if not least <= total <= most:
            crusts = (Term(1, line[i], crust), Term(1, line[j], crust))
            out.append(Linear(crusts, high=1))
        elif k:
            row = Linear(_values(line[i + 1 : j]), total, total)
            out.append(Implies(((line[i], crust), (line[j], crust)), row))
    return tuple(out)


def _entropic(r: Any, size: int) -> tuple[Primitive, ...]:
    """Cells one or two apart on the line hold values of different groups (three
    successive cells then hold one of each); a line of fewer than three says nothing."""
    if len(r.line) < 3:
        return ()
    values = range(1, size + 1)
    apart = frozenset((u, v) for u in values for v in values if r.group(u) != r.group(v))
    line = r.line
    pairs = [(line[i], line[j]) for i in range(len(line)) for j in (i + 1, i + 2) if j < len(line)]
    return tuple(Table(pair, apart) for pair in pairs)


#: Every kind: how one constraint of it is decomposed, and the primitive types it uses.
DECOMPOSITIONS: dict[str, tuple[Decomposition, frozenset[type]]] = {
    "alldifferent": (_unit, frozenset({Distinct})),
    "sum": (_cage, frozenset({Distinct})),
    "less": (_less, frozenset({Linear})),
    "lessequal": (_less_equal, frozenset({Linear})),
    "pairsum": (_pair_sum, frozenset({Linear})),
    "notequal": (_not_equal, frozenset({Distinct})),
    "difference": (_table, frozenset({Table})),
    "notdifference": (_table, frozenset({Table})),
    "mindifference": (_table, frozenset({Table})),
    "ratio": (_table, frozenset({Table})),
    "notratio": (_table, frozenset({Table})),
    "parity": (_parity, frozenset({Table})),
    "sumequals": (_sum_equals, frozenset({Linear})),
    "littlekiller": (_little_killer, frozenset({Linear})),
    "consecutive": (_consecutive, frozenset({Distinct, Table})),
    "sandwich": (_sandwich, frozenset({Distinct, Linear, Implies})),
    "entropic": (_entropic, frozenset({Table})),
}


@lru_cache(maxsize=4096)
def decompose(constraint: Any, size: int) -> tuple[Primitive, ...]:
    """The primitives of one constraint of a ``size`` x ``size`` grid.

    ValueError naming the kind when it has no decomposition."""
    entry = DECOMPOSITIONS.get(constraint.kind)
    if entry is None:
        raise ValueError(f"no decomposition of {constraint.kind} constraints")
    return entry[0](constraint, size)


def decompose_model(model: Any) -> tuple[tuple[Any, tuple[Primitive, ...]], ...]:
    """Each constraint of ``model`` with its primitives, in the model's order."""
    return tuple((c, decompose(c, model.size)) for c in model.constraints)


def accepted_kinds(types: Iterable[type]) -> frozenset[str]:
    """The kinds whose decompositions use only primitives of ``types``."""
    have = frozenset(types)
    return frozenset(kind for kind, (_, uses) in DECOMPOSITIONS.items() if uses <= have)
