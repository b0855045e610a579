"""The backend contract: a name, a cheap availability probe, and ``search``.

**A verdict is a proof or a timeout.** ``unsolvable``, ``multiple``, ``solved`` with an
exact count (``unique``), and any exact count are reported only when the solver reached
them before the deadline. Anything a solver says after the deadline is ``timeout``
(whatever it says: a solution found late is kept, with the count as a lower bound and
``exact`` false), and so is a status the solver cannot prove (a MIP solver's
"infeasible" when its time limit stopped it). The deadline starts when the request
starts: ``sudokulab.solve`` reads the clock before it parses the puzzle, so building the
model and the backend's own form of it (clauses, a program) are inside it. The rule is
applied in one place, :meth:`Backend.run` (:func:`verdict`, and :func:`verdicts` for a
block's columns), after every search; :func:`count_by_blocking`, the loop of the
backends that count by blocking each solution found, keeps it while it counts.

**Each request is admitted once** (:func:`admit`): its options converted to their kinds,
its limit, its timeout (finite and above 0, or None) and the constraint kinds checked.
``sudokulab.solve`` admits a request and hands it to :meth:`Backend.run` (or to a
worker process, which runs the same); :meth:`Backend.solve`, for a backend called
directly, admits and runs. A backend writes only :meth:`Backend.search`, which receives
the admitted :class:`Request`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import numbers
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

from ..models import Grid, Model, build_model
from . import interrupt
from .result import MULTIPLE, SOLVED, STATUSES, TIMEOUT, UNSOLVABLE, Answers, Result, Status

if TYPE_CHECKING:  # numpy is imported by what works on blocks, not by every backend
    from ..models.grids import Grids

#: What an option accepts: a tuple of allowed strings, or a type its value converts to.
OptionKind = tuple[str, ...] | type


class WholeNumber(int):
    """An option that is a whole number, 0 or more (a budget, a count)."""

    def __new__(cls, value: object) -> WholeNumber:
        number = int(value)  # ValueError for text that is not a number
        if number < 0:
            raise ValueError(value)
        return super().__new__(cls, number)


class PositiveNumber(int):
    """An option that is a whole number, 1 or more (a number of threads)."""

    def __new__(cls, value: object) -> PositiveNumber:
        number = int(value)
        if number < 1:
            raise ValueError(value)
        return super().__new__(cls, number)


def kind_name(kind: OptionKind) -> str:
    """How messages and ``sudokulab backends`` name an option's kind."""
    if isinstance(kind, tuple):
        return "|".join(kind)
    if kind is WholeNumber:
        return "whole number (0 or more)"
    if kind is PositiveNumber:
        return "whole number (1 or more)"
    return getattr(kind, "label", kind.__name__)  # a kind may name itself (a probability)


@dataclass(frozen=True)
class Request:
    """A request as :func:`admit` lets it through: what :meth:`Backend.search` is given.

    ``start`` is when the request started (``time.perf_counter``, a clock every process
    of the machine shares, so a worker process reads the same deadline); ``options`` are
    converted to their kinds.
    """

    limit: int | None = 1
    timeout: float | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    start: float = 0.0
    #: Whether a negative claim (no solution, unique, an exact count) is to come with a
    #: proof: a backend that :attr:`~Backend.certifies` attaches its own to the result.
    certify: bool = False

    @property
    def deadline(self) -> float | None:
        """When the request must be answered (``time.perf_counter``), or None."""
        return None if self.timeout is None else self.start + self.timeout

    def left(self) -> float | None:
        """Seconds left before the deadline (0 or less once it passed), or None."""
        return None if self.timeout is None else self.start + self.timeout - time.perf_counter()

    def passed(self) -> bool:
        """Whether the deadline has passed."""
        return self.timeout is not None and time.perf_counter() > self.start + self.timeout

    def at(self, start: float) -> Request:
        """The same request, started at ``start``."""
        return dataclasses.replace(self, start=start)


class Unsupported(ValueError):
    """The model has a constraint kind the backend does not take (``unsupported`` says
    which, and why when the backend says)."""


def check_timeout(timeout: object) -> float | None:
    """``timeout`` as seconds: None, or a finite number above 0; ValueError otherwise."""
    if timeout is None:
        return None
    try:
        seconds = float(timeout)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"timeout must be a number of seconds, got {timeout!r}") from None
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"timeout must be a finite number of seconds above 0, got {timeout!r}")
    return seconds


def check_limit(limit: object) -> int | None:
    """``limit`` as a count of solutions: None (all), or a whole number from 1."""
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, numbers.Integral):
        raise ValueError(f"limit must be a whole number or None, got {limit!r}")
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    return int(limit)


