"""Batches: many grids in one engine call give what one call per grid gives."""

from __future__ import annotations

import dataclasses
import time

import pytest

from sudokulab import native, read_file
from sudokulab.backends import get_backend
from sudokulab.models import build_model, geometry, is_solution
from sudokulab.models.grids import Grids
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
    batch = native.search_batch(9, units, puzzles, propagation, order, limit)
    assert len(batch) == len(puzzles) and all(isinstance(t, Timed) for t in batch)
    for entry, timed in zip(entries, batch, strict=True):
        single = native.search(9, units, entry.puzzle.givens, propagation, order, limit)
        assert timed.outcome == single
        assert single.count == 1 and is_solution(entry.puzzle, single.solutions[0])
        assert timed.seconds > 0
    # The fallback (the reference, puzzle by puzzle) answers the same, field for field.
    slow = _search_batch_py(9, units, puzzles[:10], propagation, order, limit)
    assert [t.outcome for t in slow] == [t.outcome for t in batch[:10]]


@pytest.mark.parametrize(("propagation", "order"), [(p, o) for p in PROPAGATIONS for o in ORDERS])
def test_batch_budget_is_per_puzzle(data_dir, propagation, order):
    # Every puzzle of a batch gets the whole budget: a batch gives what single calls
    # give, puzzles the budget stops and puzzles it does not alike, in both batch paths.
    units = units_of(9)
    puzzles = [
        e.puzzle.givens for e in read_file(data_dir / "norvig-pytudes" / "sudoku-hardest.txt")
    ]
    for budget in (0, 7, 100):
        singles = [
            native.search(9, units, p, propagation, order, 2, max_guesses=budget) for p in puzzles
        ]
        for search_batch in {native.search_batch, _search_batch_py}:
            batch = search_batch(9, units, puzzles, propagation, order, 2, max_guesses=budget)
            assert [t.outcome for t in batch] == singles


def test_batch_timeout_is_per_puzzle():
    # Counting the empty 16x16 grid never ends, and each puzzle stops at its own
    # deadline, never before it (how soon after: the machine's load, no bound here).
    units = units_of(16)
    for search_batch in {native.search_batch, _search_batch_py}:
        start = time.perf_counter()
        out = search_batch(16, units, [[0] * 256] * 3, limit=None, timeout=0.1, keep=2)
        assert [t.outcome.timed_out for t in out] == [True] * 3
        assert all(t.outcome.count > 0 and len(t.outcome.solutions) == 2 for t in out)
        assert all(t.seconds >= 0.1 for t in out)  # each from its own start
        assert time.perf_counter() - start >= 0.3


def test_a_quick_puzzle_between_endless_ones_gets_its_whole_budget():
    # A budget of exactly what the quick puzzle's whole count needs: the endless ones
    # spend it, the quick one is counted out with that many guesses (hit, not stopped).
    units = units_of(16)
    quick = list(reference.search(16, units, [0] * 256, limit=1).solutions[0])
    quick[:40] = [0] * 40
    whole = reference.search(16, units, quick, limit=None)
    assert whole.complete and whole.count >= 1 and whole.guesses > 0
    puzzles = [[0] * 256, quick, [0] * 256]
    for search_batch in {native.search_batch, _search_batch_py}:
        out = search_batch(16, units, puzzles, limit=None, max_guesses=whole.guesses)
        assert out[1].outcome == whole
        for endless in (out[0].outcome, out[2].outcome):
            assert endless.budget_spent and endless.guesses == whole.guesses
            assert not endless.complete and not endless.timed_out


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
    for search_batch in (native.search_batch, _search_batch_py):
        with pytest.raises(ValueError, match="max_guesses must be at least 0, got -1"):
            search_batch(4, units_of(4), [good], max_guesses=-1)
    with pytest.raises(ValueError, match="unknown order"):
        native.search_batch(4, units_of(4), [good], order="last")
    assert native.search_batch(4, units_of(4), []) == []


@pytest.mark.parametrize("name", ["native", "native-py"])
def test_backend_grids_equal_solve(data_dir, name):
    backend = get_backend(name)
    assert backend.batch and backend.stops_itself
    entries = read_file(data_dir / "norvig-pytudes" / "sudoku-hardest.txt")
    grids = Grids.of([e.puzzle for e in entries])
    models = [build_model(p) for p in grids.puzzles()]

    def same(answers, singles):
        for i, s in enumerate(singles):
            b = answers.result(i)
            assert dataclasses.replace(b, solve_time=0, build_time=0) == dataclasses.replace(
                s, solve_time=0, build_time=0, solutions=s.solutions[:1]
            )

    for options in ({}, {"order": "first"}):
        answers = backend.solve_grids(grids, 2, **options)
        singles = [backend.solve(m, 2, **options) for m in models]
        same(answers, singles)
        assert all(s.status == "solved" and s.unique for s in singles)
        assert grids.verify(answers.solution).all()
    # With a budget that stops some of them: each puzzle's own budget, the same results.
    answers = backend.solve_grids(grids, 2, max_guesses=3)
    singles = [backend.solve(m, 2, max_guesses=3) for m in models]
    same(answers, singles)
    stopped = [answers.result(i) for i in range(len(grids)) if answers.stats_of(i)["budget_spent"]]
    assert stopped and all(b.status == "timeout" and b.stats["guesses"] == 3 for b in stopped)
    assert all(b.message == "the budget of 3 guesses was spent" for b in stopped)
