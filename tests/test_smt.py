"""The `smt` backend (z3): its logics, its counters, what it builds, and its threads."""

from __future__ import annotations

import importlib.metadata
import threading

import pytest

from sudokulab import Puzzle, build_model, is_solution, parse_puzzle, solve
from sudokulab.backends import get_backend, parse_spec, smt
from sudokulab.catalog import load
from sudokulab.cli import main

pytest.importorskip("z3")

SEED_PUZZLE = "....5.264..7..9..35..62....8......9.7..34..86.....2.3....9.....9.476........3...."
SEED_ANSWER = "389157264267489153541623978813576492792341586456892731635914827924768315178235649"


@pytest.mark.parametrize("logic", smt.LOGICS)
def test_every_logic_solves_and_proves_uniqueness(logic):
    result = solve(SEED_PUZZLE, "smt", limit=2, logic=logic)
    assert (result.status, result.count, result.exact) == ("solved", 1, True)
    assert "".join(map(str, result.solution)) == SEED_ANSWER
    small = solve("1..." + "." * 12, "smt", limit=None, logic=logic)  # 4x4, one given
    assert (small.count, small.exact) == (288 // 4, True)  # r1c1 = 1: a quarter of them


def test_stats_options_and_listing(capsys):
    result = solve(SEED_PUZZLE, "smt")
    stats = result.stats
    assert stats["variables"] == 81
    # the bounds, the 27 units, the 25 givens, and one blocking clause per solution found
    assert stats["assertions"] == 81 + 27 + 25 + result.count
    for key in ("conflicts", "decisions", "propagations"):
        assert isinstance(stats[key], int) and stats[key] >= 0
    with pytest.raises(ValueError, match="logic='QF_NRA' is not one of"):
        parse_spec("smt:logic=QF_NRA")
    backend = get_backend("smt")
    assert backend.available() and backend.stops_itself
    assert backend.version() == importlib.metadata.version("z3-solver")
    assert main(["backends"]) == 0
    assert "\nsmt          available  " in capsys.readouterr().out


def test_describe_counts_what_is_built():
    backend = get_backend("smt")
    empty = build_model(Puzzle.from_grid([0] * 81))
    assert backend.describe(empty) == (
        "smt: 81 Int (81 bounded 1..9), 27 Distinct, 0 given(s) as equalities; z3, logic QF_FD"
    )
    killer = build_model(load("gen-killer").entries[0].puzzle)
    cages = sum(1 for c in killer.constraints if c.kind == "sum")
    line = backend.describe(killer)
    assert f", {cages} Sum == total, " in line
    assert f"{len(killer.constraints)} Distinct" in line


def test_threads_each_get_their_own_context():
    # z3 contexts are not thread-safe: each thread builds its own, and answers agree.
    puzzles = [e.puzzle for e in load("gen-classic-hard").entries]
    answers: dict[int, list] = {}

    def work(k: int) -> None:
        answers[k] = [solve(p, "smt", limit=2) for p in puzzles]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for results in answers.values():
        for puzzle, result in zip(puzzles, results, strict=True):
            assert result.status == "solved" and is_solution(puzzle, result.solution)
            assert result.solution == solve(puzzle, "native").solution


def test_a_narrowed_domain_is_kept():
    # A variant cell that may hold only some values (a model, not a classic puzzle).
    model = build_model(parse_puzzle("." * 16))
    domains = list(model.domains)
    domains[0] = (2, 3)
    narrowed = type(model)(**{**model.__dict__, "domains": tuple(domains)})
    result = get_backend("smt").solve(narrowed, limit=None)
    assert result.count == 288 // 2 and all(s[0] in (2, 3) for s in result.solutions)
