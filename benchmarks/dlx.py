"""Exact cover compiled against Python, against bare Algorithm X and a C library, in one run.

The same exact covers of the same puzzles, five ways:

    py          the ``dlx-py`` backend: ``build_model`` plus ``solve`` per puzzle (Python)
    py bare     the same dancing links with no sudokulab model or result (``dlx.Links``):
                the shape's matrix built once, per puzzle a copy of its links, the givens'
                rows chosen, Algorithm X run
    c           the ``dlx`` backend with the compiled core, as ``solve FILE`` and the bench
                run it: the block in one ``solve_grids`` call (one ``Cover.search``)
    c one       the ``dlx`` backend one puzzle at a time (``build_model`` plus ``solve``)
    c bare      ``Cover.search`` on the block's candidate masks, nothing around it
    exact_cover the ``exact-cover`` package (a C implementation of Algorithm X, 1.5) on
                the same matrix as a dense 0-1 array, first solution only (left out when
                the package is not installed)

Then the issue's figure, through the command line: ``sudokulab solve FILE --backend dlx``
against ``--backend native`` on the first ``--cli-puzzles`` lines of sudokus_17, start to
exit (the installed script, as a user runs it), the two interleaved, best of
``--starts`` each, wall and CPU (the process's user and system time), first solution and
``--unique``; every printed solution is verified (target: dlx at most 2x native).

Mean milliseconds per puzzle, each puzzle's best of ``--repeat`` passes, the ways
interleaved in each pass (the compiled ones ``--c-passes`` times a pass: a few
milliseconds of a whole set, where one preemption would weigh); a compiled puzzle's time
is the one its row gets (``c``: its search as the core measured it plus its share of the
block's set-up; ``c bare``: its search). Every solution is verified, and the two
implementations' counts, nodes and updates must be equal. ``py / c`` is the ratio the
issue's target is on (at least 50x), ``bare py / c`` the same for the bare loops.

    python benchmarks/dlx.py --data-dir ../shared/data [--sample 100] [--repeat 3]
    python benchmarks/dlx.py --data-dir ../shared/data --cli-only [--cli-puzzles 2000]
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import sys
import tempfile
import time
from pathlib import Path

from classic_sets import add_data_dir, data_dir
from frontend import SUDOKUS_17, run, verified


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_data_dir(parser)
    parser.add_argument("--sample", type=int, default=100, help="puzzles per set (default 100)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--c-passes", type=int, default=5, help="compiled runs a pass")
    parser.add_argument("--cli-puzzles", type=int, default=2000, help="lines of sudokus_17")
    parser.add_argument("--starts", type=int, default=7, help="runs of each command")
    parser.add_argument("--cli-only", action="store_true", help="the command line's ratio alone")
    args = parser.parse_args()
    folder = data_dir(parser, args, [SUDOKUS_17])
    if not args.cli_only:
        in_process(args)
    through_the_cli(folder, args.cli_puzzles, args.starts)
    return 0


def through_the_cli(folder: Path, puzzles: int, starts: int) -> None:
    """Print ``solve FILE --backend dlx`` against ``--backend native`` start to exit, on
    the first ``puzzles`` lines of sudokus_17, interleaved, best of ``starts``; each
    output verified."""
    script = shutil.which("sudokulab", path=str(Path(sys.executable).parent))
    if script is None:
        sys.exit("the sudokulab script is not installed next to this Python")
    lines = (folder / SUDOKUS_17).read_text().splitlines(keepends=True)[:puzzles]
    print(f"\nsolve FILE ({len(lines):,} lines of sudokus_17), start to exit, best of {starts}")
    print(
        "| solve | native wall s | dlx wall s | wall ratio | native CPU s | dlx CPU s | CPU ratio |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        path, out = Path(tmp) / "puzzles.txt", Path(tmp) / "out.txt"
        path.write_text("".join(lines))
        for flags in ((), ("--unique",)):
            wall, cpu = {}, {}
            for _ in range(starts):
                for backend in ("native", "dlx"):
                    with open(out, "wb") as f:
                        took, _, _, used = run(
                            [script, "solve", str(path), "--backend", backend, *flags], stdout=f
                        )
                    wall[backend] = min(wall.get(backend, took), took)
                    cpu[backend] = min(cpu.get(backend, used), used)
                    if flags:  # "grid unique" a line: every 17-clue puzzle has one solution
                        rows = [x.split() for x in out.read_text().splitlines()]
                        if any(row[1:] != ["unique"] for row in rows):
                            sys.exit(f"solve --unique --backend {backend}: not unique")
                        out.write_text("".join(row[0] + "\n" for row in rows))
                    if verified(path, out) != len(lines):
                        sys.exit(f"solve --backend {backend}: a solution does not verify")
            mode = " ".join(flags) or "first solution"
            print(
                f"| {mode} | {wall['native']:.3f} | {wall['dlx']:.3f} "
                f"| {wall['dlx'] / wall['native']:.2f} | {cpu['native']:.3f} | {cpu['dlx']:.3f} "
                f"| {cpu['dlx'] / cpu['native']:.2f} |"
            )
    print("target: dlx at most 2x native")


def in_process(args: argparse.Namespace) -> None:
    """The table of the module docstring: each way per puzzle, in this process."""
    import numpy as np

    from sudokulab import build_model, is_solution
    from sudokulab.backends import dlx, get_backend
    from sudokulab.bench.plan import read_set
    from sudokulab.models import geometry
    from sudokulab.native import _core

    if _core is None:
        sys.exit("the compiled core is not built (or SUDOKULAB_PURE_PYTHON=1)")
    library = importlib.util.find_spec("exact_cover") is not None
    py, c = get_backend("dlx-py"), get_backend("dlx")
    units = tuple(u.cells for u in geometry(9).units)
    m = dlx.matrix(81, 9, units)
    cover = _core.Cover(9, units)
    dense = np.zeros((len(m.rows), m.columns), dtype=bool)
    for r, start in enumerate(m.first):
        node = start
        while True:
            dense[r, m.column[node] - 1] = True
            node = m.right[node]
            if node == start:
                break
    print(f"python {sys.version.split()[0]}; exact_cover: {'yes' if library else 'not installed'}")

    def bare(givens, limit):
        links = dlx.Links(m)
        links.restrict(tuple((v,) if v else tuple(range(1, 10)) for v in givens))
        out: list = []
        links.search(limit, None, out)
        return out, links

    def library_cover(givens):
        import exact_cover

        rows = [m.row_index[c, v] for c, v in enumerate(givens) if v]
        keep = np.ones(len(m.rows), dtype=bool)
        covered = dense[rows].any(axis=0)
        keep &= ~dense[:, covered].any(axis=1)  # rows clashing with the givens go
        sub = np.ascontiguousarray(dense[keep][:, ~covered])
        chosen = np.flatnonzero(keep)[exact_cover.get_exact_cover(sub)]
        grid = list(givens)
        for r in chosen:
            cell, v = m.rows[r]
            grid[cell] = v
        return grid

    def timed(f, *a):
        start = time.perf_counter()
        out = f(*a)
        return out, time.perf_counter() - start

    dirs = [str(Path(args.data_dir).resolve())]
    print(
        "| set | limit | puzzles | py ms | py bare ms | c ms | c one ms | c bare ms | py / c "
        "| bare py / c | exact_cover (C) ms |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in ("top95", "sudoku17"):
        blocks = read_set(name, dirs, args.sample, seed=1)
        grids = blocks[0].grids if len(blocks) == 1 else None
        if grids is None:
            sys.exit(f"{name}: expected one block of one shape")
        puzzles = list(grids.puzzles())
        n = len(puzzles)
        givens = grids.givens.astype(np.uint32)
        masks = np.ascontiguousarray(np.where(givens > 0, 1 << (givens - 1), 511), np.uint32)
        for limit in (1, 2):
            t = {k: np.full(n, np.inf) for k in ("py", "bare", "one", "lib", "c", "cbare")}
            for _ in range(args.repeat):
                for _ in range(args.c_passes):
                    answers = c.solve_grids(grids, limit)
                    t["c"] = np.minimum(t["c"], answers.time)
                    _, raw = cover.search(masks, limit, None, 1)
                    counters = np.frombuffer(raw, dtype=np.int64).reshape(n, -1)
                    t["cbare"] = np.minimum(t["cbare"], counters[:, 5] / 1e9)
                for i, puzzle in enumerate(puzzles):
                    result, took = timed(py.solve, build_model(puzzle), limit)
                    t["py"][i] = min(t["py"][i], took)
                    (found, links), took = timed(bare, puzzle.givens, limit)
                    t["bare"][i] = min(t["bare"][i], took)
                    one, took = timed(c.solve, build_model(puzzle), limit)
                    t["one"][i] = min(t["one"][i], took)
                    row = answers.result(i)
                    if not (result.count == one.count == row.count == len(found) == 1):
                        sys.exit(f"{name}: not exactly one solution: {puzzle}")
                    if not all(is_solution(puzzle, g) for g in (found[0], one.solution)):
                        sys.exit(f"{name}: a wrong solution: {puzzle}")
                    same = (links.nodes, links.updates) == tuple(counters[i, 2:4])
                    if (
                        not same
                        or result.stats["nodes"] != one.stats["nodes"]
                        or (result.solution != row.solution)
                    ):
                        sys.exit(f"{name}: the implementations differ on {puzzle}")
                    if library and limit == 1:
                        grid, took = timed(library_cover, puzzle.givens)
                        t["lib"][i] = min(t["lib"][i], took)
                        if not is_solution(puzzle, grid):
                            sys.exit(f"{name}: exact_cover gave a wrong solution: {puzzle}")
            ms = {k: float(np.mean(v)) * 1000 for k, v in t.items()}
            cms, cbare = ms["c"], ms["cbare"]
            lib = f"{ms['lib']:.3f}" if library and limit == 1 else ""
            print(
                f"| {name} | {limit} | {n} | {ms['py']:.3f} | {ms['bare']:.3f} | {cms:.4f} "
                f"| {ms['one']:.4f} | {cbare:.4f} | {ms['py'] / cms:.0f}x "
                f"| {ms['bare'] / cbare:.0f}x | {lib} |"
            )


if __name__ == "__main__":
    raise SystemExit(main())
