"""Gurobi through gurobipy as a backend: the model's 0-1 program
(:mod:`sudokulab.encodings.linear`, the program of ``mip`` and of the MPS export) handed
to Gurobi.

The pip wheel of gurobipy comes with a size-limited licence: at most
:data:`LICENCE_LIMIT` variables and as many constraints. A classic 9x9 program fits (at
most 729 binaries and 324 rows); a larger grid's does not, nor do some 9x9 variants'
(their rules add rows), and with that licence such a program is refused before solving,
naming the limit and the model's size. Whether the licence here is the size-limited one
is found once per process, by a probe (a program one variable over the limit, which such
a licence will not optimize).

Solutions are counted with no-good cuts, one Gurobi solve each
(:func:`~sudokulab.backends.base.count_by_blocking`); the deadline is Gurobi's
``TimeLimit`` parameter, set to the time left before each solve, and a solve it stops is
a timeout (Gurobi says ``TIME_LIMIT``, not infeasible). Gurobi puts a SIGINT handler of
its own in place while it optimizes: Ctrl-C would end the solve (with "Interrupt request
received" on standard output) and never reach the caller. So every request runs in a
worker process (``in_process_with``), which Ctrl-C at the terminal does not reach, killed
on Ctrl-C or at the deadline; there Gurobi's ``terminate`` is its stop. ``stats`` holds
the branch-and-bound ``nodes`` and simplex ``iterations`` summed over the solves, and
the program's size.

gurobipy is imported only when a model is solved.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import time
from collections.abc import Mapping
from typing import Any

from ..encodings import Distinct, Implies, Linear, Table, accepted_kinds
from ..encodings.linear import Program, Row, program
from ..models import Grid, Model
from . import interrupt
from .base import Backend, Request, Unanswered, check_deadline, count_by_blocking
from .result import Result, Status

#: What gurobipy's size-limited licence holds: variables, and linear constraints.
LICENCE_LIMIT = 2000


class GurobiBackend(Backend):
    """Gurobi (gurobipy) on the 0-1 program of the model; no options."""

    name = "gurobi"
    kinds = accepted_kinds((Distinct, Linear, Table, Implies))
    options: dict = {}
    stops_itself = True  # Gurobi's TimeLimit, set to the time left before each solve
    requires = "gurobipy"

    def available(self) -> bool:
        """True when gurobipy is installed (found, not imported)."""
        return importlib.util.find_spec("gurobipy") is not None

    def version(self) -> str:
        """The installed gurobipy version, and the licence's size limit when it has one."""
        import importlib.metadata

        found = importlib.metadata.version("gurobipy")
        if size_limited():
            found += f" (size-limited licence: {LICENCE_LIMIT} variables and constraints)"
        return found

    def in_process_with(self, options: Mapping[str, Any]) -> bool:
        """Never: Gurobi takes over Ctrl-C while it optimizes (see the module's text)."""
        return False

    def refusal(self, model: Model, options: dict[str, Any]) -> str:
        """Why the licence here will not take the program of ``model`` ("" when it will)."""
        return _licence_refusal(model, program(model))

    def search(self, model: Model, request: Request) -> Result:
        """Find up to ``request.limit`` solutions, one Gurobi solve each, by the deadline."""
        import gurobipy as gp
        from gurobipy import GRB

        prog = program(model, lambda: check_deadline(request.deadline))
        refused = _licence_refusal(model, prog)
        if refused:
            return Result(self.name, Status.ERROR, message=refused)
        m, x = build(prog)
        stats: dict[str, Any] = {
            "variables": len(prog.columns),
            "constraints": len(prog.rows),
            "nodes": 0,
            "iterations": 0,
        }
        open_cells = [c for c, domain in enumerate(model.domains) if len(domain) > 1]
        cells = len(model.domains)
        interrupt.on_interrupt(m.terminate)
        start = time.perf_counter()

        def ask(left: float | None) -> Grid | None | Unanswered:
            if left is not None:
                m.Params.TimeLimit = max(left, 1e-3)
            try:
                m.optimize()
            except gp.GurobiError as err:
                return Unanswered(f"gurobi: {err}")
            stats["nodes"] += int(m.NodeCount)
            stats["iterations"] += int(m.IterCount)
            # No objective and bounded 0-1 variables: "infeasible or unbounded" is infeasible.
            if m.Status in (GRB.INFEASIBLE, GRB.INF_OR_UNBD):
                return None
            if m.Status != GRB.OPTIMAL:
                return Unanswered(f"gurobi: ended with status {m.Status}")
            return prog.grid(m.getAttr("X", x), cells)

        def block(grid: Grid) -> None:
            add_row(m, x, prog.cut(grid, open_cells))

        found = count_by_blocking(request, ask, block, closed=not open_cells)
        solve_time = time.perf_counter() - start
        m.dispose()
        return Result.counted(
            self.name, found.solutions, found.exact, found.timed_out, 0.0, solve_time, stats,
            found.message,
        )  # fmt: skip

    def describe(self, model: Model) -> str:
        """The program handed to Gurobi, counted off it (and the licence's refusal)."""
        prog = program(model)
        line = f"gurobi: {prog.summary('linear constraints')}; no objective"
        refused = _licence_refusal(model, prog)
        return f"{line} (refused here: {refused})" if refused else line


