"""The logic solver's run told as a story: one line per technique applied, candidate
grids, a summary with the rating; the same steps feed the step-through page, which
highlights each step's pattern (its cells and units) and the candidates it removes.

>>> from sudokulab.models import parse_puzzle
>>> from sudokulab.logic import solve_logic
>>> story = logic_steps(solve_logic(parse_puzzle("4.3...1.2.......")))
>>> story[1].text
'r1c2 = 1: hidden single, the only place for 1 in box 1'
"""

from __future__ import annotations

from ..logic import Board, Run, shape_of
from ..logic.board import bits
from ..logic.ladder import GRADES, LADDER, apply
from ..logic.rating import rate_run
from ..logic.words import step_text
from .narrative import Step, candidates_grid, removal_line
from .page import story_data, story_html
from .trace import DEDUCED, GIVEN, OPEN, State


def _state(board: Board, givens: tuple[int, ...]) -> State:
    kinds = tuple(
        OPEN if not v else GIVEN if g else DEDUCED
        for v, g in zip(board.values, givens, strict=True)
    )
    return State(tuple(board.masks), kinds)


def logic_steps(run: Run) -> list[Step]:
    """The run's steps as story steps (the first places the givens), each with the grid
    after it, its pattern cells and units, and the candidates it removes."""
    puzzle = run.puzzle
    geom, givens = puzzle.geometry, puzzle.givens
    board = Board(shape_of(geom), givens)
    story = [
        Step(
            None,
            "givens placed: their peers lose their values",
            (),
            _state(board, givens),
            -1,
            -1,
            kind="given",
        )
    ]
    for step in run.steps:
        masks = {c: bits(board.masks[c]) for c in step.cells if 0 <= c < len(board.masks)}
        text = step_text(step, geom, masks)
        removed = step.removed + tuple(
            (p, v) for c, v in step.placed for p in geom.peers[c] if board.has(p, v)
        )
        apply(board, step)
        single = step.technique in ("naked single", "hidden single")
        cell = step.cells[0] if (single or step.technique == "contradiction") and step.cells else -1
        story.append(
            Step(
                step,
                text,
                removed,
                _state(board, givens),
                cell,
                step.units[0] if single and step.units else -1,
                pattern=() if single else step.cells,
                areas=() if single else step.units + step.cover,
                kind=step.technique if step.technique in ("contradiction", "stalled") else "logic",
            )
        )
    return story


def summary_rows(run: Run) -> list[tuple[str, object]]:
    """Steps per technique used, then the hardest, the score, the grade, the outcome."""
    rating = rate_run(run)
    rows: list[tuple[str, object]] = [
        (t.name, rating.counts[t.name]) for t in LADDER if rating.counts.get(t.name)
    ]
    rows += [
        ("hardest", rating.hardest),
        ("score", f"{rating.score:.1f}"),
        ("grade", rating.grade),
        ("outcome", outcome(run)),
    ]
    return rows


def outcome(run: Run) -> str:
    """How the run ended, in a few words."""
    return {
        "solved": "solved by logic alone",
        "stalled": f"stalled with {run.grid.count(0)} cells open: the rest needs search",
        "contradiction": "a contradiction: the puzzle has no solution",
    }[run.status]


def summary_lines(run: Run) -> list[str]:
    """The summary block of a logic run."""
    rows = summary_rows(run)
    width = max(16, *(len(label) for label, _ in rows))
    head = "summary (logic solver: " + ", ".join(GRADES) + " grades):"
    return [head] + [f"  {label:<{width}} {value}" for label, value in rows]


def logic_narrative(run: Run, show: str = "none") -> str:
    """The whole story as text: numbered steps with what each removes, candidate grids at
    the ``show`` moments (start, every, end; guesses means start: logic never guesses),
    then the summary."""
    puzzle = run.puzzle
    geom = puzzle.geometry
    story = logic_steps(run)
    out = [f"puzzle {puzzle} ({puzzle.given_count} givens; logic solver)"]
    if show in ("start", "guesses"):
        out += ["", "candidates after the givens:", candidates_grid(geom, story[0].state), ""]
    for number, step in enumerate(story[1:], 1):
        out.append(f"{number:>5}. {step.text}")
        if not step.event.placed:
            extra = removal_line(step, geom)
            if extra:
                out.append(f"        {extra}")
        if show == "every":
            out += [candidates_grid(geom, step.state), ""]
    if show == "end":
        out += ["", "candidates after the last step:", candidates_grid(geom, story[-1].state)]
    return "\n".join([*out, "", *summary_lines(run)])


def logic_html(run: Run, standalone: bool = True) -> str:
    """The step-through page of a logic run."""
    data = story_data(
        run.puzzle,
        logic_steps(run),
        [list(row) for row in summary_rows(run)],
        False,
        f"{run.puzzle}  ·  logic solver",
    )
    return story_html(data, f"sudokulab explain --logic {run.puzzle}", standalone)
