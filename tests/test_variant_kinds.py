"""The variant rules: each kind on small hand-made puzzles against brute force, the
verifier, documents, --variant, the f-puzzles import and the backends' refusals."""

from __future__ import annotations

import json
from functools import cache
from itertools import permutations, product

import numpy as np
import pytest

import sudokulab
from sudokulab.backends import get_backend
from sudokulab.backends.base import Unsupported, admit
from sudokulab.cli import main
from sudokulab.models import Puzzle, build_model, geometry, is_solution, read_file, read_text, rules
from sudokulab.models.documents import dumps, read_documents
from sudokulab.models.fpuzzles import encode
from sudokulab.models.grids import Grids
from sudokulab.models.variants import board_rules, with_variant

G4 = geometry(4)


@cache
def all_4x4() -> tuple[tuple[int, ...], ...]:
    """Every solved 4x4 grid (288), by brute force: bands of two rows that keep their
    columns and boxes distinct, paired when the columns stay distinct."""
    rows = list(permutations(range(1, 5)))
    bands = [
        a + b
        for a, b in product(rows, repeat=2)
        if len({*a[:2], *b[:2]}) == 4 and all(x != y for x, y in zip(a, b, strict=True))
    ]
    grids = []
    for top, bottom in product(bands, repeat=2):
        grid = top + bottom
        if all(len({grid[c], grid[c + 4], grid[c + 8], grid[c + 12]}) == 4 for c in range(4)):
            grids.append(grid)
    assert all(len({grid[i] for i in unit.cells}) == 4 for grid in grids for unit in G4.units)
    return tuple(grids)


def brute(puzzle: Puzzle) -> set[tuple[int, ...]]:
    """The solutions of a 4x4 puzzle, by checking every solved grid against it."""
    return {g for g in all_4x4() if is_solution(puzzle, g)}


def row(r: int) -> tuple[int, ...]:
    return tuple(r * 4 + c for c in range(4))


def col(c: int) -> tuple[int, ...]:
    return tuple(r * 4 + c for r in range(4))


#: One hand-made 4x4 puzzle per kind: its rules and givens (0 blank).
CASES = {
    "less": ((rules.Less(0, 1, "thermometer 1"), rules.Less(1, 2, "thermometer 1")), {}),
    "lessequal": ((rules.LessEqual(0, 5, "slow"), rules.LessEqual(5, 10, "slow")), {}),
    "difference": (
        (rules.Difference(0, 1, 1, "white"), rules.Difference(4, 8, 2, "two apart")),
        {},
    ),
    "notdifference": (tuple(rules.NotDifference(a, a + 1, 1, "nc") for a in (0, 4, 8)), {}),
    "mindifference": (
        (rules.MinDifference(0, 1, 3, "whispers"), rules.MinDifference(1, 5, 2, "w")),
        {},
    ),
    "ratio": ((rules.Ratio(0, 1, 2, "black"), rules.Ratio(6, 7, 2, "black")), {}),
    "notratio": (tuple(rules.NotRatio(a, a + 4, 2, "nr") for a in (0, 1, 2, 3)), {}),
    "pairsum": ((rules.PairSum(0, 4, 5, "V"), rules.PairSum(1, 6, 7, "xv")), {}),
    "notequal": (board_rules(G4, "anti-knight"), {}),
    "sumequals": (
        (rules.SumEquals((0,), (1, 4), "arrow 1"), rules.SumEquals((15,), (0,), "eq")),
        {},
    ),
    "consecutive": ((rules.Consecutive((0, 5, 10), "renban 1"),), {3: 4}),
    "parity": ((rules.Parity(0, "odd"), rules.Parity(5, "even"), rules.Parity(10, "odd")), {}),
    "sandwich": ((rules.Sandwich(row(0), 5, "row 1"), rules.Sandwich(col(0), 0, "column 1")), {}),
    "littlekiller": (
        (rules.LittleKiller((1, 6, 11), 6, "lk"), rules.LittleKiller((4, 9, 14), 9, "lk2")),
        {},
    ),
    "entropic": ((rules.Entropic((0, 1, 2, 6), 4, "entropic 1"),), {}),
}


