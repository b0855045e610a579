"""The compiled native core: the same engine as the Python reference, field for field."""

from __future__ import annotations

import os
import random
import struct
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import pytest
from helpers import core_combinations, design, random_solution, two_solution_grid
from hypothesis import given, settings
from hypothesis import strategies as st

from sudokulab import native, read_file
from sudokulab.models import geometry
from sudokulab.native import options, reference
from sudokulab.native.options import ORDERS, PROPAGATIONS, VALUES
from sudokulab.native.reference import KEEP, Outcome

_core = pytest.importorskip(
    "sudokulab.native._core",
    reason="the compiled native core is not built (pip install -e . needs a C compiler)",
)

compiled = pytest.importorskip("sudokulab.native.compiled")
pytestmark = pytest.mark.core

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO / "data" / "seeds.csv"
# dom-wdeg: the levels the core runs it under (the reference runs it under every level)
COMBINATIONS = core_combinations()
# Where the pure-Python reference needs minutes on the hard sets: both implementations
# get a budget of guesses per puzzle, and must stop at the same guess with the same
# outcome (a few milliseconds of reference search per puzzle).
# So does ac3, whose textbook queue of arcs is slow in Python, and dom-wdeg where its
# weights lead the search far.
SLOW = {
    (p, o)
    for p, o in COMBINATIONS
    if p in ("none", "ac3")
    or (o == "first" and p != "hidden")
    or (o == "dom-wdeg" and p in ("forward", "singles"))
}
#: The levels named as constraint programming names them: tests/test_levels.py checks them
#: on random puzzles at sizes that suit the reference's pace (a sac probe per candidate).
CP_LEVELS = ("ac3", "gac", "sac")
# Every knob, the value order too: what the random puzzles below draw from (with a budget).
KNOBS = [
    (p, o, v)
    for p, o in [*COMBINATIONS, ("none", "dom-wdeg")]
    if p not in CP_LEVELS
    for v in VALUES
]
BUDGET = 5_000
SETS = {
    "top95": "sudoku-top95.txt",
    "hardest": "sudoku-hardest.txt",
    "easy50": "sudoku-easy50.txt",
}


def units_of(size: int) -> tuple[tuple[int, ...], ...]:
    return tuple(u.cells for u in geometry(size).units)


@cache
def engines(
    size: int,
    units: tuple[tuple[int, ...], ...],
    propagation: str,
    order: str,
    values: str = "natural",
):
    """The compiled engine (whatever ENGINE the seam chose) and the reference's."""
    return (
        compiled.Engine(size, units, propagation, order, values=values),
        reference.Engine(size, units, propagation, order, values=values),
    )


def c_search(
    size, units, givens, propagation="hidden", order="mrv", limit=1, keep=KEEP, max_guesses=None,
    values="natural",
) -> Outcome:  # fmt: skip
    """The compiled engine's search of one grid."""
    engine = engines(size, units, propagation, order, values)[0]
    return engine.search(givens, limit, None, keep, max_guesses)


def compare(
    size, units, givens, propagation, order, limit=1, max_guesses=None, keep=KEEP,
    values="natural",
):  # fmt: skip
    """Both implementations on one grid with one guess budget; asserts identity (a search
    the budget stops included); the outcome."""
    fast, slow = engines(size, units, propagation, order, values)
    ref = slow.search(givens, limit, None, keep, max_guesses)
    out = fast.search(givens, limit, None, keep, max_guesses)
    assert out == ref, (propagation, order, max_guesses, givens)
    return out


def assert_stopped_only_past(
    out, size, units, givens, propagation, order, limit, budget, values="natural"
):
    """A search the budget stopped made exactly ``budget`` guesses, and the unbudgeted
    search (the core's, quick) needs more; one it did not stop is the unbudgeted one."""
    full = c_search(size, units, givens, propagation, order, limit, values=values)
    if out.budget_spent:
        assert out.guesses == budget < full.guesses and not out.complete
    else:
        assert out == full and full.guesses <= budget


