"""Local search as a backend: min-conflicts, simulated annealing and Lewis's hybrid.

A local search repairs a complete assignment move by move; it is incomplete, so it
answers ``solved`` (a verified grid) or ``timeout``, never a proof. The methods, their
costs and moves, what propagation first does, the stopping rules, the tracer's protocol
and ``stats`` are specified in docs/design.md, "Local search".
"""

from __future__ import annotations

import math
import random
import statistics
import time
from dataclasses import dataclass
from typing import Any

from ..models import Grid, Model, is_solution
from .base import Backend, PositiveNumber, Request, WholeNumber
from .result import Result, Status

#: The methods, the default first.
METHODS = ("min-conflicts", "annealing", "hybrid")
#: The levels of the native engine local search may propagate at before it searches
#: (option ``propagation``), and the hybrid's by default.
LEVELS = ("forward", "singles", "hidden", "locked", "ac3", "gac", "sac")
DEFAULT_PROPAGATION = "locked"
#: The seed used when none is given: runs repeat exactly.
DEFAULT_SEED = 1
#: Moves in all when no timeout and no ``budget`` is given.
DEFAULT_BUDGET = 1_000_000
#: Tabu tenure (steps) and random-walk probability of min-conflicts by default.
DEFAULT_TABU = 20
DEFAULT_WALK = 0.1
#: Steps before min-conflicts restarts, by default.
DEFAULT_MAX_STEPS = 5_000
#: Annealing's geometric cooling factor by default (Lewis's).
DEFAULT_COOLING = 0.99
#: Markov chains without a new best cost before annealing reheats.
REHEAT_CHAINS = 100


@dataclass(frozen=True)
class Schedule:
    """How an annealing search moves and reheats: ``reheat`` chains without a new best
    cost before a reheat, counted only while frozen (no worse move taken in the chain)
    when ``frozen``; ``rings``: ring moves (else annealing's swaps), the first cell drawn
    up to ``focus`` + 1 times until one is in conflict; ``cooling`` by default."""

    reheat: int
    rings: bool = False
    frozen: bool = False
    focus: int = 0
    cooling: float = DEFAULT_COOLING  # unless the option ``cooling`` says


#: Random swaps whose costs set annealing's starting temperature.
SAMPLE_SWAPS = 200
#: Annealing's schedule, and the hybrid's (docs/results.md, "Propagation first: Lewis's
#: hybrid", measures each of its parts).
ANNEALING = Schedule(REHEAT_CHAINS)
HYBRID = Schedule(20, rings=True, frozen=True, focus=3, cooling=0.995)
_CLOCK_EVERY = 255  # moves between two looks at the clock, less one (a bit mask)


class Probability(float):
    """An option that is a probability, from 0 to 1."""

    label = "number from 0 to 1"

    def __new__(cls, value: object) -> Probability:
        number = float(value)  # type: ignore[arg-type]
        if not 0.0 <= number <= 1.0:
            raise ValueError(value)
        return super().__new__(cls, number)


class Factor(float):
    """An option that is a factor strictly between 0 and 1 (a cooling rate)."""

    label = "number above 0 and below 1"

    def __new__(cls, value: object) -> Factor:
        number = float(value)  # type: ignore[arg-type]
        if not 0.0 < number < 1.0:
            raise ValueError(value)
        return super().__new__(cls, number)


@dataclass(frozen=True)
class Shape:
    """What both methods read from a model: its groups of distinct cells (units and
    cages), each cage's total, and each cell's candidates narrowed by its given peers."""

    size: int
    groups: tuple[tuple[int, ...], ...]
    totals: tuple[int | None, ...]  # a cage's total, None for a unit
    groups_of: tuple[tuple[int, ...], ...]
    cages_of: tuple[tuple[int, ...], ...]
    domains: tuple[tuple[int, ...], ...]


