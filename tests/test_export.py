"""The model in the field's formats, solved by solvers from other codebases, and their
answers read back: every route gives the statuses our own backends give."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from helpers import parsers
from test_public_variants import PUZZLES as PUBLISHED
from test_rules_encodings import UNIQUE, with_givens
from test_variant_kinds import case, miracle

import sudokulab
from sudokulab import export, import_solution, is_solution, parse_puzzle, solve
from sudokulab.backends import get_backend
from sudokulab.cli import export as cli_export
from sudokulab.cli import main
from sudokulab.interchange import FORMATS, Refused, WrongSolution
from sudokulab.models import ParseError, build_model
from sudokulab.models.documents import puzzle_of
from sudokulab.models.variants import with_variant

REPO = Path(__file__).resolve().parent.parent
CLASSIC = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
UNSOLVABLE = "12....3........."  # r1c3 and r1c4 need 3 and 4, but box 2 holds a 3
SEVERAL = "1..............."
KILLER = json.dumps({"givens": "1" + "." * 15, "cages": [{"cells": ["r1c2", "r1c3"], "sum": 7}]})
#: A first line of the shipped sets: a generated X puzzle and a jigsaw, with their solutions.
X_DOC = (REPO / "data" / "gen-x.jsonl").read_text().splitlines()[0]
JIGSAW_DOC = (REPO / "data" / "gen-jigsaw.jsonl").read_text().splitlines()[0]
X_CLASSIC = with_variant(parse_puzzle("3..............."), ["x"])

#: Every puzzle of the round trips, with what our own engine says of it.
PUZZLES = {
    "classic": parse_puzzle(CLASSIC),
    "unsolvable": parse_puzzle(UNSOLVABLE),
    "several": parse_puzzle(SEVERAL),
    "killer": parse_puzzle(KILLER),
    "x": parse_puzzle(X_DOC),
    "jigsaw": parse_puzzle(JIGSAW_DOC),
    "x4": X_CLASSIC,
}
FOUR = ["unsolvable", "several", "killer", "x4"]


def missing(what: str) -> None:
    """An outside solver is not here: a skip, except in CI (CI=true), which installs every
    one (.ci/run), where it fails."""
    if os.environ.get("CI") == "true":
        pytest.fail(what)
    pytest.skip(what)


def expect(name: str, result) -> None:
    """The imported result agrees with our engine: the same status (several solutions:
    any verified grid), the same grid when the solution is unique."""
    puzzle = PUZZLES[name]
    ours = solve(puzzle, limit=2)
    if ours.status is sudokulab.Status.UNSOLVABLE:
        assert result.status is sudokulab.Status.UNSOLVABLE
        return
    assert result.status is sudokulab.Status.SOLVED
    assert is_solution(puzzle, result.solution)
    if ours.count == 1:
        assert result.solution == ours.solution


# --- DIMACS: PicoSAT (pycosat) on each of the SAT backend's encodings ----------------------


def dimacs_clauses(text: str) -> list[list[int]]:
    """The clauses of a DIMACS text, read as any DIMACS reader does."""
    header = [line for line in text.splitlines() if line.startswith("p ")]
    assert len(header) == 1
    _, _, variables, count = header[0].split()
    body = " ".join(line for line in text.splitlines() if not line.startswith(("c", "p")))
    numbers = [int(w) for w in body.split()]
    clauses, clause = [], []
    for n in numbers:
        if n == 0:
            clauses.append(clause)
            clause = []
        else:
            assert abs(n) <= int(variables)
            clause.append(n)
    assert len(clauses) == int(count) and not clause
    return clauses


def picosat(text: str) -> str:
    """PicoSAT's answer to a DIMACS text, in the SAT competition's output form."""
    pycosat = pytest.importorskip("pycosat")
    found = pycosat.solve(dimacs_clauses(text))
    if found == "UNSAT":
        return "c picosat\ns UNSATISFIABLE\n"
    return "s SATISFIABLE\nv " + " ".join(map(str, found)) + " 0\n"


@pytest.mark.parametrize("encoding", ["optimized", "extended", "minimal"])
@pytest.mark.parametrize("name", ["classic", "killer", "x", "jigsaw", "unsolvable", "several"])
def test_dimacs_of_each_encoding_solved_by_picosat_imports_and_verifies(name, encoding):
    text = export(PUZZLES[name], "dimacs", encoding)
    assert text.startswith(f"c sudokulab export, format dimacs, encoding {encoding}\n")
    expect(name, import_solution(PUZZLES[name], picosat(text), "dimacs", encoding))


def test_dimacs_numbering_is_the_header_s():
    text = export(SEVERAL, "dimacs", "minimal")
    assert "variable (cell*4 + value-1)+1" in text
    assert "1 0" in text.splitlines()  # the given r1c1=1 is variable 1, a unit clause


def test_minisat_s_result_file_is_read_too():
    answer = picosat(export(CLASSIC, "dimacs")).replace("s SATISFIABLE\nv ", "SAT\n")
    expect("classic", import_solution(CLASSIC, answer, "dimacs"))
    assert import_solution(UNSOLVABLE, "UNSAT\n", "dimacs").status == "unsolvable"


# --- MPS and LP: HiGHS (highspy) reads the file and writes its solution file ----------------


def highs(tmp_path: Path, text: str, suffix: str, style: int) -> str:
    """HiGHS's solution file (``style`` 0 raw, 1 its table) for an LP or MPS text."""
    highspy = pytest.importorskip("highspy")
    path = tmp_path / f"model.{suffix}"
    path.write_text(text)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    h.run()
    out = tmp_path / "model.sol"
    h.writeSolution(str(out), style)
    return out.read_text()


