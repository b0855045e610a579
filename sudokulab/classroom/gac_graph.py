"""The variable-value graph of one unit, as Régin's filtering sees it, drawn in SVG.

A GAC step of the step-through page shows it: the unit's open cells on the left, its
missing values on the right, an edge for each candidate the cell still had, the
maximum matching's edges bold and the edges no maximum matching uses struck out (the
candidates the step removes). Inline SVG, nothing fetched.

Stable hooks for tests: ``data-role="gac-graph"`` and ``data-unit`` on the ``svg``; on
each edge (a ``line``) ``data-role="edge"``, ``data-cell``, ``data-value`` and
``data-kind``: ``matching``, ``removed`` or ``kept`` (in some maximum matching, not this
one); ``data-cell`` and ``data-value`` on the nodes.
"""

from __future__ import annotations

import html

from ..models import Geometry
from ..models.puzzle import symbol
from .trace import GacFilter

#: Layout, in SVG user units: a row per node, the two columns this far apart.
ROW, GAP, PAD, RADIUS = 34, 220, 20, 12


def gac_svg(event: GacFilter, geom: Geometry, masks: tuple[int, ...]) -> str:
    """The graph of ``event``'s unit, ``masks`` being the candidates before the step."""
    matched = dict(event.matching)
    cells = [c for c, _ in event.matching]
    values = sorted(matched.values())
    gone = {(c, v) for c, vs in event.removed for v in vs}
    height = PAD * 2 + ROW * (max(len(cells), len(values)) - 1)
    width = GAP + PAD * 2 + 80
    x_cell, x_value = PAD + 40, PAD + 40 + GAP
    y_cell = {c: PAD + ROW * i for i, c in enumerate(cells)}
    y_value = {v: PAD + ROW * i for i, v in enumerate(values)}
    unit = html.escape(str(geom.units[event.unit]))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="slv-gac" data-role="gac-graph" '
        f'data-unit="{event.unit}" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" role="img" aria-label="variable-value graph of {unit}">'
    ]
    for c in cells:
        for v in values:
            if not masks[c] >> (v - 1) & 1:
                continue
            kind = "matching" if matched[c] == v else "removed" if (c, v) in gone else "kept"
            style = {
                "matching": 'stroke="#1f5fbf" stroke-width="3.5"',
                "removed": 'stroke="#d00" stroke-width="1.2" stroke-dasharray="5 3"',
                "kept": 'stroke="#999" stroke-width="1.2"',
            }[kind]
            x1, y1, x2, y2 = x_cell + RADIUS, y_cell[c], x_value - RADIUS, y_value[v]
            parts.append(
                f'<line data-role="edge" data-cell="{c}" data-value="{v}" data-kind="{kind}" '
                f'x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" {style}/>'
            )
            if kind == "removed":  # struck: a cross at the middle of the edge
                mx, my = (x1 + x2) / 2, (y1 + y2) / 2
                parts.append(
                    f'<path d="M{mx - 5},{my - 5}L{mx + 5},{my + 5}M{mx - 5},{my + 5}'
                    f'L{mx + 5},{my - 5}" stroke="#d00" stroke-width="2"/>'
                )
    for c in cells:
        y = y_cell[c]
        parts.append(
            f'<g data-cell="{c}"><circle cx="{x_cell}" cy="{y}" r="{RADIUS}" fill="#fff" '
            f'stroke="#333"/><text x="{x_cell - RADIUS - 4}" y="{y + 4}" font-size="15" '
            f'text-anchor="end">{geom.cell_name(c)}</text></g>'
        )
    for v in values:
        y = y_value[v]
        parts.append(
            f'<g data-value="{v}"><circle cx="{x_value}" cy="{y}" r="{RADIUS}" '
            f'fill="#fff6c9" stroke="#333"/><text x="{x_value}" y="{y + 4}" font-size="15" '
            f'text-anchor="middle">{html.escape(symbol(v))}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)