def admit(
    backend: Backend,
    model: Model,
    limit: int | None = 1,
    timeout: float | None = None,
    options: Mapping[str, Any] | None = None,
    start: float | None = None,
    certify: bool = False,
) -> Request:
    """The request, checked once: ValueError naming a bad option, limit or timeout (or
    options under which a certifying backend writes no proof, with ``certify``), and
    :class:`Unsupported` for a constraint kind (or pencil marks) the backend does not
    take. ``start`` (default: now) is when the request began."""
    if start is None:
        start = time.perf_counter()
    checked = check_options(backend, dict(options or {}))
    if certify and backend.certifies:
        refused = backend.proof_refusal(checked)
        if refused:
            raise ValueError(f"{backend.name}: no proof: {refused}")
    request = Request(check_limit(limit), check_timeout(timeout), checked, start, bool(certify))
    refusal = unsupported(backend, model, checked)
    if refusal:
        raise Unsupported(refusal)
    return request


@runtime_checkable
class Backend(Protocol):
    """What every backend provides.

    Capabilities are data: ``kinds`` lists the constraint kinds the backend accepts,
    ``options`` the keyword options its ``solve`` takes (each a tuple of allowed values
    or a type such as ``int``), and ``stops_itself`` says whether it keeps its deadline
    on its own (``stops_itself_with`` may say otherwise for some options); one that does
    not is run in a child process killed at the deadline (``sudokulab.solve`` does so
    when a timeout is given), and one that may not run in the caller's process at all
    (``in_process_with``, or a grid of more than ``in_process_cells`` cells) always is;
    ``requires`` names the package to install when
    ``available()`` is false; ``batch`` says whether ``search_grids`` does better than
    one search per puzzle (the bench then sends it chunks of puzzles); ``checks_signals``
    says whether Ctrl-C reaches its search where it runs (pure Python does; a solver in
    native code is run on a helper thread instead, see :mod:`.interrupt`).

    A backend class subclasses this protocol and writes :meth:`search`; it inherits
    :meth:`solve` and :meth:`run` (admission, then the search under the one rule), the
    block versions of both, ``describe``, and every hook its callers call or read
    (``missing``, ``refusal``, ``check_together``, ``in_process_cells_with``,
    ``refuses``, ``engine``: each declared here with its default, so that no caller asks
    whether a backend has it), and overrides what it does better.
    """

    name: str
    kinds: frozenset[str]
    options: dict[str, OptionKind]
    stops_itself: bool
    requires: str  # the pip package that provides the solver ("" when none is needed)
    batch: bool = False
    checks_signals: bool = False
    #: Whether the backend solves a pencil-mark puzzle (domains narrowed beyond the
    #: givens, :attr:`Model.narrowed`) with its candidates; one that does not refuses it.
    pencil_marks: bool = True
    #: Whether ``search_grids`` takes puzzles whose givens clash (answering them without
    #: a solution), so that a block is checked for clashes after it, only where no
    #: solution verifies (:func:`sudokulab.solve_grids`); else they never reach it.
    takes_clashes: bool = False
    #: Whether the backend is complete: it proves a puzzle has no solution, or one, and
    #: counts them. An incomplete one (local search) answers ``solved`` with a verified
    #: grid or ``timeout``, never ``unsolvable``, ``multiple`` or an exact count; the
    #: cross-check and the bench take its timeouts as they take any timeout.
    complete: bool = True
    #: The most cells of a grid the backend is run on in the caller's process (None: any):
    #: beyond, building its form of the model holds the interpreter for seconds, or its
    #: solver spends seconds where it looks neither at its clock nor for an interrupt, so
    #: neither a deadline nor Ctrl-C could stop it here. A larger grid's request runs in a
    #: worker process, killed at the deadline (:data:`.isolation.GRACE` after it when the
    #: backend stops itself) or on Ctrl-C.
    in_process_cells: int | None = None
    #: Why the backend does not take a constraint kind, for the kinds it says why of
    #: (kind -> reason, added to the refusal's message: ``dlx`` and killer cages).
    refuses: Mapping[str, str] = MappingProxyType({})
    #: Which implementation of one of our own engines runs, ``"c"`` or ``"python"`` (""
    #: for a backend on a solver package): the CLI searches blocks side by side on "c".
    engine: str = ""
    #: Whether ``search`` writes its own proof of its negative claims when the request
    #: asks (``request.certify``): the result's ``certificate``. For any other backend
    #: :func:`sudokulab.solve` has a second solver prove the claim.
    certifies: bool = False

    def available(self) -> bool:
        """True when the backend can run here (its package is installed); cheap to call."""
        ...

    def version(self) -> str:
        """The version of the solver behind the backend."""
        ...

    def missing(self) -> str:
        """Why the backend cannot run here when more than its package is lacking ("" when
        installing ``requires`` is all it takes): ``xcsp3`` needs a Java runtime."""
        return ""

    def refusal(self, model: Model, options: Mapping[str, Any]) -> str:
        """Why the backend will not take ``model`` with these (admitted) options although
        it takes its kinds ("" when it will), checked where the kinds are."""
        return ""

    def check_together(self, options: Mapping[str, Any]) -> str:
        """What is wrong with these (converted) options together, whatever the model (""
        when nothing): a usage error, checked with the options."""
        return ""

    def proof_refusal(self, options: Mapping[str, Any]) -> str:
        """Why a backend that :attr:`certifies` writes no proof with these (converted)
        options ("" when it writes one): a usage error with ``certify``."""
        return ""

    def stops_itself_with(self, options: Mapping[str, Any]) -> bool:
        """Whether the backend keeps its deadline with these (admitted) options; else a
        request with a timeout is run isolated and killed at the deadline."""
        return self.stops_itself

    def in_process_with(self, options: Mapping[str, Any]) -> bool:
        """Whether the backend may run in the caller's process with these options; else
        every request is run isolated (a solver that takes over the process's Ctrl-C)."""
        return True

    def in_process_cells_with(self, options: Mapping[str, Any]) -> int | None:
        """The most cells of a grid the backend is run on in the caller's process with
        these options (None: any); by default ``in_process_cells`` whatever the options."""
        return self.in_process_cells

    def search(self, model: Model, request: Request) -> Result:
        """Find up to ``request.limit`` solutions of ``model`` by ``request.deadline``.

        The request is admitted (options converted, kinds checked). ``solve_time`` is the
        search's own time; :meth:`run` counts the rest, from the request's start, as
        build time, and applies the rule to the status.
        """
        raise NotImplementedError(f"backend {self.name!r} must write search(model, request)")

    def solve(
        self, model: Model, limit: int | None = 1, timeout: float | None = None, **options: Any
    ) -> Result:
        """Find up to ``limit`` solutions of ``model`` within ``timeout`` seconds (from
        this call): the request admitted (ValueError for a bad one), then :meth:`run`."""
        start = time.perf_counter()
        return self.run(model, admit(self, model, limit, timeout, options, start))

    def run(self, model: Model, request: Request) -> Result:
        """The search on an admitted request, stoppable by Ctrl-C, held to the rule."""
        try:
            result = interrupt.call(self.search, model, request, in_place=self.checks_signals)
        except Late:  # the deadline came while the backend built its form of the model
            result = Result(self.name, Status.TIMEOUT, message=LATE)
        return verdict(result, request)

    def solve_grids(
        self,
        grids: Grids,
        limit: int | None = 1,
        timeout: float | None = None,
        **options: Any,
    ) -> Answers:
        """A block of puzzles of one shape, ``timeout`` seconds each: one row per puzzle,
        as ``solve`` answers it. The givens must not clash (the caller checks that)."""
        if not len(grids):
            return Answers.empty(self.name, 0, grids.geometry.cell_count)
        request = admit(self, build_model(grids.puzzle(0)), limit, timeout, options)
        return self.run_grids(grids, request)

    def run_grids(self, grids: Grids, request: Request) -> Answers:
        """:meth:`search_grids` on an admitted request, its rows held to the rule."""
        answers = interrupt.call(self.search_grids, grids, request, in_place=self.checks_signals)
        return verdicts(answers, request.timeout)

    def search_grids(self, grids: Grids, request: Request) -> Answers:
        """Each puzzle of the block as its own request, from its own start (building its
        model included). Override when a block goes faster in one call."""
        results = []
        for puzzle in grids.puzzles():
            start = time.perf_counter()
            results.append(self.run(build_model(puzzle), request.at(start)))
        return Answers.from_results(self.name, results, grids.geometry.cell_count)

    def describe(self, model: Model) -> str:
        """One line on what the backend builds from ``model`` (``sudokulab model``)."""
        kinds = ", ".join(sorted(model.kinds))
        return (
            f"{self.name}: the model as given, {len(model.domains)} variables and "
            f"{len(model.constraints)} constraints ({kinds})"
        )


