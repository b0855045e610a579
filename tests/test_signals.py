"""Ctrl-C stops every command cleanly: exit status 130, one line on standard error, no
traceback from any process (the command, its solver children, its process pools, its
Dask workers), and no process of the command left running.

Each test runs the `sudokulab` command in a process group of its own and sends SIGINT to
the whole group, as a terminal does on Ctrl-C, once the command shows it is at the point
under test (a line of output, its input read, its children started): never after a fixed
sleep.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import (
    Job,
    cpu_seconds,
    descendants,
    group_members,
    holding_import,
    live_processes,
    wait_for,
)

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="process groups, pipe sizes and /proc are Linux's"
)

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
SCRIPT = shutil.which("sudokulab", path=str(Path(sys.executable).parent)) or shutil.which(
    "sudokulab"
)
INTERRUPTED = "sudokulab: interrupted"
#: What bench says when Ctrl-C comes before its first row is stored (no run is left).
NO_RUN = "bench: interrupted before any row was stored; no run"
#: A puzzle whose search without propagation, for a second solution, runs past a 10 s
#: timeout in the Python engine (what explain runs).
SLOW_FOR_EXPLAIN = (
    ".....6....59.....82....8....45........3........6..3.54...325..6.................."
)
#: A line of `Progress`: printed every few seconds, so one may come just before Ctrl-C.
PROGRESS = re.compile(r"^[\w ]+: \d+/\d+ done \(")
#: Seconds any one wait of these tests may take before it fails (never a verdict on speed:
#: each wait ends as soon as what it waits for happens).
PATIENCE = 120


def _address(file) -> str | None:
    """The scheduler's address from its file, once the file is whole JSON."""
    try:
        return json.loads(file.read_text())["address"]
    except (OSError, ValueError, KeyError):
        return None


def extreme_puzzles(count: int) -> str:
    """``count`` lines of the shipped extreme puzzles, repeated: a file long enough to be
    interrupted whatever the machine's speed (each line is searched, not just read)."""
    lines = REPO / "data" / "gen-classic-extreme.jsonl"
    givens = [json.loads(line)["givens"] for line in lines.read_text().splitlines()]
    return "\n".join(givens[i % len(givens)] for i in range(count)) + "\n"


def fake_backends_env() -> dict[str, str]:
    """The environment that registers the tests' slow backend, here and in children."""
    path = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "SUDOKULAB_BACKENDS": "fake_backends:SlowBackend", "PYTHONPATH": path}


class Command(Job):
    """`sudokulab ARGS` in a process group of its own; its output read as it comes, its
    standard input fed from ``stdin``."""

    patience = PATIENCE

    def __init__(
        self, args: list[str], cwd: Path, env: dict[str, str] | None = None, stdin: str = ""
    ) -> None:
        assert SCRIPT, "the sudokulab command is not installed"
        self.mark: int | None = None  # how many stderr lines had come when SIGINT was sent
        self.family: set[int] = set()  # the processes it was seen to start
        self._stdin_read, stdin_write = os.pipe()
        super().__init__(SCRIPT, args, stdin=self._stdin_read, cwd=cwd, env=env)
        self.fed = threading.Thread(target=self._write, args=(stdin_write, stdin), daemon=True)
        self.fed.start()

    @staticmethod
    def _write(fd: int, text: str) -> None:
        with open(fd, "wb") as pipe, contextlib.suppress(BrokenPipeError):  # it stopped reading
            pipe.write(text.encode())

    def input_read(self) -> bool:
        """All of the standard input was written, and the command has read it."""
        if self.fed.is_alive():
            return False
        left = fcntl.ioctl(self._stdin_read, termios.FIONREAD, b"\0\0\0\0")
        return int.from_bytes(left, sys.byteorder) == 0

    def line(self, pattern: str, stream: str = "err") -> Callable[[], bool]:
        """A readiness test: a line of ``stream`` matches ``pattern``."""
        lines = self.err if stream == "err" else self.out
        return lambda: any(re.search(pattern, line) for line in list(lines))

    def children(self, count: int) -> Callable[[], bool]:
        """A readiness test: the command has started ``count`` processes or more."""

        def ready() -> bool:
            family = descendants(self.proc.pid)
            self.family |= family
            return len(family) >= count

        return ready

    def left(self) -> list[int]:
        """The processes of the command's group, and those it started, still running."""
        alive = live_processes()
        family = {pid for pid in self.family if pid in alive}
        return sorted(family | set(group_members(self.proc.pid)))

    def interrupt(self) -> None:
        """Ctrl-C, as a terminal sends it: SIGINT to every process of the group."""
        self.mark = len(self.err)
        self.family |= descendants(self.proc.pid)
        os.killpg(self.proc.pid, signal.SIGINT)

    def finish(self) -> int:
        """The exit status, once the command and every process of its group are gone."""
        try:
            status = self.proc.wait(PATIENCE)
            deadline = time.monotonic() + PATIENCE
            while self.left() and time.monotonic() < deadline:
                time.sleep(0.05)
            left = self.left()
            assert not left, f"processes of the command still running: {left}"
        finally:
            self.close()
        for thread in self.readers:
            thread.join(PATIENCE)
        return status

    def close(self) -> None:
        """Stop whatever is left of the group (after a failure) and the pipes."""
        if self.proc.poll() is None or self.left():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            for pid in self.left():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            self.proc.wait()
        os.close(self._stdin_read)

    def after(self) -> list[str]:
        """The lines of standard error since Ctrl-C, a progress line of just before aside."""
        assert self.mark is not None
        return [line for line in self.err[self.mark :] if not PROGRESS.match(line)]


