"""The `dlx` backend against bare Algorithm X on the same matrix, and a C library, in one run.

Three ways to the same exact covers, on the same puzzles:

    ours        ``build_model`` plus ``DlxBackend().solve`` (limit 1 and limit 2)
    bare        the same dancing links with no sudokulab model or result: the shape's
                matrix built once, per puzzle a copy of its links, the givens' rows
                chosen, Algorithm X run (``dlx.Links``): what the front end adds is the
                difference (the issue's target: at most 1.10)
    exact_cover the ``exact-cover`` package (a C implementation of Algorithm X, 1.5) on
                the same matrix as a dense 0-1 array, first solution only: how far a
                compiled DLX is from ours (left out when the package is not installed)

Mean milliseconds per puzzle, best of ``--repeat``, runs interleaved; every solution is
verified.

    python benchmarks/dlx.py --data-dir ../shared/data [--sample 100] [--repeat 2]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from pathlib import Path

from classic_sets import add_data_dir, data_dir


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--sample", type=int, default=100, help="puzzles per set (default 100)")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    data_dir(parser, args)

    import numpy as np

    from sudokulab import build_model, is_solution
    from sudokulab.backends import dlx
    from sudokulab.bench.plan import read_set
    from sudokulab.models import geometry

    library = importlib.util.find_spec("exact_cover") is not None
    backend = dlx.DlxBackend()
    units = tuple(u.cells for u in geometry(9).units)
    m = dlx.matrix(81, 9, units)
    dense = np.zeros((len(m.rows), m.columns), dtype=bool)
    for r, start in enumerate(m.first):
        node = start
        while True:
            dense[r, m.column[node] - 1] = True
            node = m.right[node]
            if node == start:
                break
    print(f"python {sys.version.split()[0]}; exact_cover: {'yes' if library else 'not installed'}")

    def bare(givens, limit):
        links = dlx.Links(m)
        links.restrict(tuple((v,) if v else tuple(range(1, 10)) for v in givens))
        out: list = []
        links.search(limit, None, out)
        return out

    def compiled(givens):
        import exact_cover

        rows = [m.row_index[c, v] for c, v in enumerate(givens) if v]
        keep = np.ones(len(m.rows), dtype=bool)
        covered = dense[rows].any(axis=0)
        keep &= ~dense[:, covered].any(axis=1)  # rows clashing with the givens go
        sub = np.ascontiguousarray(dense[keep][:, ~covered])
        chosen = np.flatnonzero(keep)[exact_cover.get_exact_cover(sub)]
        grid = list(givens)
        for r in chosen:
            cell, v = m.rows[r]
            grid[cell] = v
        return grid

    dirs = [str(Path(args.data_dir).resolve())]
    print("| set | limit | puzzles | bare ms | ours ms | ours / bare | exact_cover (C) ms |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in ("top95", "sudoku17"):
        blocks = read_set(name, dirs, args.sample, seed=1)
        puzzles = [p for b in blocks for p in b.grids.puzzles()]
        for limit in (1, 2):
            t = {k: [float("inf")] * len(puzzles) for k in ("bare", "ours", "c")}
            for _ in range(args.repeat):
                for i, puzzle in enumerate(puzzles):
                    start = time.perf_counter()
                    found = bare(puzzle.givens, limit)
                    t["bare"][i] = min(t["bare"][i], time.perf_counter() - start)
                    start = time.perf_counter()
                    result = backend.solve(build_model(puzzle), limit)
                    t["ours"][i] = min(t["ours"][i], time.perf_counter() - start)
                    if len(found) != 1 or result.count != 1:
                        sys.exit(f"{name}: not exactly one solution: {puzzle}")
                    if not (is_solution(puzzle, found[0]) and is_solution(puzzle, result.solution)):
                        sys.exit(f"{name}: a wrong solution: {puzzle}")
                    if library and limit == 1:
                        start = time.perf_counter()
                        grid = compiled(puzzle.givens)
                        t["c"][i] = min(t["c"][i], time.perf_counter() - start)
                        if not is_solution(puzzle, grid):
                            sys.exit(f"{name}: exact_cover gave a wrong solution: {puzzle}")
            b, o = (statistics.fmean(t[k]) * 1000 for k in ("bare", "ours"))
            c = f"{statistics.fmean(t['c']) * 1000:.2f}" if library and limit == 1 else ""
            print(f"| {name} | {limit} | {len(puzzles)} | {b:.2f} | {o:.2f} | {o / b:.2f} | {c} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
