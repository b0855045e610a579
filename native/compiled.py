"""The compiled core behind the reference's surface: :class:`Engine` over
:mod:`sudokulab.native._core`.

The same constructor, methods, answers and errors as
:class:`sudokulab.native.reference.Engine` (without ``trace``: the classroom traces the
reference). The core has one entry point, ``_core.search``: the givens of k puzzles in
(a buffer of bytes, or a list of ints), the knobs by keyword, two buffers out (each
puzzle's kept grids one after the other, and
:data:`~sudokulab.native.reference.COUNTERS`, seven int64 a puzzle). A search of one
puzzle is a call with k = 1, whose counters become an :class:`Outcome` here; many puzzles
go in as one array and come back as arrays (:meth:`Engine.search_grids`).
"""

from __future__ import annotations

import dataclasses
import struct
import time
from array import array
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from . import _core, surface
from .options import DEFAULTS, check
from .surface import BUDGET_SPENT, COMPLETE, COUNTERS, KEEP, TIMED_OUT, Cage, Outcome

#: One puzzle's counters in the core's bytes, and how to read them (at an offset).
_FORMAT = f"={len(COUNTERS)}q"
_counters = struct.Struct(_FORMAT).unpack_from
_KEPT = COUNTERS.index("kept")
_ROW = 8 * len(COUNTERS)  # bytes of one puzzle's counters (int64 each)
#: (complete, timed_out, budget_spent) for each value of the flags counter.
_FLAGS = tuple((bool(f & COMPLETE), bool(f & TIMED_OUT), bool(f & BUDGET_SPENT)) for f in range(8))


@lru_cache(maxsize=32)
def _tables(
    size: int, units: tuple[tuple[int, ...], ...], cages: tuple[Cage, ...] = (), rules: tuple = ()
):
    """The core's tables for a grid shape, built once per shape.

    The reference's tables check the cages and compute their value sets, and compile the
    rules: one definition of each, and the same errors from both implementations.
    """
    if not cages and not rules:
        return _core.Tables(size, units)
    from . import reference  # cages and rules only: a classic grid's start-up needs none of it

    ref = reference.tables(size, units, cages, rules)
    if not rules:
        return _core.Tables(size, units, tuple(zip(ref.cages, ref.combos, strict=True)))
    compiled = tuple(
        (r.kind, r.cells, r.coefs, r.total, r.supports, r.exact,
         tuple(x for group in r.groups for x in (len(group), *group)))  # flat: size, places
        for r in ref.rules
    )  # fmt: skip
    return _core.Tables(
        size,
        units,
        tuple(zip(ref.cages, ref.combos, strict=True)),
        rules=compiled,
        unary=ref.unary,
    )


def tables(
    size: int, units: Sequence[Sequence[int]], cages: Sequence[Cage] = (), rules: tuple = ()
):
    """The cached core tables of a shape, its units and cages as tuples or lists (and its
    variant rules, a tuple of records)."""
    try:
        return _tables(size, units, cages, rules)
    except TypeError:  # unhashable (lists): normalise, then cache
        units = tuple(tuple(unit) for unit in units)
        cages = tuple((tuple(cells), total) for cells, total in cages)
        return _tables(size, units, cages, tuple(rules))