def case(kind: str) -> Puzzle:
    rules, given = CASES[kind]
    givens = tuple(given.get(i, 0) for i in range(16))
    return Puzzle(G4, givens, (), None, tuple(rules))


def test_every_kind_has_a_case():
    assert set(CASES) == set(rules.KINDS)


@pytest.mark.parametrize("kind", sorted(CASES))
def test_each_kind_narrows_the_grids_and_the_verifier_names_what_breaks_it(kind):
    puzzle = case(kind)
    plain = Puzzle(G4, puzzle.givens)
    kept, every = brute(puzzle), brute(plain)
    assert kept and kept < every  # the rule is used: some grids go, some stay
    wrong = sorted(every - kept)[0]
    assert not is_solution(puzzle, wrong)
    assert rules.broken(puzzle.rules, wrong).kind == kind
    block = Grids.of([puzzle, puzzle])
    right = sorted(kept)[0]
    assert block.verify(np.array([right, wrong], dtype=np.uint8)).tolist() == [True, False]


@pytest.mark.parametrize("backend", ["cpsat", "smt", "constraint"])
@pytest.mark.parametrize("kind", sorted(CASES))
def test_each_accepting_backend_finds_exactly_the_brute_force_solutions(kind, backend):
    puzzle = case(kind)
    result = get_backend(backend).solve(build_model(puzzle), limit=None, timeout=60)
    assert result.exact
    assert set(result.solutions) == brute(puzzle)
    assert len(result.solutions) == result.count


def test_a_region_sum_line_that_comes_back_into_a_box_starts_a_new_segment():
    """f-puzzles' rule text: "if the line re-enters a region, then it starts a new sum"."""
    from sudokulab.models.rule_fields import segments

    # r1c1 r1c2 (box 1), r1c3 (box 2), r2c2 (box 1 again): three segments, not two
    assert segments((0, 1, 2, 5), G4) == [(0, 1), (2,), (5,)]
    doc = {"size": 4, "givens": "." * 16, "region_sum_lines": [["r1c1", "r1c2", "r1c3", "r2c2"]]}
    (entry,) = read_documents(json.dumps(doc))
    sums = {(r.targets, r.terms) for r in entry.puzzle.rules}
    assert sums == {((0, 1), (2,)), ((2,), (5,))}
    # 1 2 | 3 . / . 3: the segments 1+2, 3, 3 are equal; box 1 as a whole (1+2+3) is not 3
    assert is_solution(entry.puzzle, (1, 2, 3, 4, 4, 3, 2, 1, 2, 1, 4, 3, 3, 4, 1, 2))


def test_a_two_digit_arrow_circle_reads_as_a_number():
    arrow = rules.SumEquals((0, 1), (2, 3, 4), "arrow", digits=True)
    assert arrow.holds((1, 2, 3, 4, 5)) and not arrow.holds((2, 1, 3, 4, 5))
    assert not rules.SumEquals((0, 1), (2, 3, 4), "sum").holds((1, 2, 3, 4, 5))  # 3 != 12


def test_a_sandwich_needs_both_crusts_and_counts_either_order():
    line = (0, 1, 2, 3)
    assert rules.Sandwich(line, 5, "s").holds((4, 2, 3, 1)) and rules.Sandwich(line, 5, "s").holds(
        (1, 2, 3, 4)
    )
    assert rules.Sandwich(line, 0, "s").holds((2, 1, 4, 3))
    assert not rules.Sandwich(line, 5, "s").holds((2, 3, 1, 2))


MIRACLE_GIVENS = {(5, 3): 1, (6, 7): 2}


