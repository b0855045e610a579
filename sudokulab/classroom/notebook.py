"""Notebook views: puzzles, results and traces as HTML in Jupyter.

The types they show live below the classroom (``Puzzle`` in the models, ``Result`` in the
backends, ``Trace`` here) and know nothing of HTML: each inherits ``_repr_html_`` from
:class:`sudokulab.models.display.Displayed`, which asks the view registered for its type.
:func:`register` registers the views below; ``import sudokulab`` calls it.
"""

from __future__ import annotations

import html

from ..backends import Result
from ..models import Geometry, Grid, Puzzle
from ..models.display import register_view
from ..models.puzzle import symbol
from .trace import Trace


def grid_html(geom: Geometry, grid: Grid, givens: Grid | None = None) -> str:
    """A static grid as an HTML table (givens bold), with inline styles only."""
    n = geom.size
    cells = []
    for r in range(n):
        tds = []
        for c in range(n):
            cell = r * n + c
            v = grid[cell]
            style = ["width:1.6em;height:1.6em;text-align:center;border:1px solid #999"]
            if c % geom.box_cols == 0:
                style.append("border-left:2px solid #222")
            if r % geom.box_rows == 0:
                style.append("border-top:2px solid #222")
            if givens is not None and givens[cell]:
                style.append("font-weight:bold")
            elif givens is not None:
                style.append("color:#1f5fbf")
            tds.append(f'<td style="{";".join(style)}">{symbol(v) if v else ""}</td>')
        cells.append("<tr>" + "".join(tds) + "</tr>")
    table = (
        '<table style="border-collapse:collapse;border-right:2px solid #222;'
        'border-bottom:2px solid #222;font-family:sans-serif">' + "".join(cells) + "</table>"
    )
    return table


def puzzle_html(puzzle: Puzzle) -> str:
    """A puzzle as an HTML grid with its size and number of givens."""
    caption = f"{puzzle.size}x{puzzle.size} puzzle, {puzzle.given_count} givens"
    return f"<div><div>{caption}</div>{grid_html(puzzle.geometry, puzzle.givens)}</div>"


def result_html(result: Result, puzzle: Puzzle | None = None) -> str:
    """A result: status, count, times and counters, and its first solution as a grid."""
    parts = [f"<b>{html.escape(result.backend)}</b>: {html.escape(str(result.status))}"]
    parts.append(f", {result.count}{'' if result.exact else '+'} solution(s)")
    parts.append(f", {result.time * 1000:.3f} ms")
    if result.message:
        parts.append(f" ({html.escape(result.message)})")
    stats = "".join(
        f"<tr><td>{html.escape(str(k))}</td><td>{html.escape(str(v))}</td></tr>"
        for k, v in result.stats.items()
    )
    out = [f"<div>{''.join(parts)}</div>"]
    grid = result.solution
    if grid is not None:
        geom = puzzle.geometry if puzzle is not None else Puzzle.from_grid(grid).geometry
        out.append(grid_html(geom, grid, puzzle.givens if puzzle is not None else None))
    if stats:
        out.append(f'<table style="font-family:sans-serif">{stats}</table>')
    return '<div style="display:flex;gap:1em;align-items:flex-start">' + "".join(out) + "</div>"


def trace_html(trace: Trace) -> str:
    """A traced search as the step-through page, embedded in the notebook."""
    from .page import viewer_html

    return viewer_html(trace, standalone=False)


def register() -> None:
    """Make Jupyter show puzzles, results and traces with the views above."""
    register_view(Puzzle, puzzle_html)
    register_view(Result, result_html)
    register_view(Trace, trace_html)
