"""The ``sudokulab`` command: the parser of every command group, and the one error path."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ..models import ParseError
from . import bench, classroom, data, generate, interrupted, rate, solve
from .common import EXIT_BAD_INPUT, EXIT_OK, UsageError, error

#: The command groups, in the order ``sudokulab --help`` lists their commands.
GROUPS = (solve, bench, data, classroom, rate, generate)


class _Version(argparse.Action):
    """``--version``: the version is read from the package metadata only when asked."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from .. import __version__

        print(f"sudokulab {__version__}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every command."""
    parser = argparse.ArgumentParser(
        prog="sudokulab",
        description="A declarative constraint-programming front end for Sudoku.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for group in GROUPS:
        group.add_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        args = build_parser().parse_args(argv)
        return args.handler(args)
    except (ParseError, UsageError) as err:
        error(err)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return interrupted()
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); stop quietly like other filters.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
