"""The SAT and 0-1 program translations of the variant rules: each kind, on each SAT
encoding, on MIP and on HiGHS, counts what CP-SAT counts; hand-made puzzles unique with
the rule have several solutions without it (the translation uses the rule)."""

from __future__ import annotations

import json

import pytest
from test_variant_kinds import all_4x4, case, miracle

import sudokulab
from sudokulab.backends import get_backend, sat
from sudokulab.encodings.cnf import RULES, encode
from sudokulab.interchange import Refused, WrongSolution, verify
from sudokulab.models import Puzzle, build_model, geometry, is_solution
from sudokulab.models.rules import KINDS, LittleKiller, Sandwich, SumEquals

G4 = geometry(4)

#: Per kind, givens that make the kind's hand-made 4x4 rules (test_variant_kinds.CASES)
#: unique; without the rules each has several solutions.
UNIQUE = {
    "consecutive": "1..4...........3",
    "difference": ".....3....4....1",
    "less": ".....4....4....1",
    "lessequal": ".2....1.....4..1",
    "littlekiller": "1..............4",
    "mindifference": ".....2....4....2",
    "notdifference": "1....4....4....1",
    "notequal": "...4......1....3",
    "notratio": "1....3....4....2",
    "pairsum": "3..............1",
    "parity": "1..4.4.........3",
    "ratio": "1....4....4....1",
    "sandwich": ".....3.........1",
    "sumequals": ".1........4.....",
    "entropic": ".....1..2.......",
}

#: The backends under test: each SAT encoding, the 0-1 program on MIP (SCIP, its default
#: solver; the program is the same on the others, HiGHS solves the Miracle Sudoku below)
#: and on highs (the same program, loaded through highspy).
SPECS = [("sat", {"encoding": e}) for e in sat.ENCODINGS] + [
    ("mip", {"solver": "scip"}),
    ("highs", {}),
]
IDS = ["-".join([name, *map(str, options.values())]) for name, options in SPECS]


def with_givens(puzzle: Puzzle, line: str, rules: bool = True) -> Puzzle:
    givens = tuple(0 if ch == "." else int(ch) for ch in line)
    return Puzzle(puzzle.geometry, givens, (), None, puzzle.rules if rules else ())


def count(puzzle: Puzzle, name: str, options: dict, limit: int | None = None):
    result = get_backend(name).solve(build_model(puzzle), limit=limit, timeout=120, **options)
    assert result.status != "error", result.message
    return result


def test_every_kind_has_a_unique_puzzle():
    assert set(UNIQUE) == set(KINDS)


#: Each kind on one SAT encoding and on one solver of the 0-1 program, in turn: a rule's
#: clauses are the same in every encoding and its rows the same program on either
#: solver, so each encoding and solver still meets several kinds (75 runs -> 30).
TURNS = [(kind, *SPECS[i % 3]) for i, kind in enumerate(sorted(UNIQUE))] + [
    (kind, *SPECS[3 + i % 2]) for i, kind in enumerate(sorted(UNIQUE))
]


@pytest.mark.parametrize(
    ("kind", "name", "options"),
    TURNS,
    ids=[f"{kind}-{'-'.join([name, *map(str, o.values())])}" for kind, name, o in TURNS],
)
def test_each_kind_counts_as_cpsat_counts(kind, name, options):
    # the open grid under the rules: the same set of solutions
    open_grid = case(kind)
    expected = count(open_grid, "cpsat", {})
    got = count(open_grid, name, options)
    assert got.exact and expected.exact
    assert set(got.solutions) == set(expected.solutions) and got.count == expected.count
    # unique with the rule, several without it: the rule is what decides
    unique = with_givens(open_grid, UNIQUE[kind])
    reference = count(unique, "cpsat", {}, limit=2)
    answer = count(unique, name, options, limit=2)
    assert reference.count == 1 and reference.exact
    assert answer.exact and answer.solutions == reference.solutions
    assert is_solution(unique, answer.solutions[0])
    plain = count(with_givens(open_grid, UNIQUE[kind], rules=False), name, options, limit=2)
    assert plain.status == "multiple"


