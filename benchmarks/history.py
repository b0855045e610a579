"""The compiled core of other git revisions against this checkout's, side by side.

Each row is a revision and a configuration, ``REV:PROPAGATION:ORDER`` (``--row``, given
in the order wanted; the first row is the reference of the ratios). For each revision
other than the working tree (``.``), this script takes the C files of its ``native/``
folder from git (``git show``, so nothing in the checkout changes), compiles them as
setup.py does (``cc -O3``, the same warnings, the Python headers of this interpreter) into
a temporary folder and loads the module from there; ``.`` is the core this checkout built.

Per set and task (first solution, limit 1; uniqueness check, limit 2) every row searches
every puzzle in one call of the core (``search`` on a buffer of all of them since issue
27, ``search_batch`` before: :func:`surface` speaks both) with the core's own clock around
each search (engine time: no Python call, no reading of the givens, no answer built), and
again one ``search`` call per puzzle timed from Python (per call: the givens list read,
the answer built, as a caller of the core pays); one thread, the best of ``--repeat``
passes per puzzle, the rows' passes interleaved so that a drift of the machine touches
all of them alike (a set of fewer than 2,000 puzzles is timed as copies of itself:
``classic_sets.copies``).
Rows with the same propagation and order must agree field for field (solutions, counts,
nodes, guesses, backtracks): the same algorithm at two revisions; every row's counts
must agree, and every first solution must obey the rules and the givens.

The default rows answer issue 17's question, "against today's engine": the engine of
the day it was filed (02d8670, the last commit before its work: ``hidden``, ``mrv``, the
bitboard solver), this checkout with the same knobs, and this checkout's defaults on
the classic grid (``locked``, ``mrv-degree``).

With ``--tdoku`` (a clone of tdoku, built as ``benchmarks/tdoku.py`` builds it), tdoku's
solver is one more row, last, timed in the same interleaved passes (engine time only:
it has no Python call), its counts checked against the first row's and its first
solutions against the rules. Its ratio is the one each row needs to match it: the first
row's time over tdoku's. Its guesses are counted its way (one per binary branch on a
digit's place in a band, see ``benchmarks/tdoku.py``), not one per candidate tried.

    python benchmarks/history.py --data-dir ../shared/data
    python benchmarks/history.py --data-dir ../shared/data --tdoku /tmp/tdoku --sets hardest
    python benchmarks/history.py --row HEAD~5:hidden:mrv --row .:hidden:mrv --sets top1465
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import tdoku
from classic_sets import SETS, add_options, chosen, copies, fold

from sudokulab import is_solution, native, read_file
from sudokulab.models import geometry
from sudokulab.native import COUNTERS
from sudokulab.native.compiled import outcomes as read_outcomes
from sudokulab.native.reference import Outcome

ROOT = Path(__file__).resolve().parent.parent
#: The last commit before issue 17's work: the engine the issue measured against.
ISSUE_17 = "02d8670"
DEFAULT_ROWS = [f"{ISSUE_17}:hidden:mrv", ".:hidden:mrv", ".:locked:mrv-degree"]
FLAGS = ["-O3", "-Wall", "-Wextra", "-fvisibility=hidden", "-fPIC", "-shared"]


def fail(message: str) -> None:
    """Stop: a wrong answer or a missing tool makes every number moot."""
    sys.exit(f"benchmarks/history.py: {message}")


def git(*args: str, failure: str = "") -> str:
    """git's output; on a failure, stop with ``failure`` (or git's own message)."""
    done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
    if done.returncode != 0:
        fail(failure or f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


def build(rev: str, folder: Path):
    """The core of revision ``rev``, compiled into ``folder`` and loaded."""
    commit = git(
        "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}",
        failure=f"no revision {rev!r} in {ROOT}",
    ).strip()  # fmt: skip
    names = [n for n in git("ls-tree", "--name-only", commit, "native/").split() if n]
    sources = [n for n in names if n.endswith((".c", ".h"))]
    if not any(n.endswith(".c") for n in sources):
        fail(f"revision {rev} has no C files in native/")
    out = folder / commit[:12]
    out.mkdir()
    for name in sources:
        (out / Path(name).name).write_text(git("show", f"{commit}:{name}"))
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        fail("no C compiler (cc, gcc or clang) on PATH")
    library = out / ("_core" + sysconfig.get_config_var("EXT_SUFFIX"))
    command = [
        compiler, *FLAGS, f"-I{sysconfig.get_paths()['include']}",
        *sorted(str(p) for p in out.glob("*.c")), "-o", str(library),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"building the core of {rev} failed:\n{done.stderr[-2000:]}")
    spec = importlib.util.spec_from_file_location("sudokulab.native._core", library)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(module, "search_batch") and not one_entry_point(module):
        fail(f"the core of {rev} has no batch call (older than this benchmark can time)")
    return module, commit[:7]


def one_entry_point(core) -> bool:
    """Whether a core has issue 27's surface: ``search(tables, givens, /, *, knobs)``."""
    return "/" in (getattr(core.search, "__text_signature__", None) or "")


