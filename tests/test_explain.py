"""The classroom commands: ``explain`` (text and HTML), ``model``, and the notebook views."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sudokulab import solve
from sudokulab.classroom.model_view import shown
from sudokulab.classroom.narrative import candidates_grid, narrative
from sudokulab.classroom.page import viewer_data, viewer_html
from sudokulab.classroom.trace import trace_puzzle
from sudokulab.cli import main
from sudokulab.models import geometry, parse_puzzle, read_file

SEEDS = Path(__file__).resolve().parent.parent / "data" / "seeds.csv"
HARD = "7.18.43.......2.....453..7.6.....7..1...9...5..8.....38...195....23........6.89.4"
# Row 1 holds 2..9 and column 1 a 1 below: r1c1 must be 1 and cannot be. No clash.
UNSOLVABLE = ".23456789" + "1........" + "." * 63
CLASH = "5...5.264..7..9..35..62....8......9.7..34..86.....2.3....9.....9.476........3...."


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _summary(out: str) -> dict[str, str]:
    block = out[out.index("summary (") :]
    return dict(re.findall(r"^  (\w[\w ]*?)\s{2,}(.+)$", block, re.M))


def test_explain_tells_a_forced_placement_as_no_guess(capsys):
    # easy50's first puzzle falls to naked singles: forward checking leaves each to the
    # search, which places it as the only candidate left, without a guess.
    naked = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"
    code, out, err = run(capsys, "explain", naked, "--propagation", "forward")
    assert code == 0, err
    summary = _summary(out)
    assert summary["guesses"] == summary["backtracks"] == "0"
    assert int(summary["forced cells"]) == int(summary["nodes"]) - 1 > 0
    forced = r"^\s+\d+\. (r\dc\d) = \d: the only candidate left in \1, not a guess"
    assert re.search(forced, out, re.M)
    assert not re.search(r"^\s+\d+\. guess ", out, re.M)


@pytest.mark.parametrize("propagation", ["none", "forward", "singles", "hidden"])
def test_explain_summary_matches_solve_stats(capsys, propagation):
    code, out, err = run(capsys, "explain", HARD, "--propagation", propagation, "--max-steps", "40")
    assert code == 0, err
    summary = _summary(out)
    result = solve(HARD, "native-py", propagation=propagation, order="mrv")
    for key in ("nodes", "guesses", "backtracks"):
        assert int(summary[key]) == result.stats[key]
    steps = re.findall(r"^\s+(\d+)\. ", out, re.M)
    assert len(steps) <= 40
    if int(summary["guesses"]) + int(summary["naked singles"]) > 40:
        assert "truncated after 40 steps" in out


def test_explain_tells_the_rules_by_name(capsys):
    code, out, _ = run(capsys, "explain", HARD)
    assert code == 0
    assert re.search(
        r"^\s+\d+\. r\dc\d = \d: hidden single, the only place for \d in (row|column|box) \d$",
        out,
        re.M,
    )
    assert re.search(r"naked single, the only candidate left in r\dc\d", out)
    assert re.search(r"guess r\dc\d = \d \(candidates [\d, ]+; depth 1\)", out)
    assert "removes" in out


def test_show_candidates_moments(capsys):
    puzzle = read_file(SEEDS)[0].puzzle
    trace = trace_puzzle(puzzle)
    grid_lines = candidates_grid(puzzle.geometry, list(_states(trace))[-1])
    assert len(grid_lines.splitlines()) == 9 * 3 + 8  # 3 lines a cell row, 8 rules/blanks
    _, none, _ = run(capsys, "explain", str(puzzle))
    _, start, _ = run(capsys, "explain", str(puzzle), "--show-candidates", "start")
    _, every, _ = run(capsys, "explain", str(puzzle), "--show-candidates", "every")
    assert "candidates after the givens:" not in none
    assert start.count("candidates after the givens:") == 1
    assert len(every.splitlines()) > len(start.splitlines()) > len(none.splitlines())


def _states(trace):
    from sudokulab.classroom.trace import replay

    return (state for _, state in replay(trace))


def test_explain_exit_statuses(capsys, tmp_path):
    assert run(capsys, "explain", UNSOLVABLE)[0] == 1
    assert "no solution" in _summary(run(capsys, "explain", UNSOLVABLE)[1])["outcome"]
    code, _, err = run(capsys, "explain", CLASH)
    assert code == 2 and "row 1: r1c1 and r1c5 are both 5" in err
    code, _, err = run(capsys, "explain", "12x4")
    assert code == 2 and "line 1, column" in err
    code, _, err = run(capsys, "explain", str(tmp_path / "missing.txt"))
    assert code == 2 and "no such file" in err
    code, _, err = run(capsys, "explain", str(SEEDS), "--number", "9")
    assert code == 2 and "--number 9" in err
    code, _, err = run(capsys, "explain", HARD, "--html", str(tmp_path / "no" / "x.html"))
    assert code == 2 and "cannot write" in err
    with pytest.raises(SystemExit) as exit_info:
        main(["explain", HARD, "--propagation", "lots"])
    assert exit_info.value.code == 2


def test_explain_unique(capsys):
    two = ".........." * 8 + "."  # an empty grid: many solutions
    assert run(capsys, "explain", two, "--unique", "--max-steps", "5")[0] == 1
    code, out, _ = run(capsys, "explain", HARD, "--unique")
    assert code == 0 and "exactly one solution" in out


def test_explain_reads_a_file_and_stdin(capsys, monkeypatch):
    import io

    code, out, _ = run(capsys, "explain", str(SEEDS), "--number", "3")
    assert code == 0 and read_file(SEEDS)[2].puzzle.__str__() in out
    monkeypatch.setattr("sys.stdin", io.StringIO(HARD + "\n"))
    code, out, _ = run(capsys, "explain", "-")
    assert code == 0 and HARD in out


def test_html_page_is_self_contained(capsys, tmp_path):
    page = tmp_path / "lesson.html"
    code, out, err = run(capsys, "explain", HARD, "--html", str(page))
    assert code == 0 and "wrote" in err and "summary (" in out
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)\s*=|https?://|@import|url\(""", text)
    data = json.loads(re.search(r"var DATA=(\{.*?\});var ROOT", text).group(1))
    trace = trace_puzzle(parse_puzzle(HARD))
    assert len(data["steps"]) == sum(1 for _ in _steps(trace))


