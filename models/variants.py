"""Variants: the extra rules a plain grid cannot say, as units and cages.

Every variant but killer is more units in the geometry, so every backend that takes
``alldifferent`` solves it unchanged:

- **X** (``x``): both main diagonals are units (``diagonal 1`` runs from r1c1 down to
  rncn, ``diagonal 2`` from r1cn down to rnc1).
- **hyper** (windoku): four extra 3x3 windows at r2-4/r6-8 x c2-4/c6-8; 9x9 only.
- **jigsaw**: irregular regions replace the boxes. Regions are given as a grid of labels
  (one character or token per cell); each region must have n cells and be contiguous
  (orthogonally connected).
- **extra units**: any list of n-cell groups a user names (``unit 1``, ``unit 2``...).
- **killer**: cages (:class:`~sudokulab.models.puzzle.Cage`), each a group of cells with
  pairwise different values adding up to a total; the model gets one ``Sum`` per cage.
- **board-wide rules** (:data:`BOARD_RULES`): ``anti-knight`` and ``anti-king`` (two
  cells a chess knight's or king's move apart differ: a ``NotEqual`` per such pair that
  shares no unit) and ``nonconsecutive`` (orthogonal neighbours never differ by 1: a
  ``NotDifference`` per pair). The other variant rules (thermometers, arrows, kropki...)
  are clues of one puzzle, stated in its document (:mod:`.rules`).

>>> g = variant_geometry(9, x=True, hyper=True)
>>> len(g.units), [u.name for u in g.units[27:]]
(33, ['diagonal 1', 'diagonal 2', 'window 1', 'window 2', 'window 3', 'window 4'])
"""

from __future__ import annotations

from collections.abc import Sequence

from .geometry import BOX_SHAPES, Geometry, Unit, _classic_units, geometry, make_geometry
from .puzzle import Puzzle
from .rules import NotDifference, NotEqual, Rule, king_pairs, knight_pairs, neighbour_pairs

#: The variants that are rules over the whole board, by their ``--variant`` names.
BOARD_RULES = ("anti-knight", "anti-king", "nonconsecutive")
#: Every variant a plain grid takes by name (``--variant``, :func:`with_variant`), with
#: what it adds; the others (killer, jigsaw, clues) need a puzzle document.
PLAIN_VARIANTS = {
    "x": "diagonals",
    "hyper": "windoku",
    "anti-knight": "a knight's move apart differ",
    "anti-king": "a king's move apart differ",
    "nonconsecutive": "orthogonal neighbours never differ by 1",
}


def board_rules(geom: Geometry, name: str) -> tuple[Rule, ...]:
    """The rules of a board-wide variant (:data:`BOARD_RULES`) on a geometry.

    Chess-move pairs whose cells already share a unit are left out: the unit keeps them
    apart.

    >>> len(board_rules(geometry(9), "anti-knight")), len(board_rules(geometry(9), "anti-king"))
    (152, 56)
    """
    n = geom.size
    if name == "nonconsecutive":
        return tuple(NotDifference(a, b, 1, name) for a, b in neighbour_pairs(n))
    if name not in ("anti-knight", "anti-king"):
        raise ValueError(f"unknown board-wide variant {name!r}; known: {', '.join(BOARD_RULES)}")
    pairs = knight_pairs(n) if name == "anti-knight" else king_pairs(n)
    peers = geom.peers
    return tuple(NotEqual(a, b, name) for a, b in pairs if b not in peers[a])


def board_flags(rules: Sequence[Rule]) -> list[str]:
    """The board-wide variants among a puzzle's rules, in :data:`BOARD_RULES` order."""
    names = {rule.name for rule in rules}
    return [name for name in BOARD_RULES if name in names]


