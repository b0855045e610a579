"""Puzzle makers and small fixtures' bodies shared by the tests; independent of the engine
under test."""

from __future__ import annotations

import argparse
import os
import random
from collections.abc import Iterator
from itertools import product
from pathlib import Path

from sudokulab import is_solution, solve
from sudokulab.models import geometry


def core_combinations() -> list[tuple[str, str]]:
    """Every (propagation, order) both implementations run, for searches without a guess
    budget: dom-wdeg only under the levels the compiled core runs it under, and not under
    ``none`` (nothing is pruned there, so it can leave a dead cell for last and search
    the whole grid first: its tests give it a budget)."""
    from sudokulab.native.reference import CORE_WDEG_PROPAGATIONS, ORDERS, PROPAGATIONS

    return [
        (p, o) for p in PROPAGATIONS for o in ORDERS
        if o != "dom-wdeg" or (p in CORE_WDEG_PROPAGATIONS and p != "none")
    ]  # fmt: skip


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


def random_cages(
    solution: list[int] | tuple[int, ...], rng: random.Random, largest: int = 4
) -> list[tuple[int, ...]]:
    """A random partition of a solved grid into connected cages of distinct values."""
    size = int(len(solution) ** 0.5)
    count = size * size
    cage_of = [-1] * count
    cages: list[tuple[int, ...]] = []
    for start in rng.sample(range(count), count):
        if cage_of[start] >= 0:
            continue
        cells = [start]
        cage_of[start] = len(cages)
        want = rng.randint(1, largest)
        while len(cells) < want:
            around = [
                n
                for c in cells
                for n in (
                    c - size,
                    c + size,
                    c - 1 if c % size else -1,
                    c + 1 if (c + 1) % size else -1,
                )
                if 0 <= n < count
                and cage_of[n] < 0
                and solution[n] not in {solution[c] for c in cells}
            ]
            if not around:
                break
            nxt = rng.choice(sorted(set(around)))
            cage_of[nxt] = len(cages)
            cells.append(nxt)
        cages.append(tuple(sorted(cells)))
    return cages


def killer_cages(solution: list[int] | tuple[int, ...], cages: list[tuple[int, ...]]):
    """The cages with their totals taken from a solved grid."""
    return tuple((cells, sum(solution[c] for c in cells)) for cells in cages)


def same_as_native(puzzle, spec: str, limit: int | None = 2):
    """Solve with ``spec`` and the native engine; every grid verified, the answers equal."""
    mine, native = solve(puzzle, spec, limit=limit), solve(puzzle, "native", limit=limit)
    assert (mine.status, mine.count, mine.exact) == (native.status, native.count, native.exact)
    assert all(is_solution(puzzle, s) for s in mine.solutions)
    assert len(set(mine.solutions)) == len(mine.solutions)
    if mine.exact:  # the whole set of solutions: the same grids
        assert set(mine.solutions) == set(native.solutions)
    return mine


def fake_backends(monkeypatch, *names: str) -> Iterator[None]:
    """Register the misbehaving backends of ``fake_backends.py`` (by class name) here and
    in the worker processes the test starts; a fixture's body (``yield from``)."""
    from sudokulab.backends import registry

    tests = str(Path(__file__).resolve().parent)
    monkeypatch.setenv("SUDOKULAB_BACKENDS", ",".join(f"fake_backends:{n}" for n in names))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [tests, os.environ.get("PYTHONPATH")]))
    )
    monkeypatch.syspath_prepend(tests)
    registry._create.cache_clear()
    yield
    registry._create.cache_clear()


def parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parser and, after it, every subcommand's parser, at any depth."""
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += parsers(sub)
    return found
