"""The ``generate`` command: random puzzles with a unique solution."""

from __future__ import annotations

import argparse
import random
import sys
import time

from ..bench.progress import Progress
from ..generate import (
    ATTEMPTS,
    DIFFICULTIES,
    KINDS,
    GenerateError,
    Tried,
    generate,
)
from ..logic.ladder import BY_NAME
from ..models import format_line
from ..models.documents import dumps
from .common import EXIT_OK, UsageError, add_size_option, count, seconds, seed

GENERATE_EXAMPLES = """\
examples:
  sudokulab generate --difficulty hard --count 5 --seed 1
  sudokulab generate --technique xy-wing --count 3          # puzzles that need an XY-wing
  sudokulab generate --size 16 --difficulty easy --symmetry rotational
  sudokulab generate --variant jigsaw --count 10 --seed 3 > jigsaw.jsonl
  sudokulab generate --variant killer --format json
  sudokulab generate --variant thermometer --count 8 --seed 32   # checked unique by cpsat

Lines hold the givens only (classic, x and hyper; read x and hyper back with --variant);
documents (JSON Lines) also carry the variant, regions, cages, name and solution.
Each puzzle gets at most --attempts grids and --timeout seconds: a request that needs
more (a rare technique, a large grid) stops there with an error; its progress shows on
standard error meanwhile. The same seed gives the same puzzles; the timeout only decides
when to give up.
exit status: 0 done, 2 a request the generator cannot meet (bad options, or no puzzle
within the attempts or the timeout).
"""

#: The default of --timeout: seconds per puzzle.
TIMEOUT = 300.0


def technique_name(text: str) -> str:
    """A technique of the ladder as an argument: any case, ``-`` or ``_`` for spaces."""
    wanted = text.replace("-", " ").replace("_", " ").lower().split()
    for name in BY_NAME:
        if name.replace("-", " ").lower().split() == wanted:
            return name
    known = ", ".join(n.replace(" ", "-").lower() for n in BY_NAME)
    raise argparse.ArgumentTypeError(f"unknown technique {text!r}: {known}")


def cmd_generate(args: argparse.Namespace) -> int:
    """Print ``--count`` generated puzzles, as lines or documents, with their progress on
    standard error (a bar on a terminal, a line every few seconds otherwise)."""
    fmt = args.format or ("line" if args.variant == "classic" else "json")
    if fmt == "line" and args.variant not in ("classic", "x", "hyper"):
        raise UsageError(f"a line cannot carry {args.variant} rules: use --format json")
    if fmt == "line" and args.variant != "classic":  # asked for: the reader must add them
        print(
            f"sudokulab: generate: the lines carry no {args.variant} units: "
            f"solve them with --variant {args.variant}",
            file=sys.stderr,
        )
    chosen = args.seed
    if chosen is None:
        chosen = random.SystemRandom().randrange(2**32)
        print(f"sudokulab: generate --seed {chosen}", file=sys.stderr)
    shape = f"{args.size}x{args.size} {args.variant}"
    try:
        with Progress(args.count, "generate") as progress:
            made = generate(
                args.size,
                args.variant,
                args.difficulty,
                args.count,
                chosen,
                args.symmetry,
                technique=args.technique,
                attempts=args.attempts,
                timeout=args.timeout,
                progress=_Told(progress, shape),
            )
            for number, item in enumerate(made, 1):
                if fmt == "line":
                    text = format_line(item.puzzle)
                else:
                    name = f"{args.variant} {args.size}x{args.size} seed {chosen} #{number}"
                    if item.grade:
                        needs = f": {item.hardest}" if item.hardest else ""
                        name += f" ({item.grade}{needs})"
                    text = dumps(item.puzzle, item.solution, name)
                if progress.bar is not None:
                    progress.bar.clear()  # the bar and the puzzles may share a terminal
                print(text, flush=True)
                progress.update(f"{shape}, {item.grade}" if item.grade else shape)
    except GenerateError as err:
        raise UsageError(str(err)) from None
    return EXIT_OK


