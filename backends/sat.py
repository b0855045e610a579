"""PySAT (the python-sat package) as a backend: the model as CNF over Boolean x(cell, value).

Three encodings, read off the model's constraints (every unit an ``AllDifferent``,
whatever the variant, so X, hyper, jigsaw and extra units need nothing here):

- ``minimal`` (Lynce and Ouaknine, "Sudoku as a SAT Problem", 2006): each cell takes at
  least one value, each value at most once per ``AllDifferent`` (pairwise), the givens as
  unit clauses.
- ``extended`` (the same paper): minimal, plus each cell at most one value, and each value
  at least once per ``AllDifferent`` of as many cells as there are values.
- ``optimized`` (Kwon and Jain, "Optimized CNF Encoding for Sudoku Puzzles", 2006):
  extended without what the givens decide: no variable for a given's cell nor for its
  value in its peers, no clause the givens satisfy, no literal they falsify.

A killer cage (``Sum``) is the same in every encoding: its values pairwise different,
and one selector variable per value set it may use (every set of distinct values of its
size adding up to its total): exactly one selector holds, each value of the selected set
appears in the cage, and a value in one of its cells needs a selected set holding it.

The variant rules (:mod:`sudokulab.models.rules`) are the same in every encoding too
(:func:`rule_clauses`): a pair relation (thermometer step, kropki dot, XV, whisper,
anti-knight) as one clause per forbidden value pair and, for arc consistency under unit
propagation, a support clause per value (``x(a, u)`` needs one of ``b``'s values that
keeps the rule with ``u``); parity as unit clauses; renban as its definition (values
pairwise different, one selected window of consecutive values holding every cell's
value); a sum (arrow, region-sum line, little killer) as a chain of partial sums
(:func:`sum_clauses`): one variable per sum the first k cells can reach and the rest can
complete, each cell's value leading from one to the next, both ways; a sandwich as the
same chain over the cells between its crusts, whose positions Tseitin variables track
along the line. A general pseudo-Boolean encoding of the same sums (pysat.pb) took 5 to
38 times the clauses and up to 530 times the time, the minimal encoding worst
(docs/results.md, "Sums in the SAT encodings").

Solutions are counted with blocking clauses (each found grid is forbidden over its
non-given cells, then the solver is asked again). The deadline interrupts the solver
from a timer thread (``solve_limited(expect_interrupt=True)``), so only solvers whose
PySAT binding can be interrupted are offered (CaDiCaL, Lingeling and Kissat cannot).
PySAT is imported only when a model is solved.

:func:`infer` is inference alone, as in the paper's experiments: unit propagation, or
unit propagation with failed-literal probing, and no search.
"""

from __future__ import annotations

import importlib.util
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any, NamedTuple

import numpy as np

from ..models import Grid, Model
from ..models.rules import KINDS, PAIRS
from ..native.reference import combinations_of
from . import interrupt
from .base import Backend, Request, Unanswered, count_by_blocking
from .cpsat import pair_table
from .result import Result, Status

#: Encodings, default first: ``optimized`` measured fastest on classic and larger grids,
#: though not on killer puzzles with few givens (little to drop, and a new CNF to
#: convert): docs/results.md, "Why these defaults".
ENCODINGS = ("optimized", "extended", "minimal")

#: PySAT solvers whose binding takes an interrupt (the deadline) and ``propagate``
#: (:func:`infer`), default first. MiniSat 2.2 is the default: as fast as the Glucose
#: family, faster than CaDiCaL, and the most prompt to stop at a deadline
#: (docs/results.md, "Why these defaults"). CaDiCaL, Lingeling and Kissat are left out:
#: their PySAT bindings cannot be interrupted.
SOLVERS = (
    "minisat22",
    "glucose3",
    "glucose4",
    "glucose42",
    "maplesat",
    "maplecm",
    "maplechrono",
    "mergesat3",
)

#: Inference without search (:func:`infer`): unit propagation alone, or with failed
#: literals probed to a fixpoint.
INFERENCES = ("unit", "failed-literal")

#: The backend's ``search``: the solver's CDCL search (the default), or inference alone
#: as Lynce and Ouaknine ran it: ``none`` (unit propagation) or ``failed-literal``. Without
#: search a puzzle that inference does not decide ends as a native search with a budget
#: of no guess does: ``timeout``, its message saying how many open cells were decided.
SEARCHES = ("cdcl", "none", "failed-literal")

