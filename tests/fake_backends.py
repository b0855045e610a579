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


class OverclaimBackend(CrashBackend):
    """The reference engine, claiming its first solution is the only one: a wrong
    "unique" on a puzzle with several, which a certified solve must refute."""

    name = "overclaim"

    def search(self, model, request) -> Result:
        import dataclasses

        found = NativeBackend("overclaim", reference.Engine, "python").search(model, request)
        return dataclasses.replace(
            found, solutions=found.solutions[:1], count=min(found.count, 1), exact=True
        )


class NoProofBackend(CrashBackend):
    """Writes its own proofs, but never with its options: asking it to certify is a
    usage error."""

    name = "noproof"
    certifies = True

    def proof_refusal(self, options) -> str:
        return "its proof logging is off"

    def search(self, model, request) -> Result:
        return NativeBackend("noproof", reference.Engine, "python").search(model, request)


class BadProofBackend(CrashBackend):
    """Writes its own proof of a claim, over the wrong CNF (the puzzle's, without the
    clauses blocking its solutions, so it has a model): the checker must reject it."""

    name = "badproof"
    certifies = True

    def search(self, model, request) -> Result:
        import dataclasses

        from sudokulab.api import claimed
        from sudokulab.certify.prove import claim_cnf, dimacs, second_opinion

        found = NativeBackend("badproof", reference.Engine, "python").search(model, request)
        solutions = claimed(found)
        if not request.certify or not solutions:
            return found
        made = second_opinion(model, solutions)
        cnf, clauses = claim_cnf(model, [], made.encoding)
        wrong = dimacs(model, cnf, clauses, made.claim, "badproof")
        bad = dataclasses.replace(made, cnf=wrong, prover="badproof (over the wrong CNF)")
        return dataclasses.replace(found, certificate=bad)
