"""A backend outside sudokulab: plain backtracking over the model, in one short file.

Registered with ``SUDOKULAB_BACKENDS=backtracking_backend:Backtracking`` (this folder on
``PYTHONPATH``); see the page "Adding a backend".
"""

from __future__ import annotations

import time

from sudokulab.backends import Backend, Request, Result, status_of
from sudokulab.models import Model


class Backtracking(Backend):
    """Plain backtracking on the model: open cells in order, values in domain order."""

    name = "backtracking-demo"
    kinds = frozenset({"alldifferent"})  # no cages: a killer model is refused
    options = {"reverse": bool}  # try the values from the largest down
    stops_itself = True  # it looks at the clock itself
    requires = ""  # nothing to install
    checks_signals = True  # pure Python: Ctrl-C reaches it where it runs

    def available(self) -> bool:
        """Always: it needs nothing but Python."""
        return True

    def version(self) -> str:
        """The version of the solver behind the backend."""
        return "1.0"

    def search(self, model: Model, request: Request) -> Result:
        """Find up to ``request.limit`` solutions by ``request.deadline``.

        The request is admitted already: its options converted (``request.options``),
        the model's constraint kinds checked against ``kinds``.
        """
        limit, deadline = request.limit, request.deadline
        start = time.perf_counter()
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

        def place(i: int) -> None:
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
            for value in reversed(values) if request.options.get("reverse") else values:
                if all(grid[peer] != value for peer in peers[cell]):
                    grid[cell] = value
                    place(i + 1)
            grid[cell] = 0

        place(0)
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
