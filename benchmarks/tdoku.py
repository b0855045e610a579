"""The compiled core against tdoku, the fastest published Sudoku solver, side by side.

tdoku (https://github.com/t-dillon/tdoku, BSD 2-clause) is not part of sudokulab: give the
folder of a clone and this script compiles its solver (``src/solver_dpll_triad_simd.cc``
and ``src/util.cc``) with loops of ours into a temporary shared library (clang++ when there
is one, as tdoku recommends: ``clang++`` or else the newest ``clang++-N`` on PATH, as
Debian names it; else g++; ``-O3 -march=native``) and loads it with ctypes. Sets: the
classic ones and the three where most puzzles have many solutions (``classic_sets.DERIVED``:
sudokus_17 less one clue a puzzle, top1465 less two, and 10,000 of sudokus_17 less two to
four, the sparse boards; made with a fixed seed). Two tables, per set and task (first
solution, limit 1; count to two, limit 2):

- whole sets, as a user runs both: tdoku's own loop over the set's file (the text in
  memory, one 81-character line a puzzle; the loop finds each line and hands it to the
  solver, which parses it) against one batch call of ours from Python (:func:`solve_set`:
  the givens in as one uint8 array, the first solutions and counters out, the backend's
  defaults on the classic grid, ``locked``, ``mrv-degree``); each timed from Python around
  the one call, the best of ``--repeat`` passes of the whole set, the two interleaved;
- per puzzle, engine time: each puzzle timed alone around the solver call, as the core
  times each of its searches (its counters hold the nanoseconds of every search), one
  thread, the best of ``--repeat`` passes per puzzle (a set of fewer than 2,000 puzzles
  timed as copies of itself, each puzzle's best over its copies too:
  ``classic_sets.copies``). tdoku's time includes reading its 81-character string, ours
  reading a ready array of givens; neither includes Python. Rows: tdoku; the core with
  today's first configuration (``hidden``, ``mrv``); the core with the backend's defaults,
  and the same per call from Python (``_core.search``, the givens as a list, the answer a
  tuple).

Ratios are our time over tdoku's (below 1: faster). Every count must equal tdoku's and
every first solution (tdoku's under limit 1: it writes none when it counts on) must obey
the rules and the givens. ``--only whole`` or ``--only per-puzzle`` prints one table.

Guesses are not comparable one for one: tdoku counts one per binary branch (it branches
on a digit's placement in a band and counts the negation as free), the core one per
candidate tried.

    git clone https://github.com/t-dillon/tdoku /tmp/tdoku
    python benchmarks/tdoku.py --tdoku /tmp/tdoku --data-dir ../shared/data
    python benchmarks/tdoku.py --tdoku /tmp/tdoku --only whole --sets sudokus_17-2to4,top1465-2
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import gc
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from classic_sets import add_options, chosen, copies, fold, load

from sudokulab import is_solution, native
from sudokulab.models import Puzzle, geometry
from sudokulab.models.grids import Grids, format_lines

#: Our timing loop around tdoku's entry point: each puzzle alone, on the monotonic clock.
HARNESS = r"""
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ctime>
extern "C" size_t TdokuSolverDpllTriadSimd(const char *, size_t, uint32_t, char *, size_t *);
static double now() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}
/* puzzles: n strings of 82 bytes (81 cells, '.' empty, then a NUL) */
extern "C" void sudokulab_time(const char *puzzles, int n, size_t limit, double *seconds,
                               size_t *counts, size_t *guesses, char *solutions) {
    for (int i = 0; i < n; i++) {
        size_t g = 0;
        const double start = now();
        counts[i] = TdokuSolverDpllTriadSimd(puzzles + 82 * i, limit, 0, solutions + 81 * i, &g);
        seconds[i] = now() - start;
        guesses[i] = g;
    }
}
/* A whole file's text as a user runs tdoku over it: each line of 81 characters or more
 * (not a '#' comment) handed to the solver as it stands, in turn; its count and solution
 * kept. Returns the puzzles solved. */