def shape_of(model: Model, domains: tuple[tuple[int, ...], ...] | None = None) -> Shape:
    """The groups and the narrowed candidates of a model: ``domains`` when given (what
    propagation left, :func:`propagate`), else each cell's less its given peers' values."""
    groups = tuple(c.cells for c in model.constraints)
    totals = tuple(getattr(c, "total", None) for c in model.constraints)
    cells = len(model.domains)
    groups_of: list[list[int]] = [[] for _ in range(cells)]
    for g, members in enumerate(groups):
        for c in members:
            groups_of[c].append(g)
    if domains is None:
        narrowed = []
        for c, domain in enumerate(model.domains):
            taken = {
                model.domains[d][0]
                for g in groups_of[c]
                for d in groups[g]
                if d != c and len(model.domains[d]) == 1
            }
            narrowed.append(
                domain if len(domain) == 1 else tuple(v for v in domain if v not in taken)
            )
        domains = tuple(narrowed)
    return Shape(
        model.size,
        groups,
        totals,
        tuple(map(tuple, groups_of)),
        tuple(tuple(g for g in gs if totals[g] is not None) for gs in groups_of),
        domains,
    )


@dataclass(frozen=True)
class Propagated:
    """What propagation at the root left: each cell's candidates (None after a
    contradiction), the level, and the contradiction in words ("" when none)."""

    level: str
    domains: tuple[tuple[int, ...], ...] | None
    contradiction: str = ""

    @property
    def open_cells(self) -> int:
        """The cells left with more than one candidate: all the search works on."""
        return sum(len(d) > 1 for d in self.domains or ())


def propagate(model: Model, level: str) -> Propagated:
    """The native engine's root at ``level``: every given placed and propagated (from the
    pencil marks, when the puzzle has them), as the reference engine does before its
    first guess (:meth:`sudokulab.native.reference.Engine.root`)."""
    from ..native import reference
    from .native import shape_of as engine_shape

    units, cages = engine_shape(model)
    marks = model.puzzle.candidates if model.narrowed else None
    engine = reference.Engine(model.size, units, level, "mrv", cages)
    state = engine.root(model.givens, marks)
    if state is not None:
        n = model.size
        values = [tuple(v for v in range(1, n + 1) if m >> (v - 1) & 1) for m in state[0]]
        return Propagated(level, tuple(values))
    # again, told: the first contradiction met (the same, as the tracer changes nothing)
    seen = _FirstContradiction()
    reference.Engine(model.size, units, level, "mrv", cages, seen).root(model.givens, marks)
    return Propagated(level, None, _contradiction_words(model, seen.found))


class _FirstContradiction:
    """A tracer for the engine that keeps the first contradiction and ignores the rest."""

    found: tuple = ()

    def contradiction(self, kind: str, cell: int, unit: int, bits: int, cage: int = -1) -> None:
        if not self.found:
            self.found = (kind, cell, unit, bits, cage)

    def __getattr__(self, name: str) -> Any:
        return _ignore


def _ignore(*args: Any) -> None:
    return None


def _contradiction_words(model: Model, found: tuple) -> str:
    """The engine's contradiction (kind, cell, unit, value bits, cage) as a clause."""
    if not found:
        return "a contradiction"
    kind, cell, unit, bits, cage = found
    where = model.geometry.cell_name(cell) if cell >= 0 else ""
    values = " and ".join(str(v) for v in range(1, model.size + 1) if bits >> (v - 1) & 1)
    units = [c.name for c in model.constraints if c.kind == "alldifferent"]
    cages = [c.name for c in model.constraints if c.kind == "sum"]
    unit_name = units[unit] if 0 <= unit < len(units) else "a unit"
    if kind == "empty":
        return f"{where} has no candidate left"
    if kind == "clash":
        return f"{where} cannot hold {values}"
    if kind == "noplace" and where:
        return f"{where} is the only place left in {unit_name} for {values}"
    if kind == "noplace":
        return f"{values} has no place left in {unit_name}"
    if kind == "nomatch":
        return f"{unit_name}'s open cells cannot take its missing values, one each"
    if kind == "cage":
        name = cages[cage] if 0 <= cage < len(cages) else "a cage"
        return f"no set of values fits {name}"
    return f"a contradiction ({kind})"


@dataclass(frozen=True)
class Run:
    """A search's outcome: the grid (None without one), its counters, and why it gave up."""

    grid: list[int] | None
    moves: int
    restarts: int
    best_cost: int
    budget_spent: bool = False
    message: str = ""


