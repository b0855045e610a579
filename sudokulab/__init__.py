"""sudokulab: a declarative constraint-programming front end for Sudoku.

Describe a puzzle once as a model of cells, units and constraints; solve it with
interchangeable backends; verify every answer independently.

>>> from sudokulab import solve, is_solution
>>> r = solve("..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9")
>>> "".join(map(str, r.solution))
'987654321246173985351928746128537694634892157795461832519286473472319568863745219'
"""

from importlib import import_module
from typing import Any

#: Where each public name lives. Imported on first use (PEP 562): ``import sudokulab``
#: stays cheap, and the command line can start without what a command does not need.
_HOMES = {
    "as_puzzle": ".api",
    "certified": ".api",
    "claimed": ".api",
    "count": ".api",
    "export": ".api",
    "import_solution": ".api",
    "rate": ".api",
    "solve": ".api",
    "Result": ".backends",
    "Status": ".backends",
    "backend_names": ".backends",
    "get_backend": ".backends",
    "compare": ".bench.stats",
    "cross_check": ".bench.crosscheck",
    **dict.fromkeys(
        [
            "Entry",
            "Geometry",
            "Model",
            "ParseError",
            "Puzzle",
            "build_model",
            "fault",
            "format_candidates",
            "format_grid",
            "format_line",
            "geometry",
            "is_solution",
            "parse_puzzle",
            "read_file",
            "read_text",
        ],
        ".models",
    ),
}


def __getattr__(name: str) -> Any:
    """A public name on first use; the version from the package metadata."""
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version("sudokulab")
        except PackageNotFoundError:  # running from a source tree that was never installed
            value = "0+unknown"
    elif name in _HOMES:
        value = getattr(import_module(_HOMES[name], __name__), name)
    else:
        raise AttributeError(f"module 'sudokulab' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES, "__version__"])


def _register_views() -> None:
    """Jupyter shows puzzles, results and traces as HTML: the classroom's views, which
    :mod:`sudokulab.models.display` registers through this at the first display."""
    from .classroom import notebook

    notebook.register()


#: Every name of _HOMES: one list, so a name added there is public at once.
__all__ = sorted([*_HOMES, "__version__"])
