"""Runnable documentation: the examples of the README and of the documentation site
(docs/) are executed, docstring examples too, and the CLI reference covers every option.

- Every ``$ `` line of a ```` ```console ```` block runs with bash from the repository's
  root folder; its standard output must equal the lines below it, exactly.
- Every ```` ```python ```` block with ``>>>`` runs as a doctest (the blocks of one page
  share their names), from the repository's root folder.
- The CLI reference (generated from the parsers by ``sudokulab.cli.reference``) has an
  entry with a help text for every option string, positional and command of every parser.
"""

from __future__ import annotations

import argparse
import contextlib
import doctest
import importlib
import inspect
import io
import pkgutil
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from helpers import parsers

import sudokulab
from sudokulab.cli import build_parser, main, reference

REPO = Path(__file__).resolve().parent.parent
#: Every page with examples: the README, then the site's pages.
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]

_FENCE = re.compile(r"^```(\w+)[^\n]*\n(.*?)^```", re.S | re.M)


def _blocks(path: Path, language: str) -> list[tuple[int, str]]:
    """(line number, text) of every fenced block of ``language`` in a page."""
    text = path.read_text()
    return [
        (text.count("\n", 0, m.start()) + 1, m.group(2))
        for m in _FENCE.finditer(text)
        if m.group(1) == language
    ]


def _console_examples() -> list[tuple[str, str, str]]:
    """(where, command, expected stdout) for every `$ ` line of every console block."""
    examples = []
    for page in PAGES:
        name = page.relative_to(REPO).as_posix()
        for start, block in _blocks(page, "console"):
            command, expected, line = None, [], start
            for offset, text in enumerate(block.splitlines(), start + 1):
                if text.startswith("$ "):
                    if command is not None:
                        examples.append((f"{name}:{line}", command, "".join(expected)))
                    command, expected, line = text[2:], [], offset
                else:
                    expected.append(text + "\n")
            if command is not None:
                examples.append((f"{name}:{line}", command, "".join(expected)))
    return examples


EXAMPLES = _console_examples()


def test_every_use_has_console_examples():
    pages = {where.split(":")[0] for where, _, _ in EXAMPLES}
    assert "README.md" in pages
    for page in (
        "getting-started",
        "comparing",
        "cross-checking",
        "bench",
        "teaching",
        "variants",
        "data",
    ):
        assert any(p.endswith(f"{page}.md") for p in pages), page
    assert len(EXAMPLES) >= 40


