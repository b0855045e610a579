"""Executors: where a bench's chunks run. One spec's chunks in, (chunk, answers) pairs out.

Each spec runs in worker processes of its own (so one library's memory or threads do not
distort another's timings), through the shared :class:`~sudokulab.backends.Worker`
mechanism: a backend that stops itself and declares ``batch`` (the native engine) gets a
whole chunk per request (:meth:`~sudokulab.backends.Worker.run_grids`, killed at the sum
of its timeouts plus a grace, then asked again one puzzle at a time); any other gets one
puzzle per request, each with a hard deadline. A crash or a hang costs the rows it
touched (``error`` or ``timeout``), never the run. Either way a chunk comes back as one
:class:`~sudokulab.backends.result.Answers`. With ``certify`` every puzzle goes alone
through :func:`sudokulab.solve` (``certify=True``): its negative claim proved and checked
here, only the proof's figures kept (:class:`Proofs`). :class:`LocalExecutor` drives
local worker processes; anything with the same two methods can replace it.
"""

from __future__ import annotations

import queue
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..api import claimed, solve, solve_grids
from ..backends import BackendSpec, Result, Worker, get_backend
from ..backends.isolation import Usage
from ..backends.result import INVALID, Answers, Status
from ..models.grids import Grids
from .plan import Chunk


class Executor(Protocol):
    """Runs one spec's chunks and yields each chunk with its answers as it finishes.

    ``chunks`` is an iterable, read as the executor has room: an executor takes a
    bounded number of chunks ahead of the answers it has yielded (about two per worker),
    so that a bench of any size holds only the chunks in flight. An executor may yield a
    third item, the worker that ran the chunk ("host:pid"), which the store keeps per
    row, and a fourth, what each row used (:class:`Measured`); may have a ``describe()``
    giving what the runs table records of it (a dict of plain data); and may have a
    ``release()`` stopping what it keeps between runs (the bench calls it at the end).
    """

    def chunk_size(self, spec: BackendSpec, rows: int) -> int:
        """How many puzzles a chunk of this spec holds, for ``rows`` rows of work."""
        ...

    def run(
        self,
        spec: BackendSpec,
        chunks: Iterable[Chunk],
        limit: int,
        timeout: float | None,
        certify: bool = False,
    ) -> Iterator[tuple[Chunk, Answers] | tuple[Chunk, Answers, str | None]]:
        """Answers in completion order; closing the iterator stops the work. With
        ``certify``, each puzzle alone, its claim proved (:func:`solve_chunk`)."""
        ...


#: This machine, as rows record where they ran.
HOST = socket.gethostname()

#: Puzzles per chunk for a backend that batches: the engine call dominates the request.
BATCH_CHUNK = 4096
#: Puzzles per chunk for a backend solved one puzzle at a time: an interrupt loses little.
CHUNK = 16
#: Chunks per worker, at least, for a backend solved one puzzle at a time.
SHARES = 4
#: Chunks per worker an executor takes ahead of the answers it has yielded: one being
#: solved, one waiting, so no worker waits for the next chunk to be read.
AHEAD = 2


