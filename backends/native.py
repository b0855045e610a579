"""The native engine as backends: ``native`` (fastest available) and ``native-py``."""

from __future__ import annotations

import dataclasses
import time
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

from .. import native
from ..models import Model, build_model, geometry
from ..native import BUDGET_SPENT, COMPLETE, TIMED_OUT, surface
from ..native import options as engine_options
from ..native.surface import RULE_KINDS, Cage
from . import interrupt
from .base import Backend, Request, WholeNumber
from .result import Answers, Result, status_codes, status_of

if TYPE_CHECKING:
    from ..models.grids import Grids  # numpy's: only the blocks of search_grids need it

#: The units of the classic 9x9 grid, where the defaults are ``engine_options.CLASSIC_DEFAULTS``.
_CLASSIC9 = tuple(u.cells for u in geometry(9).units)


def default_knobs(units: tuple[tuple[int, ...], ...], cages: tuple) -> tuple[str, str]:
    """The (propagation, order) used where none is asked: the fastest measured for the
    shape (docs/results.md, "The default knobs"). On the classic 9x9 grid without cages,
    where the bitboard solver runs, ``locked`` and ``mrv-degree``: faster than ``hidden``
    with ``mrv`` there, with fewer guesses. On every other shape the engine's defaults,
    ``hidden`` and ``mrv``: there the general engine's pass over every pair of units costs
    more than the guesses it saves, and the degree tie-break (counting cage mates as
    peers) slowed killer puzzles down."""
    knobs = (
        engine_options.CLASSIC_DEFAULTS
        if not cages and units == _CLASSIC9
        else engine_options.DEFAULTS
    )
    return knobs["propagation"], knobs["order"]