# The groups of clauses, in the order they are built and described.
CELL_ALO = "cell at least one value"
CELL_AMO = "cell at most one value"
UNIT_AMO = "value at most once per unit"
UNIT_ALO = "value at least once per unit"
CAGES = "cages"
RULES = "variant rules"
GIVENS = "givens"
_GROUPS = {
    "minimal": (CELL_ALO, UNIT_AMO, CAGES, RULES),
    "extended": (CELL_ALO, CELL_AMO, UNIT_AMO, UNIT_ALO, CAGES, RULES),
}
#: Groups left out of a CNF's counts when empty.
_OPTIONAL = (CAGES, RULES)

#: The rule kinds encoded as sums.
SUM_KINDS = frozenset({"sumequals", "littlekiller", "sandwich"})
#: The most clauses one sum may take (:func:`sum_clauses`): a larger one is refused by
#: name. A two-digit arrow with a 12-cell shaft on a 9x9 grid takes about 11,000.
MAX_SUM_CLAUSES = 1_000_000


@dataclass(frozen=True)
class Cnf:
    """A model as CNF: clauses over variables ``1..variables``, and how to read a grid.

    Variable ``x`` stands for cell ``cell[x]`` taking value ``value[x]`` (value 0: an
    auxiliary variable, a cage's selector or a rule's). ``fixed`` holds the givens (0
    elsewhere): the cells the blocking clauses leave out. ``groups`` counts the clauses
    of each kind, in build order.
    """

    encoding: str
    clauses: tuple[Sequence[int], ...]
    variables: int
    groups: tuple[tuple[str, int], ...]
    cell: tuple[int, ...]
    value: tuple[int, ...]
    fixed: Grid

    def grid(self, literals: list[int]) -> Grid:
        """The grid a model (or a partial assignment) decides; 0 where it decides nothing."""
        grid = list(self.fixed)
        value, cell = self.value, self.cell
        for lit in literals:
            if lit > 0 and value[lit]:
                grid[cell[lit]] = value[lit]
        return tuple(grid)

    def blocking(self, literals: list[int]) -> list[int]:
        """The clause forbidding a model's values in the non-given cells."""
        value, cell, fixed = self.value, self.cell, self.fixed
        return [-lit for lit in literals if lit > 0 and value[lit] and not fixed[cell[lit]]]


def encode(model: Model, encoding: str = ENCODINGS[0]) -> Cnf:
    """The CNF of ``model`` in one of :data:`ENCODINGS`.

    ValueError for an unknown encoding or a cage with too many value sets to list.

    >>> from sudokulab import build_model, parse_puzzle
    >>> cnf = encode(build_model(parse_puzzle("1" + "." * 15)), "minimal")
    >>> cnf.variables, len(cnf.clauses), dict(cnf.groups)[GIVENS]
    (64, 305, 1)
    """
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}: choose one of {', '.join(ENCODINGS)}")
    size, cells = model.size, len(model.domains)
    template = _template(size, cells, model.constraints)
    if encoding == "optimized":
        return _optimized(model, template)
    groups = [(name, template.groups[name]) for name in _GROUPS[encoding]]
    givens = _domain_clauses(model)
    groups.append((GIVENS, givens))
    clauses = tuple(c for _, group in groups for c in group)
    return Cnf(
        encoding,
        clauses,
        template.variables,
        tuple((name, len(group)) for name, group in groups if name not in _OPTIONAL or group),
        template.cell,
        template.value,
        tuple(d[0] if len(d) == 1 else 0 for d in model.domains),
    )


@dataclass(frozen=True)
class _Template:
    """Every clause group of a shape (size, cells, constraints) without its givens."""

    variables: int
    groups: dict[str, tuple[tuple[int, ...], ...]]
    cell: tuple[int, ...]
    value: tuple[int, ...]
    peers: tuple[frozenset[int], ...]  # the cells sharing a constraint with each cell
    # each group as arrays of variables and of signs, one row a clause, one pair of
    # arrays per clause length
    blocks: dict[str, tuple[tuple[np.ndarray, np.ndarray], ...]]


