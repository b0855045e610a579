"""The ``bench`` and ``report`` commands: the project's main job."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from ..backends import PRESETS, all_backends, parse_specs
from .common import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    UsageError,
    add_data_dir_option,
    count,
    error,
    processes,
    seconds,
    seed,
)

#: Where results go when --out is not given.
DEFAULT_OUT = "sudokulab-bench"
#: Seconds to reach a Dask scheduler, and to wait for its first worker when it has none.
CONNECT_TIMEOUT, WORKER_TIMEOUT = 5.0, 60.0
FORMATS = ("table", "markdown", "csv", "html", "json")
#: The statuses ``--fail-on`` may add to the rows that fail a run (wrong answers and
#: errors always do; invalid puzzles are bad input).
FAIL_ON = ("timeout", "unsolvable", "multiple")

BENCH_EXAMPLES = """\
examples:
  sudokulab bench                                   # the shipped sets, every backend
  sudokulab bench top95 hardest --data-dir ../shared/data --backends native,cpsat
  sudokulab bench sudoku17 --sample 1000 --seed 1 --backends hidden-singles,cpsat
  sudokulab bench my-puzzles.txt --backends backtracking,forward-checking --timeout 5
  sudokulab bench --resume 3                        # finish an interrupted run
  sudokulab bench top95 --executor dask --workers 8 # chunks as tasks of a local Dask cluster
  sudokulab bench top95 --scheduler tcp://head:8786 # ... or of a running cluster
  sudokulab bench top95 --backends native,cpsat --unique --certify  # each verdict proved

Results are kept in OUT/results.sqlite as they are produced; the report and the plots of
run N go to OUT/run-N/. A run is written by one bench at a time (a second one is refused).

The last line on standard error says what the run found (rows solved, timeouts and the
pairs they were in, wrong answers).

