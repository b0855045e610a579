"""The ``sudokulab`` command line: one module per command group.

``common`` holds what they share (exit statuses, the error path, argument types, reading
puzzles); ``commands`` builds the parser (of the running command's group alone: a
command imports what it runs) and runs a command (a module of its own name, so that
:func:`main` here stays the function once it is imported). This module imports neither
until asked: the ``sudokulab`` script imports it before anything else, and :func:`main`
puts the process's one Ctrl-C arrangement (:mod:`sudokulab.backends.interrupt`) in place
first, so that a Ctrl-C while the commands' modules load is already the clean one.
"""

from __future__ import annotations

import os
import sys
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
    try:
        # The process's one Ctrl-C arrangement (it stops the searches in flight, in any
        # thread, then raises KeyboardInterrupt), in place before the commands' modules
        # load: a handler of the command's own would leave native searches deaf to it.
        from ..backends import interrupt

        with _quiet_ctrl_c(interrupt):
            from .commands import main as run  # every command's modules: Ctrl-C may come meanwhile

            return run(argv)
    except KeyboardInterrupt:
        return interrupted()


@contextmanager
def _quiet_ctrl_c(interrupt: Any) -> Iterator[None]:
    """While the command runs, Ctrl-C also turns logging off (restored after): what
    libraries log while the command stops (a Dask cluster's goodbyes, with tracebacks)
    would bury the one line that says what happened."""
    silenced: list[int] = []

    def silence() -> None:
        logging = sys.modules.get("logging")  # not loaded: nothing logs
        if logging is not None and not silenced:
            silenced.append(logging.root.manager.disable)
            logging.disable(logging.CRITICAL)

    with interrupt.also_calling(silence):
        try:
            yield
        finally:
            if silenced:
                sys.modules["logging"].disable(silenced[0])


def interrupted() -> int:
    """Say in one line that Ctrl-C stopped the command; the exit status to return."""
    print("sudokulab: interrupted", file=sys.stderr)
    return _INTERRUPTED


def build_parser(command: str | None = None) -> Any:
    """The argument parser of every command, or of one command's group
    (:func:`.commands.build_parser`)."""
    from .commands import build_parser as build

    return build(command)


__all__ = ["build_parser", "interrupted", "main"]
