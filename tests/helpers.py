"""Puzzle makers shared by the tests; independent of the engine under test."""

from __future__ import annotations

import random
from itertools import product

from sudokulab.models import geometry


def two_solution_grid(solution: tuple[int, ...]) -> tuple[int, ...]:
    """Blank a deadly rectangle (a b / b a over two boxes of one band): two solutions."""
    g = geometry(9)
    for r1, r2 in product(range(9), repeat=2):
        if r1 >= r2 or r1 // 3 != r2 // 3:
            continue
        for c1, c2 in product(range(9), repeat=2):
            if c1 >= c2 or c1 // 3 == c2 // 3:
                continue
            a, b = solution[r1 * 9 + c1], solution[r1 * 9 + c2]
            if solution[r2 * 9 + c1] == b and solution[r2 * 9 + c2] == a:
                grid = list(solution)
                for r, c in product((r1, r2), (c1, c2)):
                    grid[r * 9 + c] = 0
                assert g.cell_count == len(grid)
                return tuple(grid)
    raise AssertionError("no deadly rectangle in this grid")


def random_solution(size: int, rng: random.Random) -> list[int]:
    """A random solved grid, built from the pattern solution by symmetry-preserving shuffles."""
    g = geometry(size)
    br, bc = g.box_rows, g.box_cols

    def pattern(r: int, c: int) -> int:
        return (bc * (r % br) + r // br + c) % size

    def shuffled(groups: int, per: int) -> list[int]:
        order = rng.sample(range(groups), groups)
        return [g_ * per + i for g_ in order for i in rng.sample(range(per), per)]

    rows = shuffled(size // br, br)
    cols = shuffled(size // bc, bc)
    values = rng.sample(range(1, size + 1), size)
    return [values[pattern(r, c)] for r in rows for c in cols]
