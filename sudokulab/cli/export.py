"""The interchange commands: ``export`` (the model in an outside solver's format) and
``import-solution`` (that solver's answer decoded and verified)."""

from __future__ import annotations

import argparse
import sys

from ..models import Entry, ParseError
from ..models.formats import counted, format_line
from ..models.variants import PLAIN_VARIANTS
from .common import (
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    add_data_dir_option,
    add_size_option,
    count,
    read_inputs,
)

#: The formats, as ``sudokulab.interchange.FORMATS`` names them (kept here so that the
#: parser is built without importing the writers).
FORMATS = ("dimacs", "opb", "mps", "lp", "smt2", "mzn", "xcsp3")
#: Every format's encodings, as the writers name them (the default of each first).
ENCODINGS = {
    "dimacs": ("optimized", "extended", "minimal"),
    "opb": ("binary",),
    "mps": ("binary",),
    "lp": ("binary",),
    "smt2": ("int",),
    "mzn": ("int",),
    "xcsp3": ("int",),
}

EXPORT_EXAMPLES = """\
examples:
  sudokulab export puzzle.txt --format dimacs -o puzzle.cnf
  sudokulab export puzzle.txt --format dimacs --encoding minimal
  sudokulab export killer.json --format lp -o killer.lp
  sudokulab export puzzle.txt --format xcsp3 --variant x

formats (and their encodings, default first): dimacs (the SAT backend's CNF: optimized,
extended, minimal), opb (the MIP backend's 0-1 program as pseudo-Boolean rows: binary),
mps and lp (that program, by OR-Tools' writers: binary), smt2 (the SMT backend's
assertions: int), mzn (MiniZinc: int), xcsp3 (int). Each file starts with comments naming
the puzzle, the encoding and how variables stand for cells and values.
exit status: 0 written, 2 bad input (unreadable text, clashing givens, an encoding the
format lacks, a model the format cannot carry, a file that cannot be written).
"""

