"""A DRAT proof checker by forward reverse unit propagation (RUP), with deletions.

:func:`check_proof` reads a DIMACS CNF and a DRAT proof (text lines, ``d`` for a
deletion, or drat-trim's binary form) and checks each lemma in order: assigning the
negation of its literals and propagating units over the clauses held so far must reach a
conflict. The proof is accepted when the clauses held reach a conflict by unit
propagation alone (the empty clause). A lemma that is not RUP is rejected and named (this
checker takes no RAT steps: the solvers of the project write RUP proofs).

Deleting a clause only ever weakens what later lemmas may use, and every clause held is
implied by the CNF, so a deletion is applied to the watch lists but never undoes what the
root level already derived (drat-trim ignores the deletion of unit clauses alike); the
verdict stays sound.

>>> cnf = "p cnf 2 4\\n1 2 0\\n-1 2 0\\n1 -2 0\\n-1 -2 0\\n"
>>> check_proof(cnf, "2 0\\n0\\n").accepted
True
>>> check_proof(cnf, "").reason
'the proof ends without deriving the empty clause'
"""

from __future__ import annotations

from dataclasses import dataclass

try:  # the compiled checker, where the build made it (setup.py: optional)
    from . import _rup
except ImportError:  # pragma: no cover - a build without a C compiler
    _rup = None


class ProofError(ValueError):
    """A CNF or a proof that cannot be read: where, and why."""


@dataclass(frozen=True)
class Verdict:
    """What the checker found: ``accepted``, the lemmas checked and deletions applied,
    and for a rejected proof the ``failed`` line (text) or step (binary) and why."""

    accepted: bool
    lemmas: int
    deletions: int
    failed: int | None = None
    reason: str = ""


def read_dimacs(text: str, name: str = "CNF") -> tuple[int, list[tuple[int, ...]]]:
    """The number of variables and the clauses of a DIMACS CNF; ProofError naming the
    line for anything else."""
    header: tuple[int, int] | None = None
    clauses: list[tuple[int, ...]] = []
    current: list[int] = []
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words or words[0][0] in "c%":
            continue
        if words[0] == "p":
            if header is not None or len(words) != 4 or words[1] != "cnf":
                raise ProofError(f"{name}: line {number}: not one header 'p cnf VARS CLAUSES'")
            header = (_number(words[2], name, number), _number(words[3], name, number))
            continue
        if header is None:
            raise ProofError(f"{name}: line {number}: a clause before the 'p cnf' header")
        try:
            literals = list(map(int, words))
        except ValueError:
            literals = [_literal(word, name, number) for word in words]  # names the word
        if max(literals) > header[0] or -min(literals) > header[0]:
            far = max(abs(lit) for lit in literals)
            raise ProofError(
                f"{name}: line {number}: variable {far} above the header's {header[0]}"
            )
        if literals[-1] == 0 and 0 not in literals[:-1]:  # one clause on the line: the usual
            clauses.append(tuple(current + literals[:-1]))
            current = []
            continue
        for literal in literals:
            if literal:
                current.append(literal)
            else:
                clauses.append(tuple(current))
                current = []
    if header is None:
        raise ProofError(f"{name}: no 'p cnf' header")
    if current:
        raise ProofError(f"{name}: the last clause does not end with 0")
    if len(clauses) != header[1]:
        raise ProofError(
            f"{name}: the header says {header[1]} clauses, the file has {len(clauses)}"
        )
    return header[0], clauses


def read_drat(data: bytes | str, name: str = "proof") -> list[tuple[int, bool, tuple[int, ...]]]:
    """The steps of a DRAT proof: ``(where, deleted, clause)``, ``where`` the line of a
    text proof or the step of a binary one; ProofError naming the place otherwise."""
    if isinstance(data, str):
        data = data.encode()
    if _binary(data):
        return _read_binary(data, name)
    steps: list[tuple[int, bool, tuple[int, ...]]] = []
    for number, line in enumerate(data.decode("ascii", "replace").splitlines(), 1):
        words = line.split()
        if not words or words[0] == "c":
            continue
        deleted = words[0] == "d"
        literals = [_literal(w, name, number) for w in words[deleted:]]
        if not literals or literals[-1] != 0 or 0 in literals[:-1]:
            raise ProofError(f"{name}: line {number}: a step is one clause ending with 0")
        steps.append((number, deleted, tuple(literals[:-1])))
    return steps


