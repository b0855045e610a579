"""Puzzle documents: the schema, the checks for meaning, JSON Lines sets, and the CLI."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from sudokulab.catalog import load
from sudokulab.cli import main
from sudokulab.generate import jigsaw_geometry, remove_clues, solved_grid
from sudokulab.logic.ladder import BY_NAME
from sudokulab.models import ParseError, Puzzle, geometry, is_solution, read_file, read_text
from sudokulab.models.documents import DocumentError, dumps, schema, to_document
from sudokulab.models.puzzle import Cage
from sudokulab.models.variants import variant_geometry

GOOD = '{"givens": "1..............."}'


#: Naked singles alone settle the puzzles made here (quick for every backend).
NAKED_SINGLES = (BY_NAME["naked single"],)


def _made(geom, seed):
    rng = random.Random(seed)
    solution = solved_grid(geom, rng)
    return remove_clues(geom, solution, rng, NAKED_SINGLES), solution


def test_the_schema_is_a_valid_json_schema():
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(schema())
    assert schema()["required"] == ["givens"]


@pytest.mark.parametrize(
    "geom",
    [
        variant_geometry(9, x=True),
        variant_geometry(9, hyper=True),
        jigsaw_geometry(9, random.Random(2)),
        variant_geometry(9, units=[[0, 10, 20, 30, 40, 50, 60, 70, 80]]),
        variant_geometry(6, box=(3, 2)),
    ],
    ids=["x", "hyper", "jigsaw", "units", "box3x2"],
)
def test_a_document_reads_back_as_the_same_puzzle(geom):
    puzzle, solution = _made(geom, 1)
    entry = read_text(dumps(puzzle, solution, "p"), source="t.jsonl")[0]
    assert entry.puzzle == puzzle and entry.solution == solution
    assert entry.puzzle.geometry.units == geom.units


def test_a_killer_document_reads_back_with_its_cages():
    entry = load("gen-killer").entries[0]
    doc = to_document(entry.puzzle, entry.solution)
    assert {"cells", "sum"} == set(doc["cages"][0])
    again = read_text(json.dumps(doc))[0]
    assert again.puzzle.cages == entry.puzzle.cages
    assert is_solution(again.puzzle, again.solution)


def test_grids_as_rows_and_cells_as_indices():
    doc = {
        "size": 4,
        "givens": ["1 0 0 0", [0, 0, 0, 0], "....", "...."],
        "cages": [{"cells": [0, "r1c2"], "sum": 3}],
    }
    puzzle = read_text(json.dumps(doc))[0].puzzle
    assert puzzle.givens[0] == 1 and puzzle.cages == (Cage((0, 1), 3),)


#: (document, what the error must say): every check of the schema and of the meaning.
BAD = [
    ('{"givens": "1...", "x": true', "not JSON"),
    ('{"givens": 5}', "givens: 5 is not valid"),
    ('{"givens": "1...............", "colour": 1}', "document: Additional properties"),
    ('{"givens": "1..............."  , "cages": [{"cells": ["r1c1"], "sum": "1"}]}',
     "cages[1].sum: '1' is not of type 'integer'"),
    ('{"givens": "1.............."}', "givens: 15 cells is not a whole grid"),
    ('{"givens": "1..x............"}', "givens (cell 4): 'x' is not a value or a blank"),
    ('{"size": 4, "box": [3, 3], "givens": "................"}', "box: box 3x3 does not hold 4"),
    ('{"givens": "1...............", "hyper": true}', "hyper: hyper (windoku) needs a 9x9 grid"),
    ('{"givens": "1..............1", "x": true}', "givens: diagonal 1: r1c1 and r4c4 are both 1"),
    ('{"givens": "................", "regions": ["AABB", "AABB", "CCDD", "CDDD"]}',
     "regions: region 'C' has 3 cells (from r3c1), every region needs 4"),
    ('{"givens": "................", "regions": ["AABB", "ACBB", "CADD", "CCDD"]}',
     "regions: region 'A' (from r1c1) is not contiguous"),
    ('{"givens": "................", "units": [["r1c1", "r2c2", "r3c3"]]}',
     "units[1]: a unit needs 4 different cells, got 3"),
    ('{"givens": "................", "cages": [{"cells": ["r5c1"], "sum": 1}]}',
     "cages[1].cells[1]: r5c1 is outside the 4x4 grid"),
    ('{"givens": "................", "cages": [{"cells": [16], "sum": 1}]}',
     "cages[1].cells[1]: cell 16 is outside the 4x4 grid"),
    ('{"givens": "................", "cages": [{"cells": ["r1c1", "r1c2"], "sum": 3},'
     ' {"cells": ["r1c2", "r1c3"], "sum": 5}]}', "cages[2]: r1c2 is also in cages[1]"),
    ('{"givens": "................", "cages": [{"cells": ["r1c1", "r1c1"], "sum": 3}]}',
     "cages[1]: r1c1 is twice in it"),
    ('{"givens": "................", "cages": [{"cells": ["r1c1", "r1c2"], "sum": 8}]}',
     "cages[1].sum: 2 distinct values from 1..4 add up to 3..7, never 8"),
    ('{"givens": "1.......................", "size": 4}', "givens: 24 cells is not a whole grid"),
    ('{"givens": "1.....1.........", "cages": [{"cells": ["r1c1", "r2c3"], "sum": 3}]}',
     "givens: cages[1]: r1c1 and r2c3 are both 1"),
    ('{"givens": "3...............", "cages": [{"cells": ["r1c1", "r1c2"], "sum": 6}]}',
     "givens: r1c1 break cages[1] (sum 6)"),
    ('{"givens": "1...............", "x": true, "solution": "1234341221434321"}',
     "solution: does not solve the puzzle (diagonal 1 repeats a value)"),
]  # fmt: skip


@pytest.mark.parametrize(("doc", "says"), BAD, ids=[s[:40] for _, s in BAD])
def test_every_error_names_the_file_line_and_field(doc, says):
    text = GOOD + "\n" + doc + "\n"
    with pytest.raises(DocumentError) as caught:
        read_text(text, source="set.jsonl")
    assert str(caught.value).startswith("set.jsonl: line 2")
    assert says in str(caught.value)


def test_json_files_hold_one_document_or_an_array(tmp_path):
    one, many, lines = tmp_path / "one.json", tmp_path / "many.json", tmp_path / "s.jsonl"
    one.write_text(json.dumps(json.loads(GOOD), indent=2))
    many.write_text(json.dumps([json.loads(GOOD)] * 3))
    lines.write_text(GOOD + "\n\n" + GOOD + "\n")
    assert len(read_file(one)) == 1 and len(read_file(many)) == 3
    assert [e.line for e in read_file(lines)] == [1, 3]
    bad = tmp_path / "bad.json"
    bad.write_text('[{"givens": "1..............."}, {"givens": 1}]')
    with pytest.raises(ParseError, match=r"bad.json document 2: line 1: givens"):
        read_file(bad)


def test_given_an_error_list_each_bad_document_is_named_and_the_others_read(tmp_path):
    bad = '{"givens": 1}'  # JSON, but not a puzzle document
    text = f"{GOOD}\n{bad}\n\n{GOOD}\n"
    errors: list[ParseError] = []
    entries = read_text(text, source="set.jsonl", errors=errors)
    assert [e.line for e in entries] == [1, 4]
    assert [(e.source, e.line) for e in errors] == [("set.jsonl", 2)]
    with pytest.raises(DocumentError, match="set.jsonl: line 2"):
        read_text(text, source="set.jsonl")
    lines = tmp_path / "set.jsonl"
    lines.write_text(text)
    errors = []
    assert [e.line for e in read_file(lines, errors=errors)] == [1, 4] and len(errors) == 1
    many = tmp_path / "many.json"
    many.write_text(f"[{GOOD}, {bad}, {GOOD}]")
    errors = []
    assert len(read_file(many, errors=errors)) == 2
    assert [e.source for e in errors] == [f"{many} document 2"]


DEEP = "[" * 5000 + "]" * 5000


def test_arrays_nested_too_deeply_are_a_document_error_not_a_recursion_error(tmp_path):
    for text in (DEEP, '{"givens": ' + DEEP + "}", f"{GOOD}\n{DEEP}\n"):
        with pytest.raises(DocumentError, match="nested too deeply"):
            read_text(text, source="deep")
    path = tmp_path / "deep.json"
    path.write_text(DEEP)
    with pytest.raises(DocumentError) as caught:
        read_file(path)
    assert str(caught.value) == f"{path}: line 1: not a puzzle document: arrays or objects " + (
        "nested too deeply"
    )


def test_a_deep_value_within_what_json_reads_is_refused_in_one_short_line():
    """Python's JSON reader takes some 990 levels; the checks after it recurse too."""
    for depth in (100, 900, 985):
        doc = '{"givens": ' + "[" * depth + "]" * depth + "}"
        with pytest.raises(DocumentError) as caught:
            read_text(doc, source="deep")
        message = str(caught.value)
        assert len(message) < 200, message[:300]
        assert message.startswith("deep: line 1: ")


