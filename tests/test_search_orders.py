"""Search as the textbook has it: dom-wdeg, the lcv value order, and backjumping (FC-CBJ)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from helpers import random_solution, two_solution_grid

import sudokulab
from sudokulab import is_solution, read_file
from sudokulab.cli import main
from sudokulab.models import geometry
from sudokulab.native import options, reference
from sudokulab.native.options import ORDERS, PROPAGATIONS, VALUES

SEEDS = read_file(Path(__file__).resolve().parent.parent / "data" / "seeds.csv")


def units_of(size: int) -> tuple[tuple[int, ...], ...]:
    return tuple(u.cells for u in geometry(size).units)


def top95(data_dir, n: int):
    return read_file(data_dir / "norvig-pytudes" / "sudoku-top95.txt")[:n]


class Guesses:
    """A tracer keeping the cells guessed, in order, and the contradictions met; for each
    backjump, its levels and the branching ones (not forced) it passes over."""

    def __init__(self) -> None:
        self.cells: list[int] = []
        self.contradictions = 0
        self.jumps: list[tuple[int, int, tuple[int, ...]]] = []
        self.passed: list[int] = []
        self.forced_at: dict[int, bool] = {}

    def guess(self, cell, bit, candidates, depth):
        self.cells.append(cell)
        self.forced_at[depth] = False

    def forced(self, cell, bit, depth):
        self.forced_at[depth] = True

    def contradiction(self, kind, cell, unit, bits, cage=-1):
        self.contradictions += 1

    def backjump(self, from_depth, to_depth, conflict_set):
        self.jumps.append((from_depth, to_depth, conflict_set))
        levels = range(to_depth + 1, from_depth)
        self.passed.append(sum(not self.forced_at[d] for d in levels))

    def __getattr__(self, name):
        return lambda *args: None


# -- dom-wdeg and lcv ------------------------------------------------------------------


@pytest.mark.parametrize("propagation", PROPAGATIONS)
@pytest.mark.parametrize("values", VALUES)
def test_dom_wdeg_and_lcv_solutions_verify(data_dir, propagation, values):
    units = units_of(9)
    # ac3's textbook queue of arcs takes the reference a second or more a node on top95
    budget = {"none": 3_000, "forward": 3_000, "ac3": 300}.get(propagation)
    # each value order half of the first six puzzles (natural the even ones, lcv the odd)
    for entry in top95(data_dir, 6)[VALUES.index(values) :: 2]:
        puzzle = entry.puzzle
        for order in ("dom-wdeg", "mrv"):
            engine = reference.Engine(9, units, propagation, order, values=values)
            out = engine.search(puzzle.givens, limit=2, max_guesses=budget)
            assert all(is_solution(puzzle, s) for s in out.solutions)
            assert out.budget_spent or (out.count == 1 and out.complete)


def test_every_order_and_value_order_counts_the_same_solutions():
    rng = random.Random(7)
    units = units_of(6)
    for _ in range(6):
        solution = random_solution(6, rng)
        givens = [0 if rng.random() < 0.6 else v for v in solution]
        counts = set()
        for order in ORDERS:
            for values in VALUES:
                engine = reference.Engine(6, units, "forward", order, values=values)
                out = engine.search(givens, limit=None, keep=10**6)
                counts.add((out.count, frozenset(out.solutions)))
        assert len(counts) == 1


def test_the_weights_change_the_choice(data_dir):
    # dom-wdeg with its weights frozen at 1 is dom/deg: the same guesses until the first
    # contradiction raises a weight, then (on some puzzle) another cell.
    units = units_of(9)

    class Frozen(reference._Blame):
        def contradiction(self, kind, cell, unit, bits, cage=-1):
            self.inner.contradiction(kind, cell, unit, bits, cage)

    differed = 0
    for entry in top95(data_dir, 10):
        real, frozen = Guesses(), Guesses()
        reference.Engine(9, units, "hidden", "dom-wdeg", trace=real).search(
            entry.puzzle.givens, max_guesses=400
        )
        original = reference._Blame
        reference._Blame = Frozen
        try:
            reference.Engine(9, units, "hidden", "dom-wdeg", trace=frozen).search(
                entry.puzzle.givens, max_guesses=400
            )
        finally:
            reference._Blame = original
        if real.cells != frozen.cells:
            differed += 1
            first = next(
                i for i, (a, b) in enumerate(zip(real.cells, frozen.cells, strict=False)) if a != b
            )
            assert first > 0  # the first guess is made before any contradiction
        elif real.contradictions == 0:
            assert real.cells == frozen.cells
    assert differed > 0


def test_dom_wdeg_breaks_away_from_mrv_where_weights_differ(data_dir):
    # Over a set the two orders make other guesses: the counters differ on some puzzle.
    units = units_of(9)
    a = reference.Engine(9, units, "locked", "mrv")
    b = reference.Engine(9, units, "locked", "dom-wdeg")
    pairs = [
        (a.search(e.puzzle.givens, limit=2).guesses, b.search(e.puzzle.givens, limit=2).guesses)
        for e in top95(data_dir, 20)
    ]
    assert any(x != y for x, y in pairs)


def test_lcv_tries_the_least_constraining_value_first(data_dir):
    # The first guess of each puzzle, recomputed from the root: lcv takes the candidate
    # fewest unplaced peers hold (the lowest on ties), natural order the lowest.
    units = units_of(9)
    peers = reference.tables(9, units).peers
    differ = 0
    for entry in top95(data_dir, 12):
        givens = entry.puzzle.givens
        first = {}
        for values in VALUES:
            tracer = Guesses()
            seen = []
            tracer.guess = lambda cell, bit, candidates, depth, seen=seen: seen.append(
                (cell, bit.bit_length(), candidates)
            )
            engine = reference.Engine(9, units, "singles", "mrv", trace=tracer, values=values)
            engine.search(givens, max_guesses=1)
            first[values] = seen[0]
        cell, value, candidates = first["natural"]
        masks, placed = reference.Engine(9, units, "singles", "mrv").root(givens)
        held = {
            v: sum(1 for p in peers[cell] if not placed[p] and masks[p] >> (v - 1) & 1)
            for v in range(1, 10)
        }
        options = [v for v in range(1, 10) if candidates >> (v - 1) & 1]
        assert first["lcv"][0] == cell and value == min(options)
        assert first["lcv"][1] == min(options, key=lambda v: (held[v], v))
        differ += first["lcv"][1] != value
    assert differ > 0


# -- backjumping -------------------------------------------------------------------------


@pytest.mark.parametrize("propagation", options.BACKJUMP_PROPAGATIONS)
@pytest.mark.parametrize("order", ["first", "mrv", "mrv-degree"])
def test_backjumping_finds_the_same_solutions_with_fewer_nodes(propagation, order):
    # Every solution of many small grids (several with many solutions), counted out.
    rng = random.Random(len(propagation) * 10 + len(order))
    jumped = 0
    for size, blank, n in ((4, 0.7, 40), (4, 1.0, 1), (6, 0.45, 12)):
        units = units_of(size)
        for _ in range(n):
            solution = random_solution(size, rng)
            givens = [0 if rng.random() < blank else v for v in solution]
            for values in VALUES:
                plain = reference.Engine(size, units, propagation, order, values=values)
                cbj = reference.Engine(
                    size, units, propagation, order, values=values, backjump=True
                )
                a = plain.search(givens, limit=None, keep=10**6)
                b = cbj.search(givens, limit=None, keep=10**6)
                assert (b.solutions, b.count, b.complete) == (a.solutions, a.count, a.complete)
                assert b.nodes <= a.nodes and b.guesses <= a.guesses
                jumped += b.backjumps
    # and on random partial grids with clashes left in (unsolvable ones too)
    for _ in range(60):
        givens = [0] * 16
        for cell in rng.sample(range(16), rng.randint(0, 6)):
            givens[cell] = rng.randint(1, 4)
        a = reference.Engine(4, units_of(4), propagation, order).search(givens, limit=None)
        b = reference.Engine(4, units_of(4), propagation, order, backjump=True).search(
            givens, limit=None
        )
        assert (b.solutions, b.count) == (a.solutions, a.count) and b.nodes <= a.nodes
    if propagation == "none" or order == "first":  # (forward with mrv seldom jumps here)
        assert jumped > 0


def test_backjumping_on_nine_by_nine_grids(data_dir):
    units = units_of(9)
    two = two_solution_grid(SEEDS[0].solution)
    for givens in [two, *(e.puzzle.givens for e in SEEDS)]:
        for propagation in options.BACKJUMP_PROPAGATIONS:
            plain = reference.Engine(9, units, propagation, "mrv")
            cbj = reference.Engine(9, units, propagation, "mrv", backjump=True)
            a = plain.search(givens, limit=None, max_guesses=20_000)
            b = cbj.search(givens, limit=None, max_guesses=20_000)
            if a.complete and b.complete:
                assert (a.solutions, a.count) == (b.solutions, b.count)
            assert b.nodes <= a.nodes or not a.complete


def test_backjumping_skips_levels_on_a_constructed_grid():
    # 4x4, plain backtracking, cells in row order, row 4 given as .234: the dead ends in
    # rows 1 to 3 under r1c1 = 1 rest on a few early levels, not on the cells just before.
    givens = list(sudokulab.parse_puzzle("." * 12 + ".234").givens)
    units = units_of(4)
    plain = reference.Engine(4, units, "none", "first").search(givens, limit=None)
    tracer = Guesses()
    cbj = reference.Engine(4, units, "none", "first", trace=tracer, backjump=True)
    out = cbj.search(givens, limit=None)
    assert (out.solutions, out.count) == (plain.solutions, plain.count) and out.count > 1
    assert out.backjumps > 0 and out.skipped > 0 and out.nodes < plain.nodes
    assert len(tracer.jumps) == out.backjumps
    for from_depth, to_depth, conflict in tracer.jumps:
        assert to_depth < from_depth - 1
        assert conflict and max(conflict) == to_depth  # the deepest culprit


def test_backjumping_counts_the_levels_it_passes_over():
    units = units_of(4)
    tracer = Guesses()
    engine = reference.Engine(4, units, "forward", "first", trace=tracer, backjump=True)
    rng = random.Random(3)
    skipped = backjumps = forced = 0
    for _ in range(50):
        tracer.jumps.clear()
        tracer.passed.clear()
        givens = [0] * 16
        for cell in rng.sample(range(16), 4):
            givens[cell] = rng.randint(1, 4)
        out = engine.search(givens, limit=None)
        assert out.backjumps == len(tracer.jumps)
        # A forced level (one candidate) passed over skips nothing: not counted.
        assert out.skipped == sum(tracer.passed) and all(tracer.passed)
        skipped += out.skipped
        backjumps += out.backjumps
        forced += sum(tracer.forced_at.values())
    assert backjumps > 0 and skipped >= backjumps and forced > 0


def test_backjumping_refuses_levels_without_conflict_sets():
    for propagation in PROPAGATIONS:
        if propagation in options.BACKJUMP_PROPAGATIONS:
            continue
        with pytest.raises(ValueError, match="backjump needs propagation none or forward"):
            reference.Engine(9, units_of(9), propagation, backjump=True)


def test_unknown_value_orders_are_refused():
    with pytest.raises(ValueError, match="unknown values 'most': choose one of natural, lcv"):
        reference.Engine(9, units_of(9), values="most")


# -- the compiled core, the backends and the command line ------------------------------


def test_the_core_takes_values_and_refuses_backjumping():
    compiled = pytest.importorskip("sudokulab.native.compiled")
    from sudokulab.native import _core

    with pytest.raises(ValueError, match="reference engine only"):
        compiled.Engine(9, units_of(9), "forward", backjump=True)
    with pytest.raises(ValueError, match="unknown values 'most': choose one of natural, lcv"):
        _core.search(compiled.tables(9, units_of(9)), [0] * 81, values="most")
    with pytest.raises(TypeError, match="values must be a str"):
        _core.search(compiled.tables(9, units_of(9)), [0] * 81, values=1)


def test_backends_take_the_new_knobs():
    puzzle = SEEDS[2].puzzle
    for backend in ("native", "native-py"):
        result = sudokulab.solve(puzzle, backend=backend, order="dom-wdeg", values="lcv")
        assert result.status == "solved" and is_solution(puzzle, result.solutions[0])
        assert result.stats["values"] == "lcv" and result.stats["order"] == "dom-wdeg"
    result = sudokulab.solve(puzzle, backend="native-py", propagation="forward", backjump=True)
    assert result.status == "solved" and result.stats["backjump"] is True
    assert result.stats["backjumps"] >= 0 and result.stats["skipped"] >= result.stats["backjumps"]
    with pytest.raises(ValueError, match="has no option 'backjump'"):
        sudokulab.solve(puzzle, backend="native", backjump=True)
    with pytest.raises(ValueError, match="backjump needs propagation none or forward"):
        sudokulab.solve(puzzle, backend="native-py", propagation="hidden", backjump=True)
    with pytest.raises(ValueError, match="dom-wdeg runs under .* compiled core .*native-py"):
        sudokulab.solve(puzzle, backend="native", propagation="gac", order="dom-wdeg")
    result = sudokulab.solve(puzzle, backend="native-py", propagation="gac", order="dom-wdeg")
    assert result.status == "solved" and is_solution(puzzle, result.solutions[0])


def _line(givens) -> str:
    return "".join(str(v) if v else "." for v in givens)


def test_the_cli_lists_and_takes_the_knobs(capsys):
    with pytest.raises(SystemExit):
        main(["solve", "--help"])
    text = capsys.readouterr().out
    assert "dom-wdeg" in text and "--values {natural,lcv}" in text
    line = _line(SEEDS[0].puzzle.givens)
    code = main(["solve", "--order", "dom-wdeg", "--values", "lcv", line])
    out, err = capsys.readouterr()
    assert code == 0 and out.strip() == _line(SEEDS[0].solution)
    code = main(
        ["solve", "--backend", "native-py:propagation=forward,backjump=true", "--stats", line]
    )
    out, err = capsys.readouterr()
    assert code == 0 and "backjumps" in err


def test_the_cli_refuses_knobs_that_exclude_each_other(capsys):
    """Options that exclude each other are a usage error (exit 2) naming both, whether
    they come in the spec or from --propagation and --order, never a traceback."""
    line = _line(SEEDS[0].puzzle.givens)
    for argv, words in [
        (["--propagation", "sac", "--order", "dom-wdeg"], "order dom-wdeg runs under"),
        (["--backend", "native-py:backjump=true"], "backjump needs propagation none or"),
        (["--backend", "native-py:backjump=true", "--propagation", "gac"], "backjump needs"),
    ]:
        assert main(["solve", *argv, line]) == 2
        out, err = capsys.readouterr()
        assert words in err and "Traceback" not in err and not out
    code = main(["solve", "--backend", "native-py:backjump=true", "--propagation", "none", line])
    assert code == 0 and capsys.readouterr().out.strip() == _line(SEEDS[0].solution)