@lru_cache(maxsize=64)
def _template(size: int, cells: int, constraints: tuple) -> _Template:
    # x(cell, value) is variable cell * size + value; cage selectors come after them.
    n = size

    def x(cell: int, value: int) -> int:
        return cell * n + value

    values = range(1, n + 1)
    cell_alo = tuple(tuple(x(c, v) for v in values) for c in range(cells))
    cell_amo = tuple((-x(c, a), -x(c, b)) for c in range(cells) for a, b in combinations(values, 2))
    units = [c for c in constraints if c.kind == "alldifferent"]
    unit_amo = tuple(
        (-x(a, v), -x(b, v)) for u in units for v in values for a, b in combinations(u.cells, 2)
    )
    unit_alo = tuple(
        tuple(x(c, v) for c in u.cells) for u in units if len(u.cells) == n for v in values
    )
    cell_of = [-1] + [c for c in range(cells) for _ in values]
    value_of = [0] + [v for _ in range(cells) for v in values]
    cages: list[tuple[int, ...]] = []
    for cage in (c for c in constraints if c.kind == "sum"):
        sets = combinations_of(n, len(cage.cells), cage.total)
        first = len(cell_of)
        selectors = range(first, first + len(sets))
        cell_of += [-1] * len(sets)
        value_of += [0] * len(sets)
        used = [v for v in values if any(m >> (v - 1) & 1 for m in sets)]
        # values pairwise different within the cage
        cages += [(-x(a, v), -x(b, v)) for v in used for a, b in combinations(cage.cells, 2)]
        # exactly one value set
        cages.append(tuple(selectors))
        cages += [(-s, -t) for s, t in combinations(selectors, 2)]
        # a value in a cell needs a selected set holding it
        for c in cage.cells:
            for v in values:
                holding = [s for s, m in zip(selectors, sets, strict=True) if m >> (v - 1) & 1]
                cages.append((-x(c, v), *holding))
        # each value of the selected set appears in the cage
        for s, m in zip(selectors, sets, strict=True):
            cages += [(-s, *(x(c, v) for c in cage.cells)) for v in values if m >> (v - 1) & 1]
    rules, top = rule_clauses(
        [c for c in constraints if c.kind not in ("alldifferent", "sum")], n, len(cell_of) - 1
    )
    cell_of += [-1] * (top - len(cell_of) + 1)
    value_of += [0] * (top - len(value_of) + 1)
    # peers hold different values: only units and cages say so (a rule's cells may repeat)
    peers: list[set[int]] = [set() for _ in range(cells)]
    for constraint in constraints:
        if constraint.kind not in ("alldifferent", "sum"):
            continue
        for c in constraint.cells:
            peers[c].update(constraint.cells)
    groups = {
        CELL_ALO: cell_alo,
        CELL_AMO: cell_amo,
        UNIT_AMO: unit_amo,
        UNIT_ALO: unit_alo,
        CAGES: tuple(cages),
        RULES: tuple(rules),
    }
    return _Template(
        len(cell_of) - 1,
        groups,
        tuple(cell_of),
        tuple(value_of),
        tuple(frozenset(p - {c}) for c, p in enumerate(peers)),
        {name: _blocks(group) for name, group in groups.items()},
    )


