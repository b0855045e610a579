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

import contextlib
import itertools
import logging
import os
import socket
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from ..backends import BackendSpec, Worker
from ..backends.isolation import sigint_held
from ..backends.result import ERROR, Answers
from .executors import AHEAD, LocalExecutor, Measured, batches, solve_chunk
from .plan import Chunk

#: What to install when dask is missing.
INSTALL = 'pip install "sudokulab[dask]"'
#: Reruns of a task that raised (a worker that died does not count: Dask reruns that).
RETRIES = 2
#: Where a local cluster's dashboard listens unless asked: this machine only, a free port.
DASHBOARD = "127.0.0.1:0"


class DaskMissing(ImportError):
    """dask.distributed is not installed."""


class ClusterUnusable(Exception):
    """The cluster asked for cannot take the work: a bad scheduler address, nothing that
    answers as a scheduler there, no worker, or a local cluster that cannot start."""


def distributed() -> Any:
    """The ``dask.distributed`` module; :class:`DaskMissing` saying what to install."""
    try:
        import distributed as dd
    except ImportError as err:
        raise DaskMissing(f"the dask executor needs dask.distributed: {INSTALL} ({err})") from None
    return dd


@contextmanager
def local_cluster(workers: int, dashboard: str | None = None) -> Iterator[Any]:
    """A :class:`~distributed.LocalCluster` of ``workers`` processes, one thread each, no
    tasks of its own in the caller's process, its dashboard at ``dashboard`` (host:port;
    default :data:`DASHBOARD`); closed on the way out.

    Its scheduler hands a worker its next task only when the worker is free (worker
    saturation 1.0; Dask's default, 1.1, keeps a second task waiting on each worker,
    which can sit behind a slow puzzle while another worker runs out of work).

    Ctrl-C is the caller's: the cluster's threads, and so the worker processes they start
    (a blocked signal is inherited), never see SIGINT, so a terminal's Ctrl-C, sent to
    the whole process group, reaches only the caller. One that comes while the cluster
    starts is raised once it is up. Then the worker processes are killed, not waited for:
    their tasks are not wanted. The cluster's warnings (a task cancelled, a worker lost)
    are silenced: what a bench must say about a task, it says itself.
    """
    dd = distributed()
    from multiprocessing import resource_tracker

    import dask

    resource_tracker.ensure_running()  # see sigint_held
    with contextlib.ExitStack() as closing:
        with sigint_held():  # a Ctrl-C meanwhile is raised once the cluster is up: it closes
            with dask.config.set({"distributed.scheduler.worker-saturation": 1.0}):
                try:
                    cluster = dd.LocalCluster(
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=dashboard or DASHBOARD,
                        silence_logs=logging.ERROR,
                    )
                except (OSError, ValueError, RuntimeError) as err:  # e.g. a dashboard address
                    why = err.__cause__ or err  # Dask wraps the cause in a RuntimeError
                    raise ClusterUnusable(f"cannot start a local Dask cluster: {why}") from None
            closing.enter_context(cluster)
        try:
            yield cluster
        except KeyboardInterrupt:
            _kill_workers(cluster)
            raise


def _kill_workers(cluster: Any) -> None:
    """Kill the cluster's worker processes and their solver children: after Ctrl-C their
    tasks are not wanted, and closing the cluster would wait for each task's chunk
    (seconds, or minutes) first."""
    import psutil  # a dependency of distributed

    for nanny in list(cluster.workers.values()):
        nanny.close_gracefully(reason="interrupted")  # once its process is gone: no restart
        if not nanny.pid:  # not started (psutil.Process(None) would be this process)
            continue
        with contextlib.suppress(psutil.Error):
            worker = psutil.Process(nanny.pid)
            worker.suspend()  # no new solver child meanwhile
            # The children first: one that outlived its worker would write its answer
            # into a closed pipe.
            for process in [*worker.children(recursive=True), worker]:
                with contextlib.suppress(psutil.Error):
                    process.kill()


def dashboard_link(client: Any) -> str | None:
    """Where the cluster's dashboard really listens, as a link; None without one.

    Dask's ``dashboard_link`` names the scheduler's host whatever interface the server
    is bound to (and a default port when the scheduler has no dashboard); this names the
    bound address, and says so when that is every interface."""
    scheduler = getattr(getattr(client, "cluster", None), "scheduler", None)
    server = getattr(scheduler, "http_server", None)
    if server is None or not hasattr(server, "port"):  # a remote scheduler's, if it has one
        services = client.scheduler_info().get("services", {})
        return client.dashboard_link if "dashboard" in services else None
    host = server.address
    if host in ("0.0.0.0", "::", ""):
        return f"http://{socket.gethostname()}:{server.port}/status (on every interface)"
    return f"http://{f'[{host}]' if ':' in host else host}:{server.port}/status"


