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
Each answer comes with what its request used in the child, CPU time and the child's peak
memory (:class:`Usage`, read by :meth:`Worker.take_usage`).
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
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO

from ..models import Model
from .base import Request, admit, warm_model
from .result import ERROR, Answers, Result, Status

if TYPE_CHECKING:
    from ..models.grids import Grids

#: Extra seconds a backend that stops itself gets past its own deadline before the kill:
#: the kill margin (a timed-out request killed so took its timeout plus at most this,
#: and whatever a loaded machine adds to waking the parent).
GRACE = 0.5
#: Seconds a child may take to start (a fresh interpreter and its imports) or to warm a
#: backend up (its solver package imported) before it is taken for dead.
STARTUP = 60.0
#: Requests whose :class:`Usage` a worker keeps until asked (:meth:`Worker.take_usage`):
#: more than a bench chunk has rows; older ones are forgotten.
USAGE_KEPT = 1 << 16


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

    A request's clock starts before it is sent (``sudokulab.solve`` starts it before it
    parses the puzzle); starting the child and importing a backend's solver package are
    done before, by :meth:`prepare`, so they count against no request. Use it as a
    context manager, or call :meth:`close` when done::

        with Worker() as worker:
            result = worker.solve("constraint", model, limit=1, timeout=5.0)
    """

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._results: BinaryIO | None = None
        self._warm: set[tuple[str, tuple]] = set()  # backends (and options) warmed up
        # per request since take_usage (None: killed); bounded, as no caller need ask
        self._usage: deque[Usage | None] = deque(maxlen=USAGE_KEPT)

    def take_usage(self) -> list[Usage | None]:
        """What the child measured of each request since the last call, in order: a
        :class:`Usage`, or None for a request that was killed or died (not measured)."""
        taken = list(self._usage)
        self._usage.clear()
        return taken

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, kind: object, *exc: object) -> None:
        if kind is None:
            self.close()
        else:  # an error or Ctrl-C: no waiting for the child to finish what it does
            self.kill()

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs."""
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        """Start the child if it is not running, and wait until it is ready (its
        imports done); solve does this on demand."""
        if self._process is not None and self._process.poll() is None:
            return
        self._discard()
        read_end, write_end = os.pipe()
        code = (
            f"from sudokulab.backends.isolation import _serve; _serve({write_end}, {os.getpid()})"
        )
        try:
            self._process = subprocess.Popen(
                # -P: the current folder is not put on sys.path, so a source checkout's
                # sudokulab/ folder there cannot shadow the installed package.
                [sys.executable, "-P", "-c", code],
                stdin=subprocess.PIPE,
                pass_fds=(write_end,),
                # Its own process group: Ctrl-C at the terminal reaches the parent only,
                # which decides (the child exits when the parent is gone).
                process_group=0,
            )
        finally:
            os.close(write_end)
        self._results = os.fdopen(read_end, "rb")
        self._await("ready")

    def prepare(self, backend: str, options: dict[str, Any] | None = None) -> None:
        """Start the child and warm ``backend`` up in it (its solver package imported, on
        a 4x4 grid with one cell open), so that no request's time goes to either."""
        self.start()
        key = (backend, tuple(sorted((options or {}).items())))
        if key in self._warm or self._process is None:
            return
        try:
            _send(self._process.stdin, ("warm", backend, None, options or {}))
        except OSError:
            return  # dead: the request will say how
        if self._await("warm"):
            self._warm.add(key)

    def _await(self, word: str) -> bool:
        """Wait (up to :data:`STARTUP`) for ``word`` from the child; False, the child
        killed, when it does not come."""
        assert self._results is not None
        try:
            ready, _, _ = select.select([self._results], [], [], STARTUP)
            if ready and _receive(self._results) == word:
                return True
        except (EOFError, OSError, pickle.UnpicklingError):
            pass
        self._stop_child()  # the next request says how it died, or starts another
        return False

    def solve(
        self,
        backend: str,
        model: Model,
        limit: int | None = 1,
        timeout: float | None = None,
        options: dict[str, Any] | None = None,
        hard_timeout: float | None = None,
    ) -> Result:
        """Admit the request (ValueError for a bad one), then :meth:`run` it, the clock
        started once the child is ready."""
        from .registry import get_backend

        self.prepare(backend, options)
        request = admit(get_backend(backend), model, limit, timeout, options)
        return self.run(backend, model, request, hard_timeout)

    def run(
        self, backend: str, model: Model, request: Request, hard_timeout: float | None = None
    ) -> Result:
        """Run an admitted request in the child; kill it at the hard deadline.

        The backend gets the request's deadline, so one that can stop itself does so and
        keeps its partial results; for it the kill is a backstop, :data:`GRACE` seconds
        after the deadline. One that cannot stop itself with these options is killed at
        the deadline itself. ``hard_timeout``, seconds from now, replaces both.
        """
        self.start()
        assert self._process is not None and self._results is not None
        sent = time.perf_counter()
        kill_at = None if hard_timeout is None else sent + hard_timeout
        if kill_at is None and request.deadline is not None:
            from .registry import get_backend

            stops = get_backend(backend).stops_itself_with(request.options)
            kill_at = request.deadline + (GRACE if stops else 0.0)
        try:
            self._usage.append(None)  # until the answer comes with it
            _send(self._process.stdin, ("run", backend, model, request))
            if self._wait(kill_at):
                answer, self._usage[-1] = _receive(self._results)
                return answer
        except (EOFError, OSError, pickle.UnpicklingError):
            now = time.perf_counter()
            return Result(
                backend,
                Status.ERROR,
                build_time=sent - request.start,
                solve_time=now - sent,
                message=self._death(),
            )
        now = time.perf_counter()
        self.kill()
        origin = sent if hard_timeout is not None else request.start
        assert kill_at is not None
        return Result(
            backend,
            Status.TIMEOUT,
            build_time=sent - request.start,
            solve_time=now - sent,
            message=f"killed after {now - origin:.2f} s (hard deadline {kill_at - origin:g} s)",
        )

    def run_grids(self, backend: str, grids: Grids, request: Request) -> Answers | None:
        """Run an admitted request on a block of puzzles in one message to a backend with
        ``batch`` (it stops itself); the block travels as arrays, the answers too.

        Each puzzle gets the request's timeout; the child is killed after the sum of the
        timeouts plus :data:`GRACE`, and then the answer is None: the block tells nothing
        of any one puzzle, and the caller asks again one puzzle at a time.
        """
        self.start()
        assert self._process is not None and self._results is not None
        sent = time.perf_counter()
        kill_at = None if request.timeout is None else sent + request.timeout * len(grids) + GRACE
        try:
            self._usage.append(None)  # until the answer comes with it
            _send(self._process.stdin, ("grids", backend, grids, request))
            if self._wait(kill_at):
                answer, self._usage[-1] = _receive(self._results)
                return answer
        except (EOFError, OSError, pickle.UnpicklingError):
            self._death()
            return None
        self.kill()
        return None

    def _wait(self, until: float | None) -> bool:
        """Whether the answer arrives before ``until`` (perf_counter; None: ever)."""
        assert self._results is not None
        while True:
            left = None if until is None else max(until - time.perf_counter(), 0.0)
            ready, _, _ = select.select([self._results], [], [], left)
            if ready:
                return True
            if until is not None and time.perf_counter() >= until:
                return False

    def kill(self) -> None:
        """Kill the child now and reap it."""
        self._stop_child()

    def _stop_child(self) -> None:
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
        self._warm = set()


