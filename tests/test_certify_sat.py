"""The `sat` backend certifies with its own solver's proof: every exact verdict (no
solution, unique, an exact count) comes with the solver's DRAT proof over the clauses it
was given (the encoding's, then each blocking clause), which our checker accepts; a
tampered proof is rejected; a solver that writes no proof is refused by name."""

from __future__ import annotations

import random

import pytest
from helpers import design, killer_cages, random_cages, random_solution, solved

import sudokulab
from sudokulab import Puzzle, build_model, is_solution, solve
from sudokulab.backends import sat
from sudokulab.catalog import load
from sudokulab.certify import check_proof, read_dimacs
from sudokulab.encodings.cnf import encode
from sudokulab.models import geometry, rules
from sudokulab.models.puzzle import Cage

pytest.importorskip("pysat")

G4 = geometry(4)
#: sudokus_17's first: Royle's 17-clue puzzles each have one solution.
UNIQUE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
#: top95's second with r4c7's 8 made a 1: no given clashes, no solution (propagation alone
#: does not refute it: the solver learns lemmas).
UNSOLVABLE = "52...6.........7.13...........4..1..6......5...........418.........3..2...87....."
#: A complete grid (the seed write-up's published solution): nothing left to search.
FULL = "389157264267489153541623978813576492792341586456892731635914827924768315178235649"


def four_solutions() -> Puzzle:
    """A solved 4x4 grid with two deadly rectangles blanked (a b / b a over two boxes of
    one band, rows 1-2 and rows 3-4, in columns apart): each has two fillings, the other
    cells are given, so exactly 2 x 2 solutions."""
    grid = list(solved(4))  # 1234 / 3412 / 2341 / 4123
    for cell in (0, 2, 4, 6, 9, 11, 13, 15):
        grid[cell] = 0
    return Puzzle(G4, tuple(grid))


def killer() -> Puzzle:
    """A 4x4 killer puzzle without givens: random cages, their totals from a random grid."""
    rng = random.Random(7)
    solution = random_solution(4, rng)
    cages = killer_cages(solution, random_cages(solution, rng))
    return Puzzle(G4, (0,) * 16, tuple(Cage(cells, total) for cells, total in cages))


def thermometer() -> Puzzle:
    """A 4x4 thermometer r1c1 < r1c2 < r1c3 with three givens (test_rules_encodings')."""
    givens = tuple(0 if ch == "." else int(ch) for ch in ".....4....4....1")
    thermo = (rules.Less(0, 1, "thermometer 1"), rules.Less(1, 2, "thermometer 1"))
    return Puzzle(G4, givens, (), None, thermo)


#: Each case: the puzzle, the limit, and the (status, count) a certified answer has
#: (None: any exact count).
CASES = {
    "unique": (lambda: UNIQUE, 2, ("solved", 1)),
    "unsolvable": (lambda: UNSOLVABLE, 2, ("unsolvable", 0)),
    "count": (four_solutions, None, ("multiple", 4)),
    "killer": (killer, None, None),
    "thermometer": (thermometer, 2, None),
    "16x16": (lambda: load("gen-16x16").entries[0].puzzle, 2, None),
}


def certified(puzzle, limit, **options):
    """``solve(..., certify=True)`` on sat: every grid verified, the certificate there,
    accepted by our checker and naming the claim the answer makes."""
    puzzle = sudokulab.as_puzzle(puzzle)
    result = solve(puzzle, "sat", limit=limit, certify=True, **options)
    assert result.exact, result
    assert all(is_solution(puzzle, s) for s in result.solutions)
    made = result.certificate
    assert made is not None and made.accepted, made and made.reason
    assert made.refuted is None
    claim = f"exactly {result.count} solution" + "s" * (result.count > 1)
    assert made.claim == (claim if result.count else "no solution")
    return result


