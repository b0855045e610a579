"""What the live page asks for, answered from the API and the classroom's data.

Each function takes plain values (as a JSON body holds them), checks them against the
:class:`Bounds`, and returns a JSON-ready dict, or raises :class:`Refused` with the HTTP
status and the one line to show. A bad puzzle is refused with the command line's words
(``puzzle: line 1, column 4: 'x' is not a value or a blank``, ``puzzle: invalid puzzle:
row 1: ...``) and the column, so the page can point at it.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import random
import signal
import threading
import time
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from .. import api
from ..backends import get_backend
from ..backends.registry import backend_names
from ..classroom.logic_story import logic_steps, summary_rows
from ..classroom.narrative import steps as story_steps
from ..classroom.page import SNAPSHOT_EVERY, proof_data, prove, story_data, viewer_data
from ..classroom.trace import Contradiction, Forced, Guess, Solution, Trace, trace_puzzle
from ..logic import solve_logic
from ..logic.ladder import GRADES, LADDER
from ..logic.rating import rate_run
from ..models import SIZES, ParseError, Puzzle, read_text
from ..models.puzzle import symbol
from ..native.options import DEFAULTS, ORDERS, PROPAGATIONS
from .bounds import Bounds

if TYPE_CHECKING:
    from ..backends.isolation import Worker

#: The ways to solve on the page: the engine's traced search, or the logic solver's ladder.
SOLVERS = ("engine", "logic")
#: The kinds of puzzle the page can generate: the line's rules, and jigsaw and killer
#: puzzles (which come back as documents: their regions and cages do not fit in a line).
GENERATE_VARIANTS = ("classic", "x", "hyper", "jigsaw", "killer")
#: The rules a puzzle's line can be read with: the classic ones, or with the diagonals
#: (x), the four extra windows (hyper), or both (what ``--variant`` adds on the command line).
VARIANTS = ("classic", "x", "hyper", "x,hyper")


class Refused(Exception):
    """A request the server will not run: its HTTP status, the line to show, and (for a
    puzzle text) the column the line points at."""

    def __init__(self, status: int, message: str, column: int | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.column = status, message, column

    def __reduce__(self) -> tuple:
        """Pickled by its fields: it travels back from a worker process."""
        return Refused, (self.status, self.message, self.column)

    def body(self) -> dict[str, Any]:
        """The JSON body of the refusal."""
        out: dict[str, Any] = {"error": self.message}
        if self.column is not None:
            out["column"] = self.column
        return out


class Stopping:
    """The server's stop as the work in its threads sees it: a thread cannot be
    interrupted, so a check looks at the flag between backends, and the server kills the
    check's worker process and stops the searches in flight, so that the backend running
    ends at once."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._workers: set[Worker] = set()

    def is_set(self) -> bool:
        """Whether the server is stopping."""
        return self._event.is_set()

    def set(self) -> None:
        """Stop: the work in flight ends as soon as it looks, its backends at once."""
        from ..backends import interrupt

        self._event.set()
        interrupt.stop_all()  # the searches running in this process's threads
        with self._lock:
            pids = [w.pid for w in self._workers]
        for pid in pids:
            if pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)

    def check(self) -> None:
        """Refused (503) once the server is stopping."""
        if self.is_set():
            raise Refused(503, "the server is stopping")

    @contextlib.contextmanager
    def worker(self) -> Iterator[Worker]:
        """A worker process for isolated backends, killed if the server stops."""
        from ..backends.isolation import Worker

        with Worker() as worker:
            with self._lock:
                self._workers.add(worker)
            try:
                yield worker
            finally:
                with self._lock:
                    self._workers.discard(worker)


#: The stop of the server whose request is being answered, as a check in a worker thread
#: sees it (the server sets it; anyio hands a thread the context of its caller).
STOPPING: contextvars.ContextVar[Stopping | None] = contextvars.ContextVar("stopping", default=None)


