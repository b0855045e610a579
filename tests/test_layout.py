"""The layout is the architecture: each module depends only on modules below it.

The import graph is read from the source (every relative import, lazy ones included), so a
cycle or an upward import fails here before it can confuse a reader.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest
from helpers import REPO, package_dirs

import sudokulab
from sudokulab.backends import Backend, Result, check_options, get_backend, unsupported
from sudokulab.backends.base import runs_in_process
from sudokulab.backends.registry import _plugin
from sudokulab.models import Cage, Puzzle, build_model, geometry, parse_puzzle
from sudokulab.models.grids import Grids

#: Source folder of each installed package (pyproject's [tool.setuptools.package-dir]).
FOLDERS = package_dirs()
#: Layers, lowest first: a module may import from its own layer's package and below.
LAYERS = [
    ("sudokulab.models",),
    ("sudokulab.encodings",),
    ("sudokulab.certify",),
    ("sudokulab.native", "sudokulab.logic", "sudokulab.catalog"),
    ("sudokulab.backends",),
    ("sudokulab.interchange",),
    ("sudokulab.api",),
    ("sudokulab.generate", "sudokulab.bench", "sudokulab.classroom"),
    ("sudokulab.serve",),
    ("sudokulab.cli",),
]


def _modules() -> dict[str, Path]:
    found = {}
    for package, folder in FOLDERS.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


def _edges() -> dict[str, set[str]]:
    """Module -> the package's modules it imports (relative imports, at any depth)."""
    modules = _modules()
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.ImportFrom) and node.level):
                continue
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else []))
            for t in [target] + [f"{target}.{a.name}" for a in node.names]:
                # a package's own ancestors are imported first anyway: not an edge
                if t in modules and t != name and not name.startswith(t + "."):
                    edges.setdefault(name, set()).add(t)
    return edges


def _layer(module: str) -> int | None:
    for level, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return level
    return None  # the package's front door (sudokulab/__init__, __main__)


def test_every_package_folder_is_mapped_and_installed():
    # a top-level folder with no mapping, or a subpackage missing from `packages`, would
    # work in an editable install and be absent from a wheel
    with open(REPO / "pyproject.toml", "rb") as f:
        packages = set(tomllib.load(f)["tool"]["setuptools"]["packages"])
    assert set(FOLDERS.values()) == {path.parent for path in REPO.glob("*/__init__.py")}
    found = {
        ".".join((package, *init.parent.relative_to(folder).parts))
        for package, folder in FOLDERS.items()
        for init in folder.rglob("__init__.py")
    }
    assert found == packages


def test_no_import_cycles():
    edges = _edges()
    cycles = []

    def visit(node: str, stack: list[str], done: set[str]) -> None:
        if node in stack:
            cycles.append(" -> ".join(stack[stack.index(node) :] + [node]))
            return
        if node in done:
            return
        done.add(node)
        for target in sorted(edges.get(node, ())):
            visit(target, [*stack, node], done)

    done: set[str] = set()
    for node in sorted(edges):
        visit(node, [], done)
    assert cycles == []


def test_each_module_imports_only_its_layer_and_below():
    upward = []
    for module, targets in _edges().items():
        level = _layer(module)
        if level is None:
            continue
        for target in targets:
            other = _layer(target)
            if other is None or other > level:
                upward.append(f"{module} -> {target}")
            elif other == level and module.split(".")[:2] != target.split(".")[:2]:
                upward.append(f"{module} -> {target} (a sibling concern)")
    assert upward == []


def test_every_registered_backend_is_a_backend():
    for name in sudokulab.backend_names():
        assert isinstance(get_backend(name), Backend), name


class _Minimal(Backend):
    """Only what a backend must write itself: the contract gives the rest."""

    name = "minimal"
    kinds = frozenset({"alldifferent"})
    options: dict = {}
    stops_itself = True
    requires = ""

    def available(self) -> bool:
        return True

    def version(self) -> str:
        return "1"

    def search(self, model, request) -> Result:
        return get_backend("native-py").search(model, request)


def test_the_contract_gives_batch_solve_grids_and_describe_defaults():
    backend = _Minimal()
    puzzles = [parse_puzzle(p) for p in ("1...............", "." * 16)]
    models = [build_model(p) for p in puzzles]
    assert backend.batch is False
    answers = backend.solve_grids(Grids.of(puzzles), limit=2)
    assert [answers.result(i).status for i in range(2)] == ["multiple", "multiple"]
    assert [answers.result(i).stats for i in range(2)] == [
        backend.solve(m, limit=2).stats for m in models
    ]
    assert backend.describe(models[0]) == (
        "minimal: the model as given, 16 variables and 12 constraints (alldifferent)"
    )


class NotABackend:
    """A plugin that forgot most of the contract."""

    name = "broken"

    def solve(self, model, limit=1, timeout=None, **options):
        raise AssertionError("never called")


def test_a_plugin_that_is_not_a_backend_is_refused_naming_what_it_lacks():
    with pytest.raises(ValueError, match="is not a backend: it lacks available, batch, "):
        _plugin(f"{__name__}:NotABackend")


def test_the_contract_declares_every_hook_it_calls_with_its_default():
    backend, model = _Minimal(), build_model(parse_puzzle("1..............."))
    assert (backend.missing(), backend.engine, dict(backend.refuses)) == ("", "", {})
    assert backend.refusal(model, {}) == ""
    assert backend.check_together({}) == ""
    assert backend.in_process_cells_with({}) is None
    assert unsupported(backend, model) == ""


def test_a_hook_a_backend_writes_is_the_one_called():
    class Picky(_Minimal):
        refuses = {"sum": "no cages here"}
        in_process_cells = 16

        def refusal(self, model, options):
            return "not on Sundays" if options.get("day") == "sunday" else ""

        def check_together(self, options):
            return "too late" if options.get("day") == "sunday" else ""

        def in_process_cells_with(self, options):
            return 81

    backend, model = Picky(), build_model(parse_puzzle("1..............."))
    assert unsupported(backend, model, {"day": "sunday"}) == "not on Sundays"
    killer = build_model(Puzzle(geometry(4), (0,) * 16, (Cage((0, 1), 5),)))
    assert unsupported(backend, killer) == (
        "minimal does not support sum constraints: no cages here"
    )
    backend.options = {"day": ("monday", "sunday")}
    with pytest.raises(ValueError, match="backend 'minimal': too late"):
        check_options(backend, {"day": "sunday"})
    assert runs_in_process(backend, build_model(parse_puzzle("." * 81)), {})


#: What the contract gives a default for (a backend need not write it): what a caller
#: might be tempted to probe for.
DEFAULTS = {member for member in vars(Backend) if not member.startswith("_")}
#: A ``getattr`` of such a name that is not a backend's: the Executor contract's
#: optional ``describe`` (anything with ``chunk_size`` and ``run`` is an executor).
NOT_A_BACKEND = {("sudokulab.bench.run", "describe")}


def test_no_module_probes_a_backend_for_a_member_the_contract_declares():
    probes = set()
    tests = {f"tests.{path.stem}": path for path in (REPO / "tests").glob("*.py")}
    for name, path in {**_modules(), **tests}.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value in DEFAULTS
            ):
                probes.add((name, node.args[1].value))
    assert probes - NOT_A_BACKEND == set()