@pytest.mark.parametrize(
    ("case", "encoding", "solver"),
    design(
        {"case": list(CASES), "encoding": sat.ENCODINGS, "solver": sat.PROOF_SOLVERS},
        # a 16x16 grid costs our checker the most: once, on the default encoding
        lambda row: (
            row["case"] != "16x16"
            or (row["encoding"], row["solver"]) == (sat.ENCODINGS[0], sat.PROOF_SOLVERS[0])
        ),
    ),
)
def test_each_exact_verdict_comes_with_the_solvers_own_proof(case, encoding, solver):
    make, limit, expected = CASES[case]
    puzzle = make()
    result = certified(puzzle, limit, encoding=encoding, solver=solver)
    if expected is not None:
        assert (result.status, result.count) == expected
    made = result.certificate
    assert made.prover == f"sat:{solver} (its own proof)" and made.encoding == encoding
    # the claim's CNF: the exported CNF clause for clause, then one blocking clause per
    # solution, as the certify module writes them
    exported = read_dimacs(sudokulab.export(puzzle, "dimacs", encoding))[1]
    cnf = encode(build_model(sudokulab.as_puzzle(puzzle)), encoding)
    blocked = [tuple(cnf.blocking(grid)) for grid in result.solutions]
    assert read_dimacs(made.cnf)[1] == exported + blocked


@pytest.mark.parametrize("puzzle", [UNIQUE, UNSOLVABLE])
def test_a_proof_with_a_lemma_dropped_or_a_literal_flipped_is_rejected(puzzle):
    made = certified(puzzle, 2).certificate
    lines = made.proof.splitlines()
    lemmas = [i for i, line in enumerate(lines) if not line.startswith("d")]
    assert len(lemmas) > 2 and lines[lemmas[-1]] == "0"
    # the solver writes the empty clause once its last lemma lets propagation conflict:
    # without that lemma the empty clause does not follow
    dropped = lines[: lemmas[-2]] + lines[lemmas[-2] + 1 :]
    verdict = check_proof(made.cnf, "\n".join(dropped) + "\n")
    assert not verdict.accepted and "does not follow" in verdict.reason
    # the first unit lemma negated: it does not follow
    unit = next(i for i in lemmas if len(lines[i].split()) == 2)
    flipped = [*lines[:unit], f"{-int(lines[unit].split()[0])} 0", *lines[unit + 1 :]]
    verdict = check_proof(made.cnf, "\n".join(flipped) + "\n")
    assert not verdict.accepted and verdict.failed == unit + 1


def test_inference_alone_proves_its_verdicts_as_lemmas():
    # failed literals refute UNSOLVABLE (unit propagation alone does not): each failed
    # literal's negation is a unit lemma, then the empty clause
    result = certified(UNSOLVABLE, 2, search="failed-literal", encoding="extended")
    made = result.certificate
    assert result.status == "unsolvable"
    assert made.prover == "sat:minisat22 (failed literals, written as lemmas)"
    lines = made.proof.splitlines()
    assert lines[-1] == "0" and len(lines) > 1
    assert all(len(line.split()) == 2 for line in lines[:-1])
    # the lemmas dropped, the empty clause alone does not follow
    assert not check_proof(made.cnf, "0\n").accepted
    # unit propagation decides a 4x4 puzzle: the solution's blocking clause is then
    # falsified, the empty clause follows at once
    puzzle = load("gen-4x4").entries[0].puzzle
    result = certified(puzzle, 2, search="none", solver="maplesat")  # no solver proof used
    assert result.status == "solved" and result.certificate.proof == "0\n"
    assert result.certificate.prover == "sat:maplesat (unit propagation, written as lemmas)"


@pytest.mark.parametrize("solver", sorted(sat.NO_PROOF))
def test_a_solver_writing_no_proof_is_refused_by_name(solver):
    with pytest.raises(ValueError, match=f"solver {solver} writes no DRAT proof"):
        solve(UNIQUE, "sat", limit=2, certify=True, solver=solver)
    assert solve(UNIQUE, "sat", limit=2, solver=solver).status == "solved"


def test_certify_with_no_solver_named_takes_the_first_that_writes_proofs():
    puzzle = load("gen-4x4").entries[0].puzzle
    assert certified(puzzle, 2).stats["solver"] == sat.PROOF_SOLVERS[0]
    assert solve(puzzle, "sat", limit=2).stats["solver"] == sat.SOLVERS[0]
    # a count stopped at its limit claims nothing: no certificate
    assert solve("." * 16, "sat", limit=2, certify=True).certificate is None


def test_a_full_grid_is_answered_without_a_search():
    # every cell given, the optimized CNF has no variable: MapleSAT's binding crashed on it
    for solver in sat.SOLVERS:
        result = solve(FULL, "sat", limit=2, solver=solver)
        assert (result.status, result.count, result.exact) == ("solved", 1, True), solver
    # the claim's blocking clause, over no open cell, is empty: the CNF has no model
    made = certified(FULL, 2).certificate
    assert made.claim == "exactly 1 solution" and read_dimacs(made.cnf)[1][-1] == ()
