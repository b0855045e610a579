"""The Starlette application of ``sudokulab serve``: the page, its assets, the JSON API.

The traces and the generator (Python: the reference engine, the logic solver) run in a
pool of worker processes, one per core (anyio's), so a class's searches use every core
rather than take turns on one interpreter; the rest (checks across backends, which
isolate their solvers themselves, the options, the sets) runs in a pool of threads. So a
class of browsers is served side by side and the event loop never waits on a solve. A
request over a bound is answered with a 4xx and ``{"error": "one line"}``; when more
requests wait than :data:`QUEUE` the newest get a 503 saying so.

It is a local development server, and refuses what such a server must (:class:`Guard`):
a request whose ``Host`` is not this server's address (421: a page of another site that
rebinds its name to this machine), a POST from a page of another origin (403), a JSON
API call that is not ``application/json`` (415: a form or ``text/plain`` post from
another site needs no preflight), a body over :data:`MAX_BODY` however it is sent (413,
read no further); every answer says ``X-Content-Type-Options: nosniff``. The time a
request may take to arrive is bounded by the protocol (:mod:`.protocol`).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..classroom.page_assets import MARKUP, SCRIPT, STYLE
from . import work
from .bounds import Bounds
from .openapi import openapi
from .work import Refused, Stopping

logger = logging.getLogger(__name__)
STATIC = Path(__file__).parent / "static"
#: Requests whose work runs at once in threads; more wait for a turn.
WORKERS = 8
#: Traces and generations that run at once, each in a worker process: one per core.
PROCESSES = max(1, os.cpu_count() or 1)
#: Requests that may wait for a turn; past that the server says it is busy.
QUEUE = 256
#: The largest request body, in bytes.
MAX_BODY = 64 * 1024
#: The deepest nesting of lists and objects a request body may have (the API's own
#: bodies have two levels: an object, a list of names).
MAX_DEPTH = 8
#: The names that always mean this machine in a ``Host`` header.
LOOPBACK = ("localhost", "127.0.0.1", "::1")
#: Said to every request once the server is stopping (Ctrl-C).
STOPPING = "the server is stopping"
NOSNIFF = (b"x-content-type-options", b"nosniff")

#: The step-through viewer's script as a function the page calls with its data and root
#: element: the same script the static pages inline (sudokulab.classroom.page_assets).
VIEWER_JS = (
    "window.SudokulabViewer = {markup: "
    + json.dumps(MARKUP)
    + ", mount: function (DATA, ROOT) {\n"
    + SCRIPT
    + "\nreturn {go: go, last: function () { return last; }, "
    + "pos: function () { return pos; }};\n}};\n"
)


class Hosts:
    """The names a request may give in ``Host`` (and a POST in ``Origin``): this server's
    own address and port, and the loopback names. Served on every address (``0.0.0.0``,
    ``::``), any address literal and this machine's name are its own too; a DNS name that
    an attacker controls and points here is never one (DNS rebinding). ``port`` None:
    any port (an application not bound yet)."""

    def __init__(self, host: str = "127.0.0.1", port: int | None = None) -> None:
        self.port = port
        self.names = {_name(n) for n in (*LOOPBACK, host)}
        self.any_address = _is_wildcard(host)
        if self.any_address:
            machine = socket.gethostname().lower()
            self.names |= {machine, f"{machine}.local"}

    def allows(self, value: str) -> bool:
        """Whether ``value`` (``name[:port]``, as a Host header says it) is this server."""
        name, _, port = _split_host(value)
        if self.port is not None and (int(port) if port else 80) != self.port:
            return False
        return _name(name) in self.names or (self.any_address and _is_address(name))

    def example(self) -> str:
        """This server's address, to say in a refusal."""
        return f"127.0.0.1:{self.port}" if self.port is not None else "127.0.0.1"


def _name(name: str) -> str:
    return name.strip("[]").rstrip(".").lower()


def _split_host(value: str) -> tuple[str, str, str]:
    """(name, ":", port) of ``name[:port]`` (an IPv6 address in brackets); port "" when
    none is given, and a name that is not one gives a name no server has."""
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ("" if not rest else "x")
    else:
        name, colon, port = value.rpartition(":") if ":" in value else (value, "", "")
    if port and not port.isdigit():
        return "", "", ""
    return name, ":", port


