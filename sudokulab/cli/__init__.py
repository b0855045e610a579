"""The ``sudokulab`` command line: one module per command group.

``common`` holds what they share (exit statuses, the error path, argument types, reading
puzzles); ``main`` builds the parser from every group and runs a command.
"""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
