"""The Starlette application of ``sudokulab serve``: the page, its assets, the JSON API.

The traces and the generator (Python: the reference engine, the logic solver) run in a
pool of worker processes, one per core (anyio's), so a class's searches use every core
rather than take turns on one interpreter; the rest (checks across backends, which
isolate their solvers themselves, the options, the sets) runs in a pool of threads. So a
class of browsers is served side by side and the event loop never waits on a solve. A
request over a bound is answered with a 4xx and ``{"error": "one line"}``; when more
requests wait than :data:`QUEUE` the newest get a 503 saying so.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from pathlib import Path
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..classroom.page_assets import MARKUP, SCRIPT, STYLE
from . import work
from .bounds import Bounds
from .work import Refused

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


def create_app(
    bounds: Bounds | None = None,
    workers: int = WORKERS,
    processes: int = PROCESSES,
    data_dirs: tuple[str, ...] = (),
) -> Starlette:
    """The application, with the given bounds on each request's work; the page offers the
    shipped sets and the public ones found in the data folders (and ``data_dirs``)."""
    bounds = bounds or Bounds()
    state: dict[str, Any] = {"waiting": 0}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        state["limiter"] = anyio.CapacityLimiter(workers)
        state["processes"] = anyio.CapacityLimiter(processes)
        yield

    async def run(function, *args, process: bool = False) -> Response:
        """``function(*args)``'s JSON answer from a worker thread (or, with ``process``,
        a worker process), or its refusal."""
        if state["waiting"] >= QUEUE:
            return JSONResponse({"error": "the server is busy: try again shortly"}, 503)
        state["waiting"] += 1
        try:
            if process:  # the function and its arguments travel by pickle
                answer = await anyio.to_process.run_sync(
                    function, *args, limiter=state["processes"]
                )
            else:
                answer = await anyio.to_thread.run_sync(
                    lambda: function(*args), limiter=state["limiter"]
                )
        except Refused as err:
            return JSONResponse(err.body(), err.status)
        except Exception as err:  # a bug: said in one line to the page, the traceback logged
            logger.exception("sudokulab serve: %s failed", getattr(function, "__name__", "work"))
            return JSONResponse({"error": f"internal error: {type(err).__name__}: {err}"}, 500)
        finally:
            state["waiting"] -= 1
        return JSONResponse(answer)

    async def body_of(request: Request) -> dict[str, Any]:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            raise Refused(413, f"request: the body is over the bound of {MAX_BODY} bytes")
        raw = await request.body()
        if len(raw) > MAX_BODY:
            raise Refused(413, f"request: the body is over the bound of {MAX_BODY} bytes")
        try:
            body = json.loads(raw or b"{}")
        except ValueError as err:
            raise Refused(400, f"request: not JSON: {err}") from None
        if not isinstance(body, dict):
            raise Refused(400, "request: give a JSON object")
        return body

    def posting(function, process: bool = False):
        async def endpoint(request: Request) -> Response:
            try:
                body = await body_of(request)
            except Refused as err:
                return JSONResponse(err.body(), err.status)
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

    async def not_found(request: Request, exc: Exception) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": f"no such API path: {request.url.path}"}, 404)
        return JSONResponse({"error": f"not found: {request.url.path}"}, 404)

    routes = [
        Route("/", page),
        Route("/viewer.js", viewer_js),
        Route("/viewer.css", viewer_css),
        Route("/api/options", options),
        Route("/api/sets/{name}/{n:int}", set_puzzle),
        Route("/api/solve", posting(work.solve, process=True), methods=["POST"]),
        Route("/api/check", posting(work.check), methods=["POST"]),
        Route("/api/generate", posting(work.make, process=True), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, lifespan=lifespan, exception_handlers={404: not_found})