def _is_wildcard(host: str) -> bool:
    return host in ("", "0.0.0.0", "::", "[::]")


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(_name(name))
    except ValueError:
        return False
    return True


class Guard:
    """ASGI middleware: refuses a request whose ``Host`` is not this server (421) and a
    POST from a page of another origin (403), and says ``X-Content-Type-Options:
    nosniff`` on every answer (an error repeats what was sent: never read as a page)."""

    def __init__(self, app: ASGIApp, hosts: Hosts) -> None:
        self.app, self.hosts = app, hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def nosniff(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), NOSNIFF]
            await send(message)

        refusal = self.refusal(scope)
        if refusal is None:
            await self.app(scope, receive, nosniff)
            return
        status, line = refusal
        response = JSONResponse({"error": line}, status, headers={"connection": "close"})
        await response(scope, receive, nosniff)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """(status, line) of a request this server does not take, else None."""
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if not self.hosts.allows(host):
            return 421, (
                f"request: Host {work.shown(host)} is not this server's address "
                f"(open http://{self.hosts.example()}/)"
            )
        origin = headers.get("origin")
        if scope["method"] not in ("GET", "HEAD", "OPTIONS") and origin is not None:
            parts = urlsplit(origin)
            if parts.scheme != "http" or not self.hosts.allows(parts.netloc):
                return (
                    403,
                    f"request: a page of another site ({work.shown(origin)}) may not post here",
                )
        return None


