"""The public API: solve a puzzle, count its solutions, verify a grid."""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from .backends import BackendSpec, Result, Status, as_spec, get_backend
from .backends.base import (
    Backend,
    Request,
    Unsupported,
    admit,
    check_limit,
    check_timeout,
    runs_in_process,
    warm_up,
)
from .backends.result import ERROR, INVALID, Answers
from .models import Grid, Model, Puzzle, build_model, fault, parse_puzzle

if TYPE_CHECKING:  # numpy: imported by the block path alone (solve FILE, the bench)
    import numpy as np

    from .backends.isolation import Worker
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
    certify: bool = False,
    **options: Any,
) -> Result:
    """Solve a puzzle with a backend, finding up to ``limit`` solutions (None: all).

    ``backend`` is a name, a preset or a spec with options (``"native:order=first"``);
    keyword ``options`` are layered on top. ``timeout`` (seconds, finite and above 0, or
    None) counts from this call, once the backend is found (its module imported, as its
    solver package's import is no part of a request): parsing, building the model and the
    backend's own form of it are inside it, and a verdict reached after it is a
    ``timeout``. Givens that break the rules give status ``invalid`` naming the clash; an
    unsolvable puzzle is a status, not an exception; a bad option, limit or timeout is a
    ValueError naming it. Every solution is verified here (:func:`~sudokulab.models.fault`):
    one that breaks a rule or a given makes the result an ``error`` naming what it breaks
    (the grids kept, to be shown), so a caller need not verify.
    With ``isolate`` the backend runs in a child process killed at the deadline; by
    default only a backend that cannot stop itself is isolated (and only with a timeout),
    or one that may not run in this process (on this grid: ``in_process_cells``).
    Pass a :class:`Worker` to reuse one child process across many calls.
    With ``certify`` a negative claim (unsolvable, unique, an exact count) comes with a
    checked proof, the result's ``certificate`` (:func:`certified`).

    >>> r = solve("4.....8.5.3..........7......2.....6.....8.4......1......."
    ...           "6.3.7.5..2.....1.4......")
    >>> r.status, r.count
    (<Status.SOLVED: 'solved'>, 1)
    """
    spec = as_spec(backend, **options)  # the backend's module imported (numpy, for sat)
    check_limit(limit)
    check_timeout(timeout)
    start = time.perf_counter()
    puzzle = as_puzzle(puzzle)
    clashes = puzzle.clashes()
    if clashes:
        message = "; ".join(map(str, clashes))
        return Result(str(spec), Status.INVALID, build_time=time.perf_counter() - start,
                      message=message)  # fmt: skip
    model = build_model(puzzle)
    return solve_model(model, spec, limit, timeout, isolate, worker, start, certify)


def solve_model(
    model: Model,
    spec: BackendSpec,
    limit: int | None = 1,
    timeout: float | None = None,
    isolate: bool | None = None,
    worker: Worker | None = None,
    start: float | None = None,
    certify: bool = False,
) -> Result:
    """Run one backend on a model, in this process or, isolated, in a worker: the
    request admitted here, once (ValueError for a bad one; a constraint kind the
    backend does not take is an ``error`` result), and every solution verified, as
    :func:`solve` says.

    ``start`` (``time.perf_counter``, default now) is when the request began. The given
    ``worker`` is used when the call is isolated (else a new one is started and stopped
    for this call alone); starting it and warming the backend up in it are no part of
    the request's time, nor, in this process, is warming the backend up (its solver
    package imported, once) before a request with a timeout.
    """
    result = _checked(
        _run_model(model, spec, limit, timeout, isolate, worker, start, certify), model.puzzle
    )
    return certified(result, model) if certify else result


