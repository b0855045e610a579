"""The native engine propagates the variant rules: every kind on hand-made 4x4 puzzles
against brute force on every level and order, the Miracle Sudoku unique, the root's
pruning sound on random rules (hypothesis), sandwiches and sums of few candidates pruned
as their docstring says (against brute force), and the compiled core counting as the
reference does."""

from __future__ import annotations

from itertools import permutations, product

import pytest
from helpers import design
from hypothesis import given, settings
from hypothesis import strategies as st
from test_variant_kinds import CASES, G4, all_4x4, brute, case, miracle

import sudokulab
from sudokulab.backends.native import rules_of, shape_of
from sudokulab.models import Puzzle, build_model, geometry, rules
from sudokulab.native import compiled, reference
from sudokulab.native.options import ORDERS, PROPAGATIONS, VALUES
from sudokulab.native.reference import SUM_TUPLES, prune_rule

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
    thermo = tuple(rules.Less(a, a + 1, "thermometer") for a in range(3))
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
    assert wdeg.status == "error" and "dom-wdeg runs without variant rules only" in wdeg.message
    jump = sudokulab.solve(puzzle, backend="native-py", propagation="forward", backjump=True)
    assert jump.status == "error" and "no conflict sets for variant rules" in jump.message
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
        reference.Engine(4, G4_UNITS, "forward", "mrv", backjump=True, rules=(rules.Less(0, 1),))


G4_UNITS = tuple(u.cells for u in G4.units)


