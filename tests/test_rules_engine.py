"""The native engine propagates the variant rules: every kind on hand-made 4x4 puzzles
against brute force on every level and order, the Miracle Sudoku unique, the root's
pruning sound on random rules (hypothesis), and the compiled core counting as the
reference does."""

from __future__ import annotations

import pytest
from helpers import design
from hypothesis import given, settings
from hypothesis import strategies as st
from test_variant_kinds import CASES, G4, all_4x4, brute, case, miracle

import sudokulab
from sudokulab.backends.native import rules_of, shape_of
from sudokulab.models import Puzzle, build_model
from sudokulab.models.rules import (
    Consecutive,
    Difference,
    Less,
    LessEqual,
    LittleKiller,
    MinDifference,
    NotDifference,
    NotEqual,
    NotRatio,
    PairSum,
    Parity,
    Ratio,
    Sandwich,
    SumEquals,
)
from sudokulab.native import compiled, reference
from sudokulab.native.reference import ORDERS, PROPAGATIONS, VALUES

pytestmark = pytest.mark.core

KNOBS = [(p, o) for p in PROPAGATIONS for o in ORDERS]
#: The knobs both implementations run with rules (the core's dom-wdeg refuses them).
CORE_KNOBS = [(p, o) for p in PROPAGATIONS for o in ORDERS if o != "dom-wdeg"]


def counters(out) -> tuple:
    return (out.solutions, out.count, out.complete, out.budget_spent, out.nodes, out.guesses,
            out.backtracks)  # fmt: skip


def both(puzzle: Puzzle, propagation: str, order: str, **knobs) -> tuple:
    """The reference's and the core's outcomes (as counters) on one puzzle."""
    model = build_model(puzzle)
    units, cages = shape_of(model)
    limit = knobs.pop("limit", None)
    outs = []
    for cls in (reference.Engine, compiled.Engine):
        e = cls(puzzle.size, units, propagation, order, cages, rules=rules_of(model), **knobs)
        outs.append(counters(e.search(puzzle.givens, limit=limit)))
    return tuple(outs)


def engine(puzzle: Puzzle, propagation: str, order: str, cls=reference.Engine):
    model = build_model(puzzle)
    units, cages = shape_of(model)
    return cls(puzzle.size, units, propagation, order, cages, rules=rules_of(model))


def search(puzzle: Puzzle, propagation: str, order: str, cls=reference.Engine, limit=None):
    return engine(puzzle, propagation, order, cls).search(puzzle.givens, limit=limit)


# Every kind, propagation and order meet each other in one test (all pairs); every
# (propagation, order) at least once.
@pytest.mark.parametrize(
    ("kind", "propagation", "order"),
    design({"kind": sorted(CASES), "propagation": PROPAGATIONS, "order": ORDERS}),
)
def test_each_kind_finds_exactly_the_brute_force_solutions(kind, propagation, order):
    puzzle = case(kind)
    out = search(puzzle, propagation, order)
    assert out.complete
    assert set(out.solutions) == brute(puzzle) and out.count == len(out.solutions)


@pytest.mark.cpsat
@pytest.mark.parametrize("kind", sorted(CASES))
def test_each_kind_counts_as_cpsat_does(kind):
    puzzle = case(kind)
    cpsat = sudokulab.solve(puzzle, backend="cpsat", limit=None)
    for backend in ("native", "native-py"):
        result = sudokulab.solve(puzzle, backend=backend, limit=None)
        assert result.exact and result.count == cpsat.count
        assert set(result.solutions) == set(cpsat.solutions)


def test_the_rules_prune_at_the_root_before_any_guess():
    # a 4-cell thermometer along row 1 of a 4x4 grid is 1 2 3 4: no guess at all
    thermo = tuple(Less(a, a + 1, "thermometer") for a in range(3))
    puzzle = Puzzle(G4, (0,) * 16, (), None, thermo)
    root = engine(puzzle, "hidden", "mrv").root(puzzle.givens)
    assert root is not None and root[0][:4] == [1, 2, 4, 8] and all(root[1][:4])
    # under forward each rule prunes once, in order: the bulb loses 4 and the tip 1 (and
    # more, from the rules before it), and no cell is placed
    root = engine(puzzle, "forward", "mrv").root(puzzle.givens)
    assert root is not None and root[0][0] == 0b0111 and not root[0][3] & 1
    assert not any(root[1])


def test_the_miracle_sudoku_is_unique_on_native_and_needs_its_rules():
    puzzle = miracle()
    out = search(puzzle, "forward", "mrv", limit=2)
    assert out.complete and out.count == 1
    assert out.solutions[0][:9] == (4, 8, 3, 7, 2, 6, 1, 5, 9)
    result = sudokulab.solve(puzzle, backend="native", limit=2)
    assert result.exact and result.count == 1 and result.solutions == out.solutions
    loose = sudokulab.solve(miracle(("anti-knight", "anti-king")), backend="native", limit=2)
    assert loose.status == "multiple"