IMPORT_EXAMPLES = """\
examples:
  sudokulab import-solution puzzle.txt answer.txt --format dimacs
  kissat puzzle.cnf | sudokulab import-solution puzzle.txt - --format dimacs
  sudokulab import-solution puzzle.txt puzzle.sol --format mps
  glpsol --lp puzzle.lp -o puzzle.out; sudokulab import-solution puzzle.txt puzzle.out --format lp

what is read: dimacs and opb, the competitions' 's SATISFIABLE', 's UNSATISFIABLE' or
's UNKNOWN' and 'v' lines (MiniSat's result file, SAT and the literals; CaDiCaL's lone
'c UNKNOWN'); mps and lp, a solution file with a line 'x_rRcC_V value' per variable
(HiGHS's, SCIP's, Gurobi's; CBC's 'index name value' lines; glpsol's -o listing; a
variable not listed is 0) and its status lines (infeasible; stopped without an integer
solution); smt2, 'sat' and the model's (define-fun rRcC () Int V), 'unsat' or 'unknown';
mzn, 'x = [...]', =====UNSATISFIABLE===== or =====UNKNOWN=====; xcsp3, the
<instantiation> of 'v' lines, 's UNSATISFIABLE' or 's UNKNOWN'.
Give the --encoding the file was exported with.
exit status: 0 solved (the grid printed, verified against the rules and the givens), 1
the solver found no solution, or did not decide (the status it gave named), or its grid
breaks a rule or a given (the cell named), 2 bad input (an unreadable solution file, with
its line).
"""


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``export`` and ``import-solution`` to the command line."""
    p = commands.add_parser(
        "export",
        help="write the model of a puzzle in an outside solver's format (DIMACS, OPB, MPS, "
        "LP, SMT-LIB 2, MiniZinc, XCSP3)",
        description="Write the model of one puzzle, as the backends solve it, in a format "
        "other solvers read: the SAT backend's CNF as DIMACS, the MIP backend's program as "
        "OPB, MPS or LP, the SMT backend's assertions as SMT-LIB 2, the CP model as MiniZinc "
        "or XCSP3. Killer cages and variants go along.",
        epilog=EXPORT_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _puzzle(p)
    _format(p)
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write to FILE (default: standard output)",
    )
    p.set_defaults(handler=cmd_export)

    p = commands.add_parser(
        "import-solution",
        help="read an outside solver's answer to an exported file, decode and verify it",
        description="Read the output of an outside solver run on a file `sudokulab export` "
        "wrote, decode it back to a grid and verify it against the rules and the givens; "
        "print the grid as `solve` does, or say that the solver found none.",
        epilog=IMPORT_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _puzzle(p)
    p.add_argument(
        "solution",
        metavar="SOLUTION_FILE",
        help="the solver's output, or - for standard input",
    )
    _format(p)
    p.set_defaults(handler=cmd_import)


def _puzzle(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "puzzle",
        metavar="PUZZLE",
        help="a puzzle text, a puzzle document (variants, killer cages) or a file of "
        "puzzles (--number picks one)",
    )
    add_size_option(p)
    add_data_dir_option(p)
    p.add_argument(
        "--variant",
        metavar="LIST",
        help="add variant rules, comma-separated: "
        + ", ".join(f"{name} ({what})" for name, what in PLAIN_VARIANTS.items())
        + "; killer, jigsaw and clues such as thermometers need a puzzle document",
    )
    p.add_argument(
        "--regions",
        metavar="FILE",
        help="jigsaw: a file of n rows of region labels replacing the boxes",
    )
    p.add_argument(
        "--number", type=count, default=1, metavar="N", help="the N-th puzzle of the input"
    )


def _format(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", required=True, choices=FORMATS, help="the file format (see below)")
    p.add_argument(
        "--encoding",
        metavar="NAME",
        help="the format's encoding (dimacs: optimized, extended or minimal; default: the "
        "format's first)",
    )


def _entry(args: argparse.Namespace) -> Entry:
    """The one puzzle the arguments name, checked for clashing givens and for --encoding."""
    encodings = ENCODINGS[args.format]
    if args.encoding is not None and args.encoding not in encodings:
        raise UsageError(
            f"--encoding {args.encoding}: format {args.format} has {', '.join(encodings)}"
        )
    args.puzzles = [args.puzzle]
    entries = read_inputs(args)
    if args.number > len(entries):
        raise UsageError(
            f"--number {args.number}: the input holds {counted(len(entries), 'puzzle')}"
        )
    entry = entries[args.number - 1]
    clashes = entry.puzzle.clashes()
    if clashes:
        raise UsageError(f"invalid puzzle: {'; '.join(map(str, clashes))}")
    return entry


def cmd_export(args: argparse.Namespace) -> int:
    """Write one puzzle's model in the chosen format."""
    from ..interchange import Refused, export_model
    from ..models import build_model

    entry = _entry(args)
    try:
        text = export_model(build_model(entry.puzzle), args.format, args.encoding)
    except Refused as err:
        raise UsageError(str(err)) from None
    if args.output is None:
        sys.stdout.write(text)
        return EXIT_OK
    try:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as err:
        raise UsageError(f"{args.output}: cannot write: {err.strerror or err}") from None
    return EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    """Read a solver's answer, decode and verify it, print the grid or the verdict."""
    from ..interchange import SOLVED, UNSOLVABLE, WrongSolution, read_answer
    from ..models import build_model

    entry = _entry(args)
    source = "<stdin>" if args.solution == "-" else args.solution
    try:
        if args.solution == "-":
            text = sys.stdin.read()
        else:
            with open(args.solution, encoding="utf-8", errors="replace") as f:
                text = f.read()
    except OSError as err:
        raise ParseError(f"cannot read the file: {err.strerror or err}", source) from None
    try:
        answer = read_answer(build_model(entry.puzzle), text, args.format, args.encoding, source)
    except WrongSolution as err:
        print(f"sudokulab: {source}: the solution breaks the rules: {err}", file=sys.stderr)
        return EXIT_FAILED
    if answer.status == SOLVED:
        print(format_line(list(answer.grid)))
        return EXIT_OK
    if answer.status == UNSOLVABLE:
        print(f"sudokulab: puzzle: no solution ({source})", file=sys.stderr)
    else:
        print(
            f"sudokulab: puzzle: unknown: the solver did not decide ({source} says "
            f"{answer.said!r})",
            file=sys.stderr,
        )
    return EXIT_FAILED
