"""The bench: run backend specs over puzzle sets and keep every result.

Sets x specs x repeats become tasks. Each spec runs in worker processes of its own (so
one library's memory or threads do not distort another's timings), every task with a
hard deadline through the shared :class:`~sudokulab.backends.Worker` mechanism: a crash
or a hang costs one row (``error`` or ``timeout``), never the run. Rows are committed to
the store as they arrive; ``resume`` finishes an interrupted run without repeating any.

The execution layer is pluggable: :class:`LocalExecutor` drives local worker processes;
anything with the same ``run`` method (a distributed engine, later) can replace it.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .api import solve
from .backends import (
    BackendSpec,
    Result,
    Status,
    Worker,
    as_spec,
    get_backend,
    parse_specs,
    unsupported,
)
from .crosscheck import verdict
from .models import Puzzle, build_model, format_line, is_solution
from .models.documents import dumps, to_document
from .store import Store


@dataclass(frozen=True)
class Task:
    """One puzzle for one spec: where it comes from and which repeat it is."""

    set: str
    idx: int
    puzzle: Puzzle
    repeat: int


class Executor(Protocol):
    """Runs one spec's tasks and yields each task with its result as it finishes."""

    def run(
        self, spec: BackendSpec, tasks: Sequence[Task], limit: int, timeout: float | None
    ) -> Iterator[tuple[Task, Result]]:
        """Results in completion order; closing the iterator stops the work."""
        ...


#: Puzzles per request to a backend that batches: small, so an interrupt loses little.
CHUNK = 64


