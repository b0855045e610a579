"""Interchangeable solvers behind one small contract, registered by name."""

from typing import Any

from .base import Backend, Request, admit, check_options, count_by_blocking, unsupported
from .registry import all_backends, backend_names, get_backend
from .result import Result, Status, status_of
from .specs import PRESETS, BackendSpec, as_spec, parse_spec, parse_specs


def __getattr__(name: str) -> Any:
    """``Worker`` on first use (PEP 562): the isolation module and what it imports
    (processes, pickling) load only where a backend runs in a worker."""
    if name == "Worker":
        from .isolation import Worker

        return Worker
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "PRESETS",
    "Backend",
    "BackendSpec",
    "Request",
    "Result",
    "Status",
    "Worker",
    "admit",
    "all_backends",
    "as_spec",
    "backend_names",
    "check_options",
    "count_by_blocking",
    "get_backend",
    "parse_spec",
    "parse_specs",
    "status_of",
    "unsupported",
]
