"""Garbage never makes a traceback (issue 42): whatever follows an f-puzzles or SudokuPad
prefix, whatever JSON a compressed link or a document holds, the readers refuse it with a
one-line ParseError naming the source and the line, and the command line exits 2.

Hypothesis fuzzes the readers with a fixed budget (derandomized: the same examples on
every run); the inputs that once failed are kept below as a corpus."""

from __future__ import annotations

import base64
import json

import lzstring
import pytest
from helpers import as_sudokupad, fgrid, zipped
from hypothesis import given, settings
from hypothesis import strategies as st

from sudokulab.cli import main
from sudokulab.models import ParseError, read_text
from sudokulab.models.fpuzzles import encode

PREFIXES = (
    "https://www.f-puzzles.com/?load=",
    "https://sudokupad.app/fpuz",
    "https://sudokupad.app/scl",
    "https://app.crackingthecryptic.com/ctc",
    "https://sudokupad.app/?puzzleid=scl",
    "fpuz",
    "scl",
    "ctc",
    "N4Ig",
)

FUZZ = settings(max_examples=200, derandomize=True, deadline=None)


def refused_or_read(text: str) -> None:
    """Read a text: either it is a puzzle, or a ParseError says where and why in one line
    (any other exception fails the test)."""
    try:
        read_text(text, source="fuzz")
    except ParseError as err:
        assert err.message and err.source.startswith("fuzz") and err.line == 1
        assert "\n" not in str(err) and len(str(err)) < 500, str(err)


def compressed(value) -> str:
    return lzstring.LZString().compressToBase64(json.dumps(value))


# --- what hypothesis draws -------------------------------------------------------------------

scalars = st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.text(max_size=12)
scalars |= st.sampled_from(["R1C1", "R0C3", "R10C2", "DR", "X", "V", "#000000", "9", "-5", ""])
json_values = st.recursive(
    scalars | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)

#: Small valid puzzles to mutate: f-puzzles JSON, and its SudokuPad drawing.
FDOC = {
    "size": 4,
    "grid": fgrid(4),
    "thermometer": [{"lines": [["R1C1", "R1C2", "R1C3"]]}],
    "arrow": [{"cells": ["R4C4"], "lines": [["R4C4", "R3C3", "R2C2"]]}],
    "difference": [{"cells": ["R2C1", "R3C1"]}],
    "ratio": [{"cells": ["R4C1", "R4C2"], "value": "2"}],
    "xv": [{"cells": ["R2C3", "R2C4"], "value": "V"}],
    "killercage": [{"cells": ["R3C2", "R3C3"], "value": "5"}],
    "littlekillersum": [{"cell": "R0C1", "direction": "DR", "value": "6"}],
    "sandwichsum": [{"cell": "R1C0", "value": "5"}],
    "whispers": [{"lines": [["R1C4", "R2C4"]]}],
    "odd": [{"cell": "R4C3"}],
    "negative": ["ratio"],
}
PAD = as_sudokupad({k: v for k, v in FDOC.items() if k not in ("sandwichsum", "whispers")})


