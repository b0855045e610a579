"""Wings: a pivot and two pincers (XY, XYZ), or two twin cells joined by a strong link (W)."""

from __future__ import annotations

from .board import Board, bits
from .step import Step


def bivalue_cells(board: Board) -> list[int]:
    """The open cells with exactly two candidates, row-major."""
    values, masks = board.values, board.masks
    return [c for c, m in enumerate(masks) if not values[c] and m.bit_count() == 2]


def strong_links(board: Board, value: int) -> list[tuple[int, int, int]]:
    """``(unit, a, b)`` for every unit where ``value`` has exactly two places, ``a`` and
    ``b``: one of them holds it (a *conjugate pair*)."""
    out = []
    for u in range(len(board.shape.units)):
        places = board.places(u, value)
        if len(places) == 2:
            out.append((u, places[0], places[1]))
    return out


def seeing_all(board: Board, value: int, cells: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """``(cell, value)`` for every open cell outside ``cells`` that holds ``value`` and sees
    each of ``cells``."""
    sees, values, masks = board.shape.sees, board.values, board.masks
    bit = 1 << (value - 1)
    rest = cells[1:]
    return tuple(
        (c, value)
        for c in board.shape.peers[cells[0]]
        if not values[c] and masks[c] & bit and c not in cells and all(c in sees[o] for o in rest)
    )


def xy_wing(board: Board) -> Step | None:
    """A pivot with candidates x, y sees a pincer with x, z and a pincer with y, z: whichever
    the pivot is, one pincer is z, so a cell seeing both pincers loses z."""
    masks, peers = board.masks, board.shape.peers
    two = bivalue_cells(board)
    twos = set(two)
    for pivot in two:
        pm = masks[pivot]
        wings = [c for c in peers[pivot] if c in twos and (masks[c] & pm).bit_count() == 1]
        for i, a in enumerate(wings):
            for b in wings[i + 1 :]:
                z = masks[a] & masks[b]
                if masks[a] & pm == masks[b] & pm or z.bit_count() != 1 or z & pm:
                    continue
                removed = seeing_all(board, z.bit_length(), (a, b))
                if removed:
                    return Step("XY-wing", (pivot, a, b), (z.bit_length(),), removed=removed)
    return None


def xyz_wing(board: Board) -> Step | None:
    """A pivot with candidates x, y, z sees a pincer with x, z and a pincer with y, z: one
    of the three is z, so a cell seeing all three loses z."""
    values, masks, peers = board.values, board.masks, board.shape.peers
    twos = set(bivalue_cells(board))
    for pivot, pm in enumerate(masks):
        if values[pivot] or pm.bit_count() != 3:
            continue
        wings = [c for c in peers[pivot] if c in twos and masks[c] & pm == masks[c]]
        for i, a in enumerate(wings):
            for b in wings[i + 1 :]:
                z = masks[a] & masks[b]
                if masks[a] == masks[b] or not z:
                    continue
                removed = seeing_all(board, z.bit_length(), (pivot, a, b))
                if removed:
                    return Step("XYZ-wing", (pivot, a, b), (z.bit_length(),), removed=removed)
    return None


def w_wing(board: Board) -> Step | None:
    """Two cells that do not see each other hold only x and y, and a strong link on x
    (a unit where x has two places) has one end seeing each: if the first cell is not y it
    is x, so that end is not x, the other end is, and the second cell is y. One of the two
    is y, so a cell seeing both loses y."""
    masks, sees = board.masks, board.shape.sees
    two = bivalue_cells(board)
    links: dict[int, list[tuple[int, int, int]]] = {}
    for i, p in enumerate(two):
        for q in two[i + 1 :]:
            if masks[p] != masks[q] or q in sees[p]:
                continue
            for x in bits(masks[p]):
                y = bits(masks[p] & ~(1 << (x - 1)))[0]
                if x not in links:
                    links[x] = strong_links(board, x)
                for unit, s, t in links[x]:
                    if {s, t} & {p, q}:
                        continue
                    if not (s in sees[p] and t in sees[q]) and not (s in sees[q] and t in sees[p]):
                        continue
                    removed = seeing_all(board, y, (p, q))
                    if removed:
                        ends = (s, t) if s in sees[p] and t in sees[q] else (t, s)
                        return Step("W-wing", (p, q, *ends), (y, x), (unit,), removed=removed)
    return None
