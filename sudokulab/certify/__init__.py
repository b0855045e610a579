"""Certified verdicts: proofs that a CNF has no model, and their independent checker.

:mod:`.drat` reads DIMACS CNF and DRAT proofs (text or binary) and checks a proof by
forward reverse unit propagation; it shares no code with any solver of the project.
"""

from .drat import ProofError, Verdict, check_proof, read_dimacs, read_drat

__all__ = ["ProofError", "Verdict", "check_proof", "read_dimacs", "read_drat"]
