"""``sudokulab serve`` over HTTP: a real server, started by the tests on a free port.

The server runs as the ``sudokulab`` script runs it, in a process of its own; the tests
talk to it with the standard library's HTTP client and stop it with Ctrl-C (SIGINT).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from helpers import wait_for

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from sudokulab import is_solution, parse_puzzle  # noqa: E402
from sudokulab.catalog import load  # noqa: E402
from sudokulab.classroom.narrative import steps  # noqa: E402
from sudokulab.classroom.trace import Forced, Guess, trace_puzzle  # noqa: E402
from sudokulab.cli import main  # noqa: E402
from sudokulab.logic import solve_logic  # noqa: E402
from sudokulab.logic.rating import rate_puzzle  # noqa: E402
from sudokulab.native import ORDERS, PROPAGATIONS  # noqa: E402

HARD = "7.18.43.......2.....453..7.6.....7..1...9...5..8.....38...195....23........6.89.4"
#: Solved by logic with locked candidates, subsets, wings and colouring (top95 #72).
LOGIC = "....7..8...6...5...2...3.61.1...7..2..8..534.2..9.......2......58...6.3.4...1...."
START = "sudokulab serve: "


@contextmanager
def running_server(*args: str) -> Iterator[tuple[str, subprocess.Popen]]:
    """A ``sudokulab serve`` on a free port: its base URL and process; stopped by Ctrl-C."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "sudokulab", "serve", "--port", "0", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stderr.readline()
        assert line.startswith(START), line + proc.stderr.read()
        yield line[len(START) :].split()[0], proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        proc.stdout.close()
        proc.stderr.close()


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running_server() as (url, _):
        yield url


def call(url: str, path: str, body: object = None, raw: bytes | None = None):
    """(status, JSON answer) of a GET (no body) or a POST."""
    data = raw if raw is not None else None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path.lstrip("/"), data=data)
    if data is not None:
        request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_options_come_from_the_engine_and_the_registry(server):
    import sudokulab

    status, o = call(server, "/api/options")
    assert status == 200
    assert o["propagations"] == list(PROPAGATIONS) and o["orders"] == list(ORDERS)
    assert [b["name"] for b in o["backends"]] == sudokulab.backend_names()
    assert o["defaults"] == {
        "solver": "engine",
        "propagation": "hidden",
        "order": "mrv",
        "variant": "classic",
    }
    assert "gen-classic-easy" in dict(o["sets"])
    assert 25 not in o["sizes"] and 9 in o["sizes"]


def test_a_trace_is_the_explain_commands_story_and_counts(server):
    status, d = call(server, "/api/solve", {"puzzle": HARD, "propagation": "forward"})
    assert status == 200
    trace = trace_puzzle(parse_puzzle(HARD), "forward", "mrv")
    assert [row["t"] for row in d["viewer"]["steps"]] == [s.text for s in steps(trace)]
    s = trace.summary
    assert s.forced > 0  # forward checking leaves cells with one candidate to the search
    assert d["counters"] == {
        "nodes": s.nodes,
        "guesses": s.guesses,
        "backtracks": s.backtracks,
        "contradictions": s.contradictions,
        "solutions": 1,
        "timedOut": False,
        "forced": s.forced,
    }
    assert d["settings"] == {
        "solver": "engine",
        "propagation": "forward",
        "order": "mrv",
        "variant": "classic",
    }
    assert d["variantCells"] == []
    rating = rate_puzzle(parse_puzzle(HARD))
    assert d["rating"]["grade"] == rating.grade and d["rating"]["hardest"] == rating.hardest


@pytest.mark.parametrize("propagation", PROPAGATIONS[1:])
def test_every_level_of_the_engine_is_served_in_the_explain_commands_words(server, propagation):
    status, d = call(server, "/api/solve", {"puzzle": HARD, "propagation": propagation})
    assert status == 200 and d["settings"]["propagation"] == propagation
    trace = trace_puzzle(parse_puzzle(HARD), propagation, "mrv")
    assert [row["t"] for row in d["viewer"]["steps"]] == [s.text for s in steps(trace)]
    # The tree of the kept steps: a node per guess and per forced placement.
    kept = sum(isinstance(s.event, Guess | Forced) for s in steps(trace))
    assert len(d["tree"]["nodes"]) == kept + 1
    assert d["tree"]["truncated"] == trace.truncated
    if not trace.truncated:
        assert kept == trace.summary.guesses + trace.summary.forced


