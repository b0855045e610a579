"""The native engine: propagate and backtrack over candidate bit masks.

One algorithm, two implementations: the readable Python reference in
:mod:`sudokulab.native.reference` and, once built, a compiled core with identical
semantics. :data:`ENGINE` names the implementation behind :func:`search`.
"""

from __future__ import annotations

from .reference import ORDERS, PROPAGATIONS, Engine, Outcome, search

#: The implementation :func:`search` runs: "python" until the compiled core exists.
ENGINE = "python"

__all__ = ["ENGINE", "ORDERS", "PROPAGATIONS", "Engine", "Outcome", "search"]
