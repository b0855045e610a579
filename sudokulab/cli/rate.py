"""The ``rate`` command: how hard each puzzle is for a human solver."""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
from collections import Counter
from typing import TYPE_CHECKING, Any

from ..models import ParseError
from ..models.formats import counted
from .common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    MAX_PROCESSES,
    Number,
    UsageError,
    add_puzzle_arguments,
    error,
)

if TYPE_CHECKING:  # blocks are numpy arrays: imported when the puzzles are read
    from ..models.stream import Block

RATE_EXAMPLES = """\
examples:
  sudokulab rate 4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......
  sudokulab rate top95 --data-dir ../shared/data
  sudokulab rate puzzles.txt --format csv > ratings.csv
  sudokulab rate puzzles.txt --format json --jobs 2

the scale (modelled on Sudoku Explainer): hidden single 1.2 (box) or 1.5 (line), naked
single 2.3, locked candidates 2.6 (pointing) or 2.8 (claiming), naked pair 3.0, X-wing
3.2, hidden pair 3.4, naked triple 3.6, swordfish 3.8, hidden triple 4.0, XY-wing 4.2,
XYZ-wing 4.4, W-wing 4.4, simple colouring 4.5, naked quad 5.0, jellyfish 5.2, hidden
quad 5.4, X-chain 6.5+, XY-chain 6.6+ (longer chains score more), needs search 10.0.
grades: easy (singles), medium (locked candidates, subsets), hard (fish, wings,
colouring), expert (chains), extreme (needs search).

exit status: 0 every puzzle rated, 1 some puzzle has no solution, 2 bad input (unreadable
text, clashing givens, killer cages; the good puzzles of a file are still rated).
"""

#: ``--jobs``: processes side by side, 0 for one per core.
jobs = Number(int, 0, MAX_PROCESSES)

#: The columns of the table, before the techniques used.
TABLE = ("hardest", "score", "grade", "steps")


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``rate`` to the command line."""
    p = commands.add_parser(
        "rate",
        help="rate puzzles for a human solver: hardest technique, score, grade",
        description="Solve each puzzle with the logic solver, a ladder of human techniques "
        "applied simplest first (singles, locked candidates, subsets, fish, wings, "
        "colouring, chains), and print the hardest technique needed, its score, a grade, "
        "and how often each technique was used; `needs search` when the ladder stalls. "
        "PUZZLE is as for `solve`.",
        epilog=RATE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_puzzle_arguments(p)
    p.add_argument(
        "--format",
        choices=("table", "csv", "json"),
        default="table",
        help="table (default: one line per puzzle and a summary), csv (every column, one "
        "count column per technique) or json (one object per puzzle)",
    )
    p.add_argument(
        "--jobs",
        type=jobs,
        default=0,
        metavar="N",
        help="processes rating side by side; 0: one per core for many puzzles (default: 0)",
    )
    p.set_defaults(handler=cmd_rate)


def cmd_rate(args: argparse.Namespace) -> int:
    """Rate every puzzle given; rows on stdout in input order, problems on stderr."""
    from ..api import rate_rows
    from ..bench.progress import Progress
    from ..logic.ladder import LADDER
    from ..logic.rating import COLUMNS
    from .common import input_blocks

    blocks: list[Block] = []
    worst = EXIT_OK
    for item in input_blocks(args):
        if isinstance(item, ParseError):
            error(item)
            worst = EXIT_BAD_INPUT
        else:
            blocks.append(item)
    places = [(b.source, int(line)) for b in blocks for line in b.lines]
    if not places:
        if worst == EXIT_OK:
            raise UsageError("no puzzle found in the input")
        return worst
    many = len(places) > 1
    jobs = args.jobs or (min(os.cpu_count() or 1, 1 + len(places) // 256) if many else 1)
    puzzles = (p for b in blocks for p in b.grids.puzzles())
    writer = _Writer(args.format, many, [*COLUMNS, *(t.name for t in LADDER)])
    with Progress(len(places), "rate") as progress:
        told = (lambda k: progress.update("logic solver", k)) if many else None
        rows = rate_rows(puzzles, jobs, told)
        for (source, line), row in zip(places, rows, strict=True):
            label = f"{source} line {line}" if many else "puzzle"
            if row["status"] in ("error", "invalid"):
                what = "invalid puzzle" if row["status"] == "invalid" else "cannot rate"
                error(f"{label}: {what}: {row['message']}")
                worst = max(worst, EXIT_BAD_INPUT)
                continue
            if row["status"] == "contradiction":
                error(f"{label}: no solution (the ladder meets a contradiction)")
                worst = max(worst, EXIT_FAILED)
            writer.write(label, row)
    writer.close()
    return worst


class _Writer:
    """Rows in the chosen format as they come; the table ends with a summary."""

    def __init__(self, form: str, many: bool, columns: list[str]) -> None:
        self.form, self.many, self.columns = form, many, columns
        self.grades: Counter[str] = Counter()
        self.used: Counter[str] = Counter()
        self.count = 0
        self.csv: Any = None
        if form == "csv":
            self.csv = csv.writer(sys.stdout, lineterminator="\n")
            self.csv.writerow(["puzzle", *columns])

    def write(self, label: str, row: dict[str, Any]) -> None:
        self.count += 1
        self.grades[row["grade"]] += 1
        self.used.update({k for k in self.columns[len(TABLE) + 2 :] if row.get(k)})
        if self.form == "csv":
            self.csv.writerow([label, *(row[c] for c in self.columns)])
        elif self.form == "json":
            print(json.dumps({"puzzle": label, **row}))
        else:
            used = ", ".join(f"{k} {row[k]}" for k in self.columns[len(TABLE) + 2 :] if row.get(k))
            score = "-" if math.isnan(row["score"]) else f"{row['score']:.1f}"
            head = f"{label}: " if self.many else ""
            print(
                f"{head}{row['hardest']} ({score}, {row['grade']}); "
                f"{counted(row['steps'], 'step')}: "
                f"{used or 'none'}"
            )

    def close(self) -> None:
        if self.form != "table" or not self.many or not self.count:
            return
        from ..logic.ladder import GRADES

        parts = [f"{g} {self.grades[g]}" for g in (*GRADES, "no solution") if self.grades[g]]
        print(f"{counted(self.count, 'puzzle')} rated: " + ", ".join(parts))
