"""MkDocs hooks of the documentation site (mkdocs.yml ``hooks:``).

- The API reference: the package's folders are mapped into the ``sudokulab`` namespace
  at install time (``models/`` is ``sudokulab.models``, see ``[tool.setuptools.package-dir]``
  in pyproject.toml), which Griffe cannot follow when it reads the source. Before the
  build, ``build/docs-api/sudokulab/`` is laid out as the installed package looks, as
  symbolic links to the sources, and mkdocstrings reads it from there.
- The CLI reference: the page ``cli.md`` holds a marker that is replaced by the reference
  generated from the argument parsers (``sudokulab.cli.reference``), so it cannot drift.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parents[2]
#: Where the package is laid out for Griffe (``paths`` of the python handler).
API_TREE = ROOT / "build" / "docs-api"
#: The line of ``cli.md`` that the generated reference replaces.
CLI_MARKER = "<!-- cli-reference -->"


def package_dirs() -> dict[str, Path]:
    """Each package of the ``sudokulab`` namespace and the source folder it comes from."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        mapping = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    return {name: ROOT / folder for name, folder in mapping.items()}


def lay_out_package(tree: Path = API_TREE) -> Path:
    """Build ``tree/sudokulab`` as the installed package looks; returns the package folder."""
    shutil.rmtree(tree, ignore_errors=True)
    dirs = package_dirs()
    top = tree / "sudokulab"
    top.mkdir(parents=True)
    for entry in dirs["sudokulab"].iterdir():
        if entry.name != "__pycache__":
            (top / entry.name).symlink_to(entry)
    for name, folder in dirs.items():
        if name != "sudokulab":
            (top / name.split(".", 1)[1]).symlink_to(folder)
    return top


@event_priority(100)  # before mkdocstrings reads its handler's paths
def on_config(config, **kwargs):
    lay_out_package()
    return config


def on_page_markdown(markdown: str, page, config, files, **kwargs) -> str:
    if CLI_MARKER not in markdown:
        return markdown
    from sudokulab.cli.reference import markdown as cli_markdown

    return markdown.replace(CLI_MARKER, cli_markdown())