def test_the_search_tree_has_a_node_per_guess_and_a_path_to_the_solution(server):
    status, d = call(server, "/api/solve", {"puzzle": HARD, "propagation": "forward"})
    assert status == 200
    nodes, rows = d["tree"]["nodes"], d["viewer"]["steps"]
    # A forced placement (a cell with one candidate left) is a level too, but no guess.
    forced = [n for n in nodes if n.get("forced")]
    assert forced and len(nodes) == d["counters"]["guesses"] + len(forced) + 1
    for node in nodes[1:]:
        assert rows[node["step"]]["k"] == ("forced" if node.get("forced") else "guess")
        assert nodes[node["parent"]]["depth"] == node["depth"] - 1
    dead = [n for n in nodes if n["end"] == "dead"]
    assert dead and all(rows[n["endStep"]]["k"] == "contradiction" for n in dead)
    (found,) = [n for n in nodes if n["end"] == "solution"]
    path, at = [], found
    while at["parent"] >= 0:
        path.append(at["id"])
        at = nodes[at["parent"]]
    assert sorted([*path, 0]) == sorted(n["id"] for n in nodes if n.get("path"))


def test_the_propagation_changes_the_steps(server):
    counts = {}
    for propagation in ("none", "hidden"):
        body = {"puzzle": HARD, "propagation": propagation, "order": "first"}
        status, d = call(server, "/api/solve", body)
        assert status == 200
        counts[propagation] = len(d["viewer"]["steps"])
        trace = trace_puzzle(parse_puzzle(HARD), propagation, "first")
        assert counts[propagation] == len(steps(trace))
    assert counts["none"] != counts["hidden"]


def test_the_logic_solver_tells_the_ladder_and_rates(server):
    status, d = call(server, "/api/solve", {"puzzle": LOGIC, "solver": "logic"})
    assert status == 200
    run = solve_logic(parse_puzzle(LOGIC))
    assert len(d["viewer"]["steps"]) == len(run.steps) + 1  # the givens, then each step
    assert d["tree"] is None
    assert d["rating"]["grade"] == rate_puzzle(parse_puzzle(LOGIC)).grade


def test_a_variant_reads_the_line_with_its_rules(server, capsys):
    entry = load("gen-x").entries[0]
    line = str(entry.puzzle)
    status, d = call(server, "/api/solve", {"puzzle": line, "variant": "x"})
    assert status == 200 and d["settings"]["variant"] == "x"
    n = entry.puzzle.size
    diagonals = {r * n + r for r in range(n)} | {r * n + n - 1 - r for r in range(n)}
    assert d["variantCells"] == sorted(diagonals)
    assert d["counters"]["solutions"] == 1
    assert main(["explain", line, "--variant", "x"]) == 0
    story = capsys.readouterr().out
    assert [row["t"] for row in d["viewer"]["steps"]][-1] in story
    # the same givens, clashing on a diagonal: the command line's words
    clash = "1" + "." * 29 + "1" + "." * 50  # r1c1 and r4c4
    status, d = call(server, "/api/solve", {"puzzle": clash, "variant": "x"})
    assert main(["explain", clash, "--variant", "x"]) == 2
    assert status == 400 and capsys.readouterr().err.strip() == f"sudokulab: {d['error']}"
    assert call(server, "/api/solve", {"puzzle": clash})[0] == 200  # classic: no clash


