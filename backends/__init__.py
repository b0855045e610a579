"""Interchangeable solvers behind one small contract, registered by name."""

from .base import Backend, Request, admit, check_options, count_by_blocking, unsupported
from .isolation import Worker
from .registry import all_backends, backend_names, get_backend
from .result import Result, Status, status_of
from .specs import PRESETS, BackendSpec, as_spec, parse_spec, parse_specs

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
