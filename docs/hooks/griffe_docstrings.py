"""A Griffe extension: the project's docstrings, as written for ``help()`` and doctest,
made readable as Markdown on the documentation site.

Two things are rewritten before the docstrings are parsed, in the site only (the source
is untouched): a run of doctest lines (``>>>`` and their output) becomes a fenced
``pycon`` block, where Markdown would otherwise read ``>`` as a quotation; and a Sphinx
role (``:func:`solve```) becomes a plain code span.
"""

from __future__ import annotations

import re

import griffe

_ROLE = re.compile(r":(?:mod|func|class|data|meth|attr|exc|obj):`~?([^`]+)`")


def _fence_doctests(text: str) -> str:
    """Wrap every run of ``>>>`` lines and their output in a ``pycon`` fence."""
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    fenced = False  # inside a fence the docstring already has
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if stripped.startswith("```"):
            fenced = not fenced
        if fenced or not stripped.startswith(">>>"):
            out.append(line)
            i += 1
            continue
        indent = line[: len(line) - len(stripped)]
        block = []
        while i < len(lines) and lines[i].strip() and lines[i].startswith(indent):
            block.append(lines[i][len(indent) :])
            i += 1
        if out and out[-1].strip():
            out.append("")
        out += [f"{indent}```pycon", *(indent + b for b in block), f"{indent}```"]
        if i < len(lines) and lines[i].strip():
            out.append("")
    return "\n".join(out)


def rewrite(text: str) -> str:
    """The docstring's text as the site shows it."""
    return _fence_doctests(_ROLE.sub(lambda m: f"``{m.group(1)}``", text))


class ProjectDocstrings(griffe.Extension):
    """Rewrite every docstring as its object is created (see the module docstring)."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: object) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rewrite(obj.docstring.value)
