"""The ``sudokulab`` command line: one module per command group.

``common`` holds what they share (exit statuses, the error path, argument types, reading
puzzles); ``main`` builds the parser (of the running command's group alone: a command
imports what it runs) and runs a command. This module imports neither until asked: the
``sudokulab`` script imports it before anything else, so that a Ctrl-C while the
commands' modules load is already the clean one.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

# The command line does no linear algebra: one BLAS thread spares the start-up of a
# thread per core when numpy is imported. A user's setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

#: The exit status after Ctrl-C (``common.EXIT_INTERRUPTED``, not imported: see main).
_INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    with _quiet_ctrl_c():
        try:
            from .main import main as run  # every command's modules: Ctrl-C may come meanwhile
        except KeyboardInterrupt:
            return interrupted()
        return run(argv)


@contextmanager
def _quiet_ctrl_c() -> Iterator[None]:
    """While the command runs, Ctrl-C turns logging off, then raises KeyboardInterrupt as
    ever: what libraries log while the command stops (a Dask cluster's goodbyes, with
    tracebacks) would bury the one line that says what happened. A handler someone else
    set (or SIGINT ignored) is left alone."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return
    silenced = []

    def interrupt(signum: int, frame: Any) -> None:
        logging = sys.modules.get("logging")  # not loaded: nothing logs
        if logging is not None and not silenced:
            silenced.append((logging, logging.root.manager.disable))
            logging.disable(logging.CRITICAL)
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for logging, level in silenced:
            logging.disable(level)


def interrupted() -> int:
    """Say in one line that Ctrl-C stopped the command; the exit status to return."""
    print("sudokulab: interrupted", file=sys.stderr)
    return _INTERRUPTED


def build_parser(command: str | None = None) -> Any:
    """The argument parser of every command, or of one command's group
    (:func:`.main.build_parser`)."""
    from .main import build_parser as build

    return build(command)


__all__ = ["build_parser", "interrupted", "main"]
