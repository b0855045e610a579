"""Blocks of puzzles as arrays: the bulk clash check, verifier and line format agree with
the one-puzzle versions, and the engine's buffer call gives what one call per puzzle gives."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from helpers import random_solution
from hypothesis import given, settings
from hypothesis import strategies as st

from sudokulab import native
from sudokulab.backends import get_backend
from sudokulab.backends.base import unsupported
from sudokulab.models import Puzzle, build_model, format_line, geometry, is_solution, read_file
from sudokulab.models.grids import Grids, format_lines
from sudokulab.models.stream import blocks_of
from sudokulab.native import COUNTERS, reference
from sudokulab.native.reference import Engine

SHIPPED = Path(__file__).resolve().parent.parent / "data"


@cache
def _shipped_blocks() -> tuple:
    """Every shipped set as blocks (classic, 4x4, 16x16, x, jigsaw, killer; the rule
    variants where the native engine takes their rules), read once for the file."""
    native_backend = get_backend("native")
    blocks = []
    for path in sorted(SHIPPED.glob("*.jsonl")):
        entries = read_file(path)
        if not unsupported(native_backend, build_model(entries[0].puzzle)):
            blocks += blocks_of(entries)
    return tuple(blocks)


def _mutations(puzzle: Puzzle, solution: tuple[int, ...], rng: random.Random):
    """The solution and a few damaged copies: a cell changed, two swapped, a given lost."""
    n, cells = puzzle.size, len(solution)
    yield list(solution)
    for _ in range(4):
        grid = list(solution)
        c = rng.randrange(cells)
        grid[c] = rng.randrange(0, n + 1)
        yield grid
        grid = list(solution)
        a, b = rng.randrange(cells), rng.randrange(cells)
        grid[a], grid[b] = grid[b], grid[a]
        yield grid


def test_clashing_and_verify_agree_with_the_one_puzzle_versions():
    rng = random.Random(7)
    blocks = list(_shipped_blocks())
    assert {b.grids.size for b in blocks} >= {4, 9, 16}
    assert any(b.grids.cages for b in blocks)
    for block in blocks:
        grids = block.grids
        puzzles = grids.puzzles()
        assert grids.clashing().tolist() == [bool(p.clashes()) for p in puzzles]
        for i, puzzle in enumerate(puzzles[:5]):
            result = get_backend("native").solve_grids(grids.take([i]), limit=1)
            solution = tuple(result.solution[0].tolist())
            candidates = list(_mutations(puzzle, solution, rng))
            many = Grids(grids.geometry, np.repeat(grids.givens[[i]], len(candidates), 0),
                         grids.cages)  # fmt: skip
            expected = [is_solution(puzzle, tuple(c)) for c in candidates]
            assert expected[0] and not all(expected)
            assert many.verify(np.array(candidates, dtype=np.uint8)).tolist() == expected


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([4, 6, 9, 12, 16]))
def test_clashes_found_in_bulk_are_the_clashes_puzzle_finds(seed, size):
    rng = random.Random(seed)
    solution = random_solution(size, rng)
    rows = []
    for _ in range(8):
        grid = [v if rng.random() < 0.3 else 0 for v in solution]
        for _ in range(rng.randrange(3)):  # sometimes a wrong given
            grid[rng.randrange(size * size)] = rng.randrange(1, size + 1)
        rows.append(grid)
    grids = Grids(geometry(size), np.array(rows, dtype=np.uint8))
    puzzles = grids.puzzles()
    assert grids.clashing().tolist() == [bool(p.clashes()) for p in puzzles]
    assert format_lines(grids.givens).splitlines() == [format_line(p) for p in puzzles]


def test_a_grid_with_a_value_beyond_the_size_is_refused_naming_it():
    with pytest.raises(ValueError, match="puzzle 1: r1c2: value 5 is outside 1..4"):
        Grids(geometry(4), np.array([[0] * 16, [0, 5] + [0] * 14]))
    with pytest.raises(ValueError, match=r"must be a \(k, 16\) array"):
        Grids(geometry(4), np.zeros((2, 15)))
    with pytest.raises(ValueError, match="puzzle 1 has another shape"):
        Grids.of([Puzzle.from_grid([0] * 16), Puzzle.from_grid([0] * 81)])


@pytest.mark.parametrize("knobs", [
    {"propagation": "hidden", "order": "mrv", "limit": 2},
    # singles with order=first searches one shipped classic puzzle for 3 million guesses
    # in pure Python (half a minute): a budget stops it, and the rows must still agree.
    {"propagation": "singles", "order": "first", "limit": 1, "max_guesses": 5_000},
    {"propagation": "hidden", "order": "mrv", "limit": 2, "max_guesses": 2},
])  # fmt: skip
def test_the_buffer_call_gives_what_one_search_per_puzzle_gives(knobs):
    """The core's buffer call gives the reference's buffer call, and each row is what
    one search of that puzzle gives (the core's: the identity of one search is
    tests/test_core.py's)."""
    for block in _shipped_blocks():
        if knobs["propagation"] != "hidden" and block.grids.size > 9:
            continue  # weak propagation on 16x16 is minutes of the Python reference
        grids = block.grids.take(slice(0, 6))
        units = tuple(u.cells for u in grids.geometry.units)
        cages = tuple((c.cells, c.total) for c in grids.cages)
        shape = (grids.size, units, knobs["propagation"], knobs["order"], cages)
        rest = {"limit": knobs["limit"], "max_guesses": knobs.get("max_guesses")}
        sol_c, cnt_c = native.Engine(*shape).search_grids(grids.givens, **rest)
        sol_py, cnt_py = Engine(*shape).search_grids(grids.givens, **rest)
        assert sol_c.tolist() == sol_py.tolist()
        assert cnt_c[:, :5].tolist() == cnt_py[:, :5].tolist()
        assert cnt_c[:, 6].tolist() == cnt_py[:, 6].tolist()  # kept
        one = native.Engine(*shape)
        for i, row in enumerate(grids.givens.tolist()):
            expected = one.search(row, knobs["limit"], None, 1, knobs.get("max_guesses"))
            first = (
                list(expected.solutions[0])
                if expected.solutions
                else [0] * grids.geometry.cell_count
            )
            assert sol_c[i].tolist() == first
            flags = expected.complete + 2 * expected.timed_out + 4 * expected.budget_spent
            want = [expected.count, flags, expected.nodes, expected.guesses, expected.backtracks]
            assert cnt_c[i, :5].tolist() == want
            assert cnt_c[i, 6] == len(expected.solutions) and cnt_c[i, 5] > 0
    assert COUNTERS == ("count", "flags", "nodes", "guesses", "backtracks", "nanoseconds", "kept")


@pytest.mark.parametrize("engine", [native.Engine, Engine], ids=["native", "reference"])
def test_the_buffer_call_refuses_bad_buffers_naming_the_puzzle(engine):
    units = tuple(u.cells for u in geometry(4).units)
    four = engine(4, units)
    with pytest.raises(ValueError, match="givens must be bytes of 16 values a puzzle, got 20"):
        four.search_grids(np.zeros(20, dtype=np.uint8))
    with pytest.raises(ValueError, match="puzzle 1: cell 3: 9 is outside 0..4"):
        four.search_grids(np.array([[0] * 16, [0, 0, 0, 9] + [0] * 12]))
    with pytest.raises(ValueError, match="limit must be at least 1, got 0"):
        four.search_grids(np.zeros((1, 16)), limit=0)
    with pytest.raises(ValueError, match="max_guesses must be at least 0, got -1"):
        four.search_grids(np.zeros((1, 16)), max_guesses=-1)
    solutions, counters = four.search_grids(np.zeros((0, 16), dtype=np.uint8))
    assert solutions.shape == (0, 16) and counters.shape == (0, len(COUNTERS))
    # A puzzle without a solution keeps none: its row stays zeros, the others' rows hold
    # their first solutions.
    clash = [1, 1] + [0] * 14
    solutions, counters = four.search_grids(np.array([[0] * 16, clash, [0] * 16]), limit=2)
    assert counters[:, 6].tolist() == [1, 0, 1] and counters[:, 0].tolist() == [2, 0, 2]
    assert not solutions[1].any() and solutions[0].tolist() == solutions[2].tolist()
    assert solutions[0].tolist() == list(four.search([0] * 16).solutions[0])
    assert reference.KEEP >= 1


@pytest.mark.parametrize("backend", ["native", "native-py", "native:max_guesses=1"])
def test_the_batch_path_answers_as_one_puzzle_at_a_time_on_every_shipped_set(backend):
    from sudokulab.api import solve, solve_grids

    for block in _shipped_blocks():
        grids = block.grids if backend == "native" else block.grids.take(slice(0, 4))
        answers = solve_grids(grids, backend, limit=2)
        assert len(answers) == len(grids)
        for i, puzzle in enumerate(grids.puzzles()):
            one, row = solve(puzzle, backend, limit=2), answers.result(i)
            assert (row.backend, row.status, row.count, row.exact, row.message) == (
                one.backend, one.status, one.count, one.exact, one.message
            )  # fmt: skip
            assert row.solutions == one.solutions[:1]
            assert row.stats == one.stats
        has = answers.solution.any(axis=1)
        assert (grids.verify(answers.solution) == has).all()  # every solution verifies


def _with_clashes(grids: Grids) -> Grids:
    """The block with every third puzzle made to clash: a given copied into a blank peer."""
    givens = grids.givens.copy()
    geom = grids.geometry
    for row in range(0, len(givens), 3):
        given = np.flatnonzero(givens[row])
        cell = int(given[0]) if len(given) else 0
        givens[row, cell] = givens[row, cell] or 1  # a killer puzzle may have no given
        peer = next(p for p in geom.peers[cell] if not givens[row, p])
        givens[row, peer] = givens[row, cell]
    return Grids(geom, givens, grids.cages, grids.candidates)


@pytest.mark.parametrize("backend", ["native", "native:max_guesses=1"])
def test_clashes_checked_after_the_search_give_what_checking_first_gives(backend, monkeypatch):
    from sudokulab.api import solve, solve_grids

    engine = type(get_backend("native"))
    assert engine.takes_clashes  # the native engine answers clashing givens itself
    for block in _shipped_blocks():
        if block.grids.candidates is not None:
            continue  # the native engine refuses pencil marks: no search to defer
        grids = _with_clashes(block.grids.take(slice(0, 9)))
        after = solve_grids(grids, backend, limit=2)
        with monkeypatch.context() as m:
            m.setattr(engine, "takes_clashes", False)
            first = solve_grids(grids, backend, limit=2)
        clashing = grids.clashing()
        assert clashing[::3].all()
        assert (after.status[clashing] == first.status[clashing]).all()
        for i in range(len(grids)):
            one = solve(grids.puzzle(i), backend, limit=2)
            rows = [after.result(i), first.result(i), one]
            seen = [(r.status, r.count, r.exact, r.message, r.solutions[:1]) for r in rows]
            assert seen[0] == seen[1] == seen[2]
            assert rows[0].stats == rows[1].stats  # (an invalid row of a block has the
            # block's common stats, one solved alone none: as before the change)
        assert (after.verified == grids.verify(after.solution)).all()
        assert (first.verified == grids.verify(first.solution)).all()  # every path verifies


def test_answers_put_carries_the_verified_column():
    from sudokulab.backends.result import Answers

    whole = Answers.empty("native", 3, 16)
    part = Answers.empty("native", 2, 16)
    part.verified = np.array([True, False])
    whole.put(np.array([2, 0]), part)
    assert whole.verified.tolist() == [False, False, True]
    part.verified = None  # a block nobody verified leaves the column as it was
    whole.put(np.array([1]), Answers.empty("native", 1, 16))
    assert whole.verified.tolist() == [False, False, True]