def miracle(rules=("anti-knight", "anti-king", "nonconsecutive")) -> Puzzle:
    givens = [0] * 81
    for (r, c), v in MIRACLE_GIVENS.items():
        givens[(r - 1) * 9 + c - 1] = v
    return with_variant(Puzzle(geometry(9), tuple(givens)), rules)


def test_the_miracle_sudoku_is_unique_on_cpsat_and_z3_and_many_without_its_rules():
    puzzle = miracle()
    first = sudokulab.solve(puzzle, backend="cpsat", limit=2)
    assert first.status == "solved" and first.exact and first.count == 1
    assert is_solution(puzzle, first.solutions[0])
    # its published solution: each row the one before shifted by three places
    assert first.solutions[0][:9] == (4, 8, 3, 7, 2, 6, 1, 5, 9)
    again = sudokulab.solve(puzzle, backend="smt", limit=2)
    assert again.exact and again.solutions == first.solutions
    without = sudokulab.solve(miracle(()), backend="cpsat", limit=2)
    assert without.status == "multiple"
    knights = sudokulab.solve(miracle(("anti-knight",)), backend="cpsat", limit=2)
    assert knights.status == "multiple"  # every one of the three rules is needed


@pytest.mark.parametrize("backend", ["dlx"])
def test_backends_without_the_kinds_refuse_them_by_name(backend):
    model = build_model(miracle())
    with pytest.raises(Unsupported, match="does not support notdifference or notequal"):
        admit(get_backend(backend), model)
    result = sudokulab.solve(miracle(), backend=backend)
    assert result.status == "error" and "notdifference or notequal" in result.message


def test_board_rules_skip_pairs_a_unit_already_separates():
    knights = board_rules(geometry(9), "anti-knight")
    peers = geometry(9).peers
    assert all(r.b not in peers[r.a] for r in knights)
    assert all(isinstance(r, rules.NotEqual) for r in knights)
    # r1c1's knight moves r2c3 (same box) and r3c2 (same box) are left out
    assert not {(0, 11), (0, 19)} & {(r.a, r.b) for r in knights}
    assert len(board_rules(geometry(9), "nonconsecutive")) == 2 * 9 * 8


def test_variant_option_adds_board_rules_once(capsys):
    line = str(miracle(()))
    code = main(["solve", "--variant", "anti-knight,anti-king,nonconsecutive",
                 "--backend", "cpsat", "--unique", line])  # fmt: skip
    out, _ = capsys.readouterr()
    assert code == 0 and out.startswith("483726159")
    twice = with_variant(miracle(), ["anti-king"])
    assert twice.rules == miracle().rules
    code = main(["solve", "--variant", "anti-bishop", line])
    assert code == 2 and "anti-bishop" in capsys.readouterr().err


# --- documents -----------------------------------------------------------------------------

THERMO_DOC = {
    "size": 4,
    "givens": "................",
    "thermometers": [["r1c1", "r1c2", "r1c3"], ["r3c1", "r3c2", "r3c3", "r3c4"]],
}


def test_document_fields_become_rules_and_round_trip():
    doc = {
        "size": 4,
        "givens": "................",
        "thermometers": [["r1c1", "r1c2"]],
        "slow_thermometers": [["r4c4", "r3c4"]],
        "arrows": [{"circle": ["r2c2"], "shaft": ["r2c3", "r3c3"]}],
        "kropki": [{"cells": ["r4c1", "r4c2"], "dot": "black"}, {"cells": [0, 4], "dot": "white"}],
        "xv": [{"cells": ["r3c1", "r3c2"], "sum": 5}],
        "whispers": [["r1c3", "r1c4"]],
        "renban": [["r2c1", "r3c2"]],
        "odd": ["r4c4"],
        "even": [15 - 4],
        "sandwiches": [{"row": 2, "sum": 0}],
        "little_killers": [{"cells": ["r1c2", "r2c3", "r3c4"], "sum": 8}],
        "region_sum_lines": [["r1c2", "r1c3"]],
        "entropic_lines": [["r4c1", "r4c2", "r4c3"]],
        "anti_knight": True,
    }
    entry = read_documents(json.dumps(doc))[0]
    kinds = {rule.kind for rule in entry.puzzle.rules}
    assert kinds == set(rules.KINDS) - {"notdifference", "notratio"}
    again = read_documents(dumps(entry.puzzle))[0]
    assert again.puzzle == entry.puzzle
    negative = read_documents(json.dumps({**doc, "kropki_negative": True}))[0]
    assert {"notdifference", "notratio"} <= {r.kind for r in negative.puzzle.rules}


