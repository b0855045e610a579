"""The live classroom page in a real browser: Debian's Chromium, driven by Playwright,
against a real ``sudokulab serve`` started on a free port.

As in tests/test_browser.py, only the system browser is used; without it (or Playwright)
the tests skip, except in CI, where they fail. Run as a script, this file takes the
screenshot of the page that docs/guides/teaching.md shows::

    python tests/test_serve_browser.py docs/guides/serve.png
"""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_browser import open_page  # noqa: E402
from test_serve import HARD, call, running_server  # noqa: E402

from sudokulab import is_solution, parse_puzzle  # noqa: E402


@pytest.fixture(scope="module")
def server():
    with running_server() as (url, _):
        yield url


@pytest.fixture
def page():
    with open_page(1500, 1000) as page:
        yield page


def ready(page, state: str = "ready") -> None:
    """Wait until the page's last request is answered (``ready``, or ``error``)."""
    page.wait_for_selector(f'[data-role="app"][data-state="{state}"]', timeout=60_000)


def role(page, name: str):
    return page.locator(f'[data-role="{name}"]')


def shown_values(page) -> tuple[int, ...]:
    values = page.eval_on_selector_all(
        '[data-role="viewer"] [data-role="grid"] [data-cell]',
        "els => els.map(e => e.dataset.value)",
    )
    return tuple(int(v) if v else 0 for v in values)


def test_type_a_puzzle_step_to_the_end_switch_propagation_and_share(page, server):
    page.goto(server)
    page.wait_for_selector('[data-role="app"][data-ready="true"]')
    role(page, "editor").locator("input").first.click()
    page.keyboard.type(HARD)  # into the grid, cell after cell ("." leaves one blank)
    assert role(page, "puzzle").input_value() == HARD
    role(page, "solve").click()
    ready(page)
    steps = int(role(page, "app").get_attribute("data-steps"))
    _, expected = call(server, "/api/solve", {"puzzle": HARD})
    assert steps == len(expected["viewer"]["steps"])

    viewer = role(page, "viewer")
    viewer.click()
    for step in range(5):
        page.keyboard.press("ArrowRight")
        assert viewer.get_attribute("data-step") == str(step)
    # the guesses: each jump lands on the next one, and the list says "guess"
    guesses = [i for i, row in enumerate(expected["viewer"]["steps"]) if row["k"] == "guess"]
    for index in guesses:
        role(page, "next-guess").click()
        assert viewer.get_attribute("data-step") == str(index)
        assert role(page, "current").inner_text().startswith("guess ")
    role(page, "last").click()
    assert viewer.get_attribute("data-step") == str(steps - 1)
    grid = shown_values(page)
    assert is_solution(parse_puzzle(HARD), grid)
    assert "solved" in role(page, "summary").inner_text()
    assert "grade expert" in role(page, "rating").inner_text()

    # the search tree: a node per guess, a contradiction, the path to the solution
    role(page, "tree-toggle").click()
    assert role(page, "tree").is_visible()
    nodes = page.locator('[data-role="tree-svg"] circle[data-node]')
    assert nodes.count() == expected["counters"]["guesses"] + 1
    assert page.locator('[data-role="tree-svg"] circle[data-end="dead"]').count() >= 1
    assert page.locator('[data-role="tree-svg"] circle[data-end="solution"]').count() == 1

    def drawn(kind: str) -> int:
        return page.locator(f'[data-role="tree-svg"] circle.{kind}').count()

    # at the last step the whole tree is there; it grows again from the start
    assert drawn("future") == 0 and drawn("dead") >= 1 and drawn("solution") == 1
    role(page, "first").click()
    assert drawn("future") == len(guesses) and drawn("dead") == drawn("solution") == 0
    role(page, "next-guess").click()
    assert drawn("future") == len(guesses) - 1 and drawn("current") == 1
    role(page, "tree-whole").check()
    assert drawn("future") == 0 and drawn("solution") == 1
    page.locator('[data-role="tree-svg"] circle[data-end="dead"]').first.click()
    assert viewer.get_attribute("data-step") == str(guesses[0])

    # another propagation: the steps change, and so does the URL
    role(page, "propagation").select_option("forward")
    page.wait_for_function(f"document.getElementById('app').dataset.steps !== '{steps}'")
    ready(page)
    _, forward = call(server, "/api/solve", {"puzzle": HARD, "propagation": "forward"})
    changed = int(role(page, "app").get_attribute("data-steps"))
    assert changed == len(forward["viewer"]["steps"]) != steps
    params = parse_qs(urlsplit(page.url).query)
    assert params == {"puzzle": [HARD], "propagation": ["forward"]}

    # share: the link opens the same state after a reload
    shared = role(page, "share").get_attribute("href")
    page.goto(server.rstrip("/") + shared)
    ready(page)
    assert role(page, "propagation").input_value() == "forward"
    assert role(page, "app").get_attribute("data-puzzle") == HARD
    assert int(role(page, "app").get_attribute("data-steps")) == changed
    page.reload()
    ready(page)
    assert int(role(page, "app").get_attribute("data-steps")) == changed
    assert page.errors == []


