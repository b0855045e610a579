"""The classroom speaks the textbook: AC-3, GAC, SAC, backjumping, dom-wdeg, local search.

Every event kind the reference engine reports has words (one table: explain, its HTML
page and ``sudokulab serve``), on real puzzles; a GAC step's page draws the unit's
variable-value graph, whose bold edges are a matching; local search's moves replay to
the grid the backend reports.
"""

from __future__ import annotations

import json
import re
import typing
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from sudokulab import parse_puzzle, read_file
from sudokulab.backends.local import LocalBackend
from sudokulab.classroom import trace as tr
from sudokulab.classroom.local_story import (
    Move,
    Start,
    Swap,
    describe_local,
    replay_local,
    trace_local,
)
from sudokulab.classroom.narrative import describe, narrative, steps
from sudokulab.classroom.page import viewer_data, viewer_html
from sudokulab.cli import main
from sudokulab.models import build_model
from sudokulab.native import reference
from sudokulab.native.options import BACKJUMP_PROPAGATIONS, PROPAGATIONS

#: easy50 #6: gac filters units, sac's probes fail on it (tests/test_levels.py).
EASY = "043080250600000000000001094900004070000608000010200003820500000000000005034090710"
#: 4x4, row 4 given as .234, cells in row order, plain backtracking: the dead ends rest
#: on a few early levels (tests/test_search_orders.py), so the search jumps.
JUMPY = "." * 12 + ".234"
#: top95 #5: sac probes it (33), 18 fail, and more than three consistent ones in a row.
SHAVED = "....14....3....2...7..........9...3.6.1.............8.2.....1.4....5.6.....7.8..."
SMALL = "1.....1..1.....1"
SVG = "{http://www.w3.org/2000/svg}"


def top95(data_dir: Path, n: int):
    return read_file(data_dir / "norvig-pytudes" / "sudoku-top95.txt")[:n]


def first_nomatch(data_dir: Path) -> tr.Trace:
    """A gac trace (of the first top95 puzzle that meets one) with a nomatch contradiction."""
    for entry in top95(data_dir, 20):
        t = tr.trace_puzzle(entry.puzzle, "gac", max_steps=None)
        if any(isinstance(e, tr.Contradiction) and e.kind == "nomatch" for e in t.events):
            return t
    pytest.fail("no top95 puzzle among the first 20 meets a nomatch contradiction under gac")


# -- every event kind has words --------------------------------------------------------


def protocol() -> set[str]:
    """The tracer methods the engine's specification (docs/engine.md, Tracing) names."""
    doc = (Path(__file__).resolve().parent.parent / "docs" / "engine.md").read_text()
    section = doc[doc.index("## Tracing") :].split("\n## ")[0]
    return set(re.findall(r"`([a-z_]+)\(", section))


class Spy:
    """A tracer that notes which methods the engine calls and passes them on."""

    def __init__(self, inner: tr.Recorder) -> None:
        self.inner = inner
        self.called: set[str] = set()

    def __getattr__(self, name: str):
        method = getattr(self.inner, name)

        def call(*args, **kwargs):
            self.called.add(name)
            return method(*args, **kwargs)

        return call


def test_the_recorder_takes_every_method_of_the_tracer_protocol():
    names = protocol()
    assert {"revise", "gac", "probe", "backjump", "place", "contradiction"} <= names
    for name in names:
        assert callable(getattr(tr.Recorder, name, None)), f"Recorder has no {name}()"


def test_every_event_the_engine_reports_has_words(data_dir):
    # Runs that make the engine call every method of its protocol; each event kept gets
    # a line from the one word table, and the union of kinds is the whole Event type.
    runs = [
        (parse_puzzle(EASY), "ac3", {}),
        (parse_puzzle(EASY), "gac", {}),
        (parse_puzzle(EASY), "sac", {}),
        (parse_puzzle(SHAVED), "sac", {}),
        (parse_puzzle(EASY), "locked", {}),
        (parse_puzzle(EASY), "forward", {}),  # cells left with one candidate: forced
        (parse_puzzle(JUMPY), "none", {"backjump": True}),
        (first_nomatch(data_dir).puzzle, "gac", {}),
    ]
    called: set[str] = set()
    kinds: set[type] = set()
    for puzzle, propagation, knobs in runs:
        geom = puzzle.geometry
        spy = Spy(tr.Recorder(max_steps=None))
        order = "first" if knobs else "mrv"
        engine = reference.Engine(
            geom.size, tuple(u.cells for u in geom.units), propagation, order, (), spy, **knobs
        )
        engine.search(list(puzzle.givens), limit=2)
        called |= spy.called
        t = tr.trace_puzzle(puzzle, propagation, order, limit=2, max_steps=None, **knobs)
        before = None
        for event, state in tr.replay(t):
            assert describe(event, geom, before)  # a TypeError for an event without words
            kinds.add(type(event))
            before = state
        kinds |= {type(s.event) for s in steps(t)}
    # cages: tests/test_cages.py; variant rules: tests/test_explain_rules.py
    assert called >= protocol() - {"prune_cage", "rule"}
    assert kinds >= set(typing.get_args(tr.Event)) - {tr.CagePrune, tr.RulePrune}