exit status: 0 every row answered (solved, no solution, several) or timed out, none wrong;
1 a wrong answer (rejected by the verifier, or a verdict the other backends contradict) or
an error row, or a row that --fail-on names; 2 bad input (an unreadable or empty set, a
bad line, clashing givens: the good puzzles are still run and stored) or usage; 130
interrupted (the command to resume is printed).
"""

REPORT_EPILOG = """\
exit status: as the bench's: 0 no row of the runs wrong and none an error (or one that
--fail-on names); 1 some are; 2 a puzzle was invalid, or usage (no store, no such run).
"""


def default_specs() -> list[str]:
    """Every available complete backend, then the native presets (the approaches
    compared); an incomplete one (local search, which would spend each unsolved
    puzzle's whole timeout) only when named."""
    names = [name for name, b in all_backends().items() if b.available() and b.complete]
    return names + list(PRESETS)


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``bench`` and ``report`` to the command line."""
    p = commands.add_parser(
        "bench",
        help="run backends over puzzle sets; store, report and plot the results",
        description="Run backend specs over puzzle sets (catalog names or files) with a "
        "hard per-puzzle timeout, keep every result in a SQLite store, then print the "
        "report and write it with plots next to the store. With no SET, the sets the "
        "project ships; with no --backends, every available complete backend (not local) and "
        "native preset.",
        epilog=BENCH_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "sets",
        nargs="*",
        metavar="SET",
        help="a catalog set name or a file of puzzles (default: the sets the project ships)",
    )
    p.add_argument(
        "--backends",
        metavar="LIST",
        help="comma-separated backend specs (default: every available complete backend, "
        "then the native presets)",
    )
    p.add_argument(
        "--timeout",
        type=seconds,
        default=10.0,
        metavar="S",
        help="seconds per puzzle (default: 10)",
    )
    p.add_argument(
        "--workers",
        type=processes,
        default=os.cpu_count() or 1,
        metavar="N",
        help="worker processes per backend, or of the local Dask cluster with --executor "
        "dask (default: one per core)",
    )
    p.add_argument(
        "--executor",
        choices=("local", "dask"),
        default=None,
        help="where chunks run: local worker processes, or a Dask cluster (a local one of "
        '--workers processes, or --scheduler\'s); needs `pip install "sudokulab[dask]"` '
        "(default: local)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="the address of a running Dask scheduler (e.g. tcp://host:8786) to send the "
        "work to; implies --executor dask",
    )
    p.add_argument(
        "--connect-timeout",
        type=seconds,
        default=CONNECT_TIMEOUT,
        metavar="S",
        help=f"seconds to reach the --scheduler before giving up (default: {CONNECT_TIMEOUT:g})",
    )
    p.add_argument(
        "--worker-timeout",
        type=seconds,
        default=WORKER_TIMEOUT,
        metavar="S",
        help="seconds to wait for a worker when the --scheduler has none, before giving up "
        f"(default: {WORKER_TIMEOUT:g})",
    )
    p.add_argument(
        "--dashboard-address",
        type=_host_port,
        metavar="HOST:PORT",
        help="where the local Dask cluster's dashboard listens: port 0 is a free port, an "
        "empty HOST every interface (default: 127.0.0.1:0, this machine only)",
    )
    p.add_argument(
        "--repeats",
        type=count,
        default=1,
        metavar="R",
        help="solve each puzzle R times with each backend (default: 1)",
    )
    p.add_argument("--unique", action="store_true", help="also check uniqueness (limit 2)")
    p.add_argument(
        "--certify",
        action="store_true",
        help="prove each negative claim ('no solution'; with --unique, 'unique') and check "
        "the proof (the backend's own, else a second solver's, as `solve --certify`): each "
        "row keeps the proof's lines, bytes, check time and whether it was accepted (the "
        "report's certified column; a rejected proof, or a claim no proof can be made of, "
        "is a wrong row, a refuted claim an error). Each puzzle is then solved alone; the "
        "proofs are not kept",
    )
    p.add_argument(
        "--rate",
        action="store_true",
        help="also rate each puzzle with the logic solver (once per puzzle, kept in the "
        "store), so the report shows times by human difficulty (see `sudokulab rate`)",
    )
    p.add_argument("--sample", type=count, metavar="N", help="a random sample of N per set")
    p.add_argument("--seed", type=seed, default=0, help="seed of --sample (default: 0)")
    _common(p)
    p.add_argument("--resume", type=count, metavar="RUN", help="finish an interrupted run")
    p.set_defaults(handler=cmd_bench)

    p = commands.add_parser(
        "report",
        help="report stored bench runs; two runs side by side",
        description="Summarise stored runs per set and backend (default: the latest). "
        "With two runs, also show them side by side with the ratio of their mean times.",
        epilog=REPORT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "runs",
        nargs="*",
        type=run_reference,
        metavar="RUN",
        help="a run number of the store (default: the latest), or STORE:RUN for a run of "
        "another store (a results folder or its results.sqlite), to compare runs of several "
        "stores or machines; with two runs, they are also compared",
    )
    p.add_argument(
        "--parquet",
        metavar="FILE",
        help="also write the runs' rows to a Parquet file (every column of the results, "
        "the machine of each run in its metadata; needs pyarrow: pip install "
        "'sudokulab[parquet]')",
    )
    _common(p)
    p.set_defaults(handler=cmd_report)


def _common(p: argparse.ArgumentParser) -> None:
    add_data_dir_option(p)
    p.add_argument(
        "--out",
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"results folder: the store and the run-N/ reports (default: {DEFAULT_OUT})",
    )
    p.add_argument(
        "--format", choices=FORMATS, default="table", help="report format (default: table)"
    )
    p.add_argument("--baseline", metavar="SPEC", help="speeds relative to this backend")
    p.add_argument(
        "--no-plots",
        action="store_true",
        help="draw no plots (faster); the report keeps those an earlier command drew",
    )
    p.add_argument(
        "--wide",
        action="store_true",
        help="every column in the terminal table (else the columns that fit the terminal)",
    )
    p.add_argument(
        "--fail-on",
        type=_fail_on,
        default=(),
        metavar="KINDS",
        help="also exit 1 when a row ends so: a comma list of "
        f"{', '.join(FAIL_ON)} (default: only wrong answers and errors fail a run)",
    )


def _fail_on(text: str) -> tuple[str, ...]:
    """``--fail-on``'s comma list, each one of FAIL_ON."""
    kinds = tuple(k.strip() for k in text.split(",") if k.strip())
    unknown = [k for k in kinds if k not in FAIL_ON]
    if unknown or not kinds:
        raise argparse.ArgumentTypeError(f"{text!r}: give a comma list of {', '.join(FAIL_ON)}")
    return kinds


def _store_path(args: argparse.Namespace) -> Path:
    """Where the store is: ``OUT/results.sqlite``; a UsageError when ``--out`` names
    something that is not a folder."""
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {args.out}: not a folder (the results folder holds the store)")
    return out / "results.sqlite"


def _store(path: Path, must_exist: bool, out: str):
    """The store at ``path`` (made if missing unless ``must_exist``)."""
    from ..bench.store import Store, StoreError

    if must_exist and not path.exists():
        raise UsageError(f"no results store at {path} (run `sudokulab bench --out {out}`)")
    try:
        return Store(path)
    except StoreError as err:
        raise UsageError(str(err)) from None


def _loader(extra_dirs: list[str]):
    """The load function of run_bench: a set's puzzles as a stream of blocks and bad
    lines, sampled."""
    from ..bench.plan import set_blocks

    def load_set(name: str, plan):
        return set_blocks(name, extra_dirs, sample=plan.sample, seed=plan.seed)

    return load_set


def _new_plan(args: argparse.Namespace):
    """The plan of a new run from the arguments, checked before anything is stored."""
    from ..bench import BenchPlan
    from ..catalog import entries

    sets = args.sets or [s.name for s in entries() if s.shipped]
    try:
        specs = [str(s) for s in parse_specs(args.backends)] if args.backends else None
    except ValueError as err:
        raise UsageError(str(err)) from None
    plan = BenchPlan(
        sets=list(dict.fromkeys(sets)),
        specs=specs or default_specs(),
        timeout=args.timeout,
        repeats=args.repeats,
        unique=args.unique,
        sample=args.sample,
        seed=args.seed,
        data_dirs=[str(Path(d).resolve()) for d in args.data_dir],
        certify=args.certify,
    )
    if plan.certify:
        _check_proofs(plan.specs)
    _check_sets(plan)
    _check_baseline(args.baseline, plan.specs, "the bench's backends")
    return plan


def _check_proofs(specs: list[str]) -> None:
    """Fail before any work when a backend asked to certify writes no proof with its
    options (a sat solver without proof logging)."""
    from .solve import proof_refusal

    for spec in specs:
        refused = proof_refusal(spec)
        if refused:
            raise UsageError(f"--certify: {refused}")


def _check_baseline(baseline: str | None, labels, among: str) -> None:
    """Fail before any work when --baseline names no backend the report will have."""
    known = list(dict.fromkeys(labels))
    if baseline is not None and baseline not in known:
        raise UsageError(
            f"--baseline {baseline!r} is not among {among}: {', '.join(known) or 'none'}"
        )


def _check_sets(plan) -> None:
    """Fail before starting, naming any set that cannot be found."""
    from ..catalog import SetNotFound, locate

    for name in plan.sets:
        try:
            locate(name, extra_dirs=plan.data_dirs)
        except SetNotFound as err:
            raise UsageError(str(err)) from None


def _host_port(text: str) -> str:
    """HOST:PORT, an empty HOST for every interface (``--dashboard-address``)."""
    host, colon, port = text.rpartition(":")
    if not colon or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT (e.g. 127.0.0.1:8787)")
    return text


@contextmanager
def _executor(args: argparse.Namespace) -> Iterator[tuple[Any, str]]:
    """The executor the options ask for, and how the start line describes it; a Dask
    cluster started here is closed on the way out. A cluster that cannot take the work
    (a bad or silent scheduler, no worker) is a UsageError."""
    from ..bench import LocalExecutor

    if (args.executor or ("dask" if args.scheduler else "local")) == "local":
        if args.scheduler:
            raise UsageError("--scheduler sends the work to Dask: it needs --executor dask")
        yield LocalExecutor(args.workers), f"{args.workers} worker(s) per backend"
        return
    from ..bench import dask_executor as dx

    try:
        dd = dx.distributed()
    except dx.DaskMissing as err:
        raise UsageError(str(err)) from None
    with ExitStack() as stack:
        try:
            if args.scheduler:
                client = stack.enter_context(dx.connect(args.scheduler, args.connect_timeout))
                dx.wait_for_workers(
                    client, args.worker_timeout, lambda s: print(f"bench: {s}", file=sys.stderr)
                )
            else:
                cluster = stack.enter_context(
                    dx.local_cluster(args.workers, args.dashboard_address)
                )
                client = stack.enter_context(dd.Client(cluster))
        except dx.ClusterUnusable as err:
            raise UsageError(str(err)) from None
        executor = dx.DaskExecutor(client)
        info = executor.describe()
        link = dx.dashboard_link(client)
        if link:
            print(f"bench: Dask dashboard {link}", file=sys.stderr)
        where = (
            f"Dask {info['scheduler']}: {info['workers']} worker(s), "
            f"{info['threads']} thread(s) on {', '.join(info['hosts'])}"
        )
        yield executor, where


def cmd_bench(args: argparse.Namespace) -> int:
    """Run a bench (or finish one), then report it.

    Everything that can be checked is, before the store is touched: the plan, the sets
    (read once: each bad line named, an empty set refused), the executor. A run is
    recorded with its first rows, so a bench that fails or is stopped before them leaves
    no run behind (and no store, if there was none).
    """
    from ..bench import BenchPlan
    from ..bench.run import NothingToRun, run_bench, survey_sets
    from ..bench.store import RunLocked

    path = _store_path(args)
    existed = path.exists()
    run = None
    with ExitStack() as stack:
        if args.resume is None:
            plan, store = _new_plan(args), None
        else:  # the store exists: the run's plan is in it, and the run is locked first
            store = stack.enter_context(_store(path, must_exist=True, out=args.out))
            try:
                plan = BenchPlan(**store.run_args(args.resume))
                store.lock_run(args.resume)
            except (LookupError, RunLocked) as err:
                raise UsageError(str(err)) from None
            _check_sets(plan)
            _check_baseline(args.baseline, plan.specs, f"the backends of run {args.resume}")
        load = _loader(plan.data_dirs)
        bad = _BadLines()
        surveys = survey_sets(plan, load, bad)
        if not any(s.puzzles for s in surveys):
            raise UsageError(f"no puzzle found in {', '.join(plan.sets)}")
        for empty in (s for s in surveys if not s.puzzles):
            error(f"{empty.name}: no puzzle found")
            bad.count += 1
        try:
            # the executor before the store: a scheduler that cannot take the work leaves
            # no store behind; closed after the run (the rating and the report need none)
            cluster = stack.enter_context(ExitStack())
            executor, where = cluster.enter_context(_executor(args))
            if store is None:
                store = stack.enter_context(_store(path, False, args.out))
            proving = "; certified" if plan.certify else ""
            print(
                f"bench: {', '.join(plan.sets)} x {', '.join(plan.specs)}; "
                f"timeout {plan.timeout:g} s{proving}, {where}; store {store.path}",
                file=sys.stderr,
            )
            run = run_bench(
                plan, store, load, executor, resume=args.resume, progress=True, surveys=surveys
            )
            cluster.close()
            if args.rate:
                from ..bench.ratings import rate_run_puzzles

                rated = rate_run_puzzles(store, run, jobs=args.workers)
                print(f"bench: rated {rated} puzzle(s) with the logic solver", file=sys.stderr)
            status = _report(store, [run], args)
        except KeyboardInterrupt as stop:  # in run_bench (which says its run) or around it
            interrupted = getattr(stop, "run_id", run if run is not None else args.resume)
            if interrupted is None:
                print("bench: interrupted before any row was stored; no run", file=sys.stderr)
            else:
                print(
                    f"bench: interrupted; finished rows are kept. Resume with: "
                    f"sudokulab bench --resume {interrupted} --out {args.out}",
                    file=sys.stderr,
                )
            return EXIT_INTERRUPTED
        except (NothingToRun, RunLocked) as err:
            raise UsageError(str(err)) from None
        finally:
            if not existed and run is None:
                stack.close()  # the store first, then what is left of it
                _discard_if_empty(path)
    if bad.count:
        return EXIT_BAD_INPUT
    return status


class _BadLines:
    """Names each bad line of a set on stderr (as ``solve`` does) and counts them."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, err: Exception) -> None:
        error(err)
        self.count += 1


def _discard_if_empty(path: Path) -> None:
    """Remove a store this command made when it holds no run (nothing was stored), and
    its folder when that is left empty."""
    import contextlib
    import sqlite3

    if not path.exists():
        return
    try:
        with contextlib.closing(sqlite3.connect(path)) as db:
            runs = db.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    except sqlite3.Error:
        return
    if runs:
        return
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            Path(f"{path}{suffix}").unlink()
    with contextlib.suppress(OSError):
        path.parent.rmdir()


def run_reference(text: str) -> tuple[Path | None, int]:
    """``report``'s RUN: ``N`` (a run of --out's store) or ``STORE:N``, STORE a results
    folder or a store file; (None or the store's path, N)."""
    folder, colon, number = text.rpartition(":")
    run = count(number)
    if not colon:
        return None, run
    if not folder:
        raise argparse.ArgumentTypeError(f"{text!r}: name a store before the colon (STORE:RUN)")
    path = Path(folder)
    return (path if path.suffix == ".sqlite" else path / "results.sqlite"), run


def cmd_report(args: argparse.Namespace) -> int:
    """Report stored runs (default: the latest)."""
    home = _store_path(args)
    paths = {(path or home).resolve() for path, _ in args.runs}
    if len(paths) > 1:
        return _report_stores(args, home)
    if paths:
        home = next(iter(paths))
    args.runs = [run for _, run in args.runs]
    with _store(home, must_exist=True, out=str(home.parent)) as store:
        runs = args.runs or store.run_ids()[-1:]
        if not runs:
            raise UsageError(f"{store.path} holds no run yet")
        known = set(store.run_ids())
        missing = [r for r in runs if r not in known]
        if missing:
            raise UsageError(f"no run {missing[0]} in {store.path} (runs: {sorted(known)})")
        for run in runs:
            _check_baseline(args.baseline, store.backends(run), f"the backends of run {run}")
        if args.parquet is not None:
            _write_parquet(store, runs, args.parquet)
        status = _report(store, runs, args)
        return EXIT_FAILED if status != EXIT_OK else EXIT_OK


def _report_stores(args: argparse.Namespace, home: Path) -> int:
    """``report`` over runs of several stores (or machines): each run's machine and
    summary, two runs side by side with their verdict, and ``report.md`` of them all in
    OUT/compare-N/ (no plots: they are drawn from one store's rows)."""
    from ..bench import report

    if args.parquet is not None:
        raise UsageError("--parquet writes runs of one store: give runs of one store")
    with ExitStack() as stack:
        opened: dict[Path, Any] = {}
        picked = []
        for path, run in args.runs:
            path = (path or home).resolve()
            if path not in opened:
                opened[path] = stack.enter_context(
                    _store(path, must_exist=True, out=str(path.parent))
                )
            store = opened[path]
            if run not in store.run_ids():
                raise UsageError(f"no run {run} in {path} (runs: {sorted(store.run_ids())})")
            _check_baseline(args.baseline, store.backends(run), f"the backends of {path}:{run}")
            picked.append((f"{path.parent.name}:{run}", store.rows([run]), store.runs([run])))
        lines = ["# sudokulab bench report: runs of several stores", ""]
        status = EXIT_OK
        for label, rows, info in picked:
            machine = report.machine_text(info.iloc[0])
            print(f"{label}: {machine}", file=sys.stderr)
            summary = report.summary(rows, baseline=args.baseline)
            lines += [f"## {report.markdown_text(label)}", "", report.markdown_text(machine), ""]
            lines += [report.render(summary, "markdown").rstrip("\n"), ""]
            if args.format == "table" and not args.wide:
                summary = _fitted(summary, report.render)
            sys.stdout.write(report.render(summary, args.format))
            outcome = report.Outcome.of(rows)
            print(f"{label}: {outcome.line()}", file=sys.stderr)
            if outcome.invalid:
                status = EXIT_BAD_INPUT
            elif outcome.failed(args.fail_on) and status == EXIT_OK:
                status = EXIT_FAILED
        if len(picked) == 2:
            (old_label, old, _), (new_label, new, _) = picked
            print(
                f"{old_label} -> {new_label} (old/new > 1: {new_label} is faster)", file=sys.stderr
            )
            table = report.compare(old, new)
            lines += [
                f"## {report.markdown_text(old_label)} -> {report.markdown_text(new_label)}",
                "",
            ]
            lines += [report.render(table, "markdown").rstrip("\n"), ""]
            if args.format == "table" and not args.wide:
                table = table[COMPACT_COMPARE]
            sys.stdout.write(report.render(table, args.format))
    folder = Path(args.out) / f"compare-{'-'.join(label.replace(':', '-') for label, *_ in picked)}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.md").write_text("\n".join(lines).rstrip("\n") + "\n")
    print(f"report: {folder}/ (no plots across stores)", file=sys.stderr)
    return status


