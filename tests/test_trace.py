"""Trace events of the reference engine: they replay to the solution and agree with the counters."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers import design, killer_cages, random_cages, random_solution

from sudokulab.classroom.trace import (
    Backtrack,
    CagePrune,
    Contradiction,
    Elimination,
    Forced,
    Guess,
    Placement,
    Solution,
    final_grid,
    replay,
    trace_puzzle,
)
from sudokulab.models import Puzzle, geometry, is_solution, parse_puzzle, read_file
from sudokulab.models.puzzle import Cage
from sudokulab.native import ORDERS, PROPAGATIONS, reference

SEEDS = Path(__file__).resolve().parent.parent / "data" / "seeds.csv"
# dom-wdeg under none is blind (nothing pruned): it may leave a dead cell for last and
# trace the whole grid's search first (tests/test_search_orders.py gives it a budget).
KNOBS = [(p, o) for p in PROPAGATIONS for o in ORDERS if (p, o) != ("none", "dom-wdeg")]


def _small_puzzles() -> list[Puzzle]:
    """Puzzles every knob solves quickly: 4x4 and 6x6 from random grids, and a 9x9 seed."""
    rng = random.Random(6)
    out = []
    for size, blanks in ((4, 10), (6, 20), (9, 40)):
        grid = random_solution(size, rng)
        for cell in rng.sample(range(size * size), blanks):
            grid[cell] = 0
        out.append(Puzzle.from_grid(grid))
    return out + [read_file(SEEDS)[0].puzzle]


def _untraced(puzzle: Puzzle, propagation: str, order: str, limit: int) -> reference.Outcome:
    units = tuple(u.cells for u in puzzle.geometry.units)
    return reference.Engine(puzzle.size, units, propagation, order).search(puzzle.givens, limit)


# Every (propagation, order) asks one of the two questions below, and each level and each
# order asks both (all pairs, tests/helpers.py).
@pytest.mark.parametrize(
    ("propagation", "order", "question"),
    design(
        {"propagation": PROPAGATIONS, "order": ORDERS, "question": ["replay", "summary"]},
        lambda row: (row["propagation"], row["order"]) in KNOBS,
    ),
)
def test_the_trace_replays_and_sums_up_as_the_engine_counts(propagation, order, question):
    if question == "replay":
        _replaying_the_events_reproduces_the_solution(propagation, order)
    else:
        _summary_equals_the_engine_statistics(propagation, order)


def _replaying_the_events_reproduces_the_solution(propagation, order):
    for puzzle in _small_puzzles():
        trace = trace_puzzle(puzzle, propagation, order, max_steps=None)
        assert not trace.truncated
        assert isinstance(trace.events[-1], Solution)
        grid = final_grid(trace)
        assert grid == trace.solutions[0] == trace.events[-1].grid
        assert is_solution(puzzle, grid)


def _summary_equals_the_engine_statistics(propagation, order):
    cases = [(puzzle, limit) for puzzle in _small_puzzles() for limit in (1, 2)]
    # The second seed defeats naive orders on purpose: minutes under none or first (and
    # under ac3, whose queue of arcs is slow in Python); the other seeds under limit 2.
    if propagation not in ("none", "ac3") and order == "mrv":
        cases += [(e.puzzle, 2) for e in read_file(SEEDS)[1:]]
    for puzzle, limit in cases:
        # A small step budget: the events stop being kept, the counting goes on.
        trace = trace_puzzle(puzzle, propagation, order, limit=limit, max_steps=50)
        plain = _untraced(puzzle, propagation, order, limit)
        assert trace.outcome == plain  # tracing changes nothing the engine returns
        s = trace.summary
        assert (s.nodes, s.guesses, s.backtracks) == (
            plain.nodes,
            plain.guesses,
            plain.backtracks,
        )
        assert s.solutions == plain.count
        if trace.truncated:
            assert sum(not isinstance(e, Elimination) for e in trace.events) == 50


def test_summary_on_public_puzzles(data_dir):
    entries = read_file(data_dir / "norvig-pytudes" / "sudoku-top95.txt")[:5]
    for entry in entries:
        for propagation in ("forward", "singles", "hidden"):
            trace = trace_puzzle(entry.puzzle, propagation, "mrv", max_steps=100)
            plain = _untraced(entry.puzzle, propagation, "mrv", 1)
            assert trace.outcome == plain
            s = trace.summary
            assert (s.nodes, s.guesses, s.backtracks) == (
                plain.nodes,
                plain.guesses,
                plain.backtracks,
            )


def _check_reasons(trace) -> tuple[int, int]:
    """Check every naked and hidden single (and forced placement) against the replayed
    grid; the singles' counts."""
    geom = trace.puzzle.geometry
    before = None
    naked = hidden = 0
    for event, state in replay(trace):
        if isinstance(event, Forced):  # the search's cell had this one candidate left
            assert before.masks[event.cell] == 1 << (event.value - 1)
        if isinstance(event, Placement) and event.reason != "given":
            bit = 1 << (event.value - 1)
            if event.reason == "naked":
                naked += 1
                assert before.masks[event.cell] == bit, geom.cell_name(event.cell)
            else:
                hidden += 1
                unit = geom.units[event.unit]
                assert event.cell in unit.cells
                places = [c for c in unit.cells if before.masks[c] & bit]
                assert places == [event.cell], (geom.cell_name(event.cell), unit.name)
        before = state
    return naked, hidden


