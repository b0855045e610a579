"""Cross-checking: every backend on every puzzle, verified and compared.

Each answer is checked by the independent verifier, against a known solution when the
input has one, and against the other backends' answers: they must agree on whether the
puzzle has no solution, one (and which), or several. Disagreements are reported, never
hidden.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..api import as_puzzle, solve
from ..backends import BackendSpec, Result, Status, Worker, all_backends, as_spec, get_backend
from ..models import Entry, Grid, Puzzle, format_line, is_solution
from .progress import Progress

if TYPE_CHECKING:
    import pandas as pd

#: Statuses that settle a puzzle; the others (timeout, error) are failures to answer.
CONCLUSIVE = ("solved", "unsolvable", "multiple", "invalid")

COLUMNS = [
    "index", "source", "puzzle", "backend", "status", "count", "unique", "time",
    "build_time", "solve_time", "verified", "known", "agrees", "ok", "solution", "message",
]  # fmt: skip


def available_specs() -> list[BackendSpec]:
    """Every registered backend that can run here, in the default order."""
    return [BackendSpec(name) for name, b in all_backends().items() if b.available()]


def verdict(status: str, solution: object) -> tuple:
    """What an answer says about a puzzle: which solution, or only how the search ended.

    Two backends agree when their verdicts are equal. With a uniqueness check (limit 2)
    ``solved`` means exactly one solution, so equal verdicts mean the same unique grid.
    """
    return (str(status), solution) if str(status) == "solved" else (str(status),)


def agreement_flags(
    answers: Sequence[tuple[str, str, object]], compare_solutions: bool
) -> list[bool | None]:
    """For each (backend, status, solution) answer to one puzzle: does its verdict match
    the other backends'?

    Only conclusive answers are compared: a timeout or an error has no verdict (None), and
    neither has any answer when fewer than two backends answered conclusively. With
    ``compare_solutions`` (a uniqueness check) ``solved`` claims the one solution, so the
    grids must be equal; without it any valid solution is a right answer (the verifier
    judges each).

    >>> agreement_flags([("a", "solved", "12"), ("b", "timeout", None), ("c", "solved", "12")],
    ...                 compare_solutions=True)
    [True, None, True]
    """
    conclusive = [(b, s, sol) for b, s, sol in answers if str(s) in CONCLUSIVE]
    verdicts = {verdict(s, sol if compare_solutions else None) for _, s, sol in conclusive}
    answered = len({b for b, _, _ in conclusive}) >= 2
    return [
        len(verdicts) == 1 if answered and str(s) in CONCLUSIVE else None for _, s, _ in answers
    ]


def _run(spec: BackendSpec, puzzle: Puzzle, timeout: float | None, worker: Worker | None):
    """One backend on one puzzle with limit 2; a crash costs this row only."""
    try:
        return solve(puzzle, spec, 2, timeout, worker=worker)
    except Exception as err:  # report it as this backend's answer, keep going
        return Result(str(spec), Status.ERROR, message=f"{type(err).__name__}: {err}")


def cross_check(
    puzzles: Iterable[Puzzle | str | Entry],
    backends: Sequence[str | BackendSpec] | None = None,
    timeout: float | None = 10.0,
    solutions: Sequence[Grid | None] | None = None,
    progress: bool = False,
) -> pd.DataFrame:
    """Run every backend on every puzzle (limit 2) and compare; one row per pair.

    Columns: ``index``, ``source``, ``puzzle``, ``backend``, ``status``, ``count``,
    ``unique``, ``time``, ``build_time``, ``solve_time``, ``verified`` (the independent
    verifier accepts the solution; None without one), ``known`` (it equals the known
    solution; None without one), ``agrees`` (this row's verdict is the other backends':
    no solution, the same unique solution, or several; None for a timeout or an error,
    and when fewer than two backends answered), ``ok`` (the row is conclusive, verified,
    matches what is known, and does not disagree), ``solution``, ``message``.
    Backends that cannot stop themselves run in one child process each, killed at the
    deadline. ``solutions`` gives known solutions in puzzle order (default: the ones an
    :class:`Entry` carries). With ``progress``, a bar (or periodic lines) on stderr.
    """
    import pandas as pd

    specs = [as_spec(b) for b in backends] if backends is not None else available_specs()
    if not specs:
        raise ValueError("no backend to check with")
    puzzles = list(puzzles)
    rows: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        bar = (
            stack.enter_context(Progress(len(puzzles) * len(specs), "check")) if progress else None
        )
        workers = {
            str(s): stack.enter_context(Worker())
            for s in specs
            if not get_backend(s.backend).stops_itself
        }
        for index, item in enumerate(puzzles):
            if isinstance(item, Entry):
                puzzle, known, source = item.puzzle, item.solution, f"{item.source}:{item.line}"
            else:
                puzzle, known, source = as_puzzle(item), None, ""
            if solutions is not None:
                known = solutions[index]
            results = []
            for spec in specs:
                results.append(_run(spec, puzzle, timeout, workers.get(str(spec))))
                if bar is not None:
                    bar.update(str(spec))
            flags = agreement_flags(
                [(r.backend, r.status, r.solution) for r in results], compare_solutions=True
            )
            for result, agrees in zip(results, flags, strict=True):
                grid = result.solution
                verified = is_solution(puzzle, grid) if grid is not None else None
                matches = (tuple(grid) == tuple(known)) if grid and known else None
                ok = (
                    result.status in CONCLUSIVE
                    and result.status is not Status.INVALID
                    and agrees is not False
                    and verified is not False
                    and matches is not False
                )
                rows.append(
                    {
                        "index": index,
                        "source": source,
                        "puzzle": format_line(puzzle),
                        "backend": result.backend,
                        "status": str(result.status),
                        "count": result.count,
                        "unique": result.unique,
                        "time": result.time,
                        "build_time": result.build_time,
                        "solve_time": result.solve_time,
                        "verified": verified,
                        "known": matches,
                        "agrees": agrees,
                        "ok": ok,
                        "solution": format_line(grid) if grid else "",
                        "message": result.message,
                    }
                )
    return pd.DataFrame(rows, columns=COLUMNS)


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    """Per backend: how many puzzles, by status, verified, known matches, agreement, time."""
    by = frame.groupby("backend", sort=False)
    summary = by.agg(
        puzzles=("index", "size"),
        solved=("status", lambda s: int((s == "solved").sum())),
        multiple=("status", lambda s: int((s == "multiple").sum())),
        unsolvable=("status", lambda s: int((s == "unsolvable").sum())),
        timeout=("status", lambda s: int((s == "timeout").sum())),
        error=("status", lambda s: int((s == "error").sum())),
        invalid=("status", lambda s: int((s == "invalid").sum())),
        verified=("verified", lambda s: int((s == True).sum())),  # noqa: E712
        known=("known", lambda s: int((s == True).sum())),  # noqa: E712
        agrees=("agrees", lambda s: int((s == True).sum())),  # noqa: E712
        mean_ms=("time", lambda s: round(s.mean() * 1000, 3)),
    )
    return summary