#: The columns a terminal table always shows (unless --wide asks for all of them); those
#: shown when some row has one; then the rest, most telling first, while the table fits
#: the terminal's width (80 columns when the output is not a terminal).
ALWAYS = ["set", "backend", "puzzles", "solved", "timeouts", "errors", "wrong", "mean_s",
          "vs_baseline"]  # fmt: skip
WHEN_FOUND = ["unsolvable", "multiple", "invalid", "certified"]
IF_ROOM = [
    "median_s", "vs_baseline_low", "vs_baseline_high", "mean_low_s",
    "mean_high_s", "max_s", "mean_guesses", "p90_s", "puzzles_per_s", "mean_cpu_s",
    "peak_mb", "under_100ms", "under_1s",
]  # fmt: skip
#: The columns of two runs side by side on a terminal (the verdict says the rest).
COMPACT_COMPARE = ["set", "backend", "old_mean_s", "new_mean_s", "ratio", "ratio_low",
                   "ratio_high", "verdict"]  # fmt: skip


def _fitted(summary, render) -> Any:
    """The summary's columns for a terminal, in its order: :data:`ALWAYS`,
    :data:`WHEN_FOUND` where some row has one, then :data:`IF_ROOM` in turn while the
    rendered table fits the terminal's width; standard error says how many were left
    out. A certified run's proof columns are one ``certified`` column here."""
    import shutil

    from ..bench.report import compact_certified

    summary = compact_certified(summary)
    width = shutil.get_terminal_size((80, 24)).columns if sys.stdout.isatty() else 80
    found = [c for c in WHEN_FOUND if c in summary and summary[c].astype(bool).any()]
    columns = [c for c in ALWAYS if c in summary] + found
    for column in (c for c in IF_ROOM if c in summary):
        wider = summary[[*columns, column]]
        if max(map(len, render(wider).splitlines())) <= width:
            columns.append(column)
    left = [c for c in summary.columns if c not in columns]
    if left:
        print(f"({len(left)} more columns: --wide or --format csv shows them)", file=sys.stderr)
    return summary[[c for c in summary.columns if c in columns]]  # in the summary's order


