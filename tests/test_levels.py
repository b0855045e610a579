"""The propagation ladder as constraint programming names it: ac3, gac and sac beside the
Sudoku levels. Each level's strength against its neighbours (a puzzle that separates
them, settled without search by one and not the other), GAC against brute force, and the
compiled core against the reference on the new levels.

A level *settles* a puzzle when its root alone decides it: with no guess allowed
(``max_guesses=0``) and two solutions asked for, the search is complete.
"""

from __future__ import annotations

import random
from itertools import permutations, product
from pathlib import Path

import pytest
from helpers import killer_cages, random_cages, random_solution
from hypothesis import given, settings
from hypothesis import strategies as st

from sudokulab import read_file
from sudokulab.models import geometry
from sudokulab.native import reference
from sudokulab.native.options import CORE_WDEG_PROPAGATIONS, ORDERS, PROPAGATIONS, VALUES
from sudokulab.native.reference import gac_filter

pytestmark = pytest.mark.core

_core = pytest.importorskip("sudokulab.native._core", reason="the compiled core is not built")
compiled = pytest.importorskip("sudokulab.native.compiled")

REPO = Path(__file__).resolve().parent.parent
CP_LEVELS = ("ac3", "gac", "sac")
# The orders the compiled core runs under them (dom-wdeg: the reference only, see below).
CORE_ORDERS = tuple(o for o in ORDERS if o != "dom-wdeg")
UNITS9 = tuple(u.cells for u in geometry(9).units)

# Found by a search over the public sets (norvig-pytudes' easy50: puzzles 0, 1, 5, 9, 6).
EASY50_0 = "003020600900305001001806400008102900700000008006708200002609500800203009005010300"
EASY50_1 = "200080300060070084030500209000105408000000000402706000301007040720040060004010003"
EASY50_5 = "100920000524010000000000070050008102000000000402700090060000000000030945000071006"
EASY50_9 = "001900003900700160030005007050000009004302600200000070600100030042007006500006800"
EASY50_6 = "043080250600000000000001094900004070000608000010200003820500000000000005034090710"
# r1c1..r1c8 hold 1..8 and r2c9 holds 9: r1c9 has no candidate (no public puzzle is dead).
DEAD = "123456780" + "000000009" + "0" * 63


def units_of(size: int) -> tuple[tuple[int, ...], ...]:
    return tuple(u.cells for u in geometry(size).units)


def givens_of(text: str) -> list[int]:
    return [int(ch) for ch in text]


def settles(propagation: str, givens, engine=compiled, units=UNITS9, size=9) -> bool:
    """Whether the level decides the puzzle at its root: no guess, and no node past the
    root (forward's forced placements, no guesses, place naked singles one node each)."""
    out = engine.Engine(size, units, propagation, "mrv").search(givens, 2, max_guesses=0)
    return out.complete and out.nodes <= 1


def test_the_ladder_is_in_order_of_strength():
    assert PROPAGATIONS == ("none", "forward", "ac3", "singles", "hidden", "locked", "gac", "sac")


@pytest.mark.parametrize("engine", [reference, compiled], ids=["reference", "compiled"])
@pytest.mark.parametrize(
    ("weaker", "stronger", "puzzle"),
    [
        ("none", "forward", DEAD),  # forward finds the empty cell; none must search
        ("forward", "ac3", EASY50_0),
        ("singles", "hidden", EASY50_1),
        ("hidden", "locked", EASY50_5),
        ("hidden", "gac", EASY50_9),
        ("locked", "gac", EASY50_9),  # gac and locked are incomparable: this way ...
        ("gac", "locked", EASY50_5),  # ... and that way
        ("gac", "sac", EASY50_6),
        ("locked", "sac", EASY50_6),
    ],
)
def test_a_puzzle_separates_each_pair_of_levels(engine, weaker, stronger, puzzle):
    givens = givens_of(puzzle)
    assert settles(stronger, givens, engine)
    assert not settles(weaker, givens, engine)
    if puzzle != DEAD:  # settled by solving it: the one solution
        out = engine.Engine(9, UNITS9, stronger, "mrv").search(givens, 2, max_guesses=0)
        assert out.count == 1 and out.nodes == 1


