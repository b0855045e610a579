"""Lynce and Ouaknine's table: how much of a puzzle each CNF encoding decides without search.

"Sudoku as a SAT Problem" (Lynce and Ouaknine, 2006) compares a minimal and an extended
CNF encoding of Sudoku by what propagation alone decides: unit propagation, and unit
propagation with failed literals (a literal whose propagation conflicts is false; to a
fixpoint). This reproduces it with :func:`sudokulab.backends.sat.infer` on the sets named
(top95 and top1465 by default, and a sample of Gordon Royle's 17-clue puzzles), for the
minimal, extended and optimized (Kwon and Jain) encodings. Per set, encoding and method:
the share of puzzles solved, the share of open cells decided, and the mean time per
puzzle. Every decided cell is checked against the native engine's unique solution.

    python benchmarks/sat_inference.py --data-dir ../shared/data [--sets top95 top1465]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from classic_sets import add_data_dir, data_dir
from tabulate import tabulate

ENCODINGS = ("minimal", "extended", "optimized")
METHODS = ("unit", "failed-literal")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--sets", nargs="+", default=["top95", "top1465", "sudoku17"])
    parser.add_argument(
        "--sample",
        type=int,
        default=1500,
        help="puzzles per set at most (default 1500: top1465 whole)",
    )
    args = parser.parse_args()
    data_dir(parser, args)

    from sudokulab import build_model, solve
    from sudokulab.backends import sat
    from sudokulab.bench.plan import read_set

    print(f"python {sys.version.split()[0]}, PySAT {sat.SatBackend().version()}")
    rows = []
    for name in args.sets:
        blocks = read_set(name, [str(Path(args.data_dir).resolve())], args.sample, seed=1)
        puzzles = [p for block in blocks for p in block.grids.puzzles()]
        answers = []
        for puzzle in puzzles:
            result = solve(puzzle, "native", limit=2)
            if not result.unique:
                sys.exit(f"{name}: a puzzle without a unique solution: {puzzle}")
            answers.append(result.solution)
        models = [build_model(p) for p in puzzles]
        open_cells = sum(p.givens.count(0) for p in puzzles)
        for encoding in ENCODINGS:
            for method in METHODS:
                solved = decided = 0
                times = []
                for puzzle, model, answer in zip(puzzles, models, answers, strict=True):
                    start = time.perf_counter()
                    inference = sat.infer(model, encoding, method)
                    times.append(time.perf_counter() - start)
                    cells = [c for c, v in enumerate(inference.decided) if v]
                    if inference.contradiction or any(
                        inference.decided[c] != answer[c] for c in cells
                    ):
                        sys.exit(f"{name}: {encoding}/{method} decided a wrong value: {puzzle}")
                    solved += inference.solution is not None
                    decided += sum(1 for c in cells if not puzzle.givens[c])
                rows.append([
                    name, len(puzzles), encoding, method,
                    f"{solved / len(puzzles):.1%}", f"{decided / open_cells:.1%}",
                    f"{statistics.fmean(times) * 1000:.2f}",
                ])  # fmt: skip
                print(" ".join(map(str, rows[-1])), file=sys.stderr)
    headers = ["set", "puzzles", "encoding", "inference", "solved", "open cells decided", "ms"]
    print(tabulate(rows, headers, tablefmt="github"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
