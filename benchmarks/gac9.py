"""gac on the 9x9 bitboards (issue 44): the cost of a node against ``locked``'s.

Three configurations of the C core on the same set (default top1465), each the whole set
in one call, first two solutions (limit 2, mrv), in rounds that alternate them:

    board9 locked   the bitboard solver under locked (the reference per node)
    board9 gac      the bitboard solver under gac (native/board9.c: gac9_hall where the CPU
                    has AVX-512, else gac9_hall2; SUDOKULAB_GAC9_AVX2=1 forces gac9_hall2)
    general gac     the general engine under gac (``Tables(..., bitboard=False)``)

It prints, per configuration, the nodes, the best time over the rounds per node, and that
against board9 locked's and general gac's, all measured in this run. The two gac
configurations must give the same nodes (the same search); it says so, or exits 1.

With --only NAME one configuration runs once, nothing printed but its nodes: for
``valgrind --tool=callgrind --toggle-collect=core_search`` (the instructions of the
searches alone), divided by the nodes. Valgrind does not decode AVX-512: build the core
portable first (``SUDOKULAB_PORTABLE=1 pip install --no-deps -e .``), and rebuild after;
under valgrind the CPU shows no AVX-512, so gac runs gac9_hall2 (gac9_hall is not counted).

    python benchmarks/gac9.py --data-dir ../shared/data [--set top1465] [--rounds 5]
    valgrind --tool=callgrind --toggle-collect=core_search \\
        python benchmarks/gac9.py --data-dir ../shared/data --only "board9 gac"
"""

from __future__ import annotations

import argparse
import sys
import time

from classic_sets import SETS, add_data_dir, data_dir, load

CONFIGS = ("board9 locked", "board9 gac", "general gac")


def setup(name: str):
    """(tables, propagation) of one configuration."""
    from sudokulab.models import geometry
    from sudokulab.native import _core

    units = tuple(u.cells for u in geometry(9).units)
    tables = _core.Tables(9, units, bitboard=not name.startswith("general"))
    return tables, name.split()[1]


def search(tables, propagation: str, blob: bytes) -> tuple[float, int]:
    """(seconds, nodes) of one call over the whole set."""
    from sudokulab.native import _core, compiled

    start = time.perf_counter()
    grids, counters = _core.search(
        tables, blob, propagation=propagation, order="mrv", limit=2, keep=0
    )
    seconds = time.perf_counter() - start
    return seconds, sum(o.nodes for o in compiled.outcomes(grids, counters, 81))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_data_dir(parser)
    parser.add_argument("--set", default="top1465", choices=sorted(SETS))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", choices=CONFIGS)
    args = parser.parse_args()
    folder = data_dir(parser, args, [SETS[args.set]])
    from sudokulab.native import _core

    if not getattr(_core, "BITBOARD", False):
        parser.error("the CPU has no AVX2 (or the core no bitboard solver): nothing to compare")
    blob = load(folder, args.set).tobytes()
    if args.only:
        print(search(*setup(args.only), blob)[1])
        return 0
    engines = {name: setup(name) for name in CONFIGS}
    best: dict[str, float] = {}
    nodes: dict[str, int] = {}
    for _ in range(args.rounds):
        for name, (tables, propagation) in engines.items():
            seconds, n = search(tables, propagation, blob)
            best[name] = min(best.get(name, seconds), seconds)
            nodes[name] = n
    per = {name: best[name] / nodes[name] for name in CONFIGS}
    print(f"{args.set}: limit 2, mrv, best of {args.rounds} rounds")
    print(f"{'':14} {'nodes':>8} {'ns/node':>8} {'x locked':>9} {'x general':>10}")
    for name in CONFIGS:
        print(
            f"{name:14} {nodes[name]:8d} {per[name] * 1e9:8.0f} "
            f"{per[name] / per['board9 locked']:9.2f} {per[name] / per['general gac']:10.2f}"
        )
    if nodes["board9 gac"] != nodes["general gac"]:
        print("the two gac searches differ in nodes", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
