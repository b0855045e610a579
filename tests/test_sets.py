"""The data catalog: complete entries, the search order, loading, sampling and fetching."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import http.server
import io
import json
import os
import re
import shutil
import sys
import threading
from importlib import resources
from pathlib import Path

import pytest

import sudokulab.catalog as sets_module
from sudokulab import is_solution, read_file
from sudokulab.catalog import (
    ChecksumMismatch,
    FetchError,
    SetInfo,
    SetNotFound,
    WrongFile,
    catalog,
    data_dirs,
    entries,
    fetch,
    load,
    locate,
    sha256_of,
    status,
)
from sudokulab.cli import main

REPO = Path(__file__).resolve().parent.parent
SEEDS = (REPO / "data" / "seeds.csv").read_text()
SEED_LINES = [s for s in SEEDS.splitlines() if s[:1] in ".123456789"]
TOP95 = "norvig-pytudes/sudoku-top95.txt"
HARDEST = "norvig-pytudes/sudoku-hardest.txt"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """An empty cache in tmp_path and no $SUDOKULAB_DATA: only the project's data is found."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("SUDOKULAB_CACHE", str(cache))
    monkeypatch.delenv("SUDOKULAB_DATA", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    # The test server is on 127.0.0.1: never send its requests through a proxy.
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    return cache


def put(folder: Path, relative: str, text: str) -> Path:
    """Write a file under folder, creating its parents; return its path."""
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# --- the catalog ----------------------------------------------------------------------------


def _sha256sums(data_dir: Path) -> dict[str, str]:
    sums = {}
    for line in (data_dir / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split(maxsplit=1)
        sums[name.removeprefix("./")] = digest
    return sums


def _provenance_counts(data_dir: Path) -> dict[str, int]:
    """file -> puzzles, from the table of PROVENANCE.md."""
    counts = {}
    for line in (data_dir / "PROVENANCE.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[2].isdigit():
            counts[cells[0]] = int(cells[2])
    return counts


def test_every_entry_is_complete():
    for info in entries():
        assert info.name and info.description and info.file and info.format
        assert re.fullmatch(r"[0-9a-f]{64}", info.sha256), info.name
        assert info.count > 0
        assert re.match(r"(line|grid|csv|blocks|jsonl)\b", info.format), info.name
        if not info.shipped:
            assert info.url and info.url.startswith("https://"), info.name
        if info.solutions:
            assert info.solutions in catalog(), info.name


def test_names_and_aliases_resolve_to_one_entry_each():
    names = catalog()
    assert names["sudokus_17"] is names["sudoku17"]
    assert names["msk_009"] is names["magictour_easy"]
    assert names["magictour_hard"] is not names["top95"]
    assert names["magictour_hard"].sha256 == names["top95"].sha256  # same bytes, two files
    assert {i.name for i in names.values()} == {i.name for i in entries()}
    assert len(names) == sum(1 + len(i.aliases) for i in entries())


def test_the_catalog_names_every_public_file_with_its_sha256_and_count(data_dir):
    sums = _sha256sums(data_dir)
    counts = _provenance_counts(data_dir)
    public = {i.file: i for i in entries() if not i.shipped}
    assert set(public) == set(sums) == set(counts)
    for file, info in public.items():
        path = data_dir / file
        assert info.sha256 == sums[file] == sha256_of(path), file
        assert info.count == counts[file] == len(read_file(path)), file


def test_shipped_sets_are_in_the_package_and_match_the_catalog():
    root = resources.files("sudokulab.data")
    shipped = [i for i in entries() if i.shipped]
    assert "seeds" in {i.name for i in shipped}
    for info in shipped:
        path = root / info.file
        assert sha256_of(path) == info.sha256, f"{info.file} changed: update data/catalog.json"
        assert len(read_file(path)) == info.count


def test_public_sets_are_never_copied_into_the_repository():
    for info in entries():
        if not info.shipped:
            assert not (REPO / "data" / info.file).exists(), info.file


def test_the_catalog_file_is_a_plain_list_of_sets():
    raw = json.loads((REPO / "data" / "catalog.json").read_text())
    assert [r["name"] for r in raw] == [i.name for i in entries()]
    for r in raw:
        SetInfo(**{**r, "aliases": tuple(r["aliases"])})  # no unknown keys


# --- where sets are found -------------------------------------------------------------------


def test_data_dirs_in_search_order(tmp_path, monkeypatch, isolated):
    a, b = tmp_path / "a", tmp_path / "b"
    monkeypatch.setenv("SUDOKULAB_DATA", os.pathsep.join([str(a), "", str(b)]))
    dirs = data_dirs([tmp_path / "x", str(tmp_path / "y")])
    assert dirs == [
        Path(str(resources.files("sudokulab.data"))),
        isolated,
        tmp_path / "x",
        tmp_path / "y",
        a,
        b,
    ]


def test_the_cache_falls_back_to_xdg_then_home(tmp_path, monkeypatch):
    monkeypatch.delenv("SUDOKULAB_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert data_dirs()[1] == tmp_path / "xdg" / "sudokulab"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert data_dirs()[1] == tmp_path / "home" / ".cache" / "sudokulab"


def test_locate_finds_a_shipped_set_in_the_project_data():
    path = locate("seeds")
    assert path == Path(str(resources.files("sudokulab.data"))) / "seeds.csv"
    assert path.read_text() == SEEDS


# Where a set is found does not depend on what its file holds: these tests look for
# stand-ins (check=False); the tests under "checking" check what is found.


def test_locate_finds_a_set_in_the_cache(isolated):
    path = put(isolated, TOP95, SEED_LINES[0] + "\n")
    assert locate("top95", check=False) == path


def test_locate_finds_a_set_in_an_extra_dir(tmp_path):
    path = put(tmp_path / "extra", TOP95, SEED_LINES[0] + "\n")
    assert locate("top95", [tmp_path / "extra"], check=False) == path
    assert locate("top95", [str(tmp_path / "extra")], check=False) == path


def test_locate_finds_a_set_in_sudokulab_data(tmp_path, monkeypatch):
    path = put(tmp_path / "second", TOP95, SEED_LINES[0] + "\n")
    folders = [str(tmp_path / "first"), str(tmp_path / "second")]
    monkeypatch.setenv("SUDOKULAB_DATA", os.pathsep.join(folders))
    assert locate("top95", check=False) == path


def test_the_cache_comes_before_extra_dirs_and_those_before_sudokulab_data(
    tmp_path, monkeypatch, isolated
):
    in_env = put(tmp_path / "env", TOP95, "x")
    monkeypatch.setenv("SUDOKULAB_DATA", str(tmp_path / "env"))
    assert locate("top95", check=False) == in_env
    in_extra = put(tmp_path / "extra", TOP95, "x")
    assert locate("top95", [tmp_path / "extra"], check=False) == in_extra
    in_cache = put(isolated, TOP95, "x")
    assert locate("top95", [tmp_path / "extra"], check=False) == in_cache


def test_locate_resolves_aliases(tmp_path):
    path = put(tmp_path, "norvig-pytudes/sudokus_17.txt", "x")
    found = locate("sudokus_17", [tmp_path], check=False)
    assert found == locate("sudoku17", [tmp_path], check=False) == path


def test_the_real_public_sets_are_found_by_name(data_dir):
    for info in entries():
        assert locate(info.name, [data_dir]).is_file()


def test_any_file_path_is_a_set(tmp_path):
    path = put(tmp_path, "mine.txt", "\n".join(SEED_LINES[:2]) + "\n")
    assert locate(path) == path
    assert locate(str(path)) == path
    loaded = load(str(path))
    assert loaded.name == str(path) and loaded.path == path
    assert [e.line for e in loaded.entries] == [1, 2]
    assert loaded.indices == [0, 1] and loaded.info is None


def test_an_unknown_name_lists_close_matches():
    with pytest.raises(SetNotFound, match="did you mean top95"):
        locate("top59")
    with pytest.raises(SetNotFound, match="sudokulab sets"):
        locate("qqqqqqqq")


def test_a_missing_file_path_is_reported_as_such(tmp_path):
    with pytest.raises(SetNotFound, match="no such file"):
        locate(tmp_path / "nope.txt")
    with pytest.raises(SetNotFound, match="not a file"):
        locate(tmp_path)


def test_a_missing_public_set_says_where_it_looked_and_how_to_fetch_it(tmp_path, isolated):
    with pytest.raises(SetNotFound) as err:
        locate("top95", [tmp_path / "extra"])
    message = str(err.value)
    assert "sudokulab data fetch top95" in message
    assert str(isolated) in message and str(tmp_path / "extra") in message
    assert TOP95 in message
    assert isinstance(err.value, LookupError)


def test_a_set_without_a_direct_download_says_where_to_get_it(isolated):
    with pytest.raises(SetNotFound) as err:
        locate("sudoku17")
    assert catalog()["sudoku17"].url in str(err.value)
    assert str(isolated / "norvig-pytudes" / "sudokus_17.txt") in str(err.value)


# --- loading --------------------------------------------------------------------------------


def test_load_reads_a_shipped_set_with_its_solutions():
    loaded = load("seeds")
    assert loaded.name == "seeds" and len(loaded.entries) == 3
    assert loaded.indices == [0, 1, 2]
    assert all(is_solution(e.puzzle, e.solution) for e in loaded.entries)


def test_sample_is_reproducible_and_kept_in_file_order(tmp_path):
    path = put(tmp_path, "many.txt", "\n".join(SEED_LINES * 10) + "\n")
    first = load(path, sample=7, seed=4)
    again = load(path, sample=7, seed=4)
    other = load(path, sample=7, seed=5)
    assert first == again and first.indices != other.indices
    assert first.indices == sorted(first.indices) and len(set(first.indices)) == 7
    # each entry remembers where it was: line i + 1 of the file
    assert [e.line - 1 for e in first.entries] == first.indices
    whole = load(path)
    assert [whole.entries[i] for i in first.indices] == first.entries


def test_a_sample_larger_than_the_set_is_the_whole_set():
    assert load("seeds", sample=10).indices == [0, 1, 2]
    with pytest.raises(ValueError, match="at least 1"):
        load("seeds", sample=0)


def test_sample_of_a_large_public_set(data_dir):
    loaded = load("sudoku10k", [data_dir], sample=25, seed=1)
    assert len(loaded.entries) == 25 and loaded.indices == sorted(loaded.indices)
    assert loaded == load("sudoku10k", [data_dir], sample=25, seed=1)


def test_hard95_gets_its_solutions_attached(data_dir):
    loaded = load("hard95", [data_dir])
    assert len(loaded.entries) == 95
    assert all(is_solution(e.puzzle, e.solution) for e in loaded.entries)
    sampled = load("hard95", [data_dir], sample=5, seed=2)
    assert [e.solution for e in sampled.entries] == [
        loaded.entries[i].solution for i in sampled.indices
    ]


def test_status_lists_every_set_and_where_it_is(tmp_path, isolated):
    put(isolated, HARDEST, "x")
    rows = {r["name"]: r for r in status()}
    assert list(rows) == [i.name for i in entries()]
    assert rows["seeds"]["present"] and rows["seeds"]["count"] == 3
    assert not rows["seeds"]["wrong"]
    assert rows["hardest"]["path"] == str(isolated / HARDEST)
    assert rows["hardest"]["wrong"]  # "x" is not the set's file
    assert not rows["top95"]["present"] and rows["top95"]["path"] is None
    assert rows["top95"]["description"] == catalog()["top95"].description


# --- fetching -------------------------------------------------------------------------------


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files, after answering each status of ``failures`` once; logs nothing."""

    #: statuses to answer, one per request, before serving files again
    failures: list[int]
    #: the path of every request, in order
    requests: list[str]

    def do_GET(self):
        self.requests.append(self.path)
        if self.failures:
            self.send_error(self.failures.pop(0))
            return
        super().do_GET()

    def log_message(self, format, *args):
        pass


@contextlib.contextmanager
def serve(www: Path):
    """Serve www on 127.0.0.1 while the body runs; yield the base URL and the handler class."""
    handler = type("Handler", (_QuietHandler,), {"failures": [], "requests": []})
    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(www))
    )
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", handler
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@pytest.fixture
def server(tmp_path):
    """A local HTTP server on 127.0.0.1 serving tmp_path/www; yields (folder, base URL)."""
    www = tmp_path / "www"
    www.mkdir()
    with serve(www) as (base, _):
        yield www, base


@pytest.fixture
def flaky(tmp_path):
    """A server whose handler first answers ``handler.failures``; yields (folder, URL, handler)."""
    www = tmp_path / "flaky"
    www.mkdir()
    with serve(www) as (base, handler):
        yield www, base, handler


def files_under(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if not p.is_dir()] if folder.exists() else []


def test_fetch_stores_a_file_with_the_right_checksum(server, data_dir, isolated):
    www, base = server
    shutil.copy(data_dir / HARDEST, www / "hardest.txt")
    path = fetch("hardest", url=f"{base}/hardest.txt")
    assert path == isolated / HARDEST
    assert sha256_of(path) == catalog()["hardest"].sha256
    assert files_under(isolated) == [path]
    assert locate("hardest") == path
    assert len(load("hardest").entries) == 11


def test_fetch_checks_against_the_catalog_sha256(server, monkeypatch, tmp_path):
    www, base = server
    body = ("\n".join(SEED_LINES) + "\n").encode()
    (www / "three.txt").write_bytes(body)
    fake = SetInfo(
        name="three",
        description="three puzzles",
        file="somewhere/three.txt",
        url=f"{base}/three.txt",
        sha256=hashlib.sha256(body).hexdigest(),
        format="line",
        count=3,
    )
    monkeypatch.setattr(sets_module, "catalog", lambda: {"three": fake})
    path = fetch("three", cache_dir=tmp_path / "mine")
    assert path == tmp_path / "mine" / "somewhere" / "three.txt"
    assert path.read_bytes() == body
    assert oct(path.stat().st_mode & 0o777) == oct(0o644)


def test_a_wrong_checksum_is_refused_and_leaves_no_file(server, isolated):
    www, base = server
    (www / "hardest.txt").write_text(SEED_LINES[0] + "\n")
    with pytest.raises(ChecksumMismatch) as err:
        fetch("hardest", url=f"{base}/hardest.txt", retries=0)
    expected = catalog()["hardest"].sha256
    actual = hashlib.sha256((SEED_LINES[0] + "\n").encode()).hexdigest()
    assert (err.value.expected, err.value.actual) == (expected, actual)
    assert expected in str(err.value) and actual in str(err.value)
    assert isinstance(err.value, ValueError)
    assert files_under(isolated) == []  # neither the file nor a temporary one
    assert not (isolated / "norvig-pytudes").exists()


def test_a_refused_download_keeps_the_old_file(server, isolated):
    www, base = server
    old = put(isolated, HARDEST, "old")
    (www / "bad.txt").write_text("bad")
    with pytest.raises(ChecksumMismatch):
        fetch("hardest", url=f"{base}/bad.txt", retries=0)
    assert old.read_text() == "old"
    assert files_under(isolated) == [old]


def test_a_present_file_with_the_right_checksum_is_not_downloaded_again(server, data_dir, isolated):
    _, base = server
    path = put(isolated, HARDEST, (data_dir / HARDEST).read_text())
    before = path.stat().st_mtime_ns
    assert fetch("hardest", url=f"{base}/nothing-here.txt") == path  # a 404 if it asked
    assert path.stat().st_mtime_ns == before


def test_network_errors_are_clear_and_leave_no_file(server, isolated):
    _, base = server
    with pytest.raises(FetchError, match="HTTP 404") as err:
        fetch("hardest", url=f"{base}/missing.txt")
    assert not isinstance(err.value, ChecksumMismatch)
    with pytest.raises(FetchError, match="cannot download"):
        fetch("hardest", url="http://127.0.0.1:9/nothing", timeout=5, retries=0)
    assert files_under(isolated) == []


def test_fetch_of_an_unknown_or_undownloadable_set(isolated):
    with pytest.raises(SetNotFound, match="did you mean top95"):
        fetch("top59")
    with pytest.raises(FetchError, match="no direct download"):
        fetch("sudoku17")
    assert fetch("seeds") == locate("seeds")
    assert files_under(isolated) == []


def test_a_server_error_is_tried_again(flaky, data_dir, isolated):
    www, base, handler = flaky
    shutil.copy(data_dir / HARDEST, www / "hardest.txt")
    handler.failures[:] = [503]
    path = fetch("hardest", url=f"{base}/hardest.txt", retries=1)
    assert handler.requests == ["/hardest.txt"] * 2
    assert sha256_of(path) == catalog()["hardest"].sha256
    assert files_under(isolated) == [path]


def test_retries_give_up_after_the_last_try(flaky, data_dir, isolated):
    www, base, handler = flaky
    shutil.copy(data_dir / HARDEST, www / "hardest.txt")
    handler.failures[:] = [503, 502, 503]
    with pytest.raises(FetchError, match="HTTP 502 Bad Gateway"):
        fetch("hardest", url=f"{base}/hardest.txt", retries=1)
    assert len(handler.requests) == 2
    assert files_under(isolated) == []


def test_a_client_error_is_final_without_retries(flaky, isolated):
    _, base, handler = flaky
    with pytest.raises(FetchError, match="HTTP 404"):
        fetch("hardest", url=f"{base}/missing.txt", retries=5)
    assert handler.requests == ["/missing.txt"]


def test_a_wrong_checksum_is_tried_again_then_refused(flaky, isolated):
    www, base, handler = flaky
    (www / "bad.txt").write_text("bad")
    with pytest.raises(ChecksumMismatch) as err:
        fetch("hardest", url=f"{base}/bad.txt", retries=1)
    assert err.value.actual == hashlib.sha256(b"bad").hexdigest()
    assert handler.requests == ["/bad.txt"] * 2
    assert files_under(isolated) == []


def test_fetch_from_a_local_file_url(data_dir, tmp_path, isolated):
    path = fetch("hardest", url=(data_dir / HARDEST).as_uri())
    assert path == isolated / HARDEST and sha256_of(path) == catalog()["hardest"].sha256
    with pytest.raises(FetchError, match="cannot download"):
        fetch("top95", url=(tmp_path / "none.txt").as_uri())
    assert files_under(isolated) == [path]


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self):
        return True


def test_a_progress_bar_only_on_a_terminal(server, data_dir, monkeypatch, capsys, tmp_path):
    www, base = server
    shutil.copy(data_dir / HARDEST, www / "hardest.txt")
    fetch("hardest", cache_dir=tmp_path / "plain", url=f"{base}/hardest.txt")
    assert capsys.readouterr() == ("", "")  # neither a bar nor pooch's notes
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    fetch("hardest", cache_dir=tmp_path / "tty", url=f"{base}/hardest.txt")
    size = (data_dir / HARDEST).stat().st_size
    assert "100%" in terminal.getvalue() and f"{size}/{size}" in terminal.getvalue()
    assert "Downloading" not in terminal.getvalue()


# --- checking what is found -----------------------------------------------------------------


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_a_wrong_file_in_the_cache_is_refused_naming_it_and_both_sha256(isolated):
    path = put(isolated, TOP95, SEED_LINES[0] + "\n")  # one puzzle where top95 has 95
    with pytest.raises(WrongFile) as err:
        locate("top95")
    expected, actual = catalog()["top95"].sha256, _sha(SEED_LINES[0] + "\n")
    assert (err.value.path, err.value.expected, err.value.actual) == (path, expected, actual)
    assert str(err.value) == (
        f"set 'top95': {path} has sha256 {actual}, the catalog expects {expected}: it is not "
        "the set's file; run `sudokulab data fetch top95` to download it again"
    )
    assert isinstance(err.value, SetNotFound)  # where a set is wanted, it is not there
    with pytest.raises(WrongFile):
        load("top95")


def test_a_wrong_file_in_another_folder_says_the_cache_comes_first(tmp_path):
    path = put(tmp_path / "extra", TOP95, "x")
    with pytest.raises(WrongFile) as err:
        locate("top95", [tmp_path / "extra"])
    assert f"{path} has sha256 {_sha('x')}" in str(err.value)
    assert "replace it, or run `sudokulab data fetch top95`" in str(err.value)
    assert "(the cache is searched first)" in str(err.value)
    wrong17 = put(tmp_path / "extra", "norvig-pytudes/sudokus_17.txt", "x")
    with pytest.raises(WrongFile) as err:
        locate("sudoku17", [tmp_path / "extra"])
    assert str(wrong17) in str(err.value) and catalog()["sudoku17"].url in str(err.value)


def test_the_right_file_is_used_and_a_solutions_file_is_checked_too(data_dir, tmp_path):
    extra = tmp_path / "extra"
    shutil.copy(data_dir / HARDEST, put(extra, HARDEST, ""))
    assert locate("hardest", [extra]) == extra / HARDEST
    shutil.copy(data_dir / "sunjay-sudoku/hard95.txt", put(extra, "sunjay-sudoku/hard95.txt", ""))
    put(extra, "sunjay-sudoku/hard95solutions.txt", "x")
    with pytest.raises(WrongFile, match="hard95solutions"):
        load("hard95", [extra])


@pytest.mark.parametrize("command", ["solve", "check", "rate", "bench"])
def test_a_wrong_file_is_exit_2_for_every_command_that_reads_sets(
    capsys, tmp_path, isolated, command
):
    put(isolated, TOP95, SEED_LINES[0] + "\n")
    extra = {"check": ["--backends", "native"], "bench": ["--out", str(tmp_path / "b")]}
    code, out, err = run(capsys, command, "top95", *extra.get(command, []))
    assert code == 2 and out == ""
    assert err.startswith(f"sudokulab: error: set 'top95': {isolated / TOP95} has sha256 ")
    assert err.endswith("run `sudokulab data fetch top95` to download it again\n")
    assert not (tmp_path / "b").exists()  # no store for a run that cannot start


def test_data_fetch_replaces_a_wrong_file_in_the_cache(capsys, server, data_dir, isolated):
    www, base = server
    shutil.copy(data_dir / HARDEST, www / "hardest.txt")
    put(isolated, HARDEST, "x")
    code, out, err = run(capsys, "data", "fetch", "hardest", "--url", f"{base}/hardest.txt")
    assert (code, out, err) == (0, f"hardest: {isolated / HARDEST}\n", "")
    assert locate("hardest") == isolated / HARDEST
    code, out, _ = run(capsys, "solve", "hardest")
    assert code == 0 and len(out.splitlines()) == 11


@pytest.fixture
def large_set(tmp_path, monkeypatch):
    """A catalog of one set whose file is large enough to be remembered once checked;
    yields (its file, the calls of sha256_of)."""
    body = "\n".join(SEED_LINES * 4000) + "\n"
    assert len(body) >= 1 << 20
    folder = tmp_path / "sets"
    path = put(folder, "big.txt", body)
    info = SetInfo("big", "many puzzles", "big.txt", None, _sha(body), "csv", 4000 * 3)
    monkeypatch.setattr(sets_module, "catalog", lambda: {"big": info})
    monkeypatch.setenv("SUDOKULAB_DATA", str(folder))
    calls = []
    real = sets_module.sha256_of

    def counting(path):
        calls.append(path)
        return real(path)

    monkeypatch.setattr(sets_module, "sha256_of", counting)
    return path, calls


def test_a_large_file_is_hashed_once_then_remembered(large_set, isolated):
    path, calls = large_set
    assert locate("big") == path and len(calls) == 1
    assert locate("big") == path and len(calls) == 1  # remembered: not hashed again
    remembered = json.loads((isolated / "checked.json").read_text())
    assert list(remembered) == [str(path.resolve())]


def test_a_changed_file_is_hashed_again(large_set, isolated):
    path, calls = large_set
    locate("big")
    text = path.read_text()
    path.write_text(text.replace("1", "2", 1))  # same size, other bytes, a new mtime
    with pytest.raises(WrongFile):
        locate("big")
    assert len(calls) == 2


def test_a_small_file_is_hashed_each_time_and_nothing_is_written(isolated):
    locate("seeds")
    locate("seeds")
    assert not isolated.exists()  # the cache folder is not even created


def test_a_cache_that_cannot_be_written_costs_only_the_hashing(large_set, tmp_path, monkeypatch):
    path, calls = large_set
    blocker = put(tmp_path, "a-file", "")
    monkeypatch.setenv("SUDOKULAB_CACHE", str(blocker / "cache"))  # under a file: no folder
    assert locate("big") == path and locate("big") == path
    assert len(calls) == 2


# --- the command line -----------------------------------------------------------------------


def run(capsys, *argv):
    """Run the ``sets``/``data`` commands as the command line does."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_sets_lists_each_set(capsys, tmp_path):
    put(tmp_path / "extra", TOP95, "x")
    code, out, err = run(capsys, "sets", "--data-dir", str(tmp_path / "extra"))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    seeds = next(s for s in lines if s.startswith("seeds "))
    assert seeds.split()[1] == "3" and seeds.endswith("seeds.csv")
    top95 = next(s for s in lines if s.startswith("top95 "))
    assert top95.endswith(
        f"{tmp_path / 'extra' / TOP95} (not the set's file: its sha256 differs from the catalog's)"
    )
    hardest = next(s for s in lines if s.startswith("hardest "))
    assert hardest.endswith("missing (sudokulab data fetch hardest)")
    assert catalog()["hardest"].description in out
    assert "(also: sudokus_17)" in out


def test_cli_sets_with_a_bad_data_dir(capsys, tmp_path):
    code, out, err = run(capsys, "sets", "--data-dir", str(tmp_path / "none"))
    assert code == 2 and out == "" and err.startswith("sudokulab: error: ")


def test_cli_fetch_statuses(capsys, server, data_dir, tmp_path):
    www, base = server
    shutil.copy(data_dir / HARDEST, www / "hardest.txt")
    (www / "bad.txt").write_text("bad")
    cache = tmp_path / "cli-cache"

    code, out, err = run(capsys, "data", "fetch", "nosuch")
    assert code == 2 and out == ""
    assert err.startswith("sudokulab: error: ") and "Traceback" not in err

    missing = f"{base}/missing.txt"
    code, out, err = run(
        capsys, "data", "fetch", "hardest", "--cache", str(cache), "--url", missing
    )
    assert code == 1 and "HTTP 404" in err and "Traceback" not in err

    bad = f"{base}/bad.txt"
    code, out, err = run(
        capsys, "data", "fetch", "hardest", "--cache", str(cache), "--url", bad, "--retries", "0"
    )
    assert code == 1 and err.startswith("sudokulab: error: hardest: ") and "sha256" in err
    assert files_under(cache) == []

    good = f"{base}/hardest.txt"
    code, out, err = run(capsys, "data", "fetch", "hardest", "--cache", str(cache), "--url", good)
    assert (code, err) == (0, "")
    assert out == f"hardest: {cache / HARDEST}\n"

    code, out, err = run(capsys, "data", "fetch", "hardest", "--data-dir", str(data_dir))
    assert (code, err) == (0, "")
    assert out == f"hardest: present at {data_dir / HARDEST}\n"


def test_cli_fetch_retries(capsys, flaky, data_dir, tmp_path):
    www, base, handler = flaky
    shutil.copy(data_dir / HARDEST, www / "hardest.txt")
    handler.failures[:] = [503]
    cache = tmp_path / "cli-cache"
    code, out, err = run(
        capsys, "data", "fetch", "hardest", "--cache", str(cache), "--url", f"{base}/hardest.txt",
        "--retries", "0",
    )  # fmt: skip
    assert code == 1 and "HTTP 503" in err and files_under(cache) == []
    handler.failures[:] = [503]
    code, out, err = run(
        capsys, "data", "fetch", "hardest", "--cache", str(cache), "--url", f"{base}/hardest.txt",
        "--retries", "1",
    )  # fmt: skip
    assert (code, out, err) == (0, f"hardest: {cache / HARDEST}\n", "")
    assert len(handler.requests) == 3
    with pytest.raises(SystemExit) as exit_:
        main(["data", "fetch", "hardest", "--retries", "-1"])
    assert exit_.value.code == 2
    assert "--retries: '-1' is out of range: from 0 to 100" in capsys.readouterr().err


def test_cli_fetch_of_a_set_without_direct_download(capsys):
    code, out, err = run(capsys, "data", "fetch", "sudoku17")
    assert code == 1 and "no direct download" in err