@dataclass(frozen=True)
class Usage:
    """What the child used for one request: CPU seconds (user + system, its own threads
    and the subprocesses it waited for) and its peak resident memory in MB so far (the
    process's high-water mark since it started, not the request's own)."""

    cpu_s: float
    peak_mb: float


def _cpu_seconds() -> float:
    """This process's CPU time so far, and that of its children it has waited for."""
    import resource

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _peak_mb() -> float:
    """The high-water mark of this process's (or a waited-for child's) resident memory."""
    import resource

    most = max(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    )
    return most / (1024 * 1024 if sys.platform == "darwin" else 1024)  # bytes there, KiB here


def _all(backend: str, grids: Grids, status: int, message: str) -> Answers:
    """The same answer for every row of a block (a backend that failed on it)."""
    out = Answers.empty(backend, len(grids), grids.geometry.cell_count)
    out.status[:] = status
    out.messages = dict.fromkeys(range(len(grids)), message)
    return out


def _send(stream: Any, message: Any) -> None:
    """Write one length-prefixed pickle and flush."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack("<Q", len(data)) + data)
    stream.flush()


def _reply(stream: Any, message: Any) -> None:
    """The child's :func:`_send`: when the parent has closed its end (Ctrl-C, or it gave
    up on the request) nobody is left to read the answer, so the child ends quietly
    rather than print a broken pipe's traceback into the parent's terminal."""
    try:
        _send(stream, message)
    except BrokenPipeError:
        os._exit(0)  # no flush at exit: the buffered rest would break the pipe again


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
    """The child's loop: say it is ready, then answer each request from stdin."""
    # Ctrl-C is the parent's to decide (the child has its own process group too).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    requests = sys.stdin.buffer
    results = os.fdopen(result_fd, "wb")
    os.dup2(2, 1)  # anything a solver prints goes to stderr, not into the result pipe
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    from .registry import get_backend

    _reply(results, "ready")
    while True:
        try:
            received = _receive(requests)
        except (EOFError, OSError):
            return
        if received is None:
            return
        kind, name, payload, request = received  # a warm-up's "request" is its options
        spent = _cpu_seconds()
        try:
            backend = get_backend(name)
            if kind == "warm":
                with contextlib.suppress(Exception):  # the request will say what fails
                    backend.solve(warm_model(), 1, None, **request)
                answer: Any = "warm"
            elif kind == "grids":  # a block: answers as arrays
                answer = backend.run_grids(payload, request)
            else:
                answer = backend.run(payload, request)
        except Exception as err:  # a backend bug costs one result (or block), not the run
            why = f"{type(err).__name__}: {err}"
            answer = _all(name, payload, ERROR, why) if kind == "grids" else None
            if answer is None:
                answer = Result(name, Status.ERROR, message=why)
        if kind != "warm":  # a request's answer travels with what it used
            answer = (answer, Usage(_cpu_seconds() - spent, _peak_mb()))
        _reply(results, answer)
