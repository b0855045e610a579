"""What the native engine did, step by step: trace events, a summary, and a replay.

The Python reference engine reports every placement, elimination, guess, contradiction,
backtrack and solution to a :class:`Recorder` from the same code paths that count nodes,
guesses and backtracks (see :mod:`sudokulab.native.reference`), so the narrative and the
numbers cannot disagree. Cells, units and values here are the engine's: cells 0..n*n-1,
units indexed into ``geometry.units``, values 1..n.

>>> from sudokulab.models import parse_puzzle
>>> t = trace_puzzle(parse_puzzle("1.....1..1.....1"))
>>> t.summary.solutions, t.outcome.nodes == t.summary.nodes
(1, True)
>>> t.events[0]
Placement(cell=0, value=1, reason='given', unit=-1, depth=0)
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..models import Grid, Puzzle
from ..models.display import Displayed
from ..native import reference
from ..native.options import DEFAULTS

#: Steps kept by default: plain backtracking can take millions; the rest is only counted.
MAX_STEPS = 2000


def values_of(mask: int) -> tuple[int, ...]:
    """The values of a candidate bit mask, ascending (bit v-1 for value v)."""
    return tuple(v + 1 for v in range(mask.bit_length()) if mask >> v & 1)


@dataclass(frozen=True)
class Placement:
    """A value placed in a cell: a given, a naked single, or a hidden single of a unit."""

    cell: int
    value: int
    reason: str  # "given", "naked" or "hidden"
    unit: int  # the unit that made a hidden single (index into geometry.units), else -1
    depth: int


@dataclass(frozen=True)
class Elimination:
    """``value`` removed from the candidates of ``cells`` by its placement in ``cell``."""

    cell: int
    value: int
    cells: tuple[int, ...]
    depth: int


@dataclass(frozen=True)
class Guess:
    """The search tries ``value`` in ``cell``, one of its ``candidates``, at ``depth``;
    under dom-wdeg ``weights`` are the constraint weights then (units, then cages)."""

    cell: int
    value: int
    candidates: tuple[int, ...]
    depth: int
    weights: tuple[int, ...] = field(default=(), repr=False, compare=False)


@dataclass(frozen=True)
class Forced:
    """The cell the search chose at ``depth`` has one candidate left, ``value``: placing it
    is propagation, not a guess (a level of the search with nothing else to try)."""

    cell: int
    value: int
    depth: int


@dataclass(frozen=True)
class CagePrune:
    """Killer cage ``cage``: only ``allowed`` values fit its open cells (from the value
    sets that still can be completed), so each of ``removed``'s cells loses its values."""

    cage: int  # index into puzzle.cages
    allowed: tuple[int, ...]
    removed: tuple[tuple[int, tuple[int, ...]], ...]  # (cell, values removed there)
    depth: int


@dataclass(frozen=True)
class RulePrune:
    """Variant rule ``rule`` (index into puzzle.rules) allows no more than what is left:
    each of ``removed``'s cells loses its values."""

    rule: int
    removed: tuple[tuple[int, tuple[int, ...]], ...]  # (cell, values removed there)
    depth: int


@dataclass(frozen=True)
class Locked:
    """Locked candidates: ``value``'s places in ``unit`` all lie where it meets ``other``,
    so ``cells`` (the rest of ``other``) lose it. A box and a line: *pointing* when the
    unit is the box, *claiming* when it is the line."""

    unit: int  # where the value is confined (index into geometry.units)
    other: int  # the unit whose other cells lose it
    value: int
    cells: tuple[int, ...]
    depth: int


@dataclass(frozen=True)
class Revise:
    """AC-3 revised the arc (``cell``, ``other``): ``other`` holds ``value`` alone, so
    ``value`` has no support there and leaves ``cell``'s candidates."""

    cell: int
    other: int
    value: int
    depth: int


@dataclass(frozen=True)
class GacFilter:
    """Régin's filtering of ``unit``'s AllDifferent: ``matching`` (cell, value) is a
    maximum matching of its open cells to its missing values; ``removed`` (cell, values)
    are the values no maximum matching gives those cells."""

    unit: int  # index into geometry.units
    matching: tuple[tuple[int, int], ...]
    removed: tuple[tuple[int, tuple[int, ...]], ...]
    depth: int


