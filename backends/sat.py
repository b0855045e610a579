"""PySAT (the python-sat package) as a backend: a CDCL SAT solver on the model's CNF.

The CNF is :mod:`sudokulab.encodings.cnf`'s, over Boolean x(cell, value), in one of
three encodings (option ``encoding``):

- ``minimal`` (Lynce and Ouaknine, "Sudoku as a SAT Problem", 2006): each cell takes at
  least one value, each value at most once per unit (pairwise), the givens as unit
  clauses.
- ``extended`` (the same paper): minimal, plus each cell at most one value, and each value
  at least once per unit.
- ``optimized`` (Kwon and Jain, "Optimized CNF Encoding for Sudoku Puzzles", 2006):
  extended without what the givens decide: no variable for a given's cell nor for its
  value in its peers, no clause the givens satisfy, no literal they falsify.

Killer cages and the variant rules are the same in every encoding: the translation of
their primitives (docs/guides/variants.md). A sum as a chain of partial sums took 5 to 38
times fewer clauses than pysat.pb's encoding and up to 530 times less time (docs/results.md,
"Sums in the SAT encodings").

Solutions are counted with blocking clauses (each found grid is forbidden over its
non-given cells, then the solver is asked again). The deadline interrupts the solver
from a timer thread (``solve_limited(expect_interrupt=True)``), so only solvers whose
PySAT binding can be interrupted are offered (CaDiCaL, Lingeling and Kissat cannot).
PySAT is imported only when a model is solved.

With ``certify`` (:attr:`SatBackend.certifies`) an exact answer comes with the solver's
own DRAT proof (PySAT's ``with_proof``) over the clauses it was given: the encoding's,
then each blocking clause. Of :data:`SOLVERS`, the Glucose family, MapleCM and
MapleChrono write proofs that our checker and drat-trim accept (:data:`PROOF_SOLVERS`);
MiniSat 2.2 and MergeSat 3 log none, and MapleSAT's binding writes its variables off by
one (pysathq/pysat issue 139), so a proof neither checker accepts: those three are refused
by name. With no solver named, ``certify`` takes :data:`PROOF_SOLVERS`' first.
Inference alone (``search`` none or failed-literal) writes its own proof, with
any solver: each failed literal's negation as a unit lemma, then the empty clause.

:func:`infer` is inference alone, as in the paper's experiments: unit propagation, or
unit propagation with failed-literal probing, and no search.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import threading
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from ..encodings import accepted_kinds
from ..encodings.cnf import ENCODINGS, RULES, TYPES, Cnf, encode
from ..models import Grid, Model
from . import interrupt
from .base import Backend, Request, Unanswered, check_deadline, count_by_blocking
from .result import Result, Status

if TYPE_CHECKING:  # the certificate's module is imported only to certify
    from ..certify.prove import Certificate

#: PySAT solvers whose binding takes an interrupt (the deadline) and ``propagate``
#: (:func:`infer`), default first. MiniSat 2.2 is the default: as fast as the Glucose
#: family, faster than CaDiCaL, and the most prompt to stop at a deadline
#: (docs/results.md, "Why these defaults"). CaDiCaL, Lingeling and Kissat are left out:
#: their PySAT bindings cannot be interrupted.
SOLVERS = (
    "minisat22",
    "glucose3",
    "glucose4",
    "glucose42",
    "maplesat",
    "maplecm",
    "maplechrono",
    "mergesat3",
)

#: The :data:`SOLVERS` whose proofs (``with_proof``) our checker and drat-trim accept;
#: first the one ``certify`` takes when no solver is named, Glucose 4.1: the family writes
#: the same proofs as fast, MapleCM and MapleChrono longer ones, more slowly
#: (docs/results.md, "Certified verdicts").
PROOF_SOLVERS = ("glucose4", "glucose3", "glucose42", "maplecm", "maplechrono")

#: Why the other :data:`SOLVERS` cannot certify.
NO_PROOF = {
    "minisat22": "its PySAT binding logs no proof",
    "mergesat3": "its PySAT binding logs no proof",
    "maplesat": "its PySAT binding numbers the proof's variables off by one (pysathq/pysat "
    "issue 139), so neither our checker nor drat-trim accepts it",
}

#: Inference without search (:func:`infer`): unit propagation alone, or with failed
#: literals probed to a fixpoint.
INFERENCES = ("unit", "failed-literal")

#: The backend's ``search``: the solver's CDCL search (the default), or inference alone
#: as Lynce and Ouaknine ran it: ``none`` (unit propagation) or ``failed-literal``. Without
#: search a puzzle that inference does not decide ends as a native search with a budget
#: of no guess does: ``timeout``, its message saying how many open cells were decided.
SEARCHES = ("cdcl", "none", "failed-literal")


class SatBackend(Backend):
    """A CDCL SAT solver from PySAT on a CNF encoding; options ``encoding`` and ``solver``."""

    name = "sat"
    kinds = accepted_kinds(TYPES)
    options = {"encoding": ENCODINGS, "solver": SOLVERS, "search": SEARCHES}
    stops_itself = True  # the solver is interrupted from a timer thread at the deadline
    requires = "python-sat"
    # A 25x25 grid's CNF (752,500 clauses) takes seconds to encode and to load into the
    # solver, in numpy and PySAT calls that hold the interpreter: no deadline or Ctrl-C
    # can stop them, so a larger grid than 16x16 is solved in a worker process.
    in_process_cells = 256
    certifies = True  # the solver's own DRAT proof; inference's lemmas without search

    def available(self) -> bool:
        """True when PySAT is installed (found, not imported)."""
        return importlib.util.find_spec("pysat") is not None

    def version(self) -> str:
        """The installed python-sat version."""
        import importlib.metadata

        return importlib.metadata.version("python-sat")

    def proof_refusal(self, options: Mapping[str, Any]) -> str:
        """Why ``certify`` is refused: a solver named that writes no proof we accept (the
        inference searches write their own lemmas, whatever the solver)."""
        solver = options.get("solver")
        if options.get("search", SEARCHES[0]) != "cdcl" or solver not in NO_PROOF:
            return ""
        return (
            f"solver {solver} writes no DRAT proof: {NO_PROOF[solver]}; choose one of "
            f"{', '.join(PROOF_SOLVERS)}"
        )

    def search(self, model: Model, request: Request) -> Result:
        """Find up to ``request.limit`` solutions, one solver call each, by the deadline."""
        options = request.options
        encoding = options.get("encoding", ENCODINGS[0])
        if options.get("search", SEARCHES[0]) != "cdcl":
            solver_name = options.get("solver", SOLVERS[0])
            return self._infer(model, encoding, solver_name, options["search"], request.certify)
        solver_name = options.get("solver", PROOF_SOLVERS[0] if request.certify else SOLVERS[0])
        from pysat.solvers import NoSuchSolverError, Solver

        deadline = request.deadline
        try:
            cnf = encode(model, encoding, lambda: check_deadline(deadline))
        except ValueError as err:  # a cage with too many value sets, a sum too long
            return Result(self.name, Status.ERROR, message=f"sat: {err}")
        stats: dict[str, Any] = {
            "encoding": encoding,
            "solver": solver_name,
            "variables": cnf.variables,
            "clauses": len(cnf.clauses),
        }
        if request.passed():  # the encoding took the whole time: no solver to load it into
            return Result(self.name, Status.TIMEOUT, stats=stats)
        try:
            solver = Solver(
                name=solver_name, bootstrap_with=cnf.clauses, with_proof=request.certify
            )
        except NoSuchSolverError:
            return Result(
                self.name,
                Status.ERROR,
                stats=stats,
                message=f"sat: this python-sat has no solver {solver_name!r}",
            )

        start = time.perf_counter()
        with _Deadline(solver, request.left()) as watch:
            interrupt.on_interrupt(watch.stop)

            blocked: list[list[int]] = []  # the clauses the solver was given after the CNF

            def ask(left: float | None) -> Grid | None | Unanswered:
                if not cnf.variables:
                    # every cell given and nothing to search: MapleSAT's binding crashes on
                    # a CNF without variables, and any clause left is empty (unsatisfiable)
                    return None if cnf.clauses else cnf.grid([])
                answer = None if watch.passed else solver.solve_limited(expect_interrupt=True)
                if answer is None:  # interrupted: the deadline (or Ctrl-C)
                    return Unanswered()
                if not answer:
                    return None
                return cnf.grid(solver.get_model())

            def block(grid: Grid) -> None:
                blocked.append(cnf.blocking(grid))
                solver.add_clause(blocked[-1])

            found = count_by_blocking(request, ask, block, closed=0 not in cnf.fixed)
            stats.update(solver.accum_stats())
            proved = request.certify and found.exact and not found.timed_out and not found.message
            # the proof is the solver's: read before the solver is deleted
            proof = solver.get_proof() if proved and cnf.variables else []
        solve_time = time.perf_counter() - start
        result = Result.counted(
            self.name, found.solutions, found.exact, found.timed_out, 0.0, solve_time, stats,
            found.message,
        )  # fmt: skip
        if not proved:
            return result
        if len(blocked) < len(found.solutions):  # a full grid: counted without blocking it
            blocked.append([])  # its blocking clause, over no open cell, is empty
        prover = f"sat:{solver_name} (its own proof)"
        certificate = _certificate(model, cnf, blocked, proof, prover)
        return dataclasses.replace(result, certificate=certificate)

    def _infer(
        self, model: Model, encoding: str, solver_name: str, search: str, certify: bool = False
    ) -> Result:
        """Inference alone (``search`` none or failed-literal): solved when it decides
        every cell (then the solution is forced: exact), unsolvable on a contradiction,
        else a timeout saying how far it got. With ``certify`` a verdict's proof is the
        failed literals' negations (each a unit lemma that unit propagation derives),
        then the empty clause, which unit propagation then derives from the CNF (with
        the solution's blocking clause, for a solution)."""
        start = time.perf_counter()
        method = "unit" if search == "none" else "failed-literal"
        found = infer(model, encoding, method, solver_name)
        open_cells = sum(1 for d in model.domains if len(d) > 1)
        decided = sum(
            1 for d, v in zip(model.domains, found.decided, strict=True) if len(d) > 1 and v
        )
        stats = {"encoding": encoding, "solver": solver_name, "search": search,
                 "open": open_cells, "decided": decided}  # fmt: skip
        elapsed = time.perf_counter() - start
        what = "unit propagation" if search == "none" else "failed literals"
        certificate = None
        if certify and (found.contradiction or found.solution is not None):
            cnf = encode(model, encoding)
            blocked = [] if found.solution is None else [cnf.blocking(found.solution)]
            proof = [f"{-lit} 0" for lit in found.failed] + ["0"]
            prover = f"sat:{solver_name} ({what}, written as lemmas)"
            certificate = _certificate(model, cnf, blocked, proof, prover)
        if found.contradiction:
            return Result(self.name, Status.UNSOLVABLE, (), 0, True, 0.0, elapsed, stats,
                          certificate=certificate)  # fmt: skip
        if found.solution is not None:
            return Result(self.name, Status.SOLVED, (found.solution,), 1, True, 0.0, elapsed, stats,
                          certificate=certificate)  # fmt: skip
        return Result(
            self.name,
            Status.TIMEOUT,
            stats=stats,
            solve_time=elapsed,
            message=f"{what} alone decided {decided} of {open_cells} open cells (no search)",
        )

    def describe(self, model: Model) -> str:
        """The CNF this backend builds (the default encoding), counted clause by clause."""
        cnf = encode(model, ENCODINGS[0])
        groups = ", ".join(f"{count} {name}" for name, count in cnf.groups)
        auxiliary = cnf.value.count(0) - 1  # value 0: a cage's or a rule's (or no variable)
        variables = f"{cnf.variables - auxiliary} Boolean x(cell, value)"
        if auxiliary:
            what = "auxiliary variables" if dict(cnf.groups).get(RULES) else "cage selectors"
            variables += f" and {auxiliary} {what}"
        return (
            f"sat: {cnf.encoding} encoding, {variables}, {len(cnf.clauses)} clauses "
            f"({groups}); solver {SOLVERS[0]}"
        )


def _certificate(
    model: Model, cnf: Cnf, blocked: list[list[int]], proof: Sequence[str], prover: str
) -> Certificate:
    """The certificate (not checked yet) that ``model`` has exactly as many solutions as
    ``blocked`` has clauses: the CNF is ``cnf``'s clauses and then those, as given to the
    solver; ``proof`` the proof's lines."""
    from ..certify.prove import Certificate, claim_of, dimacs

    claim = claim_of(len(blocked))
    clauses = [*cnf.clauses, *blocked]
    text = dimacs(model, cnf, clauses, claim, prover)
    lines = "".join(f"{line}\n" for line in proof)
    return Certificate(claim, text, lines, prover=prover, encoding=cnf.encoding)


class _Deadline:
    """Interrupts a PySAT solver from a thread at the deadline (or at once on Ctrl-C:
    :meth:`stop`), and deletes it at the end.

    Some bindings (the Glucose family) clear an interrupt that arrives between two calls
    or within a call's restarts, so the thread interrupts again every
    :data:`_AGAIN` seconds until the search ends; ``passed`` tells the caller's loop that
    the deadline has come. A lock keeps it from interrupting a solver being deleted.
    """

    def __init__(self, solver: Any, timeout: float | None) -> None:
        self.solver = solver
        self.timeout = timeout
        self.lock = threading.RLock()  # re-entrant: stop() may come from a signal handler
        self.ended = threading.Event()
        self.wake = threading.Event()  # Ctrl-C: interrupt now
        self.passed = False
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.started = False

    def _watch(self) -> None:
        self.wake.wait(None if self.timeout is None else max(self.timeout, 0.0))
        while True:
            with self.lock:
                if self.ended.is_set():
                    return
                self.passed = True
                self.solver.interrupt()
            if self.ended.wait(_AGAIN):
                return

    def _start(self) -> None:
        if not self.started:
            self.started = True
            self.thread.start()

    def stop(self) -> None:
        """Interrupt the search now, as the deadline would."""
        with self.lock:
            if not self.ended.is_set():
                self.wake.set()
                self._start()

    def __enter__(self) -> _Deadline:
        if self.timeout is not None:
            self._start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.ended.set()
            self.wake.set()
            self.solver.delete()


#: Seconds between interrupts once the deadline has passed.
_AGAIN = 0.02


class Inference(NamedTuple):
    """What inference alone decides: the grid so far (0 where undecided), the solution
    when every cell is decided (else None), and whether it met a contradiction (the
    puzzle has no solution; ``decided`` is then what was decided before it); ``failed``:
    the failed literals, in the order found (each one's negation was added)."""

    decided: Grid
    solution: Grid | None
    contradiction: bool = False
    failed: tuple[int, ...] = ()


def infer(
    model: Model,
    encoding: str = ENCODINGS[0],
    method: str = INFERENCES[0],
    solver: str = SOLVERS[0],
) -> Inference:
    """Decide what the CNF's unit propagation decides, without search.

    ``method`` is ``unit`` (unit propagation alone) or ``failed-literal`` (unit
    propagation, then every open literal is propagated on its own; a conflict means its
    negation holds, which is added and propagated, to a fixpoint).

    Without the extended encoding's "at least once per unit" clauses, unit propagation
    finds no hidden single:

    >>> from sudokulab import build_model, parse_puzzle
    >>> model = build_model(parse_puzzle(
    ...     ".....9....87............8247.6.4.135..9.5.........1..8.93..641......7...5..3....."))
    >>> [sum(map(bool, infer(model, e).decided)) for e in ("minimal", "extended")]
    [27, 81]
    >>> infer(model, "minimal", "failed-literal").solution == infer(model, "extended").solution
    True
    """
    if method not in INFERENCES:
        raise ValueError(f"unknown method {method!r}: choose one of {', '.join(INFERENCES)}")
    from pysat.solvers import Solver

    cnf = encode(model, encoding)
    # the unit clauses go in as assumptions: propagate reports what they imply, which it
    # would not for literals the solver fixed on its own when the clauses were added
    roots = list(dict.fromkeys(c[0] for c in cnf.clauses if len(c) == 1))
    others = [c for c in cnf.clauses if len(c) != 1]
    if any(not c for c in others) or not set(roots).isdisjoint(-lit for lit in roots):
        return Inference(cnf.fixed, None, True)
    units = len(roots)  # the failed literals' negations follow them in roots
    with Solver(name=solver, bootstrap_with=others) as sat:
        ok, assigned = sat.propagate(assumptions=roots)
        if not ok:
            return Inference(cnf.grid(assigned), None, True)
        while method == "failed-literal":
            ok, assigned, found = _probe(sat, roots, assigned, cnf.variables)
            if not ok:
                return Inference(cnf.grid(assigned), None, True, _failed(roots, units))
            if not found:
                break
    decided = cnf.grid(assigned)
    return Inference(decided, None if 0 in decided else decided, False, _failed(roots, units))


def _failed(roots: list[int], units: int) -> tuple[int, ...]:
    """The failed literals whose negations ``roots`` took after its first ``units``."""
    return tuple(-lit for lit in roots[units:])


def _probe(
    sat: Any, roots: list[int], assigned: list[int], variables: int
) -> tuple[bool, list[int], bool]:
    """One pass of failed-literal probing over the open variables; ``roots`` grows by
    each failed literal's negation. Returns (no conflict, assigned literals, any found)."""
    known = set(assigned)
    found = False
    for var in range(1, variables + 1):
        if var in known or -var in known:
            continue
        for lit in (var, -var):
            ok, _ = sat.propagate(assumptions=[*roots, lit])
            if ok:
                continue
            roots.append(-lit)
            found = True
            ok, assigned = sat.propagate(assumptions=roots)
            if not ok:
                return False, assigned, True
            known = set(assigned)
            break
    return True, assigned, found
