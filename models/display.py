"""Notebook display without an upward dependency: a view registered per type.

Jupyter shows an object through its ``_repr_html_``. ``Puzzle``, ``Result`` and ``Trace``
inherit it from :class:`Displayed`, which calls the view registered for the object's
type; the views live in the classroom (:mod:`sudokulab.classroom.notebook`), above the
types they show. The package registers them through its ``_register_views``, which the
first display calls (the package is loaded whenever this module is: it is the package's
own), so that ``import sudokulab`` imports nothing of the models and the command line's
Ctrl-C arrangement is in place at once. Without a registered view, ``_repr_html_``
returns None and Jupyter falls back to the plain text form.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

#: The HTML view of each type, filled once by the classroom's ``register``.
_VIEWS: dict[type, Callable[[Any], str]] = {}


#: Whether the package's registration has run (at the first view looked up).
_REGISTERED = False


def register_view(cls: type, view: Callable[[Any], str]) -> None:
    """Show instances of ``cls`` in notebooks as ``view(instance)``."""
    _VIEWS[cls] = view


def _register() -> None:
    """Run the package's ``_register_views`` (which calls :func:`register_view`) once."""
    global _REGISTERED
    if not _REGISTERED:
        _REGISTERED = True
        package = sys.modules.get(__name__.split(".")[0])
        hook = getattr(package, "_register_views", None)
        if hook is not None:
            hook()


class Displayed:
    """A mixin: ``_repr_html_`` from the view registered for the instance's type."""

    __slots__ = ()

    def _repr_html_(self) -> str | None:
        _register()
        view = _VIEWS.get(type(self))
        return None if view is None else view(self)
