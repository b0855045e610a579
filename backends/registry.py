"""Backends by name, in a default order shared by the CLI, the bench and the tests.

To add a backend, add its name and home (``module:Class``) to ``HOMES``; the order there
is the default order (fastest and always available first). A backend's module is
imported when the backend is first asked for, and its solver package only when it runs,
so listing names costs nothing and ``solve`` loads the one backend it uses. A backend that lives
outside sudokulab is registered with the environment variable ``SUDOKULAB_BACKENDS``
(``module:Class`` items, comma-separated); worker processes inherit it, so they know the
same backends.
"""

from __future__ import annotations

import importlib
import os
from functools import cache

from .base import MEMBERS, Backend

#: Environment variable naming extra backends to register, as ``module:Class,...``.
PLUGINS = "SUDOKULAB_BACKENDS"

#: Each built-in backend's module (in this package) and class, in the default order; the
#: native and dlx modules' ``backends()`` make both of their backends (which engine is
#: active).
HOMES = {
    "native": "native:backends",
    "native-py": "native:backends",
    "cpsat": "cpsat:CpSatBackend",
    "sat": "sat:SatBackend",
    "mip": "mip:MipBackend",
    "smt": "smt:SmtBackend",
    "dlx": "dlx:backends",
    "dlx-py": "dlx:backends",
    "constraint": "constraint:ConstraintBackend",
    "local": "local:LocalBackend",
    "highs": "highs_backend:HighsBackend",
    "cpmpy": "cpmpy_backend:CpmpyBackend",
    "xcsp3": "xcsp3_backend:Xcsp3Backend",
    "gurobi": "gurobi_backend:GurobiBackend",
}


@cache
def _home(home: str) -> dict[str, Backend]:
    """The backends a ``HOMES`` entry makes, by name (its module imported now, once)."""
    module_name, _, attr = home.partition(":")
    made = getattr(importlib.import_module(f".{module_name}", __package__), attr)()
    return {b.name: b for b in (made if isinstance(made, list) else [made])}


def _builtin(name: str) -> Backend:
    return _home(HOMES[name])[name]


@cache
def _create() -> dict[str, Backend]:
    """The backends named in $SUDOKULAB_BACKENDS, by name (they win over a built-in name);
    read once (``_create.cache_clear()`` reads the variable again)."""
    items = [item for item in os.environ.get(PLUGINS, "").split(",") if item.strip()]
    return {b.name: b for b in map(_plugin, items)}


def _plugins() -> dict[str, Backend]:
    return _create() if os.environ.get(PLUGINS, "").strip() else {}


def _plugin(item: str) -> Backend:
    """An instance of ``module:Class`` named in $SUDOKULAB_BACKENDS."""
    module_name, _, class_name = item.strip().partition(":")
    try:
        backend = getattr(importlib.import_module(module_name), class_name)()
    except (ImportError, AttributeError, TypeError) as err:
        raise ValueError(f"{PLUGINS}: cannot load backend {item.strip()!r}: {err}") from None
    if not isinstance(backend, Backend):
        lacking = [m for m in MEMBERS if not hasattr(backend, m)]
        raise ValueError(
            f"{PLUGINS}: {item.strip()!r} is not a backend: it lacks {', '.join(sorted(lacking))}"
            " (subclass sudokulab.backends.Backend for the defaults)"
        )
    return backend


def all_backends() -> dict[str, Backend]:
    """Every registered backend by name, in the default order (available or not; every
    backend module imported)."""
    return {name: get_backend(name) for name in backend_names()}


def get_backend(name: str) -> Backend:
    """The backend registered as ``name``; ValueError listing the names otherwise."""
    plugins = _plugins()
    if name in plugins:
        return plugins[name]
    if name in HOMES:
        return _builtin(name)
    names = ", ".join(backend_names())
    raise ValueError(f"unknown backend {name!r}: choose one of {names}")


def backend_names() -> list[str]:
    """Registered backend names, in the default order (no backend module imported)."""
    plugins = _plugins()
    return [*HOMES, *(name for name in plugins if name not in HOMES)]
