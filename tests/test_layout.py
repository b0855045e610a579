"""The layout is the architecture: each module depends only on modules below it.

The import graph is read from the source (every relative import, lazy ones included), so a
cycle or an upward import fails here before it can confuse a reader.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import sudokulab
from sudokulab.backends import Backend, Result, get_backend
from sudokulab.backends.registry import _plugin
from sudokulab.models import build_model, parse_puzzle
from sudokulab.models.grids import Grids

REPO = Path(__file__).resolve().parent.parent
#: Source folder of each installed package (see [tool.setuptools.package-dir]).
FOLDERS = {
    "sudokulab": "sudokulab",
    "sudokulab.models": "models",
    "sudokulab.encodings": "encodings",
    "sudokulab.backends": "backends",
    "sudokulab.native": "native",
    "sudokulab.logic": "logic",
}
#: Layers, lowest first: a module may import from its own layer's package and below.
LAYERS = [
    ("sudokulab.models",),
    ("sudokulab.encodings",),
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
        for path in (REPO / folder).rglob("*.py"):
            parts = path.relative_to(REPO / folder).with_suffix("").parts
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
