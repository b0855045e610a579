"""Local search told move by move: min-conflicts, Lewis's simulated annealing and his hybrid.

The ``local`` backend reports each step to a :class:`LocalRecorder` from its own search
(see :mod:`sudokulab.backends.local`, Tracing), so the story and the backend's counters
come from one run: the same seed, the same moves, the same answer.

>>> from sudokulab.models import parse_puzzle
>>> t = trace_local(parse_puzzle("1.....1..1.....1"))
>>> str(t.result.status), replay_local(t) == list(t.result.solutions[0])
('solved', True)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..backends import Result
from ..backends.base import Unsupported, admit
from ..backends.local import DEFAULT_SEED, METHODS, LocalBackend
from ..models import Geometry, Puzzle, build_model
from ..models.puzzle import symbol

#: Steps kept by default; the rest is only counted (the backend's ``moves``).
MAX_STEPS = 2000


@dataclass(frozen=True)
class Propagation:
    """Before the search, the native engine propagated at ``level``: ``values`` holds each
    settled cell's value (0 for an open cell), ``open_cells`` and ``candidates`` what is
    left to search; ``contradiction`` what it met instead ("" when nothing)."""

    level: str
    values: tuple[int, ...]
    open_cells: int
    candidates: int
    contradiction: str


@dataclass(frozen=True)
class Start:
    """A fresh complete assignment (``number`` 1 the first, then each restart) and its
    cost; annealing's starting ``temperature`` (None under min-conflicts)."""

    values: tuple[int, ...]
    cost: int
    temperature: float | None
    number: int


@dataclass(frozen=True)
class Move:
    """Min-conflicts moved ``cell`` from ``old`` to ``new``: its conflicts ``before`` and
    ``after``, the cost after; ``how``: greedy, aspiration (a tabu value taken for a new
    best cost), walk (a random-walk move) or stay (the cell keeps its value)."""

    cell: int
    old: int
    new: int
    before: int
    after: int
    cost: int
    how: str


@dataclass(frozen=True)
class Swap:
    """Annealing tried swapping cells ``i`` (holding ``a``) and ``j`` (holding ``b``) of
    box ``box``: the cost change ``delta``, the cost after, the temperature, and whether
    the swap was taken."""

    box: int
    i: int
    j: int
    a: int
    b: int
    delta: int
    cost: int
    temperature: float
    accepted: bool


@dataclass(frozen=True)
class Rotate:
    """The hybrid tried a ring of three or more ``cells`` of box ``box`` (holding
    ``values``): each cell takes the next one's value, the last the first's; the cost
    change ``delta``, the cost after, the temperature, and whether it was taken."""

    box: int
    cells: tuple[int, ...]
    values: tuple[int, ...]
    delta: int
    cost: int
    temperature: float
    accepted: bool


@dataclass(frozen=True)
class Reheat:
    """Annealing found no new best cost for a while: the temperature goes back up."""

    temperature: float
    cost: int


LocalEvent = Propagation | Start | Move | Swap | Rotate | Reheat


