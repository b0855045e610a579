"""What every command shares: exit statuses, the one error path, argument types, and
reading puzzles (texts, files, standard input and catalog set names)."""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import re
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ..models import SIZES, Entry, ParseError, read_text

if TYPE_CHECKING:  # blocks are numpy arrays: imported when puzzles are read
    from ..models.stream import Block

#: Exit statuses, the same for every command: all done (solved, agreed, fetched) / some
#: work failed (a puzzle not solved, backends disagree, a download failed, an error row) /
#: bad input or usage (unreadable text, clashing givens, an unknown set or option).
EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2
#: Stopped by Ctrl-C (128 + SIGINT), as shells report it.
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """Bad input or usage: ``main`` prints it in one line and exits with status 2."""


def error(message: object) -> None:
    """Print one error line on stderr, as every command does."""
    print(f"sudokulab: error: {message}", file=sys.stderr)


# --- argument types and shared options ---------------------------------------------------


#: The largest value of a time option: beyond it a deadline overflows some solvers'
#: clocks (a C time_t, OR-Tools' milliseconds, a thread's wait); about eleven days.
MAX_SECONDS = 1e6
#: The largest count (a limit, a sample, a number of puzzles): what a C int holds.
MAX_COUNT = 2**31 - 1
#: The most processes a command starts side by side.
MAX_PROCESSES = 1024


@dataclasses.dataclass(frozen=True)
class Number:
    """The argument type of every numeric option: a finite whole number (``kind=int``) or
    number (``float``) from ``low`` to ``high`` (above ``low`` when ``above``).

    Anything else is an ``ArgumentTypeError`` naming the value and the range; argparse
    prefixes the option and exits with status 2, so ``nan``, ``inf``, ``1e400`` or ``-1``
    never reach a solver.

    >>> seconds("2.5"), count("10")
    (2.5, 10)
    >>> seconds("nan")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 'nan' is not a finite number
    """

    kind: type[int] | type[float] = int
    low: float = 1
    high: float = MAX_COUNT
    above: bool = False
    unit: str = ""

    def __call__(self, text: str) -> Any:
        try:
            value = self.kind(text)
        except (ValueError, OverflowError):
            what = "a whole number" if self.kind is int else "a number"
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
        if value < self.low or (self.above and value == self.low) or value > self.high:
            raise argparse.ArgumentTypeError(f"{text!r} is out of range: {self.range()}")
        return value

    def range(self) -> str:
        """The values allowed, in words: ``more than 0 and at most 1000000 seconds``."""
        low, high = _number(self.low), _number(self.high)
        unit = f" {self.unit}" if self.unit else ""
        if self.above:
            return f"more than {low} and at most {high}{unit}"
        return f"from {low} to {high}{unit}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


#: Seconds: a timeout, a time limit.
seconds = Number(float, 0, MAX_SECONDS, above=True, unit="seconds")
#: A count of at least 1: a limit, a number of puzzles, steps or attempts.
count = Number(int, 1, MAX_COUNT)
#: A number of processes side by side.
processes = Number(int, 1, MAX_PROCESSES)
#: A seed of a random generator (what `generate` draws when none is given).
seed = Number(int, 0, 2**32 - 1)
#: A grid size (the choices narrow it to the sizes sudokulab knows).
size = Number(int, min(SIZES), max(SIZES))


def add_size_option(p: argparse.ArgumentParser, default: int | None = None, help: str = "") -> None:
    """``--size N``: one of the grid sizes sudokulab knows."""
    p.add_argument(
        "--size",
        type=size,
        choices=SIZES,
        default=default,
        help=help
        or "grid size, when the text alone is ambiguous (a 16-cell line; a 64-character line "
        "is an 8x8 puzzle unless --size 4 makes it 4x4 pencil marks)",
    )


