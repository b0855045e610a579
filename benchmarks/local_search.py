"""Local search (`local`: min-conflicts, simulated annealing) against `native`, in one run.

Lewis ("Metaheuristics can solve Sudoku puzzles", 2007) reports the time of simulated
annealing growing sharply as the givens fall. Per set (easy50, top95 and a sample of the
17-clue puzzles), each puzzle is given to `native` and to `local` with each method, in
turn, under the same timeout; every solution is verified. The table has the share
solved, the mean givens, the mean moves and milliseconds of the solved puzzles, and the
mean milliseconds over all (a timeout counts its full time).

    python benchmarks/local_search.py --data-dir ../shared/data [--sample 10] [--timeout 2]
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
    args = parser.parse_args()
    folder = data_dir(parser, args, SETS.values())

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


if __name__ == "__main__":
    raise SystemExit(main())
