"""Reports and plots over a small hand-made results frame with known numbers."""

from __future__ import annotations

import io
import json
import os
import struct
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

from sudokulab.bench.plots import (
    MAX_FIGURE,
    STYLE,
    log_scale_needed,
    plot_cumulative,
    plot_means,
)
from sudokulab.bench.report import (
    FORMATS,
    by_host,
    compare,
    machine_text,
    markdown_report,
    render,
    significant,
    summary,
)
from sudokulab.cli import main

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def row(set_name, idx, backend, status, time, repeat=0, verified="auto", agrees=True, **more):
    """One results row as the bench stores it; counters default to absent."""
    if verified == "auto":
        verified = True if status in ("solved", "multiple") else None
    return {
        "run_id": 1,
        "set": set_name,
        "idx": idx,
        "puzzle": f"{set_name}-{idx}",
        "backend": backend,
        "engine": "python" if backend.startswith(("native", "backtracking")) else None,
        "repeat": repeat,
        "status": status,
        "solution": "1" * 81 if status in ("solved", "multiple") else None,
        "count": 1 if status == "solved" else 0,
        "verified": verified,
        "agrees": agrees,
        "time": time,
        "build_time": time / 10,
        "solve_time": time * 9 / 10,
        "nodes": more.get("nodes"),
        "guesses": more.get("guesses"),
        "backtracks": None,
        "stats": "{}",
        "error": more.get("error"),
    }


def make_results() -> pd.DataFrame:
    """easy: 4 puzzles x native, cpsat (a timeout), backtracking (a wrong answer, an
    error); hard: 2 puzzles x native (2 repeats) and cpsat (one wrong 'unsolvable')."""
    rows = []
    easy = [
        # (native time, nodes, guesses), cpsat (status, time), backtracking row extras
        ((0.01, 1, 0), ("solved", 0.2), dict(status="solved", time=0.05, nodes=10, guesses=20)),
        (
            (0.02, 2, 1),
            ("solved", 0.3),
            dict(status="solved", time=0.7, nodes=30, guesses=40, verified=False, agrees=False),
        ),
        ((0.03, 3, 2), ("solved", 0.6), dict(status="solved", time=0.05, nodes=10, guesses=20)),
        ((0.04, 4, 3), ("timeout", 2.0), dict(status="error", time=0.001, error="boom")),
    ]
    for idx, ((t, n, g), (status, ct), bt) in enumerate(easy):
        rows.append(row("easy", idx, "native", "solved", t, nodes=n, guesses=g))
        rows.append(row("easy", idx, "cpsat", status, ct, agrees=status == "solved"))
        agrees = bt.pop("agrees", bt["status"] == "solved")
        rows.append(row("easy", idx, "backtracking", agrees=agrees, **bt))
    for repeat, t in enumerate((0.1, 0.3)):
        rows.append(row("hard", 0, "native", "solved", t, repeat=repeat, nodes=5, guesses=5))
    rows.append(row("hard", 0, "cpsat", "solved", 0.2))
    for repeat, t in enumerate((0.5, 0.7)):
        rows.append(row("hard", 1, "native", "solved", t, repeat=repeat, nodes=7, guesses=9))
    rows.append(row("hard", 1, "cpsat", "unsolvable", 0.05, agrees=False))
    return pd.DataFrame(rows)


def make_runs() -> pd.DataFrame:
    """Two run records; only run 1 is in the results."""
    common = {
        "finished": None,
        "cores": 8,
        "python": "3.12.1",
        "packages": json.dumps({"sudokulab": "0.1.0", "ortools": "9.10.4"}),
        "args": json.dumps({"sets": ["easy", "hard"], "repeat": 2}),
    }
    return pd.DataFrame(
        [
            {"run_id": 1, "started": "2025-01-02T10:00:00", "machine": "lab-pc", "cpu": "Intel i5",
             "git": "4caed56", **common},
            {"run_id": 2, "started": "2025-01-03T10:00:00", "machine": "other", "cpu": "Arm",
             "git": None, **common},
        ]
    )  # fmt: skip


@pytest.fixture(scope="module")
def results() -> pd.DataFrame:
    return make_results()


