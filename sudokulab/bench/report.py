"""Reports on bench results: summary and comparison tables, rendered for people and tools.

The input is the bench's results frame, one row per puzzle x backend x repeat. Decisions
every table here shares:

- Times are each row's wall time (build + solve), aggregated over **every** row of a
  (set, backend) pair: repeats count as rows, so a mean over 3 repeats of 10 puzzles is
  a mean over 30 rows. A timeout counts at the time it was stopped and an error at the
  time it took, so with timeouts the means are lower bounds; the status counts say how
  many rows did not answer.
- ``wrong`` counts rows that gave an answer the project cannot trust: a solution the
  independent verifier rejected, or a conclusive verdict (solved, unsolvable, several,
  invalid) that disagrees with the other backends. A timeout or error that "disagrees"
  is already counted as a timeout or error, not again as wrong.
- The ``under_*`` columns are the distribution seed system 2 published ("71.1% solved in
  under 0.1 s, 81.9% under 0.5 s, 87.2% under 1 s"): the fraction of rows that solved the
  puzzle (status solved or multiple) in strictly less than the bound.
- Frames keep machine units (seconds, fractions, snake_case names), so ``csv`` and
  ``json`` read back exactly; ``table``, ``markdown`` and ``html`` show milliseconds,
  percentages and readable headers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

#: Statuses that mean the backend found a solution.
ANSWERED = ("solved", "multiple")
#: Statuses that settle a puzzle; timeout and error are failures to answer.
CONCLUSIVE = ("solved", "unsolvable", "multiple", "invalid")
#: Each status and the summary column counting it.
STATUS_COLUMNS = {
    "solved": "solved",
    "unsolvable": "unsolvable",
    "multiple": "multiple",
    "timeout": "timeouts",
    "error": "errors",
    "invalid": "invalid",
}
#: Bounds in seconds of the "solved within" fractions.
BOUNDS = (0.1, 0.5, 1.0)
FORMATS = ("table", "markdown", "csv", "html", "json")
#: The columns a report lists for each wrong row.
WRONG_COLUMNS = ("set", "idx", "backend", "repeat", "status", "verified", "agrees", "error")


def _bound_column(bound: float) -> str:
    """The summary column of one bound: ``under_100ms``, ``under_1s``."""
    return f"under_{bound * 1000:g}ms" if bound < 1 else f"under_{bound:g}s"


SUMMARY_COLUMNS = [
    "set", "backend", "puzzles", "runs", *STATUS_COLUMNS.values(), "wrong",
    "mean_s", "median_s", "p90_s", "p99_s", "max_s", "total_s", "puzzles_per_s",
    "mean_nodes", "mean_guesses", *map(_bound_column, BOUNDS),
]  # fmt: skip

#: How the human formats show a column: its header and its kind (see ``_cell``).
DISPLAY: dict[str, tuple[str, str]] = {
    "set": ("set", "text"),
    "backend": ("backend", "text"),
    "puzzles": ("puzzles", "int"),
    "runs": ("runs", "int"),
    "solved": ("solved", "int"),
    "unsolvable": ("unsolvable", "int"),
    "multiple": ("multiple", "int"),
    "timeouts": ("timeouts", "int"),
    "errors": ("errors", "int"),
    "invalid": ("invalid", "int"),
    "wrong": ("wrong", "int"),
    "mean_s": ("mean ms", "ms"),
    "median_s": ("median ms", "ms"),
    "p90_s": ("p90 ms", "ms"),
    "p99_s": ("p99 ms", "ms"),
    "max_s": ("max ms", "ms"),
    "total_s": ("total s", "number"),
    "puzzles_per_s": ("puzzles/s", "number"),
    "mean_nodes": ("mean nodes", "number"),
    "mean_guesses": ("mean guesses", "number"),
    **{_bound_column(b): (f"< {b:g} s", "percent") for b in BOUNDS},
    "vs_baseline": ("vs baseline", "ratio"),
    "old_mean_s": ("old mean ms", "ms"),
    "new_mean_s": ("new mean ms", "ms"),
    "ratio": ("old/new", "ratio"),
    "old_median_s": ("old median ms", "ms"),
    "new_median_s": ("new median ms", "ms"),
    "old_solved": ("old solved", "int"),
    "new_solved": ("new solved", "int"),
}


def _is_false(values: pd.Series) -> pd.Series:
    """Which flags are False; None and NaN (no verdict) are not."""
    return values.map(lambda v: v is not None and not pd.isna(v) and not bool(v)).astype(bool)


def wrong_rows(results: pd.DataFrame) -> pd.Series:
    """Which rows failed verification or gave a conclusive verdict the others did not."""
    wrong = pd.Series(False, index=results.index)
    if "verified" in results:
        wrong |= _is_false(results["verified"])
    if "agrees" in results:
        wrong |= _is_false(results["agrees"]) & results["status"].isin(CONCLUSIVE)
    return wrong


def _numbers(results: pd.DataFrame, column: str) -> pd.Series:
    """A column as floats (None and text become NaN); all NaN when it is absent."""
    if column not in results:
        return pd.Series(np.nan, index=results.index, dtype=float)
    return pd.to_numeric(results[column], errors="coerce").astype(float)


def _ordered(keys: Iterable[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """(set, backend) pairs, sets in order of first appearance, then backends likewise."""
    keys = list(dict.fromkeys(keys))
    sets = {s: i for i, s in enumerate(dict.fromkeys(s for s, _ in keys))}
    backends = {b: i for i, b in enumerate(dict.fromkeys(b for _, b in keys))}
    return sorted(keys, key=lambda k: (sets[k[0]], backends[k[1]]))


def _summarize(set_name: Any, backend: Any, rows: pd.DataFrame) -> dict[str, Any]:
    """One summary row from one (set, backend) pair's results."""
    times = _numbers(rows, "time")
    known = times.dropna().to_numpy()
    # numpy's default (linear) percentile, as the docs of the columns promise
    median, p90, p99 = np.percentile(known, [50, 90, 99]) if known.size else (np.nan,) * 3
    total = float(known.sum()) if known.size else np.nan
    answered = rows["status"].isin(ANSWERED)
    row: dict[str, Any] = {
        "set": set_name,
        "backend": backend,
        "puzzles": int(rows["idx"].nunique()),
        "runs": len(rows),
    }
    for status, column in STATUS_COLUMNS.items():
        row[column] = int((rows["status"] == status).sum())
    row |= {
        "wrong": int(wrong_rows(rows).sum()),
        "mean_s": float(known.mean()) if known.size else np.nan,
        "median_s": float(median),
        "p90_s": float(p90),
        "p99_s": float(p99),
        "max_s": float(known.max()) if known.size else np.nan,
        "total_s": total,
        "puzzles_per_s": len(rows) / total if total > 0 else np.nan,
        "mean_nodes": _numbers(rows, "nodes").mean(),
        "mean_guesses": _numbers(rows, "guesses").mean(),
    }
    for bound in BOUNDS:
        row[_bound_column(bound)] = float((answered & (times < bound)).sum() / len(rows))
    return row


