"""The `sat` backend against a bare PySAT script solving the same CNF, in one run.

The bare script, written below with PySAT alone (no sudokulab object), reads a puzzle
line and builds Kwon and Jain's optimized encoding of a classic 9x9 grid, as the backend's
default does: a variable per open cell and candidate (a value no given peer holds), each
open cell at least and at most one candidate, each value not given in a unit at least and
at most once among the unit's open cells that may hold it. MiniSat 2.2 solves it; for
the uniqueness check the solution is blocked and the solver asked again. Ours is
``build_model`` plus ``SatBackend().solve`` with its defaults (the same encoding and
solver), so the difference is what the front end costs: the model, the encoding read off
it, the deadline's watcher, the result.

Per set: mean milliseconds per puzzle for each, limit 1 and limit 2, and ours over bare
(the issue's target: at most 1.10). Runs are interleaved; each puzzle keeps its best of
``--repeat``. Every solution is verified, and the two CNFs must have the same number of
clauses.

    python benchmarks/sat.py --data-dir ../shared/data [--sample 300] [--repeat 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from itertools import combinations

from classic_sets import add_data_dir, bare_against_ours, data_dir, set_lines


def bare_cnf(line: str) -> tuple[list[list[int]], dict[int, tuple[int, int]], list[int]]:
    """Kwon and Jain's optimized CNF of a 9x9 puzzle line: clauses, variable -> (cell,
    value), and the givens (0 for an open cell)."""
    grid = [int(ch) if ch.isdigit() else 0 for ch in line]
    units = [[r * 9 + c for c in range(9)] for r in range(9)]
    units += [[r * 9 + c for r in range(9)] for c in range(9)]
    units += [
        [(br + r) * 9 + bc + c for r in range(3) for c in range(3)]
        for br in (0, 3, 6)
        for bc in (0, 3, 6)
    ]
    peers = [set() for _ in range(81)]
    for unit in units:
        for cell in unit:
            peers[cell].update(unit)
    var: dict[tuple[int, int], int] = {}
    for cell in range(81):
        if not grid[cell]:
            taken = {grid[p] for p in peers[cell]}
            for value in range(1, 10):
                if value not in taken:
                    var[cell, value] = len(var) + 1
    clauses: list[list[int]] = []
    for cell in range(81):
        mine = [var[cell, v] for v in range(1, 10) if (cell, v) in var]
        if not grid[cell]:
            clauses.append(mine)
            clauses += [[-a, -b] for a, b in combinations(mine, 2)]
    for unit in units:
        given = {grid[c] for c in unit}
        for value in range(1, 10):
            if value in given:
                continue
            places = [var[c, value] for c in unit if (c, value) in var]
            clauses.append(places)
            clauses += [[-a, -b] for a, b in combinations(places, 2)]
    return clauses, {v: key for key, v in var.items()}, grid


def bare_solve(line: str, limit: int) -> list[list[int]]:
    """Up to ``limit`` solution grids of the puzzle, by the bare script."""
    from pysat.solvers import Minisat22

    clauses, meaning, grid = bare_cnf(line)
    found = []
    with Minisat22(bootstrap_with=clauses) as solver:
        while len(found) < limit and solver.solve():
            model = solver.get_model()
            solution = list(grid)
            for lit in model:
                if lit > 0:
                    cell, value = meaning[lit]
                    solution[cell] = value
            found.append(solution)
            solver.add_clause([-lit for lit in model if lit > 0])
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--sample", type=int, default=300, help="sudoku17 puzzles (default 300)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data_dir(parser, args)

    from sudokulab.backends import sat

    def same_cnf(line: str, result) -> str | None:
        """The bare CNF and ours have as many clauses (checked on the first-solution runs)."""
        if result.stats["clauses"] != len(bare_cnf(line)[0]):
            return "the CNFs differ"
        return None

    backend = sat.SatBackend()
    print(f"python {sys.version.split()[0]}, PySAT {backend.version()}, minisat22, optimized")
    print("| set | limit | puzzles | bare ms | ours ms | ours / bare |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, sample in (("top95", None), ("sudoku17", args.sample)):
        lines = set_lines(name, args.data_dir, sample)
        for limit in (1, 2):
            check = same_cnf if limit == 1 else None
            times = bare_against_ours(name, lines, limit, args.repeat, bare_solve, backend, check)
            b, o = (statistics.fmean(t) * 1000 for t in times)
            print(f"| {name} | {limit} | {len(lines)} | {b:.3f} | {o:.3f} | {o / b:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
