"""The `local` backend: local search (min-conflicts, simulated annealing), incomplete.

Its answers verify, on every shape and variant it takes; it says `solved` or `timeout`,
never `unsolvable`, `multiple` or a count; a seed repeats its moves; its deadline and its
move budget stop it; the cross-check and the bench take its timeouts as timeouts. Each
verdict here rests on a move budget, not on the machine's speed, except where the
deadline itself is under test.
"""

from __future__ import annotations

import dataclasses
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from helpers import random_cages, random_solution

from sudokulab import Puzzle, build_model, is_solution, solve
from sudokulab.backends import all_backends, get_backend
from sudokulab.backends.base import admit
from sudokulab.backends.local import CANNOT_COUNT, NO_BOXES, STUCK
from sudokulab.bench import BenchPlan, LocalExecutor, run_bench
from sudokulab.bench.crosscheck import available_specs, cross_check
from sudokulab.bench.store import Store
from sudokulab.cli import main
from sudokulab.models import Cage, make_geometry, read_file
from sudokulab.models.geometry import _classic_units

DATA = Path(__file__).resolve().parent.parent / "data"
METHODS = ("min-conflicts", "annealing")
#: Moves enough for the easy puzzles below with the default seed: a budget, so that the
#: verdicts do not depend on the machine's speed.
BUDGET = 300_000
#: Row 1 holds 1..8, so r1c9 must be 9, which r2c9 holds: forward checking from the
#: givens leaves r1c9 no candidate (the contract's unsolvable puzzle).
STUCK_GRID = list(range(1, 9)) + [0] * 9 + [9] + [0] * 63
#: A shipped easy grid with one given changed: no solution (the native engine proves it),
#: though every cell keeps a candidate, so the local search runs until it is stopped.
UNSOLVABLE = ".831...5...7.2.3.925.4...6736..945......8...6.9.2658...2.61.......847.....695.4.1"


def easy(puzzle: Puzzle, solution, blanks: int, seed: int = 0) -> Puzzle:
    """The puzzle with every cell of its solution given but ``blanks`` random ones."""
    rng = random.Random(seed)
    cells = rng.sample(range(len(solution)), blanks)
    givens = list(solution)
    for c in cells:
        givens[c] = 0
    return dataclasses.replace(puzzle, givens=tuple(givens))


def spec(method: str, **options: object) -> str:
    extra = "".join(f",{k}={v}" for k, v in options.items())
    return f"local:method={method},budget={BUDGET}{extra}"


@pytest.mark.parametrize("method", METHODS)
def test_every_shipped_4x4_puzzle_solved_and_verified(method):
    for entry in read_file(DATA / "gen-4x4.jsonl"):
        result = solve(entry.puzzle, spec(method))
        assert result.status == "solved", (entry.name, result)
        assert is_solution(entry.puzzle, result.solution)
        assert result.solution == entry.solution  # the puzzles have one solution
        assert result.stats["best_cost"] == 0 and result.count == 1 and not result.exact


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", ["gen-classic-easy", "gen-x", "gen-jigsaw", "gen-killer"])
def test_easy_puzzles_of_each_variant_solved_and_verified(method, name):
    # the shipped grids with 30 blanks: easy for a local search, whatever the variant
    for entry in read_file(DATA / f"{name}.jsonl")[:3]:
        puzzle = easy(entry.puzzle, entry.solution, 30)
        result = solve(puzzle, spec(method))
        assert result.status == "solved", (entry.name, result)
        assert is_solution(puzzle, result.solution)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("size", [6, 16])
def test_other_sizes(method, size):
    rng = random.Random(size)
    solution = random_solution(size, rng)
    blanks = size * size // 4
    puzzle = easy(Puzzle.from_grid([0] * size * size), solution, blanks, seed=size)
    result = solve(puzzle, spec(method))
    assert result.status == "solved", result
    assert is_solution(puzzle, result.solution)


