"""The `sat` backend: its three CNF encodings, counting, the deadline, and inference alone."""

from __future__ import annotations

import doctest
import importlib.metadata
import random
from math import comb

import pytest
from helpers import (
    killer_cages,
    random_cages,
    random_solution,
    same_as_native,
    two_solution_grid,
)

from sudokulab import Puzzle, build_model, is_solution, parse_puzzle, read_file, solve
from sudokulab.backends import get_backend, parse_spec, sat
from sudokulab.catalog import load
from sudokulab.cli import main
from sudokulab.encodings.cnf import CELL_ALO, CELL_AMO, GIVENS, UNIT_ALO, UNIT_AMO, encode
from sudokulab.models import geometry
from sudokulab.models.puzzle import Cage

pytest.importorskip("pysat")

ENCODINGS = sat.ENCODINGS
SHIPPED = ("gen-4x4", "gen-classic-easy", "gen-classic-medium", "gen-classic-hard")
SHIPPED += ("gen-16x16", "gen-x", "gen-jigsaw", "gen-killer")
SEED_ANSWER = "389157264267489153541623978813576492792341586456892731635914827924768315178235649"


def _top95(data_dir):
    return read_file(data_dir / "norvig-pytudes" / "sudoku-top95.txt")


@pytest.fixture(params=ENCODINGS)
def encoding(request):
    return request.param


def test_every_encoding_solves_the_shipped_sets_as_the_native_engine_does(encoding):
    for name in SHIPPED:
        for entry in load(name).entries:
            result = same_as_native(entry.puzzle, f"sat:encoding={encoding}")
            assert result.status == "solved", (name, entry.line, result)
            assert entry.solution is None or result.solution == entry.solution


def test_every_encoding_solves_top95_verified_and_unique(encoding, data_dir):
    for entry in _top95(data_dir):
        result = solve(entry.puzzle, "sat", limit=2, encoding=encoding)
        assert (result.status, result.count, result.exact) == ("solved", 1, True), entry.line
        assert is_solution(entry.puzzle, result.solution)
        assert result.solution == solve(entry.puzzle, "native").solution


def test_unsolvable_two_solutions_and_clashing_givens(encoding):
    spec = f"sat:encoding={encoding}"
    stuck = Puzzle.from_grid(list(range(1, 9)) + [0] * 9 + [9] + [0] * 63)
    result = solve(stuck, spec, limit=2)
    assert (result.status, result.count, result.exact) == ("unsolvable", 0, True)

    answer = tuple(map(int, SEED_ANSWER))
    two = Puzzle.from_grid(two_solution_grid(answer))
    result = solve(two, spec, limit=5)
    assert (result.status, result.count, result.exact) == ("multiple", 2, True)
    assert len(set(result.solutions)) == 2 and all(is_solution(two, s) for s in result.solutions)

    clash = "55" + "." * 79
    assert solve(clash, spec).status == "invalid"
    # past the front door's check, the CNF itself has no model
    direct = get_backend("sat").solve(build_model(parse_puzzle(clash)), encoding=encoding)
    assert (direct.status, direct.exact) == ("unsolvable", True)

    full = solve(SEED_ANSWER, spec, limit=2)  # nothing to block: one solution, exact
    assert (full.status, full.count, full.exact) == ("solved", 1, True)


def test_counting_an_empty_4x4_finds_all_288_grids(encoding):
    result = solve("." * 16, "sat", limit=None, encoding=encoding)
    assert (result.status, result.count, result.exact) == ("multiple", 288, True)
    empty = Puzzle.from_grid([0] * 16)
    assert len(set(result.solutions)) == 288
    assert all(is_solution(empty, s) for s in result.solutions)
    limited = solve("." * 81, "sat", limit=3, encoding=encoding)
    assert (limited.status, limited.count, limited.exact) == ("multiple", 3, False)


