"""Backend specs, presets, `sudokulab backends` and cross-checking."""

from __future__ import annotations

from pathlib import Path

import pytest

from sudokulab.backends import (
    PRESETS,
    BackendSpec,
    backend_names,
    get_backend,
    parse_spec,
    parse_specs,
)
from sudokulab.bench.crosscheck import cross_check, summarize
from sudokulab.catalog import load
from sudokulab.cli import main
from sudokulab.models import read_file

EXAMPLE = "....5.264..7..9..35..62....8......9.7..34..86.....2.3....9.....9.476........3...."
ANSWER = "389157264267489153541623978813576492792341586456892731635914827924768315178235649"


def test_specs_with_options_and_lists():
    assert parse_spec("native:propagation=forward,order=first") == BackendSpec(
        "native",
        {"propagation": "forward", "order": "first"},
        "native:propagation=forward,order=first",
    )
    specs = parse_specs("native:propagation=none,order=first,native-py, backtracking:order=mrv")
    assert [(s.backend, s.options) for s in specs] == [
        ("native", {"propagation": "none", "order": "first"}),
        ("native-py", {}),
        ("native", {"propagation": "none", "order": "mrv"}),  # the option overrides the preset
    ]
    assert [str(s) for s in specs][2] == "backtracking:order=mrv"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cplex", "unknown backend 'cplex'"),
        ("native:speed=9", "has no option 'speed'"),
        ("native:propagation", "is not key=value"),
        ("native:propagation=fast", "propagation='fast' is not one of"),
        ("native:max_guesses=-3", "max_guesses='-3' is not a valid whole number"),
        ("order=first,native", "comes before any backend"),
        ("", "no backend named"),
    ],
)
def test_bad_specs_name_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=message):
        parse_specs(text)


def test_presets_are_the_seed_approaches():
    assert {name: opts for name, (_, opts, _) in PRESETS.items()} == {
        "backtracking": {"propagation": "none", "order": "first"},
        "forward-checking": {"propagation": "forward", "order": "mrv"},
        "singles": {"propagation": "singles", "order": "mrv"},
        "hidden-singles": {"propagation": "hidden", "order": "mrv"},
        "locked-candidates": {"propagation": "locked", "order": "mrv"},
        "sat-minimal": {"encoding": "minimal"},
        "sat-extended": {"encoding": "extended"},
        "sat-optimized": {"encoding": "optimized"},
    }


def test_backends_command_lists_backends_engine_and_presets(capsys):
    assert main(["backends"]) == 0
    out = capsys.readouterr().out
    assert "native-py    available" in out and "(python)" in out
    for name in PRESETS:
        assert f"\n{name} " in out


def test_cross_check_frame_agrees_and_verifies():
    frame = cross_check([EXAMPLE, "." * 16], ["native", "backtracking", "native-py:order=first"])
    assert len(frame) == 6
    first = frame[frame["index"] == 0]
    assert set(first["solution"]) == {ANSWER}
    assert first["verified"].all() and first["agrees"].all() and first["ok"].all()
    empty = frame[frame["index"] == 1]
    assert set(empty["status"]) == {"multiple"} and empty["ok"].all()
    assert empty["verified"].all()
    summary = summarize(frame)
    assert list(summary["puzzles"]) == [2, 2, 2]


def test_a_wrong_known_solution_and_a_timeout_are_reported(tmp_path, capsys):
    wrong = ANSWER[::-1]
    frame = cross_check([EXAMPLE], ["native"], solutions=[tuple(map(int, wrong))])
    assert frame["known"].tolist() == [False] and not frame["ok"].any()
    slow = "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9"
    path = tmp_path / "p.txt"
    path.write_text(f"{EXAMPLE}\n{slow}\n")
    # a budget of guesses, not a deadline: the same timeout on any machine
    code = main(["check", str(path), "--backends", "native,backtracking:max_guesses=100000"])
    out = capsys.readouterr().out
    assert code == 1
    assert f"{path}:2: {slow}" in out
    assert (
        "backtracking:max_guesses=100000 -  timeout; the budget of 100000 guesses was spent" in out
    )
    assert "1 of 2 puzzles: backends disagree or fail" in out
    header, rule = out.splitlines()[:2]  # the bench's table style: readable headers, no index
    assert header.split()[:2] == ["backend", "puzzles"] and "mean ms" in header
    assert set(rule) == {"-", " "}


def test_check_exit_2_for_invalid_and_for_mismatched_solutions(tmp_path, capsys):
    assert main(["check", "55" + "." * 79, "--backends", "native"]) == 2
    assert "1 of 1 puzzle is invalid" in capsys.readouterr().out
    sols = tmp_path / "s.txt"
    sols.write_text(ANSWER + "\n" + ANSWER + "\n")
    assert main(["check", EXAMPLE, "--solutions", str(sols)]) == 2
    assert "has 2 solutions for 1 puzzle" in capsys.readouterr().err


def test_check_runs_every_available_backend_by_default(capsys):
    assert main(["check", EXAMPLE]) == 0
    out = capsys.readouterr().out
    names = [n for n in backend_names() if get_backend(n).complete]  # local only if named
    assert f"all {len(names)} backends agree on 1 puzzle\n" in out
    rows = {line.split()[0] for line in out.splitlines() if line.strip()}
    assert set(names) <= rows  # a summary row per backend


