"""The constraint-programming translators (cpsat, smt, cpmpy, constraint, xcsp3, and the
MiniZinc and XCSP3 writers) take every kind through its primitives and name none."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sudokulab.backends import get_backend
from sudokulab.encodings import DECOMPOSITIONS
from sudokulab.interchange import FORMATS
from sudokulab.models.rules import KINDS

REPO = Path(__file__).resolve().parent.parent
SOURCES = [
    "backends/cpsat.py",
    "backends/smt.py",
    "backends/cpmpy_backend.py",
    "backends/constraint.py",
    "backends/xcsp3_backend.py",
    "sudokulab/interchange/cp.py",
]


@pytest.mark.parametrize("path", SOURCES)
def test_a_translator_names_no_rule_kind(path):
    text = (REPO / path).read_text()
    assert "models.rules" not in text and ".kind" not in text
    for kind in [*KINDS, "alldifferent", "sum"]:
        assert not re.search(rf"[\"']{kind}[\"']", text), kind
    for rule in KINDS.values():
        assert not re.search(rf"\b{rule.__name__}\b", text), rule.__name__


@pytest.mark.parametrize("name", ["cpsat", "smt", "cpmpy", "constraint", "xcsp3"])
def test_each_cp_backend_takes_every_kind_a_model_can_hold(name):
    assert get_backend(name).kinds == set(DECOMPOSITIONS)


def test_minizinc_and_xcsp3_write_every_kind():
    assert FORMATS["mzn"].kinds == FORMATS["xcsp3"].kinds == set(DECOMPOSITIONS)


@pytest.mark.parametrize(
    "path", sorted(str(p.relative_to(REPO)) for p in (REPO / "backends").glob("*.py"))
)
def test_no_backend_module_names_a_rule_kind(path):
    """Issue 41's rule: a backend translates primitives; rule kinds live in models.rules
    and their decompositions in encodings."""
    text = (REPO / path).read_text()
    assert not re.search(r"from \.\.models\.rules|models\.rules import", text)
    for kind in KINDS:
        assert not re.search(rf"[\"']{kind}[\"']", text), kind
    for rule in KINDS.values():
        assert not re.search(rf"\b{rule.__name__}\b", text), rule.__name__