def test_a_puzzle_in_the_url_opens_with_the_default_settings_and_certify_adds_a_proof(page, server):
    page.goto(f"{server}?puzzle={HARD}")
    ready(page)
    assert role(page, "solver").input_value() == "engine"
    assert role(page, "propagation").input_value() == "hidden"
    assert role(page, "order").input_value() == "mrv"
    assert role(page, "puzzle").input_value() == HARD
    values = page.eval_on_selector_all(
        '[data-role="editor"] input', "els => els.map(e => e.value || '.')"
    )
    assert "".join(values) == HARD
    assert not role(page, "certify").is_checked() and not role(page, "proof").is_visible()
    # certify: the proof of a 4x4's verdict, in a collapsed section under the summary
    pytest.importorskip("pysat")
    page.goto(f"{server}?puzzle=..1.4.....3..2..&certify=true")
    ready(page)
    assert role(page, "certify").is_checked()
    section = page.locator('[data-role="viewer"] [data-role="proof"]')
    assert section.is_visible() and section.get_attribute("data-outcome") == "accepted"
    steps = section.locator('[data-role="proof-propagation"] li')
    assert not steps.first.is_visible()  # collapsed until asked
    section.locator("summary").click()
    claim = section.locator('[data-role="proof-claim"]').inner_text()
    assert claim == "proof: the puzzle has exactly 1 solution"
    verdict = section.locator('[data-role="proof-verdict"]').inner_text()
    assert verdict.startswith("accepted by sudokulab's checker")
    assert steps.count() > 1 and "a contradiction" in steps.last.inner_text()
    assert steps.first.get_attribute("data-implied") == "1"
    assert page.errors == []


def test_fifteen_browser_sessions_at_once_all_get_their_stories(page, server):
    """A class: fifteen pages open their shared links at once (each its own puzzle and
    level); every one gets its story (the API's for those settings), whose last step is
    its puzzle's solution where the story is not cut at the step bound."""
    from sudokulab.catalog import load
    from sudokulab.native import PROPAGATIONS

    puzzles = [e.puzzle for e in load("gen-classic-hard").entries]
    levels = [p for p in PROPAGATIONS if p != "none"]
    pages = [page] + [page.context.browser.new_page() for _ in range(14)]
    for k, tab in enumerate(pages):  # each navigation returns once its page has loaded
        puzzle = puzzles[k % len(puzzles)]
        tab.goto(f"{server}?puzzle={puzzle}&propagation={levels[k % len(levels)]}")
    cut = 0
    for k, tab in enumerate(pages):
        ready(tab)
        role(tab, "last").click()
        puzzle, level = puzzles[k % len(puzzles)], levels[k % len(levels)]
        assert role(tab, "propagation").input_value() == level
        _, expected = call(server, "/api/solve", {"puzzle": str(puzzle), "propagation": level})
        assert int(role(tab, "app").get_attribute("data-steps")) == len(expected["viewer"]["steps"])
        if expected["viewer"]["truncated"]:
            cut += 1
        else:
            assert is_solution(puzzle, shown_values(tab)), k
    assert cut < len(pages)
    assert page.errors == []


def test_a_variant_in_the_url_shades_its_units(page, server):
    from sudokulab.catalog import load

    line = str(load("gen-x").entries[0].puzzle)
    page.goto(f"{server}?puzzle={line}&variant=x")
    ready(page)
    assert role(page, "variant").input_value() == "x"
    shaded = page.eval_on_selector_all(
        '[data-role="viewer"] .slv-cell.extra', "els => els.map(e => +e.dataset.cell)"
    )
    assert sorted(shaded) == sorted(
        {r * 9 + r for r in range(9)} | {r * 9 + 8 - r for r in range(9)}
    )
    role(page, "last").click()
    assert is_solution(load("gen-x").entries[0].puzzle, shown_values(page))
    assert page.errors == []


def test_a_bad_puzzle_shows_its_error(page, server):
    page.goto(server)
    page.wait_for_selector('[data-role="app"][data-ready="true"]')
    bad = "1..x" + "." * 77
    role(page, "puzzle").fill(bad)
    role(page, "puzzle").press("Enter")
    ready(page, "error")
    _, answer = call(server, "/api/solve", {"puzzle": bad})
    assert role(page, "error").inner_text() == answer["error"]
    assert "column 4" in answer["error"]
    assert page.locator('[data-role="editor"] input.bad').get_attribute("data-cell") == "3"
    clash = "11" + "." * 79
    role(page, "puzzle").fill(clash)
    role(page, "solve").click()
    page.wait_for_function(
        "document.querySelector('[data-role=error]').textContent.includes('invalid puzzle')"
    )
    assert role(page, "error").inner_text().startswith("puzzle: invalid puzzle: row 1: r1c1")