# -- identity on the public sets -------------------------------------------------------

#: Every (propagation, order, value order) meets every public set and every other knob
#: in one test (all pairs, tests/helpers.py), each (propagation, order) once at least;
#: "seeds" are the shipped seeds under limits 1 and 2.
SET_DESIGN = design(
    {
        "propagation": PROPAGATIONS,
        "order": ORDERS,
        "values": VALUES,
        "name": [*SETS, "seeds"],
    },
    lambda row: (row["propagation"], row["order"]) in COMBINATIONS,
)


@pytest.mark.parametrize(("propagation", "order", "values", "name"), SET_DESIGN)
def test_identical_on_public_sets(data_dir, propagation, order, values, name):
    if name == "seeds":
        _identical_on_the_seeds_with_limit_one_and_two(propagation, order, values)
        return
    entries = read_file(data_dir / "norvig-pytudes" / SETS[name])
    units = units_of(9)
    # lcv weighs every candidate of the cell at every guess: on top95, minutes in Python
    slow = (propagation, order) in SLOW or (values == "lcv" and name == "top95")
    budget = BUDGET if slow else None
    for entry in entries:
        givens = entry.puzzle.givens
        if slow:  # eased, so that many searches end within the budget (tens of guesses)
            givens = eased(givens, c_search(9, units, givens).solutions[0], EASED)
        out = compare(9, units, givens, propagation, order, 2, budget, values=values)
        if slow:  # which ones the budget stops follows from their unbudgeted search
            assert_stopped_only_past(
                out, 9, units, givens, propagation, order, 2, BUDGET, values
            )  # fmt: skip
        assert out.budget_spent or (out.count == 1 and out.complete)
        if propagation == "forward" and order in ("mrv", "mrv-degree"):
            # A cell with one candidate left is forced, no guess: mrv takes such cells
            # first, so forward branches where singles does (the reference's Search).
            singles = c_search(9, units, givens, "singles", order, 2)
            assert (out.solutions, out.guesses, out.backtracks) == (
                singles.solutions, singles.guesses, singles.backtracks,
            )  # fmt: skip
            assert out.nodes >= singles.nodes  # and a node per forced placement


EASED = 20  # blank cells filled in from the solution for the slow combinations


def eased(givens, solution, extra: int) -> list[int]:
    """The puzzle with its first ``extra`` blank cells filled in from its solution."""
    out = list(givens)
    for cell in [c for c, v in enumerate(out) if not v][:extra]:
        out[cell] = solution[cell]
    return out


@pytest.mark.parametrize("propagation", options.CORE_WDEG_PROPAGATIONS)
def test_identical_with_lcv_and_dom_wdeg_on_a_public_set(data_dir, propagation):
    # lcv with dom-wdeg under every level the core runs it under (the design above meets
    # each pair once): the first puzzles of top95, with a budget.
    units = units_of(9)
    for entry in read_file(data_dir / "norvig-pytudes" / SETS["top95"])[:12]:
        givens = entry.puzzle.givens
        compare(9, units, givens, propagation, "dom-wdeg", 2, 2_000, values="lcv")


def _identical_on_the_seeds_with_limit_one_and_two(propagation, order, values):
    units = units_of(9)
    budget = BUDGET if (propagation, order) in SLOW else None
    for entry in read_file(SEEDS):
        for limit in (1, 2):
            out = compare(
                9, units, entry.puzzle.givens, propagation, order, limit, budget, values=values
            )  # fmt: skip
            assert out.budget_spent or out.count == 1
            assert all(s == entry.solution for s in out.solutions)


#: Every (propagation, order, value order) meets every question below and every other
#: knob (all pairs): counts on small grids, unsolvable and clashing givens, budgets.
QUESTION_DESIGN = design(
    {
        "propagation": PROPAGATIONS,
        "order": ORDERS,
        "values": VALUES,
        "question": ["counts", "unsolvable", "budgets"],
    },
    lambda row: (row["propagation"], row["order"]) in COMBINATIONS,
)