@st.composite
def rules_4x4(draw):
    """A few random rules of every kind on the 4x4 grid."""
    cell = st.integers(0, 15)
    pair = st.tuples(cell, cell).filter(lambda p: p[0] != p[1])
    small = st.integers(1, 3)
    makers = [
        lambda: rules.Less(*draw(pair)),
        lambda: rules.LessEqual(*draw(pair)),
        lambda: rules.Difference(*draw(pair), draw(small)),
        lambda: rules.NotDifference(*draw(pair), draw(small)),
        lambda: rules.MinDifference(*draw(pair), draw(small)),
        lambda: rules.Ratio(*draw(pair), draw(st.integers(2, 3))),
        lambda: rules.NotRatio(*draw(pair), 2),
        lambda: rules.PairSum(*draw(pair), draw(st.integers(3, 7))),
        lambda: rules.NotEqual(*draw(pair)),
        lambda: rules.SumEquals(
            tuple(draw(st.lists(cell, min_size=1, max_size=2, unique=True))),
            tuple(draw(st.lists(cell, min_size=1, max_size=3, unique=True))),
            digits=draw(st.booleans()),
        ),
        lambda: rules.Consecutive(tuple(draw(st.lists(cell, min_size=2, max_size=4, unique=True)))),
        lambda: rules.Parity(draw(cell), draw(st.sampled_from(["odd", "even"]))),
        lambda: rules.Sandwich(
            draw(st.sampled_from([tuple(range(r * 4, r * 4 + 4)) for r in range(4)])),
            draw(st.integers(0, 5)),
        ),
        lambda: rules.LittleKiller(
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


def solved_6x6() -> tuple[int, ...]:
    """The reference's first 6x6 grid (the properties' rules are drawn to fit it)."""
    units = tuple(u.cells for u in geometry(6).units)
    return reference.Engine(6, units).search([0] * 36).solutions[0]


def puzzle_6x6(drawn: list, kept: set[int]) -> Puzzle:
    """A 6x6 puzzle stating ``drawn``, its givens the values of :func:`solved_6x6` at the
    ``kept`` cells: givens from one solved grid keep every search small, under every
    level."""
    givens = tuple(v if i in kept else 0 for i, v in enumerate(solved_6x6()))
    return Puzzle(geometry(6), givens, (), None, tuple(drawn))


@settings(max_examples=12, deadline=None)
@given(st.data(), st.sampled_from(CORE_KNOBS))
def test_property_the_core_counts_as_the_reference_on_6x6_rules(data, knobs):
    cell = st.integers(0, 35)
    pair = st.tuples(cell, cell).filter(lambda p: p[0] != p[1])
    drawn = data.draw(st.lists(st.one_of(
        pair.map(lambda p: rules.Less(*p)),
        pair.map(lambda p: rules.NotDifference(*p, 1)),
        pair.map(lambda p: rules.Ratio(*p, 2)),
        st.lists(cell, min_size=2, max_size=4, unique=True).map(
            lambda c: rules.SumEquals((c[0],), tuple(c[1:]))
        ),
        st.lists(cell, min_size=2, max_size=3, unique=True).map(
            lambda c: rules.Consecutive(tuple(c))
        ),
        cell.map(lambda c: rules.Parity(c, "even")),
    ), min_size=1, max_size=5))  # fmt: skip
    puzzle = puzzle_6x6(drawn, data.draw(st.sets(st.integers(0, 35), min_size=14, max_size=24)))
    ref, core = both(puzzle, *knobs, limit=3)
    assert core == ref


G6, G9 = geometry(6), geometry(9)


def compiled_rule(geom, rule):
    """One rule as the engine compiles it on a grid shape (knowing its peers)."""
    units = tuple(u.cells for u in geom.units)
    (out,) = reference.tables(geom.size, units, (), (rule,)).rules
    return out


def kept_values(cells, fillings):
    """Each cell's values in some filling (a tuple of values, one per cell), as masks."""
    return [sum({1 << (f[i] - 1) for f in fillings}) for i in range(len(cells))]


@pytest.mark.parametrize("propagation", [p for p in PROPAGATIONS if p != "none"])
def test_a_sandwich_sum_places_its_crusts_before_any_guess(propagation):
    row = tuple(range(9))
    # 2 + 3 + ... + 8 = 35: every value but the crusts lies between them, so the crusts
    # are the ends of the row and nothing between is a crust
    puzzle = Puzzle(G9, (0,) * 81, (), None, (rules.Sandwich(row, 35, "row 1 sandwich"),))
    masks = engine(puzzle, propagation, "mrv").root(puzzle.givens)[0]
    crusts = 1 | 1 << 8
    assert masks[0] | crusts == crusts and masks[8] | crusts == crusts
    assert not any(masks[c] & crusts for c in range(1, 8))
    # a sum of 2 is a lone 2 between the crusts: the 2 is at neither end of the row
    puzzle = Puzzle(G9, (0,) * 81, (), None, (rules.Sandwich(row, 2, "row 1 sandwich"),))
    masks = engine(puzzle, propagation, "mrv").root(puzzle.givens)[0]
    assert not masks[0] & 2 and not masks[8] & 2 and masks[4] & 2


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 63), min_size=6, max_size=6), st.integers(0, 15))
def test_property_a_sandwich_keeps_every_value_some_filling_of_its_row_keeps(masks, total):
    rule = rules.Sandwich(tuple(range(6)), total, "row 1 sandwich")
    compiled = compiled_rule(G6, rule)
    assert compiled.exact
    fillings = [
        f
        for f in permutations(range(1, 7))
        if all(m >> (v - 1) & 1 for m, v in zip(masks, f, strict=True)) and rule.holds(f)
    ]
    kept = prune_rule(compiled, masks + [63] * 30, 6)
    if fillings:
        assert kept is not None
        assert all(k | m == k for k, m in zip(kept, kept_values(masks, fillings), strict=True))
    # with every candidate, the pruning keeps exactly the fillings' values
    everything = [f for f in permutations(range(1, 7)) if rule.holds(f)]
    kept = prune_rule(compiled, [63] * 36, 6)
    assert kept == (kept_values(range(6), everything) if everything else None)


def test_a_sandwich_on_a_line_that_may_repeat_a_value_is_checked_only():
    line = tuple(range(0, 12, 2))  # r1c1 r1c3 r1c5 r2c1 r2c3 r2c5: not all peers
    compiled = compiled_rule(G6, rules.Sandwich(line, 14, "s"))
    assert not compiled.exact
    assert prune_rule(compiled, [63] * 36, 6) == [63] * 6


@st.composite
def few_candidate_sums(draw):
    """A sum rule on the 6x6 grid (an arrow, a two-digit arrow or a little killer) with
    candidates for its cells."""
    cells = draw(st.lists(st.integers(0, 35), min_size=2, max_size=5, unique=True))
    shape = draw(st.sampled_from(["arrow", "digits", "killer"]))
    if shape == "killer":
        rule = rules.LittleKiller(tuple(cells), draw(st.integers(2, 30)), "little killer")
    else:
        split = 2 if shape == "digits" and len(cells) > 2 else 1
        rule = rules.SumEquals(tuple(cells[:split]), tuple(cells[split:]), "arrow", split == 2)
    masks = {c: draw(st.integers(1, 63)) for c in cells}
    return rule, masks


