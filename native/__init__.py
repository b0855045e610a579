"""The native engine: propagate and backtrack over candidate bit masks.

One algorithm, two implementations: the readable Python reference in
:mod:`sudokulab.native.reference` and the compiled core :mod:`sudokulab.native._core`
(C, built by ``pip install`` when a compiler is available), with identical semantics: the
same solutions in the same order and the same nodes, guesses and backtracks.
:data:`ENGINE` names the implementation behind :func:`search` and :func:`search_batch`
(many grids of one shape in one call: in C, one call with the GIL released and no
Python work per puzzle; each puzzle's time is measured by the engine itself).
:data:`BITBOARD` says whether the C core solves classic 9x9 grids under ``hidden`` with its
bitboard solver (on CPUs with AVX2): the same answers and counters, faster (docs/results.md,
"How the C core got there").
Both take ``max_guesses``, a budget of work that stops a search at the same guess in
either implementation on any machine (see :mod:`sudokulab.native.reference`).

Which one runs:
    the compiled core when it imports; otherwise the reference, with a warning saying why.
    ``SUDOKULAB_PURE_PYTHON=1`` forces the reference (no warning);
    ``SUDOKULAB_REQUIRE_NATIVE=1`` turns a missing or broken core into an ImportError.
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType

import numpy as np

from . import reference
from .reference import KEEP, ORDERS, PROPAGATIONS, Cage, Engine, Outcome


def _load_core() -> ModuleType | None:
    """The compiled core, or None when the reference must run (see the module docstring)."""
    if os.environ.get("SUDOKULAB_PURE_PYTHON") == "1":
        return None
    try:
        from . import _core
    except ImportError as exc:
        if os.environ.get("SUDOKULAB_REQUIRE_NATIVE") == "1":
            raise ImportError(
                f"SUDOKULAB_REQUIRE_NATIVE=1 but the compiled native core does not import: {exc}"
            ) from exc
        warnings.warn(
            f"sudokulab: the compiled native core is not available ({exc}); "
            "using the slower Python reference (reinstall with a C compiler to build it, "
            "or set SUDOKULAB_PURE_PYTHON=1 to silence this)",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    return _core


_core = _load_core()

#: The implementation :func:`search` runs: "c" (the compiled core) or "python".
ENGINE = "python" if _core is None else "c"

#: Whether the compiled core runs classic 9x9 grids under ``hidden`` propagation on its
#: AVX2 bitboard solver (same results as its general engine; see native/board9.c).
BITBOARD = _core is not None and bool(_core.BITBOARD)


@dataclass(frozen=True)
class Timed:
    """One puzzle's outcome in a batch, with its search time measured by the engine."""

    outcome: Outcome
    seconds: float


@lru_cache(maxsize=32)
def _tables(size: int, units: tuple[tuple[int, ...], ...], cages: tuple[Cage, ...] = ()):
    """The compiled core's tables for a grid shape, built once per shape.

    The reference's tables check the cages and compute their value sets: one definition
    of both, and the same errors from both implementations.
    """
    if not cages:
        return _core.Tables(size, units)
    ref = reference.tables(size, units, cages)
    return _core.Tables(size, units, tuple(zip(ref.cages, ref.combos, strict=True)))


def _search_c(
    size: int,
    units: tuple[tuple[int, ...], ...],
    givens: list[int] | tuple[int, ...],
    propagation: str = "hidden",
    order: str = "mrv",
    limit: int | None = 1,
    deadline: float | None = None,
    keep: int = KEEP,
    cages: tuple[Cage, ...] = (),
    max_guesses: int | None = None,
) -> Outcome:
    """Solve one grid with the compiled core: same arguments and answers as the reference."""
    tables = _core_tables(size, units, cages, propagation, order)
    timeout = None if deadline is None else deadline - time.perf_counter()
    return Outcome(
        *_core.search(tables, givens, propagation, order, limit, timeout, keep, max_guesses)
    )


def _core_tables(
    size: int,
    units: Sequence[Sequence[int]],
    cages: Sequence[Cage],
    propagation: str,
    order: str,
):
    """The cached C tables of a shape (units and cages as tuples or lists), once the knobs
    are checked with the reference's messages."""
    reference.check_knobs(propagation, order)
    try:
        return _tables(size, units, cages)
    except TypeError:  # unhashable (lists): normalise, then cache
        units = tuple(tuple(unit) for unit in units)
        cages = tuple((tuple(cells), total) for cells, total in cages)
        return _tables(size, units, cages)


def _search_batch_c(
    size: int,
    units: tuple[tuple[int, ...], ...],
    puzzles: Sequence[Sequence[int]],
    propagation: str = "hidden",
    order: str = "mrv",
    limit: int | None = 1,
    timeout: float | None = None,
    keep: int = KEEP,
    cages: tuple[Cage, ...] = (),
    max_guesses: int | None = None,
) -> list[Timed]:
    """Many grids of one shape in one C call (see :func:`search_batch`)."""
    tables = _core_tables(size, units, cages, propagation, order)
    answers = _core.search_batch(
        tables, puzzles, propagation, order, limit, timeout, keep, max_guesses
    )
    # Each answer is an Outcome's fields in order, then the search's seconds.
    return [Timed(Outcome(*a[:-1]), a[-1]) for a in answers]


