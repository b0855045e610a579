"""The `local` backend: local search (min-conflicts, simulated annealing), incomplete.

Its answers verify, on every shape and variant it takes; it says `solved` or `timeout`,
never `unsolvable`, `multiple` or a count; a seed repeats its moves; its deadline and its
move budget stop it; the cross-check and the bench take its timeouts as timeouts. Each
verdict here rests on a move budget, not on the machine's speed, except where the
deadline itself is under test.
"""

from __future__ import annotations

import dataclasses
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers import random_cages, random_solution

from sudokulab import Puzzle, build_model, is_solution, solve
from sudokulab.backends import all_backends, get_backend
from sudokulab.backends.local import CANNOT_COUNT, NO_BOXES, STUCK
from sudokulab.bench import BenchPlan, LocalExecutor, run_bench
from sudokulab.bench.crosscheck import available_specs, cross_check
from sudokulab.bench.store import Store
from sudokulab.cli import main
from sudokulab.models import Cage, make_geometry, read_file
from sudokulab.models.geometry import _classic_units

DATA = Path(__file__).resolve().parent.parent / "data"
METHODS = ("min-conflicts", "annealing")
#: Moves enough for the easy puzzles below with the default seed: a budget, so that the
#: verdicts do not depend on the machine's speed.
BUDGET = 300_000
#: Row 1 holds 1..8, so r1c9 must be 9, which r2c9 holds: forward checking from the
#: givens leaves r1c9 no candidate (the contract's unsolvable puzzle).
STUCK_GRID = list(range(1, 9)) + [0] * 9 + [9] + [0] * 63
#: A shipped easy grid with one given changed: no solution (the native engine proves it),
#: though every cell keeps a candidate, so the local search runs until it is stopped.
UNSOLVABLE = ".831...5...7.2.3.925.4...6736..945......8...6.9.2658...2.61.......847.....695.4.1"


def easy(puzzle: Puzzle, solution, blanks: int, seed: int = 0) -> Puzzle:
    """The puzzle with every cell of its solution given but ``blanks`` random ones."""
    rng = random.Random(seed)
    cells = rng.sample(range(len(solution)), blanks)
    givens = list(solution)
    for c in cells:
        givens[c] = 0
    return dataclasses.replace(puzzle, givens=tuple(givens))


def spec(method: str, **options: object) -> str:
    extra = "".join(f",{k}={v}" for k, v in options.items())
    return f"local:method={method},budget={BUDGET}{extra}"


@pytest.mark.parametrize("method", METHODS)
def test_every_shipped_4x4_puzzle_solved_and_verified(method):
    for entry in read_file(DATA / "gen-4x4.jsonl"):
        result = solve(entry.puzzle, spec(method))
        assert result.status == "solved", (entry.name, result)
        assert is_solution(entry.puzzle, result.solution)
        assert result.solution == entry.solution  # the puzzles have one solution
        assert result.stats["best_cost"] == 0 and result.count == 1 and not result.exact


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", ["gen-classic-easy", "gen-x", "gen-jigsaw", "gen-killer"])
def test_easy_puzzles_of_each_variant_solved_and_verified(method, name):
    # the shipped grids with 30 blanks: easy for a local search, whatever the variant
    for entry in read_file(DATA / f"{name}.jsonl")[:3]:
        puzzle = easy(entry.puzzle, entry.solution, 30)
        result = solve(puzzle, spec(method))
        assert result.status == "solved", (entry.name, result)
        assert is_solution(puzzle, result.solution)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("size", [6, 16])
def test_other_sizes(method, size):
    rng = random.Random(size)
    solution = random_solution(size, rng)
    blanks = size * size // 4
    puzzle = easy(Puzzle.from_grid([0] * size * size), solution, blanks, seed=size)
    result = solve(puzzle, spec(method))
    assert result.status == "solved", result
    assert is_solution(puzzle, result.solution)


def test_killer_cages_count_in_the_cost():
    # few givens, so the cages' sums decide; both methods carry them
    rng = random.Random(4)
    solution = random_solution(4, rng)
    cages = tuple(Cage(c, sum(solution[i] for i in c)) for c in random_cages(solution, rng, 3))
    puzzle = Puzzle.from_grid([0] * 16)
    puzzle = dataclasses.replace(puzzle, cages=cages)
    for method in METHODS:
        result = solve(puzzle, spec(method))
        assert result.status == "solved", (method, result)
        assert is_solution(puzzle, result.solution)


def test_pencil_marks_are_its_domains():
    entry = read_file(DATA / "gen-classic-easy.jsonl")[0]
    puzzle = easy(entry.puzzle, entry.solution, 30)
    n = 9
    # each blank cell: its solution's value and one other, the other listed first
    marks = [1 << (v - 1) for v in entry.solution]
    for c, given in enumerate(puzzle.givens):
        if not given:
            other = entry.solution[c] % n + 1
            marks[c] |= 1 << (other - 1)
    marked = dataclasses.replace(puzzle, candidates=tuple(marks))
    for method in METHODS:
        result = solve(marked, spec(method))
        assert result.status == "solved", (method, result)
        assert is_solution(marked, result.solution)
        assert all(marks[c] >> (v - 1) & 1 for c, v in enumerate(result.solution))