def in_worker(function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` in a worker process of the server. The server stops its
    workers itself: a terminal's Ctrl-C, sent to the whole process group, is not theirs
    to hear (it would end the work with a traceback instead of the server's answer)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return function(*args)


def options(bounds: Bounds, data_dirs: tuple[str, ...] = ()) -> dict[str, Any]:
    """What the control panel offers, read at run time: the engine's levels and orders
    (new ones appear with no change here), backends, grades, sizes, sets, bounds."""
    return {
        "solvers": list(SOLVERS),
        "propagations": list(PROPAGATIONS),
        "orders": list(ORDERS),
        "defaults": {
            "solver": "engine",
            "propagation": DEFAULTS["propagation"],
            "order": DEFAULTS["order"],
            "variant": "classic",
        },
        "ladder": [[t.name, t.grade, t.score] for t in LADDER],
        "grades": list(GRADES),
        "variants": list(VARIANTS),
        "generateVariants": list(GENERATE_VARIANTS),
        "sizes": [s for s in SIZES if s <= bounds.max_size],
        "backends": [
            {"name": name, "available": get_backend(name).available()} for name in backend_names()
        ],
        "sets": [[name, count] for name, count in offered_sets(data_dirs)],
        "bounds": {
            "maxSize": bounds.max_size,
            "maxSteps": bounds.max_steps,
            "timeout": bounds.timeout,
            "maxBackends": bounds.max_backends,
            "maxCertificate": bounds.max_certificate,
        },
    }


def shown(value: Any) -> str:
    """A short, one-line picture of a value from a request, for an error message (a
    request's strings and lists are not repeated whole)."""
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:40] + "...")
    if value is None or isinstance(value, bool | int | float):
        text = repr(value)
        return text if len(text) <= 40 else text[:40] + "..."
    return "a list" if isinstance(value, list) else "an object"


def _text(body: dict[str, Any], key: str, default: str | None = None) -> str:
    value = body.get(key, default)
    if not isinstance(value, str):
        raise Refused(400, f"{key}: give a string" if key in body else f"{key}: missing")
    return value


def _size(
    body: dict[str, Any], sizes: tuple[int, ...] | list[int], default: int | None
) -> int | None:
    """The body's grid ``size``: one of ``sizes`` (a whole number, not 9.0 or true)."""
    size = body.get("size", default)
    if size is None and default is None:
        return None
    if isinstance(size, bool) or not isinstance(size, int) or size not in sizes:
        raise Refused(400, f"size: {shown(size)} is not one of {', '.join(map(str, sizes))}")
    return size


def _choice(body: dict[str, Any], key: str, choices: tuple[str, ...] | list[str], default: str):
    value = _text(body, key, default)
    if value not in choices:
        raise Refused(400, f"{key}: unknown {shown(value)}: choose from {', '.join(choices)}")
    return value


def _whole(body: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise Refused(400, f"{key}: give a whole number from {low} to {high}")
    if value > high:
        raise Refused(413, f"{key}: {value} is over the server's bound of {high}")
    if value < low:
        raise Refused(400, f"{key}: {value} is below {low}")
    return value


def read_puzzle(body: dict[str, Any], bounds: Bounds) -> Puzzle:
    """The one puzzle of the body's ``puzzle`` text (``size`` optional), or Refused: the
    command line's error text, with the column it points at."""
    text = _text(body, "puzzle")
    if len(text) > bounds.max_text:
        raise Refused(413, f"puzzle: {len(text)} characters, over the bound of {bounds.max_text}")
    size = _size(body, SIZES, None)
    errors: list[ParseError] = []
    try:
        entries = read_text(text, source="puzzle", size=size, errors=errors)
    except ParseError as err:
        raise Refused(400, str(err), err.column) from None
    except RecursionError:  # a document nested past the parser's depth
        raise Refused(400, "puzzle: the document is nested too deeply to read") from None
    if errors:
        raise Refused(400, str(errors[0]), errors[0].column)
    if not entries:
        raise Refused(400, "puzzle: no puzzle found in the text")
    if len(entries) > 1:
        raise Refused(400, f"puzzle: the text holds {len(entries)} puzzles: give one")
    puzzle = entries[0].puzzle
    variant = _choice(body, "variant", VARIANTS, "classic")
    if variant != "classic":
        from ..models.variants import with_variant

        try:
            puzzle = with_variant(puzzle, variant.split(","), None)
        except ValueError as err:
            raise Refused(400, f"variant: {err}") from None
    if puzzle.size > bounds.max_size:
        raise Refused(
            413,
            f"puzzle: a {puzzle.size}x{puzzle.size} grid is over the server's bound of "
            f"{bounds.max_size}x{bounds.max_size}",
        )
    clashes = puzzle.clashes()
    if clashes:
        raise Refused(400, "puzzle: invalid puzzle: " + "; ".join(map(str, clashes)))
    return puzzle


def variant_cells(puzzle: Puzzle) -> list[int]:
    """The cells of the variant's extra units (diagonals, windows), for the page to shade."""
    units = puzzle.geometry.units
    return sorted({c for u in units if u.kind not in ("row", "column", "box") for c in u.cells})


def search_tree(trace: Trace) -> dict[str, Any]:
    """The search tree of the kept steps: a node per guess and per forced placement (a
    level of the search too; ``forced`` set), the root the state after the givens, each
    with its parent, the step that made it, and how it ended (``dead`` at a
    contradiction, ``solution``; ``path`` on the way to a solution)."""
    geom = trace.puzzle.geometry
    nodes: list[dict[str, Any]] = [
        {"id": 0, "parent": -1, "label": "start", "depth": 0, "step": -1, "end": ""}
    ]
    stack = [0]
    for index, step in enumerate(story_steps(trace)):
        event = step.event
        if isinstance(event, Guess | Forced):
            depth = min(event.depth, len(stack))
            parent = stack[depth - 1]
            node = {
                "id": len(nodes),
                "parent": parent,
                "label": f"{geom.cell_name(event.cell)}={symbol(event.value)}",
                "depth": depth,
                "step": index,
                "end": "",
            }
            if isinstance(event, Forced):
                node["forced"] = True
            nodes.append(node)
            del stack[depth:]
            stack.append(node["id"])
        elif isinstance(event, Contradiction | Solution):
            at = nodes[stack[min(event.depth, len(stack) - 1)]]
            at["end"] = "dead" if isinstance(event, Contradiction) else "solution"
            at["endStep"] = index
            if isinstance(event, Solution):
                parent = at["parent"]
                while parent >= 0:
                    nodes[parent]["path"] = True
                    parent = nodes[parent]["parent"]
                at["path"] = True
    return {"nodes": nodes, "truncated": trace.truncated}


def _rating(puzzle: Puzzle) -> dict[str, Any]:
    """The logic solver's rating of the puzzle (a killer puzzle has none)."""
    try:
        run = solve_logic(puzzle)
    except ValueError as err:
        return {"error": str(err)}
    return _rating_of(run)


def _rating_of(run) -> dict[str, Any]:
    rating = rate_run(run)
    return {
        "grade": rating.grade,
        "score": round(rating.score, 1),
        "hardest": rating.hardest,
        "status": run.status,
    }


def solve(body: dict[str, Any], bounds: Bounds) -> dict[str, Any]:
    """A traced search (``solver`` engine) or a logic run (``logic``) as the viewer's
    data, with the search tree, the counters, and the puzzle's rating."""
    puzzle = read_puzzle(body, bounds)
    solver = _choice(body, "solver", SOLVERS, "engine")
    max_steps = _whole(body, "maxSteps", min(2000, bounds.max_steps), 1, bounds.max_steps)
    certifying = _flag(body, "certify")
    start = time.perf_counter()
    if solver == "logic":
        try:
            run = solve_logic(puzzle, max_steps=max_steps)
        except ValueError as err:
            raise Refused(400, f"logic: {err}") from None
        rows = [list(row) for row in summary_rows(run)]
        data = story_data(puzzle, logic_steps(run), rows, False, f"{puzzle}  ·  logic solver")
        settings = {"solver": solver}
        tree = None
        rating = _rating_of(run)
        counters = {"steps": len(run.steps)}
    else:
        propagation = _choice(body, "propagation", PROPAGATIONS, DEFAULTS["propagation"])
        order = _choice(body, "order", ORDERS, DEFAULTS["order"])
        try:
            trace = trace_puzzle(
                puzzle, propagation, order, max_steps=max_steps, timeout=bounds.timeout
            )
        except ValueError as err:  # pencil marks
            raise Refused(400, f"puzzle: {err}") from None
        data = viewer_data(trace)
        settings = {"solver": solver, "propagation": propagation, "order": order}
        tree = search_tree(trace)
        rating = _rating(puzzle)
        s = trace.summary
        counters = {
            "nodes": s.nodes,
            "guesses": s.guesses,
            "backtracks": s.backtracks,
            "contradictions": s.contradictions,
            "solutions": s.solutions,
            "timedOut": trace.timed_out,
        }
        if s.forced:  # cells placed with one candidate left: levels, but no guesses
            counters["forced"] = s.forced
    data.update(standalone=False, every=SNAPSHOT_EVERY)
    settings["variant"] = _text(body, "variant", "classic")
    certificate = None
    if certifying:
        certificate, data["proof"] = certify(puzzle, bounds)
    answer = {
        "puzzle": str(puzzle),
        "size": puzzle.size,
        "settings": settings,
        "variantCells": variant_cells(puzzle),
        "viewer": data,
        "tree": tree,
        "counters": counters,
        "rating": rating,
        "seconds": round(time.perf_counter() - start, 4),
    }
    if certificate is not None:
        answer["certificate"] = certificate
    return answer


def certify(puzzle: Puzzle, bounds: Bounds) -> tuple[dict[str, Any], dict[str, Any]]:
    """The certificate of the puzzle's verdict (the native engine's, solutions counted up
    to a few: :func:`sudokulab.classroom.page.prove`) as the API gives it, and the
    viewer's proof section. The CNF and the proof texts come whole while together they
    hold at most ``bounds.max_certificate`` bytes; else None, and a note names the command
    that writes them."""
    result = prove(puzzle, bounds.timeout)
    made = result.certificate
    out: dict[str, Any] = {
        "status": result.status.value,
        "count": result.count,
        "exact": result.exact,
        "claim": None,
        "prover": None,
        "encoding": None,
        "accepted": None,
        "lemmas": 0,
        "lines": 0,
        "bytes": 0,
        "checkTime": 0.0,
        "reason": "",
        "refuted": None,
        "cnf": None,
        "proof": None,
        "note": "",
    }
    proof = proof_data(puzzle, result)
    if made is None:
        out["note"] = proof["note"]
    else:
        out.update(
            claim=made.claim,
            prover=made.prover,
            encoding=made.encoding,
            accepted=made.accepted,
            lemmas=made.lemmas,
            lines=made.lines,
            bytes=made.size,
            checkTime=round(made.check_time, 6),
            reason=made.reason,
            refuted=None if made.refuted is None else "".join(map(symbol, made.refuted)),
        )
        texts = len(made.cnf) + len(made.proof)
        if texts <= bounds.max_certificate:
            out.update(cnf=made.cnf, proof=made.proof)
        else:
            out["note"] = (
                f"the CNF and the proof hold {texts} bytes, over the server's bound of "
                f"{bounds.max_certificate}: sudokulab solve PUZZLE --certify DIR writes them"
            )
    return out, proof


def _flag(body: dict[str, Any], key: str) -> bool:
    """The body's ``key``: true or false (false when left out)."""
    value = body.get(key, False)
    if not isinstance(value, bool):
        raise Refused(400, f"{key}: {shown(value)} is not true or false")
    return value


def check(body: dict[str, Any], bounds: Bounds) -> dict[str, Any]:
    """The puzzle on each chosen backend, as ``check`` runs them (the same isolation and
    deadlines as ``solve``): each one's status, solutions counted up to two, and times.
    The server's stop (:data:`STOPPING`) ends it between backends (503) and stops the
    backend in flight."""
    stopping = STOPPING.get() or Stopping()
    puzzle = read_puzzle(body, bounds)
    names = body.get("backends")
    known = backend_names()
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise Refused(400, "backends: give a list of backend names")
    if len(names) > bounds.max_backends:
        raise Refused(413, f"backends: {len(names)} is over the bound of {bounds.max_backends}")
    unknown = [n for n in names if n not in known]
    if unknown:
        choose = ", ".join(known)
        named = ", ".join(shown(n)[1:-1] for n in unknown[:5])  # a few, each cut short
        raise Refused(400, f"backends: unknown {named}: choose from {choose}")
    rows = []
    with stopping.worker() as worker:
        for name in dict.fromkeys(names):
            stopping.check()
            _warm_up(name, bounds, worker)
            stopping.check()
            result = api.solve(puzzle, name, limit=2, timeout=bounds.timeout, worker=worker)
            stopping.check()
            rows.append(_row(name, result))

    # Backends may find several solutions in other orders: they agree on the verdict, and
    # on the solution when it is unique. A timeout or an error has no verdict to compare.
    def verdict(row: dict[str, Any]) -> tuple[str, str]:
        return row["status"], row["solution"] if row["status"] == "solved" else ""

    decided = [row for row in rows if row["status"] not in ("timeout", "error")]
    verdicts = {verdict(row) for row in decided}
    for row in rows:
        row["agrees"] = None if row not in decided else len(verdicts) == 1
    return {"puzzle": str(puzzle), "rows": rows, "agree": len(verdicts) <= 1}


def _row(name: str, result: Any) -> dict[str, Any]:
    """One backend's row of a check."""
    return {
        "backend": name,
        "status": result.status.value,
        "count": result.count,
        "solution": "".join(map(symbol, result.solutions[0])) if result.solutions else "",
        "build": round(result.build_time, 6),
        "solve": round(result.solve_time, 6),
        "message": result.message,
    }


#: Backends that have run once in this server (their packages imported, their caches set).
_warmed: set[str] = set()
#: A 4x4 puzzle to warm a backend up with.
_TINY = "1.....1..1.....1"


def _warm_up(name: str, bounds: Bounds, worker: Worker | None = None) -> None:
    """Run a backend once on a tiny puzzle before its first timed check, so that the
    times a class compares are of solving, not of importing a solver package."""
    if name not in _warmed:
        api.solve(_TINY, name, limit=1, timeout=bounds.timeout, worker=worker)
        _warmed.add(name)


def make(body: dict[str, Any], bounds: Bounds) -> dict[str, Any]:
    """A new puzzle of the asked grade, size and variant (sudokulab.generate)."""
    from ..generate import GenerateError, generate

    grade = _choice(body, "grade", GRADES, "medium")
    variant = _choice(body, "variant", GENERATE_VARIANTS, "classic")
    size = _size(body, [s for s in SIZES if s <= bounds.max_size], 9)
    seed = body.get("seed", random.randrange(2**31))
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise Refused(400, "seed: give a whole number")
    try:
        made = next(generate(size, variant, difficulty=grade, seed=seed, timeout=bounds.timeout))
    except GenerateError as err:
        timed_out = "within the timeout" in str(err)
        raise Refused(408 if timed_out else 400, f"generate: {err}") from None
    text = puzzle_text(made.puzzle)
    return {
        "puzzle": text,
        "document": text.startswith("{"),
        "size": size,
        "variant": variant,
        "grade": made.grade,
        "seed": seed,
    }


def puzzle_text(puzzle: Puzzle) -> str:
    """The text the page's puzzle field holds for a puzzle: its one line when the line
    says it all (the classic rules; the variant menu adds diagonals or windows), else
    its puzzle document as one JSON line (killer cages, jigsaw regions, variant rules)."""
    plain = not puzzle.cages and not puzzle.rules and puzzle.candidates is None
    if plain and all(u.kind in ("row", "column", "box") for u in puzzle.geometry.units):
        return str(puzzle)
    from ..models.documents import dumps

    return dumps(puzzle)


def offered_sets(data_dirs: tuple[str, ...] = ()) -> list[tuple[str, int]]:
    """The catalog's sets the page offers, with their sizes: every set shipped with the
    package, and every public set found in the data folders (fetched, $SUDOKULAB_DATA,
    ``--data-dir``); none is read until a puzzle of it is asked for."""
    from ..catalog import SetNotFound, entries, locate

    out = []
    for info in entries():
        if not info.shipped:
            try:
                locate(info.name, data_dirs, check=False)
            except SetNotFound:
                continue
        out.append((info.name, info.count))
    return out


@lru_cache(maxsize=8)
def _set_texts(name: str, data_dirs: tuple[str, ...]) -> tuple[str, ...]:
    """The puzzles of a catalog set as the page's texts (read and checked once; the
    eight sets asked for last are kept)."""
    from ..catalog import load

    return tuple(puzzle_text(e.puzzle) for e in load(name, data_dirs).entries)


def set_puzzle(name: str, number: int, data_dirs: tuple[str, ...] = ()) -> dict[str, Any]:
    """The ``number``-th (from 1) puzzle of a set the page offers: its line, or its
    document."""
    if name not in dict(offered_sets(data_dirs)):
        raise Refused(404, f"set: no set named {name!r} here (shipped, or in a data folder)")
    try:
        texts = _set_texts(name, data_dirs)
    except (OSError, ValueError) as err:  # a file changed since, or broken: said, not fatal
        raise Refused(400, f"set: {name}: {err}") from None
    if not 1 <= number <= len(texts):
        raise Refused(404, f"set: {name} holds {len(texts)} puzzles, not a number {number}")
    text = texts[number - 1]
    return {"puzzle": text, "set": name, "number": number, "document": text.startswith("{")}