def by_pair(frame: pd.DataFrame) -> dict[tuple[str, str], dict]:
    return {(r["set"], r["backend"]): r for r in frame.to_dict("records")}


def test_summary_counts_statuses_and_wrong_rows(results):
    table = summary(results)
    assert list(zip(table["set"], table["backend"], strict=True)) == [
        ("easy", "native"),
        ("easy", "cpsat"),
        ("easy", "backtracking"),
        ("hard", "native"),
        ("hard", "cpsat"),
    ]
    counts = table.set_index(["set", "backend"])[
        ["puzzles", "runs", "solved", "unsolvable", "multiple", "timeouts", "errors", "invalid"]
        + ["wrong"]
    ]
    assert counts.loc[("easy", "native")].tolist() == [4, 4, 4, 0, 0, 0, 0, 0, 0]
    # a timeout that "disagrees" is a timeout, not a wrong answer
    assert counts.loc[("easy", "cpsat")].tolist() == [4, 4, 3, 0, 0, 1, 0, 0, 0]
    # the rejected solution is wrong; the error is an error
    assert counts.loc[("easy", "backtracking")].tolist() == [4, 4, 3, 0, 0, 0, 1, 0, 1]
    assert counts.loc[("hard", "native")].tolist() == [2, 4, 4, 0, 0, 0, 0, 0, 0]
    # a conclusive verdict the others did not reach is wrong
    assert counts.loc[("hard", "cpsat")].tolist() == [2, 2, 1, 1, 0, 0, 0, 0, 1]


def test_summary_times_and_counters(results):
    rows = by_pair(summary(results))
    native = rows[("easy", "native")]
    times = [0.01, 0.02, 0.03, 0.04]
    assert native["mean_s"] == pytest.approx(0.025)
    assert native["median_s"] == pytest.approx(0.025)
    assert native["p90_s"] == pytest.approx(np.percentile(times, 90)) == pytest.approx(0.037)
    assert native["p99_s"] == pytest.approx(np.percentile(times, 99))
    assert native["max_s"] == pytest.approx(0.04)
    assert native["total_s"] == pytest.approx(0.1)
    assert native["puzzles_per_s"] == pytest.approx(40)
    assert (native["mean_nodes"], native["mean_guesses"]) == (2.5, 1.5)

    cpsat = rows[("easy", "cpsat")]  # the timeout counts at its stopped time
    assert cpsat["mean_s"] == pytest.approx(0.775)
    assert cpsat["median_s"] == pytest.approx(0.45)
    assert np.isnan(cpsat["mean_nodes"]) and np.isnan(cpsat["mean_guesses"])

    backtracking = rows[("easy", "backtracking")]  # the error row has no counters
    assert backtracking["mean_s"] == pytest.approx(0.20025)
    assert backtracking["mean_nodes"] == pytest.approx(50 / 3)
    assert backtracking["mean_guesses"] == pytest.approx(80 / 3)

    hard = rows[("hard", "native")]  # repeats are rows
    assert hard["mean_s"] == pytest.approx(0.4)
    assert hard["p90_s"] == pytest.approx(np.percentile([0.1, 0.3, 0.5, 0.7], 90))
    assert hard["puzzles_per_s"] == pytest.approx(2.5)


def test_summary_fractions_within_bounds(results):
    table = summary(results).set_index(["set", "backend"])
    within = table[["under_100ms", "under_500ms", "under_1s"]]
    assert within.loc[("easy", "native")].tolist() == [1.0, 1.0, 1.0]
    assert within.loc[("easy", "cpsat")].tolist() == [0.0, 0.5, 0.75]  # a timeout never counts
    # the error at 1 ms does not count; the wrong answer has status solved, so it does
    assert within.loc[("easy", "backtracking")].tolist() == [0.5, 0.5, 0.75]
    # strictly under the bound: 0.1 s is not under 0.1 s
    assert within.loc[("hard", "native")].tolist() == [0.0, 0.5, 1.0]
    # an 'unsolvable' verdict is not a solve, however fast
    assert within.loc[("hard", "cpsat")].tolist() == [0.0, 0.5, 0.5]


