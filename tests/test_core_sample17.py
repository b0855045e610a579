"""Identity of the C core and the reference on 2,000 puzzles of sudokus_17, every setting.

The sample is fixed (``SEED``). Under ``hidden`` and ``locked`` (either order) the puzzles
are compared as they are. Under the weaker propagations the Python reference needs seconds
per 17-clue puzzle (plain backtracking: minutes), so there each puzzle is *eased* first: its first
``EASED[propagation]`` blank cells (row-major) are filled in from its solution, which
leaves a real search (tens of guesses) that the reference finishes in a millisecond or
two. Every setting (propagation, order and value order, all pairs of them) compares a
fifth of the sample, every fifth puzzle from its own start, field for field, with a
uniqueness check (limit 2); under ac3, gac and sac (whose reference is slower still: a
textbook queue of arcs, a matching per unit, a probe per candidate) a fifth of the first
``CP_SAMPLE``. Every one of the 2,000 is compared under three settings or more (the first
500 under four or more). (Every setting on the whole sample took 9 minutes of CPU, loaded.)
"""

from __future__ import annotations

import random

import pytest
from helpers import core_combinations, design

from sudokulab import is_solution
from sudokulab.models import Puzzle, geometry
from sudokulab.native import reference
from sudokulab.native.options import ORDERS, PROPAGATIONS, VALUES
from sudokulab.native.reference import KEEP

_core = pytest.importorskip(
    "sudokulab.native._core",
    reason="the compiled native core is not built (pip install -e . needs a C compiler)",
)

compiled = pytest.importorskip("sudokulab.native.compiled")
pytestmark = pytest.mark.core

SIZE = 2000
SEED = 17
EASED = {"none": 30, "forward": 20, "ac3": 20, "singles": 20, "hidden": 0, "locked": 0}
EASED |= {"gac": 0, "sac": 0}
CP_SAMPLE = 500
SHARES = 5  # each setting compares every fifth puzzle of the sample
UNITS = tuple(u.cells for u in geometry(9).units)


@pytest.fixture(scope="module")
def sample(public_givens) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """(givens, solution) of the fixed sample, the solution found by the C core."""
    everything = public_givens("norvig-pytudes/sudokus_17.txt")
    picks = random.Random(SEED).sample(range(len(everything)), SIZE)
    engine = compiled.Engine(9, UNITS)
    out = []
    for i in picks:
        givens = everything[i]
        solutions = engine.search(givens, 2, keep=2).solutions
        assert len(solutions) == 1 and is_solution(Puzzle.from_grid(givens), solutions[0])
        out.append((givens, solutions[0]))
    return out


def eased(givens, solution, extra: int) -> list[int]:
    """The puzzle with its first ``extra`` blank cells filled in from its solution."""
    out = list(givens)
    for cell in [c for c, v in enumerate(out) if not v][:extra]:
        out[cell] = solution[cell]
    return out


#: The settings: every (propagation, order) the core runs, and both value orders, all pairs.
SETTINGS = design(
    {"propagation": PROPAGATIONS, "order": ORDERS, "values": VALUES},
    lambda row: (row["propagation"], row["order"]) in core_combinations(),
)


@pytest.mark.parametrize(("propagation", "order", "values"), SETTINGS)
def test_identical_on_a_sudokus_17_sample(sample, propagation, order, values):
    fast = compiled.Engine(9, UNITS, propagation, order, values=values)
    engine = reference.Engine(9, UNITS, propagation, order, values=values)
    puzzles = sample
    cp = propagation in ("ac3", "gac", "sac")
    if cp:
        puzzles = puzzles[:CP_SAMPLE]
    # the settings of each kind (CP levels or not) take the shares in turn
    alike = [row for row in SETTINGS if (row[0] in ("ac3", "gac", "sac")) == cp]
    puzzles = puzzles[alike.index((propagation, order, values)) % SHARES :: SHARES]
    batch = []
    for givens, solution in puzzles:
        givens = eased(givens, solution, EASED[propagation])
        ref = engine.search(givens, limit=2)
        out = fast.search(givens, limit=2)
        assert out == ref, (propagation, order, values, givens)
        assert out.count == 1 and out.complete and out.solutions[0] == solution
        batch.append((givens, out))
    # One call of the core over the whole share, every solution kept, agrees too.
    grids, counters = _core.search(
        fast.tables, b"".join(bytes(g) for g, _ in batch), propagation=propagation,
        order=order, limit=2, keep=KEEP, values=values,
    )  # fmt: skip
    assert compiled.outcomes(grids, counters, 81) == [out for _, out in batch]
