"""The compiled core against tdoku, the fastest published Sudoku solver, side by side.

tdoku (https://github.com/t-dillon/tdoku, BSD 2-clause) is not part of sudokulab: give the
folder of a clone and this script compiles its solver (``src/solver_dpll_triad_simd.cc``
and ``src/util.cc``) with a timing loop of ours into a temporary shared library (clang++
when there is one, as tdoku recommends: ``clang++`` or else the newest ``clang++-N`` on
PATH, as Debian names it; else g++; ``-O3 -march=native``), loads it with ctypes and, per
set and task (first solution, limit 1; uniqueness check, limit 2), times each puzzle alone
around the solver call, as the core times each of its searches (``search_batch`` reports
the seconds of every search): engine time against engine time, one thread, the best of
``--repeat`` passes per puzzle (a set of fewer than 2,000 puzzles timed as copies of
itself, each puzzle's best over its copies too: ``classic_sets.copies``). tdoku's time
includes reading its 81-character string, ours reading a ready array of givens; neither
includes Python. Rows: tdoku; the core with today's first configuration (``hidden``,
``mrv``); the core with the backend's defaults on the classic grid (``locked``,
``mrv-degree``), and the same per call from Python (``_core.search``, the givens as a
list, the answer a tuple). Ratios are our time over tdoku's (below 1: faster). Every count
must equal tdoku's and every tdoku first solution must obey the rules and the givens.

Guesses are not comparable one for one: tdoku counts one per binary branch (it branches
on a digit's placement in a band and counts the negation as free), the core one per
candidate tried.

    git clone https://github.com/t-dillon/tdoku /tmp/tdoku
    python benchmarks/tdoku.py --tdoku /tmp/tdoku --data-dir ../shared/data
"""

from __future__ import annotations

import argparse
import ctypes
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

from classic_sets import SETS, add_options, chosen, copies, fold

from sudokulab import is_solution, native, read_file
from sudokulab.models import geometry

#: Our timing loop around tdoku's entry point: each puzzle alone, on the monotonic clock.
HARNESS = r"""
#include <cstddef>
#include <cstdint>
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


def time_core(tables, puzzles, limit, repeat, propagation, order):
    """Seconds per puzzle inside the core (best of ``repeat``), counts and guesses."""
    n, timed = len(puzzles), puzzles * copies(len(puzzles))
    best = [float("inf")] * n
    for _ in range(repeat):
        answers = native._core.search_batch(tables, timed, propagation, order, limit, None, 1)
        seconds = fold([a[-1] for a in answers], n)
        best = [min(b, t) for b, t in zip(best, seconds, strict=True)]
    return best, [a[1] for a in answers[:n]], [a[6] for a in answers[:n]]


def time_calls(tables, puzzles, limit, repeat, propagation, order):
    """Seconds per puzzle of one ``_core.search`` call from Python (best of ``repeat``)."""
    search = native._core.search
    n = len(puzzles)
    best = [float("inf")] * n
    for _ in range(repeat):
        for i, givens in enumerate(puzzles * copies(n)):
            start = time.perf_counter()
            search(tables, givens, propagation, order, limit, None, 1)
            best[i % n] = min(best[i % n], time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tdoku", type=Path, required=True, help="a clone of tdoku")
    add_options(parser)
    parser.add_argument("--repeat", type=int, default=5, help="passes, the best kept (5)")
    args = parser.parse_args()
    if not (args.tdoku / "src" / "solver_dpll_triad_simd.cc").is_file():
        parser.error(f"{args.tdoku} is not a tdoku clone (no src/solver_dpll_triad_simd.cc)")
    names = chosen(parser, args)
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")
    if native.ENGINE != "c" or not native.BITBOARD:
        parser.error("the compiled core with its AVX2 bitboard solver is not running here")

    units = tuple(u.cells for u in geometry(9).units)
    tables = native._core.Tables(9, units)
    with tempfile.TemporaryDirectory() as folder:
        lib, compiler = build(args.tdoku, Path(folder))
        print(f"tdoku built with {compiler}, -O3 -march=native; one thread; best of {args.repeat}")
        print("times: µs per puzzle; ratios: ours over tdoku's (below 1: ours is faster)")
        head = (
            f"{'set':<11} {'task':<7} {'tdoku':>7} {'guesses':>8} {'hidden,mrv':>11} "
            f"{'ratio':>6} {'default':>8} {'ratio':>6} {'guesses':>8} {'per call':>9} {'ratio':>6}"
        )
        print(head)
        print("-" * len(head))
        gc.disable()
        for name in names:
            entries = read_file(args.data_dir / SETS[name])
            puzzles = [list(e.puzzle.givens) for e in entries]
            for limit, task in ((1, "first"), (2, "unique")):
                td, counts, td_guesses, grids = time_tdoku(lib, puzzles, limit, args.repeat)
                if limit == 1:
                    for entry, grid, found in zip(entries, grids, counts, strict=True):
                        if found and not is_solution(entry.puzzle, grid):
                            fail(f"tdoku's answer breaks the rules at {entry.source} {entry.line}")
                rows = {}
                for propagation, order in (("hidden", "mrv"), ("locked", "mrv-degree")):
                    times, ours, guesses = time_core(
                        tables, puzzles, limit, args.repeat, propagation, order
                    )
                    if [min(c, limit) for c in ours] != [min(c, limit) for c in counts]:
                        fail(f"{name}: tdoku and the core ({propagation}) count differently")
                    rows[propagation] = statistics.fmean(times), statistics.fmean(guesses)
                calls = statistics.fmean(
                    time_calls(tables, puzzles, limit, args.repeat, "locked", "mrv-degree")
                )
                t = statistics.fmean(td)
                hidden, default = rows["hidden"][0], rows["locked"][0]
                print(
                    f"{name:<11} {task:<7} {t * 1e6:>7.2f} {statistics.fmean(td_guesses):>8.1f} "
                    f"{hidden * 1e6:>11.2f} {hidden / t:>5.2f}x {default * 1e6:>8.2f} "
                    f"{default / t:>5.2f}x {rows['locked'][1]:>8.1f} {calls * 1e6:>9.2f} "
                    f"{calls / t:>5.2f}x",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
