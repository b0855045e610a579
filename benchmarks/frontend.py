"""The front end against the engine: `solve`, `check` and a large file, in one run.

Every number is a ratio against a reference measured in the same run, on the same
puzzles (machines here are noisy; nothing is asserted):

    solve       ``sudokulab solve FILE > out`` on sudokus_17 (all of it, process start-up
                included) against the bare C batch call (``_core.search`` on the
                same puzzles, already in memory): the front end's share of the engine's
                throughput (target: at least 0.5); and the same command run in this
                process, without the interpreter's start-up and imports.
    check       ``sudokulab check --backends native,cpsat`` on top95 against
                ``sudokulab check --backends cpsat`` alone: what the native engine and the
                cross-checking add to CP-SAT's time (target: a few percent).
    memory      peak resident memory of ``sudokulab solve`` on a file of 2,000,000 lines
                (sudokus_17 repeated; made in a temporary folder) (target: under 300 MB),
                and its throughput there.

Each output is checked: every solution of `solve` verifies (in bulk) and `check` exits 0.
The bench's parent has its own benchmark, ``benchmarks/bench_parent.py``.

    python benchmarks/frontend.py --data-dir ../shared/data [--skip-memory]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from classic_sets import add_data_dir, data_dir

from sudokulab.models import geometry
from sudokulab.models.grids import Grids
from sudokulab.native import ENGINE, Engine

SUDOKUS_17 = "norvig-pytudes/sudokus_17.txt"
TOP95 = "norvig-pytudes/sudoku-top95.txt"
LINES_2M = 2_000_000


def run(argv: list[str], stdout=subprocess.DEVNULL) -> tuple[float, int, int]:
    """Wall seconds, exit status and peak resident kilobytes of one command (its own)."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=stdout, stderr=err, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            err.seek(0)
            sys.exit(f"{' '.join(argv)} failed ({code}): {err.read().decode()[-500:]}")
    return wall, code, usage.ru_maxrss


def bare_c(path: Path, repeat: int) -> tuple[float, int]:
    """Best seconds of one core call on the file's puzzles (the buffer in, hidden and mrv,
    the first solution), and their count."""
    lines = [x.split()[0] for x in path.read_text().splitlines() if x.strip()]
    grids = Grids.from_lines(lines)
    from sudokulab.native import _core

    tables = Engine(9, tuple(u.cells for u in geometry(9).units)).tables
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        _core.search(tables, grids.givens, propagation="hidden", order="mrv")
        best = min(best, time.perf_counter() - start)
    return best, len(grids)


def in_process(path: Path, repeat: int) -> float:
    """Best seconds of the solve command's own work, run in this process (imports done,
    output to a null stream): what the front end costs without the interpreter's start."""
    import contextlib

    from sudokulab.cli import main as cli_main

    best = float("inf")
    for _ in range(repeat):
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
            start = time.perf_counter()
            code = cli_main(["solve", str(path)])
            best = min(best, time.perf_counter() - start)
        if code != 0:
            sys.exit(f"solve {path} exited with {code}")
    return best


def verified(path: Path, out: Path) -> int:
    """How many printed solutions verify against their puzzles (the output in order)."""
    puzzles = Grids.from_lines([x.split()[0] for x in path.read_text().splitlines() if x.strip()])
    answers = Grids.from_lines(out.read_text().splitlines())
    return int(puzzles.verify(answers.givens).sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each timing (best kept)")
    parser.add_argument("--skip-memory", action="store_true", help="no 2,000,000-line file")
    args = parser.parse_args()
    data_dir(parser, args)
    if ENGINE != "c":
        sys.exit("the compiled core is not built: nothing to compare against")
    data = Path(args.data_dir)
    cli = [sys.executable, "-m", "sudokulab"]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, best of {args.repeat}")

    path = data / SUDOKUS_17
    bare, count = bare_c(path, args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.txt"
        walls = []
        for _ in range(args.repeat):
            with open(out, "wb") as f:
                walls.append(run([*cli, "solve", str(path)], stdout=f)[0])
        good = verified(path, out)
        startup = min(
            run([*cli, "solve", "4.....8.5.3..........7......2.....6.....8.4......1......."
                 "6.3.7.5..2.....1.4......"])[0] for _ in range(args.repeat)
        )  # fmt: skip
    wall = min(walls)
    inside = in_process(path, args.repeat)
    print(f"\nsolve sudokus_17 ({count:,} puzzles, {good:,} verified)")
    print(f"  bare C batch call     {bare:8.3f} s  {count / bare:>10,.0f} puzzles/s")
    print(f"  sudokulab solve FILE  {wall:8.3f} s  {count / wall:>10,.0f} puzzles/s "
          f"(start-up alone {startup:.3f} s)")  # fmt: skip
    print(f"  ratio (front end / bare C throughput): {bare / wall:.2f}  (target >= 0.5)")
    print(f"  the same in this process (no start-up): {inside:8.3f} s, "
          f"{count / inside:,.0f} puzzles/s, ratio {bare / inside:.2f}")  # fmt: skip

    top95 = data / TOP95
    both = min(run([*cli, "check", str(top95), "--backends", "native,cpsat"])[0]
               for _ in range(args.repeat))  # fmt: skip
    alone = min(run([*cli, "check", str(top95), "--backends", "cpsat"])[0]
                for _ in range(args.repeat))  # fmt: skip
    print("\ncheck top95")
    print(f"  --backends cpsat         {alone:8.3f} s")
    print(f"  --backends native,cpsat  {both:8.3f} s")
    print(f"  ratio: {both / alone:.3f}  (target: a few percent over 1)")

    if args.skip_memory:
        return
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "two-million.txt"
        text = path.read_bytes().rstrip(b"\n") + b"\n"
        per = text.count(b"\n")
        with open(big, "wb") as f:
            for _ in range(LINES_2M // per):
                f.write(text)
            f.write(b"".join(text.splitlines(keepends=True)[: LINES_2M % per]))
        wall, code, peak_kb = run([*cli, "solve", str(big)])
        print(f"\nsolve a {LINES_2M:,}-line file ({big.stat().st_size / 1e6:.0f} MB)")
        print(f"  {wall:.2f} s, {LINES_2M / wall:,.0f} puzzles/s, exit {code}")
        print(f"  peak resident memory {peak_kb / 1024:.0f} MB  (target < 300 MB)")


if __name__ == "__main__":
    main()