def check_proof(
    cnf: str | bytes,
    proof: bytes | str,
    cnf_name: str = "CNF",
    proof_name: str = "proof",
    compiled: bool = True,
) -> Verdict:
    """Check ``proof`` (DRAT) against ``cnf`` (DIMACS text): a :class:`Verdict`.
    ProofError when either cannot be read. The compiled checker (``_rup``, the same
    semantics) runs where it was built, unless ``compiled`` is false."""
    if isinstance(proof, str):
        proof = proof.encode()
    if compiled and _rup is not None:
        found = _rup.check(cnf.encode() if isinstance(cnf, str) else cnf, proof)
        if found is not None:  # else the readers below say why it does not read
            accepted, lemmas, deletions, failed, why = found
            if accepted:
                return Verdict(True, lemmas, deletions)
            if why == 2:
                return Verdict(False, lemmas, deletions, None, _NO_EMPTY)
            step = next(c for w, d, c in read_drat(proof, proof_name) if w == failed and not d)
            why = _failed(proof, proof_name, failed, step)
            return Verdict(False, lemmas, deletions, failed, why)
    if isinstance(cnf, bytes):
        cnf = cnf.decode("ascii", "replace")
    variables, clauses = read_dimacs(cnf, cnf_name)
    steps = read_drat(proof, proof_name)
    db = _Clauses(variables)
    for clause in clauses:
        db.add(clause)
    lemmas = deletions = 0
    for where, deleted, clause in steps:
        if db.conflict:
            break  # the empty clause is derived: the rest cannot matter
        if deleted:
            deletions += db.delete(clause)
            continue
        lemmas += 1
        if not db.implies(clause):
            why = _failed(proof, proof_name, where, clause)
            return Verdict(False, lemmas, deletions, where, why)
        db.add(clause)
    if not db.conflict:
        return Verdict(False, lemmas, deletions, None, _NO_EMPTY)
    return Verdict(True, lemmas, deletions)


_NO_EMPTY = "the proof ends without deriving the empty clause"


def _failed(proof: bytes, name: str, where: int, clause: tuple[int, ...]) -> str:
    """Why a proof was rejected at ``where``: its lemma does not follow."""
    place = "step" if _binary(proof) else "line"
    shown = " ".join(map(str, clause)) or "the empty clause"
    return f"{name}: {place} {where}: lemma {shown} does not follow by unit propagation"


