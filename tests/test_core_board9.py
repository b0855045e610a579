"""The C core's classic 9x9 bitboard solver against its general engine, on whole sets.

Under ``hidden``, ``locked`` and ``gac`` propagation a classic 9x9 shape runs
``run_board9`` (digit planes in AVX2 vectors, see native/board9.c) when the CPU has AVX2;
``Tables(..., bitboard=False)`` keeps the same shape on the general engine. The two must
agree field for field (solutions in order, count, complete, timed out, budget spent,
nodes, guesses, backtracks), with or without a guess budget: the general engine is itself
checked against the Python reference by the identity tests, which on such a CPU now run
the bitboard solver for classic grids. C against C is fast
enough to compare whole sets here (all of sudokus_17 and top1465 take a few seconds).
"""

from __future__ import annotations

import os
import pickle
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sudokulab import is_solution
from sudokulab.models import Puzzle, geometry
from sudokulab.native import COUNTERS, reference
from sudokulab.native.reference import Outcome

_core = pytest.importorskip(
    "sudokulab.native._core",
    reason="the compiled native core is not built (pip install -e . needs a C compiler)",
)
compiled = pytest.importorskip("sudokulab.native.compiled")
pytestmark = [
    pytest.mark.core,
    pytest.mark.skipif(
        not _core.BITBOARD, reason="the CPU has no AVX2: the bitboard solver never runs"
    ),
]

UNITS = tuple(u.cells for u in geometry(9).units)
#: A solution grid to draw puzzles from (relabelled and shuffled by ``grids``).
GRID = reference.Engine(9, UNITS).search([0] * 81, limit=1).solutions[0]
SETS = {
    "top95": "norvig-pytudes/sudoku-top95.txt",
    "hardest": "norvig-pytudes/sudoku-hardest.txt",
    "easy50": "norvig-pytudes/sudoku-easy50.txt",
    "top1465": "amtal-sudoku/top1465",
    "top2365": "sunjay-sudoku/top2365.txt",
    "sudokus_17": "norvig-pytudes/sudokus_17.txt",
}


#: The propagations the bitboard solver runs (the others run the general engine).
BITBOARD_PROPAGATIONS = ("hidden", "locked", "gac")


@pytest.fixture(scope="module", params=BITBOARD_PROPAGATIONS)
def pair(request):
    """(bitboard tables, general tables) of the classic 9x9 shape, and a propagation the
    bitboard solver runs."""
    fast, general = _core.Tables(9, UNITS), _core.Tables(9, UNITS, bitboard=False)
    assert fast.bitboard and not general.bitboard
    return fast, general, request.param


def run(tables, puzzles, propagation, order="mrv", limit=2, keep=1000, **knobs):
    """The core's answer on many puzzles, as it gives it (each puzzle's search time, the
    one counter that may differ, zeroed)."""
    grids, counters = _core.search(
        tables, b"".join(map(bytes, puzzles)), propagation=propagation, order=order,
        limit=limit, keep=keep, **knobs,
    )  # fmt: skip
    return untimed(grids, counters)


def untimed(grids, counters):
    """(grids, counters) with each puzzle's search time zeroed."""
    times = memoryview(bytearray(counters)).cast("q")
    for i in range(COUNTERS.index("nanoseconds"), len(times), len(COUNTERS)):
        times[i] = 0
    return grids, times.tobytes()


def both(pair, givens, order="mrv", limit=2, timeout=None, keep=1000, max_guesses=None):
    """The two engines' outcomes on one puzzle."""
    *tables, propagation = pair
    knobs = {"limit": limit, "timeout": timeout, "keep": keep, "max_guesses": max_guesses}
    return tuple(
        compiled.outcomes(*_core.search(t, bytes(givens), propagation=propagation,
                                        order=order, **knobs), 81)[0]
        for t in tables
    )  # fmt: skip