def _classic_sets(data_dir: Path) -> list[list[int]]:
    """The classic 9x9 puzzles of the shipped generated sets and three public sets."""
    puzzles = []
    paths = sorted((REPO / "data").glob("gen-classic-*.jsonl")) + [REPO / "data" / "seeds.csv"]
    paths += [data_dir / "norvig-pytudes" / f"sudoku-{n}.txt" for n in ("easy50", "top95")]
    paths.append(data_dir / "norvig-pytudes" / "sudoku-hardest.txt")
    for path in paths:
        puzzles += [list(e.puzzle.givens) for e in read_file(path)]
    return puzzles


def test_stronger_levels_settle_whatever_weaker_ones_settle(data_dir):
    """gac over hidden, sac over gac and over locked: a tighter fixpoint settles at least
    the same puzzles; gac and locked each settle some the other does not."""
    puzzles = _classic_sets(data_dir)
    levels = ("hidden", "locked", "gac", "sac")
    settled = {p: [settles(p, g) for g in puzzles] for p in levels}
    for weaker, stronger in (("hidden", "gac"), ("gac", "sac"), ("locked", "sac")):
        missed = [i for i, ok in enumerate(settled[weaker]) if ok and not settled[stronger][i]]
        assert not missed, (weaker, stronger, missed[:5])
        assert sum(settled[stronger]) > sum(settled[weaker])
    pairs = list(zip(settled["gac"], settled["locked"], strict=True))
    assert (True, False) in pairs and (False, True) in pairs


@pytest.mark.parametrize("order", CORE_ORDERS)
def test_ac3_reaches_the_fixpoint_of_singles(data_dir, order):
    """ac3's solutions and counters are singles' on every puzzle (the compiled engines on
    two public sets; the reference on the seeds, a killer set and pencil marks)."""
    sets = [data_dir / "norvig-pytudes" / f"sudoku-{n}.txt" for n in ("easy50", "hardest")]
    for path in sets:
        for entry in read_file(path):
            givens = list(entry.puzzle.givens)
            runs = [
                compiled.Engine(9, UNITS9, p, order).search(givens, 2) for p in ("ac3", "singles")
            ]
            assert runs[0] == runs[1]
    for entry in read_file(REPO / "data" / "seeds.csv"):
        givens = list(entry.puzzle.givens)
        runs = [
            reference.Engine(9, UNITS9, p, order).search(givens, 2, max_guesses=300)
            for p in ("ac3", "singles")
        ]
        assert runs[0] == runs[1]
    for entry in read_file(REPO / "data" / "gen-killer.jsonl")[:2]:
        puzzle = entry.puzzle
        cages = tuple((c.cells, c.total) for c in puzzle.cages)
        units = tuple(u.cells for u in puzzle.geometry.units)
        for engine in (compiled, reference):
            runs = [
                engine.Engine(puzzle.size, units, p, order, cages).search(
                    list(puzzle.givens), 2, max_guesses=200
                )
                for p in ("ac3", "singles")
            ]
            assert runs[0] == runs[1]


# -- GAC against brute force -----------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    size=st.integers(4, 6),
    cells=st.integers(1, 6),
    data=st.data(),
)
def test_gac_removes_exactly_what_no_completion_of_the_unit_admits(size, cells, data):
    """On random partial units (some of a unit's cells, random candidates), gac_filter
    keeps a value exactly when some assignment of distinct values to every cell gives it."""
    cells = min(cells, size)
    full = (1 << size) - 1
    domains = data.draw(st.lists(st.integers(1, full), min_size=cells, max_size=cells))
    supported = [0] * cells
    for values in permutations(range(size), cells):
        if all(domains[i] >> v & 1 for i, v in enumerate(values)):
            for i, v in enumerate(values):
                supported[i] |= 1 << v
    out = gac_filter(domains)
    if not any(supported):
        assert out is None
        return
    kept, matching = out
    assert kept == supported
    assert len(set(matching)) == cells and all(
        m & d for m, d in zip(matching, domains, strict=True)
    )


