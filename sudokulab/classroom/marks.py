"""The marks a puzzle's variant rules draw on the grid, rebuilt from the rules alone.

A puzzle keeps its rules as constraints (:mod:`sudokulab.models.rules`): a thermometer is
a chain of ``Less`` pairs, a whispers line a chain of ``MinDifference`` pairs, a
region-sum line ``SumEquals`` between its segments. The viewer draws what a setter drew,
so this module puts the pieces back together: rules are grouped by their ``name``
(``thermometer 2``), a chain is walked from its bulb, a line's cells are put back in
order. Each mark is a small frozen record in grid coordinates (cells; clue positions
outside the grid as a row or column of -1 or n):

- :class:`Thermometer`: a bulb and its paths (a branching thermometer has several);
- :class:`Arrow`: the circle's cells and the shaft's path, from the circle's cell it
  leaves;
- :class:`Line`: renban, whispers, entropic or region-sum line, as paths of touching cells;
- :class:`Dot`: a kropki dot on the edge between two orthogonal neighbours;
- :class:`EdgeText`: an X or V (or another pair sum) on such an edge;
- :class:`ParityMark`: an odd cell (a circle) or an even one (a square);
- :class:`Clue`: a sandwich or little-killer total outside the grid, and the way it reads;
- :class:`Caption`: a rule of the whole board (anti-knight, anti-king, nonconsecutive,
  a kropki puzzle's "every dot is given"), told under the grid, not drawn pair by pair.

What cannot be drawn (a dot between cells that do not touch, a pair of a kind no setter
draws) gives no mark: the rule still holds, the page just does not show it.

>>> from sudokulab.models import geometry, Puzzle
>>> from sudokulab.models.rules import Less
>>> rules = (Less(0, 1, "thermometer 1"), Less(1, 2, "thermometer 1"))
>>> puzzle_marks(Puzzle(geometry(4), (0,) * 16, (), None, rules))
(Thermometer(name='thermometer 1', bulb=0, paths=((0, 1, 2),), slow=False),)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..models import Puzzle
from ..models.rules import Rule


@dataclass(frozen=True)
class Thermometer:
    """A thermometer: values rise from the bulb along each path (a slow one: never fall)."""

    name: str
    bulb: int
    paths: tuple[tuple[int, ...], ...]
    slow: bool = False

    kind = "thermometer"


@dataclass(frozen=True)
class Arrow:
    """An arrow: the circle's cells, and the shaft's path from the circle cell it leaves."""

    name: str
    circle: tuple[int, ...]
    path: tuple[int, ...]

    kind = "arrow"


@dataclass(frozen=True)
class Line:
    """A line of a kind (``renban``, ``whispers``, ``entropic``, ``region sum``) as paths
    of touching cells."""

    name: str
    line: str
    paths: tuple[tuple[int, ...], ...]

    kind = "line"


@dataclass(frozen=True)
class Dot:
    """A kropki dot between orthogonal neighbours ``a`` and ``b``: ``white`` (differ by
    ``label`` or 1) or ``black`` (a ratio of ``label`` or 2)."""

    name: str
    a: int
    b: int
    colour: str
    label: str = ""

    kind = "dot"


@dataclass(frozen=True)
class EdgeText:
    """A letter or number on the edge between orthogonal neighbours (XV: X is 10, V 5)."""

    name: str
    a: int
    b: int
    text: str

    kind = "xv"


@dataclass(frozen=True)
class ParityMark:
    """An odd cell (drawn as a circle) or an even one (a square)."""

    name: str
    cell: int
    parity: str

    kind = "parity"


@dataclass(frozen=True)
class Clue:
    """A total outside the grid at (``row``, ``col``), read along ``step`` (rows, columns
    per cell) into the grid: a sandwich's or a little killer's."""

    name: str
    clue: str
    total: int
    row: int
    col: int
    step: tuple[int, int]

    kind = "clue"


@dataclass(frozen=True)
class Caption:
    """A rule of the whole board, told in a sentence under the grid."""

    name: str
    text: str

    kind = "caption"


Mark = Thermometer | Arrow | Line | Dot | EdgeText | ParityMark | Clue | Caption

#: The sentences of the rules told under the grid, by rule name.
CAPTIONS = {
    "anti-knight": "Anti-knight: cells a knight's move apart hold different digits.",
    "anti-king": "Anti-king: cells a king's move apart (touching diagonally) hold "
    "different digits.",
    "nonconsecutive": "Nonconsecutive: orthogonal neighbours never hold consecutive digits.",
    "no white dot": "Every white dot is given: neighbours without one are not consecutive.",
    "no black dot": "Every black dot is given: neighbours without one are not in a 1:2 ratio.",
}


def puzzle_marks(puzzle: Puzzle) -> tuple[Mark, ...]:
    """The marks of a puzzle's rules, in the order their rules come (captions last)."""
    n = puzzle.geometry.size
    groups: dict[tuple[str, str], list[Rule]] = {}
    for rule in puzzle.rules:
        groups.setdefault((rule.kind, rule.name), []).append(rule)
    marks: list[Mark] = []
    captions: list[Mark] = []
    for (kind, name), rules in groups.items():
        if name in CAPTIONS and kind in ("notequal", "notdifference", "notratio"):
            captions.append(Caption(name, CAPTIONS[name]))
        elif kind in ("less", "lessequal"):
            marks += _thermometers(name, _steps(rules, n), kind == "lessequal")
        elif kind == "mindifference" and _steps(rules, n):
            paths = _walk(_steps(rules, n))
            marks.append(Line(name, "whispers", tuple(map(tuple, paths))))
        elif kind == "consecutive":
            marks += [Line(name, "renban", _touching(r.line, n)) for r in rules]
        elif kind == "entropic":
            marks += [Line(name, "entropic", _touching(r.line, n)) for r in rules]
        elif kind == "sumequals" and name.startswith("arrow"):
            marks += filter(None, (_arrow(r, n) for r in rules))
        elif kind == "sumequals" and name.startswith("region-sum"):
            marks.append(Line(name, "region sum", _region_sum(rules, n)))
        elif kind in ("difference", "ratio", "pairsum"):
            marks += [_edge(r) for r in rules if _orthogonal(r.a, r.b, n)]
        elif kind == "parity":
            marks += [ParityMark(name, r.cell, r.parity) for r in rules]
        elif kind in ("sandwich", "littlekiller"):
            marks += filter(None, (_clue(r, n) for r in rules))
    return tuple(marks + captions)


