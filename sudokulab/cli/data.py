"""The ``sets`` and ``data fetch`` commands: the catalog of puzzle sets."""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from ..catalog import (
    RETRIES,
    FetchError,
    SetNotFound,
    catalog,
    fetch,
    locate,
    status,
    unknown_set,
)
from .common import (
    EXIT_FAILED,
    EXIT_OK,
    Number,
    UsageError,
    add_data_dir_option,
    error,
    seconds,
)

SETS_EXAMPLES = """\
examples:
  sudokulab sets
  sudokulab sets --data-dir ../shared/data
  SUDOKULAB_DATA=../shared/data sudokulab sets

A file whose sha256 is not the catalog's is marked "not the set's file" (commands that
read the set refuse it). exit status: 0 listed, 2 a --data-dir that is not a folder.
"""

FETCH_EXAMPLES = """\
examples:
  sudokulab data fetch top95
  sudokulab data fetch top95 hardest easy50 --cache /tmp/sets
  sudokulab data fetch top95 --url https://mirror.example/sudoku-top95.txt
  sudokulab data fetch top2365 --retries 5 --timeout 120

exit status: 0 every set fetched or already present, 1 a download failed or its sha256
was wrong (nothing is kept), 2 an unknown set name.
"""


#: Retries of a download: 0 (one try) or more.
retries = Number(int, 0, 100)


def cmd_sets(args: argparse.Namespace) -> int:
    """List every catalog set: name, count, where it is (or how to get it), description."""
    extra = args.data_dir or []
    for folder in extra:
        if not Path(folder).expanduser().is_dir():
            raise UsageError(f"--data-dir {folder}: not a folder")
    rows = status(extra)
    width = max(len(r["name"]) for r in rows)
    print(f"{'set':<{width}}  {'count':>6}  where")
    for row in rows:
        where = row["path"] or f"missing (sudokulab data fetch {row['name']})"
        if row["wrong"]:
            where += " (not the set's file: its sha256 differs from the catalog's)"
        also = f" (also: {', '.join(row['aliases'])})" if row["aliases"] else ""
        print(f"{row['name']:<{width}}  {row['count']:>6}  {where}")
        print(f"{'':<{width}}  {'':>6}  {row['description']}{also}")
    return EXIT_OK


def cmd_data_fetch(args: argparse.Namespace) -> int:
    """Fetch each named set into the cache unless a good copy is already in a data folder."""
    sets = catalog()
    unknown = [n for n in args.names if n not in sets]
    if unknown:
        raise UsageError("; ".join(str(unknown_set(name)) for name in unknown))
    if args.url and len(args.names) > 1:
        raise UsageError("--url takes one set name")
    worst = EXIT_OK
    for name in dict.fromkeys(args.names):
        info = sets[name]
        present = None
        if args.cache is None:  # an explicit --cache asks for a copy there
            with contextlib.suppress(SetNotFound):
                present = locate(name, args.data_dir or [])
        if present is not None:  # found, and its sha256 is the catalog's
            print(f"{info.name}: present at {present}")
            continue
        try:
            path = fetch(
                name,
                cache_dir=args.cache,
                url=args.url,
                timeout=args.timeout,
                retries=args.retries,
            )
        except (FetchError, OSError) as err:
            error(err)
            worst = EXIT_FAILED
            continue
        print(f"{info.name}: {path}")
    return worst


def add_commands(commands: argparse._SubParsersAction) -> None:
    """Add ``sets`` and ``data fetch`` to the command line."""
    p = commands.add_parser(
        "sets",
        help="list the catalog's puzzle sets and whether each is present",
        description="List every puzzle set of the catalog: its name, its number of puzzles, "
        "where it was found (the project's data, the cache, --data-dir, $SUDOKULAB_DATA) or "
        "how to get it, and what it is.",
        epilog=SETS_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_data_dir_option(p)
    p.set_defaults(handler=cmd_sets)

    p = commands.add_parser(
        "data",
        help="manage the public puzzle sets (fetch)",
        description="Manage the public puzzle sets of the catalog.",
    )
    actions = p.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    f = actions.add_parser(
        "fetch",
        help="download public sets into the cache, checking their sha256",
        description="Download each named public set into the user cache ($SUDOKULAB_CACHE, "
        "else $XDG_CACHE_HOME/sudokulab, else ~/.cache/sudokulab). A file whose sha256 "
        "differs from the catalog's is refused and nothing is kept. A set already present "
        "with the right sha256 is not downloaded again. A progress bar shows on a terminal.",
        epilog=FETCH_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    f.add_argument("names", nargs="+", metavar="NAME", help="a catalog set name or alias")
    add_data_dir_option(f)
    f.add_argument("--cache", metavar="DIR", help="download into DIR instead of the cache")
    f.add_argument("--url", metavar="URL", help="download from URL instead (a mirror)")
    f.add_argument(
        "--timeout",
        type=seconds,
        default=60.0,
        metavar="SECONDS",
        help="network timeout (default: 60)",
    )
    f.add_argument(
        "--retries",
        type=retries,
        default=RETRIES,
        metavar="N",
        help="try a download again up to N times after a network or server error or a "
        f"wrong sha256, waiting 1 s, 2 s, ... in between (default: {RETRIES})",
    )
    f.set_defaults(handler=cmd_data_fetch)
