"""Shared fixtures: where the public puzzle sets live, and small helpers."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent


# Randomised tests draw the same examples on every run (a fixed budget each, set by the
# test): a failure reproduces, and the suite's time does not vary with what was drawn.
# No example database: nothing is written into the checkout.
settings.register_profile("suite", derandomize=True, database=None)
settings.load_profile("suite")


def pytest_configure(config: pytest.Config) -> None:
    """A cache folder of the suite's own (the sha256 checks remember files there, and
    fetches land there): the suite never writes into the user's ~/.cache/sudokulab.
    Commands the tests start inherit it."""
    cache = tempfile.mkdtemp(prefix="sudokulab-test-cache-")
    os.environ["SUDOKULAB_CACHE"] = cache
    config.add_cleanup(lambda: shutil.rmtree(cache, ignore_errors=True))
    # Where the environment forbids writing bytecode (PYTHONDONTWRITEBYTECODE, as some
    # sandboxes set it), every process the suite starts (the CLI, workers, the suite's own
    # xdist workers) would compile the package's sources again: about 50 ms a start, some
    # hundreds of starts. They share one bytecode cache of the suite's own instead.
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
        pycache = tempfile.mkdtemp(prefix="sudokulab-test-pycache-")
        os.environ["PYTHONPYCACHEPREFIX"] = pycache
        config.add_cleanup(lambda: shutil.rmtree(pycache, ignore_errors=True))


def _data_dir() -> Path | None:
    """The public data folder: $SUDOKULAB_DATA, else a `shared/data` beside the checkout."""
    env = os.environ.get("SUDOKULAB_DATA")
    if env:
        return Path(env)
    candidate = REPO.parent / "shared" / "data"
    return candidate if candidate.is_dir() else None


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The folder of public sets; skips when absent, fails when named but missing."""
    path = _data_dir()
    if path is None:
        pytest.skip("public data sets not found: set SUDOKULAB_DATA")
    if not path.is_dir():
        pytest.fail(f"SUDOKULAB_DATA={path} is not a folder")
    return path


@pytest.fixture(scope="session")
def public_set(data_dir: Path) -> Callable[[str], tuple]:
    """A public set's entries by its path in the data folder, each file parsed once a
    session (a worker's, under xdist): sudokus_17's 49,151 puzzles take seconds."""
    from sudokulab import read_file

    return cache(lambda path: tuple(read_file(data_dir / path)))


@pytest.fixture(scope="session")
def public_givens(data_dir: Path) -> Callable[[str], tuple]:
    """A public set's givens (a tuple of ints a puzzle) by its path in the data folder,
    read in blocks (the bench's bulk reader: a twentieth of read_file's time) once a
    session."""
    from sudokulab.models.stream import read_blocks

    def read(path: str) -> tuple:
        blocks = list(read_blocks(data_dir / path))
        assert all(hasattr(b, "grids") for b in blocks), path  # no parse error
        return tuple(tuple(row) for b in blocks for row in b.grids.givens.tolist())

    return cache(read)
