"""What the bench's parent process costs per row, beyond the engine's own time.

Runs what ``sudokulab bench sudoku17 --backends native --data-dir $SUDOKULAB_DATA
--no-plots --workers 1`` runs (the same ``run_bench`` call, loader and executor, into a
fresh store in a temporary folder), then prints the rows stored, the wall time of the
run (loading the set, the worker, every row committed, the agreement), rows per second,
the engine's time (the sum of the rows' ``solve_time`` from the store) and the parent's
cost per row beyond it, in microseconds. With ``--cli`` it times the whole command in a
child process instead (interpreter start, the report and its tables included).

The numbers are printed, never asserted: they depend on the machine.

    SUDOKULAB_DATA=../shared/data python benchmarks/bench_parent.py
    python benchmarks/bench_parent.py --set sudoku10k --backends native,native-py --cli
"""

from __future__ import annotations

import argparse
import os
import platform
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def bench_in_process(args: argparse.Namespace, out: Path) -> float:
    """Seconds of the ``run_bench`` call ``sudokulab bench`` makes."""
    from sudokulab.bench import BenchPlan, LocalExecutor, run_bench
    from sudokulab.bench.store import Store
    from sudokulab.cli.bench import _loader

    plan = BenchPlan(
        sets=[args.set],
        specs=args.backends.split(","),
        timeout=10.0,
        data_dirs=[str(Path(d).resolve()) for d in args.data_dir],
    )
    with Store(out / "results.sqlite") as store:
        start = time.perf_counter()
        run_bench(plan, store, _loader(plan.data_dirs), LocalExecutor(args.workers), progress=False)
        return time.perf_counter() - start


def bench_command(args: argparse.Namespace, out: Path) -> float:
    """Seconds of the whole ``sudokulab bench`` command, in a child process."""
    command = [
        sys.executable, "-m", "sudokulab", "bench", args.set, "--backends", args.backends,
        "--no-plots", "--workers", str(args.workers), "--out", str(out),
        *(f"--data-dir={d}" for d in args.data_dir),
    ]  # fmt: skip
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", default="sudoku17", help="the set (default: sudoku17)")
    parser.add_argument("--backends", default="native", help="the specs (default: native)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default: 1)")
    parser.add_argument("--data-dir", action="append", default=[], help="a data folder")
    parser.add_argument("--cli", action="store_true", help="time the whole command")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        wall = (bench_command if args.cli else bench_in_process)(args, out)
        with sqlite3.connect(out / "results.sqlite") as db:
            rows, engine = db.execute("SELECT COUNT(*), SUM(solve_time) FROM results").fetchone()
    what = "sudokulab bench (whole command)" if args.cli else "run_bench"
    print(f"{platform.python_version()} on {os.cpu_count()} cores; {what}, {args.set} x "
          f"{args.backends}, {args.workers} worker(s)")  # fmt: skip
    print(f"rows:             {rows}")
    print(f"wall:             {wall:.3f} s")
    print(f"rows/s:           {rows / wall:,.0f}")
    print(f"engine time:      {engine:.3f} s (sum of solve_time)")
    print(f"parent per row:   {(wall - engine) / rows * 1e6:.1f} µs beyond the engine's time")


if __name__ == "__main__":
    main()