@pytest.mark.parametrize(("propagation", "order", "values", "question"), QUESTION_DESIGN)
def test_identical_answers_to_each_question(propagation, order, values, question):
    ask = {
        "counts": _identical_counts_on_small_grids,
        "unsolvable": _unsolvable_and_clashing_givens,
        "budgets": _identical_under_guess_budgets,
    }[question]
    ask(propagation, order, values)


def _identical_counts_on_small_grids(propagation, order, values):
    # The empty 4x4 grid: all 288 grids, in the same order, with the same counters.
    knobs = {"values": values}
    units = units_of(4)
    out = compare(4, units, [0] * 16, propagation, order, limit=None, **knobs)
    assert out.count == 288 and out.complete and len(set(out.solutions)) == 288
    assert compare(4, units, [0] * 16, propagation, order, limit=2, **knobs).count == 2
    first_ten = compare(4, units, [0] * 16, propagation, order, limit=None, keep=10, **knobs)
    assert first_ten.solutions == out.solutions[:10] and first_ten.count == 288
    assert compare(4, units, [1] + [0] * 15, propagation, order, limit=None, **knobs).count == 72
    empty = compare(4, units, [0] * 16, propagation, order, limit=None, keep=0, **knobs)
    assert empty.solutions == ()
    # A 6x6 grid with a third of its cells blank, counted out.
    rng = random.Random(6)
    solution = random_solution(6, rng)
    givens = [0 if rng.random() < 0.6 else v for v in solution]
    assert compare(6, units_of(6), givens, propagation, order, limit=None, **knobs).count >= 1
    # A 9x9 grid with two solutions (a deadly rectangle).
    two = two_solution_grid(read_file(SEEDS)[0].solution)
    assert compare(9, units_of(9), two, propagation, order, limit=None, **knobs).count == 2


def _unsolvable_and_clashing_givens(propagation, order, values):
    units = units_of(9)
    # r1c1..r1c8 hold 1..8 and r2c9 holds 9: no clash, but r1c9 has no candidate.
    stuck = list(range(1, 9)) + [0] + [0] * 8 + [9] + [0] * 63
    out = compare(9, units, stuck, propagation, order, limit=2, values=values)
    assert out.count == 0 and out.complete and not out.solutions
    # Two 5s in the first row: a contradiction at the root, before any node.
    clash = [5, 0, 0, 0, 5] + [0] * 76
    out = compare(9, units, clash, propagation, order, limit=2, values=values)
    assert out == Outcome(solutions=(), count=0, complete=True, nodes=0, guesses=0, backtracks=0)
    # r1c1..r1c7 hold 1..7, r2c8 holds 8 and r3c8 holds 9: r1c8 has no candidate left,
    # r1c9 is the only place of both 8 and 9.
    forced = [0] * 81
    forced[:7] = range(1, 8)
    forced[9 + 7], forced[18 + 7] = 8, 9
    out = compare(9, units, forced, propagation, order, limit=2, values=values)
    assert out.count == 0 and out.complete


LARGE = [(16, 1, 0.55), (16, 2, 0.5), (25, 1, 0.4), (25, 3, 0.4)]  # quick for the reference


@pytest.mark.parametrize(
    ("grid", "propagation", "order", "values"),
    design({
        "grid": LARGE,
        "propagation": ["forward", "singles", "hidden"],
        "order": ["mrv", "mrv-degree"],
        "values": VALUES,
    }),
)  # fmt: skip
def test_identical_on_large_grids(grid, propagation, order, values):
    size, seed, blank = grid
    rng = random.Random(seed)
    solution = random_solution(size, rng)
    givens = [0 if rng.random() < blank else v for v in solution]
    out = compare(size, units_of(size), givens, propagation, order, limit=2, values=values)
    assert out.count >= 1 and out.complete is (out.count < 2)


