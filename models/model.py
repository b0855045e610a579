"""The model a backend consumes: variables with domains, and constraints.

The model knows nothing of solving. It is built once from a puzzle and handed unchanged
to any backend; no backend re-derives Sudoku rules by itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

from .geometry import Geometry
from .puzzle import Puzzle, values_of

if TYPE_CHECKING:
    from .rules import Rule

__all__ = ["AllDifferent", "Constraint", "Model", "Sum", "build_model"]


@dataclass(frozen=True)
class AllDifferent:
    """The cells of one unit take pairwise different values."""

    cells: tuple[int, ...]
    name: str

    kind = "alldifferent"


@dataclass(frozen=True)
class Sum:
    """The cells of one killer cage take pairwise different values adding up to ``total``.

    Distinctness is part of the kind: a backend that takes ``sum`` enforces both.
    """

    cells: tuple[int, ...]
    total: int
    name: str

    kind = "sum"


#: Every constraint type a model can hold: units, cages and the variant rules
#: (:mod:`.rules`), which the model takes from the puzzle unchanged. The rules by name:
#: their module loads with the first puzzle that has rules, not at every start-up.
Constraint = Union[AllDifferent, Sum, "Rule"]  # noqa: UP007 (a name: `|` takes no string)


@dataclass(frozen=True)
class Model:
    """Variables (one per cell), their domains, and the constraints over them.

    ``domains[cell]`` is the ascending tuple of values the cell may take: the given alone
    for a given, 1..n otherwise; a pencil-mark puzzle's candidates where it has them.
    Constraints come from the geometry's units, so a variant with extra units (diagonals,
    jigsaw regions) needs no change in any backend.
    """

    puzzle: Puzzle
    domains: tuple[tuple[int, ...], ...]
    constraints: tuple[Constraint, ...]

    @property
    def geometry(self) -> Geometry:
        """The puzzle's geometry."""
        return self.puzzle.geometry

    @property
    def size(self) -> int:
        """Values are 1..size."""
        return self.puzzle.geometry.size

    @property
    def variables(self) -> range:
        """One variable per cell, named by its index."""
        return self.puzzle.geometry.cells

    @property
    def kinds(self) -> frozenset[str]:
        """The constraint kinds used, so a backend can say whether it accepts them."""
        return frozenset(c.kind for c in self.constraints)

    @property
    def narrowed(self) -> bool:
        """Whether pencil marks narrow some domain beyond its given (or 1..n)."""
        return self.puzzle.candidates is not None

    @property
    def givens(self) -> tuple[int, ...]:
        """The puzzle's givens (0 = blank)."""
        return self.puzzle.givens


def _constraints_of(geometry: Geometry) -> tuple[Constraint, ...]:
    # Cached on the geometry object itself (immutable, shared), so building a model
    # per puzzle costs only the domains.
    cached = geometry.__dict__.get("_constraints")
    if cached is None:
        cached = tuple(AllDifferent(u.cells, u.name) for u in geometry.units)
        object.__setattr__(geometry, "_constraints", cached)
    return cached


def build_model(puzzle: Puzzle) -> Model:
    """The model of a puzzle: a variable per cell, AllDifferent per unit, Sum per cage,
    and the puzzle's variant rules as they are."""
    if puzzle.candidates is not None:
        found: dict[int, tuple[int, ...]] = {}  # one tuple per distinct mask
        domains = tuple(
            found.get(m) or found.setdefault(m, values_of(m)) for m in puzzle.candidates
        )
    else:
        full = tuple(puzzle.geometry.values)
        singletons = {v: (v,) for v in full}
        domains = tuple(singletons[v] if v else full for v in puzzle.givens)
    constraints = _constraints_of(puzzle.geometry)
    if puzzle.cages:
        cages = (Sum(c.cells, c.total, f"cage {i}") for i, c in enumerate(puzzle.cages, 1))
        constraints += tuple(cages)
    return Model(puzzle, domains, constraints + puzzle.rules)
