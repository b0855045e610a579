"""Old module paths that still import: the modules that moved into subpackages.

Before the layout by concern, every module sat in ``sudokulab/`` itself;
``import sudokulab.report`` and ``from sudokulab.trace import trace_puzzle`` keep working
and give the module at its new path (the same object, not a copy). ``import sudokulab``
installs the finder below at the end of ``sys.meta_path``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types

#: Old path -> new path.
MOVED = {
    "sudokulab.sets": "sudokulab.bench.sets",
    "sudokulab.store": "sudokulab.bench.store",
    "sudokulab.report": "sudokulab.bench.report",
    "sudokulab.plots": "sudokulab.bench.plots",
    "sudokulab.crosscheck": "sudokulab.bench.crosscheck",
    "sudokulab.trace": "sudokulab.classroom.trace",
    "sudokulab.explain": "sudokulab.classroom.narrative",
    "sudokulab.viewer": "sudokulab.classroom.page",
    "sudokulab.csp": "sudokulab.classroom.model_view",
}


class MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old path of :data:`MOVED` and loads it as the module at its new path."""

    def find_spec(self, fullname: str, path: object = None, target: object = None):
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None  # a placeholder; exec_module swaps the real module in

    def exec_module(self, module: types.ModuleType) -> None:
        # The import system returns whatever sys.modules holds under the name once this
        # returns, and binds it as the parent package's attribute.
        sys.modules[module.__name__] = importlib.import_module(MOVED[module.__name__])


def install() -> None:
    """Add the finder to ``sys.meta_path`` (once)."""
    if not any(isinstance(f, MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(MovedFinder())
