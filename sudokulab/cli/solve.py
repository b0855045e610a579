"""The ``solve``, ``check`` and ``backends`` commands."""

from __future__ import annotations

import argparse
import collections
import contextlib
import itertools
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..api import solve as solve_puzzle
from ..api import solve_grids
from ..backends import (
    PRESETS,
    BackendSpec,
    Result,
    all_backends,
    as_spec,
    get_backend,
)
from ..backends import parse_spec as _parse_spec
from ..backends import parse_specs as _parse_specs
from ..backends.base import check_options, kind_name, may_isolate
from ..backends.result import Answers, Status
from ..backends.specs import slow_reason
from ..models import (
    Entry,
    Geometry,
    ParseError,
    format_grid,
    format_line,
    read_file,
)
from ..models.formats import counted
from ..native.options import CLASSIC_DEFAULTS, DEFAULTS, OPTIONS, ORDERS, PROPAGATIONS, VALUES
from .common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    add_puzzle_arguments,
    argument_puzzles,
    count,
    error,
    input_blocks,
    seconds,
)

if TYPE_CHECKING:
    from ..backends.isolation import Worker
    from ..models.stream import Block

SOLVE_EXAMPLES = """\
examples:
  sudokulab solve 4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......
  sudokulab solve puzzles.txt --format grid
  echo '....5.264..7..9..35..62....8......9.7..34..86.....2.3....9.....9.476........3....' \\
      | sudokulab solve
  sudokulab solve puzzles.txt --propagation none --order first --timeout 5 --stats
  sudokulab solve puzzle.txt --unique
  sudokulab solve puzzle.txt --backend local:method=annealing,seed=7 --timeout 10
  sudokulab solve hardest --data-dir ../shared/data
  sudokulab solve puzzles.txt --unique --certify proofs    # proofs/1.cnf, proofs/1.drat, ...

exit status: 0 every puzzle solved, 1 some puzzle had no solution, timed out or (with
--unique) had several, or (with --certify) a claim was refuted, its proof rejected or
not made, 2 bad input (unreadable text, clashing givens, bad option, a backend asked to
certify with options under which it writes no proof).
"""

CHECK_EXAMPLES = """\
examples:
  sudokulab check puzzles.txt
  sudokulab check hard95 --data-dir ../shared/data --backends native,cpsat
  sudokulab check puzzles.txt --backends backtracking,hidden-singles,cpsat:workers=2
  sudokulab check puzzles.txt --backends native,cpsat --certify proofs  # proofs/1.cnf, ...

A backend that refuses a puzzle's constraint kinds (variant rules it does not model) is
skipped on it, with its reason: neither a failure nor a disagreement.

With --certify each backend's negative claims ('no solution', 'unique') are proved and
checked: the table's certified column counts the proofs accepted (and rejected), with the
mean proof's lines, bytes and check time; a rejected proof, a refuted claim or a claim
no proof could be made of (a cage with too many value sets for a CNF) is a disagreement.

exit status: 0 every backend agrees and every answer verifies (on a puzzle without a
solution too, when every backend proves it has none), 1 some backend disagrees, fails
verification, times out or errs (or, with --certify, a proof is rejected, a claim
refuted or no proof of it could be made), 2 bad input.
"""


