"""Colouring and chains: following strong links (one of two cells holds a value) and weak
links (two cells that see each other cannot both hold it)."""

from __future__ import annotations

from collections import deque

from .board import Board
from .step import Step
from .wings import bivalue_cells, seeing_all, strong_links


def _conjugates(board: Board, value: int) -> dict[int, list[int]]:
    """Each cell's partners in a strong link on ``value`` (ascending, no repeats)."""
    out: dict[int, set[int]] = {}
    for _, a, b in strong_links(board, value):
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)
    return {c: sorted(p) for c, p in sorted(out.items())}


def simple_colouring(board: Board) -> Step | None:
    """Colour the cells joined by strong links on one value with two colours, alternating:
    one colour holds the value everywhere, the other nowhere. A cell that sees both colours
    loses it (*trap*); two cells of one colour that see each other make that colour false,
    so all its cells lose it (*wrap*)."""
    sees, values, masks = board.shape.sees, board.values, board.masks
    for value in range(1, board.shape.size + 1):
        bit = 1 << (value - 1)
        links = _conjugates(board, value)
        coloured: set[int] = set()
        for start in links:
            if start in coloured:
                continue
            colour = {start: 0}
            queue = deque([start])
            consistent = True
            while queue:
                c = queue.popleft()
                for d in links[c]:
                    if d not in colour:
                        colour[d] = 1 - colour[c]
                        queue.append(d)
                    elif colour[d] == colour[c]:
                        consistent = False  # an odd loop: the puzzle has no solution
            coloured.update(colour)
            if not consistent or len(colour) < 3:
                continue
            cells = tuple(sorted(colour))
            shades = tuple(colour[c] for c in cells)
            for side in (0, 1):
                same = [c for c in cells if colour[c] == side]
                if any(b in sees[a] for i, a in enumerate(same) for b in same[i + 1 :]):
                    removed = tuple((c, value) for c in same)
                    return Step(
                        "simple colouring",
                        cells,
                        (value,),
                        removed=removed,
                        links=shades,
                        kind="wrap",
                    )
            removed = tuple(
                (c, value)
                for c, m in enumerate(masks)
                if not values[c]
                and m & bit
                and c not in colour
                and {colour[p] for p in sees[c] if p in colour} == {0, 1}
            )
            if removed:
                return Step(
                    "simple colouring", cells, (value,), removed=removed, links=shades, kind="trap"
                )
    return None


def _path(parent: dict, state: tuple) -> list[tuple]:
    out = [state]
    while parent[state] is not None:
        state = parent[state]
        out.append(state)
    return out[::-1]


def x_chain(board: Board) -> Step | None:
    """A chain on one value from cell to cell, alternating strong links (one of the two
    holds it) and weak links (the two see each other), starting and ending with a strong
    link: if the first cell is not the value, the last one is. One end holds it, so a
    cell seeing both ends loses it. The shortest chain that removes something is taken."""
    values, masks, sees = board.values, board.masks, board.shape.sees
    best: tuple[int, int, list[tuple]] | None = None  # (links, value, path)
    for value in range(1, board.shape.size + 1):
        bit = 1 << (value - 1)
        links = _conjugates(board, value)
        holders = [c for c, m in enumerate(masks) if not values[c] and m & bit]
        for start in links:
            # States (cell, on): on = 1 when the cell must hold the value if start does not.
            parent: dict[tuple, tuple | None] = {(start, 0): None}
            frontier = [(start, 0)]
            depth = 0
            while frontier and (best is None or depth + 1 < best[0]):
                depth += 1
                nxt = []
                for cell, on in frontier:
                    step_to = (
                        links.get(cell, ()) if not on else (c for c in holders if c in sees[cell])
                    )
                    for d in step_to:
                        state = (d, 1 - on)
                        if state in parent or d == start:
                            continue
                        parent[state] = (cell, on)
                        nxt.append(state)
                        shorter = best is None or depth < best[0]
                        if (
                            not on
                            and depth >= 3
                            and shorter
                            and seeing_all(board, value, (start, d))
                        ):
                            best = (depth, value, _path(parent, state))
                frontier = nxt
    if best is None:
        return None
    _, value, path = best
    cells = tuple(c for c, _ in path)
    removed = seeing_all(board, value, (cells[0], cells[-1]))
    links = tuple("=" if on else "-" for _, on in path[1:])
    return Step("X-chain", cells, (value,), removed=removed, links=links)


def xy_chain(board: Board) -> Step | None:
    """A chain of cells with two candidates each, every one seeing the next and sharing a
    value with it: if the first cell is not z it is its other value, so the next is not
    that value, and so on; when the last cell's forced value is z, one end is z, so a
    cell seeing both ends loses z. The shortest chain that removes something is taken."""
    masks, sees = board.masks, board.shape.sees
    two = bivalue_cells(board)
    best: tuple[int, int, list[tuple]] | None = None
    for start in two:
        for z_bit in (masks[start] & -masks[start], masks[start] & (masks[start] - 1)):
            z = z_bit.bit_length()
            first = (start, (masks[start] & ~z_bit).bit_length())  # start is not z
            parent: dict[tuple, tuple | None] = {first: None}
            frontier = [first]
            depth = 1
            while frontier and (best is None or depth + 1 < best[0]):
                depth += 1
                nxt = []
                for cell, held in frontier:
                    hb = 1 << (held - 1)
                    for d in two:
                        if d == start or not masks[d] & hb or d not in sees[cell]:
                            continue
                        state = (d, (masks[d] & ~hb).bit_length())
                        if state in parent:
                            continue
                        parent[state] = (cell, held)
                        nxt.append(state)
                        shorter = best is None or depth < best[0]
                        if (
                            state[1] == z
                            and depth >= 3
                            and shorter
                            and seeing_all(board, z, (start, d))
                        ):
                            best = (depth, z, _path(parent, state))
                frontier = nxt
    if best is None:
        return None
    _, z, path = best
    cells = tuple(c for c, _ in path)
    held = tuple(v for _, v in path)  # the value each cell holds if the first is not z
    removed = seeing_all(board, z, (cells[0], cells[-1]))
    return Step("XY-chain", cells, (z, *held), removed=removed)
