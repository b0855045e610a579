"""The classroom commands: ``explain`` (a solve told step by step) and ``model`` (the CSP)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..classroom.narrative import MOMENTS
from ..classroom.trace import MAX_STEPS
from ..models import Entry
from ..models.formats import counted
from ..native.options import BACKJUMP_PROPAGATIONS, DEFAULTS, OPTIONS, ORDERS, PROPAGATIONS, VALUES
from .common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    add_puzzle_arguments,
    count,
    read_inputs,
    seconds,
)

EXPLAIN_EXAMPLES = """\
examples:
  sudokulab explain '1.....1..1.....1' --show-candidates every
  sudokulab explain puzzle.txt --propagation none --order first --max-steps 200
  sudokulab explain puzzle.txt --show-candidates guesses
  sudokulab explain puzzle.txt --html lesson.html      # a page to step through
  sudokulab explain puzzle.txt --logic                 # human techniques, step by step
  sudokulab explain puzzle.txt --logic --html logic.html
  sudokulab explain puzzle.txt --propagation gac --html gac.html  # the matchings drawn
  sudokulab explain puzzle.txt --propagation forward --backjump --order first
  sudokulab explain puzzle.txt --backend local:method=annealing,seed=2 --max-steps 100
  sudokulab explain '..1.4.....3..2..' --certify --html proof.html  # the verdict proved

