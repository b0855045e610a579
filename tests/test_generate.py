"""The generator: unique puzzles, graded by the logic solver, reproducible by seed."""

from __future__ import annotations

import io
import os
import shlex
import subprocess
import sys
import time
from importlib import resources

import pytest

import sudokulab
import sudokulab.bench.progress as progress_module
import sudokulab.cli.generate as generate_command
from sudokulab import native
from sudokulab.backends import get_backend
from sudokulab.catalog import entries
from sudokulab.cli import main
from sudokulab.generate import (
    ATTEMPTS,
    DIFFICULTIES,
    RULE_VARIANTS,
    GenerateError,
    generate,
    grade,
    propagates,
)
from sudokulab.logic import LADDER, solve_logic
from sudokulab.logic.ladder import BY_NAME
from sudokulab.logic.rating import rate_run
from sudokulab.models import Puzzle, build_model, is_solution
from sudokulab.models.variants import region_labels, variant_geometry


def _units(puzzle):
    return tuple(u.cells for u in puzzle.geometry.units)


def _count(puzzle, limit=2):
    return native.Engine(puzzle.size, _units(puzzle)).search(puzzle.givens, limit).count


def _needs(puzzle, propagation):
    """Guesses the engine makes to solve the puzzle with this propagation (full search)."""
    out = native.Engine(puzzle.size, _units(puzzle), propagation).search(puzzle.givens)
    assert out.count == 1
    return out.guesses


@pytest.mark.parametrize("difficulty", DIFFICULTIES)
def test_every_puzzle_is_unique_and_graded_by_the_logic_solver(difficulty):
    made = list(generate(9, difficulty=difficulty, count=4, seed=11))
    for item in made:
        puzzle = item.puzzle
        assert item.grade == difficulty
        assert is_solution(puzzle, item.solution) and _count(puzzle) == 1
        rating = rate_run(solve_logic(puzzle))
        assert (rating.grade, rating.hardest) == (item.grade, item.hardest)
        # Easy is what the engine's hidden propagation settles without a guess.
        assert (_needs(puzzle, "hidden") == 0) == (difficulty == "easy")
        if difficulty != "extreme":
            assert rating.run.grid == item.solution
        else:
            assert rating.needs_search


# Each technique with a seed whose search finds its puzzle early: with seed 11, X-chain
# took the generator 483 s (load 10) and naked pair 7 s; with these, 2 s and 1 s.
@pytest.mark.parametrize(
    ("technique", "seed"), [("naked pair", 2), ("XY-wing", 11), ("W-wing", 11), ("X-chain", 2)]
)
def test_a_technique_can_be_asked_and_is_needed(technique, seed):
    rung = LADDER.index(BY_NAME[technique])
    for item in generate(9, technique=technique, seed=seed):
        assert item.hardest == technique and item.grade == BY_NAME[technique].grade
        assert solve_logic(item.puzzle, LADDER[: rung + 1]).status == "solved"
        assert solve_logic(item.puzzle, LADDER[:rung]).status == "stalled"
        assert _count(item.puzzle) == 1


def test_technique_requests_that_cannot_be_met_are_refused():
    for kwargs, message in (
        ({"technique": "Y-wing"}, "unknown technique"),
        ({"technique": "X-wing", "difficulty": "easy"}, "is hard, not easy"),
        ({"technique": "X-wing", "variant": "killer"}, "killer"),
        ({"difficulty": "hard", "variant": "killer"}, "easy or extreme"),
    ):
        with pytest.raises(GenerateError, match=message):
            list(generate(9, **kwargs))


def test_generate_cli_takes_a_technique_in_any_spelling(capsys):
    assert main(["generate", "--technique", "xy-WING", "--seed", "4", "--format", "json"]) == 0
    assert "(hard: XY-wing)" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        main(["generate", "--technique", "y-wing", "--seed", "4"])
    assert stop.value.code == 2
    assert "unknown technique 'y-wing': hidden-single" in capsys.readouterr().err


