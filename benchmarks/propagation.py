"""Propagation strength, in the layout of Simonis's table ("Sudoku as a Constraint
Problem", 2005): levels as columns, sets as rows.

For every level the native engine has (``sudokulab.native.PROPAGATIONS``, weakest first)
and every set (the classic public sets in --data-dir, and the project's generated 16x16
set), on the same puzzles in one run:

    settled     the share of puzzles the level solves without a guess (a budget of no
                guess: ``max_guesses=0``; at the root, but under ``forward``, whose
                search places each cell left with one candidate as a forced step, no
                guess), with the logic solver's share beside it (its ladder of
                techniques, no guess either);
    guesses     the mean guesses per puzzle of MAC at that level (the engine maintaining
                the level during search), first solution;
    µs          the engine's own time per puzzle (its counters), and per node against
                ``locked``'s on the same set (the speed goal: ``gac`` within 3x);
    separations over all sets, how many puzzles each level settles that another does not
                (a stronger level settles every puzzle a weaker one does; ``gac`` and
                ``locked`` are incomparable: locked candidates span two units).

Searches are bounded by a budget of guesses (--budget), not a clock, so every machine
stops them at the same place; a row that spent its budget is counted at the budget and
marked with ``>=`` (plain backtracking, ``none``, spends it on the hard sets). Puzzles are
a seeded sample of each set (--sample; 0: all of it). Nothing is asserted: the numbers
go to docs/results.md ("Propagation levels side by side").

    python benchmarks/propagation.py --data-dir ../shared/data [--sample 300]
        [--sets easy50,top95,...] [--order mrv] [--budget 200000] [--no-logic]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import numpy as np
from classic_sets import add_data_dir, data_dir

SETS = "easy50,magictour_easy,sudoku10k,sudoku17,top95,top1465,top2365,hardest,gen-16x16"


@dataclass
class Row:
    """One set at one level: settled at the root, and the search's guesses, time, nodes."""

    settled: np.ndarray  # bool per puzzle
    guesses: np.ndarray
    ns: np.ndarray
    nodes: np.ndarray
    spent: int  # puzzles whose search spent the budget


def run_level(engine, givens: np.ndarray, budget: int, marks: np.ndarray | None) -> Row:
    """The engine over the set twice: at the root only, then the search to the first
    solution (within ``budget`` guesses); ``marks``: every candidate open, which makes the
    core run its general engine (the one every level has) on the classic grid too."""
    from sudokulab import native

    col = native.COUNTERS.index
    _, root = engine.search_grids(givens, 1, max_guesses=0, candidates=marks)
    _, full = engine.search_grids(givens, 1, max_guesses=budget, candidates=marks)
    spent = (full[:, col("flags")] & native.BUDGET_SPENT) != 0
    return Row(
        settled=root[:, col("count")] >= 1,
        guesses=full[:, col("guesses")],
        ns=full[:, col("nanoseconds")],
        nodes=full[:, col("nodes")],
        spent=int(spent.sum()),
    )


def logic_share(puzzles) -> float:
    """The logic solver's share of puzzles solved by its ladder alone."""
    from sudokulab.api import rate_rows

    rows = list(rate_rows(puzzles))
    return sum(r["status"] == "solved" for r in rows) / len(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--sets", default=SETS, help=f"catalog sets (default {SETS})")
    parser.add_argument(
        "--sample", type=int, default=300, help="puzzles per set, seeded (0: all; default 300)"
    )
    parser.add_argument("--order", default="mrv", help="the search's order (default mrv)")
    parser.add_argument(
        "--budget", type=int, default=200_000, help="guesses per puzzle (default 200000)"
    )
    parser.add_argument("--no-logic", action="store_true", help="skip the logic solver column")
    parser.add_argument(
        "--engine",
        choices=("general", "fastest"),
        default="general",
        help="general: every level in the core's general engine, so times per node compare "
        "(default); fastest: the classic grid's hidden and locked on the bitboard solver",
    )
    args = parser.parse_args()
    data_dir(parser, args)

    from sudokulab import native
    from sudokulab.catalog import load

    if native.ENGINE != "c":
        parser.error("the compiled core is not built: these timings would be the reference's")
    levels = native.PROPAGATIONS
    results: dict[str, dict[str, Row]] = {}
    logic: dict[str, float] = {}
    sizes: dict[str, int] = {}
    for name in args.sets.split(","):
        loaded = load(name, [args.data_dir], args.sample or None, seed=1)
        puzzles = [e.puzzle for e in loaded.entries]
        geom = puzzles[0].geometry
        givens = np.array([p.givens for p in puzzles], dtype=np.uint8)
        units = tuple(u.cells for u in geom.units)
        sizes[name] = len(puzzles)
        marks = None
        if args.engine == "general":
            marks = np.full(givens.shape, (1 << geom.size) - 1, dtype=np.uint32)
        results[name] = {}
        for level in levels:
            engine = native.Engine(geom.size, units, level, args.order)
            results[name][level] = run_level(engine, givens, args.budget, marks)
        if not args.no_logic:
            logic[name] = logic_share(puzzles)
        print(f"  {name}: {len(puzzles)} puzzles done", flush=True)

    def table(title: str, cell, extra=None) -> None:
        print(f"\n{title}")
        head = f"{'set':<16} {'puzzles':>7} " + " ".join(f"{lv:>9}" for lv in levels)
        if extra:
            head += f" {extra[0]:>9}"
        print(head)
        print("-" * len(head))
        for name, rows in results.items():
            line = f"{name:<16} {sizes[name]:>7} " + " ".join(
                f"{cell(rows[lv], rows):>9}" for lv in levels
            )
            if extra:
                line += f" {extra[1](name):>9}"
            print(line)

    print(
        f"\norder {args.order}, budget {args.budget:,} guesses a puzzle, seeded samples, "
        f"{args.engine} engine"
    )
    table(
        "settled without a guess (share of puzzles)",
        lambda r, _: f"{r.settled.mean():.1%}",
        ("logic", lambda n: f"{logic[n]:.1%}") if logic else None,
    )
    table(
        "MAC at each level: mean guesses a puzzle, first solution (>=: some spent the budget)",
        lambda r, _: ("≥" if r.spent else "") + f"{r.guesses.mean():.1f}",
    )
    table(
        "MAC at each level: µs a puzzle (the engine's own time)",
        lambda r, _: ("≥" if r.spent else "") + f"{r.ns.mean() / 1e3:.1f}",
    )
    if "locked" in levels:

        def per_node(r: Row) -> float:
            return r.ns.sum() / max(1, r.nodes.sum())

        table(
            f"time per node against locked's on the same set (x; {args.engine} engine)",
            lambda r, rows: f"{per_node(r) / per_node(rows['locked']):.2f}",
        )
    print("\nseparations: puzzles (all sets) the row's level settles and the column's does not")
    head = f"{'':<9} " + " ".join(f"{lv:>8}" for lv in levels)
    print(head)
    for a in levels:
        counts = []
        for b in levels:
            n = sum(int((rows[a].settled & ~rows[b].settled).sum()) for rows in results.values())
            counts.append(f"{n:>8}")
        print(f"{a:<9} " + " ".join(counts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
