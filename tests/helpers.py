"""Puzzle makers and small fixtures' bodies shared by the tests; independent of the engine
under test."""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import threading
import time
import tomllib
from collections.abc import Callable, Iterator, Mapping, Sequence
from itertools import combinations, product
from pathlib import Path

import lzstring
import pytest

from sudokulab import is_solution, solve
from sudokulab.models import Puzzle, geometry

#: The repository's root folder.
REPO = Path(__file__).resolve().parent.parent


def package_dirs() -> dict[str, Path]:
    """Each package of the ``sudokulab`` namespace and the source folder it comes from, as
    pyproject.toml's ``[tool.setuptools.package-dir]`` says: the one place it is stated."""
    with open(REPO / "pyproject.toml", "rb") as f:
        mapping = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    return {name: REPO / folder for name, folder in mapping.items()}


def core_combinations() -> list[tuple[str, str]]:
    """Every (propagation, order) both implementations run, for searches without a guess
    budget: dom-wdeg only under the levels the compiled core runs it under, and not under
    ``none`` (nothing is pruned there, so it can leave a dead cell for last and search
    the whole grid first: its tests give it a budget)."""
    from sudokulab.native.options import CORE_WDEG_PROPAGATIONS, ORDERS, PROPAGATIONS

    return [
        (p, o) for p in PROPAGATIONS for o in ORDERS
        if o != "dom-wdeg" or (p in CORE_WDEG_PROPAGATIONS and p != "none")
    ]  # fmt: skip


def pairs_of(rows: Sequence[Mapping]) -> set[tuple]:
    """Every (factor, value, factor, value) that some row holds, factors in row order."""
    return {
        (a, row[a], b, row[b]) for row in rows for a, b in combinations(list(row), 2)
    }  # fmt: skip


def all_pairs(
    factors: Mapping[str, Sequence], allowed: Callable[[dict], bool] | None = None
) -> list[dict]:
    """A covering design: rows (one value per factor, each an allowed combination) such
    that every pair of values of two factors that some allowed combination holds is in
    at least one row. Greedy and deterministic: each round takes the first combination,
    in product order, that covers the most pairs not yet covered."""
    names = list(factors)
    rows = [dict(zip(names, values, strict=True)) for values in product(*factors.values())]
    rows = [row for row in rows if allowed is None or allowed(row)]
    held = [pairs_of([row]) for row in rows]
    wanted = set().union(*held)
    chosen: list[dict] = []
    left = set(wanted)
    while left:
        best = max(range(len(rows)), key=lambda i: len(held[i] & left))
        chosen.append(rows[best])
        left -= held[best]
    assert pairs_of(chosen) == wanted  # every pair at least once
    return chosen


def design(factors: Mapping[str, Sequence], allowed: Callable[[dict], bool] | None = None):
    """``all_pairs`` as arguments for ``pytest.mark.parametrize(tuple(factors), ...)``."""
    return [tuple(row.values()) for row in all_pairs(factors, allowed)]


def wait_for(condition: Callable[[], object], timeout: float = 30.0, every: float = 0.02):
    """Poll ``condition`` until it returns something true (returned), or fail at the
    deadline: a wait that ends as soon as the thing happens, however loaded the machine."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout} s in vain for {condition}")
        time.sleep(every)


# --- processes (the Ctrl-C and signal tests) ---------------------------------------


def live_processes() -> dict[int, tuple[int, int]]:
    """Every live (not zombie) process: pid -> (parent pid, process group). Linux's /proc."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) "
        if fields[0] != "Z":
            found[int(entry.name)] = (int(fields[1]), int(fields[2]))
    return found


def group_members(pgid: int) -> list[int]:
    """The live processes of process group ``pgid``."""
    return [pid for pid, (_, group) in live_processes().items() if group == pgid]


