"""Hard deadlines and crash protection: solving in a child process that can be killed.

One mechanism for every backend. A :class:`Worker` owns one child process that solves
models on request. If the answer does not arrive by the deadline, the child is killed
(SIGKILL, then reaped, so no orphan is left) and the caller gets a ``timeout`` result at
once; if the child dies (a crash in a solver's native code, running out of memory), the
caller gets an ``error`` result naming how it died. Either way the next request starts a
fresh child. Results already returned are never affected.

The child is a fresh interpreter started with ``subprocess`` (``python -c`` importing this
module), not ``multiprocessing``: it shares no threads or locks with the caller, and it
never re-imports the caller's main script, so a user's unguarded script cannot fork
itself. Requests and results travel as length-prefixed pickles over two pipes; the child's
standard output is pointed at its standard error so a chatty solver cannot corrupt them.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any, BinaryIO

from ..models import Model
from ..models.grids import Grids
from .result import ERROR, TIMEOUT, Answers, Result, Status

#: Extra seconds a backend that stops itself gets past its own deadline before the kill.
GRACE = 0.5


@contextlib.contextmanager
def sigint_held() -> Iterator[None]:
    """Hold Ctrl-C back in this thread for the block: the threads and processes started
    meanwhile inherit the blocked SIGINT (processes for life), so a terminal's Ctrl-C,
    sent to the whole process group, reaches the caller alone, which stops them. A
    Ctrl-C that came meanwhile is raised as the block ends.

    multiprocessing's resource tracker unblocks SIGINT in the thread that starts it:
    start it first (``multiprocessing.resource_tracker.ensure_running()``) when the
    block starts processes with multiprocessing.
    """
    if not hasattr(signal, "pthread_sigmask"):  # not POSIX: nothing to hold
        yield
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


class Worker:
    """A child process that solves models; killed and replaced when it hangs or dies.

    Use it as a context manager, or call :meth:`close` when done::

        with Worker() as worker:
            result = worker.solve("constraint", model, limit=1, timeout=5.0)
    """

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._results: BinaryIO | None = None

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs."""
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        """Start the child if it is not running (solve does this on demand)."""
        if self._process is not None and self._process.poll() is None:
            return
        self._discard()
        read_end, write_end = os.pipe()
        code = (
            f"from sudokulab.backends.isolation import _serve; _serve({write_end}, {os.getpid()})"
        )
        # Held: a Ctrl-C while the child's interpreter starts (before _serve ignores it)
        # would be a traceback.
        with sigint_held():
            try:
                self._process = subprocess.Popen(
                    # -P: the current folder is not put on sys.path, so a source checkout's
                    # sudokulab/ folder there cannot shadow the installed package.
                    [sys.executable, "-P", "-c", code],
                    stdin=subprocess.PIPE,
                    pass_fds=(write_end,),
                )
            finally:
                os.close(write_end)
            self._results = os.fdopen(read_end, "rb")

    def solve(
        self,
        backend: str,
        model: Model,
        limit: int | None = 1,
        timeout: float | None = None,
        options: dict[str, Any] | None = None,
        hard_timeout: float | None = None,
    ) -> Result:
        """Solve in the child; kill it after ``hard_timeout`` seconds.

        The backend also receives ``timeout``, so one that can stop itself does so and
        keeps its partial results; for it the kill is a backstop at timeout + grace. One
        that cannot stop itself is killed at the timeout itself (the default).
        """
        self.start()
        assert self._process is not None and self._results is not None
        if hard_timeout is None and timeout is not None:
            from .registry import get_backend

            grace = GRACE if get_backend(backend).stops_itself else 0.0
            hard_timeout = timeout + grace
        start = time.perf_counter()
        try:
            _send(self._process.stdin, (backend, model, limit, timeout, options or {}))
            ready, _, _ = select.select([self._results], [], [], hard_timeout)
            if ready:
                return _receive(self._results)
        except (EOFError, OSError, pickle.UnpicklingError):
            return Result(
                backend,
                Status.ERROR,
                solve_time=time.perf_counter() - start,
                message=self._death(),
            )
        elapsed = time.perf_counter() - start
        self.kill()
        return Result(
            backend,
            Status.TIMEOUT,
            solve_time=elapsed,
            message=f"killed after {elapsed:.2f} s (hard deadline {hard_timeout:g} s)",
        )

    def solve_grids(
        self,
        backend: str,
        grids: Grids,
        limit: int | None = 1,
        timeout: float | None = None,
        options: dict[str, Any] | None = None,
    ) -> Answers:
        """Solve a block of puzzles in one request to a backend with ``batch`` (it stops
        itself); the block travels as arrays, the answers too.

        Each puzzle gets ``timeout``; the child is killed after the sum of the timeouts plus
        the grace, and then every row of the block gets the ``timeout`` (or ``error``)
        a single request would have.
        """
        self.start()
        assert self._process is not None and self._results is not None
        hard = None if timeout is None else timeout * len(grids) + GRACE
        start = time.perf_counter()
        try:
            _send(self._process.stdin, (backend, grids, limit, timeout, options or {}))
            ready, _, _ = select.select([self._results], [], [], hard)
            if ready:
                return _receive(self._results)
        except (EOFError, OSError, pickle.UnpicklingError):
            elapsed = time.perf_counter() - start
            return _all(backend, grids, ERROR, elapsed, self._death())
        elapsed = time.perf_counter() - start
        self.kill()
        message = f"block of {len(grids)} killed after {elapsed:.2f} s (hard deadline {hard:g} s)"
        return _all(backend, grids, TIMEOUT, elapsed, message)

    def kill(self) -> None:
        """Kill the child now and reap it."""
        if self._process is not None:
            self._process.kill()
            self._process.wait()
        self._discard()

    def close(self) -> None:
        """Ask the child to stop, killing it if it does not go quietly."""
        if self._process is not None and self._process.poll() is None:
            try:
                _send(self._process.stdin, None)
                self._process.wait(timeout=1.0)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def _death(self) -> str:
        """How the child died, for an error result; forgets the dead child."""
        code = None
        if self._process is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self._process.wait(timeout=1.0)
        self.kill()
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"worker process died from {name}"
        return f"worker process died (exit status {code})"

    def _discard(self) -> None:
        if self._process is not None and self._process.stdin is not None:
            with contextlib.suppress(OSError):
                self._process.stdin.close()
        if self._results is not None:
            self._results.close()
        self._process, self._results = None, None


