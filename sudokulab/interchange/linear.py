"""The model's 0-1 program (:mod:`sudokulab.encodings.linear`, the program of mip, highs
and gurobi) as MPS and LP (OR-Tools' own writers) and as OPB (the pseudo-Boolean
competition's format), and a MIP or PB solver's answer read back."""

from __future__ import annotations

import math
import re
from typing import Any

from ..encodings import Distinct, Implies, Linear, Table, accepted_kinds
from ..encodings.linear import program as linear_program
from ..models import Model
from ..models.model import AllDifferent, Sum
from .common import SOLVED, UNKNOWN, UNSOLVABLE, Answer, decode, header_lines, unreadable
from .dimacs import answer_of, read_competition

#: The program's one encoding.
ENCODINGS = ("binary",)
#: The constraint kinds written: those whose primitives the program translates (mip's).
KINDS = accepted_kinds((Distinct, Linear, Table, Implies))

LP_NUMBERING = (
    "one binary x_rRcC_V per cell and value its domain allows: 1 when cell rRcC holds V "
    "(a given's cell has one, fixed to 1);\nrows: one value per cell, each value once per unit "
    "(at most once in a unit of fewer cells), each cage's values and total, then each variant "
    "rule's rows (rule<k>_<name>_<j>) over x and its own binaries (aux<i>); no objective"
)


def program(model: Model) -> tuple[Any, list[tuple[int, int] | None]]:
    """The 0-1 program of ``model`` as OR-Tools' ``MPModelProto``, its variables and rows
    named, and each variable's (cell, value) in the program's order (None for a variant
    rule's own variable)."""
    from ortools.linear_solver import linear_solver_pb2

    prog = linear_program(model)
    proto = linear_solver_pb2.MPModelProto()
    geom = model.geometry
    fixed = set(prog.fixed)
    for i, pair in enumerate(prog.columns):
        name = f"aux{i + 1}" if pair is None else f"x_{geom.cell_name(pair[0])}_{pair[1]}"
        proto.variable.add(lower_bound=int(i in fixed), upper_bound=1, is_integer=True, name=name)
    names = [f"cell_{geom.cell_name(c)}" for c in range(len(prog.x))]
    rules = 0
    for constraint, count in prog.spans:
        labels = prog.labels[len(names) : len(names) + count]
        if isinstance(constraint, AllDifferent | Sum):
            names += [f"{_word(constraint.name)}_{label}" for label in labels]
        else:
            rules += 1
            names += [f"rule{rules}_{_word(constraint.name)}_{j}" for j in range(1, count + 1)]
    for row, name in zip(prog.rows, names, strict=True):
        proto.constraint.add(
            lower_bound=row.lower,
            upper_bound=row.upper,
            var_index=row.columns,
            coefficient=row.coefs,
            name=name,
        )
    return proto, prog.columns


def _word(name: str) -> str:
    return re.sub(r"\W+", "_", name).strip("_")


def _solver_of(model: Model, proto: Any) -> Any:
    from ortools.linear_solver import pywraplp

    solver = pywraplp.Solver.CreateSolver("SCIP")  # any solver: it only writes the program
    error = solver.LoadModelFromProtoKeepNames(proto)
    assert not error, error
    return solver


#: OR-Tools' objective line when there is no objective: CBC and HiGHS read it, GLPK does not.
_EMPTY_OBJECTIVE = re.compile(r"^ Obj:[ \t]*$", re.MULTILINE)


def write_lp(model: Model, encoding: str) -> str:
    """The program in CPLEX LP format, by OR-Tools' writer; the empty objective written as
    ``0`` times the first variable, as GLPK's own writer does (glpsol rejects ``Obj:``
    followed by nothing; CBC and HiGHS read either)."""
    proto, _ = program(model)
    text = _solver_of(model, proto).ExportModelAsLpFormat(False)
    text = _EMPTY_OBJECTIVE.sub(f" Obj: 0 {proto.variable[0].name}", text, count=1)
    head = header_lines(model, "lp", encoding, LP_NUMBERING)
    return "".join(f"\\ {line}\n" for line in head) + text