class LocalRecorder:
    """The tracer the local backend reports to: keeps up to ``max_steps`` steps."""

    def __init__(self, max_steps: int | None = MAX_STEPS) -> None:
        self.events: list[LocalEvent] = []
        self.max_steps = max_steps
        self.truncated = False
        self.starts = 0
        self.values: list[int] = []  # the assignment now, for the values a swap exchanges

    def _keep(self, event: LocalEvent) -> None:
        if self.max_steps is not None and len(self.events) >= self.max_steps:
            self.truncated = True
        else:
            self.events.append(event)

    def propagate(
        self, level: str, domains: tuple[tuple[int, ...], ...] | None, contradiction: str
    ) -> None:
        """The propagation before the search (``domains`` None after a contradiction)."""
        domains = domains or ()
        values = tuple(d[0] if len(d) == 1 else 0 for d in domains)
        wide = [d for d in domains if len(d) > 1]
        self.values = list(values)
        self._keep(Propagation(level, values, len(wide), sum(map(len, wide)), contradiction))

    def start(self, values: list[int], cost: int, temperature: float | None) -> None:
        """A fresh complete assignment."""
        self.starts += 1
        self.values = list(values)
        self._keep(Start(tuple(values), cost, temperature, self.starts))

    def move(self, cell: int, old: int, new: int, before: int, after: int, cost: int,
             how: str) -> None:  # fmt: skip
        """A min-conflicts step."""
        self.values[cell] = new
        self._keep(Move(cell, old, new, before, after, cost, how))

    def swap(self, box: int, i: int, j: int, delta: int, cost: int, temperature: float,
             accepted: bool) -> None:  # fmt: skip
        """An annealing swap, taken or not."""
        a, b = self.values[i], self.values[j]
        if accepted:
            self.values[i], self.values[j] = b, a
        self._keep(Swap(box, i, j, a, b, delta, cost, temperature, accepted))

    def rotate(self, box: int, cells: tuple[int, ...], delta: int, cost: int,
               temperature: float, accepted: bool) -> None:  # fmt: skip
        """A hybrid's ring of three or more cells, taken or not."""
        held = tuple(self.values[c] for c in cells)
        if accepted:
            for c, v in zip(cells, held[1:] + held[:1], strict=True):
                self.values[c] = v
        self._keep(Rotate(box, cells, held, delta, cost, temperature, accepted))

    def reheat(self, temperature: float, cost: int) -> None:
        """Annealing starts its cooling again."""
        self._keep(Reheat(temperature, cost))


@dataclass(frozen=True)
class LocalTrace:
    """A traced local search of one puzzle: its kept steps and the backend's answer."""

    puzzle: Puzzle
    method: str
    seed: int
    events: tuple[LocalEvent, ...]
    truncated: bool
    result: Result = field(repr=False)


def trace_local(
    puzzle: Puzzle,
    options: dict[str, Any] | None = None,
    max_steps: int | None = MAX_STEPS,
    timeout: float | None = None,
) -> LocalTrace:
    """Solve ``puzzle`` with the ``local`` backend (``options`` as its own: method, seed,
    tabu, walk, ...), recording every move; a ValueError for a bad option or a puzzle the
    backend does not take."""
    backend = LocalBackend()
    model = build_model(puzzle)
    try:
        request = admit(backend, model, 1, timeout, options or {})
    except Unsupported as err:
        raise ValueError(str(err)) from None
    recorder = LocalRecorder(max_steps)
    result = backend.search(model, request, tracer=recorder)
    return LocalTrace(
        puzzle,
        request.options.get("method", METHODS[0]),
        request.options.get("seed", DEFAULT_SEED),
        tuple(recorder.events),
        recorder.truncated,
        result,
    )


def replay_local(trace: LocalTrace) -> list[int]:
    """The assignment after the last kept step, rebuilt from the steps alone."""
    values: list[int] = []
    for event in trace.events:
        if isinstance(event, (Propagation, Start)):
            values = list(event.values)
        elif isinstance(event, Move):
            values[event.cell] = event.new
        elif isinstance(event, Swap) and event.accepted:
            values[event.i], values[event.j] = event.b, event.a
        elif isinstance(event, Rotate) and event.accepted:
            for c, v in zip(event.cells, event.values[1:] + event.values[:1], strict=True):
                values[c] = v
    return values


def _cells(geom: Geometry, cells: Iterable[int]) -> str:
    return ", ".join(geom.cell_name(c) for c in cells)


def _conflicts(k: int) -> str:
    return f"{k} conflict" + ("" if k == 1 else "s")


def _taken_or_refused(what: str, event: Swap | Rotate) -> str:
    """An annealing move's words: the cost it made and how, or why it was refused."""
    heat = f"temperature {event.temperature:.3g}"
    if event.accepted:
        change = "worse, taken by chance" if event.delta > 0 else "taken"
        return f"{what}: cost {event.cost - event.delta} -> {event.cost}, {heat} ({change})"
    return f"{what}: refused, the cost would rise by {event.delta} ({heat})"