def _licence_refusal(model: Model, prog: Program) -> str:
    """Why the licence here will not take ``prog``, the program of ``model`` ("" when it
    will)."""
    variables, rows = len(prog.columns), len(prog.rows)
    if max(variables, rows) <= LICENCE_LIMIT or not size_limited():
        return ""
    n = model.size
    return (
        f"gurobi's size-limited licence holds up to {LICENCE_LIMIT} variables and "
        f"{LICENCE_LIMIT} constraints; this {n}x{n} model has {variables} variables and "
        f"{rows} constraints"
    )


def _env() -> Any:
    """A quiet Gurobi environment (no banner, no log)."""
    import gurobipy as gp

    env = gp.Env(empty=True)
    env.setParam("OutputFlag", 0)
    env.start()
    return env


@functools.cache
def _shared_env() -> Any:
    return _env()


def build(prog: Program) -> tuple[Any, list[Any]]:
    """A Gurobi model of ``prog`` (in this process's quiet environment), and its variables."""
    import gurobipy as gp
    from gurobipy import GRB

    m = gp.Model(env=_shared_env())
    x = [m.addVar(vtype=GRB.BINARY) for _ in prog.columns]
    for i in prog.fixed:
        x[i].LB = 1
    for row in prog.rows:
        add_row(m, x, row)
    return m, x


def add_row(m: Any, x: list[Any], row: Row) -> None:
    """Add one row: an equality, or its finite bounds as one or two inequalities."""
    import gurobipy as gp

    expr = gp.LinExpr(list(row.coefs), [x[i] for i in row.columns])
    if row.lower == row.upper:
        m.addLConstr(expr, "=", row.lower)
        return
    if math.isfinite(row.upper):
        m.addLConstr(expr, "<", row.upper)
    # a lower bound of 0 on a sum of 0-1 variables with positive coefficients holds anyway
    if math.isfinite(row.lower) and not (row.lower <= 0 and min(row.coefs) >= 0):
        m.addLConstr(expr, ">", row.lower)


@functools.cache
def size_limited() -> bool:
    """Whether the Gurobi licence here is the size-limited one: it refuses to optimize a
    program with one variable more than :data:`LICENCE_LIMIT` (found once, in a few ms)."""
    import gurobipy as gp

    m = gp.Model(env=_shared_env())
    m.addVars(LICENCE_LIMIT + 1)
    try:
        m.optimize()
    except gp.GurobiError as err:
        return err.errno == gp.GRB.Error.SIZE_LIMIT_EXCEEDED
    finally:
        m.dispose()
    return False
