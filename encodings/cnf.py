"""The CNF of a model, over Boolean x(cell, value) = cell * n + value, from its primitives.

Three encodings of the units (docs/guides/comparing.md): ``minimal`` (Lynce and Ouaknine,
2006: each cell some value, each value at most once per unit), ``extended`` (also each cell
at most one value, each value at least once per unit) and ``optimized`` (Kwon and Jain,
2006: extended less what the givens decide). Every primitive of :func:`decompose_model` is
the same in every encoding, its auxiliary variables numbered after the x's:

- :class:`Distinct`: each value at most once (pairwise), and at least once over a whole
  unit; with a total (a killer cage) also one selector per set of values that adds up to
  it: exactly one holds, the cells' values are the selected set's.
- :class:`Linear`: over one or two cells, the table of its value pairs; over more, a chain
  of partial sums (:func:`sum_clauses`).
- :class:`Table`: unary, unit clauses; pairs, a clause per forbidden pair and a support
  clause per value that lacks several supports (unit propagation keeps arc consistency);
  wider, a selector per allowed tuple.
- :class:`Implies`: a guard g <-> (cell in values) per condition, whose negations join
  every clause of the row's own encoding.

docs/guides/variants.md lists what each rule becomes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain, combinations
from math import comb
from typing import Any

import numpy as np

from .decompose import decompose
from .primitives import Distinct, Implies, Linear, Primitive, Table

#: Encodings, default first: ``optimized`` measured fastest on classic and larger grids,
#: though not on killer puzzles with few givens (little to drop, and a new CNF to
#: convert): docs/results.md, "Why these defaults".
ENCODINGS = ("optimized", "extended", "minimal")

#: The primitive types translated (for ``accepted_kinds``).
TYPES = (Distinct, Linear, Table, Implies)

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

#: The most clauses one sum may take (:func:`sum_clauses`): a larger one is refused by
#: name. A two-digit arrow with a 12-cell shaft on a 9x9 grid takes about 11,000.
MAX_SUM_CLAUSES = 1_000_000
#: A cage whose cell count picks more value sets than this from 1..n is refused: its
#: selectors' pairwise clauses grow with the square of the sets that add up.
MAX_COMBINATIONS = 1 << 20

Clause = tuple[int, ...]


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
    fixed: tuple[int, ...]

    def grid(self, literals: list[int]) -> tuple[int, ...]:
        """The grid a model (or a partial assignment) decides; 0 where it decides nothing."""
        grid = list(self.fixed)
        value, cell = self.value, self.cell
        for lit in literals:
            if lit > 0 and value[lit]:
                grid[cell[lit]] = value[lit]
        return tuple(grid)

    @cached_property
    def variable(self) -> dict[tuple[int, int], int]:
        """x(cell, value)'s variable, by (cell, value); none for what the encoding leaves
        out (the optimized encoding's given cells and the givens' values in their peers)."""
        pairs = zip(self.cell, self.value, strict=True)
        return {(c, v): x for x, (c, v) in enumerate(pairs) if v}

    def blocking(self, grid: Sequence[int]) -> list[int]:
        """The clause forbidding ``grid``'s values in the non-given cells."""
        variable, fixed = self.variable, self.fixed
        return [-variable[c, v] for c, v in enumerate(grid) if not fixed[c]]


