"""The `dlx` backends: the exact-cover matrix, secondary columns, the refusal of killer
cages, its counters, Algorithm X's answers against brute force, and the compiled cover
(`dlx`) against the Python one (`dlx-py`): the same solutions in the same order, counts,
nodes and updates, on every shape; its deadlines, Ctrl-C and bad input."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import random
import threading
import time

import numpy as np
import pytest
from helpers import random_solution

from sudokulab import Puzzle, build_model, is_solution, parse_puzzle, solve
from sudokulab.backends import dlx, get_backend
from sudokulab.catalog import load
from sudokulab.models import geometry
from sudokulab.models.grids import Grids
from sudokulab.models.model import AllDifferent
from sudokulab.models.variants import with_variant
from sudokulab.native import _core as core

pytestmark = pytest.mark.core

#: The compiled cover and the Python one, whatever the seam chose for `dlx`.
C, PY = dlx.DlxBackend("dlx-c", "c"), dlx.DlxBackend("dlx-py", "python")
needs_core = pytest.mark.skipif(core is None, reason="the compiled core is not built or forced off")

SEED_PUZZLE = "....5.264..7..9..35..62....8......9.7..34..86.....2.3....9.....9.476........3...."


@functools.cache
def all_4x4() -> list[tuple[int, ...]]:
    """Every 4x4 grid, by brute force over rows (no solver involved)."""
    perms = list(itertools.permutations(range(1, 5)))
    grids = []
    for rows in itertools.product(perms, repeat=4):
        grid = tuple(v for row in rows for v in row)
        if is_solution(Puzzle.from_grid([0] * 16), grid):
            grids.append(grid)
    return grids


def test_the_matrix_of_a_classic_grid():
    m = dlx.matrix(81, 9, tuple(c.cells for c in build_model(parse_puzzle("." * 81)).constraints))
    # a row per (cell, value); a column per cell and per (unit, value); four ones a row
    assert (len(m.rows), m.columns, m.primary) == (729, 324, 324)
    assert len(m.left) - m.columns - 1 == 729 * 4
    assert sum(m.size[1:]) == 729 * 4 and set(m.size[1:]) == {9}


def test_counts_and_grids_agree_with_brute_force():
    grids = all_4x4()
    assert len(grids) == 288
    result = solve("." * 16, "dlx", limit=None)
    assert result.exact and sorted(result.solutions) == sorted(grids)
    one = solve("1..." + "." * 12, "dlx", limit=None)
    assert sorted(one.solutions) == sorted(g for g in grids if g[0] == 1)


def test_a_unit_of_fewer_cells_is_a_secondary_column():
    # r1c1 and r4c4 share no unit; an extra AllDifferent of those two cells is "at most
    # once" per value: secondary columns, never branched on.
    model = build_model(parse_puzzle("." * 16))
    extra = AllDifferent((0, 15), "extra")
    model = type(model)(model.puzzle, model.domains, (*model.constraints, extra))
    result = get_backend("dlx").solve(model, limit=None)
    want = sorted(g for g in all_4x4() if g[0] != g[15])
    assert result.exact and sorted(result.solutions) == want
    line = get_backend("dlx").describe(model)
    assert ", 4 secondary)" in line


def test_killer_cages_are_refused_with_the_reason():
    puzzle = load("gen-killer").entries[0].puzzle
    result = solve(puzzle, "dlx")
    assert result.status == "error"
    assert "killer cages are not exact cover" in result.message
    with pytest.raises(ValueError, match="a sum is no covering condition"):
        get_backend("dlx").solve(build_model(puzzle))


def test_stats_and_describe():
    result = solve(SEED_PUZZLE, "dlx", limit=2)
    stats = result.stats
    assert (stats["rows"], stats["columns"], stats["ones"]) == (729, 324, 2916)
    assert stats["nodes"] >= 56 and stats["updates"] > stats["nodes"]  # 56 open cells
    assert get_backend("dlx").describe(build_model(parse_puzzle(SEED_PUZZLE))) == (
        "dlx: exact cover of 729 rows (cell, value) by 324 columns (81 cells, 243 "
        "unit-values), 2916 ones; 25 rows chosen by the givens"
    )
    # a puzzle its givens alone solve: no row tried, one solution, exact
    answer = result.solution
    full = solve("".join(map(str, answer)), "dlx", limit=2)
    assert (full.count, full.exact, full.stats["nodes"]) == (1, True, 0)


def test_dlx_py_runs_python_and_dlx_says_which_engine_ran():
    from sudokulab import native

    assert get_backend("dlx-py").engine == "python"
    assert get_backend("dlx").engine == native.ENGINE
    for name in ("dlx", "dlx-py"):
        backend = get_backend(name)
        assert solve("." * 16, name).stats["engine"] == backend.engine
        assert backend.batch == (backend.engine == "c")


def same(model, limit=2):
    """The compiled cover and the Python one on one model: every field of the answer."""
    c, py = C.solve(model, limit=limit), PY.solve(model, limit=limit)
    assert (c.status, c.count, c.exact, c.solutions) == (py.status, py.count, py.exact,
                                                         py.solutions)  # fmt: skip
    assert {**c.stats, "engine": "python"} == py.stats
    return c


@needs_core
def test_the_compiled_matrix_is_the_python_one():
    odd = ((0, 15), *(u.cells for u in geometry(4).units), (1, 2, 3, 4, 5))
    shapes = [(4, odd), *((n, tuple(u.cells for u in geometry(n).units)) for n in (6, 9, 16))]
    for size, units in shapes:
        m = dlx.matrix(size * size, size, units)
        cover = core.Cover(size, units)
        assert cover.links() == (m.left, m.right, m.up, m.down, m.column, m.size)
        assert (cover.rows, cover.columns, cover.primary) == (len(m.rows), m.columns, m.primary)


@needs_core
@pytest.mark.parametrize("name", ["gen-4x4", "gen-16x16", "gen-x", "gen-jigsaw", "seeds"])
def test_compiled_and_python_agree_on_the_shipped_sets(name):
    for entry in load(name).entries:
        result = same(build_model(entry.puzzle), limit=2)
        assert all(is_solution(entry.puzzle, g) for g in result.solutions)


@needs_core
@pytest.mark.parametrize("name", ["top95", "sudoku17"])
def test_compiled_and_python_agree_on_the_classic_sets(name, data_dir):
    loaded = load(name, [data_dir], sample=150, seed=3)
    assert len(loaded.entries) >= 95
    for entry in loaded.entries:
        same(build_model(entry.puzzle), limit=2)


@needs_core
def test_compiled_and_python_agree_when_counting_and_on_windoku_and_partial_units():
    same(build_model(parse_puzzle("." * 16)), limit=None)  # all 288, in the same order
    same(build_model(parse_puzzle("1..." + "." * 12)), limit=None)
    # windoku: four more 9-cell units (primary columns), few givens, many solutions
    rng = random.Random(5)
    windoku = with_variant(parse_puzzle("." * 81), ["hyper"])
    assert same(build_model(windoku), limit=40).count == 40
    x = with_variant(parse_puzzle("." * 81), ["x"])
    same(build_model(x), limit=25)
    # units of fewer cells than values: secondary columns
    model = build_model(parse_puzzle("." * 16))
    extra = (AllDifferent((0, 15), "extra"), AllDifferent((1, 6, 11), "three"))
    model = dataclasses.replace(model, constraints=(*model.constraints, *extra))
    assert same(model, limit=None).count == len(
        [g for g in all_4x4() if g[0] != g[15] and len({g[1], g[6], g[11]}) == 3]
    )
    # a 9x9 solution with a few givens and x: many, in one order
    grid = random_solution(9, rng)
    givens = [v if rng.random() < 0.25 else 0 for v in grid]
    same(build_model(Puzzle.from_grid(givens)), limit=30)


@needs_core
def test_compiled_and_python_agree_on_narrowed_domains():
    rng = random.Random(11)
    for size, others in ((4, 0.4), (9, 0.4), (16, 0.1)):
        for _ in range(12 if size < 16 else 3):
            grid = random_solution(size, rng)
            model = build_model(Puzzle.from_grid([0] * size * size))
            domains = []
            for v in grid:  # the solution's value and some others, sometimes one alone
                keep = {v} | {w for w in range(1, size + 1) if rng.random() < others}
                domains.append(tuple(sorted(keep)))
            model = dataclasses.replace(model, domains=tuple(domains))
            result = same(model, limit=5 if size < 16 else 1)
            assert result.count >= 1
    # an empty domain, and a domain that excludes a given's value elsewhere: none
    model = build_model(parse_puzzle("1" + "." * 15))
    same(dataclasses.replace(model, domains=((1,), (), *model.domains[2:])), limit=None)


@needs_core
def test_clashing_givens_and_a_full_grid():
    # the front door checks clashes; the backend on its own proves no cover, with no row
    clash = build_model(Puzzle.from_grid([1, 1] + [0] * 14))
    result = same(clash, limit=None)
    assert (result.status, result.stats["nodes"]) == ("unsolvable", 0)
    full = same(build_model(Puzzle.from_grid(list(all_4x4()[7]))), limit=2)
    assert (full.count, full.exact, full.stats["nodes"]) == (1, True, 0)


@needs_core
def test_a_block_in_one_call_gives_each_puzzle_its_own_answer():
    entries = [*load("gen-4x4").entries, *load("seeds").entries]
    nine = [e.puzzle for e in entries if e.puzzle.geometry.size == 9]
    grids = Grids.of(nine + [parse_puzzle("." * 81)])
    answers = C.solve_grids(grids, limit=2)
    for i, puzzle in enumerate([*nine, parse_puzzle("." * 81)]):
        one = PY.solve(build_model(puzzle), limit=2)
        row = answers.result(i)
        assert (row.status, row.count, row.exact, row.solution) == (
            one.status, one.count, one.exact, one.solution)  # fmt: skip
        assert {**row.stats, "engine": "python"} == one.stats
    assert np.all(answers.guesses == -1) and list(answers.nodes) == [
        answers.stats_of(i)["nodes"] for i in range(len(answers))
    ]


@needs_core
def test_a_block_of_pencil_mark_puzzles_is_searched_on_its_candidates():
    rng = random.Random(17)
    geom = geometry(9)
    puzzles = []
    for _ in range(20):
        grid = random_solution(9, rng)
        masks = [(1 << (v - 1)) | sum(1 << w for w in range(9) if rng.random() < 0.3) for v in grid]
        puzzles.append(Puzzle.from_candidates(masks, geom))
    marked = [p for p in puzzles if p.candidates is not None]
    assert len(marked) >= 15
    answers = C.solve_grids(Grids.of(marked), limit=2)
    for i, puzzle in enumerate(marked):
        one = PY.solve(build_model(puzzle), limit=2)
        row = answers.result(i)
        assert (row.status, row.count, row.solution) == (one.status, one.count, one.solution)
        assert {**row.stats, "engine": "python"} == one.stats


@needs_core
@pytest.mark.parametrize("limit", [None, 10**12])
def test_a_count_without_end_stops_at_the_deadline_with_a_timeout(limit):
    # every 16x16 grid: far beyond any deadline on any machine, so the verdict is timeout
    for name in ("dlx", "dlx-py"):
        result = solve("." * 256, name, limit=limit, timeout=0.3)
        assert (result.status, result.exact) == ("timeout", False)
        assert result.count >= 1 and is_solution(parse_puzzle("." * 256), result.solution)
    grids = Grids.of([parse_puzzle("." * 625)] * 2)
    answers = C.solve_grids(grids, limit=limit, timeout=0.3)
    assert list(answers.status_names()) == ["timeout", "timeout"]
    assert not answers.exact.any() and (answers.count >= 1).all()


@needs_core
def test_interrupt_stops_a_compiled_count_in_another_thread():
    from sudokulab import native

    cover = core.Cover(16, tuple(u.cells for u in geometry(16).units))
    masks = np.full(256, 0xFFFF, dtype=np.uint32)
    caught: list[BaseException] = []
    started = threading.Event()

    def count() -> None:
        started.set()
        try:
            cover.search(masks, None, None, 1)  # no limit, no deadline: endless
        except BaseException as exc:  # noqa: BLE001 - what the thread got is the test
            caught.append(exc)

    thread = threading.Thread(target=count)
    thread.start()
    started.wait()
    time.sleep(0.2)
    native.interrupt()
    thread.join(60)
    assert not thread.is_alive() and len(caught) == 1
    assert isinstance(caught[0], KeyboardInterrupt)
    # a search started later runs
    _, counters = cover.search(masks, 3, None, 3)
    assert np.frombuffer(counters, dtype=np.int64)[0] == 3


@needs_core
def test_bad_input_to_the_compiled_cover_is_an_error_naming_it():
    units = tuple(u.cells for u in geometry(4).units)
    with pytest.raises(ValueError, match="size must be in 1..25"):
        core.Cover(26, units)
    with pytest.raises(ValueError, match="unit 1 holds cell 3 twice"):
        core.Cover(4, ((0, 1, 2, 3), (3, 3)))
    with pytest.raises(ValueError, match="a unit's cell must be in 0..15"):
        core.Cover(4, ((0, 16),))
    with pytest.raises(TypeError, match="a unit's cell must be an int"):
        core.Cover(4, (("a",),))
    with pytest.raises(TypeError):
        core.Cover(4, 5)
    cover = core.Cover(4, units)
    masks = np.full(16, 15, dtype=np.uint32)
    with pytest.raises(ValueError, match="masks must be 4-byte unsigned ints, 16 a puzzle"):
        cover.search(masks[:15])
    with pytest.raises(ValueError, match="masks must be 4-byte"):
        cover.search(masks.astype(np.uint8))
    bad = masks.copy()
    bad[5] = 16
    with pytest.raises(ValueError, match="puzzle 0: cell 5: candidate mask 16 has values"):
        cover.search(bad)
    with pytest.raises(ValueError, match="limit must be at least 1"):
        cover.search(masks, 0)
    with pytest.raises(TypeError, match="limit must be an int or None"):
        cover.search(masks, 1.5)
    with pytest.raises(ValueError, match="keep must be at least 0"):
        cover.search(masks, 1, None, -1)
    with pytest.raises(ValueError, match="timeout must be a number of seconds, not nan"):
        cover.search(masks, 1, float("nan"))
    # nothing kept, still counted; an empty buffer is no puzzle
    grids, counters = cover.search(masks, None, None, 0)
    assert grids == b"" and np.frombuffer(counters, dtype=np.int64)[0] == 288
    assert cover.search(np.zeros(0, dtype=np.uint32)) == (b"", b"")