@settings(max_examples=300, deadline=None)
@given(few_candidate_sums())
def test_property_a_sum_of_few_candidates_keeps_exactly_its_assignments_values(case):
    rule, masks = case
    compiled = compiled_rule(G6, rule)
    assert compiled.exact and compiled.cells == rule.cells
    cells = compiled.cells
    choices = [[v for v in range(1, 7) if masks[c] >> (v - 1) & 1] for c in cells]
    fillings = []
    for values in product(*choices):
        grid = [0] * 36
        for c, v in zip(cells, values, strict=True):
            grid[c] = v
        peers_differ = all(
            values[i] != values[j]
            for i, j in product(range(len(cells)), repeat=2)
            if i < j and cells[j] in G6.peers[cells[i]]
        )
        if peers_differ and rule.holds(grid):
            fillings.append(values)
    grid_masks = [masks.get(c, 63) for c in range(36)]
    kept = prune_rule(compiled, grid_masks, 6)
    tuples = len(list(product(*choices)))
    if tuples <= SUM_TUPLES:  # exact support
        assert kept == (kept_values(cells, fillings) if fillings else None)
    elif fillings:  # bounds: sound
        assert kept is not None
        assert all(k | m == k for k, m in zip(kept, kept_values(cells, fillings), strict=True))


def test_a_sum_of_few_candidates_counts_its_peers_distinct():
    # an arrow of two shaft cells in one box, each 1, 2 or 3: they differ, so the circle
    # is 3, 4 or 5; were they free to repeat, 2 and 6 too (bounds keep all five)
    arrow = rules.SumEquals((27,), (0, 1), "arrow")
    masks = [0b111 if c in (0, 1) else 0b111111111 for c in range(81)]
    kept = prune_rule(compiled_rule(G9, arrow), masks, 9)
    assert kept == [0b11100, 0b111, 0b111]


@settings(max_examples=12, deadline=None)
@given(st.data(), st.sampled_from(CORE_KNOBS))
def test_property_the_core_counts_as_the_reference_on_6x6_sandwiches_and_sums(data, knobs):
    lines = [tuple(range(r * 6, r * 6 + 6)) for r in range(6)]
    lines += [tuple(range(c, 36, 6)) for c in range(6)]
    cell = st.integers(0, 35)
    drawn = data.draw(st.lists(st.one_of(
        st.tuples(st.sampled_from(lines), st.integers(0, 14)).map(lambda p: rules.Sandwich(*p)),
        st.lists(cell, min_size=2, max_size=4, unique=True).map(
            lambda c: rules.SumEquals((c[0],), tuple(c[1:]))
        ),
        st.lists(cell, min_size=2, max_size=6, unique=True).map(
            lambda c: rules.LittleKiller(tuple(c), 3 * len(c))
        ),
    ), min_size=1, max_size=5))  # fmt: skip
    puzzle = puzzle_6x6(drawn, data.draw(st.sets(st.integers(0, 35), min_size=8, max_size=20)))
    ref, core = both(puzzle, *knobs, limit=3)
    assert core == ref


@pytest.mark.parametrize("propagation", ["forward", "ac3", "hidden", "locked", "gac"])
@pytest.mark.parametrize("name", ["ctc-sandwich", "ctc-little-killer", "timwi-sandwich-3-givens"])
def test_the_core_counts_as_the_reference_on_published_sandwiches_and_little_killers(
    name, propagation
):
    from test_public_variants import PUZZLES, UNSOLVED

    from sudokulab.models.documents import puzzle_of

    puzzle, _ = puzzle_of({**PUZZLES, **UNSOLVED}[name])
    ref, core = both(puzzle, propagation, "mrv-degree", limit=2)
    assert core == ref and ref[1] == 1


def test_the_core_refuses_rule_tables_that_do_not_fit_its_buffers():
    from sudokulab.native.compiled import _core

    units = tuple(u.cells for u in G9.units)
    sandwich = compiled_rule(G9, rules.Sandwich(tuple(range(9)), 35, "s"))
    fields = (sandwich.kind, sandwich.cells, sandwich.coefs, 35, sandwich.supports, True)
    _core.Tables(9, units, (), rules=(fields,), unary=(511,) * 81)
    short = (*fields[:2], (*sandwich.coefs[:-1], sandwich.coefs[-1] - 1), *fields[3:])
    with pytest.raises(ValueError, match="its sets end at"):
        _core.Tables(9, units, (), rules=(short,), unary=(511,) * 81)
    # an exact sum's walk has room for 32 cells
    cells = tuple(range(33))
    wide = (reference.SUM, cells, (1,) * 33, 165, (0,) * 33, True)
    with pytest.raises(ValueError, match="do not fit its kind"):
        _core.Tables(9, units, (), rules=(wide,), unary=(511,) * 81)
    _core.Tables(9, units, (), rules=((*wide[:4], (), False),), unary=(511,) * 81)  # bounds


