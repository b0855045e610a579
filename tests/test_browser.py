"""The step-through page in a real browser: Debian's Chromium, driven by Playwright.

Only the system browser is used (never one Playwright downloads). Without Chromium the
test skips, except in CI (CI=true), where it fails: CI installs it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from sudokulab import is_solution, parse_puzzle
from sudokulab.classroom.trace import Guess, trace_puzzle
from sudokulab.cli import main

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
HARD = "7.18.43.......2.....453..7.6.....7..1...9...5..8.....38...195....23........6.89.4"


def _sync_playwright():
    """Playwright's sync API, or a skip (a failure in CI) naming what is missing."""
    missing = []
    if not CHROMIUM.exists():
        missing.append(f"{CHROMIUM} (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing.append("playwright (pip install -e '.[test]')")
    if missing:
        message = "browser test needs " + " and ".join(missing)
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return sync_playwright


@pytest.fixture
def page():
    with open_page(1400, 900) as page:
        yield page


@contextmanager
def open_page(width: int, height: int) -> Iterator[Any]:
    """A page of the system Chromium, its script errors and console errors collected in
    ``page.errors``; the browser closed at the end."""
    sync_playwright = _sync_playwright()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.errors = errors
            yield page
        finally:
            browser.close()


def test_step_through_page(page, tmp_path, capsys):
    puzzle = parse_puzzle(HARD)
    trace = trace_puzzle(puzzle)
    assert any(isinstance(e, Guess) for e in trace.events)  # the search has to guess
    html = tmp_path / "lesson.html"
    assert main(["explain", HARD, "--html", str(html)]) == 0
    capsys.readouterr()

    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(html.as_uri())
    viewer = page.locator('[data-role="viewer"]')
    lines = page.locator('[data-role="list"] li[data-step]')
    count = lines.count()
    assert count > 10
    assert viewer.get_attribute("data-step") == "-1"

    def highlighted() -> list[str]:
        return page.eval_on_selector_all(
            '[data-role="grid"] [data-current="true"]', "els => els.map(e => e.dataset.cell)"
        )

    previous = None
    for step in range(count):
        page.keyboard.press("ArrowRight")
        assert viewer.get_attribute("data-step") == str(step)
        cell = lines.nth(step).get_attribute("data-cell")
        shown = highlighted()
        if cell == "-1":
            assert shown == []
        else:
            assert shown == [cell]
            assert cell != previous  # each step is about another cell
        previous = cell
    page.keyboard.press("ArrowRight")  # past the end: stays on the last step
    assert viewer.get_attribute("data-step") == str(count - 1)

    values = page.eval_on_selector_all(
        '[data-role="grid"] [data-cell]', "els => els.map(e => e.dataset.value)"
    )
    grid = tuple(int(v) for v in values)
    assert grid == trace.solutions[0]
    assert is_solution(puzzle, grid)
    page.screenshot(path=str(tmp_path / "end.png"))

    page.keyboard.press("Home")
    assert viewer.get_attribute("data-step") == "-1"
    target = lines.nth(count // 2)
    target.click()
    assert viewer.get_attribute("data-step") == str(count // 2)
    assert "cur" in (target.get_attribute("class") or "")
    cell = target.get_attribute("data-cell")
    assert highlighted() == ([] if cell == "-1" else [cell])
    page.locator('[data-role="prev"]').click()
    assert viewer.get_attribute("data-step") == str(count // 2 - 1)
    page.keyboard.press("End")
    assert viewer.get_attribute("data-step") == str(count - 1)

    page.screenshot(path=str(tmp_path / "viewer.png"))
    assert (tmp_path / "viewer.png").stat().st_size > 0
    assert errors == []


def _placed_at(data: dict, step: int) -> list[str]:
    """The values the page should show placed after ``step``, from the page's own diffs."""
    n = data["size"]
    state = list(data["start"])
    for row in data["steps"][: step + 1]:
        d = row["d"]
        for i in range(0, len(d), 3):
            state[d[i]] = d[i + 2]
    return [str((s & ((1 << n) - 1)).bit_length()) if s >> n else "" for s in state]


def test_long_trace_jumps(page, tmp_path):
    # Forward checking, first cell: thousands of steps, jumps across the snapshots.
    from sudokulab.classroom.page import viewer_data, viewer_html

    trace = trace_puzzle(parse_puzzle(HARD), "forward", "first", max_steps=3000)
    data = viewer_data(trace)
    html = tmp_path / "long.html"
    html.write_text(viewer_html(trace))
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(html.as_uri())
    viewer = page.locator('[data-role="viewer"]')

    def shown() -> list[str]:
        return page.eval_on_selector_all(
            '[data-role="grid"] [data-cell]', "els => els.map(e => e.dataset.value)"
        )

    page.keyboard.press("End")
    last = len(data["steps"]) - 1
    assert viewer.get_attribute("data-step") == str(last)
    assert shown() == _placed_at(data, last)
    for target in (1234, 1233, 451, 2999 if last >= 2999 else last, 0):
        page.locator(f'[data-role="list"] li[data-step="{target}"]').click()
        assert viewer.get_attribute("data-step") == str(target)
        assert shown() == _placed_at(data, target)
    page.keyboard.press("ArrowLeft")
    assert viewer.get_attribute("data-step") == "-1"
    assert shown() == [""] * 81 and errors == []


def test_killer_page_draws_the_cages(page, tmp_path, capsys):
    from sudokulab.catalog import load
    from sudokulab.classroom.page import viewer_data
    from sudokulab.models.documents import dumps

    entry = load("gen-killer").entries[0]
    puzzle = entry.puzzle
    source = tmp_path / "killer.json"
    source.write_text(dumps(puzzle, entry.solution) + "\n", encoding="utf-8")
    html = tmp_path / "killer.html"
    assert main(["explain", str(source), "--html", str(html)]) == 0
    capsys.readouterr()
    data = viewer_data(trace_puzzle(puzzle))

    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(html.as_uri())
    cage_of = page.eval_on_selector_all(
        '[data-role="grid"] [data-cage]', "els => els.map(e => [+e.dataset.cell, +e.dataset.cage])"
    )
    assert sorted(map(tuple, cage_of)) == sorted(
        (cell, k) for k, cage in enumerate(puzzle.cages) for cell in cage.cells
    )
    sums = page.eval_on_selector_all(".slv-sum", "els => els.map(e => +e.textContent)")
    assert sorted(sums) == sorted(cage.total for cage in puzzle.cages)

    # A cage step: its cells are highlighted and its removals are shown.
    step = next(i for i, row in enumerate(data["steps"]) if row["g"] >= 0)
    page.locator(f'[data-role="list"] li[data-step="{step}"]').click()
    lit = page.eval_on_selector_all(
        '[data-role="grid"] .unit', "els => els.map(e => +e.dataset.cell)"
    )
    assert sorted(lit) == sorted(puzzle.cages[data["steps"][step]["g"]].cells)
    assert page.locator('[data-role="removed"]').inner_text() == data["steps"][step]["x"]
    struck = page.locator('[data-role="grid"] .removed').count()
    assert struck == sum(bin(m).count("1") for m in data["steps"][step]["m"])

    page.keyboard.press("End")
    values = page.eval_on_selector_all(
        '[data-role="grid"] [data-cell]', "els => els.map(e => e.dataset.value)"
    )
    assert tuple(int(v) for v in values) == entry.solution
    page.screenshot(path=str(tmp_path / "killer.png"))
    assert errors == []


def test_jigsaw_page_draws_the_regions(page, tmp_path):
    from sudokulab.catalog import load
    from sudokulab.classroom.page import viewer_html

    puzzle = load("gen-jigsaw").entries[0].puzzle
    geom = puzzle.geometry
    region = {}
    for k, unit in enumerate(u for u in geom.units if u.kind == "region"):
        region.update(dict.fromkeys(unit.cells, k))
    html = tmp_path / "jigsaw.html"
    html.write_text(viewer_html(trace_puzzle(puzzle, max_steps=20)))
    page.goto(html.as_uri())
    left = page.eval_on_selector_all(
        '[data-role="grid"] .bl', "els => els.map(e => +e.dataset.cell)"
    )
    top = page.eval_on_selector_all(
        '[data-role="grid"] .bt', "els => els.map(e => +e.dataset.cell)"
    )
    n = geom.size
    assert sorted(left) == [c for c in geom.cells if c % n and region[c] != region[c - 1]]
    assert sorted(top) == [c for c in geom.cells if c >= n and region[c] != region[c - n]]


#: Solved by logic with locked candidates, subsets, wings and simple colouring (top95 #72).
LOGIC = "....7..8...6...5...2...3.61.1...7..2..8..534.2..9.......2......58...6.3.4...1...."


def test_logic_page_highlights_each_pattern(page, tmp_path, capsys):
    from sudokulab.logic import solve_logic

    run = solve_logic(parse_puzzle(LOGIC))
    assert run.status == "solved"
    patterns = [s for s in run.steps if s.technique not in ("naked single", "hidden single")]
    assert {s.technique for s in patterns} >= {"XY-wing", "simple colouring", "naked triple"}
    html = tmp_path / "logic.html"
    assert main(["explain", LOGIC, "--logic", "--html", str(html)]) == 0
    assert "grade" in capsys.readouterr().out

    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(html.as_uri())
    viewer = page.locator('[data-role="viewer"]')
    lines = page.locator('[data-role="list"] li[data-step]')
    assert lines.count() == len(run.steps) + 1  # the givens, then every step

    def cells_where(attribute: str) -> list[int]:
        found = page.eval_on_selector_all(
            f'[data-role="grid"] [{attribute}="true"]', "els => els.map(e => +e.dataset.cell)"
        )
        return sorted(found)

    page.keyboard.press("ArrowRight")  # the givens
    for number, step in enumerate(run.steps, 1):
        page.keyboard.press("ArrowRight")
        assert viewer.get_attribute("data-step") == str(number)
        if step in patterns:
            assert cells_where("data-pattern") == sorted(step.cells), step
            struck = page.eval_on_selector_all(
                '[data-role="grid"] [data-cell] span.removed',
                "els => els.map(e => +e.closest('[data-cell]').dataset.cell)",
            )
            assert sorted(struck) == sorted(c for c, _ in step.removed), step
            assert step.technique.split()[0].lower() in lines.nth(number).inner_text().lower()
        else:
            assert cells_where("data-pattern") == []
            assert cells_where("data-current") == [step.cells[0]]
    values = page.eval_on_selector_all(
        '[data-role="grid"] [data-cell]', "els => els.map(e => e.dataset.value)"
    )
    assert tuple(int(v) for v in values) == run.grid
    assert is_solution(parse_puzzle(LOGIC), run.grid)
    page.screenshot(path=str(tmp_path / "logic.png"))
    assert errors == []


#: Each drawn mark's group: its kind, name, box, and the centre of its first circle (a
#: thermometer's bulb, a dot) or of itself.
_MARKS_JS = """els => els.map(g => {
  const r = g.getBoundingClientRect(), bulb = g.querySelector(':scope > circle');
  const b = bulb ? bulb.getBoundingClientRect() : r;
  return [g.dataset.mark, g.dataset.name, [r.left, r.top, r.right, r.bottom],
          [(b.left + b.right) / 2, (b.top + b.bottom) / 2]];
})"""
_CENTRES_JS = """els => els.map(e => {
  const r = e.getBoundingClientRect();
  return [(r.left + r.right) / 2, (r.top + r.bottom) / 2];
})"""


def test_variant_marks_are_drawn_over_the_grid(page, tmp_path):
    import random

    from helpers import marked_puzzle, random_solution

    from sudokulab import solve
    from sudokulab.catalog import load
    from sudokulab.classroom.page import viewer_html
    from sudokulab.models import Puzzle, geometry
    from sudokulab.models.variants import with_variant

    jigsaw = load("gen-jigsaw").entries[0]
    rules = ["anti-knight", "anti-king", "nonconsecutive"]
    miracle = with_variant(parse_puzzle("." * 38 + "1" + "." * 12 + "2" + "." * 29), rules)
    (answer,) = solve(miracle, backend="cpsat").solutions
    givens = tuple(0 if c % 7 == 0 else v for c, v in enumerate(answer))
    puzzles = {
        "9x9": marked_puzzle(geometry(9), tuple(random_solution(9, random.Random(9)))),
        "16x16": marked_puzzle(geometry(16), tuple(random_solution(16, random.Random(16)))),
        "jigsaw": marked_puzzle(jigsaw.puzzle.geometry, jigsaw.solution),
        "miracle": Puzzle(miracle.geometry, givens, (), None, miracle.rules),
    }
    for name, puzzle in puzzles.items():
        html = tmp_path / f"{name}.html"
        html.write_text(viewer_html(trace_puzzle(puzzle, max_steps=20)), encoding="utf-8")
        page.goto(html.as_uri())
        _check_marks(page, puzzle)
        page.screenshot(path=str(tmp_path / f"{name}.png"))
    assert page.errors == []


def _check_marks(page: Any, puzzle: Any) -> None:
    """The page draws a group per mark of the puzzle (captions under the grid), inside the
    grid but the clues (in its margin); bulbs and dots where their cells are; the pointer
    reaches the cells under the marks."""
    from sudokulab.classroom.marks import Caption, Clue, Dot, Thermometer, puzzle_marks

    marks = puzzle_marks(puzzle)
    drawn = [m for m in marks if not isinstance(m, Caption)]
    groups = page.eval_on_selector_all('[data-role="marks"] > g[data-mark]', _MARKS_JS)
    assert [(kind, label) for kind, label, _, _ in groups] == [(m.kind, m.name) for m in drawn]
    captions = page.eval_on_selector_all(
        '[data-role="caption"] [data-mark="caption"]', "els => els.map(e => e.textContent)"
    )
    assert captions == [m.text for m in marks if isinstance(m, Caption)]
    centres = page.eval_on_selector_all('[data-role="grid"] [data-cell]', _CENTRES_JS)
    box = page.locator('[data-role="grid"]').bounding_box()
    left, top = box["x"], box["y"]
    right, bottom = left + box["width"], top + box["height"]
    n = puzzle.geometry.size
    size = box["width"] / n  # a cell and its share of the border
    for mark, (_, _, (x0, y0, x1, y1), (cx, cy)) in zip(drawn, groups, strict=True):
        if isinstance(mark, Clue):  # in the margin, where its cell outside the grid is
            x, y = (x0 + x1) / 2, (y0 + y1) / 2
            assert not (left <= x <= right and top <= y <= bottom) and x0 >= 0 and y0 >= 0
            want_x = (
                left - size / 2 if mark.col < 0
                else right + size / 2 if mark.col >= n
                else centres[mark.col][0]
            )  # fmt: skip
            want_y = (
                top - size / 2 if mark.row < 0
                else bottom + size / 2 if mark.row >= n
                else centres[mark.row * n][1]
            )  # fmt: skip
            assert abs(x - want_x) < size / 2 and abs(y - want_y) < size / 2
            continue
        assert left <= x0 <= x1 <= right and top <= y0 <= y1 <= bottom
        if isinstance(mark, Thermometer):  # the bulb on its cell
            x, y = centres[mark.bulb]
            assert abs(cx - x) < 1.5 and abs(cy - y) < 1.5
            # the marks let the pointer through to the cell under them
            under = page.evaluate(
                f"document.elementFromPoint({x}, {y}).closest('[data-cell]').dataset.cell"
            )
            assert under == str(mark.bulb)
        if isinstance(mark, Dot):  # halfway between its cells' centres
            (ax, ay), (bx, by) = centres[mark.a], centres[mark.b]
            assert abs(cx - (ax + bx) / 2) < 1.5 and abs(cy - (ay + by) / 2) < 1.5