class _Clauses:
    """The clauses held, two literals of each watched, and the assignment that unit
    propagation derives from them at the root (kept; a check assigns above it and undoes).

    A literal l is index 2l when positive, -2l + 1 when negative: its negation is index ^ 1.
    """

    def __init__(self, variables: int) -> None:
        self.value = [0] * (2 * variables + 2)  # 1 true, -1 false, 0 open; by literal index
        self.watches: list[list[int]] = [[] for _ in self.value]
        self.clauses: list[list[int]] = []
        self.alive: list[bool] = []
        self.by_literals: dict[tuple[int, ...], list[int]] | None = None
        self.trail: list[int] = []
        self.conflict = False

    def _index(self, literal: int) -> int:
        index = 2 * literal if literal > 0 else -2 * literal + 1
        if index >= len(self.value):  # a variable the header did not count (an extension)
            grow = index + 2 - len(self.value)
            self.value += [0] * grow
            self.watches += [[] for _ in range(grow)]
        return index

    def add(self, clause: tuple[int, ...]) -> None:
        """Hold a clause (implied by those held): watch it, or assign its one open literal."""
        if self.conflict:
            return
        value = self.value
        seen: dict[int, None] = {}
        for lit in clause:
            index = 2 * lit if lit > 0 else -2 * lit + 1
            if index >= len(value):
                index = self._index(lit)
                value = self.value
            if value[index] == 1 or index ^ 1 in seen:
                return  # true at the root, or a tautology: it can never propagate
            seen[index] = None
        open_ = [i for i in seen if value[i] == 0]
        if not open_:
            self.conflict = True
            return
        if len(open_) == 1:
            mark = len(self.trail)
            self._assign(open_[0])
            self.conflict = self._propagate(mark)
            return
        ordered = open_ + [i for i in seen if value[i] != 0] if len(open_) < len(seen) else open_
        number = len(self.clauses)
        self.clauses.append(ordered)
        self.alive.append(True)
        self.watches[ordered[0]].append(number)
        self.watches[ordered[1]].append(number)
        if self.by_literals is not None:
            self.by_literals.setdefault(tuple(sorted(ordered)), []).append(number)

    def delete(self, clause: tuple[int, ...]) -> int:
        """Stop watching one copy of a clause: 1, or 0 when none is held (a clause true
        at the root was never watched, a unit clause's root assignment stays). The index
        of the clauses by their literals is built at the first deletion."""
        if self.by_literals is None:
            self.by_literals = {}
            for number, held in enumerate(self.clauses):
                if self.alive[number]:
                    self.by_literals.setdefault(tuple(sorted(held)), []).append(number)
        key = tuple(sorted({self._index(lit) for lit in clause}))
        numbers = self.by_literals.get(key)
        if not numbers:
            return 0
        self.alive[numbers.pop()] = False
        return 1

    def implies(self, clause: tuple[int, ...]) -> bool:
        """Whether assigning the negation of ``clause`` and propagating reaches a conflict."""
        if self.conflict:
            return True
        mark = len(self.trail)
        value = self.value
        found = False
        for literal in clause:
            index = self._index(literal)
            if value[index] == 1:
                found = True  # the clause is true already: its negation conflicts
                break
            if value[index] == 0:
                self._assign(index ^ 1)
        if not found:
            found = self._propagate(mark)
        for index in self.trail[mark:]:
            value[index] = value[index ^ 1] = 0
        del self.trail[mark:]
        return found

    def _assign(self, index: int) -> None:
        self.value[index] = 1
        self.value[index ^ 1] = -1
        self.trail.append(index)

    def _propagate(self, start: int) -> bool:
        """Unit propagation of the assignments from ``trail[start]`` on: True at a conflict."""
        value, watches, clauses, alive, trail = (
            self.value,
            self.watches,
            self.clauses,
            self.alive,
            self.trail,
        )
        head = start
        while head < len(trail):
            false = trail[head] ^ 1
            head += 1
            watching = watches[false]
            kept: list[int] = []
            for position, number in enumerate(watching):
                if not alive[number]:
                    continue
                c = clauses[number]
                if c[0] == false:
                    c[0], c[1] = c[1], c[0]
                other = c[0]
                if value[other] == 1:
                    kept.append(number)
                    continue
                for k in range(2, len(c)):
                    if value[c[k]] != -1:
                        c[1], c[k] = c[k], c[1]
                        watches[c[1]].append(number)
                        break
                else:
                    kept.append(number)
                    if value[other] == -1:
                        kept += watching[position + 1 :]
                        watches[false] = kept
                        return True
                    self._assign(other)
            watches[false] = kept
        return False


def _binary(data: bytes) -> bool:
    """Whether a proof is in drat-trim's binary form: each of its steps ends with a zero
    byte, which no text proof holds."""
    return b"\x00" in data


def _read_binary(data: bytes, name: str) -> list[tuple[int, bool, tuple[int, ...]]]:
    steps: list[tuple[int, bool, tuple[int, ...]]] = []
    position, step = 0, 0
    while position < len(data):
        step += 1
        mark = data[position]
        if mark not in (0x61, 0x64):  # 'a', 'd'
            raise ProofError(f"{name}: step {step}: a binary step starts with 'a' or 'd'")
        position += 1
        clause: list[int] = []
        while True:
            number, shift = 0, 0
            while True:
                if position >= len(data):
                    raise ProofError(f"{name}: step {step}: the proof ends inside a clause")
                byte = data[position]
                position += 1
                number |= (byte & 0x7F) << shift
                shift += 7
                if not byte & 0x80:
                    break
            if number == 0:
                break
            clause.append(-(number >> 1) if number & 1 else number >> 1)
        steps.append((step, mark == 0x64, tuple(clause)))
    return steps


def _literal(word: str, name: str, line: int) -> int:
    try:
        return int(word)
    except ValueError:
        raise ProofError(f"{name}: line {line}: {word!r} is not a literal") from None


def _number(word: str, name: str, line: int) -> int:
    number = _literal(word, name, line)
    if number < 0:
        raise ProofError(f"{name}: line {line}: {number} in the header")
    return number