class Engine:
    """The compiled engine for one grid shape with fixed knobs: the reference's surface.

    >>> from sudokulab.models import geometry
    >>> units = tuple(u.cells for u in geometry(4).units)
    >>> engine = Engine(4, units, propagation="hidden", order="mrv")
    >>> out = engine.search([1, 2, 0, 0, 0, 0, 1, 0, 3, 1, 0, 0, 0, 0, 0, 1], limit=2)
    >>> out.solutions, out.complete
    (((1, 2, 4, 3, 4, 3, 1, 2, 3, 1, 2, 4, 2, 4, 3, 1),), True)
    """

    def __init__(
        self,
        size: int,
        units: Sequence[Sequence[int]],
        propagation: str = DEFAULTS["propagation"],
        order: str = DEFAULTS["order"],
        cages: Sequence[Cage] = (),
        *,
        values: str = DEFAULTS["values"],
        backjump: bool = DEFAULTS["backjump"],
        rules: tuple = (),
    ) -> None:
        # the table's refusals at construction; the core refuses the same in a search
        check(propagation, order, values, backjump, "c", bool(rules))
        self.tables = tables(size, units, cages, tuple(rules))  # the core's Tables
        self.propagation = propagation
        self.order = order
        self.values = values
        self.backjump = False
        self._cells = self.tables.size**2

    def search(
        self,
        givens: Sequence[int],
        limit: int | None = 1,
        deadline: float | None = None,
        keep: int = KEEP,
        max_guesses: int | None = None,
        candidates: Sequence[int] | None = None,
        steps: bool | int = False,
    ) -> Outcome:
        """Count up to ``limit`` solutions (None: all) before ``deadline`` (perf_counter)
        and within ``max_guesses`` guesses, from the pencil marks ``candidates`` when
        given; the first ``keep`` kept as grids; with ``steps`` every placement tried, up
        to :data:`~sudokulab.native.surface.STEPS_MAX` (or ``steps`` when an int; see
        :meth:`sudokulab.native.reference.Engine.search`)."""
        cells = self._cells
        if len(givens) != cells:  # the core would read two short puzzles as one
            raise ValueError(f"givens must hold {cells} values, got {len(givens)}")
        if candidates is not None:
            candidates = _marks(candidates, self.tables.size, cells)
        timeout = None if deadline is None else deadline - time.perf_counter()
        found = _core.search(
            self.tables, givens, propagation=self.propagation, order=self.order,
            limit=limit, timeout=timeout, keep=keep, max_guesses=max_guesses,
            candidates=candidates, values=self.values, trace=surface.steps_bound(steps),
        )  # fmt: skip
        out = _outcome(found[0], found[1], 0, 0, cells)[0]
        if not steps:
            return out
        if found[2] is None:  # more placements than the bound: no record
            return dataclasses.replace(out, steps=None)
        raw = array("i", found[2])
        triples = tuple(zip(raw[0::3], raw[1::3], raw[2::3], strict=True))
        return dataclasses.replace(out, steps=triples)

    def search_grids(
        self,
        givens: Any,
        limit: int | None = 1,
        timeout: float | None = None,
        max_guesses: int | None = None,
        candidates: Any = None,
    ) -> tuple[Any, Any]:
        """Search each row of a ``(k, n*n)`` uint8 array of givens in one call of the core,
        each within ``timeout`` seconds of its own start, from the rows of a uint32 array
        of pencil marks ``candidates`` when given: ``(solutions, counters)`` as
        :meth:`sudokulab.native.reference.Engine.search_grids` gives them. The grids go in
        and come out as buffers: no Python object per puzzle."""
        import numpy as np  # here only: a search of one puzzle never needs numpy

        cells = self._cells
        grids = np.ascontiguousarray(givens, dtype=np.uint8)
        if candidates is not None:  # a uint32 array as it is; another type: the core's error
            candidates = np.ascontiguousarray(candidates)
        found, counters = _core.search(
            self.tables, grids, propagation=self.propagation, order=self.order, limit=limit,
            timeout=timeout, keep=1, max_guesses=max_guesses, candidates=candidates,
            values=self.values,
        )  # fmt: skip
        # Read-only views of the core's two bytes objects, each built in one call (a whole
        # set's pass can take tens of microseconds: frombuffer and reshape cost a tenth).
        k = len(counters) // _ROW
        counters = np.ndarray((k, len(COUNTERS)), np.int64, counters)
        found = np.ndarray((len(found) // cells, cells), np.uint8, found)
        if len(found) == k:  # every puzzle kept a grid: the rows as they are
            return found, counters
        solutions = np.zeros((len(counters), self._cells), dtype=np.uint8)
        solutions[counters[:, _KEPT] > 0] = found
        return solutions, counters


def _marks(candidates: Sequence[int], size: int, cells: int) -> Any:
    """One puzzle's pencil marks as the core's buffer of uint32 masks (a buffer as it is),
    or the reference's ValueError for a length that is not ``cells``."""
    if isinstance(candidates, (bytes, bytearray, memoryview)) or hasattr(
        candidates, "__array_interface__"
    ):
        return candidates
    from .reference import check_candidates

    return array("I", check_candidates(candidates, size, cells))


def outcomes(grids: bytes, counters: bytes, cells: int) -> list[Outcome]:
    """The core's two buffers for k puzzles of ``cells`` cells as k :class:`Outcome`, in
    order (each puzzle's ``kept`` grids follow the previous puzzle's): what tests and
    benchmarks compare with the reference. The backends read the buffers as arrays."""
    out = []
    at = 0
    for start in range(0, len(counters), struct.calcsize(_FORMAT)):
        outcome, at = _outcome(grids, counters, start, at, cells)
        out.append(outcome)
    return out


def _outcome(grids: bytes, counters: bytes, start: int, at: int, cells: int) -> tuple[Outcome, int]:
    """The :class:`Outcome` whose counters begin at byte ``start`` and whose kept grids at
    ``at``, and where the next puzzle's grids begin."""
    count, flags, nodes, guesses, backtracks, _, kept = _counters(counters, start)
    complete, timed_out, budget_spent = _FLAGS[flags]
    end = at + kept * cells
    if kept == 1 and len(grids) == cells:  # one puzzle, one grid: the common case, no slice
        solutions: tuple = (tuple(grids),)
    else:
        solutions = tuple(tuple(grids[i : i + cells]) for i in range(at, end, cells))
    outcome = Outcome(
        solutions=solutions,
        count=count,
        complete=complete,
        timed_out=timed_out,
        budget_spent=budget_spent,
        nodes=nodes,
        guesses=guesses,
        backtracks=backtracks,
    )
    return outcome, end
