"""Backend specs: a backend name or preset with options, as text.

A spec is ``NAME`` or ``NAME:key=value,key=value``, e.g. ``native:propagation=forward``,
``cpsat:workers=8``. A list of specs is comma-separated; a piece with ``=`` belongs to the
spec before it, so ``native:propagation=none,order=first,cpsat`` is two specs. Presets
name the approaches of the systems sudokulab grew from and expand to a backend with
options; options given after a preset override its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .base import check_options
from .registry import backend_names, get_backend

#: Named approaches: (backend, options, what it is).
PRESETS: dict[str, tuple[str, dict[str, str], str]] = {
    "backtracking": (
        "native",
        {"propagation": "none", "order": "first"},
        "plain backtracking: first empty cell, values in order, check peers",
    ),
    "forward-checking": (
        "native",
        {"propagation": "forward", "order": "mrv"},
        "remove each placed value from its peers; fewest candidates first",
    ),
    "singles": (
        "native",
        {"propagation": "singles", "order": "mrv"},
        "forward checking plus naked singles, then guess on the fewest candidates",
    ),
    "hidden-singles": (
        "native",
        {"propagation": "hidden", "order": "mrv"},
        "naked and hidden singles to a fixpoint, then guess (Norvig's two rules)",
    ),
    "locked-candidates": (
        "native",
        {"propagation": "locked", "order": "mrv"},
        "hidden singles and locked candidates (pointing, claiming) to a fixpoint, then guess",
    ),
    "sat-minimal": (
        "sat",
        {"encoding": "minimal"},
        "SAT, minimal CNF: each cell some value, each value at most once per unit",
    ),
    "sat-extended": (
        "sat",
        {"encoding": "extended"},
        "SAT, extended CNF: minimal plus each cell one value at most, each value in each unit",
    ),
    "sat-optimized": (
        "sat",
        {"encoding": "optimized"},
        "SAT, optimized CNF: extended less what the givens decide (the sat default)",
    ),
}


@dataclass(frozen=True)
class BackendSpec:
    """A backend and the options to call it with, under a label for reports."""

    backend: str
    options: dict[str, Any] = field(default_factory=dict)
    label: str = ""

    def __str__(self) -> str:
        return self.label or self.backend


def parse_spec(text: str, *, together: bool = True) -> BackendSpec:
    """One spec from text; ValueError naming what is wrong (with ``together=False``, not
    the options that exclude each other: a command that adds options checks them all)."""
    text = text.strip()
    name, _, rest = text.partition(":")
    name = name.strip()
    options: dict[str, Any] = {}
    if name in PRESETS:
        backend, preset_options, _ = PRESETS[name]
        options.update(preset_options)
    elif name in backend_names():
        backend = name
    else:
        known = ", ".join([*backend_names(), *PRESETS])
        raise ValueError(f"unknown backend {name!r} in spec {text!r}: choose one of {known}")
    for piece in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = piece.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"option {piece!r} in spec {text!r} is not key=value")
        options[key.strip()] = value.strip()
    options = check_options(get_backend(backend), options, together=together)
    return BackendSpec(backend, options, text)


def parse_specs(text: str) -> list[BackendSpec]:
    """Comma-separated specs; a ``key=value`` piece belongs to the spec before it."""
    groups: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if "=" in piece and ":" not in piece.split("=", 1)[0]:
            if not groups:
                raise ValueError(f"option {piece!r} comes before any backend in {text!r}")
            sep = "," if ":" in groups[-1] else ":"
            groups[-1] += sep + piece
        else:
            groups.append(piece)
    if not groups:
        raise ValueError("no backend named")
    return [parse_spec(g) for g in groups]


def slow_reason(spec: BackendSpec, size: int, clues: int) -> str:
    """Why ``spec`` may search for minutes or longer on a puzzle of this size with this
    many clues, in words ("" when it is not known to).

    Plain backtracking (the native engine with ``propagation=none``) only checks each
    value against its peers: its search grows with the blanks beyond any timeout on grids
    larger than 9x9 (the catalog's skips), and runs long on 9x9 puzzles with a quarter of
    the cells given or fewer, 20 clues (see docs/results.md, "Figures behind the
    defaults"). A command without a timeout warns and sets one.
    """
    if spec.options.get("propagation") != "none":
        return ""
    if size > 9:
        return f"plain backtracking runs past any timeout on {size}x{size} grids"
    if size == 9 and clues * 4 <= size * size:
        return f"plain backtracking can search for minutes on a 9x9 puzzle of {clues} clues"
    return ""


def as_spec(spec: str | BackendSpec, **options: Any) -> BackendSpec:
    """A spec from text or a spec, with extra options layered on top."""
    if isinstance(spec, str):
        spec = parse_spec(spec, together=not options)
    if not options:
        check_options(get_backend(spec.backend), spec.options)  # (a spec_type's, unchecked)
        return spec
    merged = check_options(get_backend(spec.backend), {**spec.options, **options})
    return BackendSpec(spec.backend, merged, spec.label)
