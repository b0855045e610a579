"""The CP model in MiniZinc and XCSP3, written from each constraint's primitives
(:mod:`sudokulab.encodings`: every kind a model holds), and those solvers' answers read
back."""

from __future__ import annotations

import re
from xml.etree import ElementTree
from xml.sax.saxutils import escape

from ..backends.xcsp3_backend import write
from ..encodings import Distinct, Implies, Linear, Primitive, Table, accepted_kinds, decompose
from ..encodings.primitives import TYPES
from ..models import Model
from .common import (
    SOLVED,
    UNDECIDED,
    UNKNOWN,
    UNSOLVABLE,
    Answer,
    decode,
    header_lines,
    unreadable,
)

#: The CP model's one encoding: an integer variable per cell.
ENCODINGS = ("int",)

#: The kinds both writers take: every kind whose primitives they write (all four).
KINDS = accepted_kinds(TYPES)


def _numbering(first: int) -> str:
    return (
        f"x[k] is cell k (row-major, k from {first}: r1c1 is x[{first}], r1c2 x[{first + 1}]) "
        "and holds its value"
    )


def write_mzn(model: Model, encoding: str) -> str:
    """The model in MiniZinc: each constraint's primitives (:func:`mzn_constraints`) under
    its name, the givens and narrowed domains as constraints."""
    geom = model.geometry
    cells, n = len(model.domains), model.size
    lines = [f"% {line}" for line in header_lines(model, "mzn", encoding, _numbering(1))]
    lines += ['include "alldifferent.mzn";', 'include "table.mzn";', ""]
    lines += [f"array[1..{cells}] of var 1..{n}: x;", ""]
    for constraint in model.constraints:
        lines.append(f"% {constraint.name}")
        for primitive in decompose(constraint, n):
            lines += [f"constraint {c};" for c in mzn_constraints(primitive)]
    for cell, domain in enumerate(model.domains):
        if len(domain) == 1:
            lines.append(f"constraint x[{cell + 1}] = {domain[0]};  % {geom.cell_name(cell)}")
        elif len(domain) < n:
            values = ", ".join(map(str, domain))
            lines.append(f"constraint x[{cell + 1}] in {{{values}}};  % {geom.cell_name(cell)}")
    lines += ["", "solve satisfy;", 'output ["x = \\(x);\\n"];']
    return "\n".join(lines) + "\n"


def mzn_constraints(primitive: Primitive) -> list[str]:
    """One primitive as MiniZinc constraints (cells numbered from 1): ``alldifferent``
    (and a ``sum`` for a total), a linear row (a 0-1 literal as ``bool2int(x[k] in
    {...})``), ``table`` (a unary one as ``in``), a row under its condition as ``->``."""
    if isinstance(primitive, Distinct):
        xs = ", ".join(f"x[{c + 1}]" for c in primitive.cells)
        out = [f"alldifferent([{xs}])"]
        if primitive.total is not None:
            out.append(f"sum([{xs}]) = {primitive.total}")
        return out
    if isinstance(primitive, Linear):
        return [_mzn_row(primitive)]
    if isinstance(primitive, Table):
        if len(primitive.cells) == 1:
            values = ", ".join(str(v) for (v,) in sorted(primitive.allowed))
            return [f"x[{primitive.cells[0] + 1}] in {{{values}}}"]
        xs = ", ".join(f"x[{c + 1}]" for c in primitive.cells)
        rows = " | ".join(", ".join(map(str, t)) for t in sorted(primitive.allowed))
        return [f"table([{xs}], [| {rows} |])"]
    if isinstance(primitive, Implies):
        when = " /\\ ".join(_mzn_literal(c, values) for c, values in primitive.when)
        return [f"({when}) -> ({_mzn_row(primitive.then)})"]
    raise ValueError(f"mzn: no translation of {type(primitive).__name__}")


def _mzn_row(row: Linear) -> str:
    """``low <= sum(terms) <= high`` in MiniZinc."""
    parts = []
    for t in row.terms:
        term = (
            f"x[{t.cell + 1}]"
            if t.values is None
            else f"bool2int({_mzn_literal(t.cell, t.values)})"
        )
        parts.append(term if t.coef == 1 else f"{t.coef} * {term}")
    total = " + ".join(parts)
    if row.low is not None and row.low == row.high:
        return f"{total} = {row.low}"
    bounds = ([f"{total} >= {row.low}"] if row.low is not None else []) + (
        [f"{total} <= {row.high}"] if row.high is not None else []
    )
    return " /\\ ".join(bounds)


def _mzn_literal(cell: int, values: frozenset[int]) -> str:
    return f"x[{cell + 1}] in {{{', '.join(map(str, sorted(values)))}}}"


