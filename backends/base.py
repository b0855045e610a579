"""The backend contract: a name, a cheap availability probe, and ``solve``."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from ..models import Model
from .result import Result


@runtime_checkable
class Backend(Protocol):
    """What every backend provides.

    ``kinds`` lists the constraint kinds the backend accepts (capabilities as data), and
    ``options`` the keyword options its ``solve`` takes, with their allowed values.
    """

    name: str
    kinds: frozenset[str]
    options: dict[str, tuple[str, ...]]

    def available(self) -> bool:
        """True when the backend can run here (its package imports); cheap to call."""
        ...

    def version(self) -> str:
        """The version of the solver behind the backend."""
        ...

    def solve(
        self, model: Model, limit: int | None = 1, timeout: float | None = None, **options: Any
    ) -> Result:
        """Find up to ``limit`` solutions of ``model`` within ``timeout`` seconds."""
        ...


def check_options(backend: Backend, options: dict[str, Any]) -> None:
    """Raise ValueError naming any option or value the backend does not know."""
    for key, value in options.items():
        if key not in backend.options:
            known = ", ".join(sorted(backend.options)) or "none"
            raise ValueError(f"backend {backend.name!r} has no option {key!r} (options: {known})")
        allowed = backend.options[key]
        if allowed and value not in allowed:
            raise ValueError(
                f"backend {backend.name!r}: {key}={value!r} is not one of {', '.join(allowed)}"
            )