def _paired_ratio(results, set_name, backend, baseline):
    """The baseline's mean over the backend's on the puzzles both timed (an error row has
    no time to compare), each puzzle the median of its repeats."""
    timed = results[results["status"].isin(["solved", "unsolvable", "multiple", "timeout"])]
    one = timed[timed["set"] == set_name]
    per = one.groupby(["backend", "idx"])["time"].median()
    mine, base = per.loc[backend], per.loc[baseline]
    common = mine.index.intersection(base.index)
    return base.loc[common].mean() / mine.loc[common].mean()


def test_summary_against_a_baseline(results):
    table = summary(results, baseline="native")
    ratios = {pair: r["vs_baseline"] for pair, r in by_pair(table).items()}
    # on the puzzles both answered: backtracking's error on one easy puzzle leaves it out
    assert ratios == pytest.approx(
        {
            ("easy", "native"): 1.0,
            ("easy", "cpsat"): 0.025 / 0.775,
            ("easy", "backtracking"): _paired_ratio(results, "easy", "backtracking", "native"),
            ("hard", "native"): 1.0,
            ("hard", "cpsat"): 3.2,
        }
    )
    assert ratios["easy", "backtracking"] != pytest.approx(0.025 / 0.20025)  # all rows'
    lows, highs = table["vs_baseline_low"], table["vs_baseline_high"]
    assert ((lows <= table["vs_baseline"]) | lows.isna()).all()
    assert ((table["vs_baseline"] <= highs) | highs.isna()).all()
    # a baseline that ran only one set leaves the other set's ratios empty
    only_easy = summary(results, baseline="backtracking")
    assert only_easy.loc[only_easy["set"] == "hard", "vs_baseline"].isna().all()
    with pytest.raises(ValueError, match="'gurobi' is not among the backends: native, cpsat"):
        summary(results, baseline="gurobi")


def test_summary_reads_flags_and_counters_as_sqlite_returns_them(results):
    """0/1 and NaN for the flags, no counter columns at all: the same counts."""
    stored = results.drop(columns=["nodes", "guesses"])
    stored["verified"] = stored["verified"].map({True: 1.0, False: 0.0, None: np.nan})
    stored["agrees"] = stored["agrees"].astype(float)
    table = summary(stored)
    assert table["wrong"].tolist() == summary(results)["wrong"].tolist() == [0, 0, 1, 0, 1]
    assert table["mean_nodes"].isna().all() and table["mean_guesses"].isna().all()


def test_summary_of_no_rows_is_an_empty_table(results):
    assert summary(results.iloc[:0]).empty


def test_compare_two_runs(results):
    new = results[results["backend"] != "backtracking"].copy()
    new.loc[new["backend"] == "native", "time"] /= 2
    extra = [row("easy", i, "native:order=first", "solved", 0.5) for i in range(2)]
    new = pd.concat([new, pd.DataFrame(extra)], ignore_index=True)
    table = compare(results, new)
    assert isinstance(table.index, pd.RangeIndex)
    assert render(table).splitlines()[0].split()[:4] == ["set", "backend", "old", "mean"]
    assert list(zip(table["set"], table["backend"], strict=True)) == [
        ("easy", "native"),
        ("easy", "cpsat"),
        ("easy", "backtracking"),
        ("easy", "native:order=first"),
        ("hard", "native"),
        ("hard", "cpsat"),
    ]
    rows = by_pair(table)
    native = rows[("easy", "native")]
    assert (native["old_mean_s"], native["new_mean_s"]) == pytest.approx((0.025, 0.0125))
    assert (native["old_median_s"], native["new_median_s"]) == pytest.approx((0.025, 0.0125))
    assert native["ratio"] == pytest.approx(2.0)  # the new run is twice as fast
    assert rows[("easy", "cpsat")]["ratio"] == pytest.approx(1.0)
    assert rows[("hard", "native")]["ratio"] == pytest.approx(2.0)
    assert (native["old_solved"], native["new_solved"]) == (4, 4)
    gone, added = rows[("easy", "backtracking")], rows[("easy", "native:order=first")]
    assert gone["old_solved"] == 3 and np.isnan(gone["new_solved"]) and np.isnan(gone["ratio"])
    assert np.isnan(added["old_mean_s"]) and added["new_mean_s"] == pytest.approx(0.5)
    assert added["new_solved"] == 2 and np.isnan(added["ratio"])


