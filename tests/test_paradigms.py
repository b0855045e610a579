"""The solving paradigms added beside CP-SAT and the native engine (SMT, integer
programming, exact cover), each against the native engine on the same puzzles: the
shipped sets classic and variant, unsolvable, two solutions, clashing givens, a whole
count, killer cages where the backend takes them, the deadline, a missing package.
(The contract suite and the cross-check run over them too, as over every backend.)"""

from __future__ import annotations

import random

import pytest
from helpers import (
    killer_cages,
    random_cages,
    random_solution,
    same_as_native,
    two_solution_grid,
)

from sudokulab import Puzzle, build_model, is_solution, parse_puzzle, solve
from sudokulab.backends import get_backend
from sudokulab.catalog import load
from sudokulab.models import geometry
from sudokulab.models.puzzle import Cage

#: The specs under test (a backend, or a backend with an option worth its own run).
PARADIGMS = ["mip", "smt", "dlx"]
SHIPPED = ("gen-4x4", "gen-classic-easy", "gen-classic-medium", "gen-classic-hard")
SHIPPED += ("gen-16x16", "gen-x", "gen-jigsaw", "gen-killer")
SEED_ANSWER = "389157264267489153541623978813576492792341586456892731635914827924768315178235649"


def backend_of(spec: str):
    return get_backend(spec.partition(":")[0])


@pytest.fixture(params=PARADIGMS)
def spec(request):
    backend = backend_of(request.param)
    if not backend.available():
        pytest.skip(f"{backend.name} is not installed (pip install {backend.requires})")
    return request.param


def takes(spec: str, puzzle: Puzzle) -> bool:
    return build_model(puzzle).kinds <= backend_of(spec).kinds


def test_the_shipped_sets_as_the_native_engine_solves_them(spec):
    for name in SHIPPED:
        for entry in load(name).entries[:3]:  # three a set: the sets' shapes, not their sizes
            if not takes(spec, entry.puzzle):
                continue
            result = same_as_native(entry.puzzle, spec)
            assert result.status == "solved", (name, entry.line, result)
            assert entry.solution is None or result.solution == entry.solution


def test_unsolvable_two_solutions_and_clashing_givens(spec):
    stuck = Puzzle.from_grid(list(range(1, 9)) + [0] * 9 + [9] + [0] * 63)
    result = solve(stuck, spec, limit=2)
    assert (result.status, result.count, result.exact) == ("unsolvable", 0, True)

    two = Puzzle.from_grid(two_solution_grid(tuple(map(int, SEED_ANSWER))))
    result = solve(two, spec, limit=5)
    assert (result.status, result.count, result.exact) == ("multiple", 2, True)
    assert len(set(result.solutions)) == 2 and all(is_solution(two, s) for s in result.solutions)

    clash = "55" + "." * 79
    assert solve(clash, spec).status == "invalid"
    # past the front door's check, the backend's own model has no solution
    name, _, option = spec.partition(":")
    options = dict([option.split("=")]) if option else {}
    direct = get_backend(name).solve(build_model(parse_puzzle(clash)), **options)
    assert (direct.status, direct.exact) == ("unsolvable", True)

    full = solve(SEED_ANSWER, spec, limit=2)  # every cell given: one solution, exact
    assert (full.status, full.count, full.exact) == ("solved", 1, True)


def test_counting_an_empty_4x4_finds_all_288_grids(spec):
    result = solve("." * 16, spec, limit=None)
    assert (result.status, result.count, result.exact) == ("multiple", 288, True)
    assert len(set(result.solutions)) == 288
    assert all(is_solution(Puzzle.from_grid([0] * 16), s) for s in result.solutions)
    limited = solve("." * 81, spec, limit=3)
    assert (limited.status, limited.count, limited.exact) == ("multiple", 3, False)


def test_killer_cages_count_like_the_native_engine(spec):
    if "sum" not in backend_of(spec).kinds:
        pytest.skip(f"{spec} does not take killer cages")
    rng = random.Random(15)
    for size, blank, limit in [(4, 1.0, None)] * 8 + [(6, 0.7, 20)] * 3:
        solution = random_solution(size, rng)
        cages = killer_cages(solution, random_cages(solution, rng, largest=rng.randint(2, 4)))
        givens = tuple(0 if rng.random() < blank else v for v in solution)
        puzzle = Puzzle(geometry(size), givens, tuple(Cage(c, t) for c, t in cages))
        assert same_as_native(puzzle, spec, limit).count >= 1


def test_a_hard_count_stops_at_the_deadline(spec):
    # A verdict (tests/test_deadlines.py holds every backend to it under load).
    result = solve("." * 256, spec, limit=None, timeout=1.0)
    assert result.status == "timeout" and not result.exact and result.time >= 1.0
    assert all(is_solution(Puzzle.from_grid([0] * 256), s) for s in result.solutions[:3])


def test_a_missing_package_is_an_error_naming_it(spec, monkeypatch):
    backend = backend_of(spec)
    if not backend.requires:
        pytest.skip(f"{spec} needs no package")
    monkeypatch.setattr(type(backend), "available", lambda self: False)
    result = solve(SEED_ANSWER, spec)
    assert result.status == "error" and f"pip install {backend.requires}" in result.message
