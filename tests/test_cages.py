"""Killer cages in the native engine: distinct values adding up to each cage's total."""

from __future__ import annotations

import random
from itertools import permutations, product

import pytest
from helpers import design, killer_cages, random_cages, random_solution

from sudokulab.models import Puzzle, geometry, is_solution
from sudokulab.native import reference
from sudokulab.native.options import ORDERS, PROPAGATIONS, VALUES

# dom-wdeg under none is blind (nothing pruned): it may leave a dead cell for last.
COMBINATIONS = [k for k in product(PROPAGATIONS, ORDERS) if k != ("none", "dom-wdeg")]


def units_of(size: int) -> tuple[tuple[int, ...], ...]:
    return tuple(u.cells for u in geometry(size).units)


def search(size, givens, propagation, order, limit, cages, values="natural"):
    """The reference engine's search of one killer grid."""
    engine = reference.Engine(size, units_of(size), propagation, order, cages, values=values)
    return engine.search(givens, limit)


def all_4x4_grids() -> list[tuple[int, ...]]:
    """Every solved 4x4 grid, by brute force over rows (independent of the engine)."""
    units = units_of(4)
    grids = []
    for rows in product(permutations(range(1, 5)), repeat=4):
        grid = tuple(v for row in rows for v in row)
        if all(len({grid[c] for c in unit}) == 4 for unit in units):
            grids.append(grid)
    return grids


GRIDS = all_4x4_grids()


def obeys(grid, cages) -> bool:
    """Each cage's values are distinct and add up to its total."""
    return all(
        len({grid[c] for c in cells}) == len(cells) and sum(grid[c] for c in cells) == total
        for cells, total in cages
    )


def test_brute_force_knows_all_288_grids():
    assert len(GRIDS) == 288


def test_combinations_are_the_distinct_value_sets_with_the_sum():
    assert reference.combinations_of(9, 2, 3) == (0b11,)
    assert reference.combinations_of(9, 3, 24) == (0b111000000,)
    assert sorted(reference.combinations_of(4, 2, 5)) == sorted([0b1001, 0b0110])
    assert reference.combinations_of(9, 2, 18) == ()  # 9 + 9 repeats a value


@pytest.mark.parametrize(
    ("propagation", "order", "values", "group"),
    design(
        {"propagation": PROPAGATIONS, "order": ORDERS, "values": VALUES, "group": range(4)},
        lambda row: (row["propagation"], row["order"]) in COMBINATIONS,
    ),
)
def test_every_setting_finds_exactly_the_grids_that_obey_the_cages(
    propagation, order, values, group
):
    # Twelve random cage sets in four groups; every setting, value order and group meet
    # each other in one test (all pairs, tests/helpers.py).
    for seed in range(group, 12, 4):
        rng = random.Random(seed)
        target = rng.choice(GRIDS)
        cages = killer_cages(target, random_cages(target, rng, largest=3))
        expected = {g for g in GRIDS if obeys(g, cages)}
        out = search(4, [0] * 16, propagation, order, None, cages, values)
        assert out.complete
        assert out.count == len(expected) == len(set(out.solutions))
        assert set(out.solutions) == expected


@pytest.mark.parametrize("seed", range(6))
def test_9x9_killer_agrees_across_settings_and_verifies(seed):
    rng = random.Random(seed)
    solution = random_solution(9, rng)
    cages = killer_cages(solution, random_cages(solution, rng))
    givens = [v if rng.random() < 0.3 else 0 for v in solution]
    answers = set()
    for propagation in ("forward", "singles", "hidden"):
        out = search(9, givens, propagation, "mrv", 2, cages)
        assert out.complete or out.count == 2
        assert tuple(solution) in out.solutions or out.count == 2
        for grid in out.solutions:
            assert is_solution(Puzzle(geometry(9), tuple(givens)), grid)
            assert obeys(grid, cages)
        answers.add((out.count, out.solutions))
    assert len(answers) == 1


def test_stronger_propagation_never_searches_more():
    rng = random.Random(7)
    solution = random_solution(9, rng)
    cages = killer_cages(solution, random_cages(solution, rng))
    stats = {p: search(9, [0] * 81, p, "mrv", 1, cages).nodes for p in ("singles", "hidden")}
    assert stats["hidden"] <= stats["singles"]


def test_cages_must_be_well_formed():
    with pytest.raises(ValueError, match="listed twice"):
        reference.Engine(4, units_of(4), cages=(((0, 0), 3),))
    with pytest.raises(ValueError, match="in cages 1 and 2"):
        reference.Engine(4, units_of(4), cages=(((0, 1), 3), ((1, 2), 3)))
    with pytest.raises(ValueError, match="outside the grid"):
        reference.Engine(4, units_of(4), cages=(((0, 16), 3),))
    with pytest.raises(ValueError, match="no cells"):
        reference.Engine(4, units_of(4), cages=(((), 3),))


def test_a_cage_no_values_can_fill_is_unsolvable_not_an_error():
    out = search(4, [0] * 16, "hidden", "mrv", 1, (((0, 1), 8),))  # 4 + 4 repeats
    assert out.count == 0 and out.complete