def marks_data(puzzle: Puzzle) -> list[dict[str, Any]]:
    """The marks as JSON values (lists for tuples), each with its ``kind``: the viewer's
    data."""
    return [_plain({"kind": mark.kind, **asdict(mark)}) for mark in puzzle_marks(puzzle)]


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        return [_plain(item) for item in value]
    return value


def _touches(a: int, b: int, n: int) -> bool:
    """Whether two cells touch (a king's move apart): a line may join them."""
    return a != b and abs(a // n - b // n) <= 1 and abs(a % n - b % n) <= 1


def _orthogonal(a: int, b: int, n: int) -> bool:
    return abs(a // n - b // n) + abs(a % n - b % n) == 1


def _touching(cells: Sequence[int], n: int) -> tuple[tuple[int, ...], ...]:
    """A line's cells in order, cut where two in a row do not touch."""
    paths: list[list[int]] = []
    for cell in cells:
        if paths and _touches(paths[-1][-1], cell, n):
            paths[-1].append(cell)
        else:
            paths.append([cell])
    return tuple(map(tuple, paths))


def _steps(rules: list[Rule], n: int) -> list[tuple[int, int]]:
    """The pairs of a chain's rules whose cells touch: the steps a line can draw."""
    return [(r.a, r.b) for r in rules if _touches(r.a, r.b, n)]


def _walk(edges: Iterable[tuple[int, int]]) -> list[list[int]]:
    """Chains of directed pairs as paths, each pair used once: from every cell no pair
    enters (in the order they come), along the first pair left at each cell; a cell
    with more than one leaves a branch, which starts a path of its own there."""
    out: dict[int, list[int]] = {}
    entered: set[int] = set()
    order: list[int] = []
    for a, b in edges:
        out.setdefault(a, []).append(b)
        entered.add(b)
        order += [a, b]
    used: set[tuple[int, int]] = set()
    paths: list[list[int]] = []
    roots = [c for c in dict.fromkeys(order) if c not in entered]
    # a chain that closes on itself has no root: start it from its first pair
    for start in roots + [a for a in dict.fromkeys(order) if a in out]:
        starts = [start]
        while starts:
            path = [starts.pop(0)]
            while True:
                cell = path[-1]
                left = [b for b in out.get(cell, ()) if (cell, b) not in used]
                if not left:
                    break
                if len(left) > 1:
                    starts.append(cell)
                used.add((cell, left[0]))
                path.append(left[0])
            if len(path) > 1:
                paths.append(path)
    return paths


def _thermometers(name: str, steps: list[tuple[int, int]], slow: bool) -> list[Mark]:
    """A group's thermometers: one per bulb, with every path from it."""
    marks: list[Mark] = []
    for path in _walk(steps):
        bulb = marks[-1] if marks else None
        if isinstance(bulb, Thermometer) and any(path[0] in p for p in bulb.paths):
            marks[-1] = Thermometer(name, bulb.bulb, (*bulb.paths, tuple(path)), slow)
        else:
            marks.append(Thermometer(name, path[0], (tuple(path),), slow))
    return marks


def _arrow(rule: Any, n: int) -> Arrow | None:
    """An arrow from its ``SumEquals``: the shaft leaves the circle cell touching its
    first cell; a shaft that does not run from the circle, cell by cell, is not drawn."""
    shaft = rule.terms
    anchor = next((c for c in reversed(rule.targets) if _touches(c, shaft[0], n)), None)
    path = (anchor, *shaft)
    if anchor is None or len(_touching(path, n)) > 1:
        return None
    return Arrow(rule.name, rule.targets, path)


def _region_sum(rules: list[Rule], n: int) -> tuple[tuple[int, ...], ...]:
    """A region-sum line's paths from its segments (one per box it crosses, in the order
    the line enters them): the cells are put back in the line's order where one order
    has every step touch, else drawn segment by segment."""
    parts: list[tuple[int, ...]] = []
    for rule in rules:
        for part in (rule.targets, rule.terms):
            if part not in parts:
                parts.append(part)
    order = _interleave(parts, n)
    if order is not None:
        return (tuple(order),)
    return tuple(p for part in parts for p in _touching(part, n))


def _interleave(parts: list[tuple[int, ...]], n: int, budget: int = 20_000) -> list[int] | None:
    """The line whose cells, box by box, are ``parts``: each part's cells keep their
    order, the parts are entered in order, each step goes to a touching cell. Several
    lines may fit (a step may be diagonal): the one with the fewest diagonal steps found
    within ``budget`` tries, as setters draw; None when none is found."""
    total = sum(map(len, parts))
    taken = [0] * len(parts)
    line: list[int] = []
    best: list[list[int]] = []
    bound = [total]  # the fewest diagonal steps of a line found so far (+1)
    tries = [budget]

    def extend(entered: int, diagonals: int) -> None:
        if len(line) == total:
            best[:] = [line[:]]
            bound[0] = diagonals
            return
        moves = []
        for i in range(min(entered + 1, len(parts))):
            if taken[i] < len(parts[i]):
                cell = parts[i][taken[i]]
                if not line:
                    moves.append((0, i, cell))
                elif _touches(line[-1], cell, n):
                    moves.append((0 if _orthogonal(line[-1], cell, n) else 1, i, cell))
        for diagonal, i, cell in sorted(moves):
            tries[0] -= 1
            if tries[0] < 0 or diagonals + diagonal >= bound[0]:
                continue
            line.append(cell)
            taken[i] += 1
            extend(max(entered, i + 1), diagonals + diagonal)
            taken[i] -= 1
            line.pop()

    extend(0, 0)
    return best[0] if best else None


def _edge(rule: Any) -> Mark:
    """A kropki dot or an XV letter on the edge between a pair's cells."""
    if rule.kind == "pairsum":
        text = {5: "V", 10: "X"}.get(rule.total, str(rule.total))
        return EdgeText(rule.name, rule.a, rule.b, text)
    if rule.kind == "difference":
        return Dot(rule.name, rule.a, rule.b, "white", "" if rule.k == 1 else str(rule.k))
    return Dot(rule.name, rule.a, rule.b, "black", "" if rule.r == 2 else str(rule.r))


def _clue(rule: Any, n: int) -> Clue | None:
    """A sandwich's or little killer's clue: just outside the grid before the first cell
    of its line (or after the last); None when neither end is at the grid's edge."""
    word = "sandwich" if rule.kind == "sandwich" else "little killer"
    line = rule.line
    if len(line) == 1:  # a corner's diagonal: it reads inwards
        r, c = divmod(line[0], n)
        if r not in (0, n - 1) or c not in (0, n - 1):
            return None
        step = (1 if r == 0 else -1, 1 if c == 0 else -1)
        return Clue(rule.name, word, rule.total, r - step[0], c - step[1], step)
    for cells in (line, line[::-1]):
        (r, c), (r2, c2) = divmod(cells[0], n), divmod(cells[1], n)
        step = (r2 - r, c2 - c)
        row, col = r - step[0], c - step[1]
        inside = 0 <= row < n and 0 <= col < n
        if max(map(abs, step)) == 1 and not inside:
            return Clue(rule.name, word, rule.total, row, col, step)
    return None