--show-candidates prints the candidates grid: start (after the givens are placed and
propagated), guesses (that, and before every guess), every (after every step), end.
Under ac3, gac and sac the steps are the textbook's: each arc AC-3 revises, each unit GAC
filters (its maximum matching, the values no maximum matching gives their cell; the page
draws the unit's variable-value graph), SAC's probes (consistent ones in a row summarised);
--backjump tells each jump with its conflict set and the levels it skips.
--logic tells the logic solver's run instead (human techniques, no guess): each step names
its technique, the cells and units it rests on and what it removes; the page highlights
them. --backend local tells local search's moves instead (min-conflicts: the cell, its old
and new value, its conflicts before and after; annealing: the swap in a box, the cost, the
temperature) and its summary (moves, restarts, best cost).
--certify proves the puzzle's verdict (no solution, one, or an exact count below 10) and
checks the proof: after the story, or in the page's proof section; a 4x4 puzzle's proof is
told in words (each lemma's cells and values, then the unit propagation that ends it).
exit status: 0 solved (and unique, with --unique), 1 no solution, several, or timed out
(with --logic: the ladder stalls or meets a contradiction; with --backend local: no
solution found in time; with --certify: the proof rejected or the claim refuted), 2 bad
input.
"""

MODEL_EXAMPLES = """\
examples:
  sudokulab model '1.....1..1.....1'
  sudokulab model puzzle.txt --cell r4c7
  sudokulab model puzzle.txt --cell r4c7 --graph graph.svg

exit status: 0 shown (model solves nothing: a puzzle without a solution is shown too), 2
bad input (unreadable text, clashing givens, a cell off the grid, a --graph file of
another kind or that cannot be written).
"""


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``explain`` and ``model`` to the command line."""
    p = commands.add_parser(
        "explain",
        help="solve one puzzle step by step and tell the story (text or an HTML page)",
        description="Solve one puzzle with the Python reference engine and print every step: "
        "givens, naked and hidden singles, the candidates they remove, guesses, "
        "contradictions and backtracks (for a killer puzzle also what each cage's sum "
        "allows), then a summary. PUZZLE is as for `solve` (one puzzle, or a puzzle document "
        "for variants; --number picks one from a file of many).",
        epilog=EXPLAIN_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--propagation",
        choices=PROPAGATIONS,
        default=DEFAULTS["propagation"],
        help=f"what a placement propagates (default: {DEFAULTS['propagation']})",
    )
    p.add_argument(
        "--order",
        choices=ORDERS,
        default=DEFAULTS["order"],
        help=f"which cell to guess: {OPTIONS['order'].described()}, under every propagation "
        f"here (default: {DEFAULTS['order']})",
    )
    p.add_argument(
        "--values",
        choices=VALUES,
        default=DEFAULTS["values"],
        help=f"the order a guessed cell's candidates are tried in: {OPTIONS['values'].described()} "
        f"(default: {DEFAULTS['values']})",
    )
    p.add_argument(
        "--backjump",
        action="store_true",
        help="conflict-directed backjumping: a dead end jumps back to the deepest level its "
        f"conflict set names (propagation {' or '.join(BACKJUMP_PROPAGATIONS)} only)",
    )
    p.add_argument(
        "--show-candidates",
        choices=MOMENTS,
        default="none",
        help="when to print the candidates grid (default: none; see below)",
    )
    p.add_argument("--unique", action="store_true", help="go on searching for a second solution")
    p.add_argument(
        "--max-steps",
        type=count,
        default=MAX_STEPS,
        metavar="N",
        help=f"show at most N steps; the summary still counts all (default: {MAX_STEPS})",
    )
    p.add_argument(
        "--timeout",
        type=seconds,
        default=10.0,
        metavar="SECONDS",
        help="stop the search after this long (default: 10)",
    )
    p.add_argument(
        "--backend",
        metavar="SPEC",
        help="tell local search instead of the reference engine: local, or local:method="
        "annealing,seed=3 (the local backend's options as for `solve`); each move is a "
        "step (--max-steps bounds them, --timeout the search)",
    )
    p.add_argument("--html", metavar="FILE", help="write a step-through page; print the summary")
    p.add_argument(
        "--certify",
        action="store_true",
        help="also prove the puzzle's verdict with a checked certificate (see below)",
    )
    p.add_argument(
        "--logic",
        action="store_true",
        help="tell the logic solver's run instead: human techniques, simplest first "
        "(singles, locked candidates, subsets, fish, wings, colouring, chains), no guess; "
        "the summary rates the puzzle (see `sudokulab rate`)",
    )
    _common(p)
    p.set_defaults(handler=cmd_explain)

    p = commands.add_parser(
        "model",
        help="show the CSP of a puzzle: variables, domains, constraints, peers, backends",
        description="Print the constraint model of one puzzle as a teacher writes it: "
        "variables and domains, every AllDifferent constraint by rows, columns and boxes, "
        "the peers of one cell, and what the cpsat and constraint backends build from it.",
        epilog=MODEL_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--cell", help="the cell whose peers to show, e.g. r4c7 (first open cell)")
    p.add_argument(
        "--graph",
        metavar="FILE",
        help="also write the constraint graph (a node per cell, an edge per pair of cells "
        "sharing a constraint) to FILE: .svg, .png or .pdf draws it, .dot or .gv writes "
        "Graphviz's text; --cell's edges are drawn bold",
    )
    _common(p)
    p.set_defaults(handler=cmd_model)


def _common(p: argparse.ArgumentParser) -> None:
    add_puzzle_arguments(p)
    p.add_argument(
        "--number", type=count, default=1, metavar="N", help="the N-th puzzle of the input"
    )


def _one_entry(args: argparse.Namespace) -> Entry:
    """The puzzle the arguments name; a usage error when there is no such one."""
    entries = read_inputs(args)
    if args.number > len(entries):
        raise UsageError(
            f"--number {args.number}: the input holds {counted(len(entries), 'puzzle')}"
        )
    return entries[args.number - 1]


def _valid(entry: Entry) -> bool:
    """False (after saying why on stderr) when the givens clash."""
    clashes = entry.puzzle.clashes()
    if clashes:
        text = "; ".join(map(str, clashes))
        print(f"sudokulab: puzzle: invalid puzzle: {text}", file=sys.stderr)
    return not clashes


def cmd_explain(args: argparse.Namespace) -> int:
    """Trace one solve; print the narrative (or write the page) and the summary."""
    from ..classroom.narrative import narrative, summary_lines
    from ..classroom.trace import trace_puzzle

    entry = _one_entry(args)
    if not _valid(entry):
        return EXIT_BAD_INPUT
    if args.certify and (args.backend is not None or args.logic):
        raise UsageError("--certify: with the engine's story only (not --logic or --backend)")
    if args.backend is not None:
        return _explain_local(entry, args)
    if args.logic:
        return _explain_logic(entry, args)
    try:
        trace = trace_puzzle(
            entry.puzzle,
            args.propagation,
            args.order,
            limit=2 if args.unique else 1,
            max_steps=args.max_steps,
            timeout=args.timeout,
            values=args.values,
            backjump=args.backjump,
        )
    except ValueError as err:  # pencil marks, or knobs the engine refuses (native.options)
        raise UsageError(f"explain: {err}") from None
    proof = None
    if args.certify:
        from ..classroom.page import proof_data, prove

        proof = proof_data(entry.puzzle, prove(entry.puzzle, args.timeout))
    if args.html:
        from ..classroom.page import viewer_html

        _write(args.html, viewer_html(trace, proof=proof))
        kept = f" (the first {counted(args.max_steps, 'step')})" if trace.truncated else ""
        print(f"wrote {args.html}{kept}", file=sys.stderr)
        print("\n".join(summary_lines(trace)))
    else:
        print(narrative(trace, args.show_candidates))
    if proof is not None:
        from ..classroom.page import proof_lines

        print("\n".join(proof_lines(proof)))
    found = trace.summary.solutions
    ok = found == 1 and (trace.complete or not args.unique) and not trace.timed_out
    proved = proof is None or proof["outcome"] in ("accepted", "none")
    return EXIT_OK if ok and proved else EXIT_FAILED


def _explain_local(entry: Entry, args: argparse.Namespace) -> int:
    """``explain --backend local``: the moves of local search, and its summary."""
    from ..backends import parse_spec
    from ..classroom.local_story import local_narrative, trace_local

    try:
        spec = parse_spec(args.backend)
    except ValueError as err:
        raise UsageError(f"--backend: {err}") from None
    if spec.backend != "local":
        raise UsageError(
            f"--backend: explain tells the reference engine (without --backend) or local "
            f"search (--backend local), not {spec.backend}"
        )
    for flag, given in (("--logic", args.logic), ("--html", args.html)):
        if given:
            raise UsageError(f"--backend local: {flag} is not for local search")
    try:
        trace = trace_local(entry.puzzle, spec.options, args.max_steps, args.timeout)
    except ValueError as err:
        raise UsageError(f"--backend local: {err}") from None
    print(local_narrative(trace))
    return EXIT_OK if trace.result.status == "solved" else EXIT_FAILED


def _explain_logic(entry: Entry, args: argparse.Namespace) -> int:
    """``explain --logic``: the logic solver's story, or its page and summary."""
    from ..classroom import logic_story
    from ..logic import solve_logic

    try:
        run = solve_logic(entry.puzzle)
    except ValueError as err:  # killer cages
        raise UsageError(f"--logic: {err}") from None
    if args.html:
        _write(args.html, logic_story.logic_html(run))
        print(f"wrote {args.html}", file=sys.stderr)
        print("\n".join(logic_story.summary_lines(run)))
    else:
        print(logic_story.logic_narrative(run, args.show_candidates))
    return EXIT_OK if run.status == "solved" else EXIT_FAILED


def _write(path: str, text: str) -> None:
    """Write a page; a usage error naming the file when it cannot be written."""
    try:
        with open(path, "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as err:
        raise UsageError(f"{path}: cannot write: {err.strerror or err}") from None


def cmd_model(args: argparse.Namespace) -> int:
    """Print the CSP of one puzzle."""
    from ..classroom.model_view import board, parse_cell

    entry = _one_entry(args)
    if not _valid(entry):
        return EXIT_BAD_INPUT
    cell = None
    if args.cell is not None:
        try:
            cell = parse_cell(args.cell, entry.puzzle.geometry)
        except ValueError as err:
            raise UsageError(f"--cell: {err}") from None
    if args.graph is not None:
        from ..classroom.graph import FORMATS, write_graph
        from ..models import build_model

        if Path(args.graph).suffix.lower() not in FORMATS:
            raise UsageError(f"--graph: {args.graph}: use a file ending in {', '.join(FORMATS)}")
        try:
            write_graph(build_model(entry.puzzle), args.graph, cell)
        except OSError as err:
            raise UsageError(
                f"--graph: {args.graph}: cannot write: {err.strerror or err}"
            ) from None
    print(board(entry.puzzle, cell))
    if args.graph is not None:
        print(f"constraint graph written to {args.graph}")
    return EXIT_OK
