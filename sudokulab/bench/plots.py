"""Plots of bench results: the fraction solved over time, and mean time per set and backend.

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
#: Above this ratio of the largest mean to the smallest, the heatmap's colours are log.
LOG_SPREAD = 30.0
#: The mean-time heatmap's inches per cell (width, height), and its largest figure:
#: 2400 x 1800 pixels at 150 dpi, a screen or a landscape page.
CELL = (1.15, 0.42)
MAX_FIGURE = (16.0, 12.0)
#: Light for fast, dark for slow; readable in grey and by colour-blind readers.
COLORMAP = "viridis_r"
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
    # text stays text in SVG: searchable, selectable, smaller
    "svg.fonttype": "none",
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


def _legend(figure: Figure, styles: dict[Any, dict[str, Any]]) -> None:
    """One legend for the whole figure, right of the plots, a key per backend."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], label=str(b), **s) for b, s in styles.items()]
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


def _mean_label(seconds: float) -> str:
    """A mean time as the report writes it: 3 significant digits, in ms below 1 s, else s."""
    if seconds >= 1:
        return f"{significant(seconds)} s"
    return f"{significant(seconds * 1000)} ms"


def _heatmap_size(sets: int, backends: int, label: int) -> tuple[float, float]:
    """The mean-time figure's size in inches: a cell per pair beside row labels of ``label``
    characters and the colour bar, capped at ``MAX_FIGURE``."""
    # row labels at about 0.11 inch a character; the colour bar and its labels, 2.2 inches;
    # the titles and the slanted backend names above the cells, 2.8 inches
    width = 0.8 + 0.11 * label + CELL[0] * backends + 2.2
    height = 2.8 + CELL[1] * sets
    return min(MAX_FIGURE[0], max(8.0, width)), min(MAX_FIGURE[1], max(4.5, height))


def _cell_text(mean: float, bound: bool) -> str:
    """A cell's text: the mean as the report writes it, ``≥`` before a lower bound, and
    ``-`` for a pair that did not run (a NaN mean)."""
    if np.isnan(mean):
        return "-"
    return ("≥" if bound else "") + _mean_label(mean)


def _ink(background: tuple[float, float, float, float]) -> str:
    """The text colour that reads on a background colour: white on dark, black on light."""
    red, green, blue, _ = background
    return "white" if 0.299 * red + 0.587 * green + 0.114 * blue < 0.5 else "black"


def plot_means(results: pd.DataFrame, out_dir: str | Path, stem: str = "mean-time") -> list[Path]:
    """Plot the mean time per puzzle as a heatmap: a row per set, a column per backend.

    Means are :func:`sudokulab.bench.report.summary`'s (every row, timeouts at their stopped
    time). Each cell is coloured by its mean, on a log scale when the means spread over
    more than ``LOG_SPREAD`` times, and shows it as the report does (3 significant digits,
    ms or s); ``≥`` marks a pair with timeouts, whose mean is a lower bound, and ``-`` a
    pair that did not run. The figure grows with the numbers of sets and backends up to
    ``MAX_FIGURE`` inches, the text shrinking to fit its cell. Written as ``stem.png`` and
    ``stem.svg`` in ``out_dir`` (in the SVG, the text of the cell in row r and column c,
    from 0, is the group ``mean-r-c``); returns the paths.
    """
    import matplotlib
    from matplotlib.colors import LogNorm, Normalize
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    _check(results)
    table = summary(results)
    sets = list(dict.fromkeys(table["set"]))
    backends = list(dict.fromkeys(table["backend"]))
    pairs = table.set_index(["set", "backend"])
    grid = pairs["mean_s"].unstack().reindex(index=sets, columns=backends)
    bounded = pairs["timeouts"].gt(0).unstack().reindex(index=sets, columns=backends)
    bounded = bounded.fillna(False).astype(bool)
    texts = [
        [_cell_text(mean, bound) for mean, bound in zip(*row, strict=True)]
        for row in zip(grid.to_numpy(dtype=float), bounded.to_numpy(), strict=True)
    ]
    # a zero mean cannot sit on a log scale; a microsecond is below any real solve
    means = np.ma.masked_invalid(grid.to_numpy(dtype=float).clip(min=1e-6))
    log = log_scale_needed(list(means.compressed()))
    norm = (LogNorm if log else Normalize)(vmin=means.min(), vmax=means.max())
    puzzles = pairs["puzzles"].groupby(level="set", sort=False).max()
    rows = [f"{s} ({puzzles[s]})" for s in sets]
    with matplotlib.rc_context(STYLE):
        size = _heatmap_size(len(sets), len(backends), max(map(len, rows)))
        figure, axes = _figure(1, 1, *size)
        ax = axes[0, 0]
        cmap = matplotlib.colormaps[COLORMAP].with_extremes(bad="none")
        image = ax.imshow(means, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
        ax.grid(False)
        ax.set_xticks(np.arange(len(backends)), [str(b) for b in backends])
        ax.set_yticks(np.arange(len(sets)), rows)
        ax.tick_params(axis="both", length=0)
        ax.tick_params(axis="x", top=True, labeltop=True, bottom=False, labelbottom=False)
        matplotlib.artist.setp(ax.get_xticklabels(), rotation=30, ha="left", rotation_mode="anchor")
        # white lines between the cells
        ax.set_xticks(np.arange(len(backends) + 1) - 0.5, minor=True)
        ax.set_yticks(np.arange(len(sets) + 1) - 0.5, minor=True)
        ax.tick_params(which="minor", length=0)
        ax.grid(which="minor", color="white", linewidth=1.5, alpha=1)
        ax.spines[:].set_visible(False)
        ax.set_ylabel("puzzle set (puzzles)")
        colorbar = figure.colorbar(image, ax=ax)
        if log:
            # fewer than 3 decades get ticks at 1, 2 and 5 of each, so a few are labelled
            decades = math.log10(norm.vmax / norm.vmin)
            colorbar.locator = LogLocator(base=10, subs=(1.0,) if decades >= 3 else (1, 2, 5))
        colorbar.formatter = FuncFormatter(_time_label)
        colorbar.ax.yaxis.set_minor_formatter(NullFormatter())
        colorbar.update_ticks()
        colorbar.set_label("mean time" + (" (log scale)" if log else ""))
        notes = []
        if bounded.to_numpy().any():
            notes.append("≥: a lower bound, its timeouts counted at the timeout")
        if grid.isna().to_numpy().any():
            notes.append("-: not run")
        figure.suptitle("Mean time per puzzle, by set and backend")
        ax.set_title("    ".join(notes), fontsize=STYLE["font.size"] - 2, color="0.3", pad=12)
        # lay the figure out to learn the cells' size, then fit the longest text in a cell
        figure.canvas.draw()
        box = ax.get_window_extent()
        points = 72 / figure.dpi
        cell_w = points * box.width / len(backends)
        cell_h = points * box.height / len(sets)
        longest = max(len(text) for row in texts for text in row)
        fontsize = min(12.0, 0.85 * cell_w / (0.62 * longest), 0.55 * cell_h)
        for row, line in enumerate(texts):
            for col, text in enumerate(line):
                mean = grid.iat[row, col]
                color = "0.5" if np.isnan(mean) else _ink(cmap(norm(max(mean, 1e-6))))
                ax.text(
                    col,
                    row,
                    text,
                    ha="center",
                    va="center",
                    fontsize=fontsize,
                    color=color,
                    gid=f"mean-{row}-{col}",
                )
        return _save(figure, out_dir, stem)