@dataclass(frozen=True)
class Probe:
    """Singleton arc consistency tried ``value`` in ``cell`` and propagated with gac:
    ``failed`` means it met a contradiction, so ``value`` left ``cell``'s candidates."""

    cell: int
    value: int
    failed: bool
    depth: int


@dataclass(frozen=True)
class Probes:
    """Consistent sac probes in a row at one node, as the story summarises them (the
    recorder keeps each :class:`Probe`; :func:`~sudokulab.classroom.narrative.steps`
    joins them): ``count`` candidates tried and kept, ``first`` and ``last`` of them
    (cell, value), and the node's probes and failed ones so far."""

    count: int
    first: tuple[int, int]
    last: tuple[int, int]
    node_probes: int
    node_failed: int
    depth: int


@dataclass(frozen=True)
class Contradiction:
    """A dead state: a cell without candidates (``empty``), a value without a place in a
    unit (``noplace``), a unit whose open cells no matching gives distinct values
    (``nomatch``, under gac), a value a cell cannot take (``clash``), or a killer cage no value
    set fits (``cage``: ``values`` are the refused value at ``cell``, or with ``cell``
    -1 the values already placed in the cage)."""

    kind: str
    cell: int  # -1 when the contradiction is about a unit (or a cage) only
    unit: int  # -1 when it is about a cell only
    values: tuple[int, ...]
    depth: int
    cage: int = -1  # the cage of a ``cage`` contradiction (index into puzzle.cages)


@dataclass(frozen=True)
class Backtrack:
    """Every candidate of ``cell`` failed: the search returns to the choice before it."""

    cell: int
    depth: int


@dataclass(frozen=True)
class Backjump:
    """Backjumping: the dead end at ``from_depth`` rests on the levels of its
    ``conflict_set`` alone, so the search goes back to ``to_depth`` (the deepest of them),
    passing over the levels in between; the backtracks that follow abandon the frames."""

    from_depth: int
    to_depth: int
    conflict_set: tuple[int, ...]
    #: The branching levels passed over without trying their other candidates (a forced
    #: level in between has none).
    skipped: tuple[int, ...]
    depth: int


@dataclass(frozen=True)
class Solution:
    """A solved grid, the ``number``-th found."""

    grid: Grid
    number: int
    depth: int


Event = (
    Placement
    | Elimination
    | CagePrune
    | RulePrune
    | Locked
    | Revise
    | GacFilter
    | Probe
    | Probes
    | Guess
    | Forced
    | Contradiction
    | Backtrack
    | Backjump
    | Solution
)


@dataclass(frozen=True)
class Summary:
    """The counts of a traced search; nodes, guesses and backtracks equal the engine's."""

    givens: int  # givens placed as givens (one already deduced is counted as deduced)
    naked_singles: int
    hidden_singles: int
    guesses: int
    backtracks: int
    max_depth: int
    nodes: int
    contradictions: int
    solutions: int
    cage_prunings: int = 0  # killer cages whose value sets removed candidates
    locked_candidates: int = 0  # values removed as locked candidates (propagation locked)
    revisions: int = 0  # arcs whose revision removed a value (propagation ac3)
    gac_filterings: int = 0  # units whose GAC filtering removed values (gac, sac)
    probes: int = 0  # candidates tried by singleton arc consistency (sac)
    failed_probes: int = 0  # of those, the ones removed
    backjumps: int = 0  # dead ends that jumped back over a branching level (backjump)
    skipped: int = 0  # the branching levels those jumps passed over
    rule_prunings: int = 0  # variant rules whose propagation removed candidates
    forced: int = 0  # cells the search chose with one candidate left (none, forward)


