"""The CSP of a puzzle as a teacher writes it on the board, and as each backend holds it.

Everything is read off the real :class:`~sudokulab.models.Model` and off the models the
backends really build (CP-SAT's ``CpModel``, the CNF, python-constraint's ``Problem``, ...), so the
board and the solvers cannot drift apart.

>>> from sudokulab.models import parse_puzzle
>>> print(board(parse_puzzle("1.....1..1.....1"), cell=5).splitlines()[1])
variables: 16, one per cell (r1c1 .. r4c4)
"""

from __future__ import annotations

import re
from collections import Counter

from ..backends import Backend, all_backends, get_backend
from ..backends.base import unsupported
from ..models import Geometry, Model, Puzzle, build_model
from ..models.puzzle import symbol
from .graph import graph_lines

_CELL = re.compile(r"r(\d+)c(\d+)", re.IGNORECASE)


def parse_cell(text: str, geom: Geometry) -> int:
    """A cell named like ``r4c7`` (rows and columns from 1); ValueError naming the bounds."""
    match = _CELL.fullmatch(text.strip())
    n = geom.size
    if not match:
        raise ValueError(f"{text!r} is not a cell name like r4c7")
    r, c = int(match[1]), int(match[2])
    if not (1 <= r <= n and 1 <= c <= n):
        raise ValueError(f"{text}: rows and columns go from 1 to {n}")
    return (r - 1) * n + c - 1


def _domain_text(domain: tuple[int, ...]) -> str:
    if len(domain) > 2 and domain == tuple(range(domain[0], domain[-1] + 1)):
        return f"{{{symbol(domain[0])}..{symbol(domain[-1])}}}"
    return "{" + ", ".join(map(symbol, domain)) + "}"


def _kind(name: str) -> str:
    return name.rsplit(" ", 1)[0]


def board(puzzle: Puzzle, cell: int | None = None) -> str:
    """Variables, domains, constraints grouped by kind, and the peers of one cell."""
    model = build_model(puzzle)
    geom = model.geometry
    n = geom.size
    names = [geom.cell_name(c) for c in geom.cells]
    lines = [f"the CSP of the {n}x{n} puzzle {puzzle}"]
    lines.append(f"variables: {len(model.variables)}, one per cell ({names[0]} .. {names[-1]})")
    sizes = Counter(len(d) for d in model.domains)
    given = sizes.get(1, 0)
    lines.append(
        f"domains: {given} given cell(s) with one value, "
        f"{len(model.domains) - given} open cell(s) with {_domain_text(tuple(geom.values))}"
    )
    lines.append("domain sizes (one per cell):")
    width = len(str(n))
    for r in range(n):
        row = [f"{len(model.domains[r * n + c]):>{width}}" for c in range(n)]
        lines.append("  " + " ".join(row))
    groups: dict[str, list] = {}
    for constraint in model.constraints:
        groups.setdefault(_kind(constraint.name), []).append(constraint)
    kinds = Counter(type(c).__name__ for c in model.constraints)
    summary = ", ".join(f"{count} {kind}" for kind, count in kinds.items())
    per = "one per unit and cage" if puzzle.cages else "one per unit"
    lines.append(f"constraints: {summary}, {per}")
    for kind, constraints in groups.items():
        plural = kind + ("es" if kind.endswith("x") else "s")
        lines.append(f"  {plural}: {len(constraints)}")
        for constraint in constraints:
            cells = ", ".join(names[c] for c in constraint.cells)
            total = f" = {constraint.total}" if constraint.kind == "sum" else ""
            lines.append(f"    {constraint.name:<10} {type(constraint).__name__}({cells}){total}")
    if cell is None:
        cell = next((c for c, v in enumerate(puzzle.givens) if not v), 0)
    lines += _peers(model, cell)
    lines += graph_lines(model)
    lines.append("how each backend holds it:")
    lines += ["  " + line for line in backend_lines(model)]
    return "\n".join(lines)


def _peers(model: Model, cell: int) -> list[str]:
    """The peers of ``cell``, unit by unit, and what they leave it."""
    geom = model.geometry
    name = geom.cell_name
    peers = geom.peers[cell]
    out = [f"peers of {name(cell)}: {len(peers)} cells, every other cell of its units"]
    for u in geom.units_of[cell]:
        unit = geom.units[u]
        others = " ".join(name(c) for c in unit.cells if c != cell)
        out.append(f"  {unit.name + ':':<11} {others}")
    held = sorted({model.givens[p] for p in peers if model.givens[p]})
    if model.givens[cell]:
        out.append(f"  {name(cell)} is given: {symbol(model.givens[cell])}")
    else:
        left = [v for v in model.domains[cell] if v not in held]  # pencil marks narrow it
        out.append(
            f"  givens among the peers: {', '.join(map(symbol, held)) or 'none'}; "
            f"so {name(cell)} can only be {', '.join(map(symbol, left)) or 'nothing'}"
        )
    return out


def shown() -> list[str]:
    """The backends that build a model of their own (they override ``describe``), in the
    registry's order: the board shows what each builds, next to the CSP."""
    return [
        name
        for name, backend in all_backends().items()
        if type(backend).describe is not Backend.describe
    ]


def backend_lines(model: Model) -> list[str]:
    """What each backend with a model of its own builds from the model, in its own words
    (CP-SAT's variables and constraints, the CNF's clauses, ...)."""
    out = []
    for name in shown():
        backend = get_backend(name)
        if not backend.available():
            out.append(f"{name}: not available (pip install {backend.requires})")
            continue
        refusal = unsupported(backend, model)
        if refusal:  # what it would build leaves rules out: say so instead
            out.append(f"{name}: refuses it ({refusal})")
            continue
        out.append(backend.describe(model))
    return out
