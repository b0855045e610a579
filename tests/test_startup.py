"""Each command imports what it runs and no more: module sets, never times.

Every command runs in a process of its own, as the ``sudokulab`` script runs it; what it
imported is the process's ``sys.modules`` at the end.
"""

from __future__ import annotations

import argparse
import importlib
import re
import subprocess
import sys

import pytest

from sudokulab import native
from sudokulab.cli.commands import GROUPS, build_parser
from sudokulab.models import is_solution, parse_puzzle

PUZZLE = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"

#: What a command may load only where it is used: the dataframes, the plots, the bench's
#: progress bars, the document schema checker, the solver packages, the cluster.
LIBRARIES = {
    "pandas",
    "matplotlib",
    "tqdm",
    "jsonschema",
    "ortools",
    "pysat",
    "z3",
    "constraint",
    "dask",
    "distributed",
}
#: The concerns above the backends that ``solve`` does not run.
CONCERNS = {"sudokulab.bench", "sudokulab.classroom", "sudokulab.generate", "sudokulab.logic"}
#: The backends other than the native engine (each imports its solver package as it runs).
OTHER_BACKENDS = {
    f"sudokulab.backends.{name}" for name in ("cpsat", "sat", "mip", "smt", "dlx", "constraint")
}


#: Runs the command line as the ``sudokulab`` script does, then lists every module the
#: process holds (however it was imported) as the last line of stderr.
DRIVER = """
import sys
from sudokulab.cli import main
try:
    status = main(sys.argv[1:])
finally:
    print("modules:", *sorted(sys.modules), file=sys.stderr)
sys.exit(status)
"""