def test_bad_puzzles_get_the_command_lines_words_and_position(server, capsys):
    status, d = call(server, "/api/solve", {"puzzle": "1..x.....1"})
    assert main(["solve", "1..x.....1"]) == 2
    cli = capsys.readouterr().err.strip()
    assert status == 400 and d["column"] == 4
    assert cli.endswith(d["error"].removeprefix("puzzle: "))
    clash = "11" + "." * 14
    status, d = call(server, "/api/solve", {"puzzle": clash})
    assert main(["explain", clash]) == 2
    assert status == 400 and capsys.readouterr().err.strip() == f"sudokulab: {d['error']}"


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        ({"puzzle": "." * 625}, 413, "25x25 grid is over the server's bound of 16x16"),
        ({"puzzle": HARD, "maxSteps": 10**6}, 413, "maxSteps: 1000000 is over"),
        ({"puzzle": HARD, "propagation": "psychic"}, 400, "propagation: unknown 'psychic'"),
        ({"puzzle": HARD, "solver": "oracle"}, 400, "solver: unknown 'oracle'"),
        ({"puzzle": "." * 5000}, 413, "5000 characters, over the bound"),
        ({}, 400, "puzzle: missing"),
    ],
)
def test_a_request_over_a_bound_is_refused_in_one_line_and_the_server_goes_on(
    server, body, status, words
):
    got, d = call(server, "/api/solve", body)
    assert got == status and words in d["error"] and "\n" not in d["error"]
    assert call(server, "/api/solve", {"puzzle": "1.....1..1.....1"})[0] == 200


def test_bodies_that_are_not_requests_are_refused(server):
    assert call(server, "/api/solve", raw=b"{not json")[0] == 400
    assert call(server, "/api/solve", raw=b"[1, 2]")[0] == 400
    status, d = call(server, "/api/solve", raw=b" " * (1 << 17))
    assert status == 413 and "body" in d["error"]
    status, d = call(server, "/api/nothing")
    assert status == 404 and "/api/nothing" in d["error"]


def test_check_runs_the_chosen_backends(server):
    status, d = call(server, "/api/check", {"puzzle": HARD, "backends": ["native", "dlx"]})
    assert status == 200 and d["agree"]
    assert [r["backend"] for r in d["rows"]] == ["native", "dlx"]
    for row in d["rows"]:
        assert row["status"] == "solved" and row["count"] == 1 and row["agrees"]
        grid = tuple(int(ch) for ch in row["solution"])
        assert is_solution(parse_puzzle(HARD), grid)
    status, d = call(server, "/api/check", {"puzzle": HARD, "backends": ["nope"]})
    assert status == 400 and "unknown nope" in d["error"]


def test_check_of_a_puzzle_with_several_solutions_agrees_on_the_verdict(server):
    body = {"puzzle": "1" + "." * 15, "backends": ["native", "dlx"]}
    status, d = call(server, "/api/check", body)
    assert status == 200 and d["agree"]
    assert {r["status"] for r in d["rows"]} == {"multiple"}


def test_generate_by_grade_and_pick_from_a_set(server):
    status, d = call(server, "/api/generate", {"grade": "easy", "seed": 7})
    assert status == 200 and d["grade"] == "easy"
    assert rate_puzzle(parse_puzzle(d["puzzle"])).grade == "easy"
    assert call(server, "/api/generate", {"grade": "godlike"})[0] == 400
    status, d = call(server, "/api/generate", {"grade": "easy", "variant": "hyper", "seed": 3})
    assert status == 200 and d["variant"] == "hyper"
    status, solved = call(server, "/api/solve", {"puzzle": d["puzzle"], "variant": "hyper"})
    assert status == 200 and solved["rating"]["grade"] == "easy"
    status, d = call(server, "/api/sets/gen-classic-hard/3")
    assert status == 200 and d["puzzle"] == str(load("gen-classic-hard").entries[2].puzzle)
    assert call(server, "/api/sets/gen-classic-hard/999")[0] == 404
    assert call(server, "/api/sets/no-such-set/1")[0] == 404


def test_public_sets_in_a_data_folder_are_offered_and_read_when_asked(data_dir):
    """With --data-dir, the catalog's public sets found there are offered beside the
    shipped ones (by their catalog sizes, none read yet), and a puzzle of one is served."""
    with running_server("--data-dir", str(data_dir)) as (url, _):
        status, o = call(url, "/api/options")
        sets = dict(o["sets"])
        assert sets["top95"] == 95 and sets["hardest"] == 11 and "gen-classic-easy" in sets
        status, d = call(url, "/api/sets/top95/3")
        top95 = load("top95", [str(data_dir)]).entries
        assert status == 200 and d["puzzle"] == str(top95[2].puzzle) and not d["document"]
        assert call(url, "/api/sets/top95/96")[0] == 404


