"""The logic solver over the classic sets: how many puzzles its ladder settles without
search, the ratings it gives, and how fast it rates, in one run.

Per set: the share of puzzles the ladder solves by logic alone, against a reference
measured in the same run, the native engine's ``locked`` propagation at the root (naked
and hidden singles plus locked candidates, which is what tdoku's propagation amounts to:
tdoku's own figure is 78.7% of the 17-clue puzzles settled without a guess); the grades;
the hardest techniques; the mean score of the puzzles solved; puzzles rated per second.

    python benchmarks/logic.py --data-dir ../shared/data [--sets sudoku17,top1465]
        [--sample N] [--jobs 2]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from classic_sets import add_data_dir, data_dir

SETS = "sudoku17,top1465,top95,hardest"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--sets", default=SETS, help=f"catalog sets (default {SETS})")
    parser.add_argument("--sample", type=int, default=0, help="puzzles per set (0: all)")
    parser.add_argument("--jobs", type=int, default=1, help="processes rating (default 1)")
    args = parser.parse_args()
    data_dir(parser, args)

    from sudokulab.api import rate_rows
    from sudokulab.catalog import load
    from sudokulab.generate import propagates
    from sudokulab.logic.ladder import GRADES

    print(f"jobs {args.jobs}; reference: the engine's locked propagation at the root")
    head = (
        f"{'set':<10} {'puzzles':>7} {'ladder':>8} {'locked':>8} {'ratio':>6} "
        f"{'rated/s':>8}  grades (easy/medium/hard/expert/extreme)"
    )
    print(head)
    hardest: dict[str, Counter] = {}
    for name in args.sets.split(","):
        loaded = load(name, [args.data_dir], args.sample or None, seed=1)
        puzzles = [e.puzzle for e in loaded.entries]
        start = time.perf_counter()
        rows = list(rate_rows(puzzles, args.jobs))
        elapsed = time.perf_counter() - start
        solved = sum(r["status"] == "solved" for r in rows)
        locked = sum(propagates(p.geometry, p.givens, "locked") for p in puzzles)
        grades = Counter(r["grade"] for r in rows)
        hardest[name] = Counter(r["hardest"] for r in rows)
        share, ref = solved / len(rows), locked / len(rows)
        scores = [r["score"] for r in rows if r["status"] == "solved"]
        mean = sum(scores) / len(scores) if scores else float("nan")
        print(
            f"{name:<10} {len(rows):>7} {share:>8.1%} {ref:>8.1%} "
            f"{share / ref if ref else float('inf'):>6.2f} {len(rows) / elapsed:>8.0f}  "
            + "/".join(str(grades[g]) for g in GRADES)
            + f"  (mean score solved {mean:.2f})"
        )
    print()
    for name, counts in hardest.items():
        top = ", ".join(f"{k} {v}" for k, v in counts.most_common(8))
        print(f"{name}: hardest technique: {top}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
