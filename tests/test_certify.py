"""The DRAT checker: it accepts the proofs solvers write for unsatisfiable CNFs, in text
and binary form, and never a proof for a satisfiable one; a tampered proof is rejected
with the first failing lemma named."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sudokulab.certify import ProofError, check_proof, read_dimacs
from sudokulab.interchange import export_model
from sudokulab.models import build_model, parse_puzzle

pysat = pytest.importorskip("pysat")
from pysat.examples.genhard import PHP  # noqa: E402
from pysat.solvers import Cadical153, Glucose4  # noqa: E402

#: A 17-clue puzzle (sudokus_17's first) and a puzzle with two solutions (two givens cut).
PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def dimacs(variables: int, clauses: list) -> str:
    lines = [f"p cnf {variables} {len(clauses)}"] + [" ".join(map(str, c)) + " 0" for c in clauses]
    return "\n".join(lines) + "\n"


def proof_of(solver_class, clauses: list) -> str:
    with solver_class(bootstrap_with=clauses, with_proof=True) as solver:
        assert not solver.solve()
        return "\n".join(solver.get_proof()) + "\n"


def binary(text: str) -> bytes:
    """A text DRAT proof in drat-trim's binary form."""
    out = bytearray()
    for line in text.splitlines():
        words = line.split()
        if not words:
            continue
        out.append(ord("d") if words[0] == "d" else ord("a"))
        for word in words[words[0] == "d" :]:
            lit = int(word)
            number = 2 * abs(lit) + (lit < 0) if lit else 0
            while number > 0x7F:
                out.append(number & 0x7F | 0x80)
                number >>= 7
            out.append(number)
    return bytes(out)


@pytest.mark.parametrize("solver_class", [Glucose4, Cadical153])
def test_solver_proofs_of_the_pigeonhole_principle_are_accepted(solver_class):
    php = PHP(5)  # six pigeons, five holes
    cnf = dimacs(php.nv, php.clauses)
    proof = proof_of(solver_class, php.clauses)
    for form in (proof, binary(proof)):
        verdict = check_proof(cnf, form)
        assert verdict.accepted, verdict.reason
        assert verdict.lemmas > 0 and verdict.failed is None


def _sudoku_cnf(puzzle: str) -> tuple[str, int, list, set[int]]:
    """The exported CNF of a puzzle, its variables and clauses, and the variables of
    cells (the numbering comments: 'r1c2 values 1 6 7 9: variables 1 2 3 4')."""
    text = export_model(build_model(parse_puzzle(puzzle)), "dimacs")
    variables, clauses = read_dimacs(text)
    cells = {int(v) for line in re.findall(r"variables ([\d ]+)", text) for v in line.split()}
    return text, variables, clauses, cells


def test_a_uniqueness_proof_is_accepted_and_fails_without_the_blocking_clause():
    text, variables, clauses, cells = _sudoku_cnf(PUZZLE)
    with Glucose4(bootstrap_with=clauses) as solver:
        assert solver.solve()
        model = solver.get_model()
    blocking = [-v for v in model if v > 0 and v in cells]
    blocked = clauses + [blocking]
    proof = proof_of(Glucose4, blocked)
    assert check_proof(dimacs(variables, blocked), proof).accepted
    # the same proof against the CNF alone, which has a model: never accepted
    verdict = check_proof(text, proof)
    assert not verdict.accepted and verdict.reason


