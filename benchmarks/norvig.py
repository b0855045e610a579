"""A baseline measured in the same run: Peter Norvig's constraint-propagation solver.

Re-written here from his published algorithm (norvig.com/sudoku.html; pytudes, MIT):
a dict from square to a string of possible digits, ``assign`` and ``eliminate`` with the
two rules (a square with one value removes it from its peers; a unit with one place for
a value puts it there), then depth-first search on the square with fewest candidates,
copying the dict at every guess. It is the classic pure-Python reference point.
"""

from __future__ import annotations

DIGITS = "123456789"
ROWS = "ABCDEFGHI"
SQUARES = [r + c for r in ROWS for c in DIGITS]
UNITLIST = (
    [[r + c for c in DIGITS] for r in ROWS]
    + [[r + c for r in ROWS] for c in DIGITS]
    + [
        [r + c for r in rs for c in cs]
        for rs in ("ABC", "DEF", "GHI")
        for cs in ("123", "456", "789")
    ]
)
UNITS = {s: [u for u in UNITLIST if s in u] for s in SQUARES}
PEERS = {s: set(sum(UNITS[s], [])) - {s} for s in SQUARES}


def solve(grid: str) -> str | None:
    """The solution of an 81-character puzzle as a string of digits, or None."""
    values = {s: DIGITS for s in SQUARES}
    for s, d in zip(SQUARES, grid, strict=True):
        if d in DIGITS and not assign(values, s, d):
            return None
    result = search(values)
    return "".join(result[s] for s in SQUARES) if result else None


def assign(values: dict[str, str], s: str, d: str) -> dict[str, str] | None:
    """Eliminate every other value from square s."""
    others = values[s].replace(d, "")
    if all(eliminate(values, s, d2) for d2 in others):
        return values
    return None


def eliminate(values: dict[str, str], s: str, d: str) -> dict[str, str] | None:
    """Remove d from square s, propagating both rules; None on a contradiction."""
    if d not in values[s]:
        return values
    values[s] = values[s].replace(d, "")
    if not values[s]:
        return None
    if len(values[s]) == 1:
        d2 = values[s]
        if not all(eliminate(values, s2, d2) for s2 in PEERS[s]):
            return None
    for u in UNITS[s]:
        places = [s2 for s2 in u if d in values[s2]]
        if not places:
            return None
        if len(places) == 1 and not assign(values, places[0], d):
            return None
    return values


def search(values: dict[str, str] | None) -> dict[str, str] | None:
    """Depth-first search on the square with the fewest candidates."""
    if values is None:
        return None
    if all(len(values[s]) == 1 for s in SQUARES):
        return values
    _, s = min((len(values[s]), s) for s in SQUARES if len(values[s]) > 1)
    for d in values[s]:
        found = search(assign(values.copy(), s, d))
        if found:
            return found
    return None