class NativeBackend(Backend):
    """Our propagate-and-backtrack engine; options ``propagation``, ``order``, ``values``
    (the value order: ``natural`` or ``lcv``) and ``max_guesses``, and for ``native-py``
    ``backjump`` (conflict-directed backjumping, a search of the reference engine only);
    the default propagation and order depend on the shape (:func:`default_knobs`).

    ``max_guesses`` is a budget of work (see :mod:`sudokulab.native.reference`): a search
    that would need more guesses stops with status ``timeout``, at the same guess on
    every machine, where a deadline stops wherever the machine's speed has got to.
    """

    #: The units, the cages and every variant rule kind the engine propagates.
    kinds = frozenset({"alldifferent", "sum"}) | RULE_KINDS
    stops_itself = True  # the search looks at the clock (and counts its guesses) itself
    batch = True  # search_grids: many puzzles per engine call, each with its own timeout
    checks_signals = True  # the reference is Python; the compiled core looks itself
    takes_clashes = True  # givens that clash end the search at its root: no solution
    requires = ""
    #: With ``certify``: the search's own proof (:mod:`sudokulab.certify.search`) where
    #: the model has units only; a second solver proves the claims of cages and rules.
    certifies = True

    def __init__(self, name: str, engine_class: type | None, engine: str) -> None:
        self.name = name
        self._class = engine_class  # native.Engine, or None: the reference's, when first used
        self.engine = engine  # "python" or "c": which implementation runs

    @property
    def _engine_class(self) -> type:
        """The engine class: ``native-py``'s is the reference's, imported on its first
        search (a command that runs the compiled core loads none of the reference)."""
        if self._class is None:
            from ..native.reference import Engine

            self._class = Engine
        return self._class

    @cached_property
    def options(self) -> dict[str, Any]:  # type: ignore[override]
        """The engine's options that some combination runs on this implementation (the
        compiled core runs no backjump: no option of ``native`` then), and the budget;
        worked out from the table on first use, not at every start-up."""
        choices = engine_options.choices(self.engine)
        options: dict[str, Any] = {
            name: choices[name] for name in ("propagation", "order", "values")
        }
        options["max_guesses"] = WholeNumber
        if "backjump" in choices:
            options["backjump"] = bool
        return options

    def check_together(self, options: dict[str, Any]) -> str:
        """What is wrong with the options together whatever the model ("" when nothing):
        the refusal of the engine's table (``native.options``) when the options are refused
        on every shape (each with its default knobs) without rules."""
        reasons = {self._refusal(options, defaults, False) for defaults in _SHAPE_DEFAULTS}
        return reasons.pop() if len(reasons) == 1 else ""

    def refusal(self, model: Model, options: dict[str, Any]) -> str:
        """Why the engine does not search this model with these options ("" when it
        does): the engine's table's reason (variant rules exclude backjumping, and
        dom-wdeg in the compiled core)."""
        units, cages = shape_of(model)
        defaults = dict(zip(("propagation", "order"), default_knobs(units, cages), strict=True))
        reason = self._refusal(options, defaults, bool(rules_of(model)))
        return f"{self.name}: {reason}" if reason else ""

    def _refusal(self, asked: dict[str, Any], defaults: dict[str, Any], rules: bool) -> str:
        """The table's reason for the options asked, the rest taken from ``defaults``."""
        knobs = {**engine_options.DEFAULTS, **defaults}
        knobs.update(
            (name, asked[name]) for name in engine_options.OPTIONS if asked.get(name) is not None
        )
        return engine_options.refusal(**knobs, engine=self.engine, rules=rules)

    def available(self) -> bool:
        """Always available: the Python reference needs nothing but Python."""
        return True

    def version(self) -> str:
        """The sudokulab version and the active implementation."""
        from .. import __version__

        if self.engine == "c" and native.BITBOARD:
            # a run's store keeps this: gac's filter is 1.5x as fast a node on AVX-512
            gac = "AVX-512" if native.GAC_AVX512 else "AVX2"
            return (
                f"{__version__} (c; classic 9x9 under hidden, locked or gac: AVX2 bitboards, "
                f"gac's filter on {gac})"
            )
        return f"{__version__} ({self.engine})"

    def search(self, model: Model, request: Request) -> Result:
        """Search the model with the chosen propagation and order, by the deadline."""
        options = request.options
        units, cages = shape_of(model)
        default = default_knobs(units, cages)
        propagation = options.get("propagation") or default[0]
        order = options.get("order") or default[1]
        budget = options.get("max_guesses")
        more = _more_knobs(options)
        interrupt.on_interrupt(native.interrupt)  # Ctrl-C stops it in any thread
        start = time.perf_counter()
        engine = _engine(
            self._engine_class, model.size, units, propagation, order, cages, rules_of(model), *more
        )
        marks = model.puzzle.candidates if model.narrowed else None
        out = engine.search(
            model.givens, request.limit, request.deadline, max_guesses=budget, candidates=marks,
            steps=request.certify,
        )  # fmt: skip
        result = self._result(out, time.perf_counter() - start, propagation, order, budget, more)
        if request.certify and out.complete and out.count == len(out.solutions):
            if out.steps is None:  # too long a search to keep: a second solver proves it
                note = (
                    f"the search tried more than {surface.STEPS_MAX:,} placements, "
                    "too many to write as its own proof"
                )
                return dataclasses.replace(result, message=note)
            from ..certify.search import search_proof

            start = time.perf_counter()
            made = search_proof(model, out.steps, out.solutions)
            result.stats["proof_time"] = time.perf_counter() - start
            result = dataclasses.replace(result, certificate=made)
        return result

    def search_grids(self, grids: Grids, request: Request) -> Answers:
        """A block of puzzles in one engine call (``Engine.search_grids``):
        the grids go to the compiled core as one buffer and come back as arrays, with no
        Python object per puzzle. The same rows as :meth:`search` on each, each puzzle
        with the whole timeout from its own start in the engine: a row's solve time is
        its search time as the engine measured it, its build time an even share of
        building the block's tables."""
        options = request.options
        start = time.perf_counter()
        if not len(grids):
            return Answers.empty(self.name, 0, grids.geometry.cell_count)
        model = build_model(grids.puzzle(0))
        units, cages = shape_of(model)
        default = default_knobs(units, cages)
        propagation = options.get("propagation") or default[0]
        order = options.get("order") or default[1]
        budget = options.get("max_guesses")
        more = _more_knobs(options)
        interrupt.on_interrupt(native.interrupt)
        engine = _engine(
            self._engine_class, model.size, units, propagation, order, cages, rules_of(model), *more
        )
        build = (time.perf_counter() - start) / len(grids)
        solutions, counters = engine.search_grids(
            grids.givens,
            request.limit,
            request.timeout,
            max_guesses=budget,
            candidates=grids.candidates,
        )
        import numpy as np  # here, not at import: a one-puzzle solve never needs it

        count, flags = counters[:, 0], counters[:, 1]
        status = status_codes(
            count, (flags & COMPLETE) != 0, (flags & (TIMED_OUT | BUDGET_SPENT)) != 0
        )
        common = {"engine": self.engine, "propagation": propagation, "order": order}
        if more:  # a block's rows carry no jump counts: the knobs only
            common.update(values=more[0], backjump=more[1])
        if budget is not None:
            common["max_guesses"] = budget
        spent = np.flatnonzero(flags & BUDGET_SPENT)
        stats = None
        if budget is not None:  # budget_spent differs by row: each row's own stats
            stats = [
                {**common, "nodes": int(n), "guesses": int(g), "backtracks": int(b),
                 "budget_spent": bool(f & BUDGET_SPENT)}
                for n, g, b, f in counters[:, [2, 3, 4, 1]].tolist()
            ]  # fmt: skip
        else:
            common["budget_spent"] = False
        message = f"the budget of {budget} guesses was spent"
        return Answers(
            backend=self.name,
            status=status,
            count=count.copy(),
            exact=(flags & COMPLETE) != 0,
            solution=solutions,
            build_time=np.full(len(grids), build),
            solve_time=counters[:, 5] / 1e9,
            nodes=counters[:, 2].copy(),
            guesses=counters[:, 3].copy(),
            backtracks=counters[:, 4].copy(),
            common=common,
            stats=stats,
            messages=dict.fromkeys(spent.tolist(), message),
        )

    def _result(
        self,
        out: Any,
        elapsed: float,
        propagation: str,
        order: str,
        budget: int | None,
        more: tuple = (),
    ) -> Result:
        """The engine's outcome as a Result: a spent budget is a timeout, as a deadline is."""
        stats = {
            "engine": self.engine,
            "propagation": propagation,
            "order": order,
            "nodes": out.nodes,
            "guesses": out.guesses,
            "backtracks": out.backtracks,
            "budget_spent": out.budget_spent,
        }
        if budget is not None:
            stats["max_guesses"] = budget
        if more:
            stats.update(_more_stats(more, out))
        return Result(
            backend=self.name,
            status=status_of(out.count, out.complete, out.timed_out or out.budget_spent),
            solutions=out.solutions,
            count=out.count,
            exact=out.complete,
            solve_time=elapsed,
            stats=stats,
            message=f"the budget of {budget} guesses was spent" if out.budget_spent else "",
        )