def _search_batch_py(
    size: int,
    units: tuple[tuple[int, ...], ...],
    puzzles: Sequence[Sequence[int]],
    propagation: str = "hidden",
    order: str = "mrv",
    limit: int | None = 1,
    timeout: float | None = None,
    keep: int = KEEP,
    cages: tuple[Cage, ...] = (),
    max_guesses: int | None = None,
) -> list[Timed]:
    """Many grids with the reference, one after the other (see :func:`search_batch`)."""
    engine = Engine(size, units, propagation, order, cages)
    if limit is not None and limit < 1:  # checked up front, as the C core does
        raise ValueError(f"limit must be at least 1, got {limit}")
    if keep < 0:
        raise ValueError(f"keep must be at least 0, got {keep}")
    reference.check_budget(max_guesses)
    out = []
    for givens in puzzles:
        start = time.perf_counter()
        deadline = None if timeout is None else start + timeout
        outcome = engine.search(givens, limit, deadline, keep, max_guesses)
        out.append(Timed(outcome, time.perf_counter() - start))
    return out


#: The int64 counters :func:`search_grids` gives each puzzle, in column order.
COUNTERS = ("count", "flags", "nodes", "guesses", "backtracks", "nanoseconds")
#: Bits of the ``flags`` counter.
COMPLETE, TIMED_OUT, BUDGET_SPENT = 1, 2, 4


def _search_grids_c(
    size: int,
    units: tuple[tuple[int, ...], ...],
    givens: np.ndarray,
    propagation: str = "hidden",
    order: str = "mrv",
    limit: int | None = 1,
    timeout: float | None = None,
    cages: tuple[Cage, ...] = (),
    max_guesses: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Many grids in one C call, through buffers (see :func:`search_grids`)."""
    tables = _core_tables(size, units, cages, propagation, order)
    givens = np.ascontiguousarray(givens, dtype=np.uint8)
    solutions, counters = _core.search_buffer(
        tables, givens, propagation, order, limit, timeout, max_guesses
    )
    cells = givens.shape[1]
    return (
        np.frombuffer(solutions, dtype=np.uint8).reshape(-1, cells),
        np.frombuffer(counters, dtype=np.int64).reshape(-1, len(COUNTERS)),
    )


def _search_grids_py(
    size: int,
    units: tuple[tuple[int, ...], ...],
    givens: np.ndarray,
    propagation: str = "hidden",
    order: str = "mrv",
    limit: int | None = 1,
    timeout: float | None = None,
    cages: tuple[Cage, ...] = (),
    max_guesses: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Many grids with the reference, filling the same arrays (see :func:`search_grids`)."""
    rows = np.asarray(givens).tolist()
    timed = _search_batch_py(
        size, units, rows, propagation, order, limit, timeout, 1, cages, max_guesses
    )
    solutions = np.zeros((len(rows), size * size), dtype=np.uint8)
    counters = np.zeros((len(rows), len(COUNTERS)), dtype=np.int64)
    for i, t in enumerate(timed):
        out = t.outcome
        if out.solutions:
            solutions[i] = out.solutions[0]
        flags = (
            COMPLETE * out.complete + TIMED_OUT * out.timed_out + BUDGET_SPENT * out.budget_spent
        )
        counters[i] = (out.count, flags, out.nodes, out.guesses, out.backtracks, t.seconds * 1e9)
    return solutions, counters


def interrupt() -> None:
    """Stop every compiled search running now, in any thread (each raises
    KeyboardInterrupt within 256 guesses): what Ctrl-C does to them. The reference
    hears Ctrl-C by itself, as Python code does."""
    if _core is not None:
        _core.interrupt()


search = reference.search if _core is None else _search_c

#: Solve many grids of one shape with the same knobs, ``timeout`` seconds each (None: no
#: deadline), each from its own start, and ``max_guesses`` guesses each (None: no
#: budget); one :class:`Timed` per puzzle, in order.
search_batch = _search_batch_py if _core is None else _search_batch_c

#: Solve a ``(k, n*n)`` uint8 array of grids of one shape as :func:`search_batch` does,
#: keeping each one's first solution: ``(solutions, counters)``, a ``(k, n*n)`` uint8
#: array (zeros where there is none) and a ``(k, 6)`` int64 array of :data:`COUNTERS`.
#: In C the grids go in and come out as buffers: no Python object per puzzle.
search_grids = _search_grids_py if _core is None else _search_grids_c

__all__ = [
    "BITBOARD",
    "BUDGET_SPENT",
    "COMPLETE",
    "COUNTERS",
    "ENGINE",
    "KEEP",
    "ORDERS",
    "PROPAGATIONS",
    "Engine",
    "Outcome",
    "TIMED_OUT",
    "Timed",
    "interrupt",
    "search",
    "search_batch",
    "search_grids",
]