def test_significant_digits():
    assert [significant(v) for v in (0.0123456, 12.345, 1234.6, 0, 1.0)] == [
        "0.0123",
        "12.3",
        "1,235",
        "0",
        "1.00",
    ]


def test_render_table_and_markdown_for_people(results):
    table = summary(results, baseline="native")
    text = render(table, "table")
    header = text.splitlines()[0]
    assert "mean ms" in header and "p90 ms" in header and "< 0.1 s" in header
    native = next(line for line in text.splitlines() if line.split()[:2] == ["easy", "native"])
    # 25.0 ms mean, 37.0 ms p90, 100% under every bound, the baseline itself
    assert "25.0" in native.split() and "37.0" in native.split()
    assert "100.0%" in native.split() and "1.00x" in native.split()
    assert render(table) == text  # table is the default

    lines = render(table, "markdown").splitlines()
    assert len(lines) == 2 + len(table)
    assert [cell.strip() for cell in lines[0].strip("|").split("|")][:2] == ["set", "backend"]
    assert "|   mean ms |" in lines[0]
    assert set(lines[1]) <= set("|:- ")
    assert all(line.startswith("|") and line.endswith("|") for line in lines)
    cpsat = [cell.strip() for cell in lines[3].strip("|").split("|")]
    assert cpsat[:2] == ["easy", "cpsat"] and "75.0%" in cpsat and "-" in cpsat  # no nodes


def test_render_csv_and_json_read_back(results):
    table = summary(results, baseline="native")
    back = pd.read_csv(io.StringIO(render(table, "csv")))
    pd.testing.assert_frame_equal(back, table, check_dtype=False)
    records = json.loads(render(table, "json"))
    assert [r["backend"] for r in records] == table["backend"].tolist()
    assert records[0]["mean_s"] == pytest.approx(0.025)
    assert records[1]["mean_nodes"] is None  # NaN becomes null


class _Cells(HTMLParser):
    """Collects the text of each table cell, row by row."""

    def __init__(self):
        super().__init__()
        self.rows: list[list[str]] = []
        self.tables = 0

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables += 1
        elif tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.rows[-1].append("")

    def handle_data(self, data):
        if self.rows and self.rows[-1]:
            self.rows[-1][-1] += data


def test_render_html_is_a_table(results):
    table = summary(results)
    parser = _Cells()
    parser.feed(render(table, "html"))
    assert parser.tables == 1 and len(parser.rows) == 1 + len(table)
    assert parser.rows[0][:2] == ["set", "backend"] and "mean ms" in parser.rows[0]
    assert parser.rows[1][:2] == ["easy", "native"]
    escaped = pd.DataFrame({"backend": ["<b>&"]})
    assert "&lt;b&gt;&amp;" in render(escaped, "html")


def test_render_any_frame_and_unknown_formats(results):
    indexed = summary(results).set_index(["set", "backend"])
    assert render(indexed, "table").splitlines()[0].split()[:2] == ["set", "backend"]
    plain = pd.DataFrame({"name": ["a", None], "n": [3, 4], "x": [0.5, np.nan]})
    rows = [line.split() for line in render(plain, "table").splitlines()]
    assert rows == [
        ["name", "n", "x"],
        ["------", "---", "-----"],
        ["a", "3", "0.500"],
        ["-", "4", "-"],
    ]
    for fmt in FORMATS:
        assert render(plain, fmt)
    with pytest.raises(ValueError, match="'xlsx': choose one of table, markdown, csv, html, json"):
        render(plain, "xlsx")


def test_machine_text_names_everything():
    runs = make_runs()
    assert machine_text(runs.iloc[0]) == (
        "lab-pc, Intel i5, 8 cores, Python 3.12.1, sudokulab 0.1.0, ortools 9.10.4, git 4caed56"
    )
    assert machine_text(runs.iloc[1]).endswith("git unknown")
    assert machine_text({"machine": "box"}) == "box, git unknown"