def runs_in_process(backend: Backend, model: Model, options: Mapping[str, Any]) -> bool:
    """Whether the backend may run on ``model`` in the caller's process with these
    options (``in_process_with``, ``in_process_cells_with``)."""
    cells = backend.in_process_cells_with(options)
    return backend.in_process_with(options) and (cells is None or len(model.domains) <= cells)


def may_isolate(backend: Backend, options: Mapping[str, Any]) -> bool:
    """Whether some request to the backend with these options may run in a worker
    process: whether a caller needs one at hand."""
    return (
        not backend.in_process_with(options)
        or backend.in_process_cells_with(options) is not None
        or not backend.stops_itself_with(options)
    )


#: The backends (name and options) warmed up in this process (:func:`warm_up`).
_warmed: set[tuple[str, tuple]] = set()


@functools.cache
def warm_model() -> Model:
    """What a backend is warmed up on: a 4x4 grid with one cell open (its solver package
    imported, its caches made, and next to nothing to search, whatever the backend). Not
    every cell given: the sat backend's CNF of a full grid is empty, and PySAT's
    MapleSAT dies from SIGSEGV on an empty formula."""
    from ..models import Puzzle

    return build_model(Puzzle.from_grid([1, 2, 3, 4, 3, 4, 1, 2, 2, 1, 4, 3, 4, 3, 2, 0]))