@pytest.mark.parametrize("name", ["gen-killer", "gen-jigsaw", "gen-x"])
def test_killer_jigsaw_and_variant_sets_come_as_documents_and_are_drawn(server, name):
    """A shipped set whose puzzles a line cannot say is offered as documents: the page
    solves the document as given, and the viewer gets its cages and regions."""
    from sudokulab.models.documents import to_document

    status, o = call(server, "/api/options")
    assert name in dict(o["sets"])
    entry = load(name).entries[1]
    status, d = call(server, f"/api/sets/{name}/2")
    assert status == 200 and d["document"] is True
    assert json.loads(d["puzzle"]) == to_document(entry.puzzle)
    status, solved = call(server, "/api/solve", {"puzzle": d["puzzle"]})
    assert status == 200, solved
    viewer = solved["viewer"]
    assert viewer["cages"] == [[c.total, list(c.cells)] for c in entry.puzzle.cages]
    regions = [u for u in entry.puzzle.geometry.units if u.kind == "region"]
    assert (viewer["regionOf"] is not None) == bool(regions)
    for k, unit in enumerate(regions):
        assert all(viewer["regionOf"][c] == k for c in unit.cells)
    if name == "gen-x":
        assert solved["variantCells"]  # the diagonals, from the document alone
    trace = trace_puzzle(entry.puzzle, "hidden", "mrv", max_steps=None)
    assert solved["counters"]["solutions"] == trace.summary.solutions == 1
    assert is_solution(entry.puzzle, trace.solutions[0]) and trace.solutions[0] == entry.solution


def test_generate_makes_killer_and_jigsaw_documents(server):
    from sudokulab.models import read_text

    for variant, kind in (("killer", "cages"), ("jigsaw", "regions")):
        status, d = call(server, "/api/generate", {"grade": "easy", "variant": variant, "seed": 5})
        assert status == 200 and d["document"] is True, d
        assert kind in json.loads(d["puzzle"])
        puzzle = read_text(d["puzzle"])[0].puzzle
        status, solved = call(server, "/api/solve", {"puzzle": d["puzzle"]})
        assert status == 200 and solved["counters"]["solutions"] == 1
        assert solved["puzzle"] == str(puzzle)
    # the generator's own words for what it cannot make, as a 400
    status, d = call(server, "/api/generate", {"grade": "medium", "variant": "killer"})
    assert status == 400 and "killer puzzles are graded easy or extreme" in d["error"]


def test_the_page_and_its_assets_need_no_network(server):
    for path in ("/", "/viewer.js", "/viewer.css", "/static/app.js", "/static/app.css"):
        with urllib.request.urlopen(server + path.lstrip("/"), timeout=60) as answer:
            text = answer.read().decode()
        assert answer.status == 200 and text
        for attribute in ("src=", "href=", "url(", "import "):
            for http in ("http:", "https:", "//"):
                assert f"{attribute}'{http}" not in text and f'{attribute}"{http}' not in text


