"""A verdict is a proof or a timeout, at every deadline, under load.

Every available backend, and every native preset on both the compiled core and the
Python reference, on puzzles of known answer (unique, unsolvable, two solutions, empty
grids from 4x4 to 25x25), with timeouts from 1 ms to 1 s, while a CPU burner runs on
every core. Where each search stops depends on the machine; so the tests assert only
what must hold wherever it stops: never a wrong status, never an exact count that is
not the count, every solution a solution, and a verdict only from an answer that came
before the deadline. No assertion reads the clock against a bound.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import two_solution_grid

from sudokulab import Puzzle, build_model, is_solution, read_file, solve
from sudokulab.api import solve_grids, solve_model
from sudokulab.backends import (
    PRESETS,
    Backend,
    BackendSpec,
    Request,
    Result,
    Status,
    Worker,
    backend_names,
    base,
    count_by_blocking,
    get_backend,
    parse_spec,
)
from sudokulab.backends.base import (
    LATE,
    Counted,
    Unanswered,
    check_deadline,
    runs_in_process,
    unsupported,
)
from sudokulab.models.grids import Grids

SEEDS = Path(__file__).resolve().parent.parent / "data" / "seeds.csv"
SEED = read_file(SEEDS)[0]  # the plain-backtracking write-up's example: unique


@dataclass(frozen=True)
class Case:
    """A puzzle whose number of solutions is known (None: too many to count), asked
    with a limit under each of some timeouts."""

    name: str
    puzzle: Puzzle
    solutions: int | None
    limit: int | None
    timeouts: tuple[float, ...]


def _cases() -> list[Case]:
    stuck = Puzzle.from_grid(list(range(1, 9)) + [0] * 9 + [9] + [0] * 63)  # r1c9: none
    two = Puzzle.from_grid(two_solution_grid(SEED.solution))
    return [
        Case("unique", SEED.puzzle, 1, 2, (0.001, 0.01, 1.0)),
        Case("unsolvable", stuck, 0, 1, (0.001, 1.0)),
        Case("two solutions", two, 2, 5, (0.001, 1.0)),
        Case("empty 4x4", Puzzle.from_grid([0] * 16), 288, None, (0.01, 1.0)),
        Case("empty 9x9, limit 3", Puzzle.from_grid([0] * 81), None, 3, (0.001, 0.1)),
        Case("empty 16x16", Puzzle.from_grid([0] * 256), None, None, (0.01,)),
        Case("empty 25x25", Puzzle.from_grid([0] * 625), None, None, (0.001,)),
    ]


CASES = _cases()
#: The native presets on the compiled core and on the Python reference.
NATIVE = [
    f"{engine}:{','.join(f'{k}={v}' for k, v in options.items())}"
    for name, (backend, options, _) in PRESETS.items()
    if backend == "native"
    for engine in ("native", "native-py")
]
SOLVERS = ["mip:solver=cbc", "mip:solver=highs", "sat-minimal", "sat-extended"]
SPECS = [*backend_names(), *NATIVE, *SOLVERS]


@contextlib.contextmanager
def burning() -> Iterator[None]:
    """A CPU burner on every core (one process each), stopped at the end."""
    burners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(os.cpu_count() or 1)
    ]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
        for burner in burners:
            burner.wait()


def check_verdict(case: Case, timeout: float, result) -> None:
    """What must hold of ``result`` wherever the search stopped."""
    what = (case.name, timeout, result.status, result.count, result.exact, result.message)
    known, limit = case.solutions, case.limit
    assert result.status in ("solved", "unsolvable", "multiple", "timeout"), what
    assert len(set(result.solutions)) == len(result.solutions), what
    assert all(is_solution(case.puzzle, s) for s in result.solutions), what
    assert result.count >= len(result.solutions), what
    if known is not None:
        assert result.count <= known, what
    if result.exact:  # a count that says it is the count
        assert known is not None and result.count == known, what
        assert limit is None or result.count < limit, what
    if result.status == "timeout":
        assert not result.exact, what
        return
    # a verdict: reached before the deadline, and true
    assert result.time <= timeout, what
    if result.status == "unsolvable":
        assert known == 0 and result.exact and result.count == 0, what
    elif result.status == "solved":
        assert result.count == 1 and result.solutions and (known is None or known >= 1), what
        if limit is None or limit > 1:  # a uniqueness check came back: unique
            assert result.exact and known == 1, what
    else:  # multiple
        assert result.count >= 2 and (known is None or known >= 2), what
        assert result.exact or result.count == limit, what


def _available(spec: str):
    backend = get_backend(parse_spec(spec).backend)
    if not backend.available():
        pytest.skip(f"{backend.name} is not installed")
    return backend


@pytest.mark.parametrize("spec", SPECS)
def test_every_verdict_is_a_proof_or_a_timeout_under_load(spec):
    backend = _available(spec)
    options = parse_spec(spec).options
    # A backend killed at the deadline stops the same way at any timeout (and each kill
    # costs a fresh process): its longest timeout per case is enough.
    killed = not (backend.stops_itself_with(options) and backend.in_process_with(options))
    with burning(), Worker() as worker:
        for case in CASES:
            if unsupported(backend, build_model(case.puzzle)):
                continue  # refused before solving (gurobi's size-limited licence, 16x16)
            for timeout in case.timeouts[-1:] if killed else case.timeouts:
                result = solve(case.puzzle, spec, case.limit, timeout, worker=worker)
                check_verdict(case, timeout, result)


@pytest.mark.parametrize("spec", ["native", "native-py", "backtracking"])
@pytest.mark.parametrize("isolate", [False, True])
def test_every_row_of_a_block_is_a_proof_or_a_timeout_under_load(spec, isolate):
    # the batch path: one engine call per block (in a worker when isolated), each
    # puzzle with the whole timeout from its own start
    nine = [c for c in CASES if c.puzzle.geometry.size == 9]
    block = Grids.of([c.puzzle for c in nine])
    with burning(), Worker() as worker:
        for limit in (1, 2, None):
            for timeout in (0.001, 0.01, 0.1):
                answers = solve_grids(block, spec, limit, timeout, isolate, worker)
                for i, case in enumerate(nine):
                    limited = Case(case.name, case.puzzle, case.solutions, limit, ())
                    check_verdict(limited, timeout, answers.result(i))


# --- the rule, one defect at a time (deterministic: sleeps make an answer late) --------


class Late(Backend):
    """Answers ``status`` (and the seed's solution) after sleeping ``delay`` seconds."""

    name = "late"
    kinds = frozenset({"alldifferent"})
    options: dict = {}
    stops_itself = True
    requires = ""
    checks_signals = True

    def __init__(self, status: str, delay: float) -> None:
        self.status, self.delay = Status(status), delay

    def available(self) -> bool:
        return True

    def version(self) -> str:
        return "0"

    def search(self, model, request) -> Result:
        time.sleep(self.delay)
        solutions = (SEED.solution,) if self.status is not Status.UNSOLVABLE else ()
        return Result(self.name, self.status, solutions, len(solutions), True, 0.0, 0.01)


@pytest.mark.parametrize("status", ["solved", "unsolvable", "multiple"])
def test_a_verdict_said_after_the_deadline_is_a_timeout(status):
    model = build_model(SEED.puzzle)
    late = Late(status, 0.2).solve(model, limit=None, timeout=0.05)
    assert (late.status, late.exact) == ("timeout", False)
    assert late.message.startswith(f"{status} ") and "after the deadline" in late.message
    assert late.solutions == (() if status == "unsolvable" else (SEED.solution,))
    assert late.time >= 0.2 and late.build_time >= 0.2 - 0.01  # from the request's start
    on_time = Late(status, 0.0).solve(model, limit=None, timeout=60)
    assert (on_time.status, on_time.exact) == (status, True)


def test_count_by_blocking_keeps_the_rule_while_it_counts():
    grids = [tuple([v] * 81) for v in range(1, 10)]  # stand-ins: the loop reads none

    def asking(*answers, delay=0.0):
        asked = []

        def ask(left):
            asked.append(left)
            time.sleep(delay)
            return answers[len(asked) - 1]

        return asked, ask

    def count(ask, limit=None, timeout=None, closed=False):
        request = Request(limit, timeout, {}, time.perf_counter())
        return count_by_blocking(request, ask, lambda grid: None, closed)

    asked, ask = asking(grids[0], grids[1], None)
    assert count(ask) == Counted(grids[:2], True, False)  # proved: none left
    assert asked == [None, None, None]  # no deadline: no time limit given
    asked, ask = asking(grids[0], grids[1], None)
    assert count(ask, limit=2) == Counted(grids[:2], False, False)  # stopped at the limit
    assert count(asking(grids[0])[1], closed=True) == Counted(grids[:1], True, False)
    # an answer that comes after the deadline: a grid is kept, a proof is not taken
    assert count(asking(grids[0], delay=0.1)[1], timeout=0.05) == Counted(grids[:1], False, True)
    assert count(asking(None, delay=0.1)[1], timeout=0.05) == Counted([], False, True)
    # no question once the deadline has passed
    asked, ask = asking(grids[0], grids[1], delay=0.1)
    assert count(ask, timeout=0.15) == Counted(grids[:2], False, True) and len(asked) == 2
    assert 0 < asked[0] <= 0.15 and asked[1] <= 0.05  # each told the seconds left
    # no answer: a timeout at the deadline, a failure well before it
    assert count(asking(Unanswered("why"), delay=0.1)[1], timeout=0.05) == Counted([], False, True)
    assert count(asking(Unanswered("why"))[1], timeout=60) == Counted([], False, False, "why")
    assert count(asking(Unanswered())[1])[3] == "the solver stopped without an answer"


def test_the_deadline_starts_with_the_request_parsing_and_building_included(monkeypatch):
    import sudokulab.api

    def slow(build):
        def built(*args, **kwargs):
            time.sleep(0.2)
            return build(*args, **kwargs)

        return built

    monkeypatch.setattr(sudokulab.api, "build_model", slow(sudokulab.api.build_model))
    result = solve(SEED.puzzle, "native", timeout=0.1)  # the engine never needs 0.1 s
    assert result.status == "timeout" and result.time >= 0.2 and result.build_time >= 0.2
    assert solve(SEED.puzzle, "native", timeout=60).status == "solved"


def test_a_backends_own_building_is_inside_the_deadline(monkeypatch):
    pytest.importorskip("pysat")
    from sudokulab.backends import sat

    base.warm_up(get_backend("sat"), {})  # before a request with a timeout, no part of it
    monkeypatch.setattr(sat, "encode", slow_encode := _slowly(sat.encode, 0.2))
    model = build_model(Puzzle.from_grid([0] * 625))
    for result in (
        # in this process (by default a 25x25 grid's CNF is built in a worker)
        solve(Puzzle.from_grid([0] * 625), "sat", limit=None, timeout=0.1, isolate=False),
        get_backend("sat").solve(model, limit=None, timeout=0.1),  # called directly
    ):
        assert (result.status, result.exact, result.solve_time) == ("timeout", False, 0.0)
        assert result.time >= 0.2
    assert slow_encode.calls == 2


def _slowly(function, delay):
    def slowed(*args, **kwargs):
        slowed.calls += 1
        time.sleep(delay)
        return function(*args, **kwargs)

    slowed.calls = 0
    return slowed


def test_each_request_is_admitted_once(monkeypatch):
    from sudokulab.backends import base

    for name in ("check_options", "unsupported"):
        monkeypatch.setattr(base, name, _slowly(getattr(base, name), 0.0))
    assert solve(SEED.puzzle, "native:order=first", limit=2).status == "solved"
    assert (base.check_options.calls, base.unsupported.calls) == (1, 1)


@pytest.mark.parametrize("timeout", [float("nan"), float("inf"), 0, -1.0, "soon", 1e400])
@pytest.mark.parametrize("spec", backend_names())
def test_a_timeout_that_is_no_time_is_a_value_error_naming_it(spec, timeout):
    _available(spec)
    with pytest.raises(ValueError, match=r"^timeout must be a .*number of seconds"):
        solve(SEED.puzzle, spec, timeout=timeout)
    with pytest.raises(ValueError, match=r"^timeout must be a .*number of seconds"):
        get_backend(spec).solve(build_model(SEED.puzzle), timeout=timeout)
    with pytest.raises(ValueError, match=r"^limit must be at least 1, got 0"):
        solve(SEED.puzzle, spec, limit=0)


def test_cbc_keeps_its_deadline_by_the_kill_and_never_in_this_process():
    pytest.importorskip("ortools")
    from sudokulab.backends import mip

    backend = get_backend("mip")
    assert [backend.stops_itself_with({"solver": s}) for s in mip.SOLVERS] == [True, False, True]
    assert [backend.in_process_with({"solver": s}) for s in mip.SOLVERS] == [True, False, True]
    # The kill itself: 0.3 s asked of a count CBC cannot finish (it overran a 0.3 s time
    # limit of its own by 11 s here); a margin of 10x for a loaded machine.
    result = solve("." * 625, "mip", limit=None, timeout=0.3, solver="cbc")
    assert result.status == "timeout" and result.message.startswith("killed after")
    assert 0.3 <= result.time < 3.0


def test_starting_a_worker_is_no_part_of_a_request(monkeypatch):
    # A process start (and the solver package's import) under load once took a timed
    # bench row's whole deadline and more: the clock starts once the worker is ready.
    prepare = Worker.prepare
    monkeypatch.setattr(Worker, "prepare", lambda self, *a: (time.sleep(1.0), prepare(self, *a)))
    with Worker() as worker:
        result = solve(SEED.puzzle, "native", limit=2, timeout=0.5, worker=worker, isolate=True)
        assert worker.pid is not None  # answered, not killed
    assert result.status == "solved" and result.time < 1.0


# --- the deadline covers every backend's build (issue 42) ---------------------------------

#: The backends that build their own form of the model in Python, a step at a time.
BUILDERS = ["cpsat", "mip", "smt", "highs", "cpmpy", "gurobi"]


@pytest.mark.parametrize("name", BUILDERS)
def test_a_build_looks_at_the_deadline_between_its_steps(monkeypatch, name):
    backend = type(_available(name))()  # a fresh instance: nothing built or cached yet
    looks = []

    def looking(deadline):
        looks.append(deadline)
        check_deadline(deadline)

    homes = [m for n, m in sys.modules.items() if n.startswith("sudokulab.backends.")]
    for module in homes:  # where each build looks (gurobi: in highs')
        if module is not base and getattr(module, "check_deadline", None) is check_deadline:
            monkeypatch.setattr(module, "check_deadline", looking)
    model = build_model(SEED.puzzle)
    # A deadline already past: the build stops at its first look, nothing built after it.
    past = Request(1, 1.0, {}, time.perf_counter() - 10.0)
    result = backend.run(model, past)
    assert (result.status, result.message, result.solutions) == ("timeout", LATE, ())
    assert looks == [past.deadline]
    # One far off: it looks between its steps, and solves.
    looks.clear()
    result = backend.run(model, Request(1, 600.0, {}, time.perf_counter()))
    assert result.status == "solved" and is_solution(SEED.puzzle, result.solution)
    assert len(looks) > 1


@pytest.mark.parametrize("spec", ["sat", "highs", "mip:solver=highs"])
def test_a_grid_beyond_16x16_runs_in_a_worker_where_its_build_cannot_be_stopped(monkeypatch, spec):
    # sat's CNF of a 25x25 grid and HiGHS's presolve of its program take seconds that
    # neither a deadline nor Ctrl-C can stop in this process: a worker is killed.
    backend, options = _available(spec), parse_spec(spec).options
    runs = []
    run = Worker.run
    monkeypatch.setattr(Worker, "run", lambda self, *a: runs.append(a[0]) or run(self, *a))
    big, small = (build_model(Puzzle.from_grid([0] * n * n)) for n in (25, 16))
    assert not runs_in_process(backend, big, options) and runs_in_process(backend, small, options)
    result = solve(big.puzzle, spec, limit=None, timeout=0.2)
    assert (result.status, result.exact, runs) == ("timeout", False, [backend.name])
    result = solve(small.puzzle, spec, timeout=600)
    assert result.status == "solved" and is_solution(small.puzzle, result.solution)
    assert runs == [backend.name]  # in this process
    if spec == "mip:solver=highs":  # SCIP, mip's default, keeps its deadline on any grid
        assert runs_in_process(backend, big, {})


class ColdStart(Backend):
    """Sleeps ``delay`` seconds at its first search in a process, as a solver package's
    import does, then answers the seed's solution at once, as a warm one does."""

    name = "cold"
    kinds = frozenset({"alldifferent"})
    options: dict = {}
    stops_itself = True
    requires = ""
    checks_signals = True

    def __init__(self, delay: float) -> None:
        self.delay, self.searches = delay, 0

    def available(self) -> bool:
        return True

    def version(self) -> str:
        return "0"

    def search(self, model, request) -> Result:
        self.searches += 1
        if self.searches == 1:
            time.sleep(self.delay)
        return Result(self.name, Status.SOLVED, (SEED.solution,), 1, False, 0.0, 0.0)


def test_warming_a_backend_up_in_this_process_is_no_part_of_a_request(monkeypatch):
    # A solver package's import under load once took seconds of a request's deadline in
    # the caller's process (CP-SAT: OR-Tools, numpy, pandas); a worker's never did.
    import sudokulab.api

    cold, found = ColdStart(1.0), sudokulab.api.get_backend
    monkeypatch.setattr(sudokulab.api, "get_backend", lambda n: cold if n == "cold" else found(n))
    monkeypatch.setattr(base, "_warmed", set())
    model = build_model(SEED.puzzle)
    result = solve_model(model, BackendSpec("cold"), timeout=0.5)
    assert (result.status, cold.searches) == ("solved", 2)  # warmed up, then the request
    assert solve_model(model, BackendSpec("cold"), timeout=0.5).status == "solved"
    assert cold.searches == 3  # warmed up once