def test_an_event_without_words_is_refused():
    with pytest.raises(TypeError, match="no words for the event"):
        describe(object(), parse_puzzle(EASY).geometry, None)  # type: ignore[arg-type]


# -- AC-3, GAC, SAC on real puzzles ------------------------------------------------------


def test_ac3_tells_each_arc_it_revises():
    t = tr.trace_puzzle(parse_puzzle(EASY), "ac3", max_steps=None)
    geom = t.puzzle.geometry
    revised = [s for s in steps(t) if isinstance(s.event, tr.Revise)]
    assert len(revised) == t.summary.revisions > 0
    for s in revised:
        e = s.event
        x, y, v = geom.cell_name(e.cell), geom.cell_name(e.other), str(e.value)
        assert s.text == f"arc {x} -> {y}: {y} holds {v}, so {v} leaves {x}"
        assert s.removed == ((e.cell, e.value),) and s.pattern == (e.other,)
        assert e.other in geom.peers[e.cell]
        assert not s.state.masks[e.cell] >> (e.value - 1) & 1


def test_gac_tells_the_matching_and_the_values_no_matching_gives():
    t = tr.trace_puzzle(parse_puzzle(EASY), "gac", max_steps=None)
    geom = t.puzzle.geometry
    story = steps(t)
    told = 0
    for k, s in enumerate(story):
        if not isinstance(s.event, tr.GacFilter):
            continue
        e, before = s.event, story[k - 1].state
        told += 1
        unit = geom.units[e.unit]
        assert s.text.startswith(f"GAC on {unit}: maximum matching ")
        for c, v in e.matching:
            assert f"{geom.cell_name(c)} = {v}" in s.text
        for c, values in e.removed:
            assert f"{geom.cell_name(c)} {', '.join(map(str, values))}" in s.text
            for v in values:
                assert before.masks[c] >> (v - 1) & 1 and not s.state.masks[c] >> (v - 1) & 1
        # the matching: the unit's open cells, each a candidate of its own, values distinct
        open_cells = {c for c in unit.cells if before.kinds[c] == tr.OPEN}
        assert {c for c, _ in e.matching} == open_cells
        assert len({v for _, v in e.matching}) == len(e.matching)
        assert all(before.masks[c] >> (v - 1) & 1 for c, v in e.matching)
    assert told == t.summary.gac_filterings > 0


def test_nomatch_says_no_matching_covers_the_unit(data_dir):
    t = first_nomatch(data_dir)
    geom = t.puzzle.geometry
    lines = [
        s.text
        for s in steps(t)
        if isinstance(s.event, tr.Contradiction) and s.event.kind == "nomatch"
    ]
    units = [e.unit for e in t.events if isinstance(e, tr.Contradiction) and e.kind == "nomatch"]
    assert lines and len(lines) == len(units)
    for text, u in zip(lines, units, strict=True):
        assert text.startswith(f"contradiction: no matching covers {geom.units[u]}")


@pytest.mark.parametrize("puzzle", [EASY, SHAVED])
def test_sac_tells_failed_probes_and_summarises_the_consistent_ones(puzzle):
    t = tr.trace_puzzle(parse_puzzle(puzzle), "sac", max_steps=None)
    geom = t.puzzle.geometry
    story = steps(t)
    failed = [s for s in story if isinstance(s.event, tr.Probe) and s.event.failed]
    assert len(failed) == t.summary.failed_probes > 0
    for s in failed:
        name, v = geom.cell_name(s.event.cell), s.event.value
        assert s.text == f"probe {name} = {v}: contradiction, {v} removed"
        assert not s.state.masks[s.event.cell] >> (v - 1) & 1
    told = sum(isinstance(s.event, tr.Probe) and not s.event.failed for s in story)
    summarised = [s.event for s in story if isinstance(s.event, tr.Probes)]
    # every probe is told once: alone, or in a summary of more than PROBES_TOLD in a row
    assert told + sum(p.count for p in summarised) + len(failed) == t.summary.probes
    assert all(p.count > 3 for p in summarised)
    assert summarised or puzzle == EASY  # EASY's probes: too few in a row to summarise
    for s in story:
        if isinstance(s.event, tr.Probes):
            assert f"sac: {s.event.count} probes consistent" in s.text
            assert s.event.node_failed <= s.event.node_probes