def test_thirty_sessions_at_once_all_get_their_answers(server):
    puzzles = [str(e.puzzle) for e in load("gen-classic-hard").entries]
    # every level that propagates (plain backtracking takes seconds on some of these)
    levels = [p for p in PROPAGATIONS if p != "none"]
    answers: dict[int, tuple[int, dict]] = {}

    def session(k: int) -> None:
        body = {"puzzle": puzzles[k % len(puzzles)], "propagation": levels[k % len(levels)]}
        answers[k] = call(server, "/api/solve", body)

    threads = [threading.Thread(target=session, args=(k,)) for k in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(answers) == list(range(30))
    for k, (status, d) in answers.items():
        assert status == 200, d
        assert d["puzzle"] == puzzles[k % len(puzzles)]
        assert d["settings"]["propagation"] == levels[k % len(levels)]
        assert d["counters"]["solutions"] == 1


def test_a_long_request_does_not_hold_up_a_short_one(server):
    # Plain backtracking on a puzzle built against it: the trace runs to its step bound.
    slow = {"puzzle": HARD, "propagation": "none", "order": "first", "maxSteps": 5000}
    assert call(server, "/api/options")[0] == 200  # once: the shipped sets are read
    order: list[str] = []
    started = threading.Event()

    def long_one() -> None:
        started.set()
        call(server, "/api/solve", slow)
        order.append("long")

    thread = threading.Thread(target=long_one)
    thread.start()
    started.wait()
    assert call(server, "/api/options")[0] == 200
    order.append("short")
    thread.join()
    assert order == ["short", "long"]


def test_the_time_bound_stops_a_search_and_a_generation_and_the_server_goes_on():
    hard = str(load("gen-classic-hard").entries[4].puzzle)  # long for plain backtracking
    with running_server("--timeout", "0.5") as (url, _):
        status, d = call(url, "/api/solve", {"puzzle": hard, "propagation": "none"})
        assert status == 200 and d["counters"]["timedOut"]
        assert ["outcome", "stopped by the timeout after 0 solution(s)"] in d["viewer"]["summary"]
        status, d = call(url, "/api/generate", {"grade": "expert", "size": 16, "seed": 1})
        assert status == 408 and "within the timeout of 0.5 s" in d["error"]
        assert call(url, "/api/solve", {"puzzle": hard})[0] == 200


def test_a_taken_port_is_one_line_and_status_2():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "sudokulab", "serve", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
    assert proc.returncode == 2
    assert proc.stderr == (
        f"sudokulab: error: serve: port {port} on 127.0.0.1 is taken (another server?): "
        "choose another with --port\n"
    )


def test_ctrl_c_stops_the_server_cleanly():
    with running_server() as (url, proc):
        assert call(url, "/api/options")[0] == 200
        proc.send_signal(signal.SIGINT)
        assert proc.wait(60) == 130
        assert proc.stderr.read() == "sudokulab: interrupted\n"


def test_traces_run_in_worker_processes_that_stop_with_the_server():
    """A trace runs in a worker process of the server (a class's searches use every
    core); Ctrl-C stops the server and its workers with it."""
    import psutil

    with running_server() as (url, proc):
        assert call(url, "/api/options")[0] == 200
        server = psutil.Process(proc.pid)
        assert not server.children(recursive=True)  # nothing started before a trace
        status, d = call(url, "/api/solve", {"puzzle": HARD, "propagation": "sac"})
        assert status == 200 and d["counters"]["solutions"] == 1
        workers = server.children(recursive=True)
        assert workers and all("python" in w.name().lower() for w in workers)
        # a refusal made in a worker comes back whole: status, line, column
        status, d = call(url, "/api/solve", {"puzzle": "12x" + "." * 78})
        assert status == 400 and d["column"] == 3 and "'x'" in d["error"]
        proc.send_signal(signal.SIGINT)
        assert proc.wait(60) == 130
        gone, alive = psutil.wait_procs(workers, timeout=30)
        assert not alive


@pytest.mark.skipif(os.name != "posix", reason="signals")
def test_the_port_is_free_again_after_the_server_stops():
    with running_server() as (url, proc):
        port = int(url.rsplit(":", 1)[1].strip("/"))
    with socket.socket() as again:
        again.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        again.bind(("127.0.0.1", port))


def test_without_the_serve_extra_the_command_says_how_to_get_it():
    code = "import sys; sys.modules['uvicorn'] = None\nfrom sudokulab.cli import main\n"
    code += "sys.exit(main(['serve', '--port', '0']))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr == (
        "sudokulab: error: serve needs the serve extra (uvicorn is missing): "
        "pip install 'sudokulab[serve]'\n"
    )


# -- the error paths, on the application in this process (a fault put in on purpose) ------


@contextmanager
def app_in_thread(**kwargs) -> Iterator[str]:
    """``create_app(**kwargs)`` served by uvicorn in a thread of this process, on a free
    port (so a test can put a fault into the work it runs); stopped at the end."""

    import uvicorn

    from sudokulab.serve.app import create_app

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(create_app(**kwargs), host="127.0.0.1", port=port, log_level="error")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_for(lambda: server.started, 30)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(30)


