"""Rule puzzles: the native engine against CP-SAT, each puzzle timed for both in one run.

Every variant puzzle the tests ship: the published ones of tests/test_public_variants.py
(with their published solutions, and UNSOLVED's, listed without one), the Miracle Sudoku
and the hand-made 4x4 puzzle of each rule kind of tests/test_variant_kinds.py, the long
arrow of tests/test_rules_engine.py (an empty grid with a two-digit circle and a 12-cell
shaft: many solutions, so limit 2 finds two), and the shipped sets gen-thermometer,
gen-kropki and gen-anti-knight (sudokulab.catalog). Each is
solved by ``sudokulab.solve`` with limit 2 (a solution, and the proof that there is no
other) by ``native`` and by ``cpsat``, interleaved, each keeping its best wall time of
--repeat (model building included, in-process); the table gives both, native / cpsat,
and native's nodes and guesses. ``native-py`` (the reference) runs each puzzle once: its
time, and whether it agrees (the same status, count and solutions as native). Every
solution is verified with ``is_solution``, and checked against the published one where
there is one; a disagreement stops the run.

The goal (issue 39): every published puzzle proved unique by native within
max(10 x cpsat, 1 s); the last line says whether it held. Nothing is asserted: the
numbers go to docs/results.md ("Rule puzzles: native against cpsat").

    python benchmarks/variants.py [--repeat 3] [--timeout 60] [--no-sets] [--no-4x4]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
SETS = ("gen-thermometer", "gen-kropki", "gen-anti-knight")


def puzzles(with_sets: bool, with_small: bool) -> list[tuple[str, str, object, object]]:
    """(group, name, puzzle, published solution or None) for every puzzle benchmarked."""
    sys.path.insert(0, str(TESTS))
    from test_public_variants import PUZZLES, UNSOLVED
    from test_rules_engine import LONG_ARROW
    from test_variant_kinds import CASES, case, miracle

    from sudokulab import catalog
    from sudokulab.models.documents import puzzle_of

    out = []
    for name, doc in PUZZLES.items():
        puzzle, solution = puzzle_of(doc)
        out.append(("published", name, puzzle, solution))
    for name, doc in UNSOLVED.items():
        out.append(("published", name, puzzle_of(doc)[0], None))
    out.append(("published", "miracle", miracle(), None))
    out.append(("arrow", "long arrow", puzzle_of(LONG_ARROW)[0], None))
    if with_sets:
        for name in SETS:
            for i, entry in enumerate(catalog.load(name).entries, 1):
                out.append((name, f"{name} #{i}", entry.puzzle, entry.solution))
    if with_small:
        for kind in sorted(CASES):
            out.append(("4x4", f"4x4 {kind}", case(kind), None))
    return out


def timed(puzzle, backend: str, timeout: float):
    """One solve with limit 2: (result, wall seconds)."""
    import sudokulab

    start = time.perf_counter()
    result = sudokulab.solve(puzzle, backend=backend, limit=2, timeout=timeout)
    return result, time.perf_counter() - start


def check(name: str, puzzle, result, solution) -> None:
    """Stop the run on an error, a wrong solution or one that is not the published one."""
    from sudokulab import is_solution

    if result.status != "multiple" and not (
        result.status in ("solved", "unsolvable") and result.exact
    ):
        sys.exit(f"{name}: {result.backend} answered {result.status} {result.message}")
    if not all(is_solution(puzzle, s) for s in result.solutions):
        sys.exit(f"{name}: {result.backend} returned a grid that breaks the puzzle")
    if solution is not None and list(result.solutions) != [tuple(solution)]:
        sys.exit(f"{name}: {result.backend} did not find exactly the published solution")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per backend (best kept)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per solve")
    parser.add_argument("--no-sets", action="store_true", help="leave out the shipped sets")
    parser.add_argument("--no-4x4", action="store_true", help="leave out the 4x4 cases")
    args = parser.parse_args()

    import ortools

    import sudokulab

    print(f"python {sys.version.split()[0]}, sudokulab {sudokulab.__version__}, "
          f"OR-Tools {ortools.__version__}; limit 2, best of {args.repeat}")  # fmt: skip
    print()
    print("| puzzle | cpsat ms | native ms | native / cpsat | nodes | guesses | native-py ms |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for backend in ("native", "cpsat", "native-py"):  # first starts, kept out of the table
        timed(puzzles(False, False)[0][2], backend, args.timeout)
    missed = []
    for group, name, puzzle, solution in puzzles(not args.no_sets, not args.no_4x4):
        best = {"native": float("inf"), "cpsat": float("inf")}
        results = {}
        for _ in range(args.repeat):
            for backend in best:
                results[backend], seconds = timed(puzzle, backend, args.timeout)
                best[backend] = min(best[backend], seconds)
        reference, py_seconds = timed(puzzle, "native-py", args.timeout)
        for result in (*results.values(), reference):
            check(name, puzzle, result, solution)
        native, cpsat = results["native"], results["cpsat"]
        for other in (cpsat, reference):  # (two of many solutions may be any two)
            if (other.status, other.count) != (native.status, native.count) or (
                native.status != "multiple" and set(other.solutions) != set(native.solutions)
            ):
                sys.exit(f"{name}: {other.backend} does not agree with native")
        if group == "published" and best["native"] > max(10 * best["cpsat"], 1.0):
            missed.append(name)
        n, c = best["native"] * 1000, best["cpsat"] * 1000
        print(f"| {name} | {c:.1f} | {n:.1f} | {n / c:.2f} | {native.stats['nodes']} | "
              f"{native.stats['guesses']} | {py_seconds * 1000:.0f} |")  # fmt: skip
    print()
    if missed:
        print(f"over max(10 x cpsat, 1 s): {', '.join(missed)}")
    else:
        print("every published puzzle within max(10 x cpsat, 1 s); native-py agrees on all")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