# -- backjumping, dom-wdeg ---------------------------------------------------------------


def test_a_backjump_is_told_with_its_conflict_set_and_the_levels_it_skips():
    t = tr.trace_puzzle(
        parse_puzzle(JUMPY), "none", "first", limit=None, max_steps=None, backjump=True
    )
    assert t.summary.backjumps == t.outcome.backjumps > 0
    assert t.summary.skipped == t.outcome.skipped > 0
    story = steps(t)
    jumps = [s for s in story if isinstance(s.event, tr.Backjump)]
    assert len(jumps) == t.summary.backjumps
    guessed_at: dict[int, int] = {}  # the cell of each level, from the guesses before
    for s in story:
        e = s.event
        if isinstance(e, tr.Guess):
            guessed_at[e.depth] = e.cell
        if not isinstance(e, tr.Backjump):
            continue
        conflict = ", ".join(map(str, e.conflict_set))
        skipped = list(range(e.to_depth + 1, e.from_depth))
        assert s.text == (
            f"backjump: dead end at depth {e.from_depth}; its conflict set {{{conflict}}}: "
            f"back to depth {e.to_depth}, skipping {', '.join(map(str, skipped))}"
            + (" (the levels between rest on none of its failures)" if len(skipped) > 1 else "")
        )
        assert max(e.conflict_set) == e.to_depth and skipped
        assert s.skipped == tuple(guessed_at[d] for d in skipped)
    out = narrative(t)
    assert "backjumps" in out and "levels skipped" in out and "backjumping" in out
    # the page greys the skipped levels' cells
    rows = [r for r in viewer_data(t)["steps"] if r["k"] == "backjump"]
    assert [r["sk"] for r in rows] == [list(s.skipped) for s in jumps]


def test_dom_wdeg_tells_the_weights_that_decided(data_dir):
    # Where dom-wdeg branches on another cell than mrv, the words give both cells'
    # candidates per weighted degree; recomputed from the weights the guess carries and
    # the grid before it, the engine's cell is the one with the fewest per weight.
    told = 0
    for entry in top95(data_dir, 3):
        t = tr.trace_puzzle(entry.puzzle, "hidden", "dom-wdeg", max_steps=600)
        geom = t.puzzle.geometry
        story = steps(t)
        for k, s in enumerate(story):
            if "dom-wdeg takes" not in s.text:
                continue
            told += 1
            e, before = s.event, story[k - 1].state
            live = [sum(before.kinds[c] == tr.OPEN for c in u.cells) >= 2 for u in geom.units]

            def ratio(c, e=e, live=live, before=before, geom=geom):
                wdeg = sum(e.weights[u] for u, unit in enumerate(geom.units)
                           if c in unit.cells and live[u])  # fmt: skip
                return before.masks[c].bit_count(), wdeg

            k_mine, w_mine = ratio(e.cell)
            assert f"{geom.cell_name(e.cell)} ({k_mine}/{w_mine} candidates per weight)" in s.text
            for c in geom.cells:
                if before.kinds[c] == tr.OPEN:
                    k_c, w_c = ratio(c)
                    assert k_mine * w_c <= k_c * w_mine  # no cell has fewer per weight
    assert told > 0


