"""Comparisons that hold up: confidence intervals and paired tests, the puzzle the unit.

A run's times move by 10-30% from one run to the next on a shared machine, so a mean alone
cannot tell a real difference from noise. Here every statistic treats the *puzzle* as the
unit of observation:

- a puzzle's time is the median of its repeats (``bench --repeats K``);
- an interval resamples puzzles: a bootstrap (percentile method, 95% by default,
  :data:`RESAMPLES` resamples, a fixed seed, so a report says the same twice) of the mean
  or the median over a set;
- two backends, or two runs, are compared on the puzzles both have (*paired*): by the
  ratio of their mean times, with its paired bootstrap interval, and by the Wilcoxon
  signed-rank test (scipy) on the per-puzzle differences of log times, which asks whether
  one is faster by some factor on most puzzles. The verdict is *significant* when the test
  says so (p below :data:`ALPHA`) and the interval excludes 1; else "no significant
  difference".

Timeouts are *censored* values: a puzzle stopped at its deadline counts at the time it
was stopped (a lower bound of its real time), never dropped. A mean over censored values
is then a lower bound itself: the tables count the censored puzzles and the verdicts say
how many there were. Rows with an error or an invalid puzzle carry no time to compare and
are left out (the summary counts them).

Memory stays bounded: a set larger than :data:`MAX_PUZZLES` is sampled evenly (every
k-th puzzle by index, the same puzzles for every backend and run), so the intervals of
a run of millions of puzzles need no more than that many times in memory at once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .store import Rows

if TYPE_CHECKING:
    import pandas as pd

#: The confidence of every interval, the resamples of a bootstrap and its seed.
CONFIDENCE = 0.95
RESAMPLES = 1000
SEED = 20260
#: The significance level of the paired test.
ALPHA = 0.05
#: Puzzles of one (set, backend) read for the statistics at most (an even sample beyond).
MAX_PUZZLES = 5_000
#: The statuses whose rows carry a time to compare (``timeout``'s is censored).
TIMED = ("solved", "unsolvable", "multiple", "timeout")
#: A time of 0 (a clock's tick) taken as this many seconds in the log-time test.
FLOOR_S = 1e-9


@dataclass(frozen=True)
class Times:
    """One (set, backend)'s time per puzzle: the puzzles' indices (ascending), the median
    of each one's repeats, whether that median is a timeout's (censored), and the spread
    of its repeats: their median absolute deviation over their median (NaN for a puzzle
    with one repeat)."""

    idx: np.ndarray
    seconds: np.ndarray
    censored: np.ndarray
    spread: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.idx)


@dataclass(frozen=True)
class Interval:
    """An estimate and its confidence interval (NaN bounds when there are too few values
    to resample)."""

    estimate: float
    low: float
    high: float


def puzzle_times(rows: Rows | pd.DataFrame) -> dict[tuple[Any, Any], Times]:
    """Each (set, backend)'s :class:`Times`, in order of first appearance, read one group
    at a time (at most :data:`MAX_PUZZLES` puzzles each)."""
    rows = Rows.of(rows)
    cached = rows.tables.get("puzzle_times")
    if cached is not None:
        return cached
    statuses = ", ".join(f"'{s}'" for s in TIMED)
    groups = rows.query(
        'SELECT "set", backend, MAX(idx) + 1 FROM {rows}'
        f" WHERE status IN ({statuses}) AND time IS NOT NULL"
        ' GROUP BY "set", backend ORDER BY MIN(seq)'
    )
    sizes: dict[Any, int] = {}
    for set_id, _, n in groups:
        sizes[set_id] = max(sizes.get(set_id, 0), int(n))
    out: dict[tuple[Any, Any], Times] = {}
    for set_id, backend, _ in groups:
        step = max(1, math.ceil(sizes[set_id] / MAX_PUZZLES))
        found = rows.query(
            "SELECT idx, time, status = 'timeout' FROM {rows}"
            f' WHERE "set" IS ? AND backend IS ? AND status IN ({statuses})'
            " AND time IS NOT NULL AND idx % ? = 0 ORDER BY idx, time",
            (set_id, backend, step),
        )
        key = (rows.name(set_id), rows.name(backend))
        out[key] = _medians(found)
    rows.tables["puzzle_times"] = out
    return out


def _medians(found: Sequence[tuple[int, float, int]]) -> Times:
    """Per puzzle (rows sorted by index, then time), the median of its repeats, censored
    when more than half of them timed out (the median is then a stop time)."""
    if not found:
        empty = np.array([], dtype=np.int64)
        nothing = np.array([], dtype=float)
        return Times(empty, nothing, np.array([], dtype=bool), nothing)
    idx = np.array([r[0] for r in found], dtype=np.int64)
    seconds = np.array([r[1] for r in found], dtype=float)
    stopped = np.array([bool(r[2]) for r in found])
    starts = np.flatnonzero(np.r_[True, idx[1:] != idx[:-1]])
    ends = np.r_[starts[1:], len(idx)]
    medians = np.array([np.median(seconds[a:b]) for a, b in zip(starts, ends, strict=True)])
    censored = np.array(
        [stopped[a:b].sum() * 2 > b - a for a, b in zip(starts, ends, strict=True)], dtype=bool
    )
    spread = np.array(
        [
            np.median(np.abs(seconds[a:b] - m)) / m if b - a > 1 and m > 0 else np.nan
            for a, b, m in zip(starts, ends, medians, strict=True)
        ]
    )
    return Times(idx[starts], medians, censored, spread)


def interval(
    values: Sequence[float] | np.ndarray,
    statistic: str = "mean",
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Interval:
    """The ``statistic`` (``mean`` or ``median``) of ``values`` with its bootstrap
    percentile interval, resampling the values (the puzzles)."""
    function = {"mean": np.mean, "median": np.median}.get(statistic)
    if function is None:
        raise ValueError(f"unknown statistic {statistic!r}: choose mean or median")
    values = np.asarray(values, dtype=float)
    if len(values) == 0:
        return Interval(math.nan, math.nan, math.nan)
    estimate = float(function(values))
    if len(values) < 2 or np.all(values == values[0]):
        bound = estimate if len(values) >= 2 else math.nan
        return Interval(estimate, bound, bound)
    low, high = percentile_bootstrap((values,), function, confidence, resamples, seed)
    return Interval(estimate, low, high)


def percentile_bootstrap(
    samples: tuple[np.ndarray, ...],
    statistic: Any,
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> tuple[float, float]:
    """The percentile bootstrap interval of ``statistic(*samples, axis=-1)``, the samples
    resampled together (paired: one draw of puzzles for all of them), in batches of
    :func:`_batch` resamples. What ``scipy.stats.bootstrap(..., method="percentile",
    paired=True)`` computes (a test compares them); written here because importing
    scipy.stats takes longer than a small run's whole report, which always shows
    intervals (scipy is imported for the Wilcoxon test alone)."""
    rng = np.random.default_rng(seed)
    n = len(samples[0])
    batch = _batch(len(samples) * n)
    estimates = []
    for start in range(0, resamples, batch):
        drawn = rng.integers(0, n, size=(min(batch, resamples - start), n))
        estimates.append(statistic(*(sample[drawn] for sample in samples), axis=-1))
    tail = 100 * (1 - confidence) / 2
    low, high = np.percentile(np.concatenate(estimates), [tail, 100 - tail])
    return float(low), float(high)


def _batch(n: int) -> int:
    """Resamples drawn at once: about 4 million values in memory at a time."""
    return max(1, min(RESAMPLES, 4_000_000 // max(1, n)))


@dataclass(frozen=True)
class Paired:
    """A against B on the puzzles both have: ``ratio`` is B's mean time over A's (above 1:
    A is faster) with its interval, ``p_value`` the Wilcoxon signed-rank test's on the
    differences of log times, and how many puzzles were censored on each side."""

    puzzles: int
    mean_a: float
    mean_b: float
    ratio: Interval
    p_value: float
    censored_a: int
    censored_b: int

    @property
    def significant(self) -> bool:
        """The test rejects "no difference" and the ratio's interval excludes 1."""
        r = self.ratio
        return bool(self.p_value < ALPHA and (r.low > 1 or r.high < 1))

    def verdict(self, a: str, b: str) -> str:
        """The comparison in one sentence: "A faster than B by 1.31x (1.22x-1.40x),
        significant (p = 0.001)" or "no significant difference (...)"."""
        r = self.ratio
        if self.puzzles == 0 or math.isnan(r.estimate):
            return "no puzzle in common"
        if r.estimate >= 1:
            fast, slow, x, lo, hi = a, b, r.estimate, r.low, r.high
        else:
            fast, slow, x, lo, hi = b, a, 1 / r.estimate, 1 / r.high, 1 / r.low
        span = "" if math.isnan(lo) else f" ({lo:.2f}x-{hi:.2f}x)"
        p = f"p = {self.p_value:.3g}" if not math.isnan(self.p_value) else "no test"
        censored = [
            f"{name}: {n} timeout{'s' * (n != 1)} counted at the deadline"
            for name, n in ((a, self.censored_a), (b, self.censored_b))
            if n
        ]
        note = "; " + "; ".join(censored) if censored else ""
        if self.significant:
            return f"{fast} faster than {slow} by {x:.2f}x{span}, significant ({p}{note})"
        return f"no significant difference: {fast} by {x:.2f}x{span} ({p}{note})"


