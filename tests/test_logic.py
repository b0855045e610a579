"""The logic solver on whole sets: every step sound against the engine's solution, the
replay reaching it, the ladder's order, and the rating's shape. Each technique on
constructed grids is in tests/test_logic_techniques.py."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter

import pytest

from sudokulab import rate, read_file, solve
from sudokulab.classroom.logic_story import logic_steps
from sudokulab.classroom.narrative import removal_line
from sudokulab.logic import LADDER, Board, solve_logic
from sudokulab.logic.ladder import apply
from sudokulab.logic.rating import rate_run
from sudokulab.logic.words import step_text
from sudokulab.models import parse_puzzle

#: Shipped sets (9x9 classic, 4x4, 16x16, diagonals, jigsaw): every puzzle.
SHIPPED = [
    "gen-classic-easy",
    "gen-classic-medium",
    "gen-classic-hard",
    "gen-4x4",
    "gen-16x16",
    "gen-x",
    "gen-jigsaw",
]
#: Public sets: (file, every k-th puzzle), some 1,400 puzzles in all (2,700 took 8 minutes
#: of CPU at load 10; test_every_technique_is_used_somewhere_and_sound reads 400 more).
PUBLIC = [
    ("norvig-pytudes/sudokus_17.txt", 80),
    ("amtal-sudoku/top1465", 4),
    ("norvig-pytudes/sudoku-top95.txt", 1),
    ("norvig-pytudes/sudoku-hardest.txt", 1),
    ("sunjay-sudoku/top2365.txt", 16),
]


def check_sound(puzzle) -> tuple[str, Counter]:
    """Every step of the run against the unique solution (from the native engine): no
    placement of another value, no elimination of the solution's value; the steps
    replayed on a fresh board give the run's grid; a solved run gives the solution."""
    result = solve(puzzle, limit=2)
    assert result.count == 1, "the sets hold puzzles with one solution"
    solution = result.solution
    run = solve_logic(puzzle)
    board = Board(run_shape(puzzle), puzzle.givens)
    for step in run.steps:
        for cell, value in step.placed:
            assert solution[cell] == value, step
        for cell, value in step.removed:
            assert solution[cell] != value, step
            assert board.has(cell, value), f"{step} removes what is not a candidate"
        assert step.placed or step.removed or step is run.steps[-1], step
        apply(board, step)
    assert tuple(board.values) == run.grid
    if run.status == "solved":
        assert run.grid == tuple(solution)
    else:
        assert run.status == "stalled" and run.steps[-1].technique == "stalled"
        assert all(v in (0, s) for v, s in zip(run.grid, solution, strict=True))
    return run.status, Counter(s.technique for s in run.steps)


def run_shape(puzzle):
    from sudokulab.logic import shape_of

    return shape_of(puzzle.geometry)


@pytest.mark.parametrize("name", SHIPPED)
def test_sound_on_the_shipped_sets(name):
    from sudokulab.catalog import load

    entries = load(name).entries
    statuses = Counter(check_sound(e.puzzle)[0] for e in entries)
    assert sum(statuses.values()) == len(entries) > 0


@pytest.mark.parametrize(("path", "every"), PUBLIC, ids=[p for p, _ in PUBLIC])
def test_sound_on_the_public_sets(public_set, path, every):
    entries = public_set(path)[::every]
    used: Counter = Counter()
    statuses: Counter = Counter()
    for entry in entries:
        status, counts = check_sound(entry.puzzle)
        statuses[status] += 1
        used.update(counts)
    assert statuses["solved"] > 0
    if "17" in path:  # the ladder settles most 17-clue puzzles (tdoku's singles and
        assert statuses["solved"] / len(entries) > 0.9  # box-line propagation: 78.7%)


def test_every_technique_is_used_somewhere_and_sound(public_set):
    """Over the hard public sets, every rung of the ladder fires (and stays sound)."""
    used: Counter = Counter()
    for path in ("norvig-pytudes/sudoku-top95.txt", "amtal-sudoku/top1465"):
        for entry in public_set(path)[:400]:
            used.update(check_sound(entry.puzzle)[1])
    missing = [t.name for t in LADDER if not used[t.name]]
    assert missing in ([], ["jellyfish"], ["hidden quad"], ["jellyfish", "hidden quad"]), missing


