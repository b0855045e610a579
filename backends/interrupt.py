"""Ctrl-C during a search: the solver is stopped and KeyboardInterrupt reaches the caller.

Python runs its SIGINT handler only in the main thread, and only between two bytecodes:
a solver searching in native code (CP-SAT, a SAT solver, a MIP solver, z3) would keep
the caller waiting until it ended, and some catch SIGINT themselves and report it as a
time limit. So each backend turns its solver's own Ctrl-C handling off, and a search
runs under :func:`call`:

- in the main thread, a backend whose search is native code (``checks_signals`` false)
  runs it on a helper thread, while the main thread waits where the handler can run;
- the handler (installed at import in place of Python's default one, which it extends)
  calls the stop of every search in flight, in any thread (each backend registers its
  solver's with :func:`on_interrupt`: CP-SAT's ``stop_search``, PySAT's ``interrupt``,
  SCIP's ``InterruptSolve``, z3's context ``interrupt``, the compiled core's
  ``interrupt``), then raises KeyboardInterrupt as the default does;
- a search stopped so raises KeyboardInterrupt where it ran, never a result (a stopped
  search is no verdict), and a search started from another thread after Ctrl-C does not
  start, until the main thread starts one again (the user went on).

Pure Python searches (``checks_signals`` true) get KeyboardInterrupt by themselves; the
compiled native core looks for it with the clock (``native/core.h``). A solver that
cannot be stopped (HiGHS, which pywraplp cannot interrupt) is left to end on its helper
thread, in the background; the caller is not kept waiting. Where Ctrl-C is not this
module's to hear (a worker process ignores it; a program may have a handler of its
own), searches run in place, as they are.

This is the process's one SIGINT arrangement, whichever entry point starts it: the
``sudokulab`` command puts it in place before anything else (and asks, with
:func:`also_calling`, for logging to be turned off on Ctrl-C), an API call puts it back
in place of Python's default handler each time a search starts on the main thread (a
notebook's kernel may have put the default back between two cells), and a server stops
its searches with :func:`stop_all`.
"""

from __future__ import annotations

import contextlib
import queue
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

#: The stops of the searches in flight: a search's token -> its callbacks.
_stops: dict[int, list[Callable[[], Any]]] = {}
_lock = threading.Lock()
_local = threading.local()  # the token of the search running on this thread
_tokens = iter(range(1, 1 << 62))
#: Set by Ctrl-C; cleared when the main thread starts a search again.
_interrupted = threading.Event()


def on_interrupt(stop: Callable[[], Any]) -> None:
    """Call ``stop`` (the solver's own way to end its search early) if Ctrl-C comes while
    the search running on this thread is in flight; at once if it came already."""
    token = getattr(_local, "token", None)
    if token is None:
        return  # not under call(): nothing to stop it for
    with _lock:
        if token not in _stopped:
            _stops[token].append(stop)
            return
    stop()  # Ctrl-C came before the solver was made


def stop_all() -> None:
    """Stop every search in flight (each raises KeyboardInterrupt where it runs)."""
    _interrupted.set()
    with _lock:
        stopped = list(_stops)
        callbacks = [stop for token in stopped for stop in _stops[token]]
        for token in stopped:
            _stops[token] = []
        _stopped.update(stopped)
    for stop in callbacks:
        with contextlib.suppress(Exception):  # a solver past its end: nothing to stop
            stop()


#: Searches stopped by Ctrl-C (tokens), until they end.
_stopped: set[int] = set()


def stopped() -> bool:
    """Whether Ctrl-C stopped the search running on this thread: a loop of solver calls
    ends at once (its result is never used: the search raises KeyboardInterrupt)."""
    token = getattr(_local, "token", None)
    return token is not None and token in _stopped


