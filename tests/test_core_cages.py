"""Killer cages in the compiled core: the reference's answers and counters, field for field."""

from __future__ import annotations

import random

import pytest
from helpers import core_combinations, design, killer_cages, random_cages, random_solution
from hypothesis import given, settings
from hypothesis import strategies as st

from sudokulab.models import geometry
from sudokulab.native import reference
from sudokulab.native.options import ORDERS, PROPAGATIONS, VALUES

pytestmark = pytest.mark.core

COMBINATIONS = core_combinations()


def units_of(size: int) -> tuple[tuple[int, ...], ...]:
    return tuple(u.cells for u in geometry(size).units)


_core = pytest.importorskip("sudokulab.native._core", reason="the compiled core is not built")
compiled = pytest.importorskip("sudokulab.native.compiled")


def c_search(size, givens, propagation, order, limit, cages, max_guesses=None, values="natural"):
    """The compiled engine, whatever engine the seam chose."""
    engine = compiled.Engine(size, units_of(size), propagation, order, cages, values=values)
    return engine.search(givens, limit, max_guesses=max_guesses)


def ref_search(size, givens, propagation, order, limit, cages, max_guesses=None, values="natural"):
    """The reference engine."""
    engine = reference.Engine(size, units_of(size), propagation, order, cages, values=values)
    return engine.search(givens, limit, max_guesses=max_guesses)


#: Every (propagation, order, value order) meets every grid size and the budgets, and
#: each other, in one test (all pairs, tests/helpers.py).
DESIGN = design(
    {
        "propagation": PROPAGATIONS,
        "order": ORDERS,
        "values": VALUES,
        "question": [4, 6, 9, "budgets"],
    },
    lambda row: (row["propagation"], row["order"]) in COMBINATIONS,
)


@pytest.mark.parametrize(("propagation", "order", "values", "question"), DESIGN)
def test_the_core_matches_the_reference_on_killer_grids(propagation, order, values, question):
    if question == "budgets":
        _a_budget_stops_killer_searches_at_the_same_guess(propagation, order, values)
        return
    size = question
    rng = random.Random(size * 31 + len(propagation) * 7 + len(order))
    for _ in range(8 if size < 9 else 4):
        solution = random_solution(size, rng)
        cages = killer_cages(solution, random_cages(solution, rng))
        keep = 0.6 if propagation in ("none", "forward") else 0.2
        givens = [v if rng.random() < keep else 0 for v in solution]
        ref = ref_search(size, givens, propagation, order, 3, cages, values=values)
        out = c_search(size, givens, propagation, order, 3, cages, values=values)
        assert out == ref
        assert tuple(solution) in out.solutions or out.count == 3


def _a_budget_stops_killer_searches_at_the_same_guess(propagation, order, values):
    # Budgets of no guess, one, half the search, one short of it and exactly it.
    rng = random.Random(len(propagation) * 3 + len(order))
    for size, keep in ((4, 0.0), (6, 0.2), (9, 0.4)):
        solution = random_solution(size, rng)
        cages = killer_cages(solution, random_cages(solution, rng))
        givens = [v if rng.random() < keep else 0 for v in solution]
        knobs = {"values": values}
        n = c_search(size, givens, propagation, order, 3, cages, **knobs).guesses
        for budget in sorted({0, 1, n // 2, max(n - 1, 0), n}):
            ref = ref_search(size, givens, propagation, order, 3, cages, budget, **knobs)
            assert c_search(size, givens, propagation, order, 3, cages, budget, **knobs) == ref
            assert ref.budget_spent is (budget < n)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    knobs=st.sampled_from(COMBINATIONS),
    largest=st.integers(1, 5),
    blank=st.floats(0.3, 1.0),
)
def test_property_random_killer_grids_are_identical(seed, knobs, largest, blank):
    rng = random.Random(seed)
    size = 4 if blank > 0.6 else 6
    solution = random_solution(size, rng)
    cages = killer_cages(solution, random_cages(solution, rng, largest))
    givens = [0 if rng.random() < blank else v for v in solution]
    ref = ref_search(size, givens, *knobs, 5, cages)
    assert c_search(size, givens, *knobs, 5, cages) == ref


def test_the_core_rejects_malformed_cages_like_the_reference():
    for bad in [(((0, 0), 3),), (((0, 1), 3), ((1, 2), 3)), (((0, 16), 3),), (((), 3),)]:
        with pytest.raises(ValueError) as ref_err:
            reference.Engine(4, units_of(4), cages=bad)
        with pytest.raises(ValueError) as c_err:
            compiled.Engine(4, units_of(4), cages=bad)
        assert str(c_err.value) == str(ref_err.value)


@pytest.mark.parametrize(
    "cages",
    [
        "not a list",
        [((0, 1),)],
        [((0, 1), (1, 2))],  # value sets of one value for two cells
        [((0, 99), (3,))],
        [((0, 1), (1 << 30,))],
        [((0, 1), ("x",))],
    ],
)
def test_core_tables_refuse_junk_cages_with_python_errors(cages):
    with pytest.raises((TypeError, ValueError)):
        _core.Tables(4, units_of(4), cages)
