"""The classroom tells a variant rule's steps in its words: what a rule's propagation
removed (the rule named with its cells), a placement a rule refuses, and the counts the
engine made, on the Miracle Sudoku (anti-knight, anti-king, nonconsecutive)."""

from __future__ import annotations

import pytest
from test_variant_kinds import miracle

from sudokulab import is_solution
from sudokulab.classroom.narrative import narrative, steps
from sudokulab.classroom.page import viewer_data
from sudokulab.classroom.trace import Contradiction, RulePrune, trace_puzzle
from sudokulab.cli import main
from sudokulab.models.formats import format_line
from sudokulab.native import reference

RULES = ["anti-knight", "anti-king", "nonconsecutive"]
MIRACLE = format_line(miracle())


@pytest.mark.parametrize("propagation", ["forward", "hidden"])
def test_a_rule_pruning_is_told_with_the_rule_and_what_left(propagation):
    puzzle = miracle()
    geom = puzzle.geometry
    trace = trace_puzzle(puzzle, propagation, max_steps=None)
    units = tuple(u.cells for u in geom.units)
    out = reference.Engine(9, units, propagation, "mrv", rules=puzzle.rules).search(
        puzzle.givens, 1
    )
    s = trace.summary
    assert (s.nodes, s.guesses, s.backtracks) == (out.nodes, out.guesses, out.backtracks)
    assert is_solution(puzzle, trace.solutions[0])
    prunes = [e for e in trace.events if isinstance(e, RulePrune)]
    assert s.rule_prunings == len(prunes) > 0
    told = 0
    for step in steps(trace):
        if not isinstance(step.event, RulePrune):
            continue
        rule = puzzle.rules[step.event.rule]
        names = [geom.cell_name(c) for c in rule.cells]
        assert step.text.startswith(f"{rule.name} ({', '.join(names)}): ")
        for cell, values in step.event.removed:
            assert cell in rule.cells and geom.cell_name(cell) in step.text
            assert all(not step.state.masks[cell] >> (v - 1) & 1 for v in values)
        assert set(step.pattern) == set(rule.cells)  # the page highlights the rule's cells
        told += 1
    assert told == len(prunes)
    assert "rule prunings" in narrative(trace)


def test_a_placement_a_rule_refuses_is_a_contradiction_naming_the_rule():
    puzzle = miracle()
    trace = trace_puzzle(puzzle, "none", max_steps=400, timeout=1.0)  # (the first steps)
    refused = [e for e in trace.events if isinstance(e, Contradiction) and e.kind == "rule"]
    assert refused
    told = [s.text for s in steps(trace) if isinstance(s.event, Contradiction)]
    for event in refused:
        rule = puzzle.rules[event.cage]
        cell = puzzle.geometry.cell_name(event.cell)
        line = f"contradiction: {cell} cannot be {event.values[0]}: it would break {rule.name} ("
        assert any(text.startswith(line) for text in told)


def test_explain_and_the_page_take_variant_puzzles(capsys, tmp_path):
    code = main(["explain", "--variant", ",".join(RULES), "--propagation", "hidden", MIRACLE])
    out, err = capsys.readouterr()
    assert code == 0 and not err
    assert "nonconsecutive (" in out and "rule prunings" in out and "outcome          solved" in out
    assert out.splitlines()[0].endswith(
        "(2 givens, anti-knight, anti-king, nonconsecutive; propagation hidden, order mrv)"
    )
    data = viewer_data(trace_puzzle(miracle(), "hidden"))
    assert any("anti-k" in row["t"] for row in data["steps"])


def test_the_header_counts_a_puzzles_rules_by_their_names():
    from sudokulab.generate import generate

    puzzle = next(generate(9, "thermometer", count=1, seed=3)).puzzle
    names = {rule.name for rule in puzzle.rules}
    header = narrative(trace_puzzle(puzzle, "hidden", max_steps=1)).splitlines()[0]
    assert f"{puzzle.given_count} givens, {len(names)} thermometers;" in header
