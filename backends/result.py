"""One result record and one status vocabulary for every backend."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ..models import Grid
from ..models.display import Displayed


class Status(StrEnum):
    """How a solve ended."""

    SOLVED = "solved"  # at least one solution (unique if the count was checked)
    UNSOLVABLE = "unsolvable"  # the search finished and found none
    MULTIPLE = "multiple"  # a uniqueness check found more than one
    # the deadline, or a backend's work budget (the native engine's max_guesses), stopped
    # the search; the solutions found so far are kept
    TIMEOUT = "timeout"
    ERROR = "error"  # the backend failed; ``message`` says why
    INVALID = "invalid"  # the givens break the rules; ``message`` names the clash


@dataclass(frozen=True)
class Result(Displayed):
    """What one backend did with one puzzle.

    ``count`` is the number of solutions found; it is exact when ``exact`` is true (the
    search finished) and a lower bound otherwise (it stopped at the limit, the deadline
    or a work budget).
    ``solutions`` holds the first ones found, in the backend's order (the native engine
    keeps at most 1000 grids, however many it counts).
    Times are in seconds; ``stats`` holds the backend's own counters (for the native
    engine: nodes, guesses, backtracks, and ``budget_spent``: whether its ``max_guesses``
    budget stopped the search).
    """

    backend: str
    status: Status
    solutions: tuple[Grid, ...] = ()
    count: int = 0
    exact: bool = False
    build_time: float = 0.0
    solve_time: float = 0.0
    stats: dict[str, Any] = field(default_factory=dict)
    message: str = ""

    @property
    def solution(self) -> Grid | None:
        """The first solution found, or None."""
        return self.solutions[0] if self.solutions else None

    @property
    def time(self) -> float:
        """Build plus solve time, in seconds."""
        return self.build_time + self.solve_time

    @property
    def unique(self) -> bool | None:
        """True or False when the count settles it, None when it was not checked."""
        if self.count >= 2:
            return False
        if self.count == 1 and self.exact:
            return True
        return None

    def as_dict(self) -> dict[str, Any]:
        """A flat record, one key per field (for DataFrames and JSON)."""
        return {
            "backend": self.backend,
            "status": str(self.status),
            "count": self.count,
            "exact": self.exact,
            "build_time": self.build_time,
            "solve_time": self.solve_time,
            "time": self.time,
            **self.stats,
            "message": self.message,
        }


def status_of(count: int, exact: bool, timed_out: bool) -> Status:
    """The status a search's outcome earns (one rule for every backend).

    A search stopped by its deadline or its work budget (``timed_out``) is a timeout
    whatever it found (its solutions and lower-bound count are still kept in the result).
    """
    if timed_out:
        return Status.TIMEOUT
    if count >= 2:
        return Status.MULTIPLE
    if count == 1:
        return Status.SOLVED
    return Status.UNSOLVABLE if exact else Status.TIMEOUT