def descendants(pid: int) -> set[int]:
    """The live processes started by ``pid``, at any depth, whatever their group (solver
    children have a group of their own)."""
    children: dict[int, list[int]] = {}
    for child, (parent, _) in live_processes().items():
        children.setdefault(parent, []).append(child)
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def cpu_seconds(pid: int) -> float:
    """The CPU time process ``pid`` has used (user and system)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Job:
    """The ``script`` with ``args`` in a process group of its own, as a terminal runs a job;
    its standard output and error read, a line at a time, as they come."""

    #: Seconds a wait for the command may take before the test fails.
    patience = 120.0

    def __init__(self, script: str, args: list[str], *, stdin=subprocess.DEVNULL, **popen) -> None:
        self.out: list[str] = []
        self.err: list[str] = []
        self.proc = subprocess.Popen(
            [script, *args],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group, as a terminal's job
            **popen,
        )
        self.readers = [
            threading.Thread(target=self._read, args=(stream, lines), daemon=True)
            for stream, lines in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))
        ]
        for reader in self.readers:
            reader.start()

    @staticmethod
    def _read(stream, lines: list[str]) -> None:
        for raw in stream:
            lines.append(raw.decode(errors="replace").rstrip("\n"))

    def wait_for(self, ready: Callable[[], bool], what: str) -> None:
        """Return once ``ready()``; fail when the command ends first or it takes too long."""
        deadline = time.monotonic() + self.patience
        while not ready():
            if self.proc.poll() is not None:
                pytest.fail(f"the command ended ({self.proc.returncode}) before {what}: {self}")
            if time.monotonic() > deadline:
                pytest.fail(f"no {what} within {self.patience:g} s: {self}")
            time.sleep(0.01)

    def __str__(self) -> str:
        return "\n".join(["stderr:", *self.err[-40:], "stdout:", *self.out[:5]])


def holding_import(held: str, seconds: float) -> str:
    """Python source that holds the first import of the module named by the expression
    ``held`` (when it names one): a line on stderr says so, then the import waits
    ``seconds``, as a slow import would."""
    return f"""
import os, sys, time

held = {held}


class Hold:
    def find_spec(self, name, path=None, target=None):
        if name == held:
            sys.meta_path.remove(self)
            os.write(2, b"loading " + name.encode() + b"\\n")
            time.sleep({seconds})
        return None


if held:
    sys.meta_path.insert(0, Hold())
