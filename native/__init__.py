"""The native engine: propagate and backtrack over candidate bit masks.

One algorithm, two implementations: the readable Python reference in
:mod:`sudokulab.native.reference` and the compiled core :mod:`sudokulab.native._core`
(C, built by ``pip install`` when a compiler is available), with identical semantics: the
same solutions in the same order and the same nodes, guesses and backtracks.

One class, :class:`Engine` (a grid shape, its propagation and order), with two methods:
``search(givens, limit, deadline, keep, max_guesses)`` for one puzzle, an
:class:`Outcome`; and ``search_grids(givens, limit, timeout, max_guesses)`` for a
``(k, n*n)`` array of puzzles, ``(solutions, counters)`` as arrays (:data:`COUNTERS`),
each puzzle with its own deadline and budget. :data:`ENGINE` names the implementation
behind it: the reference's :class:`~sudokulab.native.reference.Engine` (which also traces,
for the classroom), or :class:`sudokulab.native.compiled.Engine`, the same surface over
the core's one entry point (one call for all the puzzles, without the GIL and without a
Python object per puzzle; each puzzle's time measured by the core itself).
:data:`BITBOARD` says whether the C core solves classic 9x9 grids under ``hidden`` with its
bitboard solver (on CPUs with AVX2): the same answers and counters, faster (docs/results.md,
"How the C core got there").
Both take ``max_guesses``, a budget of work that stops a search at the same guess in
either implementation on any machine, and ``candidates``, pencil marks (a mask per cell:
one puzzle's sequence for ``search``, a uint32 array shaped as the givens for
``search_grids``) the cells start from (see :mod:`sudokulab.native.reference`; the
bitboard solver does not run such a search, the general engine does).

Which one runs:
    the compiled core when it imports; otherwise the reference, with a warning saying why.
    ``SUDOKULAB_PURE_PYTHON=1`` forces the reference (no warning);
    ``SUDOKULAB_REQUIRE_NATIVE=1`` turns a missing or broken core into an ImportError.
"""

from __future__ import annotations

import os
import warnings
from types import ModuleType

from .options import ORDERS, PROPAGATIONS, VALUES
from .surface import BUDGET_SPENT, COMPLETE, COUNTERS, KEEP, TIMED_OUT, Outcome


def _load_core() -> ModuleType | None:
    """The compiled engine's module, or None when the reference must run (see the module
    docstring)."""
    if os.environ.get("SUDOKULAB_PURE_PYTHON") == "1":
        return None
    try:
        from . import compiled
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
    return compiled


_compiled = _load_core()

#: The implementation :class:`Engine` runs: "c" (the compiled core) or "python".
ENGINE = "python" if _compiled is None else "c"

#: Whether the compiled core runs classic 9x9 grids under ``hidden`` propagation on its
#: AVX2 bitboard solver (same results as its general engine; see native/board9.c).
BITBOARD = _compiled is not None and bool(_compiled._core.BITBOARD)
#: Whether that solver's gac filter runs its AVX-512 build (gac9_hall; else gac9_hall2 on
#: AVX2): the same results, about 1.5x as fast a node (docs/results.md).
GAC_AVX512 = BITBOARD and bool(_compiled._core.GAC_AVX512)

#: The engine of one grid shape and knobs: ``Engine(size, units, propagation="hidden",
#: order="mrv", cages=())``, compiled when the core runs, else the reference.
if _compiled is None:
    from .reference import Engine
else:  # the reference's two thousand lines load only where they run (native-py, traces)
    Engine = _compiled.Engine


def interrupt() -> None:
    """Stop every compiled search running now, in any thread (each raises
    KeyboardInterrupt within 256 guesses): what Ctrl-C does to them. The reference
    hears Ctrl-C by itself, as Python code does."""
    if _compiled is not None:
        _compiled._core.interrupt()


__all__ = [
    "BITBOARD",
    "GAC_AVX512",
    "BUDGET_SPENT",
    "COMPLETE",
    "COUNTERS",
    "ENGINE",
    "KEEP",
    "ORDERS",
    "PROPAGATIONS",
    "Engine",
    "Outcome",
    "TIMED_OUT",
    "VALUES",
    "interrupt",
]
