"""The Dask executor: a bench's chunks as tasks on a Dask cluster, local or remote.

One task is one :class:`~.plan.Chunk` of one spec. On the Dask worker it runs exactly as
the local executor runs a chunk (:func:`~.executors.solve_chunk`, in a
:class:`~sudokulab.backends.Worker` child process of its own with the hard deadline), so a
hang is a ``timeout`` row and a crash an ``error`` row, never a lost Dask worker. Answers
come back as tasks finish and the bench commits them as ever: the plan and the store do
not depend on the executor, so a run started here can be resumed locally and back.

A Dask worker that dies mid-run loses nothing: the scheduler runs its tasks elsewhere.
A task that still fails (it raised ``retries`` + 1 times, or killed too many workers)
becomes ``error`` rows naming the failure, and the run goes on.

dask.distributed is an optional dependency (``pip install "sudokulab[dask]"``), imported
only here and only when this executor is made.
"""

from __future__ import annotations

import itertools
import os
import socket
import sys
import threading
from collections.abc import Iterable, Iterator
from typing import Any

from ..backends import BackendSpec, Worker
from ..backends.result import ERROR, Answers
from .executors import AHEAD, LocalExecutor, batches, solve_chunk
from .plan import Chunk

#: What to install when dask is missing.
INSTALL = 'pip install "sudokulab[dask]"'
#: Reruns of a task that raised (a worker that died does not count: Dask reruns that).
RETRIES = 2


class DaskMissing(ImportError):
    """dask.distributed is not installed."""


def distributed() -> Any:
    """The ``dask.distributed`` module; :class:`DaskMissing` saying what to install."""
    try:
        import distributed as dd
    except ImportError as err:
        raise DaskMissing(f"the dask executor needs dask.distributed: {INSTALL} ({err})") from None
    return dd


def local_cluster(workers: int) -> Any:
    """A :class:`~distributed.LocalCluster` of ``workers`` processes, one thread each, and
    no tasks of its own in the caller's process.

    Its scheduler hands a worker its next task only when the worker is free (worker
    saturation 1.0; Dask's default, 1.1, keeps a second task waiting on each worker,
    which can sit behind a slow puzzle while another worker runs out of work)."""
    dd = distributed()
    import dask

    with dask.config.set({"distributed.scheduler.worker-saturation": 1.0}):
        return dd.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
        )


class DaskExecutor:
    """Runs chunks as tasks of the Dask cluster behind ``client``.

    Chunks are sized as :class:`~.executors.LocalExecutor` sizes them for as many workers
    as the cluster has threads. ``retries``: reruns of a task that raised.
    """

    def __init__(self, client: Any, batch: bool = True, retries: int = RETRIES) -> None:
        self.client = client
        self.batch = batch
        self.retries = retries

    def threads(self) -> int:
        """The cluster's threads, now (at least 1)."""
        info = self.client.scheduler_info()
        return max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))

    def describe(self) -> dict[str, Any]:
        """The cluster as the runs table records it: workers, threads, hosts, scheduler."""
        info = self.client.scheduler_info()
        workers = info.get("workers", {}).values()
        return {
            "executor": "dask",
            "scheduler": info.get("address"),
            "workers": len(workers),
            "threads": sum(w.get("nthreads", 1) for w in workers),
            "hosts": sorted({w.get("host", "") for w in workers}),
        }

    def chunk_size(self, spec: BackendSpec, rows: int) -> int:
        """As the local executor's, with one worker per cluster thread."""
        return LocalExecutor(self.threads(), self.batch).chunk_size(spec, rows)

    def run(
        self, spec: BackendSpec, chunks: Iterable[Chunk], limit: int, timeout: float | None
    ) -> Iterator[tuple[Chunk, Answers, str | None]]:
        """Submit chunks, at most :data:`~.executors.AHEAD` per cluster thread ahead of
        the answers yielded; yield (chunk, answers, worker) as tasks finish. Closing the
        iterator cancels the tasks not yet finished."""
        dd = distributed()
        whole = self.batch and batches(spec)
        label = str(spec).replace(",", "_").replace("=", "-")
        pending = iter(chunks)
        futures: dict[Any, Chunk] = {}

        def submit(chunk: Chunk) -> Any:
            future = self.client.submit(
                run_chunk,
                spec,
                chunk,
                whole,
                limit,
                timeout,
                key=f"sudokulab-{label}-{chunk.set}-{chunk.repeat}-{int(chunk.indices[0])}"
                f"-{os.urandom(4).hex()}",
                retries=self.retries,
                pure=False,
            )
            futures[future] = chunk
            return future

        first = [submit(chunk) for chunk in itertools.islice(pending, AHEAD * self.threads())]
        if not first:
            return
        finished = dd.as_completed(first)
        try:
            for future in finished:
                chunk = futures.pop(future)
                try:
                    answers, worker = future.result()
                except Exception as err:  # noqa: BLE001 - the task's failure is its rows'
                    answers, worker = failed(spec, chunk, err), None
                yield chunk, answers, worker
                following = next(pending, None)
                if following is not None:
                    finished.add(submit(following))
        finally:
            if futures:  # an interrupted run: what is not in is not wanted
                self.client.cancel(list(futures))


def run_chunk(
    spec: BackendSpec, chunk: Chunk, whole: bool, limit: int, timeout: float | None
) -> tuple[Answers, str]:
    """The task: a chunk's answers from this Dask worker thread's solver child, and
    "host:pid" of the Dask worker that ran it."""
    answers = solve_chunk(spec, chunk, _solver_child(), whole, limit, timeout)
    assert answers is not None  # no stop event: every puzzle is answered
    return answers, f"{socket.gethostname()}:{os.getpid()}"


_children = threading.local()


def _solver_child() -> Worker:
    """The solver child of this Dask worker thread: started by the first task, reused by
    the next ones (its imports cost more than a small chunk's work), restarted on demand
    when a deadline killed it; it exits with the Dask worker (it watches its parent)."""
    child = getattr(_children, "worker", None)
    if child is None:
        child = _children.worker = Worker()
    return child


def failed(spec: BackendSpec, chunk: Chunk, err: BaseException) -> Answers:
    """A chunk whose task failed: every row an ``error`` naming the failure."""
    out = Answers.empty(str(spec), len(chunk), chunk.grids.geometry.cell_count)
    out.status[:] = ERROR
    message = f"dask task failed: {type(err).__name__}: {err}"
    out.messages = dict.fromkeys(range(len(chunk)), message)
    print(f"bench: {message} ({len(chunk)} rows of {spec} on {chunk.set})", file=sys.stderr)
    return out