def test_shipped_sets_are_documents_with_solutions():
    for name in ("gen-classic-easy", "gen-jigsaw", "gen-killer"):
        loaded = load(name)
        assert all(is_solution(e.puzzle, e.solution) for e in loaded.entries), name


def _cli(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "sudokulab", *args], capture_output=True, text=True, input=stdin
    )


def test_the_cli_takes_documents_wherever_it_takes_a_puzzle(tmp_path):
    entry = load("gen-killer").entries[0]
    path = tmp_path / "k.jsonl"
    path.write_text(dumps(entry.puzzle, entry.solution) + "\n")
    solved = _cli("solve", str(path), "--backend", "cpsat", "--unique")
    assert solved.returncode == 0, solved.stderr
    assert solved.stdout.split() == ["".join(map(str, entry.solution)), "unique"]
    native = _cli("solve", str(path), "--unique")  # the default native prunes cages
    assert native.returncode == 0 and native.stdout == solved.stdout
    checked = _cli("check", str(path), "--backends", "cpsat,constraint")
    assert checked.returncode == 0, checked.stdout
    text = dumps(entry.puzzle)
    assert _cli("solve", text, "--backend", "cpsat").stdout.strip() == solved.stdout.split()[0]


def test_a_bad_document_is_exit_2_naming_file_line_and_field(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(GOOD + "\n" + BAD[-5][0] + "\n")
    proc = _cli("solve", str(path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"{path}: line 2: cages[1].sum:" in proc.stderr


def test_variant_options_add_rules_to_plain_grids(tmp_path):
    x = load("gen-x").entries[0]
    line = "".join(str(v) if v else "." for v in x.puzzle.givens)
    plain = _cli("solve", line, "--count")
    assert int(plain.stdout.strip().rstrip("+")) > 1  # classic rules alone: not unique
    proc = _cli("solve", line, "--variant", "x", "--unique")
    assert proc.returncode == 0 and proc.stdout.split()[1] == "unique"
    assert tuple(map(int, proc.stdout.split()[0])) == x.solution
    jig = load("gen-jigsaw").entries[0]
    regions = tmp_path / "regions.txt"
    regions.write_text("\n".join(to_document(jig.puzzle)["regions"]) + "\n")
    line = "".join(str(v) if v else "." for v in jig.puzzle.givens)
    proc = _cli("solve", line, "--regions", str(regions), "--unique")
    assert proc.returncode == 0 and tuple(map(int, proc.stdout.split()[0])) == jig.solution
    bad = _cli("solve", line, "--variant", "killer")
    assert bad.returncode == 2 and "needs a puzzle document" in bad.stderr
    small = _cli("solve", "1...............", "--variant", "hyper")
    assert small.returncode == 2 and "9x9" in small.stderr
    regions.write_text("AAB\n")
    bad_regions = _cli("solve", line, "--regions", str(regions))
    assert bad_regions.returncode == 2 and "regions" in bad_regions.stderr


def test_main_reports_document_errors_without_a_traceback(capsys):
    assert main(["solve", '{"givens": "1...............", "hyper": true}']) == 2
    assert "hyper (windoku) needs a 9x9 grid" in capsys.readouterr().err


def test_a_classic_puzzle_document_equals_the_plain_puzzle():
    puzzle = Puzzle(geometry(4), (1,) + (0,) * 15)
    assert read_text(GOOD)[0].puzzle == puzzle
