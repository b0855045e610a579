"""Fish: a value confined to k columns within k rows (or to k rows within k columns)."""

from __future__ import annotations

from itertools import combinations

from .board import Board
from .step import Step


def _fish(board: Board, k: int, name: str) -> Step | None:
    """For one value: when its places in ``k`` rows (the base) all lie in ``k`` columns (the
    cover), the value is in each of those columns within those rows, so the rest of the
    columns loses it; then the same with rows and columns swapped."""
    shape, values, masks = board.shape, board.values, board.masks
    n = shape.size
    for base_units, cover_units, across in (
        (shape.rows, shape.columns, lambda c: c % n),
        (shape.columns, shape.rows, lambda c: c // n),
    ):
        if len(base_units) != n or len(cover_units) != n:
            continue
        for value in range(1, n + 1):
            bit = 1 << (value - 1)
            lines = []  # (base unit, mask of cover lines where the value may go)
            for u in base_units:
                spots = 0
                for c in shape.units[u]:
                    if values[c] == value:
                        spots = -1
                        break
                    if not values[c] and masks[c] & bit:
                        spots |= 1 << across(c)
                if spots > 0 and spots.bit_count() <= k:
                    lines.append((u, spots))
            for group in combinations(lines, k):
                cover = 0
                for _, spots in group:
                    cover |= spots
                if cover.bit_count() != k:
                    continue
                base = tuple(u for u, _ in group)
                inside = {c for u in base for c in shape.units[u]}
                covers = tuple(cover_units[i] for i in range(n) if cover >> i & 1)
                removed = tuple(
                    (c, value)
                    for u in covers
                    for c in shape.units[u]
                    if c not in inside and not values[c] and masks[c] & bit
                )
                if removed:
                    cells = tuple(
                        c for u in base for c in shape.units[u] if not values[c] and masks[c] & bit
                    )
                    return Step(name, cells, (value,), base, covers, removed=removed)
    return None


def x_wing(board: Board) -> Step | None:
    """A value confined to the same two columns in two rows (or two rows in two columns)."""
    return _fish(board, 2, "X-wing")


def swordfish(board: Board) -> Step | None:
    """A value confined to three columns within three rows (or the other way round)."""
    return _fish(board, 3, "swordfish")


def jellyfish(board: Board) -> Step | None:
    """A value confined to four columns within four rows (or the other way round)."""
    return _fish(board, 4, "jellyfish")
