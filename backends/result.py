"""One result record and one status vocabulary for every backend."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..models import Grid
from ..models.display import Displayed

if TYPE_CHECKING:  # Answers' columns: numpy is imported when a block is answered
    import numpy as np

    from ..certify.prove import Certificate


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
    #: With ``certify``: the proof of the negative claim (none, unique, an exact count).
    certificate: Certificate | None = None

    @classmethod
    def counted(
        cls,
        backend: str,
        solutions: list[Grid],
        exact: bool,
        timed_out: bool,
        build_time: float,
        solve_time: float,
        stats: dict[str, Any],
        message: str = "",
    ) -> Result:
        """The result of a search that counted ``solutions`` (every one found): its
        status by :func:`status_of`, or ``error`` when ``message`` says the solver failed."""
        status = Status.ERROR if message else status_of(len(solutions), exact, timed_out)
        return cls(
            backend,
            status,
            tuple(solutions),
            len(solutions),
            exact and not message,
            build_time,
            solve_time,
            stats,
            message,
        )

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


#: Every status, in the order of the codes :class:`Answers` stores.
STATUSES: tuple[Status, ...] = tuple(Status)
_CODE = {status: code for code, status in enumerate(STATUSES)}
#: The code of each status in :attr:`Answers.status`.
SOLVED, UNSOLVABLE, MULTIPLE, TIMEOUT, ERROR, INVALID = (_CODE[s] for s in STATUSES)


def status_codes(count: Any, exact: Any, timed_out: Any) -> Any:
    """:func:`status_of` over arrays: the status code of each row of a block's counts and
    boolean ``exact`` and ``timed_out`` columns (the rule is the same, row by row)."""
    import numpy as np  # here only: one puzzle's result never needs numpy

    return np.where(
        timed_out | ((count == 0) & ~exact),
        TIMEOUT,
        np.where(count >= 2, MULTIPLE, np.where(count == 1, SOLVED, UNSOLVABLE)),
    ).astype(np.uint8)


@dataclass(eq=False)
class Answers:
    """What one backend did with a block of puzzles (:class:`~sudokulab.models.grids.Grids`),
    as columns: row ``i`` is what :class:`Result` says of puzzle ``i``, but for one
    solution (the first) instead of all that were kept.

    ``status`` holds codes into :data:`STATUSES`; ``solution`` is a ``(k, n*n)`` array,
    zeros where there is none; ``nodes``, ``guesses`` and ``backtracks`` are -1 where the
    backend has no such counter. ``common`` holds the stats every row shares (the native
    engine's knobs), ``stats`` the rest per row when a backend has more (else None),
    ``messages`` the message of each row that has one.
    """

    backend: str
    status: np.ndarray
    count: np.ndarray
    exact: np.ndarray
    solution: np.ndarray
    build_time: np.ndarray
    solve_time: np.ndarray
    nodes: np.ndarray
    guesses: np.ndarray
    backtracks: np.ndarray
    common: dict[str, Any] = field(default_factory=dict)
    stats: list[dict[str, Any]] | None = None
    messages: dict[int, str] = field(default_factory=dict)
    #: Which solutions verify against the rules and the givens, when
    #: :func:`sudokulab.solve_grids` checked them (to check clashes after the search);
    #: else None.
    verified: np.ndarray | None = None

    @classmethod
    def empty(cls, backend: str, k: int, cells: int) -> Answers:
        """``k`` rows of nothing yet (status error, no solution, no counters)."""
        import numpy as np

        return cls(
            backend,
            np.full(k, ERROR, dtype=np.uint8),
            np.zeros(k, dtype=np.int64),
            np.zeros(k, dtype=bool),
            np.zeros((k, cells), dtype=np.uint8),
            np.zeros(k),
            np.zeros(k),
            np.full(k, -1, dtype=np.int64),
            np.full(k, -1, dtype=np.int64),
            np.full(k, -1, dtype=np.int64),
        )

    @classmethod
    def from_results(cls, backend: str, results: Sequence[Result], cells: int) -> Answers:
        """The columns of some results (their first solutions), in order."""
        out = cls.empty(backend, len(results), cells)
        out.stats = []
        for i, r in enumerate(results):
            out.status[i] = _CODE[r.status]
            out.count[i], out.exact[i] = r.count, r.exact
            if r.solutions:
                out.solution[i] = r.solutions[0]
            out.build_time[i], out.solve_time[i] = r.build_time, r.solve_time
            for name in ("nodes", "guesses", "backtracks"):
                value = r.stats.get(name)
                if isinstance(value, int):
                    getattr(out, name)[i] = value
            out.stats.append(dict(r.stats))
            if r.message:
                out.messages[i] = r.message
        return out

    def __len__(self) -> int:
        return len(self.status)

    def put(self, rows: np.ndarray, other: Answers) -> None:
        """Write ``other``'s rows into rows ``rows`` (indices, in order) of this block,
        their ``verified`` column too when ``other`` has one."""
        import numpy as np

        rows = np.asarray(rows, dtype=np.intp)
        for name in ("status", "count", "exact", "solution", "build_time", "solve_time"):
            getattr(self, name)[rows] = getattr(other, name)
        if other.verified is not None:
            if self.verified is None:
                self.verified = np.zeros(len(self), dtype=bool)
            self.verified[rows] = other.verified
        for name in ("nodes", "guesses", "backtracks"):
            getattr(self, name)[rows] = getattr(other, name)
        if other.stats is not None or self.stats is not None:
            mine = self.stats
            if mine is None:
                mine = [self.stats_of(i) for i in range(len(self))]
            for row, i in zip(rows.tolist(), range(len(other)), strict=True):
                mine[row] = other.stats_of(i)
            self.stats = mine
        else:
            self.common = self.common or other.common
        for i, message in other.messages.items():
            self.messages[int(rows[i])] = message

    def stats_of(self, i: int) -> dict[str, Any]:
        """Row ``i``'s stats, as :attr:`Result.stats` has them."""
        if self.stats is not None:
            return dict(self.stats[i])
        out = dict(self.common)
        for name in ("nodes", "guesses", "backtracks"):
            value = int(getattr(self, name)[i])
            if value >= 0:
                out[name] = value
        return out

    def result(self, i: int) -> Result:
        """Row ``i`` as a :class:`Result` (with its first solution only)."""
        solution = self.solution[i]
        solutions = (tuple(solution.tolist()),) if solution.any() else ()
        return Result(
            backend=self.backend,
            status=STATUSES[self.status[i]],
            solutions=solutions,
            count=int(self.count[i]),
            exact=bool(self.exact[i]),
            build_time=float(self.build_time[i]),
            solve_time=float(self.solve_time[i]),
            stats=self.stats_of(i),
            message=self.messages.get(i, ""),
        )

    @property
    def time(self) -> np.ndarray:
        """Build plus solve time of each row, in seconds."""
        return self.build_time + self.solve_time

    def status_names(self) -> np.ndarray:
        """Each row's status as text (an object array)."""
        import numpy as np

        return np.array([str(s) for s in STATUSES], dtype=object)[self.status]
