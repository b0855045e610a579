"""XCSP3 solvers as a backend: the model written as an XCSP3 instance and solved by ACE
(default) or Choco, the two solvers the pycsp3 package ships (Java programs, as jars).

The instance is the CP model as the XCSP3 competition states it (the same forms as
``sudokulab export --format xcsp3``, written here): an array ``x`` of the cells with
domain 1..n, each constraint's primitives (:mod:`sudokulab.encodings`) as
``allDifferent``, ``sum`` (over cells and 0-1 expressions), ``extension`` and
``intension`` (:func:`elements`), the givens as one ``instantiation``, a narrowed domain
as a unary ``extension``. pycsp3's own modelling
layer is not used to write it: importing pycsp3 reads the program's command line as its
own options, and at exit compiles whatever model it holds into a file in the current
folder; its jars are found without importing it.

The solver runs in a child process (``java``), given the time left (ACE's ``-t``) and
killed at the deadline whatever it does (Choco is given no time limit: its output does
not say whether a stopped enumeration was complete, so only a run that ends by itself
counts). Solutions are counted by the solver's own enumeration, up to the limit (ACE's
``-s``, Choco's ``-a`` with a limit of solutions); a count is exact when the run ended
by itself before the limit, and for ACE also said ``COMPLETE EXPLORATION``.

A Java runtime must be on the PATH: without one the backend is not available, and
``sudokulab backends`` says so.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any
from xml.etree import ElementTree
from xml.sax.saxutils import escape

from ..encodings import Distinct, Implies, Linear, Primitive, Table, Term, accepted_kinds, decompose
from ..encodings.primitives import TYPES
from ..models import Model
from . import interrupt
from .base import Backend, Request
from .result import Result, Status

#: The solvers, default first (each one's jar is in its folder of pycsp3's ``solvers``).
SOLVERS = ("ace", "choco")


def jar(solver: str) -> Path | None:
    """The jar of a solver pycsp3 ships (``ace``, ``choco``), found without importing
    pycsp3; None when pycsp3 is not installed."""
    spec = importlib.util.find_spec("pycsp3")
    if spec is None or not spec.submodule_search_locations:
        return None
    jars = sorted(Path(spec.submodule_search_locations[0]).glob(f"solvers/{solver}/*.jar"))
    return jars[-1] if jars else None


def _guarded(args: list[str]) -> list[str]:
    """The command run under ``setpriv --pdeathsig KILL`` where util-linux has it: the JVM
    is killed when the thread that started it dies, so a parent killed outright (where
    no deadline or Ctrl-C handler runs) leaves no solver behind."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL", *args] if setpriv else args


def command(solver: str, path: Path, limit: int | None, seconds: float | None) -> list[str]:
    """The command line that runs ``solver`` on the instance at ``path``."""
    found = jar(solver)
    if solver == "ace":
        out = ["java", "-jar", str(found), str(path), f"-s={limit or 'all'}", "-xe", "-xc=false"]
        if seconds is not None:
            out.append(f"-t={max(1, int(seconds * 1000))}")  # milliseconds (no fractions)
        return out
    out = ["java", "-cp", str(found), "org.chocosolver.parser.xcsp.ChocoXCSP", str(path), "-a"]
    if limit is not None:
        out.append(f"-limit=[{limit}sols]")
    return out


def write(model: Model, notes: bool = False) -> str:
    """The XCSP3 instance of ``model``: each constraint's primitives (:func:`elements`),
    the givens as one ``instantiation``, a narrowed domain as a unary ``extension``; with
    ``notes``, each constraint's elements carry its name (in a ``block`` when several)."""
    cells, n = len(model.domains), model.size
    out = ['<instance format="XCSP3" type="CSP">', "  <variables>"]
    out += [f'    <array id="x" size="[{cells}]"> 1..{n} </array>', "  </variables>"]
    out.append("  <constraints>")
    for constraint in model.constraints:
        found = [e for p in decompose(constraint, n) for e in elements(p)]
        if not notes:
            out += [f"    {e}" for e in found]
            continue
        note = f' note="{escape(constraint.name, {chr(34): "&quot;"})}"'
        if len(found) == 1:
            tag = re.match(r"<(\w+)", found[0]).group(1)  # the note goes in its opening tag
            out.append(f"    <{tag}{note}{found[0][len(tag) + 1 :]}")
        else:
            out += [f"    <block{note}>", *(f"      {e}" for e in found), "    </block>"]
    givens = [(c, d[0]) for c, d in enumerate(model.domains) if len(d) == 1]
    if givens:
        xs = " ".join(f"x[{c}]" for c, _ in givens)
        values = " ".join(str(v) for _, v in givens)
        note = ' note="givens"' if notes else ""
        out.append(f"    <instantiation{note}><list> {xs} </list><values> {values} </values>")
        out.append("    </instantiation>")
    for cell, domain in enumerate(model.domains):
        if 1 < len(domain) < n:
            out.append(f"    {_extension((cell,), [(v,) for v in domain])}")
    out += ["  </constraints>", "</instance>"]
    return "\n".join(out) + "\n"


