"""The constraint graph: `sudokulab model` names it and `--graph` writes it."""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET

import pytest

from sudokulab.catalog import load
from sudokulab.classroom.graph import constraint_graph, graph_lines, write_graph
from sudokulab.cli import main
from sudokulab.models import build_model, parse_puzzle

HARD = "7.18.43.......2.....453..7.6.....7..1...9...5..8.....38...195....23........6.89.4"


def _puzzles():
    yield "4x4", parse_puzzle("1.....1..1.....1")
    yield "classic", parse_puzzle(HARD)
    for name in ("gen-x", "gen-jigsaw", "gen-killer", "gen-16x16"):
        yield name, load(name).entries[0].puzzle


@pytest.mark.parametrize(("name", "puzzle"), list(_puzzles()), ids=lambda v: str(v)[:12])
def test_edges_are_exactly_the_pairs_that_share_a_constraint(name, puzzle):
    model = build_model(puzzle)
    graph = constraint_graph(model)
    pairs: dict[tuple[int, int], set[str]] = {}
    for constraint in model.constraints:
        for a, b in itertools.combinations(sorted(constraint.cells), 2):
            pairs.setdefault((a, b), set()).add(constraint.name)
    assert {edge: set(names) for edge, names in graph.edges.items()} == pairs
    # Without cages, neighbours are the geometry's peers (the units' other cells).
    if not puzzle.cages:
        assert [set(n) for n in graph.neighbours] == [set(p) for p in model.geometry.peers]
    else:  # a cage links cells of different units: some cell gains neighbours
        assert any(
            len(n) > len(p) for n, p in zip(graph.neighbours, model.geometry.peers, strict=True)
        )
    assert graph.arcs == 2 * len(pairs)


def test_board_names_the_graph_with_its_counts(capsys):
    code = main(["model", HARD, "--cell", "r1c2"])
    out = capsys.readouterr().out
    assert code == 0
    model = build_model(parse_puzzle(HARD))
    edges = sum(len(p) for p in model.geometry.peers) // 2
    line = re.search(r"^constraint graph: (\d+) variables, (\d+) edges .*, (\d+) arcs", out, re.M)
    assert line and tuple(map(int, line.groups())) == (81, edges, 2 * edges)
    assert graph_lines(model)[0] in out


def test_graph_as_dot_has_a_node_per_cell_and_an_edge_per_pair(tmp_path):
    path = tmp_path / "graph.dot"
    model = build_model(load("gen-killer").entries[0].puzzle)
    write_graph(model, path)
    text = path.read_text()
    assert text.startswith("//") and "graph constraints {" in text
    nodes = re.findall(r"^  c(\d+) \[label=", text, re.M)
    edges = re.findall(r"^  c(\d+) -- c(\d+) ", text, re.M)
    assert sorted(map(int, nodes)) == list(range(81))
    assert {(int(a), int(b)) for a, b in edges} == set(constraint_graph(model).edges)


def test_graph_as_svg_from_the_cli(tmp_path, capsys):
    path = tmp_path / "graph.svg"
    code = main(["model", HARD, "--cell", "r5c5", "--graph", str(path)])
    out = capsys.readouterr().out
    assert code == 0 and f"constraint graph written to {path}" in out
    root = ET.parse(path).getroot()  # a well-formed SVG document
    assert root.tag.endswith("svg")
    paths = [e for e in root.iter() if e.tag.endswith("path")]
    assert len(paths) >= 810  # an edge is a path of its own (and every glyph is one)


@pytest.mark.parametrize(
    ("target", "message"),
    [("graph.txt", "use a file ending in .dot"), ("missing/graph.svg", "cannot write")],
)
def test_graph_bad_files_are_usage_errors(tmp_path, capsys, target, message):
    code = main(["model", HARD, "--graph", str(tmp_path / target)])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and "Traceback" not in err
    assert not (tmp_path / target).exists()
