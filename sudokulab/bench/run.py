"""The bench: run backend specs over puzzle sets and keep every result.

Sets x specs x repeats become chunks of work (:mod:`.plan`: puzzles of one shape from one
set, for one repeat), an executor runs them (:mod:`.executors`, through the API, which
verifies every answer), and each chunk's rows are built from its answers column by
column and committed to the store in one transaction, in the plan's order, as soon as
the chunk and those before it are in; ``resume`` finishes an interrupted run without
repeating any row. Once every row is in, each row's agreement with the other backends is
computed in SQL for the whole run at once and written.

Memory is bounded by the chunks in flight, not by the run: a set is read as a stream of
blocks (a first pass counts it), the executor takes chunks as it has room for them, and
agreement and reports are computed where the rows are, in the store.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Callable, Iterable, Iterator
from itertools import repeat
from typing import Any

import numpy as np

from ..backends import BackendSpec, as_spec
from ..backends.result import INVALID, Answers
from ..models import ParseError, Puzzle, format_line
from ..models.documents import dumps, to_document
from ..models.grids import Grids, format_lines
from .executors import CHUNK, Executor, LocalExecutor, Measured
from .plan import (
    BenchPlan,
    Chunk,
    SetBlock,
    Survey,
    iter_blocks,
    set_chunks,
    skip_reason,
    survey,
)
from .progress import Progress
from .store import COUNTERS, ChunkRows, Store, agreement_query

#: What ``load(set_name, plan)`` gives: the set's blocks, or its (index, puzzle) pairs, and
#: its bad lines as ParseErrors, in order; it is called once per pass over the set.
Loader = Callable[[str, BenchPlan], Iterable[SetBlock | tuple[int, Puzzle] | ParseError]]


class BenchInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a bench; ``run_id`` is its run (None when no row was stored: the
    run was never recorded)."""

    def __init__(self, run_id: int | None) -> None:
        super().__init__(run_id)
        self.run_id = run_id


class NothingToRun(ValueError):
    """A new run with no work: no set has a puzzle, or every spec skips every set."""


def puzzle_text(puzzle: Puzzle) -> str:
    """The puzzle as a row stores it: its line of givens, or for a variant (extra units,
    jigsaw regions, cages, another box shape) its JSON document, which says all of it."""
    document = to_document(puzzle)
    if set(document) <= {"size", "givens"}:
        return format_line(puzzle)
    return dumps(puzzle)


def puzzle_texts(grids: Grids) -> list[str]:
    """:func:`puzzle_text` of each puzzle of a block; one array operation for a classic
    shape (a block's puzzles share their shape, so the first one tells)."""
    if not len(grids):
        return []
    if set(to_document(grids.puzzle(0))) <= {"size", "givens"}:
        return format_lines(grids.givens).splitlines()
    return [dumps(puzzle) for puzzle in grids.puzzles()]


def chunk_rows(
    chunk: Chunk, answers: Answers, worker: str | None = None, measured: Measured | None = None
) -> ChunkRows:
    """The store's rows of a chunk (:class:`~.store.ChunkRows`), built column by column
    from its answers: solutions formatted in bulk, each row's ``verified`` as
    :func:`sudokulab.solve_grids` found it (NULL where nothing says); ``worker`` is where
    the chunk ran, and ``measured`` what each row used (CPU time, peak memory) and, with
    ``certify``, what its proof came to, when the executor says (else, and where a row
    was not measured or proved nothing, NULL): a claim no proof could be made of (its CNF
    refused: the row's error says why) is ``proved`` 0, as a rejected proof, for a
    certified run trusts only what was proved.

    An ``invalid`` row (clashing givens: no backend ran) has no counters or stats.
    """
    k = len(chunk)
    invalid = answers.status == INVALID
    has = answers.solution.any(axis=1)
    where = np.flatnonzero(has).tolist()
    solutions: list[str | None] = [None] * k
    verified: list[int | None] = [None] * k
    texts = format_lines(answers.solution[has]).splitlines()
    said = answers.verified  # the API verified every row (a failing one is an error row)
    checks = [None] * len(where) if said is None else said[has].tolist()
    for i, text, ok in zip(where, texts, checks, strict=True):
        solutions[i], verified[i] = text, None if ok is None else int(ok)
    errors: list[str | None] = [None] * k
    for i, message in answers.messages.items():
        errors[i] = message or None
    shared, (nodes, guesses, backtracks), own = _stats_columns(answers, invalid)
    indices = chunk.indices.tolist()
    cpu, peak = (
        ([None] * k, [None] * k)
        if measured is None
        else ([_or_none(v) for v in c.tolist()] for c in (measured.cpu_s, measured.peak_mb))
    )
    proofs = measured.proofs if measured is not None else None
    proved, lines, size, check = (
        [[None] * k] * 4
        if proofs is None
        else [
            [None if v != v else kind(v) for v in column.tolist()]
            for column, kind in (
                (np.where(proofs.unproved, 0.0, proofs.proved), int), (proofs.lines, int),
                (proofs.size, int), (proofs.check_s, float),
            )
        ]
    )  # fmt: skip
    rows = list(
        zip(
            indices,
            repeat(chunk.repeat),
            answers.status_names().tolist(),
            solutions,
            answers.count.tolist(),
            verified,
            repeat(None),  # agrees: once every row of the run is in
            answers.time.tolist(),
            answers.build_time.tolist(),
            answers.solve_time.tolist(),
            nodes,
            guesses,
            backtracks,
            own,
            errors,
            cpu,
            peak,
            proved,
            lines,
            size,
            check,
        )
    )
    puzzles = list(zip(indices, puzzle_texts(chunk.grids), strict=True))
    return ChunkRows(chunk.set, answers.backend, worker, shared, puzzles, rows)