def warm_up(backend: Backend, options: Mapping[str, Any]) -> bool:
    """Warm the backend up in this process, once per options (:func:`warm_model`); True
    when it was done now. A failure is the request's to report; Ctrl-C is raised."""
    key = (backend.name, tuple(sorted(options.items())))
    if key in _warmed:
        return False
    with contextlib.suppress(Exception):
        backend.solve(warm_model(), 1, None, **options)
    _warmed.add(key)
    return True


class Late(Exception):  # noqa: N818 - a condition, as StopIteration is
    """The request's deadline passed while the backend built its form of the model
    (:func:`check_deadline`): :meth:`Backend.run` answers a timeout."""


#: The message of a request whose deadline passed while its model was built.
LATE = "the deadline passed while the model was built"


def check_deadline(deadline: float | None) -> None:
    """Between two steps of a build: :class:`Late` once ``deadline`` (``perf_counter``)
    has passed, KeyboardInterrupt once Ctrl-C stopped the search it builds for; so that
    the request ends at the deadline, however long the whole build would take."""
    if interrupt.stopped():
        raise KeyboardInterrupt
    if deadline is not None and time.perf_counter() > deadline:
        raise Late


#: Every member of the contract (what ``isinstance(x, Backend)`` looks for), for messages:
#: what the class annotates or defines, so that a hook declared there is one.
MEMBERS = tuple(
    dict.fromkeys([*Backend.__annotations__, *(m for m in vars(Backend) if m[0] != "_")])
)

#: The statuses that are verdicts, each to be proved before the deadline.
VERDICTS = (Status.SOLVED, Status.UNSOLVABLE, Status.MULTIPLE)
_VERDICT_CODES = (SOLVED, UNSOLVABLE, MULTIPLE)  # the same, as Answers codes


def verdict(result: Result, request: Request) -> Result:
    """The one rule, on one result: its times counted from the request's start (build
    time: all but the search's own), and a verdict reached after the deadline turned
    into a timeout (solutions kept, the count a lower bound)."""
    now = time.perf_counter()
    build_time = max(now - request.start - result.solve_time, 0.0)
    deadline = request.deadline
    if deadline is None or now <= deadline or result.status not in VERDICTS:
        return dataclasses.replace(result, build_time=build_time)
    late = _late(now - deadline, result.status)
    return dataclasses.replace(
        result, status=Status.TIMEOUT, exact=False, build_time=build_time, message=late
    )


def verdicts(answers: Answers, timeout: float | None) -> Answers:
    """The one rule, on a block's columns (each row's times are its own request's): a
    verdict in a row that took longer than ``timeout`` becomes a timeout. In place."""
    if timeout is None or not len(answers):
        return answers
    import numpy as np

    took = answers.build_time + answers.solve_time
    late = np.isin(answers.status, _VERDICT_CODES) & (took > timeout)
    for i in np.flatnonzero(late).tolist():
        answers.messages[i] = _late(took[i] - timeout, STATUSES[answers.status[i]])
    answers.status[late] = TIMEOUT
    answers.exact[late] = False
    return answers


def _late(seconds: float, status: Status) -> str:
    return f"{status} {seconds:.3g} s after the deadline: a timeout"


