"""Time the backends side by side on top95 and easy50, and CP-SAT against bare CP-SAT.

Per backend (native-py with its defaults, cpsat with one worker, constraint with its
default solver): mean and median milliseconds per puzzle, each time covering
``build_model`` plus the backend's ``solve`` (CP-SAT's own build and solve split out).
python-constraint runs in a child process with a per-puzzle cap, since some top95
puzzles take it many seconds; capped puzzles are counted and left out of its times.

The overhead table compares our ``cpsat`` backend with a bare CP-SAT model built in this
script the way OR-Tools' ``examples/python/sudoku_sat.py`` does it (variables 1..9,
AllDifferent per row, column and box, ``x == v`` per given, one worker, plain Solve), and
with the same bare model solved under our backend's parameters (enumerate, stop at the
first solution); the runs are interleaved and each puzzle keeps its best of ``--repeat``.
Every solution is verified with ``sudokulab.is_solution``.

    python benchmarks/backends.py --data-dir ../shared/data
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing
import platform
import statistics
import sys
import time

from classic_sets import add_data_dir, data_dir

from sudokulab import (
    __version__,
    build_model,
    get_backend,
    is_solution,
    parse_puzzle,
    read_file,
)
from sudokulab.backends.constraint import ConstraintBackend
from sudokulab.backends.cpsat import CpSatBackend

SETS = {
    "top95": "norvig-pytudes/sudoku-top95.txt",
    "easy50": "norvig-pytudes/sudoku-easy50.txt",
}


def check(entry, grid, who):
    """Exit naming the puzzle when ``grid`` does not solve it."""
    if not is_solution(entry.puzzle, grid):
        sys.exit(f"wrong answer from {who} at {entry.source} line {entry.line}")


def warm_up(backend):
    """Seconds of a first call (lazy imports, cached templates), kept out of the tables."""
    start = time.perf_counter()
    backend.solve(build_model(parse_puzzle("." * 81)))
    return time.perf_counter() - start


def time_backend(backend, entries, **options):
    """Seconds per puzzle (build_model + solve), and the results."""
    times, results = [], []
    for entry in entries:
        start = time.perf_counter()
        result = backend.solve(build_model(entry.puzzle), **options)
        times.append(time.perf_counter() - start)
        check(entry, result.solution, backend.name)
        results.append(result)
    return times, results


def _warm_child():
    """Import python-constraint in the child before any clock runs."""
    ConstraintBackend().solve(build_model(parse_puzzle("." * 16)))


def _constraint_once(puzzle):
    """Run in the child: seconds for build_model + solve, and the solution."""
    start = time.perf_counter()
    result = ConstraintBackend().solve(build_model(puzzle))
    return time.perf_counter() - start, result.solution


def time_constraint(entries, cap):
    """Seconds per finished puzzle, and how many hit the cap (the child is then killed)."""
    context = multiprocessing.get_context("spawn")  # no fork of a process holding OR-Tools
    pool = context.Pool(1, initializer=_warm_child)
    times, capped = [], 0
    try:
        for entry in entries:
            pending = pool.apply_async(_constraint_once, (entry.puzzle,))
            try:
                seconds, solution = pending.get(timeout=cap)
            except multiprocessing.TimeoutError:
                capped += 1
                pool.terminate()
                pool.join()
                pool = context.Pool(1, initializer=_warm_child)
                continue
            check(entry, solution, "constraint")
            times.append(seconds)
    finally:
        pool.terminate()
        pool.join()
    return times, capped


def bare_cpsat(givens, enumerate_like_ours=False):
    """Solve one 9x9 grid with plain OR-Tools code (sudoku_sat.py's model), one worker."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    line = range(9)
    grid = {(i, j): model.new_int_var(1, 9, f"grid {i} {j}") for i in line for j in line}
    for i in line:
        model.add_all_different(grid[(i, j)] for j in line)
    for j in line:
        model.add_all_different(grid[(i, j)] for i in line)
    for bi in range(3):
        for bj in range(3):
            model.add_all_different(
                grid[(bi * 3 + di, bj * 3 + dj)] for di in range(3) for dj in range(3)
            )
    for i in line:
        for j in line:
            if givens[i * 9 + j]:
                model.add(grid[(i, j)] == givens[i * 9 + j])
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    if enumerate_like_ours:
        solver.parameters.enumerate_all_solutions = True
        solver.solve(model, _first_solution_class()())
    else:
        solver.solve(model)
    return tuple(int(solver.value(grid[(i, j)])) for i in line for j in line)


@functools.cache
def _first_solution_class():
    """A solution callback class that stops the search at the first solution."""
    from ortools.sat.python import cp_model

    class FirstSolution(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self):
            self.StopSearch()

    return FirstSolution


def time_overhead(ours, entries, repeat):
    """Best-of-``repeat`` seconds per puzzle: bare plain, bare enumerate, ours (warmed)."""
    runs = {
        "bare": lambda e: bare_cpsat(e.puzzle.givens),
        "bare-enum": lambda e: bare_cpsat(e.puzzle.givens, enumerate_like_ours=True),
        "ours": lambda e: ours.solve(build_model(e.puzzle)).solution,
    }
    for run in runs.values():
        run(entries[0])  # first calls build caches and classes
    best = {name: [float("inf")] * len(entries) for name in runs}
    for _ in range(repeat):
        for k, entry in enumerate(entries):
            for name, run in runs.items():
                start = time.perf_counter()
                grid = run(entry)
                elapsed = time.perf_counter() - start
                check(entry, grid, name)
                best[name][k] = min(best[name][k], elapsed)
    return best


def row(label, times, note=""):
    """One line of a table: count, mean and median milliseconds, a note."""
    if not times:
        return f"{label:<50} {0:>4} {'-':>9} {'-':>9}  {note}"
    mean = statistics.fmean(times) * 1000
    median = statistics.median(times) * 1000
    return f"{label:<50} {len(times):>4} {mean:>9.3f} {median:>9.3f}  {note}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_dir(parser)
    parser.add_argument(
        "--constraint-cap",
        type=float,
        default=10.0,
        help="per-puzzle cap for python-constraint, in seconds (default 10)",
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs per puzzle in the overhead table (best kept)"
    )
    args = parser.parse_args()
    folder = data_dir(parser, args, SETS.values())
    native, cpsat, constraint = get_backend("native-py"), CpSatBackend(), ConstraintBackend()
    print(
        f"sudokulab {__version__}, Python {platform.python_version()}, {platform.machine()}, "
        f"ortools {cpsat.version()}, python-constraint2 {constraint.version()}"
    )
    print(
        f"native-py: propagation=hidden, order=mrv; cpsat: workers=1; "
        f"constraint: solver=backtracking, forwardcheck=True, cap {args.constraint_cap:g} s "
        f"per puzzle in a child process (capped puzzles left out of its times)"
    )
    sets = {name: read_file(folder / rel) for name, rel in SETS.items()}
    firsts = ", ".join(f"{b.name} {warm_up(b) * 1000:.0f} ms" for b in (native, cpsat))
    print(f"first calls, not in the tables (imports, caches): {firsts}")

    header = f"{'set: backend':<50} {'n':>4} {'mean ms':>9} {'median ms':>9}"
    print()
    print(header)
    print("-" * (len(header) + 12))
    for name, entries in sets.items():
        times, _ = time_backend(native, entries)
        print(row(f"{name}: native-py", times))
        times, results = time_backend(cpsat, entries)
        print(row(f"{name}: cpsat", times))
        print(row(f"{name}:   cpsat build (CpModel)", [r.build_time for r in results]))
        print(row(f"{name}:   cpsat solve", [r.solve_time for r in results]))
        times, capped = time_constraint(entries, args.constraint_cap)
        print(row(f"{name}: constraint", times, f"capped {capped} of {len(entries)}"))

    print()
    print(f"CP-SAT per-puzzle overhead (best of {args.repeat} interleaved runs per puzzle)")
    header = f"{'set: variant':<50} {'n':>4} {'mean ms':>9} {'median ms':>9}  ours/bare"
    print(header)
    print("-" * len(header))
    for name, entries in sets.items():
        best = time_overhead(cpsat, entries, args.repeat)
        ours = statistics.fmean(best["ours"])
        for variant, label in (
            ("bare", "bare CP-SAT, plain Solve (sudoku_sat.py)"),
            ("bare-enum", "bare CP-SAT, enumerate + stop at 1"),
        ):
            ratio = ours / statistics.fmean(best[variant])
            print(row(f"{name}: {label}", best[variant], f"{ratio:.3f}"))
        print(row(f"{name}: sudokulab cpsat (build_model + solve)", best["ours"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
