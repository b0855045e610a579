"""The CNF translator of the shared encodings: each primitive's clauses keep exactly the
grids the primitive keeps.

Random primitives over a 4x4 grid, including forms no rule decomposes into today (bounds
on both sides, negative coefficients, 0-1 literals, cells read twice, tables of three
cells, conditions on several values): the units' clauses and the primitive's are loaded
into a SAT solver, and each of the 288 solved 4x4 grids, assumed, must be satisfiable
exactly when the primitive holds on it.
"""

from __future__ import annotations

import random
from itertools import product

import pytest
from test_variant_kinds import all_4x4

from sudokulab.encodings import Distinct, Implies, Linear, Table, Term
from sudokulab.encodings import cnf as cnf_module
from sudokulab.encodings.cnf import RULES, UNIT_ALO, UNIT_AMO, value_sets
from sudokulab.models import build_model, parse_puzzle

pytest.importorskip("pysat")

N = 4
GRIDS = all_4x4()


def _values(rng: random.Random) -> frozenset[int]:
    return frozenset(rng.sample(range(1, N + 1), rng.randint(1, N - 1)))


def _term(rng: random.Random, cell: int) -> Term:
    coef = rng.choice([-3, -2, -1, 1, 2, 3])
    return Term(coef, cell, _values(rng) if rng.random() < 0.4 else None)


def _linear(rng: random.Random) -> Linear:
    cells = rng.sample(range(N * N), rng.randint(1, 5))
    terms = tuple(_term(rng, c) for c in cells)
    if rng.random() < 0.3:  # a cell read again, through a 0-1 literal
        terms += (Term(rng.choice([-1, 2]), cells[0], _values(rng)),)
    # bounds around a grid's value of the row, so that some grids keep it and some do not
    total = sum(t.value(rng.choice(GRIDS)) for t in terms)
    low = rng.choice([None, total - rng.randint(0, 3)])
    high = rng.choice([None, total + rng.randint(0, 3)])
    return Linear(terms, low, high if low is not None or high is not None else total)


def _table(rng: random.Random) -> Table:
    cells = tuple(rng.sample(range(N * N), rng.randint(1, 3)))
    if rng.random() < 0.2:
        cells += (cells[0],)  # a cell read twice: the tuples must agree on it
    tuples = list(product(range(1, N + 1), repeat=len(cells)))
    return Table(cells, frozenset(rng.sample(tuples, rng.randint(0, len(tuples)))))


def _implies(rng: random.Random) -> Implies:
    when = tuple((c, _values(rng)) for c in rng.sample(range(N * N), rng.randint(1, 2)))
    return Implies(when, _linear(rng))


def _distinct(rng: random.Random) -> Distinct:
    cells = tuple(rng.sample(range(N * N), rng.randint(2, 4)))
    total = rng.choice([None, sum(rng.sample(range(1, N + 1), len(cells)))])
    return Distinct(cells, total)


MAKERS = [_linear, _table, _implies, _distinct]


def _clauses(primitive) -> tuple[list[tuple[int, ...]], int]:
    """The clauses of a 4x4 grid's units (both ways) and of ``primitive``, and the last
    variable."""
    model = build_model(parse_puzzle("." * N * N))
    writer = cnf_module._Writer(N, N * N)
    for constraint in model.constraints:
        for p in cnf_module.decompose(constraint, N):
            writer.primitive(p, constraint.name)
    writer.primitive(primitive, "the primitive under test", True)
    clauses = [c for group in writer.groups.values() for c in group]
    return clauses, writer.top


@pytest.mark.parametrize("maker", MAKERS, ids=[m.__name__.strip("_") for m in MAKERS])
def test_each_primitive_keeps_exactly_the_grids_it_holds_on(maker):
    from pysat.solvers import Solver

    rng = random.Random(41)
    mixed = 0  # primitives some grids keep and others do not
    for _ in range(40):
        primitive = maker(rng)
        clauses, _ = _clauses(primitive)
        kept = sum(1 for grid in GRIDS if primitive.holds(grid))
        mixed += 0 < kept < len(GRIDS)
        with Solver(name="minisat22", bootstrap_with=clauses) as solver:
            for grid in GRIDS:
                assumed = [c * N + v for c, v in enumerate(grid)]
                assert solver.solve(assumptions=assumed) == primitive.holds(grid), primitive
    assert mixed >= 10


def test_a_units_line_said_again_by_a_rule_keeps_its_values_each_once():
    # A rule's whole line (a sandwich's) adds nothing twice, but keeps "at least once" in
    # the rule's own clauses, which every encoding writes
    writer = cnf_module._Writer(N, N * N)
    row = Distinct(tuple(range(N)))
    writer.primitive(row, "row 1")
    before = {k: len(v) for k, v in writer.groups.items()}
    writer.primitive(row, "a rule's line", True)
    assert len(writer.groups[UNIT_AMO]) == before[UNIT_AMO]
    assert len(writer.groups[UNIT_ALO]) == before[UNIT_ALO]
    assert writer.groups[RULES] == [tuple(c * N + v for c in range(N)) for v in range(1, N + 1)]


def test_value_sets_are_the_sets_of_distinct_values_adding_up():
    from itertools import combinations

    for size, cells in [(4, 2), (6, 3), (9, 2), (9, 4), (9, 7)]:
        for total in range(0, size * cells + 2):
            expected = [
                sum(1 << (v - 1) for v in values)
                for values in combinations(range(1, size + 1), cells)
                if sum(values) == total
            ]
            assert list(value_sets(size, cells, total)) == expected
    with pytest.raises(ValueError, match="a cage of 12 cells in a 25x25 grid has too many"):
        value_sets(25, 12, 150)