extern "C" size_t sudokulab_file(const char *text, size_t len, size_t limit, size_t *counts,
                                 char *solutions) {
    size_t n = 0, g;
    for (const char *p = text, *end = text + len; p < end;) {
        const char *eol = static_cast<const char *>(memchr(p, '\n', end - p));
        if (eol == nullptr) eol = end;
        if (eol - p >= 81 && *p != '#') {
            counts[n] = TdokuSolverDpllTriadSimd(p, limit, 0, solutions + 81 * n, &g);
            n++;
        }
        p = eol + 1;
    }
    return n;
}
"""


def fail(message: str) -> None:
    """Stop: a wrong answer or a missing tool makes every number moot."""
    sys.exit(f"benchmarks/tdoku.py: {message}")


def find_compiler() -> str | None:
    """clang++ (Debian's packages name it clang++-N: the newest on PATH), else g++."""
    versioned = sorted(
        (int(m.group(1)), str(p))
        for d in os.environ.get("PATH", "").split(os.pathsep)
        if d and Path(d).is_dir()
        for p in Path(d).glob("clang++-*")
        if (m := re.fullmatch(r"clang\+\+-(\d+)", p.name)) and os.access(p, os.X_OK)
    )
    return shutil.which("clang++") or (versioned[-1][1] if versioned else shutil.which("g++"))


def build(source: Path, folder: Path) -> tuple[ctypes.CDLL, str]:
    """tdoku's solver and our loop as one shared library; the library and the compiler."""
    compiler = find_compiler()
    if compiler is None:
        fail("no C++ compiler (clang++, clang++-N or g++) on PATH")
    harness = folder / "harness.cc"
    harness.write_text(HARNESS)
    library = folder / "libtdoku.so"
    command = [
        compiler, "-O3", "-march=native", "-std=c++17", "-shared", "-fPIC",
        f"-I{source / 'src'}", str(source / "src" / "solver_dpll_triad_simd.cc"),
        str(source / "src" / "util.cc"), str(harness), "-o", str(library),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"building tdoku failed:\n{done.stderr[-2000:]}")
    version = subprocess.run([compiler, "--version"], capture_output=True, text=True)
    return ctypes.CDLL(str(library)), version.stdout.splitlines()[0]


def time_tdoku(lib, puzzles, limit, repeat):
    """Seconds per puzzle (best of ``repeat``), counts, guesses and first solutions."""
    n, timed = len(puzzles), puzzles * copies(len(puzzles))
    text = b"".join(("".join(str(v) if v else "." for v in g) + "\0").encode() for g in timed)
    seconds = (ctypes.c_double * len(timed))()
    counts = (ctypes.c_size_t * len(timed))()
    guesses = (ctypes.c_size_t * len(timed))()
    solutions = ctypes.create_string_buffer(81 * len(timed))
    best = [float("inf")] * n
    for _ in range(repeat):
        lib.sudokulab_time(
            text, len(timed), ctypes.c_size_t(limit), seconds, counts, guesses, solutions
        )
        best = [min(b, s) for b, s in zip(best, fold(list(seconds), n), strict=True)]
    grids = [tuple(solutions.raw[81 * i : 81 * i + 81]) for i in range(n)]
    return best, list(counts)[:n], list(guesses)[:n], [tuple(b - 48 for b in g) for g in grids]


#: The grid's units, and the knobs the backend uses by default on the classic grid.
UNITS = tuple(u.cells for u in geometry(9).units)
PROPAGATION, ORDER = "locked", "mrv-degree"


def solve_set(givens: np.ndarray, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """One batch call of ours over a whole set, as ``solve FILE`` makes it: the givens in
    as one ``(k, 81)`` uint8 array, the first solutions and the counters out."""
    return _engine().search_grids(givens, limit)


@functools.cache
def _engine() -> native.Engine:
    """The engine of the classic grid with the defaults, built once (as the native
    backend keeps one per shape and knobs)."""
    return native.Engine(9, UNITS, PROPAGATION, ORDER)


def set_text(givens: np.ndarray) -> bytes:
    """The set as tdoku reads a file: one line of 81 characters a puzzle, ``.`` for blank."""
    return format_lines(givens).encode("ascii")


def whole_tdoku(lib, text: bytes, k: int, limit: int):
    """tdoku over a file's text, its own loop: seconds, counts, first solutions."""
    counts = (ctypes.c_size_t * k)()
    solutions = ctypes.create_string_buffer(81 * k)
    start = time.perf_counter()
    n = lib.sudokulab_file(text, ctypes.c_size_t(len(text)), ctypes.c_size_t(limit), counts,
                           solutions)  # fmt: skip
    seconds = time.perf_counter() - start
    if n != k:
        fail(f"tdoku's loop read {n} puzzles, not {k}")
    grids = np.frombuffer(solutions.raw, dtype=np.uint8).reshape(k, 81) - ord("0")
    return seconds, np.array(counts, dtype=np.int64), grids


def whole_ours(givens: np.ndarray, limit: int):
    """Our batch call over the set (:func:`solve_set`): seconds, counts, first solutions."""
    start = time.perf_counter()
    solutions, counters = solve_set(givens, limit)
    seconds = time.perf_counter() - start
    return seconds, counters[:, native.COUNTERS.index("count")], solutions


def whole_sets(lib, sets: dict[str, np.ndarray], repeat: int) -> None:
    """Per set and task, the best of ``repeat`` interleaved passes of the whole set (times
    ``classic_sets.copies`` for a small one: the 11 hardest take tens of µs a pass), each
    side's answers checked: every count equal, every first solution verified (tdoku's
    under limit 1: it writes none when it goes on counting)."""
    print(f"whole sets: ms a pass, the best of {repeat} interleaved (more for a small set);")
    print("tdoku's loop over the file's text, its parsing included; ours one batch call")
    head = (
        f"{'set':<15} {'puzzles':>8} {'many':>6} {'task':<7} {'tdoku':>8} {'ours':>8} {'ratio':>6}"
    )
    print(head)
    print("-" * len(head))
    for name, givens in sets.items():
        k, text, grids = len(givens), set_text(givens), Grids(geometry(9), givens)
        for limit, task in ((1, "first"), (2, "unique")):
            best_td = best_ours = float("inf")
            for _ in range(repeat * copies(k)):  # a small set: more passes, not copies
                td, td_counts, td_grids = whole_tdoku(lib, text, k, limit)
                ours, our_counts, our_grids = whole_ours(givens, limit)
                best_td, best_ours = min(best_td, td), min(best_ours, ours)
            if not np.array_equal(np.minimum(td_counts, limit), np.minimum(our_counts, limit)):
                fail(f"{name}: tdoku and the core count differently (limit {limit})")
            solved = td_counts > 0
            # tdoku writes a solution only when it stops at the first (limit 1)
            checked = (("tdoku", td_grids),) if limit == 1 else ()
            for who, found in (*checked, ("the core", our_grids)):
                if not grids.verify(found)[solved].all():
                    fail(f"{name}: a first solution of {who} breaks the rules or the givens")
            many = f"{np.mean(td_counts >= 2):.0%}" if limit == 2 else ""
            print(
                f"{name:<15} {k:>8} {many:>6} {task:<7} {best_td * 1e3:>8.3f} "
                f"{best_ours * 1e3:>8.3f} {best_ours / best_td:>5.2f}x",
                flush=True,
            )


def time_core(tables, puzzles, limit, repeat, propagation, order):
    """Seconds per puzzle inside the core (best of ``repeat``), counts and guesses."""
    n = len(puzzles)
    timed = np.asarray(puzzles * copies(n), dtype=np.uint8)
    column = native.COUNTERS.index
    best = [float("inf")] * n
    for _ in range(repeat):
        _, raw = native._core.search(
            tables, timed, propagation=propagation, order=order, limit=limit
        )
        counters = np.frombuffer(raw, dtype=np.int64).reshape(-1, len(native.COUNTERS))
        seconds = fold((counters[:, column("nanoseconds")] / 1e9).tolist(), n)
        best = [min(b, t) for b, t in zip(best, seconds, strict=True)]
    return best, counters[:n, column("count")].tolist(), counters[:n, column("guesses")].tolist()


def time_calls(tables, puzzles, limit, repeat, propagation, order):
    """Seconds per puzzle of one ``_core.search`` call from Python (best of ``repeat``)."""
    search = native._core.search
    n = len(puzzles)
    best = [float("inf")] * n
    for _ in range(repeat):
        for i, givens in enumerate(puzzles * copies(n)):
            start = time.perf_counter()
            search(tables, givens, propagation=propagation, order=order, limit=limit)
            best[i % n] = min(best[i % n], time.perf_counter() - start)
    return best


def per_puzzle(lib, tables, sets: dict[str, np.ndarray], repeat: int) -> None:
    """Per set and task, µs per puzzle of each engine timed alone (see the docstring)."""
    print(f"per puzzle: µs, engine time, the best of {repeat} per puzzle")
    head = (
        f"{'set':<15} {'task':<7} {'tdoku':>7} {'guesses':>8} {'hidden,mrv':>11} "
        f"{'ratio':>6} {'default':>8} {'ratio':>6} {'guesses':>8} {'per call':>9} {'ratio':>6}"
    )
    print(head)
    print("-" * len(head))
    for name, givens in sets.items():
        puzzles = givens.tolist()
        for limit, task in ((1, "first"), (2, "unique")):
            td, counts, td_guesses, grids = time_tdoku(lib, puzzles, limit, repeat)
            if limit == 1:
                for i, (grid, found) in enumerate(zip(grids, counts, strict=True)):
                    if found and not is_solution(Puzzle.from_grid(puzzles[i]), grid):
                        fail(f"tdoku's answer breaks the rules: {name}, puzzle {i + 1}")
            rows = {}
            for propagation, order in (("hidden", "mrv"), (PROPAGATION, ORDER)):
                times, ours, guesses = time_core(tables, puzzles, limit, repeat, propagation, order)
                if [min(c, limit) for c in ours] != [min(c, limit) for c in counts]:
                    fail(f"{name}: tdoku and the core ({propagation}) count differently")
                rows[propagation] = statistics.fmean(times), statistics.fmean(guesses)
            calls = statistics.fmean(time_calls(tables, puzzles, limit, repeat, PROPAGATION, ORDER))
            t = statistics.fmean(td)
            hidden, default = rows["hidden"][0], rows[PROPAGATION][0]
            print(
                f"{name:<15} {task:<7} {t * 1e6:>7.2f} {statistics.fmean(td_guesses):>8.1f} "
                f"{hidden * 1e6:>11.2f} {hidden / t:>5.2f}x {default * 1e6:>8.2f} "
                f"{default / t:>5.2f}x {rows[PROPAGATION][1]:>8.1f} {calls * 1e6:>9.2f} "
                f"{calls / t:>5.2f}x",
                flush=True,
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tdoku", type=Path, required=True, help="a clone of tdoku")
    add_options(parser, derived=True)
    parser.add_argument("--repeat", type=int, default=5, help="passes, the best kept (5)")
    parser.add_argument(
        "--only", choices=("whole", "per-puzzle"), help="one of the two tables (default both)"
    )
    args = parser.parse_args()
    if not (args.tdoku / "src" / "solver_dpll_triad_simd.cc").is_file():
        parser.error(f"{args.tdoku} is not a tdoku clone (no src/solver_dpll_triad_simd.cc)")
    names = chosen(parser, args, derived=True)
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")
    if native.ENGINE != "c" or not native.BITBOARD:
        parser.error("the compiled core with its AVX2 bitboard solver is not running here")

    sets = {name: load(args.data_dir, name) for name in names}
    tables = native._core.Tables(9, UNITS)
    with tempfile.TemporaryDirectory() as folder:
        lib, compiler = build(args.tdoku, Path(folder))
        print(f"tdoku built with {compiler}, -O3 -march=native; one thread")
        print("ratios: ours over tdoku's (below 1: ours is faster)")
        gc.disable()
        if args.only != "per-puzzle":
            whole_sets(lib, sets, args.repeat)
        if args.only is None:
            print()
        if args.only != "whole":
            per_puzzle(lib, tables, sets, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
