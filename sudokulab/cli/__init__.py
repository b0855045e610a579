"""The ``sudokulab`` command line: one module per command group.

``common`` holds what they share (exit statuses, the error path, argument types, reading
puzzles); ``main`` builds the parser from every group and runs a command.
"""

import os

# The command line does no linear algebra: one BLAS thread spares the start-up of a
# thread per core when numpy is imported (about 40 ms on two cores). A user's setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from .main import build_parser, main  # noqa: E402 (after the setting above)

__all__ = ["build_parser", "main"]
