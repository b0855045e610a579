"""The native engine as backends: ``native`` (fastest available) and ``native-py``."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from .. import native
from ..models import Model
from ..native import _search_batch_py, reference
from ..native.reference import Cage
from .base import Backend, WholeNumber, check_options, check_request
from .result import Result, status_of


class NativeBackend(Backend):
    """Our propagate-and-backtrack engine; options ``propagation``, ``order`` and
    ``max_guesses``.

    ``max_guesses`` is a budget of work (see :mod:`sudokulab.native.reference`): a search
    that would need more guesses stops with status ``timeout``, at the same guess on
    every machine, where a deadline stops wherever the machine's speed has got to.
    """

    kinds = frozenset({"alldifferent", "sum"})
    options = {
        "propagation": reference.PROPAGATIONS,
        "order": reference.ORDERS,
        "max_guesses": WholeNumber,
    }
    stops_itself = True  # the search looks at the clock (and counts its guesses) itself
    batch = True  # solve_batch: many models per call, each with its own timeout
    requires = ""

    def __init__(
        self, name: str, search: Any, engine: str, search_batch: Any = _search_batch_py
    ) -> None:
        self.name = name
        self._search = search
        self._search_batch = search_batch
        self.engine = engine  # "python" or "c": which implementation runs

    def available(self) -> bool:
        """Always available: the Python reference needs nothing but Python."""
        return True

    def version(self) -> str:
        """The sudokulab version and the active implementation."""
        from .. import __version__

        if self.engine == "c" and native.BITBOARD:
            return f"{__version__} (c; classic 9x9 under hidden: AVX2 bitboards)"
        return f"{__version__} ({self.engine})"

    def solve(
        self, model: Model, limit: int | None = 1, timeout: float | None = None, **options: Any
    ) -> Result:
        """Search the model with the chosen propagation and order."""
        options = check_options(self, options)
        check_request(self, model, limit)
        propagation = options.get("propagation", "hidden")
        order = options.get("order", "mrv")
        budget = options.get("max_guesses")
        start = time.perf_counter()
        units, cages = shape_of(model)
        deadline = None if timeout is None else start + timeout
        out = self._search(
            model.size,
            units,
            model.givens,
            propagation,
            order,
            limit,
            deadline,
            cages=cages,
            max_guesses=budget,
        )
        return self._result(out, time.perf_counter() - start, propagation, order, budget)

    def solve_batch(
        self,
        models: Sequence[Model],
        limit: int | None = 1,
        timeout: float | None = None,
        **options: Any,
    ) -> list[Result]:
        """Solve each model as :meth:`solve` would, ``timeout`` each, in as few calls as can be.

        Consecutive models of one shape go to the engine in one batch; each result's
        solve time is that puzzle's search time as the engine measured it.
        """
        options = check_options(self, options)
        for model in models:
            check_request(self, model, limit)
        propagation = options.get("propagation", "hidden")
        order = options.get("order", "mrv")
        budget = options.get("max_guesses")
        results: list[Result] = []
        start = 0
        while start < len(models):
            size = models[start].size
            shape = shape_of(models[start])
            end = start + 1
            while end < len(models) and models[end].size == size and shape_of(models[end]) == shape:
                end += 1
            givens = [m.givens for m in models[start:end]]
            units, cages = shape
            for timed in self._search_batch(
                size,
                units,
                givens,
                propagation,
                order,
                limit,
                timeout,
                cages=cages,
                max_guesses=budget,
            ):
                results.append(
                    self._result(timed.outcome, timed.seconds, propagation, order, budget)
                )
            start = end
        return results

    def _result(
        self, out: Any, elapsed: float, propagation: str, order: str, budget: int | None
    ) -> Result:
        """The engine's outcome as a Result: a spent budget is a timeout, as a deadline is."""
        stats = {
            "engine": self.engine,
            "propagation": propagation,
            "order": order,
            "nodes": out.nodes,
            "guesses": out.guesses,
            "backtracks": out.backtracks,
            "budget_spent": out.budget_spent,
        }
        if budget is not None:
            stats["max_guesses"] = budget
        return Result(
            backend=self.name,
            status=status_of(out.count, out.complete, out.timed_out or out.budget_spent),
            solutions=out.solutions,
            count=out.count,
            exact=out.complete,
            solve_time=elapsed,
            stats=stats,
            message=f"the budget of {budget} guesses was spent" if out.budget_spent else "",
        )


def shape_of(model: Model) -> tuple[tuple[tuple[int, ...], ...], tuple[Cage, ...]]:
    """The engine's view of a model: the units (AllDifferent) and the cages (Sum)."""
    units = tuple(c.cells for c in model.constraints if c.kind == "alldifferent")
    cages = tuple((c.cells, c.total) for c in model.constraints if c.kind == "sum")
    return units, cages


def backends() -> list[NativeBackend]:
    """``native`` (the active implementation) and ``native-py`` (always the reference)."""
    return [
        NativeBackend("native", native.search, native.ENGINE, native.search_batch),
        NativeBackend("native-py", reference.search, "python", _search_batch_py),
    ]
