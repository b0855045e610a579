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
from typing import TYPE_CHECKING, Any

from ..models import Geometry, Puzzle
from ..models.puzzle import symbol
from .gac_graph import gac_svg
from .marks import marks_data
from .narrative import Step, level_rows, outcome_text, removal_line, settings, steps
from .page_assets import MARKUP, SCRIPT, STYLE
from .trace import GacFilter, State, Trace

if TYPE_CHECKING:
    from ..backends import Result

#: A full state every this many steps: a jump applies at most this many diffs.
SNAPSHOT_EVERY = 200
#: The proofs told in words: of a grid this size or smaller, with at most so many lemmas.
PROOF_SIZE = 4
PROOF_LEMMAS = 40
#: Solutions counted for a proof: fewer than this is an exact count, and a claim to prove.
PROOF_LIMIT = 10


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


def viewer_html(trace: Trace, standalone: bool = True, proof: dict | None = None) -> str:
    """The step-through viewer of a traced search: a whole page, or a fragment to embed
    (notebooks); with ``proof`` (:func:`proof_data`), its proof section."""
    data = viewer_data(trace)
    if proof is not None:
        data["proof"] = proof
    return story_html(data, f"sudokulab explain {trace.puzzle}", standalone)


def prove(puzzle: Puzzle, timeout: float | None) -> Result:
    """The puzzle's verdict from the native engine, certified (:func:`sudokulab.solve`
    with ``certify``): up to :data:`PROOF_LIMIT` solutions counted, so that a unique
    puzzle, one without a solution and one with a few solutions each make a claim."""
    from .. import api

    return api.solve(puzzle, "native", limit=PROOF_LIMIT, timeout=timeout, certify=True)


def proof_data(puzzle: Puzzle, result: Result) -> dict[str, Any]:
    """The proof section's data for a certified result (:func:`prove`): ``claim`` (None
    when the result makes none), ``outcome`` (``accepted``, ``rejected``, ``refuted`` or
    ``none``), ``verdict`` (the checker's, one line), ``lemmas`` and ``propagation`` (the
    proof in words and the unit propagation that ends it, :mod:`sudokulab.certify.words`,
    when it is small enough to read: :data:`PROOF_SIZE`, :data:`PROOF_LEMMAS`; else None)
    and a ``note``."""
    from ..models import build_model
    from ..models.formats import format_line

    made = result.certificate
    out: dict[str, Any] = {
        "claim": None,
        "outcome": "none",
        "verdict": "",
        "lemmas": None,
        "propagation": None,
        "note": "",
    }
    if made is None:
        found = f"{result.count} solution{'s' * (result.count != 1)}"
        if result.message:  # an error, or a claim the CNF cannot put (a sum too long)
            out["note"] = result.message
        elif result.status.value in ("solved", "multiple") and not result.exact:
            out["note"] = (
                f"no claim to prove: the search stopped at {found} (a proof covers no "
                f"solution, one, or an exact count below {PROOF_LIMIT})"
            )
        else:
            out["note"] = f"no claim to prove: {result.status.value}"
        return out
    out["claim"] = f"the puzzle has {made.claim}"
    if made.refuted is not None:
        out["outcome"] = "refuted"
        out["verdict"] = f"refuted: the claim's CNF also allows {format_line(list(made.refuted))}"
        return out
    lemmas = f"{made.lemmas} lemma{'s' * (made.lemmas != 1)}"
    out["outcome"] = "accepted" if made.accepted else "rejected"
    out["verdict"] = (  # no time: the page and the text say the same every run
        f"accepted by sudokulab's checker ({lemmas} checked)"
        if made.accepted
        else f"rejected by sudokulab's checker: {made.reason}"
    )
    by = f"proof by {made.prover} over the {made.encoding} encoding"
    written = sum(1 for line in made.proof.splitlines() if line.strip() and line[0] != "d")
    if puzzle.size > PROOF_SIZE or written > PROOF_LEMMAS:
        lemmas = f"{written} lemma{'s' * (written != 1)}"
        out["note"] = (
            f"{by}: {lemmas}, told in words up to {PROOF_SIZE}x{PROOF_SIZE} grids and "
            f"{PROOF_LEMMAS} lemmas; sudokulab solve PUZZLE --certify DIR writes the CNF "
            "and the proof"
        )
        return out
    from ..certify.words import explain_proof, explain_refutation

    model = build_model(puzzle)
    out["lemmas"] = explain_proof(model, made)
    out["propagation"] = explain_refutation(model, made)
    out["note"] = (
        f"{by}: no lemma needed, unit propagation over the claim's clauses alone reaches a "
        "contradiction"
        if not written
        else f"{by}: each lemma follows by unit propagation from the claim's clauses and the "
        "lemmas before it; then unit propagation reaches a contradiction"
    )
    return out


def proof_lines(proof: dict[str, Any]) -> list[str]:
    """The proof section (:func:`proof_data`) as text, as ``explain --certify`` prints it."""
    out = [f"proof: {proof['claim'] or 'no claim to prove'}"]
    out += [line for line in (proof["verdict"], proof["note"]) if line]
    out += [f"  {line}" for line in proof["lemmas"] or ()]
    if proof["propagation"]:
        out.append("then unit propagation:")
        out += [f"  {line}" for line in proof["propagation"]]
    return out


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