def test_the_shape_is_recognised_whatever_the_order_of_units_and_cells():
    rng = random.Random(9)
    units = [list(u) for u in UNITS]
    for unit in units:
        rng.shuffle(unit)
    rng.shuffle(units)
    assert _core.Tables(9, tuple(map(tuple, units))).bitboard


@pytest.mark.parametrize(
    "units, cages",
    [
        (UNITS[:26], ()),  # a box missing
        (UNITS + (tuple(range(0, 81, 10)),), ()),  # X: a diagonal more
        (UNITS[:26] + (UNITS[0],), ()),  # a row twice, a box missing
        (UNITS, (((0, 1), (3, 5, 6)),)),  # killer: a cage
    ],
    ids=["missing box", "diagonal", "row twice", "cage"],
)
def test_other_shapes_keep_the_general_engine(units, cages):
    assert not _core.Tables(9, units, cages).bitboard


def test_a_jigsaw_shape_keeps_the_general_engine():
    # Rows and columns, and nine regions that are the boxes shifted by one column.
    regions = tuple(
        tuple(9 * r + (c + 1) % 9 for r in range(3 * b, 3 * b + 3) for c in range(3 * s, 3 * s + 3))
        for b in range(3)
        for s in range(3)
    )
    assert not _core.Tables(9, UNITS[:18] + regions).bitboard


@pytest.mark.parametrize("name", SETS)
def test_whole_sets_agree(public_givens, pair, name):
    # One call for the whole set on each engine: the same bytes out (grids and counters).
    # The two largest sets (49,151 and 2,365 puzzles) under one limit a propagation
    # (hidden: 1, locked: 2), the others under both; gac (the general engine's gac costs
    # several times its locked) under limit 2 on the four small sets only.
    fast, general, propagation = pair
    limits = (1, 2)
    if propagation == "gac":
        if name in ("sudokus_17", "top2365"):
            return  # not even loaded: the other tests cover gac on these sets' kind
        limits = (2,)
    elif name in ("sudokus_17", "top2365"):
        limits = limits[BITBOARD_PROPAGATIONS.index(propagation) :][:1]
    puzzles = public_givens(SETS[name])
    for limit in limits:
        assert run(fast, puzzles, propagation, limit=limit) == run(
            general, puzzles, propagation, limit=limit
        ), name


@pytest.mark.parametrize("order", ["mrv", "first", "mrv-degree"])
def test_both_orders_on_hard_sets(public_givens, pair, order):
    for name in ("top95", "hardest"):
        for givens in public_givens(SETS[name]):
            fast, general = both(pair, givens, order=order)
            assert fast == general


@pytest.mark.parametrize("order", ["mrv", "mrv-degree"])
def test_puzzles_with_many_solutions_agree(public_givens, pair, order):
    """Clues taken away, as benchmarks/classic_sets.py makes its multi-solution sets: long
    descents whose nodes tie many cells on the fewest candidates."""
    rng = random.Random(27)
    for name, drop, step in (("sudokus_17", 1, 50), ("top1465", 2, 2)):
        for givens in public_givens(SETS[name])[::step]:
            givens = list(givens)
            for c in rng.sample([c for c in range(81) if givens[c]], drop):
                givens[c] = 0
            for limit in (1, 2, 20):
                fast, general = both(pair, givens, order=order, limit=limit)
                assert fast == general, f"{name}: {givens}"


def test_many_solutions_in_the_same_order_and_keep(pair):
    empty = [0] * 81
    for limit, keep in ((1, 1000), (50, 1000), (300, 7), (40, 0)):
        fast, general = both(pair, empty, limit=limit, keep=keep)
        assert fast == general
        assert fast.count == limit and len(fast.solutions) == min(limit, keep)
    solution = both(pair, empty, limit=1)[0].solutions[0]
    # Twenty clues keep many solutions: count them all (no limit).
    rng = random.Random(5)
    clues = rng.sample(range(81), 24)
    givens = [solution[c] if c in clues else 0 for c in range(81)]
    fast, general = both(pair, givens, limit=None, keep=5)
    assert fast == general and fast.complete