def test_thermometers_alone_make_an_empty_grid_unique():
    puzzle = read_documents(json.dumps(THERMO_DOC))[0].puzzle
    assert len(brute(Puzzle(G4, puzzle.givens))) == 288
    (solution,) = brute(puzzle)
    for backend in ("cpsat", "smt"):
        result = sudokulab.solve(puzzle, backend=backend, limit=2)
        assert result.exact and result.solutions == (solution,)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"thermometers": [["r1c1", "r5c1"]]}, "thermometers[1][2]: r5c1 is outside the 4x4 grid"),
        (
            {"givens": "21.............."},
            "givens: r1c1, r1c2 break thermometers[1] (thermometer 1)",
        ),
        ({"kropki": [{"cells": ["r1c1"], "dot": "white"}]}, "kropki[1].cells: a pair needs 2"),
        ({"sandwiches": [{"row": 1, "sum": 9}]}, "sandwiches[1].sum: a sandwich adds up to 0..5"),
        ({"arrows": [{"circle": ["r1c1"], "shaft": ["r1c1"]}]}, "arrows[1]: the circle and"),
        ({"kropki": [{"cells": ["r1c1", "r1c2"], "dot": "grey"}]}, "kropki[1].dot: 'grey' is not"),
        ({"rules": [{"kind": "bigger", "a": 0}]}, "rules[1].kind: 'bigger' is none of"),
        ({"rules": [{"kind": "less", "a": 0}]}, "rules[1]: a less rule needs 'b'"),
        ({"solution": "1234341221434321"}, "solution: does not solve the puzzle (thermometer 2"),
    ],
)
def test_document_errors_name_the_field(change, message):
    text = json.dumps({**THERMO_DOC, **change})
    with pytest.raises(ValueError) as err:
        read_documents(text, "doc.json")
    assert str(err.value).startswith("doc.json: line 1: ")
    assert message in str(err.value)


def test_a_block_of_variant_documents_keeps_its_rules_on_the_batch_path(capsys, tmp_path):
    line = dumps(miracle())
    path = tmp_path / "miracles.jsonl"
    path.write_text((line + "\n") * 20)  # more than the few puzzles solved one at a time
    code = main(["solve", "--backend", "cpsat", str(path)])
    out = capsys.readouterr().out.split()
    assert code == 0 and len(out) == 20 and set(out) == {out[0]} and out[0].startswith("4837")
    # the native engine's block search propagates them: without them its first grid of
    # two givens would be another
    code = main(["solve", "--backend", "native", str(path)])
    assert code == 0 and capsys.readouterr().out.split() == out
    code = main(["solve", "--backend", "dlx", str(path)])
    err = capsys.readouterr().err.splitlines()
    assert code == 1 and len(err) == 20
    assert all("dlx does not support notdifference or notequal" in line for line in err)


# --- f-puzzles -----------------------------------------------------------------------------


def fpuzzles_doc(**extra) -> dict:
    """An f-puzzles JSON object of a 4x4 puzzle with the thermometers of THERMO_DOC."""
    grid = [[{} for _ in range(4)] for _ in range(4)]
    grid[3][3] = {"value": 2, "given": True}
    doc = {
        "size": 4,
        "title": "thermo test",
        "grid": grid,
        "thermometer": [
            {"lines": [["R1C1", "R1C2", "R1C3"]]},
            {"lines": [["R3C1", "R3C2", "R3C3", "R3C4"]]},
        ],  # fmt: skip
    }
    return doc | extra


