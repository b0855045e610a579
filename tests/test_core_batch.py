"""Batches: many grids in one engine call give what one call per grid gives."""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pytest
from helpers import core_combinations, design

from sudokulab import native, read_file
from sudokulab.backends import get_backend
from sudokulab.models import build_model, geometry, is_solution
from sudokulab.models.grids import Grids
from sudokulab.native import BUDGET_SPENT, COMPLETE, COUNTERS, TIMED_OUT, reference
from sudokulab.native.options import ORDERS, PROPAGATIONS

pytestmark = pytest.mark.core

FAST = [
    (p, o) for p in PROPAGATIONS for o in ORDERS if p == "hidden" or (p, o) == ("singles", "mrv")
]
#: The active engine (compiled where it is built) and the reference: the same rows.
ENGINES = sorted({native.Engine, reference.Engine}, key=lambda e: e.__module__)


def units_of(size: int) -> tuple[tuple[int, ...], ...]:
    return tuple(u.cells for u in geometry(size).units)


def rows(outcomes, cells):
    """The rows search_grids gives for these outcomes of one search per puzzle (its
    clock's counter left out)."""
    solutions, counters = [], []
    for out in outcomes:
        solutions.append(list(out.solutions[0]) if out.solutions else [0] * cells)
        flags = COMPLETE * out.complete + TIMED_OUT * out.timed_out
        flags += BUDGET_SPENT * out.budget_spent
        kept = len(out.solutions[:1])
        counters.append([out.count, flags, out.nodes, out.guesses, out.backtracks, kept])
    return solutions, counters


def grid_rows(answer):
    """search_grids' arrays as lists, without the clock's counter."""
    solutions, counters = answer
    return solutions.tolist(), np.delete(counters, COUNTERS.index("nanoseconds"), 1).tolist()


@pytest.mark.parametrize(("propagation", "order"), FAST)
@pytest.mark.parametrize("limit", [1, 2])
def test_batch_equals_single_calls_on_a_set(data_dir, propagation, order, limit):
    entries = read_file(data_dir / "norvig-pytudes" / "sudoku-top95.txt")
    units = units_of(9)
    givens = np.array([e.puzzle.givens for e in entries], dtype=np.uint8)
    engine = native.Engine(9, units, propagation, order)
    singles = [engine.search(e.puzzle.givens, limit) for e in entries]
    for entry, single in zip(entries, singles, strict=True):
        assert single.count == 1 and is_solution(entry.puzzle, single.solutions[0])
    answer = engine.search_grids(givens, limit)
    assert grid_rows(answer) == rows(singles, 81)
    assert (answer[1][:, COUNTERS.index("nanoseconds")] > 0).all()  # the core's own clock
    # The reference, puzzle by puzzle, answers the same, field for field (under singles,
    # seconds a puzzle in Python, on three of them).
    k = 3 if propagation == "singles" else 10
    slow = reference.Engine(9, units, propagation, order).search_grids(givens[:k], limit)
    assert grid_rows(slow) == rows(singles[:k], 81)


@pytest.mark.parametrize(
    ("propagation", "order", "budget"),
    design(
        {"propagation": PROPAGATIONS, "order": ORDERS, "budget": [0, 7, 100]},
        lambda row: (row["propagation"], row["order"]) in core_combinations(),
    ),
)
def test_batch_budget_is_per_puzzle(data_dir, propagation, order, budget):
    # Every puzzle of a batch gets the whole budget: a batch gives what single calls
    # give, puzzles the budget stops and puzzles it does not alike, in both engines.
    # (Every setting meets every budget in all pairs; sac, a probe per candidate at every
    # node, in the reference on the first four puzzles.)
    units = units_of(9)
    entries = read_file(data_dir / "norvig-pytudes" / "sudoku-hardest.txt")
    givens = np.array([e.puzzle.givens for e in entries], dtype=np.uint8)
    for kind in ENGINES:
        if kind is reference.Engine and propagation == "sac":
            entries, givens = entries[:4], givens[:4]
        engine = kind(9, units, propagation, order)
        singles = [engine.search(e.puzzle.givens, 2, max_guesses=budget) for e in entries]
        batch = engine.search_grids(givens, 2, max_guesses=budget)
        assert grid_rows(batch) == rows(singles, 81)


@pytest.mark.parametrize("kind", ENGINES)
def test_batch_timeout_is_per_puzzle(kind):
    # Counting the empty 16x16 grid never ends, and each puzzle stops at its own
    # deadline, never before it (how soon after: the machine's load, no bound here).
    start = time.perf_counter()
    solutions, counters = kind(16, units_of(16)).search_grids(
        np.zeros((3, 256), dtype=np.uint8), limit=None, timeout=0.1
    )
    assert (counters[:, 1] == TIMED_OUT).all() and (counters[:, 0] > 0).all()
    assert (counters[:, COUNTERS.index("kept")] == 1).all() and solutions.all()
    assert (counters[:, COUNTERS.index("nanoseconds")] >= 0.1e9).all()  # each its own start
    assert time.perf_counter() - start >= 0.3


@pytest.mark.parametrize("kind", ENGINES)
def test_a_quick_puzzle_between_endless_ones_gets_its_whole_budget(kind):
    # A budget of exactly what the quick puzzle's whole count needs: the endless ones
    # spend it, the quick one is counted out with that many guesses (hit, not stopped).
    engine = reference.Engine(16, units_of(16))
    quick = list(engine.search([0] * 256, limit=1).solutions[0])
    quick[:40] = [0] * 40
    whole = engine.search(quick, limit=None, keep=1)
    assert whole.complete and whole.count >= 1 and whole.guesses > 0
    puzzles = np.array([[0] * 256, quick, [0] * 256], dtype=np.uint8)
    answer = kind(16, units_of(16)).search_grids(puzzles, None, max_guesses=whole.guesses)
    solutions, counters = grid_rows(answer)
    assert (solutions[1], counters[1]) == tuple(row[0] for row in rows([whole], 256))
    for endless in (counters[0], counters[2]):
        assert endless[1] == BUDGET_SPENT and endless[3] == whole.guesses


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