def surface(core):
    """(batch, single) for a core of either surface: ``batch(tables, puzzles, givens,
    propagation, order, limit)`` searches every puzzle in one call (``givens``: the same
    puzzles as one buffer) and gives their Outcomes and seconds by the core's clock;
    ``single(tables, givens, propagation, order, limit)`` is one call for one puzzle."""
    if not one_entry_point(core):  # before issue 27: eight positional arguments

        def batch(tables, puzzles, givens, propagation, order, limit):
            answers = core.search_batch(tables, puzzles, propagation, order, limit, None, 1)
            fields = Outcome.__dataclass_fields__
            found = [Outcome(**dict(zip(fields, a[:-1], strict=True))) for a in answers]
            return found, [a[-1] for a in answers]

        def single(tables, givens, propagation, order, limit):
            return core.search(tables, givens, propagation, order, limit, None, 1)

    else:  # one entry point: buffers in and out, the knobs by keyword

        def batch(tables, puzzles, givens, propagation, order, limit):
            grids, counters = core.search(
                tables, givens, propagation=propagation, order=order, limit=limit
            )
            clock = memoryview(counters).cast("q")[COUNTERS.index("nanoseconds") :: len(COUNTERS)]
            return read_outcomes(grids, counters, 81), [ns / 1e9 for ns in clock]

        def single(tables, givens, propagation, order, limit):
            return core.search(tables, givens, propagation=propagation, order=order, limit=limit)

    return batch, single


