"""sudokulab: a declarative constraint-programming front end for Sudoku.

Describe a puzzle once as a model of cells, units and constraints; solve it with
interchangeable backends; verify every answer independently.

>>> from sudokulab import solve, is_solution
>>> r = solve("..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9")
>>> "".join(map(str, r.solution))
'987654321246173985351928746128537694634892157795461832519286473472319568863745219'
"""

from typing import Any

from . import _moved
from .api import as_puzzle, count, solve
from .backends import Result, Status, backend_names, get_backend
from .classroom import notebook as _notebook
from .models import (
    Entry,
    Geometry,
    Model,
    ParseError,
    Puzzle,
    build_model,
    format_candidates,
    format_grid,
    format_line,
    geometry,
    is_solution,
    parse_puzzle,
    read_file,
    read_text,
)


def __getattr__(name: str) -> Any:
    """What is costly to import, on first use: the version (package metadata) and
    ``cross_check`` (the bench), so that a command that needs neither starts faster."""
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version("sudokulab")
        except PackageNotFoundError:  # running from a source tree that was never installed
            value = "0+unknown"
    elif name == "cross_check":
        from .bench.crosscheck import cross_check as value
    else:
        raise AttributeError(f"module 'sudokulab' has no attribute {name!r}")
    globals()[name] = value
    return value


_moved.install()  # old module paths (sudokulab.report, sudokulab.trace, ...) still import
_notebook.register()  # Jupyter shows puzzles, results and traces as HTML

__all__ = [
    "Entry",
    "Geometry",
    "Model",
    "ParseError",
    "Puzzle",
    "Result",
    "Status",
    "__version__",
    "as_puzzle",
    "backend_names",
    "build_model",
    "count",
    "cross_check",
    "format_candidates",
    "format_grid",
    "format_line",
    "geometry",
    "get_backend",
    "is_solution",
    "parse_puzzle",
    "read_file",
    "read_text",
    "solve",
]
