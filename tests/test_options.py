"""The engine's options table (``sudokulab.native.options``) against what runs: the
compiled core and the reference accept exactly the combinations it allows, with the same
answers, and refuse the rest with its message; the core's defaults are its defaults; the
backends, the API and the command line offer and refuse what it says."""

from __future__ import annotations

import inspect
from itertools import product
from pathlib import Path

import pytest
from helpers import design
from test_variant_kinds import G4, brute, case

import sudokulab
from sudokulab import is_solution, read_file
from sudokulab.backends.native import rules_of, shape_of
from sudokulab.backends.registry import get_backend
from sudokulab.classroom.trace import trace_puzzle
from sudokulab.cli import build_parser
from sudokulab.models import Puzzle, build_model
from sudokulab.native import options, reference
from sudokulab.native.options import CLASSIC_DEFAULTS, DEFAULTS, OPTIONS, PROPAGATIONS

#: A 4x4 puzzle of one solution (the engine's doctest), and a thermometer on an empty grid
#: with one given (rules: 9 solutions, a few guesses even under sac).
PLAIN = Puzzle(G4, (1, 2, 0, 0, 0, 0, 1, 0, 3, 1, 0, 0, 0, 0, 0, 1))
RULED = Puzzle(G4, (0,) * 15 + (1,), (), None, case("less").rules)
UNITS4 = shape_of(build_model(PLAIN))[0]
#: Every combination of the knobs but the propagation, in product order.
OTHERS = list(product(options.ORDERS, options.VALUES, (False, True), (False, True)))


def outcome(out) -> tuple:
    return (out.solutions, out.count, out.complete, out.nodes, out.guesses, out.backtracks)


def engine_of(cls, puzzle: Puzzle, propagation, order, values, backjump):
    """An engine of class ``cls`` for ``puzzle`` with these knobs (rules when it has any)."""
    model = build_model(puzzle)
    units, cages = shape_of(model)
    return cls(puzzle.size, units, propagation, order, cages,
               values=values, backjump=backjump, rules=rules_of(model))  # fmt: skip


def test_the_table_covers_every_combination_and_allows_each_value_somewhere():
    table = options.table()
    assert len(table) == 8 * 4 * 2 * 2 * 2 * 2
    assert set(table.values()) == {""} | {limit.reason for limit in options.LIMITS}
    for name, option in OPTIONS.items():
        for value in option.choices:
            assert any(not why for k, why in table.items() if getattr(k, name) == value)


@pytest.mark.core
@pytest.mark.parametrize("propagation", PROPAGATIONS)
def test_the_core_accepts_exactly_what_the_table_allows(propagation):
    """Every combination on a plain and a ruled puzzle: the core's own search refuses
    with the table's message, or counts as the reference does (dom-wdeg with rules ran
    in the core, blind to the rules, before the core refused it itself)."""
    from sudokulab.native import _core, compiled

    for puzzle, (order, values, backjump, rules) in product((PLAIN, RULED), OTHERS):
        if rules != bool(puzzle.rules):
            continue
        why = options.refusal(propagation, order, values, backjump, "c", rules)
        model = build_model(puzzle)
        tables = compiled.tables(puzzle.size, *shape_of(model), rules_of(model))
        knobs = dict(propagation=propagation, order=order, values=values, backjump=backjump)
        if why:
            with pytest.raises(ValueError) as refused:
                _core.search(tables, list(puzzle.givens), **knobs)
            assert str(refused.value) == why, knobs
            with pytest.raises(ValueError) as refused:
                engine_of(compiled.Engine, puzzle, propagation, order, values, backjump)
            assert str(refused.value) == why, knobs
            continue
        core = engine_of(compiled.Engine, puzzle, propagation, order, values, backjump)
        ref = engine_of(reference.Engine, puzzle, propagation, order, values, backjump)
        out = core.search(puzzle.givens, limit=None)
        assert outcome(out) == outcome(ref.search(puzzle.givens, limit=None)), knobs
        grids, counters = _core.search(tables, list(puzzle.givens), limit=None, keep=1, **knobs)
        assert compiled.outcomes(grids, counters, 16)[0].nodes == out.nodes
        assert out.count == len(brute(puzzle)) and is_solution(puzzle, out.solutions[0])


@pytest.mark.parametrize("propagation", PROPAGATIONS)
def test_the_reference_accepts_exactly_what_the_table_allows(propagation):
    for puzzle, (order, values, backjump, rules) in product((PLAIN, RULED), OTHERS):
        if rules != bool(puzzle.rules):
            continue
        why = options.refusal(propagation, order, values, backjump, "python", rules)
        if why:
            with pytest.raises(ValueError) as refused:
                engine_of(reference.Engine, puzzle, propagation, order, values, backjump)
            assert str(refused.value) == why
            continue
        e = engine_of(reference.Engine, puzzle, propagation, order, values, backjump)
        out = e.search(puzzle.givens, limit=None)
        assert out.count == len(brute(puzzle)) and is_solution(puzzle, out.solutions[0])


