"""``bench --rate``: the human difficulty of each puzzle of a run, beside its times.

The logic solver rates every distinct puzzle of the run that the store has not rated
yet (a puzzle is rated once, whatever backends and runs solved it); the report then
shows the backends' times by grade (:func:`~.report.by_grade`).
"""

from __future__ import annotations

from ..api import rate_rows
from ..models import ParseError, parse_puzzle
from .progress import Progress
from .store import Store


def rate_run_puzzles(store: Store, run_id: int, jobs: int = 1, progress: bool = True) -> int:
    """Rate the run's unrated puzzles into ``store``; how many were rated. A puzzle the
    logic solver refuses (killer cages) is stored with status ``error`` and no grade."""
    texts = store.unrated(run_id)
    if not texts:
        return 0
    puzzles, kept = [], []
    for text in texts:
        try:
            puzzles.append(parse_puzzle(text))
            kept.append(text)
        except ParseError:  # cannot happen for texts the bench stored; never fatal
            store.add_ratings([(text, "error", None, None, None, None)])
    bar = Progress(len(puzzles), "rate") if progress else None
    told = (lambda k: bar.update("logic solver", k)) if bar else None
    rows = []
    try:
        for text, row in zip(kept, rate_rows(puzzles, jobs, told), strict=True):
            if row["status"] in ("error", "invalid"):
                rows.append((text, row["status"], None, None, None, None))
            else:
                rows.append(
                    (text, row["status"], row["hardest"], row["score"], row["grade"], row["steps"])
                )
    finally:
        if bar:
            bar.close()
        store.add_ratings(rows)
    return len(rows)
