"""The native engine's search as a proof: every level, order and both implementations
write proofs of unique, unsolvable and counted puzzles that the checker accepts; the C
core and the reference record the same placements; a tampered proof or a wrong claim is
rejected."""

from __future__ import annotations

import pytest
from helpers import design, solved, two_solution_grid

from sudokulab import solve
from sudokulab.certify import check_proof
from sudokulab.certify.search import search_proof
from sudokulab.models import Cage, Puzzle, build_model, geometry, is_solution, parse_puzzle
from sudokulab.native import PROPAGATIONS, Engine, reference

#: sudokus_17's first puzzle (unique), a 4x4 with 12 solutions, a 4x4 with none (r1c3
#: sees 1 and 2 in its row, 4 and 3 in its column), a 9x9 whose r1c9 has no value left,
#: and a 6x6 with its first two rows blank (several solutions).
PUZZLES = {
    "unique": (
        "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
        2,
    ),
    "count": ("1234" + "." * 12, None),
    "unsolvable": ("12.." + "..4." + "..3." + "....", None),
    "stuck": ("12345678.........9" + "." * 63, 2),
    "6x6": ("." * 12 + "".join(map(str, solved(6)[12:])), None),
}
#: The levels too weak for a 17-clue search to stay small (their proofs as long as it);
#: nor does it with the orders first and dom-wdeg (ORDERS[1::2]).
WEAK = ("none", "forward", "ac3")
ORDERS = ("mrv", "first", "mrv-degree", "dom-wdeg")


def _allowed(row: dict) -> bool:
    # the compiled core runs dom-wdeg under none to locked only (native/options.py)
    wdeg = row["order"] == "dom-wdeg" and row["propagation"] in ("ac3", "gac", "sac")
    weak = row["puzzle"] in ("unique", "stuck") and (
        row["propagation"] in WEAK or (row["puzzle"] == "unique" and row["order"] in ORDERS[1::2])
    )
    return not (row["backend"] == "native" and wdeg) and not weak


@pytest.mark.parametrize(
    ("backend", "propagation", "order", "puzzle"),
    design(
        {
            "backend": ("native", "native-py"),
            "propagation": PROPAGATIONS,
            "order": ORDERS,
            "puzzle": tuple(PUZZLES),
        },
        _allowed,
    ),
)
def test_the_search_proves_its_claim(backend, propagation, order, puzzle):
    text, limit = PUZZLES[puzzle]
    spec = f"{backend}:propagation={propagation},order={order}"
    result = solve(text, spec, limit=limit, certify=True)
    made = result.certificate
    assert result.exact and made is not None, result.message
    assert made.prover.startswith("native") and made.encoding == "optimized"
    assert made.accepted, made.reason
    assert made.claim == (
        "no solution"
        if not result.count
        else f"exactly {result.count} solution" + "s" * (result.count > 1)
    )
    for grid in result.solutions:
        assert is_solution(parse_puzzle(text), grid)
    if puzzle == "unique":  # the backends agree on what the proof proves
        assert result.count == solve(text, "cpsat", limit=2).count == 1


@pytest.mark.core
@pytest.mark.parametrize("propagation", ["forward", "hidden", "locked", "gac"])
def test_the_core_and_the_reference_record_the_same_placements(propagation):
    text = PUZZLES["unique"][0]
    model = build_model(parse_puzzle(text))
    units = tuple(k.cells for k in model.constraints)
    outs = [
        cls(9, units, propagation, "mrv").search(model.givens, limit=2, steps=True)
        for cls in (Engine, reference.Engine)
    ]
    assert outs[0].steps == outs[1].steps
    assert outs[0].count == 1 and all(d >= 1 for d, _, _ in outs[0].steps)
    # without steps asked, none are recorded
    assert Engine(9, units, propagation, "mrv").search(model.givens, limit=2).steps == ()


def _forward(text: str, limit: int | None):
    model = build_model(parse_puzzle(text))
    units = tuple(k.cells for k in model.constraints)
    out = Engine(model.size, units, "forward", "mrv").search(model.givens, limit, steps=True)
    return model, out


def test_a_tampered_proof_is_rejected():
    text = PUZZLES["count"][0]
    model, out = _forward(text, None)
    made = search_proof(model, out.steps, out.solutions)
    assert made.checked().accepted
    lines = made.proof.splitlines()
    units = [k for k, line in enumerate(lines) if len(line.split()) == 2 and line[0] != "d"]
    assert units  # the root's branching cell: each value tried is ruled out by a unit lemma
    # each dropped in turn: without one of them the empty clause at the end does not follow
    verdicts = [check_proof(made.cnf, "\n".join(lines[:k] + lines[k + 1 :]) + "\n") for k in units]
    assert any(not v.accepted and v.failed == len(lines) - 1 for v in verdicts)
    # its literal flipped ("that value holds"): assuming the opposite propagates no conflict
    k = units[0]
    flipped = lines[:k] + [f"{-int(lines[k].split()[0])} 0"] + lines[k + 1 :]
    verdict = check_proof(made.cnf, "\n".join(flipped) + "\n")
    assert not verdict.accepted and verdict.failed == k + 1


def test_a_wrong_claim_is_refuted_with_the_grid_it_left_out():
    grid = "389157264267489153541623978813576492792341586456892731635914827924768315178235649"
    two = Puzzle.from_grid(two_solution_grid(tuple(map(int, grid))))
    model = build_model(two)
    units = tuple(k.cells for k in model.constraints)
    out = Engine(9, units, "hidden", "mrv").search(model.givens, None, steps=True)
    assert out.count == 2 and out.complete
    made = search_proof(model, out.steps, out.solutions[:1])
    assert made.refuted == out.solutions[1] and not made.proof
    assert search_proof(model, out.steps, out.solutions).checked().accepted


def test_cages_and_rules_are_proved_by_a_second_solver():
    killer = Puzzle(geometry(4), (0,) * 16, (Cage((0, 1), 3),))
    result = solve(killer, "native", limit=None, certify=True)
    assert result.exact and result.certificate.accepted
    assert "second solver" in result.certificate.prover


def test_a_search_past_the_record_bound_keeps_no_steps_in_either_engine():
    # the empty 4x4 counted whole under none: thousands of placements, cheap
    units = tuple(u.cells for u in geometry(4).units)
    engines = [cls(4, units, "none", "first") for cls in (Engine, reference.Engine)]
    whole = [e.search((0,) * 16, None, steps=True) for e in engines]
    n = len(whole[0].steps)
    assert whole[0].steps == whole[1].steps and n > 100
    for e, out in zip(engines, whole, strict=True):
        assert e.search((0,) * 16, None, steps=n).steps == out.steps  # exactly the bound
        over = e.search((0,) * 16, None, steps=n - 1)
        assert over.steps is None  # one placement more than the bound: no record
        assert over.count == out.count == 288 and over.nodes == out.nodes  # the search went on


def test_a_search_too_long_to_keep_is_proved_by_a_second_solver(monkeypatch):
    from sudokulab.native import surface

    monkeypatch.setattr(surface, "STEPS_MAX", 50)
    empty = Puzzle(geometry(4), (0,) * 16)
    result = solve(empty, "native:propagation=none,order=first", limit=None, certify=True)
    assert result.exact and result.count == 288
    assert result.certificate.accepted and "second solver" in result.certificate.prover
    assert "more than 50 placements" in result.message