@dataclass(frozen=True)
class Trace(Displayed):
    """A traced search of one puzzle: its events (the first ``max_steps`` steps) and counts."""

    puzzle: Puzzle
    propagation: str
    order: str
    events: tuple[Event, ...]
    summary: Summary
    truncated: bool  # steps were left out (still counted in the summary)
    complete: bool  # the search space was exhausted
    timed_out: bool
    outcome: reference.Outcome = field(repr=False)
    values: str = DEFAULTS["values"]  # the value order
    backjump: bool = False  # conflict-directed backjumping

    @property
    def solutions(self) -> tuple[Grid, ...]:
        """The solutions the engine found (as the engine returned them)."""
        return self.outcome.solutions


class Recorder:
    """The tracer the engine reports to: keeps events up to ``max_steps`` and counts all.

    A step is any event but an elimination (which belongs to the placement before it).
    """

    def __init__(self, max_steps: int | None = MAX_STEPS) -> None:
        self.events: list[Event] = []
        self.max_steps = max_steps
        self.steps = 0
        self.truncated = False
        self.depth = 0
        self.counts = dict.fromkeys(
            (
                "given",
                "naked",
                "hidden",
                "guesses",
                "backtracks",
                "nodes",
                "contradictions",
                "cage",
                "locked",
                "revise",
                "gac",
                "probe",
                "failed",
                "backjumps",
                "skipped",
                "rule",
                "forced",
            ),
            0,
        )
        self.max_depth = 0
        self.found = 0
        self.forced_at: dict[int, bool] = {}  # whether each level's frame is forced
        #: dom-wdeg: a twin of the search's weights, fed the same events (see weigh)
        self.blame: reference._Blame | None = None

    def weigh(self, tables: reference.Tables) -> None:
        """Keep dom-wdeg's constraint weights as the search does: the engine's own blame
        (the reference's, private to it but the one definition of the rule) fed the same
        eliminations, revisions, locks and contradictions, so each guess carries them."""
        weights = [1] * (len(tables.units) + len(tables.cages))
        self.blame = reference._Blame(tables, weights, None)

    def _keep(self, event: Event) -> None:
        """Store an event unless the step budget is spent."""
        if not isinstance(event, Elimination):
            self.steps += 1
        if self.max_steps is not None and self.steps > self.max_steps:
            self.truncated = True
        else:
            self.events.append(event)

    def place(self, cell: int, bit: int, reason: str, unit: int) -> None:
        """A given, naked single or hidden single placed in ``cell``."""
        self.counts[reason] += 1
        self._keep(Placement(cell, bit.bit_length(), reason, unit, self.depth))

    def eliminate(self, cell: int, bit: int, cells: list[int]) -> None:
        """The placement in ``cell`` removes ``bit`` from ``cells``."""
        if self.blame is not None:
            self.blame.eliminate(cell, bit, cells)
        if cells:
            self._keep(Elimination(cell, bit.bit_length(), tuple(cells), self.depth))

    def node(self, depth: int) -> None:
        """A consistent state ``depth`` levels (guesses and forced placements) down."""
        self.counts["nodes"] += 1
        self.depth = depth

    def guess(self, cell: int, bit: int, candidates: int, depth: int) -> None:
        """The search tries ``bit`` in ``cell`` (whose candidates were ``candidates``)."""
        self.counts["guesses"] += 1
        self.depth = depth
        self.forced_at[depth] = False
        self.max_depth = max(self.max_depth, depth)
        weights = tuple(self.blame.weights) if self.blame is not None else ()
        self._keep(Guess(cell, bit.bit_length(), values_of(candidates), depth, weights))

    def forced(self, cell: int, bit: int, depth: int) -> None:
        """The search places ``bit``, the only candidate left in ``cell``."""
        self.counts["forced"] += 1
        self.depth = depth
        self.forced_at[depth] = True
        self.max_depth = max(self.max_depth, depth)
        self._keep(Forced(cell, bit.bit_length(), depth))

    def prune_cage(self, cage: int, allowed: int, removed: list[tuple[int, int]]) -> None:
        """Cage ``cage`` keeps only ``allowed`` in its open cells: ``removed`` (cell, mask)."""
        self.counts["cage"] += 1
        self._keep(
            CagePrune(
                cage,
                values_of(allowed),
                tuple((c, values_of(m)) for c, m in removed),
                self.depth,
            )
        )

    def rule(self, index: int, removed: list[tuple[int, int]]) -> None:
        """Variant rule ``index`` removed ``removed`` (cell, mask)."""
        self.counts["rule"] += 1
        self._keep(RulePrune(index, tuple((c, values_of(m)) for c, m in removed), self.depth))

    def lock(self, unit: int, other: int, bit: int, cells: list[int]) -> None:
        """``bit`` is locked in ``unit`` where it meets ``other``: ``cells`` lose it."""
        if self.blame is not None:
            self.blame.lock(unit, other, bit, cells)
        self.counts["locked"] += 1
        self._keep(Locked(unit, other, bit.bit_length(), tuple(cells), self.depth))

    def revise(self, cell: int, other: int, bit: int) -> None:
        """AC-3's arc (``cell``, ``other``) removed ``bit`` from ``cell``."""
        if self.blame is not None:
            self.blame.revise(cell, other, bit)
        self.counts["revise"] += 1
        self._keep(Revise(cell, other, bit.bit_length(), self.depth))

    def gac(
        self, unit: int, matching: tuple[tuple[int, int], ...], removed: list[tuple[int, int]]
    ) -> None:
        """GAC on ``unit`` (its ``matching``, (cell, bit)) removed ``removed`` (cell, mask)."""
        self.counts["gac"] += 1
        self._keep(
            GacFilter(
                unit,
                tuple((c, b.bit_length()) for c, b in matching),
                tuple((c, values_of(m)) for c, m in removed),
                self.depth,
            )
        )

    def probe(self, cell: int, bit: int, failed: bool) -> None:
        """Singleton arc consistency tried ``bit`` in ``cell``; ``failed``: it is removed."""
        self.counts["probe"] += 1
        self.counts["failed"] += failed
        self._keep(Probe(cell, bit.bit_length(), failed, self.depth))

    def contradiction(self, kind: str, cell: int, unit: int, bits: int, cage: int = -1) -> None:
        """The state is dead (see :class:`Contradiction`)."""
        if self.blame is not None:
            self.blame.contradiction(kind, cell, unit, bits, cage)
        self.counts["contradictions"] += 1
        self._keep(Contradiction(kind, cell, max(unit, -1), values_of(bits), self.depth, cage))

    def backtrack(self, cell: int, depth: int) -> None:
        """The frame of ``cell`` at ``depth`` is abandoned."""
        self.counts["backtracks"] += 1
        self.depth = depth - 1
        self._keep(Backtrack(cell, depth))

    def backjump(self, from_depth: int, to_depth: int, conflict_set: tuple[int, ...]) -> None:
        """A dead end at ``from_depth`` jumps back to ``to_depth``, the deepest level of its
        conflict set (backjumping, the reference engine's ``backjump=True``)."""
        skipped = tuple(d for d in range(to_depth + 1, from_depth) if not self.forced_at[d])
        self.counts["backjumps"] += 1
        self.counts["skipped"] += len(skipped)
        self._keep(Backjump(from_depth, to_depth, tuple(conflict_set), skipped, self.depth))

    def solution(self, masks: list[int]) -> None:
        """Every cell is placed."""
        self.found += 1
        self._keep(Solution(tuple(m.bit_length() for m in masks), self.found, self.depth))

    def summary(self) -> Summary:
        """The counts so far."""
        c = self.counts
        return Summary(
            givens=c["given"],
            naked_singles=c["naked"],
            hidden_singles=c["hidden"],
            guesses=c["guesses"],
            backtracks=c["backtracks"],
            max_depth=self.max_depth,
            nodes=c["nodes"],
            contradictions=c["contradictions"],
            solutions=self.found,
            cage_prunings=c["cage"],
            locked_candidates=c["locked"],
            revisions=c["revise"],
            gac_filterings=c["gac"],
            probes=c["probe"],
            failed_probes=c["failed"],
            backjumps=c["backjumps"],
            skipped=c["skipped"],
            rule_prunings=c["rule"],
            forced=c["forced"],
        )