def summary(results: pd.DataFrame, baseline: str | None = None) -> pd.DataFrame:
    """One row per (set, backend): counts by status, times, counters, speed vs a baseline.

    Columns (times in seconds, fractions in 0..1): ``set``, ``backend``, ``puzzles``
    (distinct puzzles), ``runs`` (rows, repeats included), ``solved``, ``unsolvable``,
    ``multiple``, ``timeouts``, ``errors``, ``invalid``, ``wrong`` (see the module's
    notes), ``mean_s``, ``median_s``, ``p90_s``, ``p99_s``, ``max_s``, ``total_s``,
    ``puzzles_per_s`` (rows / total time), ``mean_nodes``, ``mean_guesses`` (NaN for
    backends without them), ``under_100ms``, ``under_500ms``, ``under_1s`` (fraction of
    rows solved in less than the bound), and with a ``baseline`` backend label
    ``vs_baseline``: the baseline's mean time on the same set over this row's (above 1:
    faster than the baseline; NaN where the baseline did not run that set). Times cover
    every row, repeats, timeouts and errors included. Sets come in order of first
    appearance, and within a set the backends likewise.
    """
    if baseline is not None and not (results["backend"] == baseline).any():
        known = ", ".join(map(str, dict.fromkeys(results["backend"])))
        raise ValueError(f"baseline {baseline!r} is not among the backends: {known}")
    groups = dict(iter(results.groupby(["set", "backend"], sort=False, dropna=False)))
    frame = pd.DataFrame(
        [_summarize(s, b, groups[s, b]) for s, b in _ordered(groups)], columns=SUMMARY_COLUMNS
    )
    if baseline is not None:
        base = frame.loc[frame["backend"] == baseline].set_index("set")["mean_s"]
        ratio = frame["set"].map(base) / frame["mean_s"]
        frame["vs_baseline"] = ratio.replace([np.inf, -np.inf], np.nan)
    return frame