def encode(
    model: Any, encoding: str = ENCODINGS[0], check: Callable[[], None] | None = None
) -> Cnf:
    """The CNF of ``model`` in one of :data:`ENCODINGS`; ``check`` is called between two
    constraints while the clauses of a new shape are written (to stop at a deadline, it
    raises).

    ValueError for an unknown encoding, a cage with too many value sets to list or a sum
    too long for its partial sums (naming it).

    >>> from sudokulab import build_model, parse_puzzle
    >>> cnf = encode(build_model(parse_puzzle("1" + "." * 15)), "minimal")
    >>> cnf.variables, len(cnf.clauses), dict(cnf.groups)[GIVENS]
    (64, 305, 1)
    """
    if encoding not in ENCODINGS:
        raise ValueError(f"unknown encoding {encoding!r}: choose one of {', '.join(ENCODINGS)}")
    template = _template(model.size, len(model.domains), model.constraints, check)
    if encoding == "optimized":
        return _optimized(model, template)
    groups = [(name, template.groups[name]) for name in _GROUPS[encoding]]
    groups.append((GIVENS, _domain_clauses(model)))
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
    groups: dict[str, tuple[Clause, ...]]
    cell: tuple[int, ...]
    value: tuple[int, ...]
    peers: tuple[frozenset[int], ...]  # the cells sharing a Distinct with each cell
    # each group as arrays of variables and of signs, one row a clause, one pair of
    # arrays per clause length
    blocks: dict[str, tuple[tuple[np.ndarray, np.ndarray], ...]]


#: The templates of the shapes (size, cells, constraints) seen last, emptied when full
#: (killer and sandwich puzzles each have a shape of their own).
_TEMPLATES: dict[tuple[int, int, tuple], _Template] = {}
_KEPT = 64


def _template(
    size: int, cells: int, constraints: tuple, check: Callable[[], None] | None = None
) -> _Template:
    """The shape's template, built (``check`` between constraints) unless kept."""
    key = (size, cells, constraints)
    template = _TEMPLATES.get(key)
    if template is None:
        template = _build(size, cells, constraints, check)  # one stopped midway is not kept
        if len(_TEMPLATES) >= _KEPT:
            _TEMPLATES.clear()
        _TEMPLATES[key] = template
    return template


def _build(
    size: int, cells: int, constraints: tuple, check: Callable[[], None] | None
) -> _Template:
    n = size
    values = range(1, n + 1)
    writer = _Writer(n, cells)
    writer.groups[CELL_ALO] = [tuple(c * n + v for v in values) for c in range(cells)]
    writer.groups[CELL_AMO] = [
        (-(c * n + a), -(c * n + b)) for c in range(cells) for a, b in combinations(values, 2)
    ]
    for constraint in constraints:
        if check is not None:
            check()
        name = f"{constraint.name} ({constraint.kind})"
        primitives = decompose(constraint, n)
        for primitive in primitives:
            writer.primitive(primitive, name, len(primitives) > 1)
    groups = {key: tuple(group) for key, group in writer.groups.items()}
    return _Template(
        writer.top,
        groups,
        tuple(writer.cell),
        tuple(writer.value),
        tuple(frozenset(p - {c}) for c, p in enumerate(writer.peers)),
        {key: _blocks(group) for key, group in groups.items()},
    )


