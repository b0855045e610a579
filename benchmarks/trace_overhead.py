"""What the trace hooks cost the reference engine when tracing is off.

Times ``native/reference.py`` (``trace=None``) against another version of the same file
given as the baseline (e.g. the one before the hooks), on top95 with order mrv: for each
puzzle the best of K runs, the two engines alternating, so a burst of load on a shared
machine hits both. Prints the summed times and their ratio (above 1: the hooks cost).

    git show a14b8e0:native/reference.py > /tmp/reference_before.py
    python benchmarks/trace_overhead.py /tmp/reference_before.py --data-dir ../shared/data
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

from classic_sets import add_data_dir, data_dir

from sudokulab import read_file
from sudokulab.models import geometry
from sudokulab.native import reference

TOP95 = "norvig-pytudes/sudoku-top95.txt"


def load(path: Path, name: str):
    """A module from a file path (the baseline version of the engine)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline", type=Path, help="another version of native/reference.py")
    add_data_dir(parser)
    parser.add_argument("--repeats", type=int, default=5, help="runs per puzzle (best kept)")
    parser.add_argument(
        "--propagation", action="append", help="levels to time (default: hidden, singles)"
    )
    args = parser.parse_args()
    data_dir(parser, args, [TOP95])
    base = load(args.baseline, "reference_baseline")
    entries = read_file(args.data_dir / TOP95)
    units = tuple(u.cells for u in geometry(9).units)
    clock = time.perf_counter
    for propagation in args.propagation or ["hidden", "singles"]:
        old = base.Engine(9, units, propagation, "mrv")
        new = reference.Engine(9, units, propagation, "mrv")
        total_old = total_new = 0.0
        for entry in entries:
            best = {old: float("inf"), new: float("inf")}
            for k in range(args.repeats):
                for engine in (old, new) if k % 2 == 0 else (new, old):
                    start = clock()
                    engine.search(entry.puzzle.givens, limit=1)
                    best[engine] = min(best[engine], clock() - start)
            total_old += best[old]
            total_new += best[new]
        print(
            f"top95 {propagation}/mrv, best of {args.repeats} per puzzle, summed: "
            f"baseline {total_old * 1000:.1f} ms, current {total_new * 1000:.1f} ms, "
            f"current/baseline {total_new / total_old:.4f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