def test_an_fpuzzles_link_file_and_text_import_and_solve(tmp_path):
    doc = fpuzzles_doc()
    expected = read_documents(json.dumps({**THERMO_DOC, "givens": "." * 15 + "2"}))[0].puzzle
    link = "https://www.f-puzzles.com/?load=" + encode(doc)
    for text in (link, encode(doc), "https://sudokupad.app/fpuz" + encode(doc)):
        (entry,) = read_text(text)
        assert entry.puzzle.givens == expected.givens
        assert set(entry.puzzle.rules) == set(expected.rules)
        assert brute(entry.puzzle) == brute(expected)
    raw = tmp_path / "thermo.json"
    raw.write_text(json.dumps(doc))
    (entry,) = read_file(raw)
    result = sudokulab.solve(entry.puzzle, backend="cpsat", limit=None)
    assert result.exact and result.solutions == ((2, 3, 4, 1, 4, 1, 2, 3, 1, 2, 3, 4, 3, 4, 1, 2),)


def test_fpuzzles_constraints_map_to_the_kinds():
    grid = [[{} for _ in range(9)] for _ in range(9)]
    grid[4][2] = {"value": 1, "given": True}
    grid[5][6] = {"value": 2, "given": True}
    doc = {"size": 9, "grid": grid, "antiknight": True, "antiking": True, "nonconsecutive": True}
    (entry,) = read_text(encode(doc))
    assert entry.puzzle.rules == miracle().rules
    more = {
        "arrow": [{"cells": ["R1C1"], "lines": [["R1C1", "R1C2", "R1C3"]]}],
        "difference": [{"cells": ["R2C1", "R2C2"]}],
        "ratio": [{"cells": ["R3C1", "R3C2"], "value": "2"}],
        "xv": [{"cells": ["R4C1", "R4C2"], "value": "X"}],
        "whispers": [{"lines": [["R5C5", "R5C6"]], "value": 5}],
        "renban": [{"lines": [["R9C1", "R9C2", "R9C3"]]}],
        "regionsumline": [{"lines": [["R7C3", "R7C4"]]}],
        "odd": [{"cell": "R8C8"}],
        "even": [{"cell": "R8C9"}],
        "sandwichsum": [{"cell": "R0C5", "value": "10"}, {"cell": "R2C0", "value": "0"}],
        "littlekillersum": [{"cell": "R0C0", "direction": "DR", "value": "45"}],
        "killercage": [{"cells": ["R9C8", "R9C9"], "value": "17"}],
        "diagonal-": True,
        "negative": ["ratio"],
    }
    (entry,) = read_text(encode(fpuzzles_doc() | {"size": 9, "grid": grid} | more))
    puzzle = entry.puzzle
    kinds = {r.kind for r in puzzle.rules}
    assert kinds >= {"less", "sumequals", "difference", "ratio", "notratio", "pairsum"}
    assert kinds >= {"mindifference", "consecutive", "parity", "sandwich", "littlekiller"}
    killer = next(r for r in puzzle.rules if r.kind == "littlekiller")
    assert killer.line == tuple(i * 10 for i in range(9))  # r1c1 down to r9c9
    column = next(r for r in puzzle.rules if r.name == "column 5 sandwich")
    assert column.line == tuple(r * 9 + 4 for r in range(9))
    assert puzzle.cages[0].total == 17 and "diagonal 1" in {u.name for u in puzzle.geometry.units}