def test_gac_subsumes_hidden_singles_and_subsets_in_a_unit():
    # Value 4 has one place (cell 3): a hidden single. Cells 0, 1 share {1, 2}: a naked
    # pair, so cell 2 loses 1 and 2.
    kept, _ = gac_filter([0b0011, 0b0011, 0b0111, 0b1111])
    assert kept == [0b0011, 0b0011, 0b0100, 0b1000]
    # Two cells with one value between them: no matching, a contradiction.
    assert gac_filter([0b0001, 0b0001, 0b1110]) is None


# -- dom-wdeg under the new levels: the reference's ------------------------------------


@pytest.mark.parametrize("propagation", CP_LEVELS)
def test_dom_wdeg_runs_under_the_new_levels_in_the_reference(propagation):
    """The reference's dom-wdeg under ac3, gac and sac: a contradiction raises one weight,
    a unit of the dead cell's; the search finds mrv's solutions (and under ac3 and gac
    differs from mrv's on some puzzle: sac settles these without a contradiction); the
    compiled core refuses it there by name."""
    assert propagation not in CORE_WDEG_PROPAGATIONS
    weighted = reference.Engine(9, UNITS9, propagation, "dom-wdeg")._weighted()
    assert weighted.search(givens_of(DEAD), 2).count == 0
    raised = [u for u, w in enumerate(weighted._weights) if w > 1]
    assert len(raised) == 1 and weighted._weights[raised[0]] == 2 and 8 in UNITS9[raised[0]]
    rng = random.Random(7)
    differs = False
    # (sac: a search of one grid with 30% givens took 20 s, loaded; with 40%, a few guesses)
    for _ in range(6 if propagation != "sac" else 1):
        solution = random_solution(9, rng)
        kept = 0.4 if propagation == "sac" else 0.3
        givens = [v if rng.random() < kept else 0 for v in solution]
        runs = {
            order: reference.Engine(9, UNITS9, propagation, order).search(
                givens, 3, max_guesses=400, keep=3
            )
            for order in ("mrv", "dom-wdeg")
        }
        wdeg, mrv = runs["dom-wdeg"], runs["mrv"]
        for grid in wdeg.solutions:
            assert all(g == v for g, v in zip(givens, grid, strict=True) if g)
            assert all(sorted(grid[c] for c in u) == list(range(1, 10)) for u in UNITS9)
        if wdeg.complete and mrv.complete:
            assert wdeg.count == mrv.count and set(wdeg.solutions) == set(mrv.solutions)
        differs |= (wdeg.nodes, wdeg.guesses) != (mrv.nodes, mrv.guesses)
    assert differs or propagation == "sac"
    with pytest.raises(ValueError, match="dom-wdeg runs under .* compiled core.*native-py"):
        compiled.Engine(9, UNITS9, propagation, "dom-wdeg")


# -- the compiled core against the reference on the new levels -------------------------


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    size=st.sampled_from([4, 6, 9]),
    propagation=st.sampled_from(CP_LEVELS),
    order=st.sampled_from(CORE_ORDERS),
    values=st.sampled_from(VALUES),
    blank=st.floats(0.2, 0.9),
    caged=st.booleans(),
    limit=st.sampled_from([1, 3, None]),
)
def test_property_the_core_matches_the_reference(
    seed, size, propagation, order, values, blank, caged, limit
):
    rng = random.Random(seed)
    solution = random_solution(size, rng)
    cages = killer_cages(solution, random_cages(solution, rng)) if caged else ()
    if size == 9:  # the reference's pace: sac probes every candidate of every open cell
        blank = min(blank, 0.5 if propagation == "sac" else 0.7)
    givens = [0 if rng.random() < blank else v for v in solution]
    units = units_of(size)
    budget = 200 if size == 9 else 2000
    ref = reference.Engine(size, units, propagation, order, cages, values=values)
    fast = compiled.Engine(size, units, propagation, order, cages, values=values)
    out = fast.search(givens, limit, max_guesses=budget, keep=20)
    assert out == ref.search(givens, limit, max_guesses=budget, keep=20)
    assert tuple(solution) in out.solutions or out.count or not out.complete


