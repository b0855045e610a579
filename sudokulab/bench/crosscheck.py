"""Cross-checking: every backend on every puzzle, verified and compared.

Each answer is checked by the independent verifier (the API's, on every answer), against
a known solution when the input has one, and against the other backends' answers: they
must agree on whether the puzzle has no solution, one (and which), or several.
Disagreements are reported, never hidden. With ``certify`` each negative claim is also
proved and checked (:func:`sudokulab.solve`): a rejected proof, a refuted claim or a
claim no proof could be made of fails its row as a disagreement does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..api import as_puzzle, solve_grids
from ..backends import BackendSpec, Worker, all_backends, as_spec, get_backend
from ..backends.base import may_isolate, unsupported
from ..backends.result import Answers
from ..models import Entry, Grid, Puzzle, build_model
from ..models.grids import Grids, format_lines
from ..models.stream import Block, blocks_of
from .executors import Proofs, certified_block
from .progress import Progress
from .store import CONCLUSIVE

if TYPE_CHECKING:
    import pandas as pd

    from ..backends import Result
    from ..certify.prove import Certificate

COLUMNS = [
    "index", "source", "puzzle", "backend", "status", "count", "unique", "time",
    "build_time", "solve_time", "verified", "known", "agrees", "ok", "solution", "message",
]  # fmt: skip
#: The columns a certified check adds (:func:`cross_check`'s ``certify``).
PROOF_COLUMNS = ["proved", "proof_lines", "proof_bytes", "check_time"]


#: The status of a row whose backend refuses the puzzle's constraint kinds: not run, and
#: neither a failure nor a disagreement (its message says why).
SKIPPED = "skipped"

#: The status a limit-2 search earns on a puzzle with 0, 1, or 2 or more solutions.
_BY_COUNT = {0: "unsolvable", 1: "solved", 2: "multiple"}


def available_specs() -> list[BackendSpec]:
    """Every registered complete backend that can run here, in the default order: an
    incomplete one (local search) cannot answer a uniqueness check, so it takes part
    only when named, and then its answers count as timeouts do."""
    return [BackendSpec(name) for name, b in all_backends().items() if b.available() and b.complete]


def verdict(status: str, solution: object) -> tuple:
    """What an answer says about a puzzle: which solution, or only how the search ended.

    Two backends agree when their verdicts are equal. With a uniqueness check (limit 2)
    ``solved`` means exactly one solution, so equal verdicts mean the same unique grid.
    """
    return (str(status), solution) if str(status) == "solved" else (str(status),)


def agreement_flags(
    answers: Sequence[tuple[str, str, object]], compare_solutions: bool
) -> list[bool | None]:
    """For each (backend, status, solution) answer to one puzzle: does its verdict match
    the other backends'?

    Only conclusive answers are compared: a timeout or an error has no verdict (None), and
    neither has any answer when fewer than two backends answered conclusively. With
    ``compare_solutions`` (a uniqueness check) ``solved`` claims the one solution, so the
    grids must be equal; without it any valid solution is a right answer (the verifier
    judges each).

    >>> agreement_flags([("a", "solved", "12"), ("b", "timeout", None), ("c", "solved", "12")],
    ...                 compare_solutions=True)
    [True, None, True]
    """
    conclusive = [(b, s, sol) for b, s, sol in answers if str(s) in CONCLUSIVE]
    verdicts = {verdict(s, sol if compare_solutions else None) for _, s, sol in conclusive}
    answered = len({b for b, _, _ in conclusive}) >= 2
    return [
        len(verdicts) == 1 if answered and str(s) in CONCLUSIVE else None for _, s, _ in answers
    ]


def _answers(
    spec: BackendSpec, grids: Grids, timeout: float | None, worker: Worker | None, bar
) -> Answers:
    """One backend on a block with limit 2; a crash costs the rows it touched only."""
    label = str(spec)

    def tick(k: int) -> None:
        for _ in range(k):
            bar.update(label)

    if bar is None:
        tick = None  # type: ignore[assignment]
    try:
        return solve_grids(grids, spec, 2, timeout, worker=worker, progress=tick)
    except Exception:  # noqa: BLE001 - retried one by one below, to name the culprit
        pass
    out = Answers.empty(label, len(grids), grids.geometry.cell_count)
    out.verified = np.zeros(len(grids), dtype=bool)
    for i in range(len(grids)):
        try:
            one = solve_grids(grids.take(slice(i, i + 1)), spec, 2, timeout, worker=worker)
        except Exception as err:  # report it as this backend's answer, keep going
            out.messages[i] = f"{type(err).__name__}: {err}"
        else:
            out.put(np.array([i]), one)
        if tick is not None:
            tick(1)
    return out


def _certified(
    spec: BackendSpec,
    grids: Grids,
    timeout: float | None,
    worker: Worker | None,
    bar,
    proved: Callable[[int, Certificate], None],
) -> tuple[Answers, Proofs]:
    """One backend on a block, each puzzle alone with its claim proved (limit 2);
    ``proved(i, certificate)`` is handed each accepted proof (row ``i`` of the block)."""
    label = str(spec)

    def each(i: int, result: Result) -> None:
        made = result.certificate
        if made is not None and made.accepted:
            proved(i, made)
        if bar is not None:
            bar.update(label)

    made = certified_block(grids, spec, 2, timeout, None, worker, each)
    assert made is not None  # no stop event: every puzzle is answered
    return made


def _refusals(specs: Sequence[BackendSpec], puzzle: Puzzle) -> list[str]:
    """Per backend, why it refuses the constraint kinds of a block's puzzles (they share
    them; "" when it takes them)."""
    model = build_model(puzzle)
    return [unsupported(get_backend(s.backend), model, s.options) for s in specs]


def _skipped(spec: BackendSpec, grids: Grids, bar) -> Answers:
    """The answers of a backend that refuses the block: none, the rows ticked off."""
    if bar is not None:
        for _ in range(len(grids)):
            bar.update(str(spec))
    return Answers.empty(str(spec), len(grids), grids.geometry.cell_count)


def cross_check(
    puzzles: Iterable[Puzzle | str | Entry],
    backends: Sequence[str | BackendSpec] | None = None,
    timeout: float | None = 10.0,
    solutions: Sequence[Grid | None] | None = None,
    progress: bool = False,
    certify: bool = False,
    proved: Callable[[int, Certificate], None] | None = None,
) -> pd.DataFrame:
    """Run every backend on every puzzle (limit 2) and compare; one row per pair.

    Columns: ``index``, ``source``, ``puzzle``, ``backend``, ``status``, ``count``,
    ``unique``, ``time``, ``build_time``, ``solve_time``, ``verified`` (the independent
    verifier accepts the solution; None without one), ``known`` (it equals the known
    solution, and its status fits the known number of solutions, as an :class:`Entry`
    may carry them; None without either), ``agrees`` (this row's verdict is the other
    backends':
    no solution, the same unique solution, or several; None for a timeout or an error,
    and when fewer than two backends answered), ``ok`` (the row is conclusive, verified,
    matches what is known, and does not disagree; or it is ``skipped``: the backend
    refuses the puzzle's constraint kinds, and its message says why), ``solution``, ``message``.
    Backends that cannot stop themselves run in one child process each, killed at the
    deadline. ``solutions`` gives known solutions in puzzle order (default: the ones an
    :class:`Entry` carries). With ``progress``, a bar (or periodic lines) on stderr.
    Puzzles of one shape go to each backend as one block
    (:func:`~sudokulab.api.solve_grids`: one engine call for the native engine), which
    verifies them in bulk: a solution that fails is an ``error`` row, ``verified`` False.

    With ``certify`` each puzzle goes alone to each backend through
    :func:`sudokulab.solve` with ``certify``, and the rows have :data:`PROOF_COLUMNS` too:
    ``proved`` (True: the checker accepted the proof of the row's negative claim; False:
    it rejected it, or the claim was refuted, which fails the row; None: no claim to
    prove, or one that cannot be put as a CNF: its message says so), the proof's lines,
    bytes and check time (None without a proof). ``proved(index, certificate)`` is handed
    every accepted proof as it comes, backends in the order given; the proofs are not
    kept.
    """
    import pandas as pd

    specs = [as_spec(b) for b in backends] if backends is not None else available_specs()
    if not specs:
        raise ValueError("no backend to check with")
    entries = [
        item if isinstance(item, Entry) else Entry(as_puzzle(item), None, "", 0) for item in puzzles
    ]
    rows: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        bar = (
            stack.enter_context(Progress(len(entries) * len(specs), "check")) if progress else None
        )
        workers = {
            str(s): stack.enter_context(Worker())
            for s in specs
            if may_isolate(get_backend(s.backend), s.options)
        }
        start = 0
        for block in blocks_of(entries):
            refused = _refusals(specs, block.grids.puzzle(0))
            proofs: list[Proofs | None] = []
            answers = []
            for k, s in enumerate(specs):
                if refused[k]:
                    answers.append(_skipped(s, block.grids, bar))
                    proofs.append(None)
                elif certify:
                    first = start  # this block's first index, bound now

                    def keep(i: int, made: Certificate, first: int = first) -> None:
                        if proved is not None:
                            proved(first + i, made)

                    done, figures = _certified(
                        s, block.grids, timeout, workers.get(str(s)), bar, keep
                    )
                    answers.append(done)
                    proofs.append(figures)
                else:
                    answers.append(_answers(s, block.grids, timeout, workers.get(str(s)), bar))
                    proofs.append(None)
            rows += _rows(
                block,
                entries[start : start + len(block)],
                start,
                answers,
                solutions,
                refused,
                proofs if certify else None,
            )
            start += len(block)
    return pd.DataFrame(rows, columns=COLUMNS + PROOF_COLUMNS * certify)


def _rows(
    block: Block,
    entries: Sequence[Entry],
    start: int,
    answers: Sequence[Answers],
    solutions: Sequence[Grid | None] | None,
    refused: Sequence[str],
    proofs: Sequence[Proofs | None] | None = None,
) -> list[dict[str, Any]]:
    """The rows of one block: each backend's answer (verified by the API), compared with
    what is known and with the other backends'; a backend that ``refused`` the block's kinds
    (the reason, else "") has rows ``skipped`` saying why, which fail nothing. With
    ``proofs`` (a certified check: each backend's, None where it refused), the rows have
    :data:`PROOF_COLUMNS`, and one whose proof failed is not ok."""
    grids = block.grids
    if grids.candidates is None:
        puzzles = format_lines(grids.givens).splitlines()
    else:  # pencil marks: each puzzle's line says them (its givens alone would not)
        puzzles = [str(puzzle) for puzzle in grids.puzzles()]
    has = [a.solution.any(axis=1) for a in answers]
    # the API verified every answer (a failing solution made its row an error); a backend
    # that refused the block has neither solutions nor that column
    verified = [np.zeros(len(a), bool) if a.verified is None else a.verified for a in answers]
    texts = [format_lines(a.solution).splitlines() for a in answers]
    statuses = [
        np.full(len(entries), SKIPPED, dtype=object) if why else a.status_names()
        for a, why in zip(answers, refused, strict=True)
    ]
    rows = []
    for i, entry in enumerate(entries):
        index = start + i
        known = entry.solution if solutions is None else solutions[index]
        source = f"{entry.source}:{entry.line}" if entry.source else ""
        flags = agreement_flags(
            [(a.backend, statuses[j][i], texts[j][i] if has[j][i] else None)
             for j, a in enumerate(answers)],
            compare_solutions=True,
        )  # fmt: skip
        for j, (a, agrees) in enumerate(zip(answers, flags, strict=True)):
            status = statuses[j][i]
            grid = a.solution[i] if has[j][i] else None
            checked = bool(verified[j][i]) if grid is not None else None
            matches = (tuple(grid.tolist()) == tuple(known)) if grid is not None and known else None
            count, exact = int(a.count[i]), bool(a.exact[i])
            if entry.count is not None and status in _BY_COUNT.values():
                right = status == _BY_COUNT[min(entry.count, 2)]
                matches = right if matches is None else matches and right
            row_proofs = proofs[j] if proofs is not None else None
            figures = _figures(row_proofs, i)
            ok = bool(refused[j]) or (
                status in CONCLUSIVE
                and status != "invalid"
                and agrees is not False
                and checked is not False
                and matches is not False
                and figures.get("proved") is not False
                and not (row_proofs is not None and row_proofs.unproved[i])
            )
            rows.append(
                {
                    "index": index,
                    "source": source,
                    "puzzle": puzzles[i],
                    "backend": a.backend,
                    "status": status,
                    "count": count,
                    "unique": False if count >= 2 else True if count == 1 and exact else None,
                    "time": float(a.build_time[i] + a.solve_time[i]),
                    "build_time": float(a.build_time[i]),
                    "solve_time": float(a.solve_time[i]),
                    "verified": checked,
                    "known": matches,
                    "agrees": agrees,
                    "ok": ok,
                    "solution": texts[j][i] if grid is not None else "",
                    "message": refused[j] or a.messages.get(i, ""),
                    **(figures if proofs is not None else {}),
                }
            )
    return rows


def _figures(proofs: Proofs | None, i: int) -> dict[str, Any]:
    """Row ``i``'s :data:`PROOF_COLUMNS` (None where nothing was proved)."""
    if proofs is None:
        return dict.fromkeys(PROOF_COLUMNS)
    values = (proofs.proved[i], proofs.lines[i], proofs.size[i], proofs.check_s[i])
    kinds = (bool, int, int, float)
    return {
        c: None if v != v else kind(v)
        for c, v, kind in zip(PROOF_COLUMNS, values, kinds, strict=True)
    }


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    """Per backend: how many puzzles, by status (``skipped`` when some were refused),
    verified, known matches, agreement, mean time (seconds, as the bench's tables); of a
    certified check, ``certified``: the proofs accepted and rejected, and the mean
    proof's lines, bytes and check time (:func:`~.report.certified_text`)."""
    by = frame.groupby("backend", sort=False)
    summary = by.agg(
        puzzles=("index", "size"),
        solved=("status", lambda s: int((s == "solved").sum())),
        multiple=("status", lambda s: int((s == "multiple").sum())),
        unsolvable=("status", lambda s: int((s == "unsolvable").sum())),
        timeout=("status", lambda s: int((s == "timeout").sum())),
        error=("status", lambda s: int((s == "error").sum())),
        invalid=("status", lambda s: int((s == "invalid").sum())),
        skipped=("status", lambda s: int((s == SKIPPED).sum())),
        verified=("verified", lambda s: int((s == True).sum())),  # noqa: E712
        known=("known", lambda s: int((s == True).sum())),  # noqa: E712
        agrees=("agrees", lambda s: int((s == True).sum())),  # noqa: E712
        mean_s=("time", "mean"),
    )
    if not summary["skipped"].any():  # the column only where a backend refused something
        summary = summary.drop(columns="skipped")
    if "proved" in frame:
        import pandas as pd

        from .report import certified_text

        numbers = {c: pd.to_numeric(frame[c], errors="coerce") for c in PROOF_COLUMNS[1:]}
        proofs = (
            frame.assign(**numbers)
            .groupby("backend", sort=False)
            .agg(
                proved=("proved", lambda s: int((s == True).sum())),  # noqa: E712
                rejected=("proved", lambda s: int((s == False).sum())),  # noqa: E712
                lines=("proof_lines", "mean"),
                size=("proof_bytes", "mean"),
                check=("check_time", "mean"),
            )
        )
        summary.insert(
            list(summary.columns).index("mean_s"),
            "certified",
            [certified_text(*row) for row in proofs.itertuples(index=False, name=None)],
        )
    return summary
