"""Ctrl-C stops every backend from the installed ``sudokulab`` script (issue 42).

The script's entry point once put a SIGINT handler of its own in place before the
backends' (backends/interrupt.py), which then ran native searches on the main thread,
where Python's handler cannot run: SCIP and z3 went on searching 150 s after Ctrl-C,
python-constraint's compiled search some 30 s, and Ctrl-C while OR-Tools was imported
gave a 45-line ImportError. So each test runs the installed script (not ``python -c``)
in a process group of its own, as a terminal runs a job, waits until the command is at
the point under test (its first answer printed and the search of a puzzle it cannot
finish under way, or a module of the backend's package imported), sends SIGINT to the
group, as a terminal does on Ctrl-C, and asserts: exit status 130, the one line
``sudokulab: interrupted``, no traceback, within 2 s of the signal, and no process of
the command left running.

Select these with ``pytest -m ctrl_c``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import Job, cpu_seconds, descendants, holding_import, live_processes

from sudokulab.backends import backend_names, get_backend

pytestmark = [
    pytest.mark.ctrl_c,
    pytest.mark.skipif(sys.platform != "linux", reason="process groups and /proc are Linux's"),
]

REPO = Path(__file__).resolve().parent.parent
#: The installed console script beside this interpreter (the one pip made), else on PATH.
SCRIPT = shutil.which("sudokulab", path=str(Path(sys.prefix) / "bin")) or shutil.which("sudokulab")
INTERRUPTED = "sudokulab: interrupted"
#: Seconds from SIGINT to the command's exit that the issue allows.
PROMPT = 2.0
#: Seconds any wait for the command to reach the point under test may take before the
#: test fails (it ends as soon as the point is reached: never a verdict on speed).
PATIENCE = 120
#: CPU seconds the command (and its worker or solver process) spends past its first answer
#: before Ctrl-C: more than building the endless puzzle's model takes, so the search
#: itself is under way.
SEARCHING = 1.0
#: Backends the test extra (or the dependencies) installs: missing under CI, a failure.
#: xcsp3 also needs a Java runtime, which pip cannot install.
INSTALLED_IN_CI = set(backend_names())

#: The first puzzle each command solves (an easy shipped one: every backend answers it).
EASY = json.loads((REPO / "data" / "gen-classic-easy.jsonl").read_text().splitlines()[0])["givens"]
#: Counting every solution of the empty 25x25 grid: no backend finishes.
ENDLESS = "." * 625
#: A shipped easy grid with one given changed: no solution, though every cell keeps a
#: candidate, so local search (incomplete: it cannot count) searches until stopped.
UNSOLVABLE = ".831...5...7.2.3.925.4...6736..945......8...6.9.2658...2.61.......847.....695.4.1"
COUNT = ["--count", "--limit", "2147483647"]

#: Per backend, what runs after the easy puzzle, when it is not the endless count: the
#: gurobi wheel's size-limited licence refuses a 25x25 program (counting every 9x9 grid
#: is as endless), local search cannot count.
ARGS = {
    "gurobi": [*COUNT, EASY, "." * 81],
    "local": ["--timeout", "3600", EASY, UNSOLVABLE],
}


def _installed(name: str) -> None:
    """Skip unless the backend runs here; under CI a backend the test extra installs
    must (xcsp3 without Java aside)."""
    backend = get_backend(name)
    if backend.available():
        return
    missing = backend.missing() or f"pip install {backend.requires}"
    java = name == "xcsp3" and shutil.which("java") is None
    if os.environ.get("CI") == "true" and name in INSTALLED_IN_CI and not java:
        pytest.fail(f"{name} is not installed in CI: {missing}")
    pytest.skip(f"{name} cannot run here: {missing}")


class Command(Job):
    """The installed ``sudokulab`` with ``args`` in a process group of its own; its
    output read as it comes."""

    patience = PATIENCE

    def __init__(self, args: list[str], env: dict[str, str] | None = None) -> None:
        assert SCRIPT, "the sudokulab console script is not installed"
        self.family: set[int] = set()
        super().__init__(
            SCRIPT,
            args,
            env=env,
            # SIGINT heard, as in a terminal's job, even where this runs in the background
            # of a shell without job control (which ignores SIGINT, for its children too)
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )

    def cpu(self) -> float:
        """The CPU seconds the command and the processes it started have used (a worker
        process, a solver's Java process)."""
        total = 0.0
        for pid in {self.proc.pid} | descendants(self.proc.pid):
            with contextlib.suppress(OSError):  # ended meanwhile
                total += cpu_seconds(pid)
        return total

    def spent(self, seconds: float) -> Callable[[], bool]:
        """A readiness test: the command has used ``seconds`` more CPU than now."""
        base = self.cpu()
        return lambda: self.cpu() >= base + seconds

    def interrupt(self) -> float:
        """Ctrl-C, as a terminal sends it: SIGINT to the whole group; the seconds until
        the command exited."""
        self.family |= descendants(self.proc.pid)
        sent = time.monotonic()
        os.killpg(self.proc.pid, signal.SIGINT)
        try:
            self.proc.wait(PATIENCE)
        finally:
            took = time.monotonic() - sent
            self.close()
        return took

    def left(self) -> set[int]:
        """The processes the command started that still run."""
        return self.family & set(live_processes())

    def close(self) -> None:
        """Kill whatever is left of the group (after a failure); read the rest."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        for reader in self.readers:
            reader.join(PATIENCE)


def assert_stopped(command: Command, took: float, noise: str | None = None) -> None:
    """Exit status 130, the one line (lines matching ``noise`` aside), no traceback,
    within :data:`PROMPT` seconds, and nothing of the command left running."""
    err = [line for line in command.err if not (noise and re.match(noise, line))]
    assert command.proc.returncode == 130, str(command)
    assert err == [INTERRUPTED], str(command)
    assert not any("Traceback" in line for line in command.err + command.out), str(command)
    assert took <= PROMPT, f"{took:.2f} s from SIGINT to the exit: {command}"
    deadline = time.monotonic() + PATIENCE
    while command.left() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not command.left(), f"processes of the command still running: {command.left()}"


@pytest.mark.parametrize("name", backend_names())
def test_ctrl_c_stops_every_backend_in_its_search(name):
    _installed(name)
    args = ARGS.get(name, [*COUNT, EASY, ENDLESS])
    command = Command(["solve", "--backend", name, *args])
    command.wait_for(lambda: bool(command.out), "a first answer")
    command.wait_for(command.spent(SEARCHING), "the search of the endless puzzle")
    took = command.interrupt()
    assert_stopped(command, took)


#: Put in place by a ``sitecustomize`` module (Python imports it as it starts, the
#: script's process and any it starts alike): the first import of the module named by
#: $SUDOKULAB_TEST_HOLD says so on stderr, then waits, as a slow import would.
HOLD = holding_import('os.environ.get("SUDOKULAB_TEST_HOLD")', PATIENCE)

#: Backends, and a module their package imports when the backend first solves: Ctrl-C
#: comes while that module is being imported. OR-Tools at four points: its start, the
#: datetime module numpy's compiled core imports while it initializes (a KeyboardInterrupt
#: there, on the main thread, became numpy's 74-line ImportError), pandas, and its
#: pybind11 helper. highs and gurobi import theirs in a worker process (the 25x25 grid,
#: Gurobi's Ctrl-C), which waits there.
IMPORTS = [
    ("cpsat", "ortools.sat.python.cp_model"),
    ("cpsat", "datetime"),
    ("cpsat", "pandas"),
    ("cpsat", "ortools.sat.python.cp_model_helper"),
    ("mip", "ortools.linear_solver.pywraplp"),
    ("smt", "z3"),
    ("sat", "pysat.solvers"),
    ("constraint", "constraint"),
    ("highs", "highspy"),
    ("cpmpy", "cpmpy"),
    ("gurobi", "gurobipy"),
]


@pytest.mark.parametrize(("name", "module"), IMPORTS)
def test_ctrl_c_while_a_backend_imports_its_package(tmp_path, name, module):
    _installed(name)
    (tmp_path / "sitecustomize.py").write_text(HOLD)
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, "SUDOKULAB_TEST_HOLD": module}
    grid = "." * 81 if name == "gurobi" else ENDLESS
    command = Command(["solve", "--backend", name, *COUNT, grid], env)
    command.wait_for(lambda: f"loading {module}" in command.err, f"the import of {module}")
    took = command.interrupt()
    assert_stopped(command, took, noise=f"loading {re.escape(module)}$")


def test_stop_all_ends_a_compiled_constraint_search_on_another_thread():
    # The server stops the searches of its threads with stop_all; python-constraint's
    # compiled search runs no Python code of its own, and had no stop: it hears the stop
    # at its heartbeat (backends/constraint.py).
    _installed("constraint")
    from sudokulab import Puzzle, build_model
    from sudokulab.backends import interrupt

    model = build_model(Puzzle.from_grid([0] * 625))
    outcome: list[str] = []

    def count() -> None:
        try:
            get_backend("constraint").solve(model, limit=None)
            outcome.append("ended")
        except KeyboardInterrupt:
            outcome.append("stopped")

    thread = threading.Thread(target=count, daemon=True)
    try:
        thread.start()
        deadline = time.monotonic() + PATIENCE
        while not interrupt._stops and time.monotonic() < deadline:  # registered: searching
            time.sleep(0.01)
        interrupt.stop_all()
        thread.join(PATIENCE)
        assert outcome == ["stopped"]
    finally:
        interrupt._interrupted.clear()  # as the main thread's next search would