@pytest.mark.parametrize("propagation", ["singles", "hidden"])
def test_every_single_is_what_the_grid_says(propagation):
    for puzzle in _small_puzzles() + [e.puzzle for e in read_file(SEEDS)]:
        trace = trace_puzzle(puzzle, propagation, "mrv", max_steps=None)
        naked, hidden = _check_reasons(trace)
        assert (naked, hidden) == (trace.summary.naked_singles, trace.summary.hidden_singles)


@pytest.mark.parametrize("propagation", ["singles", "forward"])
def test_a_puzzle_of_naked_singles_needs_no_guess_and_no_hidden_single(propagation):
    # One blank per row, column and box: each is a naked single once its units are placed.
    # Forward checking leaves them to the search, which places each as forced: no guess.
    solution = read_file(SEEDS)[0].solution
    grid = list(solution)
    blanks = [0, 12, 24, 28, 40, 52, 56, 68, 80]
    assert len({geometry(9).box(c) for c in blanks}) == 9
    for cell in blanks:
        grid[cell] = 0
    puzzle = Puzzle.from_grid(grid)
    trace = trace_puzzle(puzzle, propagation, "mrv", max_steps=None)
    s = trace.summary
    assert s.guesses == 0 and s.hidden_singles == 0 and s.backtracks == 0
    assert not any(isinstance(e, Guess | Backtrack) for e in trace.events)
    if propagation == "singles":
        filled = {e.cell for e in trace.events if isinstance(e, Placement) and e.reason == "naked"}
        assert s.forced == 0
    else:
        filled = {e.cell for e in trace.events if isinstance(e, Forced)}
        assert s.naked_singles == 0 and s.forced == len(blanks) == s.nodes - 1
    assert set(blanks) <= filled
    assert final_grid(trace) == solution
    _check_reasons(trace)


def test_a_hidden_single_names_its_unit():
    # Box 1 holds 2,3 / 5,6 / 8,9 in its right two columns, so r1c1..r3c1 take 1, 4, 7.
    # The 1s at r2c5 and r3c8 leave r1c1 the only place for 1 in box 1 (and in row 1),
    # while r1c1 still has three candidates: a hidden single, not a naked one.
    rows = [
        ".23......",
        ".56.1....",
        ".89....1.",
    ] + ["........."] * 6
    puzzle = parse_puzzle("".join(rows))
    trace = trace_puzzle(puzzle, "hidden", "mrv", max_steps=None)
    geom = puzzle.geometry
    first = next(e for e in trace.events if isinstance(e, Placement) and e.reason == "hidden")
    assert (first.cell, first.value, first.depth) == (0, 1, 0)
    assert geom.units[first.unit].name in ("box 1", "row 1")
    _check_reasons(trace)
    # Without hidden singles the engine does not place it before searching.
    weaker = trace_puzzle(puzzle, "singles", "mrv", max_steps=None)
    root = [e for e in weaker.events if isinstance(e, Placement) and e.depth == 0]
    assert 0 not in {e.cell for e in root}