def paths(value, here=()) -> list[tuple]:
    """Every place in a JSON value (keys and list positions), the value itself first."""
    found = [here]
    if isinstance(value, dict):
        for key, child in value.items():
            found += paths(child, (*here, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            found += paths(child, (*here, i))
    return found


def mutated(doc, path: tuple, value):
    """A copy of ``doc`` with the value at ``path`` replaced."""
    if not path:
        return value
    copy = json.loads(json.dumps(doc))
    parent = copy
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return copy


# --- the fuzzing -----------------------------------------------------------------------------


@FUZZ
@given(prefix=st.sampled_from(PREFIXES), data=st.binary(max_size=80), url=st.booleans())
def test_random_base64_after_a_prefix_is_refused_in_one_line(prefix, data, url):
    body = base64.urlsafe_b64encode(data) if url else base64.b64encode(data)
    refused_or_read(prefix + body.decode().rstrip("=" if url else ""))


@FUZZ
@given(value=json_values, prefix=st.sampled_from(["fpuz", "scl", "https://sudokupad.app/scl"]))
def test_compressed_random_json_is_refused_in_one_line(value, prefix):
    refused_or_read(prefix + compressed(value))
    refused_or_read("scl" + lzstring.LZString().compressToBase64(zipped({"cells": value})))


@FUZZ
@given(data=st.data())
def test_a_mutated_fpuzzles_puzzle_is_read_or_refused_in_one_line(data):
    path = data.draw(st.sampled_from(paths(FDOC)))
    doc = mutated(FDOC, path, data.draw(json_values))
    refused_or_read("fpuz" + compressed(doc))
    refused_or_read(json.dumps(doc))  # an f-puzzles .json file's text


@FUZZ
@given(data=st.data())
def test_a_mutated_sudokupad_puzzle_is_read_or_refused_in_one_line(data):
    path = data.draw(st.sampled_from(paths(PAD)))
    doc = mutated(PAD, path, data.draw(json_values))
    refused_or_read("scl" + compressed(doc))
    refused_or_read(json.dumps(doc))  # SudokuPad's plain JSON
    if isinstance(doc, dict):
        refused_or_read("scl" + lzstring.LZString().compressToBase64(zipped(doc)))


DOCUMENT = {
    "size": 4,
    "givens": "1...............",
    "cages": [{"cells": ["r2c1", "r2c2"], "sum": 5}, {"cells": ["r4c1", "r4c2"]}],
    "thermometers": [["r1c2", "r1c3", "r1c4"]],
    "little_killers": [{"cells": ["r3c1", "r4c2"], "sum": 5}],
    "rules": [{"kind": "littlekiller", "line": ["r1c1", "r2c2"], "total": 4}],
}


@FUZZ
@given(data=st.data())
def test_a_mutated_document_is_read_or_refused_in_one_line(data):
    path = data.draw(st.sampled_from(paths(DOCUMENT)))
    doc = mutated(DOCUMENT, path, data.draw(json_values))
    refused_or_read(json.dumps(doc))


# --- the inputs that once failed -------------------------------------------------------------


def nested(depth: int, key: str = "grid") -> str:
    return '{"size": 9, "%s": %s%s}' % (key, "[" * depth, "]" * depth)  # noqa: UP031


#: Inputs that once made a traceback, and what their refusal says now.
CORPUS = {
    # lzstring's UnboundLocalError and IndexError on a few characters of garbage
    "one character after fpuz": ("https://sudokupad.app/fpuz+", "does not decompress"),
    "garbage after load=": ("https://www.f-puzzles.com/?load=0", "does not decompress"),
    "garbage after scl": ("https://sudokupad.app/sclAb/", "does not decompress"),
    # RecursionError from json (3,000 lines of traceback)
    "deep JSON in an f-puzzles link": (
        "fpuz" + lzstring.LZString().compressToBase64(nested(100_000)),
        "nests too deeply",
    ),
    "deep JSON in a SudokuPad link": (
        "scl" + lzstring.LZString().compressToBase64(nested(100_000, "cells")),
        "nested more than 32 deep",
    ),
    "deep zipped JSON in a SudokuPad link": (
        "scl" + lzstring.LZString().compressToBase64("{ce:" + "[" * 100_000 + "]" * 100_000),
        "nested more than 32 deep",
    ),
    "deep f-puzzles JSON as a document": (nested(100_000), "nested too deeply"),
    "f-puzzles JSON 100 deep as a document": (nested(100), "nested too deeply"),
    # a killer cage with a repeated cell or none, a negative little killer (solve, export)
    "a cage with a cell twice": (
        encode({"size": 4, "grid": fgrid(4), "killercage": [{"cells": ["R1C1", "R1C1"]}]}),
        "killercage 1: r1c1 is twice in it",
    ),
    "a cage without cells": (
        encode({"size": 4, "grid": fgrid(4), "killercage": [{"cells": [], "value": "3"}]}),
        "killercage 1: a cage without cells",
    ),
    "overlapping cages": (
        encode(
            {
                "size": 4,
                "grid": fgrid(4),
                "killercage": [
                    {"cells": ["R1C1", "R1C2"], "value": "3"},
                    {"cells": ["R1C2", "R2C2"], "value": "5"},
                ],
            }
        ),
        "killercage 2: r1c2 is also in killercage 1",
    ),
    "a negative little killer": (
        encode(
            {
                "size": 4,
                "grid": fgrid(4),
                "littlekillersum": [{"cell": "R0C0", "direction": "DR", "value": "-5"}],
            }
        ),
        "littlekillersum 1: 4 values from 1..4 add up to 4..16, never -5",
    ),
    "a little killer no diagonal reaches": (
        encode(
            {
                "size": 4,
                "grid": fgrid(4),
                "littlekillersum": [{"cell": "R0C1", "direction": "DR", "value": "20"}],
            }
        ),
        "add up to 3..12, never 20",
    ),
    "a little killer record with a negative sum": (
        json.dumps(
            {
                "givens": "." * 16,
                "rules": [{"kind": "littlekiller", "line": ["r1c1", "r2c2"], "total": -5}],
            }
        ),
        "rules[1].total: 2 values from 1..4 add up to 2..8, never -5",
    ),
    "a renban record with a cell twice": (
        json.dumps(
            {"givens": "." * 16, "rules": [{"kind": "consecutive", "line": ["r1c1", "r1c1"]}]}
        ),
        "rules[1]: a cell appears twice",
    ),
    "a SudokuPad cage with a cell twice": (
        "scl" + compressed({**PAD, "cages": [{"cells": [[0, 0], [0, 0]], "value": 3}]}),
        "cages 1: r1c1 is twice in it",
    ),
    "a grid of numbers": (
        encode({"size": 4, "grid": [[1, 2, 3, 4]] * 4}),
        "grid R1C1: 1 is not a cell object",
    ),
    "a cage's cells as a number": (
        encode({"size": 4, "grid": fgrid(4), "killercage": [{"cells": 7, "value": "3"}]}),
        "killercage 1: 7 is not a list of cells",
    ),
    "a size that is a list": (encode({"size": [9], "grid": []}), "size: [9] is not a supported"),
}


@pytest.mark.parametrize("name", CORPUS)
def test_what_once_failed_is_refused_with_its_reason(name):
    text, reason = CORPUS[name]
    with pytest.raises(ParseError) as caught:
        read_text(text, source="corpus")
    assert reason in caught.value.message
    assert caught.value.source == "corpus" and caught.value.line == 1
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("name", ["garbage after load=", "a cage with a cell twice"])
@pytest.mark.parametrize(
    "command",
    [
        ["solve"],
        ["check", "--backends", "native"],
        ["explain"],
        ["export", "--format", "dimacs"],
        ["import-solution", "SOLUTION", "--format", "dimacs"],
    ],
    ids=["solve", "check", "explain", "export", "import-solution"],
)
def test_the_commands_refuse_garbage_in_one_line_with_exit_2(name, command, capsys, tmp_path):
    text, reason = CORPUS[name]
    answer = tmp_path / "answer.txt"
    answer.write_text("s UNSATISFIABLE\n")
    argv = [command[0], text, *(str(answer) if a == "SOLUTION" else a for a in command[1:])]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and reason in err and "Traceback" not in err