class Trace:
    """Records the rule events and contradictions of a search."""

    def __init__(self) -> None:
        self.rules: list[tuple[int, list]] = []
        self.kinds: list[tuple] = []

    def __getattr__(self, name):
        return lambda *args: None

    def rule(self, index, removed):
        self.rules.append((index, removed))

    def contradiction(self, kind, cell, unit, bits, cage=-1):
        self.kinds.append((kind, cage))


def test_the_tracer_hears_each_rule_pruning_and_its_contradictions():
    puzzle = case("less")
    tracer = Trace()
    model = build_model(puzzle)
    units, cages = shape_of(model)
    e = reference.Engine(4, units, "hidden", "mrv", cages, tracer, rules=rules_of(model))
    e.search(puzzle.givens, limit=None)
    assert tracer.rules and {index for index, _ in tracer.rules} <= {0, 1}
    first, removed = tracer.rules[0]
    assert all(gone for _cell, gone in removed)
    refused = Puzzle(G4, (4,) + (0,) * 15, (), None, puzzle.rules)  # the bulb cannot be 4
    tracer = Trace()
    e = reference.Engine(4, units, "hidden", "mrv", cages, tracer, rules=rules_of(model))
    assert e.search(refused.givens).count == 0
    assert ("rule", 0) in tracer.kinds


# Every kind, core setting and value order meet each other in one test (all pairs).
@pytest.mark.parametrize(
    ("kind", "propagation", "order", "values"),
    design(
        {"kind": sorted(CASES), "propagation": PROPAGATIONS, "order": ORDERS, "values": VALUES},
        lambda row: (row["propagation"], row["order"]) in CORE_KNOBS,
    ),
)
def test_the_core_counts_as_the_reference_does_on_each_kind(kind, propagation, order, values):
    ref, core = both(case(kind), propagation, order, values=values)
    assert core == ref


@pytest.mark.parametrize("propagation", PROPAGATIONS)
def test_the_core_matches_the_reference_with_lcv_and_a_budget(propagation):
    puzzle = case("littlekiller")
    ref, core = both(puzzle, propagation, "mrv", values="lcv")
    assert core == ref
    model = build_model(puzzle)
    units, cages = shape_of(model)
    stopped = [
        cls(4, units, propagation, "first", cages, rules=rules_of(model)).search(
            puzzle.givens, limit=None, max_guesses=3
        )
        for cls in (reference.Engine, compiled.Engine)
    ]
    assert counters(stopped[0]) == counters(stopped[1])


@pytest.mark.parametrize("propagation", ["forward", "hidden", "locked"])
def test_the_core_counts_the_miracle_sudoku_as_the_reference_does(propagation):
    ref, core = both(miracle(), propagation, "mrv-degree", limit=2)
    assert core == ref and ref[1] == 1


def test_the_core_refuses_dom_wdeg_with_rules_and_the_reference_runs_it():
    puzzle = case("less")
    with pytest.raises(ValueError, match="dom-wdeg"):
        engine(puzzle, "hidden", "dom-wdeg", compiled.Engine)
    assert search(puzzle, "hidden", "dom-wdeg").count == len(brute(puzzle))


def test_the_backends_refuse_the_knobs_they_cannot_run_with_rules_clearly():
    puzzle = case("less")
    wdeg = sudokulab.solve(puzzle, backend="native", order="dom-wdeg")
    assert wdeg.status == "error" and "dom-wdeg without variant rules" in wdeg.message
    jump = sudokulab.solve(puzzle, backend="native-py", propagation="forward", backjump=True)
    assert jump.status == "error" and "does not backjump over variant rules" in jump.message
    ref = sudokulab.solve(puzzle, backend="native-py", order="dom-wdeg", limit=None)
    assert ref.exact and ref.count == len(brute(puzzle))


def test_a_block_of_puzzles_with_rules_counts_as_one_by_one():
    import numpy as np

    puzzle = case("sumequals")
    e = engine(puzzle, "hidden", "mrv", compiled.Engine)
    grids = np.array([puzzle.givens, puzzle.givens], dtype=np.uint8)
    solutions, rows = e.search_grids(grids, limit=None)
    one = e.search(puzzle.givens, limit=None)
    assert rows[:, 0].tolist() == [one.count] * 2 and rows[:, 2].tolist() == [one.nodes] * 2
    assert tuple(solutions[0]) == one.solutions[0]


def test_backjumping_refuses_rules_by_name():
    with pytest.raises(ValueError, match="variant rules"):
        reference.Engine(4, G4_UNITS, "forward", "mrv", backjump=True, rules=(Less(0, 1),))


G4_UNITS = tuple(u.cells for u in G4.units)