"""


def two_solution_grid(solution: tuple[int, ...]) -> tuple[int, ...]:
    """Blank a deadly rectangle (a b / b a over two boxes of one band): two solutions."""
    g = geometry(9)
    for r1, r2 in product(range(9), repeat=2):
        if r1 >= r2 or r1 // 3 != r2 // 3:
            continue
        for c1, c2 in product(range(9), repeat=2):
            if c1 >= c2 or c1 // 3 == c2 // 3:
                continue
            a, b = solution[r1 * 9 + c1], solution[r1 * 9 + c2]
            if solution[r2 * 9 + c1] == b and solution[r2 * 9 + c2] == a:
                grid = list(solution)
                for r, c in product((r1, r2), (c1, c2)):
                    grid[r * 9 + c] = 0
                assert g.cell_count == len(grid)
                return tuple(grid)
    raise AssertionError("no deadly rectangle in this grid")


def solved(n: int) -> tuple[int, ...]:
    """A valid complete grid of size n (the shifted-pattern solution)."""
    g = geometry(n)
    br, bc = g.box_rows, g.box_cols
    return tuple((bc * (r % br) + r // br + c) % n + 1 for r in range(n) for c in range(n))


def sample(n: int, seed: int = 1) -> Puzzle:
    """A puzzle of size n: a valid grid with about half the cells blanked."""
    rng = random.Random(seed * 100 + n)
    return Puzzle(geometry(n), tuple(v if rng.random() < 0.5 else 0 for v in solved(n)))


def random_solution(size: int, rng: random.Random) -> list[int]:
    """A random solved grid, built from the pattern solution by symmetry-preserving shuffles."""
    g = geometry(size)
    br, bc = g.box_rows, g.box_cols

    def pattern(r: int, c: int) -> int:
        return (bc * (r % br) + r // br + c) % size

    def shuffled(groups: int, per: int) -> list[int]:
        order = rng.sample(range(groups), groups)
        return [g_ * per + i for g_ in order for i in rng.sample(range(per), per)]

    rows = shuffled(size // br, br)
    cols = shuffled(size // bc, bc)
    values = rng.sample(range(1, size + 1), size)
    return [values[pattern(r, c)] for r in rows for c in cols]


def random_cages(
    solution: list[int] | tuple[int, ...], rng: random.Random, largest: int = 4
) -> list[tuple[int, ...]]:
    """A random partition of a solved grid into connected cages of distinct values."""
    size = int(len(solution) ** 0.5)
    count = size * size
    cage_of = [-1] * count
    cages: list[tuple[int, ...]] = []
    for start in rng.sample(range(count), count):
        if cage_of[start] >= 0:
            continue
        cells = [start]
        cage_of[start] = len(cages)
        want = rng.randint(1, largest)
        while len(cells) < want:
            around = [
                n
                for c in cells
                for n in (
                    c - size,
                    c + size,
                    c - 1 if c % size else -1,
                    c + 1 if (c + 1) % size else -1,
                )
                if 0 <= n < count
                and cage_of[n] < 0
                and solution[n] not in {solution[c] for c in cells}
            ]
            if not around:
                break
            nxt = rng.choice(sorted(set(around)))
            cage_of[nxt] = len(cages)
            cells.append(nxt)
        cages.append(tuple(sorted(cells)))
    return cages


def killer_cages(solution: list[int] | tuple[int, ...], cages: list[tuple[int, ...]]):
    """The cages with their totals taken from a solved grid."""
    return tuple((cells, sum(solution[c] for c in cells)) for cells in cages)


def same_as_native(puzzle, spec: str, limit: int | None = 2):
    """Solve with ``spec`` and the native engine; every grid verified, the answers equal."""
    mine, native = solve(puzzle, spec, limit=limit), solve(puzzle, "native", limit=limit)
    assert (mine.status, mine.count, mine.exact) == (native.status, native.count, native.exact)
    assert all(is_solution(puzzle, s) for s in mine.solutions)
    assert len(set(mine.solutions)) == len(mine.solutions)
    if mine.exact:  # the whole set of solutions: the same grids
        assert set(mine.solutions) == set(native.solutions)
    return mine


def fake_backends(monkeypatch, *names: str) -> Iterator[None]:
    """Register the misbehaving backends of ``fake_backends.py`` (by class name) here and
    in the worker processes the test starts; a fixture's body (``yield from``)."""
    from sudokulab.backends import registry

    tests = str(Path(__file__).resolve().parent)
    monkeypatch.setenv("SUDOKULAB_BACKENDS", ",".join(f"fake_backends:{n}" for n in names))
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [tests, os.environ.get("PYTHONPATH")]))
    )
    monkeypatch.syspath_prepend(tests)
    registry._create.cache_clear()
    yield
    registry._create.cache_clear()


def parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parser and, after it, every subcommand's parser, at any depth."""
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += parsers(sub)
    return found


