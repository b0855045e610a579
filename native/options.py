"""The native engine's options as data: each option's values and default, and the limits
on their combinations (propagation x order x values x backjump x engine x variant rules),
each with the one message that refuses it.

The reference, the compiled engine, the backends, the API and the command line read
them here; ``tests/test_options.py`` checks the C core's own refusals against them.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import product
from typing import Any, NamedTuple

#: The propagation levels, weakest first (the textbook's ac3, gac and sac among them).
PROPAGATIONS: tuple[str, ...] = (
    "none", "forward", "ac3", "singles", "hidden", "locked", "gac", "sac"
)  # fmt: skip
#: The cell orders: which cell a search branches on.
ORDERS: tuple[str, ...] = ("mrv", "first", "mrv-degree", "dom-wdeg")
#: The value orders: the order in which a branching cell's candidates are tried.
VALUES: tuple[str, ...] = ("natural", "lcv")
#: The implementations: the compiled core and the Python reference.
ENGINES: tuple[str, ...] = ("c", "python")

#: The levels the compiled core runs dom-wdeg under: it propagates its guesses in the
#: reference's order to blame the same contradictions, and has that order for these.
CORE_WDEG_PROPAGATIONS: tuple[str, ...] = ("none", "forward", "singles", "hidden", "locked")
#: The propagation levels backjumping defines its conflict sets for.
BACKJUMP_PROPAGATIONS: tuple[str, ...] = ("none", "forward")


class Option(NamedTuple):
    """One knob of the engine: its values, its default, and what each value means."""

    name: str
    choices: tuple
    default: Any
    meanings: tuple[str, ...] = ()  # one per choice, for the command line's help

    def described(self) -> str:
        """``a (meaning), b (meaning) or c (meaning)``: the choices told in words."""
        meanings = self.meanings or ("",) * len(self.choices)
        told = [f"{c} ({m})" if m else str(c) for c, m in zip(self.choices, meanings, strict=True)]
        return ", ".join(told[:-1]) + f" or {told[-1]}" if len(told) > 1 else "".join(told)


#: Every option of the engine, with the default an engine takes where none is asked.
OPTIONS: dict[str, Option] = {
    "propagation": Option("propagation", PROPAGATIONS, "hidden"),
    "order": Option(
        "order",
        ORDERS,
        "mrv",
        (
            "fewest candidates",
            "first empty cell",
            "fewest candidates, ties to the most unplaced peers",
            "fewest candidates per weighted degree, the weights raised by each contradiction",
        ),
    ),
    "values": Option(
        "values",
        VALUES,
        "natural",
        ("ascending", "the least constraining value first: the one fewest unplaced peers hold"),
    ),
    "backjump": Option("backjump", (False, True), False),
}

#: The engine's defaults by option name (an ``Engine`` built without them runs these).
DEFAULTS: dict[str, Any] = {name: option.default for name, option in OPTIONS.items()}
#: What the backends run on the classic 9x9 grid without cages where no propagation or
#: order is asked: the fastest measured there (docs/results.md, "The default knobs"),
#: where the bitboard solver runs ``locked``. Every other shape takes :data:`DEFAULTS`.
CLASSIC_DEFAULTS: dict[str, Any] = {**DEFAULTS, "propagation": "locked", "order": "mrv-degree"}


class Knobs(NamedTuple):
    """One combination of the options, with the engine and whether the model has rules."""

    propagation: str
    order: str
    values: str = "natural"
    backjump: bool = False
    engine: str = "python"
    rules: bool = False


class Limit(NamedTuple):
    """A combination the engine refuses: when ``applies``, and why (the one message)."""

    applies: Callable[[Knobs], bool]
    reason: str


_WDEG_LEVELS = ", ".join(CORE_WDEG_PROPAGATIONS[:-1]) + f" or {CORE_WDEG_PROPAGATIONS[-1]}"

#: The limits, in the order they are told: a combination is refused with the first reason
#: that applies. The C core raises the same messages (a test checks every combination).
LIMITS: tuple[Limit, ...] = (
    Limit(
        lambda k: k.backjump and k.engine == "c",
        "backjump runs in the reference engine only (native-py), not the compiled core",
    ),
    Limit(
        lambda k: k.backjump and k.propagation not in BACKJUMP_PROPAGATIONS,
        f"backjump needs propagation {' or '.join(BACKJUMP_PROPAGATIONS)}: conflict sets "
        "are defined there only",
    ),
    Limit(
        lambda k: k.backjump and k.rules,
        "backjump has no conflict sets for variant rules",
    ),
    Limit(
        lambda k: (
            k.order == "dom-wdeg"
            and k.engine == "c"
            and k.propagation not in CORE_WDEG_PROPAGATIONS
        ),
        f"order dom-wdeg runs under propagation {_WDEG_LEVELS} in the compiled core (the "
        "reference runs it under every level: native-py)",
    ),
    Limit(
        lambda k: k.order == "dom-wdeg" and k.engine == "c" and k.rules,
        "order dom-wdeg runs without variant rules only in the compiled core (the reference "
        "runs it: native-py)",
    ),
)


def unknown(name: str, value: Any) -> str:
    """Why ``value`` is no value of the option ``name`` ("" when it is one)."""
    choices = OPTIONS[name].choices
    if value in choices:
        return ""
    return f"unknown {name} {value!r}: choose one of {', '.join(map(str, choices))}"


def refusal(
    propagation: str,
    order: str,
    values: str = "natural",
    backjump: bool = False,
    engine: str = "python",
    rules: bool = False,
) -> str:
    """Why the engine does not run this combination ("" when it does): an unknown value,
    or the first of :data:`LIMITS` that applies."""
    for name, value in (("propagation", propagation), ("order", order), ("values", values)):
        problem = unknown(name, value)
        if problem:
            return problem
    knobs = Knobs(propagation, order, values, bool(backjump), engine, bool(rules))
    return next((limit.reason for limit in LIMITS if limit.applies(knobs)), "")


def check(
    propagation: str,
    order: str,
    values: str = "natural",
    backjump: bool = False,
    engine: str = "python",
    rules: bool = False,
) -> None:
    """ValueError with :func:`refusal`'s message when the engine does not run these."""
    problem = refusal(propagation, order, values, backjump, engine, rules)
    if problem:
        raise ValueError(problem)


def table() -> dict[Knobs, str]:
    """Every combination and its refusal ("" when allowed): the whole table, for the tests
    and the docs."""
    return {
        knobs: refusal(
            knobs.propagation, knobs.order, knobs.values, knobs.backjump, knobs.engine, knobs.rules
        )
        for knobs in (
            Knobs(*row)
            for row in product(PROPAGATIONS, ORDERS, VALUES, (False, True), ENGINES, (False, True))
        )
    }


def choices(engine: str) -> dict[str, tuple]:
    """Each option's values that some combination without rules runs on ``engine`` (rules
    only refuse more); an option left with its default alone is no option there (the
    compiled core's backjump)."""
    taken: dict[str, set] = {name: set() for name in OPTIONS}
    for row in product(*(option.choices for option in OPTIONS.values())):
        if not refusal(*row, engine=engine):
            for name, value in zip(OPTIONS, row, strict=True):
                taken[name].add(value)
    out = {}
    for name, option in OPTIONS.items():
        values = tuple(v for v in option.choices if v in taken[name])
        if values != (option.default,):
            out[name] = values
    return out