def _depth(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists and objects no deeper than ``limit`` levels."""
    level = [value]
    for _ in range(limit + 1):
        inner = []
        for item in level:
            if isinstance(item, dict):
                inner.extend(item.values())
            elif isinstance(item, list):
                inner.extend(item)
        if not inner:
            return True
        level = inner
    return False


async def body_of(request: Request) -> dict[str, Any]:
    """The JSON object of a POST to the API, read no further than :data:`MAX_BODY` bytes
    whether its length is given or it comes in chunks; or Refused."""
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if kind != "application/json":
        raise Refused(415, f"request: send the body as application/json, not {work.shown(kind)}")
    too_large = Refused(413, f"request: the body is over the bound of {MAX_BODY} bytes")
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise too_large
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY:
                raise too_large
            chunks.append(chunk)
    except ClientDisconnect:
        raise Refused(400, "request: the body did not arrive whole") from None
    raw = b"".join(chunks)
    try:
        body = json.loads(raw or b"{}")
    except RecursionError:
        raise Refused(400, "request: the JSON is nested too deeply") from None
    except ValueError as err:
        raise Refused(400, f"request: not JSON: {err}") from None
    if not isinstance(body, dict):
        raise Refused(400, "request: give a JSON object")
    if not _depth(body, MAX_DEPTH):
        raise Refused(400, f"request: the JSON is nested more than {MAX_DEPTH} levels deep")
    return body


def refused(err: Refused) -> JSONResponse:
    """The answer to a refused request; a refused body is not read further, so the
    connection is closed after the answer (413, 415)."""
    close = {"connection": "close"} if err.status in (413, 415) else None
    return JSONResponse(err.body(), err.status, headers=close)


def create_app(
    bounds: Bounds | None = None,
    workers: int = WORKERS,
    processes: int = PROCESSES,
    data_dirs: tuple[str, ...] = (),
    hosts: Hosts | None = None,
) -> Starlette:
    """The application, with the given bounds on each request's work; the page offers the
    shipped sets and the public ones found in the data folders (and ``data_dirs``).
    ``hosts``: the names it answers to (default: the loopback names, on any port).

    ``app.state.stop()`` (safe in a signal handler) ends the work in flight: each request
    running or waiting is answered 503 :data:`STOPPING`, its worker process killed."""
    bounds = bounds or Bounds()
    state: dict[str, Any] = {"waiting": 0, "scopes": set(), "stopping": Stopping()}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        state["limiter"] = anyio.CapacityLimiter(workers)
        state["processes"] = anyio.CapacityLimiter(processes)
        state["loop"] = asyncio.get_running_loop()
        yield

    def stop_now() -> None:
        state["stopping"].set()
        for scope in state["scopes"]:
            scope.cancel()

    def stop() -> None:
        loop = state.get("loop")
        if loop is not None and not state["stopping"].is_set():
            loop.call_soon_threadsafe(stop_now)

    async def run(function: Callable[..., Any], *args: Any, process: bool = False) -> Response:
        """``function(*args)``'s JSON answer from a worker thread (or, with ``process``,
        a worker process), or its refusal."""
        if state["stopping"].is_set():
            return JSONResponse({"error": STOPPING}, 503, headers={"connection": "close"})
        if state["waiting"] >= QUEUE:
            return JSONResponse({"error": "the server is busy: try again shortly"}, 503)
        state["waiting"] += 1
        work.STOPPING.set(state["stopping"])  # this request's context, its thread's too
        scope = anyio.CancelScope()
        state["scopes"].add(scope)
        try:
            with scope:
                if process:  # the function and its arguments travel by pickle
                    answer = await anyio.to_process.run_sync(
                        work.in_worker,
                        function,
                        *args,
                        limiter=state["processes"],
                        cancellable=True,  # stopped: its worker process is killed
                    )
                else:  # stopped: the thread is left to end by itself (it is told to)
                    answer = await anyio.to_thread.run_sync(
                        lambda: function(*args), limiter=state["limiter"], abandon_on_cancel=True
                    )
        except Refused as err:
            return refused(err)
        except Exception as err:  # a bug: said in one line to the page, the traceback logged
            logger.exception("sudokulab serve: %s failed", getattr(function, "__name__", "work"))
            return JSONResponse({"error": f"internal error: {type(err).__name__}: {err}"}, 500)
        finally:
            state["waiting"] -= 1
            state["scopes"].discard(scope)
        if scope.cancelled_caught:
            return JSONResponse({"error": STOPPING}, 503, headers={"connection": "close"})
        return JSONResponse(answer)

    def posting(function: Callable[..., Any], process: bool = False):
        async def endpoint(request: Request) -> Response:
            try:
                body = await body_of(request)
            except Refused as err:
                return refused(err)
            return await run(function, body, bounds, process=process)

        return endpoint

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    async def viewer_js(request: Request) -> Response:
        return Response(VIEWER_JS, media_type="text/javascript")

    async def viewer_css(request: Request) -> Response:
        return Response(STYLE, media_type="text/css")

    async def options(request: Request) -> Response:
        return await run(work.options, bounds, data_dirs)

    async def set_puzzle(request: Request) -> Response:
        name, number = request.path_params["name"], request.path_params["n"]
        return await run(work.set_puzzle, name, number, data_dirs)

    async def description(request: Request) -> Response:
        return JSONResponse(openapi(bounds))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        path = work.shown(request.url.path)
        if exc.status_code == 404:
            where = "no such API path" if request.url.path.startswith("/api/") else "not found"
            line = f"{where}: {path}"
        elif exc.status_code == 405:
            line = f"request: {request.method} is not taken at {path} (only {exc.headers['Allow']})"
        else:
            line = f"request: {exc.detail}"
        return JSONResponse({"error": line}, exc.status_code, headers=exc.headers)

    async def server_error(request: Request, exc: Exception) -> Response:
        # outside the Guard: the nosniff header is said here
        line = f"internal error: {type(exc).__name__}"
        return JSONResponse({"error": line}, 500, headers={"x-content-type-options": "nosniff"})

    routes = [
        Route("/", page),
        Route("/viewer.js", viewer_js),
        Route("/viewer.css", viewer_css),
        Route("/api/openapi.json", description),
        Route("/api/options", options),
        Route("/api/sets/{name}/{n:int}", set_puzzle),
        Route("/api/solve", posting(work.solve, process=True), methods=["POST"]),
        Route("/api/check", posting(work.check), methods=["POST"]),
        Route("/api/generate", posting(work.make, process=True), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=[Middleware(Guard, hosts=hosts or Hosts())],
        exception_handlers={HTTPException: http_error, Exception: server_error},
    )
    app.state.stop = stop
    return app