def _run_model(
    model: Model,
    spec: BackendSpec,
    limit: int | None,
    timeout: float | None,
    isolate: bool | None,
    worker: Worker | None,
    start: float | None,
    certify: bool = False,
) -> Result:
    """:func:`solve_model` but for the verification (a block verifies its rows in bulk)."""
    if start is None:
        start = time.perf_counter()
    chosen = get_backend(spec.backend)
    label = str(spec)
    if not chosen.available():
        return Result(label, Status.ERROR, message=_missing(chosen))
    try:
        request = admit(chosen, model, limit, timeout, spec.options, start, certify)
    except Unsupported as err:  # capabilities are data: refuse rather than drop a constraint
        return Result(label, Status.ERROR, message=str(err))
    if not _isolated(chosen, request, isolate, model):
        if request.timeout is not None:
            request = _warmed(chosen, request)
        result = chosen.run(model, request)
    else:
        with contextlib.ExitStack() as stack:
            if worker is None:
                from .backends.isolation import Worker

                worker = stack.enter_context(Worker())
            result = worker.run(chosen.name, model, _prepared(worker, chosen, request))
    return dataclasses.replace(result, backend=label)


def claimed(result: Result) -> tuple[Grid, ...] | None:
    """The solutions a result claims are all there are (none: unsolvable), or None when
    it makes no such claim (a first solution, a count stopped at its limit, a timeout, a
    count beyond the grids kept)."""
    if not result.exact:
        return None
    if result.status is Status.UNSOLVABLE:
        return ()
    if result.status in (Status.SOLVED, Status.MULTIPLE) and result.count == len(result.solutions):
        return result.solutions
    return None


def certified(result: Result, model: Model) -> Result:
    """``result`` with its negative claim proved and checked (:mod:`sudokulab.certify`):
    the backend's own proof when it wrote one, else a second solver's. A claim the proof
    search refutes makes the result an ``error`` naming the grid the claim left out; a
    claim that cannot be put as a CNF (a sum too long) keeps the result, with a message."""
    from .certify.prove import second_opinion
    from .models.formats import format_line

    solutions = claimed(result)
    if solutions is None:
        return result
    made = result.certificate
    if made is None:
        try:
            made = second_opinion(model, solutions)
        except ValueError as err:
            note = f"not certified: {err}"
            return dataclasses.replace(
                result, message=f"{result.message}; {note}" if result.message else note
            )
    made = made.checked()
    if made.refuted is not None:
        why = f"{made.claim} is refuted: its CNF also allows {format_line(list(made.refuted))}"
        return dataclasses.replace(result, status=Status.ERROR, message=why, certificate=made)
    return dataclasses.replace(result, certificate=made)


def _wrong(backend: str, why: str) -> str:
    """The message of an answer whose solution fails verification (``why``: its fault)."""
    return f"{backend} gave a solution that breaks the rules or the givens: {why}"


def _checked(result: Result, puzzle: Puzzle) -> Result:
    """The result once each of its solutions is verified: an ``error`` naming the first
    fault (its solutions kept) when one breaks a rule or a given (a backend's bug)."""
    for grid in result.solutions:
        wrong = fault(puzzle, grid)
        if wrong:
            message = _wrong(result.backend, wrong)
            return dataclasses.replace(result, status=Status.ERROR, exact=False, message=message)
    return result


def _checked_block(answers: Answers, grids: Grids, verified: np.ndarray | None = None) -> Answers:
    """:func:`_checked` of every row, in bulk (:meth:`~sudokulab.models.grids.Grids.verify`,
    or ``verified`` when that was computed already): the answers' ``verified`` column set,
    each row with a solution that fails made an ``error`` naming its fault. In place."""
    import numpy as np

    if verified is None:
        verified = grids.verify(answers.solution)
    answers.verified = verified
    wrong = answers.solution.any(axis=1) & ~verified
    for i in np.flatnonzero(wrong).tolist():
        why = fault(grids.puzzle(i), answers.solution[i].tolist())
        answers.messages[i] = _wrong(answers.backend, why)
    answers.status[wrong] = ERROR
    answers.exact[wrong] = False
    return answers


def _isolated(backend: Backend, request: Request, isolate: bool | None, model: Model) -> bool:
    """Whether the request runs in a worker: as asked, else when the backend may not run
    on ``model`` in this process, or cannot keep the request's deadline itself."""
    if isolate is not None:
        return isolate
    if not runs_in_process(backend, model, request.options):
        return True
    return request.timeout is not None and not backend.stops_itself_with(request.options)


