"""The public API: solve a puzzle, count its solutions, verify a grid."""

from __future__ import annotations

import time
from typing import Any

from .backends import Result, Status, get_backend
from .models import Puzzle, build_model, parse_puzzle


def as_puzzle(puzzle: Puzzle | str) -> Puzzle:
    """A Puzzle as given, or parsed from text in any format sudokulab reads."""
    return puzzle if isinstance(puzzle, Puzzle) else parse_puzzle(puzzle)


def solve(
    puzzle: Puzzle | str,
    backend: str = "native-py",
    limit: int | None = 1,
    timeout: float | None = None,
    **options: Any,
) -> Result:
    """Solve a puzzle with a backend, finding up to ``limit`` solutions.

    Givens that break the rules give status ``invalid`` naming the clash; an unsolvable
    puzzle is a status, not an exception. ``options`` go to the backend (for the native
    engine: ``propagation`` and ``order``).

    >>> r = solve("4.....8.5.3..........7......2.....6.....8.4......1......."
    ...           "6.3.7.5..2.....1.4......")
    >>> r.status, r.count
    (<Status.SOLVED: 'solved'>, 1)
    """
    chosen = get_backend(backend)
    puzzle = as_puzzle(puzzle)
    clashes = puzzle.clashes()
    if clashes:
        return Result(chosen.name, Status.INVALID, message="; ".join(map(str, clashes)))
    start = time.perf_counter()
    model = build_model(puzzle)
    build_time = time.perf_counter() - start
    result = chosen.solve(model, limit=limit, timeout=timeout, **options)
    return Result(
        backend=result.backend,
        status=result.status,
        solutions=result.solutions,
        count=result.count,
        exact=result.exact,
        build_time=result.build_time + build_time,
        solve_time=result.solve_time,
        stats=result.stats,
        message=result.message,
    )


def count(
    puzzle: Puzzle | str,
    limit: int | None = 1000,
    backend: str = "native-py",
    timeout: float | None = None,
    **options: Any,
) -> int:
    """The number of solutions, counting no further than ``limit`` (None: no limit).

    Raises ValueError for clashing givens and TimeoutError when the deadline stops the
    count before it is settled.

    >>> count("1...............", limit=5)
    5
    """
    result = solve(puzzle, backend, limit, timeout, **options)
    if result.status is Status.INVALID:
        raise ValueError(f"invalid puzzle: {result.message}")
    if result.status is Status.TIMEOUT or result.status is Status.ERROR:
        raise TimeoutError(
            f"counting stopped after {result.count} solution(s): {result.status}"
            + (f" ({result.message})" if result.message else "")
        )
    return result.count
