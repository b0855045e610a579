"""Peak memory of the bench and the report on a large file, beside ``solve``'s.

Makes a file of ``--lines`` classic puzzles (default 2,000,000) in a temporary folder:
the puzzles of sudokus_17 (from ``--data-dir``, default $SUDOKULAB_DATA; without one, the
classic 9x9 sets the project ships), each copy relabelled (a random permutation of the
digits) and shuffled (rows within bands, bands, columns within stacks, stacks, and a
transpose), so that no two lines are alike and each is as hard as its source. Then runs,
each as a child process, and prints its wall time and peak resident memory (``wait4``'s
``ru_maxrss``: the largest of the command's process and the worker processes it waited
for; each command is forked by a small launcher process, not by this one):

- ``sudokulab solve FILE`` (the reference: it streams the file a block at a time);
- ``sudokulab bench FILE --backends native --out DIR --no-plots``;
- ``sudokulab report --out DIR`` (the tables and report.md; ``--plots`` draws them too);

and the store's size in bytes per row. The numbers are printed, never asserted: they
depend on the machine. The file and the store are deleted at the end (``--keep DIR``
keeps them there).

    SUDOKULAB_DATA=../shared/data python benchmarks/memory.py
    python benchmarks/memory.py --lines 200000 --workers 2
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from classic_sets import SETS, add_data_dir

#: The project's own classic 9x9 sets: the puzzles used without a data folder.
SHIPPED = ("gen-classic-easy", "gen-classic-medium", "gen-classic-hard", "gen-classic-expert",
           "gen-classic-extreme", "seeds")  # fmt: skip
#: Lines made and written at a time.
BLOCK = 100_000


def source_puzzles(data_dir: Path | None) -> tuple[str, np.ndarray]:
    """The puzzles copies are made of, as a (k, 81) array of digits, and where from."""
    from sudokulab.catalog import load

    if data_dir is not None and (data_dir / SETS["sudokus_17"]).is_file():
        path = data_dir / SETS["sudokus_17"]
        lines = [line.strip() for line in path.read_text().splitlines() if line.strip()]
        digits = np.frombuffer("".join(lines).encode(), dtype=np.uint8) - ord("0")
        return str(path), digits.reshape(-1, 81).astype(np.uint8)
    rows = [e.puzzle.givens for name in SHIPPED for e in load(name).entries]
    return "the shipped classic sets", np.array(rows, dtype=np.uint8)


def shuffled(givens: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each grid relabelled and shuffled by symmetries of the classic grid (one random
    symmetry per row): the same puzzle up to names, so as hard."""
    k = len(givens)
    grids = givens.reshape(k, 9, 9)

    def lines() -> np.ndarray:
        # a band order, then a row order within each band: (k, 9) row indices
        bands = rng.permuted(np.tile(np.arange(3), (k, 1)), axis=1)
        within = rng.permuted(np.tile(np.arange(3), (k, 3, 1)), axis=2)
        return (bands[:, :, None] * 3 + within).reshape(k, 9)

    rows, cols = lines(), lines()
    picked = grids[np.arange(k)[:, None, None], rows[:, :, None], cols[:, None, :]]
    flip = rng.random(k) < 0.5
    picked[flip] = picked[flip].transpose(0, 2, 1)
    labels = np.concatenate(
        [np.zeros((k, 1), dtype=np.uint8), rng.permuted(np.tile(np.arange(1, 10), (k, 1)), axis=1)],
        axis=1,
    ).astype(np.uint8)
    return np.take_along_axis(labels, picked.reshape(k, 81).astype(np.intp), axis=1)


def make_file(path: Path, lines: int, source: np.ndarray, seed: int) -> None:
    """``lines`` shuffled copies of the source puzzles, one line each, ``.`` for empty."""
    rng = np.random.default_rng(seed)
    table = np.frombuffer(b".123456789", dtype=np.uint8)
    with path.open("wb") as out:
        for start in range(0, lines, BLOCK):
            k = min(BLOCK, lines - start)
            picks = source[(np.arange(start, start + k) % len(source))]
            text = np.empty((k, 82), dtype=np.uint8)
            text[:, :81] = table[shuffled(picks, rng)]
            text[:, 81] = ord("\n")
            out.write(text.tobytes())


#: Runs a command and prints its wall seconds, ``ru_maxrss`` (KiB) and exit status as JSON.
#: A small process of its own forks the command: on Linux a process's peak counts the
#: memory of the process it was forked from until its exec, so the command must not be
#: forked from this one, which holds the puzzles it made.
LAUNCHER = """
import json, os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(json.dumps([time.perf_counter() - start, usage.ru_maxrss, os.waitstatus_to_exitcode(status)]))
"""


def measure(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int]:
    """Run a command; its wall seconds, peak resident memory in MiB (``ru_maxrss``: the
    largest of the command's process and the worker processes it started) and exit
    status. It runs in ``cwd`` (the sudokulab installed, not a checkout's folder); its
    standard output is dropped, its standard error shown."""
    out = subprocess.run(
        [sys.executable, "-c", LAUNCHER, *command],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        check=True,
    )
    wall, peak, status = json.loads(out.stdout)
    return wall, peak / 1024, status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--lines", type=int, default=2_000_000, help="puzzles in the file")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="bench worker processes (default: one per core)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=1, help="seed of the shuffles")
    parser.add_argument("--plots", action="store_true", help="let the report draw its plots")
    parser.add_argument("--keep", type=Path, help="keep the file and the store in this folder")
    args = parser.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="sudokulab-memory-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        run(args, folder)
    finally:
        if args.keep is None:
            for path in sorted(folder.rglob("*"), reverse=True):
                path.rmdir() if path.is_dir() else path.unlink()
            folder.rmdir()


def run(args: argparse.Namespace, folder: Path) -> None:
    """Make the file, run the three commands, print what each took."""
    where, source = source_puzzles(args.data_dir)
    puzzles = folder / "puzzles.txt"
    start = time.perf_counter()
    make_file(puzzles, args.lines, source, args.seed)
    made = time.perf_counter() - start
    print(f"{platform.python_version()} on {os.cpu_count()} cores; {args.lines:,} lines "
          f"({puzzles.stat().st_size / 2**20:,.0f} MiB) made from {len(source):,} puzzles of "
          f"{where} in {made:.1f} s")  # fmt: skip
    out = folder / "bench"
    cli = [sys.executable, "-m", "sudokulab"]
    commands = {
        "solve": [*cli, "solve", str(puzzles)],
        "bench": [*cli, "bench", str(puzzles), "--backends", "native", "--out", str(out),
                  "--workers", str(args.workers), "--no-plots"],
        "report": [*cli, "report", "--out", str(out), *([] if args.plots else ["--no-plots"])],
    }  # fmt: skip
    env = {**os.environ, "TQDM_DISABLE": "1"}
    print(f"{'command':8} {'wall s':>8} {'peak MiB':>9} {'exit':>5}")
    for name, command in commands.items():
        wall, peak, status = measure(command, env, folder)
        print(f"{name:8} {wall:8.1f} {peak:9,.0f} {status:5}", flush=True)
    store = out / "results.sqlite"
    size = sum(p.stat().st_size for p in out.glob("results.sqlite*"))
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    per_row = size / max(rows, 1)
    print(f"store: {size / 2**20:,.0f} MiB for {rows:,} rows, {per_row:,.0f} bytes per row")


if __name__ == "__main__":
    main()