class LocalExecutor:
    """``workers`` local worker processes per spec, fed by as many threads.

    A backend that stops itself and declares ``batch`` gets its tasks :data:`CHUNK` at a
    time (one request, one reply per chunk) unless ``batch`` is False here.
    """

    def __init__(self, workers: int = 1, batch: bool = True) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = workers
        self.batch = batch

    def run(
        self, spec: BackendSpec, tasks: Sequence[Task], limit: int, timeout: float | None
    ) -> Iterator[tuple[Task, Result]]:
        """Solve every task in fresh worker processes; yield results as they come."""
        if not tasks:  # e.g. a resumed run whose rows of this spec are all stored
            return
        todo: queue.SimpleQueue[Task | None] = queue.SimpleQueue()
        for task in tasks:
            todo.put(task)
        done: queue.SimpleQueue[tuple[Task, Result] | None] = queue.SimpleQueue()
        stop = threading.Event()
        count = min(self.workers, len(tasks))
        for _ in range(count):
            todo.put(None)
        workers = [Worker() for _ in range(count)]
        drive = _drive
        if self.batch and _batches(spec):  # chunks no bigger than an even share per worker
            drive = functools.partial(_drive_batch, chunk=min(CHUNK, -(-len(tasks) // count)))
        threads = [
            threading.Thread(
                target=drive, args=(spec, w, todo, done, stop, limit, timeout), daemon=True
            )
            for w in workers
        ]
        for t in threads:
            t.start()
        finished = 0
        try:
            while finished < count:
                item = done.get()
                if item is None:
                    finished += 1
                else:
                    yield item
        finally:
            stop.set()
            for w in workers:  # an interrupted run must not wait for slow puzzles
                w.kill()
            for t in threads:
                t.join()


def _drive(spec, worker, todo, done, stop, limit, timeout) -> None:
    """One thread: feeds its worker process tasks until they run out or it is told to stop."""
    with worker:
        while not stop.is_set():
            task = todo.get()
            if task is None:
                break
            result = solve(task.puzzle, spec, limit, timeout, isolate=True, worker=worker)
            done.put((task, result))
            if stop.is_set():
                break
    done.put(None)


def _batches(spec: BackendSpec) -> bool:
    """Whether the spec's backend takes batches: it stops itself and declares ``batch``."""
    backend = get_backend(spec.backend)
    return bool(getattr(backend, "batch", False)) and backend.stops_itself and backend.available()


def _drive_batch(spec, worker, todo, done, stop, limit, timeout, chunk=CHUNK) -> None:
    """Like :func:`_drive`, ``chunk`` tasks per request; each keeps its own timeout."""
    name = get_backend(spec.backend).name
    with worker:
        last = False
        while not stop.is_set() and not last:
            tasks: list[Task] = []
            while len(tasks) < chunk:
                task = todo.get()
                if task is None:
                    last = True
                    break
                tasks.append(task)
            if not tasks:
                break
            models, builds = [], []
            for task in tasks:  # the same model and build time as api.solve
                start = time.perf_counter()
                models.append(build_model(task.puzzle))
                builds.append(time.perf_counter() - start)
            results = worker.solve_batch(name, models, limit, timeout, spec.options)
            for task, result, build in zip(tasks, results, builds, strict=True):
                result = dataclasses.replace(
                    result, backend=str(spec), build_time=result.build_time + build
                )
                done.put((task, result))
    done.put(None)


@dataclass
class BenchPlan:
    """What a run does; stored with the run so that it can be resumed."""

    sets: list[str]
    specs: list[str]
    timeout: float | None = 10.0
    repeats: int = 1
    unique: bool = False
    sample: int | None = None
    seed: int = 0
    data_dirs: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The plan as plain data."""
        return dict(self.__dict__)


def puzzle_text(puzzle: Puzzle) -> str:
    """The puzzle as a row stores it: its line of givens, or for a variant (extra units,
    jigsaw regions, cages, another box shape) its JSON document, which says all of it."""
    document = to_document(puzzle)
    if set(document) <= {"size", "givens"}:
        return format_line(puzzle)
    return dumps(puzzle)


def _row(run_id: int, task: Task, result: Result) -> dict[str, Any]:
    grid = result.solution
    stats = dict(result.stats)
    return {
        "run_id": run_id,
        "set": task.set,
        "idx": task.idx,
        "puzzle": puzzle_text(task.puzzle),
        "backend": result.backend,
        "engine": stats.get("engine"),
        "repeat": task.repeat,
        "status": str(result.status),
        "solution": format_line(grid) if grid else None,
        "count": result.count,
        "verified": None if grid is None else int(is_solution(task.puzzle, grid)),
        "time": result.time,
        "build_time": result.build_time,
        "solve_time": result.solve_time,
        "nodes": stats.get("nodes"),
        "guesses": stats.get("guesses"),
        "backtracks": stats.get("backtracks"),
        "stats": json.dumps(stats, sort_keys=True, default=str),
        "error": result.message or None,
    }


class Progress:
    """A bar on a terminal, plain periodic lines otherwise."""

    def __init__(self, total: int, stream: Any = None) -> None:
        self.stream = stream or sys.stderr
        self.total, self.count, self.last = total, 0, time.monotonic()
        self.bar = None
        if self.stream.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="puzzle", file=self.stream, leave=False)

    def update(self, label: str) -> None:
        """One more row done."""
        self.count += 1
        if self.bar is not None:
            self.bar.set_description(label, refresh=False)
            self.bar.update()
        elif time.monotonic() - self.last >= 5 or self.count == self.total:
            self.last = time.monotonic()
            print(f"bench: {self.count}/{self.total} done ({label})", file=self.stream, flush=True)

    def close(self) -> None:
        """Remove the bar."""
        if self.bar is not None:
            self.bar.close()


def run_bench(
    plan: BenchPlan,
    store: Store,
    load: Callable[[str, BenchPlan], list[tuple[int, Puzzle]]],
    executor: Executor | None = None,
    resume: int | None = None,
    progress: bool = True,
) -> int:
    """Run (or finish) a bench into ``store``; the run id.

    ``load(set_name, plan)`` gives the (index, puzzle) pairs of a set. With ``resume``
    the run's stored plan is used and rows it already has are skipped.
    """
    executor = executor or LocalExecutor(1)
    specs = [as_spec(s) for s in plan.specs]
    run_id = resume if resume is not None else store.start_run(plan.to_json())
    done = store.done(run_id)
    limit = 2 if plan.unique else 1
    loaded = {name: load(name, plan) for name in plan.sets}
    work: list[tuple[BackendSpec, list[Task]]] = []
    for spec in specs:
        tasks = []
        for name, pairs in loaded.items():
            reason = skip_reason(spec, name, [puzzle for _, puzzle in pairs])
            if reason:
                print(f"bench: skipped {name} x {spec}: {reason}", file=sys.stderr)
                continue
            tasks += [
                Task(name, idx, puzzle, repeat)
                for idx, puzzle in pairs
                for repeat in range(plan.repeats)
                if (name, idx, str(spec), repeat) not in done
            ]
        work.append((spec, tasks))
    bar = Progress(sum(len(t) for _, t in work)) if progress else None
    try:
        for spec, tasks in work:
            invalid = [t for t in tasks if t.puzzle.clashes()]
            for task in invalid:  # the same verdict for every backend, no worker needed
                message = "; ".join(map(str, task.puzzle.clashes()))
                store.add(_row(run_id, task, Result(str(spec), Status.INVALID, message=message)))
                if bar:
                    bar.update(str(spec))
            valid = [t for t in tasks if not t.puzzle.clashes()]
            for task, result in executor.run(spec, valid, limit, plan.timeout):
                store.add(_row(run_id, task, result))
                if bar:
                    bar.update(str(spec))
    finally:
        if bar:
            bar.close()
    store.set_agreement(run_id, agreement(store.results([run_id]), plan.unique))
    store.finish_run(run_id)
    return run_id


def skip_reason(spec: BackendSpec, set_name: str, puzzles: Sequence[Puzzle]) -> str:
    """Why a spec does not run on a set ("" when it does).

    A backend that lacks a constraint kind the set uses (cages on the native engine), or
    a pair the catalog excludes (``skip``: plain backtracking on 16x16) is skipped and
    reported as such, not run into errors or timeouts.
    """
    from .sets import catalog

    backend = get_backend(spec.backend)
    for puzzle in puzzles:
        lacking = unsupported(backend, build_model(puzzle))
        if lacking:
            return lacking
    info = catalog().get(set_name)
    return dict(info.skip).get(str(spec), "") if info is not None else ""


def agreement(frame: Any, unique: bool = False) -> list[tuple[bool | None, str, int, str]]:
    """(agrees, set, idx, backend) per row: does its verdict match the other backends'?

    Only conclusive answers are compared: a timeout or an error has no verdict (None), and
    so has every row of a puzzle that fewer than two backends answered. Without a
    uniqueness check (``unique``) any valid solution is a right answer, so two different
    solutions agree (the verifier judges each); with it, ``solved`` claims the one
    solution, so the grids must be equal.
    """
    out = []
    for (name, idx), rows in frame.groupby(["set", "idx"], sort=False):
        conclusive = rows[~rows["status"].isin(["timeout", "error"])]
        pairs = zip(conclusive["status"], conclusive["solution"], strict=True)
        verdicts = {verdict(s, sol if unique else None) for s, sol in pairs}
        answered = conclusive["backend"].nunique() >= 2
        for backend, status in zip(rows["backend"], rows["status"], strict=True):
            if not answered or status in ("timeout", "error"):
                out.append((None, name, int(idx), backend))
            else:
                out.append((len(verdicts) == 1, name, int(idx), backend))
    return out


def parse_plan_specs(text: str | None) -> list[str]:
    """Spec labels from a --backends value (default: every available backend)."""
    from .crosscheck import available_specs

    specs = parse_specs(text) if text else available_specs()
    return [str(s) for s in specs]