@pytest.mark.parametrize("suffix", ["mps", "lp"])
@pytest.mark.parametrize("name", ["killer", "unsolvable", "several", "x4", "classic", "jigsaw"])
def test_mps_and_lp_read_and_solved_by_highs(tmp_path, name, suffix):
    text = export(PUZZLES[name], suffix)
    expect(name, import_solution(PUZZLES[name], highs(tmp_path, text, suffix, 0), suffix))
    # HiGHS's "pretty" style: a table of values, its status on the last line
    expect(name, import_solution(PUZZLES[name], highs(tmp_path, text, suffix, 1), suffix))


def test_the_common_mip_solution_forms_are_read():
    grid = solve(CLASSIC).solution
    n = 9
    ones = [f"x_r{c // n + 1}c{c % n + 1}_{v}" for c, v in enumerate(grid)]
    scip = "solution status: optimal solution found\nobjective value: 0\n" + "".join(
        f"{name:<40} 1 \t(obj:0)\n" for name in ones
    )
    cbc = "Optimal - objective value 0.00000000\n" + "".join(
        f"{i:>7} {name:<20} 1 0\n" for i, name in enumerate(ones)
    )
    gurobi = "# Objective value = 0\n" + "".join(f"{name} 1\n" for name in ones)
    for text in (scip, cbc, gurobi):
        assert import_solution(CLASSIC, text, "mps").solution == grid
    for text in (
        "Model status\nInfeasible\n",
        "solution status: infeasible\nno solution available\n",
    ):
        assert import_solution(UNSOLVABLE, text, "lp").status == "unsolvable"


# --- LP and MPS: GLPK's glpsol reads the file and writes its listing (-o) -----------------


