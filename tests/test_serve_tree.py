"""The live page's search tree in a real browser (Debian's Chromium through Playwright,
a real ``sudokulab serve``): every label is whole and none overlaps another, whatever the
labels' widths (they set the tree's spacing). Skips without the browser, fails in CI."""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_browser import open_page  # noqa: E402
from test_serve import HARD, call, running_server  # noqa: E402


def test_the_tree_labels_neither_overlap_nor_are_cut():
    # singles with the fewest-candidates order: some 70 guesses, so every node is labelled
    options = {"puzzle": HARD, "propagation": "singles", "order": "mrv"}
    with running_server() as (url, _), open_page(1200, 900) as page:
        _, expected = call(url, "/api/solve", options)
        guesses = expected["counters"]["guesses"]
        assert 20 <= guesses < 80, guesses  # labels are drawn up to 80 nodes
        page.goto(f"{url}?{urlencode(options)}")
        page.wait_for_selector('[data-role="app"][data-state="ready"]', timeout=60_000)
        page.locator('[data-role="tree-toggle"]').click()
        boxes = page.eval_on_selector_all(
            '[data-role="tree-svg"] text',
            "els => els.map(e => { const b = e.getBBox(); return [b.x, b.y, b.width, b.height]; })",
        )
        width = float(page.get_attribute('[data-role="tree-svg"]', "width"))
    assert len(boxes) == guesses
    assert all(x >= 0 and x + w <= width for x, _, w, _ in boxes)  # none cut at the edge
    for i, (x1, y1, w1, h1) in enumerate(boxes):
        for x2, y2, w2, h2 in boxes[i + 1 :]:
            apart = x1 + w1 <= x2 or x2 + w2 <= x1 or y1 + h1 <= y2 or y2 + h2 <= y1
            assert apart, ((x1, y1, w1, h1), (x2, y2, w2, h2))
