"""The Dask executor: the same rows as the local one, from a cluster of worker processes
that may die, with the same hard deadlines, resumable by the local executor."""

from __future__ import annotations

import builtins
import json
import os
import re
import signal
import socket
import time
from pathlib import Path

import pytest

from sudokulab.backends import registry as registry_module
from sudokulab.bench import BenchPlan, LocalExecutor, run_bench
from sudokulab.bench.plan import read_set
from sudokulab.bench.report import markdown_report
from sudokulab.bench.store import Store
from sudokulab.cli import main

TESTS = Path(__file__).resolve().parent
#: What may differ between two runs of the same bench: the clock, the run, the worker.
VARIES = ["time", "build_time", "solve_time", "run_id", "worker", "cpu_s", "peak_mb"]
KEY = ["set", "idx", "backend", "repeat"]
FAKES = "fake_backends:SlowBackend,fake_backends:HangBackend"


@pytest.fixture(scope="module")
def client():
    """A LocalCluster of two worker processes, one thread each, that know the fake
    backends (its processes inherit the environment set here before they start)."""
    distributed = pytest.importorskip("distributed")
    from sudokulab.bench.dask_executor import local_cluster

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SUDOKULAB_BACKENDS", FAKES)
        path = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
        mp.setenv("PYTHONPATH", path)
        mp.syspath_prepend(str(TESTS))
        registry_module._create.cache_clear()
        with local_cluster(2) as cluster, distributed.Client(cluster) as c:
            yield c
    registry_module._create.cache_clear()


def load(name: str, plan: BenchPlan):
    return read_set(name, plan.data_dirs, sample=plan.sample, seed=plan.seed)


def executor(client, size: int | None = None, stop_after: int | None = None):
    """A Dask executor; with ``size``, chunks of that many puzzles (several tasks per
    set); with ``stop_after``, Ctrl-C once that many chunks are in."""
    from sudokulab.bench.dask_executor import DaskExecutor

    class Small(DaskExecutor):
        def chunk_size(self, spec, rows):
            return size or super().chunk_size(spec, rows)

        def run(self, spec, chunks, limit, timeout):
            for i, item in enumerate(super().run(spec, chunks, limit, timeout)):
                if stop_after is not None and i == stop_after:
                    raise KeyboardInterrupt
                yield item

    return Small(client)


def stored(store: Store, run: int):
    rows = store.results([run]).drop(columns=VARIES)
    return rows.sort_values(KEY).reset_index(drop=True)


def bench(tmp_path: Path, name: str, plan: BenchPlan, run_with, resume=None) -> Store:
    store = Store(tmp_path / name / "results.sqlite")
    run_bench(plan, store, load, run_with, resume=resume, progress=False)
    return store


def test_dask_gives_the_rows_of_the_local_executor(tmp_path, client):
    plan = BenchPlan(["gen-classic-easy"], ["native", "backtracking", "constraint"])
    with bench(tmp_path, "local", plan, LocalExecutor(1)) as store:
        local = stored(store, 1)
        assert store.results()["worker"].str.fullmatch(r".+:\d+").all()
    with bench(tmp_path, "dask", plan, executor(client, size=3)) as store:
        dask = stored(store, 1)
        rows = store.results()
        workers = rows["worker"]
        [ran] = json.loads(store.runs()["executors"][0])
    assert len(dask) == 3 * 10 and dask.equals(local)
    assert workers.notna().all() and workers.str.contains(":").all()  # host:pid
    assert ran["executor"] == "dask" and ran["workers"] == ran["threads"] == 2
    # each row's CPU time and its worker's peak memory, measured on the Dask worker
    assert rows["cpu_s"].notna().all() and (rows["cpu_s"] >= 0).all()
    assert (rows.loc[rows["backend"] != "native", "cpu_s"] > 0).all()  # a request each
    assert rows["peak_mb"].notna().all() and (rows["peak_mb"] > 0).all()


def test_a_worker_killed_mid_run_loses_no_row(tmp_path, client):
    # `slow` takes 0.25 s a puzzle: chunks of 2 keep both workers busy for a while; the
    # one busy when the first chunk is in is killed, and Dask reruns its task elsewhere.
    pids = client.run(os.getpid)
    killed = []

    class Killer(type(executor(client))):
        def run(self, spec, chunks, limit, timeout):
            for item in super().run(spec, chunks, limit, timeout):
                if not killed:
                    busy = [w for w, keys in client.processing().items() if keys]
                    killed.append(pids[(busy or list(pids))[0]])
                    os.kill(killed[0], signal.SIGKILL)
                yield item

    plan = BenchPlan(["gen-classic-easy"], ["slow"], timeout=60, repeats=2)
    killer = Killer(client)
    killer.chunk_size = lambda spec, rows: 2
    with bench(tmp_path, "killed", plan, killer) as store:
        rows = store.results()
    assert killed
    assert len(rows) == 2 * 10 and not rows.duplicated(KEY).any()
    assert rows["status"].eq("solved").all() and rows["verified"].all()
    client.wait_for_workers(2, timeout=60)  # the nanny restarts it, for the next tests