def trace_puzzle(
    puzzle: Puzzle,
    propagation: str = DEFAULTS["propagation"],
    order: str = DEFAULTS["order"],
    limit: int | None = 1,
    max_steps: int | None = MAX_STEPS,
    timeout: float | None = None,
    values: str = DEFAULTS["values"],
    backjump: bool = DEFAULTS["backjump"],
) -> Trace:
    """Solve ``puzzle`` with the Python reference engine, recording every step (a
    pencil-mark puzzle from its candidates); ``values`` and ``backjump`` as the engine's
    (a ValueError for an unknown order, or backjumping under a level without conflict
    sets)."""
    geom = puzzle.geometry
    recorder = Recorder(max_steps)
    cages = tuple((cage.cells, cage.total) for cage in puzzle.cages)
    engine = reference.Engine(
        geom.size,
        tuple(u.cells for u in geom.units),
        propagation,
        order,
        cages,
        recorder,
        values=values,
        backjump=backjump,
        rules=puzzle.rules,
    )
    if order == "dom-wdeg":
        recorder.weigh(engine.tables)
    deadline = None if timeout is None else time.perf_counter() + timeout
    outcome = engine.search(
        puzzle.givens, limit=limit, deadline=deadline, candidates=puzzle.candidates
    )
    return Trace(
        puzzle=puzzle,
        propagation=propagation,
        order=order,
        events=tuple(recorder.events),
        summary=recorder.summary(),
        truncated=recorder.truncated,
        complete=outcome.complete,
        timed_out=outcome.timed_out,
        outcome=outcome,
        values=values,
        backjump=backjump,
    )