def test_markdown_report(results):
    runs = make_runs()
    plots = {"cumulative": "plots/cumulative.png", "data": "plots/mean-time.csv"}
    text = markdown_report(results, runs, baseline="native", plots=plots)
    assert text.startswith("# sudokulab bench report\n")
    assert f"- run 1: {machine_text(runs.iloc[0])} (started 2025-01-02T10:00:00)" in text
    assert '"repeat": 2' in text
    assert machine_text(runs.iloc[1]) not in text  # run 2 is not in these results
    assert render(summary(results, baseline="native"), "markdown") in text
    assert "## Wrong answers" in text and "| hard  |     1 | cpsat" in text
    assert "![cumulative](plots/cumulative.png)" in text
    assert "[data](plots/mean-time.csv)" in text and "![data]" not in text


def test_a_report_shows_the_hosts_when_rows_ran_on_several(results):
    runs = make_runs()
    assert "## By host" not in markdown_report(results, runs)  # no worker column
    one = results.assign(worker=[f"lab1:{100 + i % 3}" for i in range(len(results))])
    assert by_host(one) is None and "## By host" not in markdown_report(one, runs)
    hosts = np.where(np.arange(len(results)) % 2 == 0, "lab1:7", "lab2.example.org:7")
    two = results.assign(worker=hosts)
    table = by_host(two)
    assert set(table["host"]) == {"lab1", "lab2.example.org"}
    assert table["rows"].sum() == len(results)
    for _, row in table.iterrows():
        mine = two[(two["backend"] == row["backend"]) & (two["worker"].str[:4] == row["host"][:4])]
        assert row["rows"] == len(mine)
        assert row["mean ms"] == pytest.approx(mine["time"].astype(float).mean() * 1000)
    assert "## By host" in markdown_report(two, runs)


def test_plots_are_written(results, tmp_path):
    out = tmp_path / "nested" / "plots"
    cumulative = plot_cumulative(results, out)
    means = plot_means(results, out, stem="means")
    assert [p.name for p in cumulative] == ["cumulative.png", "cumulative.svg"]
    assert [p.name for p in means] == ["means.png", "means.svg"]
    for path in cumulative + means:
        data = path.read_bytes()
        assert len(data) > 1000
        if path.suffix == ".png":
            assert data.startswith(PNG_SIGNATURE)
        else:
            assert b"<svg" in data[:2000]
    # one set, one backend, nothing solved: still a figure, not a crash
    failed = results[(results["set"] == "hard") & (results["backend"] == "cpsat")].copy()
    failed["status"] = "timeout"
    assert all(p.stat().st_size > 0 for p in plot_cumulative(failed, tmp_path, "failed"))
    with pytest.raises(ValueError, match="no results"):
        plot_means(results.iloc[:0], tmp_path)


def test_log_scale_only_for_a_wide_spread():
    assert log_scale_needed([0.01, 1.0])
    assert not log_scale_needed([0.5, 1.0, 2.0])
    assert not log_scale_needed([0.0, 5.0, float("nan")])


def png_size(path) -> tuple[int, int]:
    """A PNG's width and height in pixels, from its header."""
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    return struct.unpack(">II", data[16:24])


def svg_texts(path) -> tuple[dict[tuple[int, int], str], list[str]]:
    """The mean-time SVG's cell texts by (row, column), and every text in it."""
    svg = "{http://www.w3.org/2000/svg}"
    root = ET.parse(path).getroot()
    cells = {}
    for group in root.iter(f"{svg}g"):
        gid = group.get("id", "")
        if gid.startswith("mean-"):
            row, col = map(int, gid.split("-")[1:])
            cells[row, col] = "".join(group.itertext()).strip()
    return cells, ["".join(t.itertext()).strip() for t in root.iter(f"{svg}text")]


def grid_results(sets: int, backends: int) -> pd.DataFrame:
    """Two puzzles per (set, backend), means from 10 µs to 10 s, a timeout every 7th pair."""
    rows = []
    for s in range(sets):
        for b in range(backends):
            mean = 10 ** (-5 + 6 * ((s * backends + b) % 13) / 12)
            for idx in range(2):
                timeout = idx == 1 and (s + b) % 7 == 0
                name = f"backend-{b}:order=first"
                rows.append(
                    row(f"set-{s:02d}", idx, name, "timeout" if timeout else "solved", mean)
                )
    return pd.DataFrame(rows)