def test_cpsat_agrees_that_a_sample_is_unique():
    cpsat = get_backend("cpsat")
    sample = [
        *generate(9, difficulty="hard", count=3, seed=5),
        *generate(9, "x", count=2, seed=5),
        *generate(9, "hyper", count=2, seed=5),
        *generate(9, "jigsaw", count=2, seed=5),
        *generate(6, count=2, seed=5),
        *generate(16, difficulty="easy", count=1, seed=5),
    ]
    for item in sample:
        result = cpsat.solve(build_model(item.puzzle), limit=2)
        assert result.count == 1 and result.exact, item.puzzle
        assert result.solution == item.solution


@pytest.mark.parametrize("size", [4, 6, 8, 12, 16, 25])
def test_every_size_generates(size):
    (item,) = generate(size, difficulty="easy" if size > 9 else None, seed=2)
    assert item.puzzle.size == size and _count(item.puzzle) == 1
    assert is_solution(item.puzzle, item.solution)


def test_rotational_symmetry():
    for item in generate(9, count=3, seed=4, symmetry="rotational"):
        givens = item.puzzle.givens
        assert all(bool(givens[c]) == bool(givens[80 - c]) for c in range(81))
        assert _count(item.puzzle) == 1


def test_jigsaw_regions_are_random_contiguous_and_of_n_cells():
    layouts = set()
    for item in generate(9, "jigsaw", count=3, seed=8):
        labels = region_labels(item.puzzle.geometry)
        variant_geometry(9, regions=labels)  # checks size and contiguity
        layouts.add(tuple(labels))
        assert _count(item.puzzle) == 1
    assert len(layouts) == 3


def test_killer_cages_cover_the_grid_and_the_puzzle_is_unique():
    for item in generate(9, "killer", count=2, seed=9):
        puzzle = item.puzzle
        cells = sorted(c for cage in puzzle.cages for c in cage.cells)
        assert cells == list(range(81))  # every cell in exactly one cage
        assert all(len(cage.cells) <= 4 for cage in puzzle.cages)
        assert puzzle.given_count <= 10 and is_solution(puzzle, item.solution)
        assert item.grade == grade(puzzle)
    # python-constraint, independent of the native count the generator used
    result = get_backend("constraint").solve(build_model(puzzle), limit=2)
    assert result.count == 1 and result.exact and result.solution == item.solution


def test_same_seed_same_output_across_runs_and_hash_seeds():
    outputs = set()
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        proc = subprocess.run(
            [sys.executable, "-m", "sudokulab", "generate", "--variant", "jigsaw", "--count",
             "3", "--seed", "42"],
            capture_output=True, text=True, env=env, check=True,
        )  # fmt: skip
        outputs.add(proc.stdout)
    assert len(outputs) == 1
    again = [i.puzzle for i in generate(9, "jigsaw", count=3, seed=42)]
    assert again == [i.puzzle for i in generate(9, "jigsaw", count=3, seed=42)]
    assert again != [i.puzzle for i in generate(9, "jigsaw", count=3, seed=43)]


SHIPPED = [i for i in entries() if i.generator]


@pytest.mark.parametrize("info", SHIPPED, ids=[i.name for i in SHIPPED])
def test_regenerating_a_shipped_set_gives_the_identical_file(info, capsys):
    command = shlex.split(info.generator)
    assert command[:2] == ["sudokulab", "generate"] and "--seed" in command
    assert main(command[1:]) == 0
    made = capsys.readouterr().out.encode()
    shipped = resources.files("sudokulab.data").joinpath(info.file).read_bytes()
    assert made == shipped, f"{info.file}: regenerate it with `{info.generator}`"


def test_requests_that_cannot_be_met_are_exit_2(capsys):
    for args in (
        ["--variant", "hyper", "--size", "4"],
        ["--variant", "jigsaw", "--format", "line"],
    ):
        assert main(["generate", "--seed", "1", *args]) == 2, args
        assert "error" in capsys.readouterr().err
    with pytest.raises(GenerateError):
        list(generate(9, "sudoku-x"))


def test_killer_puzzles_are_graded_and_a_difficulty_can_be_asked():
    for item in generate(9, "killer", difficulty="extreme", count=2, seed=4):
        assert item.grade == grade(item.puzzle) == "extreme"
        assert not propagates(item.puzzle.geometry, item.puzzle.givens, "hidden", item.puzzle.cages)
        result = get_backend("cpsat").solve(build_model(item.puzzle), limit=2)
        assert result.count == 1 and result.exact and result.solution == item.solution


