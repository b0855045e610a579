"""One contract for every backend and every native preset: same model, same answers."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from helpers import random_solution, two_solution_grid, wait_for

from sudokulab import Puzzle, build_model, is_solution, read_file, solve
from sudokulab.backends import PRESETS, backend_names, get_backend

SEEDS = Path(__file__).resolve().parent.parent / "data" / "seeds.csv"
ADVERSARIAL = "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9"
SPECS = [*backend_names(), *PRESETS]

# Slow approaches get a named subset of the hard sets; everything else gets all of them.
# The subsets keep the run short (no deadline decides a verdict here: every solve runs to
# its end). Plain backtracking: the top95 and hardest puzzles it solves in under 0.2 s.
SUBSETS = {
    "backtracking": {
        "top95": [18, 19, 24, 31, 32, 43, 52, 53, 59, 64, 76, 85, 87, 89, 91],
        "hardest": [1, 5, 6, 7, 9],
    },
    # python-constraint: top95 puzzles it solves in under 0.2 s here (all of it takes
    # about 50 s, #17 alone 7 s); all of hardest is quick.
    "constraint": {
        "top95": [0, 1, 2, 11, 12, 13, 14, 16, 18, 19, 21, 22, 23, 24, 25, 28, 30, 31, 32],
    },
    # xcsp3: a Java process per puzzle (about a second each to start, whatever the puzzle):
    # all of top95 takes minutes; a few of each set say as much.
    "xcsp3": {"top95": [0, 1, 17, 49], "hardest": [0, 1, 2]},
    # gurobi: each call from the API starts a worker process (Gurobi takes Ctrl-C over
    # while it optimizes), some 0.14 s a puzzle whatever the puzzle: every fifth says as much.
    "gurobi": {"top95": list(range(0, 95, 5))},
}


def _available(spec: str) -> None:
    name = PRESETS[spec][0] if spec in PRESETS else spec
    if not get_backend(name).available():
        pytest.skip(f"{name} is not installed")


def _complete(spec: str) -> None:
    """Skip an incomplete backend (local search) where the contract asks for proofs:
    tests/test_local.py holds it to its own (solved or timeout, never a count)."""
    name = PRESETS[spec][0] if spec in PRESETS else spec
    if not get_backend(name).complete:
        pytest.skip(f"{name} is incomplete: it proves no uniqueness, count or absence")


def _through_the_seam(spec: str) -> bool:
    """Whether the spec runs the native engine whatever the seam chose (native itself and
    its presets): CI runs those again with the Python reference forced."""
    return (PRESETS[spec][0] if spec in PRESETS else spec) == "native"


@pytest.fixture(
    params=[pytest.param(s, marks=pytest.mark.seam) if _through_the_seam(s) else s for s in SPECS]
)
def spec(request):
    _available(request.param)
    return request.param


def _fits(spec: str, puzzle: Puzzle) -> None:
    """Skip a backend whose licence will not take the puzzle's program (gurobi's
    size-limited one: tests/test_bridges.py holds it to that refusal)."""
    backend = get_backend(PRESETS[spec][0] if spec in PRESETS else spec)
    why = backend.refusal(build_model(puzzle), {})
    if why:
        pytest.skip(why)


def _children() -> set[int]:
    """Live child processes of this process (from /proc)."""
    me, found = os.getpid(), set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == me and fields[0] != "Z":
                found.add(int(entry))
    return found


def test_seed_puzzles(spec):
    _complete(spec)
    for entry in read_file(SEEDS):
        if spec == "backtracking" and str(entry.puzzle) == ADVERSARIAL:
            continue  # built to defeat plain backtracking: minutes in pure Python
        result = solve(entry.puzzle, spec, limit=2)
        assert result.status == "solved", result
        assert result.unique is True and result.solution == entry.solution


@pytest.mark.parametrize("name", ["top95", "hardest"])
def test_hard_sets_verified_and_agreeing(spec, name, data_dir):
    _complete(spec)
    path = data_dir / "norvig-pytudes" / f"sudoku-{name}.txt"
    entries = read_file(path)
    subset = SUBSETS.get(spec, {}).get(name)
    chosen = [entries[i] for i in subset] if subset else entries
    for entry in chosen:
        result = solve(entry.puzzle, spec)
        assert result.status == "solved", (entry.line, result)
        assert is_solution(entry.puzzle, result.solution)
        assert result.solution == solve(entry.puzzle, "native").solution


@pytest.mark.parametrize("size", [4, 16])
def test_other_sizes(spec, size):
    rng = random.Random(size)
    solution = random_solution(size, rng)
    blank = 0.4 if size == 16 else 0.7  # plain backtracking must finish the 16x16 too
    puzzle = Puzzle.from_grid([0 if rng.random() < blank else v for v in solution])
    _fits(spec, puzzle)
    result = solve(puzzle, spec)
    assert result.status == "solved", result
    assert is_solution(puzzle, result.solution)


def test_unsolvable_two_solutions_invalid_and_limit(spec):
    _complete(spec)
    stuck = Puzzle.from_grid(list(range(1, 9)) + [0] * 9 + [9] + [0] * 63)
    result = solve(stuck, spec, limit=2)
    assert (result.status, result.count, result.exact) == ("unsolvable", 0, True)

    answer = read_file(SEEDS)[0].solution
    two = Puzzle.from_grid(two_solution_grid(answer))
    result = solve(two, spec, limit=5)
    assert (result.status, result.count, result.exact) == ("multiple", 2, True)
    assert len(set(result.solutions)) == 2
    assert all(is_solution(two, s) for s in result.solutions)

    clash = solve("55" + "." * 79, spec)
    assert clash.status == "invalid" and clash.message.startswith("row 1: r1c1 and r1c2")

    empty = solve("." * 81, spec, limit=3)
    assert (empty.status, empty.count, empty.exact) == ("multiple", 3, False)
    assert len(set(empty.solutions)) == 3
    assert all(is_solution(Puzzle.from_grid([0] * 81), s) for s in empty.solutions)


def test_a_timeout_leaves_no_process(spec):
    _fits(spec, Puzzle.from_grid([0] * 256))
    before = _children()
    # Counting every 16x16 grid cannot finish: a timeout wherever each backend stops
    # (tests/test_deadlines.py holds every verdict to the deadline, under load).
    result = solve("." * 256, spec, limit=None, timeout=0.3)
    assert result.status == "timeout" and not result.exact, result
    assert all(is_solution(Puzzle.from_grid([0] * 256), s) for s in result.solutions[:3])
    wait_for(lambda: _children() <= before, 10)  # the killed ones are reaped
