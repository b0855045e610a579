"""A traced search told as a story: one line per step, candidate grids, a summary.

The vocabulary is the design's: cells ``r4c7``, units ``row 4`` / ``column 7`` / ``box 6``
(numbered from 1), naked and hidden singles, guesses (and the search's forced placements,
a chosen cell with one candidate left: no guess), contradictions, backtracks; for
killer puzzles, cages ``cage 3 (sum 10: r1c1, r1c2)`` and the values their sums allow;
and the textbook's own steps: AC-3's arcs, GAC's matchings, SAC's probes, backjumps.
:func:`describe` is the one word table: ``explain``, its HTML page and ``sudokulab
serve`` all read their lines from it.

>>> from sudokulab.models import parse_puzzle
>>> from sudokulab.classroom.trace import trace_puzzle
>>> t = trace_puzzle(parse_puzzle("1.....1..1.....1"))
>>> print(steps(t)[0].text)
r1c1 = 1: given
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from ..logic.board import locked_kind
from ..logic.words import locked_words
from ..models import Geometry
from ..models.puzzle import Cage, Puzzle, symbol
from ..models.variants import rules_summary
from .trace import (
    OPEN,
    Backjump,
    Backtrack,
    CagePrune,
    Contradiction,
    Elimination,
    Event,
    Forced,
    GacFilter,
    Guess,
    Locked,
    Placement,
    Probe,
    Probes,
    Revise,
    RulePrune,
    Solution,
    State,
    Summary,
    Trace,
    replay,
)

#: When --show-candidates prints the candidates grid.
MOMENTS = ("none", "start", "guesses", "every", "end")


@dataclass(frozen=True)
class Step:
    """One line of the story: an event, the candidates it removed, and the grid after it."""

    event: Event
    text: str
    removed: tuple[tuple[int, int], ...]  # (cell, value) candidates removed by this step
    state: State
    cell: int  # the cell the step is about, or -1
    unit: int  # the unit the step is about (index into geometry.units), or -1
    #: A logic step's pattern: the cells it rests on, and its units (base and cover).
    pattern: tuple[int, ...] = ()
    areas: tuple[int, ...] = ()
    kind: str = ""  # the list's class for the step; empty: the event's type
    #: A backjump's levels passed over: the cells branched on there.
    skipped: tuple[int, ...] = ()


def _cells(geom: Geometry, cells: Iterable[int]) -> str:
    return ", ".join(geom.cell_name(c) for c in cells)


def _values(values: Iterable[int]) -> str:
    return ", ".join(symbol(v) for v in values)


def cage_name(cages: tuple[Cage, ...], k: int, geom: Geometry) -> str:
    """A cage as the story names it: ``cage 3 (sum 10: r1c1, r1c2)``."""
    cage = cages[k]
    return f"cage {k + 1} (sum {cage.total}: {_cells(geom, cage.cells)})"


def rule_name(rules: tuple, k: int, geom: Geometry) -> str:
    """A variant rule as the story names it: ``thermometer (r1c1, r1c2)``; -1 is the
    parity marks, which narrow cells before the search."""
    if k < 0:
        return "the parity marks"
    rule = rules[k]
    return f"{rule.name} ({_cells(geom, rule.cells)})"


def describe(
    event: Event,
    geom: Geometry,
    before: State | None,
    cages: tuple[Cage, ...] = (),
    rules: tuple = (),
) -> str:
    """The line for one event (``before`` is the grid before it, to name a clashing peer;
    ``cages`` the puzzle's killer cages and ``rules`` its variant rules, to name one); a
    TypeError for an event it has no words for."""
    if isinstance(event, RulePrune):
        parts = [f"{_values(values)} leave {geom.cell_name(c)}" for c, values in event.removed]
        parts = [p.replace(" leave ", " leaves ", 1) if "," not in p else p for p in parts]
        return f"{rule_name(rules, event.rule, geom)}: {'; '.join(parts)}"
    if isinstance(event, CagePrune):
        return (
            f"{cage_name(cages, event.cage, geom)}: only {_values(event.allowed)} can complete "
            "its sum in its open cells"
        )
    if isinstance(event, Locked):
        return locked_text(event, geom)
    if isinstance(event, GacFilter):
        return gac_text(event, geom)
    if isinstance(event, Probes):
        return probes_text(event, geom)
    if isinstance(event, Backjump):
        return backjump_text(event)
    if isinstance(event, Elimination):
        return f"{symbol(event.value)} removed from {_cells(geom, event.cells)}"
    name = geom.cell_name(event.cell) if getattr(event, "cell", -1) >= 0 else ""
    if isinstance(event, Placement):
        v = symbol(event.value)
        if event.reason == "given":
            return f"{name} = {v}: given"
        if event.reason == "naked":
            return f"{name} = {v}: naked single, the only candidate left in {name}"
        return f"{name} = {v}: hidden single, the only place for {v} in {geom.units[event.unit]}"
    if isinstance(event, Revise):
        other, v = geom.cell_name(event.other), symbol(event.value)
        return f"arc {name} -> {other}: {other} holds {v}, so {v} leaves {name}"
    if isinstance(event, Probe):
        v = symbol(event.value)
        if event.failed:
            return f"probe {name} = {v}: contradiction, {v} removed"
        return f"probe {name} = {v}: consistent, {v} kept"
    if isinstance(event, Forced):
        v = symbol(event.value)
        return f"{name} = {v}: the only candidate left in {name}, not a guess (depth {event.depth})"
    if isinstance(event, Guess):
        options = _values(event.candidates)
        return f"guess {name} = {symbol(event.value)} (candidates {options}; depth {event.depth})"
    if isinstance(event, Contradiction):
        return "contradiction: " + _contradiction(event, geom, before, cages, rules)
    if isinstance(event, Backtrack):
        return f"backtrack: every candidate of {name} failed; back to depth {event.depth - 1}"
    if isinstance(event, Solution):
        return f"solution {event.number}: every cell is filled"
    raise TypeError(f"no words for the event {type(event).__name__}")


def gac_text(event: GacFilter, geom: Geometry) -> str:
    """``GAC on row 3: maximum matching r3c1 = 4, r3c2 = 7; no maximum matching gives
    r3c2 2, 6, so they are removed``: Régin's filtering of one unit, told."""
    matching = ", ".join(f"{geom.cell_name(c)} = {symbol(v)}" for c, v in event.matching)
    gone = "; ".join(f"{geom.cell_name(c)} {_values(v)}" for c, v in event.removed)
    many = sum(len(v) for _, v in event.removed) > 1
    return (
        f"GAC on {geom.units[event.unit]}: maximum matching {matching}; no maximum matching "
        f"gives {gone}, so {'they are' if many else 'it is'} removed"
    )


def probes_text(event: Probes, geom: Geometry) -> str:
    """Consistent sac probes in a row, summarised with the node's tally so far."""
    first = f"{geom.cell_name(event.first[0])} = {symbol(event.first[1])}"
    last = f"{geom.cell_name(event.last[0])} = {symbol(event.last[1])}"
    return (
        f"sac: {event.count} probes consistent, {first} to {last}, all kept (this node: "
        f"{event.node_probes} probes, {event.node_failed} failed so far)"
    )


def backjump_text(event: Backjump) -> str:
    """``dead end at depth 7; its conflict set {2, 5}: back to depth 5, skipping 6``."""
    conflict = ", ".join(map(str, event.conflict_set))
    skipped = event.skipped
    skipping = ", ".join(map(str, skipped))
    return (
        f"backjump: dead end at depth {event.from_depth}; its conflict set {{{conflict}}}: "
        f"back to depth {event.to_depth}, skipping {skipping}"
        + (" (the levels between rest on none of its failures)" if len(skipped) > 1 else "")
    )


def wdeg_text(event: Guess, puzzle: Puzzle, before: State | None) -> str:
    """When dom-wdeg branches on another cell than mrv would (the fewest candidates, the
    lowest index on ties), a clause saying so with the weighted degrees that decided;
    else empty."""
    if before is None or not event.weights:
        return ""
    geom = puzzle.geometry
    best, fewest = -1, 0
    for c, (m, k) in enumerate(zip(before.masks, before.kinds, strict=True)):
        if k == OPEN and (best < 0 or m.bit_count() < fewest):
            best, fewest = c, m.bit_count()
    if best < 0 or best == event.cell:
        return ""
    groups = [u.cells for u in geom.units] + [cage.cells for cage in puzzle.cages]
    live = [sum(before.kinds[c] == OPEN for c in cells) >= 2 for cells in groups]

    def weighed(cell: int) -> tuple[int, list[str]]:
        mine = [g for g, cells in enumerate(groups) if cell in cells and live[g]]
        names = [
            f"{geom.units[g] if g < len(geom.units) else f'cage {g - len(geom.units) + 1}'} "
            f"{event.weights[g]}"
            for g in mine
        ]
        return sum(event.weights[g] for g in mine), names

    mine, names = weighed(event.cell)
    theirs, _ = weighed(best)
    k = len(event.candidates)
    return (
        f"; dom-wdeg takes {geom.cell_name(event.cell)} ({k}/{mine} candidates per weight) "
        f"over mrv's {geom.cell_name(best)} ({fewest}/{theirs}); the weights: " + ", ".join(names)
    )


def locked_text(event: Locked, geom: Geometry) -> str:
    """``locked candidates (pointing): in box 4, 7 lies only in row 5, so r5c7, r5c8 lose
    7`` (pointing: the box confines the value; claiming: the line does), in the logic
    solver's words."""
    unit, other = geom.units[event.unit], geom.units[event.other]
    kind = locked_kind(unit.kind, other.kind)
    return locked_words(geom, event.unit, event.other, event.value, kind, event.cells)


def _contradiction(
    event: Contradiction,
    geom: Geometry,
    before: State | None,
    cages: tuple[Cage, ...] = (),
    rules: tuple = (),
) -> str:
    """Why the state is dead, in the rule's words."""
    name = geom.cell_name(event.cell) if event.cell >= 0 else ""
    values = event.values
    if event.kind == "rule":  # the rule's index travels in the cage field
        rule = rule_name(rules, event.cage, geom)
        if event.cell >= 0 and values:
            return f"{name} cannot be {symbol(values[0])}: it would break {rule}"
        if event.cell >= 0:
            return f"{name} has no candidate {rule} allows"
        return f"{rule} cannot hold with the candidates left"
    if event.kind == "cage":
        cage = cage_name(cages, event.cage, geom)
        if event.cell >= 0:
            return f"{name} cannot be {symbol(values[0])}: no set of values of {cage} holds it"
        held = f" with {_values(values)} placed" if values else ""
        return f"{cage}{held} cannot be completed: no set of distinct values fits"
    if event.kind == "empty":
        return f"{name} has no candidates left"
    if event.kind == "nomatch":
        unit = geom.units[event.unit]
        return f"no matching covers {unit}: its open cells cannot all take distinct values"
    if event.kind == "noplace":
        unit = geom.units[event.unit]
        if event.cell < 0:
            return f"{symbol(values[0])} has no place left in {unit}"
        return f"{name} is the only place for both {_values(values)} in {unit}"
    v = values[0]
    if before is not None:
        bit = 1 << (v - 1)
        for p in geom.peers[event.cell]:
            if before.kinds[p] != OPEN and before.masks[p] == bit:
                return f"{name} cannot be {symbol(v)}: its peer {geom.cell_name(p)} holds it"
        if before.kinds[event.cell] != OPEN:
            held = before.masks[event.cell].bit_length()
            return f"{name} cannot be {symbol(v)}: it already holds {symbol(held)}"
    return f"{name} cannot be {symbol(v)}: it is no longer a candidate there"


#: Consistent sac probes in a row beyond this many are told as one summarised step.
PROBES_TOLD = 3


def steps(trace: Trace) -> list[Step]:
    """The trace's steps; an elimination joins the placement or guess that caused it, and
    more than :data:`PROBES_TOLD` consistent sac probes in a row become one step."""
    geom = trace.puzzle.geometry
    cages, rules = trace.puzzle.cages, trace.puzzle.rules
    out: list[Step] = []
    before: State | None = None
    frames: dict[int, int] = {}  # depth -> the cell branched on there (dom-wdeg's words)
    run: list[tuple[Probe, State]] = []  # consistent probes not yet told
    node_probes = node_failed = 0

    def flush() -> None:
        if len(run) > PROBES_TOLD:
            first, last = run[0][0], run[-1][0]
            event = Probes(
                len(run), (first.cell, first.value), (last.cell, last.value),
                node_probes, node_failed, last.depth,
            )  # fmt: skip
            out.append(Step(event, probes_text(event, geom), (), run[-1][1], -1, -1))
        else:
            for probe, after in run:
                text = describe(probe, geom, None)
                out.append(Step(probe, text, (), after, probe.cell, -1))
        run.clear()

    for event, state in replay(trace):
        if isinstance(event, Probe):
            node_probes += 1
            node_failed += event.failed
            if not event.failed:
                run.append((event, state))
                before = state
                continue
        if run:
            flush()
        if isinstance(event, Guess | Backtrack):
            node_probes = node_failed = 0
        if isinstance(event, Elimination) and out:
            last = out[-1]
            removed = last.removed + tuple((c, event.value) for c in event.cells)
            out[-1] = replace(last, removed=removed, state=state)
        else:
            unit = getattr(event, "unit", -1)
            text = describe(event, geom, before, cages, rules)
            removed = ()
            if isinstance(event, CagePrune | RulePrune):
                removed = tuple((c, v) for c, values in event.removed for v in values)
            elif isinstance(event, Locked):
                removed = tuple((c, event.value) for c in event.cells)
            elif isinstance(event, GacFilter):
                removed = tuple((c, v) for c, values in event.removed for v in values)
            elif isinstance(event, Revise) or (isinstance(event, Probe) and event.failed):
                removed = ((event.cell, event.value),)
            pattern: tuple[int, ...] = (event.other,) if isinstance(event, Revise) else ()
            if isinstance(event, RulePrune):
                pattern = tuple(rules[event.rule].cells)  # the rule's cells, highlighted
            skipped: tuple[int, ...] = ()
            if isinstance(event, Backjump):
                skipped = tuple(frames[d] for d in event.skipped if d in frames)
            elif isinstance(event, Guess | Forced):
                first = frames.get(event.depth) != event.cell
                frames[event.depth] = event.cell
                for d in [d for d in frames if d > event.depth]:
                    del frames[d]
                if first and isinstance(event, Guess) and trace.order == "dom-wdeg":
                    text += wdeg_text(event, trace.puzzle, before)
            elif isinstance(event, Backtrack):
                for d in [d for d in frames if d >= event.depth]:
                    del frames[d]
            cell = event_cell(event)
            out.append(Step(event, text, removed, state, cell, unit, pattern, skipped=skipped))
        before = state
    flush()
    return out


def event_cell(event: Event) -> int:
    """The cell an event is about, or -1."""
    return getattr(event, "cell", -1)


def removal_line(step: Step, geom: Geometry) -> str:
    """What a step removed, e.g. ``removes 2 from r4c1, r5c8`` (one value), or
    ``removes 1, 2 from r1c1; 3 from r1c2`` (a cage); empty when nothing."""
    if not step.removed:
        return ""
    if len({v for _, v in step.removed}) == 1:
        value = step.removed[0][1]
        return f"removes {symbol(value)} from {_cells(geom, (c for c, _ in step.removed))}"
    by_cell: dict[int, list[int]] = {}
    for c, v in step.removed:
        by_cell.setdefault(c, []).append(v)
    by_values: dict[tuple[int, ...], list[int]] = {}  # cells losing the same values together
    for c, values in by_cell.items():
        by_values.setdefault(tuple(values), []).append(c)
    parts = [f"{_values(values)} from {_cells(geom, cells)}" for values, cells in by_values.items()]
    return "removes " + "; ".join(parts)


def candidates_grid(geom: Geometry, state: State) -> str:
    """The candidates of every cell as small blocks; a placed cell shows its value alone.

    An open cell shows ``.`` for each value it lost, so a cell with one candidate left
    (not yet placed) looks different from a placed one. Box lines are drawn only where the
    geometry has boxes (not on a jigsaw, whose regions replace them).
    """
    n, h, w = geom.size, geom.box_rows, geom.box_cols
    boxes = any(u.kind == "box" for u in geom.units)
    lines: list[str] = []
    seg = w * w + w - 1  # one box's width: w cells of w characters, spaces between
    rule = "+".join("-" * (seg + (1 if i in (0, n // w - 1) else 2)) for i in range(n // w))
    for r in range(n):
        if r and r % h == 0 and boxes:
            lines.append(rule)
        elif r:
            lines.append("")
        for sub in range(h):  # each cell is h lines of w candidates
            parts: list[str] = []
            for c in range(n):
                cell = r * n + c
                if c and c % w == 0 and boxes:
                    parts.append("|")
                mask, kind = state.masks[cell], state.kinds[cell]
                text = []
                for k in range(w):
                    v = sub * w + k + 1
                    if kind != OPEN:
                        shown = symbol(v) if mask == 1 << (v - 1) else " "
                        text.append(shown)
                    else:
                        text.append(symbol(v) if mask >> (v - 1) & 1 else ".")
                parts.append("".join(text))
            lines.append(" ".join(parts).rstrip())
    return "\n".join(lines)


def summary_lines(trace: Trace) -> list[str]:
    """The summary block: placements by rule, search counters, and how it ended."""
    s: Summary = trace.summary
    rows = [
        ("givens placed", s.givens),
        ("naked singles", s.naked_singles),
        ("hidden singles", s.hidden_singles),
        ("guesses", s.guesses),
        ("backtracks", s.backtracks),
        ("maximum depth", s.max_depth),
        ("nodes", s.nodes),
        ("contradictions", s.contradictions),
        ("solutions", s.solutions),
    ]
    if trace.puzzle.cages:
        rows.insert(3, ("cage prunings", s.cage_prunings))
    if trace.puzzle.rules:
        rows.insert(3, ("rule prunings", s.rule_prunings))
    rows[3:3] = level_rows(trace)
    head = f"summary ({settings(trace)}):"
    width = max(16, *(len(label) for label, _ in rows))
    lines = [head] + [f"  {label:<{width}} {value}" for label, value in rows]
    lines.append(f"  {'outcome':<{width}} {outcome_text(trace)}")
    return lines


def level_rows(trace: Trace) -> list[tuple[str, int]]:
    """The counters of the level's (and the search's) own steps, for the summary."""
    s = trace.summary
    rows = []
    if trace.propagation == "locked":
        rows.append(("locked candidates", s.locked_candidates))
    if trace.propagation == "ac3":
        rows.append(("arc revisions", s.revisions))
    if trace.propagation in ("gac", "sac"):
        rows.append(("gac filterings", s.gac_filterings))
    if trace.propagation == "sac":
        rows += [("sac probes", s.probes), ("failed probes", s.failed_probes)]
    if trace.propagation == "forward" or s.forced:  # (none: where a unary rule forces)
        rows.append(("forced cells", s.forced))
    if trace.backjump:
        rows += [("backjumps", s.backjumps), ("levels skipped", s.skipped)]
    return rows


def settings(trace: Trace) -> str:
    """``propagation gac, order dom-wdeg`` and the value order and backjumping when set."""
    text = f"propagation {trace.propagation}, order {trace.order}"
    if trace.values != "natural":
        text += f", values {trace.values}"
    return text + (", backjumping" if trace.backjump else "")


def outcome_text(trace: Trace) -> str:
    """How the search ended, in a few words."""
    s = trace.summary
    if trace.timed_out:
        return f"stopped by the timeout after {s.solutions} solution(s)"
    if trace.complete:
        return {0: "no solution", 1: "exactly one solution"}.get(
            s.solutions, f"{s.solutions} solutions, all found"
        )
    return "solved" if s.solutions == 1 else f"stopped at {s.solutions} solutions"


def narrative(trace: Trace, show: str = "none") -> str:
    """The whole story as text: steps, candidate grids at the ``show`` moments, summary."""
    geom = trace.puzzle.geometry
    cages = trace.puzzle.cages
    out: list[str] = [
        f"puzzle {trace.puzzle} ({trace.puzzle.given_count} givens"
        + (f", {len(cages)} killer cages" if cages else "")
        + (f", {rules_summary(trace.puzzle.rules)}" if trace.puzzle.rules else "")
        + f"; {settings(trace)})"
    ]
    out += [f"  {cage_name(cages, k, geom)}" for k in range(len(cages))]
    all_steps = steps(trace)
    started = False
    last: State | None = None
    for number, step in enumerate(all_steps, 1):
        grid_shown = False
        if not started and not isinstance(step.event, Placement):
            started = True  # the givens are placed and propagated: the search starts here
            if show in ("start", "guesses") and last is not None:
                out += ["", "candidates after the givens:", candidates_grid(geom, last), ""]
                grid_shown = True
        if show == "guesses" and isinstance(step.event, Guess) and not grid_shown:
            out += ["", "candidates before the guess:", candidates_grid(geom, last), ""]
        out.append(f"{number:>5}. {step.text}")
        extra = removal_line(step, geom)
        if extra:
            out.append(f"        {extra}")
        if show == "every":
            out += [candidates_grid(geom, step.state), ""]
        last = step.state
    if trace.truncated:
        out.append(
            f"... truncated after {len(all_steps)} steps (raise --max-steps to see more); "
            "the summary counts every step"
        )
    if show == "end" and last is not None:
        out += ["", "candidates after the last step shown:", candidates_grid(geom, last)]
    out += [""] + summary_lines(trace)
    return "\n".join(out)