class _Writer:
    """Writes primitives as clauses into the groups, handing out auxiliary variables."""

    def __init__(self, n: int, cells: int) -> None:
        self.n = n
        self.top = cells * n
        self.cell = [-1] + [c for c in range(cells) for _ in range(n)]
        self.value = [0] + [v for _ in range(cells) for v in range(1, n + 1)]
        self.groups: dict[str, list[Clause]] = {
            key: [] for key in (CELL_ALO, CELL_AMO, UNIT_AMO, UNIT_ALO, CAGES, RULES)
        }
        self.peers: list[set[int]] = [set() for _ in range(cells)]
        self.units: set[frozenset[int]] = set()  # the whole units written (once each)
        self.guards: dict[tuple[int, frozenset[int]], int] = {}

    def new(self) -> int:
        """A fresh auxiliary variable."""
        self.top += 1
        self.cell.append(-1)
        self.value.append(0)
        return self.top

    def x(self, cell: int, value: int) -> int:
        """The variable of ``cell`` taking ``value``."""
        return cell * self.n + value

    def primitive(self, p: Primitive, name: str, part: bool = False) -> None:
        """Write one primitive (``name`` names its constraint in errors; ``part``: one of
        several a rule decomposes into)."""
        if isinstance(p, Distinct):
            self.distinct(p, part)
        elif isinstance(p, Linear):
            self.linear(p, name, (), self.groups[RULES])
        elif isinstance(p, Table):
            self.table(*_distinct_cells(p.cells, p.allowed, self.n), (), self.groups[RULES])
        elif isinstance(p, Implies):
            self.implies(p, name)
        else:
            raise ValueError(f"{name}: no CNF for {type(p).__name__}")

    def distinct(self, p: Distinct, part: bool = False) -> None:
        """Pairwise "at most once" per value; a whole unit also "at least once"; a total
        by value-set selectors. A whole unit that is ``part`` of a rule is the rule's: its
        "at least once" goes with the rule's clauses, into every encoding (a sandwich
        needs its 1 and its n in the line, which the minimal encoding does not say)."""
        x, n, cells = self.x, self.n, p.cells
        for c in cells:
            self.peers[c].update(cells)
        if p.total is not None:
            self.cage(cells, p.total)
            return
        values = range(1, n + 1)
        whole = len(cells) == n and len(set(cells)) == n
        unit = whole and not part
        key = frozenset(cells)
        if not (whole and key in self.units):  # else a unit said again: its pairs are there
            out = self.groups[UNIT_AMO] if unit else self.groups[RULES]
            out += [(-x(a, v), -x(b, v)) for v in values for a, b in combinations(cells, 2)]
        if whole:
            self.units.add(key)
            at_least = self.groups[UNIT_ALO] if unit else self.groups[RULES]
            at_least += [tuple(x(c, v) for c in cells) for v in values]

    def cage(self, cells: tuple[int, ...], total: int) -> None:
        """One selector per value set adding up to ``total``: exactly one holds, each of
        its values appears in the cage, a value in a cell needs a selected set with it."""
        x, n, out = self.x, self.n, self.groups[CAGES]
        values = range(1, n + 1)
        sets = value_sets(n, len(cells), total)
        selectors = [self.new() for _ in sets]
        used = [v for v in values if any(m >> (v - 1) & 1 for m in sets)]
        out += [(-x(a, v), -x(b, v)) for v in used for a, b in combinations(cells, 2)]
        out.append(tuple(selectors))
        out += [(-s, -t) for s, t in combinations(selectors, 2)]
        for c in cells:
            for v in values:
                holding = [s for s, m in zip(selectors, sets, strict=True) if m >> (v - 1) & 1]
                out.append((-x(c, v), *holding))
        for s, m in zip(selectors, sets, strict=True):
            out += [(-s, *(x(c, v) for c in cells)) for v in values if m >> (v - 1) & 1]

    def linear(self, row: Linear, name: str, unless: Clause, out: list[Clause]) -> None:
        """``row`` as clauses, each widened by ``unless``: over one or two cells its table
        of values, over more a chain of partial sums over each cell's values."""
        n, values = self.n, range(1, self.n + 1)
        weight: dict[int, list[int]] = {}  # each cell's contribution, value by value
        for t in row.terms:
            w = weight.setdefault(t.cell, [0] * (n + 1))
            for v in values:
                w[v] += t.coef * (v if t.values is None else v in t.values)
        cells = list(weight)
        if len(cells) <= 2:
            inside = _within(row.low, row.high)
            sums: dict[tuple[int, ...], int] = {(): 0}
            for c in cells:
                sums = {(*t, v): s + weight[c][v] for t, s in sums.items() for v in values}
            allowed = {t for t, s in sums.items() if inside(s)}
            self.table(tuple(cells), allowed, unless, out)
            return
        groups = [({self.x(c, v): weight[c][v] for v in values}, False) for c in cells]
        out += sum_clauses(groups, row.low, row.high, self, name, unless)

    def table(
        self, cells: tuple[int, ...], tuples: set[tuple[int, ...]], unless: Clause,
        out: list[Clause],
    ) -> None:  # fmt: skip
        """The cells' values (each cell once) form one of ``tuples`` (values 1..n), each
        clause widened by ``unless``."""
        x, n = self.x, self.n
        values = range(1, n + 1)
        if len(cells) == 0:
            if not tuples:
                out.append(unless)
        elif len(cells) == 1:
            (c,) = cells
            kept = {t[0] for t in tuples}
            out += [(-x(c, v), *unless) for v in values if v not in kept]
        elif len(cells) == 2:
            a, b = cells
            out += [
                (-x(a, u), -x(b, v), *unless)
                for u in values
                for v in values
                if (u, v) not in tuples
            ]
            # support clauses, where unit propagation on the forbidden pairs and a cell's
            # "at least one value" would not already find them (two or more values ruled out)
            for u in values:
                of_a = [v for v in values if (u, v) in tuples]
                of_b = [v for v in values if (v, u) in tuples]
                if len(of_a) < n - 1:
                    out.append((-x(a, u), *(x(b, v) for v in of_a), *unless))
                if len(of_b) < n - 1:
                    out.append((-x(b, u), *(x(a, v) for v in of_b), *unless))
        else:
            rows = sorted(tuples)
            chosen = [self.new() for _ in rows]
            out.append((*chosen, *unless))
            for s, row in zip(chosen, rows, strict=True):
                out += [(-s, x(c, v)) for c, v in zip(cells, row, strict=True)]
            for i, c in enumerate(cells):
                for v in values:
                    holding = [s for s, row in zip(chosen, rows, strict=True) if row[i] == v]
                    out.append((-x(c, v), *holding, *unless))

    def implies(self, p: Implies, name: str) -> None:
        """The row's clauses, each widened by the negated guards of the condition."""
        unless = []
        for cell, values in p.when:
            kept = frozenset(v for v in values if 1 <= v <= self.n)
            if not kept:
                return  # the condition never holds
            if len(kept) < self.n:
                unless.append(-self.guard(cell, kept))
        self.linear(p.then, name, tuple(unless), self.groups[RULES])

    def guard(self, cell: int, values: frozenset[int]) -> int:
        """A literal that holds exactly when ``cell`` holds one of ``values``."""
        if len(values) == 1:
            return self.x(cell, next(iter(values)))
        key = (cell, values)
        g = self.guards.get(key)
        if g is None:
            g = self.guards[key] = self.new()
            lits = [self.x(cell, v) for v in sorted(values)]
            out = self.groups[RULES]
            out.append((-g, *lits))
            out += [(g, -lit) for lit in lits]
        return g


