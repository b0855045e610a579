"""Plots of bench results: the fraction solved over time, and mean time per set.

matplotlib is imported when a plot is drawn and used through its object interface on an
Agg canvas: no pyplot, so no window ever opens and the caller's matplotlib backend is left
alone. Each plot is one figure, written as PNG (slides, reports) and SVG (print, web);
style settings apply only while it is drawn. Sizes and fonts are chosen to be read on a
projector.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .report import ANSWERED, BOUNDS, significant, summary

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The files each plot is written to, by extension.
FILE_FORMATS = ("png", "svg")
#: Above this ratio of the largest mean to the smallest, the bar chart's y axis is log.
LOG_SPREAD = 30.0
#: Readable from the back of a classroom; fixed SVG ids and no date keep files stable.
STYLE = {
    "font.size": 14,
    "axes.titlesize": 16,
    "axes.labelsize": 15,
    "legend.fontsize": 13,
    "figure.titlesize": 18,
    "lines.linewidth": 2.5,
    "axes.grid": True,
    "grid.alpha": 0.35,
    "savefig.dpi": 150,
    "svg.hashsalt": "sudokulab",
}
LINESTYLES = ("-", "--", "-.", ":")


def _figure(rows: int, cols: int, width: float, height: float) -> tuple[Figure, Any]:
    """A figure on an Agg canvas with a grid of axes (always a 2-D array)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure, figure.subplots(rows, cols, squeeze=False)


def _save(figure: Figure, out_dir: str | Path, stem: str) -> list[Path]:
    """Write a figure as ``stem.png`` and ``stem.svg`` in ``out_dir`` (made if missing)."""
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in FILE_FORMATS:
        path = folder / f"{stem}.{ext}"
        figure.savefig(path, format=ext, metadata={"Date": None} if ext == "svg" else None)
        paths.append(path)
    return paths


