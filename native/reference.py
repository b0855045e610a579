"""The native engine, Python reference: candidates as bit masks, propagate, then guess.

This is the readable implementation a teacher can show; the compiled core must match it
solution for solution and count for count. What the engine does, exactly (its state, the
propagation levels, cages and rules, the cell and value orders, dom-wdeg's blame, pencil
marks, the search, backjumping, deadlines and budgets, the counters and the tracer's
protocol), is specified in docs/engine.md, "The native engine's semantics".
"""

from __future__ import annotations

import dataclasses
import time
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from math import comb
from typing import Any

from ..encodings.decompose import decompose
from .options import DEFAULTS, check
from .surface import (  # the surface both implementations share, named here as before
    BUDGET_SPENT,
    COMPLETE,
    COUNTERS,
    KEEP,
    TABLE_KINDS,
    TIMED_OUT,
    Cage,
    Outcome,
    steps_bound,
)

#: The levels named as constraint programming names them (their own root: docs/engine.md).
_CP_LEVELS = ("ac3", "gac", "sac")

#: How often (in guesses) the search looks at the clock; a power of two minus one.
_CLOCK_EVERY = 255

#: The most value sets one cage may have (C(size, cells)): more would not fit in memory.
MAX_COMBINATIONS = 1 << 20

#: A sum (SUM) of at most SUM_CELLS cells is pruned to exact support while the product
#: of its cells' candidate counts is at most SUM_TUPLES, on bounds beyond (the compiled
#: core has the same numbers).
SUM_CELLS, SUM_TUPLES = 32, 1024

#: The most value sets a sandwich's tables may hold; a line with more is checked only.
SANDWICH_SETS = 1 << 16


@dataclass(frozen=True)
class Tables:
    """Everything about a grid shape the engine needs, derived once per shape."""

    size: int
    units: tuple[tuple[int, ...], ...]
    units_of: tuple[tuple[int, ...], ...]
    peers: tuple[tuple[int, ...], ...]
    full: int  # mask with every value
    cages: tuple[tuple[int, ...], ...] = ()  # the cells of each cage
    combos: tuple[tuple[int, ...], ...] = ()  # each cage's value sets (masks), ascending
    cage_of: tuple[int, ...] | None = None  # each cell's cage, -1 for none; None: no cages
    #: Locked candidates: (a, b, a's other cells, shared cells, b's other cells) for each
    #: ordered pair of units sharing two or more cells, in unit order.
    intersections: tuple[
        tuple[int, int, tuple[int, ...], tuple[int, ...], tuple[int, ...]], ...
    ] = ()
    rules: tuple[CompiledRule, ...] = ()  # the variant rules, compiled (see "Rules")
    rules_of: tuple[tuple[int, ...], ...] = ()  # each cell's compiled rules, ascending
    unary: tuple[int, ...] | None = None  # each cell's mask the rules allow; None: no rules


def _bits(mask: int) -> list[int]:
    """The single bits of a mask, lowest first."""
    out = []
    while mask:
        out.append(mask & -mask)
        mask &= mask - 1
    return out


def gac_filter(domains: list[int]) -> tuple[list[int], list[int]] | None:
    """Régin's filtering of one AllDifferent: each variable's domain (a mask) keeps the
    values some maximum matching gives it; with the matching found, as one bit per
    variable. None when no matching covers every variable (the constraint fails).

    The variable-value graph has an edge (x, v) for each value v in x's domain. A
    maximum matching is grown by augmenting paths; it is oriented x -> v along the
    matching and v -> x along every other edge. An edge is in some maximum matching
    exactly when it is in this one, or both its ends lie in one strongly connected
    component (an even alternating cycle, found with Tarjan's algorithm), or it lies on
    an even alternating path from a value no variable is matched to (its value end is
    reachable from such a free value); every other edge is removed.

    >>> gac_filter([0b011, 0b011, 0b111])  # x3 cannot take 1 or 2: both go to x1, x2
    ([3, 3, 4], [2, 1, 4])
    >>> gac_filter([0b1, 0b1]) is None
    True
    """
    n = len(domains)
    owner: dict[int, int] = {}  # value bit -> the variable matched to it
    match = [0] * n

    def augment(x: int, seen: set[int]) -> bool:
        """Match x, re-matching others along an augmenting path if need be."""
        for b in _bits(domains[x]):
            if b not in seen:
                seen.add(b)
                if b not in owner or augment(owner[b], seen):
                    owner[b], match[x] = x, b
                    return True
        return False

    for x in range(n):
        if not augment(x, set()):
            return None
    # Vertices: variables 0..n-1, values n + (bit index); out-edges as described above.
    values = 0
    for d in domains:
        values |= d
    vid = {b: n + b.bit_length() - 1 for b in _bits(values)}
    out: dict[int, list[int]] = {x: [vid[match[x]]] for x in range(n)}
    for b, v in vid.items():
        out[v] = [x for x in range(n) if domains[x] & b and match[x] != b]
    # Values reachable from a free value along alternating paths.
    reach = {v for b, v in vid.items() if b not in owner}
    stack = list(reach)
    while stack:
        for w in out[stack.pop()]:
            if w not in reach:
                reach.add(w)
                stack.append(w)
    comp = _tarjan(out)
    kept = []
    for x in range(n):
        keep = match[x]
        for b in _bits(domains[x] & ~match[x]):
            if comp[x] == comp[vid[b]] or vid[b] in reach:
                keep |= b
        kept.append(keep)
    return kept, match