def call(search: Callable[..., T], *args: Any, in_place: bool = False) -> T:
    """``search(*args)``, stoppable by Ctrl-C; KeyboardInterrupt if Ctrl-C stopped it.

    ``in_place``: the search hears Ctrl-C by itself (pure Python, or the native core),
    so the main thread runs it itself; otherwise the main thread hands it to a helper
    thread and waits where Python's handler can run (unless Ctrl-C is not ours to hear:
    a worker process ignores it, a program may handle it its own way).
    """
    if threading.current_thread() is _MAIN:
        if _interrupted.is_set():
            _interrupted.clear()  # the main thread goes on: a new request
        if not in_place and install():
            return _helper().run(search, args)
    elif _interrupted.is_set():
        raise KeyboardInterrupt  # Ctrl-C came: searches from other threads stop too
    return _registered(search, args)


_MAIN = threading.main_thread()


def _registered(search: Callable[..., T], args: tuple) -> T:
    """``search(*args)`` registered on this thread; KeyboardInterrupt if stopped."""
    token = next(_tokens)
    with _lock:
        _stops[token] = []
    outer, _local.token = getattr(_local, "token", None), token
    try:
        result = search(*args)
    finally:
        _local.token = outer  # a block's search runs each puzzle's under its own
        with _lock:
            del _stops[token]
            stopped = token in _stopped
            if stopped:
                _stopped.discard(token)
    if stopped:
        raise KeyboardInterrupt
    return result


class _Helper:
    """A daemon thread that runs the main thread's native searches, one at a time."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[tuple[Callable[..., Any], tuple, list, threading.Event]]
        self.jobs = queue.SimpleQueue()
        self.busy = False
        threading.Thread(target=self._serve, name="sudokulab-search", daemon=True).start()

    def _serve(self) -> None:
        while True:
            search, args, box, done = self.jobs.get()
            try:
                box.append((True, _registered(search, args)))
            except BaseException as err:  # noqa: BLE001 - handed to the waiting caller
                box.append((False, err))
            finally:
                self.busy = False
                done.set()

    def run(self, search: Callable[..., T], args: tuple) -> T:
        """Run ``search(*args)`` here and wait for it where Ctrl-C can be heard."""
        box: list[tuple[bool, Any]] = []
        done = threading.Event()
        self.busy = True
        self.jobs.put((search, args, box, done))
        try:
            done.wait()  # Ctrl-C: the handler stops the search, KeyboardInterrupt here
        except KeyboardInterrupt:
            # A solver that cannot be stopped keeps this thread: the next search gets
            # another; one that can ends promptly, and its thread is reused.
            done.wait(_STOPPING)
            raise
        ok, value = box[0]
        if ok:
            return value
        raise value


#: Seconds a search stopped by Ctrl-C is given to end before the caller goes on (one
#: that cannot be stopped goes on in the background, on its helper thread, to its end).
_STOPPING = 0.5
_helpers: list[_Helper] = []


def _helper() -> _Helper:
    """An idle helper thread (a new one when the last is held by an unstoppable solver)."""
    if not _helpers or _helpers[-1].busy:
        _helpers[:] = [_Helper()]
    return _helpers[-1]


#: What Ctrl-C also calls, in order, while the blocks that asked run (:func:`also_calling`).
_also: list[Callable[[], Any]] = []


def _on_sigint(signum: int, frame: Any) -> None:
    """Python's default SIGINT handler, which first stops every search in flight."""
    stop_all()
    for callback in list(_also):
        with contextlib.suppress(Exception):  # the one line and exit 130 come first
            callback()
    signal.default_int_handler(signum, frame)


def install() -> bool:
    """Put :func:`_on_sigint` in place of Python's default SIGINT handler (from the main
    thread; a handler the program set, or SIGINT ignored, is left alone). True when it is
    in place; cheap, so called before each search on the main thread."""
    current = signal.getsignal(signal.SIGINT)
    if current is signal.default_int_handler and threading.current_thread() is _MAIN:
        signal.signal(signal.SIGINT, _on_sigint)
        return True
    return current is _on_sigint


@contextlib.contextmanager
def also_calling(callback: Callable[[], Any]) -> Iterator[None]:
    """While the block runs, Ctrl-C also calls ``callback`` (after stopping the searches,
    before KeyboardInterrupt is raised); what the ``sudokulab`` command turns logging off
    with."""
    _also.append(callback)
    try:
        yield
    finally:
        _also.remove(callback)


install()