def _all(backend: str, grids: Grids, status: int, elapsed: float, message: str) -> Answers:
    """The same answer for every row of a block (a killed or dead worker)."""
    out = Answers.empty(backend, len(grids), grids.geometry.cell_count)
    out.status[:] = status
    out.solve_time[:] = elapsed / max(len(grids), 1)
    out.messages = dict.fromkeys(range(len(grids)), message)
    return out


def _send(stream: Any, message: Any) -> None:
    """Write one length-prefixed pickle and flush."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def _receive(stream: BinaryIO) -> Any:
    """Read one length-prefixed pickle; EOFError when the other side is gone."""
    header = stream.read(8)
    if len(header) < 8:
        raise EOFError("pipe closed")
    (size,) = struct.unpack("<Q", header)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("pipe closed mid-message")
    return pickle.loads(data)


def _watch_parent(parent: int) -> None:
    """Exit when the process that asked for the work is gone: no orphan keeps running."""
    while os.getppid() == parent:
        time.sleep(0.25)
    os._exit(1)


def _serve(result_fd: int, parent: int) -> None:
    """The child's loop: solve each request from stdin and write the result back."""
    # Ctrl-C goes to the whole process group; the parent decides what to do with it.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    requests = sys.stdin.buffer
    results = os.fdopen(result_fd, "wb")
    os.dup2(2, 1)  # anything a solver prints goes to stderr, not into the result pipe
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    from .registry import get_backend

    while True:
        try:
            request = _receive(requests)
        except (EOFError, OSError):
            return
        if request is None:
            return
        name, model, limit, timeout, options = request
        try:
            if isinstance(model, Grids):  # a block (Worker.solve_grids): answers as arrays
                result = get_backend(name).solve_grids(model, limit, timeout, **options)
            else:
                result = get_backend(name).solve(model, limit, timeout, **options)
        except Exception as err:  # a backend bug costs one result (or block), not the run
            message = f"{type(err).__name__}: {err}"
            if isinstance(model, Grids):
                result = _all(name, model, ERROR, 0.0, message)
            else:
                result = Result(name, Status.ERROR, message=message)
        _send(results, result)