class Counted(NamedTuple):
    """What :func:`count_by_blocking` found: the solutions, whether the count is exact,
    whether the deadline stopped it, and why the solver failed ("" when it did not)."""

    solutions: list[Grid]
    exact: bool
    timed_out: bool
    message: str = ""


@dataclass(frozen=True)
class Unanswered:
    """What an ``ask`` of :func:`count_by_blocking` returns when the solver stopped
    without an answer (its time limit, an interrupt); ``reason`` for a message."""

    reason: str = ""


#: Seconds before the deadline within which a solver that stopped without an answer is
#: taken to have been stopped by its time limit (set to the time left, in whole
#: milliseconds by some solvers), not to have failed.
SLACK = 0.05


def count_by_blocking(
    request: Request,
    ask: Callable[[float | None], Grid | None | Unanswered],
    block: Callable[[Grid], None],
    closed: bool = False,
) -> Counted:
    """Count solutions as a solver without enumeration does: ask for one, keep it,
    forbid it (``block``), ask again, up to ``request.limit``.

    ``ask(left)`` runs the solver once with ``left`` seconds (None: no deadline) and
    returns a grid, None when the solver proved there is no (further) solution, or
    :class:`Unanswered`. ``closed``: every cell is given, so the first solution is the
    only one. The rule inside: nothing is asked once the deadline has passed, and an
    answer that comes after it ends the count as a timeout (a grid is kept; a proof
    that none is left is not taken). A solver that stops without an answer has timed
    out when the deadline is within :data:`SLACK`; otherwise it failed (``message``).
    """
    solutions: list[Grid] = []
    limit = request.limit
    while limit is None or len(solutions) < limit:
        if interrupt.stopped():  # Ctrl-C: the caller gets KeyboardInterrupt, not this
            return Counted(solutions, False, True)
        left = request.left()
        if left is not None and left <= 0:
            return Counted(solutions, False, True)
        answer = ask(left)
        late = request.passed()
        if isinstance(answer, Unanswered):
            left = request.left()
            if left is not None and left <= SLACK:
                return Counted(solutions, False, True)
            why = answer.reason or "the solver stopped without an answer"
            return Counted(solutions, False, False, why)
        if answer is not None:
            solutions.append(answer)
        if late:
            return Counted(solutions, False, True)
        if answer is None or closed:
            return Counted(solutions, True, False)
        block(answer)
    return Counted(solutions, False, False)


def unsupported(backend: Backend, model: Model, options: Mapping[str, Any] | None = None) -> str:
    """Why the backend cannot take the model's constraint kinds or its pencil marks, or
    (its ``refusal``) the model with these options ("" when it can)."""
    if model.narrowed and not backend.pencil_marks:
        return f"{backend.name} does not take pencil-mark puzzles (narrowed candidates)"
    unknown = model.kinds - backend.kinds
    if not unknown:
        # beyond kinds, a backend may refuse a model it cannot hold, or not with these
        # options (gurobi's size-limited licence and a grid larger than 9x9; the native
        # engine's dom-wdeg or backjumping with variant rules)
        return backend.refusal(model, dict(options or {}))
    message = f"{backend.name} does not support {' or '.join(sorted(unknown))} constraints"
    reasons = [backend.refuses.get(kind) for kind in sorted(unknown)]
    return message + "".join(f": {reason}" for reason in reasons if reason)


def check_options(
    backend: Backend, options: dict[str, Any], *, together: bool = True
) -> dict[str, Any]:
    """The options converted to their kinds; ValueError naming anything unknown or bad
    (and, with ``together``, options that exclude each other: the backend's
    ``check_together``)."""
    checked = {}
    for key, value in options.items():
        if key not in backend.options:
            known = ", ".join(sorted(backend.options)) or "none"
            raise ValueError(f"backend {backend.name!r} has no option {key!r} (options: {known})")
        kind = backend.options[key]
        if isinstance(kind, tuple):
            if value not in kind:
                raise ValueError(
                    f"backend {backend.name!r}: {key}={value!r} is not one of {', '.join(kind)}"
                )
            checked[key] = value
            continue
        try:
            checked[key] = _convert(kind, value)
        except (TypeError, ValueError):
            raise ValueError(
                f"backend {backend.name!r}: {key}={value!r} is not a valid {kind_name(kind)}"
            ) from None
    problem = backend.check_together(checked) if together else ""
    if problem:
        raise ValueError(f"backend {backend.name!r}: {problem}")
    return checked


def _convert(kind: type, value: Any) -> Any:
    if kind is bool and isinstance(value, str):
        lowered = value.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ValueError(value)
    return kind(value)