def spec_type(text: str) -> BackendSpec:
    """A backend spec as an argument type: NAME, a preset, or NAME:key=value,... (the
    options that exclude each other are checked with --propagation and the rest)."""
    try:
        return _parse_spec(text, together=False)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def specs_type(text: str) -> list[BackendSpec]:
    """Comma-separated backend specs as an argument type."""
    try:
        return _parse_specs(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _shape_defaults(name: str) -> str:
    """The native engine's default for an option, by shape (native.options)."""
    return (
        f"(default: {CLASSIC_DEFAULTS[name]} on classic 9x9 grids, {DEFAULTS[name]} on other "
        "shapes: the fastest measured)"
    )


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``solve``, ``check`` and ``backends`` to the command line."""
    p = commands.add_parser(
        "solve",
        help="solve puzzles given as text, files, set names or stdin",
        description="Solve puzzles. Each PUZZLE is a puzzle text, a file (one or many "
        "puzzles: lines, grids, pencil marks, CSV, or puzzle documents: .json, .jsonl), a "
        "catalog set name, or - for standard input; with none, stdin is read.",
        epilog=SOLVE_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_puzzle_arguments(p)
    p.add_argument(
        "--format",
        choices=("line", "grid"),
        default="line",
        help="how solutions are printed (default: line)",
    )
    check = p.add_mutually_exclusive_group()
    check.add_argument(
        "--unique",
        action="store_true",
        help="also check uniqueness; print 'unique' or 'multiple' after each solution",
    )
    check.add_argument(
        "--count",
        action="store_true",
        help="print the number of solutions instead (N+ when --limit stopped it)",
    )
    p.add_argument(
        "--limit",
        type=count,
        default=1000,
        help="most solutions --count looks for (default: 1000)",
    )
    p.add_argument(
        "--backend",
        type=spec_type,
        default="native",
        metavar="SPEC",
        help="a backend, a preset, or NAME:key=value,... (default: native, the fastest; "
        "see `sudokulab backends`)",
    )
    p.add_argument(
        "--propagation",
        choices=PROPAGATIONS,
        help=f"native engine propagation {_shape_defaults('propagation')}",
    )
    p.add_argument(
        "--order",
        choices=ORDERS,
        help=f"native engine cell order: {OPTIONS['order'].described()} {_shape_defaults('order')}",
    )
    p.add_argument(
        "--values",
        choices=VALUES,
        help=f"native engine value order: {OPTIONS['values'].described()} "
        f"(default: {DEFAULTS['values']})",
    )
    p.add_argument(
        "--timeout",
        type=seconds,
        metavar="SECONDS",
        help="give up on a puzzle after this long (default: none, except for a backend known "
        "to search for minutes on the puzzle: plain backtracking on grids beyond 9x9 or on "
        f"9x9 puzzles of 20 clues or fewer; those stop after {SLOW_TIMEOUT:g} s, with a "
        "warning)",
    )
    p.add_argument(
        "--stats",
        action="store_true",
        help="print status, time and the backend's counters (search nodes, guesses; a "
        "solver's conflicts, decisions, ...) of each puzzle on stderr",
    )
    p.add_argument(
        "--certify",
        metavar="DIR",
        help="prove each negative claim ('no solution', 'unique', an exact --count): for "
        "the k-th puzzle of the input (from 1, bad ones counted), write DIR/k.cnf (its CNF "
        "and a clause blocking each solution found) and DIR/k.drat (a DRAT proof that it "
        "has no model: the backend's own where it writes one, else Glucose's), checked by "
        "`sudokulab check-proof`'s checker; a claim the CNF refutes is an error. Puzzles "
        "are then solved one at a time",
    )
    p.set_defaults(handler=cmd_solve)

    p = commands.add_parser(
        "check",
        help="cross-check backends against each other and the rules",
        description="Solve every puzzle with every backend (uniqueness checked, limit 2), "
        "verify each answer independently and against known solutions, and report where "
        "backends disagree. PUZZLE is as for `solve`; a catalog set brings its known "
        "solutions when the catalog has them.",
        epilog=CHECK_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_puzzle_arguments(p)
    p.add_argument(
        "--backends",
        type=specs_type,
        metavar="LIST",
        help="comma-separated backend specs (default: every available complete backend: "
        "local search only when named)",
    )
    p.add_argument(
        "--timeout",
        type=seconds,
        default=10.0,
        metavar="SECONDS",
        help="per puzzle and backend (default: 10)",
    )
    p.add_argument(
        "--solutions",
        metavar="FILE",
        help="known solutions, one per puzzle in the same order (any format)",
    )
    p.add_argument("--csv", metavar="FILE", help="also write every row to this CSV file")
    p.add_argument(
        "--certify",
        metavar="DIR",
        help="prove and check each backend's negative claims ('no solution', 'unique'), as "
        "`solve --certify` does; the table counts the proofs, each puzzle's files "
        "DIR/k.cnf and DIR/k.drat (k: its number in the input, from 1, bad ones counted) "
        "are those of the first backend, in --backends' order, whose proof was accepted. "
        "Puzzles are then solved one at a time",
    )
    p.set_defaults(handler=cmd_check)

    p = commands.add_parser(
        "backends",
        help="list backends and presets, and whether each is available",
        description="List every registered backend (availability, version, what it accepts, "
        "its options, which native engine is active) and the named presets.",
    )
    p.set_defaults(handler=cmd_backends)


# --- solve -------------------------------------------------------------------------------


def cmd_solve(args: argparse.Namespace) -> int:
    """Solve every puzzle given; print solutions on stdout, problems on stderr.

    The input is read, solved and printed a block at a time (one engine call per block
    for the native engine), so output streams and memory stays bounded. A few
    puzzles given as text are solved one at a time instead, as :func:`sudokulab.solve`
    does: the same answers, without starting what a block needs (numpy, threads).
    """
    knobs = {"propagation": args.propagation, "order": args.order, "values": args.values}
    try:
        spec = as_spec(args.backend, **{k: v for k, v in knobs.items() if v})
    except ValueError as err:
        raise UsageError(str(err)) from None
    limit = args.limit if args.count else 2 if args.unique else 1
    if args.certify:
        _proof_folder(args.certify)
        refused = proof_refusal(spec)
        if refused:
            raise UsageError(f"--certify: {refused}")
    few = argument_puzzles(args)
    with contextlib.ExitStack() as stack:
        worker = None
        if _may_isolate(spec):  # the worker process starts only if a puzzle needs it
            from ..backends.isolation import Worker

            worker = stack.enter_context(Worker())
        if args.certify:
            blocks = input_blocks(args)
            head, many = _peek(blocks)
            printer = _Printer(args, many)
            _solve_few(_pieces(itertools.chain(head, blocks)), spec, limit, worker, printer)
        elif few is not None and len(few) <= FEW:
            printer = _Printer(args, sum(isinstance(item, Entry) for item in few) > 1)
            _solve_few(few, spec, limit, worker, printer)
        else:
            printer = _solve_blocks(input_blocks(args), spec, limit, worker, args)
    if not printer.seen and printer.worst == EXIT_OK:
        raise UsageError("no puzzle found in the input")
    if printer.unclaimed:
        print(
            f"sudokulab: {counted(printer.unclaimed, 'answer')} made no negative claim (a "
            "first solution, a count stopped at its limit, a timeout): nothing to certify; "
            "ask --unique or --count",
            file=sys.stderr,
        )
    return printer.worst


def proof_refusal(spec: BackendSpec | str) -> str:
    """Why a backend that writes its own proofs writes none with the spec's options
    ("": it writes one, or a second solver proves its claims), as a usage error says
    it."""
    spec = as_spec(spec)
    backend = get_backend(spec.backend)
    if not backend.certifies:
        return ""
    refused = backend.proof_refusal(check_options(backend, dict(spec.options)))
    return f"{spec}: no proof: {refused}" if refused else ""


#: The most puzzles given as text that are solved one at a time (see :func:`cmd_solve`).
FEW = 16


def _may_isolate(spec: BackendSpec) -> bool:
    """Whether the backend may run in a worker process: it cannot run in this one (on
    some grids), or cannot keep a deadline by itself (and the command may set one)."""
    return may_isolate(get_backend(spec.backend), spec.options)


def _pieces(items: Iterable[Block | ParseError]) -> Iterator[Entry | ParseError]:
    """The input's puzzles and bad pieces one by one, in input order, a block read at a
    time."""
    for item in items:
        if isinstance(item, ParseError):
            yield item
        else:
            yield from item.entries()


def _solve_few(
    items: Iterable[Entry | ParseError],
    spec: BackendSpec,
    limit: int,
    worker: Worker | None,
    printer: _Printer,
) -> None:
    """Solve each puzzle on its own (:func:`sudokulab.solve`), verify and print it (and
    with ``--certify``, prove its negative claim)."""
    args = printer.args
    warned = args.timeout is not None
    for number, item in enumerate(items, 1):
        if isinstance(item, ParseError):
            error(item)
            printer.worst = max(printer.worst, EXIT_BAD_INPUT)
            continue
        puzzle = item.puzzle
        clues = sum(1 for value in puzzle.givens if value)
        timeout, reason = _timeout(spec, puzzle.geometry.size, clues, bool(puzzle.cages), args)
        if reason and not warned:
            _warn(reason)
            warned = True
        certify = args.certify is not None  # checked there, the claim proved
        result = solve_puzzle(puzzle, spec, limit, timeout, worker=worker, certify=certify)
        printer.seen += 1
        label = f"{item.source} line {item.line}" if printer.many else "puzzle"
        good = result.solution is not None and result.status is not Status.ERROR
        printer.one(label, result, puzzle.geometry, good)
        if certify:
            printer.certify(label, number, result)


def _solve_blocks(
    items: Iterator[Block | ParseError],
    spec: BackendSpec,
    limit: int,
    worker: Worker | None,
    args: argparse.Namespace,
) -> _Printer:
    """Solve the input a block at a time, blocks side by side; print them."""
    head, many = _peek(items)
    printer = _Printer(args, many)
    threads = (os.cpu_count() or 1) if _parallel(spec) else 1

    def answer(block: Block) -> Answers:
        """The block's answers (verified by :func:`sudokulab.solve_grids`)."""
        timeout = _block_timeout(spec, block, args)[0]
        return solve_grids(block.grids, spec, limit, timeout, worker=worker)

    warned = _warned(itertools.chain(head, items), spec, args)
    for item, answered in _in_order(warned, answer, threads):
        if isinstance(item, ParseError):
            error(item)
            printer.worst = max(printer.worst, EXIT_BAD_INPUT)
        else:
            printer.show(item, answered)
    return printer


#: The timeout of a puzzle the backend is known to search for minutes on (``slow_reason``),
#: when no --timeout is given.
SLOW_TIMEOUT = 60.0


def _timeout(
    spec: BackendSpec, size: int, fewest: int, cages: bool, args: argparse.Namespace
) -> tuple[float | None, str]:
    """The timeout of puzzles of this size with at least ``fewest`` clues: the one given,
    else :data:`SLOW_TIMEOUT` when the backend may search for minutes on one of them (and
    why), else none."""
    if args.timeout is not None or cages:  # a killer puzzle's cages are clues too
        return args.timeout, ""
    reason = slow_reason(spec, size, fewest)
    return (SLOW_TIMEOUT, reason) if reason else (None, "")


def _block_timeout(
    spec: BackendSpec, block: Block, args: argparse.Namespace
) -> tuple[float | None, str]:
    """The timeout of a block's puzzles (:func:`_timeout` of its fewest clues)."""
    import numpy as np

    geometry, cages = block.grids.geometry, bool(block.grids.cages)
    most = _timeout(spec, geometry.size, 0, cages, args)
    if not most[1]:  # no count of clues makes the block slow: none to count
        return most
    givens = block.grids.givens
    fewest = int(np.count_nonzero(givens, axis=1).min(initial=givens.shape[1]))
    return _timeout(spec, geometry.size, fewest, cages, args)


def _warn(reason: str) -> None:
    print(
        f"sudokulab: warning: {reason}: each such puzzle stops after {SLOW_TIMEOUT:g} s "
        "(--timeout SECONDS to choose)",
        file=sys.stderr,
    )


def _warned(
    items: Iterable[Block | ParseError], spec: BackendSpec, args: argparse.Namespace
) -> Iterator[Block | ParseError]:
    """The items, with one warning on stderr before the first block that gets
    :data:`SLOW_TIMEOUT` because no --timeout was given."""
    warned = args.timeout is not None
    for item in items:
        if not warned and not isinstance(item, ParseError):
            reason = _block_timeout(spec, item, args)[1]
            if reason:
                _warn(reason)
                warned = True
        yield item


def _parallel(spec: BackendSpec) -> bool:
    """Whether blocks may be solved side by side: the compiled engine releases the GIL
    while it searches, so each core can search a block of its own."""
    backend = get_backend(spec.backend)
    return backend.batch and backend.engine == "c"


def _in_order(
    items: Iterable[Block | ParseError], answer, threads: int
) -> Iterator[tuple[Block | ParseError, Any]]:
    """Each item with its answers (None for an error), in input order; blocks cut to at
    most :data:`BLOCK` puzzles, ``threads`` of them solved at a time, and no more than
    a few blocks held at once (bounded memory, output as soon as it is ready)."""
    pieces = (
        piece
        for item in items
        for piece in (
            [item]
            if isinstance(item, ParseError) or len(item) <= BLOCK
            else (item.take(slice(i, i + BLOCK)) for i in range(0, len(item), BLOCK))
        )
    )
    if threads <= 1:
        for piece in pieces:
            yield piece, None if isinstance(piece, ParseError) else answer(piece)
        return
    from concurrent.futures import ThreadPoolExecutor  # only when threads solve

    window: collections.deque = collections.deque()
    with ThreadPoolExecutor(threads) as pool:
        for piece in pieces:
            job = None if isinstance(piece, ParseError) else pool.submit(answer, piece)
            window.append((piece, job))
            while len(window) > 2 * threads or (window and window[0][1] is None):
                done, job = window.popleft()
                yield done, None if job is None else job.result()
        while window:
            done, job = window.popleft()
            yield done, None if job is None else job.result()


#: Puzzles per engine call: large enough that the call's overhead vanishes, small enough
#: that output streams, memory stays bounded and the cores share the work.
BLOCK = 1 << 12


def _peek(items: Iterator[Block | ParseError]) -> tuple[list[Block | ParseError], bool]:
    """The first items of the input, enough to tell one puzzle from many."""
    head: list[Block | ParseError] = []
    puzzles = 0
    for item in items:
        head.append(item)
        puzzles += 0 if isinstance(item, ParseError) else len(item)
        if puzzles > 1:
            break
    return head, puzzles > 1


class _Printer:
    """Writes each puzzle's answer: solutions on stdout, problems on stderr."""

    def __init__(self, args: argparse.Namespace, many: bool) -> None:
        self.args, self.many = args, many
        self.worst = EXIT_OK
        self.seen = 0
        self.first_grid = True
        #: With --certify, the answers that made no negative claim (said once, at the end).
        self.unclaimed = 0

    def label(self, block: Block, i: int) -> str:
        return f"{block.source} line {block.lines[i]}" if self.many else "puzzle"

    def show(self, block: Block, answers: Answers) -> None:
        """A block's answers: the plain lines in bulk, anything else puzzle by puzzle."""
        import numpy as np

        from ..backends.result import ERROR
        from ..models.grids import format_lines

        args = self.args
        self.seen += len(block)
        # a solution that fails verification made its row an error (sudokulab.solve_grids)
        good = answers.solution.any(axis=1) & (answers.status != ERROR)
        if args.format == "line" and not (args.unique or args.count or args.stats):
            sys.stdout.write(format_lines(answers.solution[good]))
            for i in np.flatnonzero(~good).tolist():
                self.problem(self.label(block, i), answers.result(i))
            return
        for i in range(len(block)):
            self.one(self.label(block, i), answers.result(i), block.grids.geometry, bool(good[i]))

    def problem(self, label: str, result: Result) -> None:
        """Report a puzzle without a (right) solution; raise the exit status."""
        if result.status is Status.INVALID:
            print(f"sudokulab: {label}: invalid puzzle: {result.message}", file=sys.stderr)
            self.worst = max(self.worst, EXIT_BAD_INPUT)
            return
        reason = "no solution" if result.status is Status.UNSOLVABLE else str(result.status)
        detail = f" ({result.message})" if result.message else ""
        print(f"sudokulab: {label}: {reason}{detail}", file=sys.stderr)
        self.worst = max(self.worst, EXIT_FAILED)

    def one(self, label: str, result: Result, geometry: Geometry, good: bool) -> None:
        """One puzzle's answer in the chosen form (--stats, --count, --unique, --format);
        ``good``: it has a solution and is no error (which a wrong solution is)."""
        args = self.args
        if args.stats:
            print(_stats_line(label, result), file=sys.stderr)
        status = result.status
        if status is Status.INVALID or (not args.count and not good):
            self.problem(label, result)
            return
        if args.count:
            if status is Status.TIMEOUT or status is Status.ERROR:
                why = f" ({result.message})" if status is Status.ERROR and result.message else ""
                print(
                    f"sudokulab: {label}: {status} after {counted(result.count, 'solution')}{why}",
                    file=sys.stderr,
                )
                self.worst = max(self.worst, EXIT_FAILED)
            else:
                print(f"{result.count}{'' if result.exact else '+'}")
            return
        grid = list(result.solution or ())
        text = format_grid(grid, geometry) if args.format == "grid" else format_line(grid)
        if args.unique:
            count, exact = result.count, result.exact
            verdict = "multiple" if count >= 2 else "unique" if count == 1 and exact else "unknown"
            text += ("\n" if args.format == "grid" else " ") + verdict
            if verdict != "unique":
                self.worst = max(self.worst, EXIT_FAILED)
        if args.format == "grid" and not self.first_grid:
            print()
        print(text)
        self.first_grid = False

    def certify(self, label: str, number: int, result: Result) -> None:
        """Write the certificate :func:`sudokulab.solve` made of the answer's negative
        claim into ``--certify``'s folder and say what it is; count an answer that makes
        none (a first solution, a count stopped at its limit, a timeout)."""
        from ..api import claimed

        made = result.certificate
        if result.status is Status.INVALID:
            return
        if made is None:
            if claimed(result) is None:
                self.unclaimed += 1
                return
            # a claim that cannot be put as a CNF: the API kept the result and said why
            said = result.message.find("not certified")
            why = result.message[said:] if said >= 0 else "not certified"
            print(f"sudokulab: {label}: {why}", file=sys.stderr)
            self.worst = max(self.worst, EXIT_FAILED)
            return
        if made.refuted is not None:  # the answer's line said so (an error)
            return
        cnf, drat = made.write(Path(self.args.certify), number)
        if not made.accepted:
            print(
                f"sudokulab: {label}: the proof of {made.claim} was rejected: {made.reason} "
                f"({cnf}, {drat}; proof by {made.prover})",
                file=sys.stderr,
            )
            self.worst = max(self.worst, EXIT_FAILED)
            return
        print(
            f"sudokulab: {label}: certified {made.claim}: {cnf}, {drat} (proof by "
            f"{made.prover}: {counted(made.lemmas, 'lemma')}, {counted(made.lines, 'line')}, "
            f"{counted(made.size, 'byte')}; accepted by our checker in "
            f"{made.check_time * 1000:.3g} ms)",
            file=sys.stderr,
        )


def _stats_line(label: str, result: Result) -> str:
    """Status, time, the backend's counters (every number in its stats, in its order:
    nodes and guesses of the engine, a SAT solver's conflicts and decisions, ...)."""
    parts = [f"{label}: {result.status}", f"{result.time * 1000:.3f} ms"]
    for key, value in result.stats.items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            parts.append(f"{key} {value}")
    if result.unique is not None:
        parts.append("unique" if result.unique else "not unique")
    return ", ".join(parts)


# --- check -------------------------------------------------------------------------------


def cmd_check(args: argparse.Namespace) -> int:
    """Cross-check backends; exit 0 when all agree and verify, 1 when not, 2 for bad input."""
    from ..bench.crosscheck import SKIPPED, available_specs, cross_check, summarize

    if args.certify:
        _proof_folder(args.certify)
        for spec in args.backends or available_specs():
            refused = proof_refusal(spec)
            if refused:
                raise UsageError(f"--certify: {refused}")
    entries, unread = [], 0
    numbers: list[int] = []  # each puzzle's number in the input, bad pieces counted
    for item in input_blocks(args):  # a bad line is named, the good puzzles are checked
        if isinstance(item, ParseError):
            error(item)
            unread += 1
        else:
            found = item.entries()
            first = len(numbers) + unread + 1
            numbers += range(first, first + len(found))
            entries += found
    if not entries:
        if unread:
            return EXIT_BAD_INPUT
        raise UsageError("no puzzle found in the input")
    solutions = None
    if args.solutions:
        known = read_file(args.solutions, size=args.size)
        if len(known) != len(entries):
            raise UsageError(
                f"{args.solutions} has {counted(len(known), 'solution')} for "
                f"{counted(len(entries), 'puzzle')}"
            )
        solutions = [k.puzzle.givens for k in known]
    written: set[int] = set()

    def write(index: int, made: Any) -> None:
        """The first accepted proof of a puzzle, backends in the order asked."""
        if index not in written:
            written.add(index)
            made.write(Path(args.certify), numbers[index])

    try:
        frame = cross_check(entries, args.backends, args.timeout, solutions, progress=True,
                            certify=bool(args.certify), proved=write)  # fmt: skip
    except ValueError as err:  # e.g. no backend to check with
        raise UsageError(str(err)) from None
    if args.csv:
        try:
            frame.to_csv(args.csv, index=False)
        except OSError as err:
            raise UsageError(f"{args.csv}: cannot write: {err.strerror or err}") from None
    from ..bench.report import render

    sys.stdout.write(render(summarize(frame)))
    skipped = frame[frame["status"] == SKIPPED]
    if len(skipped):  # refused constraint kinds: said once per backend, never a failure
        print("\nskipped (the backend refuses the puzzle's constraint kinds):")
        for backend, rows in skipped.groupby("backend", sort=False):
            why = "; ".join(dict.fromkeys(rows["message"]))
            print(f"  {backend:<24} {counted(len(rows), 'puzzle')}: {why}")
    if args.certify:
        print(
            f"\nproofs: {len(written)} of {counted(frame['index'].nunique(), 'puzzle')} in "
            f"{args.certify}/ (k.cnf and k.drat, k the puzzle's number in the input; the "
            "first backend's proof accepted)"
        )
    bad = frame[~frame["ok"]]
    for index, rows in bad.groupby("index", sort=True):
        first = rows.iloc[0]
        print(f"\n{first['source'] or f'puzzle {index + 1}'}: {first['puzzle']}")
        for _, row in frame[frame["index"] == index].iterrows():
            answer = row["solution"] or "-"
            notes = [row["status"]]
            if row["verified"] is False:
                notes.append("FAILS VERIFICATION")
            if row["known"] is False:
                notes.append("differs from the known answer (solution or count)")
            if row["agrees"] is False:
                notes.append("disagrees with the other backends")
            if row.get("proved") is True:
                notes.append("proved")
            elif row.get("proved") is False and row["status"] != "error":
                notes.append("PROOF REJECTED")
            if row["message"]:
                notes.append(row["message"])
            print(f"  {row['backend']:<24} {answer}  {'; '.join(notes)}")
    invalid = frame["status"] == "invalid"
    total = frame["index"].nunique()
    if unread:
        were = "was" if unread == 1 else "were"
        print(f"\n{counted(unread, 'bad line')} in the input {were} not checked (see above)")
    if invalid.any():
        wrong = frame[invalid]["index"].nunique()
        are = "is" if wrong == 1 else "are"
        print(f"\n{wrong} of {counted(total, 'puzzle')} {are} invalid")
    if invalid.any() or unread:
        return EXIT_BAD_INPUT
    failed = bad["index"].nunique()
    if failed:
        print(f"\n{failed} of {counted(total, 'puzzle')}: backends disagree or fail")
        return EXIT_FAILED
    backends = frame[frame["status"] != SKIPPED]["backend"].nunique()
    who = f"all {backends} backends agree" if backends > 1 else "the backend's answers verify"
    print(f"\n{who} on {'all ' if total > 1 else ''}{counted(total, 'puzzle')}")
    return EXIT_OK


def _proof_folder(path: str) -> None:
    """A usage error when ``--certify``'s DIR is something other than a folder."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise UsageError(f"--certify {path}: not a folder (the proofs go in it)")


# --- backends ----------------------------------------------------------------------------


def cmd_backends(args: argparse.Namespace) -> int:
    """List backends with availability, version and options, then the presets."""
    for name, backend in all_backends().items():
        ok = backend.available()
        why = backend.missing() or f"not installed (pip install {backend.requires})"
        version = backend.version() if ok else why
        print(f"{name:<12} {'available' if ok else 'missing':<10} {version}")
        options = ", ".join(f"{k}={kind_name(v)}" for k, v in backend.options.items())
        stops = "own time limit" if backend.stops_itself else "killed at the deadline"
        killed = [
            f"{key}={value}"
            for key, kind in backend.options.items()
            if isinstance(kind, tuple)
            for value in kind
            if not backend.stops_itself_with({key: value})
            or not backend.in_process_with({key: value})
        ]
        if backend.stops_itself and killed:
            stops += f" (with {', '.join(killed)}: in a worker process, killed at the deadline)"
        cells = backend.in_process_cells
        if cells is not None:
            stops += f" (grids of more than {cells} cells: in a worker process)"
        larger = {
            f"{key}={value}": backend.in_process_cells_with({key: value})
            for key, kind in backend.options.items()
            if isinstance(kind, tuple)
            for value in kind
        }
        stops += "".join(
            f" (with {option}, grids of more than {most} cells: in a worker process)"
            for option, most in larger.items()
            if cells is None and most is not None
        )
        print(f"{'':<12} accepts {', '.join(sorted(backend.kinds))}; timeout: {stops}")
        if not backend.complete:
            print(f"{'':<12} incomplete: answers solved or timeout, never unsolvable or a count")
        if options:
            print(f"{'':<12} options: {options}")
    print("\npresets:")
    for name, (backend, options, what) in PRESETS.items():
        spec = ",".join(f"{k}={v}" for k, v in options.items())
        print(f"{name:<18} {backend}:{spec}  ({what})")
    return EXIT_OK
