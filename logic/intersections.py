"""Locked candidates: a value confined to where two units meet leaves the rest of both."""

from __future__ import annotations

from .board import Board, locked_kind
from .step import Step


def locked_candidates(board: Board) -> Step | None:
    """When a value's places in one unit all lie where it meets another unit, the other
    unit's remaining cells lose it: *pointing* when a box (or region) confines the value
    to a line, *claiming* when a line confines it to a box; any two units that meet in two
    or more cells work the same way (a diagonal and a box, say)."""
    shape, values, masks = board.shape, board.values, board.masks
    for meet in shape.meets:
        shared = inside = 0
        for c in meet.shared:
            if not values[c]:
                shared |= masks[c]
        if not shared:
            continue
        for c in meet.inside:
            inside |= masks[c]  # a placed cell's mask is its value: never confined
        confined = shared & ~inside
        for c in meet.shared:
            if values[c]:
                confined &= ~masks[c]
        while confined:
            bit = confined & -confined
            confined &= confined - 1
            lose = tuple(c for c in meet.outside if not values[c] and masks[c] & bit)
            if lose:
                value = bit.bit_length()
                cells = tuple(c for c in meet.shared if not values[c] and masks[c] & bit)
                kind = locked_kind(shape.kinds[meet.unit], shape.kinds[meet.other])
                return Step(
                    "locked candidates",
                    cells,
                    (value,),
                    (meet.unit,),
                    (meet.other,),
                    removed=tuple((c, value) for c in lose),
                    kind=kind,
                )
    return None
