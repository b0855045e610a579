"""The suite's covering designs: all_pairs covers every pair it can, and the knob-bearing
tests together still have every native backend, propagation level, order and value order
meet every other in at least one test (where the suite once ran their full product)."""

from __future__ import annotations

from itertools import combinations, product

import pytest
from helpers import all_pairs, design, pairs_of

from sudokulab.native.options import ORDERS, PROPAGATIONS, VALUES


def _allowed(row: dict) -> bool:
    return not (row["a"] == 0 and row["b"] == "y") and row["c"] != 2


FACTORS = {"a": [0, 1, 2], "b": ["x", "y"], "c": [0, 1, 2], "d": [True, False]}


def test_all_pairs_covers_every_pair_some_allowed_row_holds():
    rows = all_pairs(FACTORS, _allowed)
    everything = [dict(zip(FACTORS, v, strict=True)) for v in product(*FACTORS.values())]
    allowed = [r for r in everything if _allowed(r)]
    assert all(_allowed(r) for r in rows) and len(rows) < len(allowed)
    # every pair of values of two factors that some allowed row holds, counted here
    for f, g in combinations(FACTORS, 2):
        for x, y in product(FACTORS[f], FACTORS[g]):
            possible = any(r[f] == x and r[g] == y for r in allowed)
            covered = any(r[f] == x and r[g] == y for r in rows)
            assert covered == possible, (f, x, g, y)
    assert (0, "y") not in {(r["a"], r["b"]) for r in rows}  # never an excluded one
    assert rows == all_pairs(FACTORS, _allowed)  # the same design every time
    assert design(FACTORS, _allowed) == [tuple(r.values()) for r in rows]


def test_two_factors_are_their_whole_product():
    assert len(all_pairs({"a": range(4), "b": range(3)})) == 12


def _combinations(backend: str) -> set[tuple[str, str]]:
    """The (propagation, order) a native backend runs: the compiled core dom-wdeg only
    under the levels it runs it under, neither under none (its tests give it a budget)."""
    from helpers import core_combinations

    if backend == "native":
        return set(core_combinations())
    return {(p, o) for p in PROPAGATIONS for o in ORDERS if o != "dom-wdeg" or p != "none"}


def _knob_rows() -> list[dict]:
    """The rows of the suite's knob designs, each named by the native backend it runs:
    test_engine's through the API; the identity tests run both (the compiled core as
    `native`, the reference as `native-py`)."""
    pytest.importorskip("sudokulab.native._core", reason="the compiled core is not built")
    import test_core
    import test_core_cages
    import test_core_marks
    import test_core_sample17
    import test_engine

    rows = [dict(zip(("backend", "propagation", "order", "values"), r[:4], strict=True))
            for r in test_engine.DESIGN]  # fmt: skip
    identity = [
        *test_core.SET_DESIGN,
        *test_core.QUESTION_DESIGN,
        *test_core_cages.DESIGN,
        *test_core_marks.DESIGN,
        *test_core_sample17.SETTINGS,
    ]
    for propagation, order, values, *_ in identity:
        for backend in ("native", "native-py"):
            rows.append(
                {"backend": backend, "propagation": propagation, "order": order, "values": values}
            )
    return rows


def test_every_backend_level_order_and_value_order_meet_in_some_test():
    rows = _knob_rows()
    factors = {
        "backend": ["native", "native-py"],
        "propagation": PROPAGATIONS,
        "order": ORDERS,
        "values": VALUES,
    }
    wanted = pairs_of(
        [
            dict(zip(factors, v, strict=True))
            for v in product(*factors.values())
            if (v[1], v[2]) in _combinations(v[0])
        ]
    )
    missing = wanted - pairs_of([{k: r[k] for k in factors} for r in rows])
    assert not missing, sorted(missing)
    # and each backend runs every (propagation, order) it runs at all, in some test
    for backend in factors["backend"]:
        ran = {(r["propagation"], r["order"]) for r in rows if r["backend"] == backend}
        assert ran == _combinations(backend), backend