def rule_clauses(rules: Sequence[Any], n: int, top: int) -> tuple[list[tuple[int, ...]], int]:
    """The clauses of the variant rules over ``x(cell, value) = cell * n + value``, and the
    last variable they use (their auxiliary variables come after ``top``).

    ValueError naming a sum whose chain of partial sums would take more than
    :data:`MAX_SUM_CLAUSES` clauses.

    >>> from sudokulab.models.rules import Less
    >>> clauses, top = rule_clauses([Less(0, 1)], 4, 32)
    >>> (-4, -8) in clauses, (-3,) in clauses, top
    (True, False, 32)
    """
    aux = _Aux(top)

    def x(cell: int, value: int) -> int:
        return cell * n + value

    values = range(1, n + 1)
    clauses: list[tuple[int, ...]] = []
    for rule in rules:
        kind = rule.kind
        if kind in PAIRS:
            allowed = set(pair_table(rule, n))
            a, b = rule.a, rule.b
            clauses += [
                (-x(a, u), -x(b, v)) for u in values for v in values if (u, v) not in allowed
            ]
            # support clauses, where unit propagation on the forbidden pairs and a cell's
            # "at least one value" would not already find them (two or more values ruled out)
            for u in values:
                of_a = [v for v in values if (u, v) in allowed]
                of_b = [v for v in values if (v, u) in allowed]
                if len(of_a) < n - 1:
                    clauses.append((-x(a, u), *(x(b, v) for v in of_a)))
                if len(of_b) < n - 1:
                    clauses.append((-x(b, u), *(x(a, v) for v in of_b)))
        elif kind == "parity":
            odd = rule.parity == "odd"
            clauses += [(-x(rule.cell, v),) for v in values if v % 2 != odd]
        elif kind == "consecutive":
            line = rule.line
            clauses += [(-x(a, v), -x(b, v)) for v in values for a, b in combinations(line, 2)]
            lows = range(1, n - len(line) + 2)
            window = {low: aux.new() for low in lows}
            clauses.append(tuple(window.values()))
            clauses += [(-s, -t) for s, t in combinations(window.values(), 2)]
            for c in line:
                for v in values:
                    holding = [w for low, w in window.items() if low <= v < low + len(line)]
                    clauses.append((-x(c, v), *holding))
        elif kind in SUM_KINDS:
            if kind == "sandwich":
                positions = _sandwich_inside(rule.line, n, x, aux, clauses)
                groups = [(dict(terms), True) for terms in positions]
            else:
                weight: dict[int, int] = {}  # a cell's coefficient in the sum
                if kind == "sumequals":  # sum(targets) - sum(terms) == 0
                    width = len(rule.targets)
                    for i, c in enumerate(rule.targets):
                        weight[c] = weight.get(c, 0) + (10 ** (width - 1 - i) if rule.digits else 1)
                    for c in rule.terms:
                        weight[c] = weight.get(c, 0) - 1
                else:
                    for c in rule.line:
                        weight[c] = weight.get(c, 0) + 1
                groups = [({x(c, v): w * v for v in values}, False) for c, w in weight.items()]
            total = rule.total if kind != "sumequals" else 0
            clauses += sum_clauses(groups, total, aux, f"{rule.name} ({kind})")
        else:
            raise ValueError(f"no CNF for {kind} constraints")
    return clauses, aux.top


class _Aux:
    """Hands out auxiliary variables after the last one in use."""

    def __init__(self, top: int) -> None:
        self.top = top

    def new(self) -> int:
        """A fresh variable."""
        self.top += 1
        return self.top


def sum_clauses(
    groups: Sequence[tuple[dict[int, int], bool]], total: int, aux: _Aux, name: str = "a sum"
) -> list[tuple[int, ...]]:
    """``sum of the groups' contributions == total`` as clauses over partial sums.

    A group is ``({literal: contribution}, none)``: at most one of its literals holds in
    a model (a cell's values) and adds its contribution; with ``none`` no literal may
    hold, adding 0 (a sandwich's cell outside the crusts). Layer k holds the sums the
    first k groups reach from 0 and from which the rest can still reach ``total``; a
    layer of several sums has a variable per sum (a layer of one always holds), and
    ``s(k-1, t) and lit -> s(k, t + a)``, ``s(k, u) and lit -> s(k-1, u - a)``: a value
    leading out of the layers is forbidden outright. Any model's partial sums are thus
    the ones its values add up to, and the last is ``total``.

    ValueError naming the sum (``name``) when it would take more than
    :data:`MAX_SUM_CLAUSES` clauses.

    >>> cells = [({1: 1, 2: 2}, False), ({3: 1, 4: 2}, False)]  # two cells of values 1, 2
    >>> sum_clauses(cells, 4, _Aux(4))  # both 2: the 1s are ruled out
    [(-1,), (-3,)]
    """
    m = len(groups)
    if not m and total:
        raise ValueError(f"{name}: no cell to add up to {total}")
    steps = [set(options.values()) | ({0} if none else set()) for options, none in groups]
    reach = [{0}]
    for step in steps:
        reach.append({t + a for t in reach[-1] for a in step})
    layers = [{0}] + [set() for _ in groups]
    layers[m] = reach[m] & {total}
    for k in range(m - 1, 0, -1):
        layers[k] = reach[k] & {t - a for t in layers[k + 1] for a in steps[k]}
    size = sum((len(layers[k - 1]) + len(layers[k])) * len(steps[k - 1]) for k in range(1, m + 1))
    if size > MAX_SUM_CLAUSES:
        raise ValueError(
            f"{name}: its partial sums would take about {size:,} clauses "
            f"(more than {MAX_SUM_CLAUSES:,})"
        )
    # a sum's variable, or 0 for the one sum of its layer (it always holds)
    node = [{t: aux.new() if len(layer) > 1 else 0 for t in sorted(layer)} for layer in layers]
    out: dict[tuple[int, ...], None] = {}  # ordered, without repeats
    gone = -1  # no such sum: the clause forbids the step

    def step(held: int, lits: list[int], then: int) -> None:
        """``held and lits' step -> then`` (held 0: always; then 0: always, no clause)."""
        if then:
            out[tuple(([-held] if held else []) + lits + ([then] if then != gone else []))] = None

    for k in range(1, m + 1):
        options, none = groups[k - 1]
        before, after = node[k - 1], node[k]
        for t, s in before.items():
            for lit, a in options.items():
                step(s, [-lit], after.get(t + a, gone))
            if none:
                step(s, list(options), after.get(t, gone))
        for u, s in after.items():
            for lit, a in options.items():
                step(s, [-lit], before.get(u - a, gone))
            if none:
                step(s, list(options), before.get(u, gone))
        if len(after) > 1:
            out[tuple(after.values())] = None  # some sum of the layer holds
    return list(out)


