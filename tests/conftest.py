"""Shared fixtures: where the public puzzle sets live, and small helpers."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def pytest_configure(config: pytest.Config) -> None:
    """A cache folder of the suite's own (the sha256 checks remember files there, and
    fetches land there): the suite never writes into the user's ~/.cache/sudokulab.
    Commands the tests start inherit it."""
    cache = tempfile.mkdtemp(prefix="sudokulab-test-cache-")
    os.environ["SUDOKULAB_CACHE"] = cache
    config.add_cleanup(lambda: shutil.rmtree(cache, ignore_errors=True))


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
