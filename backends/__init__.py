"""Interchangeable solvers behind one small contract, registered by name."""

from .base import Backend, check_options
from .registry import backend_names, get_backend, registry
from .result import Result, Status, status_of

__all__ = [
    "Backend",
    "Result",
    "Status",
    "backend_names",
    "check_options",
    "get_backend",
    "registry",
    "status_of",
]