def test_a_puzzle_of_singles_is_rated_as_such():
    from sudokulab.catalog import load

    for entry in load("gen-classic-easy").entries:
        rating = rate_run(solve_logic(entry.puzzle))
        assert rating.status == "solved"
        assert set(rating.counts) <= {"hidden single", "naked single"}
        assert rating.grade == "easy" and rating.hardest in ("hidden single", "naked single")
        assert rating.score in (1.2, 1.5, 2.3)
        singles = solve_logic(entry.puzzle, LADDER[:2])
        assert singles.status == "solved" and singles.steps == rating.run.steps


def test_removing_the_hardest_technique_makes_the_puzzle_stall(data_dir):
    """For each technique that is some puzzle's hardest: the ladder up to it solves the
    puzzle, the ladder below it stalls where the technique was needed."""
    examples = {}
    for path in ("norvig-pytudes/sudoku-top95.txt", "amtal-sudoku/top1465"):
        for entry in read_file(data_dir / path)[:300]:
            rating = rate_run(solve_logic(entry.puzzle))
            if rating.status == "solved":
                examples.setdefault(rating.hardest, entry.puzzle)
    assert len(examples) >= 8, sorted(examples)
    rung = {t.name: i for i, t in enumerate(LADDER)}
    for name, puzzle in examples.items():
        upto = solve_logic(puzzle, LADDER[: rung[name] + 1])
        assert upto.status == "solved", name
        below = solve_logic(puzzle, LADDER[: rung[name]])
        assert below.status == "stalled", name
        assert below.steps[-1].technique == "stalled"
        # The same steps up to where the technique was first needed.
        first = next(i for i, s in enumerate(upto.steps) if s.technique == name)
        assert below.steps[:first] == upto.steps[:first]


def test_rating_scale_and_grades(data_dir):
    frame = rate([e.puzzle for e in read_file(data_dir / "norvig-pytudes/sudoku-top95.txt")])
    assert len(frame) == 95
    searched = frame[frame.needs_search]
    assert (searched.score == 10.0).all() and (searched.grade == "extreme").all()
    assert (searched.hardest == "needs search").all()
    solved = frame[frame.status == "solved"]
    assert (solved.score < 10).all() and not solved.needs_search.any()
    counts = frame[[t.name for t in LADDER]]
    assert (counts.sum(axis=1) == frame.steps).all()
    # The grade follows the hardest technique's family.
    families = {t.name: t.grade for t in LADDER}
    for _, row in solved.iterrows():
        used = [t.name for t in LADDER if row[t.name]]
        order = ["easy", "medium", "hard", "expert"]
        assert row.grade == max((families[u] for u in used), key=order.index)


def test_a_contradiction_is_reported():
    # Row 1 holds 1..8 and column 9 holds 9 lower down: r1c9 has no candidate left.
    grid = "12345678." + "........9" + "." * 63
    run = solve_logic(parse_puzzle(grid))
    assert run.status == "contradiction"
    assert [s.technique for s in run.steps] == ["contradiction"]
    assert step_text(run.steps[0], run.puzzle.geometry) == (
        "contradiction: r1c9 has no candidates left"
    )
    rating = rate_run(run)
    assert (rating.hardest, rating.grade) == ("no solution", "no solution")
    out = run_cli("rate", grid)
    assert out.returncode == 1 and "no solution" in out.stderr
    clash = run_cli("rate", "11" + "." * 14)  # two 1s in row 1: bad input, not unsolvable
    assert clash.returncode == 2 and clash.stdout == ""
    assert "invalid puzzle" in clash.stderr and "row 1" in clash.stderr
    frame = rate(["11" + "." * 14, "4.3...1.2......."])
    assert frame.status.tolist() == ["invalid", "solved"]
    assert "row 1" in frame.message[0]


def test_words_name_every_step(data_dir):
    for entry in read_file(data_dir / "norvig-pytudes/sudoku-top95.txt")[:30]:
        run = solve_logic(entry.puzzle)
        geom = entry.puzzle.geometry
        for step, told in zip(run.steps, logic_steps(run)[1:], strict=True):
            text = step_text(step, geom)
            assert text
            if step.removed:
                assert removal_line(told, geom).startswith("removes ")
                for cell, _ in step.removed:
                    assert geom.cell_name(cell) in removal_line(told, geom)