class LocalBackend(Backend):
    """Local search (min-conflicts with tabu and random walk, or simulated annealing):
    incomplete, so it answers ``solved`` or ``timeout`` only."""

    name = "local"
    kinds = frozenset({"alldifferent", "sum"})
    options = {
        "method": METHODS,
        "seed": WholeNumber,
        "tabu": WholeNumber,
        "walk": Probability,
        "max_steps": PositiveNumber,
        "cooling": Factor,
        "budget": PositiveNumber,
        "propagation": LEVELS,
    }
    stops_itself = True  # the clock is read every 256 moves
    requires = ""
    checks_signals = True  # pure Python: Ctrl-C reaches it
    complete = False  # finds solutions; proves no absence, uniqueness or count

    def available(self) -> bool:
        """Always: pure Python."""
        return True

    def version(self) -> str:
        """This sudokulab's version (the searches are written here, in Python)."""
        from .. import __version__

        return f"{__version__} (python)"

    def search(self, model: Model, request: Request, tracer: Any = None) -> Result:
        """Repair a complete assignment until it breaks no constraint, by the deadline or
        within the move budget; ``solved`` only with a verified grid (``tracer``: see
        docs/design.md, "Local search")."""
        options = request.options
        method = options.get("method", METHODS[0])
        seed = options.get("seed", DEFAULT_SEED)
        budget = options.get("budget", DEFAULT_BUDGET if request.timeout is None else None)
        level = options.get("propagation", DEFAULT_PROPAGATION if method == "hybrid" else None)
        start = time.perf_counter()
        stats: dict[str, Any] = {"method": method, "seed": seed}
        blocks = blocks_of(model) if method != "min-conflicts" else None
        if method != "min-conflicts" and blocks is None:
            return Result(self.name, Status.ERROR, message=NO_BOXES)
        if level is None:
            shape = shape_of(model)
        else:
            root = propagate(model, level)
            if tracer is not None:
                tracer.propagate(level, root.domains, root.contradiction)
            if root.domains is None:  # a proof of no solution, which local search never gives
                stats.update(moves=0, restarts=0, best_cost=-1, budget_spent=False,
                             propagation=level, open_cells=0)  # fmt: skip
                why = f"propagation ({level}) found a contradiction: {root.contradiction}"
                return Result(self.name, Status.TIMEOUT, solve_time=time.perf_counter() - start,
                              stats=stats, message=f"{why}, {NO_VERDICT}")  # fmt: skip
            shape = shape_of(model, root.domains)
        rng = random.Random(seed)
        if level is not None and not root.open_cells:  # settled: no move to make
            run = Run([d[0] for d in shape.domains], 0, 0, 0)
        elif method == "min-conflicts":
            run = min_conflicts(shape, rng, request, budget, options, tracer)
        else:
            schedule = HYBRID if method == "hybrid" else ANNEALING
            run = anneal(shape, blocks, rng, request, budget, options, tracer, schedule)
        solve_time = time.perf_counter() - start
        stats.update(moves=run.moves, restarts=run.restarts, best_cost=run.best_cost,
                     budget_spent=run.budget_spent)  # fmt: skip
        if level is not None:
            stats.update(propagation=level, open_cells=root.open_cells)
        if run.grid is None:
            return Result(self.name, Status.TIMEOUT, solve_time=solve_time, stats=stats,
                          message=run.message)  # fmt: skip
        grid: Grid = tuple(run.grid)
        if not is_solution(model.puzzle, grid):  # a bug, never a verdict
            return Result(self.name, Status.ERROR, solve_time=solve_time, stats=stats,
                          message="local search ended on a grid that does not verify")  # fmt: skip
        if request.limit == 1:
            return Result(self.name, Status.SOLVED, (grid,), 1, False, 0.0, solve_time, stats)
        return Result(self.name, Status.TIMEOUT, (grid,), 1, False, 0.0, solve_time, stats,
                      message=CANNOT_COUNT)  # fmt: skip

    def describe(self, model: Model) -> str:
        """What the search works on: free cells, their candidates, the groups it checks."""
        shape = shape_of(model)
        free = [d for d in shape.domains if len(d) > 1]
        cages = sum(t is not None for t in shape.totals)
        boxes = blocks_of(model)
        where = f"{len(boxes)} boxes for annealing" if boxes else "no boxes: min-conflicts only"
        return (
            f"local: {len(free)} free cells, {sum(map(len, free))} candidates (the givens'"
            f" values removed from their peers), {len(shape.groups) - cages} units"
            f"{f' and {cages} cages' if cages else ''} to satisfy; {where}"
        )