def imported(code: str, *argv: str, cwd) -> tuple[set[str], str]:
    """The modules a process running ``code`` with ``argv`` imported, and its stdout."""
    proc = subprocess.run(
        [sys.executable, "-c", code, *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    last = proc.stderr.splitlines()[-1].split()
    assert last[0] == "modules:", proc.stderr[-2000:]
    return set(last[1:]), proc.stdout


def command(*args: str, cwd) -> tuple[set[str], str]:
    return imported(DRIVER, *args, cwd=cwd)


def packages(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_solving_one_puzzle_loads_the_engine_and_the_front_end_alone(tmp_path):
    modules, out = command("solve", PUZZLE, cwd=tmp_path)
    assert is_solution(parse_puzzle(PUZZLE), [int(c) for c in out.strip()])
    assert not packages(modules) & LIBRARIES
    assert not {m for m in modules if ".".join(m.split(".")[:2]) in CONCERNS}
    assert not modules & OTHER_BACKENDS
    cli = {m for m in modules if m.startswith("sudokulab.cli.")}
    assert cli == {"sudokulab.cli.commands", "sudokulab.cli.common", "sudokulab.cli.solve"}
    # numpy holds blocks of puzzles (files, stdin, sets): one puzzle needs none of it,
    # unless the engine itself loads it.
    engine, _ = imported(
        "import sys, sudokulab.backends.native; print('modules:', *sys.modules, file=sys.stderr)",
        cwd=tmp_path,
    )
    assert ("numpy" in modules) == ("numpy" in engine)
    assert "sudokulab.models.stream" not in modules
    # a puzzle text is not a word, so it names no set: the catalog is not read
    assert "sudokulab.catalog" not in modules and "sudokulab.backends.isolation" not in modules
    assert "sudokulab.models.grids" not in modules or "sudokulab.models.grids" in engine
    # the reference's two thousand lines and the encodings only where they run, and the
    # variant rules' records only for a puzzle that has rules
    if native.ENGINE == "c":
        assert not {"sudokulab.native.reference", "sudokulab.encodings"} & modules
    assert "sudokulab.models.rules" not in modules


def test_the_command_lines_entry_loads_nothing_of_sudokulab_but_itself(tmp_path):
    # the console script imports sudokulab.cli before main() puts the Ctrl-C arrangement
    # in place: a Ctrl-C meanwhile is a traceback, so that import is kept to the package
    modules, _ = imported(
        "import sys; from sudokulab.cli import main; "
        "print('modules:', *sys.modules, file=sys.stderr)",
        cwd=tmp_path,
    )
    assert {m for m in modules if m.startswith("sudokulab")} == {"sudokulab", "sudokulab.cli"}


def test_a_file_of_puzzles_goes_the_block_way(tmp_path):
    (tmp_path / "two.txt").write_text(f"{PUZZLE}\n{PUZZLE}\n")
    modules, out = command("solve", "two.txt", cwd=tmp_path)
    assert len(out.split()) == 2
    assert {"numpy", "sudokulab.models.stream"} <= modules
    assert not packages(modules) & LIBRARIES


@pytest.mark.parametrize("name", [name for names in GROUPS.values() for name in names])
def test_a_commands_help_loads_its_group_alone_and_no_solver_package(tmp_path, name):
    modules, out = command(name, "--help", cwd=tmp_path)
    assert out.startswith(f"usage: sudokulab {name}")
    group = next(g for g, names in GROUPS.items() if name in names)
    others = {f"sudokulab.cli.{g}" for g in GROUPS if g != group}
    assert f"sudokulab.cli.{group}" in modules and not modules & others
    assert not packages(modules) & LIBRARIES
    assert not modules & OTHER_BACKENDS


def test_the_programs_help_lists_every_command_without_a_solver_package(tmp_path):
    modules, out = command("--help", cwd=tmp_path)
    for name in (name for names in GROUPS.values() for name in names):
        # a long name's help starts on the next line
        assert re.search(rf"^    {name}( |$)", out, re.MULTILINE), name
    assert not packages(modules) & LIBRARIES
    assert not modules & OTHER_BACKENDS


def test_the_groups_table_names_the_commands_each_group_adds():
    # the parser imports a command's group alone by this table: it must say what each adds
    for group, names in GROUPS.items():
        commands = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(f"sudokulab.cli.{group}").add_commands(commands)
        assert tuple(commands.choices) == names, group


def test_a_command_built_alone_is_the_command_of_the_whole_parser():
    whole = command_parsers(build_parser())
    assert list(whole) == [name for names in GROUPS.values() for name in names]
    for name, parser in whole.items():
        alone = command_parsers(build_parser(name))
        assert list(alone) == list(whole)
        assert alone[name].format_help() == parser.format_help()
        assert alone[name].get_default("handler") is parser.get_default("handler")


def command_parsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The program's commands by name (the subparsers action's choices)."""
    (action,) = [a for a in parser._actions if a.dest == "command"]
    return dict(action.choices)


def test_every_set_name_is_a_word():
    # what lets a puzzle text skip the catalog (sudokulab.cli.common._is_set)
    from sudokulab.catalog import catalog
    from sudokulab.cli.common import _is_set, _looks_like_name

    assert catalog() and all(_looks_like_name(name) for name in catalog())
    assert _is_set("top95") and not _is_set(PUZZLE) and not _is_set("nosuchset")


def test_listing_the_backends_finds_their_packages_without_importing_them(tmp_path):
    modules, out = command("backends", cwd=tmp_path)
    assert "cpsat" in out and "available" in out
    assert modules >= OTHER_BACKENDS  # each backend's module, to ask it
    assert not packages(modules) & LIBRARIES


def test_the_version_loads_no_command(tmp_path):
    modules, out = command("--version", cwd=tmp_path)
    assert out.startswith("sudokulab ")
    assert not {m for m in modules if m.startswith("sudokulab.cli.")} - {
        "sudokulab.cli.commands",
        "sudokulab.cli.common",
    }


def test_a_small_report_loads_neither_scipy_nor_matplotlib(tmp_path):
    # the intervals are numpy's bootstrap; scipy is for the paired test (--baseline)
    out = str(tmp_path / "out")
    _, _ = command("bench", "seeds", "--backends", "native", "--out", out, "--no-plots",
                   cwd=tmp_path)  # fmt: skip
    modules, text = command("report", "--out", out, "--format", "csv", "--no-plots", cwd=tmp_path)
    assert text.startswith("set,backend,") and "mean_low_s" in text
    assert not packages(modules) & {"scipy", "matplotlib"}