def parse_row(parser: argparse.ArgumentParser, text: str) -> tuple[str, str, str]:
    parts = text.rsplit(":", 2)
    if len(parts) != 3 or not all(parts):
        parser.error(f"--row {text!r}: expected REV:PROPAGATION:ORDER, e.g. .:locked:mrv")
    return parts[0], parts[1], parts[2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--row",
        action="append",
        metavar="REV:PROPAGATION:ORDER",
        help=f"a revision ('.': this checkout's core) and knobs; repeat "
        f"(default {' '.join(DEFAULT_ROWS)})",
    )
    parser.add_argument(
        "--tdoku", type=Path, metavar="CLONE", help="a clone of tdoku: its solver as a last row"
    )
    add_options(parser)
    parser.add_argument("--repeat", type=int, default=5, help="passes, the best kept (5)")
    args = parser.parse_args()
    rows = [parse_row(parser, r) for r in (args.row or DEFAULT_ROWS)]
    if args.tdoku and not (args.tdoku / "src" / "solver_dpll_triad_simd.cc").is_file():
        parser.error(f"{args.tdoku} is not a tdoku clone (no src/solver_dpll_triad_simd.cc)")
    names = chosen(parser, args)
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, got {args.repeat}")
    if native.ENGINE != "c":
        parser.error("the compiled core is not running here (build it: pip install -e .)")

    units = tuple(u.cells for u in geometry(9).units)
    with tempfile.TemporaryDirectory() as folder:
        cores = {".": (native._core, "this checkout")}
        for rev, _, _ in rows:
            if rev not in cores:
                cores[rev] = build(rev, Path(folder))
        labels = [f"{cores[rev][1]} {p},{o}" for rev, p, o in rows]
        lib = None
        if args.tdoku:
            lib, compiler = tdoku.build(args.tdoku, Path(folder))
            print(f"tdoku built with {compiler}, -O3 -march=native")
        tables = [cores[rev][0].Tables(9, units) for rev, _, _ in rows]
        calls = {rev: surface(core) for rev, (core, _) in cores.items()}
        for i, (rev, propagation, order) in enumerate(rows):  # the knobs, checked once
            try:
                calls[rev][1](tables[i], [0] * 81, propagation, order, 1)
            except (TypeError, ValueError) as err:
                parser.error(f"--row {labels[i]}: {err}")
        print(f"µs per puzzle, best of {args.repeat}; ratios: the first row's time over each")
        width = max(len(label) for label in [*labels, "tdoku"])
        gc.disable()
        for name in names:
            entries = read_file(args.data_dir / SETS[name])
            puzzles = [list(e.puzzle.givens) for e in entries]
            n = len(puzzles)
            timed = puzzles * copies(n)  # a small set as copies of itself
            buffer = b"".join(map(bytes, timed))
            for limit, task in ((1, "first"), (2, "unique")):
                best = [[float("inf")] * n for _ in rows]
                per_call = [[float("inf")] * n for _ in rows]
                outcomes = [None] * len(rows)
                theirs = [float("inf")] * n
                for _ in range(args.repeat):
                    for i, (rev, propagation, order) in enumerate(rows):
                        batch, single = calls[rev]
                        found, seconds = batch(tables[i], timed, buffer, propagation, order, limit)
                        seconds = fold(seconds, n)
                        best[i] = [min(b, t) for b, t in zip(best[i], seconds, strict=True)]
                        outcomes[i] = found[:n]
                        for k, givens in enumerate(timed):
                            start = time.perf_counter()
                            single(tables[i], givens, propagation, order, limit)
                            elapsed = time.perf_counter() - start
                            per_call[i][k % n] = min(per_call[i][k % n], elapsed)
                    if lib is not None:  # one pass: the best is kept here, across the rows'
                        seconds, counts, their_guesses, grids = tdoku.time_tdoku(
                            lib, puzzles, limit, 1
                        )
                        theirs = [min(b, t) for b, t in zip(theirs, seconds, strict=True)]
                check(name, rows, labels, entries, outcomes, limit)
                if lib is not None:
                    check_tdoku(name, entries, outcomes[0], counts, grids, limit)
                engine0, call0 = statistics.fmean(best[0]), statistics.fmean(per_call[0])
                print(f"\n{name} ({len(puzzles)} puzzles), {task}: engine time, per call, guesses")
                for i, label in enumerate(labels):
                    engine, call = statistics.fmean(best[i]), statistics.fmean(per_call[i])
                    guesses = statistics.fmean(o.guesses for o in outcomes[i])
                    print(
                        f"  {label:<{width}} {engine * 1e6:7.2f} µs {engine0 / engine:5.2f}x"
                        f"  {call * 1e6:7.2f} µs {call0 / call:5.2f}x  {guesses:6.1f}",
                        flush=True,
                    )
                if lib is not None:
                    engine = statistics.fmean(theirs)
                    print(
                        f"  {'tdoku':<{width}} {engine * 1e6:7.2f} µs {engine0 / engine:5.2f}x"
                        f"  {'':>17}  {statistics.fmean(their_guesses):6.1f}",
                        flush=True,
                    )
    return 0


def check(name, rows, labels, entries, outcomes, limit) -> None:
    """Same knobs: the same outcomes; every row: the same counts, and sound first answers."""
    for i, (_, prop, order) in enumerate(rows):
        for j in range(i):
            if rows[j][1:] == (prop, order) and outcomes[j] != outcomes[i]:
                fail(f"{name}: {labels[j]} and {labels[i]} differ with the same knobs")
        counts = [min(o.count, limit) for o in outcomes[i]]
        if counts != [min(o.count, limit) for o in outcomes[0]]:
            fail(f"{name}: {labels[0]} and {labels[i]} count differently")
        for entry, outcome in zip(entries, outcomes[i], strict=True):
            if outcome.solutions and not is_solution(entry.puzzle, outcome.solutions[0]):
                fail(f"{name}: {labels[i]}'s answer breaks the rules at line {entry.line}")


def check_tdoku(name, entries, outcomes, counts, grids, limit) -> None:
    """tdoku's counts are the first row's, and its first solutions obey the rules."""
    if [min(c, limit) for c in counts] != [min(o.count, limit) for o in outcomes]:
        fail(f"{name}: tdoku and the first row count differently")
    for entry, grid, found in zip(entries, grids, counts, strict=True):
        if limit == 1 and found and not is_solution(entry.puzzle, grid):
            fail(f"{name}: tdoku's answer breaks the rules at line {entry.line}")


if __name__ == "__main__":
    sys.exit(main())
