"""The model in the field's interchange formats, and outside solvers' answers read back.

One function writes, one reads, for each format; each writes the model a backend
solves (the SAT backend's CNF, the MIP backend's program, the SMT backend's assertions,
the CP model's primitives; the variant rules where the format writes a backend's model
that takes them: DIMACS, OPB, MPS, LP, MiniZinc and XCSP3), with a header naming the
puzzle, the encoding and the variable numbering, and each reader decodes the grid and verifies it
against the rules and the givens (:class:`WrongSolution` names the cell at fault).

>>> from sudokulab.models import build_model, parse_puzzle
>>> text = export_model(build_model(parse_puzzle("1" + "." * 15)), "dimacs", "minimal")
>>> [line for line in text.splitlines() if line.startswith("p ")]
['p cnf 64 305']
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..models import Model
from . import cp, dimacs, linear, smt
from .common import SOLVED, UNKNOWN, UNSOLVABLE, Answer, Refused, WrongSolution, verify


@dataclass(frozen=True)
class Format:
    """A file format: its encodings (default first), its writer and its answers' reader."""

    name: str
    encodings: tuple[str, ...]
    write: Callable[[Model, str], str]
    read: Callable[[Model, str, str, str], Answer]
    #: The constraint kinds it writes: a backend's translation where it writes that
    #: backend's model (the SAT backend's CNF, the MIP backend's program).
    kinds: frozenset[str] = frozenset({"alldifferent", "sum"})


_ANSI = re.compile(r"\x1b\[[0-9;]*m")

#: Every format, by the name ``--format`` takes.
FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("dimacs", dimacs.ENCODINGS, dimacs.write_dimacs, dimacs.read_dimacs, dimacs.KINDS),
        Format("opb", linear.ENCODINGS, linear.write_opb, linear.read_opb, linear.KINDS),
        Format("mps", linear.ENCODINGS, linear.write_mps, linear.read_mip, linear.KINDS),
        Format("lp", linear.ENCODINGS, linear.write_lp, linear.read_mip, linear.KINDS),
        Format("smt2", smt.ENCODINGS, smt.write_smt2, smt.read_smt2),
        Format("mzn", cp.ENCODINGS, cp.write_mzn, cp.read_mzn, cp.KINDS),
        Format("xcsp3", cp.ENCODINGS, cp.write_xcsp3, cp.read_xcsp3, cp.KINDS),
    )
}  # fmt: skip


def format_of(name: str, encoding: str | None) -> tuple[Format, str]:
    """The format and the encoding (its default when None); ValueError naming the choices."""
    if name not in FORMATS:
        raise ValueError(f"unknown format {name!r}: choose one of {', '.join(FORMATS)}")
    chosen = FORMATS[name]
    if encoding is None:
        return chosen, chosen.encodings[0]
    if encoding not in chosen.encodings:
        raise ValueError(
            f"format {name} has no encoding {encoding!r}: choose one of "
            f"{', '.join(chosen.encodings)}"
        )
    return chosen, encoding


def export_model(model: Model, format: str, encoding: str | None = None) -> str:
    """The model as a file of ``format`` (:data:`FORMATS`) under ``encoding``; Refused
    when the format or encoding cannot carry it."""
    chosen, encoding = format_of(format, encoding)
    unknown = model.kinds - chosen.kinds
    if unknown:
        raise Refused(f"{format}: no way to write {', '.join(sorted(unknown))} constraints")
    return chosen.write(model, encoding)


def read_answer(
    model: Model, text: str, format: str, encoding: str | None = None, source: str = "<solution>"
) -> Answer:
    """An outside solver's output for the file :func:`export_model` wrote, decoded and
    verified: ParseError (positioned in ``source``) when unreadable, WrongSolution when
    the grid breaks a rule or a given."""
    chosen, encoding = format_of(format, encoding)
    text = _ANSI.sub("", text)  # some solvers colour their output even into a file
    answer = chosen.read(model, text, encoding, source)
    if answer.grid is not None:
        verify(model, answer.grid)
    return answer


__all__ = [
    "FORMATS",
    "SOLVED",
    "UNKNOWN",
    "UNSOLVABLE",
    "Answer",
    "Format",
    "Refused",
    "WrongSolution",
    "export_model",
    "format_of",
    "read_answer",
    "verify",
]
