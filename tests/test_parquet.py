"""`sudokulab report --parquet`: a run's rows for analysis elsewhere, read back whole."""

from __future__ import annotations

import importlib.util
import json

import pandas as pd
import pytest

from sudokulab.bench.store import RESULT_COLUMNS, Store
from sudokulab.cli import main

pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is in the test extra")


@pytest.fixture
def store_dir(tmp_path, capsys):
    out = tmp_path / "out"
    args = ["bench", "seeds", "gen-4x4", "--out", str(out), "--backends", "native,dlx",
            "--no-plots", "--repeats", "2"]  # fmt: skip
    assert main(args) == 0
    capsys.readouterr()
    return out


def test_report_writes_every_row_and_the_machine(store_dir, capsys):
    path = store_dir / "rows.parquet"
    assert main(["report", "--out", str(store_dir), "--no-plots", "--parquet", str(path)]) == 0
    err = capsys.readouterr().err
    table = pq.read_table(path)
    with Store(store_dir / "results.sqlite") as store:
        expected = store.results([1])
        runs = store.runs([1])
    assert f"parquet: {len(expected)} rows of run 1 in {path}" in err
    assert table.schema.names == list(RESULT_COLUMNS)
    got = table.to_pandas()
    assert len(got) == len(expected) > 0
    for column in ("set", "backend", "idx", "repeat", "status", "solution", "puzzle"):
        assert got[column].tolist() == expected[column].tolist(), column
    assert got["time"].tolist() == pytest.approx(expected["time"].tolist())
    assert got["verified"].tolist() == expected["verified"].tolist()
    for column in ("cpu_s", "peak_mb"):  # measured by the worker processes, carried along
        assert got[column].notna().all() and got[column].tolist() == expected[column].tolist()
    meta = json.loads(table.schema.metadata[b"sudokulab.runs"])
    assert [m["run_id"] for m in meta] == [1] and meta[0]["cpu"] == runs["cpu"].iloc[0]


def test_chunks_make_the_same_file(store_dir, tmp_path):
    with Store(store_dir / "results.sqlite") as store:
        whole = store.write_parquet(tmp_path / "a.parquet", [1])
        small = store.write_parquet(tmp_path / "b.parquet", [1], chunk=3)
    assert whole == small
    assert pq.ParquetFile(tmp_path / "b.parquet").num_row_groups == -(-small // 3)
    a, b = (pd.read_parquet(tmp_path / f"{n}.parquet") for n in "ab")
    pd.testing.assert_frame_equal(a, b)


def test_parquet_errors_are_usage_errors(store_dir, capsys, monkeypatch):
    bad = store_dir / "missing" / "rows.parquet"
    assert main(["report", "--out", str(store_dir), "--no-plots", "--parquet", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"--parquet {bad}: cannot write" in err and "Traceback" not in err
    assert not bad.exists()
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "pyarrow" else real(name, *a)
    )
    path = store_dir / "rows.parquet"
    assert main(["report", "--out", str(store_dir), "--no-plots", "--parquet", str(path)]) == 2
    assert "--parquet needs pyarrow: pip install 'sudokulab[parquet]'" in capsys.readouterr().err
    assert not path.exists()