def test_invalid_and_complete_grids(pair):
    solution = both(pair, [0] * 81, limit=1)[0].solutions[0]
    solved = Outcome(
        solutions=(tuple(solution),), count=1, complete=True, nodes=1, guesses=0, backtracks=0
    )
    none = Outcome(solutions=(), count=0, complete=True, nodes=0, guesses=0, backtracks=0)
    assert both(pair, list(solution))[0] == solved
    assert both(pair, list(solution), max_guesses=0)[0] == solved  # no guess needed
    for a, b in ((0, 5), (0, 45), (0, 20)):  # a value twice in a row, a column, a box
        givens = [0] * 81
        givens[a] = givens[b] = 4
        fast, general = both(pair, givens)
        assert fast == general == none
    # Consistent givens whose propagation fails at the root: r1c1..r1c8 leave r1c9 a
    # single, 9, which a given 9 in its box (r2c7) forbids.
    givens = [1, 2, 3, 4, 5, 6, 7, 8, 0] + [0] * 6 + [9] + [0] * 65
    fast, general = both(pair, givens)
    assert fast == general == none


def test_a_deadline_stops_both_at_the_same_guess(pair):
    # The clock is read every 256 guesses: a deadline already past stops both there.
    fast, general = both(pair, [0] * 81, limit=None, timeout=0.0, keep=3)
    assert fast == general
    assert fast.timed_out and not fast.complete and not fast.budget_spent
    assert fast.guesses == 256


