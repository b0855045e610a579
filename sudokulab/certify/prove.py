"""Certificates of negative claims: a CNF of the puzzle and a DRAT proof a checker accepts.

A claim about a puzzle (no solution; these k solutions and no other) becomes one CNF: the
puzzle's CNF (:func:`sudokulab.encodings.cnf.encode`, the encoding named in the file's
comments) with one clause blocking each claimed solution. The claim holds exactly when
that CNF has no model; a SAT solver of PySAT that writes proofs (Glucose by default)
searches it with proof logging, and :mod:`.drat` checks the proof. When the solver finds a
model instead, the claim is refuted and the grid the model spells is returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..encodings.cnf import encode
from .drat import check_proof

#: The PySAT solvers that write DRAT proofs, by the names ``--certify-solver`` takes.
PROOF_SOLVERS = {"glucose4": "Glucose4", "glucose3": "Glucose3", "cadical153": "Cadical153"}


@dataclass(frozen=True)
class Certificate:
    """A claim's CNF (DIMACS text) and proof (DRAT text), and what the checker said; or,
    for a refuted claim, ``refuted``: a grid the CNF allows that the claim left out."""

    claim: str
    cnf: str
    proof: str
    accepted: bool
    lemmas: int
    refuted: tuple[int, ...] | None = None
    reason: str = ""

    def write(self, folder: Path, number: int) -> tuple[Path, Path]:
        """``folder/number.cnf`` and ``folder/number.drat``; their paths."""
        folder.mkdir(parents=True, exist_ok=True)
        cnf, drat = folder / f"{number}.cnf", folder / f"{number}.drat"
        cnf.write_text(self.cnf)
        drat.write_text(self.proof)
        return cnf, drat


def certify(
    model: Any,
    solutions: Sequence[Sequence[int]],
    encoding: str = "optimized",
    solver: str = "glucose4",
) -> Certificate:
    """The certificate that ``model`` has exactly ``solutions`` (none: no solution).

    ValueError for a solver that writes no proof or an encoding the CNF refuses."""
    from pysat import solvers

    if solver not in PROOF_SOLVERS:
        raise ValueError(f"{solver} writes no proof here: choose one of {', '.join(PROOF_SOLVERS)}")
    cnf = encode(model, encoding)
    var = {(c, v): x for x, (c, v) in enumerate(zip(cnf.cell, cnf.value, strict=True)) if v}
    blocking = [
        [-var[c, grid[c]] for c in range(len(grid)) if not cnf.fixed[c]] for grid in solutions
    ]
    clauses = [list(c) for c in cnf.clauses] + blocking
    count = len(solutions)
    claim = "no solution" if not count else f"exactly {count} solution{'s' * (count > 1)}"
    header = [
        f"c sudokulab certificate: {claim}",
        f"c puzzle: {model.puzzle}",
        f"c encoding: {encoding} (sudokulab export --format dimacs --encoding {encoding}),",
        "c x(cell, value) numbered as that export numbers them, then one clause blocking",
        "c each claimed solution's values in the open cells",
        f"p cnf {cnf.variables} {len(clauses)}",
    ]
    text = "\n".join(header + [" ".join(map(str, c)) + " 0" for c in clauses]) + "\n"
    with getattr(solvers, PROOF_SOLVERS[solver])(bootstrap_with=clauses, with_proof=True) as s:
        if s.solve():
            found = cnf.grid(s.get_model())
            return Certificate(claim, text, "", False, 0, found, "the CNF has a model")
        proof = "\n".join(s.get_proof()) + "\n"
    verdict = check_proof(text, proof)
    return Certificate(claim, text, proof, verdict.accepted, verdict.lemmas, None, verdict.reason)