def compare(old_results: pd.DataFrame, new_results: pd.DataFrame) -> pd.DataFrame:
    """Two runs side by side per (set, backend): mean and median times, solved counts.

    Columns: ``set``, ``backend``, ``old_mean_s``, ``new_mean_s``, ``ratio`` (old mean
    over new mean: above 1 the new run is faster), ``old_median_s``, ``new_median_s``,
    ``old_solved``, ``new_solved``. A pair that ran in only one of the two has NaN for the
    other. Order: as :func:`summary`, the old run's pairs first.
    """
    keep = ["mean_s", "median_s", "solved"]
    old = summary(old_results).set_index(["set", "backend"])[keep]
    new = summary(new_results).set_index(["set", "backend"])[keep]
    keys = _ordered([*old.index, *new.index])
    old, new = old.reindex(keys), new.reindex(keys)
    frame = pd.DataFrame(
        {
            "set": [s for s, _ in keys],
            "backend": [b for _, b in keys],
            "old_mean_s": old["mean_s"].to_numpy(),
            "new_mean_s": new["mean_s"].to_numpy(),
            "ratio": (old["mean_s"] / new["mean_s"]).replace([np.inf, -np.inf], np.nan).to_numpy(),
            "old_median_s": old["median_s"].to_numpy(),
            "new_median_s": new["median_s"].to_numpy(),
            "old_solved": old["solved"].to_numpy(),
            "new_solved": new["solved"].to_numpy(),
        }
    )
    return frame


def significant(value: float, digits: int = 3) -> str:
    """A number with ``digits`` significant digits, never in scientific notation."""
    if value == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    return f"{value:,.{decimals}f}"


def _missing(value: Any) -> bool:
    """Whether a scalar is None, NaN, NaT or NA."""
    return value is None or bool(np.ndim(value) == 0 and pd.isna(value))


def _cell(value: Any, kind: str) -> str:
    """One value as the human formats show it."""
    if _missing(value):
        return "-"
    if kind == "text" or isinstance(value, str | bool | np.bool_):
        return str(value)
    if not math.isfinite(value):
        return str(value)
    if kind == "int":
        return str(int(value))
    if kind == "ms":
        return significant(value * 1000)
    if kind == "percent":
        return f"{value * 100:.1f}%"
    if kind == "ratio":
        return significant(value) + "x"
    return significant(value) if isinstance(value, float | np.floating) else str(value)


def _kind(frame: pd.DataFrame, column: str) -> tuple[str, str]:
    """A column's header and kind: as :data:`DISPLAY` says, else from its dtype."""
    if column in DISPLAY:
        return DISPLAY[column]
    dtype = frame[column].dtype
    if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
        return str(column), "text"
    return str(column), "int" if pd.api.types.is_integer_dtype(dtype) else "number"


