"""The CP model in MiniZinc and XCSP3, written from the model's constraints
(``alldifferent`` per unit, ``sum`` per cage), and those solvers' answers read back."""

from __future__ import annotations

import re
from xml.etree import ElementTree
from xml.sax.saxutils import escape

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


def _numbering(first: int) -> str:
    return (
        f"x[k] is cell k (row-major, k from {first}: r1c1 is x[{first}], r1c2 x[{first + 1}]) "
        "and holds its value"
    )


def write_mzn(model: Model, encoding: str) -> str:
    """The model in MiniZinc: ``alldifferent`` per unit (the globals library's), ``sum``
    and ``alldifferent`` per cage, the givens and narrowed domains as constraints."""
    geom = model.geometry
    cells, n = len(model.domains), model.size
    lines = [f"% {line}" for line in header_lines(model, "mzn", encoding, _numbering(1))]
    lines += ['include "alldifferent.mzn";', "", f"array[1..{cells}] of var 1..{n}: x;", ""]
    for constraint in model.constraints:
        xs = ", ".join(f"x[{c + 1}]" for c in constraint.cells)
        lines.append(f"% {constraint.name}")
        lines.append(f"constraint alldifferent([{xs}]);")
        if constraint.kind == "sum":
            lines.append(f"constraint sum([{xs}]) = {constraint.total};")
    for cell, domain in enumerate(model.domains):
        if len(domain) == 1:
            lines.append(f"constraint x[{cell + 1}] = {domain[0]};  % {geom.cell_name(cell)}")
        elif len(domain) < n:
            values = ", ".join(map(str, domain))
            lines.append(f"constraint x[{cell + 1}] in {{{values}}};  % {geom.cell_name(cell)}")
    lines += ["", "solve satisfy;", 'output ["x = \\(x);\\n"];']
    return "\n".join(lines) + "\n"


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
    """The model in XCSP3: an array ``x`` of the cells, ``allDifferent`` per unit, ``sum``
    (with ``allDifferent``) per cage, the givens as one ``instantiation``, narrowed
    domains as unary ``extension`` constraints."""
    cells, n = len(model.domains), model.size
    head = "\n".join(header_lines(model, "xcsp3", encoding, _numbering(0)))
    out = [
        "<!--",
        escape(head).replace("--", "- -"),
        "-->",
        '<instance format="XCSP3" type="CSP">',
        "  <variables>",
        f'    <array id="x" size="[{cells}]"> 1..{n} </array>',
        "  </variables>",
        "  <constraints>",
    ]
    for constraint in model.constraints:
        xs = " ".join(f"x[{c}]" for c in constraint.cells)
        note = f' note="{escape(constraint.name)}"'
        if constraint.kind == "sum":
            out.append(f"    <block{note}>")
            out.append(f"      <allDifferent> {xs} </allDifferent>")
            out.append(f"      <sum><list> {xs} </list><condition> (eq,{constraint.total}) "
                       "</condition></sum>")  # fmt: skip
            out.append("    </block>")
        else:
            out.append(f"    <allDifferent{note}> {xs} </allDifferent>")
    givens = [(c, d[0]) for c, d in enumerate(model.domains) if len(d) == 1]
    if givens:
        xs = " ".join(f"x[{c}]" for c, _ in givens)
        values = " ".join(str(v) for _, v in givens)
        out.append('    <instantiation note="givens">')
        out.append(f"      <list> {xs} </list> <values> {values} </values>")
        out.append("    </instantiation>")
    for cell, domain in enumerate(model.domains):
        if 1 < len(domain) < n:
            values = " ".join(map(str, domain))
            out.append(f"    <extension><list> x[{cell}] </list><supports> {values} "
                       "</supports></extension>")  # fmt: skip
    out += ["  </constraints>", "</instance>"]
    return "\n".join(out) + "\n"


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