def test_killer_cages_count_in_the_cost():
    # few givens, so the cages' sums decide; both methods carry them
    rng = random.Random(4)
    solution = random_solution(4, rng)
    cages = tuple(Cage(c, sum(solution[i] for i in c)) for c in random_cages(solution, rng, 3))
    puzzle = Puzzle.from_grid([0] * 16)
    puzzle = dataclasses.replace(puzzle, cages=cages)
    for method in METHODS:
        result = solve(puzzle, spec(method))
        assert result.status == "solved", (method, result)
        assert is_solution(puzzle, result.solution)


def test_pencil_marks_are_its_domains():
    entry = read_file(DATA / "gen-classic-easy.jsonl")[0]
    puzzle = easy(entry.puzzle, entry.solution, 30)
    n = 9
    # each blank cell: its solution's value and one other, the other listed first
    marks = [1 << (v - 1) for v in entry.solution]
    for c, given in enumerate(puzzle.givens):
        if not given:
            other = entry.solution[c] % n + 1
            marks[c] |= 1 << (other - 1)
    marked = dataclasses.replace(puzzle, candidates=tuple(marks))
    for method in METHODS:
        result = solve(marked, spec(method))
        assert result.status == "solved", (method, result)
        assert is_solution(marked, result.solution)
        assert all(marks[c] >> (v - 1) & 1 for c, v in enumerate(result.solution))


@pytest.mark.parametrize("method", METHODS)
def test_never_unsolvable_it_stops_at_its_budget(method):
    assert solve(UNSOLVABLE, "native", limit=2).status == "unsolvable"
    result = solve(UNSOLVABLE, f"local:method={method},budget=20000", limit=2)
    assert (result.status, result.count, result.exact) == ("timeout", 0, False)
    assert result.stats["budget_spent"] and result.stats["moves"] == 20000
    assert result.stats["best_cost"] > 0
    assert "budget of 20000 moves" in result.message


def test_cells_without_a_choice_that_break_the_rules_end_at_once():
    # r1c9 and r2c9 can only be 9 (their rows hold the rest): they clash, no move helps
    grid = list(range(1, 9)) + [0] + [4, 5, 6, 7, 8, 1, 2, 3, 0] + [0] * 63
    for method in METHODS:
        result = solve(Puzzle.from_grid(grid), f"local:method={method}")
        assert result.status == "timeout" and result.message == STUCK
    # and a cell its given peers leave without a candidate is named
    grid = list(range(1, 9)) + [0] + [0] * 8 + [9] + [0] * 63
    for method in METHODS:
        result = solve(Puzzle.from_grid(grid), f"local:method={method}")
        assert result.status == "timeout"
        assert result.message == "r1c9 has no candidate left by its given peers"


@pytest.mark.parametrize("method", METHODS)
def test_a_tiny_timeout_is_a_timeout(method):
    hard = read_file(DATA / "gen-classic-extreme.jsonl")[0].puzzle
    start = time.perf_counter()
    result = solve(hard, f"local:method={method}", timeout=0.01)
    took = time.perf_counter() - start
    assert result.status == "timeout" and not result.solutions, result
    assert not result.stats["budget_spent"]  # the deadline stopped it, not the budget
    assert took < 1.0  # the stop itself (100x the timeout)


def test_without_a_timeout_the_default_budget_stops_it(monkeypatch):
    from sudokulab.backends import local

    monkeypatch.setattr(local, "DEFAULT_BUDGET", 5000)  # read at each search
    result = solve(UNSOLVABLE, "local")
    assert result.status == "timeout" and result.stats["moves"] == 5000
    assert result.stats["budget_spent"]
    # with a timeout the default budget does not apply: the deadline stops it
    result = solve(UNSOLVABLE, "local", timeout=0.5)
    assert result.status == "timeout" and not result.stats["budget_spent"]


@pytest.mark.parametrize("method", METHODS)
def test_a_seed_repeats_its_moves(method):
    entry = read_file(DATA / "gen-classic-easy.jsonl")[1]
    puzzle = easy(entry.puzzle, entry.solution, 35)
    runs = [solve(puzzle, spec(method, seed=s)) for s in (7, 7, 8)]
    assert runs[0].status == "solved"
    assert runs[0].solution == runs[1].solution
    assert runs[0].stats == runs[1].stats
    assert runs[2].stats["seed"] == 8
    # and a timeout repeats too: the same moves to the same best cost
    a, b = (solve(UNSOLVABLE, f"local:method={method},budget=5000,seed=3") for _ in range(2))
    assert a.stats == b.stats


