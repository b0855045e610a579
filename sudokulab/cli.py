"""The ``sudokulab`` command line."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from . import __version__
from .api import solve
from .argtypes import positive_float, positive_int
from .backends import (
    PRESETS,
    BackendSpec,
    Result,
    Status,
    Worker,
    all_backends,
    as_spec,
    parse_spec,
    parse_specs,
)
from .cli_bench import BenchError
from .cli_bench import add_commands as add_bench_commands
from .cli_classroom import add_commands as add_classroom_commands
from .cli_generate import add_generate_command, add_variant_options, apply_variant_options
from .models import SIZES, Entry, ParseError, format_grid, format_line, read_file, read_text
from .native import ORDERS, PROPAGATIONS
from .sets import add_commands as add_set_commands

#: Exit statuses: everything solved / some puzzle not solved / bad input.
EXIT_OK, EXIT_UNSOLVED, EXIT_BAD_INPUT = 0, 1, 2

SOLVE_EXAMPLES = """\
examples:
  sudokulab solve 4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......
  sudokulab solve puzzles.txt --format grid
  echo '....5.264..7..9..35..62....8......9.7..34..86.....2.3....9.....9.476........3....' \\
      | sudokulab solve
  sudokulab solve puzzles.txt --propagation none --order first --timeout 5 --stats
  sudokulab solve puzzle.txt --unique

exit status: 0 every puzzle solved, 1 some puzzle had no solution, timed out or (with
--unique) had several, 2 bad input (unreadable text, clashing givens, bad option).
"""


CHECK_EXAMPLES = """\
examples:
  sudokulab check puzzles.txt
  sudokulab check hard95.txt --solutions hard95solutions.txt --backends native,cpsat
  sudokulab check puzzles.txt --backends backtracking,hidden-singles,cpsat:workers=2