def test_mean_time_writes_each_pair_in_its_cell(results, tmp_path):
    png, svg = plot_means(results, tmp_path)
    cells, texts = svg_texts(svg)
    # rows: easy, hard; columns: native, cpsat, backtracking (summary's order)
    assert cells == {
        (0, 0): "25.0 ms",
        (0, 1): "≥775 ms",  # a timeout: the mean is a lower bound
        (0, 2): "200 ms",
        (1, 0): "400 ms",
        (1, 1): "125 ms",
        (1, 2): "-",  # backtracking did not run the hard set
    }
    assert {"native", "cpsat", "backtracking", "easy (4)", "hard (2)"} <= set(texts)
    assert any("lower bound" in t and "not run" in t for t in texts)


def test_mean_time_in_seconds_and_without_notes_when_nothing_is_missing(results, tmp_path):
    native = results[results["backend"] == "native"].copy()
    native.loc[native["set"] == "hard", "time"] *= 10
    _, svg = plot_means(native, tmp_path)
    cells, texts = svg_texts(svg)
    assert cells == {(0, 0): "25.0 ms", (1, 0): "4.00 s"}
    assert not any("lower bound" in t or "not run" in t for t in texts)


def test_mean_time_stays_readable_for_many_sets_and_backends(tmp_path):
    dpi = STYLE["savefig.dpi"]
    largest = (MAX_FIGURE[0] * dpi, MAX_FIGURE[1] * dpi)
    main_job = png_size(plot_means(grid_results(12, 8), tmp_path, "main")[0])
    many = grid_results(30, 12)
    png, svg = plot_means(many, tmp_path, "many")
    width, height = png_size(png)
    assert width <= largest[0] and height <= largest[1]
    assert main_job[0] <= width and main_job[1] <= height  # it grows, gently
    assert main_job[0] <= 2400 and main_job[1] <= 1200  # the old bars: 12,165 x 900
    cells, texts = svg_texts(svg)
    assert len(cells) == 30 * 12
    table = summary(many)
    for r, s in enumerate(dict.fromkeys(many["set"])):
        for c, b in enumerate(dict.fromkeys(many["backend"])):
            pair = table[(table["set"] == s) & (table["backend"] == b)].iloc[0]
            mark = "≥" if pair["timeouts"] else ""
            mean = pair["mean_s"]
            value = f"{significant(mean)} s" if mean >= 1 else f"{significant(mean * 1000)} ms"
            assert cells[r, c] == mark + value


# --- plots: every backend its own line, one time axis, every mark explained -------------


def captured_figure(monkeypatch, draw, *args):
    """The figure a plot function draws (its files are not written)."""
    from sudokulab.bench import plots

    figures = []
    monkeypatch.setattr(plots, "_save", lambda figure, out, stem: figures.append(figure) or [])
    draw(*args)
    return figures[0]


@pytest.mark.parametrize("count", [3, 10, 17, 20, 33])
def test_every_backend_has_a_colour_of_its_own(count):
    from sudokulab.bench.plots import _styles

    colours = [s["color"] for s in _styles([f"b{i}" for i in range(count)]).values()]
    assert len(set(map(tuple, colours))) == count


def test_sixteen_backends_each_have_a_line_of_their_own(monkeypatch, tmp_path):
    from sudokulab.bench.plots import _styles

    names = [f"backend-{i}" for i in range(16)]
    looks = [(s["color"], str(s["linestyle"]), s["marker"]) for s in _styles(names).values()]
    assert len(set(looks)) == 16
    for i, a in enumerate(looks):  # one colour: another line style and another marker
        for b in looks[i + 1 :]:
            assert a[0] != b[0] or (a[1] != b[1] and a[2] != b[2]), (a, b)
    many = grid_results(2, 16)
    figure = captured_figure(monkeypatch, plot_cumulative, many, tmp_path)
    [legend] = figure.legends
    labels = [t.get_text() for t in legend.get_texts()]
    assert labels[:16] == [f"backend-{i}:order=first" for i in range(16)]
    handles = legend.legend_handles[:16]
    assert (
        len({(str(h.get_color()), str(h.get_linestyle()), h.get_marker()) for h in handles}) == 16
    )


