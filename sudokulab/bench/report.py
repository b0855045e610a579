"""Reports on bench results: summary and comparison tables, rendered for people and tools.

The input is the bench's rows, one per puzzle x backend x repeat: a store's
(:meth:`~.store.Store.rows`, queried where they are, in SQL, so a report of any size
holds only its tables in memory) or a DataFrame of them (put in an in-memory database
and queried the same way). Decisions every table here shares:

- Times are each row's wall time (build + solve), aggregated over **every** row of a
  (set, backend) pair: repeats count as rows, so a mean over 3 repeats of 10 puzzles is
  a mean over 30 rows. A timeout counts at the time it took (at most the timeout plus
  the kill margin, :data:`~sudokulab.backends.isolation.GRACE`) and an error at the
  time it took, so with timeouts the means are lower bounds; the status counts say how
  many rows did not answer.
- ``wrong`` counts rows that gave an answer the project cannot trust: a solution the
  independent verifier rejected, a conclusive verdict (solved, unsolvable, several,
  invalid) that disagrees with the other backends, or (``bench --certify``) one whose
  proof the checker rejected or whose claim no proof could be made of. A timeout or
  error that "disagrees" is already counted as a timeout or error, not again as wrong (a
  refuted claim is an error row).
- The ``under_*`` columns are the distribution seed system 2 published ("71.1% solved in
  under 0.1 s, 81.9% under 0.5 s, 87.2% under 1 s"): the fraction of rows that solved the
  puzzle (status solved or multiple) in strictly less than the bound.
- Percentiles and medians are numpy's (linear interpolation between the two nearest
  ranks), read off the rows sorted in SQL.
- Frames keep machine units (seconds, fractions, snake_case names), so ``csv`` and
  ``json`` read back exactly; ``table``, ``markdown`` and ``html`` show milliseconds,
  percentages and readable headers; ``markdown`` and ``html`` escape every text.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import pandas as pd

from ..backends.isolation import GRACE
from .store import CONCLUSIVE, Rows

#: Statuses that mean the backend found a solution.
ANSWERED = ("solved", "multiple")
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
#: Wrong rows a Markdown report lists at most (the rest are counted, and in the store).
WRONG_SHOWN = 50
#: The one rule for the time of a timeout, as every report and plot states it.
TIMEOUT_RULE = (
    "a timeout counts at the time it took (at most the timeout plus the kill margin, "
    f"{GRACE:g} s), so with timeouts the means are lower bounds"
)


#: What the CPU and memory columns are, and where they are not measured, as every report
#: says it.
MEASURED_NOTE = (
    "*mean CPU ms*: CPU time per puzzle (user + system, of the worker process, its threads "
    "and its subprocesses), over the rows measured, with its 95% interval (*CPU lo*, *CPU "
    "hi*); the rows of a block the native engine solved in one request share the block's "
    "CPU time by wall time. *peak MB*: the largest peak resident memory of the worker "
    "processes; each row records its worker's high-water mark up to that row, not its own. "
    "*-*: not measured (a request killed at its hard deadline, an invalid puzzle, a store "
    "made before sudokulab measured them)."
)


#: What the certified columns are, as every report of a ``bench --certify`` run says it.
CERTIFIED_NOTE = (
    "*proved*: rows whose negative claim (no solution, unique, an exact count) came with a "
    "proof our DRAT checker accepted; *rejected*: a proof it rejected, a claim no proof "
    "could be made of (its CNF refused; the row's error says why), both counted wrong, or "
    "a claim the claim's CNF refuted (an error); *proof lines*, *proof bytes*, *check "
    "ms*: the mean proof over the rows with one. A first solution or a timeout makes no "
    "claim: nothing to prove."
)


def _bound_column(bound: float) -> str:
    """The summary column of one bound: ``under_100ms``, ``under_1s``."""
    return f"under_{bound * 1000:g}ms" if bound < 1 else f"under_{bound:g}s"


SUMMARY_COLUMNS = [
    "set", "backend", "puzzles", "runs", *STATUS_COLUMNS.values(), "wrong",
    "mean_s", "mean_low_s", "mean_high_s", "median_s", "median_low_s", "median_high_s",
    "p90_s", "p99_s", "max_s", "total_s", "puzzles_per_s", "spread", "spread_over_10pct",
    "mean_nodes", "mean_guesses", *map(_bound_column, BOUNDS), "mean_cpu_s", "mean_cpu_low_s",
    "mean_cpu_high_s", "peak_mb",
]  # fmt: skip
#: The summary's columns of a certified run (``bench --certify``), only when some row
#: has a proof: those whose proof was accepted and rejected (a refuted claim, and a claim
#: no proof could be made of, count as rejected), and the mean proof's lines, bytes and
#: check time over the rows proved.
CERTIFIED_COLUMNS = ["proved", "rejected", "mean_proof_lines", "mean_proof_bytes", "mean_check_s"]

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
    "vs_baseline_low": ("lo", "ratio"),
    "vs_baseline_high": ("hi", "ratio"),
    "ratio_low": ("lo", "ratio"),
    "ratio_high": ("hi", "ratio"),
    "p_value": ("p (Wilcoxon)", "number"),
    "verdict": ("verdict", "text"),
    "censored": ("timeouts (censored)", "int"),
    "spread": ("repeat spread", "percent"),
    "spread_over_10pct": ("spread > 10%", "percent"),
    "mean_low_s": ("mean lo ms", "ms"),
    "mean_high_s": ("mean hi ms", "ms"),
    "median_low_s": ("median lo ms", "ms"),
    "median_high_s": ("median hi ms", "ms"),
    "old_mean_s": ("old mean ms", "ms"),
    "new_mean_s": ("new mean ms", "ms"),
    "ratio": ("old/new", "ratio"),
    "old_median_s": ("old median ms", "ms"),
    "new_median_s": ("new median ms", "ms"),
    "old_solved": ("old solved", "int"),
    "new_solved": ("new solved", "int"),
    "mean_cpu_s": ("mean CPU ms", "ms"),
    "mean_cpu_low_s": ("CPU lo ms", "ms"),
    "mean_cpu_high_s": ("CPU hi ms", "ms"),
    "peak_mb": ("peak MB", "number"),
    "proved": ("proved", "int"),
    "rejected": ("rejected", "int"),
    "mean_proof_lines": ("proof lines", "number"),
    "mean_proof_bytes": ("proof bytes", "number"),
    "mean_check_s": ("check ms", "ms"),
    "certified": ("certified", "text"),
}


def _sql_list(values: Iterable[str]) -> str:
    return ", ".join(f"'{v}'" for v in values)


#: Whether a row is wrong (see the module's notes), in SQL: 1 or 0.
WRONG_SQL = (
    "(COALESCE(verified = 0, 0) OR ((COALESCE(agrees = 0, 0) OR COALESCE(proved = 0, 0))"
    f" AND status IN ({_sql_list(CONCLUSIVE)})))"
)
_ANSWERED_SQL = _sql_list(ANSWERED)


def _linear(ranked: Mapping[int, float], n: int, q: float) -> float:
    """numpy's linear percentile ``q`` (0..1) of ``n`` sorted values, from the values at
    the two ranks around it (``ranked``: rank from 0 to value)."""
    h = (n - 1) * q
    low = math.floor(h)
    high = min(low + 1, n - 1)
    t = h - low
    a, b = ranked[low], ranked[high]
    # numpy's _lerp: from the nearer end, so that equal ends give exactly that value
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t


def quantiles(
    rows: Rows, select: str, groups: int, qs: Sequence[float]
) -> dict[tuple[Any, ...], list[float]]:
    """Per group, numpy's linear percentiles ``qs`` (0..1) of a value.

    ``select`` is a query over ``{rows}`` giving ``groups`` key columns ``g1``, ``g2``,
    ... and the value ``x`` (NULL values are left out). The values are numbered per
    group in SQL (SQLite sorts them, spilling to disk when they are many) and only the
    two around each percentile are read.
    """
    keys = [f"g{i + 1}" for i in range(groups)]
    on = " AND ".join(f"r.{k} IS n.{k}" for k in keys)
    # the ranks around each percentile, and one more each side (no rounding can miss one)
    near = " OR ".join(f"r.k - CAST((n.n - 1) * {q!r} AS INTEGER) BETWEEN -1 AND 2" for q in qs)
    sql = (
        f"WITH v AS (SELECT {', '.join(keys)}, x FROM ({select}) WHERE x IS NOT NULL),"
        f" n AS (SELECT {', '.join(keys)}, COUNT(*) AS n FROM v GROUP BY {', '.join(keys)}),"
        f" r AS (SELECT {', '.join(keys)}, x, ROW_NUMBER() OVER (PARTITION BY"
        f" {', '.join(keys)} ORDER BY x) - 1 AS k FROM v)"
        f" SELECT {', '.join(f'r.{k}' for k in keys)}, n.n, r.k, r.x FROM r JOIN n ON {on}"
        f" WHERE {near}"
    )
    found: dict[tuple[Any, ...], tuple[int, dict[int, float]]] = {}
    for *key, n, k, x in rows.query(sql):
        found.setdefault(tuple(key), (n, {}))[1][k] = x
    return {key: [_linear(ranked, n, q) for q in qs] for key, (n, ranked) in found.items()}


def _float(value: Any) -> float:
    return np.nan if value is None else float(value)


def summary(results: Rows | pd.DataFrame, baseline: str | None = None) -> pd.DataFrame:
    """One row per (set, backend): counts by status, times, counters, speed vs a baseline.

    Columns (times in seconds, fractions in 0..1): ``set``, ``backend``, ``puzzles``
    (distinct puzzles), ``runs`` (rows, repeats included), ``solved``, ``unsolvable``,
    ``multiple``, ``timeouts``, ``errors``, ``invalid``, ``wrong`` (see the module's
    notes), ``mean_s`` and ``median_s`` (each with ``_low_s`` and ``_high_s``: its 95%
    interval, a bootstrap over the puzzles, each puzzle the median of its repeats and a
    timeout counted at its stop; :mod:`.stats`), ``p90_s``, ``p99_s``, ``max_s``, ``total_s``,
    ``spread`` and ``spread_over_10pct`` (with repeats: the median over puzzles of the
    repeats' median absolute deviation over their median, and the share of puzzles above
    10%; NaN without repeats),
    ``puzzles_per_s`` (rows / total time), ``mean_nodes``, ``mean_guesses`` (NaN for
    backends without them), ``under_100ms``, ``under_500ms``, ``under_1s`` (fraction of
    rows solved in less than the bound), ``mean_cpu_s`` with ``mean_cpu_low_s`` and
    ``mean_cpu_high_s`` (the CPU time per puzzle, its 95% interval as for the wall time's,
    over the rows whose CPU time was measured; NaN when none was), ``peak_mb`` (the
    largest peak memory of the worker processes over the rows, in MB: each row's is its
    worker's high-water mark so far, not the row's own; NaN when not measured); when some
    row has a proof (``bench --certify``), :data:`CERTIFIED_COLUMNS`; and with
    a ``baseline`` backend label
    ``vs_baseline``: the baseline's mean time on the same set over this row's (above 1:
    faster than the baseline; NaN where the baseline did not run that set; on the puzzles
    both answered, each puzzle the median of its repeats, where there are such), with
    ``vs_baseline_low`` and ``vs_baseline_high``, its 95% interval (a paired bootstrap over
    the puzzles both answered, :mod:`.stats`). Times cover
    every row, repeats, timeouts and errors included. Sets come in order of first
    appearance, and within a set the backends likewise. Computed in SQL where the rows
    are: ``results`` is a store's :class:`~.store.Rows` or a DataFrame of rows.
    """
    rows = Rows.of(results)
    if baseline is not None:
        known = [rows.name(b) for (b,) in rows.query(
            "SELECT backend FROM {rows} GROUP BY backend ORDER BY MIN(seq)"
        )]  # fmt: skip
        if baseline not in known:
            raise ValueError(
                f"baseline {baseline!r} is not among the backends: {', '.join(map(str, known))}"
            )
    frame = rows.tables.get("summary")
    if frame is None:
        frame = rows.tables["summary"] = _summary(rows)
    frame = frame.copy()
    if baseline is not None:
        base = frame.loc[frame["backend"] == baseline].set_index("set")["mean_s"]
        ratio = frame["set"].map(base) / frame["mean_s"]
        frame["vs_baseline"] = ratio.replace([np.inf, -np.inf], np.nan)
        from . import stats

        tests = stats.paired_baseline(rows, baseline)
        keys = list(zip(frame["set"], frame["backend"], strict=True))
        # paired on the puzzles both answered (each the median of its repeats) where the
        # rows allow: the same estimate as its interval, robust to one slow repeat
        paired = [tests[k].ratio.estimate if k in tests else np.nan for k in keys]
        frame["vs_baseline"] = frame["vs_baseline"].where(np.isnan(paired), paired)
        frame["vs_baseline_low"] = [tests[k].ratio.low if k in tests else np.nan for k in keys]
        frame["vs_baseline_high"] = [tests[k].ratio.high if k in tests else np.nan for k in keys]
    return frame


def _summary(rows: Rows) -> pd.DataFrame:
    """:func:`summary` without a baseline, in SQL."""
    counts = ", ".join(f"TOTAL(status = '{status}')" for status in STATUS_COLUMNS)
    under = ", ".join(
        f"TOTAL(status IN ({_ANSWERED_SQL}) AND time < {bound!r})" for bound in BOUNDS
    )
    grouped = rows.query(
        f'SELECT "set", backend, COUNT(DISTINCT idx), COUNT(*), {counts}, TOTAL({WRONG_SQL}),'
        " AVG(time), MAX(time), TOTAL(time), COUNT(time), AVG(nodes), AVG(guesses),"
        f" {under}, MAX(peak_mb), TOTAL(proved = 1), TOTAL(proved = 0), COUNT(proved),"
        " AVG(proof_lines), AVG(proof_bytes), AVG(check_time),"
        ' MIN(MIN(seq)) OVER (PARTITION BY "set") AS first_set,'
        " MIN(MIN(seq)) OVER (PARTITION BY backend) AS first_backend"
        ' FROM {rows} GROUP BY "set", backend ORDER BY first_set, first_backend'
    )
    spread = quantiles(
        rows, 'SELECT "set" AS g1, backend AS g2, time AS x FROM {rows}', 2, (0.5, 0.9, 0.99)
    )
    records = []
    certified = any(record[20 + len(BOUNDS)] for record in grouped)
    for record in grouped:
        set_name, backend, puzzles, runs = record[:4]
        statuses = record[4 : 4 + len(STATUS_COLUMNS)]
        wrong, mean, most, total, timed, nodes, guesses = record[10:17]
        within = record[17 : 17 + len(BOUNDS)]
        peak = record[17 + len(BOUNDS)]
        proved, rejected, _, lines, size, check = record[18 + len(BOUNDS) : 24 + len(BOUNDS)]
        median, p90, p99 = spread.get((set_name, backend), (np.nan,) * 3)
        set_name, backend = rows.name(set_name), rows.name(backend)
        total_s = float(total) if timed else np.nan
        records.append(
            {
                "set": set_name,
                "backend": backend,
                "puzzles": int(puzzles),
                "runs": int(runs),
                **{c: int(n) for c, n in zip(STATUS_COLUMNS.values(), statuses, strict=True)},
                "wrong": int(wrong),
                "mean_s": _float(mean),
                "median_s": float(median),
                "p90_s": float(p90),
                "p99_s": float(p99),
                "max_s": _float(most),
                "total_s": total_s,
                "puzzles_per_s": runs / total_s if total_s > 0 else np.nan,
                "mean_nodes": _float(nodes),
                "mean_guesses": _float(guesses),
                **{_bound_column(b): float(n) / runs for b, n in zip(BOUNDS, within, strict=True)},
                "peak_mb": _float(peak),
                "proved": int(proved),
                "rejected": int(rejected),
                "mean_proof_lines": _float(lines),
                "mean_proof_bytes": _float(size),
                "mean_check_s": _float(check),
            }
        )
    columns = SUMMARY_COLUMNS + CERTIFIED_COLUMNS * certified
    frame = pd.DataFrame(records, columns=columns)
    from . import stats

    bounds = stats.intervals(rows).set_index(["set", "backend"])
    keys = pd.MultiIndex.from_arrays([frame["set"], frame["backend"]])
    for column in (
        "mean_low_s", "mean_high_s", "median_low_s", "median_high_s", "spread",
        "spread_over_10pct",
    ):  # fmt: skip
        frame[column] = bounds[column].reindex(keys).to_numpy(dtype=float)
    cpu = stats.cpu_intervals(rows).set_index(["set", "backend"])
    for column in ("mean_cpu_s", "mean_cpu_low_s", "mean_cpu_high_s"):
        frame[column] = cpu[column].reindex(keys).to_numpy(dtype=float)
    return frame


def byte_size(size: float) -> str:
    """Bytes as people read them: ``560 B``, ``56.1 kB``, ``1.23 MB`` (powers of 1000)."""
    for unit, scale in (("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{significant(size / scale)} {unit}"
    return f"{size:.0f} B"


def certified_text(proved: int, rejected: int, lines: float, size: float, check: float) -> str:
    """The certified column of a terminal table: how many proofs were accepted (and
    rejected), then the mean proof's lines, bytes and check time, as in
    ``12 proved: 1,234 l / 56.1 kB / 12.3 ms``; "" when nothing was proved."""
    if not proved and not rejected:
        return ""
    text = f"{proved} proved" + (f", {rejected} rejected" if rejected else "")
    if lines == lines:  # NaN: no proof at all (only refuted claims)
        text += f": {lines:,.0f} l / {byte_size(size)} / {significant(check * 1000)} ms"
    return text


def compact_certified(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with :data:`CERTIFIED_COLUMNS` as one ``certified`` text column, in
    their place (a terminal table's width); as it is without them."""
    if "proved" not in frame:
        return frame
    texts = [
        certified_text(*values)
        for values in frame[CERTIFIED_COLUMNS].itertuples(index=False, name=None)
    ]
    at = list(frame.columns).index("proved")
    frame = frame.drop(columns=CERTIFIED_COLUMNS)
    frame.insert(at, "certified", texts)
    return frame