exit status: 0 every backend agrees and every answer verifies, 1 some backend disagrees,
fails verification, times out or errs, 2 bad input.
"""


class UsageError(Exception):
    """Bad input on the command line: reported in one line, exit status 2."""


@dataclass(frozen=True)
class Job:
    """One puzzle to solve and where it came from."""

    entry: Entry
    label: str


def _read_inputs(inputs: Sequence[str], size: int | None) -> list[Entry]:
    """Every puzzle named by the arguments: puzzle texts, files, or ``-`` for stdin."""
    if not inputs:
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError("no puzzle given: pass a puzzle, a file, or - to read stdin")
        inputs = ["-"]
    entries: list[Entry] = []
    for number, arg in enumerate(inputs, 1):
        if arg == "-":
            entries += read_text(sys.stdin.read(), source="<stdin>", size=size)
        elif os.path.exists(arg):
            entries += read_file(arg, size=size)
        else:
            try:
                entries += read_text(arg, source=f"argument {number}", size=size)
            except ParseError:
                if _looks_like_path(arg):
                    raise UsageError(f"{arg}: no such file") from None
                raise
    if not entries:
        raise UsageError("no puzzle found in the input")
    return entries


def _looks_like_path(arg: str) -> bool:
    """A folder separator or a file extension: the user meant a file, not a puzzle."""
    return os.sep in arg or re.search(r"\.[A-Za-z]\w*$", arg) is not None


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


def cmd_solve(args: argparse.Namespace) -> int:
    """Solve every puzzle given; print solutions on stdout, problems on stderr."""
    entries = apply_variant_options(_read_inputs(args.puzzles, args.size), args)
    knobs = {"propagation": args.propagation, "order": args.order}
    try:
        spec = as_spec(args.backend, **{k: v for k, v in knobs.items() if v})
    except ValueError as err:
        raise UsageError(str(err)) from None
    limit = args.limit if args.count else 2 if args.unique else 1
    with Worker() as worker:  # started only if the backend needs isolating
        return _solve_all(args, entries, spec, limit, worker)


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
                worst = max(worst, EXIT_UNSOLVED)
            else:
                print(f"{result.count}{'' if result.exact else '+'}")
            continue
        if not result.solutions:
            reason = "no solution" if result.status is Status.UNSOLVABLE else str(result.status)
            detail = f" ({result.message})" if result.message else ""
            print(f"sudokulab: {label}: {reason}{detail}", file=sys.stderr)
            worst = max(worst, EXIT_UNSOLVED)
            continue
        text = _render(result, entry, args.format)
        if args.unique:
            verdict = {True: "unique", False: "multiple", None: "unknown"}[result.unique]
            text += ("\n" if args.format == "grid" else " ") + verdict
            if result.unique is not True:
                worst = max(worst, EXIT_UNSOLVED)
        if args.format == "grid" and not first_grid:
            print()
        print(text)
        first_grid = False
    return worst


def cmd_check(args: argparse.Namespace) -> int:
    """Cross-check backends; exit 0 when all agree and verify, 1 when not, 2 for bad input."""
    from .crosscheck import cross_check, summarize

    entries = apply_variant_options(_read_inputs(args.puzzles, args.size), args)
    solutions = None
    if args.solutions:
        known = read_file(args.solutions, size=args.size)
        if len(known) != len(entries):
            raise UsageError(
                f"{args.solutions} has {len(known)} solutions for {len(entries)} puzzles"
            )
        solutions = [k.puzzle.givens for k in known]
    frame = cross_check(entries, args.backends, args.timeout, solutions)
    if args.csv:
        frame.to_csv(args.csv, index=False)
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
        return EXIT_UNSOLVED
    print(f"\nall {len(frame['backend'].unique())} backends agree on all {total} puzzles")
    return EXIT_OK


def cmd_backends(args: argparse.Namespace) -> int:
    """List backends with availability, version and options, then the presets."""
    for name, backend in all_backends().items():
        ok = backend.available()
        version = backend.version() if ok else f"not installed (pip install {backend.requires})"
        print(f"{name:<12} {'available' if ok else 'missing':<10} {version}")
        options = ", ".join(
            f"{k}={'|'.join(v) if isinstance(v, tuple) else v.__name__}"
            for k, v in backend.options.items()
        )
        stops = "own time limit" if backend.stops_itself else "killed at the deadline"
        print(f"{'':<12} accepts {', '.join(sorted(backend.kinds))}; timeout: {stops}")
        if options:
            print(f"{'':<12} options: {options}")
    print("\npresets:")
    for name, (backend, options, what) in PRESETS.items():
        spec = ",".join(f"{k}={v}" for k, v in options.items())
        print(f"{name:<18} {backend}:{spec}  ({what})")
    return EXIT_OK


def _spec(text: str) -> BackendSpec:
    try:
        return parse_spec(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _specs(text: str) -> list[BackendSpec]:
    try:
        return parse_specs(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    parser = argparse.ArgumentParser(
        prog="sudokulab",
        description="A declarative constraint-programming front end for Sudoku.",
    )
    parser.add_argument("--version", action="version", version=f"sudokulab {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = commands.add_parser(
        "solve",
        help="solve puzzles given as text, files or stdin",
        description="Solve puzzles. Each PUZZLE is a puzzle text, a file (one or many "
        "puzzles: lines, grids, CSV, or puzzle documents: .json, .jsonl), or - for standard "
        "input; with none, stdin is read.",
        epilog=SOLVE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("puzzles", nargs="*", metavar="PUZZLE")
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
        type=_spec,
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
        "--size", type=int, choices=SIZES, help="grid size, when the text alone is ambiguous"
    )
    p.add_argument(
        "--stats",
        action="store_true",
        help="print status, time and search counters of each puzzle on stderr",
    )
    add_variant_options(p)
    p.set_defaults(handler=cmd_solve)

    p = commands.add_parser(
        "check",
        help="cross-check backends against each other and the rules",
        description="Solve every puzzle with every backend (uniqueness checked, limit 2), "
        "verify each answer independently and against known solutions, and report where "
        "backends disagree. PUZZLE is as for `solve`.",
        epilog=CHECK_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("puzzles", nargs="*", metavar="PUZZLE")
    p.add_argument(
        "--backends",
        type=_specs,
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
    p.add_argument(
        "--size", type=int, choices=SIZES, help="grid size, when the text alone is ambiguous"
    )
    add_variant_options(p)
    p.set_defaults(handler=cmd_check)

    p = commands.add_parser(
        "backends",
        help="list backends and presets, and whether each is available",
        description="List every registered backend (availability, version, what it accepts, "
        "its options, which native engine is active) and the named presets.",
    )
    p.set_defaults(handler=cmd_backends)

    add_bench_commands(commands)
    add_set_commands(commands)
    add_classroom_commands(commands)
    add_generate_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except (ParseError, UsageError, BenchError) as err:
        print(f"sudokulab: error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("sudokulab: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); stop quietly like other filters.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
