"""Misbehaving backends for the bench tests, registered through $SUDOKULAB_BACKENDS."""

from __future__ import annotations

import os
import signal
import time

from sudokulab.backends import Backend, Result
from sudokulab.backends.native import NativeBackend
from sudokulab.native import reference


class CrashBackend(Backend):
    """Dies from SIGSEGV on puzzles whose first cell is blank; solves the others."""

    name = "crash"
    kinds = frozenset({"alldifferent"})
    options: dict = {}
    stops_itself = True
    requires = ""

    def available(self) -> bool:
        return True

    def version(self) -> str:
        return "0"

    def search(self, model, request) -> Result:
        if model.givens[0] == 0:
            os.kill(os.getpid(), signal.SIGSEGV)
        inner = NativeBackend("crash", reference.Engine, "python")
        return inner.search(model, request)


class HangBackend(CrashBackend):
    """Ignores its deadline and never returns on puzzles whose first cell is blank."""

    name = "hang"

    def search(self, model, request) -> Result:
        if model.givens[0] == 0:
            while True:
                time.sleep(1)
        return super().search(model, request)


class StuckBackend(HangBackend):
    """Hangs as ``hang`` does and says it cannot stop itself (as python-constraint between
    two solutions): the worker must kill it at the timeout, with no grace period."""

    name = "stuck"
    stops_itself = False


class SlowBackend(CrashBackend):
    """The native engine, a quarter of a second per puzzle: a bench worth interrupting."""

    name = "slow"

    def search(self, model, request) -> Result:
        time.sleep(0.25)
        inner = NativeBackend("slow", reference.Engine, "python")
        return inner.search(model, request)


class HangBatchBackend(HangBackend):
    """Takes batches (like the native backends) and hangs on any with a blank first cell."""

    name = "hangbatch"
    batch = True  # the contract's search_grids: one search per puzzle, in one request


class WrongBackend(CrashBackend):
    """Claims every puzzle solved with a grid that breaks the rules (all ones)."""

    name = "wrong"

    def search(self, model, request) -> Result:
        from sudokulab.backends import Status

        grid = tuple([1] * len(model.givens))
        return Result("wrong", Status.SOLVED, (grid,), 1, False)