def test_killer_puzzles_are_refused_with_a_clear_error():
    from sudokulab.catalog import load

    puzzle = load("gen-killer").entries[0].puzzle
    with pytest.raises(ValueError, match="killer cages"):
        solve_logic(puzzle)
    frame = rate(puzzle)
    assert frame.status.tolist() == ["error"] and "killer" in frame.message[0]


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sudokulab", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_rate_command_formats_and_bad_lines(tmp_path, data_dir):
    lines = [e.puzzle for e in read_file(data_dir / "norvig-pytudes/sudoku-top95.txt")[:6]]
    path = tmp_path / "puzzles.txt"
    text = [str(p) for p in lines]
    text.insert(2, "12345")  # a bad line: named, and the rest rated
    path.write_text("\n".join(text) + "\n")
    expected = rate(lines)
    table = run_cli("rate", str(path))
    assert table.returncode == 2
    assert "line 3" in table.stderr
    assert len([ln for ln in table.stdout.splitlines() if " line " in ln]) == 6
    assert "6 puzzles rated" in table.stdout
    out = run_cli("rate", str(path), "--format", "json", "--jobs", "2")
    rows = [json.loads(ln) for ln in out.stdout.splitlines()]
    assert out.returncode == 2
    assert [r["hardest"] for r in rows] == expected.hardest.tolist()
    assert [r["score"] for r in rows] == expected.score.tolist()
    assert [r["puzzle"].rsplit(" ", 1)[1] for r in rows] == ["1", "2", "4", "5", "6", "7"]
    csv = run_cli("rate", str(path), "--format", "csv")
    head, *body = csv.stdout.splitlines()
    assert head.split(",")[:4] == ["puzzle", "status", "hardest", "score"]
    assert len(body) == 6
    one = run_cli("rate", text[0])
    assert one.returncode == 0 and one.stderr == ""
    assert one.stdout.startswith(f"{expected.hardest[0]} ({expected.score[0]:.1f}, ")
    empty = run_cli("rate", "-", stdin="")
    assert empty.returncode == 2 and "no puzzle" in empty.stderr


def test_explain_logic_tells_every_step(data_dir):
    entries = read_file(data_dir / "norvig-pytudes/sudoku-top95.txt")
    solved = next(e.puzzle for e in entries if solve_logic(e.puzzle).status == "solved")
    stalled = next(e.puzzle for e in entries if solve_logic(e.puzzle).status == "stalled")
    run = solve_logic(solved)
    out = run_cli("explain", str(solved), "--logic", "--show-candidates", "end")
    assert out.returncode == 0, out.stderr
    numbered = [ln for ln in out.stdout.splitlines() if re.match(r"\s*\d+\. ", ln)]
    texts = [ln.split(". ", 1)[1] for ln in numbered]
    assert texts == [s.text for s in logic_steps(run)[1:]]
    assert [t.split(":")[0].split(" (")[0] for t in texts if "single" not in t] == [
        s.technique for s in run.steps if "single" not in s.technique
    ]
    assert "candidates after the last step:" in out.stdout
    assert "outcome           solved by logic alone" in out.stdout
    rating = rate_run(run)
    assert f"grade             {rating.grade}" in out.stdout
    out = run_cli("explain", str(stalled), "--logic")
    assert out.returncode == 1
    assert "stalled: no technique of the ladder applies" in out.stdout
    assert "the rest needs search" in out.stdout


@pytest.mark.parametrize(("propagation", "rungs"), [("hidden", 2), ("locked", 3)])
def test_the_first_rungs_settle_what_the_engine_settles_without_a_guess(
    data_dir, propagation, rungs
):
    """Singles (and locked candidates) to the fixpoint are the engine's ``hidden`` (and
    ``locked``) propagation: the fixpoint of monotone rules is unique, so the ladder's
    first rungs solve a puzzle exactly when the engine does at its root."""
    from sudokulab.generate import propagates

    assert [t.name for t in LADDER[:rungs]][-1] == (
        "locked candidates" if propagation == "locked" else "naked single"
    )
    agree = Counter()
    entries = read_file(data_dir / "norvig-pytudes/sudokus_17.txt")[::97]
    entries += read_file(data_dir / "amtal-sudoku/top1465")[::5]
    for entry in entries:
        puzzle = entry.puzzle
        engine = propagates(puzzle.geometry, puzzle.givens, propagation)
        logic = solve_logic(puzzle, LADDER[:rungs]).status == "solved"
        assert engine == logic, str(puzzle)
        agree[engine] += 1
    assert agree[True] > 50 and agree[False] > 50