@dataclass(frozen=True)
class State:
    """The grid after an event: candidate masks, and how each cell was filled."""

    masks: tuple[int, ...]
    kinds: tuple[int, ...]  # 0 open, 1 given, 2 deduced, 3 guessed


OPEN, GIVEN, DEDUCED, GUESSED = 0, 1, 2, 3


def replay(trace: Trace) -> Iterator[tuple[Event, State]]:
    """Each kept event with the grid after it, rebuilt from the events alone.

    A guess (or a forced placement) at depth d restores the state the search branched from
    (as the engine copies its frame); a backtrack shows the abandoned cell open again.
    """
    n = trace.puzzle.size
    full = (1 << n) - 1
    masks = [full] * (n * n)
    kinds = [OPEN] * (n * n)
    frames: list[tuple[list[int], list[int]]] = []
    for event in trace.events:
        if isinstance(event, Placement):
            masks[event.cell] = 1 << (event.value - 1)
            kinds[event.cell] = GIVEN if event.reason == "given" else DEDUCED
        elif isinstance(event, Elimination | Locked):
            bit = 1 << (event.value - 1)
            for p in event.cells:
                masks[p] &= ~bit
        elif isinstance(event, CagePrune | GacFilter | RulePrune):
            for p, values in event.removed:
                for v in values:
                    masks[p] &= ~(1 << (v - 1))
        elif isinstance(event, Revise) or (isinstance(event, Probe) and event.failed):
            masks[event.cell] &= ~(1 << (event.value - 1))
        elif isinstance(event, Guess | Forced):
            if len(frames) < event.depth:
                frames.append((masks[:], kinds[:]))
            else:
                del frames[event.depth :]
                masks, kinds = frames[-1][0][:], frames[-1][1][:]
            masks[event.cell] = 1 << (event.value - 1)
            kinds[event.cell] = GUESSED if isinstance(event, Guess) else DEDUCED
        elif isinstance(event, Backtrack):
            masks, kinds = frames[event.depth - 1][0][:], frames[event.depth - 1][1][:]
            del frames[event.depth - 1 :]
        yield event, State(tuple(masks), tuple(kinds))


def final_grid(trace: Trace) -> Grid:
    """The grid of placed values after the last kept event (0 where nothing is placed)."""
    last = deque(replay(trace), maxlen=1)
    state = last[0][1] if last else State((), ())
    return tuple(
        m.bit_length() if k != OPEN else 0 for m, k in zip(state.masks, state.kinds, strict=True)
    )
