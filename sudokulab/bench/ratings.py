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
    """Rate the run's unrated puzzles into ``store``, a page at a time (each page stored
    before the next is read: memory stays bounded, and Ctrl-C keeps the pages rated);
    how many were rated. A puzzle the logic solver refuses (killer cages) is stored with
    status ``error`` and no grade."""
    bar = Progress(store.unrated_count(run_id), "rate") if progress else None
    told = (lambda k: bar.update("logic solver", k)) if bar else None
    rated = 0
    try:
        for texts in store.unrated(run_id):
            puzzles, kept, rows = [], [], []
            for text in texts:
                try:
                    puzzles.append(parse_puzzle(text))
                    kept.append(text)
                except ParseError:  # cannot happen for texts the bench stored; never fatal
                    rows.append((text, "error", None, None, None, None))
            try:
                for text, row in zip(kept, rate_rows(puzzles, jobs, told), strict=True):
                    if row["status"] in ("error", "invalid"):
                        rows.append((text, row["status"], None, None, None, None))
                    else:
                        rows.append(
                            (text, row["status"], row["hardest"], row["score"], row["grade"],
                             row["steps"])
                        )  # fmt: skip
            finally:
                store.add_ratings(rows)
                rated += len(rows)
    finally:
        if bar:
            bar.close()
    return rated