class _Told:
    """Tells the progress of the puzzle in hand: on the bar of a terminal a few times a
    second, else in the progress lines (one every few seconds)."""

    #: Seconds between two redraws of the bar.
    EVERY = 0.2

    def __init__(self, progress: Progress, shape: str) -> None:
        self.progress, self.shape = progress, shape
        self.last = 0.0

    def __call__(self, tried: Tried) -> None:
        now = time.monotonic()
        if now - self.last < self.EVERY:
            return
        self.last = now
        limit = f" of {tried.timeout:g}" if tried.timeout is not None else ""
        label = (
            f"{self.shape} #{tried.puzzle}: grid {tried.attempt} of {tried.attempts}, "
            f"{tried.seconds:.0f}{limit} s"
        )
        if self.progress.bar is not None:
            self.progress.bar.set_description(label)  # redraws the bar
        else:
            self.progress.update(label, 0)


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``generate`` to the command line."""
    p = commands.add_parser(
        "generate",
        help="make random puzzles with a unique solution (any size and variant)",
        description="Make puzzles: a random solved grid from the native engine, then clues "
        "removed while the solution stays unique; graded by the logic solver's rating (see "
        "`sudokulab rate`). Killer puzzles get random "
        "cages as clues, checked unique with the native engine (givens added where two "
        "solutions differ). Variants stated by rules (anti-knight, thermometer, kropki) keep "
        "their rules in the solved grid and in every uniqueness check, and are not graded. "
        "Each uniqueness check gets a budget of guesses (one that spends "
        "it keeps the clue), so the work is bounded and the same seed gives the same "
        "puzzles on every machine; progress goes to standard error.",
        epilog=GENERATE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_size_option(p, default=9, help="grid size (default: 9)")
    p.add_argument(
        "--variant",
        choices=KINDS,
        default="classic",
        help="the rules: classic, x (diagonals), hyper (windows), jigsaw (irregular "
        "regions), killer (cages), or a variant stated by rules, not graded: anti-knight, "
        "thermometer (random thermometers), kropki (every white and black dot) (default: classic)",
    )
    p.add_argument(
        "--difficulty",
        choices=DIFFICULTIES,
        help="the grade a human solver meets: easy (singles), medium (locked candidates, "
        "subsets), hard (fish, wings, colouring), expert (chains), extreme (needs search); "
        "killer puzzles: easy or extreme (default: any)",
    )
    p.add_argument(
        "--technique",
        type=technique_name,
        metavar="NAME",
        help="puzzles whose hardest technique is NAME (they need it: the techniques below "
        "it stall): " + ", ".join(n.replace(" ", "-").lower() for n in BY_NAME),
    )
    p.add_argument("--count", type=count, default=1, help="puzzles to make (default: 1)")
    p.add_argument("--seed", type=seed, help="same seed, same puzzles (default: random, shown)")
    p.add_argument(
        "--attempts",
        type=count,
        default=ATTEMPTS,
        metavar="N",
        help="random grids drawn for one puzzle before the request is given up (exit 2) "
        f"(default: {ATTEMPTS})",
    )
    p.add_argument(
        "--timeout",
        type=seconds,
        default=TIMEOUT,
        metavar="SECONDS",
        help="seconds for one puzzle before the request is given up (exit 2) "
        f"(default: {TIMEOUT:g})",
    )
    p.add_argument(
        "--symmetry",
        choices=("none", "rotational"),
        default="none",
        help="rotational: clues removed in pairs opposite through the centre (default: none)",
    )
    p.add_argument(
        "--format",
        choices=("line", "json"),
        help="line (givens) or json (a document per line, with its variant: what `solve` "
        "reads back as the same puzzle); default: line for classic, json otherwise",
    )
    p.set_defaults(handler=cmd_generate)