@pytest.mark.parametrize(
    ("where", "command", "expected"), EXAMPLES, ids=[w for w, _, _ in EXAMPLES]
)
def test_console_example(where, command, expected, capsys, monkeypatch):
    if _IN_PROCESS.fullmatch(command):
        # A plain `sudokulab ...` line: its command in this process (main(argv), what the
        # console script calls), not a shell and an interpreter started for each; the
        # console script itself is tested in tests/test_cli.py and tests/test_startup.py.
        monkeypatch.chdir(REPO)
        with contextlib.suppress(SystemExit):  # --help and usage errors end as from a shell
            main(shlex.split(command)[1:])
        out, err = capsys.readouterr()
        assert out == expected, f"{where}: {command}\n{err}"
        return
    proc = subprocess.run(
        ["bash", "-c", command], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert proc.stdout == expected, f"{where}: {command}\n{proc.stderr}"


#: A line the shell would only split into words: no pipe, redirection, variable,
#: substitution or glob.
_IN_PROCESS = re.compile(r"sudokulab [^|<>;&$`()*?\\]*")


PYTHON_PAGES = [p for p in PAGES if any(">>>" in b for _, b in _blocks(p, "python"))]


@pytest.mark.parametrize("page", PYTHON_PAGES, ids=[p.name for p in PYTHON_PAGES])
def test_python_examples(page, monkeypatch):
    monkeypatch.chdir(REPO)  # the examples read files by their path from the root
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    name = page.relative_to(REPO).as_posix()
    globs: dict = {}  # one page's blocks share their names, as a reader would
    report = io.StringIO()
    for start, block in _blocks(page, "python"):
        if ">>>" in block:
            test = parser.get_doctest(block, globs, f"{name}:{start}", name, start)
            runner.run(test, out=report.write, clear_globs=False)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0, report.getvalue()


def _modules():
    """Every module of the package, the subpackages kept in their own top-level folders
    (models, native, logic, backends: mapped into the namespace) included."""
    mapped = (
        "models",
        "native",
        "logic",
        "encodings",
        "backends",
        "data",
    )  # pyproject's package-dir
    names = []
    packages = [sudokulab] + [importlib.import_module(f"sudokulab.{m}") for m in mapped]
    while packages:
        package = packages.pop()
        names.append(package.__name__)
        for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            if info.ispkg and info.name.removeprefix("sudokulab.") not in mapped:
                packages.append(importlib.import_module(info.name))
            elif not info.name.endswith("__main__"):
                names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


# --- the CLI reference -------------------------------------------------------------------


def _rows(section: str) -> list[tuple[str, str]]:
    """(first cell, second cell) of every table row of a section ('\\|' is not a border)."""
    rows = []
    for line in section.splitlines():
        if line.startswith("| ") and not line.startswith("|---"):
            cells = re.split(r"(?<!\\)\|", line)
            rows.append((cells[1].strip(), cells[2].strip()))
    return rows


def missing_entries(parser: argparse.ArgumentParser, text: str) -> list[str]:
    """What the reference ``text`` lacks: every option string, positional or command of
    ``parser`` and its subcommands that has no entry with a help text in its command's
    section. Read from argparse itself, not from the generator."""
    missing = []
    for command in parsers(parser):
        heading = f"## {command.prog} {{#"
        if heading not in text:
            missing.append(f"{command.prog}: no section")
            continue
        start = text.index(heading)
        end = text.find("\n## ", start + 1)
        rows = _rows(text[start : end if end != -1 else len(text)])
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                wanted = [f"{command.prog} {name}" for name in action.choices]
            elif action.option_strings:
                wanted = list(action.option_strings)
            else:
                wanted = [action.metavar or action.dest]
            for name in wanted:
                helps = [
                    help
                    for first, help in rows
                    if re.search(rf"`{re.escape(name)}[` ]", first) is not None
                ]
                if not any(helps):  # no row, or only rows without a help text
                    missing.append(f"{command.prog}: {name}")
    return missing


def test_the_cli_reference_has_every_option_with_its_help():
    parser = build_parser()
    assert missing_entries(parser, reference.markdown(parser)) == []


def test_an_option_without_help_is_caught():
    parser = argparse.ArgumentParser(prog="demo")
    parser.add_argument("--quiet", action="store_true")  # no help text
    parser.add_argument("--level", type=int, default=3, help="how much")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub = commands.add_parser("run", help="run it")
    sub.add_argument("target")  # no help text
    commands.add_parser("stop")  # no summary
    assert missing_entries(parser, reference.markdown(parser)) == [
        "demo: --quiet",
        "demo: demo stop",
        "demo run: target",
    ]


def test_the_cli_reference_shows_choices_defaults_and_examples():
    text = reference.markdown()
    assert "| `--propagation {none,forward,ac3,singles,hidden,locked,gac,sac}` |" in text
    assert "| `--number N` | the N-th puzzle of the input (default: `1`) |" in text
    assert "sudokulab data fetch top95 hardest easy50 --cache /tmp/sets" in text
    assert "## sudokulab data fetch {#sudokulab-data-fetch}" in text


def test_the_cli_page_has_the_marker_the_build_replaces():
    assert "<!-- cli-reference -->" in (REPO / "docs" / "cli.md").read_text()


def test_every_page_is_in_the_site_navigation():
    config = (REPO / "mkdocs.yml").read_text()
    pages = [p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md")]
    assert [p for p in pages if f": {p}\n" not in config] == []


# --- what the pages say of the API -------------------------------------------------------


def test_getting_started_states_the_defaults_of_solve():
    text = (REPO / "docs" / "getting-started.md").read_text()
    stated = re.search(r'`solve\(puzzle, backend="([^"]+)", limit=(\w+), timeout=(\w+),', text)
    assert stated, "getting-started.md no longer states solve's signature"
    params = inspect.signature(sudokulab.solve).parameters
    actual = (params["backend"].default, params["limit"].default, params["timeout"].default)
    assert stated.groups() == tuple(map(str, actual))


def test_every_public_function_of_the_api_is_a_name_of_the_package():
    from sudokulab import api

    public = {
        name
        for name, value in vars(api).items()
        if inspect.isfunction(value) and value.__module__ == api.__name__ and name[0] != "_"
    }
    internal = {"solve_model", "solve_grids", "rate_rows"}  # the CLI's and the bench's
    assert public - internal <= set(sudokulab.__all__)
    namespace: dict = {}
    exec("from sudokulab import *", namespace)
    assert namespace["rate"] is api.rate