class LocalExecutor:
    """``workers`` local worker processes per spec, fed by as many threads.

    A backend that stops itself and declares ``batch`` gets chunks of
    :data:`BATCH_CHUNK` puzzles, in one request each, unless ``batch`` is False here;
    then, as for any other backend, chunks hold :data:`CHUNK` puzzles, solved one by one.
    Chunks are no bigger than an even share of the work per worker.
    """

    def __init__(self, workers: int = 1, batch: bool = True) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = workers
        self.batch = batch
        # each spec's worker processes, kept from one run (a repeat round) to the next
        self._pools: dict[str, list[Worker]] = {}

    def release(self) -> None:
        """Stop the worker processes kept between runs; a next run starts new ones."""
        pools, self._pools = self._pools, {}
        for pool in pools.values():
            for worker in pool:
                worker.close()

    def describe(self) -> dict[str, Any]:
        """What the runs table records of this executor."""
        return {"executor": "local", "workers": self.workers, "hosts": [HOST]}

    def chunk_size(self, spec: BackendSpec, rows: int) -> int:
        """:data:`BATCH_CHUNK`, at most an even share per worker; or :data:`CHUNK`, at most
        a :data:`SHARES`-th of that share (times per puzzle vary a hundredfold in a hard
        set: small chunks keep every worker busy to the end)."""
        if self.batch and batches(spec):
            return max(1, min(BATCH_CHUNK, -(-rows // self.workers)))
        return max(1, min(CHUNK, -(-rows // (self.workers * SHARES))))

    def run(
        self,
        spec: BackendSpec,
        chunks: Iterable[Chunk],
        limit: int,
        timeout: float | None,
        certify: bool = False,
    ) -> Iterator[tuple[Chunk, Answers, str, Measured]]:
        """Solve every chunk in worker processes (started as the first chunks come, at
        most ``workers``), taking at most :data:`AHEAD` chunks per worker ahead of the
        answers yielded; yield answers as they come, with "host:pid" of the worker
        process that gave them and what each row used (:class:`Measured`).

        The spec's worker processes are kept for its next run (the bench's next repeat
        round: no start-up and warm-up again) until :meth:`release`; an interrupted run
        kills them (the next run starts new ones)."""
        todo: queue.SimpleQueue[Chunk | None] = queue.SimpleQueue()
        done: queue.SimpleQueue[tuple[Chunk, Answers, str, Measured] | BaseException]
        done = queue.SimpleQueue()
        stop = threading.Event()
        whole = self.batch and batches(spec) and not certify
        workers = self._pools.setdefault(str(spec), [])
        threads: list[threading.Thread] = []
        pending = iter(chunks)
        flying = 0  # chunks handed to the threads and not yielded back yet
        more = True
        complete = False
        try:
            while True:
                while more and flying < AHEAD * self.workers:
                    chunk = next(pending, None)
                    if chunk is None:
                        more = False
                        break
                    todo.put(chunk)
                    flying += 1
                    if len(threads) < self.workers:
                        if len(workers) == len(threads):
                            workers.append(Worker())
                        args = (spec, workers[len(threads)], whole, todo, done, stop, limit)
                        threads.append(
                            threading.Thread(
                                target=_drive, args=(*args, timeout, certify), daemon=True
                            )
                        )
                        threads[-1].start()
                if not flying:
                    complete = True
                    return
                item = done.get()
                if isinstance(item, BaseException):
                    raise item
                flying -= 1
                yield item
        finally:
            stop.set()
            for _ in threads:  # wake every thread still waiting for a chunk
                todo.put(None)
            if not complete:  # an interrupted run must not wait for slow puzzles
                for w in workers:
                    w.kill()
            for t in threads:
                if t.ident is not None:  # Ctrl-C may come while a thread is starting
                    t.join()


def batches(spec: BackendSpec) -> bool:
    """Whether the spec's backend takes chunks whole: it stops itself (with the spec's
    options) and declares ``batch``."""
    backend = get_backend(spec.backend)
    return backend.batch and backend.stops_itself_with(spec.options) and backend.available()


def _drive(spec, worker, whole, todo, done, stop, limit, timeout, certify) -> None:
    """One thread: feeds its worker process chunks until they run out or it is told to
    stop (the process is kept for the spec's next run). A failure here (not the
    backend's: that is a row) kills the process and ends the run in the caller."""
    try:
        while not stop.is_set():
            chunk = todo.get()
            if chunk is None:
                break
            solved = solve_chunk(spec, chunk, worker, whole, limit, timeout, stop, certify)
            if solved is not None:
                pid = worker.pid  # None when a deadline's kill ended the last puzzle
                done.put((chunk, solved[0], f"{HOST}:{pid}" if pid else HOST, solved[1]))
    except BaseException as err:  # noqa: BLE001 - handed to the caller, which raises it
        worker.kill()
        done.put(err)


@dataclass(frozen=True)
class Proofs:
    """What the proofs of a chunk's rows came to, per row, with ``certify``: ``proved``
    1 (the checker accepted the proof of its negative claim) or 0 (it rejected it, or the
    claim was refuted), the proof's ``lines`` and ``size`` in bytes, and ``check_s``, the
    checker's seconds; NaN where nothing was proved (no negative claim: a first solution,
    a timeout; or a claim that cannot be put as a CNF) and, but ``proved``, for a refuted
    claim (no proof); ``unproved`` True where the row made a negative claim that no proof
    could be made of (it cannot be put as a CNF: the result's message says why). The proofs
    themselves are not kept."""

    proved: np.ndarray
    lines: np.ndarray
    size: np.ndarray
    check_s: np.ndarray
    unproved: np.ndarray

    @classmethod
    def nothing(cls, k: int) -> Proofs:
        """``k`` rows, none proved."""
        return cls(*(np.full(k, np.nan) for _ in range(4)), np.zeros(k, dtype=bool))

    def note(self, i: int, result: Result) -> None:
        """Row ``i``'s figures from its result's certificate (none: left NaN, and the row
        marked ``unproved`` when it makes a claim all the same)."""
        made = result.certificate
        if made is None:
            self.unproved[i] = claimed(result) is not None
            return
        self.proved[i] = 1.0 if made.accepted else 0.0
        if made.refuted is None:
            self.lines[i], self.size[i], self.check_s[i] = made.lines, made.size, made.check_time


@dataclass(frozen=True)
class Measured:
    """What a chunk's rows used, per row, as the worker process measured it: CPU seconds
    and the worker's peak resident memory in MB up to that row (its high-water mark, not
    the row's own); NaN where not measured (a killed request, an invalid puzzle). With
    ``certify``, ``proofs``: what each row's proof came to (the checking is done by the
    bench's process, and is no part of the CPU time)."""

    cpu_s: np.ndarray
    peak_mb: np.ndarray
    proofs: Proofs | None = None

    @classmethod
    def nothing(cls, k: int) -> Measured:
        """``k`` rows, none measured."""
        return cls(np.full(k, np.nan), np.full(k, np.nan))


def solve_chunk(
    spec: BackendSpec,
    chunk: Chunk,
    worker: Worker,
    whole: bool,
    limit: int,
    timeout: float | None,
    stop: threading.Event | None = None,
    certify: bool = False,
) -> tuple[Answers, Measured] | None:
    """A chunk's answers from ``worker`` (:func:`~sudokulab.api.solve_grids`, isolated),
    and what each row used: in one request when ``whole`` (a block killed at its hard
    deadline is asked again one puzzle at a time), else each puzzle as a block of one,
    one request each, as :func:`~sudokulab.api.solve` answers it with a hard deadline
    (clashing puzzles are ``invalid`` rows without a request). Each row's time is its
    own request's, from its start (the worker's start-up is no part of it). None when
    ``stop`` is set before the chunk is done. With ``certify`` (``whole`` is then
    ignored) each puzzle goes through :func:`certified_block`: the measured ``proofs``.

    CPU time is the worker process's (its threads and waited-for subprocesses included)
    over each request; the rows of a block solved in one request share the block's in
    proportion to their wall times (the block's total is measured, not each row's)."""
    stopped = (lambda: False) if stop is None else stop.is_set
    worker.take_usage()  # forget requests made before this chunk
    k = len(chunk)
    measured = Measured.nothing(k)
    if certify:

        def used(i: int, result: Result) -> None:
            taken = worker.take_usage()
            if len(taken) == 1 and taken[0] is not None:  # none: an invalid puzzle, a kill
                measured.cpu_s[i], measured.peak_mb[i] = taken[0].cpu_s, taken[0].peak_mb

        made = certified_block(chunk.grids, spec, limit, timeout, True, worker, used, stop)
        if made is None or stopped():
            return None
        answers, proofs = made
        return answers, Measured(measured.cpu_s, measured.peak_mb, proofs)
    if whole:
        answers = solve_grids(
            chunk.grids, spec, limit, timeout, isolate=True, worker=worker, stop=stop
        )
        _share(measured, answers, worker.take_usage())
    else:
        answers = Answers.empty(str(spec), k, chunk.grids.geometry.cell_count)
        answers.verified = np.zeros(k, dtype=bool)
        for i in range(k):
            if stopped():
                return None
            one = solve_grids(chunk.grids.take(slice(i, i + 1)), spec, limit, timeout,
                              isolate=True, worker=worker)  # fmt: skip
            answers.put(np.array([i]), one)
            used = worker.take_usage()
            if len(used) == 1 and used[0] is not None:  # none: an invalid puzzle, a kill
                measured.cpu_s[i], measured.peak_mb[i] = used[0].cpu_s, used[0].peak_mb
    # a row the stop's kill cut short is no answer
    return None if stopped() else (answers, measured)


def certified_block(
    grids: Grids,
    spec: BackendSpec,
    limit: int | None,
    timeout: float | None,
    isolate: bool | None = None,
    worker: Worker | None = None,
    each: Callable[[int, Result], None] | None = None,
    stop: threading.Event | None = None,
) -> tuple[Answers, Proofs] | None:
    """A block's answers, each puzzle alone through :func:`sudokulab.solve` with
    ``certify`` (its negative claim proved and checked; a refuted one an ``error`` row, as
    is a puzzle whose solving raised), verified as :func:`~sudokulab.api.solve_grids`
    verifies, and what each proof came to; ``each(i, result)`` sees every row's result,
    its certificate with it, before it is dropped. None when ``stop`` is set before the
    block is done."""
    k = len(grids)
    results = []
    proofs = Proofs.nothing(k)
    for i, puzzle in enumerate(grids.puzzles()):
        if stop is not None and stop.is_set():
            return None
        try:
            result = solve(puzzle, spec, limit, timeout, isolate, worker, certify=True)
        except Exception as err:  # noqa: BLE001 - this row's answer: the block goes on
            result = Result(str(spec), Status.ERROR, message=f"{type(err).__name__}: {err}")
        proofs.note(i, result)
        if each is not None:
            each(i, result)
        results.append(result)
    answers = Answers.from_results(str(spec), results, grids.geometry.cell_count)
    answers.verified = grids.verify(answers.solution)
    return answers, proofs


def _share(measured: Measured, answers: Answers, used: list[Usage | None]) -> None:
    """Fill ``measured`` for a block's rows from its requests (:func:`solve_chunk`): one
    answered block request, its CPU time shared by wall time; or, after a killed block,
    one request per valid row, in order; anything else is left unmeasured."""
    valid = np.flatnonzero(answers.status != INVALID)
    if not used or not len(valid):
        return
    if used[0] is not None and len(used) == 1:
        walls = np.maximum(answers.time[valid], 0.0)
        total = walls.sum()
        shares = walls / total if total > 0 else np.full(len(valid), 1 / len(valid))
        measured.cpu_s[valid] = used[0].cpu_s * shares
        measured.peak_mb[valid] = used[0].peak_mb
    elif used[0] is None and len(used) == 1 + len(valid):
        for row, usage in zip(valid.tolist(), used[1:], strict=True):
            if usage is not None:
                measured.cpu_s[row], measured.peak_mb[row] = usage.cpu_s, usage.peak_mb