def _within(low: int | None, high: int | None) -> Any:
    """Whether a number lies within the bounds (None: no bound)."""
    return lambda t: (low is None or t >= low) and (high is None or t <= high)


def _distinct_cells(
    cells: tuple[int, ...], allowed: Iterable[tuple[int, ...]], n: int
) -> tuple[tuple[int, ...], set[tuple[int, ...]]]:
    """The table over each cell once (a cell read twice keeps the tuples that agree on
    it), its tuples within 1..n."""
    values = range(1, n + 1)
    first = {c: i for i, c in reversed(list(enumerate(cells)))}
    once = tuple(first)
    tuples = set()
    for t in allowed:
        if len(t) != len(cells) or not all(v in values for v in t):
            continue
        if all(t[first[c]] == v for c, v in zip(cells, t, strict=True)):
            tuples.add(tuple(t[first[c]] for c in once))
    return once, tuples


def value_sets(size: int, cells: int, total: int) -> tuple[int, ...]:
    """Every set of ``cells`` distinct values in 1..size adding up to ``total``, as bit
    masks (value v is bit v - 1), in the order of ``itertools.combinations``.

    ValueError when there are too many sets of that many values to go through.

    >>> [bin(m) for m in value_sets(9, 2, 4)]  # 1 + 3
    ['0b101']
    """
    if comb(size, cells) > MAX_COMBINATIONS:
        raise ValueError(f"a cage of {cells} cells in a {size}x{size} grid has too many value sets")
    out: list[int] = []

    def extend(low: int, left: int, rest: int, mask: int) -> None:
        if not left:
            if not rest:
                out.append(mask)
            return
        if left * (2 * size - left + 1) // 2 < rest:  # the largest values fall short
            return
        for v in range(low, size - left + 2):
            if v * left + left * (left - 1) // 2 > rest:  # v and the next ones exceed it
                return
            extend(v + 1, left - 1, rest - v, mask | 1 << (v - 1))

    extend(1, cells, total, 0)
    return tuple(out)


