"""The CLI reference, generated from the argument parsers so that it cannot drift.

:func:`commands` walks :func:`sudokulab.cli.build_parser`: the program, every command
and every subcommand (``data fetch``), each with its description, usage, options
(option strings, value, help text, choices, default) and epilog. :func:`markdown` renders
them as the documentation site's CLI reference page; the site's build hook puts it into
``docs/cli.md`` at build time, and a test checks that every option has an entry there.

>>> solve = next(c for c in commands() if c.name == "sudokulab solve")
>>> option = next(o for o in solve.options if "--limit" in o.names)
>>> option.placeholder, option.help
('LIMIT', 'most solutions --count looks for (default: 1000)')
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

#: Width of the usage lines, so the page is the same on every terminal.
WIDTH = 88


@dataclass(frozen=True)
class Option:
    """One argument of a command: an option (``--limit``) or a positional (``PUZZLE``)."""

    names: tuple[str, ...]  # the option strings; for a positional, its metavar alone
    placeholder: str  # the value it takes, as usage shows it ("" for a flag)
    help: str  # the help text, %(default)s and the like expanded
    choices: tuple[str, ...]  # the allowed values (empty: any)
    default: str  # the default when the help text does not state one ("" otherwise)
    positional: bool


@dataclass(frozen=True)
class Command:
    """One command of the command line, as its parser describes it."""

    name: str  # the full command line prefix, e.g. "sudokulab data fetch"
    summary: str  # the one line the parent command lists it with
    description: str
    usage: str
    options: tuple[Option, ...]
    subcommands: tuple[tuple[str, str], ...]  # (name, summary) of each subcommand
    epilog: str


def commands(parser: argparse.ArgumentParser | None = None) -> list[Command]:
    """Every command of ``parser`` (default: the ``sudokulab`` parser), parents first."""
    if parser is None:
        from .commands import build_parser

        parser = build_parser()
    return _walk(parser, summary=parser.description or "")


def _walk(parser: argparse.ArgumentParser, summary: str) -> list[Command]:
    """The command of ``parser`` and, after it, those of its subcommands."""
    options, subcommands, children = [], [], []
    for action in parser._actions:  # argparse has no public way to list them
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                subcommands.append((name, helps.get(name, "")))
                children += _walk(sub, helps.get(name, ""))
        elif action.help is not argparse.SUPPRESS:
            options.append(_option(parser, action))
    command = Command(
        name=parser.prog,
        summary=summary,
        description=parser.description or "",
        usage=_usage(parser),
        options=tuple(options),
        subcommands=tuple(subcommands),
        epilog=(parser.epilog or "").strip("\n"),
    )
    return [command, *children]


def _formatter(parser: argparse.ArgumentParser) -> argparse.HelpFormatter:
    return parser.formatter_class(prog=parser.prog, width=WIDTH)


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = _formatter(parser)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _option(parser: argparse.ArgumentParser, action: argparse.Action) -> Option:
    formatter = _formatter(parser)
    text = formatter._expand_help(action) if action.help else ""
    choices = tuple(str(c) for c in action.choices or ())
    if action.option_strings:
        names = tuple(action.option_strings)
        placeholder = "" if action.nargs == 0 else _metavar(action)
    else:
        names = (_metavar(action),)
        placeholder = ""
    default = action.default
    states_default = "default" in text.lower()
    shown = (
        "" if states_default or default in (None, False, [], argparse.SUPPRESS) else str(default)
    )
    return Option(names, placeholder, text, choices, shown, not action.option_strings)


def _metavar(action: argparse.Action) -> str:
    """The value's name as usage shows it: the metavar, {the,choices}, or DEST."""
    if action.metavar is not None:
        return str(action.metavar)
    if action.choices:
        return "{" + ",".join(str(c) for c in action.choices) + "}"
    return action.dest.upper() if action.option_strings else action.dest


# --- Markdown ----------------------------------------------------------------------------


def markdown(parser: argparse.ArgumentParser | None = None) -> str:
    """The reference as Markdown: one section per command, the program's first."""
    sections = [_section(command) for command in commands(parser)]
    return "\n\n".join("\n".join(lines) for lines in sections) + "\n"


def anchor(name: str) -> str:
    """The id of a command's section: ``sudokulab data fetch`` -> ``sudokulab-data-fetch``."""
    return name.replace(" ", "-")


def _section(command: Command) -> list[str]:
    lines = [f"## {command.name} {{#{anchor(command.name)}}}", ""]
    if command.description:
        lines += [_text(command.description), ""]
    lines += ["```text", command.usage, "```"]
    if command.subcommands:
        lines += ["", "| command | what it does |", "|---|---|"]
        for name, summary in command.subcommands:
            full = f"{command.name} {name}"
            lines.append(f"| [`{full}`](#{anchor(full)}) | {_text(summary)} |")
    if command.options:
        lines += ["", "| argument | what it does |", "|---|---|"]
        lines += [_row(option) for option in command.options]
    if command.epilog:
        lines += ["", "```text", command.epilog, "```"]
    return lines


def _row(option: Option) -> str:
    """A table row: the option strings (each with its value), then the help and default."""
    value = f" {option.placeholder}" if option.placeholder else ""
    names = ", ".join(f"`{_cell_code(name + value)}`" for name in option.names)
    text = _text(option.help)
    if option.default:
        text += f" (default: `{_cell_code(option.default)}`)"
    return f"| {names} | {text} |"


def _cell_code(text: str) -> str:
    """Text for a code span inside a table cell: only the column bar needs escaping."""
    return text.replace("|", "\\|")


_CODE_SPAN = re.compile(r"(`[^`]*`)")


def _text(text: str) -> str:
    """Plain help text as Markdown in a table cell: one line, Markdown's signs escaped
    outside `code spans`."""
    parts = _CODE_SPAN.split(" ".join(text.split()))
    out = []
    for number, part in enumerate(parts):
        if number % 2:  # a code span, kept as written
            out.append(_cell_code(part))
        else:
            out.append(re.sub(r"([\\*_<>\[\]|#])", r"\\\1", part))
    return "".join(out)
