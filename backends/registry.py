"""Backends by name, in a default order shared by the CLI, the bench and the tests."""

from __future__ import annotations

from functools import cache

from .base import Backend
from .native import backends as native_backends


@cache
def registry() -> dict[str, Backend]:
    """Every registered backend by name, in the default order."""
    found: list[Backend] = [*native_backends()]
    return {b.name: b for b in found}


def get_backend(name: str) -> Backend:
    """The backend registered as ``name``; ValueError listing the names otherwise."""
    try:
        return registry()[name]
    except KeyError:
        names = ", ".join(registry())
        raise ValueError(f"unknown backend {name!r}: choose one of {names}") from None


def backend_names() -> list[str]:
    """Registered backend names, in the default order."""
    return list(registry())