def test_a_bug_in_the_work_is_a_500_in_one_line_and_the_server_goes_on(monkeypatch, caplog):
    from sudokulab.serve import work

    def broken(body, bounds):
        raise RuntimeError("a fault put in by the test")

    monkeypatch.setattr(work, "check", broken)
    with app_in_thread() as url:
        status, d = call(url, "/api/check", {"puzzle": HARD, "backends": ["native"]})
        assert status == 500
        assert d == {"error": "internal error: RuntimeError: a fault put in by the test"}
        assert "a fault put in by the test" in caplog.text  # the traceback is logged
        status, solved = call(url, "/api/solve", {"puzzle": HARD})
        assert status == 200 and solved["counters"]["solutions"] == 1


def test_past_the_queue_the_server_says_it_is_busy_and_then_serves_again(monkeypatch):
    """One worker thread and room for one request: while a request runs, the next is told
    the server is busy (503, one line); once it ends, requests are served again."""
    from sudokulab.serve import app, work

    running, release = threading.Event(), threading.Event()
    check = work.check

    def held(body, bounds):  # (a check: it runs in a thread of this process)
        running.set()
        assert release.wait(60)
        return check(body, bounds)

    monkeypatch.setattr(work, "check", held)
    monkeypatch.setattr(app, "QUEUE", 1)
    with app_in_thread(workers=1) as url:
        first: list = []
        body = {"puzzle": HARD, "backends": ["native"]}
        thread = threading.Thread(target=lambda: first.append(call(url, "/api/check", body)))
        thread.start()
        assert running.wait(60)
        status, d = call(url, "/api/options")
        assert status == 503 and d == {"error": "the server is busy: try again shortly"}
        release.set()
        thread.join(120)
        assert first[0][0] == 200 and first[0][1]["rows"][0]["status"] == "solved"
        assert call(url, "/api/options")[0] == 200


#: A 4x4 puzzle with one solution, one with none (r1c1 can only be 1, and column 1 has a 1
#: already), and one with many.
UNIQUE4, UNSOLVABLE4, MANY4 = "..1.4.....3..2..", ".2341...........", "1..............."


@pytest.mark.parametrize(
    ("puzzle", "claim"), [(UNIQUE4, "exactly 1 solution"), (UNSOLVABLE4, "no solution")]
)
def test_certify_answers_a_certificate_our_checker_accepts(server, puzzle, claim):
    pytest.importorskip("pysat")
    from sudokulab.certify import check_proof

    status, answer = call(server, "/api/solve", {"puzzle": puzzle, "certify": True})
    assert status == 200
    made = answer["certificate"]
    assert made["claim"] == claim and made["accepted"] is True and made["exact"] is True
    assert made["cnf"].startswith(f"c sudokulab certificate: {claim}\nc puzzle: {puzzle}\n")
    verdict = check_proof(made["cnf"], made["proof"])  # checked again, here
    assert verdict.accepted and verdict.lemmas == made["lemmas"]
    assert made["bytes"] == len(made["proof"]) and made["lines"] == made["proof"].count("\n")
    proof = answer["viewer"]["proof"]  # the viewer's proof section
    assert proof["outcome"] == "accepted" and proof["claim"] == f"the puzzle has {claim}"
    assert proof["propagation"][-1].split(". ", 1)[1].startswith("a contradiction")


def test_certify_proves_nothing_of_many_solutions_and_takes_only_true_or_false(server):
    pytest.importorskip("pysat")
    status, answer = call(server, "/api/solve", {"puzzle": MANY4, "certify": True})
    made = answer["certificate"]
    assert status == 200 and made["claim"] is None and made["cnf"] is None
    assert made["note"].startswith("no claim to prove: the search stopped at 10 solutions")
    status, answer = call(server, "/api/solve", {"puzzle": UNIQUE4})
    assert status == 200 and "certificate" not in answer and "proof" not in answer["viewer"]
    status, answer = call(server, "/api/solve", {"puzzle": UNIQUE4, "certify": "yes"})
    assert status == 400 and answer == {"error": "certify: 'yes' is not true or false"}