def marked_puzzle(geom, solution: tuple[int, ...]):
    """A puzzle with a rule of every kind a setter draws (thermometers, an arrow, lines,
    kropki dots, XV, parity, sandwiches, little killers), each found in a solved grid so
    the grid keeps them; the cells the rules read are blank, the others given."""
    from sudokulab.models import Puzzle, rules
    from sudokulab.models.rule_fields import segments

    n, v = geom.size, solution
    used: set[int] = set()

    def near(c: int, king: bool = False) -> list[int]:
        r, k = divmod(c, n)
        steps = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
        if not king:
            steps = [s for s in steps if 0 in s]
        return [(r + dr) * n + k + dc for dr, dc in steps if 0 <= r + dr < n and 0 <= k + dc < n]

    def free(*cells: int) -> bool:
        return not used & set(cells) and len(set(cells)) == len(cells)

    def take(rule):
        used.update(rule.cells)
        return rule

    def rising(start: int) -> list[int]:
        path = [start]
        while len(path) < 4:
            up = [d for d in near(path[-1]) if v[d] > v[path[-1]] and free(d) and d not in path]
            if not up:
                break
            path.append(min(up, key=lambda d: v[d]))
        return path

    stated: list = []
    for kind, name in ((rules.Less, "thermometer 1"), (rules.LessEqual, "slow thermometer 1")):
        path = next(p for p in map(rising, geom.cells) if len(p) >= 3 and free(*p))
        stated += [take(kind(a, b, name)) for a, b in zip(path, path[1:], strict=False)]
    arrow = next(
        (c, a, b)
        for c in geom.cells
        for a in near(c, True)
        for b in near(a, True)
        if free(c, a, b) and v[a] + v[b] == v[c]
    )
    stated.append(take(rules.SumEquals(arrow[:1], arrow[1:], "arrow 1")))
    pairs = [(a, b) for a in geom.cells for b in near(a) if a < b]
    wide = n // 2 + 1  # German whispers' least difference
    for test, make, args in (
        (lambda x, y: abs(x - y) == 1, rules.Difference, (1, "white dot 1")),
        (lambda x, y: 2 * x == y or 2 * y == x, rules.Ratio, (2, "black dot 1")),
        (lambda x, y: x + y == 10, rules.PairSum, (10, "xv 1")),
        (lambda x, y: x + y == 5, rules.PairSum, (5, "xv 2")),
        (lambda x, y: abs(x - y) >= wide, rules.MinDifference, (wide, "whispers 1")),
    ):
        found = next(((a, b) for a, b in pairs if free(a, b) and test(v[a], v[b])), None)
        if found:
            stated.append(take(make(*found, *args)))
    runs = [
        line
        for c in geom.cells
        for line in ((c, c + 1, c + 2), (c, c + n, c + 2 * n))
        if line[-1] < n * n and (line[1] - line[0] == n or c % n < n - 2) and free(*line)
    ]
    run = next((r for r in runs if max(v[c] for c in r) - min(v[c] for c in r) == 2), None)
    if run:
        stated.append(take(rules.Consecutive(run, "renban 1")))
    region = next(
        (
            (a, b, c)
            for a in geom.cells
            for b in near(a, True)
            for c in near(b, True)
            if free(a, b, c)
            and len(parts := segments((a, b, c), geom)) == 2
            and sum(v[x] for x in parts[0]) == sum(v[x] for x in parts[1])
        ),
        None,
    )
    if region:
        parts = segments(region, geom)
        stated.append(take(rules.SumEquals(parts[0], parts[1], "region-sum line 1")))
    odd = next(c for c in geom.cells if v[c] % 2 and free(c))
    even = next(c for c in geom.cells if not v[c] % 2 and free(c))
    stated += [
        take(rules.Parity(odd, "odd", "odd cell")),
        take(rules.Parity(even, "even", "even cell")),
    ]
    row, column = tuple(range(n)), tuple(range(1, n * n, n))

    def between(line: tuple[int, ...]) -> int:
        i, j = sorted(k for k, c in enumerate(line) if v[c] in (1, n))
        return sum(v[c] for c in line[i + 1 : j])

    stated.append(rules.Sandwich(row, between(row), "row 1 sandwich"))
    stated.append(rules.Sandwich(column, between(column), "column 2 sandwich"))
    down = tuple(i * n + i + 1 for i in range(n - 1))  # from above r1c2, down and right
    up = tuple((n - 1 - i) * n + i for i in range(n))  # from below r{n}c1, up and right
    for k, line in enumerate((down, up), 1):
        stated.append(rules.LittleKiller(line, sum(v[c] for c in line), f"little killer {k}"))
    givens = tuple(0 if c in used else v[c] for c in geom.cells)
    return Puzzle(geom, givens, (), None, tuple(stated))


# --- the same puzzle as a document, as f-puzzles and as SudokuPad writes it ------------------

SHORT = {
    "color": "c",
    "cages": "ca",
    "center": "ct",
    "borderColor": "c1",
    "backgroundColor": "c2",
    "cells": "ce",
    "cellSize": "cs",
    "arrows": "a",
    "overlays": "o",
    "underlays": "u",
    "width": "w",
    "height": "h",
    "value": "v",
    "lines": "l",
    "rounded": "r",
    "regions": "re",
    "fontSize": "fs",
    "thickness": "th",
    "headLength": "hl",
    "wayPoints": "wp",
    "title": "t",
    "text": "te",
}