def test_fpuzzles_refuses_what_it_does_not_model_by_name(capsys, tmp_path):
    doc = fpuzzles_doc(betweenline=[{"lines": [["R1C1", "R1C2", "R1C3"]]}])
    with pytest.raises(ValueError, match='uses "between line", which sudokulab does not model'):
        read_text(encode(doc))
    code = main(["solve", "https://www.f-puzzles.com/?load=" + encode(doc)])
    err = capsys.readouterr().err
    assert code == 2 and 'the puzzle uses "between line"' in err and "Traceback" not in err
    with pytest.raises(ValueError, match="does not decompress"):
        read_text("N4Ig!!!not-a-puzzle")
    with pytest.raises(ValueError, match="not an f-puzzles puzzle: a link without load="):
        read_text("https://www.f-puzzles.com/?id=4IgzglgXgpi")
    path = tmp_path / "links.txt"
    path.write_text("# two links\n" + encode(fpuzzles_doc()) + "\n" + encode(doc) + "\n")
    errors: list = []
    entries = read_file(path, errors=errors)
    assert len(entries) == 1 and entries[0].line == 2
    assert errors[0].line == 3 and "between line" in errors[0].message


def test_explain_tells_rules_and_the_logic_solver_refuses_them(capsys):
    """The engine's story takes the rules (a thermometer's steps named); the logic
    solver, which has no technique for them, refuses them rather than leave them out."""
    text = json.dumps(THERMO_DOC)
    assert main(["explain", "--unique", text]) == 0
    out = capsys.readouterr().out
    assert "thermometer 1 (r1c1, r1c2): 4 leaves r1c1" in out  # (a bulb below two cells)
    assert "rule prunings" in out
    assert main(["explain", "--logic", text]) == 2
    assert "does not handle variant rules" in capsys.readouterr().err
    assert main(["rate", text]) == 2
    assert "does not handle variant rules" in capsys.readouterr().err


def random_rule(rng) -> object:
    """A rule of a random kind over random 4x4 cells."""
    a, b, c = rng.sample(range(16), 3)
    kind = rng.choice(sorted(rules.KINDS))
    if kind in ("less", "lessequal", "notequal"):
        return rules.KINDS[kind](a, b)
    if kind in ("difference", "notdifference", "mindifference"):
        return rules.KINDS[kind](a, b, rng.randint(1, 3))
    if kind in ("ratio", "notratio"):
        return rules.KINDS[kind](a, b, 2)
    if kind == "pairsum":
        return rules.PairSum(a, b, rng.randint(3, 7))
    if kind == "sumequals":
        return rules.SumEquals((a,), (b, c))
    if kind == "consecutive":
        return rules.Consecutive((a, b, c))
    if kind == "parity":
        return rules.Parity(a, rng.choice(("odd", "even")))
    if kind == "sandwich":
        return rules.Sandwich(rng.choice((row, col))(rng.randrange(4)), rng.randint(0, 5))
    return rules.LittleKiller((a, b, c), rng.randint(4, 10))


@pytest.mark.parametrize("seed", range(12))
def test_random_rule_sets_agree_with_brute_force_on_cpsat_and_z3(seed):
    import random

    rng = random.Random(seed)
    puzzle = Puzzle(G4, (0,) * 16, (), None, tuple(random_rule(rng) for _ in range(3)))
    expected = brute(puzzle)
    for backend in ("cpsat", "smt"):
        result = get_backend(backend).solve(build_model(puzzle), limit=None, timeout=60)
        assert result.exact and set(result.solutions) == expected, backend


def test_fpuzzles_regions_make_a_jigsaw():
    from sudokulab.models.variants import variant_geometry

    labels = ["AAAB", "ACBB", "CCDB", "CDDD"]
    grid = [[{"region": "ABCD".index(ch)} for ch in line] for line in labels]
    (entry,) = read_text(encode({"size": 4, "grid": grid}))
    expected = variant_geometry(4, regions=[list(line) for line in labels])
    assert {u.cells for u in entry.puzzle.geometry.units} == {u.cells for u in expected.units}
    boxes = [[{"region": (r // 2) * 2 + c // 2} for c in range(4)] for r in range(4)]
    (plain,) = read_text(encode({"size": 4, "grid": boxes}))
    assert plain.puzzle.geometry == geometry(4)