def rules_summary(rules: Sequence[Rule]) -> str:
    """A puzzle's variant rules in a few words, by the names they carry: numbered ones
    (``thermometer 2``) once per number, board-wide ones once, the rest once per rule.

    >>> from .rules import Difference, Less
    >>> rules = [Less(0, 1, "thermometer 1"), Less(1, 2, "thermometer 1"),
    ...          Less(5, 6, "thermometer 2"), Difference(3, 4, 1, "white dot")]
    >>> rules_summary(rules)
    '2 thermometers, 1 white dot'
    >>> rules_summary([NotEqual(0, 11, "anti-knight"), NotEqual(0, 19, "anti-knight")])
    'anti-knight'
    """
    groups: dict[str, set] = {}
    for k, rule in enumerate(rules):
        family, _, number = rule.name.rpartition(" ")
        if family and number.isdigit():
            groups.setdefault(family, set()).add(number)
        else:
            groups.setdefault(rule.name, set()).add(None if rule.name in BOARD_RULES else k)
    return ", ".join(
        name if name in BOARD_RULES else f"{len(seen)} {name}{'' if len(seen) == 1 else 's'}"
        for name, seen in groups.items()
    )


def diagonal_units(size: int) -> tuple[Unit, Unit]:
    """The two main diagonals of a grid as units."""
    down = tuple(i * size + i for i in range(size))
    up = tuple(i * size + size - 1 - i for i in range(size))
    return Unit("diagonal", 1, down), Unit("diagonal", 2, up)


def hyper_units(size: int) -> tuple[Unit, ...]:
    """The four windoku windows (rows 2-4 and 6-8 by columns 2-4 and 6-8); 9x9 only."""
    if size != 9:
        raise ValueError(f"hyper (windoku) needs a 9x9 grid, not {size}x{size}")
    units = []
    for number, (top, left) in enumerate(((1, 1), (1, 5), (5, 1), (5, 5)), 1):
        cells = tuple((top + r) * 9 + left + c for r in range(3) for c in range(3))
        units.append(Unit("window", number, cells))
    return tuple(units)


def region_units(size: int, labels: Sequence[Sequence[str]]) -> tuple[Unit, ...]:
    """Jigsaw regions from rows of labels; ValueError naming a bad row or region.

    Regions are numbered in the order their first cell appears, row-major.
    """
    if len(labels) != size:
        raise ValueError(f"regions: {len(labels)} rows for a {size}x{size} grid")
    cells_of: dict[str, list[int]] = {}
    for r, row in enumerate(labels):
        if len(row) != size:
            raise ValueError(f"regions row {r + 1}: {len(row)} labels, expected {size}")
        for c, label in enumerate(row):
            cells_of.setdefault(str(label), []).append(r * size + c)

    def name(cell: int) -> str:
        return f"r{cell // size + 1}c{cell % size + 1}"

    units = []
    for number, (label, cells) in enumerate(cells_of.items(), 1):
        if len(cells) != size:
            raise ValueError(
                f"region {label!r} has {len(cells)} cells (from {name(cells[0])}), "
                f"every region needs {size}"
            )
        if not _connected(size, cells):
            raise ValueError(f"region {label!r} (from {name(cells[0])}) is not contiguous")
        units.append(Unit("region", number, tuple(cells)))
    return tuple(units)


def _connected(size: int, cells: Sequence[int]) -> bool:
    """Whether the cells form one orthogonally connected group."""
    todo, seen, members = [cells[0]], {cells[0]}, set(cells)
    while todo:
        cell = todo.pop()
        r, c = divmod(cell, size)
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            nxt = nr * size + nc
            if 0 <= nr < size and 0 <= nc < size and nxt in members and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return len(seen) == len(members)


def extra_units(size: int, groups: Sequence[Sequence[int]]) -> tuple[Unit, ...]:
    """User-listed units (cell indices), numbered ``unit 1``, ``unit 2``..."""
    return tuple(Unit("unit", i, tuple(cells)) for i, cells in enumerate(groups, 1))