def _sandwich_inside(
    line: Sequence[int], n: int, x: Any, aux: _Aux, clauses: list[tuple[int, ...]]
) -> list[list[tuple[int, int]]]:
    """The (literal, weight) terms of a sandwich's sum, one list per inner cell of the
    line: ``y(k, v)``, cell k of the line holding v and lying strictly between the crusts
    (the 1 and the n), weighted v.

    Along the line, ``seen[k]`` says a crust lies before position k, ``both[k]`` that two
    do; position k is inside when ``seen[k]`` and not ``both[k]`` (a crust itself holds 1
    or n, which no term counts)."""

    def define_or(z: int, a: int, b: int) -> None:
        clauses.extend([(-z, a, b), (z, -a), (z, -b)])

    def define_and(z: int, a: int, b: int) -> None:
        clauses.extend([(z, -a, -b), (-z, a), (-z, b)])

    false = aux.new()
    clauses.append((-false,))
    crust = []
    for c in line:
        z = aux.new()
        define_or(z, x(c, 1), x(c, n))
        crust.append(z)
    seen, both = crust[0], false  # before position 1
    terms: list[list[tuple[int, int]]] = []
    for k in range(1, len(line) - 1):
        inside = aux.new()
        define_and(inside, seen, -both)
        terms.append([])
        for v in range(2, n):
            y = aux.new()
            define_and(y, x(line[k], v), inside)
            terms[-1].append((y, v))
        second = aux.new()
        define_and(second, seen, crust[k])
        next_both = aux.new()
        define_or(next_both, both, second)
        next_seen = aux.new()
        define_or(next_seen, seen, crust[k])
        seen, both = next_seen, next_both
    return terms