_ARRAY = re.compile(r"x\s*=\s*(?:array1d\s*\([^,]*,\s*)?\[([^\]]*)\]")


def read_mzn(model: Model, text: str, encoding: str, source: str) -> Answer:
    """MiniZinc's output: ``x = [...];`` (or ``x = array1d(1..N, [...]);``) then
    ``----------``; ``=====UNSATISFIABLE=====``; ``=====UNKNOWN=====``."""
    if "=====UNSATISFIABLE=====" in text:
        return Answer(UNSOLVABLE)
    match = _ARRAY.search(text)
    if match is None:
        if "=====UNKNOWN=====" in text:
            return Answer(UNKNOWN, said="=====UNKNOWN=====")
        raise unreadable("no 'x = [...]' and no '=====UNSATISFIABLE====='", source)
    line = text.count("\n", 0, match.start()) + 1
    return Answer(SOLVED, decode(model, _values(model, match.group(1).split(","), source, line)))


def _values(model: Model, words: list[str], source: str, line: int) -> list[tuple[int, int]]:
    """(cell, value) pairs of a list holding every cell's value in order."""
    words = [w.strip() for w in words if w.strip()]
    if len(words) != len(model.domains):
        raise unreadable(
            f"{len(words)} values for {len(model.domains)} cells", source, line
        )  # fmt: skip
    pairs = []
    for cell, word in enumerate(words):
        try:
            pairs.append((cell, int(word)))
        except ValueError:
            raise unreadable(f"value {word!r} of x is not a number", source, line) from None
    return pairs


def write_xcsp3(model: Model, encoding: str) -> str:
    """The model in XCSP3, as the xcsp3 backend writes it (:func:`.xcsp3_backend.write`:
    each constraint's primitives under its name, the givens as one ``instantiation``,
    narrowed domains as unary ``extension`` constraints), after a header comment."""
    head = "\n".join(header_lines(model, "xcsp3", encoding, _numbering(0)))
    return (
        "\n".join(["<!--", escape(head).replace("--", "- -"), "-->"])
        + "\n"
        + write(model, notes=True)
    )


def read_xcsp3(model: Model, text: str, encoding: str, source: str) -> Answer:
    """An XCSP3 solver's output: ``s SATISFIABLE`` and the ``<instantiation>`` (on ``v``
    lines or bare; its list ``x[]`` or each ``x[k]``), ``s UNSATISFIABLE``, or ``s UNKNOWN``
    (or another word of :data:`~.common.UNDECIDED`)."""
    lines = text.splitlines()
    status = said = None
    for line in lines:
        words = line.split()
        if len(words) >= 2 and words[0] == "s":
            status, said = words[1].upper(), line.strip()
    if status == "UNSATISFIABLE":
        return Answer(UNSOLVABLE)
    if status in UNDECIDED:
        return Answer(UNKNOWN, said=said)
    body = "\n".join(w[2:] if w.startswith("v ") else w for w in lines)
    start = body.find("<instantiation")
    end = body.find("</instantiation>", start)
    if start < 0 or end < 0:
        raise unreadable("no <instantiation> ... </instantiation> and no 's UNSATISFIABLE'",
                         source)  # fmt: skip
    line = body.count("\n", 0, start) + 1
    try:
        element = ElementTree.fromstring(body[start : end + len("</instantiation>")])
    except ElementTree.ParseError as err:
        raise unreadable(f"the instantiation is not XML: {err}", source, line) from None
    names = (element.findtext("list") or "").split()
    values = (element.findtext("values") or "").split()
    if names == ["x[]"]:
        return Answer(SOLVED, decode(model, _values(model, values, source, line)))
    cells = len(model.domains)
    order = []
    for name in names:
        m = re.fullmatch(r"x\[(\d+)\.\.(\d+)\]|x\[(\d+)\]", name)
        if m is None:
            raise unreadable(f"{name!r} is not a variable x[k] of the model", source, line)
        low, high = (int(m.group(1)), int(m.group(2))) if m.group(1) else (int(m.group(3)),) * 2
        order += range(low, high + 1)
    if any(k >= cells for k in order) or len(order) != len(values):
        raise unreadable(f"{len(values)} values for {len(order)} variables of x[0..{cells - 1}]",
                         source, line)  # fmt: skip
    pairs = []
    for cell, word in zip(order, values, strict=True):
        try:
            pairs.append((cell, int(word)))
        except ValueError:
            raise unreadable(f"value {word!r} of x[{cell}] is not a number", source, line) from None
    return Answer(SOLVED, decode(model, pairs))
