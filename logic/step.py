"""One step of the logic solver: the technique, what it rests on, and what it changes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """A technique applied once.

    ``cells``, ``values`` and ``units`` are what the step rests on (the pair and its unit,
    the fish's base units with ``cover`` its cover units, the pivot then the pincers, the
    chain's cells in order); ``placed`` and ``removed`` are ``(cell, value)`` pairs it
    places or eliminates. A step of technique ``stalled`` or ``contradiction`` ends the
    run and changes nothing.
    """

    technique: str
    cells: tuple[int, ...] = ()
    values: tuple[int, ...] = ()
    units: tuple[int, ...] = ()
    cover: tuple[int, ...] = ()
    placed: tuple[tuple[int, int], ...] = ()
    removed: tuple[tuple[int, int], ...] = ()
    #: Chains: the link after each cell but the last ("=" strong, "-" weak). Colouring:
    #: the colour (0 or 1) of each cell in ``cells``.
    links: tuple[str | int, ...] = ()
    #: A refinement of the technique: "pointing"/"claiming", "trap"/"wrap", "box"/"line".
    kind: str = ""
