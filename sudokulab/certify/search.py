"""The native engine's search written as a DRAT proof over the optimized encoding.

The engine records each placement it tries as (depth, cell, value) (``steps``: the C
core's ``trace`` and the reference's alike). A placement at depth d opens the node whose
path is the placements above it plus this one; the next step at depth d or less closes
it, as does the end of the search. Closing a node with path P writes the lemma ``¬P``
(the negation of its placements): assuming P, unit propagation over the CNF and the
lemmas held reaches a conflict. It does because:

- unit propagation over the extended encoding (Lynce and Ouaknine; the optimized one is
  it less what the givens decide, Kwon and Jain) *is* the engine's propagation up to
  ``hidden``: a placement removes its value from the peers and the cell's
  other values (the at-most-one clauses), a cell with one value left is placed (the cell's
  at-least-one clause), so is a value with one place left in a unit (the unit's), and an
  empty cell or a value with no place left is a conflict;
- a ``locked`` elimination (a value of unit U confined to U's meeting with unit V, so gone
  from the rest of V) is no unit propagation, so each is written first as a lemma of its
  own, ``¬P ∨ ¬x(cell, value)``: assuming the value there, V's at-most-one clauses empty
  U's at-least-one clause;
- the lemmas of P's closed children remove every value the engine tried at P's branching
  cell, and propagation the others: that cell's at-least-one clause is a conflict;
- a node where the engine found a solution is a conflict of the clause blocking it.

Where the engine's propagation goes beyond these (``gac``, ``sac``, backjumping's skipped
subtrees), the writer closes the node by splitting on a cell itself, as a search would,
each case a lemma of its own: every level is certified, the proof is longer than the
search there. A split that reaches a grid the claim left out refutes the claim. Cages,
variant rules and pencil marks are propagated by the engine in ways the writer does not
mirror: :func:`search_proof` returns None for them (a second solver proves the claim).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .prove import Certificate, claim_cnf, claim_of, dimacs

#: The CNF the proofs are written over: the extended encoding less what the givens decide
#: (Kwon and Jain), whose unit propagation is the extended encoding's after the givens'.
ENCODING = "optimized"

Literal = tuple[int, int]  # (cell, value): x(cell, value) holds
Path = tuple[Literal, ...]


class Refuted(Exception):  # noqa: N818 - a finding, not a failure of the writer
    """The writer's own search met a grid the claim left out (``grid``)."""

    def __init__(self, grid: tuple[int, ...]) -> None:
        super().__init__("the claim left out a grid")
        self.grid = grid


class _Conflict(Exception):  # noqa: N818 - control flow inside saturate
    pass