@pytest.mark.parametrize("size", [4, 9, 16])
def test_the_clause_counts_are_the_papers_formulas(size):
    """Lynce and Ouaknine's counts, for an empty n x n grid (n^2 cells, 3n units of n
    cells: rows, columns, boxes):

    - cell definedness, each cell at least one value: n^2 clauses of n literals;
    - cell uniqueness, each cell at most one value: n^2 * C(n, 2) binary clauses;
    - unit definedness, each value at least once per unit: 3n * n clauses;
    - unit uniqueness, each value at most once per unit: 3n * n * C(n, 2) binary clauses
      (for a box, the pairs it shares with a row or column are counted again, as the
      paper does).

    minimal = n^2 + 3n^2 C(n, 2): 8829 for n = 9 (81 + 8748), 304 for n = 4;
    extended = minimal + n^2 C(n, 2) + 3n^2: 11988 for n = 9 (8829 + 2916 + 243), 448 for
    n = 4. Both have n^3 variables, and one unit clause more per given. The optimized
    encoding of an empty grid is the extended one (no givens, nothing to drop).
    """
    n = size
    minimal = n * n + 3 * n * n * comb(n, 2)
    extended = minimal + n * n * comb(n, 2) + 3 * n * n
    if n == 9:
        assert (minimal, extended) == (8829, 11988)
    model = build_model(Puzzle.from_grid([0] * n**2))
    counts = {e: encode(model, e) for e in ENCODINGS}
    assert (counts["minimal"].variables, len(counts["minimal"].clauses)) == (n**3, minimal)
    assert (counts["extended"].variables, len(counts["extended"].clauses)) == (n**3, extended)
    assert (counts["optimized"].variables, len(counts["optimized"].clauses)) == (n**3, extended)
    assert dict(counts["extended"].groups) == {
        CELL_ALO: n * n,
        CELL_AMO: n * n * comb(n, 2),
        UNIT_AMO: 3 * n * n * comb(n, 2),
        UNIT_ALO: 3 * n * n,
        GIVENS: 0,
    }
    given = build_model(Puzzle.from_grid([1] + [0] * (n**2 - 1)))
    assert len(encode(given, "minimal").clauses) == minimal + 1
    assert len(encode(given, "extended").clauses) == extended + 1


def test_the_optimized_encoding_has_a_variable_per_open_candidate(data_dir):
    """Kwon and Jain: a variable per (open cell, value no given peer holds); a clause per
    open cell (at least one value), per pair of its candidates, per unit and value not
    given there (at least once), per unit, value and pair of its cells both open to it."""
    for entry in [*_top95(data_dir)[:10], *load("gen-classic-easy").entries[:5]]:
        puzzle = entry.puzzle
        g = puzzle.geometry
        givens = puzzle.givens
        candidates = [
            set() if givens[c] else set(g.values) - {givens[p] for p in g.peers[c]}
            for c in range(g.cell_count)
        ]
        cnf = encode(build_model(puzzle), "optimized")
        assert cnf.variables == sum(map(len, candidates))
        groups = dict(cnf.groups)
        assert groups[CELL_ALO] == sum(1 for v in givens if not v)
        assert groups[CELL_AMO] == sum(comb(len(c), 2) for c in candidates)
        placed = [{givens[c] for c in u.cells} for u in g.units]
        assert groups[UNIT_ALO] == sum(g.size - len(p - {0}) for p in placed)
        assert groups[UNIT_AMO] == sum(
            comb(sum(1 for c in u.cells if v in candidates[c]), 2)
            for u in g.units
            for v in g.values
        )
        assert len(cnf.clauses) == sum(groups.values())


def test_killer_cages_count_like_the_native_engine(encoding):
    # Whole counts on empty 4x4 grids (the value-set selectors must neither lose nor
    # invent a solution: 1 to 32 here), also with one total moved to another cage (often
    # none), then a limit on 6x6 and 9x9 grids with few givens.
    rng = random.Random(15)
    spec = f"sat:encoding={encoding}"
    for size, blank, limit in [(4, 1.0, None)] * 12 + [(6, 0.7, 20)] * 6 + [(9, 0.8, 3)] * 3:
        solution = random_solution(size, rng)
        cages = killer_cages(solution, random_cages(solution, rng, largest=rng.randint(2, 5)))
        givens = tuple(0 if rng.random() < blank else v for v in solution)
        puzzle = Puzzle(geometry(size), givens, tuple(Cage(c, t) for c, t in cages))
        assert same_as_native(puzzle, spec, limit).count >= 1
        if size == 4:
            (a, s), (b, t), *rest = cages
            moved = (Cage(a, s + 1), Cage(b, t - 1), *(Cage(c, u) for c, u in rest))
            same_as_native(Puzzle(puzzle.geometry, givens, moved), spec, limit)