@pytest.mark.parametrize("method", METHODS)
def test_never_unsolvable_it_stops_at_its_budget(method):
    assert solve(UNSOLVABLE, "native", limit=2).status == "unsolvable"
    result = solve(UNSOLVABLE, f"local:method={method},budget=20000", limit=2)
    assert (result.status, result.count, result.exact) == ("timeout", 0, False)
    assert result.stats["budget_spent"] and result.stats["moves"] == 20000
    assert result.stats["best_cost"] > 0
    assert "budget of 20000 moves" in result.message


def test_cells_without_a_choice_that_break_the_rules_end_at_once():
    # r1c9 and r2c9 can only be 9 (their rows hold the rest): they clash, no move helps
    grid = list(range(1, 9)) + [0] + [4, 5, 6, 7, 8, 1, 2, 3, 0] + [0] * 63
    for method in METHODS:
        result = solve(Puzzle.from_grid(grid), f"local:method={method}")
        assert result.status == "timeout" and result.message == STUCK
    # and a cell its given peers leave without a candidate is named
    grid = list(range(1, 9)) + [0] + [0] * 8 + [9] + [0] * 63
    for method in METHODS:
        result = solve(Puzzle.from_grid(grid), f"local:method={method}")
        assert result.status == "timeout"
        assert result.message == "r1c9 has no candidate left by its given peers"


@pytest.mark.parametrize("method", METHODS)
def test_a_tiny_timeout_is_a_timeout(method):
    hard = read_file(DATA / "gen-classic-extreme.jsonl")[0].puzzle
    start = time.perf_counter()
    result = solve(hard, f"local:method={method}", timeout=0.01)
    took = time.perf_counter() - start
    assert result.status == "timeout" and not result.solutions, result
    assert not result.stats["budget_spent"]  # the deadline stopped it, not the budget
    assert took < 1.0  # the stop itself (100x the timeout)


def test_without_a_timeout_the_default_budget_stops_it(monkeypatch):
    from sudokulab.backends import local

    monkeypatch.setattr(local, "DEFAULT_BUDGET", 5000)  # read at each search
    result = solve(UNSOLVABLE, "local")
    assert result.status == "timeout" and result.stats["moves"] == 5000
    assert result.stats["budget_spent"]
    # with a timeout the default budget does not apply: the deadline stops it
    result = solve(UNSOLVABLE, "local", timeout=0.5)
    assert result.status == "timeout" and not result.stats["budget_spent"]


@pytest.mark.parametrize("method", METHODS)
def test_a_seed_repeats_its_moves(method):
    entry = read_file(DATA / "gen-classic-easy.jsonl")[1]
    puzzle = easy(entry.puzzle, entry.solution, 35)
    runs = [solve(puzzle, spec(method, seed=s)) for s in (7, 7, 8)]
    assert runs[0].status == "solved"
    assert runs[0].solution == runs[1].solution
    assert runs[0].stats == runs[1].stats
    assert runs[2].stats["seed"] == 8
    # and a timeout repeats too: the same moves to the same best cost
    a, b = (solve(UNSOLVABLE, f"local:method={method},budget=5000,seed=3") for _ in range(2))
    assert a.stats == b.stats


def test_more_than_one_solution_asked_is_a_timeout_with_the_one_found():
    entry = read_file(DATA / "gen-4x4.jsonl")[0]
    result = solve(entry.puzzle, "local", limit=2)
    assert (result.status, result.count, result.exact) == ("timeout", 1, False)
    assert result.unique is None and result.message == CANNOT_COUNT
    assert is_solution(entry.puzzle, result.solution)


def test_annealing_needs_boxes():
    # a 4x4 Latin square: rows and columns, no boxes
    units = _classic_units(4, 2, 2)[:8]
    latin = Puzzle(make_geometry(4, 2, 2, units), (1,) + (0,) * 15)
    result = solve(latin, "local:method=annealing")
    assert result.status == "error" and result.message == NO_BOXES
    result = solve(latin, "local")  # min-conflicts needs none
    assert result.status == "solved" and is_solution(latin, result.solution)
    assert "no boxes: min-conflicts only" in get_backend("local").describe(build_model(latin))


