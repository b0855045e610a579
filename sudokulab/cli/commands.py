"""The ``sudokulab`` command: the parser of every command group, and the one error path."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from ..models import ParseError
from . import interrupted
from .common import EXIT_BAD_INPUT, EXIT_OK, UsageError, error

#: The command groups (modules of this package), in the order ``sudokulab --help`` lists
#: their commands, each with the commands it adds.
GROUPS = {
    "solve": ("solve", "check", "backends"),
    "bench": ("bench", "report"),
    "data": ("sets", "data"),
    "classroom": ("explain", "model"),
    "rate": ("rate",),
    "generate": ("generate",),
    "export": ("export", "import-solution"),
    "certify": ("check-proof",),
    "serve": ("serve",),
}


class _Version(argparse.Action):
    """``--version``: the version is read from the package metadata only when asked."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from .. import __version__

        print(f"sudokulab {__version__}")
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of every command; with ``command``, of that command's group
    alone (the other commands are there by name only, their modules not imported: a
    command loads what it runs and no more); with ``""``, of no command's group."""
    parser = argparse.ArgumentParser(
        prog="sudokulab",
        description="A declarative constraint-programming front end for Sudoku.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for group, names in GROUPS.items():
        if command is None or command in names:
            # An import statement's machinery (not importlib's), so that -X importtime and
            # PYTHONPROFILEIMPORTTIME name the group (tests/test_signals.py reads them).
            name = f"{__package__}.{group}"
            __import__(name)
            sys.modules[name].add_commands(commands)
        else:
            for name in names:
                commands.add_parser(name)
    return parser


def _command(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names, when it comes first; ``""`` for ``--version`` alone
    (no command's group is needed); else None (``--help`` lists every command)."""
    if list(argv) == ["--version"]:
        return ""
    if argv and not argv[0].startswith("-"):
        name = argv[0]
        if any(name in names for names in GROUPS.values()):
            return name
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    if argv is None:
        argv = sys.argv[1:]
    try:
        args = build_parser(_command(argv)).parse_args(argv)
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
