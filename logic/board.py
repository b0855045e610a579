"""The logic solver's grid: candidates as bit masks over a geometry's units.

``masks[cell]`` holds the candidates of an open cell (bit ``v-1`` for value ``v``);
``values[cell]`` is the value placed there, or 0. Placing a value removes it from every
peer (that is what placing means, not a technique). A :class:`Shape` holds what a
geometry's techniques look up (units by kind, peers as sets, where two units meet) and is
built once per geometry.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..models import Geometry

#: Unit kinds a box-line interaction treats as the box side (jigsaw regions, windows).
BOXLIKE = ("box", "region", "window")


def locked_kind(unit_kind: str, other_kind: str) -> str:
    """``pointing`` when a box (or region) confines a value to a line, ``claiming`` when
    a line confines it to a box, else empty (two other units that meet)."""
    if unit_kind in BOXLIKE and other_kind in ("row", "column"):
        return "pointing"
    if unit_kind in ("row", "column") and other_kind in BOXLIKE:
        return "claiming"
    return ""


def bits(mask: int) -> tuple[int, ...]:
    """The values of a candidate mask, ascending (bit v-1 for value v)."""
    out = []
    v = 1
    while mask:
        if mask & 1:
            out.append(v)
        mask >>= 1
        v += 1
    return tuple(out)


@dataclass(frozen=True)
class Meet:
    """Where unit ``unit`` meets unit ``other`` in two or more cells."""

    unit: int
    other: int
    shared: tuple[int, ...]  # cells of both
    inside: tuple[int, ...]  # cells of ``unit`` outside ``other``
    outside: tuple[int, ...]  # cells of ``other`` outside ``unit``


class Shape:
    """A geometry as the techniques read it; built once per geometry (:func:`shape_of`)."""

    def __init__(self, geometry: Geometry) -> None:
        self.geometry = geometry
        self.size = geometry.size
        self.full = (1 << geometry.size) - 1
        self.units = tuple(u.cells for u in geometry.units)
        self.kinds = tuple(u.kind for u in geometry.units)
        self.peers = geometry.peers
        self.sees = tuple(frozenset(p) for p in geometry.peers)
        self.units_of = geometry.units_of
        self.rows = tuple(i for i, k in enumerate(self.kinds) if k == "row")
        self.columns = tuple(i for i, k in enumerate(self.kinds) if k == "column")
        # Boxes (and regions) first, so a hidden single is found where it is easiest.
        boxes = [i for i, k in enumerate(self.kinds) if k in BOXLIKE]
        self.single_order = tuple(boxes + [i for i in range(len(self.units)) if i not in boxes])
        meets = []
        for a, ua in enumerate(self.units):
            sa = set(ua)
            for b, ub in enumerate(self.units):
                shared = tuple(c for c in ub if c in sa)
                if a == b or len(shared) < 2:
                    continue
                sb = set(ub)
                inside = tuple(c for c in ua if c not in sb)
                outside = tuple(c for c in ub if c not in sa)
                if inside and outside:
                    meets.append(Meet(a, b, shared, inside, outside))
        # Pointing (a box confines the value) before claiming (a line does), as the scale.
        meets.sort(key=lambda m: (self.kinds[m.unit] not in BOXLIKE, m.unit, m.other))
        self.meets = tuple(meets)


def shape_of(geometry: Geometry) -> Shape:
    """The shape of a geometry, cached on the (immutable, shared) geometry object."""
    cached = geometry.__dict__.get("_logic_shape")
    if cached is None:
        cached = Shape(geometry)
        object.__setattr__(geometry, "_logic_shape", cached)
    return cached


class Board:
    """Candidates and placed values of one grid; changed only by :meth:`place` and
    :meth:`remove`."""

    __slots__ = ("shape", "masks", "values", "open")

    def __init__(self, shape: Shape, givens: tuple[int, ...] | list[int]) -> None:
        self.shape = shape
        self.masks = [shape.full] * len(givens)
        self.values = [0] * len(givens)
        self.open = len(givens)
        for cell, value in enumerate(givens):
            if value and self.masks[cell] >> (value - 1) & 1:
                self.place(cell, value)
            elif value:  # a given its peers forbid: the cell is dead
                self.masks[cell] = 0

    def place(self, cell: int, value: int) -> None:
        """Place ``value`` in ``cell``: its peers lose the value."""
        bit = 1 << (value - 1)
        self.masks[cell] = bit
        self.values[cell] = value
        self.open -= 1
        masks = self.masks
        for p in self.shape.peers[cell]:
            masks[p] &= ~bit

    def remove(self, cell: int, value: int) -> None:
        """``cell`` loses the candidate ``value``."""
        self.masks[cell] &= ~(1 << (value - 1))

    def has(self, cell: int, value: int) -> bool:
        """Whether ``value`` is a candidate of the open ``cell``."""
        return not self.values[cell] and self.masks[cell] >> (value - 1) & 1 == 1

    def places(self, unit: int, value: int) -> list[int]:
        """The open cells of ``unit`` where ``value`` is a candidate."""
        bit = 1 << (value - 1)
        values, masks = self.values, self.masks
        return [c for c in self.shape.units[unit] if not values[c] and masks[c] & bit]

    def dead(self) -> tuple[int, int, int] | None:
        """A contradiction, or None: ``(cell, -1, 0)`` for an open cell without candidates,
        ``(-1, unit, value)`` for a value with no place left in a unit."""
        values, masks = self.values, self.masks
        for cell, mask in enumerate(masks):
            if not values[cell] and not mask:
                return cell, -1, 0
        full = self.shape.full
        for u, cells in enumerate(self.shape.units):
            seen = 0
            for c in cells:
                seen |= masks[c]
            if seen != full:
                missing = full & ~seen
                return -1, u, (missing & -missing).bit_length()
        return None