def paired(a: Times, b: Times, seed: int = SEED) -> Paired:
    """A against B on the puzzles both have (see :class:`Paired`)."""
    common, ia, ib = np.intersect1d(a.idx, b.idx, assume_unique=True, return_indices=True)
    ta, tb = a.seconds[ia], b.seconds[ib]
    ca, cb = int(a.censored[ia].sum()), int(b.censored[ib].sum())
    n = len(common)
    if n == 0:
        nan = math.nan
        return Paired(0, nan, nan, Interval(nan, nan, nan), nan, ca, cb)
    mean_a, mean_b = float(ta.mean()), float(tb.mean())
    estimate = mean_b / mean_a if mean_a > 0 else math.nan
    ratio = Interval(estimate, math.nan, math.nan)
    if n >= 2 and mean_a > 0 and not (np.all(ta == ta[0]) and np.all(tb == tb[0])):

        def of_means(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
            return np.mean(y, axis=axis) / np.mean(x, axis=axis)

        low, high = percentile_bootstrap((ta, tb), of_means, seed=seed)
        ratio = Interval(estimate, low, high)
    elif n >= 2:
        ratio = Interval(estimate, estimate, estimate)
    differences = np.log(np.maximum(tb, FLOOR_S)) - np.log(np.maximum(ta, FLOOR_S))
    if n < 2 or np.all(differences == 0):
        p_value = 1.0 if n >= 2 else math.nan
    else:
        from scipy.stats import wilcoxon

        p_value = float(wilcoxon(differences, zero_method="wilcox").pvalue)
    return Paired(n, mean_a, mean_b, ratio, p_value, ca, cb)


#: A puzzle's repeats "spread" when their median absolute deviation exceeds this share of
#: their median.
SPREAD = 0.10

INTERVAL_COLUMNS = [
    "set", "backend", "puzzles", "censored", "mean_s", "mean_low_s", "mean_high_s",
    "median_s", "median_low_s", "median_high_s", "spread", "spread_over_10pct",
]  # fmt: skip


def intervals(results: Rows | pd.DataFrame) -> pd.DataFrame:
    """Per (set, backend): the mean and median time per puzzle with their 95% bootstrap
    intervals, how many puzzles are censored (timeouts: the estimates are then lower
    bounds), and with repeats how much they move: ``spread``, the median over puzzles of
    each one's median absolute deviation over its median, and ``spread_over_10pct``, the
    share of puzzles whose spread exceeds :data:`SPREAD` (NaN without repeats)."""
    import pandas as pd

    records = []
    for (set_name, backend), times in puzzle_times(results).items():
        mean = interval(times.seconds, "mean")
        median = interval(times.seconds, "median")
        spread = times.spread[~np.isnan(times.spread)] if times.spread is not None else []
        records.append(
            {
                "set": set_name,
                "backend": backend,
                "puzzles": len(times),
                "censored": int(times.censored.sum()),
                "mean_s": mean.estimate,
                "mean_low_s": mean.low,
                "mean_high_s": mean.high,
                "median_s": median.estimate,
                "median_low_s": median.low,
                "median_high_s": median.high,
                "spread": float(np.median(spread)) if len(spread) else math.nan,
                "spread_over_10pct": float(np.mean(spread > SPREAD)) if len(spread) else math.nan,
            }
        )
    return pd.DataFrame(records, columns=INTERVAL_COLUMNS)


CPU_COLUMNS = ["set", "backend", "cpu_puzzles", "mean_cpu_s", "mean_cpu_low_s", "mean_cpu_high_s"]


def cpu_intervals(results: Rows | pd.DataFrame) -> pd.DataFrame:
    """Per (set, backend) with CPU times measured (``cpu_s``; NULL where the executor did
    not measure it): the mean CPU time per puzzle (each puzzle the median of its measured
    repeats, every status included) with its 95% bootstrap interval, over the
    ``cpu_puzzles`` puzzles measured (at most :data:`MAX_PUZZLES`, an even sample)."""
    import pandas as pd

    rows = Rows.of(results)
    groups = rows.query(
        'SELECT "set", backend, MAX(idx) + 1 FROM {rows} WHERE cpu_s IS NOT NULL'
        ' GROUP BY "set", backend ORDER BY MIN(seq)'
    )
    records = []
    for set_id, backend, n in groups:
        step = max(1, math.ceil(int(n) / MAX_PUZZLES))
        found = rows.query(
            'SELECT idx, cpu_s, 0 FROM {rows} WHERE "set" IS ? AND backend IS ?'
            " AND cpu_s IS NOT NULL AND idx % ? = 0 ORDER BY idx, cpu_s",
            (set_id, backend, step),
        )
        times = _medians(found)
        mean = interval(times.seconds, "mean")
        records.append(
            {
                "set": rows.name(set_id),
                "backend": rows.name(backend),
                "cpu_puzzles": len(times),
                "mean_cpu_s": mean.estimate,
                "mean_cpu_low_s": mean.low,
                "mean_cpu_high_s": mean.high,
            }
        )
    return pd.DataFrame(records, columns=CPU_COLUMNS)


PAIRED_COLUMNS = [
    "set", "a", "b", "puzzles", "a_mean_s", "b_mean_s", "ratio", "ratio_low", "ratio_high",
    "p_value", "significant", "censored_a", "censored_b", "verdict",
]  # fmt: skip


def _row(set_name: Any, a: str, b: str, result: Paired) -> dict[str, Any]:
    return {
        "set": set_name,
        "a": a,
        "b": b,
        "puzzles": result.puzzles,
        "a_mean_s": result.mean_a,
        "b_mean_s": result.mean_b,
        "ratio": result.ratio.estimate,
        "ratio_low": result.ratio.low,
        "ratio_high": result.ratio.high,
        "p_value": result.p_value,
        "significant": result.significant,
        "censored_a": result.censored_a,
        "censored_b": result.censored_b,
        "verdict": result.verdict(a, b),
    }


def paired_runs(
    results: Rows | pd.DataFrame, other: Rows | pd.DataFrame
) -> dict[tuple[Any, Any], Paired]:
    """Each (set, backend) of ``results`` against the same in ``other`` (an earlier run),
    on the puzzles both have: A is ``results``, so a ratio above 1 means it is faster."""
    before = puzzle_times(other)
    return {
        key: paired(now, before[key]) for key, now in puzzle_times(results).items() if key in before
    }


def paired_baseline(results: Rows | pd.DataFrame, baseline: str) -> dict[tuple[Any, Any], Paired]:
    """Each (set, backend) but the baseline's against the baseline on that set: A is the
    backend, so a ratio above 1 means it is faster than the baseline. ValueError when no
    row has the baseline."""
    times = puzzle_times(results)
    backends = {b for _, b in times}
    if baseline not in backends:
        raise ValueError(
            f"baseline {baseline!r} is not among the backends: "
            + ", ".join(sorted(map(str, backends)))
        )
    return {
        (set_name, backend): paired(mine, times[set_name, baseline])
        for (set_name, backend), mine in times.items()
        if backend != baseline and (set_name, baseline) in times
    }


def compare(
    results: Rows | pd.DataFrame,
    other: Rows | pd.DataFrame | None = None,
    baseline: str | None = None,
    labels: tuple[str, str] = ("new", "old"),
) -> pd.DataFrame:
    """Paired comparisons, one row each, with their intervals, tests and verdicts.

    With ``other`` (an earlier run's rows): each (set, backend) of ``results`` against
    the same in ``other``, on the same puzzles; ``a`` and ``b`` name them ``backend
    (new)`` and ``backend (old)`` (``labels``), so ``ratio`` above 1 means the new run is
    faster. With ``baseline`` (a backend label) instead: every other backend of
    ``results`` against the baseline on each set (``ratio`` above 1: the backend is
    faster than the baseline). Columns: :data:`PAIRED_COLUMNS`.
    """
    import pandas as pd

    if (other is None) == (baseline is None):
        raise ValueError("compare needs either a second run's rows or a baseline backend")
    records = []
    if other is not None:
        for (set_name, backend), result in paired_runs(results, other).items():
            a, b = f"{backend} ({labels[0]})", f"{backend} ({labels[1]})"
            records.append(_row(set_name, a, b, result))
    else:
        for (set_name, backend), result in paired_baseline(results, baseline).items():
            records.append(_row(set_name, str(backend), str(baseline), result))
    return pd.DataFrame(records, columns=PAIRED_COLUMNS)