def variant_geometry(
    size: int = 9,
    x: bool = False,
    hyper: bool = False,
    regions: Sequence[Sequence[str]] | None = None,
    units: Sequence[Sequence[int]] = (),
    box: tuple[int, int] | None = None,
) -> Geometry:
    """The geometry of a variant: the classic one (or jigsaw regions instead of the boxes)
    plus diagonals, windows and extra units as asked. ValueError says what is wrong.
    """
    if box is None or tuple(box) == BOX_SHAPES.get(size):
        base = geometry(size)
    else:
        rows, cols = box
        if rows * cols != size:
            raise ValueError(f"box {rows}x{cols} does not hold {size} cells")
        base = make_geometry(size, rows, cols, _classic_units(size, rows, cols))
    extra: list[Unit] = []
    if x:
        extra += diagonal_units(size)
    if hyper:
        extra += hyper_units(size)
    extra += extra_units(size, units)
    if regions is not None:
        lines = base.units[: 2 * size]  # rows and columns; the regions replace the boxes
        found = region_units(size, regions)
        return make_geometry(size, base.box_rows, base.box_cols, lines + found + tuple(extra))
    return base.with_units(extra) if extra else base


def flags(geom: Geometry) -> dict[str, bool]:
    """Which named variants a geometry carries: ``x``, ``hyper`` and ``jigsaw``."""
    names = {u.name for u in geom.units}
    return {
        "x": {"diagonal 1", "diagonal 2"} <= names,
        "hyper": "window 1" in names,
        "jigsaw": any(u.kind == "region" for u in geom.units),
    }


def region_labels(geom: Geometry) -> list[str]:
    """Rows of region labels (A, B, ... then a, b, ...) of a jigsaw geometry."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    label = [""] * geom.cell_count
    regions = [u for u in geom.units if u.kind == "region"]
    for index, unit in enumerate(regions):
        for cell in unit.cells:
            label[cell] = alphabet[index]
    n = geom.size
    return ["".join(label[r * n : (r + 1) * n]) for r in range(n)]


def with_variant(
    puzzle: Puzzle, names: Sequence[str] = (), regions: Sequence[Sequence[str]] | None = None
) -> Puzzle:
    """The puzzle with the named variants (``x``, ``hyper``, the board-wide rules of
    :data:`BOARD_RULES`) and jigsaw regions added.

    Rules the puzzle already has are kept, not doubled; its cages, givens, pencil marks
    and other rules stay.
    """
    geom = puzzle.geometry
    have = flags(geom)
    unknown = [n for n in names if n not in PLAIN_VARIANTS]
    if unknown:
        raise ValueError(
            f"variant {unknown[0]!r} needs a puzzle document; plain grids take "
            + ", ".join(PLAIN_VARIANTS)
        )
    extra: list[Unit] = []
    if "x" in names and not have["x"]:
        extra += diagonal_units(geom.size)
    if "hyper" in names and not have["hyper"]:
        extra += hyper_units(geom.size)
    units = list(geom.units)
    if regions is not None:
        if have["jigsaw"]:
            raise ValueError("the puzzle already has jigsaw regions")
        units = [u for u in units if u.kind != "box"] + list(region_units(geom.size, regions))
    new = make_geometry(geom.size, geom.box_rows, geom.box_cols, tuple(units) + tuple(extra))
    rules = puzzle.rules
    present = board_flags(rules)
    for name in BOARD_RULES:
        if name in names and name not in present:
            rules += board_rules(new, name)
    return Puzzle(new, puzzle.givens, puzzle.cages, puzzle.candidates, rules)


def read_regions(text: str, source: str = "<regions>") -> list[list[str]]:
    """Rows of region labels from a text: one row a line, a character or a word per cell."""
    rows = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            rows.append(stripped.split() if " " in stripped else list(stripped))
    if not rows:
        raise ValueError(f"{source}: no rows of region labels")
    return rows