def _steps(trace):
    from sudokulab.classroom.narrative import steps

    return steps(trace)


def test_viewer_data_replays_to_the_solution():
    trace = trace_puzzle(parse_puzzle(HARD), "forward", "first", max_steps=1500)
    data = viewer_data(trace)
    n = data["size"]
    state = list(data["start"])
    for index, step in enumerate(data["steps"]):
        d = step["d"]
        for i in range(0, len(d), 3):
            assert state[d[i]] == d[i + 1]
            state[d[i]] = d[i + 2]
        if str(index) in data["snapshots"] or index in data["snapshots"]:
            assert state == data["snapshots"][index]
    if not trace.truncated:
        grid = tuple((s & ((1 << n) - 1)).bit_length() for s in state)
        assert grid == trace.solutions[0]


def test_two_viewers_on_one_page_do_not_clash():
    trace = trace_puzzle(parse_puzzle("1.....1..1.....1"))
    a, b = viewer_html(trace, standalone=False), viewer_html(trace, standalone=False)
    ids = re.findall(r'id="([^"]+)"', a + b)
    assert len(ids) == len(set(ids)) == 2
    assert "<!DOCTYPE" not in a


def test_notebook_views():
    puzzle = parse_puzzle(HARD)
    html = puzzle._repr_html_()
    assert html.count("<td") == 81 and "27 givens" in html
    result = solve(puzzle)
    html = result._repr_html_()
    assert str(result.status) in html and html.count("<td") >= 81
    assert 'data-role="viewer"' in trace_puzzle(puzzle)._repr_html_()


@pytest.mark.parametrize("size", [4, 6, 9])
def test_model_counts_come_from_the_model(capsys, size):
    blank = "." * (size * size)
    code, out, err = run(capsys, "model", blank, "--size", str(size))
    assert code == 0, err
    geom = geometry(size)
    units = len(geom.units)
    cells = size * size
    assert f"variables: {cells}, one per cell" in out
    assert f"constraints: {units} AllDifferent, one per unit" in out
    assert len(re.findall(r"^    (row|column|box) \d+ +AllDifferent\(", out, re.M)) == units
    assert f"cpsat: {cells} IntVar" in out and f"{units} AddAllDifferent" in out
    assert f"constraint: {cells} variables" in out and f"{units} AllDifferentConstraint" in out
    assert f"sat: optimized encoding, {cells * size} Boolean x(cell, value)" in out
    assert {"cpsat", "sat", "constraint"} <= set(shown())
    for name in shown():  # every backend with a model of its own shows it
        assert re.search(rf"^  {re.escape(name)}: ", out, re.M), name
    peers = re.search(r"^peers of r1c1: (\d+) cells", out, re.M)
    assert int(peers.group(1)) == len(geom.peers[0])