def test_tampered_proofs_are_rejected_naming_the_lemma():
    php = PHP(4)
    cnf = dimacs(php.nv, php.clauses)
    proof = proof_of(Glucose4, php.clauses)
    # a unit lemma that does not follow, first: line 1 is named
    verdict = check_proof(cnf, "1 0\n" + proof)
    assert not verdict.accepted and verdict.failed == 1 and "lemma 1 " in verdict.reason
    # the proof cut before its end: no empty clause
    lines = proof.splitlines()
    kept = [line for line in lines[: len(lines) // 3] if not line.startswith("d")]
    verdict = check_proof(cnf, "\n".join(kept) + "\n")
    assert not verdict.accepted
    # a binary proof names the step
    verdict = check_proof(cnf, binary("1 0\n" + proof))
    assert not verdict.accepted and "step 1" in verdict.reason


@given(st.integers(0, 2**32 - 1), st.lists(st.lists(st.integers(-8, 8), max_size=4), max_size=30))
def test_no_proof_is_accepted_for_a_satisfiable_cnf(seed, lemmas):
    """Random CNFs with a planted model (every clause keeps one of its literals true) and
    random lemma lists ending with the empty clause: none may be accepted."""
    rng = random.Random(seed)
    planted = {v: rng.random() < 0.5 for v in range(1, 9)}
    clauses = []
    for _ in range(rng.randint(1, 30)):
        clause = [rng.choice((1, -1)) * rng.randint(1, 8) for _ in range(rng.randint(1, 4))]
        v = rng.randint(1, 8)
        clause.append(v if planted[v] else -v)
        clauses.append(clause)
    steps = [" ".join(str(x) for x in lemma if x) + " 0" for lemma in lemmas] + ["0"]
    verdict = check_proof(dimacs(8, clauses), "\n".join(steps) + "\n")
    assert not verdict.accepted


@pytest.mark.parametrize(
    ("cnf", "proof", "message"),
    [
        ("1 2 0\n", "0\n", "a clause before the 'p cnf' header"),
        ("p cnf 2 1\n1 x 0\n", "0\n", "line 2: 'x' is not a literal"),
        ("p cnf 2 2\n1 2 0\n", "0\n", "the header says 2 clauses, the file has 1"),
        ("p cnf 2 1\n1 3 0\n", "0\n", "variable 3 above the header's 2"),
        ("p cnf 2 1\n1 2 0\n", "1 2\n", "line 1: a step is one clause ending with 0"),
    ],
)
def test_unreadable_files_are_named_with_the_line(cnf, proof, message):
    with pytest.raises(ProofError, match=re.escape(message)):
        check_proof(cnf, proof)


def test_check_proof_on_the_command_line(tmp_path, capsys):
    from sudokulab.cli import main

    php = PHP(4)
    cnf, good, bad = tmp_path / "php.cnf", tmp_path / "good.drat", tmp_path / "bad.drat"
    cnf.write_text(dimacs(php.nv, php.clauses))
    proof = proof_of(Glucose4, php.clauses)
    good.write_bytes(binary(proof))
    bad.write_text("1 0\n" + proof)
    assert main(["check-proof", str(cnf), str(good)]) == 0
    assert capsys.readouterr().out.startswith(f"accepted: {cnf} has no model (")
    assert main(["check-proof", str(cnf), str(bad)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"rejected: {bad}: line 1: lemma 1 does not follow by unit propagation")
    cnf.write_text("p cnf 1 1\n1 y 0\n")
    assert main(["check-proof", str(cnf), str(good)]) == 2
    err = capsys.readouterr().err
    assert f"{cnf}: line 2: 'y' is not a literal" in err and "Traceback" not in err
    assert main(["check-proof", str(tmp_path / "none.cnf"), str(good)]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_certificates_of_unique_unsolvable_and_refuted_claims(tmp_path):
    from helpers import two_solution_grid

    from sudokulab import solve
    from sudokulab.certify.prove import second_opinion
    from sudokulab.cli import main
    from sudokulab.models import Puzzle, is_solution

    def certify(model, solutions, **options):  # the second solver's proof, checked
        return second_opinion(model, solutions, **options).checked()

    unique = build_model(parse_puzzle(PUZZLE))
    answer = solve(PUZZLE, limit=2)
    assert answer.status == "solved" and answer.exact
    certificate = certify(unique, answer.solutions)
    assert certificate.accepted and certificate.claim == "exactly 1 solution"
    cnf, drat = certificate.write(tmp_path, 1)
    assert main(["check-proof", str(cnf), str(drat)]) == 0

    stuck = Puzzle.from_grid(list(range(1, 9)) + [0] * 9 + [9] + [0] * 63)
    assert certify(build_model(stuck), []).accepted

    answer_grid = (
        "389157264267489153541623978813576492792341586456892731635914827924768315178235649"
    )
    two = Puzzle.from_grid(two_solution_grid(tuple(map(int, answer_grid))))
    first = solve(two, limit=1).solutions[0]
    refuted = certify(build_model(two), [first])
    assert not refuted.accepted and refuted.refuted != first and is_solution(two, refuted.refuted)
    both = solve(two, limit=3)
    assert certify(build_model(two), both.solutions).accepted
    with pytest.raises(ValueError, match="writes no proof here"):
        certify(unique, [], solver="minisat22")


def test_solve_certify_writes_checked_proofs(tmp_path, capsys):
    from sudokulab.cli import main

    stuck = "12345678.........9" + "." * 63  # r1c9 must be 9, column 9 has one
    puzzles = tmp_path / "p.txt"
    puzzles.write_text(f"{PUZZLE}\n{'1' * 80}\n{stuck}\n")  # line 2: one cell short
    folder = tmp_path / "proofs"
    assert main(["solve", str(puzzles), "--unique", "--certify", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "line 1: certified exactly 1 solution" in err and "line 3: certified no solution" in err
    # the API's certificate: who proved it, and what the checker said
    assert "proof by native (its search" in err and "accepted by our checker in" in err
    assert sorted(p.name for p in folder.iterdir()) == ["1.cnf", "1.drat", "3.cnf", "3.drat"]
    for k in (1, 3):
        assert main(["check-proof", str(folder / f"{k}.cnf"), str(folder / f"{k}.drat")]) == 0


@pytest.mark.core
def test_the_compiled_checker_gives_the_python_checkers_verdicts():
    from sudokulab import solve
    from sudokulab.certify import drat

    assert drat._rup is not None  # setup.py builds it (optional only where no compiler is)
    puzzles = [(PUZZLE, "native"), ("1234" + "." * 12, "native"), (PUZZLE, "sat")]
    made = [solve(p, b, limit=None if len(p) == 16 else 2, certify=True).certificate
            for p, b in puzzles]  # fmt: skip
    rng = random.Random(45)
    cases = []
    for m in made:
        lines = m.proof.splitlines()
        cases.append((m.cnf, m.proof))
        for k in rng.sample(range(len(lines)), min(12, len(lines))):
            cases.append((m.cnf, "\n".join(lines[:k] + lines[k + 1 :]) + "\n"))  # dropped
            words = lines[k].split()
            if words[0] != "d" and len(words) > 1:
                words[0] = str(-int(words[0]))
                cases.append((m.cnf, "\n".join(lines[:k] + [" ".join(words)] + lines[k + 1 :])))
    cases += [(cnf, binary(proof)) for cnf, proof in cases[::5]]
    verdicts = [
        (check_proof(cnf, proof), check_proof(cnf, proof, compiled=False)) for cnf, proof in cases
    ]
    assert all(compiled == python for compiled, python in verdicts)
    assert {c.accepted for c, _ in verdicts} == {True, False}  # both kinds met
    # input that does not read: the same error from the readers, either way
    for cnf, proof in [("p cnf 1 1\n1 y 0\n", "0\n"), ("p cnf 1 1\n1 0\n", "1 x 0\n")]:
        errors = []
        for compiled in (True, False):
            with pytest.raises(ProofError) as err:
                check_proof(cnf, proof, compiled=compiled)
            errors.append(str(err.value))
        assert errors[0] == errors[1]