def _blocks(clauses: tuple[tuple[int, ...], ...]) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Clauses as arrays of variables and of signs, one pair per clause length."""
    by_length: dict[int, list[tuple[int, ...]]] = {}
    for clause in clauses:
        by_length.setdefault(len(clause), []).append(clause)
    out = []
    for rows in by_length.values():
        literals = np.array(rows, dtype=np.int32).reshape(len(rows), -1)
        out.append((np.abs(literals), np.sign(literals)))
    return tuple(out)


def _domain_clauses(model: Model) -> tuple[tuple[int, ...], ...]:
    """A given as a unit clause; a narrowed domain as its values ruled out."""
    n, full = model.size, range(1, model.size + 1)
    clauses: list[tuple[int, ...]] = []
    for c, domain in enumerate(model.domains):
        if len(domain) == 1:
            clauses.append((c * n + domain[0],))
        elif len(domain) < n:
            clauses += [(-(c * n + v),) for v in full if v not in domain]
    return tuple(clauses)


def _optimized(model: Model, template: _Template) -> Cnf:
    """Kwon and Jain's reduction of the extended encoding by what the givens decide."""
    n = model.size
    state = np.zeros(template.variables + 1, dtype=np.int8)  # 1 true, -1 false, 0 open
    for c, domain in enumerate(model.domains):
        if len(domain) == n:
            continue
        state[[c * n + v for v in range(1, n + 1) if v not in domain]] = -1
        if len(domain) == 1:
            state[[p * n + domain[0] for p in template.peers[c]]] = -1
    for c, domain in enumerate(model.domains):
        if len(domain) == 1 and state[c * n + domain[0]] == 0:
            state[c * n + domain[0]] = 1
    # a given that another given rules out: two givens clash, nothing satisfies the model
    clashed = any(state[c * n + d[0]] < 0 for c, d in enumerate(model.domains) if len(d) == 1)
    kept = np.flatnonzero(state == 0)[1:]  # variable 0 is no variable
    renumber = np.zeros(template.variables + 1, dtype=np.int32)
    renumber[kept] = np.arange(1, len(kept) + 1, dtype=np.int32)
    groups: list[tuple[str, int]] = []
    clauses: list[list[int]] = []
    for name in _GROUPS["extended"]:
        if name in _OPTIONAL and not template.groups[name]:
            continue
        reduced = [
            c for var, sign in template.blocks[name] for c in _reduce(var, sign, state, renumber)
        ]
        clauses += reduced
        groups.append((name, len(reduced)))
    if clashed:
        clauses.append([])
        groups.append((GIVENS, 1))
    return Cnf(
        "optimized",
        tuple(clauses),
        len(kept),
        tuple(groups),
        (-1, *(template.cell[v] for v in kept.tolist())),
        (0, *(template.value[v] for v in kept.tolist())),
        tuple(d[0] if len(d) == 1 else 0 for d in model.domains),
    )


def _reduce(
    var: np.ndarray, sign: np.ndarray, state: np.ndarray, renumber: np.ndarray
) -> list[list[int]]:
    """The clauses (rows of variables and of signs) that the assignment ``state`` leaves
    open, without the literals it falsifies, renumbered."""
    truth = state[var] * sign  # 1 a true literal, -1 a false one, 0 open
    open_rows = ~(truth > 0).any(axis=1)
    var, sign, truth = var[open_rows], sign[open_rows], truth[open_rows]
    literals = np.where(truth == 0, renumber[var] * sign, 0)
    out = literals.tolist()
    for i in np.flatnonzero((literals == 0).any(axis=1)).tolist():
        out[i] = [lit for lit in out[i] if lit]  # shortened by the givens
    return out


