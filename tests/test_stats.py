"""Statistics of the reports on synthetic runs with known answers: intervals, paired tests,
censored timeouts, repeats, the sample bound."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import sudokulab
from sudokulab.bench import stats

PUZZLES = 300


def _rows(times: dict[str, np.ndarray], repeats: int = 1, set_name: str = "s") -> pd.DataFrame:
    """Result rows of one run: each backend's time per puzzle (one row per repeat)."""
    records = []
    for backend, seconds in times.items():
        for idx, t in enumerate(seconds):
            for repeat in range(repeats):
                records.append(
                    {"set": set_name, "backend": backend, "idx": idx, "repeat": repeat,
                     "status": "solved", "time": float(t)}
                )  # fmt: skip
    return pd.DataFrame(records)


def _base(seed: int = 1, n: int = PUZZLES) -> np.ndarray:
    return np.random.default_rng(seed).lognormal(-7, 0.8, n)


def test_an_injected_slowdown_is_found_with_an_interval_around_it():
    rng = np.random.default_rng(2)
    fast = _base()
    slow = fast * 1.5 * rng.lognormal(0, 0.1, PUZZLES)
    frame = stats.compare(_rows({"a": fast, "b": slow}), baseline="b")
    (row,) = frame.to_dict("records")
    assert (row["a"], row["b"], row["puzzles"]) == ("a", "b", PUZZLES)
    true_ratio = slow.mean() / fast.mean()
    assert row["ratio"] == pytest.approx(true_ratio)
    assert row["ratio_low"] < true_ratio < row["ratio_high"]
    assert row["ratio_low"] > 1.35 and row["ratio_high"] < 1.7
    assert row["significant"] and row["p_value"] < 1e-6
    assert row["verdict"].startswith("a faster than b by 1.5")
    assert "significant" in row["verdict"] and "no significant" not in row["verdict"]


def test_two_copies_of_one_run_differ_in_nothing():
    run = _rows({"a": _base(), "b": _base(3)})
    frame = stats.compare(run, run.copy())
    assert list(frame["a"]) == ["a (new)", "b (new)"] and list(frame["b"]) == ["a (old)", "b (old)"]
    assert (frame["ratio"] == 1).all() and (frame["p_value"] == 1).all()
    assert not frame["significant"].any()
    assert frame["verdict"].str.startswith("no significant difference").all()


def test_noise_alone_is_not_significant():
    rng = np.random.default_rng(4)
    base = _base()
    one, two = base * rng.lognormal(0, 0.2, PUZZLES), base * rng.lognormal(0, 0.2, PUZZLES)
    result = stats.paired(
        stats.Times(np.arange(PUZZLES), one, np.zeros(PUZZLES, bool)),
        stats.Times(np.arange(PUZZLES), two, np.zeros(PUZZLES, bool)),
    )
    assert result.ratio.low < 1 < result.ratio.high
    assert not result.significant


def test_timeouts_are_censored_not_dropped():
    fast = _base()
    slow = fast * 2
    frame = _rows({"a": fast, "b": slow})
    stopped = (frame["backend"] == "b") & (frame["idx"] < 10)
    frame.loc[stopped, "status"] = "timeout"
    frame.loc[stopped, "time"] = 0.5  # stopped at the deadline: a lower bound
    errors = (frame["backend"] == "a") & (frame["idx"] == PUZZLES - 1)
    frame.loc[errors, "status"] = "error"  # an error carries no time to compare
    times = stats.puzzle_times(frame)
    assert len(times["s", "b"]) == PUZZLES and int(times["s", "b"].censored.sum()) == 10
    assert len(times["s", "a"]) == PUZZLES - 1
    (row,) = stats.compare(frame, baseline="b").to_dict("records")
    assert row["puzzles"] == PUZZLES - 1 and row["censored_b"] == 10
    assert "b: 10 timeouts counted at the deadline" in row["verdict"]
    expected = np.r_[np.full(10, 0.5), slow[10 : PUZZLES - 1]].mean()
    assert row["b_mean_s"] == pytest.approx(expected)
    table = stats.intervals(frame).set_index("backend")
    assert table.loc["b", "censored"] == 10 and table.loc["a", "censored"] == 0