def elements(primitive: Primitive) -> list[str]:
    """One primitive as XCSP3 constraint elements: ``allDifferent`` (and a ``sum`` for a
    total), a linear row as ``sum`` (a 0-1 literal as the expression ``in(x[k],set(...))``),
    a table as ``extension``, a row that holds when some cells take some values as an
    ``intension`` ``imp(...)``."""
    if isinstance(primitive, Distinct):
        xs = " ".join(f"x[{c}]" for c in primitive.cells)
        out = [f"<allDifferent> {xs} </allDifferent>"]
        if primitive.total is not None:
            out.append(f"<sum><list> {xs} </list><condition> (eq,{primitive.total}) "
                       "</condition></sum>")  # fmt: skip
        return out
    if isinstance(primitive, Linear):
        # A literal "x in V" is listed as the sum of "x = v" over V (a cell holds one
        # value): Choco (choco-parsers 4.10.15, in pycsp3 2.6.1) reads in(...) in a
        # sum's list as no constraint at all.
        split = [(t.coef, f"eq(x[{t.cell}],{v})") for t in primitive.terms if t.values
                 for v in sorted(t.values)]  # fmt: skip
        pairs = [(t.coef, _term(t)) for t in primitive.terms if t.values is None] + split
        terms = " ".join(term for _, term in pairs)
        coefs = [coef for coef, _ in pairs]
        weights = "" if set(coefs) == {1} else f"<coeffs> {' '.join(map(str, coefs))} </coeffs>"
        return [
            f"<sum><list> {terms} </list>{weights}<condition> ({op},{k}) </condition></sum>"
            for op, k in _conditions(primitive)
        ]
    if isinstance(primitive, Table):
        return [_extension(primitive.cells, sorted(primitive.allowed))]
    if isinstance(primitive, Implies):
        guards = [_literal(c, values) for c, values in primitive.when]
        when = guards[0] if len(guards) == 1 else f"and({','.join(guards)})"
        row = primitive.then
        total = ",".join(
            _term(t) if t.coef == 1 else f"mul({t.coef},{_term(t)})" for t in row.terms
        )
        total = total if len(row.terms) == 1 else f"add({total})"
        bounds = [f"{op}({total},{k})" for op, k in _conditions(row)]
        then = bounds[0] if len(bounds) == 1 else f"and({','.join(bounds)})"
        return [f"<intension> imp({when},{then}) </intension>"]
    raise ValueError(f"xcsp3: no translation of {type(primitive).__name__}")


def _conditions(row: Linear) -> list[tuple[str, int]]:
    """A row's bounds as XCSP3 operators: ``eq``, or ``ge`` and ``le``."""
    if row.low is not None and row.low == row.high:
        return [("eq", row.low)]
    return [(op, k) for op, k in (("ge", row.low), ("le", row.high)) if k is not None]


def _term(t: Term) -> str:
    return f"x[{t.cell}]" if t.values is None else _literal(t.cell, t.values)


def _literal(cell: int, values: frozenset[int]) -> str:
    """ "Cell holds one of values" as an XCSP3 expression (0 or 1 in a sum)."""
    if len(values) == 1:
        return f"eq(x[{cell}],{next(iter(values))})"
    return f"in(x[{cell}],set({','.join(map(str, sorted(values)))}))"


def _extension(cells: tuple[int, ...], allowed: list[tuple[int, ...]]) -> str:
    """The allowed tuples of ``cells`` (one value each when unary)."""
    xs = " ".join(f"x[{c}]" for c in cells)
    if len(cells) == 1:
        supports = " ".join(str(v) for (v,) in allowed)
    else:
        supports = "".join(f"({','.join(map(str, t))})" for t in allowed)
    return f"<extension><list> {xs} </list><supports> {supports} </supports></extension>"


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_VALUES = re.compile(r"<values>\s*([\d\s]*?)\s*</values>")