def test_the_cumulative_panels_share_one_time_axis_and_explain_the_dotted_marks(
    monkeypatch, tmp_path, results
):
    fast = results[results["set"] == "easy"].assign(set="fast")
    fast["time"] = fast["time"] / 1000  # microseconds, where the others take 0.1 s
    both = pd.concat([results, fast], ignore_index=True)
    figure = captured_figure(monkeypatch, plot_cumulative, both, tmp_path)
    shown = [ax for ax in figure.axes if ax.get_visible() and ax.get_title()]
    assert [ax.get_title() for ax in shown] == ["easy (4 puzzles)", "hard (2 puzzles)",
                                                "fast (4 puzzles)"]  # fmt: skip
    assert len({ax.get_xlim() for ax in shown}) == 1
    low, high = shown[0].get_xlim()
    assert low <= both["time"].min() and high >= both["time"].max()
    [legend] = figure.legends
    assert "time marks: 0.1 s, 0.5 s, 1 s" in [t.get_text() for t in legend.get_texts()]


def test_every_text_states_the_one_rule_for_a_timeouts_time(results, tmp_path):
    from sudokulab.backends.isolation import GRACE

    rule = "a timeout counts at the time it took (at most the timeout plus the kill margin, "
    rule += f"{GRACE:g} s)"
    assert rule in markdown_report(results, make_runs()).replace("\n", " ")
    _, svg = plot_means(results, tmp_path)
    _, texts = svg_texts(svg)
    assert any(f"a timeout counts at the time it took, ≤ timeout + {GRACE:g} s" in t for t in texts)


# --- reports in SQL: the rows stay where they are ----------------------------------------


def test_a_report_reads_its_tables_not_its_rows(tmp_path, monkeypatch):
    """A store of 6,000 rows: every table, the Markdown report and both plots fetch a few
    hundred rows from SQLite in all (the curves drawn through at most POINTS steps), and
    the 95% intervals an even sample of at most MAX_PUZZLES puzzles per set and backend."""
    from sudokulab.bench import plots, stats
    from sudokulab.bench.store import ChunkRows, Rows, Store

    monkeypatch.setattr(plots, "POINTS", 50)
    monkeypatch.setattr(stats, "MAX_PUZZLES", 40)  # 2,000 puzzles: every 50th
    with Store(tmp_path / "results.sqlite") as store:
        for b, backend in enumerate(("native", "cpsat", "backtracking")):
            for start in range(0, 2000, 500):
                rows = [
                    (i, 0, "solved" if i % 7 else "timeout", "1" * 81, 1, 1, None,
                     (i % 97 + 1) / 1000 * (b + 1), 0.0, 0.0, i % 13, i % 5, 0, None, None,
                     None, None, None, None, None, None)
                    for i in range(start, start + 500)
                ]  # fmt: skip
                puzzles = [(i, "." * 81) for i in range(start, start + 500)]
                chunk = ChunkRows("big", backend, f"vm:{b}", None, puzzles, rows)
                if store.run_ids():
                    store.add_rows(1, chunk)
                else:
                    store.start_run({"sets": ["big"]}, None, chunk)
        store.write_agreement(1)
        fetched = []
        query = Rows.query

        def counted(self, sql, params=()):
            out = query(self, sql, params)
            fetched.append(len(out))
            return out

        monkeypatch.setattr(Rows, "query", counted)
        rows = store.rows([1])
        table = summary(rows)
        markdown_report(rows, store.runs([1]))
        plot_cumulative(rows, tmp_path)
        plot_means(rows, tmp_path)
    assert table["runs"].tolist() == [2000, 2000, 2000]
    assert sum(fetched) < 600 + 3 * 40, fetched


