"""Fuzzing the compiled core: junk in gives a Python exception, anything else the reference.

Random strings and values of the wrong type, wrong lengths, out-of-range and huge numbers,
units with out-of-range, duplicate or missing cells, and random geometries (the model's
shapes and random unit lists, sizes 1..25) with random givens. The core must never crash:
either it raises TypeError, ValueError or OverflowError, or it answers exactly what the
Python reference answers. ``.ci/sanitize`` runs this file against a build with
AddressSanitizer and UndefinedBehaviorSanitizer, where a bad read or write aborts.
"""

from __future__ import annotations

import random

import pytest
from helpers import core_combinations
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sudokulab.models import geometry
from sudokulab.native import reference
from sudokulab.native.options import ORDERS, PROPAGATIONS

_core = pytest.importorskip(
    "sudokulab.native._core",
    reason="the compiled native core is not built (pip install -e . needs a C compiler)",
)
compiled = pytest.importorskip("sudokulab.native.compiled")
pytestmark = pytest.mark.core

ERRORS = (TypeError, ValueError, OverflowError)
SHAPES = (4, 6, 8, 9, 12, 16, 25)  # what sudokulab.models.geometry builds
FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=6),
    st.binary(max_size=6),
    st.lists(st.integers(-3, 30), max_size=4),
    st.just(object()),
)


def units_of(size: int) -> tuple[tuple[int, ...], ...]:
    return tuple(u.cells for u in geometry(size).units)


TABLES4 = _core.Tables(4, units_of(4))


#: Guesses per search, for both implementations: a fraction of a second of reference
#: search on the largest grids, and the same stopping point in both.
BUDGET = 500


def search(tables, givens, cells, **knobs):
    """The core's outcomes for a buffer of puzzles."""
    return compiled.outcomes(*_core.search(tables, givens, **knobs), cells)


def agree(out, size, units, givens, propagation, order, limit, keep, budget) -> None:
    """The core's outcome equals the reference's with the same guess budget.

    Only a core search its (fuzzed) timeout stopped is not compared: the reference runs
    without a deadline, and where a clock stops a search is not reproducible.
    """
    if out.timed_out:
        return
    engine = reference.Engine(size, units, propagation, order)
    ref = engine.search(givens, limit, None, keep, max_guesses=budget)
    assert out == ref, (size, units, givens, propagation, order, limit, keep, budget)


@FUZZ
@given(
    size=st.one_of(st.integers(-3, 30), junk),
    units=st.one_of(
        junk,
        st.lists(
            st.one_of(junk, st.lists(st.one_of(st.integers(-3, 40), junk), max_size=10)),
            max_size=12,
        ),
    ),
)
def test_junk_tables_raise_or_agree(size, units):
    try:
        tables = _core.Tables(size, units)
    except ERRORS:
        return
    shape = tuple(tuple(u) for u in units)
    assert tables.size == size and tables.units == shape
    assert tables.peers == reference.tables(size, shape).peers
    givens = [0] * (size * size)
    for propagation, order in (("hidden", "mrv"), ("forward", "first")):
        knobs = {"limit": 3, "keep": 3, "max_guesses": BUDGET}
        (out,) = search(tables, bytes(givens), size * size, propagation=propagation,
                        order=order, **knobs)  # fmt: skip
        agree(out, size, shape, givens, propagation, order, 3, 3, BUDGET)


@FUZZ
@given(
    givens=st.one_of(
        junk,
        st.text(min_size=16, max_size=16),
        st.binary(max_size=40),  # whole puzzles or not, values in range or not
        st.lists(st.integers(0, 6), min_size=16, max_size=16).map(bytes),
        st.lists(st.integers(0, 4), min_size=32, max_size=32).map(bytearray),
        st.lists(st.integers(0, 4), min_size=16, max_size=16),  # not a buffer
    ),
    propagation=st.one_of(st.sampled_from(PROPAGATIONS), junk),
    order=st.one_of(st.sampled_from(ORDERS), junk),
    limit=st.one_of(st.none(), st.integers(-3, 5), st.just(2**80), st.just(-(2**80)), junk),
    timeout=st.one_of(st.none(), st.floats(-1, 0.05), st.just(float("nan")), junk),
    keep=st.one_of(st.integers(-3, 5), st.just(2**80), st.just(-(2**80)), junk),
    max_guesses=st.one_of(st.none(), st.integers(-3, 300), st.just(2**80), st.just(-(2**80)), junk),
)
def test_junk_search_arguments_raise_or_agree(
    givens, propagation, order, limit, timeout, keep, max_guesses
):
    knobs = {"propagation": propagation, "order": order, "limit": limit, "timeout": timeout,
             "keep": keep, "max_guesses": max_guesses}  # fmt: skip
    try:
        outs = search(TABLES4, givens, 16, **knobs)
    except ERRORS:
        return
    assert not isinstance(givens, str)
    data = bytes(givens)  # taken: whole puzzles (a buffer or ints), every value in 0..4
    assert len(data) % 16 == 0 and max(data, default=0) <= 4 and len(outs) == len(data) // 16
    for i, out in enumerate(outs):
        puzzle = list(data[16 * i : 16 * (i + 1)])
        agree(out, 4, units_of(4), puzzle, propagation, order, limit, keep, max_guesses)
    if outs and not any(out.timed_out for out in outs):  # none stopped by the clock
        assert search(TABLES4, data[:16] * 2, 16, **knobs) == [outs[0]] * 2


ENGINE4 = compiled.Engine(4, units_of(4))


@FUZZ
@given(
    givens=st.one_of(
        junk,
        st.text(min_size=16, max_size=16),
        st.lists(st.integers(-2, 6), min_size=15, max_size=17),
        st.lists(st.one_of(st.integers(0, 4), junk), min_size=16, max_size=16),
    )
)
def test_junk_givens_of_one_puzzle_raise_or_agree(givens):
    try:
        out = ENGINE4.search(givens, 2, keep=3, max_guesses=BUDGET)
    except ERRORS:
        return
    assert len(givens) == 16 and all(0 <= v <= 4 for v in givens)
    agree(out, 4, units_of(4), list(givens), "hidden", "mrv", 2, 3, BUDGET)


@FUZZ
@given(
    size=st.integers(1, 25),
    seed=st.integers(0, 2**32 - 1),
    shaped=st.booleans(),
    blank=st.floats(0.3, 1.0),
    knobs=st.sampled_from(core_combinations()),
    limit=st.sampled_from([1, 2, 5, None]),
)
def test_random_geometries_agree(size, seed, shaped, blank, knobs, limit):
    if knobs[0] in ("ac3", "gac", "sac") and size > 9:  # the reference's pace: hours at 25
        size = 4 + size % 6
    rng = random.Random(seed)
    cells = size * size
    if shaped and size in SHAPES:
        units = units_of(size)
    else:  # a random list of units: random cells, some shared, some in no unit at all
        units = tuple(tuple(rng.sample(range(cells), size)) for _ in range(rng.randint(0, 12)))
    # Random givens, consistent or not: most clash, some leave a search to do.
    givens = [0 if rng.random() < blank else rng.randint(1, size) for _ in range(cells)]
    if limit is None:
        limit = 20
    tables = _core.Tables(size, units)
    propagation, order = knobs
    run = {"propagation": propagation, "order": order, "limit": limit, "keep": 4,
           "max_guesses": BUDGET}  # fmt: skip
    (out,) = search(tables, bytes(givens), cells, **run)
    agree(out, size, units, givens, *knobs, limit, 4, BUDGET)
    assert search(tables, bytes(givens) * 2, cells, **run) == [out, out]