def _write_parquet(store, runs: list[int], path: str) -> None:
    """``report --parquet``: the runs' rows to ``path``; a UsageError without pyarrow or
    when the file cannot be written (nothing half-written is left)."""
    import importlib.util

    if importlib.util.find_spec("pyarrow") is None:
        raise UsageError("--parquet needs pyarrow: pip install 'sudokulab[parquet]'")
    target = Path(path)
    try:
        rows = store.write_parquet(target, runs)
    except OSError as err:
        target.unlink(missing_ok=True)
        raise UsageError(f"--parquet {path}: cannot write: {err.strerror or err}") from None
    print(f"parquet: {rows} rows of run {', '.join(map(str, runs))} in {path}", file=sys.stderr)


#: Most per-puzzle scatter plots a report draws (one per backend against the baseline).
MAX_SCATTERS = 6


def _scatter_pairs(rows, baseline: str | None) -> list[tuple[str, str]]:
    """The (x, y) backends of the report's scatter plots: each backend against the
    baseline (the first MAX_SCATTERS), or the two backends of a run of two."""
    names = [
        str(rows.name(b))
        for (b,) in rows.query("SELECT backend FROM {rows} GROUP BY backend ORDER BY MIN(seq)")
    ]
    if baseline is not None:
        return [(baseline, b) for b in names if b != baseline][:MAX_SCATTERS]
    return [(names[0], names[1])] if len(names) == 2 else []