#: Why annealing refuses a model, and what local search says when asked to count.
NO_BOXES = (
    "local: method=annealing needs boxes (or jigsaw regions) that partition the grid,"
    " and this model has none; use method=min-conflicts"
)
NO_VERDICT = "so no solution: a proof local search does not give (incomplete), a timeout"
STUCK = "cells without a choice break the rules: no move can repair them"
CANNOT_COUNT = (
    "local search found a solution but cannot count or prove uniqueness: the count is a lower bound"
)


def blocks_of(model: Model) -> list[tuple[int, ...]] | None:
    """The boxes (or jigsaw regions) of the model, if they partition its cells; else None."""
    cells = len(model.domains)
    for kind in ("box", "region"):
        units = [u.cells for u in model.geometry.units if u.kind == kind]
        covered = sorted(c for u in units for c in u)
        if units and covered == list(range(cells)):
            return units
    return None


def _stop(request: Request, moves: int, budget: int | None) -> str | None:
    """Why the search must stop now ("budget" or "deadline"), or None."""
    if budget is not None and moves >= budget:
        return "budget"
    if moves & _CLOCK_EVERY == 0 and request.passed():
        return "deadline"
    return None


def _gave_up(why: str, budget: int | None) -> tuple[bool, str]:
    if why == "budget":
        return True, f"the budget of {budget} moves was spent"
    return False, ""


def _empty_domain(shape: Shape) -> str:
    """The first cell whose given peers leave it no candidate ("" when none)."""
    for c, d in enumerate(shape.domains):
        if not d:
            n = shape.size
            return f"r{c // n + 1}c{c % n + 1} has no candidate left by its given peers"
    return ""


# --- min-conflicts ------------------------------------------------------------------------


