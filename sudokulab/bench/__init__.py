"""The bench: puzzle sets, plans, executors, the results store, reports, plots, and
cross-checking.

Modules, lowest first: ``sets`` (the catalog: find, load and fetch sets), ``progress``,
``store`` (SQLite), ``report`` (summary tables), ``plots``, ``crosscheck`` (every backend
on every puzzle, compared), ``plan`` (what a run does), ``executors`` (where its tasks
run), ``run`` (run a bench into a store).
"""

from .executors import CHUNK, Executor, LocalExecutor
from .plan import BenchPlan, Task, skip_reason
from .run import agreement, puzzle_text, run_bench

__all__ = [
    "CHUNK",
    "BenchPlan",
    "Executor",
    "LocalExecutor",
    "Task",
    "agreement",
    "puzzle_text",
    "run_bench",
    "skip_reason",
]