#: Every complete backend but python-constraint (local search cannot check uniqueness).
# Every complete backend but python-constraint (minutes on these grids) and xcsp3 (a Java
# process per puzzle: seconds each); their agreement is test_contract's and test_bridges'.
HARD95_BACKENDS = [
    b for b in backend_names() if b not in ("constraint", "xcsp3") and get_backend(b).complete
]


def _every_third(path: Path, out: Path) -> int:
    """Every third puzzle (or solution) of a file of 9-line grids, written to ``out``; the
    number written."""
    lines = path.read_text().splitlines()
    grids = [lines[i : i + 9] for i in range(0, len(lines), 9)][::3]
    out.write_text("".join("\n".join(g) + "\n" for g in grids))
    return len(grids)


def test_check_hard95_with_its_solutions_file(data_dir, capsys, tmp_path):
    """The grid form of a set with its solutions file, on every complete backend: a third
    of hard95 (every third puzzle, its solutions beside it) keeps the run short."""
    folder = data_dir / "sunjay-sudoku"
    puzzles, solutions = tmp_path / "hard95.txt", tmp_path / "hard95solutions.txt"
    count = _every_third(folder / "hard95.txt", puzzles)
    assert _every_third(folder / "hard95solutions.txt", solutions) == count == 32
    out_csv = tmp_path / "rows.csv"
    code = main(
        [
            "check",
            str(puzzles),
            "--solutions",
            str(solutions),
            "--csv",
            str(out_csv),
            "--backends",
            ",".join(HARD95_BACKENDS),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"backends agree on all {count} puzzles" in out
    import pandas as pd

    rows = pd.read_csv(out_csv)
    assert rows["ok"].all() and rows["known"].all()
    assert len(rows) == count * len(HARD95_BACKENDS) and rows["backend"].nunique() >= 6


def test_check_menneske_random_carries_its_solutions(data_dir):
    entries = read_file(data_dir / "akleemans-sudoku-backtracking" / "menneske_random.csv")
    frame = cross_check(entries, ["native", "native-py:propagation=singles"])
    assert frame["ok"].all() and frame["known"].all() and len(frame) == 180


def test_check_takes_catalog_set_names_with_their_known_solutions(data_dir, capsys):
    # hard95's catalog entry names its solutions file: every row is checked against it
    code = main(["check", "hard95", "--data-dir", str(data_dir), "--backends", "native"])
    captured = capsys.readouterr()
    assert code == 0, captured.out
    assert "native" in captured.out and "answers verify on all 95 puzzles" in captured.out
    # no terminal: progress comes as plain lines on stderr, the last one at the end
    assert "check: 95/95 done (native)" in captured.err
    frame = cross_check(load("hard95", [data_dir]).entries[:3], ["native"])
    assert frame["known"].all()  # the entries carry the known solutions


def test_check_of_an_unknown_set_name_says_so(capsys):
    assert main(["check", "top59", "--backends", "native"]) == 2
    err = capsys.readouterr().err
    assert "'top59' is neither a catalog set nor a file; did you mean top95" in err
    assert "Traceback" not in err


def test_a_timeout_does_not_make_the_right_answers_disagree():
    slow = "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9"
    specs = ["native", "native-py", "backtracking:max_guesses=1000"]
    frame = cross_check([slow], specs).set_index("backend")
    assert frame.loc["backtracking:max_guesses=1000", "status"] == "timeout"
    assert frame.loc["backtracking:max_guesses=1000", "agrees"] is None  # no verdict
    assert not frame.loc["backtracking:max_guesses=1000", "ok"]
    for answered in ("native", "native-py"):
        assert frame.loc[answered, "agrees"] is True and frame.loc[answered, "ok"]
    alone = cross_check([slow], ["native", "backtracking:max_guesses=1000"])
    assert alone["agrees"].tolist() == [None, None]  # one answer has no one to agree with
    assert alone["ok"].tolist() == [True, False]


def test_a_backend_refusing_a_variant_is_skipped_with_its_reason(tmp_path, capsys):
    from sudokulab.models import Puzzle, geometry
    from sudokulab.models.documents import dumps
    from sudokulab.models.rules import Less

    # a thermometer along row 1 of an empty 4x4 (1 2 3 4) with r2c1 given: dlx refuses it
    puzzle = Puzzle(geometry(4), (0,) * 4 + (3,) + (0,) * 11, (), None,
                    tuple(Less(c, c + 1, "thermometer 1") for c in range(3)))  # fmt: skip
    frame = cross_check([puzzle, EXAMPLE], ["cpsat", "dlx", "sat"])
    refused = frame[(frame["index"] == 0) & (frame["backend"] == "dlx")].iloc[0]
    assert refused["status"] == "skipped" and refused["ok"]
    assert "dlx does not support less constraints" in refused["message"]
    assert refused["agrees"] is None
    # the others still answer it, and dlx answers the classic puzzle
    assert frame[frame["backend"] != "dlx"]["status"].isin(["solved", "multiple"]).all()
    assert frame[(frame["index"] == 1) & (frame["backend"] == "dlx")]["status"].item() == "solved"
    assert frame["ok"].all()
    assert summarize(frame).loc["dlx", "skipped"] == 1
    path = tmp_path / "variant.jsonl"
    path.write_text(dumps(puzzle) + "\n")
    assert main(["check", str(path), "--backends", "cpsat,dlx,sat"]) == 0
    out = capsys.readouterr().out
    assert "dlx                      1 puzzle: dlx does not support less constraints" in out
    assert "all 2 backends agree on 1 puzzle" in out
