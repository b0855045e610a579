"""The public API: solve a puzzle, count its solutions, verify a grid."""

from __future__ import annotations

import collections
import dataclasses
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from .backends import BackendSpec, Result, Status, Worker, as_spec, get_backend, unsupported
from .backends.result import ERROR, INVALID, Answers
from .models import Model, Puzzle, build_model, parse_puzzle
from .models.grids import Grids


def as_puzzle(puzzle: Puzzle | str) -> Puzzle:
    """A Puzzle as given, or parsed from text in any format sudokulab reads."""
    return puzzle if isinstance(puzzle, Puzzle) else parse_puzzle(puzzle)


def solve(
    puzzle: Puzzle | str,
    backend: str | BackendSpec = "native",
    limit: int | None = 1,
    timeout: float | None = None,
    isolate: bool | None = None,
    worker: Worker | None = None,
    **options: Any,
) -> Result:
    """Solve a puzzle with a backend, finding up to ``limit`` solutions (None: all).

    ``backend`` is a name, a preset or a spec with options (``"native:order=first"``);
    keyword ``options`` are layered on top. Givens that break the rules give status
    ``invalid`` naming the clash; an unsolvable puzzle is a status, not an exception.
    With ``isolate`` the backend runs in a child process killed at the deadline; by
    default only a backend that cannot stop itself is isolated, and only with a timeout.
    Pass a :class:`Worker` to reuse one child process across many calls.

    >>> r = solve("4.....8.5.3..........7......2.....6.....8.4......1......."
    ...           "6.3.7.5..2.....1.4......")
    >>> r.status, r.count
    (<Status.SOLVED: 'solved'>, 1)
    """
    spec = as_spec(backend, **options)
    puzzle = as_puzzle(puzzle)
    clashes = puzzle.clashes()
    if clashes:
        return Result(str(spec), Status.INVALID, message="; ".join(map(str, clashes)))
    start = time.perf_counter()
    model = build_model(puzzle)
    build_time = time.perf_counter() - start
    result = solve_model(model, spec, limit, timeout, isolate, worker)
    return dataclasses.replace(result, build_time=result.build_time + build_time)


def solve_model(
    model: Model,
    spec: BackendSpec,
    limit: int | None = 1,
    timeout: float | None = None,
    isolate: bool | None = None,
    worker: Worker | None = None,
) -> Result:
    """Run one backend on a model, in this process or, isolated, in a worker.

    The given ``worker`` is used when the call is isolated (else a new one is started
    and stopped for this call alone).
    """
    chosen = get_backend(spec.backend)
    label = str(spec)
    if not chosen.available():
        hint = f": pip install {chosen.requires}" if chosen.requires else ""
        return Result(
            label, Status.ERROR, message=f"backend {chosen.name!r} is not installed{hint}"
        )
    lacking = unsupported(chosen, model)
    if lacking:  # capabilities are data: refuse rather than drop a constraint
        return Result(label, Status.ERROR, message=lacking)
    if isolate is None:
        isolate = timeout is not None and not chosen.stops_itself
    if not isolate:
        result = chosen.solve(model, limit, timeout, **spec.options)
    elif worker is not None:
        result = worker.solve(chosen.name, model, limit, timeout, spec.options)
    else:
        with Worker() as own:
            result = own.solve(chosen.name, model, limit, timeout, spec.options)
    return dataclasses.replace(result, backend=label)


def solve_grids(
    grids: Grids,
    backend: str | BackendSpec = "native",
    limit: int | None = 1,
    timeout: float | None = None,
    isolate: bool | None = None,
    worker: Worker | None = None,
    progress: Callable[[int], None] | None = None,
    **options: Any,
) -> Answers:
    """Solve a block of puzzles of one shape: what :func:`solve` does for each, in bulk.

    The givens are checked for clashes in bulk (a clashing puzzle is an ``invalid`` row
    naming the clash). A backend that declares ``batch`` (the native engine) gets every
    valid puzzle in one call (in ``worker`` when isolated); any other runs one puzzle
    at a time as :func:`solve` runs it. ``progress(k)`` is told each time ``k`` more
    rows are done.
    """
    spec = as_spec(backend, **options)
    label, cells = str(spec), grids.geometry.cell_count
    out = Answers.empty(label, len(grids), cells)
    clashing = grids.clashing()
    for i in np.flatnonzero(clashing).tolist():
        out.status[i] = INVALID
        out.messages[i] = "; ".join(map(str, grids.puzzle(i).clashes()))
    valid = np.flatnonzero(~clashing)
    if progress is not None and len(valid) < len(grids):
        progress(len(grids) - len(valid))
    if not len(valid):
        return out
    block = grids if len(valid) == len(grids) else grids.take(valid)
    chosen = get_backend(spec.backend)
    refusal = ""
    if not chosen.available():
        hint = f": pip install {chosen.requires}" if chosen.requires else ""
        refusal = f"backend {chosen.name!r} is not installed{hint}"
    else:
        refusal = unsupported(chosen, build_model(block.puzzle(0)))
    if refusal:
        out.status[valid] = ERROR
        out.messages.update(dict.fromkeys(valid.tolist(), refusal))
        if progress is not None:
            progress(len(valid))
        return out
    if isolate is None:
        isolate = timeout is not None and not chosen.stops_itself
    if chosen.batch and not isolate:
        answers = chosen.solve_grids(block, limit, timeout, **spec.options)
    elif chosen.batch and worker is not None:
        answers = worker.solve_grids(chosen.name, block, limit, timeout, spec.options)
    else:
        results = []
        for puzzle in block.puzzles():
            start = time.perf_counter()
            model = build_model(puzzle)
            build = time.perf_counter() - start
            result = solve_model(model, spec, limit, timeout, isolate, worker)
            results.append(dataclasses.replace(result, build_time=result.build_time + build))
            if progress is not None:
                progress(1)
        answers = Answers.from_results(label, results, cells)
        progress = None  # told already
    if progress is not None:
        progress(len(valid))
    answers.backend = label
    out.put(valid, answers)
    return out