def test_a_puzzle_counts_the_median_of_its_repeats():
    base = _base(n=50)
    frame = _rows({"a": base}, repeats=3)
    outlier = (frame["repeat"] == 2) & (frame["idx"] % 2 == 0)
    frame.loc[outlier, "time"] *= 100  # one repeat in three disturbed: the median ignores it
    times = stats.puzzle_times(frame)["s", "a"]
    assert np.allclose(times.seconds, base)
    frame.loc[frame["repeat"] >= 1, "status"] = "timeout"  # two of three stopped: censored
    assert stats.puzzle_times(frame)["s", "a"].censored.all()


def test_interval_of_a_known_mean():
    values = np.random.default_rng(5).normal(10, 1, 2000)
    mean = stats.interval(values, "mean")
    half = 1.96 / math.sqrt(2000)
    assert mean.low < 10 < mean.high
    assert (mean.high - mean.low) / 2 == pytest.approx(half, rel=0.2)
    median = stats.interval(values, "median")
    assert median.low < 10 < median.high
    single = stats.interval([3.0])
    assert single.estimate == 3.0 and math.isnan(single.low) and math.isnan(single.high)
    with pytest.raises(ValueError, match="unknown statistic"):
        stats.interval(values, "mode")


def test_large_sets_are_sampled_evenly_and_alike(monkeypatch):
    monkeypatch.setattr(stats, "MAX_PUZZLES", 100)
    frame = _rows({"a": _base(n=1000), "b": _base(6, n=1000)})
    times = stats.puzzle_times(frame)
    assert len(times["s", "a"]) == 100
    assert np.array_equal(times["s", "a"].idx, times["s", "b"].idx)
    assert np.array_equal(times["s", "a"].idx, np.arange(0, 1000, 10))


def test_compare_in_the_api_and_its_errors():
    run = _rows({"a": _base(), "b": _base() * 3})
    frame = sudokulab.compare(run, baseline="b")
    assert list(frame.columns) == stats.PAIRED_COLUMNS and bool(frame["significant"].iloc[0])
    with pytest.raises(ValueError, match="not among the backends"):
        sudokulab.compare(run, baseline="nobody")
    with pytest.raises(ValueError, match="either a second run"):
        sudokulab.compare(run)


# --- the field's plots ---------------------------------------------------------------------


def _texts(path) -> list[str]:
    import xml.etree.ElementTree as ET

    root = ET.parse(path).getroot()
    return ["".join(t.itertext()).strip() for t in root.iter("{http://www.w3.org/2000/svg}text")]