@pytest.mark.parametrize(
    ("name", "options"), [*SPECS, ("mip", {"solver": "highs"})], ids=[*IDS, "mip-highs"]
)
def test_the_miracle_sudoku_is_unique(name, options):
    reference = sudokulab.solve(miracle(), backend="cpsat", limit=2)
    answer = count(miracle(), name, options, limit=2)
    assert answer.status == "solved" and answer.exact
    assert answer.solutions == reference.solutions
    assert count(miracle(()), name, options, limit=2).status == "multiple"


#: A solved classic grid, for 9x9 rules whose sums reach the large weights.
SOLVED = "483726159726159483159483726837261594261594837594837261372615948615948372948372615"


def nine_by_nine(rules: tuple, blanks: range) -> Puzzle:
    givens = [int(ch) for ch in SOLVED]
    for c in blanks:
        givens[c] = 0
    return Puzzle(geometry(9), tuple(givens), (), None, rules)


@pytest.mark.parametrize(("name", "options"), SPECS, ids=IDS)
def test_sums_on_a_9x9_agree_with_cpsat(name, options):
    grid = [int(ch) for ch in SOLVED]
    diagonal = (0, 10, 20, 30, 40)
    # rules the solved grid keeps: row 1's sandwich (the 5 between its 1 and 9), an
    # arrow whose circle r3c1 r3c2 reads 15 (the sum of r1c1..r1c3), a little killer
    rules = (
        Sandwich(tuple(range(9)), 5, "row 1 sandwich"),
        SumEquals((18, 19), (0, 1, 2), "arrow", digits=True),
        LittleKiller(diagonal, sum(grid[c] for c in diagonal), "little killer"),
    )
    puzzle = nine_by_nine(rules, range(36))  # the first four rows open
    assert all(rule.holds(grid) for rule in rules)
    reference = count(puzzle, "cpsat", {})
    answer = count(puzzle, name, options)
    assert reference.exact and answer.exact
    assert set(answer.solutions) == set(reference.solutions)
    # the sums decide: without them the same givens leave more solutions
    limit = reference.count + 1
    plain = count(nine_by_nine((), range(36)), name, options, limit=limit)
    assert plain.count == limit


#: Issue 39's long arrow: a two-digit circle (r1c1 r1c2) and a 12-cell shaft down column 1
#: and along row 9; the givens are one solution's cells, kept while CP-SAT found more than
#: one solution without them.
LONG_ARROW = {
    "givens": ".3......8...7.52....2.6.........4571..........1.95.3...8.3..6..15.......9........",
    "arrows": [
        {
            "circle": ["r1c1", "r1c2"],
            "shaft": [*(f"r{r}c1" for r in range(2, 10)), "r9c2", "r9c3", "r9c4", "r9c5"],
        }
    ],
}


@pytest.mark.parametrize("encoding", sat.ENCODINGS)
def test_a_long_arrow_takes_a_bounded_number_of_clauses(encoding):
    # pysat.pb's encoding of this one sum took 255,380 clauses in every encoding; the chain
    # of partial sums takes fewer than 12,000 (14 cells x 9 values x both ways x at most
    # the 89 sums of a layer bound it by 22,428)
    puzzle = sudokulab.parse_puzzle(json.dumps(LONG_ARROW))
    cnf = encode(build_model(puzzle), encoding)
    assert dict(cnf.groups)[RULES] < 12_000
    reference = count(puzzle, "cpsat", {}, limit=2)
    answer = count(puzzle, "sat", {"encoding": encoding}, limit=2)
    assert reference.count == 1 and answer.exact
    assert answer.solutions == reference.solutions and is_solution(puzzle, answer.solution)