def _stats_columns(
    answers: Answers, invalid: np.ndarray
) -> tuple[str | None, list[list[int | None]], list[str | None]]:
    """What the store keeps of a chunk's stats: the JSON every row shares (the native
    engine's knobs: once per chunk, not per row), each counter's column, and each row's
    own stats as JSON beyond those (None when it has nothing else).

    The store's ``results`` view merges them back into each row's whole stats, as
    ``Result.stats`` has them (an invalid row: none).
    """
    k = len(answers)
    if answers.stats is None:  # the rows share their stats but for the counters
        counters = [
            [
                v if v >= 0 and ok else None
                for v, ok in zip(column.tolist(), (~invalid).tolist(), strict=True)
            ]
            for column in (answers.nodes, answers.guesses, answers.backtracks)
        ]
        shared = _json(answers.common) if answers.common and not invalid.all() else None
        return shared, counters, [None] * k
    counters = [[None] * k for _ in COUNTERS]
    own: list[str | None] = [None] * k
    for i in range(k):
        if invalid[i]:
            continue
        stats = answers.stats_of(i)
        for c, name in enumerate(COUNTERS):
            if type(stats.get(name)) is int:  # a counter; anything else stays in the text
                counters[c][i] = stats.pop(name)
        own[i] = _json(stats) if stats else None
    return None, counters, own


def _or_none(value: float) -> float | None:
    """A measured value as the store keeps it: NaN (not measured) as NULL."""
    return None if value != value else value


def _json(stats: dict[str, Any]) -> str:
    return json.dumps(stats, sort_keys=True, default=str)


