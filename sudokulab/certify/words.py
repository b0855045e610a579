"""A certificate's proof in words: each lemma's literals as statements about cells.

A variable of the claim's CNF stands for a cell taking a value (``r1c2=3``) through the
encoding the certificate names (:func:`sudokulab.encodings.cnf.encode`); a variable with
no cell behind it (value 0: a cage's selector, a rule's guard) is an auxiliary variable
and named as one. A lemma (a clause) reads as what it forbids or what it forces:

- a unit: ``r1c2 is 3`` or ``r1c2 is not 3``;
- only negative literals: ``not (r1c2=3 and r2c1=4)``;
- only positive ones: ``r1c2=3 or r2c1=4``;
- both: ``if r1c2=3 and r2c1=4 then r3c3=1`` (the negative literals are the conditions);
- the empty clause: the contradiction that proves the claim.

Deletions (``d`` lines) tell the checker what it may forget; they are left out.
:func:`explain_refutation` tells the unit propagation that ends the proof: the cells it
decides that the contradiction rests on, each with the clause that forces it.

>>> from sudokulab import build_model, parse_puzzle
>>> from sudokulab.certify.prove import Certificate
>>> model = build_model(parse_puzzle("1" + "." * 15))
>>> made = Certificate("no solution", "", "-2 -7 0\\n0\\n", encoding="minimal")
>>> explain_proof(model, made)
['1. not (r1c1=2 and r1c2=3)', '2. a contradiction: the clauses held refute the claim']
"""

from __future__ import annotations

from typing import Any

from ..encodings.cnf import encode
from ..models.puzzle import symbol
from .drat import read_dimacs, read_drat


def literal_words(model: Any, cell: tuple[int, ...], value: tuple[int, ...], lit: int) -> str:
    """One literal as a statement: ``r1c2=3`` (``not r1c2=3`` when negative), or an
    auxiliary variable by its number."""
    var = abs(lit)
    if var >= len(value):
        raise ValueError(f"variable {var} is not in the CNF (it has {len(value) - 1})")
    if value[var]:
        name = f"{model.puzzle.geometry.cell_name(cell[var])}={symbol(value[var])}"
    else:
        name = f"auxiliary variable {var}"
    return name if lit > 0 else f"not {name}"


def lemma_words(
    model: Any, cell: tuple[int, ...], value: tuple[int, ...], lemma: tuple[int, ...]
) -> str:
    """One lemma (a clause) as a sentence (see the module's list)."""
    if not lemma:
        return "a contradiction: the clauses held refute the claim"
    if len(lemma) == 1:
        lit = lemma[0]
        said = literal_words(model, cell, value, abs(lit))
        if value[abs(lit)]:
            return said.replace("=", " is " if lit > 0 else " is not ", 1)
        return said if lit > 0 else f"not {said}"
    conditions = [literal_words(model, cell, value, -lit) for lit in lemma if lit < 0]
    outcomes = [literal_words(model, cell, value, lit) for lit in lemma if lit > 0]
    if not outcomes:
        return f"not ({' and '.join(conditions)})"
    if not conditions:
        return " or ".join(outcomes)
    return f"if {' and '.join(conditions)} then {' or '.join(outcomes)}"


def explain_proof(model: Any, certificate: Any) -> list[str]:
    """The lemmas of ``certificate``'s proof in words, numbered from 1 in proof order
    (deletions left out). ValueError for a proof over another puzzle's variables."""
    cnf = encode(model, certificate.encoding)
    lines = []
    for _, deleted, lemma in read_drat(certificate.proof):
        if not deleted:
            words = lemma_words(model, cnf.cell, cnf.value, lemma)
            lines.append(f"{len(lines) + 1}. {words}")
    return lines


def explain_refutation(model: Any, certificate: Any) -> list[str]:
    """How unit propagation over the claim's clauses and the proof's lemmas reaches the
    contradiction: the literals it sets that the contradiction rests on, numbered in the
    order set, each with the clause that forces it (its group in the encoding, a blocking
    clause, or a lemma), then the clause left with no literal true. Empty when unit
    propagation reaches none (a proof the checker rejects)."""
    cnf = encode(model, certificate.encoding)
    _, clauses = read_dimacs(certificate.cnf)
    kinds = [f"a clause of {group!r}" for group, count in cnf.groups for _ in range(count)]
    kinds += [
        f"the clause blocking claimed solution {k + 1}" for k in range(len(clauses) - len(kinds))
    ]
    lemmas = 0  # numbered as explain_proof numbers them
    for _, deleted, lemma in read_drat(certificate.proof):
        lemmas += not deleted
        if not deleted and lemma:  # deleting a clause held only weakens: all stay implied
            clauses.append(lemma)
            kinds.append(f"lemma {lemmas}")
    trail, reason, conflict = _propagate(clauses)
    if conflict is None:
        return []
    needed, todo = set(), [conflict]
    while todo:  # the literals the conflict rests on, through the clauses that set them
        for lit in clauses[todo.pop()]:
            var = abs(lit)
            if var not in needed:
                needed.add(var)
                todo.append(reason[var])
    lines = []
    for lit in trail:
        if abs(lit) in needed:
            said = lemma_words(model, cnf.cell, cnf.value, (lit,))
            why = clauses[reason[abs(lit)]]
            if len(why) == 1:
                lines.append(f"{said} ({kinds[reason[abs(lit)]]})")
            else:
                said += f", by {kinds[reason[abs(lit)]]}: "
                lines.append(said + lemma_words(model, cnf.cell, cnf.value, why))
    if clauses[conflict]:
        why = lemma_words(model, cnf.cell, cnf.value, clauses[conflict])
        lines.append(f"a contradiction: {kinds[conflict]} has no literal left true: {why}")
    else:
        lines.append(f"a contradiction: {kinds[conflict]} is empty")
    return [f"{k}. {line}" for k, line in enumerate(lines, 1)]


def _propagate(clauses: list[tuple[int, ...]]) -> tuple[list[int], dict[int, int], int | None]:
    """Unit propagation to a fixpoint or a conflict: the literals set in order, the clause
    that set each variable, and the clause falsified (None: no conflict). Plain passes over
    the clauses: only small proofs are told."""
    value: dict[int, bool] = {}
    trail: list[int] = []
    reason: dict[int, int] = {}
    changed = True
    while changed:
        changed = False
        for index, clause in enumerate(clauses):
            open_ = []
            for lit in clause:
                held = value.get(abs(lit))
                if held is None:
                    open_.append(lit)
                elif held == (lit > 0):
                    break
            else:
                if not open_:
                    return trail, reason, index
                if len(open_) == 1:
                    lit = open_[0]
                    value[abs(lit)] = lit > 0
                    reason[abs(lit)] = index
                    trail.append(lit)
                    changed = True
    return trail, reason, None
