"""The shared child-process mechanism: hard deadlines, crashes, no orphans."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest
from helpers import fake_backends, wait_for

from sudokulab import build_model, parse_puzzle, solve
from sudokulab.backends import Worker
from sudokulab.models import geometry
from sudokulab.native import reference

EMPTY16 = build_model(parse_puzzle("." * 256))


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_hang_is_killed_at_the_hard_deadline_and_the_worker_recovers():
    with Worker() as worker:
        # No timeout for the backend itself: only the kill can stop this count.
        result = worker.solve("native-py", EMPTY16, limit=None, hard_timeout=0.5)
        assert result.status == "timeout" and "killed after" in result.message
        assert "(hard deadline 0.5 s)" in result.message
        assert 0.5 <= result.solve_time < 5.0  # the kill itself: a margin of 10x
        assert worker.pid is None  # the child is gone, not orphaned
        again = worker.solve("native-py", EMPTY16, limit=2)
        assert again.status == "multiple" and again.count == 2


def test_a_backend_that_stops_itself_keeps_its_partial_results():
    # The first 16x16 grid takes fewer guesses than the 256 before the engine first
    # reads the clock, so it is found whatever the machine's speed; the hard deadline is
    # far off, so the backend's own deadline stops the count, not the kill.
    units = tuple(u.cells for u in geometry(16).units)
    assert reference.Engine(16, units).search([0] * 256, limit=1).guesses < 256
    with Worker() as worker:
        result = worker.solve("native-py", EMPTY16, limit=None, timeout=0.3, hard_timeout=30)
    assert result.status == "timeout" and result.count > 0 and not result.message
    assert not result.stats["budget_spent"]


def test_a_budget_stops_the_backend_in_the_worker_at_its_guess():
    with Worker() as worker:
        result = worker.solve("native-py", EMPTY16, limit=None, options={"max_guesses": 1000})
    assert result.status == "timeout" and result.count > 0
    assert result.message == "the budget of 1000 guesses was spent"
    assert result.stats["budget_spent"] and result.stats["guesses"] == 1000


def test_a_crash_is_an_error_result_and_the_next_solve_works():
    with Worker() as worker:
        # Warm first: a kill that came while the child was still importing (0.3 s was not
        # enough under load) ended the warm-up, the request started a fresh child, and the
        # endless count ran on in it. The hard deadline is a backstop, never reached.
        worker.prepare("native-py")
        pid = worker.pid
        threading.Timer(0.3, os.kill, (pid, signal.SIGSEGV)).start()
        result = worker.solve("native-py", EMPTY16, limit=None, hard_timeout=120)
        assert result.status == "error"
        assert result.message == "worker process died from SIGSEGV"
        assert not _alive(pid)
        assert worker.solve("native-py", EMPTY16, limit=1).status == "solved"


def test_isolated_solve_through_the_api():
    result = solve("." * 81, "native:propagation=forward", limit=2, isolate=True)
    assert result.status == "multiple" and result.backend == "native:propagation=forward"
    assert result.build_time > 0


def test_the_worker_dies_with_its_parent():
    script = textwrap.dedent(
        """
        import sys, time
        from sudokulab import build_model, parse_puzzle
        from sudokulab.backends import Worker
        w = Worker()
        w.start()
        print(w.pid, flush=True)
        w.solve("native-py", build_model(parse_puzzle("." * 256)), limit=None)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    assert _alive(child)
    parent.kill()
    parent.wait()
    wait_for(lambda: not _alive(child), 5)


@pytest.fixture
def stuck(monkeypatch):
    yield from fake_backends(monkeypatch, "StuckBackend")


def test_a_backend_that_cannot_stop_itself_is_killed_at_the_timeout(stuck):
    # A backend that never answers: the verdict cannot depend on how fast the machine is
    # (python-constraint on an empty grid sometimes finds solutions and stops itself).
    with Worker() as worker:
        result = worker.solve("stuck", EMPTY16, limit=None, timeout=0.5)
    assert result.status == "timeout"
    assert "(hard deadline 0.5 s)" in result.message  # the timeout, no grace period on top
    # the kill itself, from the request's start (the worker's start-up is outside it):
    # not before the deadline, and a margin of 10x after it
    assert 0.5 <= result.time < 5.0


def test_a_sudokulab_folder_in_the_current_directory_does_not_shadow_the_worker(
    tmp_path, monkeypatch
):
    # Like running from a source checkout whose sudokulab/ lacks the mapped subpackages.
    (tmp_path / "sudokulab").mkdir()
    (tmp_path / "sudokulab" / "__init__.py").write_text("raise ImportError('shadowed')\n")
    monkeypatch.chdir(tmp_path)
    with Worker() as worker:
        result = worker.solve("native-py", EMPTY16, limit=1)
    assert result.status == "solved"


def test_a_child_whose_parent_stopped_listening_ends_quietly():
    # Ctrl-C in the parent closes its end of the result pipe while the child still
    # works; the child's answer then meets a broken pipe. It must end with status 0 and
    # print nothing (before: a BrokenPipeError traceback in the user's terminal).
    from sudokulab.backends.isolation import _receive, _send

    read_end, write_end = os.pipe()
    code = f"from sudokulab.backends.isolation import _serve; _serve({write_end}, {os.getpid()})"
    child = subprocess.Popen(
        [sys.executable, "-P", "-c", code],
        stdin=subprocess.PIPE,
        stderr=subprocess.PIPE,
        pass_fds=(write_end,),
    )
    os.close(write_end)
    with os.fdopen(read_end, "rb") as results:
        assert _receive(results) == "ready"
    _send(child.stdin, ("warm", "native", None, {}))  # its answer has nowhere to go
    child.stdin.close()
    assert child.wait(timeout=60) == 0
    assert child.stderr.read() == b""