def test_a_check_that_spends_its_budget_keeps_the_clue():
    # With no guess to spend, a removal stays only where propagation alone settles the
    # puzzle: what is made is unique, and solved without a guess.
    for size in (9, 16):
        for item in generate(size, count=2, seed=7, check_guesses=0):
            assert item.grade == "easy" and _count(item.puzzle) == 1
            assert is_solution(item.puzzle, item.solution)
    # Within a small budget some checks settle, some spend it: unique all the same, by
    # the full count.
    (item,) = generate(16, seed=1, check_guesses=50)
    assert _count(item.puzzle) == 1 and is_solution(item.puzzle, item.solution)
    with pytest.raises(GenerateError, match="check_guesses must be at least 0, got -1"):
        next(generate(9, check_guesses=-1))


def test_killer_checks_within_a_budget_still_end_unique():
    # With no guess to spend every check stops at its root, unsettled: givens are added
    # until propagation alone pins the grid down.
    for item in generate(6, "killer", count=2, seed=3, check_guesses=0):
        puzzle = item.puzzle
        assert propagates(puzzle.geometry, puzzle.givens, "hidden", puzzle.cages)
        result = get_backend("cpsat").solve(build_model(puzzle), limit=2)
        assert result.count == 1 and result.exact and result.solution == item.solution


def test_the_command_shows_its_progress_on_stderr(capsys):
    assert main(["generate", "--count", "2", "--seed", "5"]) == 0
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 2
    # Not a terminal here: a plain line (at the end, and every few seconds before it).
    assert captured.err.splitlines()[-1].startswith("generate: 2/2 done (9x9 classic, ")


# --- requests that cannot finish quickly --------------------------------------------------


def test_a_request_stops_at_its_attempts_and_says_so():
    tried = []
    with pytest.raises(GenerateError) as err:
        list(generate(9, technique="jellyfish", seed=1, attempts=3, progress=tried.append))
    assert str(err.value) == (
        "no jellyfish 9x9 classic puzzle in 3 grids (puzzles needing jellyfish are rare "
        "among random ones): more attempts or another seed may find one"
    )
    assert sorted({t.attempt for t in tried}) == [1, 2, 3]
    assert {(t.puzzle, t.attempts, t.timeout) for t in tried} == {(1, 3, None)}
    seconds = [t.seconds for t in tried]
    assert seconds == sorted(seconds)
    with pytest.raises(GenerateError) as err:
        list(generate(9, difficulty="expert", seed=1, attempts=1))
    assert str(err.value) == (
        "no expert 9x9 classic puzzle in 1 grid: more attempts or another seed may find one"
    )


def test_a_request_stops_at_its_timeout_soon_after_it():
    # The 16x16 X-chain of seed 3 takes minutes (docs/results.md): a test of the stop
    # itself, with a margin of tens of times the timeout.
    start = time.monotonic()
    with pytest.raises(GenerateError) as err:
        list(generate(16, technique="X-chain", seed=3, timeout=0.5))
    assert time.monotonic() - start < 30
    assert str(err.value).startswith(
        "no X-chain 16x16 classic puzzle within the timeout of 0.5 s ("
    )
    assert str(err.value).endswith(
        "of at most 200 grids drawn): a larger timeout or another seed may find one"
    )


def test_the_bounds_and_the_progress_change_no_puzzle():
    plain = list(generate(9, difficulty="hard", count=2, seed=5))
    told = []
    bounded = list(
        generate(9, difficulty="hard", count=2, seed=5, timeout=1e6, progress=told.append)
    )
    assert bounded == plain
    assert {t.puzzle for t in told} == {1, 2}
    for kwargs, message in (
        ({"attempts": 0}, "attempts must be at least 1"),
        ({"timeout": 0}, "timeout must be more than 0"),
        ({"timeout": float("nan")}, "timeout must be more than 0"),
    ):
        with pytest.raises(GenerateError, match=message):
            next(generate(9, **kwargs))