@pytest.mark.parametrize(("propagation", "order"), list(product(CP_LEVELS, CORE_ORDERS)))
def test_the_core_matches_the_reference_from_pencil_marks(propagation, order):
    rng = random.Random(len(propagation) * 10 + len(order))
    guesses = 0
    for size in (4, 6, 9):
        units = units_of(size)
        for _ in range(4):
            solution = random_solution(size, rng)
            # (at 9x9 half the givens: the reference's pace)
            givens = [v if rng.random() < (0.5 if size == 9 else 0.15) else 0 for v in solution]
            # the solution's value and about three quarters of the others in each cell
            marks = [
                (1 << (v - 1)) | rng.getrandbits(size) | rng.getrandbits(size) for v in solution
            ]
            ref = reference.Engine(size, units, propagation, order)
            fast = compiled.Engine(size, units, propagation, order)
            args = dict(limit=3, max_guesses=50, candidates=marks)
            out = fast.search(givens, **args)
            assert out == ref.search(givens, **args)
            guesses += out.guesses
    assert guesses  # the marks leave searches to do, not only roots


def test_probes_are_neither_nodes_nor_guesses():
    """sac settles EASY50_6 at its root: one node, no guess, however many probes."""
    from sudokulab.classroom.trace import Probe, Recorder

    recorder = Recorder(max_steps=None)
    engine = reference.Engine(9, UNITS9, "sac", "mrv", trace=recorder)
    out = engine.search(givens_of(EASY50_6), 2)
    probes = [e for e in recorder.events if isinstance(e, Probe)]
    assert out.nodes == 1 and out.guesses == 0 and out.count == 1
    assert any(p.failed for p in probes) and len(probes) > 1
    assert recorder.summary().probes == len(probes)


@pytest.mark.parametrize(
    ("propagation", "kind", "words"),
    [
        ("ac3", "Revise", "arc r"),
        ("gac", "GacFilter", "no maximum matching"),
        ("sac", "Probe", "probe "),
    ],
)
def test_each_level_reports_its_own_events(propagation, kind, words):
    """The classroom's trace gets each level's step (revise, gac, probe), the replay of
    the events ends on the solution, and the narrative has a line for each."""
    from sudokulab.classroom import trace as tr
    from sudokulab.classroom.narrative import steps
    from sudokulab.models import parse_puzzle

    puzzle = parse_puzzle(EASY50_6)
    t = tr.trace_puzzle(puzzle, propagation, max_steps=None)
    events = [e for e in t.events if type(e).__name__ == kind]
    assert events and t.summary.solutions == 1
    assert tr.final_grid(t) == t.solutions[0]
    assert any(words in s.text for s in steps(t) if type(s.event).__name__ == kind)


@pytest.mark.parametrize(("engine", "size"), [(compiled, 25), (reference, 16)])
def test_sac_reads_the_clock_between_probes(engine, size):
    """One node's shaving takes seconds on an empty large grid (a probe per candidate
    of every cell): the deadline stops it between two probes, not at the next guess."""
    import time

    start = time.perf_counter()
    out = engine.Engine(size, units_of(size), "sac", "mrv").search(
        [0] * size * size, 1, deadline=start + 0.2
    )
    assert out.timed_out and not out.complete and out.count == 0
    assert time.perf_counter() - start < 2.0  # 10x the deadline
