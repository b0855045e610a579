"""The primitives every constraint of a model is decomposed into, and their meaning.

Four records, each with :meth:`holds` on a filled grid (one value per cell), so that a
decomposition can be checked against the rule it stands for:

- :class:`Distinct`: the cells take pairwise different values, adding up to ``total``
  when it is given (a unit; a killer cage).
- :class:`Linear`: ``low <= sum of terms <= high``; a :class:`Term` is a coefficient times
  a cell's value, or times the 0-1 literal "the cell holds one of these values".
- :class:`Table`: the cells' values form one of the allowed tuples.
- :class:`Implies`: when every listed cell holds one of its listed values, a linear row
  holds (a reified sum).

>>> Linear((Term(1, 0), Term(-1, 1)), high=-1).holds((3, 5))  # x0 - x1 <= -1
True
>>> Linear((Term(1, 0, frozenset({1, 9})), Term(1, 1, frozenset({1, 9}))), high=1).holds((1, 9))
False
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: A filled grid: one value per cell.
Values = Sequence[int]


@dataclass(frozen=True)
class Term:
    """``coef`` times cell ``cell``'s value; with ``values``, ``coef`` times 1 when the cell
    holds one of ``values`` and 0 otherwise."""

    coef: int
    cell: int
    values: frozenset[int] | None = None

    def value(self, grid: Values) -> int:
        """The term's value on a filled grid."""
        if self.values is None:
            return self.coef * grid[self.cell]
        return self.coef * (grid[self.cell] in self.values)


@dataclass(frozen=True)
class Distinct:
    """The cells take pairwise different values (and add up to ``total`` if given)."""

    cells: tuple[int, ...]
    total: int | None = None

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps it."""
        values = [grid[c] for c in self.cells]
        if len(set(values)) != len(values):
            return False
        return self.total is None or sum(values) == self.total


@dataclass(frozen=True)
class Linear:
    """``low <= sum(terms) <= high``; a missing bound is no bound (``low == high``: an
    equation). Each cell appears in at most one value term and one term per value set."""

    terms: tuple[Term, ...]
    low: int | None = None
    high: int | None = None

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells the row reads, in term order."""
        return tuple(dict.fromkeys(t.cell for t in self.terms))

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps it."""
        total = sum(t.value(grid) for t in self.terms)
        return (self.low is None or total >= self.low) and (self.high is None or total <= self.high)


@dataclass(frozen=True)
class Table:
    """The values of ``cells`` form one of the ``allowed`` tuples (one value per cell)."""

    cells: tuple[int, ...]
    allowed: frozenset[tuple[int, ...]]

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps it."""
        return tuple(grid[c] for c in self.cells) in self.allowed


@dataclass(frozen=True)
class Implies:
    """When every cell of ``when`` holds one of its values, ``then`` holds."""

    when: tuple[tuple[int, frozenset[int]], ...]
    then: Linear

    @property
    def cells(self) -> tuple[int, ...]:
        """The cells it reads: the condition's, then the row's."""
        return tuple(dict.fromkeys([c for c, _ in self.when] + list(self.then.cells)))

    def holds(self, grid: Values) -> bool:
        """Whether a filled grid keeps it."""
        return not all(grid[c] in values for c, values in self.when) or self.then.holds(grid)


#: Every primitive a decomposition may use.
Primitive = Distinct | Linear | Table | Implies

#: The primitive types, for a backend to say which it translates.
TYPES = (Distinct, Linear, Table, Implies)
