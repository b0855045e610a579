"""The bench: run backend specs over puzzle sets and keep every result.

Sets x specs x repeats become tasks (:mod:`.plan`), an executor runs them
(:mod:`.executors`), and each row is verified and committed to the store as it arrives;
``resume`` finishes an interrupted run without repeating any row. Once every row is in,
each row's agreement with the other backends is written.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from ..backends import BackendSpec, Result, Status, as_spec
from ..models import Puzzle, format_line, is_solution
from ..models.documents import dumps, to_document
from .crosscheck import agreement_flags
from .executors import Executor, LocalExecutor
from .plan import BenchPlan, Task, skip_reason
from .progress import Progress
from .store import Store


def puzzle_text(puzzle: Puzzle) -> str:
    """The puzzle as a row stores it: its line of givens, or for a variant (extra units,
    jigsaw regions, cages, another box shape) its JSON document, which says all of it."""
    document = to_document(puzzle)
    if set(document) <= {"size", "givens"}:
        return format_line(puzzle)
    return dumps(puzzle)


def _row(run_id: int, task: Task, result: Result) -> dict[str, Any]:
    grid = result.solution
    stats = dict(result.stats)
    return {
        "run_id": run_id,
        "set": task.set,
        "idx": task.idx,
        "puzzle": puzzle_text(task.puzzle),
        "backend": result.backend,
        "engine": stats.get("engine"),
        "repeat": task.repeat,
        "status": str(result.status),
        "solution": format_line(grid) if grid else None,
        "count": result.count,
        "verified": None if grid is None else int(is_solution(task.puzzle, grid)),
        "time": result.time,
        "build_time": result.build_time,
        "solve_time": result.solve_time,
        "nodes": stats.get("nodes"),
        "guesses": stats.get("guesses"),
        "backtracks": stats.get("backtracks"),
        "stats": json.dumps(stats, sort_keys=True, default=str),
        "error": result.message or None,
    }


def run_bench(
    plan: BenchPlan,
    store: Store,
    load: Callable[[str, BenchPlan], list[tuple[int, Puzzle]]],
    executor: Executor | None = None,
    resume: int | None = None,
    progress: bool = True,
) -> int:
    """Run (or finish) a bench into ``store``; the run id.

    ``load(set_name, plan)`` gives the (index, puzzle) pairs of a set. With ``resume``
    the run's stored plan is used and rows it already has are skipped.
    """
    executor = executor or LocalExecutor(1)
    specs = [as_spec(s) for s in plan.specs]
    run_id = resume if resume is not None else store.start_run(plan.to_json())
    done = store.done(run_id)
    limit = 2 if plan.unique else 1
    loaded = {name: load(name, plan) for name in plan.sets}
    work: list[tuple[BackendSpec, list[Task]]] = []
    for spec in specs:
        tasks = []
        for name, pairs in loaded.items():
            reason = skip_reason(spec, name, [puzzle for _, puzzle in pairs])
            if reason:
                print(f"bench: skipped {name} x {spec}: {reason}", file=sys.stderr)
                continue
            tasks += [
                Task(name, idx, puzzle, repeat)
                for idx, puzzle in pairs
                for repeat in range(plan.repeats)
                if (name, idx, str(spec), repeat) not in done
            ]
        work.append((spec, tasks))
    bar = Progress(sum(len(t) for _, t in work)) if progress else None
    try:
        for spec, tasks in work:
            invalid = [t for t in tasks if t.puzzle.clashes()]
            for task in invalid:  # the same verdict for every backend, no worker needed
                message = "; ".join(map(str, task.puzzle.clashes()))
                store.add(_row(run_id, task, Result(str(spec), Status.INVALID, message=message)))
                if bar:
                    bar.update(str(spec))
            valid = [t for t in tasks if not t.puzzle.clashes()]
            for task, result in executor.run(spec, valid, limit, plan.timeout):
                store.add(_row(run_id, task, result))
                if bar:
                    bar.update(str(spec))
    finally:
        if bar:
            bar.close()
    store.set_agreement(run_id, agreement(store.results([run_id]), plan.unique))
    store.finish_run(run_id)
    return run_id


def agreement(frame: Any, unique: bool = False) -> list[tuple[bool | None, str, int, str]]:
    """(agrees, set, idx, backend) per row: does its verdict match the other backends'?

    :func:`~sudokulab.bench.crosscheck.agreement_flags` over each puzzle's rows: a timeout
    or an error has no verdict (None). Without a uniqueness check (``unique``) any valid
    solution is a right answer, so two different solutions agree (the verifier judges
    each); with it, ``solved`` claims the one solution, so the grids must be equal.
    """
    out = []
    for (name, idx), rows in frame.groupby(["set", "idx"], sort=False):
        answers = list(zip(rows["backend"], rows["status"], rows["solution"], strict=True))
        flags = agreement_flags(answers, compare_solutions=unique)
        out += [(flag, name, int(idx), b) for flag, (b, _, _) in zip(flags, answers, strict=True)]
    return out