# -- sums bounded with their cells' distinctness (issue 39) ------------------------------

#: An empty 9x9 grid with one long arrow: a two-digit circle r1c1 r1c2 and a 12-cell
#: shaft, r2c1..r9c1 then r9c2..r9c5 (plain bounds let the engine thrash on it).
LONG_ARROW = {
    "size": 9,
    "givens": "." * 81,
    "arrows": [{
        "circle": ["r1c1", "r1c2"],
        "shaft": [f"r{r}c1" for r in range(2, 10)] + [f"r9c{c}" for c in range(2, 6)],
    }],
}  # fmt: skip


def _long_arrow():
    """The long arrow's rule."""
    from sudokulab.models.documents import puzzle_of

    (rule,) = puzzle_of(LONG_ARROW)[0].rules
    return rule


def on_bounds(rule, groups=None):
    """A compiled sum pruned on bounds whatever its candidates (with other groups)."""
    from dataclasses import replace

    return replace(rule, exact=False, groups=rule.groups if groups is None else groups)


def alone(rule):
    """The plain bounds: a compiled sum on bounds, each cell in a group of its own."""
    return on_bounds(rule, tuple((i,) for i in range(len(rule.cells))))


def sum_fillings(geom, rule, cells, masks):
    """Every filling of the sum's cells from their candidates, peers distinct, that keeps
    the rule (a tuple of values per filling, in the order of ``cells``)."""
    out, values = [], []

    def walk(i):
        if i == len(cells):
            grid = [0] * geom.cell_count
            for c, v in zip(cells, values, strict=True):
                grid[c] = v
            if rule.holds(grid):
                out.append(tuple(values))
            return
        for v in range(1, geom.size + 1):
            if masks[cells[i]] >> (v - 1) & 1 and not any(
                values[j] == v and cells[j] in geom.peers[cells[i]] for j in range(i)
            ):
                values.append(v)
                walk(i + 1)
                values.pop()

    walk(0)
    return out


def test_sum_groups_gather_peers_of_one_coefficient_largest_first():
    rule = compiled_rule(G9, _long_arrow())
    cells = rule.cells
    groups = [tuple(cells[i] for i in group) for group in rule.groups]
    column = tuple(9 * r for r in range(1, 9))  # r2c1..r9c1
    assert groups == [column, (73, 74, 75, 76), (0,), (1,)]  # then r9c2..r9c5, the circle
    assert sorted(i for group in rule.groups for i in group) == list(range(len(cells)))


def test_the_long_arrow_circle_is_bounded_by_its_distinct_shaft():
    # the column's 8 shaft cells differ: 36..44, the row's 4: 10..30; so the circle, 10a
    # + b, is 46..74 and r1c1 is 4 to 7; plain bounds (12..108) keep every value
    rule = compiled_rule(G9, _long_arrow())
    full = [0b111111111] * 81
    kept = prune_rule(on_bounds(rule), full, 9)
    assert kept[rule.cells.index(0)] == 0b1111000
    assert prune_rule(alone(rule), full, 9)[rule.cells.index(0)] == 0b111111111
    # with r1c1 = 4 the column's other values are 1..3 and 5..9: at least 41, with the
    # row's 10 over 49: no room
    four = full[:]
    for c in range(9, 81, 9):
        four[c] = 0b111110111
    four[0] = 0b1000
    assert prune_rule(on_bounds(rule), four, 9) is None
    assert prune_rule(alone(rule), four, 9) is not None


def test_three_cells_of_a_row_adding_up_to_6_are_1_2_3():
    # plain bounds keep 4 (the others could both be 1); three distinct values cannot
    killer = rules.LittleKiller((0, 1, 2), 6, "little killer")
    rule = compiled_rule(G4, killer)
    full = [0b1111] * 16
    assert prune_rule(alone(rule), full, 4) == [0b1111] * 3
    fillings = sum_fillings(G4, killer, rule.cells, full)
    assert prune_rule(on_bounds(rule), full, 4) == kept_values(rule.cells, fillings)