def render(frame: pd.DataFrame, fmt: str = "table") -> str:
    """A frame as text: ``table`` (terminal), ``markdown``, ``csv``, ``html`` or ``json``.

    ``table``, ``markdown`` and ``html`` are for people: readable headers ("mean ms"),
    times in milliseconds to 3 significant digits, fractions as percentages, ``-`` for
    missing values. ``csv`` and ``json`` (a list of records, NaN as null) keep the frame's
    own column names and units so that they read back exactly. A named index becomes
    columns.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if not isinstance(frame.index, pd.RangeIndex):
        frame = frame.reset_index()
    if fmt == "csv":
        return frame.to_csv(index=False)
    if fmt == "json":
        return frame.to_json(orient="records", indent=2) + "\n"

    kinds = [_kind(frame, c) for c in frame.columns]
    headers = [header for header, _ in kinds]
    aligns = ["left" if kind == "text" else "right" for _, kind in kinds]
    cells = [
        [_cell(v, kind) for v, (_, kind) in zip(row, kinds, strict=True)]
        for row in frame.itertuples(index=False, name=None)
    ]
    if fmt == "html":
        return _html(headers, cells, aligns)

    from tabulate import tabulate

    text = tabulate(
        cells,
        headers=headers,
        tablefmt="simple" if fmt == "table" else "pipe",
        colalign=aligns,
        disable_numparse=True,
    )
    return str(text) + "\n"


def _html(headers: list[str], cells: list[list[str]], aligns: list[str]) -> str:
    """A plain HTML table, escaped, numbers right-aligned; no padding, no styling else."""
    from html import escape

    def tr(tag: str, texts: list[str]) -> str:
        return (
            "<tr>"
            + "".join(
                f'<{tag} style="text-align: {a}">{escape(t)}</{tag}>'
                for t, a in zip(texts, aligns, strict=True)
            )
            + "</tr>"
        )

    body = "\n".join(tr("td", row) for row in cells)
    return f"<table>\n<thead>\n{tr('th', headers)}\n</thead>\n<tbody>\n{body}\n</tbody>\n</table>\n"


def _present(value: Any) -> bool:
    """Whether a field holds something: not None, NaN, NA or empty text."""
    if isinstance(value, str):
        return value != ""
    return isinstance(value, Mapping | list | tuple) or not _missing(value)


def _loads(value: Any) -> Any:
    """A JSON text field decoded; a value that is not JSON text is returned as it is."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def machine_text(runs_row: Mapping[str, Any] | pd.Series) -> str:
    """One line naming a run's machine, CPU, cores, Python, package versions and git revision.

    >>> machine_text({"machine": "lab1", "cpu": "Intel i5", "cores": 4, "python": "3.12.1",
    ...               "packages": '{"ortools": "9.10"}', "git": "4caed56"})
    'lab1, Intel i5, 4 cores, Python 3.12.1, ortools 9.10, git 4caed56'
    """

    def get(key: str) -> Any:
        value = runs_row.get(key)
        return value if _present(value) else None

    parts = [str(get(key)) for key in ("machine", "cpu") if get(key) is not None]
    if get("cores") is not None:
        parts.append(f"{int(get('cores'))} cores")
    if get("python") is not None:
        parts.append(f"Python {get('python')}")
    packages = _loads(get("packages"))
    if isinstance(packages, Mapping):
        parts.extend(f"{name} {version}" for name, version in packages.items())
    elif packages is not None:
        parts.append(str(packages))
    parts.append(f"git {get('git') or 'unknown'}")
    return ", ".join(parts)


def _executor_text(entry: Any) -> str:
    """One entry of a run's ``executors``: "dask (2 workers, 4 threads; hosts a, b)"."""
    if not isinstance(entry, Mapping):
        return str(entry)
    counts = [
        f"{entry[k]} {k if entry[k] != 1 else k[:-1]}"
        for k in ("workers", "threads")
        if _present(entry.get(k))
    ]
    hosts = entry.get("hosts") or []
    details = ", ".join(counts) + (f"; hosts {', '.join(map(str, hosts))}" if hosts else "")
    return f"{entry.get('executor', '?')}" + (f" ({details})" if details else "")


def _run_lines(runs: pd.DataFrame, run_ids: set[Any]) -> list[str]:
    """A Markdown bullet per run in the results: its machine, when, and its arguments."""
    if "run_id" in runs and run_ids:
        runs = runs[runs["run_id"].isin(run_ids)]
    lines = []
    for _, run in runs.iterrows():
        when = [f"{key} {run[key]}" for key in ("started", "finished") if _present(run.get(key))]
        name = f"run {run['run_id']}: " if _present(run.get("run_id")) else ""
        line = f"- {name}{machine_text(run)}" + (f" ({', '.join(when)})" if when else "")
        args = _loads(run.get("args")) if _present(run.get("args")) else None
        if args is not None:
            line += f"; arguments `{json.dumps(args) if not isinstance(args, str) else args}`"
        executors = _loads(run.get("executors")) if _present(run.get("executors")) else None
        if isinstance(executors, list) and executors:
            line += "; ran on " + ", then ".join(map(_executor_text, executors))
        lines.append(line)
    return lines or ["- machine unknown: no run record"]


def by_host(results: pd.DataFrame) -> pd.DataFrame | None:
    """Per backend and host (from the rows' ``worker``, "host:pid"): rows, mean and median
    ms per row; None when every row ran on one host (or the rows do not say)."""
    if "worker" not in results or results["worker"].isna().all():
        return None
    host = results["worker"].astype("string").str.rsplit(":", n=1).str[0]
    if host.nunique(dropna=True) < 2:
        return None
    times = _numbers(results, "time") * 1000.0
    frame = pd.DataFrame({"backend": results["backend"], "host": host, "ms": times})
    table = frame.groupby(["backend", "host"], sort=True)["ms"].agg(["count", "mean", "median"])
    return table.reset_index().rename(
        columns={"count": "rows", "mean": "mean ms", "median": "median ms"}
    )