class SatBackend(Backend):
    """A CDCL SAT solver from PySAT on a CNF encoding; options ``encoding`` and ``solver``."""

    name = "sat"
    kinds = frozenset({"alldifferent", "sum"} | set(KINDS))
    options = {"encoding": ENCODINGS, "solver": SOLVERS, "search": SEARCHES}
    stops_itself = True  # the solver is interrupted from a timer thread at the deadline
    requires = "python-sat"
    # A 25x25 grid's CNF (752,500 clauses) takes seconds to encode and to load into the
    # solver, in numpy and PySAT calls that hold the interpreter: no deadline or Ctrl-C
    # can stop them, so a larger grid than 16x16 is solved in a worker process.
    in_process_cells = 256

    def available(self) -> bool:
        """True when PySAT is installed (found, not imported)."""
        return importlib.util.find_spec("pysat") is not None

    def version(self) -> str:
        """The installed python-sat version."""
        import importlib.metadata

        return importlib.metadata.version("python-sat")

    def search(self, model: Model, request: Request) -> Result:
        """Find up to ``request.limit`` solutions, one solver call each, by the deadline."""
        options = request.options
        encoding = options.get("encoding", ENCODINGS[0])
        solver_name = options.get("solver", SOLVERS[0])
        if options.get("search", SEARCHES[0]) != "cdcl":
            return self._infer(model, encoding, solver_name, options["search"])
        from pysat.solvers import NoSuchSolverError, Solver

        try:
            cnf = encode(model, encoding)
        except ValueError as err:  # a cage with too many value sets, a sum too long
            return Result(self.name, Status.ERROR, message=f"sat: {err}")
        stats: dict[str, Any] = {
            "encoding": encoding,
            "solver": solver_name,
            "variables": cnf.variables,
            "clauses": len(cnf.clauses),
        }
        if request.passed():  # the encoding took the whole time: no solver to load it into
            return Result(self.name, Status.TIMEOUT, stats=stats)
        try:
            solver = Solver(name=solver_name, bootstrap_with=cnf.clauses)
        except NoSuchSolverError:
            return Result(
                self.name,
                Status.ERROR,
                stats=stats,
                message=f"sat: this python-sat has no solver {solver_name!r}",
            )

        start = time.perf_counter()
        with _Deadline(solver, request.left()) as watch:
            interrupt.on_interrupt(watch.stop)

            found_model: list[int] = []

            def ask(left: float | None) -> Grid | None | Unanswered:
                answer = None if watch.passed else solver.solve_limited(expect_interrupt=True)
                if answer is None:  # interrupted: the deadline (or Ctrl-C)
                    return Unanswered()
                if not answer:
                    return None
                found_model[:] = solver.get_model()
                return cnf.grid(found_model)

            def block(grid: Grid) -> None:
                solver.add_clause(cnf.blocking(found_model))

            found = count_by_blocking(request, ask, block, closed=0 not in cnf.fixed)
            stats.update(solver.accum_stats())
        solve_time = time.perf_counter() - start
        return Result.counted(
            self.name, found.solutions, found.exact, found.timed_out, 0.0, solve_time, stats,
            found.message,
        )  # fmt: skip

    def _infer(self, model: Model, encoding: str, solver_name: str, search: str) -> Result:
        """Inference alone (``search`` none or failed-literal): solved when it decides
        every cell (then the solution is forced: exact), unsolvable on a contradiction,
        else a timeout saying how far it got."""
        start = time.perf_counter()
        method = "unit" if search == "none" else "failed-literal"
        found = infer(model, encoding, method, solver_name)
        open_cells = sum(1 for d in model.domains if len(d) > 1)
        decided = sum(
            1 for d, v in zip(model.domains, found.decided, strict=True) if len(d) > 1 and v
        )
        stats = {"encoding": encoding, "solver": solver_name, "search": search,
                 "open": open_cells, "decided": decided}  # fmt: skip
        elapsed = time.perf_counter() - start
        if found.contradiction:
            return Result(self.name, Status.UNSOLVABLE, (), 0, True, 0.0, elapsed, stats)
        if found.solution is not None:
            return Result(self.name, Status.SOLVED, (found.solution,), 1, True, 0.0, elapsed, stats)
        what = "unit propagation" if search == "none" else "failed literals"
        return Result(
            self.name,
            Status.TIMEOUT,
            stats=stats,
            solve_time=elapsed,
            message=f"{what} alone decided {decided} of {open_cells} open cells (no search)",
        )

    def describe(self, model: Model) -> str:
        """The CNF this backend builds (the default encoding), counted clause by clause."""
        cnf = encode(model, ENCODINGS[0])
        groups = ", ".join(f"{count} {name}" for name, count in cnf.groups)
        auxiliary = cnf.value.count(0) - 1  # value 0: a cage's or a rule's (or no variable)
        variables = f"{cnf.variables - auxiliary} Boolean x(cell, value)"
        if auxiliary:
            what = "auxiliary variables" if dict(cnf.groups).get(RULES) else "cage selectors"
            variables += f" and {auxiliary} {what}"
        return (
            f"sat: {cnf.encoding} encoding, {variables}, {len(cnf.clauses)} clauses "
            f"({groups}); solver {SOLVERS[0]}"
        )


