"""The `sat` backend's sums: its chain of partial sums against pysat.pb's encoding, in one run.

Issue 39: a two-digit arrow with a 12-cell shaft took 255,380 clauses under pysat.pb's
default encoding (on pindakaas), in every encoding, and the minimal encoding, whose cells
may hold several values until the units say otherwise, was the slowest to solve. The
backend now writes a sum as a chain of partial sums (``encodings.cnf.sum_clauses``); here the same
groups of literals are also handed to ``pysat.pb.PBEnc.equals`` (needs ``pindakaas``),
as the backend did before, and both CNFs are solved with a uniqueness check (limit 2).

Puzzles: the two published arrow puzzles of tests/test_public_variants.py (WPF Sudoku GP
2023, round 7) and the long arrow of tests/test_rules_encodings.py. Per puzzle and
encoding: each CNF's clauses and its best time of ``--repeat`` (runs interleaved), and
the ratio. Every solution is verified.

    python benchmarks/sat_sums.py [--repeat 3] [--timeout 120]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent / "tests"


def pb_sum_clauses(groups, low, high, aux, name="a sum", unless=()):
    """The same sum by pysat.pb's default encoder over every literal, weighted."""
    from pysat.pb import PBEnc

    terms: dict[int, int] = {}
    for options, _ in groups:
        for lit, weight in options.items():
            terms[lit] = terms.get(lit, 0) + weight
    lits = [lit for lit, w in terms.items() if w]
    weights = [terms[x] for x in lits]
    if low == high:
        parts = [(PBEnc.equals, low)]
    else:
        parts = [(PBEnc.atleast, low)] * (low is not None) + [(PBEnc.atmost, high)] * (
            high is not None
        )
    clauses = []
    for encoder, bound in parts:
        encoded = encoder(lits=lits, weights=weights, bound=bound, top_id=aux.top)
        while aux.top < encoded.nv:  # the encoder's variables, numbered by the writer too
            aux.new()
        clauses += [(*c, *unless) for c in encoded.clauses]
    return clauses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (default 3)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds a run (default 120)")
    args = parser.parse_args()
    sys.path.insert(0, str(TESTS))
    from test_public_variants import PUZZLES
    from test_rules_encodings import LONG_ARROW

    from sudokulab import is_solution, parse_puzzle, solve
    from sudokulab.encodings import cnf

    puzzles = {}
    for name in ("gp2023-r7-ib8-arrows", "gp2023-r7-8-arrows"):
        doc = {k: v for k, v in PUZZLES[name].items() if k != "solution"}
        puzzles[name] = parse_puzzle(json.dumps(doc))
    puzzles["long-arrow"] = parse_puzzle(json.dumps(LONG_ARROW))
    chain = cnf.sum_clauses
    ways = {"pysat.pb": pb_sum_clauses, "chain": chain}

    def run(puzzle, way: str, encoding: str) -> tuple[int, float, str]:
        cnf.sum_clauses = ways[way]
        cnf._TEMPLATES.clear()  # the template holds the sums' clauses
        start = time.perf_counter()
        result = solve(puzzle, f"sat:encoding={encoding}", limit=2, timeout=args.timeout)
        elapsed = time.perf_counter() - start
        if not all(is_solution(puzzle, g) for g in result.solutions):
            sys.exit(f"{way} {encoding}: a wrong solution")
        return result.stats.get("clauses", 0), elapsed, str(result.status)

    print(f"python {sys.version.split()[0]}, limit 2, best of {args.repeat}, "
          f"timeout {args.timeout:g} s")  # fmt: skip
    print(
        "| puzzle | encoding | clauses pysat.pb | clauses chain | s pysat.pb | s chain "
        "| pysat.pb / chain |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    try:
        for name, puzzle in puzzles.items():
            for encoding in cnf.ENCODINGS:
                best = {way: (0, float("inf"), "") for way in ways}
                for _ in range(args.repeat):
                    for way in ways:  # interleaved
                        clauses, elapsed, status = run(puzzle, way, encoding)
                        if elapsed < best[way][1]:
                            best[way] = (clauses, elapsed, status)
                (pc, pt, ps), (cc, ct, cs) = best["pysat.pb"], best["chain"]
                note = "" if ps == cs else f" ({ps} / {cs})"
                print(f"| {name} | {encoding} | {pc:,} | {cc:,} | {pt:.2f} | {ct:.2f} | "
                      f"{pt / ct:.1f}{note} |", flush=True)  # fmt: skip
    finally:
        cnf.sum_clauses = chain
        cnf._TEMPLATES.clear()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