def test_more_than_one_solution_asked_is_a_timeout_with_the_one_found():
    entry = read_file(DATA / "gen-4x4.jsonl")[0]
    result = solve(entry.puzzle, "local", limit=2)
    assert (result.status, result.count, result.exact) == ("timeout", 1, False)
    assert result.unique is None and result.message == CANNOT_COUNT
    assert is_solution(entry.puzzle, result.solution)


def test_annealing_needs_boxes():
    # a 4x4 Latin square: rows and columns, no boxes
    units = _classic_units(4, 2, 2)[:8]
    latin = Puzzle(make_geometry(4, 2, 2, units), (1,) + (0,) * 15)
    result = solve(latin, "local:method=annealing")
    assert result.status == "error" and result.message == NO_BOXES
    result = solve(latin, "local")  # min-conflicts needs none
    assert result.status == "solved" and is_solution(latin, result.solution)
    assert "no boxes: min-conflicts only" in get_backend("local").describe(build_model(latin))


@pytest.mark.parametrize(
    ("option", "says"),
    [
        ("method=tabu", "method='tabu' is not one of min-conflicts, annealing"),
        ("walk=1.5", "walk='1.5' is not a valid number from 0 to 1"),
        ("cooling=1", "cooling='1' is not a valid number above 0 and below 1"),
        ("budget=0", "budget='0' is not a valid whole number (1 or more)"),
        ("tabu=-1", "tabu='-1' is not a valid whole number (0 or more)"),
        ("seed=x", "seed='x' is not a valid whole number (0 or more)"),
        ("steps=3", "backend 'local' has no option 'steps'"),
    ],
)
def test_bad_options_are_named(option, says, capsys):
    with pytest.raises(ValueError, match=says.replace("(", r"\(").replace(")", r"\)")):
        solve("." * 16, f"local:{option}")
    with pytest.raises(SystemExit) as exit_:
        main(["solve", "." * 16, "--backend", f"local:{option}"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"error: argument --backend: backend 'local': {says}" in err or says in err
    assert "Traceback" not in err


def test_backends_lists_it_as_incomplete(capsys):
    assert not get_backend("local").complete
    assert [n for n, b in all_backends().items() if not b.complete] == ["local"]
    assert main(["backends"]) == 0
    out = capsys.readouterr().out
    block = out[out.index("\nlocal ") :].splitlines()[1:5]
    assert any("incomplete: answers solved or timeout" in line for line in block)
    assert any("method=min-conflicts|annealing" in line for line in block)


def test_check_takes_its_timeouts_as_timeouts(capsys):
    # unsolvable: the native engine proves it, local search times out; no disagreement
    stuck = Puzzle.from_grid([int(c) if c != "." else 0 for c in UNSOLVABLE])
    frame = cross_check([stuck], ["native", "local:budget=20000"], timeout=30)
    rows = frame.set_index("backend")
    assert rows.loc["native", "status"] == "unsolvable"
    assert rows.loc["local:budget=20000", "status"] == "timeout"
    assert frame["agrees"].isna().all()  # one conclusive answer: nothing to compare
    # a puzzle with a solution: local keeps the one it found, verified, and agrees with
    # nobody and disagrees with nobody (check asks for two solutions)
    entry = read_file(DATA / "gen-classic-easy.jsonl")[0]
    puzzle = easy(entry.puzzle, entry.solution, 20)
    frame = cross_check([puzzle, stuck], ["native", "dlx", "local:budget=20000"], timeout=30)
    local = frame[frame["backend"].str.startswith("local")]
    assert list(local["status"]) == ["timeout", "timeout"]
    assert local["verified"].iloc[0] and local["agrees"].isna().all()
    assert frame[frame["backend"] != local["backend"].iloc[0]]["agrees"].iloc[:2].all()
    assert not (frame["agrees"] == False).any()  # noqa: E712
    # the command: a timeout fails the check (exit 1), and is not called a disagreement
    text = str(stuck)
    assert main(["check", text, "--backends", "native,local:budget=20000"]) == 1
    out = capsys.readouterr().out
    assert "disagrees" not in out and "timeout" in out


def test_check_and_bench_leave_it_out_unless_named():
    assert "local" not in {s.backend for s in available_specs()}
    from sudokulab.cli.bench import default_specs

    assert "local" not in default_specs()


def test_the_bench_takes_its_timeouts_as_timeouts(tmp_path):
    entry = read_file(DATA / "gen-classic-easy.jsonl")[0]
    stuck = Puzzle.from_grid([int(c) if c != "." else 0 for c in UNSOLVABLE])
    sets = {"s": [(0, easy(entry.puzzle, entry.solution, 20)), (1, stuck)]}
    local = "local:budget=20000"
    plan = BenchPlan(["s"], ["native", local], timeout=None)
    with Store(tmp_path / "r.sqlite") as store:
        run = run_bench(plan, store, lambda name, plan: sets[name], LocalExecutor(1),
                        progress=False)  # fmt: skip
        rows = store.results([run]).set_index(["idx", "backend"])
    assert rows.loc[(0, local), "status"] == "solved" and rows.loc[(0, local), "verified"]
    assert rows.loc[(0, local), "agrees"] and rows.loc[(0, "native"), "agrees"]
    assert rows.loc[(1, local), "status"] == "timeout" and rows.loc[(1, "native"), "status"] == (
        "unsolvable"
    )
    assert rows.loc[(1, local), "agrees"] is None and rows.loc[(1, "native"), "agrees"] is None
    # with --unique (limit 2) its answer is a timeout, with no verdict to compare
    plan = BenchPlan(["s"], ["native", local], timeout=None, unique=True)
    with Store(tmp_path / "u.sqlite") as store:
        run = run_bench(plan, store, lambda name, plan: sets[name], LocalExecutor(1),
                        progress=False)  # fmt: skip
        rows = store.results([run]).set_index(["idx", "backend"])
    assert rows.loc[(0, local), "status"] == "timeout" and rows.loc[(0, local), "agrees"] is None
    assert rows.loc[(0, "native"), "status"] == "solved"


def test_ctrl_c_stops_it():
    code = textwrap.dedent(
        """
        import sys
        from sudokulab import solve
        print("ready", flush=True)
        try:
            solve(sys.argv[1], "local:budget=1000000000")
        except KeyboardInterrupt:
            print("KeyboardInterrupt", flush=True)
            sys.exit(130)
        """
    )
    process = subprocess.Popen([sys.executable, "-c", code, UNSOLVABLE], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert process.stdout.readline() == "ready\n"
        time.sleep(0.5)  # into the search (an unsolvable puzzle: it never ends by itself)
        os.kill(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert (process.returncode, out, err) == (130, "KeyboardInterrupt\n", "")


# -- the hybrid: propagation first, then annealing on the open cells (Lewis) -------------

HYBRID = f"local:method=hybrid,budget={BUDGET}"


def open_domains(puzzle: Puzzle, level: str = "locked") -> tuple[tuple[int, ...], ...]:
    """Each cell's candidates after the native reference engine's root at ``level``."""
    from sudokulab.native import reference

    model = build_model(puzzle)
    units = tuple(c.cells for c in model.constraints if c.kind == "alldifferent")
    cages = tuple((c.cells, c.total) for c in model.constraints if c.kind == "sum")
    masks = reference.Engine(model.size, units, level, "mrv", cages).root(model.givens)[0]
    return tuple(tuple(v for v in range(1, model.size + 1) if m >> (v - 1) & 1) for m in masks)


@pytest.mark.parametrize("name", ["gen-classic-hard", "gen-classic-expert", "gen-classic-extreme"])
def test_hybrid_solves_puzzles_propagation_leaves_open(name):
    for entry in read_file(DATA / f"{name}.jsonl")[:3]:
        domains = open_domains(entry.puzzle)
        result = solve(entry.puzzle, HYBRID)
        assert result.status == "solved", (entry.name, result)
        assert is_solution(entry.puzzle, result.solution)
        assert result.solution == entry.solution  # the shipped puzzles have one solution
        stats = result.stats
        assert stats["propagation"] == "locked" and stats["method"] == "hybrid"
        assert stats["open_cells"] == sum(len(d) > 1 for d in domains) > 0


@pytest.mark.parametrize("name", ["gen-x", "gen-jigsaw", "gen-killer"])
def test_hybrid_takes_the_variants(name):
    for entry in read_file(DATA / f"{name}.jsonl")[:3]:
        puzzle = easy(entry.puzzle, entry.solution, 45)
        result = solve(puzzle, HYBRID)
        assert result.status == "solved", (entry.name, result)
        assert is_solution(puzzle, result.solution)


def test_hybrid_on_other_sizes_and_pencil_marks():
    for size in (6, 16):
        rng = random.Random(size)
        solution = random_solution(size, rng)
        puzzle = easy(Puzzle.from_grid([0] * size * size), solution, size * size // 2, seed=size)
        result = solve(puzzle, HYBRID)
        assert result.status == "solved", result
        assert is_solution(puzzle, result.solution)
    entry = read_file(DATA / "gen-classic-extreme.jsonl")[0]
    marks = [0] * 81  # each open cell: its solution's value and the next one
    for c, given in enumerate(entry.puzzle.givens):
        v = entry.solution[c]
        marks[c] = 1 << (v - 1) if given else (1 << (v - 1)) | (1 << (v % 9))
    marked = dataclasses.replace(entry.puzzle, candidates=tuple(marks))
    result = solve(marked, HYBRID)
    assert result.status == "solved" and result.solution == entry.solution


def test_a_puzzle_propagation_settles_takes_no_move():
    entry = read_file(DATA / "gen-classic-easy.jsonl")[0]
    assert all(len(d) == 1 for d in open_domains(entry.puzzle))  # locked settles it
    for spec in ("local:method=hybrid", "local:method=min-conflicts,propagation=locked"):
        result = solve(entry.puzzle, spec)
        assert result.status == "solved" and result.solution == entry.solution
        assert (result.stats["moves"], result.stats["open_cells"]) == (0, 0)
        assert result.stats["best_cost"] == 0


class Watcher:
    """A tracer that checks every assignment the search holds against the candidates."""

    def __init__(self, domains):
        self.domains = domains
        self.values: list[int] = []
        self.moved: set[int] = set()
        self.events = []

    def propagate(self, level, domains, contradiction):
        self.events.append(("propagate", level, domains, contradiction))

    def start(self, values, cost, temperature):
        self.values = list(values)
        self.events.append(("start", tuple(values), cost, temperature))
        self.check()

    def move(self, cell, old, new, *rest):
        self.values[cell] = new
        self.moved.add(cell)
        self.events.append(("move", cell, old, new, *rest))
        self.check()

    def swap(self, box, i, j, delta, cost, temperature, accepted):
        self.moved |= {i, j}
        if accepted:
            self.values[i], self.values[j] = self.values[j], self.values[i]
        self.events.append(("swap", box, i, j, delta, cost, temperature, accepted))
        self.check()

    def rotate(self, box, cells, delta, cost, temperature, accepted):
        self.moved |= set(cells)
        if accepted:
            held = [self.values[c] for c in cells]
            for c, v in zip(cells, held[1:] + held[:1], strict=True):
                self.values[c] = v
        self.events.append(("rotate", box, cells, delta, cost, temperature, accepted))
        self.check()

    def reheat(self, temperature, cost):
        self.events.append(("reheat", temperature, cost))

    def check(self):
        assert all(v in d for v, d in zip(self.values, self.domains, strict=True))


@pytest.mark.parametrize("method", ["hybrid", "min-conflicts", "annealing"])
def test_with_propagation_it_moves_only_the_open_cells_within_their_candidates(method):
    backend = get_backend("local")
    entry = read_file(DATA / "gen-classic-extreme.jsonl")[1]
    domains = open_domains(entry.puzzle)
    model = build_model(entry.puzzle)
    # (plain annealing's swaps, kept to the candidates, often cannot repair this one:
    # a budget, and no verdict asked of it)
    budget = 20_000 if method == "annealing" else BUDGET
    options = {"method": method, "propagation": "locked", "budget": budget, "seed": 2}
    watcher = Watcher(domains)
    result = backend.search(model, admit(backend, model, 1, None, options), tracer=watcher)
    if method != "annealing":
        assert result.status == "solved" and is_solution(entry.puzzle, result.solution)
    open_cells = {c for c, d in enumerate(domains) if len(d) > 1}
    assert watcher.moved and watcher.moved <= open_cells
    assert watcher.events[0] == ("propagate", "locked", domains, "")
    # without propagation the same method moves cells locked propagation settles
    if method != "hybrid":
        plain = Watcher([d for d in build_model(entry.puzzle).domains])
        options = {"method": method, "budget": 20_000, "seed": 2}
        backend.search(model, admit(backend, model, 1, None, options), tracer=plain)
        assert plain.moved - open_cells


def test_the_hybrid_uses_rings_where_swaps_cannot_reach():
    # rings of three or more cells are tried, each cell taking a candidate (checked)
    entry = read_file(DATA / "gen-classic-extreme.jsonl")[1]
    backend = get_backend("local")
    model = build_model(entry.puzzle)
    watcher = Watcher(open_domains(entry.puzzle))
    options = {"method": "hybrid", "budget": BUDGET, "seed": 2}
    backend.search(model, admit(backend, model, 1, None, options), tracer=watcher)
    rings = [e for e in watcher.events if e[0] == "rotate"]
    assert rings and all(len(e[2]) >= 3 for e in rings)
    assert any(e[-1] for e in rings)  # some were taken


def test_the_hybrid_repeats_its_moves_with_a_seed():
    backend = get_backend("local")
    entry = read_file(DATA / "gen-classic-extreme.jsonl")[2]
    model = build_model(entry.puzzle)
    runs = []
    for seed in (5, 5, 6):
        watcher = Watcher(open_domains(entry.puzzle))
        options = {"method": "hybrid", "budget": BUDGET, "seed": seed}
        result = backend.search(model, admit(backend, model, 1, None, options), tracer=watcher)
        runs.append((result, watcher.events))
    (a, ea), (b, eb), (c, ec) = runs
    assert a.status == "solved" and (a.solution, a.stats, ea) == (b.solution, b.stats, eb)
    assert ec != ea and c.stats["seed"] == 6
    # the tracer changes nothing
    plain = solve(entry.puzzle, f"local:method=hybrid,budget={BUDGET},seed=5")
    assert plain.stats == a.stats and plain.solution == a.solution
    # and a timeout repeats too
    x, y = (solve(UNSOLVABLE, "local:method=hybrid,propagation=forward,budget=5000,seed=3")
            for _ in range(2))  # fmt: skip
    assert x.status == "timeout" and x.stats == y.stats and x.stats["moves"] == 5000


def test_a_contradiction_of_propagation_is_a_timeout_naming_it():
    # locked propagation proves UNSOLVABLE has no solution: a proof local search, being
    # incomplete, does not give (the contract: solved or timeout)
    for spec in ("local:method=hybrid", "local:method=annealing,propagation=singles"):
        result = solve(UNSOLVABLE, spec, limit=2)
        assert (result.status, result.count, result.exact) == ("timeout", 0, False)
        assert result.stats["moves"] == 0 and result.stats["best_cost"] == -1
        assert "found a contradiction: r6c3 has no candidate left" in result.message
        assert "a proof local search does not give (incomplete), a timeout" in result.message
    # forward checking leaves every cell a candidate: the search runs to its budget
    result = solve(UNSOLVABLE, "local:method=hybrid,propagation=forward,budget=3000")
    assert result.status == "timeout" and result.stats["budget_spent"]
    # check takes it as a timeout, not a disagreement with native's proof
    stuck = Puzzle.from_grid([int(c) if c != "." else 0 for c in UNSOLVABLE])
    frame = cross_check([stuck], ["native", "local:method=hybrid"], timeout=30)
    rows = frame.set_index("backend")
    assert rows.loc["native", "status"] == "unsolvable"
    assert rows.loc["local:method=hybrid", "status"] == "timeout"
    assert frame["agrees"].isna().all()


@pytest.mark.parametrize(
    ("option", "says"),
    [
        ("method=hybrids", "method='hybrids' is not one of min-conflicts, annealing, hybrid"),
        (
            "method=hybrid,propagation=none",
            "propagation='none' is not one of forward, singles, hidden, locked, ac3, gac, sac",
        ),
        ("propagation=strong", "propagation='strong' is not one of forward, singles"),
    ],
)
def test_the_hybrids_options_are_named(option, says, capsys):
    with pytest.raises(ValueError, match=re.escape(says)):
        solve("." * 16, f"local:{option}")
    with pytest.raises(SystemExit) as exit_:
        main(["solve", "." * 16, "--backend", f"local:{option}"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"backend 'local': {says}" in err and "Traceback" not in err


def test_the_hybrid_needs_boxes_as_annealing_does():
    units = _classic_units(4, 2, 2)[:8]
    latin = Puzzle(make_geometry(4, 2, 2, units), (1,) + (0,) * 15)
    result = solve(latin, "local:method=hybrid")
    assert result.status == "error" and result.message == NO_BOXES
    # min-conflicts propagates first too, and needs no boxes
    result = solve(latin, "local:propagation=locked")
    assert result.status == "solved" and is_solution(latin, result.solution)


def test_explain_tells_the_hybrids_propagation_and_rings(capsys):
    from sudokulab.classroom.local_story import (
        Propagation,
        Rotate,
        describe_local,
        replay_local,
        trace_local,
    )

    entry = read_file(DATA / "gen-classic-extreme.jsonl")[1]
    geom = entry.puzzle.geometry
    t = trace_local(entry.puzzle, {"method": "hybrid", "seed": 2}, max_steps=None)
    assert t.result.status == "solved" and replay_local(t) == list(t.result.solutions[0])
    first = t.events[0]
    assert isinstance(first, Propagation) and first.level == "locked"
    assert first.open_cells == t.result.stats["open_cells"] == first.values.count(0)
    assert describe_local(first, geom, "hybrid").startswith(
        f"propagation (locked) before the search: {81 - first.open_cells} cells settled, "
        f"{first.open_cells} open with {first.candidates} candidates"
    )
    rings = [e for e in t.events if isinstance(e, Rotate)]
    assert rings
    for e in rings[:20]:
        text = describe_local(e, geom, "hybrid")
        names = " -> ".join(
            f"{geom.cell_name(c)} ({v})" for c, v in zip(e.cells, e.values, strict=True)
        )
        assert text.startswith(f"box {e.box}: rotate {names}")
        assert ("refused" in text) == (not e.accepted)
    # a puzzle propagation settles: one step, and the grid it leaves
    settled = read_file(DATA / "gen-classic-easy.jsonl")[0]
    t = trace_local(settled.puzzle, {"method": "hybrid"})
    assert len(t.events) == 1 and replay_local(t) == list(settled.solution)
    # the command: the propagation line, the summary's, and a contradiction as a timeout
    assert main(["explain", str(settled.puzzle), "--backend", "local:method=hybrid"]) == 0
    out = capsys.readouterr().out
    assert "1. propagation (locked) before the search settles every cell" in out
    assert re.search(r"propagation\s+locked, 0 open cells", out)
    assert main(["explain", UNSOLVABLE, "--backend", "local:method=hybrid"]) == 1
    out = capsys.readouterr().out
    assert "1. propagation (locked) before the search: r6c3 has no candidate left" in out
    assert "outcome          timeout: propagation (locked) found a contradiction" in out
