"""SMT-LIB 2 from the SMT backend's assertions (z3's own printer), and an SMT solver's
``sat`` with its model, or ``unsat``, read back."""

from __future__ import annotations

import re

from ..backends import get_backend
from ..models import Model
from .common import SOLVED, UNKNOWN, UNSOLVABLE, Answer, decode, header_lines, unreadable

#: The assertions' one encoding (the SMT backend's: an Int per cell, ``distinct``, sums).
ENCODINGS = ("int",)

NUMBERING = (
    "one Int rRcC per cell (its value); distinct per unit and cage, a cage's sum, each "
    "given an equality; logic QF_LIA"
)


def write_smt2(model: Model, encoding: str) -> str:
    """The SMT backend's assertions of ``model`` as an SMT-LIB 2 script: the logic and
    model production set, z3's declarations and assertions, ``(check-sat)``, ``(get-model)``."""
    solver, _ = get_backend("smt").build(model, "default")
    body = solver.to_smt2()
    head = "".join(f"; {line}\n" for line in header_lines(model, "smt2", encoding, NUMBERING))
    return (
        head
        + "(set-option :produce-models true)\n(set-logic QF_LIA)\n"
        + body.rstrip()
        + "\n(get-model)\n"
    )


_DEFINE = re.compile(r"\(\s*define-fun\s+(\S+)\s*\(\s*\)\s*Int\s+(\(\s*-\s*\d+\s*\)|-?\d+)\s*\)")
_CELL = re.compile(r"r(\d+)c(\d+)$")


def read_smt2(model: Model, text: str, encoding: str, source: str) -> Answer:
    """An SMT solver's output: ``sat`` then its model (``(model (define-fun r1c1 () Int 5)
    ...)`` or without the word ``model``), ``unsat``, or ``unknown``."""
    words = text.split()
    first = next((w for w in words if not w.startswith(";")), None)
    if first == "unsat":
        return Answer(UNSOLVABLE)
    if first in ("unknown", "timeout"):  # z3 -T: prints timeout
        return Answer(UNKNOWN, said=first)
    if first != "sat":
        line = next((i for i, t in enumerate(text.splitlines(), 1) if t.strip()), None)
        raise unreadable(f"expected sat, unsat or unknown, found {first!r}", source, line)
    size = model.size
    pairs = []
    for match in _DEFINE.finditer(text):
        name, value = match.group(1).strip("|"), match.group(2)
        cell = _CELL.match(name)
        if cell is None:
            continue  # an auxiliary the solver made
        r, c = int(cell.group(1)), int(cell.group(2))
        line = text.count("\n", 0, match.start()) + 1
        if not (1 <= r <= size and 1 <= c <= size):
            raise unreadable(f"{name} is no cell of a {size}x{size} grid", source, line)
        number = int(re.sub(r"[()\s]", "", value))
        pairs.append(((r - 1) * size + c - 1, number))
    if not pairs:
        raise unreadable("sat, but no (define-fun rRcC () Int V) in the model", source)
    return Answer(SOLVED, decode(model, pairs))
