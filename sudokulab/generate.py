"""The generator: random solved grids from the native engine, then clues removed.

A solved grid (a random seeding the engine completes, :func:`solved_grid`), then clues
removed in random order while the puzzle stays unique, graded by the logic solver's
rating (:data:`DIFFICULTIES`); killer puzzles get random cages as their clues, rule
puzzles (anti-knight, thermometer, kropki) a solved grid that keeps the rules. Unique
means the engine's count with limit 2 is 1, settled within :data:`CHECK_GUESSES`
guesses: a check that needs more keeps the clue, so the puzzle stays provably unique and
the work bounded. Everything random comes from one ``random.Random(seed)`` and the
search is steered by counts of guesses, never by a clock, so the same seed gives the
same puzzles on every run and machine; ``attempts`` and ``timeout`` bound a request (a
GenerateError past either). docs/guides/variants.md, "Generating puzzles", says how each
step goes.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from . import native
from .logic import LADDER, Technique, solve_logic
from .logic.ladder import BY_NAME, GRADES
from .logic.rating import rate_run
from .models import Cage, Geometry, Grid, Puzzle, Unit, geometry, make_geometry
from .models.formats import counted
from .models.rules import Difference, Less, Ratio, neighbour_pairs
from .models.variants import board_rules, diagonal_units, hyper_units

#: Difficulties, easiest first: the logic solver's grades.
DIFFICULTIES = GRADES
#: The variants stated by rules (:mod:`sudokulab.models.rules`), made unique by the
#: native engine, which propagates them.
RULE_VARIANTS = ("anti-knight", "thermometer", "kropki")
#: What ``variant`` may be.
KINDS = ("classic", "x", "hyper", "jigsaw", "killer", *RULE_VARIANTS)
#: Thermometers drawn on a thermometer puzzle, and the most cells of one.
THERMOMETERS, THERMOMETER_CELLS = 6, 5
#: Grids drawn for one puzzle before the generator gives up on a difficulty.
ATTEMPTS = 200
#: The share of the attempts for a grade above easy (and no technique) that make a puzzle
#: as for no difficulty and keep it when it rates so (about one minimal 9x9 puzzle in
#: seven to eleven is medium, hard or expert: drawn at some 60 a second, where a ladder
#: check at every removal made about one a second); the rest climb the ladder at every
#: removal, for the grades and shapes that drawing rarely gives.
DRAWN_SHARE = 0.5
#: Guesses the engine may spend completing one random seeding of a solved grid before
#: another is drawn: a seeding that cannot be completed costs far more to refute than
#: another seeding costs to complete.
#: (255: where the generator's former cut-off, a deadline already past read at the 256th
#: guess, stopped; so a seed still gives the grids it gave.)
SEEDING_GUESSES = 255
#: Guesses one uniqueness check may spend (a check that needs more keeps its clue): 9x9
#: checks take tens, on 16x16 a few in a hundred take more; on 25x25 the ones beyond it
#: mostly run on for millions while the puzzle gains almost no blanks from them.
CHECK_GUESSES = 10_000


#: Techniques few random puzzles need (measured: under 3 in 100 grids even with clues
#: given back, see add_clues); asking for one may end in a GenerateError.
RARE = (
    "X-wing",
    "swordfish",
    "jellyfish",
    "naked triple",
    "hidden triple",
    "naked quad",
    "hidden quad",
)


class GenerateError(ValueError):
    """A request the generator cannot meet (a size or variant that does not fit, no
    puzzle within the attempts or the timeout, ...)."""


@dataclass(frozen=True)
class Tried:
    """Where the search for one puzzle stands, for a progress display."""

    puzzle: int  # the number of the puzzle being made, from 1
    attempt: int  # the grid in hand, from 1
    attempts: int  # the most grids drawn for one puzzle
    seconds: float  # spent on this puzzle so far
    timeout: float | None  # the most seconds for one puzzle (None: no limit)


class _OutOfTime(Exception):
    """The puzzle's timeout passed (caught where the request's words are known)."""


class _Clock:
    """Ticks of the search for one puzzle: each checks the timeout and tells ``progress``."""

    def __init__(
        self,
        number: int,
        attempts: int,
        timeout: float | None,
        progress: Callable[[Tried], None] | None,
    ) -> None:
        self.number, self.attempts = number, attempts
        self.timeout, self.progress = timeout, progress
        self.start = time.monotonic()
        self.attempt = 0

    def tick(self) -> None:
        """Between two steps of the search: _OutOfTime past the timeout."""
        spent = time.monotonic() - self.start
        if self.timeout is not None and spent > self.timeout:
            raise _OutOfTime
        if self.progress is not None:
            self.progress(Tried(self.number, self.attempt, self.attempts, spent, self.timeout))


def _nothing() -> None:
    """A tick that does nothing (no clock, no progress)."""


@dataclass(frozen=True)
class Generated:
    """One generated puzzle, its solution, and the grade the engine gave it."""

    puzzle: Puzzle
    solution: Grid
    grade: str
    hardest: str = ""  # the hardest technique the logic solver needed (not for killer)


def _units(geom: Geometry) -> tuple[tuple[int, ...], ...]:
    return tuple(u.cells for u in geom.units)


def _cages(puzzle_cages: tuple[Cage, ...]) -> tuple[tuple[tuple[int, ...], int], ...]:
    return tuple((c.cells, c.total) for c in puzzle_cages)


@lru_cache(maxsize=32)
def _engine(
    geom: Geometry, propagation: str = "hidden", cages: tuple = (), rules: tuple = ()
) -> native.Engine:
    """The engine (order ``mrv``) of a shape, a propagation, a puzzle's cages and its
    variant rules, made once."""
    return native.Engine(geom.size, _units(geom), propagation, "mrv", cages, rules=rules)


def propagates(
    geom: Geometry, givens: Grid | list[int], propagation: str, cages: tuple[Cage, ...] = ()
) -> bool:
    """Whether the engine solves the givens by propagation alone (no guess).

    A budget of no guess stops the search at the root, where propagation alone either
    solved the grid or did not.
    """
    out = _engine(geom, propagation, _cages(cages)).search(givens, 1, max_guesses=0)
    return out.count == 1


def grade(puzzle: Puzzle) -> str:
    """The puzzle's grade, one of :data:`DIFFICULTIES`: the logic solver's rating; for a
    killer puzzle, what the engine needs: ``easy`` (naked and hidden singles solve it),
    else ``extreme``."""
    return rating(puzzle)[0]


def rating(puzzle: Puzzle) -> tuple[str, str]:
    """The grade and the hardest technique (empty for a killer puzzle)."""
    if puzzle.cages:
        easy = propagates(puzzle.geometry, puzzle.givens, "hidden", puzzle.cages)
        return ("easy" if easy else "extreme"), ""
    rated = rate_run(solve_logic(puzzle))
    return rated.grade, rated.hardest


def ladder_for(difficulty: str | None, technique: str | None) -> tuple[Technique, ...] | None:
    """The techniques a puzzle may need: those up to ``technique``, or those of grade
    ``difficulty`` and easier; None when any puzzle with one solution will do."""
    if technique is not None:
        return LADDER[: LADDER.index(BY_NAME[technique]) + 1]
    if difficulty is None or difficulty == "extreme":
        return None
    top = GRADES.index(difficulty)
    return tuple(t for t in LADDER if GRADES.index(t.grade) <= top)


def variant_of(size: int, kind: str, rng: random.Random) -> Geometry:
    """The geometry of a variant kind (random regions for jigsaw)."""
    if kind not in KINDS:
        raise GenerateError(f"unknown variant {kind!r}: choose one of {', '.join(KINDS)}")
    try:
        base = geometry(size)
        if kind == "x":
            return base.with_units(diagonal_units(size))
        if kind == "hyper":
            return base.with_units(hyper_units(size))
    except ValueError as err:
        raise GenerateError(str(err)) from None
    if kind == "jigsaw":
        return jigsaw_geometry(size, rng)
    return base


def jigsaw_geometry(size: int, rng: random.Random, steps: int | None = None) -> Geometry:
    """Rows, columns, and random contiguous regions of n cells instead of the boxes."""
    base = geometry(size)
    label = [base.box(c) for c in base.cells]
    members = [set(u.cells) for u in base.units if u.kind == "box"]
    for _ in range(steps if steps is not None else 8 * size * size):
        a = rng.randrange(size * size)
        others = sorted(b for b in _neighbours(size, a) if label[b] != label[a])
        if not others:
            continue
        home, away = label[a], label[rng.choice(others)]
        # a joins the other region; one of its cells that touches home comes back
        back = sorted(
            c
            for c in members[away]
            if any(label[d] == home and d != a for d in _neighbours(size, c))
        )
        if not back:
            continue
        c = rng.choice(back)
        members[home].discard(a), members[away].add(a)
        members[away].discard(c), members[home].add(c)
        if _contiguous(size, members[home]) and _contiguous(size, members[away]):
            label[a], label[c] = away, home
        else:  # undo
            members[away].discard(a), members[home].add(a)
            members[home].discard(c), members[away].add(c)
    regions = sorted(tuple(sorted(m)) for m in members)
    lines = base.units[: 2 * size]
    units = lines + tuple(Unit("region", i, cells) for i, cells in enumerate(regions, 1))
    return make_geometry(size, base.box_rows, base.box_cols, units)


def _neighbours(size: int, cell: int) -> list[int]:
    r, c = divmod(cell, size)
    out = []
    if r > 0:
        out.append(cell - size)
    if r < size - 1:
        out.append(cell + size)
    if c > 0:
        out.append(cell - 1)
    if c < size - 1:
        out.append(cell + 1)
    return out


def _contiguous(size: int, cells: set[int]) -> bool:
    start = min(cells)
    seen, todo = {start}, [start]
    while todo:
        for d in _neighbours(size, todo.pop()):
            if d in cells and d not in seen:
                seen.add(d)
                todo.append(d)
    return len(seen) == len(cells)


def solved_grid(
    geom: Geometry,
    rng: random.Random,
    tries: int = 20,
    solvable: bool = True,
    tick: Callable[[], None] = _nothing,
    rules: tuple = (),
) -> Grid | None:
    """A random solution of an empty grid of this geometry and these variant ``rules``
    (None when none was found).

    First ``tries`` seedings of n random cells, each given :data:`SEEDING_GUESSES`
    guesses: a seeding that cannot be completed costs more to refute than another one
    costs to complete. Then a random first row alone, searched to the end: relabelling the
    values of any solution gives that row (board-wide not-equal rules are kept by a
    relabelling too), so it is completed whenever the geometry has a solution (25x25
    grids usually get here: their seedings need more guesses). A geometry not known to be
    ``solvable`` (a random jigsaw layout) is not searched to the end: a layout without
    solutions can be slow to refute; the caller draws another.
    """
    n, engine = geom.size, _engine(geom, rules=rules)
    for _ in range(tries):
        tick()
        givens = [0] * geom.cell_count
        for cell, value in zip(rng.sample(geom.cells, n), rng.sample(geom.values, n), strict=True):
            givens[cell] = value
        out = engine.search(givens, 1, max_guesses=SEEDING_GUESSES)
        if out.solutions:
            return out.solutions[0]
    if not solvable:
        return None
    row = rng.sample(geom.values, n) + [0] * (geom.cell_count - n)
    out = engine.search(row, 1)
    return out.solutions[0] if out.solutions else None


def _groups(geom: Geometry, rng: random.Random, symmetry: str) -> list[tuple[int, ...]]:
    """Cells in random removal order, alone or with their rotational partner."""
    last = geom.cell_count - 1
    if symmetry == "rotational":
        groups = [(c, last - c) if c != last - c else (c,) for c in range(last // 2 + 1)]
    else:
        groups = [(c,) for c in geom.cells]
    rng.shuffle(groups)
    return groups


def _keeps(
    geom: Geometry,
    givens: list[int],
    ladder: tuple[Technique, ...] | None,
    budget: int,
    rules: tuple = (),
) -> bool:
    """Whether a puzzle with these givens (and variant ``rules``) is unique within
    ``budget`` guesses, or, with a ``ladder`` (no rules), solved by it (then it is unique:
    logic only removes what cannot be)."""
    if ladder == LADDER[:2]:  # singles: the engine's hidden propagation settles the same
        return propagates(geom, givens, "hidden")  # (tests/test_logic.py), many times faster
    if ladder is not None:
        return solve_logic(Puzzle(geom, tuple(givens)), ladder).status == "solved"
    out = _engine(geom, rules=rules).search(givens, 2, max_guesses=budget)
    return out.count == 1 and out.complete


def remove_clues(
    geom: Geometry,
    solution: Grid,
    rng: random.Random,
    ladder: tuple[Technique, ...] | None = None,
    symmetry: str = "none",
    check_guesses: int = CHECK_GUESSES,
    tick: Callable[[], None] = _nothing,
    rules: tuple = (),
) -> Puzzle:
    """Blank the solution's cells one group at a time while the puzzle stays acceptable:
    solved by ``ladder`` (see :func:`ladder_for`), or else unique under its variant
    ``rules``, each check within ``check_guesses`` guesses (one that needs more keeps the
    group's clues)."""
    givens = list(solution)
    for group in _groups(geom, rng, symmetry):
        tick()
        kept = [givens[c] for c in group]
        for c in group:
            givens[c] = 0
        if not _keeps(geom, givens, ladder, check_guesses, rules):
            for c, v in zip(group, kept, strict=True):
                givens[c] = v
    return Puzzle(geom, tuple(givens), (), None, rules)


def add_clues(
    puzzle: Puzzle,
    solution: Grid,
    rng: random.Random,
    ladder: tuple[Technique, ...],
    symmetry: str = "none",
    tick: Callable[[], None] = _nothing,
) -> Puzzle:
    """Give back some of the solution's values until the puzzle needs ``ladder``'s top
    rung: solved by the whole ladder, not by the rungs below it. Each round tries the
    blank cells (or rotational pairs) in random order and takes the first that does it;
    failing that, the first that leaves the puzzle unsolved, so the next round starts
    further on. A puzzle that cannot get there comes back as it is (the caller checks).
    This finds the techniques that are rare among minimal puzzles (fish, quads)."""
    geom = puzzle.geometry
    below = ladder[:-1]
    givens = list(puzzle.givens)
    if solve_logic(puzzle, ladder).status == "solved":
        return puzzle
    while True:
        onward = None
        for group in _groups(geom, rng, symmetry):
            if givens[group[0]]:
                continue
            tick()
            trial = list(givens)
            for c in group:
                trial[c] = solution[c]
            candidate = Puzzle(geom, tuple(trial))
            if solve_logic(candidate, ladder).status != "solved":
                onward = onward or trial
            elif solve_logic(candidate, below).status != "solved":
                return candidate
        if onward is None:
            return Puzzle(geom, tuple(givens))
        givens = onward


def random_cages(
    geom: Geometry, solution: Grid, rng: random.Random, largest: int = 4
) -> tuple[Cage, ...]:
    """A random partition of the grid into contiguous cages of 1..largest distinct values."""
    n = geom.size
    owner = [-1] * geom.cell_count
    cages: list[list[int]] = []
    for start in rng.sample(geom.cells, geom.cell_count):
        if owner[start] >= 0:
            continue
        cage, values = [start], {solution[start]}
        owner[start] = len(cages)
        want = rng.choice([s for s in (1, 2, 2, 3, 3, 3, 4, 4) if s <= largest])
        while len(cage) < want:
            grow = sorted(
                d
                for c in cage
                for d in _neighbours(n, c)
                if owner[d] < 0 and solution[d] not in values
            )
            if not grow:
                break
            d = rng.choice(grow)
            owner[d] = len(cages)
            cage.append(d)
            values.add(solution[d])
        cages.append(sorted(cage))
    ordered = sorted(cages)
    return tuple(Cage(tuple(c), sum(solution[i] for i in c)) for c in ordered)


def killer(
    geom: Geometry,
    solution: Grid,
    rng: random.Random,
    check_guesses: int = CHECK_GUESSES,
    tick: Callable[[], None] = _nothing,
) -> Puzzle:
    """A killer puzzle: random cages, plus givens where the engine finds two solutions.

    Each uniqueness check gets ``check_guesses`` guesses; one that spends them before it
    settles anything adds a given too, where its solution differs from ``solution`` or
    else at a random blank cell: every given narrows the next search.
    """
    cages = random_cages(geom, solution, rng)
    engine = _engine(geom, "hidden", _cages(cages))
    givens = [0] * geom.cell_count
    while True:
        tick()
        out = engine.search(givens, 2, max_guesses=check_guesses)
        if out.count == 1 and out.complete:
            return Puzzle(geom, tuple(givens), cages)
        if out.count >= 2:
            differ = [c for c in geom.cells if out.solutions[0][c] != out.solutions[1][c]]
        elif out.budget_spent:
            found = out.solutions[0] if out.solutions else solution
            differ = [c for c in geom.cells if found[c] != solution[c]]
            differ = differ or [c for c in geom.cells if not givens[c]]
        else:  # cannot happen: the solution fits every cage
            raise GenerateError(f"the engine found {out.count} solutions of a killer puzzle")
        cell = rng.choice(differ)
        givens[cell] = solution[cell]


def generate(
    size: int = 9,
    variant: str = "classic",
    difficulty: str | None = None,
    count: int = 1,
    seed: int = 0,
    symmetry: str = "none",
    check_guesses: int = CHECK_GUESSES,
    technique: str | None = None,
    attempts: int = ATTEMPTS,
    timeout: float | None = None,
    progress: Callable[[Tried], None] | None = None,
) -> Iterator[Generated]:
    """Yield ``count`` puzzles; GenerateError when the request cannot be met.

    ``difficulty`` asks for a grade, ``technique`` for puzzles whose hardest technique is
    that one (a name of the ladder: ``X-wing``, ``naked pair``, ...). ``check_guesses``
    bounds each uniqueness check (see the module docstring): more lets a puzzle lose a
    few more clues, at a cost in time on the largest grids. Each puzzle gets at most
    ``attempts`` grids and ``timeout`` seconds (None: no limit); ``progress`` is called
    with a :class:`Tried` between the steps of the search.
    """
    if difficulty is not None and difficulty not in DIFFICULTIES:
        raise GenerateError(f"unknown difficulty {difficulty!r}: {', '.join(DIFFICULTIES)}")
    if technique is not None and technique not in BY_NAME:
        raise GenerateError(f"unknown technique {technique!r}: {', '.join(BY_NAME)}")
    if variant in RULE_VARIANTS and (difficulty, technique) != (None, None):
        raise GenerateError(f"{variant} puzzles are not graded: the logic solver knows no rules")
    if variant == "killer" and difficulty not in (None, "easy", "extreme"):
        raise GenerateError(
            "killer puzzles are graded easy or extreme (the engine's singles, "
            f"or search), not {difficulty}"
        )
    if technique is not None and variant == "killer":
        raise GenerateError("--technique: the logic solver does not read killer cages")
    if technique is not None and difficulty not in (None, BY_NAME[technique].grade):
        wanted = BY_NAME[technique].grade
        raise GenerateError(f"a puzzle needing {technique} is {wanted}, not {difficulty}")
    if symmetry not in ("none", "rotational"):
        raise GenerateError(f"unknown symmetry {symmetry!r}: none, rotational")
    if check_guesses < 0:
        raise GenerateError(f"check_guesses must be at least 0, got {check_guesses}")
    if attempts < 1:
        raise GenerateError(f"attempts must be at least 1, got {attempts}")
    if timeout is not None and not timeout > 0:  # nan too
        raise GenerateError(f"timeout must be more than 0 seconds, got {timeout}")
    rng = random.Random(seed)
    for number in range(1, count + 1):
        clock = _Clock(number, attempts, timeout, progress)
        try:
            yield _one(size, variant, difficulty, technique, symmetry, rng, check_guesses, clock)
        except _OutOfTime:
            wanted = _wanted(size, variant, difficulty, technique)
            rare = f"; {_rare(technique)}" if _rare(technique) else ""
            raise GenerateError(
                f"no {wanted} within the timeout of {timeout:g} s ({clock.attempt} of at most "
                f"{counted(attempts, 'grid')} drawn{rare}): a larger timeout or another seed "
                "may find one"
            ) from None


def _wanted(size: int, variant: str, difficulty: str | None, technique: str | None) -> str:
    """The puzzle asked for, in words: ``jellyfish 9x9 classic puzzle``."""
    wanted = f"{technique} " if technique else f"{difficulty} " if difficulty else ""
    return f"{wanted}{size}x{size} {variant} puzzle"


def _rare(technique: str | None) -> str:
    """Why a request may fail: the technique is a rare one ("" when not)."""
    if technique is not None and technique in RARE:
        return f"puzzles needing {technique} are rare among random ones"
    return ""


def _one(
    size: int,
    variant: str,
    difficulty: str | None,
    technique: str | None,
    symmetry: str,
    rng: random.Random,
    check_guesses: int,
    clock: _Clock,
) -> Generated:
    ladder = None if variant == "killer" else ladder_for(difficulty, technique)
    tick = clock.tick
    if variant in RULE_VARIANTS:
        return _ruled(size, variant, symmetry, rng, check_guesses, clock)
    for attempt in range(clock.attempts):
        clock.attempt = attempt + 1
        tick()
        geom = variant_of(size, variant, rng)
        solution = solved_grid(geom, rng, solvable=variant != "jigsaw", tick=tick)
        if solution is None:
            continue  # a jigsaw layout that the seedings never completed: redraw it
        if variant == "killer":
            puzzle = killer(geom, solution, rng, check_guesses, tick)
        elif technique is not None and ladder is not None and attempt % 2:
            # Every other grid: clues given back to a minimal puzzle (see add_clues).
            puzzle = remove_clues(geom, solution, rng, None, symmetry, check_guesses, tick)
            puzzle = add_clues(puzzle, solution, rng, ladder, symmetry, tick)
        else:
            drawn = technique is None and attempt < clock.attempts * DRAWN_SHARE
            steps = None if drawn and ladder not in (None, LADDER[:2]) else ladder
            puzzle = remove_clues(geom, solution, rng, steps, symmetry, check_guesses, tick)
        found, hardest = rating(puzzle)
        if (difficulty is None or found == difficulty) and technique in (None, hardest):
            return Generated(puzzle, solution, found, hardest)
    wanted = _wanted(size, variant, difficulty, technique)
    rare = f" ({_rare(technique)})" if _rare(technique) else ""
    raise GenerateError(
        f"no {wanted} in {counted(clock.attempts, 'grid')}{rare}: more attempts or another "
        "seed may find one"
    )


def _ruled(
    size: int, variant: str, symmetry: str, rng: random.Random, check_guesses: int, clock: _Clock
) -> Generated:
    """A puzzle of a variant stated by rules, unique by the engine under its rules."""
    geom, tick = geometry(size), clock.tick
    for attempt in range(clock.attempts):
        clock.attempt = attempt + 1
        tick()
        if variant == "anti-knight":
            rules = board_rules(geom, "anti-knight")
            solution = solved_grid(geom, rng, tick=tick, rules=rules)
        else:
            solution = solved_grid(geom, rng, tick=tick)
            if solution is not None:
                draw = thermometers if variant == "thermometer" else kropki_dots
                rules = draw(geom, solution, rng)
        if solution is None:
            continue
        puzzle = remove_clues(geom, solution, rng, None, symmetry, check_guesses, tick, rules)
        return Generated(puzzle, solution, "")
    raise GenerateError(f"no {size}x{size} {variant} puzzle in {counted(clock.attempts, 'grid')}")


def thermometers(geom: Geometry, solution: Grid, rng: random.Random) -> tuple:
    """Up to :data:`THERMOMETERS` disjoint thermometers the solution keeps: from a random
    bulb, each step to a random free orthogonal neighbour holding a larger value, 3 to
    :data:`THERMOMETER_CELLS` cells; each a chain of ``Less`` named ``thermometer k``."""
    n, used, rules = geom.size, set(), []
    for bulb in rng.sample(geom.cells, geom.cell_count):
        if len(rules) == THERMOMETERS:
            break
        if bulb in used:
            continue
        path = [bulb]
        while len(path) < THERMOMETER_CELLS:
            last = path[-1]
            up = [
                d
                for d in _neighbours(n, last)
                if d not in used and d not in path and solution[d] > solution[last]
            ]
            if not up:
                break
            path.append(rng.choice(sorted(up)))
        if len(path) < 3:
            continue
        used.update(path)
        name = f"thermometer {len(rules) + 1}"
        rules.append(tuple(Less(a, b, name) for a, b in zip(path, path[1:], strict=False)))
    return tuple(rule for chain in rules for rule in chain)


def kropki_dots(geom: Geometry, solution: Grid, rng: random.Random) -> tuple:
    """Every kropki dot of the solution between orthogonal neighbours: black where one
    value is twice the other (1 and 2 too), else white where they differ by 1."""
    dots = []
    for a, b in neighbour_pairs(geom.size):
        x, y = solution[a], solution[b]
        if x == 2 * y or y == 2 * x:
            dots.append(Ratio(a, b, 2, "black dot"))
        elif abs(x - y) == 1:
            dots.append(Difference(a, b, 1, "white dot"))
    return tuple(dots)