def _field_run() -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Two sets, three backends: a fastest on every puzzle, b 2x a, c 10x a with two
    timeouts."""
    a1, a2 = _base(7, 40), _base(8, 30)
    one = _rows({"a": a1, "b": 2 * a1, "c": 10 * a1}, set_name="one")
    two = _rows({"a": a2, "b": 2 * a2, "c": 10 * a2}, set_name="two")
    frame = pd.concat([one, two], ignore_index=True)
    stopped = (frame["backend"] == "c") & (frame["set"] == "one") & (frame["idx"] < 2)
    frame.loc[stopped, "status"] = "timeout"
    return frame, a1, a2


def test_performance_profile_ratios():
    from sudokulab.bench.plots import profile_ratios

    frame, _, _ = _field_run()
    ratios = profile_ratios(frame)
    assert np.allclose(ratios["a"], 1.0) and len(ratios["a"]) == 70
    assert np.allclose(ratios["b"], 2.0)
    assert np.allclose(ratios["c"][:68], 10.0) and np.isinf(ratios["c"][68:]).all()


def test_a_set_a_backend_skipped_is_out_of_its_profile_not_unanswered(tmp_path):
    from sudokulab.bench.plots import plot_profile, profile_ratios, skipped_pairs

    frame, _, _ = _field_run()
    frame = frame[~((frame["backend"] == "b") & (frame["set"] == "two"))]  # b skipped two
    ratios = profile_ratios(frame)
    assert len(ratios["b"]) == 40 and np.allclose(ratios["b"], 2.0)  # one's 40, all answered
    assert len(ratios["a"]) == 70
    assert skipped_pairs(frame) == [("two", "b")]
    plot_profile(frame, tmp_path)
    assert "not run: b on two" in (tmp_path / "profile.svg").read_text()


def test_cactus_points_leave_timeouts_out():
    from sudokulab.bench.plots import cactus_points

    frame, a1, a2 = _field_run()
    points = cactus_points(frame)
    assert np.allclose(points["a"], np.sort(np.r_[a1, a2]))
    assert len(points["c"]) == 68 and np.all(np.diff(points["c"]) >= 0)


def test_field_plots_are_written_and_titled(tmp_path):
    from sudokulab.bench.plots import plot_cactus, plot_profile, plot_scatter

    frame, _, _ = _field_run()
    paths = plot_cactus(frame, tmp_path) + plot_profile(frame, tmp_path)
    paths += plot_scatter(frame, "a", "c", tmp_path)
    assert sorted(p.name for p in paths) == sorted(
        f"{stem}.{ext}"
        for stem in ("cactus", "profile", "scatter-a-vs-c")
        for ext in ("png", "svg")
    )
    assert all(p.stat().st_size > 0 for p in paths)
    assert any("Cactus plot" in t for t in _texts(tmp_path / "cactus.svg"))
    assert any("Dolan and Moré" in t for t in _texts(tmp_path / "profile.svg"))
    scatter = _texts(tmp_path / "scatter-a-vs-c.svg")
    assert any("c against a" in t for t in scatter) and "one" in scatter and "two" in scatter
    with pytest.raises(ValueError, match="no timed rows of backend 'z'"):
        plot_scatter(frame, "a", "z", tmp_path)


def test_the_spread_of_repeats():
    base = _base(n=40)
    frame = _rows({"a": base}, repeats=3)
    wobble = (frame["repeat"] == 1) & (frame["idx"] < 10)
    frame.loc[wobble, "time"] *= 1.5  # 10 of 40 puzzles: one repeat of three 50% slower
    frame.loc[(frame["repeat"] == 2) & (frame["idx"] < 10), "time"] *= 0.7
    (row,) = stats.intervals(frame).to_dict("records")
    assert row["spread_over_10pct"] == pytest.approx(10 / 40)
    assert row["spread"] == 0  # most puzzles do not move at all
    from sudokulab.bench.report import summary

    table = summary(frame)
    assert table["spread_over_10pct"].iloc[0] == pytest.approx(0.25)
    assert math.isnan(stats.intervals(_rows({"a": base})).iloc[0]["spread"])  # one repeat


@pytest.mark.parametrize("statistic", ["mean", "median"])
def test_the_bootstrap_is_scipys_percentile_bootstrap(statistic):
    from scipy.stats import bootstrap

    rng = np.random.default_rng(7)
    values = rng.lognormal(-6, 1.5, 400)
    ours = stats.interval(values, statistic)
    function = {"mean": np.mean, "median": np.median}[statistic]
    theirs = bootstrap((values,), function, method="percentile", n_resamples=4000,
                       random_state=np.random.default_rng(1)).confidence_interval  # fmt: skip
    width = theirs.high - theirs.low
    assert abs(ours.low - theirs.low) < 0.15 * width and abs(ours.high - theirs.high) < 0.15 * width
    paired = stats.percentile_bootstrap(
        (values, 2 * values), lambda a, b, axis: np.mean(b, axis) / np.mean(a, axis)
    )
    assert paired == (pytest.approx(2.0), pytest.approx(2.0))  # a paired draw: the ratio holds