def run_bench(
    plan: BenchPlan,
    store: Store,
    load: Loader,
    executor: Executor | None = None,
    resume: int | None = None,
    progress: bool = True,
    surveys: list[Survey] | None = None,
) -> int:
    """Run (or finish) a bench into ``store``; the run id.

    ``load(set_name, plan)`` gives a set's puzzles (see :data:`Loader`); it is read once
    to count them (unless ``surveys`` already did: :func:`survey_sets`) and once per spec,
    a block at a time. With ``resume`` the run's stored plan is used, rows it already has
    are skipped, and the run is locked for this process (:meth:`~.store.Store.lock_run`).
    A new run is recorded with its first chunk's rows, so a bench that fails before
    its first row leaves no run; :class:`NothingToRun` when it has no work at all;
    Ctrl-C is :class:`BenchInterrupted`, saying which run to resume. The executor's
    worker processes, kept from one repeat round to the next, are released as the run
    ends (its ``release()``, when it has one).
    """
    executor = executor or LocalExecutor(1)
    if resume is not None:
        store.lock_run(resume)
    surveys = surveys if surveys is not None else survey_sets(plan, load)
    specs = [as_spec(s) for s in plan.specs]
    writer = _Writer(store, plan, executor, resume)
    stored = store.row_counts(resume) if resume is not None else {}
    work = []
    for spec in specs:
        for found in surveys:
            if not found.puzzles:
                continue
            reason = skip_reason(spec, found.name, list(found.shapes))
            if reason:
                print(f"bench: skipped {found.name} x {spec}: {reason}", file=sys.stderr)
                continue
            rows = found.puzzles * plan.repeats - stored.get((found.name, str(spec)), 0)
            work.append((spec, found.name, rows))
    if resume is None and not work:
        raise NothingToRun(
            "nothing to run: no set has a puzzle"
            if not any(s.puzzles for s in surveys)
            else "nothing to run: every backend skips every set"
        )
    total = sum(rows for *_, rows in work)
    bar = Progress(total) if progress else None
    limit = 2 if plan.unique else 1
    try:
        # Repeats go round by round, every backend in each: drift on the machine (load,
        # heat, frequency) then falls on all backends alike, not on the last one.
        for repeat in range(plan.repeats):
            for spec in specs:
                mine = [(name, rows) for s, name, rows in work if s is spec and rows > 0]
                if not mine:
                    continue
                size = executor.chunk_size(spec, sum(rows for _, rows in mine))
                if plan.certify:  # one puzzle at a time: small chunks, as for any backend
                    size = min(size, CHUNK)
                chunks = _chunks(plan, load, writer if resume is not None else None, spec,
                                 [name for name, _ in mine], size, repeat)  # fmt: skip
                # asked only of a certified run: an executor of an older sudokulab has
                # no such parameter
                proving = {"certify": True} if plan.certify else {}
                answered = executor.run(spec, chunks, limit, plan.timeout, **proving)
                _store_in_order(writer, answered, chunks, bar, str(spec))
    except KeyboardInterrupt:
        raise BenchInterrupted(writer.run_id) from None
    finally:
        if bar:
            bar.close()
        release = getattr(executor, "release", None)  # worker processes kept between rounds
        if release is not None:
            release()
    if writer.run_id is None:  # every row was stored already (resume) or none came
        raise NothingToRun("nothing to run: no row was stored")
    store.write_agreement(writer.run_id, plan.unique)
    store.finish_run(writer.run_id)
    return writer.run_id


def survey_sets(
    plan: BenchPlan, load: Loader, on_error: Callable[[ParseError], None] | None = None
) -> list[Survey]:
    """A first pass over every set of the plan (:func:`~.plan.survey`): each one's
    puzzles counted, one puzzle per shape kept, each bad line handed to ``on_error``."""
    return [survey(name, load(name, plan), on_error) for name in plan.sets]


class _Writer:
    """Commits chunks' rows to a run, recording a new run with its first chunk."""

    def __init__(self, store: Store, plan: BenchPlan, executor: Executor, resume: int | None):
        self.store, self.plan, self.run_id = store, plan, resume
        describe = getattr(executor, "describe", None)  # optional: not every executor says
        self.executor = describe() if describe is not None else None
        if resume is not None and self.executor is not None:
            store.add_executor(resume, self.executor)

    def add(self, rows: ChunkRows) -> None:
        if self.run_id is None:
            self.run_id = self.store.start_run(self.plan.to_json(), self.executor, rows)
            self.store.lock_run(self.run_id)
        else:
            self.store.add_rows(self.run_id, rows)

    def stored(self, name: str, spec: BackendSpec) -> Callable[[SetBlock, int], np.ndarray]:
        """What :func:`~.plan.set_chunks` asks of a block: its indices the run has."""

        def indices(block: SetBlock, repeat: int) -> np.ndarray:
            if self.run_id is None or not len(block):
                return block.indices[:0]
            low, high = int(block.indices.min()), int(block.indices.max())
            return self.store.stored_indices(self.run_id, name, str(spec), repeat, low, high)

        return indices


class _Numbered:
    """A spec's chunks as the executor takes them, each numbered in plan order (the
    order the store commits them in); a chunk is forgotten once committed."""

    def __init__(self, chunks: Iterator[Chunk]) -> None:
        self.chunks = chunks
        self.position: dict[int, int] = {}
        self.taken = 0

    def __iter__(self) -> Iterator[Chunk]:
        for chunk in self.chunks:
            self.position[id(chunk)] = self.taken
            self.taken += 1
            yield chunk


def _chunks(
    plan: BenchPlan,
    load: Loader,
    resumed: _Writer | None,
    spec: BackendSpec,
    names: list[str],
    size: int,
    repeat: int,
) -> _Numbered:
    """The chunks of one spec for one repeat, streamed set by set (each set read again, a
    block at a time) and numbered as the executor takes them; of a ``resumed`` run, only
    the rows it does not have."""

    def every() -> Iterator[Chunk]:
        for name in names:
            blocks = iter_blocks(load(name, plan))
            stored = resumed.stored(name, spec) if resumed is not None else None
            yield from set_chunks(name, blocks, range(repeat, repeat + 1), size, stored)

    return _Numbered(every())