@st.composite
def bounded_sums(draw):
    """A sum on the 4x4 or 6x6 grid (an arrow, a two-digit arrow or a little killer, its
    cells often in a row or column) with candidates for its cells."""
    geom = draw(st.sampled_from([G4, G6]))
    n = geom.size
    line = draw(st.sampled_from([tuple(range(r * n, r * n + n)) for r in range(n)]
                                + [tuple(range(c, n * n, n)) for c in range(n)]))  # fmt: skip
    pool = st.one_of(st.sampled_from(line), st.integers(0, n * n - 1))
    most = 6 if n == 4 else 5
    cells = draw(st.lists(pool, min_size=2, max_size=most, unique=True))
    shape = draw(st.sampled_from(["arrow", "digits", "killer"]))
    if shape == "killer":
        rule = rules.LittleKiller(
            tuple(cells), draw(st.integers(2, n * len(cells))), "little killer"
        )
    else:
        split = 2 if shape == "digits" and len(cells) > 2 else 1
        rule = rules.SumEquals(tuple(cells[:split]), tuple(cells[split:]), "arrow", split == 2)
    masks = [draw(st.integers(1, (1 << n) - 1)) if c in cells else (1 << n) - 1
             for c in range(n * n)]  # fmt: skip
    return geom, rule, masks


@settings(max_examples=300, deadline=None)
@given(bounded_sums())
def test_property_group_bounds_keep_every_filling_and_prune_at_least_plain_bounds(case):
    geom, rule, masks = case
    compiled = compiled_rule(geom, rule)
    cells = compiled.cells
    fillings = sum_fillings(geom, rule, cells, masks)
    kept = prune_rule(on_bounds(compiled), masks, geom.size)
    plain = prune_rule(alone(compiled), masks, geom.size)
    if fillings:  # sound: every value some filling uses stays
        assert kept is not None
        assert all(k | m == k for k, m in zip(kept, kept_values(cells, fillings), strict=True))
    if plain is None:
        assert kept is None
    elif kept is not None:  # never weaker than the plain bounds
        assert all(k | p == p for k, p in zip(kept, plain, strict=True))


@settings(max_examples=40, deadline=None)
@given(st.data(), st.sampled_from(CORE_KNOBS))
def test_property_the_core_counts_as_the_reference_on_6x6_long_sums(data, knobs):
    # long sums along a row and a column (little killers adding up to a solved grid's
    # values, an arrow with a two-digit circle): too many candidates for exact support,
    # pruned on their groups' bounds
    solved = solved_6x6()
    row, column = data.draw(st.integers(0, 5)), data.draw(st.integers(0, 5))
    bent = [row * 6 + c for c in range(6)] + [r * 6 + column for r in range(6) if r != row]
    line = st.lists(st.sampled_from(bent), min_size=4, max_size=9, unique=True)
    drawn = data.draw(st.lists(st.one_of(
        line.map(lambda c: rules.LittleKiller(tuple(c), sum(solved[x] for x in c))),
        line.map(lambda c: rules.SumEquals(tuple(c[:2]), tuple(c[2:]), digits=True)),
    ), min_size=1, max_size=2))  # fmt: skip
    puzzle = puzzle_6x6(drawn, data.draw(st.sets(st.integers(0, 35), max_size=10)))
    givens = puzzle.givens
    model = build_model(puzzle)
    units, cages = shape_of(model)
    # a budget (the same stopping point in both) keeps the weak levels' thrashing short
    ref, core = (
        counters(
            cls(6, units, *knobs, cages, rules=rules_of(model)).search(
                givens, limit=3, max_guesses=300
            )
        )
        for cls in (reference.Engine, compiled.Engine)
    )
    assert core == ref


@pytest.mark.parametrize("backend", ["native", "native-py"])
def test_the_long_arrow_is_solved_within_a_small_guess_budget(backend):
    from sudokulab.models.documents import puzzle_of

    puzzle, _ = puzzle_of(LONG_ARROW)
    result = sudokulab.solve(puzzle, backend=backend, limit=1, max_guesses=200)
    assert result.status == "solved" and sudokulab.is_solution(puzzle, result.solutions[0])


def test_the_core_refuses_sum_groups_that_do_not_partition_the_sum():
    from sudokulab.native.compiled import _core

    units = tuple(u.cells for u in G9.units)
    arrow = (reference.SUM, (0, 9, 18), (1, -1, -1), 0, (), False)
    _core.Tables(9, units, (), rules=((*arrow, (1, 0, 2, 1, 2)),), unary=(511,) * 81)
    for groups, words in [
        ((1, 0, 2, 1, 1), "two groups"),  # place 1 twice
        ((2, 0, 1, 1, 2), "another coefficient"),  # 1 beside -1
        ((1, 0, 1, 1), "2 of its 3 cells"),
        ((1, 0, 3, 1, 2), "end inside a group"),
    ]:
        with pytest.raises(ValueError, match=words):
            _core.Tables(9, units, (), rules=((*arrow, groups),), unary=(511,) * 81)
