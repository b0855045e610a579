"""Shared encodings: every constraint of a model said once in a few primitives.

A unit, a killer cage or a variant rule (:mod:`sudokulab.models.rules`) is decomposed once
(:mod:`.decompose`) into the primitives of :mod:`.primitives` (distinct values, linear
rows over values and 0-1 literals, allowed tuples, linear rows that hold when some cells
take some values). A paradigm translates those primitives once: :mod:`.cnf` for the SAT
solvers and the DIMACS export, :mod:`.linear` for the 0-1 programs of mip, highs and
gurobi and the LP, MPS and OPB exports; CP-SAT, CPMpy, z3 and the MiniZinc and XCSP3
writers translate them in their own modules. No backend names a rule kind.
"""

from .decompose import DECOMPOSITIONS, accepted_kinds, decompose, decompose_model
from .primitives import Distinct, Implies, Linear, Primitive, Table, Term

__all__ = [
    "DECOMPOSITIONS",
    "Distinct",
    "Implies",
    "Linear",
    "Primitive",
    "Table",
    "Term",
    "accepted_kinds",
    "decompose",
    "decompose_model",
]
