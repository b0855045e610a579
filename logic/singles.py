"""Singles: a cell with one candidate left, a value with one place left in a unit."""

from __future__ import annotations

from .board import BOXLIKE, Board
from .step import Step


def naked_single(board: Board) -> Step | None:
    """An open cell with one candidate left takes it (first such cell, row-major)."""
    values, masks = board.values, board.masks
    for cell, mask in enumerate(masks):
        if not values[cell] and mask and not mask & (mask - 1):
            value = mask.bit_length()
            return Step("naked single", (cell,), (value,), placed=((cell, value),))
    return None


def hidden_single(board: Board) -> Step | None:
    """A value with one place left in a unit goes there (boxes and regions first)."""
    shape, values, masks = board.shape, board.values, board.masks
    for u in shape.single_order:
        once = twice = placed = 0
        for c in shape.units[u]:
            if values[c]:
                placed |= masks[c]
            else:
                m = masks[c]
                twice |= once & m
                once |= m
        only = once & ~twice & ~placed
        if only:
            bit = only & -only
            value = bit.bit_length()
            cell = next(c for c in shape.units[u] if not values[c] and masks[c] & bit)
            kind = "box" if shape.kinds[u] in BOXLIKE else "line"
            return Step(
                "hidden single", (cell,), (value,), (u,), placed=((cell, value),), kind=kind
            )
    return None