def assert_stopped_cleanly(command: Command, line: str = INTERRUPTED) -> None:
    """Exit status 130, the one line, no traceback on either stream, nothing left running."""
    status = command.finish()
    assert status == 130, str(command)
    assert command.after() == [line], str(command)
    assert not any("Traceback" in text for text in command.err + command.out), str(command)


# --- the commands -------------------------------------------------------------------------


#: Runs the command line as the `sudokulab` script does, with the import of one module
#: (argv[1]) held: once it is asked for, a line on stderr says so and the import waits.
#: The command now loads only what it runs, too little for a full pipe to hold it there.
HOLD_IMPORT = holding_import("sys.argv.pop(1)", PATIENCE) + (
    "from sudokulab.cli import main\nsys.exit(main())\n"
)


@pytest.mark.parametrize(
    "module",
    # the parser and the error path (sudokulab.cli waits for it), then the command's group
    ["sudokulab.cli.commands", "sudokulab.cli.solve"],
)
def test_ctrl_c_while_the_command_loads_its_modules(tmp_path, module):
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD_IMPORT, module, "solve", SLOW_FOR_EXPLAIN],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        start_new_session=True,
    )
    try:
        first = proc.stderr.readline()
        assert first == f"loading {module}\n".encode(), first
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=PATIENCE)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert (proc.returncode, err.decode().splitlines(), out) == (130, [INTERRUPTED], b"")


def test_ctrl_c_during_solve_of_a_large_file(tmp_path):
    (tmp_path / "many.txt").write_text(extreme_puzzles(500_000))
    command = Command(["solve", "many.txt"], tmp_path)
    command.wait_for(command.line(".", stream="out"), "a first solution")
    command.interrupt()
    assert_stopped_cleanly(command)
    assert len(command.out) < 500_000


def test_ctrl_c_during_solve_with_cpsat(tmp_path):
    # OR-Tools catches SIGINT itself unless told not to. The first puzzle's count is
    # printed once it is solved; the count of the empty grid never ends: once the command
    # has spent half a second of CPU past the first (far more than building a model
    # takes), CP-SAT is searching.
    pytest.importorskip("ortools")
    easy = extreme_puzzles(1).strip()
    args = ["solve", "--backend", "cpsat", "--count", "--limit", "1000000000"]
    command = Command([*args, "--timeout", "600", easy, "." * 81], tmp_path)
    command.wait_for(command.line(".", stream="out"), "the first count")
    spent = cpu_seconds(command.proc.pid)
    command.wait_for(lambda: cpu_seconds(command.proc.pid) > spent + 0.5, "the search")
    command.interrupt()
    assert_stopped_cleanly(command)


def test_ctrl_c_during_check(tmp_path):
    # constraint cannot stop itself: it runs in a solver child, which sees the Ctrl-C too.
    command = Command(
        ["check", "--backends", "native,constraint", "--timeout", "60", "-"],
        tmp_path,
        stdin=extreme_puzzles(2_000),
    )
    command.wait_for(command.input_read, "the puzzles read")
    command.wait_for(command.children(1), "a solver child")
    command.interrupt()
    assert_stopped_cleanly(command)


def test_ctrl_c_during_rate_with_two_processes(tmp_path):
    (tmp_path / "many.txt").write_text(extreme_puzzles(20_000))
    command = Command(["rate", "--jobs", "2", "many.txt"], tmp_path)
    command.wait_for(command.line(".", stream="out"), "a first rating")
    command.interrupt()
    assert_stopped_cleanly(command)


def test_ctrl_c_during_explain(tmp_path):
    args = ["explain", "--propagation", "none", "--unique", "--timeout", "600", "-"]
    command = Command(args, tmp_path, stdin=SLOW_FOR_EXPLAIN + "\n")
    command.wait_for(command.input_read, "the puzzle read")
    command.interrupt()
    assert_stopped_cleanly(command)