def test_a_cage_no_values_can_fill_is_unsolvable(encoding):
    cages = (Cage((0, 1), 100),)  # no two values of 1..4 add up to 100
    puzzle = Puzzle(geometry(4), (0,) * 16, cages)
    result = get_backend("sat").solve(build_model(puzzle), limit=2, encoding=encoding)
    assert (result.status, result.exact) == ("unsolvable", True)


def test_the_cnf_build_looks_at_the_deadline_between_constraints(monkeypatch):
    # A sandwich puzzle's CNF takes a while to write (a guarded chain of partial sums per
    # pair of crust positions): the build looks at the deadline between constraints, and
    # one it stops is not kept.
    import time

    from test_public_variants import PUZZLES

    from sudokulab.backends.base import LATE, Request, check_deadline
    from sudokulab.encodings import cnf
    from sudokulab.models.documents import puzzle_of

    puzzle, solution = puzzle_of(PUZZLES["ctc-sandwich"])
    model = build_model(puzzle)
    looks = []

    def looking(deadline):
        looks.append(deadline)
        check_deadline(deadline)

    monkeypatch.setattr(sat, "check_deadline", looking)
    monkeypatch.setattr(cnf, "_TEMPLATES", {})  # nothing built yet
    backend = get_backend("sat")
    past = Request(1, 1.0, {}, time.perf_counter() - 10.0)
    result = backend.run(model, past)
    assert (result.status, result.message, result.solutions) == ("timeout", LATE, ())
    assert looks == [past.deadline] and not cnf._TEMPLATES
    looks.clear()
    result = backend.run(model, Request(2, 600.0, {}, time.perf_counter()))
    assert (result.status, result.solutions) == ("solved", (solution,))
    assert len(looks) == len(model.constraints)


def test_a_hard_count_stops_at_the_deadline():
    # A verdict, not a time: building the CNF is inside the deadline, and counting
    # every 25x25 grid cannot end, so the count is a timeout wherever it stopped.
    result = solve("." * 625, "sat", limit=None, timeout=1.0)
    assert result.status == "timeout" and not result.exact
    assert result.time >= 1.0 and result.build_time > 0
    empty = Puzzle.from_grid([0] * 625)
    assert all(is_solution(empty, s) for s in result.solutions[:3])


@pytest.mark.parametrize("solver", sat.SOLVERS)
def test_every_offered_solver_solves_and_stops_at_the_deadline(solver):
    result = solve(SEED_PUZZLE, "sat", limit=2, solver=solver)
    assert result.status == "solved" and "".join(map(str, result.solution)) == SEED_ANSWER
    assert result.stats["solver"] == solver
    counted = solve("." * 81, "sat", limit=None, timeout=0.3, solver=solver)
    assert counted.status == "timeout" and not counted.exact
    assert len(set(counted.solutions)) == counted.count  # each blocked once found
    assert all(is_solution(Puzzle.from_grid([0] * 81), s) for s in counted.solutions)


SEED_PUZZLE = "....5.264..7..9..35..62....8......9.7..34..86.....2.3....9.....9.476........3...."


def test_stats_options_and_listing(capsys):
    result = solve(SEED_PUZZLE, "sat-extended")
    stats = result.stats
    assert (stats["encoding"], stats["solver"]) == ("extended", sat.SOLVERS[0])
    assert stats["variables"] == 729 and stats["clauses"] == 11988 + 25  # 25 givens
    for key in ("conflicts", "decisions", "propagations", "restarts"):
        assert isinstance(stats[key], int) and stats[key] >= 0
    with pytest.raises(ValueError, match="encoding='compact' is not one of"):
        parse_spec("sat:encoding=compact")
    backend = get_backend("sat")
    assert backend.available() and backend.stops_itself
    assert backend.version() == importlib.metadata.version("python-sat")
    assert main(["backends"]) == 0
    out = capsys.readouterr().out
    assert "\nsat          available  " in out and "sat-optimized" in out


