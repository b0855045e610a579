"""The classic 9x9 sets the engine benchmarks time (native.py, tdoku.py, history.py), and
their two shared options: ``--data-dir`` (the public data folder; every benchmark that
reads it declares and checks it with :func:`add_data_dir` and :func:`data_dir`, the
default being $SUDOKULAB_DATA) and ``--sets``; and the timing of a bare solver script
against its backend that mip.py, sat.py and smt.py share (:func:`bare_against_ours`).

Besides the public files, three sets where most puzzles have many solutions, made from
them on the fly (never stored): ``sudokus_17-1``, each 17-clue puzzle less one clue,
``top1465-2``, each top1465 puzzle less two, and ``sudokus_17-2to4``, 10,000 of the 17-clue
puzzles less two to four clues each (13 to 15 clues: sparse boards with very many
solutions), the puzzles and clues chosen by a seeded generator (:func:`fewer_clues`), so
every run and machine times the same puzzles.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

SETS = {
    "sudokus_17": "norvig-pytudes/sudokus_17.txt",
    "top1465": "amtal-sudoku/top1465",
    "top2365": "sunjay-sudoku/top2365.txt",
    "hardest": "norvig-pytudes/sudoku-hardest.txt",
}

#: Sets made from a public one: name -> (the set, clues removed from each puzzle: a number,
#: or the least and the most, drawn for each puzzle; how many puzzles, None: every one).
DERIVED: dict[str, tuple[str, int | tuple[int, int], int | None]] = {
    "sudokus_17-1": ("sudokus_17", 1, None),
    "top1465-2": ("top1465", 2, None),
    "sudokus_17-2to4": ("sudokus_17", (2, 4), 10_000),
}

#: The seed of :func:`fewer_clues` for the derived sets.
SEED = 27


def fewer_clues(
    givens: np.ndarray, k: int | tuple[int, int], seed: int = SEED, count: int | None = None
) -> np.ndarray:
    """Each puzzle (a row of ``givens``) less ``k`` of its clues (a pair: from ``k[0]`` to
    ``k[1]``, drawn for each puzzle), chosen by a seeded draw; with ``count``, a seeded
    sample of that many puzzles first, kept in file order."""
    rng = random.Random(seed)
    if count is not None:
        givens = np.asarray(givens)[sorted(rng.sample(range(len(givens)), count))]
    out = np.array(givens, dtype=np.uint8, copy=True)
    for row in out:
        drop = k if isinstance(k, int) else rng.randint(*k)
        row[rng.sample(sorted(np.flatnonzero(row).tolist()), drop)] = 0
    return out


def load(folder: Path, name: str) -> np.ndarray:
    """The givens of set ``name`` (public or derived) as a ``(k, 81)`` uint8 array."""
    from sudokulab import read_file  # here: the options above need no sudokulab import

    base, k, count = DERIVED.get(name, (name, 0, None))
    givens = np.array([e.puzzle.givens for e in read_file(folder / SETS[base])], dtype=np.uint8)
    return fewer_clues(givens, k, count=count) if k else givens


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


def add_options(parser: argparse.ArgumentParser, derived: bool = False) -> None:
    """``--data-dir`` (default $SUDOKULAB_DATA) and ``--sets`` (default all; with
    ``derived``, the :data:`DERIVED` sets too)."""
    add_data_dir(parser)
    every = ",".join([*SETS, *DERIVED] if derived else SETS)
    parser.add_argument("--sets", default=every, help=f"comma-separated sets (default {every})")


def chosen(
    parser: argparse.ArgumentParser, args: argparse.Namespace, derived: bool = False
) -> list[str]:
    """The names asked for, each known and its file present (else a usage error); with
    ``derived``, a :data:`DERIVED` name is known too."""
    known = {**SETS, **{n: SETS[base] for n, (base, *_) in DERIVED.items()}} if derived else SETS
    names = [n.strip() for n in args.sets.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        parser.error(f"unknown set(s) {', '.join(unknown)}: choose from {', '.join(known)}")
    data_dir(parser, args, [known[n] for n in names])
    return names


def set_lines(name: str, folder: Path, sample: int | None) -> list[str]:
    """The puzzles of a catalog set (a seeded sample of ``sample``, None: all) as lines."""
    from sudokulab.bench.plan import read_set
    from sudokulab.models.grids import format_lines

    blocks = read_set(name, [str(Path(folder).resolve())], sample, seed=1)
    return [line for b in blocks for line in format_lines(b.grids.givens).split()]


def bare_against_ours(
    name: str,
    lines: list[str],
    limit: int,
    repeat: int,
    bare: Callable[[str, int], list[list[int]]],
    backend: Any,
    check: Callable[[str, Any], str | None] | None = None,
) -> tuple[list[float], list[float]]:
    """Per puzzle, the best of ``repeat`` runs (seconds) of a bare script, ``bare(line,
    limit)`` giving its grids, and of ``backend.solve`` on the same puzzle, one after the
    other. Both must find the one solution and the verifier accept it, and ``check(line,
    result)`` (when given) say nothing, else the run stops naming the set and the puzzle."""
    from sudokulab import build_model, is_solution, parse_puzzle

    puzzles = [parse_puzzle(line) for line in lines]
    bare_times = [float("inf")] * len(lines)
    our_times = [float("inf")] * len(lines)
    for _ in range(repeat):
        for i, (line, puzzle) in enumerate(zip(lines, puzzles, strict=True)):
            start = time.perf_counter()
            found = bare(line, limit)
            bare_times[i] = min(bare_times[i], time.perf_counter() - start)
            start = time.perf_counter()
            result = backend.solve(build_model(puzzle), limit)
            our_times[i] = min(our_times[i], time.perf_counter() - start)
            if len(found) != 1 or result.count != 1:
                sys.exit(f"{name}: not exactly one solution at {line}")
            if not (is_solution(puzzle, found[0]) and is_solution(puzzle, result.solution)):
                sys.exit(f"{name}: a wrong solution at {line}")
            problem = check(line, result) if check else None
            if problem:
                sys.exit(f"{name}: {problem} at {line}")
    return bare_times, our_times
