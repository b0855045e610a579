"""What both implementations of the native engine share, light enough for start-up.

A search's answer (:class:`Outcome`, the :data:`COUNTERS` of a block and the bits of its
flags, :data:`KEEP`), a cage as the engine takes it, and the variant rule kinds it
propagates. The reference (:mod:`sudokulab.native.reference`, two thousand lines) and
the compiled engine read them here, and so do the backends: a command that runs the
compiled core loads none of the reference (``tests/test_startup.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Solutions kept by default: a count may run into millions, the grids are kept only up
#: to this many (each is counted all the same).
KEEP = 1000

#: Placements a search records at most when asked for its steps (a proof's skeleton,
#: :mod:`sudokulab.certify.search`): past them the record stops, the search goes on, and
#: the outcome's ``steps`` is None, so the memory a certified search takes is bounded
#: (a proof of that many lemmas is tens of MB; a second solver proves a longer one's claim).
STEPS_MAX = 100_000


def steps_bound(steps: bool | int) -> int:
    """The placements to record for a search's ``steps`` argument: none for False,
    :data:`STEPS_MAX` for True (read when called), else the int given."""
    if steps is True:
        return STEPS_MAX
    if steps is False:
        return 0
    if not isinstance(steps, int) or steps < 0:
        raise ValueError(f"steps must be True, False or an int >= 0, got {steps!r}")
    return steps


#: A cage: its cells and the sum of their values.
Cage = tuple[tuple[int, ...], int]


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What one search found: solutions, whether it finished, and its counters.

    Built by keyword only: eight fields in a row are too easy to misplace.
    """

    solutions: tuple[tuple[int, ...], ...]  # the first ``keep`` found, in search order
    count: int  # solutions found (all counted, only the first ``keep`` kept)
    complete: bool  # the search space was exhausted: the count is exact
    timed_out: bool = False  # the deadline stopped the search
    budget_spent: bool = False  # the guess budget (max_guesses) stopped the search
    nodes: int
    guesses: int
    backtracks: int
    backjumps: int = 0  # backjumping only: dead ends that jumped back over a branching level
    skipped: int = 0  # backjumping only: the branching levels those jumps passed over
    #: With ``steps``: every placement tried, (depth from 1, cell, value), in order (the
    #: skeleton of a proof, :mod:`sudokulab.certify.search`); None when there were more
    #: than the bound asked (:data:`STEPS_MAX` by default).
    steps: tuple[tuple[int, int, int], ...] | None = ()


#: The int64 counters each puzzle gets from :meth:`Engine.search_grids` (and the compiled
#: core's ``search``), in column order: ``kept`` is how many solution grids it kept.
COUNTERS = ("count", "flags", "nodes", "guesses", "backtracks", "nanoseconds", "kept")
#: Bits of the ``flags`` counter.
COMPLETE, TIMED_OUT, BUDGET_SPENT = 1, 2, 4

#: The rule kinds the engine has a propagator for (see "Rules" in docs/engine.md).
PROPAGATED_KINDS = frozenset(
    {"less", "lessequal", "difference", "notdifference", "mindifference", "ratio"}
    | {"notratio", "pairsum", "notequal", "sumequals", "consecutive", "parity"}
    | {"sandwich", "littlekiller"}
)
#: The kinds without a propagator of their own whose decompositions are tables of one or
#: two cells (:mod:`sudokulab.encodings`): the engine takes them as pair relations. Named,
#: not worked out from the decompositions, so that the encodings load only where they
#: run; ``tests/test_encodings.py`` checks that these are every such kind.
TABLE_KINDS = frozenset({"entropic"})
#: The rule kinds the engine takes.
RULE_KINDS = PROPAGATED_KINDS | TABLE_KINDS
