"""Naked and hidden subsets: k cells of a unit holding only k values, k values of a unit
fitting only in k cells."""

from __future__ import annotations

from itertools import combinations

from .board import Board, bits
from .step import Step


def _naked(board: Board, k: int, name: str) -> Step | None:
    """``k`` open cells of one unit whose candidates together are ``k`` values: those values
    go in those cells, so the unit's other cells lose them."""
    shape, values, masks = board.shape, board.values, board.masks
    for u, cells in enumerate(shape.units):
        open_cells = [c for c in cells if not values[c]]
        if len(open_cells) <= k:
            continue
        small = [c for c in open_cells if 2 <= masks[c].bit_count() <= k]
        for group in combinations(small, k):
            union = 0
            for c in group:
                union |= masks[c]
            if union.bit_count() != k:
                continue
            removed = tuple(
                (c, v)
                for c in open_cells
                if c not in group and masks[c] & union
                for v in bits(masks[c] & union)
            )
            if removed:
                return Step(name, group, bits(union), (u,), removed=removed)
    return None


def _hidden(board: Board, k: int, name: str) -> Step | None:
    """``k`` values that fit only in the same ``k`` cells of one unit: those cells hold
    them, so they lose every other candidate."""
    shape, values, masks = board.shape, board.values, board.masks
    for u, cells in enumerate(shape.units):
        open_cells = [c for c in cells if not values[c]]
        if len(open_cells) <= k:
            continue
        where: dict[int, int] = {}  # value -> bit i for open_cells[i] holding it
        for i, c in enumerate(open_cells):
            for v in bits(masks[c]):
                where[v] = where.get(v, 0) | 1 << i
        few = [v for v in sorted(where) if 2 <= where[v].bit_count() <= k]
        for group in combinations(few, k):
            spots = 0
            for v in group:
                spots |= where[v]
            if spots.bit_count() != k:
                continue
            keep = sum(1 << (v - 1) for v in group)
            held = tuple(open_cells[i] for i in range(len(open_cells)) if spots >> i & 1)
            removed = tuple((c, v) for c in held for v in bits(masks[c] & ~keep))
            if removed:
                return Step(name, held, group, (u,), removed=removed)
    return None


def naked_pair(board: Board) -> Step | None:
    """Two cells of a unit with the same two candidates: the rest of the unit loses them."""
    return _naked(board, 2, "naked pair")


def naked_triple(board: Board) -> Step | None:
    """Three cells of a unit holding only three values between them."""
    return _naked(board, 3, "naked triple")


def naked_quad(board: Board) -> Step | None:
    """Four cells of a unit holding only four values between them."""
    return _naked(board, 4, "naked quad")


def hidden_pair(board: Board) -> Step | None:
    """Two values of a unit that fit only in the same two cells: those cells lose the
    rest of their candidates."""
    return _hidden(board, 2, "hidden pair")


def hidden_triple(board: Board) -> Step | None:
    """Three values of a unit that fit only in the same three cells."""
    return _hidden(board, 3, "hidden triple")


def hidden_quad(board: Board) -> Step | None:
    """Four values of a unit that fit only in the same four cells."""
    return _hidden(board, 4, "hidden quad")