def _store_in_order(
    writer: _Writer,
    answered: Iterable[tuple[Any, ...]],
    chunks: _Numbered,
    bar: Progress | None,
    label: str,
) -> None:
    """Commit each chunk's rows, one transaction per chunk, in the order the chunks were
    made whatever order the executor finishes them in, so that the store's rows (and the
    report) keep the plan's order.

    A chunk that finished early waits for those before it; when Ctrl-C interrupts the
    run, the waiting ones are committed too: a finished chunk is kept. An executor may
    add a third item, the worker that ran the chunk (the rows' ``worker`` column), and a
    fourth, what each row used (:class:`~.executors.Measured`).
    """
    waiting: dict[int, tuple[Chunk, Answers, str | None, Measured | None]] = {}
    after = 0  # the position of the next chunk to commit
    try:
        for chunk, answers, *where in answered:
            if bar:
                bar.update(label, len(chunk))
            position = chunks.position.pop(id(chunk))
            waiting[position] = (chunk, answers, *where, *[None] * (2 - len(where)))
            while after in waiting:
                writer.add(chunk_rows(*waiting.pop(after)))
                after += 1
    except KeyboardInterrupt:
        for i in sorted(waiting):
            writer.add(chunk_rows(*waiting[i]))
        raise


def agreement_column(frame: Any, unique: bool = False) -> list[bool | None]:
    """Per row of ``frame`` (columns set, idx, backend, status and, with ``unique``,
    solution: a DataFrame or a dict of sequences): does its verdict match the other
    backends' on that puzzle?

    The bench's own rule (:func:`~.store.agreement_query`, the SQL the store runs over a
    whole run), here over an in-memory table: a timeout or an error has no verdict
    (None), nor has any row of a puzzle that fewer than two backends answered
    conclusively. Without a uniqueness check (``unique``) any valid solution is a right
    answer, so two different solutions agree (the verifier judges each); with it,
    ``solved`` claims the one solution, so the grids must be equal.
    """
    k = len(frame["status"])
    if not k:
        return []
    solutions = list(frame["solution"]) if "solution" in frame else [None] * k
    columns = zip(
        range(k),
        map(_key, frame["set"]),
        map(_key, frame["idx"]),
        map(_key, frame["backend"]),
        map(str, frame["status"]),
        (None if s is None or s != s else str(s) for s in solutions),
        strict=True,
    )
    db = sqlite3.connect(":memory:")
    try:
        db.execute("CREATE TABLE answers (k, s, idx, b, status, solution)")
        db.executemany("INSERT INTO answers VALUES (?, ?, ?, ?, ?, ?)", columns)
        flags = dict(db.execute(agreement_query("SELECT * FROM answers", unique)))
    finally:
        db.close()
    return [None if flags[i] is None else bool(flags[i]) for i in range(k)]


def _key(value: Any) -> Any:
    """A value as SQLite compares it: numbers as numbers, anything else as text."""
    if isinstance(value, bool | np.bool_):
        return int(value)
    if isinstance(value, np.integer | np.floating):
        return value.item()
    return value if isinstance(value, int | float | str) or value is None else str(value)


def _puzzles(frame: Any) -> np.ndarray:
    """Each row's puzzle, (set, idx), numbered in order of first appearance."""
    seen: dict[tuple[Any, Any], int] = {}
    return np.array(
        [
            seen.setdefault((s, i), len(seen))
            for s, i in zip(frame["set"], frame["idx"], strict=True)
        ],
        dtype=np.int64,
    )


def agreement(frame: Any, unique: bool = False) -> list[tuple[bool | None, str, int, str]]:
    """(agrees, set, idx, backend) per row, puzzle by puzzle (in order of first
    appearance), each puzzle's rows in order: :func:`agreement_column` as tuples."""
    flags = agreement_column(frame, unique)
    if not flags:
        return []
    group = _puzzles(frame)
    names, indices, backends = list(frame["set"]), list(frame["idx"]), list(frame["backend"])
    return [
        (flags[i], names[i], int(indices[i]), backends[i])
        for i in np.argsort(group, kind="stable").tolist()
    ]