@pytest.mark.parametrize("propagation", PROPAGATIONS)
def test_explain_runs_dom_wdeg_and_lcv_under_every_level(capsys, propagation):
    # a 4x4: plain backtracking in Python takes long on a 9x9
    code = main(["explain", SMALL, "--propagation", propagation, "--order", "dom-wdeg",
                 "--values", "lcv", "--max-steps", "50"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert f"propagation {propagation}, order dom-wdeg, values lcv" in out


@pytest.mark.parametrize("propagation", [p for p in PROPAGATIONS if p not in BACKJUMP_PROPAGATIONS])
def test_backjump_is_refused_where_conflict_sets_are_not_defined(capsys, propagation):
    code = main(["explain", EASY, "--propagation", propagation, "--backjump"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "explain: backjump needs propagation none or forward" in err and "Traceback" not in err


# -- the HTML page ------------------------------------------------------------------------


def page_data(page: str) -> dict:
    m = re.search(r"var DATA=(\{.*?\});var ROOT=", page, re.S)
    assert m, "the page carries its data"
    return json.loads(m.group(1))


def test_the_page_draws_each_gac_steps_variable_value_graph():
    t = tr.trace_puzzle(parse_puzzle(EASY), "gac", max_steps=None)
    geom = t.puzzle.geometry
    story = steps(t)
    rows = page_data(viewer_html(t))["steps"]
    graphs = 0
    for k, (s, row) in enumerate(zip(story, rows, strict=True)):
        if not isinstance(s.event, tr.GacFilter):
            assert "svg" not in row
            continue
        graphs += 1
        before = story[k - 1].state
        svg = ET.fromstring(row["svg"])
        assert svg.tag == SVG + "svg" and svg.get("data-unit") == str(s.event.unit)
        edges = [
            (int(e.get("data-cell")), int(e.get("data-value")), e.get("data-kind"), e)
            for e in svg.iter(SVG + "line")
        ]
        bold = [(c, v) for c, v, kind, e in edges if float(e.get("stroke-width")) >= 3]
        # the bold edges: a matching covering the unit's open cells, each a candidate
        open_cells = {c for c in geom.units[s.event.unit].cells if before.kinds[c] == tr.OPEN}
        assert {c for c, _ in bold} == open_cells and len(bold) == len(open_cells)
        assert len({v for _, v in bold}) == len(bold)
        assert all(before.masks[c] >> (v - 1) & 1 for c, v in bold)
        assert all(kind == "matching" for c, v, kind, _ in edges if (c, v) in set(bold))
        # every candidate of an open cell among the unit's missing values is an edge
        missing = {v for _, v in bold}
        assert {(c, v) for c, v, _, _ in edges} == {
            (c, v) for c in open_cells for v in missing if before.masks[c] >> (v - 1) & 1
        }
        # the struck edges are exactly the candidates the step removes
        struck = {(c, v) for c, v, kind, e in edges if kind == "removed"}
        assert struck == set(s.removed) and struck
        assert all(e.get("stroke-dasharray") for _, _, kind, e in edges if kind == "removed")
    assert graphs == t.summary.gac_filterings > 0


def test_the_page_has_the_graph_area_and_no_network():
    page = viewer_html(tr.trace_puzzle(parse_puzzle(EASY), "gac"))
    assert 'data-role="graph"' in page
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page


# -- local search -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "puzzle"),
    [("min-conflicts", SMALL), ("annealing", SMALL), ("min-conflicts", EASY), ("annealing", EASY)],
)
def test_local_moves_replay_to_the_solution_the_backend_reports(method, puzzle):
    p = parse_puzzle(puzzle)
    t = trace_local(p, {"method": method, "seed": 3}, max_steps=None)
    assert t.result.status == "solved" and not t.truncated
    assert replay_local(t) == list(t.result.solutions[0])
    moves = sum(isinstance(e, Move) for e in t.events)
    swaps = sum(isinstance(e, Swap) for e in t.events)
    starts = sum(isinstance(e, Start) for e in t.events)
    stats = t.result.stats
    if method == "min-conflicts":
        assert moves == stats["moves"] and starts == stats["restarts"] + 1
    else:
        assert swaps <= stats["moves"] and starts == 1
    # the tracer changes nothing: the same seed makes the same moves without it
    plain = LocalBackend().solve(build_model(p), method=method, seed=3)
    assert plain.solutions == t.result.solutions and plain.stats == stats


def test_local_moves_are_told_in_the_textbooks_terms():
    p = parse_puzzle(EASY)
    geom = p.geometry
    t = trace_local(p, {"method": "min-conflicts", "seed": 1}, max_steps=None)
    hows = {e.how for e in t.events if isinstance(e, Move)}
    assert "greedy" in hows and "walk" in hows
    for e in t.events:
        text = describe_local(e, geom, "min-conflicts")
        if isinstance(e, Move) and e.how != "stay":
            assert text.startswith(f"{geom.cell_name(e.cell)}: {e.old} -> {e.new}, ")
            assert f"conflicts {e.before} -> {e.after}, cost {e.cost}" in text
            assert ("(random walk)" in text) == (e.how == "walk")
    t = trace_local(p, {"method": "annealing", "seed": 1}, max_steps=None)
    for e in t.events:
        if isinstance(e, Swap):
            text = describe_local(e, geom, "annealing")
            assert text.startswith(
                f"box {e.box}: swap {geom.cell_name(e.i)} ({e.a}) and {geom.cell_name(e.j)} ({e.b})"
            )
            box = [u for u in geom.units if u.kind == "box"][e.box - 1]
            assert e.i in box.cells and e.j in box.cells
            assert ("refused" in text) == (not e.accepted)


def test_explain_backend_local_prints_moves_bounded_and_a_summary(capsys):
    code = main(
        ["explain", SMALL, "--backend", "local:method=annealing,seed=2", "--max-steps", "5"]
    )
    out = capsys.readouterr().out
    assert code == 0
    numbered = [line for line in out.splitlines() if re.match(r"\s+\d+\. ", line)]
    assert len(numbered) == 5 and "truncated after 5 steps" in out
    assert "summary (local search, method annealing, seed 2):" in out
    assert re.search(r"moves\s+\d+", out) and re.search(r"best cost\s+0", out)


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("local:method=tabu", "method"),
        ("cpsat", "not cpsat"),
        ("nosuch", "unknown backend"),
    ],
)
def test_explain_backend_refuses_what_it_cannot_tell(capsys, spec, words):
    code = main(["explain", EASY, "--backend", spec])
    err = capsys.readouterr().err
    assert code == 2 and words in err and err.count("\n") == 1


def test_explain_backend_local_times_out_as_a_failure(capsys):
    code = main(["explain", EASY, "--backend", "local:budget=3"])
    out = capsys.readouterr().out
    assert code == 1 and "timeout" in out


# -- the page in a browser, and the live page's API --------------------------------------


def test_the_page_shows_the_graph_and_the_skipped_levels_in_a_browser(tmp_path, capsys):
    from test_browser import ARGS, CHROMIUM, _sync_playwright

    sync_playwright = _sync_playwright()
    gac, jumps = tmp_path / "gac.html", tmp_path / "jumps.html"
    assert main(["explain", EASY, "--propagation", "gac", "--html", str(gac)]) == 0
    jumpy = ["explain", JUMPY, "--propagation", "none", "--order", "first", "--backjump"]
    assert main([*jumpy, "--unique", "--html", str(jumps)]) == 1  # two solutions
    capsys.readouterr()
    rows = page_data(jumps.read_text())["steps"]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(gac.as_uri())
            page.locator('[data-role="list"] li.k-gacfilter').first.click()
            graph = page.locator('[data-role="graph"] svg')
            assert graph.count() == 1
            assert graph.locator('line[data-kind="matching"]').count() > 0
            page.locator('[data-role="list"] li.k-placement').first.click()
            assert page.locator('[data-role="graph"] svg').count() == 0
            page.goto(jumps.as_uri())
            k = next(i for i, r in enumerate(rows) if r["k"] == "backjump")
            page.locator(f'[data-role="list"] li[data-step="{k}"]').click()
            skipped = page.eval_on_selector_all(
                '[data-role="grid"] [data-skipped="true"]', "els => els.map(e => +e.dataset.cell)"
            )
            assert sorted(skipped) == sorted(rows[k]["sk"]) and skipped
            assert errors == []
        finally:
            browser.close()


def test_the_live_page_serves_the_new_steps_in_the_same_words():
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    from test_serve import call, running_server

    with running_server() as (url, _):
        for propagation, kind in (("gac", "gacfilter"), ("ac3", "revise"), ("sac", "probe")):
            status, d = call(url, "/api/solve", {"puzzle": EASY, "propagation": propagation})
            assert status == 200
            t = tr.trace_puzzle(parse_puzzle(EASY), propagation, "mrv")
            rows = d["viewer"]["steps"]
            assert [r["t"] for r in rows] == [s.text for s in steps(t)]
            assert any(r["k"] == kind for r in rows)
            if propagation == "gac":
                assert [r["svg"] for r in rows if "svg" in r] == [
                    r["svg"] for r in viewer_data(t)["steps"] if "svg" in r
                ]
        status, d = call(url, "/api/solve", {"puzzle": SHAVED, "order": "dom-wdeg"})
        assert status == 200 and any("dom-wdeg takes" in r["t"] for r in d["viewer"]["steps"])