def sum_clauses(
    groups: Sequence[tuple[dict[int, int], bool]],
    low: int | None,
    high: int | None,
    aux: Any,
    name: str = "a sum",
    unless: Clause = (),
) -> list[Clause]:
    """``low <= sum of the groups' contributions <= high`` as clauses over partial sums,
    each clause widened by the literals ``unless`` (the row holds when they all fail).

    A group is ``({literal: contribution}, none)``: at most one of its literals holds in
    a model (a cell's values) and adds its contribution; with ``none`` no literal may
    hold, adding 0. Layer k holds the sums the first k groups reach from 0 and from which
    the rest can still end within the bounds; a layer of several sums has a variable per
    sum (a layer of one always holds), and ``s(k-1, t) and lit -> s(k, t + a)``,
    ``s(k, u) and lit -> s(k-1, u - a)``: a value leading out of the layers is forbidden
    outright. Any model's partial sums are thus the ones its values add up to. ``aux``
    hands out variables (``aux.new()``).

    ValueError naming the sum (``name``) when it would take more than
    :data:`MAX_SUM_CLAUSES` clauses.

    >>> class Aux:
    ...     top = 4
    ...     def new(self):
    ...         self.top += 1
    ...         return self.top
    >>> cells = [({1: 1, 2: 2}, False), ({3: 1, 4: 2}, False)]  # two cells of values 1, 2
    >>> sum_clauses(cells, 4, 4, Aux())  # both 2: the 1s are ruled out
    [(-1,), (-3,)]
    """
    m = len(groups)
    inside = _within(low, high)
    if not m:
        return [] if inside(0) else [tuple(unless)]
    steps = [set(options.values()) | ({0} if none else set()) for options, none in groups]
    reach = [{0}]
    for step in steps:
        reach.append({t + a for t in reach[-1] for a in step})
    layers = [{0}] + [set() for _ in groups]
    layers[m] = {t for t in reach[m] if inside(t)}
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
    out: dict[Clause, None] = {}  # ordered, without repeats
    gone = -1  # no such sum: the clause forbids the step

    def step(held: int, lits: list[int], then: int) -> None:
        """``held and lits' step -> then`` (held 0: always; then 0: always, no clause)."""
        if then:
            head = [-held] if held else []
            out[(*head, *lits, *([then] if then != gone else []), *unless)] = None

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
            out[(*after.values(), *unless)] = None  # some sum of the layer holds
    return list(out)


def _blocks(clauses: tuple[Clause, ...]) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """Clauses as arrays of variables and of signs, one pair per clause length (in the
    order the lengths first appear, each length's clauses in their order)."""
    lengths = np.fromiter(map(len, clauses), dtype=np.int64, count=len(clauses))
    flat = np.fromiter(chain.from_iterable(clauses), dtype=np.int32, count=int(lengths.sum()))
    starts = np.cumsum(lengths) - lengths
    _, first = np.unique(lengths, return_index=True)
    out = []
    for length in lengths[np.sort(first)].tolist():
        rows = starts[lengths == length]
        literals = flat[rows[:, None] + np.arange(length)]
        out.append((np.abs(literals), np.sign(literals)))
    return tuple(out)


def _domain_clauses(model: Any) -> tuple[Clause, ...]:
    """A given as a unit clause; a narrowed domain as its values ruled out."""
    n, full = model.size, range(1, model.size + 1)
    clauses: list[Clause] = []
    for c, domain in enumerate(model.domains):
        if len(domain) == 1:
            clauses.append((c * n + domain[0],))
        elif len(domain) < n:
            clauses += [(-(c * n + v),) for v in full if v not in domain]
    return tuple(clauses)


def _optimized(model: Any, template: _Template) -> Cnf:
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
