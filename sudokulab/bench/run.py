"""The bench: run backend specs over puzzle sets and keep every result.

Sets x specs x repeats become chunks of work (:mod:`.plan`: puzzles of one shape from one
set, for one repeat), an executor runs them (:mod:`.executors`), and each chunk's rows
are built from its answers column by column, verified in bulk and committed to the store
in one transaction, in the plan's order, as soon as the chunk and those before it are
in; ``resume`` finishes an interrupted run without repeating any row. Once every row is
in, each row's agreement with the other backends is computed for the whole run at once
and written.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Sequence
from itertools import repeat
from typing import Any

import numpy as np

from ..backends import as_spec
from ..backends.result import INVALID, Answers
from ..models import Puzzle, format_line
from ..models.documents import dumps, to_document
from ..models.grids import Grids, format_lines
from .crosscheck import CONCLUSIVE
from .executors import Executor, LocalExecutor
from .plan import (
    BenchPlan,
    Chunk,
    SetBlock,
    as_blocks,
    pending,
    skip_reason,
    split,
    stored_indices,
)
from .progress import Progress
from .store import Store

#: What ``load(set_name, plan)`` gives: the set's blocks, or its (index, puzzle) pairs.
Loader = Callable[[str, BenchPlan], Sequence[SetBlock] | Sequence[tuple[int, Puzzle]]]


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
    run_id: int, chunk: Chunk, answers: Answers, worker: str | None = None
) -> list[tuple[Any, ...]]:
    """The store's rows of a chunk (tuples in :data:`~.store.RESULT_COLUMNS` order),
    built column by column from its answers: solutions formatted and verified in bulk;
    ``worker`` is where the chunk ran, when the executor says.

    An ``invalid`` row (clashing givens: no backend ran) has no engine, counters or stats.
    """
    k = len(chunk)
    invalid = answers.status == INVALID
    has = answers.solution.any(axis=1)
    where = np.flatnonzero(has).tolist()
    solutions: list[str | None] = [None] * k
    verified: list[int | None] = [None] * k
    texts = format_lines(answers.solution[has]).splitlines()
    checks = chunk.grids.verify(answers.solution)[has].tolist()
    for i, text, ok in zip(where, texts, checks, strict=True):
        solutions[i], verified[i] = text, int(ok)
    errors: list[str | None] = [None] * k
    for i, message in answers.messages.items():
        errors[i] = message or None
    engines, nodes, guesses, backtracks, stats = _stats_columns(answers, invalid)
    return list(
        zip(
            repeat(run_id),
            repeat(chunk.set),
            chunk.indices.tolist(),
            puzzle_texts(chunk.grids),
            repeat(answers.backend),
            engines,
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
            stats,
            errors,
            repeat(worker),
        )
    )


#: Counter values no engine reports, marking where each goes in a row's stats text.
_MARKS = {"nodes": -7770001, "guesses": -7770002, "backtracks": -7770003}


def _stats_columns(answers: Answers, invalid: np.ndarray) -> tuple[list[Any], ...]:
    """The engine, nodes, guesses, backtracks and stats (JSON) columns of a chunk.

    When the rows share their stats but for the counters (the native engine), each row's
    JSON is one template filled with its counters, the text ``json.dumps`` would give.
    """
    k = len(answers)
    if answers.stats is not None:  # each row its own stats (as Result.stats has them)
        rows = [{} if invalid[i] else answers.stats_of(i) for i in range(k)]
        columns = [[row.get(name) for row in rows] for name in ("engine", *_MARKS)]
        return (*columns, [_json(row) for row in rows])
    counters = [getattr(answers, name) for name in _MARKS]
    valid = ~invalid
    engine = answers.common.get("engine")
    engines = [engine if ok else None for ok in valid.tolist()]
    values = [[v if v >= 0 else None for v in c.tolist()] for c in counters]
    template = _json({**answers.common, **_MARKS}).replace("%", "%%")
    order = sorted(_MARKS, key=lambda name: template.index(str(_MARKS[name])))
    for name in order:
        template = template.replace(str(_MARKS[name]), "%d")
    by_order = [getattr(answers, name).tolist() for name in order]
    whole = (valid & (np.minimum.reduce(counters) >= 0)).tolist()
    stats = [
        template % row if full else "{}" if invalid[i] else _json(answers.stats_of(i))
        for i, (row, full) in enumerate(zip(zip(*by_order, strict=True), whole, strict=True))
    ]
    return (engines, *values, stats)


def _json(stats: dict[str, Any]) -> str:
    return json.dumps(stats, sort_keys=True, default=str)


def run_bench(
    plan: BenchPlan,
    store: Store,
    load: Loader,
    executor: Executor | None = None,
    resume: int | None = None,
    progress: bool = True,
) -> int:
    """Run (or finish) a bench into ``store``; the run id.

    ``load(set_name, plan)`` gives a set's puzzles: :class:`~.plan.SetBlock` s (as
    :func:`~.plan.read_set` reads them) or (index, puzzle) pairs. With ``resume`` the
    run's stored plan is used and rows it already has are skipped.
    """
    executor = executor or LocalExecutor(1)
    specs = [as_spec(s) for s in plan.specs]
    run_id = resume if resume is not None else store.start_run(plan.to_json())
    describe = getattr(executor, "describe", None)  # optional: not every executor says
    if describe is not None:
        store.add_executor(run_id, describe())
    done = stored_indices(store.done(run_id))
    limit = 2 if plan.unique else 1
    loaded = {name: as_blocks(load(name, plan)) for name in plan.sets}
    work = []
    for spec in specs:
        todo: list[Chunk] = []
        for name, blocks in loaded.items():
            reason = skip_reason(spec, name, [block.grids.puzzle(0) for block in blocks])
            if reason:
                print(f"bench: skipped {name} x {spec}: {reason}", file=sys.stderr)
                continue
            todo += pending(name, blocks, str(spec), plan.repeats, done)
        rows = sum(map(len, todo))
        work.append((spec, split(todo, executor.chunk_size(spec, rows)) if rows else []))
    bar = Progress(sum(len(c) for _, chunks in work for c in chunks)) if progress else None
    try:
        for spec, chunks in work:
            answered = executor.run(spec, chunks, limit, plan.timeout)
            _store_in_order(store, run_id, answered, chunks, bar, str(spec))
    finally:
        if bar:
            bar.close()
    write_agreement(store, run_id, plan.unique)
    store.finish_run(run_id)
    return run_id


def _store_in_order(
    store: Store,
    run_id: int,
    answered: Iterable[tuple[Chunk, Answers] | tuple[Chunk, Answers, str | None]],
    chunks: Sequence[Chunk],
    bar: Progress | None,
    label: str,
) -> None:
    """Commit each chunk's rows, one transaction per chunk, in the order of ``chunks``
    whatever order the executor finishes them in, so that the store's rows (and the
    report) keep the plan's order.

    A chunk that finished early waits for those before it; when Ctrl-C interrupts the
    run, the waiting ones are committed too: a finished chunk is kept. An executor may
    add a third item, the worker that ran the chunk (the rows' ``worker`` column).
    """
    position = {id(chunk): i for i, chunk in enumerate(chunks)}
    waiting: dict[int, tuple[Chunk, Answers, str | None]] = {}
    after = 0  # the position of the next chunk to commit
    try:
        for chunk, answers, *where in answered:
            if bar:
                bar.update(label, len(chunk))
            waiting[position[id(chunk)]] = (chunk, answers, where[0] if where else None)
            while after in waiting:
                store.add_rows(chunk_rows(run_id, *waiting[after]))
                del waiting[after]
                after += 1
    except KeyboardInterrupt:
        for i in sorted(waiting):
            store.add_rows(chunk_rows(run_id, *waiting[i]))
        raise


def write_agreement(store: Store, run_id: int, unique: bool = False) -> None:
    """Compute every row's agreement for the run (:func:`agreement_column`) and write the
    verdicts that changed."""
    if len(store.backends(run_id)) < 2:  # nothing to compare: no row has a verdict
        store.clear_agreement(run_id)
        return
    rows = store.verdicts(run_id, solutions=unique)
    flags = agreement_column(rows, unique)
    stored = [None if v is None else bool(v) for v in rows["agrees"]]
    store.set_agreement_rows(
        (flag, rowid)
        for flag, old, rowid in zip(flags, stored, rows["rowid"], strict=True)
        if flag is not old
    )


def agreement_column(frame: Any, unique: bool = False) -> list[bool | None]:
    """Per row of ``frame`` (columns set, idx, backend, status and, with ``unique``,
    solution: a DataFrame or a dict of sequences): does its verdict match the other
    backends' on that puzzle?

    :func:`~sudokulab.bench.crosscheck.agreement_flags` of each puzzle's rows, for every
    puzzle at once (numpy over codes, no loop per puzzle): a timeout or an error has no
    verdict (None), nor has any row of a puzzle that fewer than two backends answered
    conclusively. Without a uniqueness check (``unique``) any valid solution is a right
    answer, so two different solutions agree (the verifier judges each); with it,
    ``solved`` claims the one solution, so the grids must be equal.
    """
    k = len(frame["status"])
    flags: list[bool | None] = [None] * k
    if not k:
        return flags
    group, groups = _puzzles(frame)
    status, names = _codes(frame["status"])
    conclusive = np.isin(np.array(names, dtype=object), CONCLUSIVE)[status]
    rows = np.flatnonzero(conclusive)
    # a verdict is a status, and with `unique` a solved row's grid (or its lack of one)
    grid = np.zeros(len(rows), dtype=np.int64)
    if unique:
        compared = rows[status[rows] == names.index("solved")] if "solved" in names else rows[:0]
        solution = list(frame["solution"])
        codes, _ = _codes([solution[i] for i in compared.tolist()])
        grid[np.isin(rows, compared)] = codes + 1
    grids = int(grid.max(initial=0)) + 1
    verdict = (group[rows] * len(names) + status[rows]) * grids + grid
    per_verdict = np.unique(verdict) // (len(names) * grids)
    backend, backends = _codes(frame["backend"])
    per_backend = np.unique(group[rows] * len(backends) + backend[rows]) // len(backends)
    one = np.bincount(per_verdict, minlength=groups) == 1
    answered = np.bincount(per_backend, minlength=groups) >= 2
    settled = rows[answered[group[rows]]]
    for i, agrees in zip(settled.tolist(), one[group[settled]].tolist(), strict=True):
        flags[i] = agrees
    return flags


def _codes(values: Iterable[Any]) -> tuple[np.ndarray, list[Any]]:
    """Each value's code (the distinct values numbered in order of first appearance),
    and the distinct values."""
    seen: dict[Any, int] = {}
    codes = np.array([seen.setdefault(v, len(seen)) for v in values], dtype=np.int64)
    return codes, list(seen)


def _puzzles(frame: Any) -> tuple[np.ndarray, int]:
    """Each row's puzzle, (set, idx), numbered in order of first appearance; how many."""
    sets, _ = _codes(frame["set"])
    idx = np.fromiter(frame["idx"], dtype=np.int64, count=len(sets))
    key = sets * (int(idx.max()) - int(idx.min()) + 1) + (idx - int(idx.min()))
    _, first, group = np.unique(key, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[group.reshape(-1)], len(first)


def agreement(frame: Any, unique: bool = False) -> list[tuple[bool | None, str, int, str]]:
    """(agrees, set, idx, backend) per row, puzzle by puzzle (in order of first
    appearance), each puzzle's rows in order: :func:`agreement_column` as tuples."""
    flags = agreement_column(frame, unique)
    if not flags:
        return []
    group, _ = _puzzles(frame)
    names, indices, backends = list(frame["set"]), list(frame["idx"]), list(frame["backend"])
    return [
        (flags[i], names[i], int(indices[i]), backends[i])
        for i in np.argsort(group, kind="stable").tolist()
    ]