def zipped(doc: dict) -> str:
    """A puzzle in the zipper's shorthand: no empty arrays, short keys, numeric strings as
    numbers, unquoted keys, empty objects as empty slots, t/f, #0/#F, colours without '#',
    single quotes."""

    def shrink(value):
        if isinstance(value, list):
            return [shrink(v) for v in value]
        if isinstance(value, dict):
            return {SHORT.get(k, k): shrink(v) for k, v in value.items() if v != []}
        if isinstance(value, str) and re.fullmatch(r"-?\d+", value) and str(int(value)) == value:
            return int(value)
        return value

    text = json.dumps(shrink(doc), separators=(",", ":"))
    text = re.sub(r'([,{\[])"([a-zA-Z0-9]+)":', r"\1\2:", text)
    text = re.sub(r"([,{\[]){}(?=[,}\]])", r"\1", text)
    text = re.sub(r":false([,}\]])", r":f\1", text)
    text = re.sub(r":true([,}\]])", r":t\1", text)
    text = re.sub(r':"#000000"([,}\]])', r":#0\1", text)
    text = re.sub(r':"#FFFFFF"([,}\]])', r":#F\1", text)
    text = re.sub(r':"#([0-9a-fA-F]{6})"([,}\]])', r":\1\2", text)
    return text.replace("'", "\\'").replace('"', "'")


def scl_link(doc: dict) -> str:
    """A SudokuPad link to a puzzle."""
    return "https://sudokupad.app/scl" + lzstring.LZString().compressToBase64(zipped(doc))


def rc(ref: str) -> list[int]:
    r, c = re.fullmatch(r"R(\d+)C(\d+)", ref).groups()
    return [int(r) - 1, int(c) - 1]


def centre(ref: str) -> list[float]:
    r, c = rc(ref)
    return [r + 0.5, c + 0.5]


def between(refs: list[str]) -> list[float]:
    points = [centre(ref) for ref in refs]
    return [sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points)]