def test_cpu_time_and_peak_memory_per_set_and_backend_where_measured(results):
    # the rows say what each used; a row without (not measured) counts in neither
    measured = results.assign(cpu_s=results["time"] * 2, peak_mb=np.nan)
    native = measured["backend"] == "native"
    measured.loc[native, "peak_mb"] = 100.0 + measured.loc[native, "idx"]
    measured.loc[measured["backend"] == "cpsat", "cpu_s"] = None
    table = by_pair(summary(measured))
    easy = table[("easy", "native")]
    assert easy["mean_cpu_s"] == pytest.approx(0.05)  # twice the mean wall time, 0.025
    assert easy["mean_cpu_low_s"] <= easy["mean_cpu_s"] <= easy["mean_cpu_high_s"]
    assert easy["peak_mb"] == 103.0 and table[("hard", "native")]["peak_mb"] == 101.0
    cpsat = table[("easy", "cpsat")]
    assert np.isnan(cpsat["mean_cpu_s"]) and np.isnan(cpsat["peak_mb"])
    text = render(summary(measured), "table")
    assert "mean CPU ms" in text and "peak MB" in text
    # rows of a store made before the columns: nothing measured, said as "-"
    old = by_pair(summary(results))
    assert all(np.isnan(r["mean_cpu_s"]) and np.isnan(r["peak_mb"]) for r in old.values())
    records = json.loads(render(summary(measured), "json"))
    assert records[0]["mean_cpu_s"] == pytest.approx(0.05) and records[1]["peak_mb"] is None
    back = pd.read_csv(io.StringIO(render(summary(measured), "csv")))
    assert {"mean_cpu_s", "mean_cpu_low_s", "mean_cpu_high_s", "peak_mb"} <= set(back)
    assert "not measured" in markdown_report(measured, pd.DataFrame())


def test_compare_needs_no_interval_of_either_run(results, monkeypatch):
    # the side-by-side table shows means, medians and solved counts of each run: the
    # bootstrap it runs is the paired one, never each run's summary intervals
    from sudokulab.bench import stats

    def refused(*args, **kwargs):
        raise AssertionError("a summary interval was computed")

    new = results.assign(time=results["time"] / 2)
    expected = compare(results, new)
    monkeypatch.setattr(stats, "intervals", refused)
    monkeypatch.setattr(stats, "cpu_intervals", refused)
    got = compare(results, new)
    pd.testing.assert_frame_equal(got, expected)
    assert by_pair(got)[("easy", "native")]["ratio"] == pytest.approx(2.0)


class _Images(HTMLParser):
    """Collects the ``src`` of every image and the text of every heading."""

    def __init__(self):
        super().__init__()
        self.images: list[str] = []
        self.headings: list[str] = []
        self._heading = False

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs)["src"])
        self._heading = tag in ("h1", "h2")

    def handle_data(self, data):
        if self._heading:
            self.headings.append(data)
            self._heading = False


def test_the_html_report_is_one_file_with_its_plots_inside(tmp_path, capsys):
    import base64

    out = tmp_path / "out"
    args = ["bench", "seeds", "--backends", "native,constraint", "--out", str(out),
            "--baseline", "constraint"]  # fmt: skip
    assert main(args) == 0
    capsys.readouterr()
    folder = out / "run-1"
    page = (folder / "report.html").read_text()
    parser = _Images()
    parser.feed(page)
    pngs = sorted(p.name for p in folder.glob("*.png"))
    assert len(pngs) >= 4 and len(parser.images) == len(pngs)
    for src in parser.images:  # every image is inside the page, none a file beside it
        head, _, data = src.partition(",")
        assert head == "data:image/png;base64"
        assert base64.b64decode(data).startswith(PNG_SIGNATURE)
    assert {"Summary", "Against constraint, puzzle by puzzle", "Plots"} <= set(parser.headings)
    cells = _Cells()
    cells.feed(page)
    header = cells.rows[0]
    assert "mean CPU ms" in header and "peak MB" in header
    native = cells.rows[1]
    assert native[1] == "native" and native[header.index("mean CPU ms")] != "-"
    assert 'src="' + pngs[0] not in page  # no link to a file
    # A report written again without plots keeps those drawn before, in report.md too.
    markdown = (folder / "report.md").read_text()
    assert main(["report", "--out", str(out), "--no-plots", "--format", "csv", *args[-2:]]) == 0
    assert "with the plots drawn before" in capsys.readouterr().err
    again = _Images()
    again.feed((folder / "report.html").read_text())
    assert again.images == parser.images
    assert (folder / "report.md").read_text() == markdown
    # Plots drawn before the run's last rows (a resume since) are stale: left out.
    for png in folder.glob("*.png"):
        os.utime(png, (0, 0))
    assert main(["report", "--out", str(out), "--no-plots", "--format", "csv", *args[-2:]]) == 0
    stale = _Images()
    stale.feed((folder / "report.html").read_text())
    assert stale.images == [] and ".png" not in (folder / "report.md").read_text()