def test_contradictions_and_backtracks_are_reported():
    # Plain backtracking on a seed puzzle: refused guesses are clashes with a placed peer.
    puzzle = read_file(SEEDS)[0].puzzle
    trace = trace_puzzle(puzzle, "none", "first", max_steps=3000)
    kinds = {e.kind for e in trace.events if hasattr(e, "kind")}
    assert kinds <= {"clash"} and kinds
    if trace.summary.backtracks:
        assert any(isinstance(e, Backtrack) for e in trace.events) or trace.truncated


def test_tracing_is_off_by_default():
    engine = reference.Engine(9, tuple(u.cells for u in geometry(9).units))
    assert engine.trace is None


def _killers() -> list[Puzzle]:
    """Killer puzzles every knob finishes: 4x4 and 6x6 cages over random grids, few givens."""
    rng = random.Random(11)
    out = []
    for size, seed_count in ((4, 3), (6, 3)):
        for _ in range(seed_count):
            solution = random_solution(size, rng)
            cages = killer_cages(solution, random_cages(solution, rng, largest=3))
            givens = [0] * (size * size)
            for cell in rng.sample(range(size * size), size // 2):
                givens[cell] = solution[cell]
            geom = geometry(size)
            out.append(Puzzle(geom, tuple(givens), tuple(Cage(c, t) for c, t in cages)))
    return out


@pytest.mark.parametrize(("propagation", "order"), KNOBS)
def test_killer_cages_are_traced_without_changing_the_search(propagation, order):
    for puzzle in _killers():
        cages = tuple((c.cells, c.total) for c in puzzle.cages)
        units = tuple(u.cells for u in puzzle.geometry.units)
        plain = reference.Engine(puzzle.size, units, propagation, order, cages).search(
            puzzle.givens, 2
        )
        trace = trace_puzzle(puzzle, propagation, order, limit=2, max_steps=None)
        assert trace.outcome == plain  # tracing changes nothing the engine returns
        s = trace.summary
        assert (s.nodes, s.guesses, s.backtracks, s.solutions) == (
            plain.nodes,
            plain.guesses,
            plain.backtracks,
            plain.count,
        )
        assert s.cage_prunings == sum(isinstance(e, CagePrune) for e in trace.events)
        if propagation == "none":  # no pruning at this level: a refused placement at most
            assert s.cage_prunings == 0
        # Each pruning removes candidates the grid had, and leaves the cage's open cells
        # only values the pruning allows.
        before = None
        for event, state in replay(trace):
            if isinstance(event, CagePrune):
                assert event.removed
                for cell, values in event.removed:
                    assert all(before.masks[cell] >> (v - 1) & 1 for v in values)
                    assert not set(values) & set(event.allowed)
                allowed = sum(1 << (v - 1) for v in event.allowed)
                open_cells = [c for c in puzzle.cages[event.cage].cells if not state.kinds[c]]
                assert all(state.masks[c] & ~allowed == 0 for c in open_cells)
            before = state
        for event in trace.events:
            if isinstance(event, Contradiction) and event.kind == "cage":
                assert 0 <= event.cage < len(puzzle.cages)


def test_a_killer_replays_to_its_solution():
    from sudokulab.catalog import load

    entry = load("gen-killer").entries[0]
    trace = trace_puzzle(entry.puzzle, max_steps=None)
    assert trace.summary.cage_prunings > 0
    assert final_grid(trace) == trace.solutions[0] == entry.solution