@st.composite
def rules_4x4(draw):
    """A few random rules of every kind on the 4x4 grid."""
    cell = st.integers(0, 15)
    pair = st.tuples(cell, cell).filter(lambda p: p[0] != p[1])
    small = st.integers(1, 3)
    makers = [
        lambda: Less(*draw(pair)),
        lambda: LessEqual(*draw(pair)),
        lambda: Difference(*draw(pair), draw(small)),
        lambda: NotDifference(*draw(pair), draw(small)),
        lambda: MinDifference(*draw(pair), draw(small)),
        lambda: Ratio(*draw(pair), draw(st.integers(2, 3))),
        lambda: NotRatio(*draw(pair), 2),
        lambda: PairSum(*draw(pair), draw(st.integers(3, 7))),
        lambda: NotEqual(*draw(pair)),
        lambda: SumEquals(
            tuple(draw(st.lists(cell, min_size=1, max_size=2, unique=True))),
            tuple(draw(st.lists(cell, min_size=1, max_size=3, unique=True))),
            digits=draw(st.booleans()),
        ),
        lambda: Consecutive(tuple(draw(st.lists(cell, min_size=2, max_size=4, unique=True)))),
        lambda: Parity(draw(cell), draw(st.sampled_from(["odd", "even"]))),
        lambda: Sandwich(
            draw(st.sampled_from([tuple(range(r * 4, r * 4 + 4)) for r in range(4)])),
            draw(st.integers(0, 5)),
        ),
        lambda: LittleKiller(
            tuple(draw(st.lists(cell, min_size=2, max_size=3, unique=True))),
            draw(st.integers(3, 10)),
        ),
    ]
    picks = draw(st.lists(st.integers(0, len(makers) - 1), min_size=1, max_size=4))
    return tuple(makers[i]() for i in picks)


@settings(max_examples=60, deadline=None)
@given(rules_4x4(), st.dictionaries(st.integers(0, 15), st.integers(1, 4), max_size=3))
def test_property_the_root_keeps_every_value_some_completion_keeps(rules, givens):
    puzzle = Puzzle(G4, tuple(givens.get(i, 0) for i in range(16)), (), None, rules)
    solutions = {g for g in all_4x4() if puzzle.givens == tuple(
        v if puzzle.givens[i] else 0 for i, v in enumerate(g)
    ) and all(r.holds(g) for r in rules)}  # fmt: skip
    for propagation in PROPAGATIONS:
        root = engine(puzzle, propagation, "mrv").root(puzzle.givens)
        if root is None:
            assert not solutions, propagation
            continue
        masks = root[0]
        for grid in solutions:
            assert all(masks[c] >> (v - 1) & 1 for c, v in enumerate(grid)), propagation
        out = search(puzzle, propagation, "mrv")
        assert set(out.solutions) == solutions, propagation


@settings(max_examples=40, deadline=None)
@given(
    rules_4x4(),
    st.dictionaries(st.integers(0, 15), st.integers(1, 4), max_size=3),
    st.sampled_from(CORE_KNOBS),
)
def test_property_the_core_counts_as_the_reference_on_random_rules(rules, givens, knobs):
    puzzle = Puzzle(G4, tuple(givens.get(i, 0) for i in range(16)), (), None, rules)
    ref, core = both(puzzle, *knobs)
    assert core == ref


@settings(max_examples=12, deadline=None)
@given(st.data(), st.sampled_from(CORE_KNOBS))
def test_property_the_core_counts_as_the_reference_on_6x6_rules(data, knobs):
    from sudokulab.models import geometry

    g6 = geometry(6)
    cell = st.integers(0, 35)
    pair = st.tuples(cell, cell).filter(lambda p: p[0] != p[1])
    rules = data.draw(st.lists(st.one_of(
        pair.map(lambda p: Less(*p)),
        pair.map(lambda p: NotDifference(*p, 1)),
        pair.map(lambda p: Ratio(*p, 2)),
        st.lists(cell, min_size=2, max_size=4, unique=True).map(
            lambda c: SumEquals((c[0],), tuple(c[1:]))
        ),
        st.lists(cell, min_size=2, max_size=3, unique=True).map(lambda c: Consecutive(tuple(c))),
        cell.map(lambda c: Parity(c, "even")),
    ), min_size=1, max_size=5))  # fmt: skip
    # givens from one solved grid keep every search small, under every level
    solved = reference.Engine(6, tuple(u.cells for u in g6.units)).search([0] * 36).solutions[0]
    kept = data.draw(st.sets(st.integers(0, 35), min_size=14, max_size=24))
    givens = tuple(v if i in kept else 0 for i, v in enumerate(solved))
    puzzle = Puzzle(g6, givens, (), None, tuple(rules))
    ref, core = both(puzzle, *knobs, limit=3)
    assert core == ref
