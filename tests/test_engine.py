"""The native engine: every knob solves, counts are exact, deadlines and budgets hold."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest
from helpers import core_combinations, design, random_solution, two_solution_grid
from hypothesis import given, settings
from hypothesis import strategies as st

from sudokulab import count, is_solution, read_file, solve
from sudokulab.models import SIZES, Puzzle, geometry
from sudokulab.native.options import ORDERS, PROPAGATIONS, VALUES
from sudokulab.native.reference import Engine

pytestmark = pytest.mark.seam

SEEDS = Path(__file__).resolve().parent.parent / "data" / "seeds.csv"
ADVERSARIAL = "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9"
# What `solve` runs on the compiled core (dom-wdeg under none is blind, nothing pruned:
# it may leave a dead cell for last; under ac3, gac and sac the reference runs it).
COMBINATIONS = core_combinations()
# Plain backtracking and forward checking in pure Python need millions of guesses on
# some top95 puzzles; they get the whole set only where a run stays within minutes.
FAST = [
    (p, o)
    for p, o in COMBINATIONS
    if p in ("singles", "hidden", "locked", "gac", "sac") or (p == "forward" and o != "first")
]
#: ac3 reaches singles' fixpoint (tests/test_levels.py) by a queue of arcs, minutes on
#: top95 in pure Python: left out of the top95 runs.
AC3 = {(p, o) for p, o in COMBINATIONS if p == "ac3"}
#: Guesses the slow combinations get per puzzle: a second or two of pure Python for the
#: adversarial seed or the whole of top95, and the same stopping point on any machine.
BUDGET = 20_000


def _seeds():
    return read_file(SEEDS)


#: Every (propagation, order) the reference runs: dom-wdeg under every level but none.
REFERENCE_COMBINATIONS = [
    (p, o) for p in PROPAGATIONS for o in ORDERS if o != "dom-wdeg" or p != "none"
]  # fmt: skip
# Both native backends, every propagation level, order, value order and question meet
# each other in one test (all pairs, tests/helpers.py; tests/test_designs.py checks it):
# "seeds" solves the seed puzzles, "count" counts the empty 4x4 grid, "limits" asks a
# puzzle with two solutions, one with none and the empty 9x9 grid with a limit.
DESIGN = design(
    {
        "backend": ["native", "native-py"],
        "propagation": PROPAGATIONS,
        "order": ORDERS,
        "values": VALUES,
        "question": ["seeds", "count", "limits"],
    },
    lambda row: (
        (row["propagation"], row["order"])
        in (COMBINATIONS if row["backend"] == "native" else REFERENCE_COMBINATIONS)
    ),
)


@pytest.mark.parametrize(("backend", "propagation", "order", "values", "question"), DESIGN)
def test_every_combination_answers_its_questions(backend, propagation, order, values, question):
    knobs = {"backend": backend, "propagation": propagation, "order": order, "values": values}
    if question == "seeds":
        _solves_the_seed_puzzles(**knobs)
    elif question == "count":
        _counts_every_4x4_grid(**knobs)
    else:
        _counts_two_zero_and_a_limit(**knobs)


def _solves_the_seed_puzzles(propagation, **knobs):
    for entry in _seeds():
        # The adversarial seed is built to defeat naive backtracking: in pure Python it
        # takes plain backtracking minutes, and forward or singles with order=first
        # seconds to a minute; those runs get a budget of guesses instead.
        weak = propagation == "none" or (knobs["order"] == "first" and propagation != "hidden")
        slow = weak and str(entry.puzzle) == ADVERSARIAL
        budget = {"max_guesses": BUDGET} if slow else {}
        result = solve(entry.puzzle, propagation=propagation, limit=2, **knobs, **budget)
        if result.stats["budget_spent"]:  # stopped where it would make guess BUDGET + 1
            assert slow and result.status == "timeout" and not result.exact
            assert result.stats["guesses"] == BUDGET
            assert all(s == entry.solution for s in result.solutions)
            continue
        assert result.status == "solved", (entry.line, result)
        assert result.solution == entry.solution
        assert is_solution(entry.puzzle, result.solution)
        assert result.unique is True


@pytest.mark.parametrize(("propagation", "order"), FAST)
def test_fast_combinations_solve_top95(data_dir, propagation, order):
    # Each combination a third of top95 (every third puzzle, from its own start): each
    # puzzle is solved under five combinations, not fifteen.
    entries = read_file(data_dir / "norvig-pytudes" / "sudoku-top95.txt")
    assert len(entries) == 95
    for entry in entries[FAST.index((propagation, order)) % 3 :: 3]:
        result = solve(entry.puzzle, propagation=propagation, order=order)
        assert result.status == "solved"
        assert is_solution(entry.puzzle, result.solution)


def test_slow_combinations_solve_top95_within_a_budget(data_dir):
    """The slow combinations (none and forward with first, none with mrv or mrv-degree) on
    top95 with a budget of guesses: each puzzle is solved, verified and agrees with
    ``hidden``, or is stopped exactly at the budget; which ones finish follows from the
    rules alone."""
    entries = read_file(data_dir / "norvig-pytudes" / "sudoku-top95.txt")
    assert sorted(set(COMBINATIONS) - set(FAST) - AC3) == [
        ("forward", "first"),
        ("none", "first"),
        ("none", "mrv"),
        ("none", "mrv-degree"),
    ]
    solved = {"none": 0, "forward": 0}
    for entry in entries:
        runs = {
            (p, o): solve(entry.puzzle, propagation=p, order=o, max_guesses=BUDGET)
            for p, o in set(COMBINATIONS) - set(FAST) - AC3
        }
        for result in runs.values():
            if result.stats["budget_spent"]:
                assert result.status == "timeout" and result.count == 0 and not result.exact
                assert result.stats["guesses"] == BUDGET
                assert result.message == f"the budget of {BUDGET} guesses was spent"
            else:
                assert result.status == "solved" and result.stats["guesses"] <= BUDGET
                assert is_solution(entry.puzzle, result.solution)
                assert result.solution == solve(entry.puzzle).solution  # the unique solution
        plain, forward = runs["none", "first"], runs["forward", "first"]
        # Under none mrv ties everywhere (and mrv-degree follows it): the same search as
        # first, budget stop included.
        for order in ("mrv", "mrv-degree"):
            assert {**runs["none", order].stats, "order": "first"} == plain.stats
        # Forward checking branches on the same cells as plain backtracking (first
        # unplaced), tries only the values plain backtracking would not refuse, and cuts
        # subtrees: it never needs more guesses, so it finishes wherever plain does.
        if plain.status == "solved":
            assert forward.status == "solved"
            assert forward.stats["guesses"] <= plain.stats["guesses"]
        solved["none"] += plain.status == "solved"
        solved["forward"] += forward.status == "solved"
    # The budget lets plain backtracking finish at least one puzzle, so that both
    # branches above are exercised (most of top95 needs far more guesses).
    assert 1 <= solved["none"] <= solved["forward"] < len(entries)


class _FirstGuess:
    """A tracer that keeps the first cell the search chose (a guess, or a forced placement
    of a cell with one candidate) and ignores every other step."""

    def __init__(self) -> None:
        self.cell = None

    def guess(self, cell, bit, candidates, depth):
        if self.cell is None:
            self.cell = cell

    def forced(self, cell, bit, depth):
        self.guess(cell, bit, bit, depth)

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


@pytest.mark.parametrize("propagation", ["forward", "singles", "hidden", "locked"])
def test_mrv_degree_breaks_the_ties_of_mrv_by_unplaced_peers(data_dir, propagation):
    """The first cell mrv-degree chooses, against the rule computed here from the root
    state: the fewest candidates, then the most unplaced peers, then the lowest index."""
    geom = geometry(9)
    units = tuple(u.cells for u in geom.units)
    peers = [{p for u in units if c in u for p in u} - {c} for c in range(81)]
    entries = read_file(data_dir / "norvig-pytudes" / "sudoku-top95.txt")[:30]
    moved = 0  # puzzles where the tie-break picks another cell than mrv
    for entry in entries:
        givens = list(entry.puzzle.givens)
        masks, placed = Engine(9, units, propagation, "mrv").root(givens)
        open_cells = [c for c in range(81) if not placed[c]]

        def rank(c, masks=masks, placed=placed):
            return masks[c].bit_count(), -sum(not placed[p] for p in peers[c]), c

        first = {}
        for order in ("mrv", "mrv-degree"):
            tracer = _FirstGuess()
            Engine(9, units, propagation, order, trace=tracer).search(givens, 1, max_guesses=1)
            first[order] = tracer.cell
        if not open_cells:  # solved by propagation: no guess
            assert first == {"mrv": None, "mrv-degree": None}
            continue
        assert first["mrv-degree"] == min(open_cells, key=rank)
        assert first["mrv"] == min(open_cells, key=lambda c: (masks[c].bit_count(), c))
        moved += first["mrv"] != first["mrv-degree"]
    assert moved >= 5


def test_search_order_is_deterministic_and_ascending():
    # The empty 4x4 grid: with order=first, the first solution is the lexicographically
    # smallest grid, and solutions come in lexicographic order.
    result = solve("." * 16, limit=None, order="first", propagation="forward")
    assert result.count == 288 and result.exact
    assert list(result.solutions) == sorted(result.solutions)
    assert result.solutions[0] == (1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 1)


def _counts_every_4x4_grid(**knobs):
    # All 288 4x4 grids, every one verified.
    assert count("." * 16, **knobs) == 288
    result = solve("." * 16, limit=None, **knobs)
    assert len(set(result.solutions)) == 288
    assert all(is_solution(Puzzle.from_grid([0] * 16), s) for s in result.solutions)


def _counts_two_zero_and_a_limit(**knobs):
    seed = _seeds()[0]
    two = Puzzle.from_grid(two_solution_grid(seed.solution))
    assert count(two, **knobs) == 2
    result = solve(two, limit=5, **knobs)
    assert result.status == "multiple" and result.exact and result.unique is False
    assert all(is_solution(two, s) for s in result.solutions)
    # r1c1..r1c8 hold 1..8 and r2c9 holds 9: no clash, but r1c9 has no candidate.
    stuck = list(range(1, 9)) + [0] + [0] * 8 + [9] + [0] * 63
    assert count(Puzzle.from_grid(stuck), **knobs) == 0
    assert solve(Puzzle.from_grid(stuck), **knobs).status == "unsolvable"
    assert count("." * 81, limit=7, **knobs) == 7


def test_deadline_stops_the_empty_16x16_count_promptly():
    # Counting every 16x16 grid never ends: the deadline stops it.
    start = time.perf_counter()
    result = solve("." * 256, limit=None, timeout=0.3)
    elapsed = time.perf_counter() - start
    assert result.status == "timeout" and not result.exact and not result.message
    assert not result.stats["budget_spent"]
    assert elapsed >= 0.3  # never before the deadline (how soon after: the machine's load)
    with pytest.raises(TimeoutError):
        count("." * 256, limit=None, timeout=0.1)


def test_a_guess_budget_stops_the_empty_16x16_count_at_its_guess():
    # The first solution takes some number of guesses; a count with exactly that budget
    # finds it (the budget only cuts the search short) and stops at the next guess.
    first = solve("." * 256)
    needed = first.stats["guesses"]
    result = solve("." * 256, limit=None, max_guesses=needed)
    assert result.status == "timeout" and not result.exact
    assert result.message == f"the budget of {needed} guesses was spent"
    assert result.stats["budget_spent"] and result.stats["max_guesses"] == needed
    assert result.stats["guesses"] == needed and result.count >= 1
    assert result.solutions[0] == first.solution
    with pytest.raises(TimeoutError, match="timeout"):
        count("." * 256, limit=None, max_guesses=needed)
    # Where the budget does not run out, it changes nothing.
    unspent = solve(_seeds()[2].puzzle, limit=2, max_guesses=10**6)
    assert {**unspent.stats, "budget_spent": False} == {
        **solve(_seeds()[2].puzzle, limit=2).stats,
        "max_guesses": 10**6,
    }


def test_a_budget_of_no_guess_is_propagation_alone():
    easy, hard = _seeds()[0].puzzle, _seeds()[2].puzzle
    assert solve(easy, max_guesses=0).status == "solved"  # hidden singles suffice
    stopped = solve(hard, max_guesses=0)
    assert stopped.status == "timeout" and stopped.count == 0
    assert (stopped.stats["nodes"], stopped.stats["guesses"]) == (1, 0)  # the root only


def test_budget_semantics_on_the_reference():
    """Each budget stops the search at a prefix of the unbudgeted one, never further."""
    units = tuple(u.cells for u in geometry(4).units)
    for i, (propagation, order) in enumerate(COMBINATIONS):
        engine = Engine(4, units, propagation, order)
        # sac probes every candidate at every node: a quarter of the grids for it (r1c1 = 1)
        grid = [1] + [0] * 15 if propagation == "sac" else [0] * 16
        full = engine.search(grid, limit=None, keep=300)
        assert full.complete and full.count == (72 if grid[0] else 288) and not full.budget_spent
        # No guess, four budgets spread over the search (each combination its own spread,
        # shifted by its index, so that together they sample the whole of it), one short
        # of the whole search, exactly it and one more.
        n = full.guesses
        spread = {(k * len(COMBINATIONS) + i) * n // (5 * len(COMBINATIONS)) for k in range(1, 5)}
        for budget in sorted({0, *spread, n - 1, n, n + 1}):
            out = engine.search(grid, limit=None, keep=300, max_guesses=budget)
            if budget >= full.guesses:  # never needs guess budget + 1: not stopped
                assert out == full
                continue
            assert out.budget_spent and not out.complete and not out.timed_out
            assert out.guesses == budget
            assert out.nodes <= full.nodes and out.backtracks <= full.backtracks
            assert out.solutions == full.solutions[: out.count]


def test_bad_budgets_name_the_option():
    units = tuple(u.cells for u in geometry(4).units)
    with pytest.raises(ValueError, match="max_guesses must be at least 0, got -1"):
        Engine(4, units).search([0] * 16, max_guesses=-1)
    with pytest.raises(TypeError, match="max_guesses must be an int or None, not float"):
        Engine(4, units).search([0] * 16, max_guesses=1.5)
    whole = r"is not a valid whole number \(0 or more\)"
    with pytest.raises(ValueError, match="max_guesses=-3 " + whole):
        solve("." * 16, max_guesses=-3)
    with pytest.raises(ValueError, match=r"max_guesses='many' is not a valid whole number"):
        solve("." * 16, max_guesses="many")
    assert solve("." * 16, "native-py:max_guesses=0").stats["max_guesses"] == 0  # from a spec


def test_statistics_follow_their_definitions():
    # A puzzle solved by propagation alone: one node (the root), no guess, no backtrack.
    easy = _seeds()[0].puzzle
    stats = solve(easy).stats
    assert (stats["nodes"], stats["guesses"], stats["backtracks"]) == (1, 0, 0)
    # Plain backtracking on the empty 4x4 grid, first solution: every guess that does
    # not clash is a node, and nodes = 1 + successful guesses.
    out = Engine(4, tuple(u.cells for u in geometry(4).units), "none", "first").search(
        [0] * 16, limit=None
    )
    assert out.complete and len(out.solutions) == 288
    assert out.nodes > out.backtracks > 0
    assert out.guesses >= out.nodes - 1
    # Exhausting the space pops every frame ever pushed: one per non-solution node.
    assert out.backtracks == out.nodes - len(out.solutions)
    # Under none, mrv ties everywhere and so branches exactly like first.
    seed = _seeds()[2].puzzle
    assert solve(seed, propagation="none", order="mrv", limit=2).stats == {
        **solve(seed, propagation="none", order="first", limit=2).stats,
        "order": "mrv",
    }


def test_engine_rejects_unknown_knobs():
    units = tuple(u.cells for u in geometry(4).units)
    with pytest.raises(ValueError, match="unknown propagation 'fast'"):
        Engine(4, units, propagation="fast")
    with pytest.raises(ValueError, match="unknown order"):
        Engine(4, units, order="random")
    with pytest.raises(ValueError, match="limit must be at least 1"):
        Engine(4, units).search([0] * 16, limit=0)


@settings(max_examples=60, deadline=None)
@given(
    size=st.sampled_from([s for s in SIZES if s <= 9]),
    seed=st.integers(0, 2**32 - 1),
    blank=st.floats(0.0, 0.75),
    knobs=st.sampled_from(FAST),
)
def test_property_random_puzzles_solve_and_keep_givens(size, seed, blank, knobs):
    rng = random.Random(seed)
    solution = random_solution(size, rng)
    assert is_solution(Puzzle.from_grid([0] * size * size), solution)
    givens = [0 if rng.random() < blank else v for v in solution]
    puzzle = Puzzle.from_grid(givens)
    result = solve(puzzle, propagation=knobs[0], order=knobs[1])
    assert result.status == "solved"
    assert is_solution(puzzle, result.solution)
    assert all(result.solution[c] == v for c, v in enumerate(givens) if v)


def test_a_count_keeps_only_the_first_grids():
    units = tuple(u.cells for u in geometry(4).units)
    out = Engine(4, units).search([0] * 16, limit=None, keep=10)
    assert out.count == 288 and out.complete and len(out.solutions) == 10
    assert out.solutions == Engine(4, units).search([0] * 16, limit=10).solutions


@pytest.mark.parametrize("name", ["reference", "compiled"])
def test_the_engine_docstring_examples_hold(name):
    """The examples in the native modules' docstrings run as written (they had drifted:
    an example puzzle with two solutions was shown as unique)."""
    import doctest
    import importlib

    from sudokulab import native

    if name == "compiled" and native.ENGINE != "c":
        pytest.skip("the compiled core is not built")
    module = importlib.import_module(f"sudokulab.native.{name}")
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
