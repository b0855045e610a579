"""The step-through page of a traced search (a whole page, or a fragment for notebooks).

Everything is inline (CSS, script, data as JSON): the page opens from a USB stick with no
network. Each view's ids carry a fresh prefix, so several can share one notebook page.
Steps are stored compactly: per step, the cells that changed as ``[cell, old, new]``
triples of a packed cell state (candidate bits, plus how the cell was filled above them),
with a full snapshot every :data:`SNAPSHOT_EVERY` steps so a jump costs little.

Stable hooks for tests and scripts: ``data-role`` on the grid, buttons, list, counter and
summary; ``data-cell`` (cell index), ``data-value`` (placed value or empty),
``data-current``, ``data-pattern`` (a logic step's pattern) and (killer cages) ``data-cage``
on grid cells; ``data-step`` on
narrative lines and the counter; ``data-skipped`` on the cells of the levels a backjump
passes over; ``data-role="graph"`` holds a GAC step's variable-value graph (inline SVG,
see :mod:`sudokulab.classroom.gac_graph`); an AC-3 arc's other cell is the step's
pattern. A killer cage is drawn as a dashed outline inside its
cells with its sum in its first cell.

The variant rules' marks (:mod:`sudokulab.classroom.marks`) are one SVG over the grid,
``data-role="marks"`` (it lets the pointer through to the cells), a group per mark:
``data-mark`` (``thermometer``, ``arrow``, ``line``, ``dot``, ``xv``, ``parity``,
``clue``) and ``data-name`` (the rule's name, ``thermometer 2``), with ``data-line``
(``renban``, ``whispers``, ``entropic``, ``region sum``), ``data-colour`` (a dot's), ``data-parity``
and ``data-clue`` (``sandwich``, ``little killer``) where they apply; clues outside the
grid stand in a margin the grid gets on that side. The board-wide rules are sentences
under the grid, in ``data-role="caption"``, each ``data-mark="caption"``.
"""

from __future__ import annotations

import html
import json
import secrets

from ..models import Geometry, Puzzle
from ..models.puzzle import symbol
from .gac_graph import gac_svg
from .marks import marks_data
from .narrative import Step, level_rows, outcome_text, removal_line, settings, steps
from .page_assets import MARKUP, SCRIPT, STYLE
from .trace import GacFilter, State, Trace

#: A full state every this many steps: a jump applies at most this many diffs.
SNAPSHOT_EVERY = 200


def _pack(state: State, n: int) -> list[int]:
    """One integer per cell: candidate bits, then the fill kind above them."""
    return [m | k << n for m, k in zip(state.masks, state.kinds, strict=True)]


def _regions(geom: Geometry) -> list[int] | None:
    """Each cell's jigsaw region (the thick lines follow them), or None: boxes as usual."""
    if any(u.kind == "box" for u in geom.units):
        return None
    region_of = [-1] * geom.cell_count
    for k, unit in enumerate(u for u in geom.units if u.kind == "region"):
        for cell in unit.cells:
            region_of[cell] = k
    return region_of


def viewer_data(trace: Trace) -> dict:
    """The viewer's data of a traced search: geometry, steps as diffs, periodic
    snapshots, summary."""
    s = trace.summary
    summary = [
        ["givens placed", s.givens],
        ["naked singles", s.naked_singles],
        ["hidden singles", s.hidden_singles],
        ["guesses", s.guesses],
        ["backtracks", s.backtracks],
        ["maximum depth", s.max_depth],
        ["nodes", s.nodes],
        ["contradictions", s.contradictions],
        ["solutions", s.solutions],
        ["outcome", outcome_text(trace)],
    ]
    if trace.puzzle.cages:
        summary.insert(3, ["cage prunings", s.cage_prunings])
    if trace.puzzle.rules:
        summary.insert(3, ["rule prunings", s.rule_prunings])
    summary[3:3] = [list(row) for row in level_rows(trace)]
    title = f"{trace.puzzle}  ·  {settings(trace)}"
    return story_data(trace.puzzle, steps(trace), summary, trace.truncated, title)


def story_data(
    puzzle: Puzzle, story: list[Step], summary: list[list], truncated: bool, title: str
) -> dict:
    """The viewer's data of any story told in steps (a traced search, a logic solve)."""
    geom = puzzle.geometry
    n = geom.size
    full = (1 << n) - 1
    current = [full] * (n * n)
    start = current[:]
    rows, snapshots = [], {}
    for index, step in enumerate(story):
        packed = _pack(step.state, n)
        removed: dict[int, int] = {}  # cell -> the candidate bits this step removed there
        for cell, value in step.removed:
            removed[cell] = removed.get(cell, 0) | 1 << (value - 1)
        diff = []
        for cell, (old, new) in enumerate(zip(current, packed, strict=True)):
            if old != new:
                diff += [cell, old, new]
        current = packed
        rows.append(
            {
                "t": step.text,
                "x": removal_line(step, geom),
                "c": step.cell,
                "u": step.unit,
                "g": getattr(step.event, "cage", -1),  # a killer cage the step is about
                "k": step.kind or type(step.event).__name__.lower(),
                "r": list(removed),
                "m": list(removed.values()),
                "d": diff,
            }
        )
        if step.pattern or step.areas:
            rows[-1].update(ps=list(step.pattern), us=list(step.areas))
        if step.skipped:  # a backjump: the levels it passes over, by their cells
            rows[-1]["sk"] = list(step.skipped)
        if isinstance(step.event, GacFilter):
            masks = story[index - 1].state.masks if index else (full,) * (n * n)
            rows[-1]["svg"] = gac_svg(step.event, geom, masks)
        if (index + 1) % SNAPSHOT_EVERY == 0:
            snapshots[index] = packed
    return {
        "size": n,
        "boxRows": geom.box_rows,
        "boxCols": geom.box_cols,
        "units": [[u.name, list(u.cells)] for u in geom.units],
        "cages": [[cage.total, list(cage.cells)] for cage in puzzle.cages],
        "marks": marks_data(puzzle),
        "regionOf": _regions(geom),
        "names": [geom.cell_name(c) for c in geom.cells],
        "symbols": [symbol(v) for v in geom.values],
        "start": start,
        "steps": rows,
        "snapshots": snapshots,
        "summary": summary,
        "truncated": truncated,
        "title": title,
    }


def viewer_html(trace: Trace, standalone: bool = True) -> str:
    """The step-through viewer of a traced search: a whole page, or a fragment to embed
    (notebooks)."""
    return story_html(viewer_data(trace), f"sudokulab explain {trace.puzzle}", standalone)


def story_html(data: dict, title: str, standalone: bool = True) -> str:
    """The step-through viewer of a story's data (:func:`story_data`)."""
    prefix = "slv" + secrets.token_hex(4)
    data.update(standalone=standalone, every=SNAPSHOT_EVERY)
    data = json.dumps(data, separators=(",", ":"))
    # "</" inside a script would end it early; JSON allows the escaped form.
    data = data.replace("</", "<\\/")
    body = (
        f'<div class="slv" id="{prefix}" data-role="viewer">'
        f"{MARKUP}</div>"
        f"<style>{STYLE}</style>"
        f'<script>(function(){{var DATA={data};var ROOT=document.getElementById("{prefix}");'
        f"{SCRIPT}}})();</script>"
    )
    if not standalone:
        return body
    title = html.escape(title)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{title}</title></head>\n<body class="slv-page">{body}</body></html>\n'
    )
