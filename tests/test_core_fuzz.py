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
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sudokulab.models import geometry
from sudokulab.native import reference
from sudokulab.native.reference import ORDERS, PROPAGATIONS, Outcome

_core = pytest.importorskip(
    "sudokulab.native._core",
    reason="the compiled native core is not built (pip install -e . needs a C compiler)",
)

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


def agree(c_answer, size, units, givens, propagation, order, limit, keep, budget) -> None:
    """The core's answer (a tuple) equals the reference's with the same guess budget.

    Only a core search its (fuzzed) timeout stopped is not compared: the reference runs
    without a deadline, and where a clock stops a search is not reproducible.
    """
    out = Outcome(*c_answer)
    if out.timed_out:
        return
    ref = reference.search(
        size, units, givens, propagation, order, limit, None, keep, max_guesses=budget
    )
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
        answer = _core.search(tables, givens, propagation, order, 3, None, 3, BUDGET)
        agree(answer, size, shape, givens, propagation, order, 3, 3, BUDGET)


@FUZZ
@given(
    givens=st.one_of(
        junk,
        st.text(min_size=16, max_size=16),
        st.lists(st.integers(-2, 6), min_size=15, max_size=17),
        st.lists(st.one_of(st.integers(0, 4), junk), min_size=16, max_size=16),
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
    args = (givens, propagation, order, limit, timeout, keep, max_guesses)
    try:
        answer = _core.search(TABLES4, *args)
    except ERRORS:
        try:
            batch = _core.search_batch(TABLES4, [[0] * 16, givens], *args[1:])
        except ERRORS:
            return
        raise AssertionError(f"search refused {args!r}, search_batch took it: {batch!r}") from None
    assert len(answer) == 8  # the fields of an Outcome
    agree(answer, 4, units_of(4), list(givens), propagation, order, limit, keep, max_guesses)
    batch = _core.search_batch(TABLES4, [givens, givens], *args[1:])
    assert len(batch) == 2 and all(len(item) == 9 and item[8] >= 0 for item in batch)
    if not answer[3] and not any(item[3] for item in batch):  # none stopped by the clock
        assert [item[:8] for item in batch] == [answer, answer]


@FUZZ
@given(
    size=st.integers(1, 25),
    seed=st.integers(0, 2**32 - 1),
    shaped=st.booleans(),
    blank=st.floats(0.3, 1.0),
    knobs=st.sampled_from([(p, o) for p in PROPAGATIONS for o in ORDERS]),
    limit=st.sampled_from([1, 2, 5, None]),
)
def test_random_geometries_agree(size, seed, shaped, blank, knobs, limit):
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
    answer = _core.search(tables, givens, *knobs, limit, None, 4, BUDGET)
    agree(answer, size, units, givens, *knobs, limit, 4, BUDGET)
    batch = _core.search_batch(tables, [givens] * 2, *knobs, limit, None, 4, BUDGET)
    assert [item[:8] for item in batch] == [answer, answer]