def test_the_logic_solver_a_set_a_generated_puzzle_and_a_check(page, server):
    page.goto(server)
    page.wait_for_selector('[data-role="app"][data-ready="true"]')
    role(page, "set").select_option("gen-classic-medium")
    role(page, "set-number").fill("2")
    role(page, "load").click()
    ready(page)
    _, picked = call(server, "/api/sets/gen-classic-medium/2")
    assert role(page, "app").get_attribute("data-puzzle") == picked["puzzle"]
    role(page, "solver").select_option("logic")
    page.wait_for_url("**solver=logic**")
    ready(page)
    assert not role(page, "propagation").is_visible()
    assert role(page, "next-guess").is_disabled()
    _, logic = call(server, "/api/solve", {"puzzle": picked["puzzle"], "solver": "logic"})
    assert int(role(page, "app").get_attribute("data-steps")) == len(logic["viewer"]["steps"])
    assert role(page, "rating").get_attribute("data-grade") == "medium"

    role(page, "grade").select_option("easy")
    role(page, "generate").click()
    page.wait_for_function(
        f"document.getElementById('app').dataset.puzzle !== '{picked['puzzle']}'",
        timeout=60_000,
    )
    ready(page)
    assert role(page, "rating").get_attribute("data-grade") == "easy"

    for name in ("native", "dlx"):
        page.locator(f'[data-role="backends"] input[value="{name}"]').check()
    role(page, "check").click()
    page.wait_for_selector('[data-role="check-results"][data-state="ready"]', timeout=60_000)
    for name in ("native", "dlx"):
        row = page.locator(f'[data-role="check-results"] tr[data-backend="{name}"]')
        assert "solved" in row.inner_text() and "yes" in row.inner_text()
    assert page.errors == []


def screenshot(path: str) -> None:
    """The page on a hard puzzle, mid-search, the tree open: the docs' picture."""
    with running_server() as (url, _), open_page(1500, 1050) as page:
        page.goto(f"{url}?puzzle={HARD}&propagation=forward")
        ready(page)
        for _ in range(40):  # well into the search: the tree has grown a while
            role(page, "next-guess").click()
        role(page, "tree-toggle").click()
        role(page, "check").click()
        page.wait_for_selector('[data-role="check-results"][data-state="ready"]', timeout=60_000)
        page.screenshot(path=path, full_page=True)


def test_a_killer_set_loads_as_a_document_with_its_cages_drawn(page, server):
    """A killer puzzle from a set: the text is its document, the grid shows its givens
    read-only, the viewer draws every cage, the last step is the solution, and the shared
    link opens the same puzzle."""
    from sudokulab.catalog import load

    entry = load("gen-killer").entries[0]
    page.goto(server)
    page.wait_for_selector('[data-role="app"][data-ready="true"]')
    role(page, "set").select_option("gen-killer")
    role(page, "set-number").fill("1")
    role(page, "load").click()
    ready(page)
    assert role(page, "puzzle").input_value().startswith("{")
    assert role(page, "doc-hint").is_visible()
    editor = role(page, "editor").locator("input")
    assert editor.first.get_attribute("readonly") is not None
    caged = sum(len(c.cells) for c in entry.puzzle.cages)
    assert page.locator('[data-role="viewer"] [data-role="grid"] [data-cage]').count() == caged
    role(page, "last").click()
    assert shown_values(page) == tuple(entry.solution)
    href = role(page, "share").get_attribute("href")
    page.goto(server.rstrip("/") + href)
    ready(page)
    assert role(page, "puzzle").input_value() == call(server, "/api/sets/gen-killer/1")[1]["puzzle"]
    assert page.locator('[data-role="viewer"] [data-role="grid"] [data-cage]').count() == caged
    assert not page.errors


def test_a_thermometer_set_loads_with_its_marks_drawn(page, server):
    """The live page's viewer draws a set's variant marks as the static page does."""
    from sudokulab.catalog import load
    from sudokulab.classroom.marks import puzzle_marks

    entry = load("gen-thermometer").entries[0]
    page.goto(server)
    page.wait_for_selector('[data-role="app"][data-ready="true"]')
    role(page, "set").select_option("gen-thermometer")
    role(page, "set-number").fill("1")
    role(page, "load").click()
    ready(page)
    drawn = page.eval_on_selector_all(
        '[data-role="viewer"] [data-role="marks"] > g[data-mark]',
        "els => els.map(g => [g.dataset.mark, g.dataset.name])",
    )
    assert drawn == [[m.kind, m.name] for m in puzzle_marks(entry.puzzle)]
    assert len(drawn) > 1
    role(page, "last").click()
    assert shown_values(page) == tuple(entry.solution)
    assert not page.errors


if __name__ == "__main__":
    screenshot(sys.argv[1] if len(sys.argv) > 1 else "serve.png")
