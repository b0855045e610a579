"""Command-line pieces for variants: ``--variant``/``--regions`` and ``sudokulab generate``."""

from __future__ import annotations

import argparse
import dataclasses

from .models import Entry, ParseError
from .models.variants import read_regions, with_variant


def add_variant_options(p: argparse.ArgumentParser) -> None:
    """``--variant x,hyper`` and ``--regions FILE``: rules added to plain grids."""
    p.add_argument(
        "--variant",
        metavar="LIST",
        help="add variant rules to every puzzle: x (diagonals), hyper (windoku), or x,hyper "
        "(killer and jigsaw need a document or --regions)",
    )
    p.add_argument(
        "--regions",
        metavar="FILE",
        help="jigsaw: a file of n rows of region labels replacing the boxes",
    )


def apply_variant_options(entries: list[Entry], args: argparse.Namespace) -> list[Entry]:
    """The entries with ``--variant`` and ``--regions`` applied; ParseError when they do not fit."""
    names = [n.strip() for n in (args.variant or "").split(",") if n.strip()]
    regions = None
    if args.regions:
        try:
            with open(args.regions, encoding="utf-8") as f:
                regions = read_regions(f.read(), args.regions)
        except OSError as err:
            raise ParseError(f"cannot read the file: {err.strerror or err}", args.regions) from None
        except ValueError as err:
            raise ParseError(str(err)) from None
    if not names and regions is None:
        return entries
    out = []
    for entry in entries:
        try:
            puzzle = with_variant(entry.puzzle, names, regions)
        except ValueError as err:
            where = args.regions if regions is not None and "region" in str(err) else "--variant"
            raise ParseError(str(err), where) from None
        out.append(dataclasses.replace(entry, puzzle=puzzle))
    return out


GENERATE_EXAMPLES = """\
examples:
  sudokulab generate --difficulty hard --count 5 --seed 1
  sudokulab generate --size 16 --difficulty medium --symmetry rotational
  sudokulab generate --variant jigsaw --count 10 --seed 3 > jigsaw.jsonl
  sudokulab generate --variant killer --format json

Lines hold the givens only (classic, x and hyper; read x and hyper back with --variant);
documents (JSON Lines) also carry the variant, regions, cages, name and solution.
exit status: 0 done, 2 a request the generator cannot meet.
"""


def cmd_generate(args: argparse.Namespace) -> int:
    """Print ``--count`` generated puzzles, as lines or documents."""
    import random
    import sys

    from .generate import GenerateError, generate
    from .models import format_line
    from .models.documents import dumps

    fmt = args.format or ("line" if args.variant in ("classic", "x", "hyper") else "json")
    if fmt == "line" and args.variant in ("jigsaw", "killer"):
        raise ParseError(f"a line cannot carry {args.variant} rules: use --format json")
    seed = args.seed
    if seed is None:
        seed = random.SystemRandom().randrange(2**32)
        print(f"sudokulab: generate --seed {seed}", file=sys.stderr)
    made = generate(args.size, args.variant, args.difficulty, args.count, seed, args.symmetry)
    try:
        for number, item in enumerate(made, 1):
            if fmt == "line":
                print(format_line(item.puzzle), flush=True)
            else:
                name = f"{args.variant} {args.size}x{args.size} seed {seed} #{number}"
                if item.grade:
                    name += f" ({item.grade})"
                print(dumps(item.puzzle, item.solution, name), flush=True)
    except GenerateError as err:
        raise ParseError(str(err)) from None
    return 0


def add_generate_command(commands: argparse._SubParsersAction) -> None:
    """Add ``generate`` to the subcommands of the ``sudokulab`` parser."""
    from .argtypes import positive_int
    from .generate import DIFFICULTIES, KINDS
    from .models import SIZES

    p = commands.add_parser(
        "generate",
        help="make random puzzles with a unique solution (any size and variant)",
        description="Make puzzles: a random solved grid from the native engine, then clues "
        "removed while the solution stays unique; graded by what the engine needs (easy: "
        "naked singles, medium: hidden singles, hard: guesses). Killer puzzles get random "
        "cages as clues, checked unique with CP-SAT.",
        epilog=GENERATE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--size", type=int, choices=SIZES, default=9, help="grid size (default: 9)")
    p.add_argument("--variant", choices=KINDS, default="classic", help="(default: classic)")
    p.add_argument("--difficulty", choices=DIFFICULTIES, help="(default: any)")
    p.add_argument("--count", type=positive_int, default=1, help="puzzles to make (default: 1)")
    p.add_argument("--seed", type=int, help="same seed, same puzzles (default: random, shown)")
    p.add_argument(
        "--symmetry", choices=("none", "rotational"), default="none", help="of the givens"
    )
    p.add_argument(
        "--format",
        choices=("line", "json"),
        help="line (givens) or json (a document per line); default: line for classic, x and "
        "hyper, json otherwise",
    )
    p.set_defaults(handler=cmd_generate)
