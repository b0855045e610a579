"""Local search (`local`: min-conflicts, simulated annealing) against `native`, in one run.

Per set (easy50, top95 and a sample of the 17-clue puzzles), each puzzle is given to
`native` and to `local` with each method, in turn, under the same timeout; every
solution is verified. The table has the share solved, the mean givens, the mean moves
and milliseconds of the solved puzzles, and the mean milliseconds over all (a timeout
counts its full time).

    python benchmarks/local_search.py --data-dir ../shared/data [--sample 10] [--timeout 2]

``--sweep`` repeats instead the experiment in which Lewis ("Metaheuristics can solve
Sudoku puzzles", J. Heuristics 2007) found annealing's puzzles easy-hard-easy: puzzles
made by keeping a share of the cells of solved grids (the solutions of ``--grids``
easy50 puzzles, drawn with the seed), from 0% to 100% of the cells by ``--step``,
``--per-grid`` puzzles a grid and a share, the cells kept drawn at random and no
uniqueness asked for (a puzzle may have many solutions), each given to ``--spec``
(``local:method=annealing`` by default) under the timeout. Per share: the givens, the
share solved, the mean moves and milliseconds.

    python benchmarks/local_search.py --data-dir ../shared/data --sweep [--step 0.05]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys

from classic_sets import add_data_dir, data_dir

SETS = {
    "easy50": "norvig-pytudes/sudoku-easy50.txt",
    "top95": "norvig-pytudes/sudoku-top95.txt",
    "sudoku17": "norvig-pytudes/sudokus_17.txt",
}
SPECS = ("native", "local:method=min-conflicts", "local:method=annealing")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--sample", type=int, default=10, help="puzzles per set (default 10)")
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds a puzzle (default 2)")
    parser.add_argument("--seed", type=int, default=1, help="the sample's seed (default 1)")
    parser.add_argument("--sweep", action="store_true", help="sweep the share of cells kept")
    parser.add_argument("--step", type=float, default=0.05, help="the sweep's step (0.05)")
    parser.add_argument("--grids", type=int, default=4, help="solved grids swept (default 4)")
    parser.add_argument("--per-grid", type=int, default=5, help="puzzles a grid and share (5)")
    parser.add_argument("--spec", default="local:method=annealing", help="the swept backend")
    args = parser.parse_args()
    folder = data_dir(parser, args, SETS.values())
    if args.sweep:
        return sweep(args, folder)

    from sudokulab import is_solution, read_file, solve
    from sudokulab.backends import get_backend

    version = get_backend("local").version()
    print(f"python {sys.version.split()[0]}, local {version}, timeout {args.timeout:g} s, "
          f"{args.sample} puzzles a set (seed {args.seed})")  # fmt: skip
    solve("." * 81, "native")  # the engine's first call (its tables), kept out of the table
    print("| set | givens | backend | solved | mean moves (solved) | ms (solved) | ms (all) |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for name, path in SETS.items():
        entries = read_file(folder / path)
        chosen = random.Random(args.seed).sample(entries, min(args.sample, len(entries)))
        puzzles = [e.puzzle for e in chosen]
        runs: dict[str, list] = {spec: [] for spec in SPECS}
        for puzzle in puzzles:  # interleaved: each puzzle by every spec in turn
            for spec in SPECS:
                result = solve(puzzle, spec, timeout=args.timeout)
                solved = result.status == "solved"
                if solved and not is_solution(puzzle, result.solution):
                    sys.exit(f"{name}: {spec} gave a wrong solution for {puzzle}")
                runs[spec].append((solved, result.stats.get("moves", 0), result.time))
        givens = statistics.fmean(p.given_count for p in puzzles)
        for spec in SPECS:
            rows = runs[spec]
            won = [r for r in rows if r[0]]
            moves = f"{statistics.fmean(r[1] for r in won):,.0f}" if won else "-"
            if spec == "native":
                moves = "-"
            solved_ms = f"{statistics.fmean(r[2] for r in won) * 1000:.1f}" if won else "-"
            all_ms = statistics.fmean(r[2] for r in rows) * 1000
            print(f"| {name} | {givens:.1f} | {spec} | {len(won)}/{len(rows)} | {moves} | "
                  f"{solved_ms} | {all_ms:.1f} |")  # fmt: skip
    return 0


def sweep(args: argparse.Namespace, folder) -> int:
    """Lewis's sweep: puzzles keeping a share of a solved grid's cells, by share."""
    from sudokulab import Puzzle, is_solution, read_file, solve
    from sudokulab.backends import get_backend
    from sudokulab.models import geometry

    rng = random.Random(args.seed)
    entries = rng.sample(read_file(folder / SETS["easy50"]), args.grids)
    grids = [solve(e.puzzle, "native").solution for e in entries]
    steps = round(1 / args.step)
    print(f"python {sys.version.split()[0]}, local {get_backend('local').version()}, "
          f"{args.spec}, timeout {args.timeout:g} s, {args.grids} easy50 solutions x "
          f"{args.per_grid} puzzles a share (seed {args.seed})")  # fmt: skip
    print("| cells kept | givens | solved | mean moves (solved) | ms (solved) | ms (all) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for k in range(steps + 1):
        share = k / steps
        rows = []
        for grid in grids:
            for _ in range(args.per_grid):
                kept = set(rng.sample(range(81), round(share * 81)))  # the rest removed
                givens = tuple(v if c in kept else 0 for c, v in enumerate(grid))
                puzzle = Puzzle(geometry(9), givens)
                result = solve(puzzle, args.spec, timeout=args.timeout)
                solved = result.status == "solved"
                if solved and not is_solution(puzzle, result.solution):
                    sys.exit(f"{args.spec} gave a wrong solution for {puzzle}")
                rows.append((solved, result.stats.get("moves", 0), result.time, sum(
                    1 for v in givens if v)))  # fmt: skip
        won = [r for r in rows if r[0]]
        moves = f"{statistics.fmean(r[1] for r in won):,.0f}" if won else "-"
        solved_ms = f"{statistics.fmean(r[2] for r in won) * 1000:.1f}" if won else "-"
        all_ms = statistics.fmean(r[2] for r in rows) * 1000
        givens = statistics.fmean(r[3] for r in rows)
        print(f"| {share:.0%} | {givens:.1f} | {len(won)}/{len(rows)} | {moves} | {solved_ms} | "
              f"{all_ms:.1f} |", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
