"""Batches: many grids in one engine call give what one call per grid gives."""

from __future__ import annotations

import dataclasses
import time

import pytest

from sudokulab import native, read_file
from sudokulab.backends import get_backend
from sudokulab.models import build_model, geometry, is_solution
from sudokulab.native import Timed, _search_batch_py, reference
from sudokulab.native.reference import ORDERS, PROPAGATIONS

FAST = [
    (p, o) for p in PROPAGATIONS for o in ORDERS if p == "hidden" or (p, o) == ("singles", "mrv")
]


def units_of(size: int) -> tuple[tuple[int, ...], ...]:
    return tuple(u.cells for u in geometry(size).units)


@pytest.mark.parametrize(("propagation", "order"), FAST)
@pytest.mark.parametrize("limit", [1, 2])
def test_batch_equals_single_calls_on_a_set(data_dir, propagation, order, limit):
    entries = read_file(data_dir / "norvig-pytudes" / "sudoku-top95.txt")
    units = units_of(9)
    puzzles = [e.puzzle.givens for e in entries]
    batch = native.search_batch(9, units, puzzles, propagation, order, limit, 10.0)
    assert len(batch) == len(puzzles) and all(isinstance(t, Timed) for t in batch)
    for entry, timed in zip(entries, batch, strict=True):
        single = native.search(9, units, entry.puzzle.givens, propagation, order, limit)
        assert timed.outcome == single
        assert single.count == 1 and is_solution(entry.puzzle, single.solutions[0])
        assert 0 < timed.seconds < 10
    # The fallback (the reference, puzzle by puzzle) answers the same, field for field.
    slow = _search_batch_py(9, units, puzzles[:10], propagation, order, limit, 10.0)
    assert [t.outcome for t in slow] == [t.outcome for t in batch[:10]]


def test_batch_timeout_is_per_puzzle():
    # Counting the empty 16x16 grid never ends: each puzzle stops at its own deadline.
    units = units_of(16)
    start = time.perf_counter()
    for search_batch in {native.search_batch, _search_batch_py}:
        out = search_batch(16, units, [[0] * 256] * 3, limit=None, timeout=0.1, keep=2)
        assert [t.outcome.timed_out for t in out] == [True] * 3
        assert all(t.outcome.count > 0 and len(t.outcome.solutions) == 2 for t in out)
        assert all(0.09 < t.seconds < 0.6 for t in out)
    assert time.perf_counter() - start < 4
    # Mixed: a quick puzzle between two endless ones still gets its whole count.
    quick = list(reference.search(16, units, [0] * 256, limit=1).solutions[0])
    quick[:40] = [0] * 40
    out = native.search_batch(16, units, [[0] * 256, quick, [0] * 256], limit=None, timeout=0.2)
    assert out[0].outcome.timed_out and out[2].outcome.timed_out
    assert out[1].outcome == reference.search(16, units, quick, limit=None)
    assert out[1].outcome.complete and out[1].outcome.count >= 1


@pytest.mark.skipif(native.ENGINE != "c", reason="the compiled core is not running")
def test_batch_errors_name_the_puzzle():
    from sudokulab.native import _core

    tables = _core.Tables(4, units_of(4))
    good = [0] * 16
    cases = [
        ([good, [0] * 15], ValueError, "puzzle 1: givens must hold 16 values, got 15"),
        ([good, good, [5] + [0] * 15], ValueError, "puzzle 2: a given must be in 0..4"),
        ([None], TypeError, "puzzle 0: givens must be a sequence"),
        (7, TypeError, "puzzles must be a sequence"),
    ]
    for puzzles, error, message in cases:
        with pytest.raises(error, match=message):
            _core.search_batch(tables, puzzles, "hidden", "mrv", 1, None, 10)
    with pytest.raises(ValueError, match="limit must be at least 1"):
        native.search_batch(4, units_of(4), [good], limit=0)
    with pytest.raises(ValueError, match="unknown order"):
        native.search_batch(4, units_of(4), [good], order="last")
    assert native.search_batch(4, units_of(4), []) == []


@pytest.mark.parametrize("name", ["native", "native-py"])
def test_backend_batch_equals_solve(data_dir, name):
    backend = get_backend(name)
    assert backend.batch and backend.stops_itself
    entries = read_file(data_dir / "norvig-pytudes" / "sudoku-hardest.txt")
    models = [build_model(e.puzzle) for e in entries]
    models.insert(
        3, build_model(read_file(data_dir / "norvig-pytudes" / "sudoku-easy50.txt")[0].puzzle)
    )
    for options in ({}, {"order": "first"}):
        batch = backend.solve_batch(models, 2, 10.0, **options)
        singles = [backend.solve(m, 2, 10.0, **options) for m in models]
        for b, s in zip(batch, singles, strict=True):
            assert dataclasses.replace(b, solve_time=0) == dataclasses.replace(s, solve_time=0)
            assert b.status == "solved" and b.unique