class _Writer:
    """The proof's lines, and the lemmas held, by the path they were written under."""

    def __init__(self, model: Any, solutions: Sequence[Sequence[int]], cnf: Any) -> None:
        n = model.size
        #: x(cell, value)'s variable in the CNF (none for what the givens decide)
        self.var = cnf.variable
        self.n, self.full = n, (1 << n) - 1
        self.cells = n * n
        self.givens = [(c, v) for c, v in enumerate(model.givens) if v]
        units = [tuple(k.cells) for k in model.constraints]
        self.amo = units
        self.alo = [u for u in units if len(u) == n]
        peers: list[set[int]] = [set() for _ in range(self.cells)]
        for u in units:
            for c in u:
                peers[c].update(u)
        self.peers = [tuple(sorted(p - {c})) for c, p in enumerate(peers)]
        # (U, V): U's at-least-one and V's at-most-one clauses, meeting in two cells or more
        self.pairs = []
        for u in self.alo:
            for v in units:
                inside = set(u) & set(v)
                if v != u and len(inside) >= 2:
                    rest_u = tuple(c for c in u if c not in inside)
                    rest_v = tuple(c for c in v if c not in inside)
                    self.pairs.append((tuple(sorted(inside)), rest_u, rest_v))
        self.claimed = {tuple(g) for g in solutions}
        self.held: dict[Path, list[Literal]] = {}  # path -> conclusions ¬x written under it
        self.lines: list[str] = []
        #: the open nodes, root first: each path and its propagated state (masks, placed),
        #: None at a conflict
        self.stack: list[tuple[Path, tuple[list[int], bytearray] | None]] = []

    # --- lines -------------------------------------------------------------------------
    def x(self, cell: int, value: int) -> int:
        return self.var[cell, value]

    def _clause(self, path: Path, also: Literal | None) -> str:
        lits = [-self.x(c, v) for c, v in path]
        if also is not None:
            lits.append(-self.x(*also))
        return " ".join(map(str, lits)) + " 0" if lits else "0"

    def lemma(self, path: Path, gone: Literal) -> None:
        """Write ``¬path ∨ ¬x(gone)`` and hold it under ``path``."""
        self.lines.append(self._clause(path, gone))
        self.held.setdefault(path, []).append(gone)

    def forget(self, path: Path) -> None:
        """Delete the lemmas written under ``path`` (its subtree is closed)."""
        for gone in self.held.pop(path, ()):
            self.lines.append("d " + self._clause(path, gone))

    # --- propagation ---------------------------------------------------------------------
    def propagate(self, path: Path, masks: list[int], placed: bytearray, queue: list) -> bool:
        """Unit propagation from ``queue`` (placements (cell, value), and (cell, -value)
        for a value ruled out), then locked eliminations, each written as a lemma under
        ``path``, to the fixpoint, in place: False at a conflict."""
        peers = self.peers
        try:
            while True:
                while queue:
                    c, v = queue.pop()
                    if v < 0:  # ¬x(c, -v), a lemma's
                        bit = 1 << (-v - 1)
                        if masks[c] & bit:
                            m = masks[c] ^ bit
                            if not m:
                                raise _Conflict
                            masks[c] = m
                            if not m & (m - 1) and not placed[c]:
                                queue.append((c, m.bit_length()))
                        continue
                    bit = 1 << (v - 1)
                    if not masks[c] & bit:
                        raise _Conflict
                    if placed[c]:
                        continue
                    masks[c] = bit
                    placed[c] = 1
                    for p in peers[c]:
                        m = masks[p]
                        if m & bit:
                            m ^= bit
                            if not m:
                                raise _Conflict
                            masks[p] = m
                            if not m & (m - 1) and not placed[p]:
                                queue.append((p, m.bit_length()))
                # a fixpoint of the singles: hidden singles, then locked eliminations
                if not self._hidden(masks, placed, queue) and not self._locked(path, masks, queue):
                    return True
        except _Conflict:
            return False

    def _hidden(self, masks: list[int], placed: bytearray, queue: list[Literal]) -> bool:
        """Queue each value with one place left in a unit; a conflict for one with none."""
        full, found = self.full, False
        for unit in self.alo:
            once = more = 0
            for c in unit:
                m = masks[c]
                more |= once & m
                once |= m
            if once != full:
                raise _Conflict
            single = once & ~more
            while single:
                bit = single & -single
                single ^= bit
                for c in unit:
                    if masks[c] & bit:
                        if not placed[c]:
                            queue.append((c, bit.bit_length()))
                            found = True
                        break
        return found

    def _locked(self, path: Path, masks: list[int], queue: list[Literal]) -> bool:
        """Write and queue each locked elimination; whether there was one."""
        found = False
        for inside, rest_u, rest_v in self.pairs:
            held = 0
            for c in inside:
                held |= masks[c]
            for c in rest_u:
                held &= ~masks[c]
            if not held:
                continue
            for c in rest_v:
                gone = masks[c] & held
                while gone:
                    bit = gone & -gone
                    gone ^= bit
                    self.lemma(path, (c, bit.bit_length()))
                    queue.append((c, -bit.bit_length()))
                    found = True
        return found

    # --- the nodes ----------------------------------------------------------------------
    def open(self, path: Path) -> None:
        """Push the node ``path``: its parent's state (the top of the stack) with its last
        placement, propagated (None at a conflict). The root: the givens, propagated."""
        if not path:
            masks, placed = [self.full] * self.cells, bytearray(self.cells)
            queue: list = list(self.givens)
        else:
            parent = self.stack[-1][1]
            if parent is None or path[-1] not in self.var:
                # under a conflict, or a value the givens rule out (tried by a search that
                # propagates none): closed by the parent's lemmas as they stand
                self.stack.append((path, None))
                return
            masks, placed = parent[0][:], bytearray(parent[1])
            queue = [path[-1]]
        ok = self.propagate(path, masks, placed, queue)
        self.stack.append((path, (masks, placed) if ok else None))

    def close(self) -> None:
        """Pop the top node and write its lemma: the negation of its path (the empty
        clause for the root), once its children's lemmas and propagation reach a
        conflict; where they do not, split on a cell first, as a search would. Then
        delete the lemmas written under the path."""
        path, state = self.stack[-1]
        if path and path[-1] not in self.var:
            self.stack.pop()
            return  # ¬x holds by the givens: nothing to write
        while state is not None:
            masks, placed = state
            queue = [(c, -v) for c, v in self.held.get(path, ())]
            if not self.propagate(path, masks, placed, queue):
                break
            if all(not m & (m - 1) for m in masks):
                grid = tuple(m.bit_length() for m in masks)
                if grid in self.claimed:
                    break  # the clause blocking it is the conflict
                raise Refuted(grid)
            cell = min(
                (c for c, m in enumerate(masks) if m & (m - 1)),
                key=lambda c: masks[c].bit_count(),
            )
            m = masks[cell]
            while m:
                bit = m & -m
                m ^= bit
                self.open(path + ((cell, bit.bit_length()),))
                self.close()
        self.stack.pop()
        if path:  # written before the lemmas it rests on are deleted
            self.lemma(path[:-1], path[-1])
            self.forget(path)
        else:
            self.lines.append("0")


def mirrored(model: Any) -> bool:
    """Whether the writer mirrors the engine's propagation on ``model``: units only (no
    cages, no variant rules, no pencil marks)."""
    from ..models.model import AllDifferent

    return not model.narrowed and all(isinstance(k, AllDifferent) for k in model.constraints)


def search_proof(
    model: Any, steps: Iterable[tuple[int, int, int]], solutions: Sequence[Sequence[int]]
) -> Certificate | None:
    """The certificate that ``model`` has exactly ``solutions``, written from the engine's
    ``steps`` (its complete search's placements tried, in order); None for a model the
    writer does not mirror (:func:`mirrored`). A refuted claim gives a certificate whose
    ``refuted`` names the grid the claim left out."""
    if not mirrored(model):
        return None
    claim = claim_of(len(solutions))
    cnf, clauses = claim_cnf(model, solutions, ENCODING)
    prover = "native (its search, as lemmas)"
    text = dimacs(model, cnf, clauses, claim, prover)
    writer = _Writer(model, solutions, cnf)
    try:
        writer.open(())
        for depth, cell, value in steps:
            while len(writer.stack) > depth:  # the nodes at depth or deeper are closed
                writer.close()
            writer.open(writer.stack[-1][0] + ((cell, value),))
        while writer.stack:
            writer.close()
    except Refuted as found:
        return Certificate(claim, text, "", prover, ENCODING, found.grid, False, 0,
                           "the CNF has a model")  # fmt: skip
    return Certificate(claim, text, "\n".join(writer.lines) + "\n", prover, ENCODING)
