"""Runnable documentation: README examples and docstring examples are executed."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import re
import subprocess
from pathlib import Path

import pytest

import sudokulab

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text()


def _console_examples() -> list[tuple[str, str]]:
    """(command, expected stdout) for every `$ ` line of the README's console blocks."""
    examples = []
    for block in re.findall(r"```console\n(.*?)```", README, re.S):
        command, expected = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if command is not None:
                    examples.append((command, "".join(expected)))
                command, expected = line[2:], []
            else:
                expected.append(line + "\n")
        if command is not None:
            examples.append((command, "".join(expected)))
    return examples


EXAMPLES = _console_examples()


def test_readme_has_console_examples():
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize(("command", "expected"), EXAMPLES, ids=[c[:50] for c, _ in EXAMPLES])
def test_readme_console_example(command, expected):
    proc = subprocess.run(
        ["bash", "-c", command], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert proc.stdout == expected, proc.stderr


def test_readme_python_examples():
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for number, block in enumerate(re.findall(r"```python\n(.*?)```", README, re.S)):
        test = parser.get_doctest(block, {}, f"README python block {number}", "README.md", 0)
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0


def _modules():
    names = [sudokulab.__name__]
    for info in pkgutil.walk_packages(sudokulab.__path__, "sudokulab."):
        if not info.name.endswith("__main__"):
            names.append(info.name)
    return names


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
