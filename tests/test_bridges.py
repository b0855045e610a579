"""The ecosystem's bridges as backends (highs, cpmpy, xcsp3, gurobi): each solves and
counts as CP-SAT does on the same puzzles, every answer verified against the rules; a
tiny deadline is a timeout, never a wrong proof; what a bridge cannot take is refused by
name. Each bridge is skipped, saying why, where its package (or Java) is missing."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import two_solution_grid, wait_for
from test_variant_kinds import CASES, brute, case

import sudokulab
from sudokulab import Puzzle, build_model, is_solution, read_file
from sudokulab.backends import get_backend
from sudokulab.cli import main
from sudokulab.encodings import DECOMPOSITIONS

REPO = Path(__file__).resolve().parent.parent
SEEDS = read_file(REPO / "data" / "seeds.csv")
KILLER = read_file(REPO / "data" / "gen-killer.jsonl")[0].puzzle
X = read_file(REPO / "data" / "gen-x.jsonl")[0].puzzle
STUCK = Puzzle.from_grid(list(range(1, 9)) + [0] * 9 + [9] + [0] * 63)

#: The puzzles every bridge answers as CP-SAT does, and the limit each is asked with.
PUZZLES = {
    "unique": (SEEDS[0].puzzle, 2),
    "two solutions": (Puzzle.from_grid(two_solution_grid(SEEDS[1].solution)), 5),
    "unsolvable": (STUCK, 2),
    "killer": (KILLER, 2),
    "x": (X, 2),
    "twelve 4x4": (Puzzle.from_grid([1, 2, 3, 4] + [0] * 12), None),
}

#: Each bridge, and a second solver behind it where it has one.
SPECS = [
    "highs",
    "cpmpy",
    "cpmpy:solver=z3",
    "xcsp3",
    "xcsp3:solver=choco",
    "gurobi",
]


def _needs(spec: str) -> None:
    backend = get_backend(spec.split(":")[0])
    if not backend.available():
        why = backend.missing() or f"pip install {backend.requires}"
        pytest.skip(f"{backend.name} cannot run here: {why}")


@pytest.mark.parametrize("name", PUZZLES)
@pytest.mark.parametrize("spec", SPECS)
def test_each_bridge_answers_as_cpsat_with_verified_solutions(spec, name):
    _needs(spec)
    puzzle, limit = PUZZLES[name]
    expected = sudokulab.solve(puzzle, "cpsat", limit=limit)
    result = sudokulab.solve(puzzle, spec, limit=limit, timeout=120)
    assert (result.status, result.count, result.exact) == (
        expected.status,
        expected.count,
        expected.exact,
    ), result
    assert all(is_solution(puzzle, s) for s in result.solutions)
    assert len(set(result.solutions)) == len(result.solutions)
    if expected.exact:  # every solution found: the same ones
        assert set(result.solutions) == set(expected.solutions)


@pytest.mark.parametrize("kind", sorted(CASES))
def test_cpmpy_takes_every_variant_kind_and_finds_exactly_its_solutions(kind):
    _needs("cpmpy")
    puzzle = case(kind)
    result = get_backend("cpmpy").solve(build_model(puzzle), limit=None, timeout=60)
    assert result.exact and result.count == len(result.solutions)
    assert set(result.solutions) == brute(puzzle)


@pytest.mark.parametrize("kind", ["less", "ratio", "consecutive", "sandwich"])
def test_cpmpy_states_the_variants_for_other_solvers_too(kind):
    _needs("cpmpy")
    puzzle = case(kind)
    result = get_backend("cpmpy").solve(build_model(puzzle), limit=None, solver="z3")
    assert result.exact and set(result.solutions) == brute(puzzle)


@pytest.mark.parametrize("spec", SPECS)
def test_a_tiny_deadline_is_a_timeout_never_a_wrong_proof(spec):
    _needs(spec)
    # Counting every 9x9 grid cannot finish: the only true answer is a timeout.
    empty = Puzzle.from_grid([0] * 81)
    result = sudokulab.solve(empty, spec, limit=None, timeout=0.05)
    assert result.status == "timeout" and not result.exact, result
    assert all(is_solution(empty, s) for s in result.solutions)
    # An unsolvable puzzle: unsolvable if proved in time, else a timeout; never solved.
    stuck = sudokulab.solve(STUCK, spec, limit=2, timeout=0.01)
    assert stuck.status in ("unsolvable", "timeout") and stuck.count == 0, stuck


def test_xcsp3_kills_its_solver_at_the_deadline():
    _needs("xcsp3")
    import psutil

    before = {p.pid for p in psutil.Process().children(recursive=True)}
    start = time.perf_counter()
    result = sudokulab.solve("." * 256, "xcsp3:solver=choco", limit=None, timeout=0.5)
    took = time.perf_counter() - start
    assert result.status == "timeout" and not result.exact
    assert took < 5.0  # Choco is given no time limit of its own: only the kill stops it
    wait_for(lambda: {p.pid for p in psutil.Process().children(recursive=True)} <= before, 10)


def test_xcsp3s_solver_dies_with_a_parent_killed_outright():
    _needs("xcsp3")
    import psutil

    if not __import__("shutil").which("setpriv"):
        pytest.skip("no setpriv (util-linux) here: the solver cannot be tied to its parent")
    code = "import sudokulab; sudokulab.solve('.' * 256, 'xcsp3:solver=choco', limit=None)"
    parent = psutil.Popen([sys.executable, "-c", code])
    try:
        # until the JVM runs (it searches an empty 16x16 for ever)
        java = wait_for(
            lambda: [p for p in parent.children(recursive=True) if "java" in p.name()], 30
        )
    finally:
        parent.kill()  # SIGKILL: no deadline, handler or finally runs in the parent
        parent.wait()
    gone, alive = psutil.wait_procs(java, timeout=10)
    for p in alive:
        p.kill()
    assert not alive, "the JVM outlived its killed parent"


#: A kind per primitive the XCSP3 instance writes: pairs as allDifferent, a sum with
#: coefficients, a table of pairs, a unary table, allDifferent with tables, a sandwich's
#: implications and sums of 0-1 expressions.
XCSP3_KINDS = ["notequal", "sumequals", "ratio", "parity", "consecutive", "sandwich"]


@pytest.mark.parametrize(
    ("kind", "solver"), [(k, ("ace", "choco")[i % 2]) for i, k in enumerate(XCSP3_KINDS)]
)
def test_xcsp3_takes_the_variant_kinds_and_finds_exactly_their_solutions(kind, solver):
    """Each kind once, the two solvers in turn (one JVM a test: the instance is the same)."""
    _needs("xcsp3")
    puzzle = case(kind)
    result = get_backend("xcsp3").solve(build_model(puzzle), limit=None, timeout=60, solver=solver)
    assert result.exact and result.count == len(result.solutions)
    assert set(result.solutions) == brute(puzzle)


def test_highs_and_gurobi_take_every_kind_mip_takes():
    # one 0-1 program (encodings.linear) for the three: every kind a model can hold
    every = get_backend("mip").kinds
    assert every == set(DECOMPOSITIONS)
    assert get_backend("highs").kinds == get_backend("gurobi").kinds == every


def test_gurobi_refuses_what_its_size_limited_licence_cannot_hold():
    _needs("gurobi")
    from sudokulab.backends.gurobi_backend import size_limited

    if not size_limited():
        pytest.skip("this Gurobi licence has no size limit")
    result = sudokulab.solve("." * 256, "gurobi")
    assert result.status == "error"
    assert result.message == (
        "gurobi's size-limited licence holds up to 2000 variables and 2000 constraints; "
        "this 16x16 model has 4096 variables and 1024 constraints"
    )
    # a 9x9 program fits: 729 binaries and 324 rows at most
    assert sudokulab.solve("." * 81, "gurobi").status == "solved"
    # through CPMpy, Gurobi's own refusal is the row's error, not a crash
    if get_backend("cpmpy").available():
        through = sudokulab.solve("." * 256, "cpmpy:solver=gurobi")
        assert through.status == "error" and "size-limited" in through.message


def test_the_program_is_the_issues_729_binaries_and_324_rows():
    from sudokulab.encodings.linear import program

    prog = program(build_model(Puzzle.from_grid([0] * 81)))
    assert (len(prog.columns), len(prog.rows), prog.fixed) == (729, 324, [])
    given = program(build_model(SEEDS[0].puzzle))
    assert len(given.fixed) == SEEDS[0].puzzle.given_count


def test_cpmpy_names_an_unknown_solver():
    _needs("cpmpy")
    with pytest.raises(ValueError, match="solver='nosuch' is not a valid solver CPMpy finds"):
        sudokulab.solve(SEEDS[0].puzzle, "cpmpy:solver=nosuch")


def test_cpmpy_says_what_a_solver_lacks():
    _needs("cpmpy")
    if importlib.util.find_spec("pypblib") is not None:
        pytest.skip("pypblib is installed: PySAT takes the sums")
    result = sudokulab.solve(SEEDS[0].puzzle, "cpmpy:solver=pysat")
    assert result.status == "error" and "pypblib" in result.message


def test_without_java_xcsp3_is_missing_and_says_why(monkeypatch, capsys):
    if get_backend("xcsp3").missing().startswith("not installed"):
        pytest.skip("pycsp3 is not installed")
    from sudokulab.backends import xcsp3_backend

    monkeypatch.setattr(xcsp3_backend.shutil, "which", lambda name: None)
    assert not get_backend("xcsp3").available()
    assert main(["backends"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("xcsp3 "))
    assert line.split(None, 2)[1:] == ["missing", "needs a Java runtime (java not on PATH)"]
    result = sudokulab.solve(SEEDS[0].puzzle, "xcsp3")
    assert result.status == "error" and "needs a Java runtime (java not on PATH)" in result.message


def test_highs_keeps_its_banner_off_standard_output():
    _needs("highs")
    line = str(SEEDS[0].puzzle)
    out = subprocess.run(
        [sys.executable, "-m", "sudokulab", "solve", "--backend", "highs", line],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["".join(map(str, SEEDS[0].solution))]


def test_check_takes_the_bridges_like_any_backend(capsys):
    names = [n for n in ("highs", "cpmpy", "xcsp3", "gurobi") if get_backend(n).available()]
    if not names:
        pytest.skip("no bridge is installed")
    code = main(["check", str(REPO / "data" / "seeds.csv"), "--backends", ",".join(names)])
    assert code == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == f"all {len(names)} backends agree on all 3 puzzles"


def test_xcsp3_reads_each_solution_once_and_whether_ace_explored_everything():
    from sudokulab.backends.xcsp3_backend import read

    choco = (
        "v <instantiation id='sol1' type='solution' >\nv <list>x[0] x[1]</list>\n"
        "v <values>1 2 </values>\nv </instantiation>\ns SATISFIABLE\n"
        "v <instantiation id='sol1' type='solution' >\nv <list>x[0] x[1]</list>\n"
        "v <values>1 2 </values>\nv </instantiation>\nd FOUND SOLUTIONS 1\n"
    )
    assert read(choco, 2) == ([(1, 2)], "SATISFIABLE", False)
    ace = (
        "v  <instantiation id='sol1' type='solution'> <list> x[] </list> <values> 2 1 "
        "</values> </instantiation>\n\x1b[32ms SATISFIABLE\nd FOUND SOLUTIONS\x1b[0m  1\n"
        "d COMPLETE EXPLORATION\n"
    )
    assert read(ace, 2) == ([(2, 1)], "SATISFIABLE", True)
    stopped = ace.replace("COMPLETE", "INCOMPLETE")
    assert read(stopped, 2)[2] is False
    assert read("s UNSATISFIABLE\nd COMPLETE EXPLORATION\n", 2) == ([], "UNSATISFIABLE", True)