class _Deadline:
    """Interrupts a PySAT solver from a thread at the deadline (or at once on Ctrl-C:
    :meth:`stop`), and deletes it at the end.

    Some bindings (the Glucose family) clear an interrupt that arrives between two calls
    or within a call's restarts, so the thread interrupts again every
    :data:`_AGAIN` seconds until the search ends; ``passed`` tells the caller's loop that
    the deadline has come. A lock keeps it from interrupting a solver being deleted.
    """

    def __init__(self, solver: Any, timeout: float | None) -> None:
        self.solver = solver
        self.timeout = timeout
        self.lock = threading.RLock()  # re-entrant: stop() may come from a signal handler
        self.ended = threading.Event()
        self.wake = threading.Event()  # Ctrl-C: interrupt now
        self.passed = False
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.started = False

    def _watch(self) -> None:
        self.wake.wait(None if self.timeout is None else max(self.timeout, 0.0))
        while True:
            with self.lock:
                if self.ended.is_set():
                    return
                self.passed = True
                self.solver.interrupt()
            if self.ended.wait(_AGAIN):
                return

    def _start(self) -> None:
        if not self.started:
            self.started = True
            self.thread.start()

    def stop(self) -> None:
        """Interrupt the search now, as the deadline would."""
        with self.lock:
            if not self.ended.is_set():
                self.wake.set()
                self._start()

    def __enter__(self) -> _Deadline:
        if self.timeout is not None:
            self._start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.ended.set()
            self.wake.set()
            self.solver.delete()


#: Seconds between interrupts once the deadline has passed.
_AGAIN = 0.02


class Inference(NamedTuple):
    """What inference alone decides: the grid so far (0 where undecided), the solution
    when every cell is decided (else None), and whether it met a contradiction (the
    puzzle has no solution; ``decided`` is then what was decided before it)."""

    decided: Grid
    solution: Grid | None
    contradiction: bool = False


def infer(
    model: Model,
    encoding: str = ENCODINGS[0],
    method: str = INFERENCES[0],
    solver: str = SOLVERS[0],
) -> Inference:
    """Decide what the CNF's unit propagation decides, without search.

    ``method`` is ``unit`` (unit propagation alone) or ``failed-literal`` (unit
    propagation, then every open literal is propagated on its own; a conflict means its
    negation holds, which is added and propagated, to a fixpoint).

    Without the extended encoding's "at least once per unit" clauses, unit propagation
    finds no hidden single:

    >>> from sudokulab import build_model, parse_puzzle
    >>> model = build_model(parse_puzzle(
    ...     ".....9....87............8247.6.4.135..9.5.........1..8.93..641......7...5..3....."))
    >>> [sum(map(bool, infer(model, e).decided)) for e in ("minimal", "extended")]
    [27, 81]
    >>> infer(model, "minimal", "failed-literal").solution == infer(model, "extended").solution
    True
    """
    if method not in INFERENCES:
        raise ValueError(f"unknown method {method!r}: choose one of {', '.join(INFERENCES)}")
    from pysat.solvers import Solver

    cnf = encode(model, encoding)
    # the unit clauses go in as assumptions: propagate reports what they imply, which it
    # would not for literals the solver fixed on its own when the clauses were added
    roots = list(dict.fromkeys(c[0] for c in cnf.clauses if len(c) == 1))
    others = [c for c in cnf.clauses if len(c) != 1]
    if any(not c for c in others) or not set(roots).isdisjoint(-lit for lit in roots):
        return Inference(cnf.fixed, None, True)
    with Solver(name=solver, bootstrap_with=others) as sat:
        ok, assigned = sat.propagate(assumptions=roots)
        if not ok:
            return Inference(cnf.grid(assigned), None, True)
        while method == "failed-literal":
            ok, assigned, found = _probe(sat, roots, assigned, cnf.variables)
            if not ok:
                return Inference(cnf.grid(assigned), None, True)
            if not found:
                break
    decided = cnf.grid(assigned)
    return Inference(decided, None if 0 in decided else decided)


def _probe(
    sat: Any, roots: list[int], assigned: list[int], variables: int
) -> tuple[bool, list[int], bool]:
    """One pass of failed-literal probing over the open variables; ``roots`` grows by
    each failed literal's negation. Returns (no conflict, assigned literals, any found)."""
    known = set(assigned)
    found = False
    for var in range(1, variables + 1):
        if var in known or -var in known:
            continue
        for lit in (var, -var):
            ok, _ = sat.propagate(assumptions=[*roots, lit])
            if ok:
                continue
            roots.append(-lit)
            found = True
            ok, assigned = sat.propagate(assumptions=roots)
            if not ok:
                return False, assigned, True
            known = set(assigned)
            break
    return True, assigned, found