def count(
    puzzle: Puzzle | str,
    limit: int | None = 1000,
    backend: str | BackendSpec = "native",
    timeout: float | None = None,
    **options: Any,
) -> int:
    """The number of solutions, counting no further than ``limit`` (None: no limit).

    Raises ValueError for clashing givens, and TimeoutError when the deadline, a work
    budget (the native engine's ``max_guesses``) or an error stops the count before it is
    settled.

    >>> count("1...............", limit=5)
    5
    """
    result = solve(puzzle, backend, limit, timeout, **options)
    if result.status is Status.INVALID:
        raise ValueError(f"invalid puzzle: {result.message}")
    if result.status is Status.TIMEOUT or result.status is Status.ERROR:
        raise TimeoutError(
            f"counting stopped after {result.count} solution(s): {result.status}"
            + (f" ({result.message})" if result.message else "")
        )
    return result.count


# --- rating ------------------------------------------------------------------------------

#: Puzzles per task when several processes rate (small: hard puzzles take a while each).
RATE_CHUNK = 64


def _rate_chunk(puzzles: list[Puzzle]) -> list[dict[str, Any]]:
    """The rating rows of some puzzles (run in a worker process when ``jobs`` > 1)."""
    from .logic.rating import rate_puzzle, rating_row

    rows = []
    for puzzle in puzzles:
        clashes = puzzle.clashes()
        if clashes:  # bad input, as for solve: not a puzzle without a solution
            rows.append({"status": "invalid", "message": "; ".join(map(str, clashes))})
            continue
        try:
            row = rating_row(rate_puzzle(puzzle))
        except ValueError as err:  # killer cages: the ladder knows no sums
            row = {"status": "error", "message": str(err)}
        rows.append(row)
    return rows


def rate_rows(
    puzzles: Iterable[Puzzle], jobs: int = 1, done: Callable[[int], None] | None = None
) -> Iterator[dict[str, Any]]:
    """The rating row of each puzzle (see :func:`rate`), in input order; ``jobs``
    processes share the work a chunk at a time, with only a few chunks in flight, and
    ``done(k)`` is told as each chunk of ``k`` puzzles is rated."""
    chunks = _chunks(puzzles, RATE_CHUNK)
    if jobs <= 1:
        for chunk in chunks:
            rows = _rate_chunk(chunk)
            if done:
                done(len(rows))
            yield from rows
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import resource_tracker

    from .backends.isolation import sigint_held

    window: collections.deque = collections.deque()
    resource_tracker.ensure_running()  # see sigint_held
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        try:
            for chunk in chunks:
                with sigint_held():  # the processes a submit starts are born deaf to Ctrl-C
                    window.append(pool.submit(_rate_chunk, chunk))
                while len(window) > 2 * jobs:
                    rows = window.popleft().result()
                    if done:
                        done(len(rows))
                    yield from rows
            while window:
                rows = window.popleft().result()
                if done:
                    done(len(rows))
                yield from rows
        except BaseException:  # Ctrl-C, or the reader stopped: no chunk is wanted any more
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def _chunks(items: Iterable[Puzzle], size: int) -> Iterator[list[Puzzle]]:
    chunk: list[Puzzle] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def rate(puzzles: Puzzle | str | Iterable[Puzzle | str], jobs: int = 1) -> Any:
    """Rate puzzles for a human solver: a pandas DataFrame, one row per puzzle.

    Columns: ``puzzle`` (as a line), ``status`` (solved, stalled, contradiction; invalid
    for clashing givens, error for a puzzle the logic solver refuses, both with a
    ``message``), ``hardest`` (the hardest technique used, or
    ``needs search``), ``score`` (on the ladder's scale, modelled on Sudoku Explainer:
    singles 1.2-2.3, locked candidates 2.6-2.8, ..., 10.0 when search is needed),
    ``grade`` (easy, medium, hard, expert, extreme), ``needs_search``, ``steps``, then the
    number of steps of each technique of the ladder.

    >>> rate("4.3...1.2.......")[["status", "hardest", "score", "grade"]].values.tolist()
    [['solved', 'hidden single', 1.2, 'easy']]
    """
    import pandas as pd

    from .logic.ladder import LADDER
    from .logic.rating import COLUMNS

    if isinstance(puzzles, Puzzle | str):
        puzzles = [puzzles]
    parsed = [as_puzzle(p) for p in puzzles]
    rows = [
        {"puzzle": str(p), **row} for p, row in zip(parsed, rate_rows(parsed, jobs), strict=True)
    ]
    columns = ["puzzle", *COLUMNS, *(t.name for t in LADDER)]
    if any("message" in row for row in rows):
        columns.append("message")
    return pd.DataFrame(rows, columns=columns)
