"""The ladder: techniques from the simplest up, each with its score, and the solver that
climbs it.

At each step the solver applies the first technique of the ladder that changes the grid,
then starts again from the bottom; it stops when every cell is placed (*solved*), when no
technique applies (*stalled*: the rest needs search), or when a cell has no candidate or
a value no place in a unit (*contradiction*: the puzzle has no solution).

The ladder is ordered by the score, the difficulty scale of Sudoku Explainer (SE), so
"the simplest technique that makes progress" is the one a human rater would pick first.
SE's published values are kept where SE has the technique; the W-wing and simple
colouring, which SE does not rate, sit with the wings, and chains start at SE's 6.5 and
grow with their length. See docs/guides/rating.md.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..models import Puzzle
from .board import Board, shape_of
from .chains import simple_colouring, x_chain, xy_chain
from .fish import jellyfish, swordfish, x_wing
from .intersections import locked_candidates
from .singles import hidden_single, naked_single
from .step import Step
from .subsets import hidden_pair, hidden_quad, hidden_triple, naked_pair, naked_quad, naked_triple
from .wings import w_wing, xy_wing, xyz_wing

#: Grades a class understands, easiest first, and what a puzzle of each needs at most.
GRADES = ("easy", "medium", "hard", "expert", "extreme")

#: The score of a puzzle the ladder cannot finish: past every technique here, where SE
#: puts the forcing nets such puzzles take.
SEARCH_SCORE = 10.0


@dataclass(frozen=True)
class Technique:
    """One rung: its name (as steps carry it), the function that finds it, its base score
    (SE's value) and the grade of a puzzle that needs it."""

    name: str
    find: Callable[[Board], Step | None]
    score: float
    grade: str


#: Every rung, simplest first.
LADDER: tuple[Technique, ...] = (
    Technique("hidden single", hidden_single, 1.2, "easy"),
    Technique("naked single", naked_single, 2.3, "easy"),
    Technique("locked candidates", locked_candidates, 2.6, "medium"),
    Technique("naked pair", naked_pair, 3.0, "medium"),
    Technique("X-wing", x_wing, 3.2, "hard"),
    Technique("hidden pair", hidden_pair, 3.4, "medium"),
    Technique("naked triple", naked_triple, 3.6, "medium"),
    Technique("swordfish", swordfish, 3.8, "hard"),
    Technique("hidden triple", hidden_triple, 4.0, "medium"),
    Technique("XY-wing", xy_wing, 4.2, "hard"),
    Technique("XYZ-wing", xyz_wing, 4.4, "hard"),
    Technique("W-wing", w_wing, 4.4, "hard"),
    Technique("simple colouring", simple_colouring, 4.5, "hard"),
    Technique("naked quad", naked_quad, 5.0, "medium"),
    Technique("jellyfish", jellyfish, 5.2, "hard"),
    Technique("hidden quad", hidden_quad, 5.4, "medium"),
    Technique("X-chain", x_chain, 6.5, "expert"),
    Technique("XY-chain", xy_chain, 6.6, "expert"),
)

#: Technique name -> its rung.
BY_NAME = {t.name: t for t in LADDER}

#: Chain lengths (cells) past which a chain's score grows by 0.1 each, as SE's does.
CHAIN_STEPS = (4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)


def score(step: Step) -> float:
    """A step's score: the technique's, refined as SE does (a hidden single in a line is
    1.5, claiming 2.8, a chain 0.1 more for each of :data:`CHAIN_STEPS` it is longer than)."""
    if step.technique in ("stalled", "contradiction"):
        return SEARCH_SCORE if step.technique == "stalled" else 0.0
    base = BY_NAME[step.technique].score
    if step.kind == "line":
        return 1.5
    if step.technique == "locked candidates" and step.kind != "pointing":
        return 2.8
    if step.technique in ("X-chain", "XY-chain"):
        return round(base + 0.1 * sum(len(step.cells) > k for k in CHAIN_STEPS), 1)
    return base


@dataclass(frozen=True)
class Run:
    """What the logic solver did with one puzzle: its steps, the grid it reached (0 where
    open) and how it ended: ``solved``, ``stalled`` or ``contradiction``."""

    puzzle: Puzzle
    steps: tuple[Step, ...]
    grid: tuple[int, ...]
    status: str


def apply(board: Board, step: Step) -> None:
    """Make a step's placements and eliminations on the board."""
    for cell, value in step.placed:
        board.place(cell, value)
    for cell, value in step.removed:
        board.remove(cell, value)


def solve_logic(
    puzzle: Puzzle, ladder: Sequence[Technique] = LADDER, max_steps: int | None = None
) -> Run:
    """Climb the ladder on ``puzzle`` until it is solved, stalls or meets a contradiction
    (killer cages are refused: the ladder knows no sums)."""
    if puzzle.cages:
        raise ValueError("the logic solver does not handle killer cages")
    if puzzle.rules:
        raise ValueError("the logic solver does not handle variant rules")
    if puzzle.candidates is not None:
        raise ValueError("the logic solver does not take pencil-mark puzzles yet")
    board = Board(shape_of(puzzle.geometry), puzzle.givens)
    steps: list[Step] = []
    finders = [t.find for t in ladder]
    status = ""
    while not status:
        dead = board.dead()
        if dead is not None:
            cell, unit, value = dead
            steps.append(
                Step(
                    "contradiction",
                    (cell,) if cell >= 0 else (),
                    (value,) if value else (),
                    (unit,) if unit >= 0 else (),
                )
            )
            status = "contradiction"
        elif not board.open:
            status = "solved"
        elif max_steps is not None and len(steps) >= max_steps:
            status = "stalled"
            steps.append(Step("stalled", kind="max steps"))
        else:
            for find in finders:
                step = find(board)
                if step is not None:
                    apply(board, step)
                    steps.append(step)
                    break
            else:
                steps.append(Step("stalled"))
                status = "stalled"
    return Run(puzzle, tuple(steps), tuple(board.values), status)
