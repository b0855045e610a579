"""The classic 9x9 sets the engine benchmarks time (native.py, tdoku.py, history.py), and
their two shared options: ``--data-dir`` (the public data folder; every benchmark that
reads it declares and checks it with :func:`add_data_dir` and :func:`data_dir`, the
default being $SUDOKULAB_DATA) and ``--sets``."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

SETS = {
    "sudokus_17": "norvig-pytudes/sudokus_17.txt",
    "top1465": "amtal-sudoku/top1465",
    "top2365": "sunjay-sudoku/top2365.txt",
    "hardest": "norvig-pytudes/sudoku-hardest.txt",
}


#: A timing pass holds at least this many searches: a smaller set runs as that many copies
#: of itself, in order, each puzzle's time the best over its copies and the passes. Alone,
#: the 11 hardest puzzles (a few microseconds each) time mostly the caches and branch
#: predictors left cold by the row before and the machine's noise of that moment.
LEAST_SEARCHES = 2000


def copies(n: int) -> int:
    """How many copies of a set of ``n`` puzzles one timing pass runs."""
    return max(1, -(-LEAST_SEARCHES // n))


def fold(times: list[float], n: int) -> list[float]:
    """Per puzzle, the best of its copies' times (``n`` puzzles repeated in order)."""
    best = list(times[:n])
    for j in range(n, len(times)):
        best[j % n] = min(best[j % n], times[j])
    return best


def add_data_dir(parser: argparse.ArgumentParser) -> None:
    """``--data-dir`` (default $SUDOKULAB_DATA)."""
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=os.environ.get("SUDOKULAB_DATA"),
        help="folder of the public sets (default: $SUDOKULAB_DATA)",
    )


def data_dir(parser: argparse.ArgumentParser, args: argparse.Namespace, files=()) -> Path:
    """The data folder, present and holding each of ``files`` (else a usage error)."""
    if args.data_dir is None or not Path(args.data_dir).is_dir():
        parser.error("give the public data folder with --data-dir or SUDOKULAB_DATA")
    folder = Path(args.data_dir)
    missing = [f for f in files if not (folder / f).is_file()]
    if missing:
        parser.error(f"not in {folder}: {', '.join(missing)}")
    return folder


def add_options(parser: argparse.ArgumentParser) -> None:
    """``--data-dir`` (default $SUDOKULAB_DATA) and ``--sets`` (default all)."""
    add_data_dir(parser)
    parser.add_argument(
        "--sets", default=",".join(SETS), help=f"comma-separated sets (default {','.join(SETS)})"
    )


def chosen(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """The names asked for, each known and its file present (else a usage error)."""
    names = [n.strip() for n in args.sets.split(",") if n.strip()]
    unknown = [n for n in names if n not in SETS]
    if unknown or not names:
        parser.error(f"unknown set(s) {', '.join(unknown)}: choose from {', '.join(SETS)}")
    data_dir(parser, args, [SETS[n] for n in names])
    return names