def test_identical_on_other_units_and_tiny_shapes():
    # An X-sudoku (both diagonals as extra units), and the 1x1 grid.
    units = (*units_of(9), tuple(range(0, 81, 10)), tuple(range(8, 80, 8)))
    givens = list(read_file(SEEDS)[2].puzzle.givens)
    for propagation, order in COMBINATIONS:
        compare(9, units, givens, propagation, order, limit=2, max_guesses=BUDGET)
        compare(4, units_of(4)[:4], [0] * 16, propagation, order, limit=50)
        compare(1, ((0,),), [0], propagation, order, limit=None)
        compare(1, ((0,),), [1], propagation, order, limit=None)
        compare(2, ((0, 1), (2, 3), (0, 2), (1, 3)), [0] * 4, propagation, order, limit=None)


def test_identical_on_jigsaw_regions():
    # Irregular regions (the shipped jigsaw set) under every propagation and order: each
    # combination on one of three puzzles, in turn, and one of the value orders.
    puzzles = [e.puzzle for e in read_file(REPO / "data" / "gen-jigsaw.jsonl")[:3]]
    for i, (propagation, order) in enumerate(COMBINATIONS):
        puzzle = puzzles[i % 3]
        units = tuple(u.cells for u in puzzle.geometry.units)
        assert units != units_of(9)
        out = compare(9, units, list(puzzle.givens), propagation, order, limit=2,
                      max_guesses=BUDGET, values=VALUES[i // 3 % 2])  # fmt: skip
        assert out.count == 1 or out.budget_spent


# -- the guess budget --------------------------------------------------------------------


def _identical_under_guess_budgets(propagation, order, values):
    """Each budget stops both implementations at the same guess with the same outcome:
    0 (propagation alone), 1, half the search, one short of it, exactly the whole search
    (hit, not stopped) and one more, under limits 1, 2 and None."""
    seeds = read_file(SEEDS)
    cases = [
        (4, [0] * 16, None),  # every 4x4 grid
        (4, [1] + [0] * 15, 5),  # stops at the limit, or at the budget before it
        (9, seeds[2].puzzle.givens, 2),  # a uniqueness check
        (9, two_solution_grid(seeds[0].solution), None),  # two solutions, counted out
        (9, [0] * 81, 1),  # the first grid
    ]
    if propagation == "sac":  # a probe per candidate of 81 open cells: minutes in Python
        cases.pop()
    for size, givens, limit in cases:
        units = units_of(size)
        full = c_search(size, units, givens, propagation, order, limit, values=values)
        n = full.guesses
        for budget in sorted({0, 1, n // 2, max(n - 1, 0), n, n + 1}):
            out = compare(size, units, givens, propagation, order, limit, budget, values=values)
            assert_stopped_only_past(
                out, size, units, givens, propagation, order, limit, budget, values
            )
            assert out.solutions == full.solutions[: out.count]  # what was found is kept


def test_a_budget_of_no_guess_is_the_root_in_both():
    units = units_of(9)
    for entry in read_file(SEEDS):
        for propagation, order in COMBINATIONS:
            out = compare(9, units, entry.puzzle.givens, propagation, order, 2, max_guesses=0)
            assert out.guesses == out.backtracks == 0
            # Forced placements (a cell with one candidate) spend no budget: forward goes
            # on through them; every other level places such a cell itself.
            assert out.nodes == 1 or propagation == "forward"
            if propagation == "forward" and order in ("mrv", "mrv-degree"):
                givens = entry.puzzle.givens
                singles = c_search(9, units, givens, "singles", order, 2, max_guesses=0)
                assert out.count == singles.count  # it settles what naked singles settle
            # propagation alone solves it (the root is its only solution), or it stops
            assert out.budget_spent is (out.count == 0)


def test_tables_match_the_reference():
    for size in (4, 9, 16, 25):
        units = units_of(size)
        tables = _core.Tables(size, units)
        assert tables.size == size and tables.units == units
        assert tables.peers == reference.tables(size, units).peers
        assert tables.peers == geometry(size).peers


# -- deadline, the seam ----------------------------------------------------------------


def test_deadline_stops_the_empty_16x16_count():
    # Counting every 16x16 grid never ends: the deadline stops it, never before it (how
    # soon after it depends on the machine's load: no bound here).
    tables = _core.Tables(16, units_of(16))
    start = time.perf_counter()
    grids, counters = _core.search(tables, bytes(256), limit=None, timeout=0.2, keep=5)
    elapsed = time.perf_counter() - start
    count, flags, nodes, guesses, _, nanoseconds, kept = struct.unpack("=7q", counters)
    assert flags == native.TIMED_OUT  # neither complete nor stopped by a budget
    assert count > 0 and kept == min(count, 5) and len(grids) == kept * 256
    assert nodes > 0 and guesses > 0
    assert elapsed >= 0.2 and nanoseconds >= 0.2e9  # never before the deadline


@pytest.mark.skipif(os.environ.get("SUDOKULAB_PURE_PYTHON") == "1", reason="reference forced")
def test_the_seam_runs_the_core():
    from sudokulab import solve

    assert native.ENGINE == "c" and native.Engine is compiled.Engine
    units = units_of(9)
    givens = read_file(SEEDS)[1].puzzle.givens
    engine, slow = native.Engine(9, units), reference.Engine(9, units)
    assert engine.search(givens, limit=2) == slow.search(givens, limit=2)
    # Lists of lists are accepted too (normalised before the tables are cached).
    listed = [list(u) for u in units]
    assert native.Engine(9, listed).search(list(givens)) == slow.search(givens)
    assert native.Engine(9, listed).tables is engine.tables  # one Tables per shape
    with pytest.raises(ValueError, match="unknown propagation 'fast'"):
        native.Engine(9, units, propagation="fast")
    with pytest.raises(ValueError, match="limit must be at least 1"):
        engine.search(givens, limit=0)
    # An absolute deadline (perf_counter), converted to a timeout for the core.
    start = time.perf_counter()
    out = native.Engine(16, units_of(16)).search(
        [0] * 256, limit=None, deadline=start + 0.2, keep=3
    )
    assert out.timed_out and not out.complete and out.count > 0 and len(out.solutions) == 3
    assert time.perf_counter() - start >= 0.2
    out = engine.search(givens, deadline=time.perf_counter() - 1)  # already past
    assert out.count == 1  # solved within the first 256 guesses, before the clock is read
    # The guess budget, by keyword, with the reference's answers and errors.
    for budget in (0, 1, 2):
        assert engine.search(givens, limit=2, max_guesses=budget) == slow.search(
            givens, limit=2, max_guesses=budget
        )
    with pytest.raises(ValueError, match="max_guesses must be at least 0, got -1"):
        engine.search(givens, max_guesses=-1)
    # The `native` backend runs the core, with the counters of `native-py`.
    fast, slow = (solve("." * 16, backend=b, limit=None) for b in ("native", "native-py"))
    assert (fast.stats["engine"], slow.stats["engine"]) == ("c", "python")
    assert fast.solutions == slow.solutions and fast.count == slow.count == 288
    assert {**fast.stats, "engine": "python"} == slow.stats


def _engine_in_child(env: dict[str, str], prelude: str = "") -> subprocess.CompletedProcess:
    code = f"{prelude}import sudokulab.native as n; print(n.ENGINE)"
    return subprocess.run(
        [sys.executable, "-W", "always", "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_seam_environment_variables():
    clean = {"SUDOKULAB_PURE_PYTHON": "", "SUDOKULAB_REQUIRE_NATIVE": ""}
    done = _engine_in_child({**clean, "SUDOKULAB_PURE_PYTHON": "1"})
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "python", "")
    done = _engine_in_child({**clean, "SUDOKULAB_REQUIRE_NATIVE": "1"})
    assert (done.returncode, done.stdout.strip()) == (0, "c")
    # A core that does not import: a warning saying why, or an ImportError when required.
    broken = "import sys; sys.modules['sudokulab.native._core'] = None; "
    done = _engine_in_child(clean, broken)
    assert done.returncode == 0 and done.stdout.strip() == "python"
    assert "RuntimeWarning" in done.stderr and "not available" in done.stderr
    done = _engine_in_child({**clean, "SUDOKULAB_REQUIRE_NATIVE": "1"}, broken)
    assert done.returncode != 0 and "SUDOKULAB_REQUIRE_NATIVE" in done.stderr


# -- bad arguments ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "units", "error"),
    [
        (0, (), ValueError),
        (26, (), ValueError),
        ("4", (), TypeError),
        (4.0, (), TypeError),
        (4, 5, TypeError),
        (4, ((0, 1, 2),), ValueError),  # too few cells
        (4, ((0, 1, 2, 3, 4),), ValueError),  # too many
        (4, ((0, 1, 2, 16),), ValueError),  # no such cell
        (4, ((0, 1, 2, -1),), ValueError),
        (4, ((0, 1, 2, 2),), ValueError),  # a cell twice
        (4, ((0, 1, 2, "3"),), TypeError),
        (4, ((0, 1, 2, 2**70),), ValueError),
        (4, (5,), TypeError),
        (1, ((0,),) * 257, ValueError),  # more units than a search state has room for
    ],
)
def test_bad_tables_raise(size, units, error):
    with pytest.raises(error):
        _core.Tables(size, units)


def test_bad_search_arguments_raise():
    tables = _core.Tables(4, units_of(4))
    good = {"propagation": "hidden", "order": "mrv", "limit": 1, "timeout": None, "keep": 10}
    grids, counters = _core.search(tables, bytes(16), **good)
    assert struct.unpack("=7q", counters)[0] == 1 and len(grids) == 16
    bad = [
        ({"propagation": "fast"}, ValueError),
        ({"propagation": None}, TypeError),
        ({"order": "random"}, ValueError),
        ({"limit": 0}, ValueError),
        ({"limit": -(2**80)}, ValueError),
        ({"limit": "2"}, TypeError),
        ({"timeout": "soon"}, TypeError),
        ({"timeout": float("nan")}, ValueError),
        ({"keep": -1}, ValueError),
        ({"keep": 1.5}, TypeError),
        ({"keep": None}, TypeError),
        ({"max_guesses": -1}, ValueError),
        ({"max_guesses": -(2**80)}, ValueError),
        ({"max_guesses": "3"}, TypeError),
        ({"max_guesses": 1.5}, TypeError),
    ]
    for change, error in bad:
        with pytest.raises(error):
            _core.search(tables, bytes(16), **{**good, **change})
    # The budget's errors are the reference's, word for word.
    for junk in (-1, -(2**80), "3", 1.5):
        with pytest.raises((TypeError, ValueError)) as c_err:
            _core.search(tables, bytes(16), max_guesses=junk)
        with pytest.raises(c_err.type) as ref_err:
            reference.Engine(4, units_of(4)).search([0] * 16, max_guesses=junk)
        assert str(c_err.value) == str(ref_err.value)
    # The givens: whole puzzles of bytes, each value in 0..n, the bad one named.
    with pytest.raises(ValueError, match="givens must be bytes of 16 values a puzzle, got 20"):
        _core.search(tables, bytes(20))
    with pytest.raises(ValueError, match="puzzle 1: cell 3: 9 is outside 0..4"):
        _core.search(tables, bytes(16) + bytes([0, 0, 0, 9] + [0] * 12))
    # Or a sequence of ints (one puzzle's list, read as it is), the same errors by place.
    assert compiled.outcomes(*_core.search(tables, [0] * 32), 16) == compiled.outcomes(
        *_core.search(tables, bytes(32)), 16
    )
    for givens, error, message in [
        ([0] * 15, ValueError, "givens must be 16 values a puzzle, got 15"),
        ([0] * 17 + [5] + [0] * 14, ValueError, "puzzle 1: cell 1: 5 is outside 0..4"),
        ([0] * 3 + [-1] + [0] * 12, ValueError, "puzzle 0: cell 3: -1 is outside 0..4"),
        ([2**80] + [0] * 15, ValueError, "puzzle 0: cell 0: 1208925819614629174706176 is"),
        (["1"] + [0] * 15, TypeError, "puzzle 0: cell 0: a given must be an int, not str"),
        ([None] + [0] * 15, TypeError, "a given must be an int, not NoneType"),
        ([True] + [0] * 15, TypeError, "a given must be an int, not bool"),
        (7, TypeError, "givens must be bytes or a sequence of ints"),
        ("", TypeError, "givens must be bytes or a sequence of ints, not str"),
    ]:
        with pytest.raises(error, match=message):
            _core.search(tables, givens)
    with pytest.raises(ValueError, match="got 128 bytes of 8"):  # not uint8
        _core.search(tables, memoryview(bytes(128)).cast("q"))
    # The arguments: two by position, the knobs by name only.
    with pytest.raises(TypeError, match="argument 1 must be .*Tables, not tuple"):
        _core.search(units_of(4), bytes(16))
    with pytest.raises(TypeError, match="takes 2 positional arguments .* but 1 were given"):
        _core.search(tables)
    with pytest.raises(TypeError, match="takes 2 positional arguments .* but 3 were given"):
        _core.search(tables, bytes(16), "hidden")
    with pytest.raises(TypeError, match="unexpected keyword argument 'limits'"):
        _core.search(tables, bytes(16), limits=1)
    with pytest.raises(TypeError, match="takes 2 positional arguments .* but 1 were given"):
        _core.search(tables, givens=bytes(16))  # positional only

    # The defaults: hidden, mrv, the first solution, kept, no deadline, no budget; a knob
    # spelt at run time (not interned) is the same knob.
    def read(answer):  # the outcomes, without the clock's counter
        return compiled.outcomes(*answer, 16)

    default = read(_core.search(tables, bytes(16)))
    assert default == read(_core.search(tables, bytes(16), **{**good, "keep": 1}))
    assert default[0].count == 1 and default[0].solutions
    two = read(_core.search(tables, bytes(16), limit=2))
    assert two == read(_core.search(tables, bytes(16), **{"".join(["li", "mit"]): 2}))
    assert two[0].count == 2
    # Huge limits, keeps and budgets are as good as none.
    grids, counters = _core.search(tables, bytes(16), limit=2**80, keep=2**80, max_guesses=2**80)
    count, flags, *_, kept = struct.unpack("=7q", counters)
    assert count == kept == 288 and flags == native.COMPLETE and len(grids) == 288 * 16
    # No puzzle: nothing to search, nothing out.
    assert _core.search(tables, b"") == (b"", b"")
    # The compiled Engine checks what the core cannot tell: one puzzle's length.
    engine = compiled.Engine(4, units_of(4))
    for givens, error in (([0] * 15, ValueError), ([0] * 32, ValueError), (7, TypeError)):
        with pytest.raises(error):
            engine.search(givens)
    for givens, error in (([-1] + [0] * 15, ValueError), (["1"] + [0] * 15, TypeError)):
        with pytest.raises(error):
            engine.search(givens)
    with pytest.raises(ValueError, match="cell 0: 5 is outside 0..4"):
        engine.search([5] + [0] * 15)


# -- random puzzles --------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    size=st.sampled_from([4, 9, 16]),
    seed=st.integers(0, 2**32 - 1),
    blank=st.floats(0.0, 0.8),
    knobs=st.sampled_from(KNOBS),
    limit=st.sampled_from([1, 2, 3, None]),
)
def test_property_random_puzzles_are_identical(size, seed, blank, knobs, limit):
    rng = random.Random(seed)
    solution = random_solution(size, rng)
    givens = [0 if rng.random() < blank else v for v in solution]
    if limit is None and size > 4:
        limit = 50
    # Both get the same budget of guesses: identical, stopped or not.
    propagation, order, values = knobs
    compare(
        size, units_of(size), givens, propagation, order, limit=limit, max_guesses=BUDGET,
        keep=20, values=values,
    )  # fmt: skip
