"""A logic step told in the classroom's words: cells ``r4c7``, units ``row 4``/``box 6``.

>>> from sudokulab.models import parse_puzzle
>>> from sudokulab.logic import solve_logic
>>> run = solve_logic(parse_puzzle("4.3...1.2......."))
>>> step_text(run.steps[0], run.puzzle.geometry)
'r1c2 = 1: hidden single, the only place for 1 in box 1'
"""

from __future__ import annotations

from collections.abc import Iterable

from ..models import Geometry
from ..models.puzzle import symbol
from .step import Step


def cells_text(geom: Geometry, cells: Iterable[int]) -> str:
    """``r1c1, r1c2``."""
    return ", ".join(geom.cell_name(c) for c in cells)


def values_text(values: Iterable[int]) -> str:
    """``3, 8``."""
    return ", ".join(symbol(v) for v in values)


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _units(geom: Geometry, units: Iterable[int]) -> str:
    """``rows 2 and 7`` for units of one kind, else each unit's name."""
    named = [geom.units[u] for u in units]
    kinds = {u.kind for u in named}
    if len(named) > 1 and len(kinds) == 1:
        return f"{named[0].kind}s " + _and([str(u.number) for u in named])
    return _and([u.name for u in named])


def locked_words(
    geom: Geometry, unit: int, other: int, value: int, kind: str, cells: Iterable[int]
) -> str:
    """``locked candidates (pointing): in box 4, 7 lies only in row 5, so r5c7, r5c8 lose
    7`` (shared with the engine's narrative)."""
    head = f"locked candidates ({kind})" if kind else "locked candidates"
    v, cells = symbol(value), list(cells)
    lose = "loses" if len(cells) == 1 else "lose"
    return (
        f"{head}: in {geom.units[unit]}, {v} lies only in {geom.units[other]}, so "
        f"{cells_text(geom, cells)} {lose} {v}"
    )


def _with(geom: Geometry, cell: int, masks: dict[int, tuple[int, ...]] | None) -> str:
    name = geom.cell_name(cell)
    return f"{name} ({values_text(masks[cell])})" if masks and cell in masks else name


def step_text(step: Step, geom: Geometry, masks: dict[int, tuple[int, ...]] | None = None) -> str:
    """One line for a step; ``masks`` (cell -> candidates before the step) lets wings and
    chains show the candidates of their cells."""
    t, cells, values = step.technique, step.cells, step.values
    losing = sorted({c for c, _ in step.removed})
    lost = cells_text(geom, losing)
    lose = "loses" if len(losing) == 1 else "lose"
    if t == "naked single":
        name, v = geom.cell_name(cells[0]), symbol(values[0])
        return f"{name} = {v}: naked single, the only candidate left in {name}"
    if t == "hidden single":
        name, v = geom.cell_name(cells[0]), symbol(values[0])
        return f"{name} = {v}: hidden single, the only place for {v} in {geom.units[step.units[0]]}"
    if t == "locked candidates":
        return locked_words(geom, step.units[0], step.cover[0], values[0], step.kind, losing)
    if t.startswith("naked "):
        unit = geom.units[step.units[0]]
        return (
            f"{t}: in {unit}, {_and([geom.cell_name(c) for c in cells])} hold only "
            f"{_and([symbol(v) for v in values])}, so {lost} {lose} them"
        )
    if t.startswith("hidden "):
        unit = geom.units[step.units[0]]
        return (
            f"{t}: in {unit}, {_and([symbol(v) for v in values])} fit only in "
            f"{_and([geom.cell_name(c) for c in cells])}, so those cells lose their other "
            "candidates"
        )
    if t in ("X-wing", "swordfish", "jellyfish"):
        v = symbol(values[0])
        base, cover = _units(geom, step.units), _units(geom, step.cover)
        return (
            f"{t} on {v} in {base}, {cover}: in those {geom.units[step.units[0]].kind}s {v} "
            f"lies only in those {geom.units[step.cover[0]].kind}s, so {lost} {lose} {v}"
        )
    if t in ("XY-wing", "XYZ-wing"):
        pivot, a, b = (_with(geom, c, masks) for c in cells)
        z = symbol(values[0])
        # the XYZ-wing's pivot holds z too, so the cells that lose it see all three
        why, seeing = (
            ("whichever the pivot is, one pincer is", "both pincers")
            if t == "XY-wing"
            else ("one of the three is", "all three")
        )
        return (
            f"{t}: pivot {pivot} with pincers {a} and {b}: {why} {z}, so {lost} "
            f"(seeing {seeing}) {lose} {z}"
        )
    if t == "W-wing":
        p, q, s, e = (geom.cell_name(c) for c in cells)
        y, x = symbol(values[0]), symbol(values[1])
        return (
            f"W-wing: {p} and {q} hold only {x} and {y}; {x} in {geom.units[step.units[0]]} is "
            f"at {s} or {e}, seeing one each, so one of {p}, {q} is {y}: {lost} {lose} {y}"
        )
    if t == "simple colouring":
        v = symbol(values[0])
        one = cells_text(geom, (c for c, k in zip(cells, step.links, strict=True) if k == 0))
        two = cells_text(geom, (c for c, k in zip(cells, step.links, strict=True) if k == 1))
        head = f"simple colouring on {v}: strong links colour {one} one way and {two} the other"
        if step.kind == "wrap":
            return f"{head}; two cells of one colour see each other, so {lost} {lose} {v}"
        see = "sees" if len(losing) == 1 else "see"
        return f"{head}; {lost} {see} both colours, so {lose} {v}"
    if t == "X-chain":
        v = symbol(values[0])
        chain = geom.cell_name(cells[0]) + "".join(
            f" {link} {geom.cell_name(c)}" for link, c in zip(step.links, cells[1:], strict=True)
        )
        return (
            f"X-chain on {v}: {chain} (= one of the two holds {v}, - not both): one end holds "
            f"{v}, so {lost} {lose} {v}"
        )
    if t == "XY-chain":
        z = symbol(values[0])
        chain = " - ".join(_with(geom, c, masks) for c in cells)
        return (
            f"XY-chain: {chain}: if {geom.cell_name(cells[0])} is not {z} the chain forces "
            f"{geom.cell_name(cells[-1])} to be {z}, so {lost} {lose} {z}"
        )
    if t == "contradiction":
        if cells:
            return f"contradiction: {geom.cell_name(cells[0])} has no candidates left"
        unit = geom.units[step.units[0]]
        return f"contradiction: {symbol(values[0])} has no place left in {unit}"
    if t == "stalled":
        if step.kind:
            return "stopped: the step budget is spent"
        return "stalled: no technique of the ladder applies; the rest needs search"
    raise ValueError(f"unknown technique {t!r}")
