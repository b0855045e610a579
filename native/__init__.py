"""The native engine: propagate and backtrack over candidate bit masks.

One algorithm, two implementations: the readable Python reference in
:mod:`sudokulab.native.reference` and the compiled core :mod:`sudokulab.native._core`
(C, built by ``pip install`` when a compiler is available), with identical semantics: the
same solutions in the same order and the same nodes, guesses and backtracks.
:data:`ENGINE` names the implementation behind :func:`search`.

Which one runs:
    the compiled core when it imports; otherwise the reference, with a warning saying why.
    ``SUDOKULAB_PURE_PYTHON=1`` forces the reference (no warning);
    ``SUDOKULAB_REQUIRE_NATIVE=1`` turns a missing or broken core into an ImportError.
"""

from __future__ import annotations

import os
import time
import warnings
from functools import lru_cache
from types import ModuleType

from . import reference
from .reference import KEEP, ORDERS, PROPAGATIONS, Engine, Outcome


def _load_core() -> ModuleType | None:
    """The compiled core, or None when the reference must run (see the module docstring)."""
    if os.environ.get("SUDOKULAB_PURE_PYTHON") == "1":
        return None
    try:
        from . import _core
    except ImportError as exc:
        if os.environ.get("SUDOKULAB_REQUIRE_NATIVE") == "1":
            raise ImportError(
                f"SUDOKULAB_REQUIRE_NATIVE=1 but the compiled native core does not import: {exc}"
            ) from exc
        warnings.warn(
            f"sudokulab: the compiled native core is not available ({exc}); "
            "using the slower Python reference (reinstall with a C compiler to build it, "
            "or set SUDOKULAB_PURE_PYTHON=1 to silence this)",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    return _core


_core = _load_core()

#: The implementation :func:`search` runs: "c" (the compiled core) or "python".
ENGINE = "python" if _core is None else "c"


@lru_cache(maxsize=32)
def _tables(size: int, units: tuple[tuple[int, ...], ...]):
    """The compiled core's tables for a grid shape, built once per shape."""
    return _core.Tables(size, units)


def _search_c(
    size: int,
    units: tuple[tuple[int, ...], ...],
    givens: list[int] | tuple[int, ...],
    propagation: str = "hidden",
    order: str = "mrv",
    limit: int | None = 1,
    deadline: float | None = None,
    keep: int = KEEP,
) -> Outcome:
    """Solve one grid with the compiled core: same arguments and answers as the reference."""
    reference.check_knobs(propagation, order)
    try:
        tables = _tables(size, units)
    except TypeError:  # unhashable units (lists): normalise, then cache
        tables = _tables(size, tuple(tuple(unit) for unit in units))
    timeout = None if deadline is None else deadline - time.perf_counter()
    return Outcome(*_core.search(tables, givens, propagation, order, limit, timeout, keep))


search = reference.search if _core is None else _search_c

__all__ = ["ENGINE", "KEEP", "ORDERS", "PROPAGATIONS", "Engine", "Outcome", "search"]
