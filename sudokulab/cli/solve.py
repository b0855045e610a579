"""The ``solve``, ``check`` and ``backends`` commands."""

from __future__ import annotations

import argparse
import sys

from ..api import solve
from ..backends import PRESETS, BackendSpec, Result, Status, Worker, all_backends, as_spec
from ..backends import parse_spec as _parse_spec
from ..backends import parse_specs as _parse_specs
from ..backends.base import kind_name
from ..models import Entry, format_grid, format_line, read_file
from ..native import ORDERS, PROPAGATIONS
from .common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    add_puzzle_arguments,
    positive_float,
    positive_int,
    read_inputs,
)

SOLVE_EXAMPLES = """\
examples:
  sudokulab solve 4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......
  sudokulab solve puzzles.txt --format grid
  echo '....5.264..7..9..35..62....8......9.7..34..86.....2.3....9.....9.476........3....' \\
      | sudokulab solve
  sudokulab solve puzzles.txt --propagation none --order first --timeout 5 --stats
  sudokulab solve puzzle.txt --unique
  sudokulab solve hardest --data-dir ../shared/data

exit status: 0 every puzzle solved, 1 some puzzle had no solution, timed out or (with
--unique) had several, 2 bad input (unreadable text, clashing givens, bad option).
"""

CHECK_EXAMPLES = """\
examples:
  sudokulab check puzzles.txt
  sudokulab check hard95 --data-dir ../shared/data --backends native,cpsat
  sudokulab check puzzles.txt --backends backtracking,hidden-singles,cpsat:workers=2

exit status: 0 every backend agrees and every answer verifies, 1 some backend disagrees,
fails verification, times out or errs, 2 bad input.
"""


