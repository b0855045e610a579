"""Certified verdicts: what a backend's own proof costs, and what checking it costs.

For each puzzle of a public set (default the first 200 of top1465) and each backend spec
(``--backends``, default ``sat``; the specs take turns on each puzzle, so they share the
machine's load) with ``--limit`` (default 2, a uniqueness check), one after the other:
``sudokulab.solve`` without ``certify``, then with it. Per puzzle: the
solve's time without proof, the time with proof logging (the call's less the checker's),
the proof's lines and bytes, our checker's time (``Certificate.checked().check_time``),
and the ratios check / solve and proof / solve; each time the best of ``--repeat`` runs.
Printed: medians and maxima per backend.
``--broken N`` adds N unsolvable puzzles: top95's first N, each with its first given
(row-major) changed to the smallest value that clashes with no given and leaves no
solution (the native engine says which), so that unsolvable verdicts are certified too.
Every solution is verified; a verdict without an accepted certificate stops the run.
With ``--drat-trim PATH`` each certificate is also written to a temporary folder and
checked by drat-trim.

    python benchmarks/certify.py --data-dir ../shared/data [--backends sat] [--count 200]
        [--broken 20] [--repeat 3] [--drat-trim /tmp/drat/drat-trim]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from classic_sets import add_data_dir, data_dir

SETS = {
    "top1465": "amtal-sudoku/top1465",
    "top95": "norvig-pytudes/sudoku-top95.txt",
    "sudoku17": "norvig-pytudes/sudokus_17.txt",
}


def broken(puzzles: list, count: int) -> list:
    """Up to ``count`` unsolvable puzzles, one from each of ``puzzles`` in turn: its first
    given changed to the smallest value that clashes with nothing and leaves no solution."""
    from sudokulab import Puzzle, solve

    found = []
    for puzzle in puzzles:
        if len(found) == count:
            break
        grid = list(puzzle.givens)
        for cell, value in ((c, v) for c in range(len(grid)) if grid[c] for v in range(1, 10)):
            changed = Puzzle(puzzle.geometry, tuple(grid[:cell] + [value] + grid[cell + 1 :]))
            if value == grid[cell] or changed.clashes():
                continue
            if solve(changed, "native").status == "unsolvable":
                found.append(changed)
                break
    return found


def drat_trim(program: str, certificate, folder: Path, number: int) -> tuple[bool, float]:
    """Whether drat-trim verifies the certificate (its files written to ``folder``), and
    its run's seconds, start to exit."""
    cnf, proof = certificate.write(folder, number)
    start = time.perf_counter()
    run = subprocess.run([program, str(cnf), str(proof)], capture_output=True, text=True)
    return "s VERIFIED" in run.stdout.splitlines(), time.perf_counter() - start


def measure_one(
    spec: str, puzzle, number: int, limit: int, repeat: int
) -> tuple[str, list[float], object] | None:
    """One puzzle on one spec: its verdict, the best of ``repeat`` times without proof,
    with proof and of the check, and the certificate (None: no verdict to certify)."""
    from sudokulab import is_solution, solve

    best = [float("inf")] * 3  # without proof, with proof, the check
    for _ in range(repeat):
        start = time.perf_counter()
        plain = solve(puzzle, spec, limit=limit)
        plain_time = time.perf_counter() - start
        start = time.perf_counter()
        result = solve(puzzle, spec, limit=limit, certify=True)
        took = time.perf_counter() - start
        made = result.certificate
        for answer in (plain, result):
            if not all(is_solution(puzzle, s) for s in answer.solutions):
                raise SystemExit(f"{spec}: puzzle {number}: a solution breaks the rules")
        if not result.exact:
            return None  # no verdict to certify (a count stopped at its limit)
        if made is None or not made.accepted:
            why = made.reason if made else result.message
            raise SystemExit(f"{spec}: puzzle {number}: {result.status} not certified: {why}")
        times = (plain_time, took - made.check_time, made.check_time)
        best = [min(b, t) for b, t in zip(best, times, strict=True)]
    return str(result.status), best, made