def min_conflicts(
    shape: Shape,
    rng: random.Random,
    request: Request,
    budget: int | None,
    options: dict,
    tracer: Any = None,
) -> Run:
    """Minton's min-conflicts with a tabu list, a random walk and restarts."""
    empty = _empty_domain(shape)
    if empty:
        return Run(None, 0, 0, -1, message=empty)
    tenure = options.get("tabu", DEFAULT_TABU)
    walk = options.get("walk", DEFAULT_WALK)
    max_steps = options.get("max_steps", DEFAULT_MAX_STEPS)
    n, domains = shape.size, shape.domains
    groups, totals = shape.groups, shape.totals
    groups_of, cages_of = shape.groups_of, shape.cages_of
    cells = len(domains)
    free = [c for c in range(cells) if len(domains[c]) > 1]
    is_free = [len(d) > 1 for d in domains]
    if _fixed_break(shape, is_free):
        return Run(None, 0, 0, -1, message=STUCK)
    moves = restarts = 0
    best = -1
    random_ = rng.random
    while True:
        # a fresh assignment: the fixed cells, then each free cell (in random order) at
        # a value with the fewest conflicts so far
        val = [d[0] for d in domains]
        cnt = [[0] * (n + 1) for _ in groups]
        for c in range(cells):
            if not is_free[c]:
                for g in groups_of[c]:
                    cnt[g][val[c]] += 1
        order = free[:]
        rng.shuffle(order)
        for c in order:
            scores = [sum(cnt[g][v] for g in groups_of[c]) for v in domains[c]]
            low = min(scores)
            v = domains[c][rng.choice([i for i, s in enumerate(scores) if s == low])]
            val[c] = v
            for g in groups_of[c]:
                cnt[g][v] += 1
        pairs = zip(groups, totals, strict=True)
        sums = [sum(val[c] for c in cs) if t is not None else 0 for cs, t in pairs]
        bad = [t is not None and s != t for s, t in zip(sums, totals, strict=True)]
        conf = [0] * cells
        for c in free:
            held = val[c]
            conf[c] = sum(cnt[g][held] - 1 for g in groups_of[c])
            conf[c] += sum(bad[g] for g in cages_of[c])
        cost = sum(k * (k - 1) // 2 for row in cnt for k in row) + sum(
            abs(sums[g] - t) for g, t in enumerate(totals) if t is not None
        )
        if best < 0 or cost < best:
            best = cost
        if tracer is not None:
            tracer.start(val[:], cost, None)
        # the conflicted free cells, as a list with each cell's place in it
        conflicted = [c for c in free if conf[c] > 0]
        place = [-1] * cells
        for i, c in enumerate(conflicted):
            place[c] = i
        tabu_until = [0] * (cells * (n + 1))
        steps = 0
        while conflicted:
            why = _stop(request, moves, budget)
            if why:
                spent, message = _gave_up(why, budget)
                return Run(None, moves, restarts, best, spent, message)
            if steps >= max_steps:
                break
            moves += 1
            steps += 1
            c = conflicted[int(random_() * len(conflicted))]
            a = val[c]
            mine, my_cages = groups_of[c], cages_of[c]
            current = sum(cnt[g][a] - 1 for g in mine) + sum(
                abs(sums[g] - totals[g])
                for g in my_cages  # type: ignore[operator]
            )
            choices = [v for v in domains[c] if v != a]
            how = "greedy"
            if random_() < walk:
                b = choices[int(random_() * len(choices))]
                delta = _score(cnt, sums, totals, mine, my_cages, a, b) - current
                how = "walk"
            else:
                low, picks, row = None, [], c * (n + 1)
                for v in choices:
                    s = _score(cnt, sums, totals, mine, my_cages, a, v) - current
                    if tabu_until[row + v] > moves and cost + s >= best:
                        continue  # tabu, and no new best (the aspiration) to excuse it
                    if low is None or s < low:
                        low, picks = s, [v]
                    elif s == low:
                        picks.append(v)
                # staying put is one of the choices (Minton's rule): a cell whose
                # value is already its least conflicted stays unless a tie moves it
                if low is None or low > 0:
                    low, picks = 0, [a]
                elif low == 0:
                    picks.append(a)
                b = picks[int(random_() * len(picks))] if len(picks) > 1 else picks[0]
                delta = low
                if b == a:
                    if tracer is not None:
                        tracer.move(c, a, a, current, current, cost, "stay")
                    continue  # a step without a move
                if tracer is not None and tabu_until[row + b] > moves:
                    how = "aspiration"  # tabu, taken for the new best it reaches
            tabu_until[c * (n + 1) + a] = moves + tenure
            # the move: counts, the conflicts of the cells that share a or b with c
            touched = [c]
            for g in mine:
                cg = cnt[g]
                cg[a] -= 1
                cg[b] += 1
                if cg[a] or cg[b] > 1:
                    for d in groups[g]:
                        if d != c:
                            vd = val[d]
                            if vd == a:
                                conf[d] -= 1
                                touched.append(d)
                            elif vd == b:
                                conf[d] += 1
                                touched.append(d)
            for g in my_cages:
                sums[g] += b - a
                now = sums[g] != totals[g]
                if now != bad[g]:
                    step = 1 if now else -1
                    for d in groups[g]:
                        conf[d] += step
                        touched.append(d)
                    bad[g] = now
            val[c] = b
            conf[c] = sum(cnt[g][b] - 1 for g in mine) + sum(bad[g] for g in my_cages)
            cost += delta
            if cost < best:
                best = cost
            if tracer is not None:
                tracer.move(c, a, b, current, current + delta, cost, how)
            for d in touched:
                if not is_free[d]:
                    continue
                if conf[d] > 0 and place[d] < 0:
                    place[d] = len(conflicted)
                    conflicted.append(d)
                elif conf[d] <= 0 and place[d] >= 0:
                    last = conflicted.pop()
                    if last != d:
                        conflicted[place[d]] = last
                        place[last] = place[d]
                    place[d] = -1
        if cost == 0:
            return Run(val, moves, restarts, 0)
        if not conflicted:  # what is broken lies among cells without a choice
            return Run(None, moves, restarts, best, message=STUCK)
        restarts += 1


def _fixed_break(shape: Shape, is_free: list[bool]) -> bool:
    """Whether the cells without a choice break a rule among themselves (two of one unit
    with the same value, a cage of them off its total): then no move can repair it."""
    for cells, total in zip(shape.groups, shape.totals, strict=True):
        fixed = [shape.domains[c][0] for c in cells if not is_free[c]]
        if len(set(fixed)) < len(fixed):
            return True
        if total is not None and len(fixed) == len(cells) and sum(fixed) != total:
            return True
    return False


def _score(cnt, sums, totals, mine, my_cages, a: int, v: int) -> int:
    """The conflicts of the moving cell (now holding ``a``) were it to hold ``v``."""
    score = 0
    for g in mine:
        score += cnt[g][v]
    for g in my_cages:
        score += abs(sums[g] - a + v - totals[g])
    return score


