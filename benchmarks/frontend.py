"""The front end against the engine: `solve`, `check` and a large file, in one run.

Every number is a ratio against a reference measured in the same run, on the same
puzzles (machines here are noisy; nothing is asserted):

    start-up    ``sudokulab solve PUZZLE`` start to exit against ``python -c pass``,
                interleaved, best of --starts each, wall and CPU (the process's user
                and system time) (target: at most 5 times ``python -c pass``); twice: as
                this environment runs it (with PYTHONDONTWRITEBYTECODE set and an editable
                install, sudokulab's sources are compiled on every run) and with their
                bytecode cached, as a plain ``pip install`` leaves it (a temporary
                PYTHONPYCACHEPREFIX, filled by one run first).
    solve       ``sudokulab solve FILE > out`` on sudokus_17 (all of it, process start-up
                included) against the bare C batch call (``_core.search`` on the
                same puzzles, already in memory, with the command's default knobs, one
                call per core side by side, as the command spreads its blocks): the front
                end's share of the engine's throughput (target: at least 0.6); and the
                same command run in this process, without the interpreter's start-up and
                imports, with the CPU time of both (every thread's, less noisy than
                the wall clock on a shared machine): the command's beyond the bare
                calls' is the front end's own work.
    check       ``sudokulab check --backends native,cpsat`` on top95 against
                ``sudokulab check --backends cpsat`` alone: what the native engine and the
                cross-checking add to CP-SAT's time (target: a few percent).
    memory      peak resident memory of ``sudokulab solve`` on a file of 2,000,000 lines
                (sudokus_17 repeated; made in a temporary folder) (target: under 300 MB),
                and its throughput there.

Each output is checked: every solution of `solve` verifies (in bulk) and `check` exits 0.
The bench's parent has its own benchmark, ``benchmarks/bench_parent.py``.

    python benchmarks/frontend.py --data-dir ../shared/data [--skip-memory] [--starts N]
    python benchmarks/frontend.py --start-up-only [--starts N]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from classic_sets import add_data_dir, data_dir

import sudokulab.cli
from sudokulab.backends.native import default_knobs
from sudokulab.models import geometry
from sudokulab.models.grids import Grids
from sudokulab.native import ENGINE, Engine, _core

SUDOKUS_17 = "norvig-pytudes/sudokus_17.txt"
TOP95 = "norvig-pytudes/sudoku-top95.txt"
LINES_2M = 2_000_000
PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"


def run(argv: list[str], stdout=subprocess.DEVNULL, env=None) -> tuple[float, int, int, float]:
    """Wall seconds, exit status, peak resident kilobytes and CPU seconds (user and
    system) of one command (its own)."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=stdout, stderr=err, stdin=subprocess.DEVNULL, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            err.seek(0)
            sys.exit(f"{' '.join(argv)} failed ({code}): {err.read().decode()[-500:]}")
    return wall, code, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def bare_c(path: Path, repeat: int) -> tuple[float, float, int]:
    """Best seconds of the file's puzzles in ``_core.search`` calls with the command's
    default knobs, one call per core side by side (the core releases the GIL), the best
    CPU seconds of the process meanwhile, and their count."""
    lines = [x.split()[0] for x in path.read_text().splitlines() if x.strip()]
    grids = Grids.from_lines(lines)
    units = tuple(u.cells for u in geometry(9).units)
    propagation, order = default_knobs(units, ())
    tables = Engine(9, units).tables
    cores = os.cpu_count() or 1
    parts = [grids.givens[i::cores].copy() for i in range(cores)]

    def call(givens) -> None:
        _core.search(tables, givens, propagation=propagation, order=order)

    best = cpu = float("inf")
    with ThreadPoolExecutor(cores) as pool:
        for _ in range(repeat):
            start, busy = time.perf_counter(), time.process_time()
            list(pool.map(call, parts))
            best = min(best, time.perf_counter() - start)
            cpu = min(cpu, time.process_time() - busy)
    return best, cpu, len(grids)