def spec_type(text: str) -> BackendSpec:
    """A backend spec as an argument type: NAME, a preset, or NAME:key=value,..."""
    try:
        return _parse_spec(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def specs_type(text: str) -> list[BackendSpec]:
    """Comma-separated backend specs as an argument type."""
    try:
        return _parse_specs(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``solve``, ``check`` and ``backends`` to the command line."""
    p = commands.add_parser(
        "solve",
        help="solve puzzles given as text, files, set names or stdin",
        description="Solve puzzles. Each PUZZLE is a puzzle text, a file (one or many "
        "puzzles: lines, grids, CSV, or puzzle documents: .json, .jsonl), a catalog set "
        "name, or - for standard input; with none, stdin is read.",
        epilog=SOLVE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_puzzle_arguments(p)
    p.add_argument(
        "--format",
        choices=("line", "grid"),
        default="line",
        help="how solutions are printed (default: line)",
    )
    check = p.add_mutually_exclusive_group()
    check.add_argument(
        "--unique",
        action="store_true",
        help="also check uniqueness; print 'unique' or 'multiple' after each solution",
    )
    check.add_argument(
        "--count",
        action="store_true",
        help="print the number of solutions instead (N+ when --limit stopped it)",
    )
    p.add_argument(
        "--limit",
        type=positive_int,
        default=1000,
        help="most solutions --count looks for (default: 1000)",
    )
    p.add_argument(
        "--backend",
        type=spec_type,
        default="native-py",
        metavar="SPEC",
        help="a backend, a preset, or NAME:key=value,... (default: native-py; "
        "see `sudokulab backends`)",
    )
    p.add_argument(
        "--propagation", choices=PROPAGATIONS, help="native engine propagation (default: hidden)"
    )
    p.add_argument("--order", choices=ORDERS, help="native engine cell order (default: mrv)")
    p.add_argument(
        "--timeout",
        type=positive_float,
        metavar="SECONDS",
        help="give up on a puzzle after this long",
    )
    p.add_argument(
        "--stats",
        action="store_true",
        help="print status, time and search counters of each puzzle on stderr",
    )
    p.set_defaults(handler=cmd_solve)

    p = commands.add_parser(
        "check",
        help="cross-check backends against each other and the rules",
        description="Solve every puzzle with every backend (uniqueness checked, limit 2), "
        "verify each answer independently and against known solutions, and report where "
        "backends disagree. PUZZLE is as for `solve`; a catalog set brings its known "
        "solutions when the catalog has them.",
        epilog=CHECK_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_puzzle_arguments(p)
    p.add_argument(
        "--backends",
        type=specs_type,
        metavar="LIST",
        help="comma-separated backend specs (default: every available backend)",
    )
    p.add_argument(
        "--timeout",
        type=positive_float,
        default=10.0,
        metavar="SECONDS",
        help="per puzzle and backend (default: 10)",
    )
    p.add_argument(
        "--solutions",
        metavar="FILE",
        help="known solutions, one per puzzle in the same order (any format)",
    )
    p.add_argument("--csv", metavar="FILE", help="also write every row to this CSV file")
    p.set_defaults(handler=cmd_check)

    p = commands.add_parser(
        "backends",
        help="list backends and presets, and whether each is available",
        description="List every registered backend (availability, version, what it accepts, "
        "its options, which native engine is active) and the named presets.",
    )
    p.set_defaults(handler=cmd_backends)


# --- solve -------------------------------------------------------------------------------


def cmd_solve(args: argparse.Namespace) -> int:
    """Solve every puzzle given; print solutions on stdout, problems on stderr."""
    entries = read_inputs(args)
    knobs = {"propagation": args.propagation, "order": args.order}
    try:
        spec = as_spec(args.backend, **{k: v for k, v in knobs.items() if v})
    except ValueError as err:
        raise UsageError(str(err)) from None
    limit = args.limit if args.count else 2 if args.unique else 1
    with Worker() as worker:  # started only if the backend needs isolating
        return _solve_all(args, entries, spec, limit, worker)


def _label(entry: Entry, many: bool) -> str:
    return f"{entry.source} line {entry.line}" if many else "puzzle"


def _render(result: Result, entry: Entry, fmt: str) -> str:
    grid = result.solution
    assert grid is not None
    return format_grid(grid, entry.puzzle.geometry) if fmt == "grid" else format_line(grid)


def _stats_line(label: str, result: Result) -> str:
    parts = [f"{label}: {result.status}", f"{result.time * 1000:.3f} ms"]
    for key in ("nodes", "guesses", "backtracks"):
        if key in result.stats:
            parts.append(f"{key} {result.stats[key]}")
    if result.unique is not None:
        parts.append("unique" if result.unique else "not unique")
    return ", ".join(parts)


def _solve_all(
    args: argparse.Namespace, entries: list[Entry], spec: BackendSpec, limit: int, worker: Worker
) -> int:
    """Solve and print each entry; the exit status of the worst outcome."""
    many = len(entries) > 1
    worst = EXIT_OK
    first_grid = True
    for entry in entries:
        label = _label(entry, many)
        result = solve(entry.puzzle, spec, limit, args.timeout, worker=worker)
        if args.stats:
            print(_stats_line(label, result), file=sys.stderr)
        if result.status is Status.INVALID:
            print(f"sudokulab: {label}: invalid puzzle: {result.message}", file=sys.stderr)
            worst = max(worst, EXIT_BAD_INPUT)
            continue
        if args.count:
            if result.status is Status.TIMEOUT or result.status is Status.ERROR:
                print(
                    f"sudokulab: {label}: {result.status} after {result.count} solution(s)",
                    file=sys.stderr,
                )
                worst = max(worst, EXIT_FAILED)
            else:
                print(f"{result.count}{'' if result.exact else '+'}")
            continue
        if not result.solutions:
            reason = "no solution" if result.status is Status.UNSOLVABLE else str(result.status)
            detail = f" ({result.message})" if result.message else ""
            print(f"sudokulab: {label}: {reason}{detail}", file=sys.stderr)
            worst = max(worst, EXIT_FAILED)
            continue
        text = _render(result, entry, args.format)
        if args.unique:
            verdict = {True: "unique", False: "multiple", None: "unknown"}[result.unique]
            text += ("\n" if args.format == "grid" else " ") + verdict
            if result.unique is not True:
                worst = max(worst, EXIT_FAILED)
        if args.format == "grid" and not first_grid:
            print()
        print(text)
        first_grid = False
    return worst


# --- check -------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace) -> int:
    """Cross-check backends; exit 0 when all agree and verify, 1 when not, 2 for bad input."""
    from ..bench.crosscheck import cross_check, summarize

    entries = read_inputs(args)
    solutions = None
    if args.solutions:
        known = read_file(args.solutions, size=args.size)
        if len(known) != len(entries):
            raise UsageError(
                f"{args.solutions} has {len(known)} solutions for {len(entries)} puzzles"
            )
        solutions = [k.puzzle.givens for k in known]
    try:
        frame = cross_check(entries, args.backends, args.timeout, solutions, progress=True)
    except ValueError as err:  # e.g. no backend to check with
        raise UsageError(str(err)) from None
    if args.csv:
        try:
            frame.to_csv(args.csv, index=False)
        except OSError as err:
            raise UsageError(f"{args.csv}: cannot write: {err.strerror or err}") from None
    print(summarize(frame).to_string())
    bad = frame[~frame["ok"]]
    for index, rows in bad.groupby("index", sort=True):
        first = rows.iloc[0]
        print(f"\n{first['source'] or f'puzzle {index + 1}'}: {first['puzzle']}")
        for _, row in frame[frame["index"] == index].iterrows():
            answer = row["solution"] or "-"
            notes = [row["status"]]
            if row["verified"] is False:
                notes.append("FAILS VERIFICATION")
            if row["known"] is False:
                notes.append("differs from the known solution")
            if row["agrees"] is False:
                notes.append("disagrees with the other backends")
            if row["message"]:
                notes.append(row["message"])
            print(f"  {row['backend']:<24} {answer}  {'; '.join(notes)}")
    invalid = frame["status"] == "invalid"
    total = frame["index"].nunique()
    if invalid.any():
        print(f"\n{frame[invalid]['index'].nunique()} of {total} puzzles are invalid")
        return EXIT_BAD_INPUT
    failed = bad["index"].nunique()
    if failed:
        print(f"\n{failed} of {total} puzzles: backends disagree or fail")
        return EXIT_FAILED
    print(f"\nall {len(frame['backend'].unique())} backends agree on all {total} puzzles")
    return EXIT_OK


# --- backends ----------------------------------------------------------------------------


def cmd_backends(args: argparse.Namespace) -> int:
    """List backends with availability, version and options, then the presets."""
    for name, backend in all_backends().items():
        ok = backend.available()
        version = backend.version() if ok else f"not installed (pip install {backend.requires})"
        print(f"{name:<12} {'available' if ok else 'missing':<10} {version}")
        options = ", ".join(f"{k}={kind_name(v)}" for k, v in backend.options.items())
        stops = "own time limit" if backend.stops_itself else "killed at the deadline"
        print(f"{'':<12} accepts {', '.join(sorted(backend.kinds))}; timeout: {stops}")
        if options:
            print(f"{'':<12} options: {options}")
    print("\npresets:")
    for name, (backend, options, what) in PRESETS.items():
        spec = ",".join(f"{k}={v}" for k, v in options.items())
        print(f"{name:<18} {backend}:{spec}  ({what})")
    return EXIT_OK