def read(text: str, cells: int) -> tuple[list[tuple[int, ...]], str | None, bool]:
    """The solutions in a solver's output (each ``<values>`` of a solution's
    instantiation, once: Choco prints its last one again), its ``s`` status, and
    whether it says its exploration was complete (ACE's ``d COMPLETE EXPLORATION``)."""
    text = _ANSI.sub("", text)
    status = None
    body: list[str] = []
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] == "s":
            status = words[1]
        if words[:1] == ["v"]:
            body.append(line[1:])
    solutions = []
    seen = set()
    for chunk in re.split(r"<instantiation", " ".join(body))[1:]:
        match = _VALUES.search(chunk)
        sol = re.search(r"id='([^']*)'", chunk)
        key = sol.group(1) if sol else len(solutions)
        if match is None or key in seen:
            continue
        seen.add(key)
        grid = tuple(int(v) for v in match.group(1).split())
        if len(grid) == cells:
            solutions.append(grid)
    return solutions, status, "COMPLETE EXPLORATION" in text and "INCOMPLETE" not in text


class Xcsp3Backend(Backend):
    """ACE or Choco (the option ``solver``) on the XCSP3 instance of the model."""

    name = "xcsp3"
    kinds = accepted_kinds(TYPES)
    options = {"solver": SOLVERS}
    stops_itself = True  # the child process is killed at the deadline by the search itself
    requires = "pycsp3"

    def available(self) -> bool:
        """True when pycsp3's jars are installed and ``java`` is on the PATH."""
        return jar("ace") is not None and shutil.which("java") is not None

    def missing(self) -> str:
        """Why the backend cannot run here (for ``sudokulab backends``)."""
        if jar("ace") is None:
            return f"not installed (pip install {self.requires})"
        return "needs a Java runtime (java not on PATH)"

    def version(self) -> str:
        """The pycsp3 version (its ACE and Choco jars come with it)."""
        import importlib.metadata

        return importlib.metadata.version("pycsp3")

    def search(self, model: Model, request: Request) -> Result:
        """Run the solver on the instance, killed at the deadline if it has not ended."""
        solver = request.options.get("solver", SOLVERS[0])
        cells = len(model.domains)
        stats: dict[str, Any] = {"solver": solver}
        with tempfile.TemporaryDirectory(prefix="sudokulab-xcsp3-") as folder:
            path = Path(folder) / "model.xml"
            path.write_text(write(model))
            left = request.left()
            if left is not None and left <= 0:
                return Result(self.name, Status.TIMEOUT, stats=stats)
            start = time.perf_counter()
            args = command(solver, path, request.limit, left)
            proc = subprocess.Popen(
                _guarded(args),
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                stdin=subprocess.DEVNULL,
                text=True,
                start_new_session=True,  # its own group: Ctrl-C and the kill reach all of it
            )
            interrupt.on_interrupt(lambda: _kill(proc))
            try:
                out, _ = proc.communicate(timeout=request.left())
                killed = False
            except subprocess.TimeoutExpired:
                _kill(proc)
                out, _ = proc.communicate()
                killed = True
            solve_time = time.perf_counter() - start
        solutions, status, complete = read(out or "", cells)
        solutions = solutions[: request.limit] if request.limit else solutions
        stats["exit"] = status or ("killed" if killed else f"exit {proc.returncode}")
        if killed:
            return Result.counted(self.name, solutions, False, True, 0.0, solve_time, stats)
        limited = request.limit is not None and len(solutions) >= request.limit
        ended = status in ("SATISFIABLE", "UNSATISFIABLE") and (solver != "ace" or complete)
        if limited or ended:
            return Result.counted(self.name, solutions, ended and not limited, False, 0.0,
                                  solve_time, stats)  # fmt: skip
        if solver == "ace" and request.timeout is not None and status != "UNSATISFIABLE":
            # ACE stopped by its own -t, its exploration incomplete: a timeout
            return Result.counted(self.name, solutions, False, True, 0.0, solve_time, stats)
        why = f"xcsp3: {solver} ended with {stats['exit']} and no verdict"
        return Result.counted(self.name, solutions, False, False, 0.0, solve_time, stats, why)

    def describe(self, model: Model) -> str:
        """The XCSP3 instance this backend writes, counted off it."""
        constraints = ElementTree.fromstring(write(model)).find("constraints")
        posted = Counter(e.tag for e in constraints if e.tag not in ("block", "instantiation"))
        posted.update(e.tag for block in constraints.iter("block") for e in block)
        built = ", ".join(f"{count} {tag}" for tag, count in posted.items())
        return (
            f"xcsp3: an array x of {len(model.domains)} integer variables, {built}, "
            f"{sum(1 for d in model.domains if len(d) == 1)} givens in one instantiation; "
            f"solved by {SOLVERS[0]} (pycsp3's jar, run by java)"
        )


def _kill(proc: subprocess.Popen) -> None:
    """Kill the solver's process group (java and anything it started)."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
            os.killpg(proc.pid, signal.SIGKILL)
