"""Executors: where a bench's tasks run. One spec's tasks in, (task, result) pairs out.

Each spec runs in worker processes of its own (so one library's memory or threads do not
distort another's timings), every task with a hard deadline through the shared
:class:`~sudokulab.backends.Worker` mechanism: a crash or a hang costs one row (``error``
or ``timeout``), never the run. :class:`LocalExecutor` drives local worker processes;
anything with the same ``run`` method can replace it.
"""

from __future__ import annotations

import dataclasses
import functools
import queue
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Protocol

from ..api import solve
from ..backends import BackendSpec, Result, Worker, get_backend
from ..models import build_model
from .plan import Task


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
    return backend.batch and backend.stops_itself and backend.available()


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
