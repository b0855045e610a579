"""A backend outside sudokulab: plain backtracking over the model, in one short file.

Registered with ``SUDOKULAB_BACKENDS=backtracking_backend:Backtracking`` (this folder on
``PYTHONPATH``); see the page "Adding a backend".
"""

from __future__ import annotations

import time
from typing import Any

from sudokulab.backends import Backend, Result, check_options, status_of
from sudokulab.backends.base import check_request
from sudokulab.models import Model


class Backtracking(Backend):
    """Plain backtracking on the model: open cells in order, values in domain order."""

    name = "backtracking-demo"
    kinds = frozenset({"alldifferent"})  # no cages: a killer model is refused
    options = {"reverse": bool}  # try the values from the largest down
    stops_itself = True  # it looks at the clock itself
    requires = ""  # nothing to install

    def available(self) -> bool:
        """Always: it needs nothing but Python."""
        return True

    def version(self) -> str:
        """The version of the solver behind the backend."""
        return "1.0"

    def solve(
        self, model: Model, limit: int | None = 1, timeout: float | None = None, **options: Any
    ) -> Result:
        """Find up to ``limit`` solutions within ``timeout`` seconds."""
        options = check_options(self, options)  # unknown or bad options: ValueError
        check_request(self, model, limit)  # a kind it does not take: ValueError
        start = time.perf_counter()
        deadline = None if timeout is None else start + timeout
        # The rules come from the model: a cell's peers share an AllDifferent with it.
        peers: list[set[int]] = [set() for _ in model.variables]
        for constraint in model.constraints:
            for cell in constraint.cells:
                peers[cell].update(c for c in constraint.cells if c != cell)
        grid = [domain[0] if len(domain) == 1 else 0 for domain in model.domains]
        open_cells = [cell for cell in model.variables if not grid[cell]]
        found: list[tuple[int, ...]] = []
        nodes = 0
        timed_out = False

        def search(i: int) -> None:
            nonlocal nodes, timed_out
            nodes += 1
            if deadline is not None and time.perf_counter() > deadline:
                timed_out = True
            if timed_out or (limit is not None and len(found) >= limit):
                return
            if i == len(open_cells):
                found.append(tuple(grid))
                return
            cell = open_cells[i]
            values = model.domains[cell]
            for value in reversed(values) if options.get("reverse") else values:
                if all(grid[peer] != value for peer in peers[cell]):
                    grid[cell] = value
                    search(i + 1)
            grid[cell] = 0

        search(0)
        exact = not timed_out and (limit is None or len(found) < limit)
        return Result(
            backend=self.name,
            status=status_of(len(found), exact, timed_out),
            solutions=tuple(found),
            count=len(found),
            exact=exact,
            solve_time=time.perf_counter() - start,
            stats={"nodes": nodes},
        )