def add_data_dir_option(p: argparse.ArgumentParser) -> None:
    """``--data-dir DIR`` (repeatable): more folders where catalog sets are looked for."""
    p.add_argument(
        "--data-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="also look for catalog sets in DIR (repeatable; searched after the project's "
        "data and the cache, before $SUDOKULAB_DATA)",
    )


def add_puzzle_arguments(p: argparse.ArgumentParser) -> None:
    """The puzzles a command reads, and how: PUZZLE..., --size, --data-dir, --variant, --regions."""
    p.add_argument(
        "puzzles",
        nargs="*",
        metavar="PUZZLE",
        help="a puzzle text, a file of puzzles, a catalog set name (see `sudokulab sets`), "
        "or - for standard input (read when no PUZZLE is given)",
    )
    add_size_option(p)
    add_data_dir_option(p)
    p.add_argument(
        "--variant",
        metavar="LIST",
        help="add variant rules to every puzzle, comma-separated: x (diagonals), hyper "
        "(windoku), anti-knight, anti-king, nonconsecutive (killer, jigsaw and clues such as "
        "thermometers or arrows need a document, an f-puzzles link or --regions)",
    )
    p.add_argument(
        "--regions",
        metavar="FILE",
        help="jigsaw: a file of n rows of region labels replacing the boxes",
    )


# --- reading puzzles ---------------------------------------------------------------------


def read_inputs(args: argparse.Namespace) -> list[Entry]:
    """Every puzzle the arguments name, variant options applied; UsageError, or the
    first ParseError of the input (for commands that need all of it sound)."""
    entries: list[Entry] = []
    for item in input_blocks(args):
        if isinstance(item, ParseError):
            raise item
        entries += item.entries()
    if not entries:
        raise UsageError("no puzzle found in the input")
    return entries


def input_blocks(args: argparse.Namespace) -> Iterator[Block | ParseError]:
    """Every puzzle the arguments name, as blocks, and every bad line as a ParseError,
    in input order; files and standard input are read a chunk at a time.

    Arguments are resolved before anything is read: a missing file or an unknown set
    name is a UsageError at once.
    """
    from ..models.stream import blocks_of, read_blocks

    sources = _resolve(args.puzzles, args.size, args.data_dir)
    variant, regions = getattr(args, "variant", None), getattr(args, "regions", None)
    for source in sources:
        if not isinstance(source, str):  # already read: the bad pieces, then the puzzles
            yield from (item for item in source if isinstance(item, ParseError))
            entries = [item for item in source if isinstance(item, Entry)]
            yield from blocks_of(_apply_variants(entries, variant, regions))
            continue
        for item in read_blocks(source, args.size):
            if not isinstance(item, ParseError) and (variant or regions):
                yield from blocks_of(_apply_variants(item.entries(), variant, regions))
            else:
                yield item


def argument_puzzles(args: argparse.Namespace) -> list[Entry | ParseError] | None:
    """The puzzles of the arguments, variant options applied, and their bad pieces (in
    the order :func:`input_blocks` gives them) when every argument is a puzzle text; None
    when one names a file, a set or standard input (read those with :func:`input_blocks`).

    Nothing here needs numpy: a command given a puzzle or two answers without it.
    """
    if not args.puzzles or any(
        arg == "-" or os.path.exists(arg) or _is_set(arg) for arg in args.puzzles
    ):
        return None
    variant, regions = getattr(args, "variant", None), getattr(args, "regions", None)
    out: list[Entry | ParseError] = []
    for source in _resolve(args.puzzles, args.size, args.data_dir):
        assert not isinstance(source, str)
        out += [item for item in source if isinstance(item, ParseError)]
        out += _apply_variants([i for i in source if isinstance(i, Entry)], variant, regions)
    return out


def _resolve(
    inputs: Sequence[str], size: int | None, data_dirs: Sequence[str]
) -> list[str | list[Entry | ParseError]]:
    """Each input as a file to stream (a path, ``-`` for stdin) or what it already read."""
    if not inputs:
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError(
                "no puzzle given: pass a puzzle, a file, a set name, or - to read stdin"
            )
        inputs = ["-"]
    out: list[str | list[Entry | ParseError]] = []
    for number, arg in enumerate(inputs, 1):
        if arg == "-" or os.path.exists(arg):
            out.append(arg)
        elif _is_set(arg):
            from ..catalog import SetNotFound, catalog, load, locate

            try:
                if catalog()[arg].solutions:  # known solutions come from a second file
                    out.append(list(load(arg, extra_dirs=data_dirs).entries))
                else:
                    out.append(str(locate(arg, extra_dirs=data_dirs)))
            except SetNotFound as err:
                raise UsageError(str(err)) from None
        else:
            errors: list[ParseError] = []
            entries = read_text(arg, source=f"argument {number}", size=size, errors=errors)
            if errors and not entries:
                if _looks_like_path(arg):
                    raise UsageError(f"{arg}: no such file") from None
                if _looks_like_name(arg):
                    from ..catalog import unknown_set

                    raise UsageError(str(unknown_set(arg))) from None
            out.append([*errors, *entries])
    return out


def _is_set(arg: str) -> bool:
    """Whether ``arg`` names a catalog set (every name is a word: a puzzle text never is,
    and reading it needs no catalog)."""
    if not _looks_like_name(arg):
        return False
    from ..catalog import catalog

    return arg in catalog()


def _looks_like_path(arg: str) -> bool:
    """A folder separator or a file extension: the user meant a file, not a puzzle (a link
    or an f-puzzles compressed text is a puzzle, whatever its slashes)."""
    if arg.startswith(("http://", "https://", "fpuz", "N4Ig", "scl", "ctc")):
        return False
    return os.sep in arg or re.search(r"\.[A-Za-z]\w*$", arg) is not None


def _looks_like_name(arg: str) -> bool:
    """A word (letters first, then letters, digits, - or _): the user meant a set name."""
    return re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", arg) is not None


def _apply_variants(entries: list[Entry], variant: str | None, regions_file: str | None):
    """The entries with ``--variant`` and ``--regions`` applied; ParseError when they do not fit."""
    if not variant and not regions_file:
        return entries
    from ..models.variants import read_regions, with_variant

    names = [n.strip() for n in (variant or "").split(",") if n.strip()]
    regions = None
    if regions_file:
        try:
            with open(regions_file, encoding="utf-8") as f:
                regions = read_regions(f.read(), regions_file)
        except OSError as err:
            raise ParseError(f"cannot read the file: {err.strerror or err}", regions_file) from None
        except ValueError as err:
            raise ParseError(str(err)) from None
    out = []
    for entry in entries:
        try:
            puzzle = with_variant(entry.puzzle, names, regions)
        except ValueError as err:
            where = regions_file if regions is not None and "region" in str(err) else "--variant"
            raise ParseError(str(err), where) from None
        out.append(dataclasses.replace(entry, puzzle=puzzle))
    return out