def glpk(tmp_path: Path, text: str, suffix: str) -> str:
    """glpsol's printed solution (``-o``) of an LP or MPS text."""
    glpsol = shutil.which("glpsol")
    if glpsol is None:
        missing("no glpsol on the PATH (Debian's glpk-utils: apt-get install glpk-utils)")
    path = tmp_path / f"model.{suffix}"
    path.write_text(text)
    out = tmp_path / "model.out"
    kind = "--lp" if suffix == "lp" else "--freemps"
    proc = subprocess.run(
        [glpsol, kind, str(path), "-o", str(out)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr  # glpsol read the file
    return out.read_text()


@pytest.mark.parametrize("suffix", ["lp", "mps"])
@pytest.mark.parametrize("name", ["classic", "unsolvable", "several", "killer", "x", "jigsaw"])
def test_lp_and_mps_solved_by_glpk(tmp_path, name, suffix):
    text = export(PUZZLES[name], suffix)
    expect(name, import_solution(PUZZLES[name], glpk(tmp_path, text, suffix), suffix))


def test_glpk_s_listing_through_the_commands(tmp_path, capsys):
    lp = tmp_path / "p.lp"
    assert main(["export", CLASSIC, "--format", "lp", "-o", str(lp)]) == 0
    listing = tmp_path / "p.out"
    listing.write_text(glpk(tmp_path, lp.read_text(), "lp"))
    capsys.readouterr()
    assert main(["import-solution", CLASSIC, str(listing), "--format", "lp"]) == 0
    grid = tuple(int(ch) for ch in capsys.readouterr().out.strip())
    assert is_solution(parse_puzzle(CLASSIC), grid)


# --- OPB: the pseudo-Boolean rows, loaded into HiGHS as a 0-1 program ----------------------


def opb_solved(text: str) -> str:
    """A PB solver's answer to an OPB text: its rows read here and solved by HiGHS."""
    highspy = pytest.importorskip("highspy")
    import numpy as np

    first = text.splitlines()[0]
    variables = int(re.search(r"#variable= (\d+)", first).group(1))
    rows = [line for line in text.splitlines() if line and not line.startswith("*")]
    assert len(rows) == int(re.search(r"#constraint= (\d+)", first).group(1))
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    for _ in range(variables):
        h.addVar(0, 1)
    h.changeColsIntegrality(
        variables, np.arange(variables), np.full(variables, highspy.HighsVarType.kInteger)
    )
    for row in rows:
        words = row.rstrip(" ;").split()
        relation, bound = words[-2], float(words[-1])
        coefficients = [int(w) for w in words[:-2:2]]
        index = [int(w[1:]) - 1 for w in words[1:-2:2]]
        upper = bound if relation == "=" else highspy.kHighsInf
        h.addRow(bound, upper, len(index), np.array(index), np.array(coefficients, dtype=float))
    h.run()
    if h.getModelStatus() == highspy.HighsModelStatus.kInfeasible:
        return "s UNSATISFIABLE\n"
    values = h.getSolution().col_value
    return "s SATISFIABLE\nv " + " ".join(
        f"{'' if x > 0.5 else '-'}x{i + 1}" for i, x in enumerate(values)
    ) + "\n"  # fmt: skip


@pytest.mark.parametrize("name", FOUR)
def test_opb_rows_solved_and_imported(name):
    text = export(PUZZLES[name], "opb")
    assert text.startswith("* #variable= ")
    assert all(line.endswith(" ;") for line in text.splitlines() if not line.startswith("*"))
    expect(name, import_solution(PUZZLES[name], opb_solved(text), "opb"))


# --- SMT-LIB 2: z3's own parser ------------------------------------------------------------


def z3_answer(text: str) -> str:
    """z3's answer to an SMT-LIB 2 script, as an SMT solver prints it (sat and the model)."""
    import z3

    solver = z3.Solver()
    solver.add(z3.parse_smt2_string(text))
    verdict = solver.check()
    if verdict == z3.unsat:
        return "unsat\n"
    assert verdict == z3.sat
    return "sat\n(model\n" + solver.model().sexpr() + ")\n"


@pytest.mark.parametrize("name", ["classic", "killer", "x", "jigsaw", "unsolvable", "several"])
def test_smt2_parsed_and_solved_by_z3(name):
    text = export(PUZZLES[name], "smt2")
    assert "(check-sat)" in text and text.rstrip().endswith("(get-model)")
    expect(name, import_solution(PUZZLES[name], z3_answer(text), "smt2"))


@pytest.mark.parametrize("name", ["killer", "unsolvable", "classic"])
def test_smt2_read_by_the_z3_executable_and_its_output_imported(name):
    z3 = shutil.which("z3", path=str(Path(sys.executable).parent)) or shutil.which("z3")
    if z3 is None:
        missing("no z3 executable (z3-solver installs one beside python)")
    text = export(PUZZLES[name], "smt2")
    out = subprocess.run([z3, "-in"], input=text, capture_output=True, text=True, timeout=120)
    # unsat is followed by z3's error for (get-model): the verdict comes first
    expect(name, import_solution(PUZZLES[name], out.stdout, "smt2"))


def test_smt2_model_values_may_be_negative_or_bare():
    grid = solve(SEVERAL).solution
    values = ["(- 1)", *map(str, grid[1:])]
    answer = "sat\n(" + "".join(
        f"(define-fun r{k // 4 + 1}c{k % 4 + 1} () Int {v})\n" for k, v in enumerate(values)
    ) + ")\n"  # fmt: skip
    with pytest.raises(WrongSolution, match="r1c1 holds -1, not a value of 1..4"):
        import_solution(SEVERAL, answer, "smt2")


# --- XCSP3: ACE (pycsp3's jar) where Java is present; its structure always -----------------


def pycsp3_jar(solver: str) -> Path | None:
    """The jar of a solver pycsp3 ships (ace, choco), found without importing pycsp3 (it
    prints a warning at exit)."""
    spec = importlib.util.find_spec("pycsp3")
    if spec is None or not spec.submodule_search_locations:
        return None
    jars = sorted(Path(spec.submodule_search_locations[0]).glob(f"solvers/{solver}/*.jar"))
    return jars[-1] if jars else None


#: How each XCSP3 solver pycsp3 ships is run on a file, and the puzzles it is given.
XCSP3_SOLVERS = {
    "ace": (lambda jar, path: ["java", "-jar", str(jar), str(path)], [*FOUR, "classic"]),
    "choco": (
        lambda jar, path: ["java", "-cp", str(jar), "org.chocosolver.parser.xcsp.ChocoXCSP",
                           str(path)],
        ["killer", "unsolvable"],
    ),
}  # fmt: skip


@pytest.mark.parametrize(
    ("solver", "name"), [(s, n) for s, (_, names) in XCSP3_SOLVERS.items() for n in names]
)
def test_xcsp3_solved_by_the_solvers_pycsp3_ships(tmp_path, solver, name):
    jar = pycsp3_jar(solver)
    if jar is None:
        missing(f"pycsp3 is not installed (pip install pycsp3): it brings {solver}")
    if shutil.which("java") is None:
        missing(f"no java on the PATH: {solver}, an XCSP3 solver, is a Java program")
    path = tmp_path / "model.xml"
    path.write_text(export(PUZZLES[name], "xcsp3"))
    command = XCSP3_SOLVERS[solver][0](jar, path)
    out = subprocess.run(command, capture_output=True, text=True, timeout=120)
    expect(name, import_solution(PUZZLES[name], out.stdout, "xcsp3"))


@pytest.mark.parametrize("name", ["classic", "killer", "x", "jigsaw"])
def test_xcsp3_is_xml_with_a_constraint_per_unit_and_cage(name):
    model = build_model(PUZZLES[name])
    root = ElementTree.fromstring(export(PUZZLES[name], "xcsp3").split("-->", 1)[1])
    assert root.tag == "instance" and root.get("format") == "XCSP3"
    units = sum(c.kind == "alldifferent" for c in model.constraints)
    cages = sum(c.kind == "sum" for c in model.constraints)
    assert len(root.findall(".//allDifferent")) == units + cages
    assert len(root.findall(".//sum")) == cages
    given = root.find(".//instantiation/values").text.split()
    assert len(given) == PUZZLES[name].given_count


# --- MiniZinc: the minizinc executable where present; its text always ----------------------


@pytest.mark.parametrize("name", FOUR)
def test_minizinc_solves_the_file(tmp_path, name):
    if shutil.which("minizinc") is None:
        missing("no minizinc executable on the PATH (MiniZinc's bundle is not on PyPI)")
    path = tmp_path / "model.mzn"
    path.write_text(export(PUZZLES[name], "mzn"))
    out = subprocess.run(["minizinc", str(path)], capture_output=True, text=True, timeout=120)
    expect(name, import_solution(PUZZLES[name], out.stdout, "mzn"))


@pytest.mark.parametrize("name", ["classic", "killer", "x", "jigsaw"])
def test_minizinc_text_states_every_constraint(name):
    model = build_model(PUZZLES[name])
    text = export(PUZZLES[name], "mzn")
    assert 'include "alldifferent.mzn";' in text and "solve satisfy;" in text
    assert text.count("constraint alldifferent(") == len(model.constraints)
    assert text.count("constraint sum(") == sum(c.kind == "sum" for c in model.constraints)
    assert len(re.findall(r"constraint x\[\d+\] = \d+;", text)) == PUZZLES[name].given_count


# --- variant rules: a published puzzle per primitive, through MiniZinc and XCSP3 ------------


def _published(name: str) -> tuple:
    """A published variant puzzle and its published solution (None: the published first row
    alone, for the Miracle Sudoku)."""
    if name == "miracle":  # Mitchell Lee's: anti-knight, anti-king, no consecutive neighbours
        return miracle(), None
    if name == "sandwich-4x4":  # a hand-made 4x4 sandwich (test_rules_encodings.UNIQUE)
        return with_givens(case("sandwich"), UNIQUE["sandwich"]), None
    return puzzle_of(PUBLISHED[name])


#: Per primitive beside the units' Distinct, a puzzle whose rules decompose into it: the
#: anti-king's pairs (Distinct), a thermometer (Linear), the Miracle Sudoku's pairs of no
#: consecutive values (Table), the sandwich (Implies, and Linear over 0-1 literals).
BY_PRIMITIVE = {
    "distinct": "ctc-anti-king",
    "linear": "ctc-thermo",
    "table": "miracle",
    "implies": "ctc-sandwich",
}


def _check_variant(name: str, answer) -> None:
    puzzle, solution = _published(name)
    assert answer.status == "solved" and is_solution(puzzle, answer.solution)
    if solution is not None:
        assert answer.solution == solution
    elif name == "miracle":  # its published first row
        assert answer.solution[:9] == (4, 8, 3, 7, 2, 6, 1, 5, 9)


@pytest.mark.parametrize(
    "name",
    # Gecode takes some 20 s of CPU on the published 9x9 sandwich: a 4x4 one stands in
    [BY_PRIMITIVE["distinct"], BY_PRIMITIVE["linear"], BY_PRIMITIVE["table"], "sandwich-4x4"],
)
def test_a_variant_of_each_primitive_solved_by_minizinc(tmp_path, name):
    if shutil.which("minizinc") is None:
        missing("no minizinc executable on the PATH (MiniZinc's bundle is not on PyPI)")
    puzzle, _ = _published(name)
    path = tmp_path / "model.mzn"
    path.write_text(export(puzzle, "mzn"))
    out = subprocess.run(["minizinc", str(path)], capture_output=True, text=True, timeout=120)
    _check_variant(name, import_solution(puzzle, out.stdout, "mzn"))


@pytest.mark.parametrize("name", BY_PRIMITIVE.values())
def test_a_variant_of_each_primitive_solved_by_ace(tmp_path, name):
    jar = pycsp3_jar("ace")
    if jar is None:
        missing("pycsp3 is not installed (pip install pycsp3): it brings ace")
    if shutil.which("java") is None:
        missing("no java on the PATH: ace, an XCSP3 solver, is a Java program")
    puzzle, _ = _published(name)
    path = tmp_path / "model.xml"
    path.write_text(export(puzzle, "xcsp3"))
    out = subprocess.run(["java", "-jar", str(jar), str(path)], capture_output=True, text=True,
                         timeout=120)  # fmt: skip
    _check_variant(name, import_solution(puzzle, out.stdout, "xcsp3"))


def test_the_cp_formats_write_every_primitive_under_its_rule_s_name():
    sandwich, _ = _published("ctc-sandwich")
    text = export(sandwich, "mzn")
    assert "% row 1 sandwich" in text and "bool2int(x[1] in {1, 9})" in text
    assert "constraint (x[1] in {1, 9} /\\ x[3] in {1, 9}) -> (x[2] = " in text
    tables = export(miracle(), "mzn")
    assert 'include "table.mzn";' in tables and "constraint table([x[" in tables
    root = ElementTree.fromstring(export(sandwich, "xcsp3").split("-->", 1)[1])
    block = root.find(".//block[@note='row 1 sandwich']")
    assert block is not None and block.find("intension") is not None
    assert "imp(and(in(x[0],set(1,9)),in(x[2],set(1,9))),eq(x[1]," in block.find("intension").text
    pairs = ElementTree.fromstring(export(miracle(), "xcsp3").split("-->", 1)[1])
    assert pairs.findall(".//extension")  # the pairs of no consecutive values
    assert {FORMATS["mzn"].kinds, FORMATS["xcsp3"].kinds} == {get_backend("xcsp3").kinds}


def test_minizinc_output_forms_are_read():
    grid = solve(CLASSIC).solution
    for text in (
        f"x = {list(grid)};\n----------\n",
        f"x = array1d(1..81, {list(grid)});\n----------\n==========\n",
    ):
        assert import_solution(CLASSIC, text, "mzn").solution == grid
    assert import_solution(UNSOLVABLE, "=====UNSATISFIABLE=====\n", "mzn").status == "unsolvable"


def test_xcsp3_instantiation_listing_each_variable_is_read():
    grid = solve(CLASSIC).solution
    names = " ".join(f"x[{k}]" for k in range(81))
    text = (
        "s SATISFIABLE\nv <instantiation type='solution'> <list> "
        f"{names} </list> <values> {' '.join(map(str, grid))} </values> </instantiation>\n"
    )
    assert import_solution(CLASSIC, text, "xcsp3").solution == grid


# --- pencil marks: the narrowed domains travel too ------------------------------------------


def marks_puzzle():
    """A 4x4 pencil-mark puzzle: each cell its value in one solution and one other value."""
    from sudokulab.models import Puzzle, geometry

    grid = solve(SEVERAL).solution
    masks = [1 << (v - 1) | 1 << (v % 4) for v in grid]
    return Puzzle.from_candidates(masks, geometry(4)), grid


@pytest.mark.parametrize("fmt", ["dimacs", "smt2", "mps", "mzn", "xcsp3"])
def test_pencil_marks_narrow_the_domains_in_every_format(fmt, tmp_path):
    puzzle, grid = marks_puzzle()
    text = export(puzzle, fmt)
    if fmt == "dimacs":
        answer = import_solution(puzzle, picosat(text), fmt)
    elif fmt == "smt2":
        answer = import_solution(puzzle, z3_answer(text), fmt)
    elif fmt == "mps":
        answer = import_solution(puzzle, highs(tmp_path, text, fmt, 0), fmt)
    else:  # the structure: a unary constraint per narrowed cell
        marker = "in {" if fmt == "mzn" else "<supports>"
        assert text.count(marker) == sum(1 for m in puzzle.candidates if bin(m).count("1") == 2)
        answer = import_solution(puzzle, f"x = {list(grid)};", "mzn")
    assert answer.status == "solved" and is_solution(puzzle, answer.solution)
    outside = [next(v for v in range(1, 5) if not m >> (v - 1) & 1) for m in puzzle.candidates]
    with pytest.raises(WrongSolution, match="r1c1 holds ., not one of its candidates"):
        import_solution(puzzle, f"x = {outside};", "mzn")


# --- wrong answers, refusals, bad input ------------------------------------------------------


def test_a_grid_breaking_a_given_or_a_rule_names_the_cell():
    grid = list(solve(CLASSIC).solution)
    grid[0], grid[1] = grid[1], grid[0]  # r1c1 is a given (4)
    with pytest.raises(WrongSolution, match=r"r1c1 holds \d but its given is 4"):
        import_solution(CLASSIC, f"x = {grid};", "mzn")
    grid = list(solve(CLASSIC).solution)
    grid[1] = grid[2]  # r1c2 and r1c3 open, now equal
    with pytest.raises(WrongSolution, match=r"r1c2 and r1c3 both hold \d \(row 1\)"):
        import_solution(CLASSIC, f"x = {grid};", "mzn")
    # a grid that keeps every unit but not the cage (r1c2 + r1c3 = 7)
    grid = next(g for g in solve(SEVERAL, limit=None).solutions if g[1] + g[2] != 7)
    with pytest.raises(WrongSolution, match=r"cage 1 \(from r1c2\) adds up to \d, not 7"):
        import_solution(KILLER, f"x = {list(grid)};", "mzn")


def test_a_cage_the_encoding_cannot_list_is_refused_by_dimacs_alone():
    doc = {"size": 25, "givens": "." * 625,
           "cages": [{"cells": list(range(12)), "sum": 150}]}  # fmt: skip
    with pytest.raises(Refused, match="dimacs.*too many value sets"):
        export(json.dumps(doc), "dimacs")
    assert export(json.dumps(doc), "mzn").count("constraint sum(") == 1


def test_a_refusal_on_the_command_line_is_status_2(tmp_path, capsys):
    doc = {"size": 25, "givens": "." * 625,
           "cages": [{"cells": list(range(12)), "sum": 150}]}  # fmt: skip
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc))
    assert main(["export", str(path), "--format", "dimacs", "--encoding", "minimal"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "sudokulab: error: dimacs, encoding minimal: a cage of 12 cells in a 25x25 grid has "
        "too many value sets\n"
    )


def test_bad_choices_are_value_errors():
    with pytest.raises(ValueError, match="unknown format 'cnf'"):
        export(CLASSIC, "cnf")
    with pytest.raises(ValueError, match="format lp has no encoding 'minimal'"):
        export(CLASSIC, "lp", "minimal")
    with pytest.raises(ValueError, match="invalid puzzle: row 1"):
        export("11" + "." * 14, "dimacs")


@pytest.mark.parametrize(
    ("fmt", "text", "where"),
    [
        ("dimacs", "s SATISFIABLE\nv 1 2 x 0\n", "line 2: 'x' is not a literal"),
        ("dimacs", "p cnf 3 1\n", "line 1: expected an 's' status line"),
        ("dimacs", "", "no status line"),
        ("smt2", "\n(error oops)\n", "line 2: expected sat, unsat or unknown"),
        ("mzn", "nothing\n", "no 'x = [...]'"),
        ("xcsp3", "s SATISFIABLE\n<instantiation><list>y[]</list>", "no <instantiation>"),
        ("lp", "hello\n", "no variable x_rRcC_V"),
        ("mps", "x_r1c1_1\n", "line 1: x_r1c1_1 has no value"),
        ("mps", "x_r9c1_1 1\n", "line 1: x_r9c1_1 is no variable of a 4x4 grid"),
    ],
)
def test_an_unreadable_answer_is_a_positioned_parse_error(fmt, text, where):
    with pytest.raises(ParseError, match=re.escape(where)):
        import_solution(SEVERAL, text, fmt, source="answer")


def listing(head: str, values: dict[str, str], form: str) -> str:
    """A MIP solver's solution file of the 9x9 program: its status ``head``, then a line
    per variable ``x_rRcC_V`` (``values`` by name, 0 elsewhere) in the solver's ``form``:
    CBC's ``index name value reduced-cost``, glpsol's ``index name * activity lb ub``."""
    names = [f"x_r{c // 9 + 1}c{c % 9 + 1}_{v}" for c in range(81) for v in range(1, 10)]
    rows = []
    for i, name in enumerate(names):
        value = values.get(name, "0")
        if form == "cbc":
            rows.append(f"{i:>7} {name:<20} {value:>15} {0:>23}")
        else:
            rows.append(f"{i + 1:>6} {name:<12} * {value:>13} {0:>13} {1:>13}")
    return head + "\n".join(rows) + "\n"


GLPK_HEAD = "Problem:    \nRows:       324\nColumns:    729\nStatus:     {}\n\n"
#: A grid's variables at 1, for the listings that carry a solution.
ONES = {f"x_r{c // 9 + 1}c{c % 9 + 1}_{v}": "1" for c, v in enumerate(solve(CLASSIC).solution)}

#: Each solver's "I stopped without deciding", as it writes it (a file, or its output),
#: and the line of it the message names.
UNDECIDED = [
    ("dimacs", "c kissat\ns UNKNOWN\n", "s UNKNOWN"),  # Kissat, the SAT competitions
    ("dimacs", "c CaDiCaL\nc\nc UNKNOWN\n", "c UNKNOWN"),  # CaDiCaL: no s line
    ("dimacs", "s INDETERMINATE\n", "s INDETERMINATE"),  # Glucose
    ("dimacs", "INDET\n", "INDET"),  # MiniSat's result file
    ("opb", "c roundingsat\ns UNKNOWN\n", "s UNKNOWN"),  # the PB competitions
    ("opb", "s UNSUPPORTED\n", "s UNSUPPORTED"),
    # HiGHS, its raw style and its table (the status on the table's last line)
    ("lp", "Model status\nTime limit reached\n\n# Primal solution values\nNone\n",
     "Time limit reached"),
    ("lp", "Columns\n    Index Status  Lower  Upper  Primal  Dual  Type  Name\n"
     "        0           0      1                Integer  x_r1c1_1\nRows\n\n"
     "Model status: Time limit reached\n", "Model status: Time limit reached"),
    # SCIP's "write solution" with none found
    ("mps", "solution status: time limit reached\nno solution available\n",
     "solution status: time limit reached"),
    # CBC lists the LP relaxation's values when it has no integer solution
    ("lp", listing("Stopped on time (no integer solution - continuous used) - objective value "
                   "0.00000000\n", {"x_r1c1_1": "0.5", "x_r1c1_2": "0.5"}, "cbc"),
     "Stopped on time (no integer solution - continuous used) - objective value 0.00000000"),
    # glpsol (-o) lists every column whatever its status
    ("lp", listing(GLPK_HEAD.format("INTEGER UNDEFINED"), {}, "glpk"),
     "Status:     INTEGER UNDEFINED"),
    ("smt2", "unknown\n", "unknown"),  # z3, cvc5
    ("smt2", "timeout\n", "timeout"),  # z3 -T
    ("mzn", "=====UNKNOWN=====\n", "=====UNKNOWN====="),
    ("xcsp3", "c ACE\ns UNKNOWN\n", "s UNKNOWN"),
]  # fmt: skip


@pytest.mark.parametrize(("fmt", "text", "said"), UNDECIDED)
def test_a_solver_that_did_not_decide_is_a_timeout_not_a_verdict(fmt, text, said, tmp_path, capsys):
    result = import_solution(CLASSIC, text, fmt)
    assert result.status is sudokulab.Status.TIMEOUT and not result.solutions
    answer = tmp_path / "answer.txt"
    answer.write_text(text)
    assert main(["import-solution", CLASSIC, str(answer), "--format", fmt]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"sudokulab: puzzle: unknown: the solver did not decide ({answer} says {said!r})\n"
    )


@pytest.mark.parametrize(
    ("text", "status"),
    [
        # glpsol and CBC list the columns of a program without solution too
        (listing(GLPK_HEAD.format("INTEGER EMPTY"), {}, "glpk"), "unsolvable"),
        (listing("Infeasible - objective value 0.00000000\n", {}, "cbc"), "unsolvable"),
        # stopped with an incumbent: any solution of the 0-1 program is a grid
        (listing("Stopped on time - objective value 0.00000000\n", ONES, "cbc"), "solved"),
        (listing(GLPK_HEAD.format("INTEGER NON-OPTIMAL"), ONES, "glpk"), "solved"),
        (listing(GLPK_HEAD.format("INTEGER OPTIMAL"), ONES, "glpk"), "solved"),
    ],
)
def test_a_listing_s_status_line_decides_before_its_values(text, status):
    result = import_solution(CLASSIC, text, "lp")
    assert result.status == status
    if status == "solved":
        assert is_solution(parse_puzzle(CLASSIC), result.solution)


def test_the_commands_formats_are_the_packages():
    assert tuple(FORMATS) == cli_export.FORMATS
    assert {name: f.encodings for name, f in FORMATS.items()} == cli_export.ENCODINGS


# --- the commands ------------------------------------------------------------------------


def test_export_then_import_solution_on_the_command_line(tmp_path, capsys):
    cnf = tmp_path / "p.cnf"
    assert main(["export", CLASSIC, "--format", "dimacs", "-o", str(cnf)]) == 0
    answer = tmp_path / "answer.txt"
    answer.write_text(picosat(cnf.read_text()))
    capsys.readouterr()
    assert main(["import-solution", CLASSIC, str(answer), "--format", "dimacs"]) == 0
    assert capsys.readouterr().out.strip() == "".join(map(str, solve(CLASSIC).solution))
    answer.write_text("s UNSATISFIABLE\n")
    assert main(["import-solution", UNSOLVABLE, str(answer), "--format", "dimacs"]) == 1
    assert "no solution" in capsys.readouterr().err
    # an answer read under another encoding's numbering is a wrong grid, said so
    answer.write_text(picosat(cnf.read_text()))
    status = main(["import-solution", CLASSIC, str(answer), "--format", "dimacs",
                   "--encoding", "minimal"])  # fmt: skip
    assert status == 1
    assert "exported with another?" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["export", "import-solution"])
