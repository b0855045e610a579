"""``sudokulab serve`` refuses what a local development server must (issue 42).

A real server on a free port (``running_server`` of tests/test_serve.py), talked to with
raw sockets where the request itself is the point: the JSON API only as JSON (415), only
for its own Host (421) and its own page's posts (403), bodies bounded however they are
sent (413, read no further), requests that must arrive in time (408, closed), nosniff on
every answer, every bad value a 4xx in one line, an OpenAPI description that schemathesis
finds no 5xx and no answer outside of, and a Ctrl-C that ends the work in flight.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from test_serve import HARD, START, running_server  # noqa: E402

from sudokulab.catalog import load  # noqa: E402

#: A puzzle plain backtracking takes long over (as tests/test_serve.py says).
SLOW_FOR_BACKTRACKING = str(load("gen-classic-hard").entries[4].puzzle)
#: A puzzle python-constraint's backtracking takes long over (top95 #4): in a check, its
#: isolated worker process is busy for seconds.
SLOW_FOR_CONSTRAINT = (
    "48.3............71.2.......7.5....6....2..8.............1.76...3.....4......5...."
)


@pytest.fixture(scope="module")
def server() -> Any:
    with running_server("--read-timeout", "1") as (url, proc):
        yield url, proc


def ask(
    url: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    method: str | None = None,
) -> tuple[int, dict[str, str], Any]:
    """(status, headers, JSON answer or text) of one request."""
    request = urllib.request.Request(url + path.lstrip("/"), data=body, method=method)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=120) as answer:
            status, head, raw = answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as err:
        status, head, raw = err.code, dict(err.headers), err.read()
    kind = head.get("content-type", "")
    return status, head, json.loads(raw) if kind.startswith("application/json") else raw


def post(url: str, path: str, body: Any, **headers: str) -> tuple[int, dict[str, str], Any]:
    """A JSON post (its content type unless one is given)."""
    given = {k.replace("_", "-"): v for k, v in headers.items()}
    given.setdefault("content-type", "application/json")
    return ask(url, path, json.dumps(body).encode(), given)


def address(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").strip("/").rsplit(":", 1)
    return host, int(port)


def one_line(answer: Any) -> str:
    assert isinstance(answer, dict) and set(answer) <= {"error", "column"}, answer
    assert "\n" not in answer["error"]
    return answer["error"]


# -- what the API takes ----------------------------------------------------------------


@pytest.mark.parametrize(
    "kind", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None]
)
def test_the_json_api_takes_only_json(server, kind):
    """A form or text/plain post needs no CORS preflight: another site's page could send
    one; so the API takes application/json alone."""
    url, _ = server
    body = json.dumps({"puzzle": HARD}).encode()
    status, head, answer = ask(url, "/api/solve", body, {"content-type": kind} if kind else {})
    assert status == 415 and "application/json" in one_line(answer)
    assert head["x-content-type-options"] == "nosniff"
    status, _, answer = ask(
        url, "/api/solve", body, {"content-type": "application/json; charset=utf-8"}
    )
    assert status == 200 and answer["counters"]["solutions"] == 1


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:{port}", "127.0.0.1:1", "[::2]:{port}"]
)
def test_another_host_is_refused_against_dns_rebinding(server, host):
    url, _ = server
    _, port = address(url)
    host = host.format(port=port)
    for path in ("/api/options", "/"):
        status, head, answer = ask(url, path, headers={"host": host})
        assert status == 421 and "is not this server's address" in one_line(answer)
        assert head["x-content-type-options"] == "nosniff"
    status, _, answer = post(url, "/api/solve", {"puzzle": HARD}, host=host)
    assert status == 421


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}", "LOCALHOST.:{port}"])
def test_the_servers_own_names_are_served(server, host):
    url, _ = server
    status, _, answer = ask(
        url, "/api/options", headers={"host": host.format(port=address(url)[1])}
    )
    assert status == 200 and "propagations" in answer


@pytest.mark.parametrize("origin", ["http://evil.example", "null", "https://127.0.0.1:{port}"])
def test_a_post_from_another_origin_is_refused(server, origin):
    url, _ = server
    origin = origin.format(port=address(url)[1])
    status, head, answer = post(url, "/api/solve", {"puzzle": HARD}, origin=origin)
    assert status == 403 and "may not post here" in one_line(answer)
    assert head["x-content-type-options"] == "nosniff"
    # the server's own page, or no page at all (a script), may
    for own in ({"origin": url.rstrip("/")}, {}):
        status, _, answer = post(url, "/api/solve", {"puzzle": HARD}, **own)
        assert status == 200 and answer["counters"]["solutions"] == 1


@pytest.mark.parametrize(
    ("path", "body", "status", "words"),
    [
        ("/api/solve", {"puzzle": HARD, "size": 9.0}, 400, "size: 9.0 is not one of"),
        ("/api/solve", {"puzzle": HARD, "size": True}, 400, "size: True is not one of"),
        ("/api/solve", {"puzzle": HARD, "size": "9"}, 400, "size: '9' is not one of"),
        ("/api/solve", {"puzzle": HARD, "size": [9] * 100}, 400, "size: a list is not one of"),
        ("/api/solve", {"puzzle": HARD, "maxSteps": True}, 400, "maxSteps: give a whole"),
        ("/api/solve", {"puzzle": HARD, "maxSteps": 1.5}, 400, "maxSteps: give a whole"),
        ("/api/solve", {"puzzle": HARD, "propagation": 3}, 400, "propagation: give a string"),
        ("/api/solve", {"puzzle": HARD, "certify": 1}, 400, "certify: 1 is not true or false"),
        ("/api/solve", {"puzzle": [HARD]}, 400, "puzzle: give a string"),
        ("/api/solve", {"puzzle": "x" * 100, "solver": "z" * 99}, 400, "puzzle: line 1"),
        ("/api/check", {"puzzle": HARD, "backends": "native"}, 400, "backends: give a list"),
        ("/api/check", {"puzzle": HARD, "backends": [1]}, 400, "backends: give a list"),
        ("/api/check", {"puzzle": HARD, "backends": ["x" * 999]}, 400, "backends: unknown"),
        ("/api/generate", {"size": 9.0}, 400, "size: 9.0 is not one of"),
        ("/api/generate", {"seed": 1.5}, 400, "seed: give a whole number"),
        ("/api/generate", {"grade": None}, 400, "grade: give a string"),
        ("/api/solve", {"puzzle": HARD, "x": [[[[[[[[[[1]]]]]]]]]]}, 400, "nested more than"),
    ],
)
def test_every_bad_value_is_a_4xx_in_one_line(server, path, body, status, words):
    url, _ = server
    got, _, answer = post(url, path, body)
    assert got == status and words in one_line(answer)
    assert len(answer["error"]) < 400  # what was sent is not repeated whole


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"[" * 30000 + b"]" * 30000, "nested too deeply"),
        (b'{"puzzle": "' + b"\xff\xfe" * 10 + b'"}', "not JSON"),
        (b'{"puzzle": 1e999999}', "give a string"),
        (b"NaN", "give a JSON object"),
    ],
)
def test_bodies_no_parser_likes_are_a_4xx(server, raw, words):
    url, _ = server
    status, _, answer = ask(url, "/api/solve", raw, {"content-type": "application/json"})
    assert 400 <= status < 500 and words in one_line(answer)


def test_a_document_nested_too_deeply_in_the_puzzle_is_a_400(server):
    url, _ = server
    status, _, answer = post(url, "/api/solve", {"puzzle": "[" * 2000 + "]" * 2000})
    assert status == 400 and one_line(answer).startswith("puzzle: ")


def test_other_methods_and_paths_are_json_too(server):
    url, _ = server
    status, head, answer = ask(url, "/api/solve")
    assert status == 405 and head["allow"] == "POST" and "only POST" in one_line(answer)
    status, _, answer = ask(url, "/static/nothing.js")
    assert status == 404 and "not found" in one_line(answer)


def test_every_answer_says_nosniff(server):
    url, _ = server
    paths = ["/", "/viewer.js", "/viewer.css", "/static/app.js", "/api/options", "/api/nope"]
    for path in paths:
        status, head, _ = ask(url, path)
        assert head.get("x-content-type-options") == "nosniff", (path, status)
    status, head, _ = post(url, "/api/solve", {"puzzle": "1..x"})
    assert status == 400 and head["x-content-type-options"] == "nosniff"


# -- bodies and time -------------------------------------------------------------------


def send_head(sock: socket.socket, url: str, lines: list[str]) -> None:
    host, port = address(url)
    head = ["POST /api/solve HTTP/1.1", f"Host: {host}:{port}", *lines]
    sock.sendall(("\r\n".join(head) + "\r\n\r\n").encode())


def read_all(sock: socket.socket, within: float) -> bytes:
    """What the server sends until it closes the connection; fails if it is still open
    ``within`` seconds from now."""
    data, until = b"", time.monotonic() + within
    while True:
        left = until - time.monotonic()
        assert left > 0, f"the connection is still open: {data[:200]!r}"
        ready, _, _ = select.select([sock], [], [], left)
        if ready:
            try:
                part = sock.recv(65536)
            except ConnectionResetError:
                return data
            if not part:
                return data
            data += part


def test_a_chunked_body_over_the_bound_is_refused_without_reading_it_whole(server):
    """50 MB in chunks: the server answers 413 once it has read past the bound and
    closes the connection; what it holds meanwhile does not grow with the body."""
    import psutil

    url, proc = server
    assert ask(url, "/api/options")[0] == 200  # the server's own start-up is done
    memory = psutil.Process(proc.pid)
    before = memory.memory_info().rss
    chunk = b" " * (1 << 16)
    frame = b"%x\r\n%s\r\n" % (len(chunk), chunk)
    sent, answer = 0, b""
    with socket.create_connection(address(url)) as sock:
        send_head(sock, url, ["Content-Type: application/json", "Transfer-Encoding: chunked"])
        try:
            while sent < 50 << 20:
                readable, writable, _ = select.select([sock], [sock], [], 60)
                if readable:
                    break  # the answer came before the body ended
                if writable:
                    sock.sendall(frame)
                    sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass  # closed by the server as it should: its answer is read below
        answer = read_all(sock, 60)
    grown = memory.memory_info().rss - before
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert b"over the bound of 65536 bytes" in answer
    assert sent < 50 << 20  # refused before the body ended
    assert grown < 20 << 20, f"the server grew by {grown / 2**20:.1f} MB"


def test_a_declared_length_over_the_bound_is_refused_before_the_body(server):
    url, _ = server
    with socket.create_connection(address(url)) as sock:
        send_head(sock, url, ["Content-Type: application/json", f"Content-Length: {50 << 20}"])
        answer = read_all(sock, 60)
    assert answer.startswith(b"HTTP/1.1 413 ")


@pytest.mark.parametrize(
    ("what", "sent", "status"),
    [
        ("half a body", 'Content-Length: 100\r\n\r\n{"puz', b"HTTP/1.1 408 "),
        ("half a head", "Content-Type: appl", b"HTTP/1.1 408 "),
        ("a trickle", None, b"HTTP/1.1 408 "),
        ("nothing", "", b""),
    ],
)
def test_a_request_that_does_not_arrive_in_time_is_closed(server, what, sent, status):
    """--read-timeout 1: a connection whose request is not whole after a second is
    answered 408 (if it sent anything) and closed, however it trickles."""
    url, _ = server
    host, port = address(url)
    with socket.create_connection((host, port)) as sock:
        if sent is None:  # a byte at a time, each within the keep-alive's idle time
            head = f"POST /api/solve HTTP/1.1\r\nHost: {host}:{port}\r\nX-Slow: "
            sock.sendall(head.encode())
            until = time.monotonic() + 30
            answer = b""
            while time.monotonic() < until:
                ready, _, _ = select.select([sock], [], [], 0.2)
                if ready:
                    answer = read_all(sock, 30)
                    break
                try:
                    sock.sendall(b"a")
                except (BrokenPipeError, ConnectionResetError):
                    answer = read_all(sock, 30)
                    break
            else:
                pytest.fail("a trickling request held its connection for 30 s")
        else:
            if sent:
                host_line = f"POST /api/solve HTTP/1.1\r\nHost: {host}:{port}\r\n"
                sock.sendall((host_line + "Content-Type: application/json\r\n" + sent).encode())
            answer = read_all(sock, 30)
    assert answer.startswith(status), answer[:200]
    if status:
        assert b"x-content-type-options: nosniff" in answer
        assert answer.endswith(b'{"error": "request: not received within 1 s"}')


def test_a_kept_alive_connection_gets_its_answers_and_then_the_deadline(server):
    """The deadline starts again after each answer: two requests on one connection,
    the second sent after a pause shorter than the deadline, both answered."""
    url, _ = server
    host, port = address(url)
    body = json.dumps({"puzzle": "1.....1..1.....1"}).encode()
    request = (
        f"POST /api/solve HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json"
        f"\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    with socket.create_connection((host, port)) as sock:
        for _ in range(2):
            sock.sendall(request)
            data = b""
            while b'"seconds"' not in data:
                ready, _, _ = select.select([sock], [], [], 60)
                assert ready
                part = sock.recv(65536)
                assert part, data
                data += part
            assert data.startswith(b"HTTP/1.1 200 ")


# -- the description -------------------------------------------------------------------


def test_the_openapi_description_names_exactly_the_api_routes():
    from starlette.routing import Route

    from sudokulab.serve.app import create_app
    from sudokulab.serve.bounds import Bounds
    from sudokulab.serve.openapi import openapi

    app = create_app()
    served = {
        (route.path.replace("{n:int}", "{n}"), method.lower())
        for route in app.routes
        if isinstance(route, Route) and route.path.startswith("/api/")
        for method in route.methods or ()
        if method != "HEAD"
    }
    described = {
        (path, method) for path, item in openapi(Bounds())["paths"].items() for method in item
    }
    assert described == served - {("/api/openapi.json", "get")}


def test_schemathesis_finds_no_server_error_and_no_answer_outside_the_description():
    """Every operation, at most 50 examples each, derandomized: no 5xx, every answer's
    status, content type and body as described."""
    schemathesis = pytest.importorskip("schemathesis")
    from hypothesis import HealthCheck, given, settings
    from hypothesis.errors import Unsatisfiable

    names = (
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_schema_conformance",
    )
    checks = [getattr(schemathesis.checks, name) for name in names]
    # short work: the examples test the edges, not the engine
    with running_server("--timeout", "0.2") as (url, _):
        schema = schemathesis.openapi.from_url(url + "api/openapi.json")
        operations = [result.ok() for result in schema.get_all_operations()]
        assert len(operations) == 5
        for operation in operations:
            for mode in (
                schemathesis.GenerationMode.POSITIVE,
                schemathesis.GenerationMode.NEGATIVE,
            ):

                @settings(
                    max_examples=25,
                    derandomize=True,
                    deadline=None,
                    database=None,
                    suppress_health_check=list(HealthCheck),
                )
                @given(case=operation.as_strategy(generation_mode=mode))
                def examples(case: Any) -> None:
                    case.call_and_validate(base_url=url.rstrip("/"), checks=checks)

                try:
                    examples()
                except Unsatisfiable:  # nothing to break: GET /api/options takes nothing
                    assert mode is schemathesis.GenerationMode.NEGATIVE
                    assert not operation.path_parameters and not operation.body


# -- Ctrl-C ----------------------------------------------------------------------------


def children_of(pid: int) -> list[Any]:
    import psutil

    return psutil.Process(pid).children(recursive=True)


@pytest.mark.skipif(os.name != "posix", reason="signals")
@pytest.mark.parametrize(
    ("path", "body"),
    [
        # a trace in a worker process: plain backtracking on a puzzle made against it
        ("/api/solve", {"puzzle": SLOW_FOR_BACKTRACKING, "propagation": "none", "maxSteps": 5000}),
        # the generator in a worker process: no expert 16x16 puzzle for this seed soon
        ("/api/generate", {"grade": "expert", "size": 16, "seed": 2}),
        # a check: python-constraint in its isolated worker, killed by the server
        ("/api/check", {"puzzle": SLOW_FOR_CONSTRAINT, "backends": ["constraint"]}),
    ],
)
def test_ctrl_c_ends_the_work_in_flight_in_one_line(path, body):
    """Ctrl-C at the terminal (SIGINT to the whole process group) while a request's work
    runs for up to a minute: the client is told the server is stopping, the terminal
    gets one line, and the workers are gone."""
    import psutil

    proc = subprocess.Popen(
        [sys.executable, "-m", "sudokulab", "serve", "--port", "0", "--timeout", "60"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of its own, as a terminal gives it
    )
    try:
        line = proc.stderr.readline()
        assert line.startswith(START), line
        url = line[len(START) :].split()[0]
        answers: list[Any] = []
        client = threading.Thread(target=lambda: answers.append(post(url, path, body)))
        client.start()
        until = time.monotonic() + 60
        while not children_of(proc.pid):  # the work has started in a worker process
            assert time.monotonic() < until and client.is_alive(), answers
            time.sleep(0.05)
        workers = children_of(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(60) == 130
        client.join(60)
        assert proc.stderr.read() == "sudokulab: interrupted\n"
        status, head, answer = answers[0]
        assert status == 503 and answer == {"error": "the server is stopping"}
        gone, alive = psutil.wait_procs(workers, timeout=30)
        assert not alive
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