def _styles(backends: Sequence[Any]) -> dict[Any, dict[str, Any]]:
    """One colour and line style per backend, the same in every subplot and plot."""
    import matplotlib

    colors = matplotlib.colormaps["tab10"].colors
    return {
        b: {"color": colors[i % len(colors)], "linestyle": LINESTYLES[i // len(colors) % 4]}
        for i, b in enumerate(backends)
    }


def _legend(figure: Figure, styles: dict[Any, dict[str, Any]], bars: bool = False) -> None:
    """One legend for the whole figure, right of the plots, a key per backend."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [
        Patch(color=s["color"], label=str(b)) if bars else Line2D([], [], label=str(b), **s)
        for b, s in styles.items()
    ]
    figure.legend(handles=handles, title="backend", loc="outside right center")


def _check(results: pd.DataFrame) -> None:
    """Refuse an empty frame with a message rather than draw an empty figure."""
    if results.empty:
        raise ValueError("no results to plot")


def plot_cumulative(
    results: pd.DataFrame, out_dir: str | Path, stem: str = "cumulative"
) -> list[Path]:
    """Plot, per set, the fraction of puzzles solved within each time, a line per backend.

    One figure with a subplot per set (up to three across), log-scale time axis; a row
    counts as solved at its time when its status is solved or multiple, so a backend with
    timeouts, errors or wrong statuses never reaches 100%. With repeats every row counts,
    which averages the curve over repeats. Dotted lines mark 0.1, 0.5 and 1 s where they
    fall in range. Written as ``stem.png`` and ``stem.svg`` in ``out_dir``; returns the
    paths.
    """
    import matplotlib
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, PercentFormatter

    _check(results)
    sets = list(dict.fromkeys(results["set"]))
    styles = _styles(list(dict.fromkeys(results["backend"])))
    times = pd.to_numeric(results["time"], errors="coerce")
    # a zero time cannot sit on a log axis; a microsecond is below any real solve
    times = times.clip(lower=1e-6)
    cols = min(3, len(sets))
    rows = math.ceil(len(sets) / cols)
    with matplotlib.rc_context(STYLE):
        figure, axes = _figure(rows, cols, 2 + 6 * cols, 0.6 + 4.6 * rows)
        for ax, name in zip(axes.flat, sets, strict=False):
            in_set = results["set"] == name
            right = times[in_set].max()
            left = times[in_set & results["status"].isin(ANSWERED)].min()
            for backend, style in styles.items():
                mine = in_set & (results["backend"] == backend)
                if not mine.any():
                    continue
                solved = np.sort(times[mine & results["status"].isin(ANSWERED)].dropna())
                share = np.arange(1, solved.size + 1) / mine.sum()
                if solved.size:
                    # start at 0 on the first solve, hold the last share to the right edge
                    x = np.concatenate([[solved[0]], solved, [max(right, solved[-1])]])
                    y = np.concatenate([[0.0], share, [share[-1]]])
                    ax.step(x, y, where="post", **style)
            for bound in BOUNDS:
                if not math.isnan(left) and left <= bound <= right:
                    ax.axvline(bound, color="0.45", linestyle=":", linewidth=1.5)
            puzzles = results.loc[in_set, "idx"].nunique()
            ax.set_title(f"{name} ({puzzles} puzzles)")
            ax.set_xscale("log")
            if math.isfinite(right):
                ax.set_xlim(*_decades(times[in_set].min(), right))
            ax.xaxis.set_major_locator(LogLocator(base=10))
            ax.xaxis.set_major_formatter(FuncFormatter(_time_label))
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.set_xlabel("time per puzzle (log scale)")
            ax.set_ylabel("puzzles solved")
            ax.set_ylim(0, 1.03)
            ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        for ax in list(axes.flat)[len(sets) :]:
            ax.set_visible(False)
        figure.suptitle("Share of puzzles solved within a time")
        _legend(figure, styles)
        return _save(figure, out_dir, stem)


def _time_label(seconds: float, _position: Any = None) -> str:
    """A tick label in the unit that reads best: 10 µs, 1 ms, 100 ms, 1 s, 10 s."""
    if seconds <= 0:
        return "0"
    for unit, scale in (("s", 1.0), ("ms", 1e-3)):
        if seconds >= scale:
            return f"{seconds / scale:g} {unit}"
    return f"{seconds / 1e-6:g} µs"


def _decades(low: float, high: float) -> tuple[float, float]:
    """The whole powers of ten around a range, so a log axis always has labelled ticks."""
    return 10.0 ** math.floor(math.log10(low)), 10.0 ** math.ceil(math.log10(high) + 1e-9)


def log_scale_needed(values: Sequence[float]) -> bool:
    """Whether positive values spread over more than ``LOG_SPREAD`` times (log axis)."""
    positive = [v for v in values if v > 0 and math.isfinite(v)]
    return len(positive) > 1 and max(positive) / min(positive) > LOG_SPREAD


def plot_means(results: pd.DataFrame, out_dir: str | Path, stem: str = "mean-time") -> list[Path]:
    """Plot the mean time per puzzle as bars grouped by set, a bar per backend.

    Means are :func:`sudokulab.report.summary`'s (every row, timeouts at their stopped
    time). The y axis reads in ms or s, log scale when the means spread over more than
    ``LOG_SPREAD`` times; each bar is labelled with its value when there are few enough.
    Written as ``stem.png`` and ``stem.svg`` in ``out_dir``; returns the paths.
    """
    import matplotlib
    from matplotlib.ticker import FuncFormatter, NullFormatter

    _check(results)
    table = summary(results)
    sets = list(dict.fromkeys(table["set"]))
    styles = _styles(list(dict.fromkeys(table["backend"])))
    means = table.set_index(["set", "backend"])["mean_s"]
    width = 0.8 / len(styles)
    labelled = len(table) <= 24
    with matplotlib.rc_context(STYLE):
        figure, axes = _figure(1, 1, max(8.0, 3 + 1.1 * len(table)), 6.0)
        ax = axes[0, 0]
        for i, (backend, style) in enumerate(styles.items()):
            heights = np.array([means.get((s, backend), np.nan) for s in sets], dtype=float)
            shown = ~np.isnan(heights)
            if not shown.any():
                continue
            x = np.arange(len(sets))[shown] + (i - (len(styles) - 1) / 2) * width
            bars = ax.bar(x, heights[shown], width, color=style["color"], label=str(backend))
            if labelled:
                labels = [f"{significant(h * 1000)} ms" for h in heights[shown]]
                ax.bar_label(bars, labels=labels, padding=2, fontsize=10, rotation=90)
        log = log_scale_needed(list(means))
        if log:
            ax.set_yscale("log")
            # bars on a log axis need a floor (the decade below the shortest) and room
            # above the tallest for its label
            bottom, _ = _decades(means[means > 0].min(), 1)
            ax.set_ylim(bottom, means.max() * 3)
        else:
            ax.margins(y=0.15)
        ax.yaxis.set_major_formatter(FuncFormatter(_time_label))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xticks(np.arange(len(sets)), [str(s) for s in sets])
        ax.grid(axis="x", visible=False)
        ax.set_xlabel("puzzle set")
        ax.set_ylabel("mean time per puzzle" + (" (log scale)" if log else ""))
        ax.set_title("Mean time per puzzle, by set and backend")
        _legend(figure, styles, bars=True)
        return _save(figure, out_dir, stem)