def write_mps(model: Model, encoding: str) -> str:
    """The program in free MPS format, by OR-Tools' writer."""
    proto, _ = program(model)
    text = _solver_of(model, proto).ExportModelAsMpsFormat(False, False)
    head = header_lines(model, "mps", encoding, LP_NUMBERING)
    return "".join(f"* {line}\n" for line in head) + text


def write_opb(model: Model, encoding: str) -> str:
    """The program as OPB: each row as ``>=`` or ``=`` over x1..xN (the format has no
    ``<=``: a row at most b is written as its negation at least -b)."""
    proto, of = program(model)
    geom = model.geometry
    # A variable's bounds need no row: every one is 0-1, and the one a given fixes to 1 is
    # its cell's only variable, so the cell's row (its sum is 1) already fixes it.
    rows: list[str] = []
    for row in proto.constraint:
        terms = list(zip(row.coefficient, row.var_index, strict=True))
        lb, ub = row.lower_bound, row.upper_bound
        if lb == ub:
            rows.append(f"{_terms(terms, 1)} = {_int(lb)} ;")
            continue
        if math.isfinite(lb) and lb > -1e30:
            rows.append(f"{_terms(terms, 1)} >= {_int(lb)} ;")
        if math.isfinite(ub) and ub < 1e30:
            rows.append(f"{_terms(terms, -1)} >= {_int(-ub)} ;")
    by_cell: dict[int, list[tuple[int, int]]] = {}
    for i, pair in enumerate(of):
        if pair is not None:
            by_cell.setdefault(pair[0], []).append((pair[1], i + 1))
    numbering = [
        "x<k> is the program's k-th variable, 1 when its cell holds its value (the MIP "
        "backend's program: cells row-major, each cell's values ascending, a given's cell "
        "one variable; the variant rules' own binaries after them); a row at most b is "
        "written negated, at least -b;",
        "each cell's variables, value by value:",
    ]
    for cell, pairs in sorted(by_cell.items()):
        values = " ".join(str(v) for v, _ in pairs)
        variables = " ".join(f"x{k}" for _, k in pairs)
        numbering.append(f"{geom.cell_name(cell)} values {values}: {variables}")
    head = header_lines(model, "opb", encoding, "\n".join(numbering))
    first = f"* #variable= {len(proto.variable)} #constraint= {len(rows)}"
    return "\n".join([first, *(f"* {line}" for line in head), *rows]) + "\n"


def _int(number: float) -> int:
    return int(round(number))


def _terms(terms: list[tuple[float, int]], sign: int) -> str:
    return " ".join(f"{sign * _int(c):+d} x{i + 1}" for c, i in terms)


_NAME = re.compile(r"x_r(\d+)c(\d+)_(\d+)$")
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
#: Status lines (those before the values, and HiGHS's closing "Model status: ...") saying
#: the program has no solution: SCIP's, HiGHS's and CBC's "infeasible", GLPK's "INTEGER
#: EMPTY" (glpsol lists every column even then).
_INFEASIBLE = re.compile(r"\binfeasible\b|\binteger empty\b", re.IGNORECASE)
#: ... that the solver stopped holding no integer solution, whatever values it lists: CBC's
#: "(no integer solution - continuous used)" (the LP relaxation's values follow), GLPK's
#: "INTEGER UNDEFINED", SCIP's "no solution available".
_NO_SOLUTION = re.compile(
    r"no integer solution|\binteger undefined\b|no solution available", re.IGNORECASE
)
#: ... that it stopped before deciding: a value listed then is an incumbent, a solution.
_GAVE_UP = re.compile(
    r"time limit|node limit|iteration limit|interrupt|not solved|unknown|stopped|undefined",
    re.IGNORECASE,
)