# --- simulated annealing ------------------------------------------------------------------


def _fill(block: list[int], values: list[int], domains, rng: random.Random) -> dict | None:
    """A random filling of a box's free cells with its missing values, each cell given
    one of its candidates (a bipartite matching by augmenting paths); None if none is."""
    cells = block[:]
    rng.shuffle(cells)
    holder: dict[int, int] = {}  # value -> cell

    def place(c: int, seen: set[int]) -> bool:
        options = [v for v in values if v in domains[c]]
        rng.shuffle(options)
        for v in options:
            if v in seen:
                continue
            seen.add(v)
            if v not in holder or place(holder[v], seen):
                holder[v] = c
                return True
        return False

    for c in cells:
        if not place(c, set()):
            return None
    return {c: v for v, c in holder.items()}


def anneal(
    shape: Shape,
    blocks: list[tuple[int, ...]],
    rng: random.Random,
    request: Request,
    budget: int | None,
    options: dict,
    tracer: Any = None,
    schedule: Schedule = ANNEALING,
) -> Run:
    """Lewis's simulated annealing: permutations in the boxes, swaps inside one box."""
    empty = _empty_domain(shape)
    if empty:
        return Run(None, 0, 0, -1, message=empty)
    if _fixed_break(shape, [len(d) > 1 for d in shape.domains]):
        return Run(None, 0, 0, -1, message=STUCK)
    cooling = options.get("cooling", schedule.cooling)
    n, domains = shape.size, shape.domains
    groups, totals = shape.groups, shape.totals
    cells = len(domains)
    block_set = {tuple(sorted(b)) for b in blocks}
    # each cell's groups that a swap inside its box can change (not the box itself)
    scored = [g for g, cs in enumerate(groups) if tuple(sorted(cs)) not in block_set]
    groups_of: list[list[int]] = [[] for _ in range(cells)]
    for g in scored:
        for c in groups[g]:
            groups_of[c].append(g)
    val = [d[0] for d in domains]
    movable: list[list[int]] = []
    for number, block in enumerate(blocks, 1):
        free = [c for c in block if len(domains[c]) > 1]
        held = {val[c] for c in block if len(domains[c]) == 1}
        missing = [v for v in range(1, n + 1) if v not in held]
        filling = _fill(free, missing, domains, rng)
        if filling is None:
            return Run(None, 0, 0, -1, message=f"no filling of box {number} fits its candidates")
        for c, v in filling.items():
            val[c] = v
        if len(free) > 1:
            movable.append(free)
    cnt = [[0] * (n + 1) for _ in groups]
    sums = [0] * len(groups)
    for g in scored:
        for c in groups[g]:
            cnt[g][val[c]] += 1
            sums[g] += val[c]

    def total_cost() -> int:
        return sum(
            len(groups[g])
            - sum(1 for k in cnt[g] if k)
            + (abs(sums[g] - totals[g]) if totals[g] is not None else 0)  # type: ignore[operator]
            for g in scored
        )

    cost = total_cost()
    best = cost
    if cost == 0 or not movable:
        return Run(val if cost == 0 else None, 0, 0, best,
                   message="" if cost == 0 else "no box has two free cells to swap")  # fmt: skip
    in_ = [set(groups_of[c]) for c in range(cells)]
    random_ = rng.random

    def delta_of(i: int, j: int) -> int:
        """The cost change of swapping cells i and j (same box)."""
        a, b = val[i], val[j]
        delta = 0
        for x, y, here, there in ((i, j, a, b), (j, i, b, a)):
            other = in_[y]
            for g in groups_of[x]:
                if g in other:
                    continue  # holds both cells: unchanged
                cg = cnt[g]
                if cg[here] == 1:
                    delta += 1
                if cg[there] == 0:
                    delta -= 1
                t = totals[g]
                if t is not None:
                    s = sums[g]
                    delta += abs(s - here + there - t) - abs(s - t)
        return delta

    def swap(i: int, j: int) -> None:
        a, b = val[i], val[j]
        for x, y, here, there in ((i, j, a, b), (j, i, b, a)):
            other = in_[y]
            for g in groups_of[x]:
                if g in other:
                    continue
                cnt[g][here] -= 1
                cnt[g][there] += 1
                sums[g] += there - here
        val[i], val[j] = b, a

    def propose() -> tuple[int, int] | None:  # annealing's move
        """A random free cell and a random free cell of its box that may take each
        other's values (what the candidates allow), or None when none may."""
        free = movable[int(random_() * len(movable))]
        i = free[int(random_() * len(free))]
        a, mine = val[i], domains[i]
        partners = [j for j in free if j != i and val[j] in mine and a in domains[j]]
        if not partners:
            return None
        return i, partners[int(random_() * len(partners))]

    def rotate(ring: list[int]) -> int:
        """Each cell of ``ring`` takes the next one's value, the last the first's: done,
        and the cost change returned (``ring[::-1]`` undoes it)."""
        held = [val[c] for c in ring]
        delta = 0
        for c, old, new in zip(ring, held, held[1:] + held[:1], strict=True):
            for g in groups_of[c]:
                cg = cnt[g]
                cg[old] -= 1
                if not cg[old]:
                    delta += 1
                if not cg[new]:
                    delta -= 1
                cg[new] += 1
                t = totals[g]
                if t is not None:
                    s = sums[g]
                    sums[g] = s + new - old
                    delta += abs(s + new - old - t) - abs(s - t)
            val[c] = new
        return delta

    def propose_ring() -> list[int] | None:
        """A random free cell (one in conflict, if one of ``focus`` + 1 draws is), then
        cells of its box each holding a value the one before may take, until the first's
        value fits the last: a ring whose rotation keeps every cell in its candidates (a
        swap when two close it), or None when none is found."""
        for _ in range(focus + 1):
            first = open_cells[int(random_() * len(open_cells))]
            a = val[first]
            for g in groups_of[first]:
                if cnt[g][a] > 1:
                    break
            else:
                continue
            break
        free = box_free[first]
        ring = [first]
        mine = domains[first]
        while True:
            nexts = [j for j in free if val[j] in mine and j not in ring]
            if not nexts:
                return None
            j = nexts[int(random_() * len(nexts))]
            ring.append(j)
            mine = domains[j]
            if a in mine:
                return ring

    # the starting temperature: the spread of the cost over some random swaps
    seen = []
    rings, focus = schedule.rings, schedule.focus
    open_cells = [c for free in movable for c in free]
    box_free = {c: free for free in movable for c in free}
    for _ in range(SAMPLE_SWAPS):
        if rings:
            ring = propose_ring()
            if ring is not None:
                cost += rotate(ring)
        else:
            pair = propose()
            if pair is not None:
                cost += delta_of(*pair)
                swap(*pair)
        seen.append(cost)
    best = min(best, min(seen))
    t0 = statistics.pstdev(seen) or 1.0
    t = t0
    if tracer is not None:
        tracer.start(val[:], cost, t)
        box_of = {c: k for k, block in enumerate(blocks, 1) for c in block}
    chain = sum(len(f) ** 2 for f in movable)
    moves = restarts = 0
    stale = 0
    frozen, uphill = schedule.frozen, False
    cycle_best = best  # the best cost since the last (re)heat
    exp = math.exp
    while cost:
        why = _stop(request, moves, budget)
        if why:
            spent, message = _gave_up(why, budget)
            return Run(None, moves, restarts, best, spent, message)
        moves += 1
        ring = propose_ring() if rings else propose()
        if ring is not None:
            short = len(ring) == 2
            d = delta_of(*ring) if short else rotate(ring)
            taken = d <= 0 or random_() < exp(-d / t)
            if taken:
                if short:
                    swap(*ring)
                cost += d
                uphill |= d > 0
                if cost < cycle_best:
                    cycle_best, stale = cost, -1
                    best = min(best, cost)
            elif not short:
                rotate(ring[::-1])  # undone
            if tracer is not None:
                if short:
                    tracer.swap(box_of[ring[0]], ring[0], ring[1], d, cost, t, taken)
                else:
                    tracer.rotate(box_of[ring[0]], tuple(ring), d, cost, t, taken)
        if moves % chain == 0:
            t *= cooling
            if not (frozen and uphill):
                stale += 1
            uphill = False
            if stale >= schedule.reheat:
                t, stale, cycle_best = t0, 0, math.inf
                restarts += 1
                if tracer is not None:
                    tracer.reheat(t, cost)
    return Run(val, moves, restarts, 0)