def test_model_of_a_puzzle_names_givens_and_peers(capsys):
    code, out, _ = run(capsys, "model", HARD, "--cell", "r4c8")
    assert code == 0
    assert "domains: 27 given cell(s) with one value, 54 open cell(s)" in out
    assert "27 fixed to their given" in out
    line = re.search(r"so r4c8 can only be ([\d, ]+)$", out, re.M).group(1)
    geom = geometry(9)
    puzzle = parse_puzzle(HARD)
    held = {puzzle.givens[p] for p in geom.peers[3 * 9 + 7]}
    assert [int(v) for v in line.split(", ")] == [v for v in range(1, 10) if v not in held]


def test_model_bad_cell(capsys):
    code, _, err = run(capsys, "model", HARD, "--cell", "r10c1")
    assert code == 2 and "rows and columns go from 1 to 9" in err
    code, _, err = run(capsys, "model", HARD, "--cell", "e4")
    assert code == 2 and "not a cell name" in err


def test_narrative_of_a_4x4_gives_the_givens_first():
    text = narrative(trace_puzzle(parse_puzzle("1.....1..1.....1")), "every")
    steps = [line.split(". ", 1)[1] for line in text.splitlines() if line[:6].strip().endswith(".")]
    assert steps[:4] == ["r1c1 = 1: given", "r2c3 = 1: given", "r3c2 = 1: given", "r4c4 = 1: given"]
    assert "r2c4 = 2: hidden single, the only place for 2 in row 2" in steps
    # r4c4 follows from the first three givens, but it is a given: never told as a single
    assert not any(step.startswith("r4c4 = 1: ") and "single" in step for step in steps)


def test_killer_cages_are_shown_on_the_board_and_narrated(capsys, tmp_path):
    from sudokulab.catalog import load
    from sudokulab.models.documents import dumps

    entry = load("gen-killer").entries[0]
    path = tmp_path / "killer.json"
    path.write_text(dumps(entry.puzzle, entry.solution) + "\n", encoding="utf-8")
    code, out, err = run(capsys, "model", str(path))
    assert code == 0
    first = entry.puzzle.cages[0]
    assert "Sum(" in out and f") = {first.total}" in out
    assert "one per unit and cage" in out
    code, out, err = run(capsys, "explain", str(path))
    assert code == 0 and not err
    names = ", ".join(entry.puzzle.geometry.cell_name(c) for c in first.cells)
    assert f"cage 1 (sum {first.total}: {names})" in out  # the cages are listed first
    assert "can complete its sum in its open cells" in out
    assert re.search(r"^  cage prunings +[1-9]", out, re.M)
    # A cage pruning says what it removed, and a cage step highlights the cage's cells.
    trace = trace_puzzle(entry.puzzle)
    data = viewer_data(trace)
    assert data["cages"] == [[c.total, list(c.cells)] for c in entry.puzzle.cages]
    cage_steps = [row for row in data["steps"] if row["g"] >= 0]
    assert cage_steps and all(row["x"].startswith("removes ") for row in cage_steps)
    # Under none a cage refuses a placement, and says which.
    code, out, _ = run(capsys, "explain", str(path), "--propagation", "none", "--max-steps", "60")
    assert re.search(r"cannot be \d: no set of values of cage \d+ \(sum \d+", out)


def test_removal_lines_group_cells_that_lose_the_same_values():
    from sudokulab.classroom.narrative import Step, removal_line
    from sudokulab.classroom.trace import State

    geom = geometry(4)
    state = State((15,) * 16, (0,) * 16)
    one = Step(None, "", ((0, 2), (5, 2)), state, -1, -1)
    assert removal_line(one, geom) == "removes 2 from r1c1, r2c2"
    cage = Step(None, "", ((0, 1), (0, 3), (1, 1), (1, 3), (4, 4)), state, -1, -1)
    assert removal_line(cage, geom) == "removes 1, 3 from r1c1, r1c2; 4 from r2c1"