def read_mip(model: Model, text: str, encoding: str, source: str) -> Answer:
    """A MIP solver's solution file for the LP or MPS of ``model``: every line naming a
    variable ``x_rRcC_V`` with its value (HiGHS's, SCIP's and Gurobi's ``name value``,
    CBC's ``index name value ...``, glpsol's ``-o`` listing ``index name [*] activity
    ...``; a variable not listed is 0), read up to a dual section. A status line saying
    infeasible is unsolvable; one saying the solver stopped without an integer solution
    is unknown, whatever values follow."""
    size = model.size
    pairs: list[tuple[int, int]] = []
    listed = False
    status_lines: list[str] = []
    blank = False
    primal = None  # where HiGHS's table (its "pretty" style) right-aligns the values
    lines = text.splitlines()
    reading = True
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if line.lower().startswith("model status:"):
            status_lines.append(line)  # the last line of HiGHS's table
            continue
        if line.lower().startswith(("# dual", "# basis")) or line == "Rows":
            reading = False  # HiGHS goes on with the rows, or the columns' dual values
        if not reading:
            continue
        spans = [(m.group(), m.end()) for m in re.finditer(r"\S+", raw)]
        words = [w for w, _ in spans]
        if "Primal" in words and "Name" in words:
            primal = spans[words.index("Primal")][1]
            continue
        found = next((k for k, w in enumerate(words) if _NAME.match(w)), None)
        if found is None:
            if not listed and line:
                status_lines.append(line)
            continue
        if primal is not None and not any(end == primal for _, end in spans):
            blank = True  # HiGHS's table without values (its status comes at the end)
            continue
        listed = True
        r, c, v = (int(g) for g in _NAME.match(words[found]).groups())
        if not (1 <= r <= size and 1 <= c <= size and 1 <= v <= size):
            raise unreadable(
                f"{words[found]} is no variable of a {size}x{size} grid", source, number
            )
        if primal is not None:
            value = next((w for w, end in spans if end == primal), "")
        else:
            rest = words[found + 1 :]
            if not rest and number < len(lines) and not _NAME.search(lines[number]):
                rest = lines[number].split()  # glpsol wraps a long name's line
            if rest[:1] == ["*"]:
                rest = rest[1:]  # glpsol marks an integer column
            value = rest[0] if rest else ""
        if not _NUMBER.match(value):
            raise unreadable(f"{words[found]} has no value", source, number)
        if float(value) > 0.5:
            pairs.append(((r - 1) * size + c - 1, v))
    said = {
        pattern: next((line for line in status_lines if pattern.search(line)), None)
        for pattern in (_INFEASIBLE, _NO_SOLUTION, _GAVE_UP)
    }
    if said[_INFEASIBLE] is not None:
        return Answer(UNSOLVABLE, said=said[_INFEASIBLE])
    if said[_NO_SOLUTION] is not None:  # named by why it stopped, where a line says so
        return Answer(UNKNOWN, said=said[_GAVE_UP] or said[_NO_SOLUTION])
    if listed:
        return Answer(SOLVED, decode(model, pairs))
    if said[_GAVE_UP] is not None:
        return Answer(UNKNOWN, said=said[_GAVE_UP])
    if blank:
        why = "the table lists no values and the file no status"
        raise unreadable(f"{why}: write HiGHS's raw style (write_solution_style 0)", source)
    why = "no variable x_rRcC_V with its value, and no status saying infeasible"
    raise unreadable(why, source)


def read_opb(model: Model, text: str, encoding: str, source: str) -> Answer:
    """A PB solver's answer (``s``/``v`` lines, ``v x1 -x2 ...``) to the OPB of ``model``."""

    def literal(word: str) -> int | None:
        m = re.fullmatch(r"(-?)x(\d+)", word)
        return None if m is None else int(m.group(2)) * (-1 if m.group(1) else 1)

    status, literals, said = read_competition(text, source, literal)
    verdict = answer_of(status, source)
    if verdict:
        return Answer(verdict, said=said)
    _, of = program(model)
    pairs = []
    for lit in literals:
        if abs(lit) > len(of):
            raise unreadable(f"x{abs(lit)}: the program has {len(of)} variables", source)
        if lit > 0 and of[lit - 1] is not None:
            pairs.append(of[lit - 1])
    return Answer(SOLVED, decode(model, pairs))
