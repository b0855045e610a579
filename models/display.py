"""Notebook display without an upward dependency: a view registered per type.

Jupyter shows an object through its ``_repr_html_``. ``Puzzle``, ``Result`` and ``Trace``
inherit it from :class:`Displayed`, which calls the view registered for the object's
type; the views live in the classroom (:mod:`sudokulab.classroom.notebook`), above the
types they show, and ``import sudokulab`` registers them. Without a registered view,
``_repr_html_`` returns None and Jupyter falls back to the plain text form.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: The HTML view of each type, filled once by the classroom's ``register``.
_VIEWS: dict[type, Callable[[Any], str]] = {}


#: Registrations to run before the first view is looked up.
_PENDING: list[Callable[[], None]] = []


def register_view(cls: type, view: Callable[[Any], str]) -> None:
    """Show instances of ``cls`` in notebooks as ``view(instance)``."""
    _VIEWS[cls] = view


def defer(registration: Callable[[], None]) -> None:
    """Run ``registration`` (which calls :func:`register_view`) at the first display."""
    _PENDING.append(registration)


class Displayed:
    """A mixin: ``_repr_html_`` from the view registered for the instance's type."""

    __slots__ = ()

    def _repr_html_(self) -> str | None:
        while _PENDING:
            _PENDING.pop(0)()
        view = _VIEWS.get(type(self))
        return None if view is None else view(self)