def test_a_sum_too_long_for_its_partial_sums_is_refused_by_name():
    # 25x25, a three-digit circle over a 60-cell shaft: about 1,500 sums a layer
    doc = {
        "size": 25,
        "givens": "." * 625,
        "arrows": [{"circle": [0, 1, 2], "shaft": list(range(25, 85))}],
    }
    puzzle = sudokulab.parse_puzzle(json.dumps(doc))
    with pytest.raises(ValueError, match=r"^arrow 1 \(sumequals\): its partial sums would take"):
        encode(build_model(puzzle), "minimal")
    result = sudokulab.solve(puzzle, backend="sat", timeout=60)
    assert result.status == "error" and "arrow 1 (sumequals)" in result.message
    assert "more than 1,000,000" in result.message
    with pytest.raises(Refused, match=r"dimacs, encoding optimized: arrow 1 \(sumequals\)"):
        sudokulab.export(puzzle, "dimacs")


# --- the exported files carry the rules: solvers from other codebases solve them ---------


@pytest.mark.parametrize("encoding", sat.ENCODINGS)
def test_dimacs_of_a_variant_solved_by_picosat_is_its_unique_solution(encoding):
    from test_export import picosat

    text = sudokulab.export(miracle(), "dimacs", encoding)
    assert "auxiliary variables" not in text  # pairs need none: forbidden pairs and supports
    answer = sudokulab.import_solution(miracle(), picosat(text), "dimacs", encoding)
    reference = sudokulab.solve(miracle(), backend="cpsat", limit=2)
    assert answer.status == "solved" and answer.solution == reference.solutions[0]
    # the sums' auxiliary variables are written and numbered too
    sandwiched = case("sandwich")
    text = sudokulab.export(sandwiched, "dimacs", encoding)
    assert "auxiliary variables (cage selectors, the variant rules' own)" in text
    answer = sudokulab.import_solution(sandwiched, picosat(text), "dimacs", encoding)
    assert answer.status == "solved" and is_solution(sandwiched, answer.solution)


@pytest.mark.parametrize("suffix", ["mps", "lp"])
@pytest.mark.parametrize("kind", ["less", "sandwich", "consecutive", "sumequals"])
def test_mps_and_lp_of_a_variant_solved_by_highs_is_its_unique_solution(tmp_path, suffix, kind):
    from test_export import highs

    puzzle = with_givens(case(kind), UNIQUE[kind])
    text = sudokulab.export(puzzle, suffix)
    assert "rule1_" in text  # the rules' rows, named
    answer = sudokulab.import_solution(puzzle, highs(tmp_path, text, suffix, 0), suffix)
    reference = sudokulab.solve(puzzle, backend="cpsat", limit=2)
    assert answer.status == "solved" and answer.solution == reference.solutions[0]


def test_opb_of_a_variant_solved_is_its_unique_solution():
    from test_export import opb_solved

    puzzle = with_givens(case("consecutive"), UNIQUE["consecutive"])
    answer = sudokulab.import_solution(puzzle, opb_solved(sudokulab.export(puzzle, "opb")), "opb")
    assert answer.status == "solved" and is_solution(puzzle, answer.solution)


def test_formats_without_the_rules_refuse_them_by_name():
    with pytest.raises(Refused, match="smt2: no way to write notdifference, notequal"):
        sudokulab.export(miracle(), "smt2")


def test_an_imported_grid_breaking_a_rule_is_named():
    puzzle = case("less")
    wrong = next(g for g in all_4x4() if not is_solution(puzzle, g))
    with pytest.raises(WrongSolution, match=r"thermometer 1 \(less\) is broken at r1c"):
        verify(build_model(puzzle), wrong)


# --- the shipped generated variant sets --------------------------------------------------

VARIANT_SETS = ["gen-anti-knight", "gen-thermometer", "gen-kropki"]


@pytest.mark.parametrize("name", VARIANT_SETS)
def test_the_generated_variant_sets_are_unique_on_cpsat_sat_and_the_0_1_program(name):
    from sudokulab.catalog import load

    entries = load(name).entries
    assert len(entries) == 8
    for entry in entries:
        assert entry.puzzle.rules
        for backend in ("cpsat", "sat", "mip", "highs"):
            found = sudokulab.solve(entry.puzzle, backend=backend, limit=2)
            assert found.count == 1 and found.exact, (name, entry.line, backend)
            assert found.solutions[0] == entry.solution