def measure(
    specs: list[str], puzzles: list, limit: int, program: str | None, repeat: int
) -> dict[str, dict[str, list]]:
    """Per spec, per puzzle: times without and with proof, proof size, check time,
    drat-trim's word. The specs take turns on each puzzle, so that they share the load."""
    table = {spec: {k: [] for k in ("verdicts", "plain", "proved", "lines", "bytes", "check",
                                    "trimmed", "trim_time")} for spec in specs}  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="sudokulab-certify-") as folder:
        for number, puzzle in enumerate(puzzles, 1):
            for turn, spec in enumerate(specs):
                found = measure_one(spec, puzzle, number, limit, repeat)
                if found is None:
                    continue
                verdict, (plain, proved, check), made = found
                rows = table[spec]
                rows["verdicts"].append(verdict)
                rows["plain"].append(plain)
                rows["proved"].append(proved)
                rows["lines"].append(made.lines)
                rows["bytes"].append(made.size)
                rows["check"].append(check)
                if program:
                    where = Path(folder) / str(turn)
                    verified, seconds = drat_trim(program, made, where, number)
                    rows["trimmed"].append(verified)
                    rows["trim_time"].append(seconds)
    return table


def spread(values: list[float], scale: float = 1.0, digits: int = 2) -> str:
    """``median / max`` of ``values`` times ``scale``."""
    if not values:
        return "-"
    return f"{statistics.median(values) * scale:.{digits}f} / {max(values) * scale:.{digits}f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--backends", default="sat", help="backend specs (default sat)")
    parser.add_argument("--set", default="top1465", choices=sorted(SETS))
    parser.add_argument("--count", type=int, default=200, help="the set's first N (200)")
    parser.add_argument("--limit", type=int, default=2, help="solutions asked for (2)")
    parser.add_argument("--broken", type=int, default=0, help="unsolvable puzzles added (0)")
    parser.add_argument("--drat-trim", help="drat-trim's path: check every certificate too")
    parser.add_argument("--repeat", type=int, default=1, help="runs per puzzle, best kept (1)")
    args = parser.parse_args()
    folder = data_dir(parser, args, [SETS[args.set], SETS["top95"]])

    from sudokulab import read_file
    from sudokulab.backends import parse_specs

    try:
        specs = [str(spec) for spec in parse_specs(args.backends)]
    except ValueError as err:
        parser.error(str(err))
    puzzles = [e.puzzle for e in read_file(folder / SETS[args.set])][: args.count]
    groups = [(f"{args.set}, first {len(puzzles)}", puzzles)]
    if args.broken:
        unsolvable = broken([e.puzzle for e in read_file(folder / SETS["top95"])], args.broken)
        groups.append((f"top95 broken, {len(unsolvable)}", unsolvable))

    import importlib.metadata

    print(f"python {sys.version.split()[0]}, PySAT {importlib.metadata.version('python-sat')}")
    print(f"limit {args.limit}; each cell: median / max per puzzle, best of {args.repeat}")
    head = "| puzzles | backend | verdicts | solve ms | with proof ms | proof / solve |"
    head += " proof lines | proof KB | check ms | check / solve | check / with proof |"
    if args.drat_trim:
        head += " drat-trim | drat-trim ms |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for label, chosen in groups:
        table = measure(specs, chosen, args.limit, args.drat_trim, args.repeat)
        for spec, rows in table.items():
            plain, proved, check = rows["plain"], rows["proved"], rows["check"]
            kinds = ", ".join(
                f"{rows['verdicts'].count(k)} {k}" for k in sorted(set(rows["verdicts"]))
            )
            cells = [
                label,
                spec,
                kinds or "none",
                spread(plain, 1000),
                spread(proved, 1000),
                spread([p / s for p, s in zip(proved, plain, strict=True)]),
                spread(rows["lines"], digits=0),
                spread(rows["bytes"], 1 / 1024, 1),
                spread(check, 1000),
                spread([c / s for c, s in zip(check, plain, strict=True)], digits=1),
                spread([c / p for c, p in zip(check, proved, strict=True)], digits=1),
            ]
            if args.drat_trim:
                cells.append(f"{sum(rows['trimmed'])} of {len(rows['trimmed'])}")
                cells.append(spread(rows["trim_time"], 1000))
            print("| " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