#: The knobs each kind of shape runs where none is asked (see :func:`default_knobs`).
_SHAPE_DEFAULTS = tuple(
    {name: knobs[name] for name in ("propagation", "order")}
    for knobs in (engine_options.CLASSIC_DEFAULTS, engine_options.DEFAULTS)
)


def shape_of(model: Model) -> tuple[tuple[tuple[int, ...], ...], tuple[Cage, ...]]:
    """The engine's view of a model: the units (AllDifferent) and the cages (Sum)."""
    units = tuple(c.cells for c in model.constraints if c.kind == "alldifferent")
    cages = tuple((c.cells, c.total) for c in model.constraints if c.kind == "sum")
    return units, cages


def rules_of(model: Model) -> tuple:
    """The model's variant rules (the records of :mod:`sudokulab.models.rules`), in order."""
    return tuple(c for c in model.constraints if c.kind in RULE_KINDS)


@lru_cache(maxsize=64)
def _engine(
    engine_class: type,
    size: int,
    units: tuple[tuple[int, ...], ...],
    propagation: str,
    order: str,
    cages: tuple[Cage, ...],
    rules: tuple = (),
    values: str = "natural",
    backjump: bool = False,
) -> Any:
    """The engine of a shape and knobs, made once: it keeps nothing from one search to
    the next, so every solve of that shape shares it."""
    if rules:
        return engine_class(
            size, units, propagation, order, cages, values=values, backjump=backjump, rules=rules
        )
    if values == "natural" and not backjump:  # the knobs every engine class takes
        return engine_class(size, units, propagation, order, cages)
    return engine_class(size, units, propagation, order, cages, values=values, backjump=backjump)


def _more_knobs(options: Any) -> tuple:
    """(values, backjump) when either is asked (both then), else (): the engine's keyword
    knobs, and what the stats report of them."""
    values, backjump = options.get("values"), options.get("backjump")
    if values is None and not backjump:
        return ()
    return (values or "natural", bool(backjump))


def _more_stats(more: tuple, out: Any) -> dict[str, Any]:
    """The value order and backjumping in a result's stats, with the jumps it made."""
    stats: dict[str, Any] = {"values": more[0], "backjump": more[1]}
    if more[1]:
        stats.update(backjumps=out.backjumps, skipped=out.skipped)
    return stats


def backends() -> list[NativeBackend]:
    """``native`` (the active implementation) and ``native-py`` (always the reference)."""
    return [
        NativeBackend("native", native.Engine, native.ENGINE),
        NativeBackend("native-py", None, "python"),
    ]