@pytest.mark.parametrize(
    ("option", "says"),
    [
        ("method=tabu", "method='tabu' is not one of min-conflicts, annealing"),
        ("walk=1.5", "walk='1.5' is not a valid number from 0 to 1"),
        ("cooling=1", "cooling='1' is not a valid number above 0 and below 1"),
        ("budget=0", "budget='0' is not a valid whole number (1 or more)"),
        ("tabu=-1", "tabu='-1' is not a valid whole number (0 or more)"),
        ("seed=x", "seed='x' is not a valid whole number (0 or more)"),
        ("steps=3", "backend 'local' has no option 'steps'"),
    ],
)
def test_bad_options_are_named(option, says, capsys):
    with pytest.raises(ValueError, match=says.replace("(", r"\(").replace(")", r"\)")):
        solve("." * 16, f"local:{option}")
    with pytest.raises(SystemExit) as exit_:
        main(["solve", "." * 16, "--backend", f"local:{option}"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"error: argument --backend: backend 'local': {says}" in err or says in err
    assert "Traceback" not in err


def test_backends_lists_it_as_incomplete(capsys):
    assert not get_backend("local").complete
    assert [n for n, b in all_backends().items() if not b.complete] == ["local"]
    assert main(["backends"]) == 0
    out = capsys.readouterr().out
    block = out[out.index("\nlocal ") :].splitlines()[1:5]
    assert any("incomplete: answers solved or timeout" in line for line in block)
    assert any("method=min-conflicts|annealing" in line for line in block)


def test_check_takes_its_timeouts_as_timeouts(capsys):
    # unsolvable: the native engine proves it, local search times out; no disagreement
    stuck = Puzzle.from_grid([int(c) if c != "." else 0 for c in UNSOLVABLE])
    frame = cross_check([stuck], ["native", "local:budget=20000"], timeout=30)
    rows = frame.set_index("backend")
    assert rows.loc["native", "status"] == "unsolvable"
    assert rows.loc["local:budget=20000", "status"] == "timeout"
    assert frame["agrees"].isna().all()  # one conclusive answer: nothing to compare
    # a puzzle with a solution: local keeps the one it found, verified, and agrees with
    # nobody and disagrees with nobody (check asks for two solutions)
    entry = read_file(DATA / "gen-classic-easy.jsonl")[0]
    puzzle = easy(entry.puzzle, entry.solution, 20)
    frame = cross_check([puzzle, stuck], ["native", "dlx", "local:budget=20000"], timeout=30)
    local = frame[frame["backend"].str.startswith("local")]
    assert list(local["status"]) == ["timeout", "timeout"]
    assert local["verified"].iloc[0] and local["agrees"].isna().all()
    assert frame[frame["backend"] != local["backend"].iloc[0]]["agrees"].iloc[:2].all()
    assert not (frame["agrees"] == False).any()  # noqa: E712
    # the command: a timeout fails the check (exit 1), and is not called a disagreement
    text = str(stuck)
    assert main(["check", text, "--backends", "native,local:budget=20000"]) == 1
    out = capsys.readouterr().out
    assert "disagrees" not in out and "timeout" in out


def test_check_and_bench_leave_it_out_unless_named():
    assert "local" not in {s.backend for s in available_specs()}
    from sudokulab.cli.bench import default_specs

    assert "local" not in default_specs()


def test_the_bench_takes_its_timeouts_as_timeouts(tmp_path):
    entry = read_file(DATA / "gen-classic-easy.jsonl")[0]
    stuck = Puzzle.from_grid([int(c) if c != "." else 0 for c in UNSOLVABLE])
    sets = {"s": [(0, easy(entry.puzzle, entry.solution, 20)), (1, stuck)]}
    local = "local:budget=20000"
    plan = BenchPlan(["s"], ["native", local], timeout=None)
    with Store(tmp_path / "r.sqlite") as store:
        run = run_bench(plan, store, lambda name, plan: sets[name], LocalExecutor(1),
                        progress=False)  # fmt: skip
        rows = store.results([run]).set_index(["idx", "backend"])
    assert rows.loc[(0, local), "status"] == "solved" and rows.loc[(0, local), "verified"]
    assert rows.loc[(0, local), "agrees"] and rows.loc[(0, "native"), "agrees"]
    assert rows.loc[(1, local), "status"] == "timeout" and rows.loc[(1, "native"), "status"] == (
        "unsolvable"
    )
    assert rows.loc[(1, local), "agrees"] is None and rows.loc[(1, "native"), "agrees"] is None
    # with --unique (limit 2) its answer is a timeout, with no verdict to compare
    plan = BenchPlan(["s"], ["native", local], timeout=None, unique=True)
    with Store(tmp_path / "u.sqlite") as store:
        run = run_bench(plan, store, lambda name, plan: sets[name], LocalExecutor(1),
                        progress=False)  # fmt: skip
        rows = store.results([run]).set_index(["idx", "backend"])
    assert rows.loc[(0, local), "status"] == "timeout" and rows.loc[(0, local), "agrees"] is None
    assert rows.loc[(0, "native"), "status"] == "solved"


def test_ctrl_c_stops_it():
    code = textwrap.dedent(
        """
        import sys
        from sudokulab import solve
        print("ready", flush=True)
        try:
            solve(sys.argv[1], "local:budget=1000000000")
        except KeyboardInterrupt:
            print("KeyboardInterrupt", flush=True)
            sys.exit(130)
        """
    )
    process = subprocess.Popen([sys.executable, "-c", code, UNSOLVABLE], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert process.stdout.readline() == "ready\n"
        time.sleep(0.5)  # into the search (an unsolvable puzzle: it never ends by itself)
        os.kill(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert (process.returncode, out, err) == (130, "KeyboardInterrupt\n", "")
