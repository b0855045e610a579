"""The `mip` backend against a bare OR-Tools script solving the same program, in one run.

The bare script, written below with OR-Tools' ``pywraplp`` alone (no sudokulab object),
reads a puzzle line and builds the program the backend builds: a binary x(cell, value)
per cell and value its domain allows (a given's one, fixed to 1), each cell one value,
each value once per row, column and box, no objective; SCIP solves it, and for the
uniqueness check the solution is cut off (no-good) and SCIP asked again. Ours is
``build_model`` plus ``MipBackend().solve`` with its defaults (SCIP), so the difference
is what the front end costs.

Per set: mean milliseconds per puzzle for each, limit 1 and limit 2, and ours over bare
(the issue's target: at most 1.10). Runs are interleaved; each puzzle keeps its best of
``--repeat``. Every solution is verified.

    python benchmarks/mip.py --data-dir ../shared/data [--sample 100] [--repeat 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys

from classic_sets import add_data_dir, bare_against_ours, data_dir, set_lines

UNITS = (
    [[9 * r + c for c in range(9)] for r in range(9)]
    + [[9 * r + c for r in range(9)] for c in range(9)]
    + [
        [9 * (br + r) + bc + c for r in range(3) for c in range(3)]
        for br in (0, 3, 6)
        for bc in (0, 3, 6)
    ]
)


def bare_solve(line: str, limit: int) -> list[list[int]]:
    """Up to ``limit`` solution grids of the puzzle, by the bare script."""
    from ortools.linear_solver import pywraplp

    givens = [int(ch) if ch.isdigit() else 0 for ch in line]
    solver = pywraplp.Solver.CreateSolver("SCIP")
    x = {}
    for c, g in enumerate(givens):
        for v in [g] if g else range(1, 10):
            x[c, v] = solver.IntVar(1 if g else 0, 1, "")
    for c, g in enumerate(givens):
        row = solver.Constraint(1, 1)
        for v in [g] if g else range(1, 10):
            row.SetCoefficient(x[c, v], 1)
    for unit in UNITS:
        for v in range(1, 10):
            row = solver.Constraint(1, 1)
            for c in unit:
                if (c, v) in x:
                    row.SetCoefficient(x[c, v], 1)
    found = []
    open_cells = [c for c, g in enumerate(givens) if not g]
    while len(found) < limit and solver.Solve() in (solver.OPTIMAL, solver.FEASIBLE):
        grid = [next(v for v in range(1, 10) if (c, v) in x and x[c, v].solution_value() > 0.5)
                for c in range(81)]  # fmt: skip
        found.append(grid)
        cut = solver.Constraint(-solver.infinity(), len(open_cells) - 1)
        for c in open_cells:
            cut.SetCoefficient(x[c, grid[c]], 1)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--sample", type=int, default=100, help="puzzles per set (default 100)")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    data_dir(parser, args)

    from sudokulab import build_model, parse_puzzle
    from sudokulab.backends import mip

    backend = mip.MipBackend()
    print(f"python {sys.version.split()[0]}, OR-Tools {backend.version()}, SCIP")
    bare_solve("." * 81, 1)  # SCIP's first start, kept out of the tables
    backend.solve(build_model(parse_puzzle("." * 81)))
    print("| set | limit | puzzles | bare ms | ours ms | ours / bare |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in ("top95", "sudoku17"):
        lines = set_lines(name, args.data_dir, args.sample)
        for limit in (1, 2):
            times = bare_against_ours(name, lines, limit, args.repeat, bare_solve, backend)
            b, o = (statistics.fmean(t) * 1000 for t in times)
            print(f"| {name} | {limit} | {len(lines)} | {b:.2f} | {o:.2f} | {o / b:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
