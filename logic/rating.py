"""A puzzle's rating from the logic solver's steps: the hardest technique, its score on
the ladder's scale, a grade, and how often each technique was used."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..models import Puzzle
from .ladder import BY_NAME, GRADES, LADDER, Run, Technique, score, solve_logic


@dataclass(frozen=True)
class Rating:
    """How hard a puzzle is for a human solver climbing the ladder.

    ``hardest`` is the technique of the highest-scoring step (the higher rung on a tie;
    ``needs search`` when the ladder stalls, ``no solution`` on a contradiction),
    ``score`` that step's score
    (``SEARCH_SCORE`` when stalled, 0.0 on a contradiction), ``grade`` one of
    :data:`GRADES` (the hardest grade of the techniques used; ``extreme`` when stalled)
    or ``no solution``, and ``counts`` the steps of each technique.
    """

    puzzle: Puzzle
    status: str
    hardest: str
    score: float
    grade: str
    counts: dict[str, int]
    run: Run

    @property
    def needs_search(self) -> bool:
        """The ladder stalled: the rest of the puzzle needs search."""
        return self.status == "stalled"


def rate_run(run: Run) -> Rating:
    """The rating of a finished run."""
    counts = Counter(s.technique for s in run.steps if s.technique in BY_NAME)
    if run.status == "contradiction":
        return Rating(run.puzzle, run.status, "no solution", 0.0, "no solution", dict(counts), run)
    scored = [s for s in run.steps if s.technique in BY_NAME]
    rung = {t.name: i for i, t in enumerate(LADDER)}
    top = max(scored, key=lambda s: (score(s), rung[s.technique]), default=None)
    if run.status == "stalled":
        return Rating(
            run.puzzle,
            run.status,
            "needs search",
            score(run.steps[-1]),
            "extreme",
            dict(counts),
            run,
        )
    grade = max((GRADES.index(BY_NAME[name].grade) for name in counts), default=0)
    hardest = top.technique if top is not None else "none"
    value = score(top) if top is not None else 0.0
    return Rating(run.puzzle, run.status, hardest, value, GRADES[grade], dict(counts), run)


def rate_puzzle(puzzle: Puzzle, ladder: Sequence[Technique] = LADDER) -> Rating:
    """Solve ``puzzle`` with the ladder and rate it."""
    return rate_run(solve_logic(puzzle, ladder))


#: The columns of a rating row, before one count column per technique of the ladder.
COLUMNS = ("status", "hardest", "score", "grade", "needs_search", "steps")


def rating_row(rating: Rating) -> dict[str, object]:
    """A rating as a flat row: :data:`COLUMNS`, then the count of every technique."""
    row: dict[str, object] = {
        "status": rating.status,
        "hardest": rating.hardest,
        "score": rating.score,
        "grade": rating.grade,
        "needs_search": rating.needs_search,
        "steps": sum(rating.counts.values()),
    }
    row.update({t.name: rating.counts.get(t.name, 0) for t in LADDER})
    return row
