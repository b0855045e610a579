"""The shared encodings: every kind's decomposition keeps exactly the grids its rule keeps.

Random 9x9 solution grids (rows shuffled into other valid grids) and random rules of
every kind over them: a rule and its primitives must agree on each grid, both where the
rule holds and where it does not. A sandwich's line is a row, so the grids are grids whose
rows hold 1..9 (every Sudoku solution).
"""

from __future__ import annotations

import random

import pytest

from sudokulab.encodings import DECOMPOSITIONS, Distinct, Linear, Table, accepted_kinds, decompose
from sudokulab.encodings.primitives import TYPES
from sudokulab.models import build_model, parse_puzzle, rules
from sudokulab.models.rules import KINDS
from sudokulab.native.surface import PROPAGATED_KINDS, RULE_KINDS, TABLE_KINDS

N = 9
SOLVED = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


def _grids(count: int, seed: int) -> list[tuple[int, ...]]:
    """Solution grids relabelled at random (a permutation of the digits), and grids whose
    rows are shuffled permutations of 1..9 (units broken, rows whole)."""
    rng = random.Random(seed)
    base = [int(ch) for ch in SOLVED]
    out = []
    for i in range(count):
        if i % 2:
            perm = list(range(1, N + 1))
            rng.shuffle(perm)
            out.append(tuple(perm[v - 1] for v in base))
        else:
            rows = []
            for _ in range(N):
                row = list(range(1, N + 1))
                rng.shuffle(row)
                rows += row
            out.append(tuple(rows))
    return out


def _rules(rng: random.Random) -> list:
    """A few random rules of every kind on a 9x9 grid."""
    cells = range(N * N)
    out = []
    for _ in range(6):
        a, b = rng.sample(cells, 2)
        out += [
            rules.Less(a, b),
            rules.LessEqual(a, b),
            rules.Difference(a, b, rng.randint(1, 4)),
            rules.NotDifference(a, b, rng.randint(1, 3)),
            rules.MinDifference(a, b, rng.randint(2, 6)),
            rules.Ratio(a, b, rng.randint(2, 3)),
            rules.NotRatio(a, b, 2),
            rules.PairSum(a, b, rng.randint(3, 17)),
            rules.NotEqual(a, b),
            rules.Parity(a, rng.choice(("odd", "even"))),
        ]
        line = tuple(rng.sample(cells, rng.randint(2, 5)))
        out += [
            rules.SumEquals(line[:1], line[1:]),
            rules.SumEquals(line[:2], line[2:], digits=True),
            rules.LittleKiller(line, rng.randint(len(line), 9 * len(line))),
            rules.Consecutive(line),
            rules.Entropic(line, N),
        ]
        row = rng.randrange(N)
        out.append(
            rules.Sandwich(tuple(range(row * N, row * N + N)), rng.choice((0, 5, 12, 17, 35)))
        )
    return out


def test_every_kind_has_a_decomposition():
    assert set(DECOMPOSITIONS) == set(KINDS) | {"alldifferent", "sum"}


@pytest.mark.parametrize("seed", range(3))
def test_decompositions_keep_what_the_rules_keep(seed):
    rng = random.Random(seed)
    grids = _grids(40, seed)
    seen = {kind: [0, 0] for kind in KINDS}  # grids kept, grids broken
    for rule in _rules(rng):
        primitives = decompose(rule, N)
        assert all(isinstance(p, TYPES) for p in primitives)
        for grid in grids:
            # the rule read on the grid, and again with the rule's cells set to values
            # that keep it where one is easy to make: both outcomes are met
            held = rule.holds(grid)
            assert held == all(p.holds(grid) for p in primitives), (rule, grid)
            seen[rule.kind][not held] += 1
    for kind, (kept, broken) in seen.items():
        assert broken, f"{kind}: never broken on the sample"
        if kind not in ("sandwich", "pairsum"):  # a random total is rarely met
            assert kept, f"{kind}: never kept on the sample"


def test_a_sandwich_is_kept_and_broken():
    grid = tuple(int(ch) for ch in SOLVED)
    row = tuple(range(9))  # 5 3 4 6 7 8 9 1 2: 9 at 6, 1 at 7, nothing between
    for total, held in ((0, True), (5, False)):
        rule = rules.Sandwich(row, total)
        assert rule.holds(grid) is held
        assert all(p.holds(grid) for p in decompose(rule, N)) is held
    row = tuple(range(18, 27))  # 1 9 8 3 4 2 5 6 7: the crusts adjacent again
    assert all(p.holds(grid) for p in decompose(rules.Sandwich(row, 0), N))


def test_units_and_cages_are_distinct_values():
    model = build_model(parse_puzzle("." * 81))
    primitives = decompose(model.constraints[0], 9)
    assert primitives == (Distinct(model.constraints[0].cells),)


def test_accepted_kinds_follow_the_primitives():
    assert accepted_kinds(TYPES) == frozenset(DECOMPOSITIONS)
    only_distinct = accepted_kinds({Distinct})
    assert {"alldifferent", "sum", "notequal"} <= only_distinct
    assert "less" not in only_distinct and "sandwich" not in only_distinct
    assert "parity" in accepted_kinds({Table}) and "less" in accepted_kinds({Linear})


def test_the_engines_table_kinds_are_the_kinds_its_tables_decompose():
    """The native engine names the kinds it takes as pair tables (so that the encodings
    stay out of its start-up): every kind decomposed into tables alone that it has no
    propagator for."""
    tables = {kind for kind, (_, uses) in DECOMPOSITIONS.items() if uses == {Table}}
    assert tables - PROPAGATED_KINDS - {"alldifferent", "sum"} == TABLE_KINDS
    assert RULE_KINDS == PROPAGATED_KINDS | TABLE_KINDS


def test_an_unknown_kind_is_named():
    class Odd:
        kind = "entropy"

    with pytest.raises(ValueError, match="entropy"):
        decompose(Odd(), 9)
