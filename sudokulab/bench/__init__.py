"""The bench: puzzle sets, plans, executors, the results store, reports, plots, and
cross-checking.

Modules, lowest first: ``progress``, ``store`` (SQLite, and the rows a report queries
there), ``report`` (summary tables, in SQL), ``plots``, ``crosscheck`` (every backend on
every puzzle, compared), ``plan`` (what a run does, and its chunks of puzzles, streamed),
``executors`` (where the chunks run), ``dask_executor`` (chunks as tasks of a Dask
cluster; optional), ``ratings`` (``bench --rate``), ``run`` (run a bench into a store).
"""

from importlib import import_module
from typing import Any

#: Where each name below lives: imported on first use, so that reading a set (which
#: the command line does for every command) does not import the executors.
_HOMES = {
    "BATCH_CHUNK": "executors",
    "CHUNK": "executors",
    "Executor": "executors",
    "LocalExecutor": "executors",
    "DaskExecutor": "dask_executor",
    "BenchPlan": "plan",
    "Chunk": "plan",
    "SetBlock": "plan",
    "read_set": "plan",
    "set_blocks": "plan",
    "skip_reason": "plan",
    "agreement": "run",
    "puzzle_text": "run",
    "run_bench": "run",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'sudokulab.bench' has no attribute {name!r}")
    value = getattr(import_module(f".{_HOMES[name]}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "CHUNK",
    "BenchPlan",
    "DaskExecutor",
    "Executor",
    "LocalExecutor",
    "Chunk",
    "SetBlock",
    "read_set",
    "set_blocks",
    "BATCH_CHUNK",
    "agreement",
    "puzzle_text",
    "run_bench",
    "skip_reason",
]
