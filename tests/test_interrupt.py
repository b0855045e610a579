"""Ctrl-C during any backend's search: KeyboardInterrupt in the caller, promptly.

Each test runs a real process, waits until its search is under way, and sends SIGINT.
Solvers that catch SIGINT themselves (CP-SAT, SCIP, z3, CBC) once reported it as a
timeout and went on; a search in native code kept the caller until it ended.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator

import pytest

from sudokulab import Puzzle, build_model
from sudokulab.backends import backend_names, get_backend, parse_spec, unsupported

#: Specs run in the caller's process, and CBC, which runs in a worker even without a
#: timeout (it takes over SIGINT while it solves).
SPECS = [*backend_names(), "mip:solver=highs", "mip:solver=cbc"]

#: Prints "searching" once a backend has made its solver (it registers how Ctrl-C stops
#: it), then runs the code given.
PREAMBLE = """
import sys, threading
from sudokulab.backends import interrupt
registered, first = interrupt.on_interrupt, threading.Lock()
def on_interrupt(stop):
    registered(stop)
    if first.acquire(blocking=False):  # once, whichever thread searches first
        print("searching", flush=True)
interrupt.on_interrupt = on_interrupt
print("ready", flush=True)
"""

SOLVE = """
from sudokulab import solve
try:
    solve("." * 256, sys.argv[1], limit=None)  # counting every 16x16 grid: endless
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
    sys.exit(130)
print("finished", flush=True)
"""

CLI = """
from sudokulab.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _available(spec: str) -> bool:
    """Skip unless installed; whether its backend says when its solver is made."""
    backend = get_backend(parse_spec(spec).backend)
    if not backend.available():
        pytest.skip(f"{backend.name} is not installed")
    if not backend.complete:  # it finds a 16x16 grid; tests/test_local.py stops it
        pytest.skip(f"{backend.name} is incomplete: it answers without counting")
    refused = unsupported(backend, build_model(Puzzle.from_grid([0] * 256)))  # gurobi's
    if refused:  # size-limited licence
        pytest.skip(f"{backend.name} refuses a 16x16 grid here: nothing to interrupt")
    return backend.name != "constraint"  # pure Python: nothing to stop


@contextlib.contextmanager
def _run(code: str, *args: str) -> Iterator[subprocess.Popen]:
    """The process running ``code``; killed at the end whatever happened."""
    process = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(PREAMBLE + code), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def _interrupt(process: subprocess.Popen, searching: bool) -> tuple[str, str, float]:
    """SIGINT once the search is under way; the rest of the output, and how long the
    exit took."""
    assert process.stdout.readline() == "ready\n"
    if searching:
        assert process.stdout.readline() == "searching\n"
    time.sleep(0.3)  # into the search (a pure Python one: past its building, likely)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        raise AssertionError("still running 30 s after Ctrl-C") from None
    return out, err, time.monotonic() - sent


@pytest.mark.parametrize("spec", SPECS)
def test_ctrl_c_during_any_search_raises_keyboard_interrupt_in_the_caller(spec):
    searching = _available(spec) and spec != "mip:solver=cbc"  # CBC: in its worker
    with _run(SOLVE, spec) as process:
        out, err, took = _interrupt(process, searching)
    assert (process.returncode, out, err) == (130, "KeyboardInterrupt\n", "")
    assert took < 10  # the stop itself: prompt, with a margin for a loaded machine


def test_ctrl_c_during_cpsat_ends_the_solve_command_with_one_line(tmp_path):
    # CP-SAT caught SIGINT, reported "timeout" for the puzzle and went on to the next.
    _available("cpsat")
    puzzles = tmp_path / "endless.txt"
    puzzles.write_text(("." * 256 + "\n") * 3)
    args = ["solve", "--backend", "cpsat", "--count", "--limit", "1000000000", str(puzzles)]
    with _run(CLI, *args) as process:
        out, err, took = _interrupt(process, True)
    assert (process.returncode, out, err) == (130, "", "sudokulab: interrupted\n")
    assert took < 10


def test_ctrl_c_stops_the_native_engine_on_every_thread_of_solve(tmp_path):
    # solve runs blocks of the compiled engine on threads (one per core); the pool used
    # to wait for their searches, endless here, after Ctrl-C.
    puzzles = tmp_path / "endless.txt"
    puzzles.write_text("\n".join(["." * 256, "." * 625, "." * 256, "." * 625]) + "\n")
    with _run(CLI, "solve", "--count", "--limit", "2147483647", str(puzzles)) as process:
        out, err, took = _interrupt(process, True)
    assert (process.returncode, out, err) == (130, "", "sudokulab: interrupted\n")
    assert took < 10