def describe_local(event: LocalEvent, geom: Geometry, method: str) -> str:
    """The line for one local-search step."""
    if isinstance(event, Propagation):
        head = f"propagation ({event.level}) before the search"
        if event.contradiction:
            return (
                f"{head}: {event.contradiction}, so no solution: a proof local search "
                "does not give (a timeout)"
            )
        if not event.open_cells:
            return f"{head} settles every cell: solved without a move"
        settled = sum(1 for v in event.values if v)
        return (
            f"{head}: {settled} cells settled, {event.open_cells} open with "
            f"{event.candidates} candidates; the search moves only the open cells"
        )
    if isinstance(event, Start):
        if method == "hybrid":
            what = "every box's open cells a permutation of the values left, each a candidate"
            cost = "values missing from the rows and columns"
            heat = f", temperature {event.temperature:.3g}"
        elif method == "annealing":
            what = "every box a permutation of the values its givens leave out"
            cost = "values missing from the rows and columns"
            heat = f", temperature {event.temperature:.3g}"
        else:
            what = "every free cell at a value with the fewest conflicts so far"
            cost = "pairs of cells of one unit holding the same value"
            heat = ""
        head = "start" if event.number == 1 else f"restart {event.number - 1}"
        return f"{head}: {what}; cost {event.cost} ({cost}){heat}"
    if isinstance(event, Move):
        name = geom.cell_name(event.cell)
        if event.how == "stay":
            return (
                f"{name} keeps {symbol(event.old)} ({_conflicts(event.before)}): no other "
                "candidate has fewer"
            )
        mark = {"walk": " (random walk)", "aspiration": " (tabu, taken: a new best cost)"}
        return (
            f"{name}: {symbol(event.old)} -> {symbol(event.new)}, conflicts {event.before} -> "
            f"{event.after}, cost {event.cost}{mark.get(event.how, '')}"
        )
    if isinstance(event, Swap):
        i, j = geom.cell_name(event.i), geom.cell_name(event.j)
        what = f"box {event.box}: swap {i} ({symbol(event.a)}) and {j} ({symbol(event.b)})"
        return _taken_or_refused(what, event)
    if isinstance(event, Rotate):
        ring = " -> ".join(
            f"{geom.cell_name(c)} ({symbol(v)})"
            for c, v in zip(event.cells, event.values, strict=True)
        )
        what = f"box {event.box}: rotate {ring}, each taking the next one's value"
        return _taken_or_refused(what, event)
    if isinstance(event, Reheat):
        return (
            f"reheat: no new best cost for a while; temperature back to "
            f"{event.temperature:.3g} (cost {event.cost})"
        )
    raise TypeError(f"no words for the event {type(event).__name__}")


def summary_lines(trace: LocalTrace) -> list[str]:
    """The summary block: the backend's counters and how the search ended."""
    r = trace.result
    stats = r.stats
    restarts = "restarts" if trace.method == "min-conflicts" else "reheats"
    rows: list[tuple[str, object]] = []
    if "propagation" in stats:
        rows.append(("propagation", f"{stats['propagation']}, {stats['open_cells']} open cells"))
    rows += [
        ("moves", stats.get("moves", 0)),
        (restarts, stats.get("restarts", 0)),
        ("best cost", stats.get("best_cost", -1)),
    ]
    if r.status == "solved":
        outcome = "solved (the grid verifies; local search proves no uniqueness)"
    else:
        outcome = f"{r.status}" + (f": {r.message}" if r.message else "")
    lines = [f"summary (local search, method {trace.method}, seed {trace.seed}):"]
    lines += [f"  {label:<16} {value}" for label, value in rows]
    lines.append(f"  {'outcome':<16} {outcome}")
    return lines


def local_narrative(trace: LocalTrace) -> str:
    """The whole story as text: one line per step, the grid found, the summary."""
    geom = trace.puzzle.geometry
    out = [
        f"puzzle {trace.puzzle} ({trace.puzzle.given_count} givens; local search, method "
        f"{trace.method}, seed {trace.seed})"
    ]
    for number, event in enumerate(trace.events, 1):
        out.append(f"{number:>5}. {describe_local(event, geom, trace.method)}")
    if trace.truncated:
        out.append(
            f"... truncated after {len(trace.events)} steps (raise --max-steps to see more); "
            "the summary counts every move"
        )
    if trace.result.solutions:
        grid = "".join(symbol(v) for v in trace.result.solutions[0])
        out.append(f"solution: {grid}")
    return "\n".join(out + [""] + summary_lines(trace))
