"""The backend contract: a name, a cheap availability probe, and ``solve``."""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Protocol, runtime_checkable

from ..models import Model, build_model
from ..models.grids import Grids
from .result import Answers, Result

#: What an option accepts: a tuple of allowed strings, or a type its value converts to.
OptionKind = tuple[str, ...] | type


class WholeNumber(int):
    """An option that is a whole number, 0 or more (a budget, a count)."""

    def __new__(cls, value: object) -> WholeNumber:
        number = int(value)  # ValueError for text that is not a number
        if number < 0:
            raise ValueError(value)
        return super().__new__(cls, number)


def kind_name(kind: OptionKind) -> str:
    """How messages and ``sudokulab backends`` name an option's kind."""
    if isinstance(kind, tuple):
        return "|".join(kind)
    return "whole number (0 or more)" if kind is WholeNumber else kind.__name__


@runtime_checkable
class Backend(Protocol):
    """What every backend provides.

    Capabilities are data: ``kinds`` lists the constraint kinds the backend accepts,
    ``options`` the keyword options its ``solve`` takes (each a tuple of allowed values
    or a type such as ``int``), and ``stops_itself`` says whether it honours ``timeout``
    on its own; one that does not is run in a child process killed at the deadline;
    ``requires`` names the package to install when ``available()`` is false; ``batch``
    says whether ``solve_grids`` does better than one ``solve`` per puzzle (the bench then
    sends it chunks of puzzles).

    A backend class subclasses this protocol to inherit the generic defaults of
    ``batch``, ``solve_grids`` and ``describe``, and overrides what it does better.
    """

    name: str
    kinds: frozenset[str]
    options: dict[str, OptionKind]
    stops_itself: bool
    requires: str  # the pip package that provides the solver ("" when none is needed)
    batch: bool = False

    def available(self) -> bool:
        """True when the backend can run here (its package is installed); cheap to call."""
        ...

    def version(self) -> str:
        """The version of the solver behind the backend."""
        ...

    def solve(
        self, model: Model, limit: int | None = 1, timeout: float | None = None, **options: Any
    ) -> Result:
        """Find up to ``limit`` solutions of ``model`` within ``timeout`` seconds."""
        ...

    def solve_grids(
        self,
        grids: Grids,
        limit: int | None = 1,
        timeout: float | None = None,
        **options: Any,
    ) -> Answers:
        """A block of puzzles of one shape, ``timeout`` seconds each: one row per puzzle,
        as ``solve`` answers it (on the model ``build_model`` makes, whose time is each
        row's build time). The givens must not clash (the caller checks that)."""
        results = []
        for puzzle in grids.puzzles():
            start = time.perf_counter()
            model = build_model(puzzle)
            build = time.perf_counter() - start
            result = self.solve(model, limit, timeout, **options)
            results.append(dataclasses.replace(result, build_time=result.build_time + build))
        return Answers.from_results(self.name, results, grids.geometry.cell_count)

    def describe(self, model: Model) -> str:
        """One line on what the backend builds from ``model`` (``sudokulab model``)."""
        kinds = ", ".join(sorted(model.kinds))
        return (
            f"{self.name}: the model as given, {len(model.domains)} variables and "
            f"{len(model.constraints)} constraints ({kinds})"
        )


#: Every member of the contract (what ``isinstance(x, Backend)`` looks for), for messages.
MEMBERS = (*Backend.__annotations__, "available", "version", "solve", "solve_grids", "describe")


def check_request(backend: Backend, model: Model, limit: int | None) -> None:
    """Raise ValueError for a limit below 1 or a constraint kind the backend does not take."""
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    unknown = unsupported(backend, model)
    if unknown:
        raise ValueError(unknown)


def unsupported(backend: Backend, model: Model) -> str:
    """Why the backend cannot take the model's constraint kinds ("" when it can)."""
    unknown = model.kinds - backend.kinds
    if not unknown:
        return ""
    message = f"{backend.name} does not support {' or '.join(sorted(unknown))} constraints"
    # a backend may say why (``refuses``: kind -> reason), e.g. exact cover and cages
    reasons = [getattr(backend, "refuses", {}).get(kind) for kind in sorted(unknown)]
    return message + "".join(f": {reason}" for reason in reasons if reason)


def check_options(backend: Backend, options: dict[str, Any]) -> dict[str, Any]:
    """The options converted to their kinds; ValueError naming anything unknown or bad."""
    checked = {}
    for key, value in options.items():
        if key not in backend.options:
            known = ", ".join(sorted(backend.options)) or "none"
            raise ValueError(f"backend {backend.name!r} has no option {key!r} (options: {known})")
        kind = backend.options[key]
        if isinstance(kind, tuple):
            if value not in kind:
                raise ValueError(
                    f"backend {backend.name!r}: {key}={value!r} is not one of {', '.join(kind)}"
                )
            checked[key] = value
            continue
        try:
            checked[key] = _convert(kind, value)
        except ValueError:
            raise ValueError(
                f"backend {backend.name!r}: {key}={value!r} is not a valid {kind_name(kind)}"
            ) from None
    return checked


def _convert(kind: type, value: Any) -> Any:
    if kind is bool and isinstance(value, str):
        lowered = value.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ValueError(value)
    return kind(value)
