"""Certificates of negative claims: a CNF of the puzzle and a DRAT proof a checker accepts.

A claim about a puzzle (no solution; these k solutions and no other) becomes one CNF: the
puzzle's CNF (:func:`sudokulab.encodings.cnf.encode`, the encoding named in the file's
comments) with one clause blocking each claimed solution (:func:`claim_cnf`). The claim
holds exactly when that CNF has no model. Three provers write a proof of it:

- the ``sat`` backend, its own solver's proof of the search that answered;
- the native engine, its search written as lemmas (:mod:`.search`);
- for any other backend, :func:`second_opinion`: a SAT solver of PySAT that writes proofs
  (Glucose by default) searches the claim's CNF with proof logging. When it finds a
  model instead, the claim is refuted and the grid the model spells is returned.

Whoever wrote it, :meth:`Certificate.checked` has :mod:`.drat` (which shares no code with
any solver) check the proof.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..encodings.cnf import Cnf, encode
from .drat import check_proof

#: The PySAT solvers that write DRAT proofs, by the names ``--certify-solver`` takes.
PROOF_SOLVERS = {"glucose4": "Glucose4", "glucose3": "Glucose3", "cadical153": "Cadical153"}


@dataclass(frozen=True)
class Certificate:
    """A claim's CNF (DIMACS text) and proof (DRAT text), who wrote the proof (``prover``)
    over which ``encoding``; once :meth:`checked`, what the checker said (``accepted``
    None before) and its time. For a refuted claim, ``refuted``: a grid the CNF allows
    that the claim left out (no proof)."""

    claim: str
    cnf: str
    proof: str
    prover: str = ""
    encoding: str = ""
    refuted: tuple[int, ...] | None = None
    accepted: bool | None = None
    lemmas: int = 0
    reason: str = ""
    check_time: float = 0.0

    @property
    def lines(self) -> int:
        """The proof's lines (lemmas and deletions)."""
        return self.proof.count("\n")

    @property
    def size(self) -> int:
        """The proof's bytes (UTF-8: the digits are ASCII)."""
        return len(self.proof)

    def checked(self) -> Certificate:
        """The certificate with the checker's verdict and time (refuted: unchanged)."""
        if self.refuted is not None or self.accepted is not None:
            return self
        start = time.perf_counter()
        verdict = check_proof(self.cnf, self.proof)
        return dataclasses.replace(
            self,
            accepted=verdict.accepted,
            lemmas=verdict.lemmas,
            reason=verdict.reason,
            check_time=time.perf_counter() - start,
        )

    def write(self, folder: Path, number: int) -> tuple[Path, Path]:
        """``folder/number.cnf`` and ``folder/number.drat``; their paths."""
        folder.mkdir(parents=True, exist_ok=True)
        cnf, drat = folder / f"{number}.cnf", folder / f"{number}.drat"
        cnf.write_text(self.cnf)
        drat.write_text(self.proof)
        return cnf, drat


def claim_of(count: int) -> str:
    """How a certificate names the claim of ``count`` solutions and no other."""
    return "no solution" if not count else f"exactly {count} solution{'s' * (count > 1)}"


def dimacs(model: Any, cnf: Cnf, clauses: Sequence[Sequence[int]], claim: str, prover: str) -> str:
    """The DIMACS text of a claim's CNF: comments naming the claim, the puzzle, the
    encoding and the prover, then ``clauses`` (the encoding's, then the blocking ones)."""
    header = [
        f"c sudokulab certificate: {claim}",
        f"c puzzle: {model.puzzle}",
        f"c encoding: {cnf.encoding} (sudokulab export --format dimacs --encoding {cnf.encoding}),",
        "c x(cell, value) numbered as that export numbers them, then one clause blocking",
        "c each claimed solution's values in the open cells",
        f"c proof by: {prover}",
        f"p cnf {cnf.variables} {len(clauses)}",
    ]
    body = [" ".join(map(str, c)) + " 0" for c in clauses]
    return "\n".join(header + body) + "\n"


def claim_cnf(
    model: Any, solutions: Sequence[Sequence[int]], encoding: str
) -> tuple[Cnf, list[list[int]]]:
    """The puzzle's CNF in ``encoding`` and the claim's clauses: the encoding's, then one
    blocking each of ``solutions``."""
    cnf = encode(model, encoding)
    return cnf, [list(c) for c in cnf.clauses] + [cnf.blocking(grid) for grid in solutions]


def second_opinion(
    model: Any,
    solutions: Sequence[Sequence[int]],
    encoding: str = "optimized",
    solver: str = "glucose4",
) -> Certificate:
    """The certificate that ``model`` has exactly ``solutions`` (none: no solution), by a
    SAT solver of its own that writes a proof (not checked yet: :meth:`Certificate.checked`).

    ValueError for a solver that writes no proof or an encoding the CNF refuses."""
    from pysat import solvers

    if solver not in PROOF_SOLVERS:
        raise ValueError(f"{solver} writes no proof here: choose one of {', '.join(PROOF_SOLVERS)}")
    cnf, clauses = claim_cnf(model, solutions, encoding)
    claim = claim_of(len(solutions))
    prover = f"{solver} (a second solver, on the claim's CNF)"
    text = dimacs(model, cnf, clauses, claim, prover)
    with getattr(solvers, PROOF_SOLVERS[solver])(bootstrap_with=clauses, with_proof=True) as s:
        if s.solve():
            found = cnf.grid(s.get_model())
            return Certificate(claim, text, "", prover, encoding, found, False, 0,
                               "the CNF has a model")  # fmt: skip
        proof = "\n".join(s.get_proof()) + "\n"
    return Certificate(claim, text, proof, prover, encoding)