def _ordered(keys: Iterable[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """(set, backend) pairs, sets in order of first appearance, then backends likewise."""
    keys = list(dict.fromkeys(keys))
    sets = {s: i for i, s in enumerate(dict.fromkeys(s for s, _ in keys))}
    backends = {b: i for i, b in enumerate(dict.fromkeys(b for _, b in keys))}
    return sorted(keys, key=lambda k: (sets[k[0]], backends[k[1]]))


def _paired(tests: Mapping[Any, Any], keys: list[Any], field: str, rows: pd.Series) -> Any:
    """A paired statistic per key (``mean_a``, ``mean_b`` or ``ratio``'s estimate) where
    the two sides share puzzles, else the all-rows value."""
    fallback = rows.replace([np.inf, -np.inf], np.nan).to_numpy(dtype=float)
    out = fallback.copy()
    for i, k in enumerate(keys):
        test = tests.get(k)
        if test is not None and test.puzzles:
            value = getattr(test, field)
            out[i] = value.estimate if field == "ratio" else value
    return out


def _means(rows: Rows) -> pd.DataFrame:
    """Per (set, backend): ``mean_s``, ``median_s`` and ``solved`` over every row, as
    :func:`summary` has them, without its intervals (the summary's when it was made)."""
    keep = ["mean_s", "median_s", "solved"]
    made = rows.tables.get("summary")
    if made is not None:
        return made.set_index(["set", "backend"])[keep]
    grouped = rows.query(
        "SELECT \"set\", backend, AVG(time), TOTAL(status = 'solved') FROM {rows}"
        ' GROUP BY "set", backend ORDER BY MIN(seq)'
    )
    medians = quantiles(rows, 'SELECT "set" AS g1, backend AS g2, time AS x FROM {rows}', 2, (0.5,))
    return pd.DataFrame(
        [
            (rows.name(s), rows.name(b), _float(mean), medians.get((s, b), [np.nan])[0], int(n))
            for s, b, mean, n in grouped
        ],
        columns=["set", "backend", *keep],
    ).set_index(["set", "backend"])


def compare(old_results: Rows | pd.DataFrame, new_results: Rows | pd.DataFrame) -> pd.DataFrame:
    """Two runs side by side per (set, backend): mean and median times, solved counts.

    Columns: ``set``, ``backend``, ``old_mean_s``, ``new_mean_s`` (the mean time per
    puzzle on the puzzles both runs answered, each puzzle the median of its repeats, so
    one slow repeat does not swing it; a pair without such puzzles: the mean of every
    row), ``ratio`` (old mean over new mean: above 1 the new run is faster),
    ``ratio_low`` and ``ratio_high`` (its 95% interval, a paired bootstrap over the
    puzzles both runs answered), ``p_value`` (the Wilcoxon signed-rank test on those
    puzzles) and ``verdict`` ("new faster than
    old by 1.31x (1.22x-1.40x), significant (...)" or "no significant difference: ..."; see
    :mod:`.stats`), ``old_median_s``, ``new_median_s``, ``old_solved``, ``new_solved``. A
    pair that ran in only one of the two has NaN for the other. Order: as
    :func:`summary`, the old run's pairs first.
    """
    from . import stats

    old, new = _means(Rows.of(old_results)), _means(Rows.of(new_results))
    keys = _ordered([*old.index, *new.index])
    old, new = old.reindex(keys), new.reindex(keys)
    tests = stats.paired_runs(new_results, old_results)
    frame = pd.DataFrame(
        {
            "set": [s for s, _ in keys],
            "backend": [b for _, b in keys],
            "old_mean_s": _paired(tests, keys, "mean_b", old["mean_s"]),
            "new_mean_s": _paired(tests, keys, "mean_a", new["mean_s"]),
            "ratio": _paired(tests, keys, "ratio", old["mean_s"] / new["mean_s"]),
            "ratio_low": [tests[k].ratio.low if k in tests else np.nan for k in keys],
            "ratio_high": [tests[k].ratio.high if k in tests else np.nan for k in keys],
            "p_value": [tests[k].p_value if k in tests else np.nan for k in keys],
            "verdict": [tests[k].verdict("new", "old") if k in tests else "" for k in keys],
            "old_median_s": old["median_s"].to_numpy(),
            "new_median_s": new["median_s"].to_numpy(),
            "old_solved": old["solved"].to_numpy(),
            "new_solved": new["solved"].to_numpy(),
        }
    )
    return frame


@dataclass(frozen=True)
class Outcome:
    """What a run's rows found, for its closing line and exit status: the rows by how they
    ended (a wrong row counted only as wrong), and the (set, backend) pairs with a
    timeout. A timeout, no solution or several solutions is a result of a bench; a wrong
    answer or an error is a failure of it."""

    rows: int
    solved: int
    unsolvable: int
    multiple: int
    timeouts: int
    errors: int
    wrong: int
    invalid: int
    timeout_pairs: int

    @classmethod
    def of(cls, results: Rows | pd.DataFrame) -> Outcome:
        """Counted in SQL where the rows are."""
        rows = Rows.of(results)
        right = f"AND NOT {WRONG_SQL}"
        counts = rows.query(
            f"SELECT COUNT(*), TOTAL(status = 'solved' {right}),"
            f" TOTAL(status = 'unsolvable' {right}), TOTAL(status = 'multiple' {right}),"
            f" TOTAL(status = 'timeout'), TOTAL(status = 'error' {right}), TOTAL({WRONG_SQL}),"
            f" TOTAL(status = 'invalid' {right}) FROM {{rows}}"
        )[0]
        (pairs,) = rows.query(
            "SELECT COUNT(*) FROM (SELECT 1 FROM {rows} WHERE status = 'timeout'"
            ' GROUP BY "set", backend)'
        )[0]
        return cls(*(int(n) for n in counts), timeout_pairs=int(pairs))

    def failed(self, fail_on: Iterable[str] = ()) -> int:
        """The rows that fail the run: wrong answers and errors, and the rows of the
        statuses ``fail_on`` names (``timeout``, ``unsolvable``, ``multiple``)."""
        asked = set(fail_on)
        return (
            self.wrong
            + self.errors
            + self.timeouts * ("timeout" in asked)
            + self.unsolvable * ("unsolvable" in asked)
            + self.multiple * ("multiple" in asked)
        )

    def line(self) -> str:
        """What the run found, in one line: ``1,986 rows: 1,963 solved, 23 timeouts in 5
        pairs, 0 wrong`` (the counts that are not zero, and always the wrong ones)."""
        parts = [f"{self.solved:,} solved"]
        for count, word in (
            (self.unsolvable, "with no solution"),
            (self.multiple, "with several solutions"),
            (self.invalid, "invalid"),
            (self.errors, "errors" if self.errors != 1 else "error"),
        ):
            if count:
                parts.append(f"{count:,} {word}")
        if self.timeouts:
            pairs = "pair" if self.timeout_pairs == 1 else "pairs"
            timeouts = "timeouts" if self.timeouts != 1 else "timeout"
            parts.append(f"{self.timeouts:,} {timeouts} in {self.timeout_pairs} {pairs}")
        parts.append(f"{self.wrong:,} wrong")
        return f"{self.rows:,} rows: " + ", ".join(parts)


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
    missing values; ``markdown`` and ``html`` escape every cell (:func:`markdown_text`),
    so a set's name is text in a page, never markup. ``csv`` and ``json`` (a list of
    records, NaN as null) keep the frame's own column names and units so that they read
    back exactly. A named index becomes columns.
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
    if fmt == "markdown":
        cells = [[markdown_text(c) for c in row] for row in cells]

    from tabulate import tabulate

    text = tabulate(
        cells,
        headers=headers,
        tablefmt="simple" if fmt == "table" else "pipe",
        colalign=aligns,
        disable_numparse=True,
    )
    return str(text) + "\n"


#: Characters that may start markup inside a line of Markdown (GitHub's and
#: Python-Markdown's: code, emphasis, links and images, table cells, strikethrough),
#: escaped with a backslash in Markdown text.
_MARKDOWN = re.compile(r"([\\`*_\[\]|~])")


def markdown_text(text: object) -> str:
    """A text as Markdown that shows it as it is: HTML's ``&``, ``<`` and ``>`` as
    entities (no tag, attribute or script passes), Markdown's punctuation escaped, lines
    joined.

    >>> print(markdown_text("<img src=x onerror=alert(1)> *a|b* [x](y)"))
    &lt;img src=x onerror=alert(1)&gt; \\*a\\|b\\* \\[x\\](y)
    """
    flat = " ".join(str(text).splitlines())
    return html.escape(_MARKDOWN.sub(r"\\\1", flat), quote=False)


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
    """A Markdown bullet per run in the results: its machine, when, and its arguments
    (every text escaped: a set's name is the user's)."""
    if "run_id" in runs and run_ids:
        runs = runs[runs["run_id"].isin(run_ids)]
    lines = []
    for _, run in runs.iterrows():
        when = [f"{key} {run[key]}" for key in ("started", "finished") if _present(run.get(key))]
        name = f"run {run['run_id']}: " if _present(run.get("run_id")) else ""
        line = "- " + markdown_text(
            f"{name}{machine_text(run)}" + (f" ({', '.join(when)})" if when else "")
        )
        args = _loads(run.get("args")) if _present(run.get("args")) else None
        if args is not None:
            text = json.dumps(args) if not isinstance(args, str) else args
            line += f"; arguments {markdown_text(text)}"
        executors = _loads(run.get("executors")) if _present(run.get("executors")) else None
        if isinstance(executors, list) and executors:
            line += "; ran on " + markdown_text(", then ".join(map(_executor_text, executors)))
        lines.append(line)
    return lines or ["- machine unknown: no run record"]


def _host(worker: str | None) -> str | None:
    """The host of a row's worker, "host:pid" (or "host" alone)."""
    if worker is None:
        return None
    host, colon, pid = str(worker).rpartition(":")
    return host if colon and pid.isdigit() else str(worker)


def _with_host(rows: Rows) -> Rows:
    rows.db.create_function(
        "sudokulab_host", 1, lambda worker: _host(rows.name(worker)), deterministic=True
    )
    return rows


def by_host(results: Rows | pd.DataFrame) -> pd.DataFrame | None:
    """Per backend and host (from the rows' ``worker``, "host:pid"): rows, mean and median
    ms per row, sorted by backend and host; None when every row ran on one host (or the
    rows do not say)."""
    rows = _with_host(Rows.of(results))
    hosts = rows.query(
        "SELECT COUNT(DISTINCT sudokulab_host(worker)) FROM {rows} WHERE worker IS NOT NULL"
    )[0][0]
    if hosts < 2:
        return None
    select = (
        "SELECT backend AS g1, sudokulab_host(worker) AS g2, time * 1000.0 AS x FROM {rows}"
        " WHERE worker IS NOT NULL"
    )
    medians = quantiles(rows, select, 2, (0.5,))
    table = rows.query(f"SELECT g1, g2, COUNT(*), AVG(x) FROM ({select}) GROUP BY g1, g2")
    found = [
        (rows.name(backend), host, int(n), _float(mean), medians.get((backend, host), [np.nan])[0])
        for backend, host, n, mean in table
    ]
    return pd.DataFrame(
        sorted(found, key=lambda r: (str(r[0]), str(r[1]))),
        columns=["backend", "host", "rows", "mean ms", "median ms"],
    )


def by_grade(
    results: Rows | pd.DataFrame, ratings: pd.DataFrame | None = None
) -> pd.DataFrame | None:
    """Per backend and grade (the logic solver's rating of each row's puzzle, from
    ``bench --rate``): rows, mean and median ms per row, mean guesses; the grades easiest
    first. None when no row's puzzle is rated. The ratings are a store's (with its
    :class:`~.store.Rows`) or ``ratings``, a DataFrame (with a DataFrame of rows)."""
    if isinstance(results, pd.DataFrame):
        if ratings is None or ratings.empty:
            return None
        rows = Rows.of(results, ratings)
    else:
        rows = results
    if rows.ratings is None:
        return None
    from ..logic.ladder import GRADES

    order = [*GRADES, "no solution", "not rated"]
    rank = " ".join(f"WHEN '{g}' THEN {i}" for i, g in enumerate(order))
    select = (
        "SELECT r.backend AS g1, COALESCE(g.grade, 'not rated') AS g2, r.time * 1000.0 AS x,"
        f" r.guesses AS guesses, r.seq AS seq FROM {{rows}} r LEFT JOIN {rows.ratings} g"
        " ON g.puzzle = r.puzzle"
    )
    rated = rows.query(f"SELECT COUNT(*) FROM ({select}) WHERE g2 != 'not rated'")[0][0]
    if not rated:
        return None
    medians = quantiles(rows, select, 2, (0.5,))
    table = rows.query(
        f"SELECT g1, g2, COUNT(*), AVG(x), AVG(guesses), MIN(MIN(seq)) OVER (PARTITION BY g1)"
        f" AS first, CASE g2 {rank} END AS grade_rank FROM ({select})"
        f" WHERE g2 IN ({_sql_list(order)}) GROUP BY g1, g2 ORDER BY first, grade_rank"
    )
    return pd.DataFrame(
        [
            (
                rows.name(backend),
                grade,
                int(n),
                _float(mean),
                medians[backend, grade][0],
                _float(guesses),
            )  # fmt: skip
            for backend, grade, n, mean, guesses, _, _ in table
        ],
        columns=["backend", "grade", "rows", "mean ms", "median ms", "mean guesses"],
    )


def wrong_listing(
    results: Rows | pd.DataFrame, limit: int = WRONG_SHOWN
) -> tuple[pd.DataFrame, int]:
    """The first ``limit`` rows counted as wrong (the columns of :data:`WRONG_COLUMNS`),
    in order, and how many there are in all."""
    rows = Rows.of(results)
    names = ", ".join(f'"{c}"' for c in WRONG_COLUMNS)
    listed = rows.query(
        f"SELECT {names} FROM {{rows}} WHERE {WRONG_SQL} ORDER BY seq LIMIT ?", (limit,)
    )
    total = rows.query(f"SELECT COUNT(*) FROM {{rows}} WHERE {WRONG_SQL}")[0][0]
    frame = pd.DataFrame(listed, columns=list(WRONG_COLUMNS))
    for column in ("set", "backend"):
        frame[column] = [rows.name(v) for v in frame[column]]
    for flag in ("verified", "agrees"):
        frame[flag] = [None if v is None else bool(v) for v in frame[flag]]
    return frame, int(total)


def markdown_report(
    results: Rows | pd.DataFrame,
    runs: pd.DataFrame,
    baseline: str | None = None,
    plots: dict[str, str] | None = None,
    ratings: pd.DataFrame | None = None,
) -> str:
    """A whole bench report in Markdown: the machines, the summary table, the plots.

    ``runs`` may hold more runs than ``results`` used: only those in ``results`` are
    listed. ``plots`` maps a caption to a file path, shown as an image when it is a PNG
    or SVG file and linked otherwise. Rows counted as wrong are listed under the table
    (the first :data:`WRONG_SHOWN`, and how many more). With ratings (a store's rows
    after ``bench --rate``, or ``ratings`` with a DataFrame) the times are also shown by
    human difficulty. Every text from the rows is escaped (:func:`markdown_text`).
    """
    rows = Rows.of(results, ratings)
    run_ids = {r for (r,) in rows.query("SELECT DISTINCT run_id FROM {rows}") if r is not None}
    table = summary(rows, baseline)
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
        f"included; {TIMEOUT_RULE}. *wrong*: a solution the verifier rejected, or a "
        "verdict the other backends did not reach. *< 0.1 s* and the like: the share of "
        "rows solved in less than that time.",
    ]
    if baseline is not None:
        lines[-1] += (
            f" *vs baseline*: {markdown_text(baseline)}'s mean time over this backend's "
            "on the puzzles both answered (above 1: faster), with its 95% interval."
        )
    lines[-1] += (
        " *lo*, *hi*: 95% intervals, by a bootstrap over the puzzles (each puzzle the "
        "median of its repeats; a timeout counted at its stop, so the estimates are then "
        "lower bounds)."
    )
    lines[-1] += " " + MEASURED_NOTE
    if "proved" in table:
        lines[-1] += " " + CERTIFIED_NOTE
    from . import stats

    if baseline is not None:
        verdicts = stats.compare(rows, baseline=baseline)
        if len(verdicts):
            lines += [
                "",
                f"## Against {markdown_text(baseline)}, puzzle by puzzle",
                "",
                render(verdicts[["set", "a", "b", "puzzles", "verdict"]], "markdown").rstrip("\n"),
                "",
                "Paired on the puzzles both answered: the ratio of mean times with its "
                "bootstrap interval, and the Wilcoxon signed-rank test on the differences of "
                f"log times; significant when p < {stats.ALPHA} and the interval excludes 1.",
            ]
    hosts = by_host(rows)
    if hosts is not None:
        lines += ["", "## By host", "", render(hosts, "markdown").rstrip("\n")]
    grades = by_grade(rows)
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
    wrong, total = wrong_listing(rows)
    if total:
        lines += ["", "## Wrong answers", "", render(wrong, "markdown").rstrip("\n")]
        if total > len(wrong):
            lines += [
                "",
                f"The first {len(wrong)} of {total} wrong rows; the store has every one "
                f"(the rows of `results` where `{WRONG_SQL}`).",
            ]
    if plots:
        lines += ["", "## Plots", ""]
        for caption, path in plots.items():
            is_image = str(path).lower().endswith((".png", ".svg"))
            target = quote(str(path), safe="/:._-~")
            lines.append(f"{'!' if is_image else '- '}[{markdown_text(caption)}]({target})")
            if is_image:
                lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


