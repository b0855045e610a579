"""The notebook lessons run top to bottom in a real Jupyter kernel, and show what they say."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat", reason="the lessons need the test extra")
nbclient = pytest.importorskip("nbclient", reason="the lessons need the test extra")

LESSONS = sorted((Path(__file__).parent.parent / "docs" / "lessons").glob("*.ipynb"))


def _run(path: Path):
    book = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        book, timeout=180, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    client.execute()  # a cell that raises fails the test with the cell and its traceback
    return book


def _text(book) -> str:
    parts = []
    for cell in book.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            data = out.get("data", {})
            parts.append(data.get("text/plain", ""))
            parts.append(data.get("text/html", ""))
    return "\n".join(parts)


def test_three_lessons_are_there():
    names = [p.stem for p in LESSONS]
    assert names == ["1-sudoku-as-a-csp", "2-one-model-many-solvers", "3-human-techniques"]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_a_lesson_runs_top_to_bottom(path):
    from sudokulab import native

    book = _run(path)
    text = _text(book)
    if path.stem.startswith("1-"):
        assert "810 edges" in text and "1620 arcs" in text
        for level in native.PROPAGATIONS:  # the levels table has every level the engine has
            assert level in text, level
        assert "image/png" in str(book.cells)  # the bar plot
    elif path.stem.startswith("2-"):
        assert "verdict" in text and "cpsat" in text and "dlx" in text
    else:
        assert "hidden single" in text and "locked candidates" in text