def test_the_command_stops_with_exit_2_and_shows_where_it_stands(capsys, monkeypatch):
    monkeypatch.setattr(progress_module, "EVERY", 0.0)  # a line at every update
    monkeypatch.setattr(generate_command._Told, "EVERY", 0.0)
    args = ["generate", "--technique", "jellyfish", "--seed", "1", "--attempts", "2"]
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "generate: 0/1 done (9x9 classic #1: grid 1 of 2, " in err
    assert "generate: 0/1 done (9x9 classic #1: grid 2 of 2, " in err
    assert " of 300 s)" in err
    assert err.endswith(
        "sudokulab: error: no jellyfish 9x9 classic puzzle in 2 grids (puzzles needing "
        "jellyfish are rare among random ones): more attempts or another seed may find one\n"
    )


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self):
        return True


def test_on_a_terminal_the_bar_tells_the_grid_in_hand(capsys, monkeypatch):
    monkeypatch.setattr(generate_command._Told, "EVERY", 0.0)
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    args = ["generate", "--technique", "jellyfish", "--seed", "1", "--attempts", "2"]
    assert main(args) == 2
    assert "9x9 classic #1: grid 2 of 2, " in terminal.getvalue()


def test_the_help_states_the_bounds(capsys):
    with pytest.raises(SystemExit):
        main(["generate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"before the request is given up (exit 2) (default: {ATTEMPTS})" in text
    assert "seconds for one puzzle before the request is given up (exit 2) (default: 300)" in text
    assert "Each puzzle gets at most --attempts grids and --timeout seconds" in text


def test_the_command_stops_at_its_timeout_with_exit_2(capsys):
    args = ["generate", "--size", "16", "--technique", "x-chain", "--seed", "3", "--timeout", "0.3"]
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "sudokulab: error: no X-chain 16x16 classic puzzle within the timeout of 0.3 s (" in err


@pytest.mark.parametrize("variant", RULE_VARIANTS)
def test_rule_variants_are_unique_and_need_their_rules(variant):
    made = list(generate(9, variant, count=1, seed=5))
    assert made == list(generate(9, variant, count=1, seed=5))  # seeded
    item = made[0]
    puzzle = item.puzzle
    assert puzzle.rules and is_solution(puzzle, item.solution)
    assert item.grade == ""  # the logic solver knows no rules: not graded
    for backend in ("native", "cpsat", "sat"):
        found = sudokulab.solve(puzzle, backend=backend, limit=2)
        assert found.count == 1 and found.exact and found.solutions[0] == item.solution
    without = Puzzle(puzzle.geometry, puzzle.givens)
    assert sudokulab.solve(without, backend="cpsat", limit=2).status == "multiple"
    kinds = {rule.kind for rule in puzzle.rules}
    assert kinds <= {"anti-knight": {"notequal"}, "thermometer": {"less"},
                     "kropki": {"difference", "ratio"}}[variant]  # fmt: skip


def test_rule_variants_refuse_a_grade(capsys):
    with pytest.raises(GenerateError, match="kropki puzzles are not graded"):
        list(generate(9, "kropki", difficulty="easy"))
    assert main(["generate", "--variant", "anti-knight", "--technique", "x-wing"]) == 2
    assert "anti-knight puzzles are not graded" in capsys.readouterr().err


@pytest.mark.parametrize("variant", ["x", "hyper", "anti-knight"])
def test_a_variant_travels_through_a_pipe(variant, tmp_path, capsys):
    """generate | solve --unique: the document carries the variant, so the solver reads
    the same puzzle (a bare line would drop it and answer "multiple")."""
    assert main(["generate", "--variant", variant, "--seed", "3"]) == 0
    made = capsys.readouterr().out
    assert made.startswith("{")
    (tmp_path / "made.jsonl").write_text(made)
    assert main(["solve", "--unique", str(tmp_path / "made.jsonl")]) == 0
    assert capsys.readouterr().out.rstrip().endswith(" unique")
    line = ["generate", "--variant", variant, "--seed", "3", "--format", "line"]
    if variant == "anti-knight":
        assert main(line) == 2
        assert "a line cannot carry anti-knight rules" in capsys.readouterr().err
    else:
        assert main(line) == 0
        assert f"solve them with --variant {variant}" in capsys.readouterr().err
