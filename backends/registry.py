"""Backends by name, in a default order shared by the CLI, the bench and the tests.

To add a backend, import its class here and add an instance to ``_create``; the order
there is the default order (fastest and always available first). A backend that lives
outside sudokulab is registered with the environment variable ``SUDOKULAB_BACKENDS``
(``module:Class`` items, comma-separated); worker processes inherit it, so they know the
same backends.
"""

from __future__ import annotations

import importlib
import os
from functools import cache

from .base import MEMBERS, Backend
from .constraint import ConstraintBackend
from .cpsat import CpSatBackend
from .dlx import backends as dlx_backends
from .mip import MipBackend
from .native import backends as native_backends
from .sat import SatBackend
from .smt import SmtBackend

#: Environment variable naming extra backends to register, as ``module:Class,...``.
PLUGINS = "SUDOKULAB_BACKENDS"


@cache
def _create() -> dict[str, Backend]:
    found: list[Backend] = [
        *native_backends(),
        CpSatBackend(),
        SatBackend(),
        MipBackend(),
        SmtBackend(),
        *dlx_backends(),
        ConstraintBackend(),
    ]
    found += [_plugin(item) for item in os.environ.get(PLUGINS, "").split(",") if item.strip()]
    return {b.name: b for b in found}


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
    """Every registered backend by name, in the default order (available or not)."""
    return dict(_create())


def get_backend(name: str) -> Backend:
    """The backend registered as ``name``; ValueError listing the names otherwise."""
    try:
        return _create()[name]
    except KeyError:
        names = ", ".join(_create())
        raise ValueError(f"unknown backend {name!r}: choose one of {names}") from None


def backend_names() -> list[str]:
    """Registered backend names, in the default order."""
    return list(_create())
