"""The native engine as backends: ``native`` (fastest available) and ``native-py``."""

from __future__ import annotations

import time
from typing import Any

from .. import native
from ..models import Model
from ..native import reference
from .base import check_options, check_request
from .result import Result, status_of


class NativeBackend:
    """Our propagate-and-backtrack engine; options ``propagation`` and ``order``."""

    kinds = frozenset({"alldifferent"})
    options = {"propagation": reference.PROPAGATIONS, "order": reference.ORDERS}
    stops_itself = True  # the search looks at the clock itself
    requires = ""

    def __init__(self, name: str, search: Any, engine: str) -> None:
        self.name = name
        self._search = search
        self.engine = engine  # "python" or "c": which implementation runs

    def available(self) -> bool:
        """Always available: the Python reference needs nothing but Python."""
        return True

    def version(self) -> str:
        """The sudokulab version and the active implementation."""
        from .. import __version__

        return f"{__version__} ({self.engine})"

    def solve(
        self, model: Model, limit: int | None = 1, timeout: float | None = None, **options: Any
    ) -> Result:
        """Search the model with the chosen propagation and order."""
        options = check_options(self, options)
        check_request(self, model, limit)  # cages (Sum) are not the engine's yet
        propagation = options.get("propagation", "hidden")
        order = options.get("order", "mrv")
        start = time.perf_counter()
        units = tuple(c.cells for c in model.constraints)
        deadline = None if timeout is None else start + timeout
        out = self._search(model.size, units, model.givens, propagation, order, limit, deadline)
        elapsed = time.perf_counter() - start
        return Result(
            backend=self.name,
            status=status_of(out.count, out.complete, out.timed_out),
            solutions=out.solutions,
            count=out.count,
            exact=out.complete,
            solve_time=elapsed,
            stats={
                "engine": self.engine,
                "propagation": propagation,
                "order": order,
                "nodes": out.nodes,
                "guesses": out.guesses,
                "backtracks": out.backtracks,
            },
        )


def backends() -> list[NativeBackend]:
    """``native`` (the active implementation) and ``native-py`` (always the reference)."""
    return [
        NativeBackend("native", native.search, native.ENGINE),
        NativeBackend("native-py", reference.search, "python"),
    ]