def _warmed(backend: Backend, request: Request) -> Request:
    """The request, once the backend is warmed up in this process (the first time: its
    solver package imported, on a 4x4 grid with one cell open); the clock paused, as for
    a worker (:func:`_prepared`): under load an import took seconds of a deadline."""
    paused = time.perf_counter()
    if not warm_up(backend, request.options):
        return request
    return request.at(request.start + time.perf_counter() - paused)


def _prepared(worker: Worker, backend: Backend, request: Request) -> Request:
    """The request, once ``worker`` is ready for the backend; the clock paused meanwhile
    (starting a process and importing a solver package are no part of a request)."""
    paused = time.perf_counter()
    worker.prepare(backend.name, dict(request.options))
    return request.at(request.start + time.perf_counter() - paused)


def _missing(backend: Backend) -> str:
    missing = backend.missing()  # more than its package: in its own words
    if missing:
        return f"backend {backend.name!r} cannot run here: {missing}"
    hint = f": pip install {backend.requires}" if backend.requires else ""
    return f"backend {backend.name!r} is not installed{hint}"


def solve_grids(
    grids: Grids,
    backend: str | BackendSpec = "native",
    limit: int | None = 1,
    timeout: float | None = None,
    isolate: bool | None = None,
    worker: Worker | None = None,
    progress: Callable[[int], None] | None = None,
    stop: threading.Event | None = None,
    **options: Any,
) -> Answers:
    """Solve a block of puzzles of one shape: what :func:`solve` does for each, in bulk.

    The givens are checked for clashes in bulk (a clashing puzzle is an ``invalid`` row
    naming the clash). A backend that declares ``batch`` (the native engine) gets every
    valid puzzle in one call (in ``worker`` when isolated; each puzzle with the whole
    timeout from its own start), any other one puzzle at a time as :func:`solve` runs
    it. A block whose worker was killed (or died) is solved again one puzzle at a time,
    so that each row's answer and time are its own. ``progress(k)`` is told each time
    ``k`` more rows are done; once ``stop`` is set, puzzles not yet run are ``error``
    rows saying so. Every row's solution is verified here, in bulk, as :func:`solve`
    verifies: the answers' ``verified`` column says which verify
    (:meth:`~sudokulab.models.grids.Grids.verify`), and a row whose solution fails is an
    ``error`` naming its fault.
    """
    import numpy as np

    spec = as_spec(backend, **options)
    check_limit(limit)
    check_timeout(timeout)
    label, cells = str(spec), grids.geometry.cell_count
    out = Answers.empty(label, len(grids), cells)
    if not len(grids):
        return _checked_block(out, grids)
    chosen = get_backend(spec.backend)
    try:
        refusal = "" if chosen.available() else _missing(chosen)
        if not refusal:  # the block's puzzles share the model's kinds: any one stands for all
            first = build_model(grids.puzzle(0))
            request = admit(chosen, first, limit, timeout, spec.options)
    except Unsupported as err:
        refusal = str(err)
    if (
        not refusal
        and chosen.takes_clashes
        and chosen.batch
        and not _isolated(chosen, request, isolate, first)
    ):
        # one call over every row: a verified solution proves its givens do not clash, so
        # only the rest are checked for clashes, after the search instead of before it
        answers = chosen.run_grids(grids, request.at(time.perf_counter()))
        answers.backend = label
        verified = grids.verify(answers.solution)
        suspects = np.flatnonzero(~verified)
        clashing = suspects[grids.take(suspects).clashing()]
        if len(clashing):
            answers.put(clashing, Answers.empty(label, len(clashing), cells))
            _invalid(answers, grids, clashing)
            if len(clashing) == len(grids):  # no puzzle was searched: no stats in common
                answers.common = {}
        if progress is not None:
            progress(len(grids))
        return _checked_block(answers, grids, verified)
    clashing = grids.clashing()
    _invalid(out, grids, np.flatnonzero(clashing))
    valid = np.flatnonzero(~clashing)
    if progress is not None and len(valid) < len(grids):
        progress(len(grids) - len(valid))
    if not len(valid):
        return _checked_block(out, grids)
    block = grids if len(valid) == len(grids) else grids.take(valid)
    if refusal:
        out.status[valid] = ERROR
        out.messages.update(dict.fromkeys(valid.tolist(), refusal))
        if progress is not None:
            progress(len(valid))
        return _checked_block(out, grids)
    isolated = _isolated(chosen, request, isolate, first)
    with contextlib.ExitStack() as stack:
        if isolated and worker is None:
            from .backends.isolation import Worker

            worker = stack.enter_context(Worker())
        answers = None
        if chosen.batch and not isolated:
            answers = chosen.run_grids(block, request.at(time.perf_counter()))
        elif chosen.batch:
            assert worker is not None
            answers = worker.run_grids(chosen.name, block, _prepared(worker, chosen, request))
        if answers is None:  # one puzzle at a time (or again, after a killed block)
            answers = _one_by_one(block, spec, limit, timeout, isolated, worker, progress, stop)
            progress = None  # told already
    if progress is not None:
        progress(len(valid))
    answers.backend = label
    out.put(valid, answers)
    return _checked_block(out, grids)