def test_variant_help_names_every_variant_a_plain_grid_takes(command):
    from sudokulab.cli import build_parser
    from sudokulab.models.variants import PLAIN_VARIANTS

    parser = next(p for p in parsers(build_parser()) if p.prog == f"sudokulab {command}")
    action = next(a for a in parser._actions if "--variant" in a.option_strings)
    named = re.findall(r"([\w-]+) \(", action.help)
    assert named == list(PLAIN_VARIANTS)


def test_export_takes_every_variant_a_plain_grid_takes(capsys):
    from sudokulab.models.variants import PLAIN_VARIANTS

    def constraints(*options: str) -> str:
        assert main(["export", "." * 81, *options, "--format", "dimacs"]) == 0
        out = capsys.readouterr().out
        return next(line for line in out.splitlines() if "constraints:" in line)

    lines = {name: constraints("--variant", name) for name in PLAIN_VARIANTS}
    assert constraints() not in lines.values() and len(set(lines.values())) == len(lines)


def test_export_writes_variants_from_the_options(capsys):
    assert main(["export", "3...............", "--variant", "x", "--format", "mzn"]) == 0
    out = capsys.readouterr().out
    assert out.count("constraint alldifferent(") == 12 + 2  # rows, columns, boxes, diagonals


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["export", "11" + "." * 14, "--format", "dimacs"], "invalid puzzle: row 1"),
        (["export", CLASSIC, "--format", "lp", "--encoding", "minimal"], "format lp has binary"),
        (["import-solution", CLASSIC, "/no/such/file", "--format", "lp"], "/no/such/file: cannot"),
        (["export", CLASSIC, "--format", "dimacs", "-o", "/no/such/dir/x"], "cannot write"),
    ],
)
def test_bad_input_is_one_line_and_status_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_an_unreadable_solution_file_exits_2_with_its_line(tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_text("c fine\nv 1 2 three 0\n")
    proc = subprocess.run(
        [sys.executable, "-m", "sudokulab", "import-solution", SEVERAL, str(answer),
         "--format", "dimacs"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr == f"sudokulab: error: {answer}: line 2: 'three' is not a literal\n"


def test_a_wrong_grid_exits_1_naming_the_cell(tmp_path, capsys):
    grid = list(solve(CLASSIC).solution)
    grid[80] = grid[79]
    answer = tmp_path / "answer.txt"
    answer.write_text(f"x = {grid};\n")
    assert main(["import-solution", CLASSIC, str(answer), "--format", "mzn"]) == 1
    assert "r9c8 and r9c9 both hold" in capsys.readouterr().err
