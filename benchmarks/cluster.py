"""The bench on Dask: does a second worker halve a slow workload, and does the parent keep up?

In one run, on a LocalCluster of worker processes on this machine (one thread each):

    scaling     the same slow workload (python-constraint on a top95 sample) with 1 and
                with 2 Dask workers: the ratio of the wall times (near 2 on two cores
                when the work dominates; the cluster's start is not timed), the best a
                perfect split of these puzzles could give, and the rows' own times
                added up (when they grow with two workers, the cores slow each other)
    ingestion   a fast backend (native on sudoku17) through the Dask executor: rows the
                parent verifies and commits per second, against the rate at which the
                workers' engine produces them (the sum of the rows' solve_time), and how
                many workers of the slow backend the parent could keep busy

Every row is verified by the bench as ever; the numbers are printed, never asserted.

    python benchmarks/cluster.py --data-dir ../shared/data [--sample 24]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

from classic_sets import add_data_dir, data_dir


def timed_run(client, sets, specs, data_dirs, sample, out: Path) -> tuple[float, int, float, float]:
    """Wall seconds of one run_bench through the Dask executor; rows; the rows' total and
    longest time (seconds)."""
    from sudokulab.bench import BenchPlan, run_bench
    from sudokulab.bench.dask_executor import DaskExecutor
    from sudokulab.bench.store import Store
    from sudokulab.cli.bench import _loader

    plan = BenchPlan(sets=sets, specs=specs, timeout=10.0, sample=sample, seed=1,
                     data_dirs=data_dirs)  # fmt: skip
    with Store(out) as store:
        start = time.perf_counter()
        run = run_bench(plan, store, _loader(plan.data_dirs), DaskExecutor(client), progress=False)
        wall = time.perf_counter() - start
    with sqlite3.connect(out) as db:
        rows, engine, longest, bad = db.execute(
            "SELECT COUNT(*), SUM(solve_time), MAX(time), SUM(verified = 0) FROM results"
            " WHERE run_id = ?",
            (run,),
        ).fetchone()
    if bad:
        sys.exit(f"{bad} rows failed verification")
    return wall, rows, engine or 0.0, longest or 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--sample", type=int, default=24, help="top95 puzzles (default: 24)")
    args = parser.parse_args()
    data_dir(parser, args)
    from sudokulab.bench.dask_executor import distributed, local_cluster

    dd = distributed()
    data_dirs = [str(Path(args.data_dir).resolve())]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores")
    walls = {}
    with tempfile.TemporaryDirectory() as tmp:
        for workers in (1, 2):
            with local_cluster(workers) as cluster, dd.Client(cluster) as client:
                client.wait_for_workers(workers)
                walls[workers], slow_rows, total, longest = timed_run(
                    client, ["top95"], ["constraint"], data_dirs, args.sample,
                    Path(tmp) / f"slow-{workers}.sqlite",
                )  # fmt: skip
                print(f"constraint x top95 ({slow_rows} puzzles), {workers} worker(s): "
                      f"{walls[workers]:.2f} s wall, the rows' own times add up to "
                      f"{total:.2f} s")  # fmt: skip
                if workers == 1:
                    best, slowest = total / max(total / 2, longest), longest
                else:
                    busy = total / (workers * walls[workers])
        print(f"scaling: 1 worker / 2 workers = {walls[1] / walls[2]:.2f}; the best split of "
              f"these puzzles gives {best:.2f} (the longest takes {slowest:.1f} s); the two "
              f"workers were busy {busy:.0%} of the wall time")  # fmt: skip
        with local_cluster(2) as cluster, dd.Client(cluster) as client:
            client.wait_for_workers(2)
            wall, rows, engine, _ = timed_run(
                client, ["sudoku17"], ["native"], data_dirs, None, Path(tmp) / "fast.sqlite"
            )
        print(f"\nnative x sudoku17 ({rows:,} rows), 2 workers: {wall:.2f} s")
        print(f"  the parent ingests  {rows / wall:>10,.0f} rows/s (verified and committed)")
        print(f"  the engine produces {rows / max(engine, 1e-9):>10,.0f} rows/s per worker "
              f"(sum of solve_time {engine:.3f} s)")  # fmt: skip
        ingest = rows / wall
        slow = slow_rows / walls[1]  # one worker's rate on the slow workload
        print(f"\nheadroom: the parent keeps {ingest / slow:,.0f} constraint workers busy "
              f"({slow:.2f} rows/s each, measured above); it is the bottleneck only for "
              f"the native engine ({ingest * engine / rows:.2f} of one worker)")  # fmt: skip


if __name__ == "__main__":
    main()