def _drawn_plots(folder: Path, info) -> dict[str, str]:
    """The plots an earlier command drew in a run's folder after the run's last rows, in
    the order they were drawn: ``report --no-plots`` draws none and keeps these in the
    report it writes again, rather than leave them out of it."""
    from datetime import datetime

    done = [datetime.fromisoformat(t).timestamp() for t in info["finished"] if isinstance(t, str)]
    last = max(done, default=0.0)
    drawn = sorted(folder.glob("*.png"), key=lambda path: path.stat().st_mtime_ns)
    return {path.stem: path.name for path in drawn if path.stat().st_mtime >= last}


def _report(store, runs: list[int], args: argparse.Namespace) -> int:
    """Print each run's summary (and two runs side by side); write report.md, the plots,
    and report.html (the whole report in one file, the plots inside);
    the exit status the rows call for (2 when a puzzle was invalid, 1 when a row was not
    solved right, else 0).

    Every table is computed in SQL where the rows are: memory holds the tables, never the
    rows. Only the tables go to stdout, so csv and json output stays machine-readable.
    """
    from ..bench import report

    info = store.runs(runs)
    each = {run: store.rows([run]) for run in runs}  # each keeps its tables, once computed
    for run in runs:
        rows = each[run]
        row = info[info["run_id"] == run].iloc[0]
        print(f"run {run}: {report.machine_text(row)}", file=sys.stderr)
        summary = report.summary(rows, baseline=args.baseline)
        if args.format == "table" and not args.wide:
            summary = _fitted(summary, report.render)
        sys.stdout.write(report.render(summary, args.format))
        grades = report.by_grade(rows)
        if grades is not None:
            print(f"run {run} by difficulty (the logic solver's grades):", file=sys.stderr)
            sys.stdout.write(report.render(grades, args.format))
    if len(runs) == 2:
        print(
            f"run {runs[0]} -> run {runs[1]} (old/new > 1: run {runs[1]} is faster)",
            file=sys.stderr,
        )
        old, new = (each[r] for r in runs)
        table = report.compare(old, new)
        if args.format == "table" and not args.wide:
            table = table[COMPACT_COMPARE]
        sys.stdout.write(report.render(table, args.format))
    rows = each[runs[0]] if len(runs) == 1 else store.rows(runs)
    folder = Path(args.out) / f"run-{'-'.join(map(str, runs))}"
    folder.mkdir(parents=True, exist_ok=True)
    plots: dict[str, str] = {}
    kept: dict[str, str] = {}
    if not args.no_plots and rows.count():
        from ..bench import plots as draw

        paths = draw.plot_cumulative(rows, folder) + draw.plot_means(rows, folder)
        paths += draw.plot_cactus(rows, folder) + draw.plot_profile(rows, folder)
        for x, y in _scatter_pairs(rows, args.baseline):
            paths += draw.plot_scatter(rows, x, y, folder)
        for path in paths:
            if path.suffix == ".png":
                plots[path.stem] = path.name
    elif args.no_plots:
        plots = kept = _drawn_plots(folder, info)
    (folder / "report.md").write_text(
        report.markdown_report(rows, info, baseline=args.baseline, plots=plots)
    )
    images = {caption: folder / name for caption, name in plots.items()}
    (folder / "report.html").write_text(
        report.html_report(rows, info, baseline=args.baseline, images=images)
    )
    written = "report and plots" if plots else "report"
    if kept:
        written = "report (with the plots drawn before)"
    print(f"{written}: {folder}/", file=sys.stderr)
    outcome = report.Outcome.of(rows)
    label = f"run {runs[0]}" if len(runs) == 1 else f"runs {', '.join(map(str, runs))}"
    print(f"{label}: {outcome.line()}", file=sys.stderr)
    if outcome.invalid:
        return EXIT_BAD_INPUT
    return EXIT_FAILED if outcome.failed(args.fail_on) else EXIT_OK