def _tarjan(out: dict[int, list[int]]) -> dict[int, int]:
    """Tarjan's strongly connected components: each vertex's component number."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    comp: dict[int, int] = {}
    stack: list[int] = []

    def visit(v: int) -> None:
        """Number v, explore its successors, close its component if v is its root."""
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in out[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w not in comp:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            while True:
                w = stack.pop()
                comp[w] = v
                if w == v:
                    break

    for v in out:
        if v not in index:
            visit(v)
    return comp


def check_budget(max_guesses: int | None) -> None:
    """TypeError or ValueError for a guess budget that is not None or an int >= 0.

    The compiled core raises the same errors with the same messages.
    """
    if max_guesses is None:
        return
    if not isinstance(max_guesses, int):
        raise TypeError(f"max_guesses must be an int or None, not {type(max_guesses).__name__}")
    if max_guesses < 0:
        raise ValueError(f"max_guesses must be at least 0, got {max_guesses}")


def check_candidates(candidates: Any, size: int, cells: int) -> list[int]:
    """One puzzle's pencil marks as a list of masks, or the compiled core's ValueError for
    a length that is not ``cells`` or a mask with a bit above ``size``."""
    masks = [int(m) for m in candidates]
    if len(masks) != cells:
        raise ValueError(f"candidates must hold {cells} masks a puzzle, got {len(masks)}")
    full = (1 << size) - 1
    for cell, m in enumerate(masks):
        if m & ~full:
            raise ValueError(f"puzzle 0: cell {cell}: candidates {m:#x} go beyond 1..{size}")
    return masks


def combinations_of(size: int, cells: int, total: int) -> tuple[int, ...]:
    """Every set of ``cells`` distinct values in 1..size adding up to ``total``, as masks."""
    if comb(size, cells) > MAX_COMBINATIONS:
        raise ValueError(f"a cage of {cells} cells in a {size}x{size} grid has too many value sets")
    return tuple(
        sum(1 << (v - 1) for v in values)
        for values in combinations(range(1, size + 1), cells)
        if sum(values) == total
    )


# -- variant rules: compiled once per shape into pair relations, sums, runs --------------

#: The compiled rule kinds (the compiled core's codes are their indexes).
PAIR, SUM, RUN, SANDWICH = 0, 1, 2, 3

_RELATIONS: dict[str, Any] = {
    "less": lambda r, x, y: x < y,
    "lessequal": lambda r, x, y: x <= y,
    "difference": lambda r, x, y: abs(x - y) == r.k,
    "notdifference": lambda r, x, y: abs(x - y) != r.k,
    "mindifference": lambda r, x, y: abs(x - y) >= r.k,
    "ratio": lambda r, x, y: x == r.r * y or y == r.r * x,
    "notratio": lambda r, x, y: x != r.r * y and y != r.r * x,
    "pairsum": lambda r, x, y: x + y == r.total,
    "notequal": lambda r, x, y: x != y,
}


@dataclass(frozen=True)
class CompiledRule:
    """One rule as the engine propagates it: ``kind`` (PAIR, SUM, RUN or SANDWICH),
    ``index`` (the rule's place in the puzzle's list), its ``cells``; a PAIR's
    ``supports`` (for each value v of the first cell the mask of the second's values it
    allows, index v-1, then the same from the second cell), a SUM's ``coefs`` (one per
    cell) and ``total``, a SANDWICH's ``total``. A SUM's ``groups`` partition its places
    (indexes into ``cells``) into cells of one coefficient that are peers of one another
    (see :func:`sum_groups`), a lone cell a group of one. ``exact``: a SUM pruned to exact
    support while its candidates are few (else on bounds), whose ``supports`` are then
    each cell's peers before it in the sum (bit j: its j-th cell); a SANDWICH propagated
    (else checked once its line is filled), whose ``supports`` are then its value sets
    (:func:`sandwich_sets`) and whose ``coefs`` say where those of k cells between the
    crusts begin (k = 0, 1, ...; the last is where they end)."""

    kind: int
    index: int
    cells: tuple[int, ...]
    coefs: tuple[int, ...] = ()
    total: int = 0
    supports: tuple[int, ...] = ()
    exact: bool = False
    groups: tuple[tuple[int, ...], ...] = ()


def compile_rules(
    size: int, rules: Any, peers: Any = None
) -> tuple[tuple[CompiledRule, ...], tuple[int, ...]]:
    """The rules as the engine propagates them, and each cell's unary mask (Parity, and a
    pair relation of a cell with itself); ValueError for a kind it does not know.
    ``peers`` (each cell's set of peers) tells which sandwich lines hold distinct values
    (only those are propagated) and which cells of a sum do; without it, sums are pruned
    on bounds and sandwiches checked only."""
    cells = size * size
    full = (1 << size) - 1
    unary = [full] * cells
    out: list[CompiledRule] = []
    for index, rule in enumerate(rules):
        kind = rule.kind
        for c in rule.cells:
            if not 0 <= c < cells:
                raise ValueError(f"rule {index + 1} ({rule.name}): cell {c} is outside the grid")
        if kind in _RELATIONS:
            holds = _RELATIONS[kind]
            a, b = rule.a, rule.b
            if a == b:
                unary[a] &= sum(1 << (v - 1) for v in range(1, size + 1) if holds(rule, v, v))
                continue
            values = range(1, size + 1)
            kept = {(v, w) for v in values for w in values if holds(rule, v, w)}
            supports = _pair_supports(size, kept)
            out.append(CompiledRule(PAIR, index, (a, b), supports=supports))
        elif kind == "parity":
            odd = rule.parity == "odd"
            unary[rule.cell] &= sum(1 << (v - 1) for v in range(1, size + 1) if v % 2 == odd)
        elif kind in ("sumequals", "littlekiller"):
            coef: dict[int, int] = {}
            if kind == "littlekiller":
                for c in rule.line:
                    coef[c] = coef.get(c, 0) + 1
                total = rule.total
            else:
                n = len(rule.targets)
                for i, c in enumerate(rule.targets):
                    coef[c] = coef.get(c, 0) + (10 ** (n - 1 - i) if rule.digits else 1)
                for c in rule.terms:
                    coef[c] = coef.get(c, 0) - 1
                total = 0
            kept = tuple(c for c in coef if coef[c])
            coefs = tuple(coef[c] for c in kept)
            groups = sum_groups(kept, coefs, peers)
            if peers is None or len(kept) > SUM_CELLS:
                out.append(CompiledRule(SUM, index, kept, coefs, total, groups=groups))
                continue
            # for each cell, its peers before it in the sum (bit j: the j-th cell)
            near = tuple(
                sum(1 << j for j in range(i) if kept[j] in peers[c]) for i, c in enumerate(kept)
            )
            out.append(CompiledRule(SUM, index, kept, coefs, total, near, True, groups))
        elif kind == "consecutive":
            if len(set(rule.line)) != len(rule.line):
                raise ValueError(f"rule {index + 1} ({rule.name}): a cell is listed twice")
            out.append(CompiledRule(RUN, index, tuple(rule.line)))
        elif kind == "sandwich":
            line = tuple(rule.line)
            sets = None
            if peers is not None and all(b in peers[a] for a, b in combinations(line, 2)):
                sets = sandwich_sets(size, len(line), rule.total)
            if sets is None:
                out.append(CompiledRule(SANDWICH, index, line, total=rule.total))
            else:
                starts, flat = sets
                out.append(CompiledRule(SANDWICH, index, line, starts, rule.total, flat, True))
        elif kind in TABLE_KINDS:  # no propagator of its own: its tables, as pairs
            for table in decompose(rule, size):
                if len(table.cells) == 1:
                    unary[table.cells[0]] &= sum(1 << (v - 1) for (v,) in table.allowed)
                    continue
                if len(table.cells) != 2:
                    raise ValueError(f"rule {index + 1} ({rule.name}): a table of three cells")
                supports = _pair_supports(size, table.allowed)
                out.append(CompiledRule(PAIR, index, table.cells, supports=supports))
        else:
            raise ValueError(f"the native engine does not propagate rule kind {kind!r}")
    return tuple(out), tuple(unary)


def _pair_supports(size: int, allowed: Any) -> tuple[int, ...]:
    """A PAIR's supports: for each value v of the first cell the mask of the second's
    values ``(v, w)`` in ``allowed`` (index v-1), then the same from the second cell."""
    values = range(1, size + 1)
    ab = tuple(sum(1 << (w - 1) for w in values if (v, w) in allowed) for v in values)
    ba = tuple(sum(1 << (v - 1) for v in values if (v, w) in allowed) for w in values)
    return ab + ba


def sum_groups(
    cells: tuple[int, ...], coefs: tuple[int, ...], peers: Any = None
) -> tuple[tuple[int, ...], ...]:
    """A sum's places (indexes into ``cells``) partitioned into groups of cells with one
    coefficient that are peers of one another (so hold distinct values), largest first:
    greedily, the largest group grown from each place in turn (adding, in the sum's order,
    each place of the coefficient that is a peer of every place so far), the first of the
    largest taken, until every place is in a group (a lone one in its own). Without
    ``peers`` every place is alone.

    >>> from sudokulab.models import geometry
    >>> peers = [set(p) for p in geometry(9).peers]
    >>> sum_groups((9, 18, 80, 79), (-1, -1, -1, -1), peers)  # r2c1 r3c1: column; r9c9 r9c8: row
    ((0, 1), (2, 3))
    """
    if peers is None:
        return tuple((i,) for i in range(len(cells)))
    left = list(range(len(cells)))
    out: list[tuple[int, ...]] = []
    while left:
        best: list[int] = []
        for seed in left:
            group = [seed]
            for i in left:
                if (
                    i != seed
                    and coefs[i] == coefs[seed]
                    and all(cells[i] in peers[cells[j]] for j in group)
                ):
                    group.append(i)
            if len(group) > len(best):
                best = group
        out.append(tuple(sorted(best)))
        left = [i for i in left if i not in best]
    return tuple(out)


def sandwich_sets(
    size: int, length: int, total: int
) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """A sandwich's value sets: for k = 0 .. length-2 cells between its crusts (1 and
    ``length``), every set of k distinct values other than the crusts adding up to
    ``total``, as masks, ascending; with where each k's sets begin (and where the last
    end). None when the line cannot hold both crusts once or the sets are too many."""
    if not 2 <= length <= size:
        return None
    values = [v for v in range(2, size + 1) if v != length]
    starts: list[int] = []
    flat: list[int] = []
    for k in range(length - 1):
        starts.append(len(flat))
        flat += sorted(_value_sets(values, k, total))
        if len(flat) > SANDWICH_SETS:
            return None
    starts.append(len(flat))
    return tuple(starts), tuple(flat)


def _value_sets(values: list[int], k: int, total: int) -> list[int]:
    """The sets of k distinct ``values`` (ascending) adding up to ``total``, as masks."""
    if k == 0:
        return [0] if total == 0 else []
    out = []
    for i, v in enumerate(values):
        rest = values[i + 1 :]
        # the k-1 smallest of the rest must still fit, the k-1 largest must still reach
        if v + sum(rest[: k - 1]) > total or len(rest) < k - 1:
            break
        if v + sum(rest[len(rest) - (k - 1) :]) < total:
            continue
        out += [m | 1 << (v - 1) for m in _value_sets(rest, k - 1, total - v)]
    return out


def prune_rule(rule: CompiledRule, masks: list[int], size: int) -> list[int] | None:
    """One pass of a rule's pruning: the new masks of its cells (in its order), or None
    when it leaves one empty or cannot hold (see "Rules" in docs/engine.md)."""
    cells = rule.cells
    if rule.kind == PAIR:
        a, b = cells
        sup = rule.supports
        mb = masks[b]
        na = 0
        for bit in _bits(masks[a]):
            if sup[bit.bit_length() - 1] & mb:
                na |= bit
        nb = 0
        for bit in _bits(mb):
            if sup[size + bit.bit_length() - 1] & na:
                nb |= bit
        return [na, nb] if na and nb else None
    if rule.kind == SUM:
        if rule.exact:
            return _sum_support(rule, [masks[c] for c in cells])
        return _sum_bounds(rule, [masks[c] for c in cells])
    if rule.kind == RUN:
        held = 0
        for c in cells:
            m = masks[c]
            if m and not m & (m - 1):
                if held & m:
                    return None  # two cells of the run hold one value
                held |= m
        now = [masks[c] if not masks[c] & (masks[c] - 1) else masks[c] & ~held for c in cells]
        n = len(cells)
        allowed = 0
        for low in range(size - n + 1):
            window = ((1 << n) - 1) << low
            union = 0
            for m in now:
                if not m & window:
                    break
                union |= m & window
            else:
                if union.bit_count() >= n:
                    allowed |= window
        out = [m & allowed for m in now]
        return out if all(out) else None
    if rule.exact:
        return _sandwich_support(rule, [masks[c] for c in cells])
    # SANDWICH on a line that may repeat values: checked once every cell holds one value
    if any(masks[c] & (masks[c] - 1) or not masks[c] for c in cells):
        return [masks[c] for c in cells]
    values = [masks[c].bit_length() for c in cells]
    high = len(cells)
    if 1 not in values or high not in values:
        return None
    i, j = sorted((values.index(1), values.index(high)))
    return [masks[c] for c in cells] if sum(values[i + 1 : j]) == rule.total else None


def _sum_bounds(rule: CompiledRule, ms: list[int]) -> list[int] | None:
    """A sum pruned on bounds that know distinctness: a group of s cells that are peers
    (:func:`sum_groups`) adds up to at least the s smallest values of its cells' union
    and to at least its cells' least values (and at most the greater of the like); each
    cell keeps the values for which the other groups' least and greatest contributions,
    and its own group's with the value, leave room (with the value v, the group's rest
    holds at least the s-1 smallest values of the union but v, and its other cells' least
    values). A lone cell is a group of one: its least and greatest value."""
    spans = []  # each group's coefficient, its sums, and its union's s-th value each way
    low = high = 0
    for group in rule.groups:
        union = least = most = 0
        for i in group:
            m = ms[i]
            if not m:
                return None
            union |= m
            least += (m & -m).bit_length()
            most += m.bit_length()
        values = [bit.bit_length() for bit in _bits(union)]
        s = len(group)
        if len(values) < s:
            return None  # s cells that differ cannot share fewer than s values
        small, large = sum(values[:s]), sum(values[-s:])
        lo, hi = max(least, small), min(most, large)
        if lo > hi:
            return None
        k = rule.coefs[group[0]]
        spans.append((k, lo, hi, least, most, small, large, values[s - 1], values[-s]))
        low += min(k * lo, k * hi)
        high += max(k * lo, k * hi)
    total = rule.total
    if not low <= total <= high:
        return None
    out = [0] * len(ms)
    for group, span in zip(rule.groups, spans, strict=True):
        k, lo, hi, least, most, small, large, t, u = span
        rest_low, rest_high = low - min(k * lo, k * hi), high - max(k * lo, k * hi)
        for i in group:
            m = ms[i]
            first, last = (m & -m).bit_length(), m.bit_length()
            keep = 0
            for bit in _bits(m):
                v = bit.bit_length()
                # the group's least and greatest sums with v in cell i
                a = max(v + least - first, small + max(0, v - t))
                b = min(v + most - last, large - max(0, u - v))
                if a > b:
                    continue
                if rest_low + min(k * a, k * b) <= total <= rest_high + max(k * a, k * b):
                    keep |= bit
            if not keep:
                return None
            out[i] = keep
    return out


def _sum_support(rule: CompiledRule, ms: list[int]) -> list[int] | None:
    """A sum whose candidates make at most SUM_TUPLES assignments, pruned to exact
    support: each cell keeps its values in the assignments (peers holding distinct
    values) that add up to the total; a larger one on bounds."""
    tuples = 1
    for m in ms:
        tuples *= m.bit_count()
    if tuples > SUM_TUPLES:
        return _sum_bounds(rule, ms)
    coefs, total, near = rule.coefs, rule.total, rule.supports
    n = len(ms)
    lo, hi = [0] * (n + 1), [0] * (n + 1)  # the least and greatest sums of cells i..
    for i in range(n - 1, -1, -1):
        a, b = coefs[i] * (ms[i] & -ms[i]).bit_length(), coefs[i] * ms[i].bit_length()
        lo[i], hi[i] = lo[i + 1] + min(a, b), hi[i + 1] + max(a, b)
    out = [0] * n
    chosen = [0] * n  # the walk's value (bit) in each cell so far

    def walk(i: int, rest: int) -> bool:
        """Every assignment of cells i.. that makes up ``rest``, into ``out``."""
        if i == n:
            if rest:
                return False
            for j in range(n):
                out[j] |= chosen[j]
            return True
        if not lo[i] <= rest <= hi[i]:
            return False
        taken = 0
        for bit in _bits(near[i]):
            taken |= chosen[bit.bit_length() - 1]
        found = False
        for bit in _bits(ms[i] & ~taken):
            chosen[i] = bit
            found |= walk(i + 1, rest - coefs[i] * bit.bit_length())
        return found

    return out if walk(0, total) else None


def _sandwich_support(rule: CompiledRule, ms: list[int]) -> list[int] | None:
    """A sandwich on a line of distinct values: each placement of its crusts (1 and the
    line's length, either way round) the candidates allow is kept when every cell
    outside holds another value and some value set of the cells between fits them (each
    cell meets it, their candidates cover it); each cell keeps its values in some kept
    placement (outside one, neither a crust nor a value every fitting set holds)."""
    n = len(ms)
    if not all(ms):
        return None
    one, top = 1, 1 << (n - 1)
    crust = one | top
    starts, sets = rule.coefs, rule.supports
    out = [0] * n
    # a cell with crust values only is a crust: no placement leaves it outside
    blocked = [x for x in range(n) if not ms[x] & ~crust]
    first = blocked[0] if blocked else n - 1
    last = blocked[-1] if blocked else 0
    # the values a cell outside a kept placement may hold, by its first and its second crust
    left, right = [0] * n, [0] * n
    for i in range(min(first, n - 2) + 1):
        if not ms[i] & crust:
            continue
        union = 0  # the candidates of the cells between i and j
        for j in range(i + 1, n):
            if j > i + 1:
                union |= ms[j - 1]
            if j < last:
                continue
            turn = (one if ms[i] & one and ms[j] & top else 0) | (
                top if ms[i] & top and ms[j] & one else 0
            )
            if not turn:
                continue
            fits, common, found = 0, -1, False
            for s in sets[starts[j - i - 1] : starts[j - i]]:
                if union & s == s and all(ms[x] & s for x in range(i + 1, j)):
                    fits, common, found = fits | s, common & s, True
            if not found:
                continue
            out[i] |= turn
            out[j] |= crust & ~turn if turn != crust else crust
            for x in range(i + 1, j):
                out[x] |= ms[x] & fits
            left[i] |= ~crust & ~common
            right[j] |= ~crust & ~common
    before = after = 0
    for x in range(n - 1, -1, -1):  # x lies outside a placement whose first crust is later
        out[x] |= ms[x] & before
        before |= left[x]
    for x in range(n):  # or whose second crust is earlier
        out[x] |= ms[x] & after
        after |= right[x]
    return out if all(out) else None


@lru_cache(maxsize=32)
def tables(
    size: int, units: tuple[tuple[int, ...], ...], cages: tuple[Cage, ...] = (), rules: tuple = ()
) -> Tables:
    """Peers and unit membership of every cell, for a size, its units, its cages and its
    variant rules (compiled, see :func:`compile_rules`)."""
    count = size * size
    units_of: list[list[int]] = [[] for _ in range(count)]
    peer_sets: list[set[int]] = [set() for _ in range(count)]
    for index, unit in enumerate(units):
        for cell in unit:
            units_of[cell].append(index)
            peer_sets[cell].update(unit)
    cage_of = [-1] * count
    for index, (cells, _total) in enumerate(cages):
        if not cells:
            raise ValueError(f"cage {index + 1} has no cells")
        for cell in cells:
            if not 0 <= cell < count:
                raise ValueError(f"cage {index + 1}: cell {cell} is outside the grid")
            if cage_of[cell] == index:
                raise ValueError(f"cage {index + 1}: cell {cell} is listed twice")
            if cage_of[cell] >= 0:
                raise ValueError(f"cell {cell} is in cages {cage_of[cell] + 1} and {index + 1}")
            cage_of[cell] = index
            peer_sets[cell].update(cells)
    peers = tuple(tuple(sorted(s - {c})) for c, s in enumerate(peer_sets))
    compiled, unary = compile_rules(size, rules, peer_sets)
    rules_of: list[list[int]] = [[] for _ in range(count)]
    for index, rule in enumerate(compiled):
        for cell in rule.cells:
            rules_of[cell].append(index)
    intersections = []
    for a, unit_a in enumerate(units):
        for b, unit_b in enumerate(units):
            shared = set(unit_a) & set(unit_b)
            if a != b and len(shared) >= 2:
                intersections.append((
                    a, b,
                    tuple(c for c in unit_a if c not in shared),
                    tuple(c for c in unit_a if c in shared),
                    tuple(c for c in unit_b if c not in shared),
                ))  # fmt: skip
    return Tables(
        size,
        units,
        tuple(map(tuple, units_of)),
        peers,
        (1 << size) - 1,
        tuple(tuple(cells) for cells, _ in cages),
        tuple(combinations_of(size, len(cells), total) for cells, total in cages),
        tuple(cage_of) if cages else None,
        tuple(intersections),
        compiled,
        tuple(map(tuple, rules_of)),
        unary if rules else None,
    )


class Engine:
    """Propagate-and-backtrack search over one grid shape with fixed knobs (docs/engine.md
    has an example, with a tracer)."""

    def __init__(
        self,
        size: int,
        units: tuple[tuple[int, ...], ...],
        propagation: str = DEFAULTS["propagation"],
        order: str = DEFAULTS["order"],
        cages: tuple[Cage, ...] = (),
        trace: Any = None,
        *,
        values: str = DEFAULTS["values"],
        backjump: bool = DEFAULTS["backjump"],
        rules: tuple = (),
    ) -> None:
        check(propagation, order, values, backjump, "python", bool(rules))
        self.tables = tables(size, units, cages, tuple(rules))
        self._rules = tuple(rules)
        #: The compiled rules to prune again in the fixpoint under way (see "Rules").
        self._rdirty: set[int] = set()
        self.trace = trace  # None, or an object with the methods docs/engine.md lists
        self.propagation = propagation
        self.order = order
        self._deadline: float | None = None  # the search's, for sac's probes
        self._stopped = False  # a sac probe found the deadline passed
        self.values = values
        self.backjump = backjump
        self._cages = cages
        #: dom-wdeg: the constraint weights of the search under way (units, then cages);
        #: None in the engine a caller holds, which makes a weighted one per search.
        self._weights: list[int] | None = None
        self._place = {
            "none": self._place_check,
            "forward": self._place_forward,
            "singles": self._place_singles,
            "hidden": self._place_singles,
            "locked": self._place_singles,
            "ac3": self._place_ac3,
            "gac": self._place_gac,
            "sac": self._place_sac,
        }[propagation]
        # Units whose candidates changed are tracked under hidden and locked (hidden
        # singles) and under gac and sac (each is filtered again).
        self._hidden = propagation in ("hidden", "locked", "gac", "sac")
        t = self.tables
        #: What _place_queue reads, once: the peers, the units to mark (None: not
        #: tracked), each cell's cage and rules (None: none).
        self._queue_tables = (
            t.peers,
            t.units_of if self._hidden else None,
            t.cage_of,
            t.rules_of if t.unary is not None else None,
        )
        self._locked = propagation == "locked"
        # Under none every unplaced cell keeps all its candidates: mrv (and mrv-degree, see
        # docs/engine.md) picks the first unplaced cell, so skip the scan.
        if order == "dom-wdeg":
            self._choose = self._choose_wdeg
        elif propagation == "none" or order == "first":
            self._choose = self._choose_first
        else:
            self._choose = self._choose_degree if order == "mrv-degree" else self._choose_mrv
        # Under singles/hidden an unplaced cell always keeps two or more candidates, so a
        # cell with two is already the best MRV can find; under forward, one.
        self._fewest_possible = 1 if propagation in ("none", "forward") else 2

    # -- placing a value: none, forward, singles, hidden, locked -----------------------

    def _place_check(self, masks: list[int], placed: bytearray, cell: int, bit: int) -> bool:
        """Plain backtracking: place ``bit`` unless a peer already holds it."""
        t = self.tables
        for p in t.peers[cell]:
            if placed[p] and masks[p] == bit:
                if self.trace is not None:
                    self.trace.contradiction("clash", cell, -1, bit)
                return False
        if t.cage_of is not None and t.cage_of[cell] >= 0:
            k = t.cage_of[cell]
            held = bit
            for c in t.cages[k]:
                if placed[c]:
                    held |= masks[c]
            if not any(combo & held == held for combo in t.combos[k]):
                if self.trace is not None:
                    self.trace.contradiction("cage", cell, -1, bit, k)
                return False  # no value set of the cage holds these values
        if t.unary is not None:
            saved, masks[cell] = masks[cell], bit
            for r in t.rules_of[cell]:
                if prune_rule(t.rules[r], masks, t.size) is None:
                    masks[cell] = saved
                    if self.trace is not None:
                        self.trace.contradiction("rule", cell, -1, bit, t.rules[r].index)
                    return False
        masks[cell] = bit
        placed[cell] = 1
        return True

    def _place_forward(self, masks: list[int], placed: bytearray, cell: int, bit: int) -> bool:
        """Forward checking: place ``bit`` and remove it from every peer's candidates."""
        trace = self.trace
        if not masks[cell] & bit:
            if trace is not None:
                trace.contradiction("clash", cell, -1, bit)
            return False
        masks[cell] = bit
        placed[cell] = 1
        t = self.tables
        peers = t.peers[cell]
        if trace is not None:
            trace.eliminate(cell, bit, [p for p in peers if masks[p] & bit])
        for p in peers:
            m = masks[p]
            if m & bit:
                m ^= bit
                if not m:
                    if trace is not None:
                        trace.contradiction("empty", p, -1, bit)
                    return False
                masks[p] = m
        k = t.cage_of[cell] if t.cage_of is not None else -1
        if k >= 0 and not self._prune_cage(masks, placed, k, None, None, None):
            return False
        for r in t.rules_of[cell] if t.unary is not None else ():
            if not self._prune_rule(masks, placed, r, None, None, None):
                return False
        return True

    def _place_singles(self, masks: list[int], placed: bytearray, cell: int, bit: int) -> bool:
        """Place ``bit``, then naked (and, under ``hidden``, hidden) singles to a fixpoint."""
        trace = self.trace
        # Traced only: why each queued cell is there. The caller reported the first
        # placement (a given or a guess); a hidden single is keyed by its cell with its unit.
        why: dict[int, int] = {cell: -2} if trace is not None else {}
        self._rdirty = set()
        # dirty: units whose candidates changed (hidden-single suspects); dirty_cages:
        # cages whose cells changed (to prune again)
        return self._propagate(masks, placed, [(cell, bit)], set(), set(), why)

    def _propagate(
        self,
        masks: list[int],
        placed: bytearray,
        queue: list,
        dirty: set[int],
        dirty_cages: set[int],
        why: dict[int, int],
    ) -> bool:
        """Singles (hidden singles, cages, locked candidates, by level) to a fixpoint from
        a queue of placements and the units and cages to look at; False on a
        contradiction."""
        rdirty = self._rdirty
        while True:
            if not self._place_queue(masks, placed, queue, dirty, dirty_cages, why):
                return False
            if dirty:
                if not self._hidden_singles(masks, placed, dirty, queue, why):
                    return False
                dirty.clear()
                if queue:
                    continue
            if dirty_cages or rdirty:
                if not self._prune_marked(masks, placed, queue, dirty, dirty_cages):
                    return False
                continue
            if not self._locked:
                return True
            if not self._locked_candidates(masks, placed, queue, dirty, dirty_cages):
                return False
            if not (queue or dirty or dirty_cages or rdirty):
                return True  # nothing was locked: the fixpoint

    def _place_queue(
        self,
        masks: list[int],
        placed: bytearray,
        queue: list,
        dirty: set[int],
        dirty_cages: set[int],
        why: dict[int, int],
    ) -> bool:
        """Place each queued (cell, bit), last queued first, removing the bit from the
        cell's peers; a peer left with one candidate is queued (a naked single). The units
        (tracked under hidden, locked, gac and sac), cage and rules of every cell that
        changed are marked. False on a contradiction."""
        peers, units_of, cage_of, rules_of = self._queue_tables
        trace = self.trace
        rdirty = self._rdirty
        while queue:
            c, b = queue.pop()
            if placed[c] and masks[c] == b:
                continue
            if placed[c] or not masks[c] & b:
                if trace is not None:
                    trace.contradiction("clash", c, why.get(c, -1), b)
                return False
            masks[c] = b
            placed[c] = 1
            if trace is not None:
                unit = why.pop(c, -1)  # -2: the placement the caller reported
                if unit != -2:
                    trace.place(c, b, "hidden" if unit >= 0 else "naked", unit)
                trace.eliminate(c, b, [p for p in peers[c] if masks[p] & b])
            if units_of is not None:
                dirty.update(units_of[c])
            if cage_of is not None and cage_of[c] >= 0:
                dirty_cages.add(cage_of[c])
            if rules_of is not None:
                rdirty.update(rules_of[c])
            for p in peers[c]:
                m = masks[p]
                if m & b:
                    m ^= b
                    if not m:
                        if trace is not None:
                            trace.contradiction("empty", p, -1, b)
                        return False
                    masks[p] = m
                    if not m & (m - 1):  # one candidate left: a naked single
                        queue.append((p, m))
                    if units_of is not None:
                        dirty.update(units_of[p])
                    if cage_of is not None and cage_of[p] >= 0:
                        dirty_cages.add(cage_of[p])
                    if rules_of is not None:
                        rdirty.update(rules_of[p])
        return True

    def _prune_marked(
        self,
        masks: list[int],
        placed: bytearray,
        queue: list,
        dirty: set[int],
        dirty_cages: set[int],
    ) -> bool:
        """Prune the lowest marked cage, or when no cage is marked the lowest marked rule,
        queueing and marking as :meth:`_prune_cage` does; False on a contradiction."""
        if dirty_cages:
            k = min(dirty_cages)
            dirty_cages.discard(k)
            return self._prune_cage(masks, placed, k, queue, dirty, dirty_cages)
        r = min(self._rdirty)
        self._rdirty.discard(r)
        return self._prune_rule(masks, placed, r, queue, dirty, dirty_cages)

    def _prune_cage(
        self,
        masks: list[int],
        placed: bytearray,
        k: int,
        queue: list | None,
        dirty: set[int] | None,
        dirty_cages: set[int] | None,
    ) -> bool:
        """Keep in cage ``k``'s unplaced cells only the values its feasible value sets allow.

        False on a contradiction. With a ``queue`` (singles, hidden), a cell left with one
        candidate is queued and the units and cage it touches are marked for another look.
        """
        t = self.tables
        held = 0
        free: list[int] = []
        for c in t.cages[k]:
            if placed[c]:
                held |= masks[c]
            else:
                free.append(c)
        anywhere = 0
        for c in free:
            anywhere |= masks[c]
        allowed = 0
        feasible = False
        for combo in t.combos[k]:
            if combo & held != held:
                continue
            need = combo ^ held  # the values the unplaced cells must take
            if need & anywhere != need:
                continue
            if all(masks[c] & need for c in free):
                feasible = True
                allowed |= need
        trace = self.trace
        if not feasible:
            if trace is not None:
                trace.contradiction("cage", -1, -1, held, k)
            return False
        if trace is not None:
            removed = [(c, masks[c] & ~allowed) for c in free if masks[c] & ~allowed]
            if removed:
                trace.prune_cage(k, allowed, removed)
        for c in free:
            m = masks[c]
            if m & ~allowed:
                m &= allowed
                masks[c] = m  # never 0: every free cell meets each feasible set
                if queue is not None:
                    if not m & (m - 1):
                        queue.append((c, m))
                    if self._hidden:
                        dirty.update(t.units_of[c])
                    dirty_cages.add(k)
                    if t.unary is not None:
                        self._rdirty.update(t.rules_of[c])
        return True

    def _prune_rule(
        self,
        masks: list[int],
        placed: bytearray,
        r: int,
        queue: list | None,
        dirty: set[int] | None,
        dirty_cages: set[int] | None,
    ) -> bool:
        """One pass of compiled rule ``r``'s pruning (:func:`prune_rule`); False on a
        contradiction. With a ``queue`` (singles and up), a cell left with one candidate is
        queued and the units, cage and rules of every narrowed cell marked for another look.
        """
        t = self.tables
        rule = t.rules[r]
        new = prune_rule(rule, masks, t.size)
        trace = self.trace
        if new is None:
            if trace is not None:
                trace.contradiction("rule", -1, -1, 0, rule.index)
            return False
        removed = [
            (c, masks[c] & ~m) for c, m in zip(rule.cells, new, strict=True) if m != masks[c]
        ]
        if not removed:
            return True
        if trace is not None and hasattr(trace, "rule"):
            trace.rule(rule.index, removed)
        for c, gone in removed:
            m = masks[c] & ~gone  # never 0, and never a placed cell's: those hold one value
            masks[c] = m
            if queue is not None:
                if not m & (m - 1):
                    queue.append((c, m))
                if self._hidden:
                    dirty.update(t.units_of[c])
                if t.cage_of is not None and t.cage_of[c] >= 0:
                    dirty_cages.add(t.cage_of[c])
                self._rdirty.update(t.rules_of[c])
        return True

    def _locked_candidates(
        self, masks: list[int], placed: bytearray, queue: list, dirty: set, dirty_cages: set
    ) -> bool:
        """Remove every locked candidate, one pass over the intersections; False on a
        contradiction. A cell left with one candidate is queued, and the units and cages
        of every cell that lost one are marked for another look (the caller's fixpoint)."""
        t = self.tables
        trace = self.trace
        for a, b, a_only, shared, b_only in t.intersections:
            inside = outside = 0
            for c in shared:
                inside |= masks[c]
            for c in a_only:
                outside |= masks[c]
            locked = inside & ~outside  # values whose places in a are all shared with b
            if not locked:
                continue
            if trace is not None:
                for bit in _bits(locked):
                    cells = [c for c in b_only if not placed[c] and masks[c] & bit]
                    if cells:
                        trace.lock(a, b, bit, cells)
            for c in b_only:
                m = masks[c]
                if m & locked and not placed[c]:
                    m &= ~locked
                    if not m:
                        if trace is not None:
                            trace.contradiction("empty", c, -1, masks[c] & locked)
                        return False
                    masks[c] = m
                    if not m & (m - 1):
                        queue.append((c, m))
                    dirty.update(t.units_of[c])
                    if t.cage_of is not None and t.cage_of[c] >= 0:
                        dirty_cages.add(t.cage_of[c])
                    if t.unary is not None:
                        self._rdirty.update(t.rules_of[c])
        return True

    def _hidden_singles(
        self, masks: list[int], placed: bytearray, dirty: set[int], queue: list, why: dict
    ) -> bool:
        """Queue every value with one place left in a dirty unit; False on a contradiction.

        When tracing, ``why[cell]`` records the unit that made the cell a hidden single.
        """
        units = self.tables.units
        full = self.tables.full
        trace = self.trace
        # dom-wdeg blames the first contradiction met: units in order, as the core scans them
        for u in dirty if self._weights is None else sorted(dirty):
            once = twice = 0
            for c in units[u]:
                m = masks[c]
                twice |= once & m
                once |= m
            if once != full:  # some value has no place left in this unit
                if trace is not None:
                    missing = full & ~once
                    trace.contradiction("noplace", -1, u, missing & -missing)
                return False
            only = once & ~twice
            if only:
                for c in units[u]:
                    m = masks[c] & only
                    if m and not placed[c]:
                        if m & (m - 1):  # the only place for two values at once
                            if trace is not None:
                                trace.contradiction("noplace", c, u, m)
                            return False
                        queue.append((c, m))
                        if trace is not None:
                            why.setdefault(c, u)
        return True

    # -- the levels named as constraint programming names them: ac3, gac, sac ---------

    def _root_cp(
        self, masks: list[int], givens: list[int] | tuple[int, ...], marks: bool
    ) -> tuple[list[int], bytearray] | None:
        """The root under ac3, gac or sac: every given set at once, then one fixpoint
        (see docs/engine.md); None on a contradiction."""
        t = self.tables
        trace = self.trace
        placed = bytearray(len(masks))
        for cell, value in enumerate(givens):
            if not value:
                continue
            bit = 1 << (value - 1)
            if not masks[cell] & bit:
                if trace is not None:
                    trace.contradiction("clash", cell, -1, bit)
                return None  # pencil marks that exclude the given
            if trace is not None:
                trace.place(cell, bit, "given", -1)
            masks[cell] = bit
        singles = [c for c, m in enumerate(masks) if not m & (m - 1)]
        self._rdirty = set(range(len(t.rules)))
        if self.propagation == "ac3":
            narrowed = marks or t.unary is not None  # pencil marks, or rules
            if not narrowed:  # as under singles, a lone candidate no given made is not placed
                singles = [c for c, v in enumerate(givens) if v]
            # Textbook AC-3 starts from every arc; a cell with one value is assigned.
            for c in singles:
                placed[c] = 1
            arcs = deque((x, y) for y in range(len(masks)) for x in t.peers[y])
            if narrowed:
                cages = set(range(len(t.cages)))
            else:  # as under singles: the cages of the cells that changed
                cages = {t.cage_of[c] for c in singles if t.cage_of is not None}
                cages.discard(-1)
            ok = self._ac3(masks, placed, arcs, cages)
        else:
            why = {c: -2 for c, v in enumerate(givens) if v} if trace is not None else {}
            queue = [(c, masks[c]) for c in singles]
            dirty = set(range(len(t.units)))
            ok = self._propagate_gac(masks, placed, queue, dirty, set(range(len(t.cages))), why)
            if ok and self.propagation == "sac":
                ok = self._shave(masks, placed)
        return (masks, placed) if ok else None

    def _place_ac3(self, masks: list[int], placed: bytearray, cell: int, bit: int) -> bool:
        """AC-3: assign ``bit`` to ``cell``, queue the arcs into it, revise to a fixpoint.

        Strictly stronger than ``forward``; the same fixpoint as ``singles``."""
        if not masks[cell] & bit:
            if self.trace is not None:
                self.trace.contradiction("clash", cell, -1, bit)
            return False
        masks[cell] = bit
        placed[cell] = 1
        t = self.tables
        cages = set() if t.cage_of is None or t.cage_of[cell] < 0 else {t.cage_of[cell]}
        self._rdirty = set(t.rules_of[cell]) if t.unary is not None else set()
        return self._ac3(masks, placed, deque((p, cell) for p in t.peers[cell]), cages)

    def _ac3(self, masks: list[int], placed: bytearray, arcs: deque, cages: set[int]) -> bool:
        """AC-3 on the not-equal arcs (x, y) of every pair of peers, from a queue of arcs
        and the cages to prune; False on a contradiction.

        Revising x against y removes from x the value y holds when y has one candidate
        left (the only value of x without support in y); when x loses a value, every arc
        (z, x) into it but (y, x) is queued again (once: the queue is a set), and a cell
        left with one value is assigned (placed). When the queue is empty the cages whose
        cells changed are pruned as under ``singles``, their narrowed cells' arcs queued.
        """
        t = self.tables
        peers, cage_of, trace = t.peers, t.cage_of, self.trace
        rules_of = t.rules_of if t.unary is not None else None
        rdirty = self._rdirty
        queued = set(arcs)

        def narrowed(cells: tuple[int, ...], before: list[int]) -> None:
            """After a cage's or a rule's pruning: each of its cells that lost a value
            marks its cage and rules, is assigned when one value is left, and has the
            arcs into it queued."""
            for c, old in zip(cells, before, strict=True):
                m = masks[c]
                if m == old:
                    continue
                if cage_of is not None and cage_of[c] >= 0:
                    cages.add(cage_of[c])
                if rules_of is not None:
                    rdirty.update(rules_of[c])
                if not m & (m - 1):
                    placed[c] = 1
                    if trace is not None:
                        trace.place(c, m, "naked", -1)
                for z in peers[c]:
                    if (z, c) not in queued:
                        queued.add((z, c))
                        arcs.append((z, c))

        while True:
            while arcs:
                x, y = arcs.popleft()
                queued.discard((x, y))
                b = masks[y]
                if b & (b - 1) or not masks[x] & b:
                    continue  # every value of x has a support in y
                m = masks[x] ^ b
                if trace is not None:
                    trace.revise(x, y, b)
                if not m:
                    if trace is not None:
                        trace.contradiction("empty", x, -1, b)
                    return False
                masks[x] = m
                if not m & (m - 1):
                    placed[x] = 1
                    if trace is not None:
                        trace.place(x, m, "naked", -1)
                for z in peers[x]:
                    if z != y and (z, x) not in queued:
                        queued.add((z, x))
                        arcs.append((z, x))
                if cage_of is not None and cage_of[x] >= 0:
                    cages.add(cage_of[x])
                if rules_of is not None:
                    rdirty.update(rules_of[x])
            if not cages and rdirty:
                r = min(rdirty)
                rdirty.discard(r)
                cells = t.rules[r].cells
                before = [masks[c] for c in cells]
                if not self._prune_rule(masks, placed, r, None, None, None):
                    return False
                narrowed(cells, before)
                continue
            if not cages:
                return True
            k = min(cages)
            cages.discard(k)
            before = [masks[c] for c in t.cages[k]]
            if not self._prune_cage(masks, placed, k, None, None, None):
                return False
            narrowed(t.cages[k], before)

    def _place_gac(self, masks: list[int], placed: bytearray, cell: int, bit: int) -> bool:
        """Place ``bit``, then naked singles, cage pruning and GAC on every unit that
        changed, to a fixpoint. Strictly stronger than ``hidden``; incomparable with
        ``locked``."""
        why: dict[int, int] = {cell: -2} if self.trace is not None else {}
        self._rdirty = set()
        return self._propagate_gac(masks, placed, [(cell, bit)], set(), set(), why)

    def _propagate_gac(
        self,
        masks: list[int],
        placed: bytearray,
        queue: list,
        dirty: set[int],
        dirty_cages: set[int],
        why: dict[int, int],
    ) -> bool:
        """gac to a fixpoint from a queue of placements and the units and cages to look
        at: the queue first (naked singles, as under ``singles``), then the cages, then
        one unit at a time (lowest index first); False on a contradiction."""
        rdirty = self._rdirty
        while True:
            if not self._place_queue(masks, placed, queue, dirty, dirty_cages, why):
                return False
            if dirty_cages or rdirty:
                if not self._prune_marked(masks, placed, queue, dirty, dirty_cages):
                    return False
                continue
            if not dirty:
                return True
            u = min(dirty)
            dirty.discard(u)
            if not self._gac_unit(masks, placed, u, queue, dirty, dirty_cages):
                return False

    def _gac_unit(
        self,
        masks: list[int],
        placed: bytearray,
        u: int,
        queue: list,
        dirty: set[int],
        dirty_cages: set[int],
    ) -> bool:
        """Régin's filtering of unit ``u``'s AllDifferent over its unplaced cells (see
        :func:`gac_filter`): a cell left with one value is queued, the other units and the
        cage of every cell that lost one marked; False when no matching covers the cells."""
        t = self.tables
        cells = [c for c in t.units[u] if not placed[c]]
        if not cells:
            return True
        filtered = gac_filter([masks[c] for c in cells])
        trace = self.trace
        if filtered is None:
            if trace is not None:
                trace.contradiction("nomatch", -1, u, 0)
            return False
        kept, matching = filtered
        removed = [(c, masks[c] & ~m) for c, m in zip(cells, kept, strict=True) if m != masks[c]]
        if not removed:
            return True
        if trace is not None:
            trace.gac(u, tuple(zip(cells, matching, strict=True)), removed)
        for c, gone in removed:
            m = masks[c] & ~gone
            masks[c] = m
            if not m & (m - 1):
                queue.append((c, m))
            dirty.update(v for v in t.units_of[c] if v != u)
            if t.cage_of is not None and t.cage_of[c] >= 0:
                dirty_cages.add(t.cage_of[c])
            if t.unary is not None:
                self._rdirty.update(t.rules_of[c])
        return True

    def _place_sac(self, masks: list[int], placed: bytearray, cell: int, bit: int) -> bool:
        """Place ``bit`` with gac, then shave to singleton arc consistency. Strictly
        stronger than ``gac`` and than ``locked``."""
        return self._place_gac(masks, placed, cell, bit) and self._shave(masks, placed)

    def _shave(self, masks: list[int], placed: bytearray) -> bool:
        """Singleton arc consistency over a gac fixpoint, probing in the order
        docs/engine.md gives; False on a contradiction, or (``_stopped``) when the deadline
        passes: the clock is read after every probe, a node's shaving can take seconds."""
        t = self.tables
        trace = self.trace
        while True:
            removed = False
            for c in range(len(masks)):
                for b in _bits(masks[c]):
                    if placed[c] or not masks[c] & b:
                        continue  # placed, or removed, since the sweep reached the cell
                    self.trace = None  # a probe's own steps are not the search's
                    try:
                        failed = not self._place_gac(masks[:], placed[:], c, b)
                    finally:
                        self.trace = trace
                    if self._deadline is not None and time.perf_counter() > self._deadline:
                        self._stopped = True  # the search tells it from a contradiction
                        return False
                    if trace is not None:
                        trace.probe(c, b, failed)
                    if not failed:
                        continue
                    removed = True
                    m = masks[c] & ~b  # never 0: an unplaced cell has two values or more
                    masks[c] = m
                    queue = [] if m & (m - 1) else [(c, m)]
                    cages = set() if t.cage_of is None or t.cage_of[c] < 0 else {t.cage_of[c]}
                    self._rdirty = set(t.rules_of[c]) if t.unary is not None else set()
                    if not self._propagate_gac(masks, placed, queue, set(t.units_of[c]), cages, {}):
                        return False
            if not removed:
                return True

    # -- choosing the cell to branch on ------------------------------------------------

    def _choose_first(self, masks: list[int], placed: bytearray) -> int:
        """The first unplaced cell, or -1 when every cell is placed."""
        return placed.find(0)

    def _choose_mrv(self, masks: list[int], placed: bytearray) -> int:
        """The unplaced cell with the fewest candidates (lowest index on ties), or -1."""
        best = placed.find(0)
        if best < 0:
            return -1
        fewest = masks[best].bit_count()
        floor = self._fewest_possible
        if fewest <= floor:
            return best
        for c in range(best + 1, len(masks)):
            if not placed[c]:
                k = masks[c].bit_count()
                if k < fewest:
                    best, fewest = c, k
                    if k <= floor:
                        break
        return best

    def _choose_degree(self, masks: list[int], placed: bytearray) -> int:
        """The unplaced cell with the fewest candidates; on ties the one with the most
        unplaced peers, then the lowest index; -1 when every cell is placed."""
        peers = self.tables.peers
        best, fewest, most = -1, 0, -1
        for c, m in enumerate(masks):
            if placed[c]:
                continue
            k = m.bit_count()
            if best >= 0 and k > fewest:
                continue
            degree = len(peers[c]) - sum(placed[p] for p in peers[c])
            if best < 0 or k < fewest or degree > most:
                best, fewest, most = c, k, degree
        return best

    def _choose_wdeg(self, masks: list[int], placed: bytearray) -> int:
        """dom/wdeg: the unplaced cell with the least candidates per weighted degree (the
        weights of its constraints that still have another unplaced cell), compared by
        cross-multiplication; the lowest index on ties; -1 when every cell is placed."""
        t = self.tables
        weights = self._weights
        assert weights is not None  # only the per-search engine of _weighted chooses so
        nunits = len(t.units)
        live = [sum(not placed[c] for c in unit) >= 2 for unit in t.units]
        live += [sum(not placed[c] for c in cage) >= 2 for cage in t.cages]
        best, fewest, heaviest = -1, 0, 0
        for c, m in enumerate(masks):
            if placed[c]:
                continue
            wdeg = sum(weights[u] for u in t.units_of[c] if live[u])
            if t.cage_of is not None and t.cage_of[c] >= 0 and live[nunits + t.cage_of[c]]:
                wdeg += weights[nunits + t.cage_of[c]]
            k = m.bit_count()
            # k / wdeg < fewest / heaviest, without division (a weighted degree may be 0)
            if best < 0 or k * heaviest < fewest * wdeg:
                best, fewest, heaviest = c, k, wdeg
        return best

    def _least_constraining(
        self, masks: list[int], placed: bytearray, cell: int, untried: int
    ) -> int:
        """lcv: the value of ``untried`` in the fewest unplaced peers' candidates (the one
        that removes the fewest), the lowest on ties."""
        open_peers = [p for p in self.tables.peers[cell] if not placed[p]]
        best, fewest = 0, -1
        for bit in _bits(untried):
            k = sum(1 for p in open_peers if masks[p] & bit)
            if fewest < 0 or k < fewest:
                best, fewest = bit, k
        return best

    def _weighted(self) -> Engine:
        """An engine of the same knobs for one dom-wdeg search: fresh weights (each 1), and
        a tracer that raises the weight of each contradiction's constraint."""
        t = self.tables
        weights = [1] * (len(t.units) + len(t.cages))
        engine = Engine(
            t.size, t.units, self.propagation, self.order, self._cages,
            _Blame(t, weights, self.trace), values=self.values, backjump=self.backjump,
            rules=self._rules,
        )  # fmt: skip
        engine._weights = weights
        return engine

    # -- search ------------------------------------------------------------------------

    def root(
        self, givens: list[int] | tuple[int, ...], candidates: Any = None
    ) -> tuple[list[int], bytearray] | None:
        """The state with every given placed and propagated (from the pencil marks
        ``candidates`` when given, see docs/engine.md), or None on a contradiction."""
        t = self.tables
        trace = self.trace
        placed = bytearray(len(givens))
        if candidates is None:
            masks = [t.full] * len(givens)
        else:
            masks = check_candidates(candidates, t.size, len(givens))
            for cell, m in enumerate(masks):
                value = givens[cell]
                if not m or (value and not m >> (value - 1) & 1):
                    if trace is not None:
                        if m:
                            trace.contradiction("clash", cell, -1, 1 << (value - 1))
                        else:
                            trace.contradiction("empty", cell, -1, 0)
                    return None  # no candidate, or a given its marks exclude
        if t.unary is not None:  # the unary rules narrow the cells before any given
            for cell, value in enumerate(givens):
                m = masks[cell] & t.unary[cell]
                if not m or (value and not m >> (value - 1) & 1):
                    if trace is not None:
                        if m:
                            trace.contradiction("clash", cell, -1, 1 << (value - 1))
                        else:
                            trace.contradiction("rule", cell, -1, 0, -1)
                    return None
                masks[cell] = m
        if self.propagation in _CP_LEVELS:
            return self._root_cp(masks, givens, candidates is not None)
        if self.propagation in ("singles", "hidden", "locked"):
            narrowed = candidates is not None or t.unary is not None
            return self._root_singles(masks, placed, givens, narrowed)
        for cell, value in enumerate(givens):
            if value and not placed[cell]:
                if trace is not None:
                    trace.place(cell, 1 << (value - 1), "given", -1)
                if not self._place(masks, placed, cell, 1 << (value - 1)):
                    return None
            elif value and masks[cell] != 1 << (value - 1):
                if trace is not None:
                    trace.contradiction("clash", cell, -1, 1 << (value - 1))
                return None  # propagation placed a different value here
        if t.unary is not None and self.propagation == "forward":
            for r in range(len(t.rules)):  # every rule once, as after a placement
                if not self._prune_rule(masks, placed, r, None, None, None):
                    return None
        return masks, placed

    def _root_singles(
        self,
        masks: list[int],
        placed: bytearray,
        givens: list[int] | tuple[int, ...],
        narrowed: bool,
    ) -> tuple[list[int], bytearray] | None:
        """The root under singles, hidden and locked: every given placed first, each
        removing its value from its peers and marking what changed (the units, cages and
        rules of its cell and of the peers it narrowed, as a placement marks them), then
        the singles (and the rest of the level) to a fixpoint; ``narrowed`` (pencil marks
        or unary rules): every unit, cage and rule looked at, as if each had just changed.
        The fixpoint is the one placing the givens one after another reaches, each with its
        singles (these rules only remove candidates: the order changes nothing that is
        left), so the search and its counters are the same; told this way, a trace gives
        the givens first and never calls a given's cell a single."""
        t = self.tables
        trace = self.trace
        peers, units_of, cage_of, rules_of = self._queue_tables
        dirty: set[int] = set()
        dirty_cages: set[int] = set()
        rdirty = self._rdirty = set()
        narrowed_cells: set[int] = set()

        def mark(c: int) -> None:
            if units_of is not None:
                dirty.update(units_of[c])
            if cage_of is not None and cage_of[c] >= 0:
                dirty_cages.add(cage_of[c])
            if rules_of is not None:
                rdirty.update(rules_of[c])

        for cell, value in enumerate(givens):
            if not value:
                continue
            bit = 1 << (value - 1)
            if trace is not None:
                trace.place(cell, bit, "given", -1)
            if not masks[cell] & bit:
                if trace is not None:
                    trace.contradiction("clash", cell, -1, bit)
                return None
            masks[cell] = bit
            placed[cell] = 1
            if trace is not None:
                trace.eliminate(cell, bit, [p for p in peers[cell] if masks[p] & bit])
            mark(cell)
            for p in peers[cell]:
                if masks[p] & bit:
                    masks[p] ^= bit
                    if not masks[p]:
                        if trace is not None:
                            trace.contradiction("empty", p, -1, bit)
                        return None
                    mark(p)
                    narrowed_cells.add(p)
        if narrowed:
            dirty.update(range(len(t.units)) if units_of is not None else ())
            dirty_cages.update(range(len(t.cages)))
            rdirty.update(range(len(t.rules)))
            narrowed_cells.update(range(len(masks)))
        # the naked singles the givens made (a cell born with one candidate, on a 1x1
        # grid, is the search's, as when the givens come one by one), lowest cell first
        queue = [
            (c, masks[c])
            for c in sorted(narrowed_cells, reverse=True)
            if not placed[c] and not masks[c] & (masks[c] - 1)
        ]
        if not self._propagate(masks, placed, queue, dirty, dirty_cages, {}):
            return None
        return masks, placed

    def search(
        self,
        givens: list[int] | tuple[int, ...],
        limit: int | None = 1,
        deadline: float | None = None,
        keep: int = KEEP,
        max_guesses: int | None = None,
        candidates: Any = None,
        steps: bool | int = False,
    ) -> Outcome:
        """Count up to ``limit`` solutions (None: all) before ``deadline`` (perf_counter)
        and within ``max_guesses`` guesses (None: no budget; see docs/engine.md),
        from the pencil marks ``candidates`` (one mask per cell) when given; with
        ``steps``, the outcome's ``steps`` record every placement tried, up to
        :data:`~sudokulab.native.surface.STEPS_MAX` of them (or ``steps`` when an int;
        past the bound the record stops, the search goes on and ``steps`` is None).

        The first ``keep`` solutions are returned as grids; all are counted. A dead end
        goes back one level, or with backjumping to the level its conflicts name
        (:class:`_Backtracking`, :class:`_Backjumping`).
        """
        if limit is not None and limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        if keep < 0:
            raise ValueError(f"keep must be at least 0, got {keep}")
        check_budget(max_guesses)
        if steps:
            recorder = self.trace = _Steps(self.trace, steps_bound(steps))
            try:
                out = self.search(givens, limit, deadline, keep, max_guesses, candidates)
            finally:
                self.trace = recorder.inner
            record = None if recorder.over else tuple(recorder.steps)
            return dataclasses.replace(out, steps=record)
        if self.order == "dom-wdeg" and self._weights is None:
            return self._weighted().search(givens, limit, deadline, keep, max_guesses, candidates)
        solutions: list[tuple[int, ...]] = []
        found = nodes = guesses = 0
        self._deadline, self._stopped = deadline, False  # sac's probes read the clock
        start = self.root(givens, candidates)
        if start is None:
            return Outcome(
                solutions=(), count=0, complete=not self._stopped, timed_out=self._stopped,
                nodes=0, guesses=0, backtracks=0,
            )  # fmt: skip
        # A frame is [masks, placed, cell, candidates not yet tried, culprits, conflict
        # set, forced] of the cell chosen at a node (culprits and conflict set are
        # backjumping's, see _Backjumping); forced: the cell has one candidate, so placing
        # it is propagation, not a guess (see Statistics in docs/engine.md).
        stack: list[list] = []
        dead_ends = (_Backjumping if self.backjump else _Backtracking)(self, stack)
        place, dead_end, choose = dead_ends.place, dead_ends.dead_end, self._choose
        clock = time.perf_counter
        budget = -1 if max_guesses is None else max_guesses  # -1: guesses never equal it
        trace = self.trace
        lcv = self.values == "lcv"

        def outcome(**flags: bool) -> Outcome:
            return Outcome(
                solutions=tuple(solutions), count=found, nodes=nodes, guesses=guesses,
                backtracks=dead_ends.backtracks, backjumps=dead_ends.backjumps,
                skipped=dead_ends.skipped, **flags,
            )  # fmt: skip

        masks, placed = start
        while True:
            # (masks, placed) is a consistent state: a node.
            nodes += 1
            cell = choose(masks, placed)
            if trace is not None:
                trace.node(len(stack))
                if cell < 0:
                    trace.solution(masks)
            if cell < 0:
                found += 1
                if found <= keep:
                    solutions.append(tuple(m.bit_length() for m in masks))
                if limit is not None and found >= limit:
                    return outcome(complete=False)
                dead_ends.solution()
            else:
                m = masks[cell]
                stack.append([masks, placed, cell, m, dead_ends.culprits, 0, not m & (m - 1)])
            # Find the next candidate whose propagation succeeds.
            while stack:
                frame = stack[-1]
                untried = frame[3]
                if not untried:
                    dead_end()
                    continue
                if frame[6]:  # the only candidate left: no guess, no budget, no clock
                    bit = untried
                    if trace is not None:
                        trace.forced(frame[2], bit, len(stack))
                else:
                    if guesses == budget:  # the next guess would be one too many
                        return outcome(complete=False, budget_spent=True)
                    bit = untried & -untried
                    if lcv and untried != bit:
                        bit = self._least_constraining(frame[0], frame[1], frame[2], untried)
                    guesses += 1
                    if trace is not None:
                        trace.guess(frame[2], bit, frame[0][frame[2]], len(stack))
                    if not guesses & _CLOCK_EVERY and deadline is not None and clock() > deadline:
                        return outcome(complete=False, timed_out=True)
                untried ^= bit
                frame[3] = untried
                if untried:
                    masks, placed = frame[0][:], frame[1][:]
                else:  # last candidate: the frame's state is never needed again
                    masks, placed = frame[0], frame[1]
                if place(masks, placed, frame[2], bit):
                    break
                if self._stopped:
                    return outcome(complete=False, timed_out=True)
            else:
                return outcome(complete=True)

    def _place_blamed(
        self,
        masks: list[int],
        placed: bytearray,
        culprits: list[int],
        cell: int,
        bit: int,
        level: int,
    ) -> int | None:
        """Place ``bit`` in ``cell`` at ``level`` as ``none`` or ``forward`` does, keeping
        each cell's culprits: None, or on a contradiction the levels it rests on."""
        t = self.tables
        trace = self.trace
        me = 1 << level
        k = t.cage_of[cell] if t.cage_of is not None else -1
        if self.propagation == "none":
            clash = [culprits[p] for p in t.peers[cell] if placed[p] and masks[p] == bit]
            if clash:
                if trace is not None:
                    trace.contradiction("clash", cell, -1, bit)
                return min(clash)  # the earliest: a given (0) blames no level
            if k >= 0:
                held, blame = bit, 0
                for c in t.cages[k]:
                    if placed[c]:
                        held |= masks[c]
                        blame |= culprits[c]
                if not any(combo & held == held for combo in t.combos[k]):
                    if trace is not None:
                        trace.contradiction("cage", cell, -1, bit, k)
                    return blame
            masks[cell] = bit
            placed[cell] = 1
            culprits[cell] = me
            return None
        if not masks[cell] & bit:
            if trace is not None:
                trace.contradiction("clash", cell, -1, bit)
            return culprits[cell]
        masks[cell] = bit
        placed[cell] = 1
        culprits[cell] |= me
        peers = t.peers[cell]
        if trace is not None:
            trace.eliminate(cell, bit, [p for p in peers if masks[p] & bit])
        for p in peers:
            m = masks[p]
            if m & bit:
                m ^= bit
                if not m:  # a wipe-out: p's values went to the levels that pruned it
                    if trace is not None:
                        trace.contradiction("empty", p, -1, bit)
                    return culprits[p]
                masks[p] = m
                culprits[p] |= me
        if k < 0:
            return None
        # The cage's pruning rests on every cage cell's state: its culprits are theirs.
        blame = me
        for c in t.cages[k]:
            blame |= culprits[c]
        before = [masks[c] for c in t.cages[k]]
        if not self._prune_cage(masks, placed, k, None, None, None):
            return blame
        for c, m in zip(t.cages[k], before, strict=True):
            if masks[c] != m:
                culprits[c] |= blame
        return None

    def search_grids(
        self,
        givens: Any,
        limit: int | None = 1,
        timeout: float | None = None,
        max_guesses: int | None = None,
        candidates: Any = None,
    ) -> tuple[Any, Any]:
        """Search each row of a ``(k, n*n)`` uint8 array of givens as :meth:`search` does,
        each within ``timeout`` seconds of its own start (None: no deadline), keeping its
        first solution: ``(solutions, counters)``, a ``(k, n*n)`` uint8 array (zeros where
        a puzzle has none) and a ``(k, 7)`` int64 array of :data:`COUNTERS`. With
        ``candidates``, a uint32 array of masks shaped as the givens, each row starts from
        its pencil marks.

        A loop over :meth:`search` here; one call of the compiled core there, with the
        same arrays and the same errors.
        """
        import numpy as np  # here only: a search of one puzzle never needs numpy

        if limit is not None and limit < 1:  # checked up front, as the compiled core does
            raise ValueError(f"limit must be at least 1, got {limit}")
        check_budget(max_guesses)
        cells = len(self.tables.peers)
        grids = check_grids(np.ascontiguousarray(givens, dtype=np.uint8), self.tables.size)
        marks = None
        if candidates is not None:
            marks = check_marks(candidates, self.tables.size, grids.shape)
        solutions = np.zeros((len(grids), cells), dtype=np.uint8)
        counters = np.zeros((len(grids), len(COUNTERS)), dtype=np.int64)
        clock = time.perf_counter
        for i, row in enumerate(grids.tolist()):
            start = clock()
            deadline = None if timeout is None else start + timeout
            out = self.search(
                row, limit, deadline, 1, max_guesses, None if marks is None else marks[i]
            )
            seconds = clock() - start
            if out.solutions:
                solutions[i] = out.solutions[0]
            flags = (
                COMPLETE * out.complete
                + TIMED_OUT * out.timed_out
                + BUDGET_SPENT * out.budget_spent
            )
            counters[i] = (
                out.count, flags, out.nodes, out.guesses, out.backtracks, seconds * 1e9,
                len(out.solutions),
            )  # fmt: skip
        return solutions, counters


class _Backtracking:
    """What :meth:`Engine.search` does at a dead end, chronologically: back to the branching
    cell just above it (each frame popped is a backtrack). It keeps no state of its own."""

    backjumps = skipped = 0  # it never jumps
    culprits = None  # the culprits of the state just reached: none kept

    def __init__(self, engine: Engine, stack: list[list]) -> None:
        self.stack = stack  # the search's frames
        self.trace = engine.trace
        #: Place a guess in the state of the top frame (a copy, or the state itself on the
        #: frame's last candidate): the propagation level's own placement.
        self.place = engine._place
        self.backtracks = 0

    def solution(self) -> None:
        """A solution was found below the frames on the stack."""

    def dead_end(self) -> None:
        """Every candidate of the top frame has failed: leave it (a forced frame, whose
        cell had one candidate, is no branching cell: no backtrack)."""
        gone = self.stack.pop()
        if not gone[6]:
            self.backtracks += 1
            if self.trace is not None:
                self.trace.backtrack(gone[2], len(self.stack) + 1)


class _Backjumping(_Backtracking):
    """Conflict-directed backjumping (FC-CBJ, see docs/engine.md): at a dead end,
    back to the deepest level its conflict set names. Each state's cells have culprits
    (bit k for level k, the k-th frame; the root is level 0 and never blamed: nothing above
    it to undo), kept in the frame beside the state, and each frame a conflict set."""

    def __init__(self, engine: Engine, stack: list[list]) -> None:
        super().__init__(engine, stack)
        self.place = self._place_with_culprits
        self._place_blamed = engine._place_blamed
        self.culprits = [0] * len(engine.tables.peers)  # the root's
        self.backjumps = self.skipped = 0

    def _place_with_culprits(
        self, masks: list[int], placed: bytearray, cell: int, bit: int
    ) -> bool:
        """Place as the chronological search does, keeping the culprits (those of the top
        frame's state, copied as its masks are); a contradiction adds the levels it rests
        on to the top frame's conflict set."""
        frame = self.stack[-1]
        culprits = frame[4][:] if frame[3] else frame[4]
        blame = self._place_blamed(masks, placed, culprits, cell, bit, len(self.stack))
        if blame is None:
            self.culprits = culprits
            return True
        frame[5] |= blame
        return False

    def solution(self) -> None:
        # Every level on the way to a solution is to be tried again in turn: a jump over
        # one would lose the solutions under its other values.
        for depth, frame in enumerate(self.stack, 1):
            frame[5] |= (1 << depth) - 2

    def dead_end(self) -> None:
        """Jump back to the deepest level the dead end's conflict set names (each
        branching frame left a backtrack), and merge the rest of the set into that
        level's. A jump is a backjump when it passes over a branching level: a forced
        one has no other candidate, so chronological backtracking passes over it too."""
        stack = self.stack
        level = len(stack)
        _, _, cell, _, culprits, conflict, _ = stack[-1]
        conflict = (conflict | culprits[cell]) & ~(1 << level) & ~1
        to = conflict.bit_length() - 1 if conflict else 0
        passed = sum(not frame[6] for frame in stack[to : level - 1])  # levels to+1 ..
        if passed:
            if self.trace is not None:
                self.trace.backjump(level, to, _levels(conflict))
            self.backjumps += 1
            self.skipped += passed
        leave = _Backtracking.dead_end  # (not super(): it is built anew on each call)
        while len(stack) > to:
            leave(self)
        if stack:
            stack[-1][5] |= conflict & ~(1 << to)


def _levels(conflict: int) -> tuple[int, ...]:
    """The levels of a conflict set (bit k for level k), ascending."""
    return tuple(bit.bit_length() - 1 for bit in _bits(conflict))


def _ignore(*args: Any) -> None:
    """A tracer method nobody listens to."""


class _Steps:
    """A tracer that records each placement tried, (depth, cell, value), up to ``bound``
    of them (past it the record stops and ``over`` is set), and passes every event on to
    ``inner`` (the caller's tracer, or None)."""

    def __init__(self, inner: Any, bound: int) -> None:
        self.inner = inner
        self.bound = bound
        self.over = False
        self.steps: list[tuple[int, int, int]] = []

    def __getattr__(self, name: str) -> Any:
        return _ignore if self.inner is None else getattr(self.inner, name)

    def _record(self, depth: int, cell: int, bit: int) -> None:
        if len(self.steps) < self.bound:
            self.steps.append((depth, cell, bit.bit_length()))
        else:
            self.over = True

    def guess(self, cell: int, bit: int, candidates: int, depth: int) -> None:
        self._record(depth, cell, bit)
        if self.inner is not None:
            self.inner.guess(cell, bit, candidates, depth)

    def forced(self, cell: int, bit: int, depth: int) -> None:
        self._record(depth, cell, bit)
        if self.inner is not None:
            self.inner.forced(cell, bit, depth)


class _Blame:
    """The tracer a dom-wdeg search runs behind: each contradiction raises the weight of
    the constraint docs/engine.md blames it on; every event goes on to ``inner``
    (the caller's tracer, or None)."""

    def __init__(self, tables: Tables, weights: list[int], inner: Any) -> None:
        self.tables = tables
        self.weights = weights
        self.inner = inner
        #: what removed candidates last: a placed cell (>= 0), or ~b for unit b (locked)
        self.remover: int | None = None

    def __getattr__(self, name: str) -> Any:
        """Events the blame does not read: passed on, or dropped without a tracer."""
        return _ignore if self.inner is None else getattr(self.inner, name)

    def eliminate(self, cell: int, bit: int, cells: list[int]) -> None:
        self.remover = cell
        if self.inner is not None:
            self.inner.eliminate(cell, bit, cells)

    def revise(self, x: int, y: int, bit: int) -> None:
        self.remover = y  # ac3: the arc (x, y) removed y's value from x
        if self.inner is not None:
            self.inner.revise(x, y, bit)

    def lock(self, unit: int, other: int, bit: int, cells: list[int]) -> None:
        self.remover = ~other
        if self.inner is not None:
            self.inner.lock(unit, other, bit, cells)

    def contradiction(self, kind: str, cell: int, unit: int, bits: int, cage: int = -1) -> None:
        blamed = self.blamed(kind, cell, unit, cage)
        if blamed is not None:
            self.weights[blamed] += 1
        if self.inner is not None:
            self.inner.contradiction(kind, cell, unit, bits, cage)

    def blamed(self, kind: str, cell: int, unit: int, cage: int) -> int | None:
        """The constraint (a unit, or the number of units plus a cage) a contradiction is
        blamed on; None for a cell in no unit (a shape of loose units) and no cage."""
        t = self.tables
        if kind == "rule":
            return None  # a rule is no weighted constraint: its contradictions raise none
        if kind == "cage":
            return len(t.units) + cage
        if kind == "noplace":
            return unit
        if cell < 0:  # a kind told by its unit alone
            return unit if unit >= 0 else None
        remover = self.remover
        if kind == "empty" and remover is not None:
            if remover < 0:  # locked candidates removed the value from unit ~remover
                return ~remover
            shared = [u for u in t.units_of[cell] if u in t.units_of[remover]]
            if shared:
                return shared[0]
            if t.cage_of is not None and t.cage_of[cell] >= 0:
                return len(t.units) + t.cage_of[cell]  # peers through their cage only
        if t.units_of[cell]:
            return t.units_of[cell][0]
        if t.cage_of is not None and t.cage_of[cell] >= 0:
            return len(t.units) + t.cage_of[cell]
        return None


def check_grids(grids: Any, size: int) -> Any:
    """The ``(k, n*n)`` view of a uint8 array of givens, or the compiled core's ValueError
    for a length that is not whole puzzles or a value outside 0..n."""
    cells = size * size
    if grids.size % cells:
        raise ValueError(
            f"givens must be bytes of {cells} values a puzzle, got {grids.size} bytes of 1"
        )
    grids = grids.reshape(-1, cells)
    bad = grids > size
    if bad.any():
        puzzle, cell = divmod(int(bad.argmax()), cells)
        value = grids[puzzle, cell]
        raise ValueError(f"puzzle {puzzle}: cell {cell}: {value} is outside 0..{size}")
    return grids


def check_marks(candidates: Any, size: int, shape: tuple[int, int]) -> Any:
    """The ``(k, n*n)`` rows of a uint32 array of pencil marks for givens of ``shape``, or
    the compiled core's TypeError or ValueError (another type, another size, a mask with
    a bit above ``size``)."""
    import numpy as np

    marks = np.asarray(candidates)
    if marks.dtype != np.uint32:
        raise TypeError(f"candidates must be uint32 masks, not {marks.dtype}")
    k, cells = shape
    if marks.size != k * cells:
        raise ValueError(
            f"candidates must be {cells} masks a puzzle for {k} puzzles, got {marks.size}"
        )
    marks = marks.reshape(k, cells)
    bad = marks >> size
    if bad.any():
        puzzle, cell = divmod(int(bad.argmax()), cells)
        m = int(marks[puzzle, cell])
        raise ValueError(f"puzzle {puzzle}: cell {cell}: candidates {m:#x} go beyond 1..{size}")
    return marks.tolist()
