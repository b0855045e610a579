"""Time the native engine's Python reference on the classic sets.

Prints mean and median milliseconds per puzzle for the default settings on top95,
hardest and easy50, next to a baseline measured in the same run (Norvig's solver, see
``norvig.py``), and plain backtracking (propagation=none, order=first) on easy50 with a
per-puzzle timeout. Every solution is verified; times include building the model.

    python benchmarks/engine.py --data-dir ../shared/data
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time

import norvig
from classic_sets import add_data_dir, data_dir

from sudokulab import __version__, is_solution, read_file, solve

SETS = {
    "top95": "norvig-pytudes/sudoku-top95.txt",
    "hardest": "norvig-pytudes/sudoku-hardest.txt",
    "easy50": "norvig-pytudes/sudoku-easy50.txt",
}


def time_sudokulab(entries, timeout=None, **options):
    """Seconds per puzzle with sudokulab.solve, and how many timed out."""
    times, timeouts = [], 0
    for entry in entries:
        result = solve(entry.puzzle, timeout=timeout, **options)
        if result.status == "timeout":
            timeouts += 1
        elif not is_solution(entry.puzzle, result.solution):
            sys.exit(f"wrong answer from sudokulab at {entry.source} line {entry.line}")
        times.append(result.time)
    return times, timeouts


def time_norvig(entries):
    """Seconds per puzzle with the baseline solver."""
    times = []
    for entry in entries:
        text = str(entry.puzzle)
        start = time.perf_counter()
        answer = norvig.solve(text)
        times.append(time.perf_counter() - start)
        if answer is None or not is_solution(entry.puzzle, tuple(map(int, answer))):
            sys.exit(f"wrong answer from the baseline at {entry.source} line {entry.line}")
    return times


def row(label, times, timeouts=0, baseline=None):
    """One line of the table."""
    mean = statistics.fmean(times) * 1000
    median = statistics.median(times) * 1000
    ratio = f"{statistics.fmean(baseline) / statistics.fmean(times):8.2f}x" if baseline else ""
    return f"{label:<34} {len(times):>5} {mean:>10.3f} {median:>10.3f} {timeouts:>8} {ratio:>9}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_dir(parser)
    parser.add_argument(
        "--timeout",
        type=float,
        default=2.0,
        help="per-puzzle timeout of the plain-backtracking run (s)",
    )
    args = parser.parse_args()
    folder = data_dir(parser, args, SETS.values())
    print(f"sudokulab {__version__}, Python {platform.python_version()}, {platform.machine()}")
    header = f"{'set / solver':<34} {'n':>5} {'mean ms':>10} {'median ms':>10} {'timeouts':>8}"
    print(header + f" {'vs Norvig':>9}")
    print("-" * (len(header) + 10))
    for name, rel in SETS.items():
        entries = read_file(folder / rel)
        base = time_norvig(entries)
        ours, _ = time_sudokulab(entries)
        print(row(f"{name}: Norvig baseline", base))
        print(row(f"{name}: native-py hidden/mrv", ours, baseline=base))
    entries = read_file(folder / SETS["easy50"])
    plain, timeouts = time_sudokulab(
        entries, timeout=args.timeout, propagation="none", order="first"
    )
    print(row(f"easy50: native-py none/first ({args.timeout:g}s)", plain, timeouts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
