"""DIMACS CNF (the SAT competitions' format) from the shared CNF encodings
(:mod:`sudokulab.encodings.cnf`, the `sat` backend's), and the answers of a SAT solver
(``s``/``v`` lines, or MiniSat's result file) read back."""

from __future__ import annotations

from ..encodings import accepted_kinds
from ..encodings.cnf import ENCODINGS as ENCODINGS  # the CNF encodings, the default first
from ..encodings.cnf import RULES, TYPES, Cnf, encode
from ..models import Model
from .common import (
    SOLVED,
    UNDECIDED,
    UNKNOWN,
    UNSOLVABLE,
    Answer,
    Refused,
    WrongSolution,
    decode,
    header_lines,
    unreadable,
)

#: The constraint kinds written: those whose primitives the CNF translates.
KINDS = accepted_kinds(TYPES)


def cnf_of(model: Model, encoding: str) -> Cnf:
    """The CNF of ``model`` (:data:`ENCODINGS`, the default first); Refused when the
    encoding cannot be built."""
    try:
        return encode(model, encoding)
    except ValueError as err:  # a cage with too many value sets to list, a sum too long
        raise Refused(f"dimacs, encoding {encoding}: {err}") from None


def numbering(model: Model, cnf: Cnf) -> str:
    """How the CNF's variables stand for cells and values, in words (and the map where
    the encoding renumbers them)."""
    n = model.size
    cells = len(model.domains)
    selectors = sum(1 for v in range(1, cnf.variables + 1) if not cnf.value[v])
    extra = ""
    if selectors:
        what = (
            "auxiliary variables (cage selectors, the variant rules' own)"
            if RULES in dict(cnf.groups)
            else "cage selectors"
        )
        extra = f";\nvariables {cnf.variables - selectors + 1}..{cnf.variables}: {what}"
    if cnf.encoding != "optimized":
        return (
            f"variable (cell*{n} + value-1)+1 is true when the cell (0..{cells - 1}) holds the "
            f"value (1..{n}): r1c1=1 is 1, r1c1=2 is 2, r1c2=1 is {n + 1}{extra}"
        )
    by_cell: dict[int, list[tuple[int, int]]] = {}
    for var in range(1, cnf.variables + 1):
        if cnf.value[var]:
            by_cell.setdefault(cnf.cell[var], []).append((cnf.value[var], var))
    lines = [
        "the givens' cells and the values their peers lose have no variable (Kwon and Jain);",
        f"each open cell's variables, value by value{extra}",
    ]
    geom = model.geometry
    for cell, pairs in sorted(by_cell.items()):
        values = " ".join(str(v) for v, _ in pairs)
        variables = " ".join(str(var) for _, var in pairs)
        lines.append(f"{geom.cell_name(cell)} values {values}: variables {variables}")
    return "\n".join(lines)


def write_dimacs(model: Model, encoding: str) -> str:
    """The model as DIMACS CNF under one of the SAT backend's encodings."""
    cnf = cnf_of(model, encoding)
    lines = [f"c {line}" for line in header_lines(model, "dimacs", encoding, numbering(model, cnf))]
    lines.append(f"c clause groups: {', '.join(f'{k} {n}' for k, n in cnf.groups)}")
    lines.append(f"p cnf {cnf.variables} {len(cnf.clauses)}")
    lines += [" ".join(map(str, (*clause, 0))) for clause in cnf.clauses]
    return "\n".join(lines) + "\n"


def read_competition(text: str, source: str, token) -> tuple[str, list[int], str]:
    """A solver's ``s``/``v`` lines (the SAT and PB competitions' output; MiniSat's result
    file, ``SAT`` then the literals, too): the status word, the literals (each token of a
    ``v`` line turned into an int by ``token``; None: not a literal) and the line that
    gave the status. CaDiCaL's lone ``c UNKNOWN`` (it prints no ``s`` line when it stops
    undecided) stands for ``s UNKNOWN``."""
    status = None
    said = ""
    literals: list[int] = []
    bare = False  # MiniSat's result file: literal lines without "v"
    undecided = ""  # CaDiCaL's "c UNKNOWN"
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.split() == ["c", "UNKNOWN"]:
            undecided = line
            continue
        if not line or line.startswith(("c ", "*")) or line == "c":
            continue
        words = line.split()
        if words[0] == "s" and len(words) >= 2:
            status, said = words[1].upper(), line
            continue
        if words[0] in ("SAT", "UNSAT", "INDET") and len(words) == 1 and status is None:
            status, bare = (
                {"SAT": "SATISFIABLE", "UNSAT": "UNSATISFIABLE"}.get(words[0], "UNKNOWN"),
                True,
            )
            said = line
            continue
        if words[0] == "v" or bare:
            for word in words[0 if bare else 1 :]:
                value = token(word)
                if value is None:
                    raise unreadable(f"{word!r} is not a literal", source, number)
                if value:
                    literals.append(value)
            continue
        raise unreadable(
            f"expected an 's' status line, 'v' values or 'c' comments, found {line[:40]!r}",
            source,
            number,
        )
    if status is None and undecided:
        return "UNKNOWN", literals, undecided
    if status is None:
        raise unreadable(
            "no status line ('s SATISFIABLE', 's UNSATISFIABLE' or 's UNKNOWN')", source
        )
    return status, literals, said


def _int(word: str) -> int | None:
    try:
        return int(word)
    except ValueError:
        return None


def answer_of(status: str, source: str) -> str | None:
    """The answer's status from a competition status word; None when it found one."""
    if status in ("UNSATISFIABLE",):
        return UNSOLVABLE
    if status in UNDECIDED:
        return UNKNOWN
    if status in ("SATISFIABLE", "OPTIMUM"):  # OPTIMUM FOUND: a PB solver's feasible answer
        return None
    raise unreadable(f"unknown status {status!r}", source)


def read_dimacs(model: Model, text: str, encoding: str, source: str) -> Answer:
    """A SAT solver's answer to the DIMACS of ``model`` under ``encoding``, decoded."""
    status, literals, said = read_competition(text, source, _int)
    verdict = answer_of(status, source)
    if verdict:
        return Answer(verdict, said=said)
    cnf = cnf_of(model, encoding)
    pairs = [(c, v) for c, v in enumerate(cnf.fixed) if v]
    for lit in literals:
        if abs(lit) > cnf.variables:
            raise unreadable(
                f"literal {lit}: the CNF of encoding {encoding} has {cnf.variables} variables "
                "(was it exported with another --encoding?)",
                source,
            )
        if lit > 0 and cnf.value[lit]:
            pairs.append((cnf.cell[lit], cnf.value[lit]))
    try:
        return Answer(SOLVED, decode(model, pairs))
    except WrongSolution as err:  # the numbering of another encoding reads as nonsense
        raise WrongSolution(
            f"{err} (read as encoding {encoding}: exported with another?)"
        ) from None
