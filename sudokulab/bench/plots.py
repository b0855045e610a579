"""Plots of bench results: the fraction solved over time, and mean time per set and backend.

matplotlib is imported when a plot is drawn and used through its object interface on an
Agg canvas: no pyplot, so no window ever opens and the caller's matplotlib backend is left
alone. Each plot is one figure, written as PNG (slides, reports) and SVG (print, web);
style settings apply only while it is drawn. Sizes and fonts are chosen to be read on a
projector.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..backends.isolation import GRACE
from .report import ANSWERED, BOUNDS, significant, summary
from .store import Rows

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
#: Each backend's line: a colour, a line style and a marker, cycled with coprime periods
#: (10, 4, 7), so that 140 backends all differ and two with one colour differ in style or
#: marker. The dotted style is kept for the time marks.
LINESTYLES = ("-", "--", "-.", (0, (6, 1.5, 1, 1.5, 1, 1.5)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
#: Most points a curve of the cumulative plot is drawn with (its steps sampled evenly
#: by rank: a share of at most 1/POINTS between two, less than a pixel).
POINTS = 2000
#: The time marks of the cumulative plot.
MARK_STYLE = {"color": "0.45", "linestyle": ":", "linewidth": 1.5}


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


def palette(count: int) -> list[tuple[float, ...]]:
    """``count`` distinct colours: matplotlib's qualitative tab10 up to 10, tab20 (its dark
    shades first, then the light ones) up to 20, else evenly spaced along turbo."""
    import matplotlib

    if count <= 10:
        return list(matplotlib.colormaps["tab10"].colors[: max(count, 1)])
    if count <= 20:
        shades = matplotlib.colormaps["tab20"].colors
        return list(shades[0::2] + shades[1::2])[:count]
    turbo = matplotlib.colormaps["turbo"]
    return [turbo(0.05 + 0.9 * i / (count - 1)) for i in range(count)]


def _styles(backends: Sequence[Any]) -> dict[Any, dict[str, Any]]:
    """One colour, line style and marker per backend, the same in every subplot and
    plot: a colour of its own (:func:`palette` sized to the count), and a line style and
    marker cycled with other periods (see :data:`LINESTYLES`)."""
    colors = palette(len(backends))
    return {
        b: {
            "color": colors[i % len(colors)],
            "linestyle": LINESTYLES[i % len(LINESTYLES)],
            "marker": MARKERS[i % len(MARKERS)],
            "markersize": 7,
        }
        for i, b in enumerate(backends)
    }


def _legend(figure: Figure, styles: dict[Any, dict[str, Any]], marks: bool = False) -> None:
    """One legend for the whole figure, right of the plots, a key per backend (and for
    the dotted time marks when ``marks``)."""
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], label=str(b), **s) for b, s in styles.items()]
    if marks:
        label = "time marks: " + ", ".join(f"{b:g} s" for b in BOUNDS)
        handles.append(Line2D([], [], label=label, **MARK_STYLE))
    figure.legend(handles=handles, title="backend", loc="outside right center")


def _check(rows: Rows) -> None:
    """Refuse no rows with a message rather than draw an empty figure."""
    if not rows.count():
        raise ValueError("no results to plot")


def _curves(rows: Rows) -> dict[tuple[Any, Any], tuple[np.ndarray, np.ndarray]]:
    """Per (set, backend), the times of the solved rows sorted (each at least a
    microsecond: a log axis has no zero) and their ranks from 1, at most :data:`POINTS`
    of them (the first, the last, and evenly by rank between)."""
    answered = ", ".join(f"'{s}'" for s in ANSWERED)
    found = rows.query(
        f'WITH v AS (SELECT "set" AS g1, backend AS g2, MAX(time, 1e-6) AS x FROM {{rows}}'
        f" WHERE status IN ({answered}) AND time IS NOT NULL),"
        " n AS (SELECT g1, g2, COUNT(*) AS n FROM v GROUP BY g1, g2),"
        " r AS (SELECT g1, g2, x, ROW_NUMBER() OVER (PARTITION BY g1, g2 ORDER BY x) AS k"
        " FROM v)"
        " SELECT r.g1, r.g2, r.k, r.x FROM r JOIN n ON r.g1 IS n.g1 AND r.g2 IS n.g2"
        " WHERE r.k = 1 OR r.k = n.n OR r.k % MAX(1, n.n / ?) = 0 ORDER BY r.g1, r.g2, r.k",
        (POINTS,),
    )
    points: dict[tuple[Any, Any], tuple[list[int], list[float]]] = {}
    for name, backend, k, x in found:
        ranks, times = points.setdefault((rows.name(name), rows.name(backend)), ([], []))
        ranks.append(k)
        times.append(x)
    return {key: (np.array(r), np.array(t)) for key, (r, t) in points.items()}


def plot_cumulative(
    results: Rows | pd.DataFrame, out_dir: str | Path, stem: str = "cumulative"
) -> list[Path]:
    """Plot, per set, the fraction of puzzles solved within each time, a line per backend.

    One figure with a subplot per set (up to three across), all on one log-scale time
    axis; a row counts as solved at its time when its status is solved or multiple, so a
    backend with timeouts, errors or wrong statuses never reaches 100%. With repeats every
    row counts, which averages the curve over repeats. Each backend has its own colour,
    line style and marker; dotted grey lines mark 0.1, 0.5 and 1 s where they fall in
    a set's range (the legend says so). Computed in SQL where the rows are (a curve is
    drawn through at most :data:`POINTS` of its steps). Written as ``stem.png`` and
    ``stem.svg`` in ``out_dir``; returns the paths.
    """
    import matplotlib
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, PercentFormatter

    rows = Rows.of(results)
    _check(rows)
    answered = ", ".join(f"'{s}'" for s in ANSWERED)
    per_set = [
        (rows.name(name), *more)
        for name, *more in rows.query(
            'SELECT "set", COUNT(DISTINCT idx), MAX(MAX(time, 1e-6)),'
            f" MIN(CASE WHEN status IN ({answered}) THEN MAX(time, 1e-6) END)"
            ' FROM {rows} GROUP BY "set" ORDER BY MIN(seq)'
        )
    ]
    backends = [
        rows.name(b)
        for (b,) in rows.query("SELECT backend FROM {rows} GROUP BY backend ORDER BY MIN(seq)")
    ]
    pairs = {
        (rows.name(s), rows.name(b)): n
        for s, b, n in rows.query('SELECT "set", backend, COUNT(*) FROM {rows} GROUP BY 1, 2')
    }
    low, high = rows.query("SELECT MIN(MAX(time, 1e-6)), MAX(MAX(time, 1e-6)) FROM {rows}")[0]
    curves = _curves(rows)
    styles = _styles(backends)
    sets = [name for name, *_ in per_set]
    cols = min(3, len(sets))
    nrows = math.ceil(len(sets) / cols)
    marked = False
    with matplotlib.rc_context(STYLE):
        figure, axes = _figure(nrows, cols, 2 + 6 * cols, 0.6 + 4.6 * nrows)
        for ax, (name, puzzles, right, left) in zip(axes.flat, per_set, strict=False):
            for i, (backend, style) in enumerate(styles.items()):
                if (name, backend) not in pairs:
                    continue
                ranks, solved = curves.get((name, backend), (np.array([]), np.array([])))
                if solved.size:
                    share = ranks / pairs[name, backend]
                    # start at 0 on the first solve, hold the last share to the right edge
                    x = np.concatenate([[solved[0]], solved, [max(high, solved[-1])]])
                    y = np.concatenate([[0.0], share, [share[-1]]])
                    ax.step(x, y, where="post", markevery=(0.02 * (i % 5), 0.1), **style)
            for bound in BOUNDS:
                if left is not None and right is not None and left <= bound <= right:
                    ax.axvline(bound, **MARK_STYLE)
                    marked = True
            ax.set_title(f"{name} ({puzzles} puzzles)")
            ax.set_xscale("log")
            if high is not None and math.isfinite(high):
                ax.set_xlim(*_decades(low, high))  # one time axis for every set
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
        _legend(figure, styles, marks=marked)
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


def plot_means(
    results: Rows | pd.DataFrame, out_dir: str | Path, stem: str = "mean-time"
) -> list[Path]:
    """Plot the mean time per puzzle as a heatmap: a row per set, a column per backend.

    Means are :func:`sudokulab.bench.report.summary`'s (every row; a timeout counts at the
    time it took, at most the timeout plus the kill margin). Each cell is coloured by its
    mean, on a log scale when the means spread over more than ``LOG_SPREAD`` times, and
    shows it as the report does (3 significant digits, ms or s); ``≥`` marks a pair with
    timeouts, whose mean is a lower bound, and ``-`` a pair that did not run. The figure
    grows with the numbers of sets and backends up to ``MAX_FIGURE`` inches, the text
    shrinking to fit its cell. Written as ``stem.png`` and ``stem.svg`` in ``out_dir`` (in
    the SVG, the text of the cell in row r and column c, from 0, is the group ``mean-r-c``);
    returns the paths.
    """
    import matplotlib
    from matplotlib.colors import LogNorm, Normalize
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    rows = Rows.of(results)
    _check(rows)
    table = summary(rows)
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
            notes.append(
                f"≥: a lower bound (a timeout counts at the time it took, ≤ timeout + {GRACE:g} s)"
            )
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


# --- the field's plots: cactus, per-puzzle scatter, performance profile ------------------


def cactus_points(results: Rows | pd.DataFrame) -> dict[Any, np.ndarray]:
    """Per backend, the sorted times of the puzzles it answered, over every set (each
    puzzle the median of its repeats; timeouts, censored, are not answers): a cactus
    plot's curve is ``(k + 1, times[k])``. Big sets are sampled as :mod:`.stats` samples
    them."""
    from . import stats

    times: dict[Any, list[np.ndarray]] = {}
    for (_, backend), t in stats.puzzle_times(results).items():
        times.setdefault(backend, []).append(t.seconds[~t.censored])
    return {b: np.sort(np.concatenate(parts)) for b, parts in times.items()}


def profile_ratios(results: Rows | pd.DataFrame) -> dict[Any, np.ndarray]:
    """Dolan and Moré's performance ratios (2002): for every puzzle (of any set) that some
    backend answered, each backend's time over the best backend's on that puzzle; ``inf``
    where the backend timed out or failed. A set a backend did not run (skipped: dlx takes
    no cages) is left out of that backend's ratios, not counted as unanswered. Per
    backend, sorted."""
    from . import stats

    by_puzzle: dict[tuple[Any, int], dict[Any, float]] = {}
    ran: dict[Any, set[Any]] = {}
    for (set_name, backend), t in stats.puzzle_times(results).items():
        ran.setdefault(backend, set()).add(set_name)
        for idx, seconds, censored in zip(t.idx, t.seconds, t.censored, strict=True):
            if not censored:
                by_puzzle.setdefault((set_name, int(idx)), {})[backend] = max(seconds, 1e-9)
    ratios: dict[Any, list[float]] = {b: [] for b in ran}
    for (set_name, _), answered in by_puzzle.items():
        best = min(answered.values())
        for b, sets in ran.items():
            if set_name in sets:
                ratios[b].append(answered[b] / best if b in answered else math.inf)
    return {b: np.sort(np.array(r, dtype=float)) for b, r in ratios.items()}


def skipped_pairs(results: Rows | pd.DataFrame) -> list[tuple[Any, Any]]:
    """The (set, backend) pairs of a run that have no row: the backend skipped the set."""
    rows = Rows.of(results)
    found = rows.query('SELECT DISTINCT "set", backend FROM {rows}')
    pairs = {(rows.name(s), rows.name(b)) for s, b in found}
    sets = list(dict.fromkeys(s for s, _ in sorted(pairs, key=str)))
    backends = list(dict.fromkeys(b for _, b in pairs))
    return [(s, b) for b in backends for s in sets if (s, b) not in pairs]


def plot_cactus(
    results: Rows | pd.DataFrame, out_dir: str | Path, stem: str = "cactus"
) -> list[Path]:
    """The solver competitions' cactus plot: puzzles answered (x) within a time per puzzle
    (y, log scale), a line per backend over all sets; further right and lower is better.
    Written as ``stem.png`` and ``stem.svg``; returns the paths."""
    import matplotlib
    from matplotlib.ticker import FuncFormatter

    rows = Rows.of(results)
    _check(rows)
    curves = cactus_points(rows)
    styles = _styles(list(curves))
    with matplotlib.rc_context(STYLE):
        figure, axes = _figure(1, 1, 11, 6.5)
        ax = axes[0, 0]
        for backend, times in curves.items():
            if times.size:
                ax.step(np.arange(1, times.size + 1), np.maximum(times, 1e-6), where="post",
                        markevery=0.1, **styles[backend])  # fmt: skip
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(_time_label))
        ax.set_xlabel("puzzles answered (every set; big sets sampled evenly)")
        ax.set_ylabel("time per puzzle (log scale)")
        figure.suptitle("Cactus plot: puzzles answered within a time")
        _legend(figure, styles)
        return _save(figure, out_dir, stem)


def plot_scatter(
    results: Rows | pd.DataFrame,
    x_backend: str,
    y_backend: str,
    out_dir: str | Path,
    stem: str | None = None,
) -> list[Path]:
    """Per puzzle, one backend's time (x) against another's (y) on log-log axes, a colour
    per set, with the diagonal (equal times) and its 10x lines; a puzzle that timed out on
    one side is drawn on that axis's far edge (a triangle), so timeouts stay visible.
    Written as ``stem.png``/``.svg`` (default ``scatter-X-vs-Y``); returns the paths."""
    import matplotlib
    from matplotlib.ticker import FuncFormatter

    from . import stats

    rows = Rows.of(results)
    _check(rows)
    times = stats.puzzle_times(rows)
    sets = list(dict.fromkeys(s for s, _ in times))
    found = [b for b in (x_backend, y_backend) if not any(k[1] == b for k in times)]
    if found:
        raise ValueError(f"no timed rows of backend {found[0]!r} to plot")
    pairs = []
    for s in sets:
        a, b = times.get((s, x_backend)), times.get((s, y_backend))
        if a is None or b is None:
            continue
        _, ia, ib = np.intersect1d(a.idx, b.idx, assume_unique=True, return_indices=True)
        pairs.append((s, a.seconds[ia], b.seconds[ib], a.censored[ia], b.censored[ib]))
    every = np.concatenate([np.r_[x, y] for _, x, y, _, _ in pairs] or [np.array([1e-3])])
    low, high = _decades(max(every.min(), 1e-6), max(every.max(), 1e-6))
    colors = matplotlib.colormaps["tab10"].colors
    with matplotlib.rc_context(STYLE):
        figure, axes = _figure(1, 1, 9, 8)
        ax = axes[0, 0]
        for i, (s, x, y, cx, cy) in enumerate(pairs):
            x, y = np.clip(x, low, high), np.clip(y, low, high)
            edge_x, edge_y = np.where(cx, high, x), np.where(cy, high, y)
            plain = ~(cx | cy)
            color = colors[i % len(colors)]
            ax.scatter(x[plain], y[plain], s=14, alpha=0.6, color=color, label=str(s))
            if (~plain).any():
                ax.scatter(edge_x[~plain], edge_y[~plain], s=40, marker="^", color=color)
        line = np.array([low, high])
        ax.plot(line, line, color="0.3", linewidth=1.2)
        for factor in (10, 0.1):
            ax.plot(line, line * factor, color="0.6", linewidth=1, linestyle=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(low, high * 1.3)
        ax.set_ylim(low, high * 1.3)
        ax.set_aspect("equal")
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_major_formatter(FuncFormatter(_time_label))
        ax.set_xlabel(f"{x_backend}: time per puzzle")
        ax.set_ylabel(f"{y_backend}: time per puzzle")
        ax.legend(title="set", loc="upper left")
        figure.suptitle(f"{y_backend} against {x_backend}, puzzle by puzzle")
        ax.set_title(
            f"above the diagonal: {y_backend} slower; dotted: 10x; ▲ on an edge: a timeout",
            fontsize=STYLE["font.size"] - 2,
            color="0.3",
        )
        name = stem or f"scatter-{x_backend}-vs-{y_backend}"
        return _save(figure, out_dir, re.sub(r"[^A-Za-z0-9_.-]+", "_", name))


def plot_profile(
    results: Rows | pd.DataFrame, out_dir: str | Path, stem: str = "profile"
) -> list[Path]:
    """Dolan and Moré's performance profile over every set: for each backend, the share of
    puzzles (y) it answers within a factor tau (x, log scale) of the best backend on that
    puzzle. At tau = 1, how often it is the fastest; at the right edge, how many it answers
    at all. Written as ``stem.png`` and ``stem.svg``; returns the paths."""
    import matplotlib
    from matplotlib.ticker import PercentFormatter

    rows = Rows.of(results)
    _check(rows)
    ratios = profile_ratios(rows)
    styles = _styles(list(ratios))
    finite = np.concatenate([r[np.isfinite(r)] for r in ratios.values()] or [np.array([1.0])])
    right = max(2.0, float(finite.max()) * 1.5) if finite.size else 2.0
    with matplotlib.rc_context(STYLE):
        figure, axes = _figure(1, 1, 11, 6.5)
        ax = axes[0, 0]
        for backend, r in ratios.items():
            if not r.size:
                continue
            share = np.arange(1, r.size + 1) / r.size
            kept = np.isfinite(r)
            x = np.concatenate([[1.0], r[kept], [right]])
            y = np.concatenate([[0.0], share[kept], [share[kept][-1] if kept.any() else 0.0]])
            ax.step(x, y, where="post", markevery=0.1, **styles[backend])
        ax.set_xscale("log")
        ax.set_xlim(1, right)
        ax.set_ylim(0, 1.03)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0))
        ax.set_xlabel("within this factor of the best backend's time (log scale)")
        ax.set_ylabel("puzzles")
        figure.suptitle("Performance profile (Dolan and Moré), every set")
        skipped = skipped_pairs(rows)
        if skipped:  # their puzzles are out of the backend's share, not unanswered
            shown = ", ".join(f"{b} on {s}" for s, b in skipped[:4])
            more = f" and {len(skipped) - 4} more" if len(skipped) > 4 else ""
            ax.set_title(f"share of the sets each backend ran; not run: {shown}{more}", fontsize=11)
        _legend(figure, styles)
        return _save(figure, out_dir, stem)