def connect(address: str, timeout: float) -> Any:
    """A client of the Dask scheduler at ``address``, reached within ``timeout`` seconds;
    :class:`ClusterUnusable`, in one line, for a bad address or when nothing answers
    there as a scheduler in time."""
    import asyncio

    dd = distributed()
    try:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no event loop here (the command line): the probe can run
            # Dask bounds the TCP connection by its timeout, not the handshake that follows:
            # something else listening there (a web server) would hold the client forever.
            asyncio.run(asyncio.wait_for(_handshake(address, timeout), timeout))
        return dd.Client(address, timeout=timeout)
    except ValueError as err:
        raise ClusterUnusable(
            f"{address!r} is not a Dask scheduler address (e.g. tcp://host:8786): {err}"
        ) from None
    except OSError:  # refused, unknown host, timed out (TimeoutError is an OSError)
        raise ClusterUnusable(
            f"no Dask scheduler answered at {address} within {timeout:g} s"
        ) from None
    except Exception as err:  # noqa: BLE001 - a TLS setup, a service that is not Dask, ...
        raise ClusterUnusable(
            f"cannot connect to a Dask scheduler at {address}: {type(err).__name__}: {err}"
        ) from None


async def _handshake(address: str, timeout: float) -> None:
    """Connect to ``address`` and close again: a Dask scheduler completes the handshake."""
    from distributed.comm import connect as dask_connect

    comm = await dask_connect(address, timeout=timeout)
    await comm.close()


def wait_for_workers(client: Any, timeout: float, say: Callable[[str], None] | None = None) -> None:
    """Return once the cluster has a worker; when it has none, ``say`` so, and wait up to
    ``timeout`` seconds for one before :class:`ClusterUnusable`."""
    if client.scheduler_info().get("workers"):
        return
    address = client.scheduler.address
    if say:
        say(
            f"the Dask scheduler at {address} has no worker: waiting up to {timeout:g} s "
            "for 1 to join"
        )
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise ClusterUnusable(
            f"no worker joined the Dask scheduler at {address} within {timeout:g} s "
            f"(start one with `dask worker {address}`)"
        ) from None


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
        self,
        spec: BackendSpec,
        chunks: Iterable[Chunk],
        limit: int,
        timeout: float | None,
        certify: bool = False,
    ) -> Iterator[tuple[Chunk, Answers, str | None, Measured]]:
        """Submit chunks, at most :data:`~.executors.AHEAD` per cluster thread ahead of
        the answers yielded; yield (chunk, answers, worker, what each row used) as tasks
        finish (a failed task's rows: not measured). Closing the iterator cancels the
        tasks not yet finished. With ``certify`` each task proves its rows' claims
        (:func:`~.executors.solve_chunk`) and sends back only the proofs' figures."""
        dd = distributed()
        whole = self.batch and batches(spec) and not certify
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
                certify,
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
                    answers, worker, measured = future.result()
                except Exception as err:  # noqa: BLE001 - the task's failure is its rows'
                    answers, worker = failed(spec, chunk, err), None
                    measured = Measured.nothing(len(chunk))
                yield chunk, answers, worker, measured
                following = next(pending, None)
                if following is not None:
                    finished.add(submit(following))
        finally:
            if futures:  # an interrupted run: what is not in is not wanted
                self.client.cancel(list(futures))


def run_chunk(
    spec: BackendSpec,
    chunk: Chunk,
    whole: bool,
    limit: int,
    timeout: float | None,
    certify: bool = False,
) -> tuple[Answers, str, Measured]:
    """The task: a chunk's answers from this Dask worker thread's solver child,
    "host:pid" of the Dask worker that ran it, and what each row used as the solver
    child measured it (:func:`~.executors.solve_chunk`; with ``certify``, the proofs'
    figures, checked on the Dask worker)."""
    solved = solve_chunk(spec, chunk, _solver_child(), whole, limit, timeout, None, certify)
    assert solved is not None  # no stop event: every puzzle is answered
    return solved[0], f"{socket.gethostname()}:{os.getpid()}", solved[1]


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
