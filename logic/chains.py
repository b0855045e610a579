"""Colouring and chains: following strong links (one of two cells holds a value) and weak
links (two cells that see each other cannot both hold it)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator

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


def shortest_chain(
    first: tuple,
    successors: Callable[[tuple], Iterable[tuple]],
    is_end: Callable[[tuple], bool],
    min_links: int,
    below: float,
) -> tuple[int, list[tuple]] | None:
    """Breadth-first from the state ``first``: the number of links and the states of the
    first chain of at least ``min_links`` and fewer than ``below`` links whose last state
    ``is_end``; None when there is none. Each state is visited once."""
    parent: dict[tuple, tuple | None] = {first: None}
    frontier = [first]
    links = 0
    while frontier and links + 1 < below:
        links += 1
        after = []
        for state in frontier:
            for new in successors(state):
                if new in parent:
                    continue
                parent[new] = state
                after.append(new)
                if links >= min_links and is_end(new):
                    return links, _path(parent, new)
        frontier = after
    return None


def x_chain(board: Board) -> Step | None:
    """A chain on one value from cell to cell, alternating strong links (one of the two
    holds it) and weak links (the two see each other), starting and ending with a strong
    link: if the first cell is not the value, the last one is. One end holds it, so a
    cell seeing both ends loses it. The shortest chain that removes something is taken."""
    values, masks, sees = board.values, board.masks, board.shape.sees
    best: tuple[int, int, list[tuple]] | None = None  # (links, value, path)
    for value in range(1, board.shape.size + 1):
        bit = 1 << (value - 1)
        strong = _conjugates(board, value)
        holders = [c for c, m in enumerate(masks) if not values[c] and m & bit]
        for start in strong:
            # States (cell, on): on = 1 when the cell must hold the value if start does
            # not. From an off cell a strong link leads on, from an on cell a weak one off.
            def successors(
                state: tuple, start: int = start, strong: dict = strong, holders: list = holders
            ) -> Iterator[tuple]:
                cell, on = state
                step_to = (c for c in holders if c in sees[cell]) if on else strong.get(cell, ())
                return ((d, 1 - on) for d in step_to if d != start)

            def is_end(state: tuple, start: int = start, value: int = value) -> bool:
                return state[1] == 1 and bool(seeing_all(board, value, (start, state[0])))

            below = best[0] if best else float("inf")
            found = shortest_chain((start, 0), successors, is_end, 3, below)
            if found:
                best = (found[0], value, found[1])
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
    best: tuple[int, int, list[tuple]] | None = None  # (links, z, path)
    for start in two:
        for z_bit in (masks[start] & -masks[start], masks[start] & (masks[start] - 1)):
            z = z_bit.bit_length()

            # States (cell, held): the value the cell holds if start is not z.
            def successors(state: tuple, start: int = start) -> Iterator[tuple]:
                cell, held = state
                hb = 1 << (held - 1)
                return (
                    (d, (masks[d] & ~hb).bit_length())
                    for d in two
                    if d != start and masks[d] & hb and d in sees[cell]
                )

            def is_end(state: tuple, start: int = start, z: int = z) -> bool:
                return state[1] == z and bool(seeing_all(board, z, (start, state[0])))

            first = (start, (masks[start] & ~z_bit).bit_length())  # start is not z
            below = best[0] if best else float("inf")
            found = shortest_chain(first, successors, is_end, 2, below)
            if found:
                best = (found[0], z, found[1])
    if best is None:
        return None
    _, z, path = best
    cells = tuple(c for c, _ in path)
    held = tuple(v for _, v in path)  # the value each cell holds if the first is not z
    removed = seeing_all(board, z, (cells[0], cells[-1]))
    return Step("XY-chain", cells, (z, *held), removed=removed)
