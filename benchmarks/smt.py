"""The `smt` backend against a bare z3 script solving the same problem, in one run.

The bare script, written below with z3 alone (no sudokulab object), reads a puzzle line
and states it as the backend does: an integer per cell between 1 and 9, ``Distinct`` per
row, column and box, each given as an equality, under z3's ``QF_FD`` logic (the
backend's default); for the uniqueness check the solution is blocked and z3 asked again.
It builds its variables and units once (as any script solving many puzzles would) and a
fresh solver per puzzle. Ours is ``build_model`` plus ``SmtBackend().solve`` with its
defaults, so the difference is what the front end costs.

Per set: mean milliseconds per puzzle for each, limit 1 and limit 2, and ours over bare
(the issue's target: at most 1.10). Runs are interleaved; each puzzle keeps its best of
``--repeat``. Every solution is verified.

    python benchmarks/smt.py --data-dir ../shared/data [--sample 50] [--repeat 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys

from classic_sets import add_data_dir, bare_against_ours, data_dir, set_lines


class Bare:
    """z3 alone: the 9x9 rules built once, a solver per puzzle."""

    def __init__(self) -> None:
        import z3

        self.z3 = z3
        self.cells = [z3.Int(f"c{i}") for i in range(81)]
        units = [[9 * r + c for c in range(9)] for r in range(9)]
        units += [[9 * r + c for r in range(9)] for c in range(9)]
        units += [
            [9 * (br + r) + bc + c for r in range(3) for c in range(3)]
            for br in (0, 3, 6)
            for bc in (0, 3, 6)
        ]
        self.rules = [z3.And(x >= 1, x <= 9) for x in self.cells]
        self.rules += [z3.Distinct([self.cells[i] for i in unit]) for unit in units]

    def solve(self, line: str, limit: int) -> list[list[int]]:
        z3, cells = self.z3, self.cells
        solver = z3.SolverFor("QF_FD")
        solver.add(self.rules)
        solver.add([cells[i] == int(ch) for i, ch in enumerate(line) if ch.isdigit() and ch != "0"])
        found = []
        while len(found) < limit and solver.check() == z3.sat:
            model = solver.model()
            grid = [model.eval(x, model_completion=True).as_long() for x in cells]
            found.append(grid)
            solver.add(z3.Or([x != v for x, v in zip(cells, grid, strict=True)]))
        return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--sample", type=int, default=50, help="puzzles per set (default 50)")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    data_dir(parser, args)

    from sudokulab.backends import smt

    backend = smt.SmtBackend()
    bare = Bare()
    print(f"python {sys.version.split()[0]}, z3 {backend.version()}, logic {smt.LOGICS[0]}")
    print("| set | limit | puzzles | bare ms | ours ms | ours / bare |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in ("top95", "sudoku17"):
        lines = set_lines(name, args.data_dir, args.sample)
        for limit in (1, 2):
            times = bare_against_ours(name, lines, limit, args.repeat, bare.solve, backend)
            b, o = (statistics.fmean(t) * 1000 for t in times)
            print(f"| {name} | {limit} | {len(lines)} | {b:.2f} | {o:.2f} | {o / b:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