@pytest.mark.core
def test_the_core_names_unknown_values_as_the_table_does():
    from sudokulab.native import _core, compiled

    tables = compiled.tables(4, UNITS4)
    for name in ("propagation", "order", "values"):
        with pytest.raises(ValueError) as refused:
            _core.search(tables, list(PLAIN.givens), **{name: "most"})
        assert str(refused.value) == options.unknown(name, "most")
        knobs = {**DEFAULTS, name: "most"}
        assert options.refusal(**knobs) == options.unknown(name, "most")
        with pytest.raises(ValueError, match=f"^{options.unknown(name, 'most')}$"):
            reference.Engine(4, UNITS4, **knobs)


@pytest.mark.core
def test_the_cores_defaults_are_the_tables():
    """A search without knobs is the search with the table's defaults, on a puzzle where
    another value of each option gives other counters."""
    from sudokulab.native import _core, compiled

    puzzle = read_file(Path(__file__).resolve().parent.parent / "data" / "seeds.csv")[2].puzzle
    tables = compiled.tables(9, shape_of(build_model(puzzle))[0])
    givens = list(puzzle.givens)

    def counters(**knobs) -> bytes:
        # limit 1: a whole search's tree is the same in any value order
        return _core.search(tables, givens, limit=1, **knobs)[1][:40]  # not the nanoseconds

    plain = counters()
    assert plain == counters(**DEFAULTS)
    for name in ("propagation", "order", "values"):
        others = [v for v in OPTIONS[name].choices if v != DEFAULTS[name]]
        assert any(counters(**{**DEFAULTS, name: v}) != plain for v in others), name


def test_every_default_is_read_from_the_table():
    for function in (reference.Engine.__init__, trace_puzzle):
        parameters = inspect.signature(function).parameters
        for name, default in DEFAULTS.items():
            assert parameters[name].default == default, (function, name)
    explain = build_parser("explain").parse_args(["explain", "puzzle"])
    assert {name: getattr(explain, name) for name in DEFAULTS} == DEFAULTS
    assert CLASSIC_DEFAULTS["propagation"] in PROPAGATIONS


def test_the_command_lines_choices_are_the_tables(capsys):
    parser = build_parser("solve")
    for name in ("propagation", "order", "values"):
        with pytest.raises(SystemExit):
            parser.parse_args(["solve", f"--{name}", "most", "puzzle"])
        assert ", ".join(f"'{v}'" for v in OPTIONS[name].choices) in capsys.readouterr().err
    with pytest.raises(SystemExit):
        parser.parse_args(["solve", "--help"])
    solve_help = "".join(capsys.readouterr().out.split())  # wrapped anywhere, even at a dash
    assert "".join(OPTIONS["order"].described().split()) in solve_help


@pytest.mark.seam
@pytest.mark.parametrize(
    ("propagation", "order", "values", "backjump", "rules", "name"),
    design(
        {
            "propagation": PROPAGATIONS,
            "order": options.ORDERS,
            "values": options.VALUES,
            "backjump": (False, True),
            "rules": (False, True),
            "name": ("native", "native-py"),
        }
    ),
)
def test_the_backends_refuse_what_the_table_refuses(
    propagation, order, values, backjump, rules, name
):
    """Through the API: an allowed combination solves (verified), a refused one is a
    ValueError or an error result with the table's message, and an option the
    implementation never runs (the core's backjump) is no option of its backend."""
    backend = get_backend(name)
    puzzle = RULED if rules else PLAIN
    knobs = dict(propagation=propagation, order=order, values=values)
    if backjump:
        if "backjump" not in backend.options:
            assert not options.choices(backend.engine).get("backjump")
            with pytest.raises(ValueError, match="has no option 'backjump'"):
                sudokulab.solve(puzzle, backend=name, backjump=True, **knobs)
            return
        knobs["backjump"] = True
    why = options.refusal(**knobs, engine=backend.engine, rules=rules)
    try:
        result = sudokulab.solve(puzzle, backend=name, limit=None, **knobs)
    except ValueError as err:
        assert why and str(err) == f"backend {name!r}: {why}"
        return
    if why:
        assert result.status == "error" and result.message == f"{name}: {why}"
    else:
        assert result.count == len(brute(puzzle))
        assert all(is_solution(puzzle, grid) for grid in result.solutions)