def by_grade(results: pd.DataFrame, ratings: pd.DataFrame | None) -> pd.DataFrame | None:
    """Per backend and grade (the logic solver's rating of each row's puzzle, from
    ``bench --rate``): rows, mean and median ms per row, mean guesses; the grades easiest
    first. None when no row's puzzle is rated."""
    if ratings is None or ratings.empty:
        return None
    grade = results["puzzle"].map(ratings.set_index("puzzle")["grade"])
    if grade.isna().all():
        return None
    from ..logic.ladder import GRADES

    order = [*GRADES, "no solution"]
    frame = pd.DataFrame(
        {
            "backend": results["backend"],
            "grade": pd.Categorical(grade.fillna("not rated"), [*order, "not rated"]),
            "ms": _numbers(results, "time") * 1000.0,
            "guesses": _numbers(results, "guesses"),
        }
    )
    table = frame.groupby(["backend", "grade"], sort=True, observed=True).agg(
        rows=("ms", "size"),
        mean_ms=("ms", "mean"),
        median_ms=("ms", "median"),
        mean_guesses=("guesses", "mean"),
    )
    backends = list(dict.fromkeys(results["backend"]))
    table = table.reset_index()
    table["backend"] = pd.Categorical(table["backend"], backends)
    table = table.sort_values(["backend", "grade"]).reset_index(drop=True)
    table["backend"] = table["backend"].astype(str)
    table["grade"] = table["grade"].astype(str)
    return table.rename(
        columns={"mean_ms": "mean ms", "median_ms": "median ms", "mean_guesses": "mean guesses"}
    )


def markdown_report(
    results: pd.DataFrame,
    runs: pd.DataFrame,
    baseline: str | None = None,
    plots: dict[str, str] | None = None,
    ratings: pd.DataFrame | None = None,
) -> str:
    """A whole bench report in Markdown: the machines, the summary table, the plots.

    ``runs`` may hold more runs than ``results`` used: only those in ``results`` are
    listed. ``plots`` maps a caption to a file path, shown as an image when it is a PNG
    or SVG file and linked otherwise. Rows counted as wrong are listed under the table.
    With ``ratings`` (``bench --rate``) the times are also shown by human difficulty.
    """
    run_ids = set(results["run_id"].dropna()) if "run_id" in results else set()
    table = summary(results, baseline)
    lines = [
        "# sudokulab bench report",
        "",
        *_run_lines(runs, run_ids),
        "",
        "## Summary",
        "",
        render(table, "markdown").rstrip("\n"),
        "",
        "Times are wall time per row (model build + solve) over every row, repeats "
        "included; a timeout counts at the time it was stopped, so with timeouts the "
        "means are lower bounds. *wrong*: a solution the verifier rejected, or a verdict "
        "the other backends did not reach. *< 0.1 s* and the like: the share of rows "
        "solved in less than that time.",
    ]
    if baseline is not None:
        lines[-1] += (
            f" *vs baseline*: {baseline}'s mean time over this backend's (above 1: faster)."
        )
    hosts = by_host(results)
    if hosts is not None:
        lines += ["", "## By host", "", render(hosts, "markdown").rstrip("\n")]
    grades = by_grade(results, ratings)
    if grades is not None:
        lines += [
            "",
            "## By difficulty",
            "",
            render(grades, "markdown").rstrip("\n"),
            "",
            "Grades are the logic solver's rating of each puzzle (`sudokulab rate`): easy "
            "(singles), medium (locked candidates, subsets), hard (fish, wings, colouring), "
            "expert (chains), extreme (the ladder stalls: it needs search).",
        ]
    wrong = results[wrong_rows(results)]
    if not wrong.empty:
        shown = [c for c in WRONG_COLUMNS if c in wrong]
        listing = render(wrong[shown].reset_index(drop=True), "markdown").rstrip("\n")
        lines += ["", "## Wrong answers", "", listing]
    if plots:
        lines += ["", "## Plots", ""]
        for caption, path in plots.items():
            is_image = str(path).lower().endswith((".png", ".svg"))
            lines.append(f"{'!' if is_image else '- '}[{caption}]({path})")
            if is_image:
                lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"