def test_ctrl_c_during_generate(tmp_path):
    command = Command(["generate", "--count", "100000", "--seed", "1"], tmp_path)
    command.wait_for(command.line(".", stream="out"), "a first puzzle")
    command.interrupt()
    assert_stopped_cleanly(command)
    assert len(command.out) < 100_000


# --- the bench: the one line says how to resume, and the finished rows are kept -----------


def stored(db: Path, query: str = "SELECT COUNT(*) FROM results") -> int | None:
    """What a store that another process writes holds (None while it has no schema)."""
    if not db.exists():
        return None
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10) as con:
            return con.execute(query).fetchone()[0]
    except sqlite3.OperationalError:  # the schema is not there yet
        return None


def interrupt_a_bench(tmp_path: Path, *executor: str) -> None:
    """Bench the slow backend (a quarter of a second a puzzle: 80 puzzles take at least
    10 s on two workers), Ctrl-C once rows are in: the rows stay, the run is not finished,
    and the one line says how to resume it."""
    out = tmp_path / "out"
    db = out / "results.sqlite"
    args = ["bench", "gen-classic-easy", "--backends", "slow", "--repeats", "8"]
    args += ["--timeout", "60", "--no-plots", "--out", str(out), *executor]
    command = Command(args, tmp_path, env=fake_backends_env())
    command.wait_for(lambda: (stored(db) or 0) > 0, "a first row stored")
    seen = stored(db)
    command.interrupt()
    resume = f"sudokulab bench --resume 1 --out {out}"
    assert_stopped_cleanly(
        command, f"bench: interrupted; finished rows are kept. Resume with: {resume}"
    )
    assert seen <= stored(db) < 80
    assert stored(db, "SELECT COUNT(*) FROM runs WHERE finished IS NULL") == 1


def test_ctrl_c_during_a_bench(tmp_path):
    interrupt_a_bench(tmp_path, "--workers", "2")


def test_ctrl_c_during_a_bench_on_a_local_dask_cluster(tmp_path):
    pytest.importorskip("distributed")
    interrupt_a_bench(tmp_path, "--executor", "dask", "--workers", "2")


@pytest.fixture
def scheduler(tmp_path):
    """A Dask scheduler and a worker of two processes, each in a process group of its
    own (a Ctrl-C of the bench does not reach them), that know the slow backend."""
    pytest.importorskip("distributed")
    dask = shutil.which("dask", path=str(Path(sys.executable).parent)) or shutil.which("dask")
    if dask is None:
        pytest.skip("the dask command is not installed")
    env = fake_backends_env()
    file = tmp_path / "scheduler.json"
    started = [
        subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(file)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    ]  # fmt: skip
    try:
        address = wait_for(lambda: _address(file), PATIENCE)  # the scheduler started
        started.append(
            subprocess.Popen(
                [dask, "worker", address, "--nworkers", "2", "--nthreads", "1",
                 "--no-dashboard"],
                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        )  # fmt: skip
        yield address
    finally:
        for proc in reversed(started):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in reversed(started):
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def test_ctrl_c_during_a_bench_on_a_dask_scheduler(tmp_path, scheduler):
    interrupt_a_bench(tmp_path, "--scheduler", scheduler, "--worker-timeout", str(PATIENCE))


def test_ctrl_c_while_a_local_dask_cluster_starts(tmp_path):
    # Its worker processes are starting (the resource tracker and one of them at least):
    # they hold Ctrl-C back from birth, the command closes them.
    pytest.importorskip("distributed")
    out = tmp_path / "out"
    args = ["bench", "seeds", "--backends", "native", "--executor", "dask", "--workers", "2"]
    command = Command([*args, "--no-plots", "--out", str(out)], tmp_path)
    command.wait_for(command.children(2), "worker processes")
    command.interrupt()
    assert_stopped_cleanly(command, NO_RUN)
    assert not out.exists()


def test_ctrl_c_while_waiting_for_a_dask_worker(tmp_path):
    distributed = pytest.importorskip("distributed")
    out = tmp_path / "out"
    with distributed.LocalCluster(
        n_workers=0, dashboard_address="127.0.0.1:0", protocol="tcp"
    ) as cluster:
        args = ["bench", "seeds", "--scheduler", cluster.scheduler_address, "--out", str(out)]
        command = Command(args, tmp_path)
        command.wait_for(command.line("has no worker: waiting"), "the wait")
        command.interrupt()
        assert_stopped_cleanly(command, NO_RUN)
    assert not out.exists()