def _invalid(answers: Answers, grids: Grids, rows: np.ndarray) -> None:
    """Rows ``rows`` of the answers as invalid puzzles, each naming its clashes."""
    for i in rows.tolist():
        answers.status[i] = INVALID
        answers.messages[i] = "; ".join(map(str, grids.puzzle(i).clashes()))


def _one_by_one(
    block: Grids,
    spec: BackendSpec,
    limit: int | None,
    timeout: float | None,
    isolated: bool,
    worker: Worker | None,
    progress: Callable[[int], None] | None,
    stop: threading.Event | None,
) -> Answers:
    """Each puzzle of the block as its own request, as :func:`solve` runs it (verified
    with the block's rows)."""
    results = []
    for puzzle in block.puzzles():
        if stop is not None and stop.is_set():
            results.append(Result(str(spec), Status.ERROR, message="not run: stopped"))
            continue
        start = time.perf_counter()
        model = build_model(puzzle)
        results.append(_run_model(model, spec, limit, timeout, isolated, worker, start))
        if progress is not None:
            progress(1)
    return Answers.from_results(str(spec), results, block.geometry.cell_count)


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


def export(puzzle: Puzzle | str, format: str = "dimacs", encoding: str | None = None) -> str:
    """The puzzle's model as a file for an outside solver: ``format`` one of dimacs, opb,
    mps, lp, smt2, mzn, xcsp3 (``sudokulab.interchange.FORMATS``), ``encoding`` one of the
    format's (for dimacs the SAT backend's: optimized, extended, minimal; default the first).

    The model is the one the backends solve. ValueError for clashing givens, an unknown
    format or encoding, or a model the format cannot carry (``interchange.Refused``).

    >>> print(export("1" + "." * 15, "dimacs", "minimal").splitlines()[0])
    c sudokulab export, format dimacs, encoding minimal
    """
    from .interchange import export_model

    puzzle = as_puzzle(puzzle)
    clashes = puzzle.clashes()
    if clashes:
        raise ValueError(f"invalid puzzle: {'; '.join(map(str, clashes))}")
    return export_model(build_model(puzzle), format, encoding)


def import_solution(
    puzzle: Puzzle | str,
    text: str,
    format: str,
    encoding: str | None = None,
    source: str = "<solution>",
) -> Result:
    """An outside solver's answer (its output ``text``) to the file :func:`export` wrote,
    decoded and verified: a Result named ``import:FORMAT``, ``solved`` with the grid,
    ``unsolvable`` when the solver says so, ``timeout`` when it gave up.

    ParseError (placed in ``source``) when the text cannot be read; ``WrongSolution`` (a
    ValueError naming the cell) when the grid breaks a rule or a given; the encoding must
    be the one exported with.
    """
    from .interchange import SOLVED, UNSOLVABLE, read_answer

    puzzle = as_puzzle(puzzle)
    answer = read_answer(build_model(puzzle), text, format, encoding, source)
    label = f"import:{format}"
    if answer.status == SOLVED:
        return Result(label, Status.SOLVED, (answer.grid,), count=1)
    if answer.status == UNSOLVABLE:
        return Result(label, Status.UNSOLVABLE, exact=True)
    return Result(label, Status.TIMEOUT, message="the solver did not decide")