def as_sudokupad(fdoc: dict) -> dict:
    """The SudokuPad puzzle SudokuPad makes of an f-puzzles document (its f-puzzles
    conversion: cells and regions, cages, thermometers as bulb and line, arrows as an
    arrow from a circle, kropki and XV as marks on edges, parity shapes, diagonals as
    corner-to-corner lines, little killers as a short arrow and a number, board-wide
    rules in ``global``)."""
    n = fdoc["size"]
    from sudokulab.models.geometry import BOX_SHAPES

    box_rows, box_cols = BOX_SHAPES[n]
    regions: dict = {}
    cells = []
    for r, row in enumerate(fdoc["grid"]):
        cells.append([])
        for c, item in enumerate(row):
            cells[-1].append({"value": item["value"]} if item.get("given") else {})
            default = (r // box_rows) * box_rows + c // box_cols
            regions.setdefault(item.get("region", default), []).append([r, c])
    doc: dict = {"id": "test", "cellSize": 50, "cells": cells, "regions": list(regions.values())}
    doc["cages"] = [{"value": "title: " + fdoc.get("title", "Untitled")}]
    add = lambda key, item: doc.setdefault(key, []).append(item)  # noqa: E731
    for cage in fdoc.get("killercage", []):
        add(
            "cages",
            {"unique": True, "cells": [rc(x) for x in cage["cells"]], "value": cage.get("value")},
        )
    for part in fdoc.get("thermometer", []):
        for line in part["lines"]:
            points = [centre(x) for x in line]
            add("underlays", {"borderColor": "#CFCFCF", "backgroundColor": "#CFCFCF"})
            doc["underlays"][-1] |= {"center": points[0], "rounded": True}
            doc["underlays"][-1] |= {"width": 0.85, "height": 0.85}
            add("lines", {"color": "#CFCFCF", "thickness": 21, "wayPoints": points})
    for part in fdoc.get("arrow", []):
        for line in part["lines"]:
            points = [centre(x) for x in line]
            dr, dc = points[1][0] - points[0][0], points[1][1] - points[0][1]
            dist = (dr * dr + dc * dc) ** 0.5
            # the arrow starts 0.4 along its first segment, on the circle's rim
            points[0][0] += round(40 * ((dr > 0) - (dr < 0)) / dist) / 100
            points[0][1] += round(40 * ((dc > 0) - (dc < 0)) / dist) / 100
            add("arrows", {"color": "#a1a1a1", "headLength": 0.3, "thickness": 5})
            doc["arrows"][-1]["wayPoints"] = points
        rows = {rc(x)[0] for x in part["cells"]}
        cols = {rc(x)[1] for x in part["cells"]}
        add("overlays", {"borderColor": "#a1a1a1", "backgroundColor": "#ffffff"})
        doc["overlays"][-1] |= {"center": between(part["cells"]), "rounded": True, "text": ""}
        doc["overlays"][-1] |= {"width": 0.83 + len(cols) - 1, "height": 0.83 + len(rows) - 1}
    for key, fill in (("ratio", "#000000"), ("difference", "#FFFFFF")):
        for part in fdoc.get(key, []):
            add("overlays", {"borderColor": "#000000", "backgroundColor": fill, "rounded": True})
            doc["overlays"][-1] |= {"center": between(part["cells"]), "width": 0.3, "height": 0.3}
            doc["overlays"][-1]["text"] = part.get("value", "")
    for part in fdoc.get("xv", []):
        add("overlays", {"backgroundColor": "#FFFFFF", "borderColor": "#FFFFFF", "fontSize": 21})
        doc["overlays"][-1] |= {"center": between(part["cells"]), "rounded": False}
        doc["overlays"][-1] |= {"width": 0.25, "height": 0.25, "text": part["value"]}
    for key, rounded in (("even", False), ("odd", True)):
        for part in fdoc.get(key, []):
            add("underlays", {"borderColor": "#CFCFCF", "backgroundColor": "#CFCFCF"})
            doc["underlays"][-1] |= {"center": centre(part["cell"]), "rounded": rounded}
            doc["underlays"][-1] |= {"width": 0.7, "height": 0.7}
    steps = {"UR": (-1, 1), "UL": (-1, -1), "DR": (1, 1), "DL": (1, -1)}
    for part in fdoc.get("littlekillersum", []):
        (r, c), (dr, dc) = centre(part["cell"]), steps[part["direction"]]
        points = [[r + 0.3 * dr, c + 0.3 * dc], [r + 0.48 * dr, c + 0.48 * dc]]
        add("arrows", {"color": "#000000", "thickness": 2, "wayPoints": points})
        add("overlays", {"backgroundColor": "#FFFFFF", "borderColor": "#FFFFFF", "fontSize": 28})
        doc["overlays"][-1] |= {"center": [r, c], "width": 0.25, "height": 0.25}
        doc["overlays"][-1] |= {"rounded": False, "text": part.get("value", "_")}
    if fdoc.get("diagonal+"):
        add("lines", {"color": "#34BBE6", "thickness": 2, "wayPoints": [[0, n], [n, 0]]})
    if fdoc.get("diagonal-"):
        add("lines", {"color": "#34BBE6", "thickness": 2, "wayPoints": [[0, 0], [n, n]]})
    for key in ("antiknight", "antiking", "nonconsecutive"):
        if fdoc.get(key):
            add("global", key)
    for key in fdoc.get("negative", []):
        add("global", "anti" + key)
    return doc


def fgrid(n: int, givens: dict | None = None) -> list:
    grid = [[{} for _ in range(n)] for _ in range(n)]
    for ref, value in (givens or {}).items():
        r, c = rc(ref)
        grid[r][c] = {"value": value, "given": True}
    return grid


#: Document fields f-puzzles has no key for.
UNMAPPED = frozenset({"hyper", "units", "candidates", "rules", "box"})


def as_fpuzzles(doc: dict) -> dict:
    """The f-puzzles JSON of a puzzle document (sudokulab's own form): the same puzzle as
    f-puzzles (and its solver's new constraints: slow thermometers, whispers, renban,
    region-sum lines) keeps it. ValueError for a field f-puzzles has no key for (hyper,
    extra units, pencil marks, rule records)."""
    from sudokulab.models.documents import _cell as cell_index
    from sudokulab.models.documents import puzzle_of

    puzzle, solution = puzzle_of(doc)
    n = puzzle.size
    unmapped = sorted(UNMAPPED & set(doc))
    if unmapped:
        raise ValueError(f"f-puzzles has no key for {', '.join(unmapped)}")

    def ref(cell) -> str:
        index = cell_index(cell, n, "cell")
        return f"R{index // n + 1}C{index % n + 1}"

    def refs(cells) -> list[str]:
        return [ref(c) for c in cells]

    labels = doc.get("regions")
    regions = {}
    grid = []
    for r in range(n):
        grid.append([])
        for c in range(n):
            item = {}
            value = puzzle.givens[r * n + c]
            if value:
                item |= {"value": value, "given": True}
            if labels:
                item["region"] = regions.setdefault(str(labels[r][c]), len(regions))
            grid[-1].append(item)
    out: dict = {"size": n, "grid": grid}
    if doc.get("x"):
        out["diagonal+"] = out["diagonal-"] = True
    for cage in doc.get("cages", []):
        item = {"cells": refs(cage["cells"])}
        if "sum" in cage:
            item["value"] = str(cage["sum"])
        out.setdefault("killercage", []).append(item)
    for key, fkey in (("thermometers", "thermometer"), ("slow_thermometers", "slowthermometer")):
        for line in doc.get(key, []):
            out.setdefault(fkey, []).append({"lines": [refs(line)]})
    for arrow in doc.get("arrows", []):
        circle = refs(arrow["circle"])
        line = [circle[-1], *refs(arrow["shaft"])]  # an f-puzzles arrow starts in its circle
        out.setdefault("arrow", []).append({"cells": circle, "lines": [line]})
    for dot in doc.get("kropki", []):
        key = "difference" if dot["dot"] == "white" else "ratio"
        out.setdefault(key, []).append({"cells": refs(dot["cells"])})
    if doc.get("kropki_negative"):
        out["negative"] = ["difference", "ratio"]
    for xv in doc.get("xv", []):
        letter = {10: "X", 5: "V"}[xv["sum"]]
        out.setdefault("xv", []).append({"cells": refs(xv["cells"]), "value": letter})
    for line in doc.get("whispers", []):  # as f-puzzles' German whispers writes them
        out.setdefault("whispers", []).append({"lines": [refs(line)], "value": str((n + 1) // 2)})
    pairs = (("renban", "renban"), ("entropic_lines", "entropicline"))
    for key, fkey in (*pairs, ("region_sum_lines", "regionsumline")):
        for line in doc.get(key, []):
            out.setdefault(fkey, []).append({"lines": [refs(line)]})
    for parity in ("odd", "even"):
        for cell in doc.get(parity, []):
            out.setdefault(parity, []).append({"cell": ref(cell)})
    for clue in doc.get("sandwiches", []):
        cell = f"R{clue['row']}C0" if "row" in clue else f"R0C{clue['column']}"
        out.setdefault("sandwichsum", []).append({"cell": cell, "value": str(clue["sum"])})
    for clue in doc.get("little_killers", []):
        cells = [divmod(cell_index(c, n, "cell"), n) for c in clue["cells"]]
        r, c = cells[0][0] + 1, cells[0][1] + 1
        if len(cells) > 1:
            dr, dc = cells[1][0] - cells[0][0], cells[1][1] - cells[0][1]
        else:  # a corner's one cell: the way that leaves the grid on both sides
            dr, dc = next(
                (a, b)
                for a in (1, -1)
                for b in (1, -1)
                if not (1 <= r + a <= n and 1 <= c + b <= n)
                and not (1 <= r - a <= n and 1 <= c - b <= n)
            )
        direction = ("D" if dr > 0 else "U") + ("R" if dc > 0 else "L")
        cell = f"R{r - dr}C{c - dc}"
        item = {"cell": cell, "direction": direction, "value": str(clue["sum"])}
        out.setdefault("littlekillersum", []).append(item)
    for key, fkey in (("anti_knight", "antiknight"), ("anti_king", "antiking")):
        if doc.get(key):
            out[fkey] = True
    if doc.get("nonconsecutive"):
        out["nonconsecutive"] = True
    if solution is not None:
        out["solution"] = list(solution)
    return out


def same_puzzle(a, b) -> None:
    """Assert two puzzles are the same: givens, units, cages and rules (as sets: the order
    a reader meets them in is not the puzzle's)."""
    assert a.givens == b.givens
    assert {u.cells for u in a.geometry.units} == {u.cells for u in b.geometry.units}
    assert set(a.cages) == set(b.cages)
    assert set(a.rules) == set(b.rules) and len(a.rules) == len(b.rules)
