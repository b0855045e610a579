"""The ``check-proof`` command: check a DRAT proof against its CNF, with our own checker."""

from __future__ import annotations

import argparse

from .common import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, error

CHECK_PROOF_EXAMPLES = """\
examples:
  sudokulab check-proof certificates/1.cnf certificates/1.drat
  drat-trim certificates/1.cnf certificates/1.drat    # the same files, another checker

The proof is checked by forward reverse unit propagation (each lemma must follow from the
clauses before it by unit propagation; deletions are applied; RAT steps are not taken),
text DRAT or drat-trim's binary form. The checker shares no code with any solver.

exit status: 0 the proof is accepted (the CNF has no model), 1 it is rejected (the first
failing lemma is named), 2 a file cannot be read.
"""


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``check-proof`` to the command line."""
    p = commands.add_parser(
        "check-proof",
        help="check a DRAT proof that a CNF has no model (our own checker)",
        description="Check a DRAT proof (text or binary) that a DIMACS CNF has no model.",
        epilog=CHECK_PROOF_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("cnf", metavar="CNF", help="the DIMACS CNF the proof is about")
    p.add_argument("proof", metavar="PROOF", help="the DRAT proof, text or binary")
    p.set_defaults(handler=run_check_proof)


def run_check_proof(args: argparse.Namespace) -> int:
    """Read both files, check, and say the verdict in one line."""
    from ..certify import ProofError, check_proof

    try:
        with open(args.cnf, encoding="ascii", errors="replace") as f:
            cnf = f.read()
        with open(args.proof, "rb") as f:
            proof = f.read()
    except OSError as err:
        error(f"cannot read {err.filename}: {err.strerror}")
        return EXIT_BAD_INPUT
    try:
        verdict = check_proof(cnf, proof, args.cnf, args.proof)
    except ProofError as err:
        error(err)
        return EXIT_BAD_INPUT
    counts = f"{verdict.lemmas:,} lemmas, {verdict.deletions:,} deletions"
    if verdict.accepted:
        print(f"accepted: {args.cnf} has no model ({counts})")
        return EXIT_OK
    print(f"rejected: {verdict.reason} ({counts})")
    return EXIT_FAILED