def test_describe_counts_what_is_built():
    backend = get_backend("sat")
    empty = build_model(Puzzle.from_grid([0] * 81))
    assert backend.describe(empty) == (
        "sat: optimized encoding, 729 Boolean x(cell, value), 11988 clauses (81 cell at "
        "least one value, 2916 cell at most one value, 8748 value at most once per unit, "
        "243 value at least once per unit); solver minisat22"
    )
    killer = build_model(load("gen-killer").entries[0].puzzle)
    cnf = encode(killer, "optimized")
    line = backend.describe(killer)
    assert f", {len(cnf.clauses)} clauses (" in line and " cage selectors, " in line


def test_inference_alone_on_top95(data_dir):
    """Unit propagation and failed literals, as Lynce and Ouaknine ran them: what each
    decides is a subset of the solution; failed literals decide at least what unit
    propagation does, and the extended encoding at least what the minimal one does."""
    entries = _top95(data_dir)
    decided: dict[tuple[str, str], int] = {}
    solved: dict[tuple[str, str], int] = {}
    open_cells = sum(v == 0 for e in entries for v in e.puzzle.givens)
    for entry in entries:
        answer = solve(entry.puzzle, "native").solution
        model = build_model(entry.puzzle)
        found = {}
        for encoding in ENCODINGS:
            for method in sat.INFERENCES:
                inference = sat.infer(model, encoding, method)
                assert not inference.contradiction
                cells = {c for c, v in enumerate(inference.decided) if v}
                assert all(inference.decided[c] == answer[c] for c in cells)
                assert inference.solution in (None, answer)
                assert (inference.solution is not None) == (len(cells) == len(answer))
                found[encoding, method] = cells
                key = (encoding, method)
                decided[key] = decided.get(key, 0) + len(cells) - entry.puzzle.given_count
                solved[key] = solved.get(key, 0) + (inference.solution is not None)
        for encoding in ENCODINGS:
            assert found[encoding, "unit"] <= found[encoding, "failed-literal"]
        for method in sat.INFERENCES:
            assert found["minimal", method] <= found["extended", method]
            assert found["extended", method] == found["optimized", method]
    lines = [
        f"top95, {encoding} encoding, {method}: {solved[encoding, method]} of 95 solved,"
        f" {count} of {open_cells} open cells decided"
        for (encoding, method), count in decided.items()
    ]
    print(*lines, sep="\n")  # the numbers, shown with -s


def test_inference_meets_a_contradiction(encoding):
    # r1c9 can hold nothing: 1-8 in its row, 9 in its column
    stuck = Puzzle.from_grid(list(range(1, 9)) + [0] * 9 + [9] + [0] * 63)
    for method in sat.INFERENCES:
        inference = sat.infer(build_model(stuck), encoding, method)
        assert inference.contradiction and inference.solution is None
    with pytest.raises(ValueError, match="unknown method"):
        sat.infer(build_model(stuck), encoding, "guess")


def test_the_docstring_examples():
    result = doctest.testmod(sat, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_search_none_answers_with_inference_alone(data_dir):
    # The backend option and sat.infer agree; a decided puzzle is solved and exact (the
    # solution is forced), an undecided one a timeout saying how far inference got.
    seen = set()
    for entry in _top95(data_dir)[:20] + list(load("gen-classic-easy").entries):
        model = build_model(entry.puzzle)
        for search, method in (("none", "unit"), ("failed-literal", "failed-literal")):
            for encoding in ("minimal", "extended"):
                result = solve(entry.puzzle, "sat", limit=2, search=search, encoding=encoding)
                inference = sat.infer(model, encoding, method)
                decided = sum(
                    1
                    for d, v in zip(model.domains, inference.decided, strict=True)
                    if len(d) > 1 and v
                )
                assert result.stats["decided"] == decided
                if inference.solution is not None:
                    assert (result.status, result.count, result.exact) == ("solved", 1, True)
                    assert is_solution(entry.puzzle, result.solution)
                else:
                    assert result.status == "timeout" and result.count == 0
                    assert f"alone decided {decided} of " in result.message
                seen.add(result.status)
    assert seen == {"solved", "timeout"}
    stuck = Puzzle.from_grid(list(range(1, 9)) + [0] * 9 + [9] + [0] * 63)
    assert solve(stuck, "sat", search="none", encoding="extended").status == "unsolvable"