@pytest.mark.parametrize("order", ["mrv", "first", "mrv-degree"])
def test_a_budget_stops_both_at_the_same_guess(public_givens, pair, order):
    # On hard puzzles and counts: budgets of no guess, one, a spread up to the whole
    # search, one short of it and exactly it (hit, not stopped), with limits 1, 2, None.
    hard = public_givens(SETS["hardest"])
    cases = [(givens, limit) for givens in hard for limit in (1, 2)] + [([0] * 81, 40)]
    for givens, limit in cases:
        full = both(pair, givens, order=order, limit=limit)[0]
        n = full.guesses
        for budget in sorted({0, 1, n // 3, n // 2, max(n - 1, 0), n, n + 1}):
            fast, general = both(pair, givens, order, limit, max_guesses=budget, keep=5)
            assert fast == general, (givens, order, limit, budget)
            if budget >= n:  # the whole search never needs guess n + 1
                assert fast == both(pair, givens, order, limit, keep=5)[0]
            else:
                assert fast.budget_spent and not fast.complete and fast.guesses == budget


def test_batch_runs_the_bitboard_solver_too(public_givens, pair):
    # Many puzzles in one call give what one call each gives, on the other engine too.
    puzzles = public_givens(SETS["top95"])
    fast, general, prop = pair
    batch = compiled.outcomes(*run(fast, puzzles, prop), 81)
    assert batch == [both(pair, p)[1] for p in puzzles]
    # With a budget too: each puzzle its own, and the general engine's answers.
    for budget in (0, 3, 50):
        batch = compiled.outcomes(*run(fast, puzzles, prop, keep=10, max_guesses=budget), 81)
        assert batch == [both(pair, p, keep=10, max_guesses=budget)[1] for p in puzzles]


#: A fresh interpreter's bitboard gac on the puzzles on stdin (limit 2, mrv), pickled.
AVX2_GAC = """
import pickle, sys
from sudokulab.models import geometry
from sudokulab.native import _core
units = tuple(u.cells for u in geometry(9).units)
blob = sys.stdin.buffer.read()
answer = _core.search(_core.Tables(9, units), blob, propagation="gac", order="mrv", limit=2,
                      keep=1000)
sys.stdout.buffer.write(pickle.dumps(answer))
"""


def test_gac_on_the_avx2_path_agrees_too(public_givens):
    # Where the CPU has AVX-512, gac on the bitboards counts a unit's subsets 32 a vector
    # (gac9_hall); SUDOKULAB_GAC9_AVX2=1, read at import, keeps the path of CPUs without it
    # (gac9_hall2, 16 a vector on AVX2): that one, in a fresh interpreter, against the
    # general engine (Régin's matching).
    puzzles = public_givens(SETS["top95"])
    env = {**os.environ, "SUDOKULAB_GAC9_AVX2": "1"}
    out = subprocess.run(
        [sys.executable, "-c", AVX2_GAC], input=b"".join(map(bytes, puzzles)), env=env,
        capture_output=True, check=True,
    ).stdout  # fmt: skip
    answer = untimed(*pickle.loads(out))
    assert answer == run(_core.Tables(9, UNITS, bitboard=False), puzzles, "gac")
    outcomes = compiled.outcomes(*answer, 81)
    assert all(
        o.count >= 1 and all(is_solution(Puzzle.from_grid(g), s) for s in o.solutions)
        for g, o in zip(puzzles, outcomes, strict=True)
    )


def test_other_propagations_are_untouched(pair):
    # Only hidden, locked and gac run the bitboard solver; the others give the same on both.
    line = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
    givens = [int(c) for c in line.replace(".", "0")]
    for propagation in ("forward", "singles"):
        fast, general = both((*pair[:2], propagation), givens, limit=1, keep=10)
        assert fast == general and fast.count == 1


@st.composite
def grids(draw):
    """Givens: a random solution with random blanks, sometimes a wrong value or two."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    digits = rng.sample(range(1, 10), 9)
    rows = [3 * b + r for b in rng.sample(range(3), 3) for r in rng.sample(range(3), 3)]
    cols = [3 * s + c for s in rng.sample(range(3), 3) for c in rng.sample(range(3), 3)]
    grid = [digits[GRID[9 * rows[r] + cols[c]] - 1] for r in range(9) for c in range(9)]
    keep = draw(st.integers(17, 40))
    cells = rng.sample(range(81), keep)
    givens = [grid[c] if c in cells else 0 for c in range(81)]
    for _ in range(draw(st.integers(0, 2))):
        givens[rng.randrange(81)] = rng.randrange(10)
    return givens


@settings(max_examples=300, deadline=None)
@given(
    grids(),
    st.sampled_from(["mrv", "first", "mrv-degree"]),
    st.sampled_from([1, 2, 5]),
    st.one_of(st.none(), st.integers(0, 60)),
    st.sampled_from(BITBOARD_PROPAGATIONS),
)
def test_random_grids_agree(givens, order, limit, max_guesses, propagation):
    pair = (_core.Tables(9, UNITS), _core.Tables(9, UNITS, bitboard=False), propagation)
    fast, general = both(pair, givens, order, limit, keep=3, max_guesses=max_guesses)
    assert fast == general


def test_gacs_build_is_the_cpus_and_the_native_version_names_it():
    # gac9_hall needs AVX-512 BW, BITALG and VBMI2, and BMI2: read here from the kernel's
    # list of the CPU's flags, independently of the core's own check
    from sudokulab.backends import get_backend

    try:
        with open("/proc/cpuinfo") as info:
            flags = next(line for line in info if line.startswith("flags")).split()
    except (OSError, StopIteration):
        pytest.skip("no /proc/cpuinfo to read the CPU's flags from")
    needs = {"avx512bw", "avx512_bitalg", "avx512_vbmi2", "bmi2"}
    forced = os.environ.get("SUDOKULAB_GAC9_AVX2") == "1"
    expect = _core.BITBOARD and needs <= set(flags) and not forced
    assert bool(_core.GAC_AVX512) == expect
    assert ("gac's filter on AVX-512" in get_backend("native").version()) == expect
    # SUDOKULAB_GAC9_AVX2=1 keeps it on AVX2, and the version says so
    env = {**os.environ, "SUDOKULAB_GAC9_AVX2": "1"}
    show = "from sudokulab.backends import get_backend; print(get_backend('native').version())"
    out = subprocess.run(
        [sys.executable, "-c", show], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert "gac's filter on AVX2" in out
