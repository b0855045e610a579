"""A proof for the classroom (issue 45): the lemmas of a certificate in words and the proof
section of the step-through page (``explain --certify``). The server's certificates are
tested in tests/test_serve.py, the live page's proof section in tests/test_serve_browser.py."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("pysat")

from sudokulab import build_model, is_solution, parse_puzzle, solve  # noqa: E402
from sudokulab.certify.prove import Certificate, second_opinion  # noqa: E402
from sudokulab.certify.words import explain_proof, explain_refutation  # noqa: E402
from sudokulab.cli import main  # noqa: E402
from sudokulab.encodings.cnf import encode  # noqa: E402
from sudokulab.models import Cage, Puzzle, geometry  # noqa: E402

#: A 4x4 puzzle with one solution, and one with none (r1c1 can only be 1, and column 1
#: has a 1 already).
UNIQUE = "..1.4.....3..2.."
UNSOLVABLE = ".2341..........."


def x(cell: int, value: int, n: int = 4) -> int:
    """The variable of cell = value in the minimal encoding (x = cell * n + value, as
    sudokulab.encodings.cnf documents it)."""
    return cell * n + value


def test_each_literal_of_a_lemma_is_named_by_its_cell_and_value():
    model = build_model(parse_puzzle("1" + "." * 15))
    r1c1_1, r1c2_1, r1c2_2, r1c3_2 = x(0, 1), x(1, 1), x(1, 2), x(2, 2)
    proof = "\n".join(
        [
            f"{r1c2_1} 0",
            f"-{r1c2_2} 0",
            f"d -{r1c2_2} 0",  # a deletion: not a lemma
            f"-{r1c1_1} -{r1c2_2} 0",
            f"{r1c2_1} {r1c3_2} 0",
            f"-{r1c1_1} {r1c3_2} 0",
            "0",
        ]
    )
    made = Certificate("no solution", "", proof + "\n", encoding="minimal")
    assert explain_proof(model, made) == [
        "1. r1c2 is 1",
        "2. r1c2 is not 2",
        "3. not (r1c1=1 and r1c2=2)",
        "4. r1c2=1 or r1c3=2",
        "5. if r1c1=1 then r1c3=2",
        "6. a contradiction: the clauses held refute the claim",
    ]
    with pytest.raises(ValueError, match="variable 65 is not in the CNF"):
        explain_proof(model, Certificate("no solution", "", "65 0\n", encoding="minimal"))


def test_an_auxiliary_variable_is_named_as_one():
    killer = Puzzle(geometry(4), (0,) * 16, cages=(Cage((0, 1), 3),))
    model = build_model(killer)
    aux = encode(model, "minimal").variables  # numbered after the 64 x's: a selector
    assert aux > x(15, 4)
    made = Certificate("no solution", "", f"-{aux} {x(0, 1)} 0\n-{aux} 0\n", encoding="minimal")
    assert explain_proof(model, made) == [
        f"1. if auxiliary variable {aux} then r1c1=1",
        f"2. not auxiliary variable {aux}",
    ]


def test_the_unit_propagation_that_ends_a_proof_names_its_lemmas_and_the_solution():
    puzzle = parse_puzzle(UNIQUE)
    found = solve(puzzle, "native", limit=2)
    assert found.exact and found.count == 1 and is_solution(puzzle, found.solutions[0])
    model = build_model(puzzle)
    # CaDiCaL writes the cells it decides as unit lemmas: the propagation rests on them
    made = second_opinion(model, found.solutions, "minimal", "cadical153").checked()
    lemmas, steps = explain_proof(model, made), explain_refutation(model, made)
    assert made.accepted and lemmas
    last = steps[-1].split(". ", 1)[1]
    assert last.startswith("a contradiction: the clause blocking claimed solution 1 has no")
    solution, named = found.solutions[0], 0
    for step in steps[:-1]:
        said, why = re.fullmatch(
            r"\d+\. (r\dc\d is (?:not )?\d)(?: \((.*)\)|, by .*)", step
        ).groups()
        row, col, value = map(int, re.findall(r"\d", said))
        assert (solution[(row - 1) * 4 + col - 1] == value) == ("not" not in said)
        if why and why.startswith("lemma "):  # the lemma named says what it forces
            assert lemmas[int(why.split()[1]) - 1].endswith(f". {said}")
            named += 1
    assert named


# -- the static page: explain --certify ------------------------------------------------


def test_explain_certify_prints_the_proof_and_embeds_it_in_the_page(tmp_path, capsys):
    assert main(["explain", UNIQUE, "--certify"]) == 0
    out = capsys.readouterr().out
    assert "proof: the puzzle has exactly 1 solution\naccepted by sudokulab's checker" in out
    assert "then unit propagation:\n  1. " in out
    page = tmp_path / "proof.html"
    assert main(["explain", UNSOLVABLE, "--certify", "--html", str(page)]) == 1
    data = json.loads(re.search(r"var DATA=(\{.*?\});var ROOT", page.read_text()).group(1))
    proof = data["proof"]
    assert proof["claim"] == "the puzzle has no solution" and proof["outcome"] == "accepted"
    last = proof["propagation"][-1]  # no value is left for r1c1, or no place for a value
    assert last.endswith("is empty") or "has no literal left true" in last
    capsys.readouterr()
    assert main(["explain", UNIQUE, "--certify", "--logic"]) == 2
    assert "--certify: with the engine's story only" in capsys.readouterr().err


def test_texts_over_the_bound_are_left_out_with_the_command_that_writes_them():
    from sudokulab.serve.bounds import Bounds
    from sudokulab.serve.work import certify

    made, proof = certify(parse_puzzle(UNIQUE), Bounds(max_certificate=100))
    assert made["accepted"] is True and made["cnf"] is None and made["proof"] is None
    assert "over the server's bound of 100: sudokulab solve PUZZLE --certify DIR" in made["note"]
    assert proof["outcome"] == "accepted"