def test_a_hard_deadline_holds_on_a_dask_worker(tmp_path, client):
    # `hang` never returns on a puzzle whose first cell is blank: only the kill of its
    # worker process at the deadline (1 s, plus the grace) ends it.
    plan = BenchPlan(["seeds"], ["hang"], timeout=1.0)
    start = time.monotonic()
    with bench(tmp_path, "hang", plan, executor(client, size=1)) as store:
        rows = store.results()
    assert time.monotonic() - start < 60
    blank = rows["puzzle"].str[0].isin([".", "0"])
    assert blank.any()
    assert rows[blank]["status"].eq("timeout").all()
    assert rows[~blank]["status"].eq("solved").all()


def test_a_run_interrupted_under_dask_is_finished_by_the_local_executor(tmp_path, client):
    plan = BenchPlan(["gen-classic-easy", "seeds"], ["native", "forward-checking"])
    with pytest.raises(KeyboardInterrupt):
        bench(tmp_path, "resumed", plan, executor(client, size=2, stop_after=2))
    with Store(tmp_path / "resumed" / "results.sqlite") as store:
        kept = store.results()
        assert 0 < len(kept) < 2 * 13 and store.runs()["finished"][0] is None
    with bench(tmp_path, "resumed", plan, LocalExecutor(1), resume=1) as store:
        resumed = stored(store, 1)
        finished = store.runs()
        after = store.results().set_index(KEY)["worker"]
    with bench(tmp_path, "whole", plan, LocalExecutor(1)) as store:
        whole = stored(store, 1)
    assert len(resumed) == 2 * 13 and resumed.equals(whole)
    assert finished["finished"][0] is not None
    ran = [e["executor"] for e in json.loads(finished["executors"][0])]
    assert ran == ["dask", "local"]
    report = markdown_report(whole.assign(run_id=1), finished)
    assert "; ran on dask (2 workers, 2 threads; hosts " in report
    assert ", then local (1 worker; hosts " in report
    assert after.loc[kept.set_index(KEY).index].notna().all()  # the Dask rows were kept


def test_the_command_line_runs_on_a_local_cluster(tmp_path, client, capsys):
    out = tmp_path / "cli"
    args = ["bench", "seeds", "--backends", "native", "--out", str(out), "--no-plots"]
    assert main([*args, "--executor", "dask", "--workers", "1"]) == 0
    [line] = [x for x in capsys.readouterr().err.splitlines() if "dashboard" in x]
    assert re.fullmatch(r"bench: Dask dashboard http://127\.0\.0\.1:\d+/status", line)
    with Store(out / "results.sqlite") as store:
        assert store.results()["worker"].notna().all()


# --- a cluster that cannot take the work --------------------------------------------------


def bench_args(out: Path) -> list[str]:
    return ["bench", "seeds", "--backends", "native", "--out", str(out), "--no-plots"]


def test_a_bad_or_silent_scheduler_is_one_error_line_within_the_timeout_and_no_store(
    tmp_path, capsys
):
    # Before: a closed port was a traceback after 30 s, a bad address a ValueError
    # traceback, and something that accepts connections but is no scheduler (here a
    # socket that never answers) held the client forever; each left an empty store.
    pytest.importorskip("distributed")
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        mute = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        says = {
            f"tcp://127.0.0.1:{port}": f"no Dask scheduler answered at tcp://127.0.0.1:{port} "
            "within 1 s",
            mute: f"no Dask scheduler answered at {mute} within 1 s",
            "notanaddress": "'notanaddress' is not a Dask scheduler address (e.g. "
            "tcp://host:8786): missing port number in address 'notanaddress'",
            "foo://host:1": "'foo://host:1' is not a Dask scheduler address (e.g. "
            "tcp://host:8786): unknown address scheme 'foo'",
        }
        for address, error in says.items():
            out = tmp_path / "out"
            start = time.monotonic()
            status = main([*bench_args(out), "--scheduler", address, "--connect-timeout", "1"])
            took = time.monotonic() - start
            err = capsys.readouterr().err.splitlines()
            assert status == 2
            assert len(err) == 1 and err[0].startswith(f"sudokulab: error: {error}"), err
            assert took < 10  # the 1 s timeout bounds it, with a margin of 10x
            assert not out.exists()


