"""The constraint graph of a puzzle's CSP, as the textbooks draw it, and as a picture.

Two variables (cells) are neighbours in the *constraint graph* when some constraint holds
both (Russell and Norvig's "constraint graph"; Dechter's *primal graph*). Every
constraint of the model is an AllDifferent (or a cage's Sum, whose values are distinct as
well), so each edge is also a binary not-equal constraint: the graph is exactly what AC-3
works on, two *arcs* per edge. Read off the real :class:`~sudokulab.models.Model`.

>>> from sudokulab.models import build_model, parse_puzzle
>>> g = constraint_graph(build_model(parse_puzzle("." * 81)))
>>> len(g.edges), len(g.neighbours[0]), g.arcs
(810, 20, 1620)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..models import Model
from ..models.puzzle import symbol

#: The suffixes :func:`write_graph` takes: Graphviz's text format, and matplotlib's.
FORMATS = (".dot", ".gv", ".svg", ".png", ".pdf")


@dataclass(frozen=True)
class ConstraintGraph:
    """The cells, the edges between cells that share a constraint, and which constraints
    make each edge (by name: ``row 1``, ``box 3``, ``cage 2``...)."""

    cells: int
    edges: dict[tuple[int, int], tuple[str, ...]]
    neighbours: tuple[tuple[int, ...], ...]

    @property
    def arcs(self) -> int:
        """AC-3's arcs: each edge in both directions."""
        return 2 * len(self.edges)


def constraint_graph(model: Model) -> ConstraintGraph:
    """The constraint graph of ``model``: an edge for every pair of cells in one
    constraint, labelled with the constraints that hold both (in the model's order)."""
    edges: dict[tuple[int, int], list[str]] = {}
    for constraint in model.constraints:
        cells = sorted(constraint.cells)
        for i, a in enumerate(cells):
            for b in cells[i + 1 :]:
                edges.setdefault((a, b), []).append(constraint.name)
    cells = model.geometry.cell_count
    near: list[list[int]] = [[] for _ in range(cells)]
    for a, b in edges:
        near[a].append(b)
        near[b].append(a)
    return ConstraintGraph(
        cells=cells,
        edges={pair: tuple(names) for pair, names in edges.items()},
        neighbours=tuple(tuple(sorted(n)) for n in near),
    )


def graph_lines(model: Model) -> list[str]:
    """The graph in a few lines for ``sudokulab model``: its size, the degrees, and what
    a constraint with k cells contributes (k(k-1)/2 edges)."""
    graph = constraint_graph(model)
    degrees = Counter(len(n) for n in graph.neighbours)
    spread = ", ".join(f"{count} with {degree}" for degree, count in sorted(degrees.items()))
    shared = sum(1 for names in graph.edges.values() if len(names) > 1)
    return [
        f"constraint graph: {graph.cells} variables, {len(graph.edges)} edges (two cells "
        f"sharing a constraint; each edge is a binary not-equal), {graph.arcs} arcs for AC-3",
        f"  neighbours per cell: {spread}",
        f"  edges made by two constraints or more (a row and a box, say): {shared}",
    ]


def write_graph(model: Model, path: str | Path, cell: int | None = None) -> None:
    """Write the constraint graph to ``path``: Graphviz text for ``.dot``/``.gv``, a
    drawing for ``.svg``/``.png``/``.pdf`` (cells where they sit on the grid, one colour
    per kind of constraint, the edges of ``cell`` drawn bold). ValueError for another
    suffix; OSError when the file cannot be written."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"{path}: unknown picture format; use one of {', '.join(FORMATS)}")
    graph = constraint_graph(model)
    if suffix in (".dot", ".gv"):
        path.write_text(_dot(model, graph), encoding="utf-8")
    else:
        _draw(model, graph, path, cell)


def _kind(name: str) -> str:
    return name.rsplit(" ", 1)[0]


def _dot(model: Model, graph: ConstraintGraph) -> str:
    """Graphviz's undirected graph: one node per cell at its grid position (``neato -n``
    keeps them), an edge per pair labelled with its constraints."""
    geom = model.geometry
    n = geom.size
    lines = [
        "// the constraint graph of a sudokulab puzzle: a node per cell, an edge per pair",
        "// of cells that share a constraint (draw with: neato -n -Tsvg graph.dot)",
        "graph constraints {",
        "  node [shape=circle, width=0.35, fixedsize=true, fontsize=9];",
    ]
    for c in geom.cells:
        value = model.givens[c]
        label = geom.cell_name(c) + (f"\\n{symbol(value)}" if value else "")
        x, y = 50 * geom.col(c), 50 * (n - 1 - geom.row(c))
        lines.append(f'  c{c} [label="{label}", pos="{x},{y}"];')
    for (a, b), names in graph.edges.items():
        lines.append(f'  c{a} -- c{b} [label="{", ".join(names)}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _draw(model: Model, graph: ConstraintGraph, path: Path, cell: int | None) -> None:
    """The drawing: matplotlib without a display (the Agg backend, through the Figure
    object alone); edges in one row or column bend away from the line so they do not lie
    on top of one another."""
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyArrowPatch

    geom = model.geometry
    n = geom.size
    kinds = list(dict.fromkeys(_kind(names[0]) for names in graph.edges.values()))
    palette = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown")
    colour = {kind: palette[i % len(palette)] for i, kind in enumerate(kinds)}
    figure = Figure(figsize=(2 + 0.7 * n, 2 + 0.7 * n))
    axes = figure.add_subplot()
    axes.set_xlim(-1, n)
    axes.set_ylim(-1, n)
    axes.set_aspect("equal")
    axes.axis("off")

    def where(c: int) -> tuple[float, float]:
        return geom.col(c), n - 1 - geom.row(c)

    for (a, b), names in graph.edges.items():
        bold = cell in (a, b)
        (xa, ya), (xb, yb) = where(a), where(b)
        straight = xa != xb and ya != yb
        axes.add_patch(
            FancyArrowPatch(
                (xa, ya),
                (xb, yb),
                arrowstyle="-",
                connectionstyle="arc3,rad=0" if straight else "arc3,rad=0.35",
                color=colour[_kind(names[0])],
                linewidth=1.6 if bold else 0.4,
                alpha=0.9 if bold or cell is None else 0.25,
            )
        )
    for c in geom.cells:
        x, y = where(c)
        value = model.givens[c]
        axes.scatter([x], [y], s=260, color="black" if value else "white", edgecolors="black")
        text = symbol(value) if value else ""
        axes.annotate(text, (x, y), ha="center", va="center", color="white", fontsize=8)
    for kind in kinds:
        axes.plot([], [], color=colour[kind], label=kind)
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=len(kinds), frameon=False)
    axes.set_title(
        f"constraint graph: {graph.cells} variables, {len(graph.edges)} edges",
        fontsize=10,
    )
    figure.savefig(path, bbox_inches="tight")