def start_to_exit(script: str, starts: int) -> None:
    """Print ``solve PUZZLE`` start to exit against ``python -c pass`` (best of
    ``starts`` each, interleaved; wall and CPU), as this environment runs it and with
    bytecode cached."""
    source = sudokulab.cli.__file__
    compiled = Path(importlib.util.cache_from_source(source)).exists()
    argvs = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "solve PUZZLE": [script, "solve", PUZZLE],
    }
    print(f"\nstart to exit, best of {starts} (interleaved); target: at most 5x python -c pass")
    with tempfile.TemporaryDirectory() as cache:
        cached = {**os.environ, "PYTHONPYCACHEPREFIX": cache}
        warm = {k: v for k, v in cached.items() if k != "PYTHONDONTWRITEBYTECODE"}
        run(argvs["solve PUZZLE"], env=warm)  # writes the bytecode of every module it loads
        how = "bytecode cached" if compiled else "sources compiled on each run"
        for label, env in ((f"as run here ({how})", None), ("bytecode cached", cached)):
            wall = dict.fromkeys(argvs, float("inf"))
            cpu = dict.fromkeys(argvs, float("inf"))
            for _ in range(starts):
                for name, argv in argvs.items():
                    took, _, _, used = run(argv, env=env)
                    wall[name], cpu[name] = min(wall[name], took), min(cpu[name], used)
            solve, bare = wall["solve PUZZLE"], wall["python -c pass"]
            print(f"  {label}: solve PUZZLE {solve:.3f} s, python -c pass {bare:.3f} s, "
                  f"ratio {solve / bare:.1f}; CPU {cpu['solve PUZZLE']:.3f} s against "
                  f"{cpu['python -c pass']:.3f} s, ratio "
                  f"{cpu['solve PUZZLE'] / cpu['python -c pass']:.1f}")  # fmt: skip


def in_process(path: Path, repeat: int) -> tuple[float, float]:
    """Best seconds of the solve command's own work, run in this process (imports done,
    output to a null stream): what the front end costs without the interpreter's start;
    and the best CPU seconds of the process meanwhile (every thread's: less noisy on a
    shared machine, and beyond the bare calls' own, the front end's work)."""
    import contextlib

    from sudokulab.cli import main as cli_main

    best = cpu = float("inf")
    for _ in range(repeat):
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
            start, busy = time.perf_counter(), time.process_time()
            code = cli_main(["solve", str(path)])
            best = min(best, time.perf_counter() - start)
            cpu = min(cpu, time.process_time() - busy)
        if code != 0:
            sys.exit(f"solve {path} exited with {code}")
    return best, cpu


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
    parser.add_argument("--starts", type=int, default=20, help="runs of each start-up timing")
    parser.add_argument("--start-up-only", action="store_true", help="the start-up alone")
    args = parser.parse_args()
    if not args.start_up_only:
        data_dir(parser, args)
    if ENGINE != "c":
        sys.exit("the compiled core is not built: nothing to compare against")
    cli = [sys.executable, "-m", "sudokulab"]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, best of {args.repeat}")
    script = shutil.which("sudokulab", path=str(Path(sys.executable).parent))
    if script is None:
        sys.exit("the sudokulab script is not installed next to this Python")
    start_to_exit(script, args.starts)
    if args.start_up_only:
        return

    data = Path(args.data_dir)
    path = data / SUDOKUS_17
    bare, bare_cpu, count = bare_c(path, args.repeat)
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
    inside, inside_cpu = in_process(path, args.repeat)
    print(f"\nsolve sudokus_17 ({count:,} puzzles, {good:,} verified)")
    print(f"  bare C batch calls    {bare:8.3f} s  {count / bare:>10,.0f} puzzles/s "
          f"({os.cpu_count()} side by side)")  # fmt: skip
    print(f"  sudokulab solve FILE  {wall:8.3f} s  {count / wall:>10,.0f} puzzles/s "
          f"(start-up alone {startup:.3f} s)")  # fmt: skip
    print(f"  ratio (front end / bare C throughput): {bare / wall:.2f}  (target >= 0.6)")
    print(f"  the same in this process (no start-up): {inside:8.3f} s, "
          f"{count / inside:,.0f} puzzles/s, ratio {bare / inside:.2f}")  # fmt: skip
    print(f"  CPU time in this process: the command {inside_cpu:.3f} s, the bare calls "
          f"{bare_cpu:.3f} s: the front end's own work {inside_cpu - bare_cpu:.3f} s")  # fmt: skip

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
        wall, code, peak_kb, _ = run([*cli, "solve", str(big)])
        print(f"\nsolve a {LINES_2M:,}-line file ({big.stat().st_size / 1e6:.0f} MB)")
        print(f"  {wall:.2f} s, {LINES_2M / wall:,.0f} puzzles/s, exit {code}")
        print(f"  peak resident memory {peak_kb / 1024:.0f} MB  (target < 300 MB)")


if __name__ == "__main__":
    main()