def test_a_scheduler_without_workers_is_waited_for_then_an_error_and_no_store(tmp_path, capsys):
    # Before: "0 worker(s)", then a wait that never ended.
    distributed = pytest.importorskip("distributed")
    out = tmp_path / "out"
    with distributed.LocalCluster(
        n_workers=0, dashboard_address="127.0.0.1:0", protocol="tcp"
    ) as cluster:
        address = cluster.scheduler_address
        status = main([*bench_args(out), "--scheduler", address, "--worker-timeout", "1"])
    assert status == 2
    assert capsys.readouterr().err.splitlines() == [
        f"bench: the Dask scheduler at {address} has no worker: waiting up to 1 s for 1 to join",
        f"sudokulab: error: no worker joined the Dask scheduler at {address} within 1 s "
        f"(start one with `dask worker {address}`)",
    ]
    assert not out.exists()


def test_a_worker_that_joins_while_the_bench_waits_gets_the_work(tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    out = tmp_path / "out"
    with distributed.LocalCluster(
        n_workers=0, threads_per_worker=1, dashboard_address="127.0.0.1:0", protocol="tcp"
    ) as cluster:
        cluster.scale(1)  # a worker process starts: the bench, connected at once, waits
        args = [*bench_args(out), "--scheduler", cluster.scheduler_address]
        assert main([*args, "--worker-timeout", "300"]) == 0
    with Store(out / "results.sqlite") as store:
        rows = store.results()
    assert len(rows) == 3 and rows["status"].eq("solved").all()
    assert rows["worker"].str.fullmatch(r".+:\d+").all()


# --- the dashboard ------------------------------------------------------------------------


def listening(port: int) -> set[str]:
    """The addresses this process listens on at TCP ``port``."""
    import psutil  # a dependency of distributed

    me = psutil.Process()
    sockets = me.net_connections("tcp") if hasattr(me, "net_connections") else me.connections()
    return {s.laddr.ip for s in sockets if s.status == psutil.CONN_LISTEN and s.laddr.port == port}


def test_the_local_cluster_dashboard_listens_on_the_loopback_interface_only(client):
    # Before: dashboard_address=":0", every interface, while the link said 127.0.0.1.
    from sudokulab.bench.dask_executor import dashboard_link

    link = dashboard_link(client)
    port = int(re.fullmatch(r"http://127\.0\.0\.1:(\d+)/status", link).group(1))
    assert listening(port) == {"127.0.0.1"}


def test_a_dashboard_asked_on_every_interface_is_linked_as_such():
    distributed = pytest.importorskip("distributed")
    from sudokulab.bench.dask_executor import dashboard_link, local_cluster

    with local_cluster(1, ":0") as cluster, distributed.Client(cluster) as c:
        link = dashboard_link(c)
        port = int(re.search(r":(\d+)/status", link).group(1))
        where = listening(port)
    assert where and where <= {"0.0.0.0", "::"}
    assert link == f"http://{socket.gethostname()}:{port}/status (on every interface)"


def test_a_dashboard_address_is_checked_before_anything_starts(tmp_path, capsys):
    with pytest.raises(SystemExit) as raised:
        main([*bench_args(tmp_path / "out"), "--executor", "dask", "--dashboard-address", "x"])
    assert raised.value.code == 2
    assert "'x' is not HOST:PORT" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_without_dask_the_command_line_says_what_to_install(tmp_path, monkeypatch, capsys):
    real_import = builtins.__import__

    def no_dask(name, *args, **kwargs):
        if name == "distributed" or name.startswith(("distributed.", "dask")):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    args = ["bench", "seeds", "--backends", "native", "--out", str(tmp_path), "--no-plots"]
    assert main([*args, "--executor", "dask"]) == 2
    assert 'pip install "sudokulab[dask]"' in capsys.readouterr().err
    assert main([*args, "--scheduler", "tcp://nowhere:8786"]) == 2


def test_tasks_on_one_dask_worker_thread_share_its_solver_child():
    # A chunk of a slow backend is a few puzzles: starting a solver child per task would
    # cost more than the work. The child is kept per thread, and restarted when it died.
    import numpy as np

    from sudokulab import parse_puzzle
    from sudokulab.backends import as_spec
    from sudokulab.bench.dask_executor import _solver_child, run_chunk
    from sudokulab.bench.plan import Chunk
    from sudokulab.models.grids import Grids

    grids = Grids.of([parse_puzzle("1.3434.22.4.4.2.")] * 2)
    chunk = Chunk("tiny", np.arange(2), grids, 0)
    spec = as_spec("constraint")
    child = _solver_child()
    try:
        first, _, used = run_chunk(spec, chunk, False, 1, 10.0)
        pid = child.pid
        second, _, _ = run_chunk(spec, chunk, False, 1, 10.0)
        assert _solver_child() is child and child.pid == pid is not None
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        third, _, _ = run_chunk(spec, chunk, False, 1, 10.0)
        assert child.pid not in (None, pid)
    finally:
        child.close()
    for answers in (first, second, third):
        assert (answers.status_names() == "solved").all()
    assert (used.cpu_s > 0).all() and (used.peak_mb > 0).all()
