"""Backends by name, in a default order shared by the CLI, the bench and the tests.

To add a backend, import its class here and add an instance to ``_create``; the order
there is the default order (fastest and always available first).
"""

from __future__ import annotations

from functools import cache

from .base import Backend
from .constraint import ConstraintBackend
from .cpsat import CpSatBackend
from .native import backends as native_backends


@cache
def _create() -> dict[str, Backend]:
    found: list[Backend] = [*native_backends(), CpSatBackend(), ConstraintBackend()]
    return {b.name: b for b in found}


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