#: The page around an HTML report: plain, readable, printable; no script, no outside file.
_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 80em; padding: 0 1em; }}
table {{ border-collapse: collapse; font-size: 0.9em; margin: 1em 0; }}
th, td {{ border-bottom: 1px solid #ccc; padding: 0.2em 0.6em; white-space: nowrap; }}
.wide {{ overflow-x: auto; }}
figure {{ margin: 2em 0; }}
figure img {{ max-width: 100%; height: auto; }}
p.note {{ color: #444; max-width: 60em; }}
</style>
</head>
<body>
{body}
</body>
</html>
"""


def _plain(note: str) -> str:
    """A note of the Markdown report as plain text: no emphasis marks."""
    return note.replace("*", "")


def html_report(
    results: Rows | pd.DataFrame,
    runs: pd.DataFrame,
    baseline: str | None = None,
    images: Mapping[str, str | Path] | None = None,
    ratings: pd.DataFrame | None = None,
) -> str:
    """A whole bench report as one HTML page: the machines, the summary table, the
    comparisons, and the plots embedded in the page (``images`` maps a caption to a PNG
    or SVG file, read and put inline as a base64 ``data:`` URL), so the file is the
    whole report, to mail or archive. Every text from the rows is escaped."""
    import base64

    rows = Rows.of(results, ratings)
    run_ids = {r for (r,) in rows.query("SELECT DISTINCT run_id FROM {rows}") if r is not None}
    esc = html.escape
    body = ["<h1>sudokulab bench report</h1>", "<ul>"]
    shown = runs[runs["run_id"].isin(run_ids)] if "run_id" in runs and run_ids else runs
    for _, run in shown.iterrows():
        when = [f"{k} {run[k]}" for k in ("started", "finished") if _present(run.get(k))]
        name = f"run {run['run_id']}: " if _present(run.get("run_id")) else ""
        text = f"{name}{machine_text(run)}" + (f" ({', '.join(when)})" if when else "")
        executors = _loads(run.get("executors")) if _present(run.get("executors")) else None
        if isinstance(executors, list) and executors:
            text += "; ran on " + ", then ".join(map(_executor_text, executors))
        body.append(f"<li>{esc(text)}</li>")
    body.append("</ul>")

    def section(title: str, frame: pd.DataFrame, note: str = "") -> None:
        body.extend([f"<h2>{esc(title)}</h2>", '<div class="wide">', render(frame, "html")])
        body.append("</div>")
        if note:
            body.append(f'<p class="note">{esc(note)}</p>')

    table = summary(rows, baseline)
    section(
        "Summary",
        table,
        "Times are wall time per row (model build + solve) over every row, repeats "
        f"included; {TIMEOUT_RULE}. lo, hi: 95% intervals, by a bootstrap over the puzzles "
        "(each puzzle the median of its repeats). "
        + _plain(MEASURED_NOTE)
        + (" " + _plain(CERTIFIED_NOTE) if "proved" in table else ""),
    )
    from . import stats

    if baseline is not None:
        verdicts = stats.compare(rows, baseline=baseline)
        if len(verdicts):
            section(
                f"Against {baseline}, puzzle by puzzle",
                verdicts[["set", "a", "b", "puzzles", "verdict"]],
                "Paired on the puzzles both answered: the ratio of mean times with its "
                "bootstrap interval, and the Wilcoxon signed-rank test on the differences "
                f"of log times; significant when p < {stats.ALPHA} and the interval "
                "excludes 1.",
            )
    hosts = by_host(rows)
    if hosts is not None:
        section("By host", hosts)
    grades = by_grade(rows)
    if grades is not None:
        section("By difficulty", grades, "Grades are the logic solver's rating of each puzzle.")
    wrong, total = wrong_listing(rows)
    if total:
        more = f"The first {len(wrong)} of {total} wrong rows." if total > len(wrong) else ""
        section("Wrong answers", wrong, more)
    if images:
        body.append("<h2>Plots</h2>")
        for caption, path in images.items():
            kind = "svg+xml" if str(path).lower().endswith(".svg") else "png"
            data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
            body.append(
                f'<figure><img alt="{esc(caption)}" src="data:image/{kind};base64,{data}">'
                f"<figcaption>{esc(caption)}</figcaption></figure>"
            )
    return _PAGE.format(title="sudokulab bench report", body="\n".join(body))
